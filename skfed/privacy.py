"""Differential privacy of what nodes send, accounted per node.

A :class:`DifferentialPrivacy` specification passed to an estimator as
``privacy=`` asks every node to keep what it *sends* ``(epsilon,
delta)``-differentially private with respect to its own data: whatever a
node's neighbours, the server or an eavesdropper see of its messages changes
by at most a factor ``exp(epsilon)`` (up to probability ``delta``) between
neighbouring data sets of the node.  Each estimator says which: one sample
replaced (sample level: Dada and Perso-lin, whose node sizes are public), or
the node's whole data set replaced by any other (client level: support
recovery's one-shot randomized response, MOCHA's clipped updates), which
implies sample level with samples replaced, added or removed.

One exception, a central mechanism: the class vote of the Perso-lin and
MOCHA classifiers (``local_estimator=None``, :mod:`skfed._class_vote`)
sends each node's ballot (and MOCHA's three pooled-test statistics)
unnoised to the one party that runs the election (MOCHA's server, the root
node of Perso-lin's vote tree), which must be trusted; everyone else sees
only the election's outcome, private at the vote's share of ``epsilon``
(``privacy_["class_vote"]``).  ``DifferentialPrivacy(local_estimator=...)``
holds no vote.

Each method applies the mechanism that fits what it sends and documents its
sensitivity; this module holds what they share:

* the mechanisms themselves (randomized response on bits, the discrete
  Gaussian mechanism on vectors, the exponential mechanism for a private
  choice, and their continuous twins for reference), whose estimator noise
  comes from :class:`skfed._secure_noise.NoiseSource` (the operating
  system's CSPRNG, exact integer samplers; never ``random_state``);
* their calibration (the noise that makes a planned number of uses spend
  exactly the budget) and their composition per node, computed by Google's
  ``dp-accounting`` (``pip install ".[privacy]"``): the privacy-loss
  distribution accountant, or zCDP converted through its Renyi accountant
  for the discrete Gaussian and the bounded-range exponential mechanism;
  pure-DP mechanisms at ``delta=0`` use the exact basic composition
  (epsilons add up);
* the budget stop: the number of uses after which a node would exceed its
  budget, after which it stops sending (it is treated like a dropped node).

Fitted estimators expose ``privacy_spent_`` (the epsilon each node actually
spent at the specification's delta, from the accountant) and ``privacy_``
(a dict: mechanism, noise scale, sensitivity, uses, composition).
"""

import math
import numbers

import numpy as np
from sklearn.base import BaseEstimator

from ._base import DocLinkMixin
from ._compat import HasMethods, Interval, Options
from ._extras import install_hint

__all__ = [
    "DifferentialPrivacy",
    "RandomizedResponse",
    "GaussianMechanism",
    "LaplaceMechanism",
    "ReportNoisyMax",
    "DiscreteGaussianMechanism",
    "ExponentialMechanism",
    "calibrate_discrete_gaussian",
    "calibrate_exponential",
    "zcdp_epsilon",
    "epsilon_after",
    "epsilon_spent",
    "max_uses",
    "calibrate_randomized_response",
    "calibrate_gaussian",
    "calibrate_laplace",
    "calibrate_report_noisy_max",
    "PrivacyBudgetWarning",
]

# Discretization of the privacy-loss distributions: the accountant's figures
# are upper bounds ("pessimistic estimates") within about this much.
_PLD_DISCRETIZATION = 1e-4


def _pure_discretization(epsilon):
    """Discretization of a pure mechanism's two-point loss distribution.

    A hundredth of its epsilon: the pessimistic rounding moves each of its
    two privacy losses ``+-epsilon`` up by at most 1 % of epsilon (the figures
    stay certified upper bounds), and composing ``n`` uses costs ``O(100 n)``
    points whatever epsilon, where a fixed grid of ``1e-4`` would cost
    ``O(n epsilon / 1e-4)``.  (A grid of step exactly epsilon would be exact in
    theory, but a loss one ulp above a grid point rounds up a whole step.)
    """
    return float(epsilon) / 100.0


class PrivacyBudgetWarning(UserWarning):
    """Some nodes spent their privacy budget and stopped sending before the
    end of the fit (the warning names them and the iteration)."""


def _accounting():
    try:
        import dp_accounting
    except ImportError as exc:  # pragma: no cover - exercised without the extra
        raise ImportError(
            "privacy= needs the dp-accounting package for its privacy accountant: "
            + install_hint("privacy")
        ) from exc
    return dp_accounting


def _pld_module():
    _accounting()
    from dp_accounting.pld import common, privacy_loss_distribution

    return privacy_loss_distribution, common


