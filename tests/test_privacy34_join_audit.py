"""Adversarial audit of the private joins (privacy34).

What a private newcomer of Dada / Perso-lin sends is its released model
(every local and model step through the fit's mechanism), the weights of its
row and, to linked newcomers, its current models; MOCHA's private newcomer
sends nothing.  Three checks, as an attacker would run them:

* Dada's private choice inside a join (``_Newcomer.model_steps`` and
  ``_Newcomer.local`` with ``_PrivateSteps``, the join's own classes):
  against two neighbouring newcomers built so that the replaced sample
  attains the sensitivity bound of ``fw_score_sensitivity`` (the other
  samples at margin ``beta``, the replaced one at ``-beta``, its probe value
  flipped), the draws follow the exact exponential mechanism computed in
  NumPy (chi-square), the probe's integer quality moves by the claimed 1024
  grid steps and no more (the grid step is the sensitivity times the step's
  loss weight ``d c``: the model steps' ``d c`` and the local steps' 1), the
  exact log-ratio of any outcome is at most the per-choice epsilon, and a
  Clopper-Pearson lower bound from the draws stays under it.
* Bookkeeping: with the same (testing) noise, a private fit and two joins
  on data sets that differ in one node's data -- a fitted node's or a
  newcomer's labels flipped, or (MOCHA, client level) a fitted node's whole
  data redrawn -- send the same bytes in the same rounds and messages and record the same uses and
  spend, while the released models do differ (the change reaches them): no
  message size, round count, stop or spend reads the data.
* Accounting: a join spends only the newcomers' budget (the fitted nodes'
  and the first join's newcomers' ``privacy_spent_`` are unchanged by a
  second join); a Perso-lin newcomer's spend is the zCDP composition of its
  recorded uses at its recorded noise multiplier and within the budget, also
  when the fit's class vote took half of it (the newcomer does not vote: its
  steps are calibrated on the whole budget); MOCHA newcomers spend 0.

Measured (this file's constructions): Dada join choice at a per-choice
epsilon of 2.86, exact max log-ratio 1.43 (the exponential mechanism's half,
as one quality moves up by the sensitivity and its opposite vertex down).
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("dp_accounting")

import skfed._graph_join as graph_join  # noqa: E402
from skfed import (  # noqa: E402
    DecentralizedBoostingClassifier,
    DifferentialPrivacy,
    PersonalizedLinearClassifier,
)
from skfed._secure_noise import CHOICE_RESOLUTION, InsecureNoiseWarning, NoiseSource  # noqa: E402
from skfed.boosting import fw_score_sensitivity, make_stump_predictors  # noqa: E402
from skfed.multitask import (  # noqa: E402
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
)
from skfed.privacy import zcdp_epsilon  # noqa: E402


def _nodes(n_nodes=8, size=20, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1.0, 1.0, size=(n_nodes * size, 2))
    y = (X @ np.array([1.0, -0.5]) + 0.3 * rng.normal(size=len(X)) > 0).astype(int)
    return X, y, np.repeat(np.arange(n_nodes), size)


# ------------------------------------------------------- Dada's join choice
_M = 8          # the newcomer's samples
_DEGREE = 3.0   # its degree in the model steps (d); its confidence c = m / (2 m)


def _private_dada():
    X, y, g = _nodes()
    est = DecentralizedBoostingClassifier(
        privacy=DifferentialPrivacy(epsilon=20.0), random_state=0, max_iter=16,
        base_predictors=make_stump_predictors([-1, -1], [1, 1], 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
    models = graph_join._models(est)
    budget = graph_join._fit_budget(est, len(est.nodes_), models.shape[1], models.shape[2])
    return est, budget.mechanism


def _worst_case(probe):
    """Base predictor values of a newcomer: column 0 carries the model (the
    others at margin beta, sample 0 at -beta), column 1 is the probe (sample
    0's value, -1 on D and +1 on D'), column 2 is constant 0."""
    Z = np.zeros((_M, 3))
    Z[:, 0] = 1.0
    Z[0, 0] = -1.0
    Z[0, 1] = probe
    return Z


def _exact_choice(est, mechanism, Z, alpha, loss_weight):
    """NumPy: the qualities ``floor(-s g_j / u)`` of the 6 vertices (s = +1
    then -1 per column) and their exact exponential-mechanism probabilities,
    ``u`` the sensitivity over the resolution times the loss weight."""
    y = np.ones(_M)
    margins = y * (Z @ alpha)
    eta = np.exp(-margins) / np.exp(-margins).sum()
    grad = -loss_weight * (Z.T @ (eta * y))   # the smoothing term is 0 (S = d alpha)
    unit = fw_score_sensitivity(_M, est.beta) / CHOICE_RESOLUTION * loss_weight
    q = np.empty(6)
    q[0::2], q[1::2] = np.floor(-grad / unit), np.floor(grad / unit)
    p = np.exp((q - q.max()) / mechanism.scale)
    return q, p / p.sum()


def _join_draws(est, mechanism, Z, alpha, phase, n_draws):
    """Vertex counts of ``n_draws`` first steps (gamma = 1: the new model is
    the chosen vertex) of a newcomer through the join's own classes, on the
    secure source."""
    steps = graph_join._PrivateSteps(est, mechanism, NoiseSource())
    y = np.ones((1, _M))
    node = graph_join._Newcomer(est, Z, y, np.ones(_M), 2.0 * _M, np.float64)
    counts = np.zeros(6, dtype=np.int64)
    S = _DEGREE * alpha[None, :]
    for _ in range(n_draws):
        node.model[0, 0] = alpha
        node.margins[:] = y * (Z @ alpha)
        if phase == "model":
            node.model_steps(S, _DEGREE, 0, 1, steps)
        else:
            node.local(1, steps)
        a = node.model[0, 0]
        j = int(np.flatnonzero(a)[0])
        assert abs(abs(a[j]) - est.beta) < 1e-12 and np.count_nonzero(a) == 1
        counts[2 * j + (0 if a[j] > 0 else 1)] += 1
    return counts


def _clopper_pearson(k, n, level=0.999):
    a = (1.0 - level) / 2.0
    lo = stats.beta.ppf(a, k, n - k + 1) if k > 0 else 0.0
    hi = stats.beta.ppf(1.0 - a, k + 1, n - k) if k < n else 1.0
    return lo, hi


@pytest.mark.parametrize("phase", ["model", "local"])
def test_dada_join_choice_is_the_exponential_mechanism_at_the_claimed_sensitivity(phase):
    est, mechanism = _private_dada()
    confidence = float(graph_join.newcomer_confidence(_M, 2.0 * _M))
    assert confidence == 0.5
    loss_weight = _DEGREE * confidence if phase == "model" else 1.0
    alpha = np.array([float(est.beta), 0.0, 0.0])
    n_draws = 20_000
    qD, pD = _exact_choice(est, mechanism, _worst_case(-1.0), alpha, loss_weight)
    qE, pE = _exact_choice(est, mechanism, _worst_case(+1.0), alpha, loss_weight)
    # The replaced sample moves the probe's qualities by the whole
    # sensitivity (1024 grid steps, one more from the floor), nothing else.
    moved = np.abs(qD - qE)
    assert moved[2] in (1024, 1025) and moved[3] in (1024, 1025)
    assert np.all(moved[[0, 1, 4, 5]] == 0)
    counts = {}
    for probe, p in ((-1.0, pD), (1.0, pE)):
        c = _join_draws(est, mechanism, _worst_case(probe), alpha, phase, n_draws)
        counts[probe] = c
        # the join's draws are the exact mechanism (the grid step is u d c)
        assert stats.chisquare(c, n_draws * p).pvalue > 1e-4, (phase, probe, c, n_draws * p)
    # The exact mechanism's largest log-ratio is within the per-choice claim
    # (and is its half here: informative, not vacuous).
    ratio = float(np.max(np.abs(np.log(pD / pE))))
    assert 0.45 * mechanism.epsilon <= ratio <= mechanism.epsilon + 1e-12
    # Empirical lower bound on the vertex +e_1 (the probe's), both directions.
    for a, b in ((-1.0, 1.0), (1.0, -1.0)):
        lo_a, _ = _clopper_pearson(int(counts[b][2]), n_draws)
        _, hi_b = _clopper_pearson(int(counts[a][2]), n_draws)
        bound = math.log(lo_a / hi_b) if lo_a > hi_b else 0.0
        assert bound <= mechanism.epsilon
    lo, _ = _clopper_pearson(int(counts[1.0][2]), n_draws)
    _, hi = _clopper_pearson(int(counts[-1.0][2]), n_draws)
    assert math.log(lo / hi) > 0.3 * mechanism.epsilon  # the audit sees the change


# ------------------------------------------------------------ bookkeeping
def _log_numbers(est, with_bytes):
    """What must not depend on a node's data, the noise fixed: the uses,
    stops and spend of every node and the number of rounds (fit and joins);
    with ``with_bytes`` (MOCHA, whose messages are dense vectors of fixed
    size) every byte and message count too.  (Dada's and Perso-lin's bytes
    may follow the released models -- a sparse model, a graph row --
    which is post-processing.)"""
    out = {"privacy_spent_": np.asarray(est.privacy_spent_).tolist(),
           "rounds": len(est.bytes_per_round_)}
    join = getattr(est, "join_communication_", None)
    if join is not None:
        out["join_rounds"] = len(join.bytes_per_round)
    if with_bytes:
        out.update(n_bytes_sent_=int(est.n_bytes_sent_), n_messages_=int(est.n_messages_),
                   bytes_per_round_=np.asarray(est.bytes_per_round_).tolist())
        if join is not None:
            out["join"] = (np.asarray(join.bytes_per_round).tolist(),
                           np.asarray(join.messages_per_round).tolist(),
                           join.pair_bytes_sparse.toarray().tolist())
    for key in ("uses", "stopped_at", "sigma", "gradient_sensitivity"):
        value = est.privacy_.get(key)
        if isinstance(value, np.ndarray):
            out["privacy_." + key] = value.tolist()
    return out


# Two joins of two newcomers of 6 samples each.
_JOIN_GROUPS = (np.repeat([100, 101], 6), np.repeat([102, 103], 6))


def _fit_and_join(make, X, y, g, A, b, with_bytes=False):
    est = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", InsecureNoiseWarning)
        warnings.simplefilter("ignore", UserWarning)  # (joined nodes keep no Local model)
        est.fit(X, y, groups=g)
        records = [_log_numbers(est, with_bytes)]
        for rows, groups in zip((slice(0, 12), slice(12, 24)), _JOIN_GROUPS):
            est.add_nodes(A[rows], b[rows], groups=groups)
            records.append(_log_numbers(est, with_bytes))
    return est, records


def _newcomers(regression=False, seed=7):
    rng = np.random.RandomState(seed)
    A = rng.uniform(-1.0, 1.0, size=(24, 2))
    t = A[:, 0] + 0.1 * rng.normal(size=24)
    return A, (t if regression else (t > 0).astype(int))


_SPEC = dict(epsilon=2.0, insecure_noise_seed=3)


def _boosting(name):
    if name == "dada":
        # (a larger budget and noise seed 4: at epsilon 2, or with seed 3 at
        # 20, a newcomer of 6 samples draws the same 10 vertices from the
        # same testing noise whatever its labels, which would leave the
        # test's last check vacuous)
        return lambda: DecentralizedBoostingClassifier(
            privacy=DifferentialPrivacy(epsilon=20.0, insecure_noise_seed=4), random_state=0,
            max_iter=40,
            base_predictors=make_stump_predictors([-1, -1], [1, 1], 6))
    return lambda: PersonalizedLinearClassifier(
        privacy=DifferentialPrivacy(**_SPEC), random_state=0, max_iter=40)


@pytest.mark.parametrize("name", ["dada", "persolin"])
@pytest.mark.parametrize("where", ["fitted node", "newcomer"])
def test_private_graph_joins_send_the_same_bytes_on_neighbouring_data(name, where):
    X, y, g = _nodes()
    A, b = _newcomers()
    base, base_records = _fit_and_join(_boosting(name), X, y, g, A, b)
    # The node's data replaced (its labels flipped: the strongest change of
    # its size; a message size that read the data would show it).
    X2, y2, A2, b2 = X.copy(), y.copy(), A.copy(), b.copy()
    if where == "fitted node":
        y2[:20] = 1 - y2[:20]
        node = 0
    else:
        b2[:6] = 1 - b2[:6]
        node = len(base.nodes_) - 4   # the first join's first newcomer
    other, records = _fit_and_join(_boosting(name), X2, y2, g, A2, b2)
    assert records == base_records
    # The change reaches what the node released (the comparison is not vacuous).
    released = getattr(base, "released_coef_", base.coef_)
    released2 = getattr(other, "released_coef_", other.coef_)
    assert not np.array_equal(released[node], released2[node])


@pytest.mark.parametrize("Estimator, omega", [(FederatedMultiTaskClassifier, "learn"),
                                              (FederatedMultiTaskRegressor, "independent")])
def test_private_mocha_joins_send_the_same_bytes_on_neighbouring_clients(Estimator, omega):
    regression = Estimator is FederatedMultiTaskRegressor
    X, y, g = _nodes()
    if regression:
        y = X @ np.array([1.0, -0.5]) + 0.1 * np.random.RandomState(1).normal(size=len(X))
    A, b = _newcomers(regression)

    def make():
        return Estimator(privacy=DifferentialPrivacy(**_SPEC), omega=omega, random_state=0,
                         max_rounds=12)

    base, base_records = _fit_and_join(make, X, y, g, A, b, with_bytes=True)
    # Client level: node 0's whole data set replaced (same size: n is public).
    rng = np.random.RandomState(9)
    X2, y2 = X.copy(), np.array(y, dtype=float if regression else int)
    X2[:20] = rng.uniform(-1.0, 1.0, size=(20, 2))
    y2[:20] = 3.0 * rng.normal(size=20) if regression else (rng.rand(20) < 0.2).astype(int)
    other, records = _fit_and_join(make, X2, y2, g, A, b, with_bytes=True)
    assert records == base_records
    assert not np.array_equal(base._released_W[:, 0], other._released_W[:, 0])
    # The newcomers released nothing and spent nothing.
    assert np.all(base.privacy_spent_[-4:] == 0.0) and np.all(base.privacy_spent_[:-4] > 0)
    assert np.all(np.isnan(base._released_W[:, -4:]))


# ------------------------------------------------------------- accounting
def test_joins_spend_only_the_newcomers_budget_and_as_accounted():
    X, y, g = _nodes(n_nodes=24)
    A, b = _newcomers()
    spec = DifferentialPrivacy(epsilon=2.0, delta=1e-6)
    est = PersonalizedLinearClassifier(privacy=spec, random_state=0, max_iter=200)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
        vote = est.privacy_["class_vote"]
        assert vote["held"] and vote["epsilon"] == 1.0   # the vote took half
        fitted = est.privacy_spent_.copy()
        est.add_nodes(A[:12], b[:12], groups=_JOIN_GROUPS[0])
        first = est.privacy_spent_.copy()
        est.add_nodes(A[12:], b[12:], groups=_JOIN_GROUPS[1])
    spent = est.privacy_spent_
    assert spent.shape == (28,)
    assert np.array_equal(spent[:24], fitted) and np.array_equal(spent[:26], first)
    # Fitted nodes: the fit's steps at epsilon 1 plus the vote's 1.
    assert np.all(fitted <= 2.0 + 1e-9)
    # Newcomers: zCDP composition of their uses at their noise multiplier.
    for k in range(24, 28):
        multiplier = est.privacy_["sigma"][k] / est.privacy_["gradient_sensitivity"][k]
        uses = int(est.privacy_["uses"][k])
        assert uses > 0
        expected = zcdp_epsilon(uses / (2.0 * multiplier**2), 1e-6)
        assert spent[k] == pytest.approx(expected, rel=2e-3)
        assert spent[k] <= 2.0


@pytest.mark.parametrize("name", ["dada", "persolin"])
def test_a_private_newcomer_releases_exactly_its_accounted_uses(name, monkeypatch):
    """Every private step a newcomer takes in the join's kernels (counted at
    the calls: Dada's choices ``n_steps x P`` per call with a private scale,
    Perso-lin's noisy releases one per noise row) is in its recorded
    ``privacy_["uses"]`` -- no step escapes the accountant, in blocks of
    linked newcomers and across two joins."""
    taken = []
    if name == "dada":
        originals = {f: getattr(graph_join, f) for f in ("fw_local", "fw_join")}

        def counting(f):
            def call(*args, **kwargs):
                assert kwargs.get("scale", 0) > 0  # every step of a private newcomer
                model = args[4] if f == "fw_local" else args[3]
                n_steps = args[8] if f == "fw_local" else args[-1]
                taken.append((id(model), int(n_steps) * model.shape[1]))
                return originals[f](*args, **kwargs)
            return call

        for f in originals:
            monkeypatch.setattr(graph_join, f, counting(f))
    else:
        originals = {f: getattr(graph_join, f) for f in ("lin_local", "lin_join")}

        def counting(f):
            def call(*args, **kwargs):
                theta = args[4] if f == "lin_local" else args[3]
                n_steps = args[11] if f == "lin_local" else args[14]
                assert kwargs["noise"].shape[0] == int(n_steps)   # fresh rows, one a step
                taken.append((id(theta), int(n_steps)))
                return originals[f](*args, **kwargs)
            return call

        for f in originals:
            monkeypatch.setattr(graph_join, f, counting(f))
    X, y, g = _nodes()
    A, b = _newcomers()
    est = _boosting(name)()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
        for rows, groups in zip((slice(0, 12), slice(12, 24)), _JOIN_GROUPS):
            before = len(taken)
            est.add_nodes(A[rows], b[rows], groups=groups)
            per_newcomer = {}
            for key, n in taken[before:]:
                per_newcomer[key] = per_newcomer.get(key, 0) + n
            recorded = est.privacy_["uses"][-2:]
            assert sorted(per_newcomer.values()) == sorted(recorded.tolist())
            assert len(per_newcomer) == 2 and np.all(recorded > 0)


def test_random_state_does_not_reproduce_a_private_joins_noise():
    """Two copies of one private Perso-lin fit join the same newcomers with
    the same ``random_state`` (so the same candidates, peers and rows
    drawn): the newcomers' released models differ (their noise is fresh OS
    randomness); with ``insecure_noise_seed`` they are equal, and the fit
    says its guarantee is void."""
    import copy

    X, y, g = _nodes()
    A, b = _newcomers()
    models = []
    for seed in (None, 5):
        est = PersonalizedLinearClassifier(
            privacy=DifferentialPrivacy(epsilon=2.0, insecure_noise_seed=seed),
            random_state=0, max_iter=40)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, y, groups=g)
            twins = [copy.deepcopy(est), copy.deepcopy(est)]
            for twin in twins:
                twin.add_nodes(A[:12], b[:12], groups=_JOIN_GROUPS[0])
        assert twins[0].privacy_guarantee_void_ is (seed is not None)
        assert np.array_equal(twins[0].privacy_spent_, twins[1].privacy_spent_)
        models.append((twins[0].coef_[-2:], twins[1].coef_[-2:]))
    secure, insecure = models
    assert np.all(secure[0] != secure[1])
    assert np.array_equal(insecure[0], insecure[1])


def test_persolin_join_model_step_releases_the_clipped_gradient_plus_calibrated_noise():
    """A private Perso-lin newcomer's model step (``_Newcomer.model_steps``
    through ``_PrivateSteps``, degree 3, confidence 1/2), read back from the
    model it releases: the release minus a NumPy clipped mean gradient is
    integer multiples of the grid step ``sigma_k / 2^20`` with standard
    deviation ``sigma_k = multiplier x 2 C sqrt(P) / m`` (the sensitivity to
    one replaced sample times the fit's calibrated noise multiplier) and mean
    0.  (review32 audited the newcomer's local step; this is the model
    step, whose release is weighted by ``d c`` only after the noise.)"""
    X, y, g = _nodes()
    est = PersonalizedLinearClassifier(privacy=DifferentialPrivacy(epsilon=2.0),
                                       random_state=0, max_iter=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
    models = graph_join._models(est)
    budget = graph_join._fit_budget(est, len(est.nodes_), models.shape[1], models.shape[2])
    steps = graph_join._PrivateSteps(est, budget.mechanism, NoiseSource())
    rng = np.random.RandomState(3)
    m = 10
    Xn = np.column_stack([2.0 * rng.normal(size=(m, 2)), np.ones(m)])   # some rows clipped
    yn = np.where(rng.rand(m) < 0.5, -1.0, 1.0)
    node = graph_join._Newcomer(est, Xn, yn[None, :], np.ones(m), 2.0 * m, np.float64)
    assert node.confidence == 0.5
    # NumPy: the clipped mean gradient of the logistic loss at theta = 0
    # (loss'(0) = -1/2; each sample's term clipped to C = 1).
    terms = -0.5 * yn[:, None] * Xn
    norms = np.linalg.norm(terms, axis=1)
    assert np.any(norms > 1.0)
    terms *= np.minimum(1.0, 1.0 / norms)[:, None]
    exact = terms.mean(axis=0)
    sensitivity = 2.0 * 1.0 * math.sqrt(1) / m
    sigma = budget.mechanism.sigma * sensitivity
    theta0 = np.zeros(3)
    noise = []
    for _ in range(3000):
        node.model[0, 0] = theta0
        node.model_steps(_DEGREE * theta0[None, :], _DEGREE, 0, 1, steps)
        lw = _DEGREE * node.confidence
        lip = lw * node.lipschitz + float(est.mu) * _DEGREE
        release = (theta0 - node.model[0, 0]) * lip / lw
        noise.append(release - exact)
    noise = np.asarray(noise)
    grid = sigma / 2.0**20
    assert node.lipschitz == pytest.approx(0.25 * 3 + float(est.alpha))   # the public bound
    # On the grid: per coordinate, every draw is the same rounding offset
    # plus an integer number of grid steps.
    offset = noise / grid - np.round(noise / grid)
    assert np.all(np.ptp(offset, axis=0) < 1e-3)
    noise = noise.ravel()
    assert np.std(noise) == pytest.approx(sigma, rel=0.05)
    assert abs(np.mean(noise)) < 4.0 * sigma / math.sqrt(noise.size)


@pytest.mark.parametrize("Estimator", [FederatedMultiTaskClassifier, PersonalizedLinearClassifier])
def test_an_abstaining_node_is_not_visible_in_the_class_vote_round(Estimator):
    """A node whose samples are all of one class abstains from the class
    vote; its message must not show it (the same noise): MOCHA's fit sends
    the same bytes in every round, Perso-lin's vote round (the fit's last)
    the same bytes and messages, and both count 24 ballots."""
    X, y, g = _nodes(n_nodes=24, size=12)
    logs = []
    for labels in (y, np.where(g == 0, 1, y)):   # node 0: one class (abstains)
        kw = dict(omega="learn", max_rounds=8) if Estimator is FederatedMultiTaskClassifier \
            else dict(max_iter=48)
        est = Estimator(privacy=DifferentialPrivacy(**_SPEC), random_state=0, **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.fit(X, labels, groups=g)
        vote = est.privacy_["class_vote"]
        assert vote["held"] and vote["ballots_counted"] == 24
        if Estimator is FederatedMultiTaskClassifier:
            logs.append((np.asarray(est.bytes_per_round_).tolist(), int(est.n_messages_)))
        else:
            logs.append((int(est.bytes_per_round_[-1]), vote["bytes"], vote["messages"]))
    assert logs[0] == logs[1]
