"""When a private node leaves its given Local model for the collaborative one (issue 27).

With ``DifferentialPrivacy(local_estimator=...)`` a node keeps its fit of the
given model unless the collaborative model wins a one-sided test on its
held-out samples.  Two things make that test honest (``skfed._kept_local``):

* the collaborative model's held-out scores are cross-fitted: fold ``f`` is
  scored by the candidate the one-standard-error rule picks from the other
  folds' held-out losses (``cross_fitted_scores``), not by the candidate
  picked on all folds, whose errors on them are optimistic;
* the test's level is divided among the fit's nodes (Bonferroni), since
  every node makes the choice.

The references are hand computations (the picks and level worked out in
the comments) and a seeded fit where the previous rule switched a node that
then lost test samples.
"""

import numpy as np
import pytest

from skfed._kept_local import (
    LEVEL,
    collaboration_wins,
    cross_fitted_scores,
    one_se_choice,
)


def test_cross_fitted_scores_by_hand():
    # 3 candidates, 6 samples, folds 0 0 1 1 2 2; candidate 0 is the reference
    losses = np.array([[1, 1, 1, 1, 1, 1],
                       [0, 0, 0, 0, 1, 1],
                       [0, 1, 1, 1, 0, 0]], dtype=float)
    fold = np.array([0, 0, 1, 1, 2, 2])
    scores = 10.0 * np.arange(3)[:, None] + np.arange(6)[None, :]
    # fold 0 held out (samples 2-5): candidate 1 [0 0 1 1] ties candidate 2
    #   [1 1 0 0] at 0.5, the first wins; its difference to candidate 0,
    #   [1 1 0 0], has mean 0.5 > its standard error sqrt(1/3) / 2 = 0.289: 1
    # fold 1 held out (samples 0 1 4 5): candidate 2 [0 1 0 0] has 0.25;
    #   difference [1 0 1 1], mean 0.75 > 0.5 / 2 = 0.25: 2
    # fold 2 held out (samples 0-3): candidate 1 has no error, the
    #   difference [1 1 1 1] has no spread: 1
    out, picks = cross_fitted_scores(losses, scores, fold, 3)
    np.testing.assert_array_equal(picks, [1, 2, 1])
    np.testing.assert_array_equal(out, [10, 11, 22, 23, 14, 15])
    # on all folds the rule picks candidate 1 (mean 1/3 against 1,
    # difference mean 2/3 > sqrt(4/15) / sqrt(6) = 0.211): the previous
    # held-out scores were candidate 1's everywhere
    assert one_se_choice(losses, 0) == 1
    # the fold's own pick never used its held-out losses: changing the
    # losses of fold 1's samples leaves the scores of fold 1 unchanged
    changed = losses.copy()
    changed[:, 2:4] = [[0, 0], [1, 1], [1, 1]]
    out2, picks2 = cross_fitted_scores(changed, scores, fold, 3)
    assert picks2[1] == picks[1]
    np.testing.assert_array_equal(out2[2:4], out[2:4])


def test_cross_fitted_scores_keep_the_reference_without_a_better_candidate():
    losses = np.array([[0, 1, 0, 1, 0, 1], [0, 1, 0, 1, 0, 1]], dtype=float)
    fold = np.array([0, 1, 2, 0, 1, 2])
    scores = np.array([np.arange(6.0), -np.arange(6.0)])
    out, picks = cross_fitted_scores(losses, scores, fold, 3)
    np.testing.assert_array_equal(picks, [0, 0, 0])
    np.testing.assert_array_equal(out, np.arange(6.0))


def test_sign_test_level_divided_among_the_nodes_by_hand():
    assert LEVEL == 0.05
    # 5 discordant samples, all for the collaborative model:
    # P(Binomial(5, 1/2) >= 5) = 1/32 = 0.03125
    own, collab = np.r_[np.ones(5), np.zeros(5)], np.zeros(10)
    assert collaboration_wins(own, collab)  # 0.03125 < 0.05
    assert not collaboration_wins(own, collab, n_nodes=2)  # > 0.025
    # 12 discordant, all for it: 2^-12 = 2.44e-4 < 0.05 / 139 = 3.60e-4, > 0.05 / 250
    own, collab = np.r_[np.ones(12), np.zeros(20)], np.zeros(32)
    assert collaboration_wins(own, collab, n_nodes=139)
    assert not collaboration_wins(own, collab, n_nodes=250)
    # b = 10, c = 3: P(Binomial(13, 1/2) >= 10) = (286 + 78 + 13 + 1) / 8192 = 0.0461
    own = np.r_[np.ones(10), np.zeros(3), np.zeros(7)]
    collab = np.r_[np.zeros(10), np.ones(3), np.zeros(7)]
    assert collaboration_wins(own, collab, n_nodes=1)
    assert not collaboration_wins(own, collab, n_nodes=139)
    # never when the collaborative model is not ahead, at any level
    assert not collaboration_wins(collab, own)


def test_z_test_level_divided_among_the_nodes_by_hand():
    # per-sample differences 0 2 0 2 0 2 0 2: mean 1, sd sqrt(8 / 7) = 1.069,
    # standard error 0.378, z = 2.646: above 1.645 (1 node), 2.576
    # (0.05 / 10), below 2.807 (0.05 / 20)
    collab = np.zeros(8)
    own = np.tile([0.0, 2.0], 4)
    assert collaboration_wins(own, collab, classification=False)
    assert collaboration_wins(own, collab, classification=False, n_nodes=10)
    assert not collaboration_wins(own, collab, classification=False, n_nodes=20)


@pytest.mark.parametrize("n_nodes", [0, 1])
def test_one_node_or_none_is_the_plain_level(n_nodes):
    own, collab = np.r_[np.ones(5), np.zeros(5)], np.zeros(10)
    assert collaboration_wins(own, collab, n_nodes=n_nodes)
