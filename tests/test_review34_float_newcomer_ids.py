"""A float newcomer id makes nodes_ float64 and merges fitted int ids (review34).

review18 made int64 / uint64 node ids above 2**53 join exactly
(``skfed/_base.py`` ``_append_nodes``).  Numbers of any dtype are one kind
of node id (``skfed/_node_ids.py``), so ``add_nodes`` takes a float id
after an integer fit; ``_append_nodes`` then rebuilds ``nodes_`` from a
list of Python ints and floats, which numpy makes float64: fitted ids
``2**53`` and ``2**53 + 1`` (e.g. 64-bit hashed user ids; a newcomer batch
read with pandas becomes float as soon as one id is missing) both become
``9007199254740992.0``.  Every later lookup finds one of them for both, so
the fitted node ``2**53 + 1`` gets the other's model: MOCHA's accuracy on
the fitted nodes falls from 0.983 to 0.667 after a join that promises to
leave them unchanged (measured at 7781cb8; Perso-lin and the online learner
alike).  A fix: keep ``nodes_`` exact (object dtype when a float id joins
integer ids that float64 cannot hold), or refuse such a join naming
``groups``.  The controls (ids below 2**53, int newcomers of big ids) pass.

Fixed by the lead: ``_append_nodes`` keeps ``nodes_`` as object ids when
float64 would not hold every fitted id exactly.
"""

import warnings

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier, PersonalizedLinearClassifier

BIG = np.array([2**53, 2**53 + 1, 5], dtype=np.int64)


def _data(ids):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat(ids, 40)
    y[g == ids[1]] = 1 - y[g == ids[1]]  # the second node's labels flipped
    return X, y, g


def _join_keeps_fitted_nodes(make, ids, new_id):
    X, y, g = _data(ids)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X, y, groups=g)
        before = est.decision_function(X, groups=g)
        try:
            est.add_nodes(X[:10], y[:10], groups=np.full(10, new_id))
        except (TypeError, ValueError) as error:  # a refusal naming the ids is fine
            assert "groups" in str(error) or "node id" in str(error), str(error)
            return
        after = est.decision_function(X, groups=g)
        # the newcomer predicts with its own (new, last) model
        new_scores = est.decision_function(X[:10], groups=np.full(10, new_id))
        assert np.isfinite(new_scores).all()
        assert est.nodes_.tolist()[-1] == new_id
    # every fitted id still there, exactly, and its model unchanged
    assert len(set(est.nodes_.tolist())) == len(est.nodes_)
    assert set(ids.tolist()) <= set(int(v) for v in est.nodes_.tolist()[:len(ids)])
    np.testing.assert_array_equal(before, after)


MAKERS = [lambda: FederatedMultiTaskClassifier(random_state=0),
          lambda: PersonalizedLinearClassifier(random_state=0)]


@pytest.mark.parametrize("make", MAKERS, ids=["mocha", "persolin"])
def test_float_newcomer_keeps_big_int_ids(make):
    _join_keeps_fitted_nodes(make, BIG, 0.5)


@pytest.mark.parametrize("make", MAKERS, ids=["mocha", "persolin"])
@pytest.mark.parametrize("ids, new_id", [(np.array([7, 8, 5]), 0.5), (BIG, 9)],
                         ids=["small-ids-float-newcomer", "big-ids-int-newcomer"])
def test_controls(make, ids, new_id):
    _join_keeps_fitted_nodes(make, ids, new_id)