class DifferentialPrivacy(DocLinkMixin, BaseEstimator):
    """Per-node differential-privacy budget for what nodes send.

    Pass it to an estimator as ``privacy=``; ``None`` (the default of every
    estimator) means no privacy mechanism.  It is a plain parameter object
    (clonable).  A search or cross-validation over an estimator that holds
    it (``GridSearchCV``, ``cross_val_score``, also over
    ``privacy__epsilon``) is not private as a whole: each of its fits
    spends the budget again on the rows it trains on (``n_splits x
    n_candidates + 1`` fits), the choice among the candidates reads their
    held-out scores unprotected, and ``privacy_spent_`` of the refitted
    estimator covers its own fit only.  (skfed's cross-validated MOCHA
    estimators refuse ``privacy=`` for that reason.)  Choose the
    parameters on public or held-apart data instead.

    Parameters
    ----------
    epsilon : float, default=1.0
        The budget each node may spend over the whole fit.  ``np.inf``
        switches every mechanism's noise off (the fit then equals the
        non-private fit exactly, and ``privacy_spent_`` is infinite).
    delta : float, default=1e-6
        The probability with which the epsilon bound may fail.  ``0`` asks
        for pure differential privacy, which only the pure mechanisms
        (randomized response, Laplace, report-noisy-max) can give; the
        Gaussian mechanism refuses it.  A common choice is below one over
        the number of samples of a node.
    clip_norm : float, default=1.0
        For the methods that add noise to gradients or updates.  Perso-lin
        clips every sample's term of a node's gradient to this l2 norm,
        which bounds the sensitivity to one sample (``2 clip_norm / m_k`` for
        a mean over ``m_k`` samples); the multi-task estimators clip every
        update a node sends (its whole data set is the unit protected).  The
        methods whose sensitivity is bounded by construction (support
        recovery, Dada) do not clip, and say so.
    insecure_noise_seed : int, default=None
        **For tests only.**  ``None``: the privacy noise comes from the
        operating system's CSPRNG, fresh at every fit (``random_state`` fixes
        only the public randomness: clocks, peer sampling, stumps, feature
        maps).  An integer fixes the noise instead (NumPy's PCG64 seeded with
        it), so anyone who knows it can subtract the noise: a fit that uses
        it warns (:class:`~skfed._secure_noise.InsecureNoiseWarning`) and
        sets ``privacy_guarantee_void_ = True``.
    local_estimator : estimator, default=None
        The model a node would deploy alone (a scikit-learn classifier, or a
        regressor for ``FederatedMultiTaskRegressor``), for the private fits
        of Dada, Perso-lin and MOCHA.  ``None``: each private node keeps,
        among its collaborative model and the standard models it trains
        alone (LinearSVC, an rbf SVM on public random features, logistic
        regression), the simplest within one standard error of the lowest
        cross-validated error on its own samples (:mod:`skfed._kept_local`);
        and the classifier nodes of Perso-lin and MOCHA first elect,
        privately, one of these classes for every node or none (the class
        vote: one ballot a node, the exponential mechanism on the counts),
        which spends half of ``epsilon`` (the fit the other half; the whole
        budget goes to the fit when there are too few nodes for the vote,
        ``skfed._class_vote.split_budget``; MOCHA also runs a pooled test of
        the nodes' clipped held-out error differences that can fix
        LinearSVC or the rbf model, or the logistic regression when it shows
        the classes equivalent, on 0.4 of ``epsilon`` taken from its fit,
        ``skfed._class_vote_pooled``); a node then keeps its fit of
        the elected class unless its collaborative model is significantly
        better, as below.  The elected class is ``elected_local_class_``.
        An estimator: each node keeps its own fit of a clone of it (on the
        node's raw features, never sent, no budget spent) unless its
        collaborative model's cross-validated errors on the same folds are
        significantly lower (a one-sided paired test at level 0.05 divided
        by the number of nodes, since every node makes this choice: the
        exact sign test on the samples where the two disagree; the
        collaborative model's held-out scores on each fold come from the
        candidate chosen on the other folds): the
        private result is then what this Local baseline gives the node
        unless the node's own samples say that collaborating did better.
        Other estimators (support recovery, which keeps no per-node model)
        refuse it, and so do these with ``epsilon=inf``, whose fit is the
        non-private fit exactly and keeps no Local model.  A model that
        keeps training rows (``SVC``'s support vectors, a nearest-neighbour
        model) is refused: a private fit stores no row.
        The check follows the model's structure: every step of a
        ``Pipeline`` is compared with the rows as transformed by the steps
        before it (``make_pipeline(StandardScaler(), SVC())`` is refused),
        and fitted sub-estimators (a search's best estimator, calibrated or
        ensemble members) and arrays in lists and dicts are walked.  Nodes
        added later by ``add_nodes`` keep their joined models (their
        ``kept_local_models_`` entries are None; the join warns).

    See Also
    --------
    skfed.FederatedSupportRecovery : randomized response on the vote bits.

    Notes
    -----
    Composition is per node: a node's epsilon grows with the number of
    messages *it* sends; nodes that send less spend less.  The accountant is
    the privacy-loss-distribution (PLD) accountant of ``dp-accounting``,
    whose figures are certified upper bounds.

    Examples
    --------
    >>> from skfed.privacy import DifferentialPrivacy
    >>> DifferentialPrivacy(epsilon=2.0, delta=1e-5)
    DifferentialPrivacy(delta=1e-05, epsilon=2.0)
    """

    _parameter_constraints = {
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither"), Options(numbers.Real, {math.inf})],
        "delta": [Interval(numbers.Real, 0, 1, closed="left")],
        "clip_norm": [Interval(numbers.Real, 0, None, closed="neither")],
        "insecure_noise_seed": [None, Interval(numbers.Integral, 0, None, closed="left")],
        "local_estimator": [None, HasMethods(["fit", "predict"])],
    }

    def __init__(self, epsilon=1.0, delta=1e-6, clip_norm=1.0, insecure_noise_seed=None,
                 local_estimator=None):
        self.epsilon = epsilon
        self.delta = delta
        self.clip_norm = clip_norm
        self.insecure_noise_seed = insecure_noise_seed
        self.local_estimator = local_estimator

    def budget(self):
        """Validate the parameters and return ``(epsilon, delta)`` as floats."""
        self._validate_params()
        return float(self.epsilon), float(self.delta)


