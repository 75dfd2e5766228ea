"""MOCHA's server line search (``aggregation="line_search"``, what
``aggregation="auto"`` resolves to in the primal modes) on Flower.

Every test fits on the in-process Flower grid of
:mod:`tests.test_engines_flower` and compares against the simulated fit of
the same estimator: the searched steps, the scaled subproblems, the rounds,
the Omega steps and the byte model's counts must agree.
"""

import numpy as np
import pytest
from sklearn.base import clone

from skfed import SimulatedNetwork

from .test_engines_flower import (  # noqa: F401  (task_identity: a fixture)
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    check_traffic,
    flower_fit,
    make_data,
    needs_flwr,
    simulated_fit,
    task_identity,
)

# compression="none": Flower's round messages are float64 (compression="auto"
# resolves to that there); local_solver="coordinate": Flower's nodes run
# coordinate ascent.
_FLOWER = dict(local_solver="coordinate", compression="none")

SEARCH_CASES = {
    "linear": (FederatedMultiTaskClassifier(
        aggregation="line_search", kernel="linear", max_rounds=25, omega_update_every=4,
        random_state=0, **_FLOWER), "y"),
    "linear-multiclass": (FederatedMultiTaskClassifier(
        aggregation="auto", kernel="linear", multi_class="ovr", max_rounds=12,
        random_state=1, **_FLOWER), "y3"),
    "linear-regressor": (FederatedMultiTaskRegressor(
        aggregation="line_search", kernel="linear", max_rounds=30, omega_update_every=3,
        tol=1e-3, random_state=0, **_FLOWER), "yr"),
    "rff-logistic": (FederatedMultiTaskClassifier(
        aggregation="line_search", approximation="rff", n_components=30, loss="logistic",
        gamma=0.2, max_rounds=25, omega_update_every=3, random_state=3, **_FLOWER), "y"),
    "hinge-gap-omega": (FederatedMultiTaskClassifier(
        aggregation="line_search", kernel="linear", loss="hinge", max_rounds=30,
        random_state=6, **_FLOWER), "y"),
    "faults": (FederatedMultiTaskClassifier(
        aggregation="line_search", kernel="linear", max_rounds=20, omega_update_every=3,
        random_state=5,
        network=SimulatedNetwork(drop_rate=0.3, straggler_rate=0.3, random_state=0),
        **_FLOWER), "y"),
}


def _target(name):
    X, y, y3, yr, groups = make_data()
    return X, {"y": y, "y3": y3, "yr": yr}[name], groups


