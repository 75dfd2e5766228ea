"""Review (night of 2026-11-27): the vote tally an MPI Dada fit keeps.

Commit 90e0e6a made the MPI engine's Dada fit keep ``_vote_tally`` (its
ranking voters, significance testers and distinct samples) so that a join
after an MPI fit adds the newcomers' ballots to that fit's vote; nothing
tested it.  In one process (one rank, no ``mpiexec``) the MPI fit's tally
is checked against the ballots recomputed in NumPy and the join after it
against the join after the simulated fit of the same data.
"""

import copy

import numpy as np
import pytest
from sklearn.base import clone

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.datasets import make_rotated_moons
from skfed.engines._partitions import save_partitions

from .test_graph_join_vote import _ballots

pytest.importorskip("mpi4py")


def _data():
    """40 fitted nodes and 10 newcomers of 20 samples (rotated moons with
    20 features, two informative; on seed 3 the fit's vote keeps feature 0
    only and the newcomers' ballots add feature 1)."""
    X, Xt, y, yt, g, gt, _, _ = make_rotated_moons(n_nodes=50, n_test_per_node=30,
                                                   random_state=3)
    fit = g < 40
    new = (gt >= 40) & (np.arange(len(gt)) % 30 < 20)
    return X[fit], y[fit], g[fit], Xt[new], yt[new], gt[new]


def test_mpi_fit_keeps_the_vote_tally_and_joins_like_the_simulation(tmp_path):
    from skfed.engines import mpi

    X, y, g, Xn, yn, gn = _data()
    est = DecentralizedBoostingClassifier(n_estimators=40, max_iter=400, random_state=0)
    save_partitions(X, y, g, tmp_path / "dada")
    run = mpi.fit(est, tmp_path / "dada")
    sim = clone(est).fit(X, y, groups=g)

    ballots, varying, _ = _ballots(sim, X, y, g, sim.vote_min_samples_)
    d = len(varying)
    expected = (int(ballots[:, :d].any(axis=1).sum()), int(ballots[:, 2 * d].sum()),
                len(np.unique(X, axis=0)))
    assert expected[0] > 0 and expected[1] > 0
    assert tuple(int(t) for t in run._vote_tally) == expected
    assert tuple(int(t) for t in sim._vote_tally) == expected
    assert np.flatnonzero(run.selected_features_).tolist() == [0]

    joined_run = copy.deepcopy(run).add_nodes(Xn, yn, groups=gn)
    joined_sim = copy.deepcopy(sim).add_nodes(Xn, yn, groups=gn)
    new_ballots, _, _ = _ballots(sim, Xn, yn, gn, sim.vote_min_samples_)
    assert tuple(int(t) for t in joined_run._vote_tally) == (
        expected[0] + int(new_ballots[:, :d].any(axis=1).sum()),
        expected[1] + int(new_ballots[:, 2 * d].sum()),
        expected[2] + len(np.unique(Xn, axis=0)))
    np.testing.assert_array_equal(joined_run.feature_votes_, joined_sim.feature_votes_)
    np.testing.assert_array_equal(joined_run.selected_features_, joined_sim.selected_features_)
    np.testing.assert_array_equal(joined_run.stump_features_, joined_sim.stump_features_)
    # the newcomers' ballots added feature 1: 20 stumps, zero in the fitted models
    assert np.flatnonzero(joined_run.selected_features_).tolist() == [0, 1]
    assert joined_run.coef_.shape == (50, 60)
    assert not joined_run.coef_[:40, 40:].any() and joined_run.coef_[40:, 40:].any()
    np.testing.assert_allclose(joined_run.coef_, joined_sim.coef_, rtol=1e-10, atol=1e-12)
    assert (joined_run.join_communication_.total_bytes
            == joined_sim.join_communication_.total_bytes)