def check_privacy(privacy, estimator_name, local_estimator=False):
    """Validate an estimator's ``privacy=`` parameter.

    Returns None or the validated :class:`DifferentialPrivacy`; anything else
    is a ``TypeError`` naming the estimator.  ``local_estimator``: whether
    the estimator's private fit keeps per-node Local models and so uses
    ``DifferentialPrivacy.local_estimator``; a ``local_estimator`` it cannot
    use, or one given with ``epsilon=inf`` (the non-private fit exactly,
    which keeps no Local model), is a ``ValueError`` naming it.
    """
    if privacy is None:
        return None
    if not isinstance(privacy, DifferentialPrivacy):
        raise TypeError(
            f"{estimator_name}: privacy must be None or a "
            f"skfed.privacy.DifferentialPrivacy, got {privacy!r}."
        )
    epsilon, _ = privacy.budget()
    given = privacy.local_estimator
    if given is not None:
        name = " ".join(repr(given).split())
        if not local_estimator:
            raise ValueError(
                f"{estimator_name} does not use DifferentialPrivacy(local_estimator={name}): "
                "its private fit keeps no per-node model (local_estimator is for the "
                "private fits of Dada, Perso-lin and MOCHA); pass local_estimator=None.")
        if math.isinf(epsilon):
            raise ValueError(
                f"{estimator_name}: DifferentialPrivacy(local_estimator={name}) needs a "
                "finite epsilon: with epsilon=inf the fit is the non-private fit exactly "
                "and keeps no Local model; pass local_estimator=None or a finite epsilon.")
    return privacy


# ---------------------------------------------------------------------------
# Mechanisms: each knows its noise, its one-use epsilon (pure ones) and its
# privacy-loss distribution for the accountant.
# ---------------------------------------------------------------------------


