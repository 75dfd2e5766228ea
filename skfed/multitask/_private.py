"""The privacy hooks of kernelized MOCHA (``privacy=``): the discrete Gaussian mechanism
on the nodes' updates and the fixed round schedule of a private fit."""

import numpy as np
from scipy import stats

from .._secure_noise import NoiseSource
from ..privacy import calibrate_discrete_gaussian, describe, epsilon_spent
from ._omega import _StoppingRule
from ._state import _PrivateRelease


class _PrivateSchedule(_StoppingRule):
    """The rounds of a private fit: no gap-based decision.

    The gap terms are not sent under ``privacy``, so the fit runs
    ``max_rounds`` rounds, with an Omega step every ``omega_update_every``
    rounds when Omega is learned (the curves are still recorded).
    """

    def omega_step_due(self, gap, primal):
        super().omega_step_due(gap, primal)
        self.w_step_done = False
        return self.learn and self.since_update >= self.every

    def before_omega_step(self, primal, dual, gram, sigma, lam, joint=None):
        super().before_omega_step(primal, dual, gram, sigma, lam, joint=joint)
        self.stop_before_step = False
        return False

    def without_omega_step(self, gap, primal, dual):
        super().without_omega_step(gap, primal, dual)
        return False


# What a private MOCHA fit treats as public (``privacy_public_``): not
# protected by the noise, known to the server and every node.
_MOCHA_PUBLIC = {
    "total_samples": "the total number of training samples n, through lambda = 1 / (C n) "
                     "(one number for the federation; a node's own size n_t is never "
                     "released: each message is the change of v_t itself, not scaled by n_t)",
    "class_set": "classes_, the set of labels present in the pooled data (one problem per "
                 "class, one-vs-rest)",
    "n_features": "the number of features",
    "feature_map": "the random Fourier features (drawn from random_state, "
                   "data-independent) and gamma (1 / n_features under privacy: the pooled "
                   "variance is not released)",
    "schedule": "the rounds (max_rounds), the Omega steps (every omega_update_every rounds) "
                "and each round's participating nodes (network faults drawn from "
                "random_state)",
    "omega": "Omega and every w_t the server sends, computed from the noisy releases "
             "only (post-processing; the Omega step's noise correction uses the public "
             "noise scale)",
}


# The noise-aware Omega step adopts a relation that is noise alone in at
# most this fraction of fits (Bonferroni over pairs and Omega steps).
_FALSE_RELATION_RATE = 1e-3


