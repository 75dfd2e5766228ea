"""Node ids at predict time: the kind must match the fit's ``nodes_``, and
``group_column`` problems are reported naming the column (probe items 4, 11)."""

import re

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfed import LocalEstimator, PersonalizedLinearClassifier


@pytest.fixture
def data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(4), 30)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] + 0.5 * (groups - 1.5) * X[:, 1] > 0).astype(int)
    return X, y, groups


def _kind_error(name, given, fitted, dtype):
    return re.escape(
        f"groups holds node ids of kind {given} but this {name} was fitted with "
        f"node ids of kind {fitted} (nodes_ has dtype {dtype}); pass the ids as "
        "in fit (e.g. convert ids read back as strings to integers)."
    )


@pytest.mark.parametrize(
    "est", [LocalEstimator(LogisticRegression()), PersonalizedLinearClassifier(random_state=0)]
)
def test_ids_of_another_kind_are_refused(est, data):
    X, y, groups = data
    name = type(est).__name__
    fitted = est.fit(X, y, groups=groups)
    ref = fitted.decision_function(X, groups=groups)
    glob = fitted.decision_function(X, groups=np.full(len(groups), 99))
    assert np.abs(ref - glob).max() > 1e-3  # the shared model differs
    # Integer ids read back as strings (a CSV round trip) used to fall back
    # silently to the shared model for every sample.
    for method in ("predict", "decision_function"):
        with pytest.raises(ValueError, match=_kind_error(name, "string", "number", "int64")):
            getattr(fitted, method)(X, groups=groups.astype(str))
    with pytest.raises(ValueError, match=_kind_error(name, "string", "number", "int64")):
        fitted.score(X, y, groups=groups.astype(str))
    # Numbers of other dtypes that equal fitted ids map to them, as before.
    for same in (groups.astype(float), groups.astype(np.int32), groups.astype(object)):
        np.testing.assert_array_equal(fitted.decision_function(X, groups=same), ref)
    # Unseen ids of the same kind follow handle_unknown.
    unseen = groups + 10
    np.testing.assert_array_equal(fitted.decision_function(X, groups=unseen), glob)
    strict = est.set_params(handle_unknown="error").fit(X, y, groups=groups)
    with pytest.raises(ValueError, match=re.escape("4 node(s) were not seen in fit (10, 11, 12, 13)")):
        strict.predict(X, groups=unseen)
    # String fit, integer predict: refused the other way round.
    by_str = est.set_params(handle_unknown="global").fit(X, y, groups=groups.astype(str))
    with pytest.raises(ValueError, match=_kind_error(name, "number", "string", "<U21")):
        by_str.predict(X, groups=groups)
    np.testing.assert_array_equal(
        by_str.decision_function(X, groups=groups.astype(str)), ref
    )


def test_group_column_nan_and_missing_column_are_named(data):
    X, y, groups = data
    X_col = np.column_stack([groups.astype(float), X])
    X_col[3] = np.nan  # the id and the features of one row are missing
    est = LocalEstimator(LogisticRegression(), group_column=0)
    with pytest.raises(ValueError, match="^group_column contains NaN or infinite node ids, the first at sample 3: "):
        est.fit(X_col, y)
    X_col[3, 1:] = 0.0
    with pytest.raises(ValueError, match="^group_column contains NaN or infinite node ids, the first at sample 3: "):
        est.fit(X_col, y)
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X, columns=["a", "b", "c"]).assign(node=groups)
    fitted = LocalEstimator(LogisticRegression(), group_column="node").fit(frame, y)
    with pytest.raises(ValueError, match=re.escape(
        "X lacks the node-id column group_column='node' that this estimator was "
        "fitted with; predicting needs every sample's node id in that column."
    )):
        fitted.predict(frame.drop(columns="node"))
    ref = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    np.testing.assert_array_equal(fitted.predict(frame), ref.predict(X, groups=groups))