class RandomizedResponse:
    """Binary randomized response: every bit flipped with ``flip_probability``.

    One use on one bit is ``log((1 - p) / p)``-DP (pure).  ``p = 1/2`` sends
    pure noise; ``p = 0`` is no privacy at all.
    """

    name = "randomized response"
    pure = True

    def __init__(self, flip_probability):
        p = float(flip_probability)
        if not 0.0 <= p <= 0.5:
            raise ValueError(f"flip_probability must be in [0, 0.5], got {p}.")
        self.flip_probability = p

    @classmethod
    def from_epsilon(cls, epsilon):
        """The flip probability ``1 / (1 + exp(epsilon))`` of an epsilon-DP bit
        (``exp(-epsilon)``, the same float, from 709 on: no overflow; 0 at inf)."""
        return cls(1.0 / (1.0 + math.exp(epsilon)) if epsilon < 709.0 else math.exp(-epsilon))

    @property
    def epsilon(self):
        p = self.flip_probability
        if p == 0.0:
            return math.inf
        return math.log((1.0 - p) / p)

    @property
    def noise(self):
        return self.flip_probability

    def apply(self, bits, rng):
        """Flip each entry of the 0/1 array ``bits`` independently.

        ``rng``: a :class:`skfed._secure_noise.NoiseSource` (privacy noise)
        or a NumPy generator (tests of the mechanism alone).
        """
        bits = np.asarray(bits, dtype=np.uint8)
        if self.flip_probability == 0.0:
            return bits.copy()
        if hasattr(rng, "bernoulli"):
            # A skfed._secure_noise.NoiseSource: exact flips from the OS CSPRNG.
            flips = rng.bernoulli(self.flip_probability, bits.shape)
        else:
            flips = rng.random(bits.shape) < self.flip_probability
        return bits ^ flips.astype(np.uint8)

    def pld(self):
        pld_mod, _ = _pld_module()
        return pld_mod.from_randomized_response(
            noise_parameter=2.0 * self.flip_probability, num_buckets=2,
            value_discretization_interval=_pure_discretization(self.epsilon),
        )


class _AdditiveNoise:
    """Noise added coordinate-wise to a vector of known sensitivity."""

    def __init__(self, noise, sensitivity):
        self._noise = float(noise)
        self.sensitivity = float(sensitivity)

    @property
    def noise(self):
        return self._noise

    def apply(self, values, rng):
        """``values`` plus independent noise (a copy when the noise is zero)."""
        values = np.asarray(values, dtype=float)
        if self._noise == 0.0:
            return values.copy()
        return values + self._draw(rng, values.shape)


class GaussianMechanism(_AdditiveNoise):
    """Gaussian noise of standard deviation ``sigma`` on a vector whose
    l2-sensitivity is ``sensitivity``.  Never pure: needs ``delta > 0``."""

    name = "Gaussian"
    pure = False

    def __init__(self, sigma, sensitivity):
        super().__init__(sigma, sensitivity)

    @property
    def sigma(self):
        return self._noise

    def _draw(self, rng, shape):
        return rng.normal(0.0, self._noise, size=shape)

    def epsilon_after(self, n_uses, delta):
        # n uses of one Gaussian mechanism compose exactly into one Gaussian
        # mechanism of standard deviation sigma / sqrt(n), whose exact epsilon
        # at delta is the analytic Gaussian mechanism's (Balle & Wang 2018).
        if n_uses == 0:
            return 0.0
        if self.sigma == 0.0 or delta == 0.0:
            return math.inf
        return float(_accounting().get_epsilon_gaussian(
            self.sigma / (self.sensitivity * math.sqrt(n_uses)), delta
        ))


class LaplaceMechanism(_AdditiveNoise):
    """Laplace noise of scale ``scale`` on a vector whose l1-sensitivity is
    ``sensitivity``: ``sensitivity / scale``-DP per use (pure)."""

    name = "Laplace"
    pure = True

    def __init__(self, scale, sensitivity):
        super().__init__(scale, sensitivity)

    @property
    def scale(self):
        return self._noise

    def _draw(self, rng, shape):
        return rng.laplace(0.0, self._noise, size=shape)

    @property
    def epsilon(self):
        return math.inf if self.scale == 0.0 else self.sensitivity / self.scale

    def pld(self):
        pld_mod, _ = _pld_module()
        return pld_mod.from_laplace_mechanism(
            parameter=self.scale, sensitivity=self.sensitivity,
            value_discretization_interval=_PLD_DISCRETIZATION,
        )


class ReportNoisyMax:
    """Private choice of the best of several scores (the exponential mechanism).

    ``argmax_j (score_j + Gumbel(2 sensitivity / epsilon))`` draws ``j`` with
    probability proportional to ``exp(epsilon score_j / (2 sensitivity))``:
    the exponential mechanism, ``epsilon``-DP per use when every score moves
    by at most ``sensitivity`` between neighbouring data sets.
    """

    name = "report-noisy-max (exponential mechanism)"
    pure = True

    def __init__(self, epsilon, sensitivity):
        self.epsilon = float(epsilon)
        self.sensitivity = float(sensitivity)

    @property
    def noise(self):
        """The scale of the Gumbel noise added to each score."""
        if math.isinf(self.epsilon):
            return 0.0
        return 2.0 * self.sensitivity / self.epsilon

    def apply(self, scores, rng):
        """The index of the noisy maximum of ``scores``."""
        scores = np.asarray(scores, dtype=float)
        if self.noise == 0.0:
            return int(np.argmax(scores))
        return int(np.argmax(scores + rng.gumbel(0.0, self.noise, size=scores.shape)))

    def pld(self):
        pld_mod, common = _pld_module()
        return pld_mod.from_privacy_parameters(
            common.DifferentialPrivacyParameters(self.epsilon, 0.0),
            value_discretization_interval=_pure_discretization(self.epsilon),
        )


