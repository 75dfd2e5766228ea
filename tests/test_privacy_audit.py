"""Privacy audits: the guarantees tested as an adversary would.

* Empirical epsilon lower bounds: a mechanism run many times on two
  neighbouring data sets, a distinguishing event chosen before the runs, its
  rates bounded by Clopper-Pearson intervals (99.9 % each); the lower bound
  ``log((1 - delta - FNR_hi) / FPR_hi)`` must stay below the claimed epsilon
  (it would exceed it if the noise were too small) and be informative.
* Two private fits with the same integer ``random_state`` draw different noise.
* No fitted attribute of a private fit holds a training row of any node, walked
  recursively through nested estimators (``kept_local_models_`` included: the
  models a node trains alone store coefficients and public random features,
  never a sample).

All noise here is the secure source's (no seed), as in a real fit.
"""

import math
import warnings

import numpy as np
import pytest
from scipy import stats

pytest.importorskip("dp_accounting")

from skfed import (  # noqa: E402
    DecentralizedBoostingClassifier,
    FederatedMultiTaskClassifier,
    FederatedSupportRecovery,
    PersonalizedLinearClassifier,
)
from skfed._core._boosting_fast import Logistic, lin_local, private_vertex_draws  # noqa: E402
from skfed._secure_noise import (  # noqa: E402
    CHOICE_RESOLUTION,
    InsecureNoiseWarning,
    NoiseSource,
)
from skfed.boosting import fw_score_sensitivity, make_stump_predictors  # noqa: E402
from skfed.privacy import (  # noqa: E402
    DifferentialPrivacy,
    ExponentialMechanism,
    calibrate_discrete_gaussian,
    calibrate_randomized_response,
)

ALPHA = 1e-3  # each Clopper-Pearson bound holds with probability 1 - ALPHA


def _upper(successes, n):
    """One-sided Clopper-Pearson upper bound of a binomial rate."""
    if successes >= n:
        return 1.0
    return float(stats.beta.ppf(1 - ALPHA, successes + 1, n - successes))


def _epsilon_lower_bound(hits_d, hits_d2, n, delta=0.0):
    """Lower bound on epsilon from an event with ``hits_d`` of ``n`` runs on D
    and ``hits_d2`` of ``n`` on D' (the event is meant to be likelier on D)."""
    fpr_hi = _upper(hits_d2, n)  # event on D'
    fnr_hi = _upper(n - hits_d, n)  # no event on D
    if fpr_hi <= 0:
        return math.inf
    return max(0.0, math.log(max(1.0 - delta - fnr_hi, 1e-300) / fpr_hi))


def test_audit_randomized_response_of_the_support_estimator():
    # One client's vote bit, flipped as FederatedSupportRecovery flips it:
    # the estimator's calibration, the secure source.
    epsilon, d = 2.0, 1
    mechanism = calibrate_randomized_response(epsilon, 0.0, d)
    source = NoiseSource()
    n = 50_000
    sent_one = mechanism.apply(np.ones(n, dtype=np.uint8), source)
    sent_zero = mechanism.apply(np.zeros(n, dtype=np.uint8), source)
    bound = _epsilon_lower_bound(int(sent_one.sum()), int(sent_zero.sum()), n)
    assert bound <= epsilon
    assert bound > 0.9 * epsilon  # the audit is tight: randomized response attains epsilon
    # TODO(lead): audit through FederatedSupportRecovery.fit itself once its
    # owner exposes the sent bits (the rogue-client fix changes that path).


