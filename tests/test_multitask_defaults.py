"""The defaults of the multi-task estimators (issue 28): what they resolve to
and what they promise (bytes at most the raw upload, the local solver's rule).

The evidence for the choices is measured in ``benchmarks/bench_multitask.py
--defaults`` (user guide, "Measured results"); these tests check the rules.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skfed import SimulatedNetwork
from skfed.baselines import pooled_data_bytes
from skfed.datasets import make_related_tasks
from skfed.multitask import (
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    quantized_bytes,
)
from skfed.privacy import DifferentialPrivacy


def _tasks(n_nodes=12, n_features=5, n_samples=30, seed=0):
    X, _, y, _, g, _ = make_related_tasks(n_nodes, n_features=n_features,
                                          n_samples_per_node=n_samples,
                                          random_state=seed)[:6]
    return X, y, g


def test_defaults_are_linear_shared_logistic():
    clf, reg = FederatedMultiTaskClassifier(), FederatedMultiTaskRegressor()
    assert (clf.kernel, clf.omega, clf.loss) == ("linear", "auto", "logistic")
    assert (reg.kernel, reg.omega, reg.loss) == ("linear", "auto", "squared")
    X, y, g = _tasks()
    clf.set_params(random_state=0).fit(X, y, groups=g)
    assert clf.omega_mode_ == "shared"
    assert clf.approximation_ is None
    assert 0.0 < clf.shared_weight_ < 1.0
    # the logistic loss gives probabilities
    proba = clf.predict_proba(X[:5], groups=g[:5])
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)


@pytest.mark.parametrize(
    "params, mode",
    [
        (dict(), "shared"),
        (dict(kernel="rbf", approximation="rff"), "shared"),  # a primal mode
        (dict(kernel="rbf", approximation=None), "learn"),  # exact kernel: no w_0
        (dict(omega_update_every=5), "learn"),  # MOCHA's W-step schedule
        (dict(aggregation="add"), "learn"),
        (dict(omega="learn"), "learn"),
        (dict(omega="independent"), "independent"),
        (dict(omega="shared"), "shared"),
    ],
)
def test_omega_auto_resolves(params, mode):
    X, y, g = _tasks(n_nodes=4, n_samples=20)
    est = FederatedMultiTaskClassifier(loss="squared_hinge", random_state=0, **params)
    est.fit(X, y, groups=g)
    assert est.omega_mode_ == mode


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_omega_auto_under_privacy_is_learned_on_a_schedule():
    X, y, g = _tasks(n_nodes=4, n_samples=20)
    dp = DifferentialPrivacy(epsilon=5.0, delta=1e-5, clip_norm=1.0)
    # no schedule given: a private fit steps Omega every 5 rounds (no gap is sent)
    est = FederatedMultiTaskClassifier(privacy=dp, max_rounds=5, random_state=0).fit(
        X, y, groups=g)
    assert est.omega_mode_ == "learn" and est._omega_update_every() == 5
    est = FederatedMultiTaskClassifier(privacy=dp, omega_update_every=2, max_rounds=4,
                                       random_state=0).fit(X, y, groups=g)
    assert est.omega_mode_ == "learn"


def _largest_components(n, d, m, n_problems, dtype_bytes, auto_D, bits=8, rounds=100):
    """The reference: the largest D <= auto_D whose 100 rounds of one quantized
    vector each way per node and problem fit in n d values, by counting up."""
    raw = n * d * dtype_bytes
    best = 0
    for D in range(1, auto_D + 1):
        cost = 2 * rounds * m * n_problems * (8 + int(np.ceil((D + 1) * bits / 8)))
        if cost <= raw:
            best = D
    return best


@pytest.mark.parametrize("n_nodes, n_features, n_problems", [(29, 9, 1), (40, 20, 3), (5, 60, 1)])
def test_rbf_auto_components_capped_by_raw_upload(n_nodes, n_features, n_problems):
    from skfed.multitask import auto_components

    n = n_nodes * 300
    est = FederatedMultiTaskClassifier(kernel="rbf")
    est._resolve_mode(n, n_features, n_nodes, n_problems, 8)
    expected = _largest_components(n, n_features, n_nodes, n_problems, 8, auto_components(n))
    assert est.approximation_ == "rff"
    assert est.n_components_ == expected
    assert 2 * 100 * n_nodes * n_problems * quantized_bytes(expected + 1, 8) \
        <= n * n_features * 8
    if expected < auto_components(n):  # the cap binds: one more feature would not fit
        assert 2 * 100 * n_nodes * n_problems * quantized_bytes(expected + 2, 8) \
            > n * n_features * 8


def test_rbf_auto_takes_the_cheaper_mode_on_small_data():
    from skfed.multitask import auto_components
    from skfed.multitask._base import exact_mode_bytes

    est = FederatedMultiTaskClassifier(kernel="rbf")
    est._resolve_mode(40, 2, 20, 1, 8)  # 640 bytes of data, 20 nodes of 2 rows
    # No number of features keeps 100 rounds within the raw upload, and the
    # exact mode's 100 rounds relay every dual change to every node: random
    # features, uncapped, the cheaper of the two.
    D = auto_components(40)
    assert est.approximation_ == "rff" and est.n_components_ == D
    assert 2 * 100 * 20 * quantized_bytes(D + 1, 8) < exact_mode_bytes(40, 2, 20, 1, 8, 100, 0)
    assert 2 * 100 * 20 * quantized_bytes(2, 8) > 40 * 2 * 8
    # one node: the exact mode (nothing to relay)
    est._resolve_mode(40, 2, 1, 1, 8)
    assert est.approximation_ is None and est.n_components_ is None
    # an explicit approximation is not capped
    est = FederatedMultiTaskClassifier(kernel="rbf", approximation="rff")
    est._resolve_mode(40, 2, 20, 1, 8)
    assert est.approximation_ == "rff" and est.n_components_ > 1


@pytest.mark.parametrize("params", [dict(), dict(kernel="rbf")])
def test_defaults_send_less_than_the_raw_data_on_low_dimensional_data(params):
    # Landmine's shape: 29 nodes of 300 samples in 9 dimensions (rbf: random
    # features, capped from 1,676 to what the raw upload allows).
    X, y, g = _tasks(n_nodes=29, n_features=9, n_samples=300, seed=1)
    est = FederatedMultiTaskClassifier(random_state=0, **params).fit(X, y, groups=g)
    assert est.n_bytes_sent_ <= pooled_data_bytes(X, y, g)


def _fit_solver(n_samples, solver):
    X, y, g = _tasks(n_nodes=3, n_features=2, n_samples=n_samples, seed=2)
    return FederatedMultiTaskClassifier(
        loss="squared_hinge", omega="independent", local_solver=solver, tol=1e-4,
        random_state=0,
    ).fit(X, y, groups=g)


@pytest.mark.parametrize("n_samples, runs", [(200, "exact"), (300, "coordinate")])
def test_local_solver_auto_small_nodes_solve_exactly(n_samples, runs):
    # d' = 3, local_epochs = 10: n_t^2 <= 100 * 10 * 3 fails for both sizes,
    # so only the small-node rule (at most 256 samples) makes 200 exact.
    auto = _fit_solver(n_samples, "auto")
    same = _fit_solver(n_samples, runs)
    other = _fit_solver(n_samples, "coordinate" if runs == "exact" else "exact")
    np.testing.assert_array_equal(auto.coef_, same.coef_)
    assert auto.n_iter_ == same.n_iter_
    assert not (np.array_equal(auto.coef_, other.coef_) and auto.n_iter_ == other.n_iter_)


def test_defaults_converge_with_drops():
    # The shared model repeats a round for the dropped nodes: still converged.
    X, y, g = _tasks(n_nodes=20, n_samples=20)
    est = FederatedMultiTaskClassifier(network=SimulatedNetwork(drop_rate=0.2, random_state=0),
                                       random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est.fit(X, y, groups=g)
    assert est.n_iter_ < est._max_rounds()