# Orders of the Renyi divergences on which a zCDP guarantee is converted to
# (epsilon, delta): fine near 1 (large budgets) and up to 1e5 (small ones).
_ZCDP_ORDERS = np.unique(np.concatenate([
    np.linspace(1.02, 2.0, 50), np.linspace(2.0, 64.0, 1241), np.geomspace(64.0, 1e5, 400),
]))


def zcdp_epsilon(rho, delta):
    """The epsilon at ``delta`` of a ``rho``-zCDP mechanism.

    A ``rho``-zCDP mechanism has Renyi divergence at most ``rho alpha`` at
    every order ``alpha``; ``dp-accounting``'s conversion of Renyi DP to
    ``(epsilon, delta)`` (Canonne, Kamath & Steinke 2020, Proposition 12)
    reads the epsilon off that curve on a fine grid of orders.
    """
    rho = float(rho)
    if rho == 0.0:
        return 0.0
    if math.isinf(rho) or delta == 0.0:
        return math.inf
    _accounting()
    from dp_accounting.rdp.rdp_privacy_accountant import compute_epsilon

    epsilon, _ = compute_epsilon(_ZCDP_ORDERS, rho * _ZCDP_ORDERS, float(delta))
    return float(epsilon)


class DiscreteGaussianMechanism:
    """Discrete Gaussian noise on a grid (the secure Gaussian mechanism).

    The release of a vector ``x`` of ``dim`` coordinates and l2-sensitivity
    ``sensitivity`` is ``step * (round(x / step) + Z)``, ``Z`` a vector of
    independent discrete Gaussians of integer standard deviation ``steps =
    2^20`` and ``step = sigma / steps``
    (:meth:`skfed._secure_noise.NoiseSource.add_gaussian`).  The integer
    vector ``round(x / step)`` moves by at most ``D = sensitivity / step +
    2 sqrt(dim)`` in l2 (half a step of rounding per coordinate, and half a
    step of floating-point error allowed), and a discrete Gaussian of
    standard deviation ``steps`` on integer vectors at l2 distance ``D`` is
    ``rho = D^2 / (2 steps^2)``-zCDP (its Renyi divergences are those of the
    continuous Gaussian; Canonne, Kamath & Steinke 2020).  ``n`` uses are
    ``n rho``-zCDP, converted to ``(epsilon, delta)`` by
    :func:`zcdp_epsilon`.  Never pure: needs ``delta > 0``.
    """

    name = "discrete Gaussian (grid of sigma / 2^20, exact sampler)"
    pure = False

    def __init__(self, sigma, sensitivity, dim):
        from ._secure_noise import gaussian_grid, grid_l2_sensitivity

        self.sigma = float(sigma)
        self.sensitivity = float(sensitivity)
        self.dim = int(dim)
        if self.sigma == 0.0:
            self.step, self.steps, self.rho = 0.0, 0, math.inf
            return
        self.step, self.steps = gaussian_grid(self.sigma)
        self.grid_sensitivity = grid_l2_sensitivity(self.sensitivity, self.step, self.dim)
        self.rho = self.grid_sensitivity**2 / (2.0 * self.steps**2)

    @property
    def noise(self):
        return self.sigma

    def epsilon_after(self, n_uses, delta):
        if n_uses == 0:
            return 0.0
        return zcdp_epsilon(n_uses * self.rho, delta)

    def apply(self, values, source):
        """``values`` released through the mechanism, noise from ``source``
        (a :class:`skfed._secure_noise.NoiseSource`)."""
        values = np.asarray(values, dtype=float)
        if self.sigma == 0.0:
            return values.copy()
        return source.add_gaussian(values, self.sigma)