def test_audit_one_persolin_message():
    # One private local step of Perso-lin on a node of m samples, on two data
    # sets that differ in one sample; every run is one node of one lin_local
    # call (independent secure noise per node).
    rng = np.random.default_rng(0)
    m, clip, epsilon, delta = 8, 1.0, 1.0, 1e-5
    Z = np.column_stack([rng.normal(size=(m, 2)), np.ones(m)])
    Z[0] = [8.0, -6.0, 1.0]  # a sample whose term is clipped
    Y = np.ones(m)
    Z2, Y2 = Z.copy(), Y.copy()
    Z2[0] = [-8.0, 6.0, -1.0]  # replaced sample: its clipped term flips sign
    dim = Z.shape[1]
    sensitivity = 2.0 * clip / m
    mechanism = calibrate_discrete_gaussian(epsilon, delta, sensitivity, 1, dim)
    n = 200_000

    def released(Zs, Ys):
        X = np.ascontiguousarray(np.tile(Zs, (n, 1)))
        theta = np.zeros((n, 1, dim))
        lin_local(
            X, np.ascontiguousarray(np.tile(Ys, n)[None, :]), np.ones(n * m),
            np.arange(0, n * m + 1, m).astype(np.intp), theta, Logistic(),
            np.full(n, 1.0 / m), np.ones(n), 0.0, dim - 1, np.zeros((n, 1)), 1, 0, n,
            grid_step=np.full(n, mechanism.step),
            noise=NoiseSource().discrete_gaussian(mechanism.steps, (n, dim)),
            row_norm=np.linalg.norm(X, axis=1), clip=clip,
        )
        return -theta[:, 0, :]  # the released gradient (step 1 / L, L = 1)

    a, b = released(Z, Y), released(Z2, Y2)
    # the adversary's test, fixed in advance: project on the direction in
    # which the exact clipped gradients differ, threshold 2 sigma past the
    # midpoint (on the side of D; the likelihood ratio there is about
    # exp(2 Delta / sigma) = e^0.5, against exp(epsilon) at most up to delta)
    terms = lambda Zs, Ys: np.array([  # noqa: E731
        -0.5 * y * z * min(1.0, clip / (0.5 * np.linalg.norm(z))) for z, y in zip(Zs, Ys)
    ]).mean(axis=0)
    g, g2 = terms(Z, Y), terms(Z2, Y2)
    direction = (g - g2) / np.linalg.norm(g - g2)
    threshold = direction @ (g + g2) / 2 + 2.0 * mechanism.sigma
    hits_a = int(np.sum(a @ direction > threshold))
    hits_b = int(np.sum(b @ direction > threshold))
    bound = _epsilon_lower_bound(hits_a, hits_b, n, delta)
    assert np.linalg.norm(g - g2) == pytest.approx(sensitivity, rel=1e-12)
    assert bound <= epsilon
    assert bound > 0.3 * epsilon


def test_audit_one_dada_choice():
    # One private Frank-Wolfe choice at alpha = 0 with one base predictor (two
    # vertices, whose qualities move in opposite directions: the exponential
    # mechanism then spends its whole epsilon).
    # The event "vertex +e_0 chosen" has log-odds epsilon m mean(y) / 2: -2 on
    # D (3 of 10 labels positive), -3 on D' (one positive label replaced), so
    # its probability ratio is close to e^epsilon.
    m, beta, epsilon = 10, 1e-6, 1.0
    h = np.ones(m)
    y = np.where(np.arange(m) < 3, 1.0, -1.0)
    y2 = y.copy()
    y2[0] = -1.0  # one replaced sample
    # data part of the gradient at alpha = 0: -A^T softmax(0) = -mean(y h)
    grad = np.array([-np.mean(y * h)])
    grad2 = np.array([-np.mean(y2 * h)])
    sensitivity = float(fw_score_sensitivity(m, beta))
    assert np.abs(grad - grad2).max() <= sensitivity
    mechanism = ExponentialMechanism(epsilon)
    n = 60_000
    unit = sensitivity / CHOICE_RESOLUTION
    _, signs = private_vertex_draws(grad, unit, mechanism.scale, n, NoiseSource().stream())
    _, signs2 = private_vertex_draws(grad2, unit, mechanism.scale, n, NoiseSource().stream())
    # event "the vertex +e_0 (score -g_0) is chosen": likelier on D
    bound = _epsilon_lower_bound(int(np.sum(signs > 0)), int(np.sum(signs2 > 0)), n)
    assert bound <= epsilon
    assert bound > 0.7 * epsilon


def test_audit_one_mocha_round():
    # One private MOCHA round at client level: node 0's whole data set is
    # replaced (its labels flipped), everything else equal.  The exact first
    # updates Delta v_0 are the estimator's own (recorded from two fits of one
    # round); each run of the audit is one release of them through the fit's
    # mechanism (clip to B, discrete Gaussian of the calibration of one
    # round, noise from the secure source), vectorized over the runs.
    from skfed.multitask import _PrivateUpdates

    X, y, groups = _node_data(seed=4, K=3, m=20)
    y2 = y.copy()
    y2[groups == 0] = 1 - y2[groups == 0]  # a neighbouring data set of node 0
    epsilon, delta, clip = 1.0, 1e-5, 0.05
    spec = DifferentialPrivacy(epsilon, delta=delta, clip_norm=clip)
    recorded = []
    release = _PrivateUpdates.release

    def recording(self, update):
        recorded.append((self, update.copy()))
        return release(self, update)

    updates, mechanisms = [], []
    for labels in (y, y2):
        recorded.clear()
        _PrivateUpdates.release = recording
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                FederatedMultiTaskClassifier(kernel="linear", omega="independent", max_rounds=1,
                                             privacy=spec, random_state=0).fit(
                    X, labels, groups=groups)
        finally:
            _PrivateUpdates.release = release
        private, update = recorded[0]  # node 0's release (nodes go in order)
        updates.append(update.ravel())
        mechanisms.append(private.mechanism)
    a, b = updates
    assert np.linalg.norm(a) > clip and np.linalg.norm(b) > clip  # both clipped
    np.testing.assert_allclose(a, -b, rtol=1e-12)  # the flip reverses the update
    mechanism = mechanisms[0]
    assert mechanism.sigma == mechanisms[1].sigma
    assert mechanism.sensitivity == 2 * clip
    clipped = [u * (clip / np.linalg.norm(u)) for u in (a, b)]
    n = 200_000
    source = NoiseSource()
    out = [mechanism.apply(np.tile(u, (n, 1)), source) for u in clipped]
    direction = (clipped[0] - clipped[1]) / np.linalg.norm(clipped[0] - clipped[1])
    # the adversary's test, fixed in advance: 2 sigma past the midpoint, on D's side
    threshold = direction @ (clipped[0] + clipped[1]) / 2 + 2.0 * mechanism.sigma
    hits = [int(np.sum(o @ direction > threshold)) for o in out]
    bound = _epsilon_lower_bound(hits[0], hits[1], n, delta)
    assert bound <= epsilon
    assert bound > 0.3 * epsilon