def assert_same_fit(fitted, reference, X, groups):
    """The Flower fit against the simulated one: rounds, model, gaps, bytes.

    The server sums the nodes' conjugate coefficients node by node (the
    simulation in one product over all samples): equal to round-off.
    """
    close = dict(rtol=1e-10, atol=1e-12)
    assert fitted.n_iter_ == reference.n_iter_
    if hasattr(reference, "coef_"):  # the primal modes (the exact kernel mode has none)
        np.testing.assert_allclose(fitted.coef_, reference.coef_, **close)
        np.testing.assert_allclose(fitted.intercept_, reference.intercept_, **close)
    np.testing.assert_allclose(fitted.task_covariance_, reference.task_covariance_,
                               rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(fitted.duality_gap_curve_, reference.duality_gap_curve_,
                               rtol=1e-8, atol=1e-13)
    np.testing.assert_array_equal(fitted.n_support_, reference.n_support_)
    assert fitted.n_bytes_sent_ == reference.n_bytes_sent_
    np.testing.assert_array_equal(fitted.bytes_per_round_, reference.bytes_per_round_)
    np.testing.assert_array_equal(fitted.communication_.pair_bytes,
                                  reference.communication_.pair_bytes)
    check_traffic(fitted, reference)
    np.testing.assert_allclose(fitted.predict(X, groups=groups),
                               reference.predict(X, groups=groups), **close)


@needs_flwr
@pytest.mark.usefixtures("task_identity")
@pytest.mark.parametrize("case", sorted(SEARCH_CASES))
def test_line_search_on_flower_equals_simulation(case):
    estimator, target = SEARCH_CASES[case]
    X, y, groups = _target(target)
    reference = simulated_fit(estimator, X, y, groups)
    fitted, _ = flower_fit(estimator, X, y, groups)
    assert_same_fit(fitted, reference, X, groups)
    # The search is not the adding fit: the steps were scaled.
    adding = simulated_fit(clone(estimator).set_params(aggregation="add"), X, y, groups)
    assert not np.allclose(fitted.coef_, adding.coef_, rtol=1e-6, atol=0)
    assert fitted.n_bytes_sent_ != adding.n_bytes_sent_


# local_solver="exact" / "auto": the simulated fit's exact nodes solve their
# subproblems exactly on Flower too (4 nodes x 60 rows: every node is small,
# so "auto" solves exactly; stragglers' partial rounds run coordinate ascent).
EXACT_CASES = {
    "exact-add": (FederatedMultiTaskClassifier(
        local_solver="exact", aggregation="add", compression="none", kernel="linear",
        max_rounds=15, omega_update_every=3, random_state=0), "y"),
    "auto-search-hinge": (FederatedMultiTaskClassifier(
        local_solver="auto", aggregation="auto", compression="none", kernel="linear",
        loss="hinge", max_rounds=20, random_state=6), "y"),
    "auto-regressor": (FederatedMultiTaskRegressor(
        local_solver="auto", compression="none", kernel="linear", max_rounds=15,
        omega_update_every=3, random_state=0), "yr10"),
    "exact-multiclass-rff": (FederatedMultiTaskClassifier(
        local_solver="exact", compression="none", approximation="rff", n_components=20,
        multi_class="ovr", max_rounds=10, random_state=1), "y3"),
    "exact-faults": (FederatedMultiTaskClassifier(
        local_solver="exact", compression="none", kernel="linear", max_rounds=15,
        omega_update_every=3, random_state=5,
        network=SimulatedNetwork(drop_rate=0.2, straggler_rate=0.4, random_state=0)), "y"),
}


@needs_flwr
@pytest.mark.usefixtures("task_identity")
@pytest.mark.parametrize("case", sorted(EXACT_CASES))
def test_exact_local_solver_on_flower_equals_simulation(case):
    estimator, target = EXACT_CASES[case]
    X, y, y3, yr, groups = make_data()
    # yr10: targets beyond 1 (the exact solver's tolerance scales with the
    # largest |y| over all nodes, which the nodes report with their hello).
    y = {"y": y, "y3": y3, "yr10": 10.0 * yr}[target]
    reference = simulated_fit(estimator, X, y, groups)
    fitted, _ = flower_fit(estimator, X, y, groups)
    assert_same_fit(fitted, reference, X, groups)
    # Not the coordinate-ascent fit: the nodes did solve exactly.
    coordinate = simulated_fit(clone(estimator).set_params(local_solver="coordinate"),
                               X, y, groups)
    assert not np.allclose(fitted.coef_, coordinate.coef_, rtol=1e-6, atol=0)


@needs_flwr
@pytest.mark.usefixtures("task_identity")
@pytest.mark.parametrize("setting, message", [
    (dict(local_solver="exact"), "local_solver='exact' solves the subproblems of the primal"),
    (dict(aggregation="line_search"), "aggregation='line_search' is implemented for the "
                                      "primal modes"),
])
def test_flower_refuses_what_the_exact_kernel_mode_refuses(setting, message):
    # The exact kernel mode adds the steps and runs coordinate ascent; an
    # explicit request for the others raises the simulated fit's error on
    # Flower too (before flower17 Flower ignored them silently).
    X, y, _, _, groups = make_data(n_per_node=20)
    estimator = FederatedMultiTaskClassifier(kernel="rbf", approximation=None, max_rounds=3,
                                             **setting)
    with pytest.raises(ValueError, match=message):
        flower_fit(estimator, X, y, groups)


@needs_flwr
@pytest.mark.usefixtures("task_identity")
@pytest.mark.parametrize("loss", ["squared_hinge", "logistic"])
@pytest.mark.parametrize("mode", [dict(kernel="linear"),
                                  dict(approximation="nystroem", n_components=20),
                                  dict(kernel="rbf", approximation=None)])
def test_defaults_with_zero_sample_weights_on_flower_equal_simulation(loss, mode):
    # The defaults (line search and the "auto" local solver in the primal
    # modes) with sample weights, a third of them 0: the simulated fit drops
    # the rows of weight 0 before it reads anything (no count, no landmark,
    # no coordinate step); Flower's nodes drop them too (before this test
    # they kept them: 4e-3 to 0.35 apart in coef_ after 1-13 rounds).
    X, y, _, _, groups = make_data()
    rng = np.random.RandomState(7)
    sample_weight = np.where(rng.rand(len(y)) < 0.3, 0.0, 3.0 * rng.rand(len(y)))
    estimator = FederatedMultiTaskClassifier(loss=loss, compression="none", max_rounds=8,
                                             omega_update_every=3, random_state=2, **mode)
    reference = simulated_fit(estimator, X, y, groups, sample_weight)
    fitted, _ = flower_fit(estimator, X, y, groups, sample_weight)
    assert_same_fit(fitted, reference, X, groups)
