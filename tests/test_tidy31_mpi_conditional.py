"""The MPI engine sets ``conditional_features_`` as the simulation does when
``feature_selection="conditional_vote"`` holds no vote (tidy31: with two
features ``q = ceil(sqrt(2)) = 2`` covers them all, the simulation gave an
all-False mask and the MPI engine None)."""

import numpy as np
from sklearn.base import clone

from skfed.boosting import DecentralizedBoostingClassifier

from ._helpers.mpi import launch, needs_mpi, saved_cases


@needs_mpi
def test_mpi_no_vote_conditional_mask_as_the_simulation(tmp_path):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(80, 2))
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat(np.arange(4), 20)
    est = DecentralizedBoostingClassifier(feature_selection="conditional_vote", n_estimators=8,
                                          max_iter=5, random_state=0, join_neighbours="graph")
    sim = clone(est).fit(X, y, groups=g)
    assert sim.feature_votes_ is not None and not sim.feature_votes_.any()  # no vote held
    assert sim.conditional_features_.tolist() == [False, False]
    assert sim.conditional_votes_ is None
    run = launch(2, saved_cases([("c", est, X, y, g, None)], tmp_path / "data"),
                 tmp_path / "run")["c"]
    np.testing.assert_array_equal(run.conditional_features_, sim.conditional_features_)
    assert run.conditional_votes_ is None
    np.testing.assert_array_equal(run.coef_, sim.coef_)
    assert run.n_bytes_sent_ == sim.n_bytes_sent_