def test_mocha_release_does_not_reveal_the_node_size():
    # Client level: a node whose data set is its own twice over (twice the
    # samples, the same v_t) sends messages of the same distribution; with
    # the testing switch fixing the noise, the very same messages.
    from skfed.multitask import _PrivateUpdates

    spec = DifferentialPrivacy(1.0, delta=1e-5, clip_norm=1.0, insecure_noise_seed=3)
    update = np.array([[0.3, -0.1, 0.2]])
    sent = []
    for n_t in (20.0, 40.0):
        with pytest.warns(InsecureNoiseWarning):
            private = _PrivateUpdates(spec, 1, 5, 3)
        out = private.privatize(np.array([0]), [(update * n_t, None)], np.array([n_t]))
        sent.append(out.released)
    np.testing.assert_array_equal(sent[0], sent[1])


# ----------------------------------------------------------- fitted estimators
def _node_data(seed=0, K=4, m=30):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(K * m, 2))
    y = (X[:, 0] + 0.3 * rng.normal(size=K * m) > 0).astype(int)
    groups = np.repeat(np.arange(K), m)
    return X, y, groups


def _private_estimators(spec):
    stumps = make_stump_predictors([-3.0, -3.0], [3.0, 3.0], 8)
    return [
        DecentralizedBoostingClassifier(base_predictors=stumps, beta=0.5, max_iter=40,
                                        privacy=spec, random_state=0),
        PersonalizedLinearClassifier(max_iter=40, privacy=spec, random_state=0),
    ]


def test_same_random_state_different_noise_and_the_testing_switch():
    X, y, groups = _node_data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for spec_kw in [dict(epsilon=1.0, delta=1e-5)]:
            fits = [
                [est.fit(X, y, groups=groups) for est in _private_estimators(
                    DifferentialPrivacy(**spec_kw))]
                for _ in range(2)
            ]
            for a, b in zip(*fits):
                # the noise is in the released models (coef_ is each node's
                # refit on its own data, which may trust no neighbour)
                assert not np.array_equal(a.released_coef_, b.released_coef_), type(a).__name__
                assert a.privacy_guarantee_void_ is False
                assert "os.urandom" in a.privacy_["noise_source"]
    # the deliberately named switch fixes the noise, warns and voids the guarantee
    spec = DifferentialPrivacy(1.0, delta=1e-5, insecure_noise_seed=12)
    for _ in range(1):
        with pytest.warns(InsecureNoiseWarning, match="guarantee of this fit is void"):
            first = [est.fit(X, y, groups=groups) for est in _private_estimators(spec)]
        with pytest.warns(InsecureNoiseWarning):
            second = [est.fit(X, y, groups=groups) for est in _private_estimators(spec)]
    for a, b in zip(first, second):
        np.testing.assert_array_equal(a.released_coef_, b.released_coef_)
        np.testing.assert_array_equal(a.coef_, b.coef_)
        assert a.privacy_guarantee_void_ is True
        assert "INSECURE" in a.privacy_["noise_source"]


def test_support_flips_do_not_follow_random_state():
    from skfed.datasets import make_federated_sparse_regression

    X, y, groups, _, _ = make_federated_sparse_regression(
        n_clients=60, n_samples=30, n_features=10, n_informative=2, random_state=0
    )
    spec = DifferentialPrivacy(0.5, delta=0.0)
    votes = [
        FederatedSupportRecovery(privacy=spec, random_state=0).fit(X, y, groups=groups)
        for _ in range(2)
    ]
    attrs = [v for v in vars(votes[0]) if v.endswith("_") and "vote" in v]
    assert attrs, "the support estimator exposes its votes"
    assert any(not np.array_equal(getattr(votes[0], a), getattr(votes[1], a)) for a in attrs)