def calibrate_discrete_gaussian(epsilon, delta, sensitivity, n_uses, dim):
    """The :class:`DiscreteGaussianMechanism` whose ``n_uses`` uses spend
    ``epsilon`` at ``delta`` (its least ``sigma``, to a relative 1e-6).

    Bisection on the total ``rho`` (``zcdp_epsilon`` grows with it), then
    ``sigma`` from ``rho`` per use, raised until the grid's rounding term
    fits too.
    """
    if math.isinf(epsilon):
        return DiscreteGaussianMechanism(0.0, sensitivity, dim)
    if delta == 0.0:
        raise ValueError(
            "The Gaussian mechanism cannot give pure differential privacy: "
            "DifferentialPrivacy(delta=0) is refused here; use delta > 0."
        )
    lo, hi = 0.0, 1.0
    while zcdp_epsilon(hi, delta) <= epsilon:
        lo, hi = hi, 2.0 * hi
    while hi - lo > 1e-9 * hi:
        mid = 0.5 * (lo + hi)
        if zcdp_epsilon(mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
    rho_use = lo / int(n_uses)
    def mechanism_at(sigma):
        # a budget so small that the noise overflows is refused by name
        if not (sigma < 1e150):
            raise ValueError(
                f"DifferentialPrivacy(epsilon={epsilon!r}, delta={delta!r}) is too small "
                f"a budget for {int(n_uses)} Gaussian release(s): the noise scale "
                "overflows; use a larger epsilon.")
        return DiscreteGaussianMechanism(sigma, sensitivity, dim)

    sigma = float(sensitivity) / math.sqrt(2.0 * rho_use) if rho_use > 0 else math.inf
    mechanism = mechanism_at(sigma)
    while mechanism.rho > rho_use:
        sigma *= math.sqrt(mechanism.rho / rho_use) * (1.0 + 1e-9)
        mechanism = mechanism_at(sigma)
    return mechanism


# Up to this many choices the PLD composition of pure DP is also computed
# (it can beat the bounded-range bound for a handful of choices only).
_PLD_MAX_CHOICES = 32


class ExponentialMechanism:
    """The exponential mechanism sampled exactly, accounted as bounded range.

    A private choice among candidates whose real scores move by at most
    ``Delta`` between neighbouring data sets: the scores are floored onto the
    grid ``Delta / 1024`` (integer qualities of sensitivity ``D = 1025``) and
    candidate j drawn with probability proportional to ``exp(q_j / t)``,
    ``t = ceil(2 D / epsilon)`` an integer
    (:meth:`skfed._secure_noise.NoiseSource.private_choice`), by an exact
    sampler.  Each choice is ``epsilon_0 = 2 D / t``-DP (at most the epsilon
    asked), and ``epsilon_0``-bounded range, hence ``epsilon_0^2 / 8``-zCDP
    (Cesar & Rogers 2021); ``n`` choices spend the least of ``n epsilon_0``
    (pure composition, the only bound at ``delta = 0``), the PLD
    accountant's composition of ``epsilon_0``-DP mechanisms and the zCDP
    bound ``n epsilon_0^2 / 8`` converted by :func:`zcdp_epsilon` (about
    twice the per-choice epsilon of pure composition for the same total at
    hundreds of choices).
    """

    name = "exponential mechanism (exact sampler, bounded-range accounting)"
    pure = True

    def __init__(self, epsilon):
        from ._secure_noise import choice_epsilon, choice_scale

        epsilon = float(epsilon)
        if math.isinf(epsilon):
            self.scale, self.epsilon = 0, math.inf
        else:
            self.scale = choice_scale(epsilon)
            self.epsilon = choice_epsilon(self.scale)

    @property
    def noise(self):
        """The integer scale of the choice, in grid steps (0: exact argmax)."""
        return self.scale

    def pld(self):
        pld_mod, common = _pld_module()
        return pld_mod.from_privacy_parameters(
            common.DifferentialPrivacyParameters(self.epsilon, 0.0),
            value_discretization_interval=_pure_discretization(self.epsilon),
        )

    def epsilon_after(self, n_uses, delta):
        if n_uses == 0:
            return 0.0
        if math.isinf(self.epsilon):
            return math.inf
        basic = n_uses * self.epsilon
        if delta == 0.0:
            return basic
        bounded = min(basic, zcdp_epsilon(n_uses * self.epsilon**2 / 8.0, delta))
        if n_uses > _PLD_MAX_CHOICES:
            # The bounded-range bound is the smaller one there (measured: from
            # about 10 choices on), and composing the PLD costs seconds.
            return float(bounded)
        pld = self.pld()
        if n_uses > 1:
            pld = pld.self_compose(n_uses)
        return float(min(bounded, pld.get_epsilon_for_delta(delta)))


def calibrate_exponential(epsilon, delta, n_uses):
    """The :class:`ExponentialMechanism` whose ``n_uses`` choices spend
    ``epsilon`` at ``delta`` (the largest per-choice epsilon, to 1e-3)."""
    if math.isinf(epsilon):
        return ExponentialMechanism(math.inf)
    return _calibrate_per_use_epsilon(ExponentialMechanism, epsilon, n_uses, delta)


def epsilon_after(mechanism, n_uses, delta):
    """The epsilon that ``n_uses`` uses of ``mechanism`` spend at ``delta``.

    Pure mechanisms at ``delta = 0`` compose by adding their epsilons (exact
    for pure DP); otherwise the PLD accountant composes ``n_uses`` copies
    (``self_compose``) and reads the epsilon at ``delta``.  Zero uses spend
    nothing.
    """
    n_uses = int(n_uses)
    if n_uses < 0:
        raise ValueError(f"n_uses must be >= 0, got {n_uses}.")
    if n_uses == 0:
        return 0.0
    if hasattr(mechanism, "epsilon_after"):
        return mechanism.epsilon_after(n_uses, delta)
    if math.isinf(mechanism.epsilon):
        return math.inf
    if delta == 0.0:
        return n_uses * mechanism.epsilon
    pld = mechanism.pld()
    if n_uses > 1:
        pld = pld.self_compose(n_uses)
    # Never report more than basic composition, which is always valid.
    return float(min(pld.get_epsilon_for_delta(delta), n_uses * mechanism.epsilon))


def epsilon_spent(mechanism, uses, delta):
    """Per node: the epsilon that ``uses[k]`` uses of ``mechanism`` spend.

    Each distinct count is composed once.
    """
    uses = np.asarray(uses, dtype=np.int64)
    out = np.empty(uses.shape, dtype=float)
    for count in np.unique(uses):
        out[uses == count] = epsilon_after(mechanism, int(count), delta)
    return out


def max_uses(mechanism, epsilon, delta, limit, affordable=0):
    """The largest number of uses (at most ``limit``) that stays within
    ``epsilon`` at ``delta``: the budget stop.

    Binary search on the accountant's epsilon, which grows with the number
    of uses.  ``affordable``, a number of uses already known to stay within
    the budget (the one a mechanism was calibrated for), starts a galloping
    search from there, which composes far fewer uses than ``limit``.
    """
    limit = int(limit)
    if math.isinf(epsilon):
        return limit
    lo = min(int(affordable), limit)
    hi = max(2 * lo, 1)
    while hi < limit and epsilon_after(mechanism, hi, delta) <= epsilon:
        lo, hi = hi, 2 * hi
    if hi >= limit:
        if epsilon_after(mechanism, limit, delta) <= epsilon:
            return limit
        hi = limit
    # eps(lo) <= epsilon < eps(hi)
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if epsilon_after(mechanism, mid, delta) <= epsilon:
            lo = mid
        else:
            hi = mid
    return lo


def calibrate(make_mechanism, epsilon, delta, n_uses, *, lower, upper, rtol=1e-3):
    """The least noise for which ``n_uses`` uses spend at most ``epsilon``.

    ``make_mechanism(noise)`` builds the mechanism at a noise level; its
    epsilon must fall as the noise grows.  Bisection on ``log(noise)``
    between ``lower`` and ``upper`` (``upper`` must already be within the
    budget) until the bracket is ``rtol`` wide; the returned mechanism is
    the bracket's upper end, so it never exceeds the budget.
    """
    # ``upper`` may be basic composition, whose epsilon a mechanism that
    # recomputes its own can put an ulp over the budget: tolerate rounding.
    if epsilon_after(make_mechanism(upper), n_uses, delta) > epsilon * (1.0 + 1e-12):
        raise ValueError(
            f"No noise level up to {upper:g} keeps {n_uses} uses within "
            f"epsilon={epsilon:g} at delta={delta:g}."
        )
    lo, hi = math.log(lower), math.log(upper)
    if epsilon_after(make_mechanism(lower), n_uses, delta) <= epsilon:
        return make_mechanism(lower)
    while hi - lo > rtol:
        mid = 0.5 * (lo + hi)
        if epsilon_after(make_mechanism(math.exp(mid)), n_uses, delta) <= epsilon:
            hi = mid
        else:
            lo = mid
    return make_mechanism(math.exp(hi))


def _calibrate_per_use_epsilon(make_mechanism, epsilon, n_uses, delta):
    """A pure mechanism built from its per-use epsilon, ``n_uses`` of which
    spend ``epsilon`` at ``delta``.

    ``epsilon / n_uses`` per use at ``delta = 0`` or for one use (basic
    composition, exact for pure DP); with ``delta > 0`` the PLD accountant
    finds the larger per-use epsilon that ``n_uses`` compositions allow
    (more per-use epsilon is less noise, so the search runs on its inverse).
    """
    per_use = epsilon / n_uses
    if delta == 0.0 or n_uses == 1:
        return make_mechanism(per_use)
    return calibrate(
        lambda inv: make_mechanism(1.0 / inv), epsilon, delta, n_uses,
        lower=1.0 / max(epsilon, 1e-12) / 4.0, upper=1.0 / per_use,
    )


def calibrate_randomized_response(epsilon, delta, n_bits):
    """Randomized response on ``n_bits`` bits that together spend ``epsilon``.

    At ``delta = 0`` each bit gets ``epsilon / n_bits`` (basic composition,
    exact for pure DP): flip probability ``1 / (1 + exp(epsilon / n_bits))``.
    With ``delta > 0`` the PLD accountant finds the larger per-bit epsilon
    that ``n_bits`` compositions allow.
    """
    if math.isinf(epsilon):
        return RandomizedResponse(0.0)
    mechanism = _calibrate_per_use_epsilon(RandomizedResponse.from_epsilon, epsilon, n_bits,
                                           delta)
    if not mechanism.flip_probability < 0.5:
        # exp(epsilon / n_bits) rounds to 1: every bit a fair coin (no
        # accountant can represent it); refused by name, not crashed deep in one
        raise ValueError(
            f"DifferentialPrivacy(epsilon={epsilon!r}) is too small a budget for "
            f"{int(n_bits)} randomized-response bits: each would be a fair coin flip; "
            "use a larger epsilon.")
    return mechanism


def calibrate_gaussian(epsilon, delta, sensitivity, n_uses):
    """The Gaussian mechanism whose ``n_uses`` uses spend ``epsilon`` at ``delta``.

    ``n_uses`` Gaussian releases of standard deviation ``sigma`` compose into
    one of standard deviation ``sigma / sqrt(n_uses)``, so
    ``sigma = sensitivity sigma_1 sqrt(n_uses)`` with ``sigma_1`` the exact
    noise of one ``(epsilon, delta)`` release of sensitivity 1 (the analytic
    Gaussian mechanism of Balle & Wang 2018, as ``dp-accounting`` computes it).
    """
    if math.isinf(epsilon):
        return GaussianMechanism(0.0, sensitivity)
    if delta == 0.0:
        raise ValueError(
            "The Gaussian mechanism cannot give pure differential privacy: "
            "DifferentialPrivacy(delta=0) is refused here; use delta > 0."
        )
    sigma_1 = float(_accounting().get_sigma_gaussian(epsilon, delta))
    return GaussianMechanism(sensitivity * sigma_1 * math.sqrt(n_uses), sensitivity)


def calibrate_laplace(epsilon, delta, sensitivity, n_uses):
    """The Laplace mechanism whose ``n_uses`` uses spend ``epsilon`` at ``delta``.

    At ``delta = 0``: scale ``n_uses sensitivity / epsilon`` (basic
    composition, exact for pure DP); with ``delta > 0`` the PLD accountant
    finds the smaller scale that ``n_uses`` compositions allow.
    """
    if math.isinf(epsilon):
        return LaplaceMechanism(0.0, sensitivity)
    basic = n_uses * sensitivity / epsilon
    if delta == 0.0 or n_uses == 1:
        return LaplaceMechanism(basic, sensitivity)
    return calibrate(
        lambda b: LaplaceMechanism(b, sensitivity), epsilon, delta, n_uses,
        lower=basic * 1e-3, upper=basic,
    )


def calibrate_report_noisy_max(epsilon, delta, sensitivity, n_uses):
    """Report-noisy-max whose ``n_uses`` choices spend ``epsilon`` at ``delta``.

    Each choice is ``epsilon_0``-DP; ``epsilon_0 = epsilon / n_uses`` at
    ``delta = 0``, and the larger value the PLD accountant allows otherwise.
    """
    if math.isinf(epsilon):
        return ReportNoisyMax(math.inf, sensitivity)
    return _calibrate_per_use_epsilon(
        lambda eps: ReportNoisyMax(eps, sensitivity), epsilon, n_uses, delta
    )


def describe(mechanism, *, uses, delta, composition, **extra):
    """The ``privacy_`` dict of a fitted estimator."""
    info = {
        "mechanism": mechanism.name,
        "noise": mechanism.noise,
        "sensitivity": getattr(mechanism, "sensitivity", None),
        "epsilon_per_use": getattr(mechanism, "epsilon", None),
        "uses": np.asarray(uses).copy(),
        "delta": delta,
        "composition": composition,
        "accountant": (
            "basic composition of pure DP (epsilons add)"
            if (delta == 0.0 and mechanism.pure)
            else "dp-accounting privacy-loss distribution (PLD), pessimistic"
        ),
    }
    info.update(extra)
    return info
