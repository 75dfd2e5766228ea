"""Dada's ``n_estimators="auto"`` on the MPI engine, above 100 voted features.

The engine resolves the stump count after its own vote, as the simulation
does (``max(200, 2 x voted features)``): on 300 features with 150 carrying
the label both keep more than 100 features, so the count is not 200, and
the fit on 2 ranks equals the simulated one to the bit.
"""
import numpy as np
from sklearn.base import clone

from skfed.boosting import DecentralizedBoostingClassifier

from ._helpers.mpi import launch, needs_mpi, saved_cases


@needs_mpi
def test_auto_stump_count_on_two_ranks_equals_simulation(tmp_path):
    rng = np.random.RandomState(0)
    X = rng.randn(320, 300)
    y = (X[:, :150].sum(axis=1) > 0).astype(int)
    g = np.arange(320) % 4
    est = DecentralizedBoostingClassifier(random_state=0, max_iter=40)
    sim = clone(est).fit(X, y, groups=g)
    n_voted = int(sim.selected_features_.sum())
    assert n_voted > 100
    assert sim.n_estimators_ == 2 * n_voted == sim.stump_features_.shape[0]

    cases = saved_cases([("dada_auto_wide", est, X, y, g, None)], tmp_path / "data")
    run = launch(2, cases, tmp_path / "run")["dada_auto_wide"]
    assert run.n_estimators_ == sim.n_estimators_
    np.testing.assert_array_equal(run.selected_features_, sim.selected_features_)
    np.testing.assert_array_equal(run.stump_features_, sim.stump_features_)
    np.testing.assert_array_equal(run.stump_thresholds_, sim.stump_thresholds_)
    assert run.n_updates_ == sim.n_updates_
    np.testing.assert_array_equal(run.coef_, sim.coef_)
    np.testing.assert_array_equal(run.predict(X, groups=g), sim.predict(X, groups=g))