def _arrays(value, seen=None):
    """Every ndarray reachable from a fitted attribute."""
    seen = set() if seen is None else seen
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fiu":
            yield value
        elif value.dtype == object:
            for item in value.ravel():
                yield from _arrays(item, seen)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _arrays(item, seen)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _arrays(item, seen)
    elif hasattr(value, "toarray") and hasattr(value, "nnz"):
        yield value.toarray()
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        for item in vars(value).values():
            yield from _arrays(item, seen)


def _holds_a_row(array, X):
    rows = set(map(tuple, np.round(X, 12)))
    if array.ndim == 0 or array.size == 0:
        return False
    flat = array.reshape(-1, array.shape[-1]) if array.ndim >= 2 else array[None, :]
    if flat.shape[-1] != X.shape[1]:
        # rows stored inside a longer vector (e.g. with an intercept column)
        flat = array.reshape(-1)
        values = np.round(flat.astype(float), 12)
        return any(
            tuple(values[i: i + X.shape[1]]) in rows for i in range(values.size - X.shape[1] + 1)
        )
    return any(tuple(np.round(r.astype(float), 12)) in rows for r in flat)


@pytest.mark.parametrize("which", ["dada", "persolin", "support", "mocha", "mocha-linear",
                                   "persolin-local", "mocha-local"])
def test_no_fitted_attribute_holds_a_training_row(which):
    X, y, groups = _node_data(seed=3)
    X = X + np.random.default_rng(1).uniform(0.1, 0.2, size=X.shape)  # no round values
    spec = DifferentialPrivacy(1.0, delta=1e-5)
    if which.endswith("-local"):
        # a given Local model (an rbf model on public random features)
        from sklearn.kernel_approximation import RBFSampler
        from sklearn.pipeline import make_pipeline
        from sklearn.svm import LinearSVC

        spec.set_params(local_estimator=make_pipeline(
            RBFSampler(gamma=0.5, n_components=50, random_state=0), LinearSVC()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if which == "persolin-local":
            est = _private_estimators(spec)[1].fit(X, y, groups=groups)
            assert any(m is not None for m in est.kept_local_models_)
        elif which == "mocha-local":
            est = FederatedMultiTaskClassifier(max_rounds=3, privacy=spec, random_state=0)
            est.fit(X, y, groups=groups)
            assert any(m is not None for m in est.kept_local_models_)
        elif which == "dada":
            est = _private_estimators(spec)[0].fit(X, y, groups=groups)
        elif which == "persolin":
            est = _private_estimators(spec)[1].fit(X, y, groups=groups)
        elif which == "support":
            est = FederatedSupportRecovery(privacy=spec, random_state=0).fit(
                X, X[:, 0] + y, groups=groups)
        elif which == "mocha-linear":
            # every default (the linear kernel)
            est = FederatedMultiTaskClassifier(max_rounds=3, privacy=spec, random_state=0)
            est.fit(X, y, groups=groups)
            assert est.approximation_ is None
        else:
            # the rbf kernel (random features)
            est = FederatedMultiTaskClassifier(kernel="rbf", max_rounds=3, privacy=spec,
                                               random_state=0)
            est.fit(X, y, groups=groups)
            assert est.approximation_ == "rff"
    offenders = [
        name for name, value in vars(est).items()
        if name.endswith("_") and any(_holds_a_row(a, X) for a in _arrays(value))
    ]
    assert offenders == []


def test_mocha_same_random_state_different_noise_and_the_testing_switch():
    # What the server holds is the sum of the releases: its average model (the
    # prediction for a node never seen in fit) shows the noise.  Each node's
    # own model uses its exact share, which no noise enters while Sigma stays
    # diagonal.
    X, y, groups = _node_data()
    unseen = np.full(len(y), 99)

    def fit(spec):
        est = FederatedMultiTaskClassifier(kernel="linear", max_rounds=4, privacy=spec,
                                           random_state=0).fit(X, y, groups=groups)
        return est, est.decision_function(X, groups=unseen)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (a, da), (b, db) = [fit(DifferentialPrivacy(1.0, delta=1e-5)) for _ in range(2)]
    assert not np.array_equal(da, db)
    assert a.privacy_guarantee_void_ is False and "os.urandom" in a.privacy_["noise_source"]
    spec = DifferentialPrivacy(1.0, delta=1e-5, insecure_noise_seed=12)
    with pytest.warns(InsecureNoiseWarning, match="guarantee of this fit is void"):
        c, dc = fit(spec)
    with pytest.warns(InsecureNoiseWarning):
        d, dd = fit(spec)
    np.testing.assert_array_equal(dc, dd)
    assert c.privacy_guarantee_void_ is True and "INSECURE" in c.privacy_["noise_source"]
