"""review36: integer newcomer ids that float64 cannot hold, after a float fit.

``_append_nodes`` (``skfed/_base.py``) kept ``nodes_`` exact only for the
case review34 pinned (a float newcomer after integer fitted ids).  The
mirror case was left: fitted float ids (``0.5, 1.5, ...``) and integer
newcomer ids ``2**53`` and ``2**53 + 1`` (64-bit hashed user ids) were
concatenated into float64, both became ``9007199254740992.0``, and the
second newcomer predicted with the first one's model (measured at bcda3b7,
MOCHA and Perso-lin: its decisions are the first newcomer's, not those the
same join gives it under the ids ``7, 8``).  Fixed: the new ids are checked exactly as the fitted
ones, and ``nodes_`` becomes object ids when float64 does not hold them.
"""

import warnings

import numpy as np
import pytest

from skfed import (
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    PersonalizedLinearClassifier,
)

MAKERS = [lambda: FederatedMultiTaskClassifier(random_state=0),
          lambda: PersonalizedLinearClassifier(random_state=0)]


def _fit_and_join(make, new_ids):
    """nodes_ and the newcomers' decisions after a float fit and one join."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    Xn = rng.normal(size=(40, 3))
    yn = (Xn[:, 1] > 0).astype(int)  # the newcomers' own rule
    gn = np.repeat(new_ids, 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X, y, groups=np.repeat([0.5, 1.5, 2.5], 40))
        est.add_nodes(Xn, yn, groups=gn)
        # every newcomer's decisions on all 40 rows
        scores = [est.decision_function(Xn, groups=np.full(40, new_ids[k])) for k in (0, 1)]
    return est, scores


@pytest.mark.parametrize("make", MAKERS, ids=["mocha", "persolin"])
def test_big_int_newcomers_after_float_fit_stay_apart(make):
    est, scores = _fit_and_join(make, np.array([2**53, 2**53 + 1], dtype=np.int64))
    # every id exactly as given, none merged
    assert est.nodes_.tolist() == [0.5, 1.5, 2.5, 2**53, 2**53 + 1]
    assert [type(v) for v in est.nodes_.tolist()[3:]] == [int, int]
    # each newcomer decides with its own model: the join's under small ids
    _, reference = _fit_and_join(make, np.array([7, 8], dtype=np.int64))
    assert not np.array_equal(reference[0], reference[1])  # two different models
    np.testing.assert_array_equal(scores[0], reference[0])
    np.testing.assert_array_equal(scores[1], reference[1])


@pytest.mark.parametrize("make", MAKERS, ids=["mocha", "persolin"])
def test_control_small_int_newcomers_keep_float_nodes(make):
    # ids float64 holds exactly: nodes_ stays float64, as before
    est, scores = _fit_and_join(make, np.array([7, 8], dtype=np.int64))
    assert est.nodes_.dtype == np.float64
    assert est.nodes_.tolist() == [0.5, 1.5, 2.5, 7.0, 8.0]
    assert all(np.isfinite(s).all() for s in scores)


def test_online_partial_fit_newcomers_stay_apart():
    # partial_fit with new node ids joins them through the same append
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    gn = np.repeat(np.array([2**53, 2**53 + 1], dtype=np.int64), 20)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DecentralizedKernelSGDClassifier(random_state=0).fit(
            X, y, groups=np.repeat([0.5, 1.5, 2.5], 40))
        est.partial_fit(X[:40], y[:40], groups=gn)
    assert est.nodes_.tolist() == [0.5, 1.5, 2.5, 2**53, 2**53 + 1]
    assert len(est._sizes) == 5


@pytest.mark.parametrize("fit_ids, new_ids", [
    (np.repeat(np.array(["a", "b", "c"], dtype=object), 40), np.full(20, "new")),
    (np.repeat([0.5, 1.5, 2.5], 40), np.full(20, 3.5)),
], ids=["object-str-then-str", "object-then-float"])
def test_object_nodes_hold_plain_python_ids(fit_ids, new_ids):
    """Newcomers appended to object ``nodes_`` are Python values, as the fitted
    ones (``list(new_labels)`` kept NumPy scalars: ``nodes_`` printed
    ``np.str_('new')`` / ``np.float64(3.5)`` after a pandas-string fit)."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=fit_ids)
        if est.nodes_.dtype != object:  # a big int id first makes nodes_ object
            est.add_nodes(X[:20], y[:20], groups=np.full(20, 2**53 + 1, dtype=np.int64))
        est.add_nodes(X[20:40], y[20:40], groups=new_ids)
    assert est.nodes_.dtype == object
    assert all(type(v) in (int, float, str) for v in est.nodes_.tolist()), est.nodes_.tolist()
    assert repr(est.nodes_).count("np.") == 0
    assert est.nodes_.tolist()[-1] == new_ids[0]
