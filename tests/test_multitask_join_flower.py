"""Joins to a MOCHA estimator fitted on Flower (issue 32).

Flower runs MOCHA's learned-Omega formulation: ``omega="auto"`` resolves
to ``omega_mode_ == "learn"`` there (the shared-component model, the
simulation's default, runs on the simulated network only).  A
Flower-fitted estimator therefore has no rehearsal of newcomers (that is
part of the shared model) and its join is the learned-Omega join: the
same computation, bytes and models as the join of the simulated fit it
equals.  These tests pin that difference and that equality.
"""

import numpy as np
import pytest
from sklearn.base import clone

from skfed.multitask import FederatedMultiTaskClassifier

from .test_engines_flower import (  # noqa: F401  (task_identity: a fixture)
    HAVE_FLWR,
    flower_fit,
    make_data,
    simulated_fit,
    task_identity,
)

needs_flwr = pytest.mark.skipif(not HAVE_FLWR, reason="Flower is not installed")


def _newcomers(X, y, groups, n_new=2, k=12, seed=0):
    """The first ``n_new`` nodes' first ``k`` rows become newcomers."""
    labels = np.unique(groups)
    new = np.isin(groups, labels[:n_new])
    rng = np.random.RandomState(seed)
    rows = np.concatenate([rng.permutation(np.flatnonzero(groups == g))[:k]
                           for g in labels[:n_new]])
    Xn, yn, gn = X[rows], y[rows], groups[rows] + 1  # ids absent from the fit
    return (X[~new], y[~new], groups[~new]), (Xn, yn, gn)


@needs_flwr
@pytest.mark.usefixtures("task_identity")
def test_flower_join_equals_the_simulated_learned_omega_join():
    X, y, _, _, groups = make_data(n_nodes=6)
    (Xo, yo, go), (Xn, yn, gn) = _newcomers(X, y, groups)
    estimator = FederatedMultiTaskClassifier(aggregation="add", local_solver="coordinate",
                                             compression="none", kernel="linear",
                                             max_rounds=20, omega_update_every=4,
                                             random_state=0)
    fitted, _ = flower_fit(estimator, Xo, yo, go)
    reference = simulated_fit(estimator, Xo, yo, go)
    # Flower: omega="auto" is the learned Omega; no rehearsal of newcomers.
    assert fitted.omega_mode_ == "learn"
    assert getattr(fitted, "_join_rehearsal", None) is None
    np.testing.assert_array_equal(fitted.coef_, reference.coef_)
    coef = fitted.coef_.copy()
    fitted.add_nodes(Xn, yn, groups=gn)
    reference.add_nodes(Xn, yn, groups=gn)
    m = len(coef)
    assert np.array_equal(fitted.coef_[:m], coef)  # the fitted nodes are untouched
    np.testing.assert_array_equal(fitted.nodes_, reference.nodes_)
    np.testing.assert_allclose(fitted.coef_, reference.coef_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fitted.intercept_, reference.intercept_, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(fitted.omega_, reference.omega_, rtol=1e-9)
    assert (fitted.join_communication_.total_bytes
            == reference.join_communication_.total_bytes)
    # the learned-Omega closed form (the server computes the row): down the
    # independent solve's prior weight, up that model and the total weight,
    # down m_n and c_n, up the final model and c_n (two messages each way)
    P, d, n_new = 1, X.shape[1] + 1, len(np.unique(gn))
    header = fitted.join_communication_.header_bytes
    expected = n_new * ((1 + 3 * (P * d + 1)) * 8 + 4 * header)
    assert fitted.join_communication_.total_bytes == expected


def test_simulated_default_rehearses_where_flower_cannot():
    """The simulation's default (the shared model) rehearses newcomers; the
    same estimator with ``omega="learn"`` (what Flower runs) does not, and
    its join is the learned-Omega join."""
    X, y, _, _, groups = make_data(n_nodes=6)
    (Xo, yo, go), (Xn, yn, gn) = _newcomers(X, y, groups)
    shared = FederatedMultiTaskClassifier(kernel="linear", random_state=0).fit(Xo, yo, groups=go)
    learned = clone(shared).set_params(omega="learn").fit(Xo, yo, groups=go)
    assert shared.omega_mode_ == "shared" and learned.omega_mode_ == "learn"
    assert shared._join_rehearsal is not None
    assert getattr(learned, "_join_rehearsal", None) is None
    # nothing is rehearsed before a join asks
    assert shared._join_rehearsal.results == {} and shared._join_rehearsal.cpu == 0.0
    shared.add_nodes(Xn, yn, groups=gn)
    assert len(shared._join_rehearsal.results) == 1  # the size nearest 12: 10