class _PrivateUpdates:
    """Discrete Gaussian mechanism on every node's update ``Delta v_t`` (primal modes).

    Each round a participating node clips its update (all problems together)
    to Frobenius norm ``B`` (``clip_norm``) and releases it through the
    discrete Gaussian mechanism (:class:`~skfed.privacy.DiscreteGaussianMechanism`):
    rounded to a grid of ``sigma / 2^20`` and added exact discrete Gaussian
    noise of standard deviation ``sigma`` per entry, drawn from the fit's
    secure source (:class:`~skfed._secure_noise.NoiseSource`: the operating
    system's CSPRNG, never ``random_state``).  Whatever its data, a clipped
    update moves by at most ``2 B``, so every release has sensitivity ``2 B``
    with respect to the node's whole data set (client-level privacy, which
    implies it for every one of its samples); ``sigma`` makes ``max_rounds``
    releases spend the budget (zCDP composition, converted to ``(epsilon,
    delta)``), and a node sends at most one update a round, so it never
    runs out.  With ``epsilon=inf`` nothing is clipped or noised, and the
    gap terms are sent as in the non-private fit (which it then equals).

    Parameters
    ----------
    spec : DifferentialPrivacy
    n_nodes, max_rounds, dim : int
        ``dim``: the entries of one update (``n_problems d'``).
    estimator_name : str
        For the warning of the testing switch (``insecure_noise_seed``).
    """

    def __init__(self, spec, n_nodes, max_rounds, dim, estimator_name="MOCHA"):
        self.epsilon, self.delta = spec.budget()
        self.clip = float(spec.clip_norm)
        self.mechanism = calibrate_discrete_gaussian(
            self.epsilon, self.delta, 2.0 * self.clip, int(max_rounds), int(dim)
        )
        self.sigma = self.mechanism.sigma
        self.uses = np.zeros(n_nodes, dtype=np.int64)
        self.planned_steps = 1  # Omega steps of the fit (the protocol sets it)
        self.source = None
        if self.sigma > 0.0:
            self.source = NoiseSource.for_fit(spec, estimator_name)

    def release(self, update):
        """``update`` clipped to ``B`` and released through the mechanism."""
        norm = float(np.linalg.norm(update))
        if norm > self.clip:
            update = update * (self.clip / norm)
        return self.mechanism.apply(update, self.source)

    def privatize(self, active, results, totals):
        """The active nodes' releases: node t sends ``clip(Delta v_t) + noise``.

        The release is the change of ``v_t = sum_i alpha_ti x_ti / n_t``
        itself, which the server adds to its ``V`` as it is: no message is
        scaled by ``n_t``, so the node's size is not revealed (a release of
        ``(clip(Delta v_t) + noise) n_t`` would show it in the noise's
        scale).  Returns a :class:`~skfed.multitask._state._PrivateRelease`
        (the exact steps stay with the nodes).
        """
        if self.sigma == 0.0:
            # epsilon=inf: no noise, nothing to bound; the results go on as
            # they are (compressed ones included)
            self.uses[active] += 1
            return results
        dV = np.stack([dvs for dvs, _ in results], axis=1)
        released = np.empty_like(dV)
        for i, t in enumerate(active):
            self.uses[t] += 1
            released[:, i] = self.release(dV[:, i] / totals[t])
        return _PrivateRelease(active, released, dV, getattr(results, "deltas", None))

    def denoised_gram(self, V):
        """The noise-aware Omega step's Gram matrix ``G = V^T V``, or None.

        The server's ``V`` is the sum of the nodes' releases: node u's
        column carries ``uses_u`` independent noise vectors of variance
        ``sigma^2`` per entry (``s_u^2 = uses_u sigma^2``, public), so
        ``V^T V`` overestimates ``G_uu`` by ``dim s_u^2`` and its
        off-diagonal entries carry noise of standard deviation about
        ``sqrt(dim s_t^2 s_u^2 + G_tt s_u^2 + G_uu s_t^2)``.  The step
        subtracts the bias from the diagonal (floored at 0) and keeps an
        off-diagonal entry only where it exceeds ``z`` of those standard
        deviations, ``z`` the two-sided Bonferroni threshold at 0.1 % over
        the ``m (m - 1) / 2`` pairs and the fit's planned Omega steps
        (``planned_steps``; measured: at 5 % per step, one fit in five on
        HAR adopted a relation that was noise, and the noise of the other
        nodes entered its models): an entry that noise alone explains is
        taken as 0 (no relation).  When no pair survives, the noise
        dominates every relation, and the step keeps the current ``Sigma``
        (None): with the initial diagonal one every node keeps learning
        from its own exact share alone, the ``omega="independent"`` fit,
        rather than from noise.  All of it is post-processing of the
        releases.
        """
        dim = V.shape[0] * V.shape[2]
        m = V.shape[1]
        noisy = np.einsum("ktd,kud->tu", V, V)
        var = self.uses.astype(float) * self.sigma**2  # s_u^2 per entry
        diag = np.maximum(np.diag(noisy) - dim * var, 0.0)
        sd = np.sqrt(dim * np.outer(var, var) + np.outer(diag, var) + np.outer(var, diag))
        n_tests = max(m * (m - 1) // 2, 1) * max(int(self.planned_steps), 1)
        z = float(stats.norm.isf(_FALSE_RELATION_RATE / 2.0 / n_tests))
        keep = np.abs(noisy) > z * sd
        np.fill_diagonal(keep, False)
        self.last_kept = int(keep.sum() // 2)
        if not keep.any():
            return None
        gram = np.where(keep, noisy, 0.0)
        gram[np.diag_indices(m)] = diag
        return gram

    def finish(self, estimator):
        estimator.privacy_spent_ = epsilon_spent(self.mechanism, self.uses, self.delta)
        estimator.privacy_ = describe(
            self.mechanism, uses=self.uses, delta=self.delta,
            composition="one discrete Gaussian release of the clipped update per round the "
            "node takes part in, composed over its rounds (zCDP)",
            sigma=self.sigma, clip_norm=self.clip, level="client (the node's whole data set)",
            noise_source=("none (epsilon=inf)" if self.source is None
                          else self.source.describe()),
        )
        estimator.privacy_guarantee_void_ = (
            self.source is not None and not self.source.secure
        )
        estimator.privacy_public_ = dict(_MOCHA_PUBLIC)
