"""Review10: Dada's join reads the fit's stump rule, or refuses a changed one.

A join that adds a feature to the vote's selection gives it the stumps "the
fit would give" (``skfed._graph_join_vote``), and runs the vote only under
``feature_selection="vote"``; both read ``stump_placement`` and
``feature_selection`` as they were at join time.  After ``set_params`` the
newcomers' new feature got ``"global_range"`` thresholds under a ``"range"``
fit (15 of 800 predictions changed here), and ``feature_selection=None``
skipped the newcomers' vote silently (259 of 800 changed).  Both are now
refused by name, as the graph parameters are (review7).
"""

import numpy as np
import pytest

from skfed.boosting import DecentralizedBoostingClassifier


def _nodes(rng, n_nodes, n, feature, start):
    # feature 1 on another scale and offset, so "range" and "global_range"
    # place its thresholds differently
    X = rng.standard_normal((n_nodes * n, 6)) * [1, 3, 1, 1, 1, 1] + [0, 5, 0, 0, 0, 0]
    y = (X[:, feature] > (5 if feature == 1 else 0)).astype(int)
    return X, y, np.repeat(np.arange(start, start + n_nodes), n)


def _data():
    rng = np.random.default_rng(0)
    # the fitted nodes' labels follow feature 0, the newcomers' feature 1
    return _nodes(rng, 8, 40, 0, 0), _nodes(rng, 20, 40, 1, 8)


def _fit(X, y, g):
    return DecentralizedBoostingClassifier(random_state=0, n_estimators=40).fit(X, y, groups=g)


@pytest.mark.parametrize("name, value", [("stump_placement", "global_range"),
                                         ("feature_selection", None)])
def test_changed_stump_rule_is_refused_by_name(name, value):
    (X, y, g), (Xn, yn, gn) = _data()
    est = _fit(X, y, g)
    assert est.selected_features_.tolist() == [True] + [False] * 5
    fresh = _fit(X, y, g).add_nodes(Xn, yn, groups=gn)
    # the join adds feature 1 to the selection, with stumps of its own
    assert fresh.selected_features_.tolist() == [True, True] + [False] * 4
    assert (fresh.stump_features_ == 1).sum() > 0
    before = est.get_params()[name]
    est.set_params(**{name: value})
    with pytest.raises(ValueError, match=rf"add_nodes: {name} was changed after fit"):
        est.add_nodes(Xn, yn, groups=gn)
    assert len(est.nodes_) == 8  # nothing joined
    est.set_params(**{name: before}).add_nodes(Xn, yn, groups=gn)
    np.testing.assert_array_equal(est.stump_thresholds_, fresh.stump_thresholds_)
    np.testing.assert_array_equal(est.predict(Xn, groups=gn), fresh.predict(Xn, groups=gn))
