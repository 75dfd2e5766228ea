"""Dada's conditional_vote on a multiclass federation does nothing, silently (review34).

``feature_selection="conditional_vote"`` (``skfed/boosting/_dada_vote.py``)
adds a second, conditional feature-vote round in which only "nodes with
exactly two classes" take part.  When every node holds three or more
classes, nobody votes in that round: measured at 7781cb8 (12 nodes x 50
rows, 3 classes on every node) ``conditional_votes_`` is ``(zeros,
threshold 1)``, ``conditional_features_`` all False, and nothing warns,
so the setting has no effect the user is told of (the standard: no
setting silently ignored).  Expected: a warning (or an error) naming
``feature_selection`` when no node can take part.  The control (binary
labels) shows the round takes part there.  Fixed by the lead: a
UserWarning naming feature_selection.
"""

import warnings

import numpy as np
import pytest

from skfed import DecentralizedBoostingClassifier


def _fit(n_classes):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 6))
    g = np.repeat(np.arange(12), 50)
    s = X[:, 0] + X[:, 1]
    y = np.digitize(s, [-0.7, 0.7]) if n_classes == 3 else (s > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = DecentralizedBoostingClassifier(random_state=0, n_estimators=30,
                                              feature_selection="conditional_vote")
        est.fit(X, y, groups=g)
    return est, [str(w.message) for w in caught]


def test_binary_round_takes_part():
    from skfed.boosting._dada_vote import partial_relevance

    est, _ = _fit(2)
    assert est.conditional_votes_ is not None
    rng = np.random.RandomState(0)
    X = rng.normal(size=(600, 6))
    y = (X[:, 0] + X[:, 1] > 0).astype(int)
    offsets = np.arange(0, 601, 50)
    _, _, takes_part = partial_relevance(X, y, offsets, est.selected_features_ & ~est.conditional_features_,
                                         ~est.selected_features_)
    assert takes_part.all()


def test_multiclass_round_is_reported():
    est, messages = _fit(3)
    assert len(np.unique(est.classes_)) == 3
    assert any("feature_selection" in m or "conditional" in m for m in messages), messages
