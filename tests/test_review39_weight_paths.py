"""review39: sample-weight dtype paths around xfail37's cast
(skfed/_fit_weights.py) and the lead's add_nodes weight check
(skfed/_join_common.py).

References: the float64 fit of the same values, the caller's own file and
line for the warning, the fit's own verdict on the same arrays.
"""

import copy
import pickle
import warnings

import numpy as np
import pytest
from sklearn.exceptions import DataConversionWarning
from sklearn.linear_model import LogisticRegression

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    LocalEstimator,
    PersonalizedLinearClassifier,
)


def _data(n_nodes=4, rows=30, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.randn(n_nodes * rows, 3).astype(np.float32)
    y = (X[:, 0] + 0.3 * rng.randn(len(X)) > 0).astype(int)
    return X, y, np.repeat(np.arange(n_nodes), rows)


@pytest.mark.parametrize("Est", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_promotion_warns_once_at_the_callers_line(Est):
    # the DataConversionWarning names the user's fit call (it named a line
    # inside the estimator's fit: stacklevel 4), once per fit
    X, y, g = _data()
    w = np.where(np.arange(len(y)) % 2, 1e39, 0.5)       # (with small weights too)
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        line = __import__("inspect").currentframe().f_lineno + 1
        est = Est(random_state=0).fit(X, y, groups=g, sample_weight=w)
    mine = [r for r in rec if issubclass(r.category, DataConversionWarning)]
    assert len(mine) == 1
    assert (mine[0].filename, mine[0].lineno) == (__file__, line)
    # ... and the promoted fit, pickled and back, is the float64 fit
    ref = Est(random_state=0).fit(X.astype(np.float64), y, groups=g, sample_weight=w)
    back = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(back.decision_function(X, groups=g),
                                  ref.decision_function(X, groups=g))


def test_join_refusal_names_the_newcomers_dtype():
    # a float64 fit; newcomers' float32 X with a weight of 1e39: the refusal
    # said float32 was "the dtype this estimator was fitted in" (the boosting
    # family now joins such newcomers as float64, as its fit does: the lead)
    from sklearn.linear_model import LogisticRegression

    from skfed import LocalEstimator

    X, y, g = _data()
    est = LocalEstimator(LogisticRegression()).fit(X.astype(np.float64), y, groups=g)
    Xn, yn, _ = _data(1, 20, 1)
    with pytest.raises(ValueError, match=r"above the largest float32 \(3.4e\+38\), the dtype "
                                         r"of the new nodes' X; pass X as float64"):
        est.add_nodes(Xn, yn, groups=np.full(20, 9), sample_weight=np.full(20, 1e39))


# (was a strict xfail: the join refused what the promoted fit holds; the lead
# made the join judge weights by the fitted models' dtype,
# tests/test_lead60_join_weight_cast.py)
@pytest.mark.parametrize("Est", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_promoted_fit_joins_float32_newcomers_as_float64(Est):
    X, y, g = _data()
    w = np.random.RandomState(2).uniform(1.0, 4.0, len(y)) * 1e38
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataConversionWarning)
        est = Est(random_state=0).fit(X, y, groups=g, sample_weight=w)
    Xn, yn, _ = _data(1, 20, 1)
    gn, wn = np.full(20, 9), np.full(20, 1e39)
    ref = copy.deepcopy(est).add_nodes(Xn.astype(np.float64), yn, groups=gn, sample_weight=wn)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataConversionWarning)
        got = copy.deepcopy(est).add_nodes(Xn, yn, groups=gn, sample_weight=wn)
    np.testing.assert_array_equal(got.decision_function(Xn, groups=gn),
                                  ref.decision_function(Xn, groups=gn))


def _verdict(call):
    try:
        call()
    except ValueError as exc:
        return "refused: sample_weight" if "sample_weight" in str(exc) else str(exc)
    return "accepted"


# (was a strict xfail: partial_fit checked the weights without the fit's
# working dtype; fixed by the lead in skfed/online/_classes.py)
def test_online_partial_fit_judges_weights_as_fit():
    X, y, g = _data()
    w = np.full(len(y), 1e39)
    fit = _verdict(lambda: DecentralizedKernelSGDClassifier(random_state=0).fit(
        X, y, groups=g, sample_weight=w))
    est = DecentralizedKernelSGDClassifier(random_state=0).fit(X, y, groups=g)
    partial = _verdict(lambda: copy.deepcopy(est).partial_fit(X, y, groups=g, sample_weight=w))
    assert fit == "refused: sample_weight"                 # (today's fit)
    assert partial == fit


# Positive weights under float32's smallest subnormal (1.4e-45) rounded to 0
# in the cast: a node of such weights was "weightless" (every estimator's
# check_node_weights), a few such rows were left out silently.

@pytest.mark.parametrize("Est", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_underflowing_weights_promote_the_boosting_family(Est):
    X, y, g = _data()
    w = np.where(np.arange(len(y)) % 3, 1.0, 1e-50)
    w[g == 0] = 1e-46                                      # node 0: all under float32
    assert np.all(w.astype(np.float32)[g == 0] == 0)
    ref = Est(random_state=0).fit(X.astype(np.float64), y, groups=g, sample_weight=w)
    with pytest.warns(DataConversionWarning, match="positive weight of 1e-50, which float32 "
                                                   "rounds to 0"):
        est = Est(random_state=0).fit(X, y, groups=g, sample_weight=w)
    np.testing.assert_array_equal(est.decision_function(X, groups=g),
                                  ref.decision_function(X, groups=g))


@pytest.mark.parametrize("make", [
    lambda: FederatedMultiTaskClassifier(max_rounds=3, random_state=0),
    lambda: DecentralizedKernelSGDClassifier(random_state=0),
    lambda: LocalEstimator(LogisticRegression()),
])
def test_underflowing_weights_are_refused_by_name(make):
    # (they said "Node 0 has no sample with a positive sample_weight")
    X, y, g = _data()
    with pytest.raises(ValueError, match=r"sample_weight holds a positive weight of 1e-46, "
                                         r"which float32 rounds to 0 .*pass X as float64"):
        make().fit(X, y, groups=g, sample_weight=np.full(len(y), 1e-46))
    make().fit(X.astype(np.float64), y, groups=g, sample_weight=np.full(len(y), 1e-46))
    # the smallest float32 subnormal itself is kept (no refusal)
    make().fit(X, y, groups=g, sample_weight=np.full(len(y), 1.5e-45))


def test_join_refuses_underflowing_newcomer_weights_by_name():
    from sklearn.linear_model import LogisticRegression

    from skfed import LocalEstimator

    X, y, g = _data()
    est = LocalEstimator(LogisticRegression()).fit(X, y, groups=g)
    Xn, yn, _ = _data(1, 20, 1)
    with pytest.raises(ValueError, match=r"positive weight of 1e-46, which float32 \(the dtype "
                                         r"of the new nodes' X\) rounds to 0"):
        est.add_nodes(Xn, yn, groups=np.full(20, 9), sample_weight=np.full(20, 1e-46))


def test_boosting_join_refuses_underflowing_newcomer_weights_by_name():
    # a float32 fit joins in float32 (its models' dtype): 1e-46 rounds to 0
    X, y, g = _data()
    est = DecentralizedBoostingClassifier(random_state=0).fit(X, y, groups=g)
    Xn, yn, _ = _data(1, 20, 1)
    with pytest.raises(ValueError, match=r"positive weight of 1e-46, which float32 \(the dtype "
                                         r"this DecentralizedBoostingClassifier was fitted in\)"):
        est.add_nodes(Xn.astype(np.float64), yn, groups=np.full(20, 9),
                      sample_weight=np.full(20, 1e-46))
