"""What a fitted estimator carries (store33): no training row the model does not need.

The scan is independent of the library: every float array reachable from
the fitted state whose last axis has ``n_features`` (or one more, an
intercept column) entries is compared row by row with the training rows.
"""
import pickle
import warnings

import numpy as np
import pytest

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskClassifierCV,
    FederatedMultiTaskRegressor,
    PersonalizedLinearClassifier,
)


def _arrays(obj, seen, depth=0):
    if id(obj) in seen or depth > 8:
        return
    seen.add(id(obj))
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            for v in obj.ravel():
                yield from _arrays(v, seen, depth + 1)
        else:
            yield obj
    elif isinstance(obj, dict):
        for v in obj.values():
            yield from _arrays(v, seen, depth + 1)
    elif isinstance(obj, (list, tuple)):
        for v in obj:
            yield from _arrays(v, seen, depth + 1)
    elif hasattr(obj, "__dict__") and not isinstance(obj, type):
        for v in vars(obj).values():
            yield from _arrays(v, seen, depth + 1)


def rows_held(est, X):
    """{attribute: number of its rows equal to a training row}."""
    known = {r.tobytes() for r in X.astype(np.float32)}
    d, params, out = X.shape[1], set(est.get_params(deep=False)), {}
    for name, value in vars(est).items():
        if name in params:
            continue
        n, counted = 0, set()
        for arr in _arrays(value, set()):
            if isinstance(arr.base, np.ndarray) and id(arr.base) in counted:
                continue  # a view of an array counted already
            counted.add(id(arr))
            if arr.dtype.kind == "f" and arr.size and arr.shape[-1] in (d, d + 1):
                rows = arr.reshape(-1, arr.shape[-1])[:, :d].astype(np.float32)
                n += sum(r.tobytes() in known for r in rows)
        if n:
            out[name] = n
    return out


@pytest.fixture
def federation():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(8), 30)
    X = rng.normal(size=(240, 4))
    w = rng.normal(size=(8, 4)) + np.array([1.5, 0, 0, 0])
    y = (np.einsum("id,id->i", X, w[groups]) > 0).astype(int)
    return X, y, groups


def _fit(est, X, y, groups):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, groups=groups)


def test_linear_mocha_fit_holds_rows_only_in_node_data(federation):
    X, y, groups = federation
    est = _fit(FederatedMultiTaskClassifier(random_state=0), X, y, groups)
    assert est.support_vectors_.shape == (0, 4) and est.support_vectors_.dtype == X.dtype
    assert est._node_duals[0].shape[0] == est.n_support_.sum() > 0  # the duals are kept
    assert est.support_.shape == (0,) and est.dual_coef_.shape == (1, 0)  # (store34)
    # the rows the simulation keeps for joins: exactly each node's rows,
    # with the intercept column (intercept_scaling 1) and its weights
    data = est.node_data_
    assert est.omega_mode_ == "shared" and set(data) == set(range(8))
    for t in range(8):
        Z, Y, sw = data[t]
        np.testing.assert_array_equal(Z[:, :4], X[groups == t])
        np.testing.assert_array_equal(Z[:, 4], 1.0)
        np.testing.assert_array_equal(Y[0], np.where(y[groups == t] == 1, 1.0, -1.0))
        np.testing.assert_array_equal(sw, 1.0)
    assert set(rows_held(est, X)) == {"_join_rehearsal"}
    assert rows_held(est, X)["_join_rehearsal"] == 240
    before = (est.coef_.copy(), est.intercept_.copy(), est.decision_function(X, groups=groups))
    size = len(pickle.dumps(est))
    assert est.drop_node_data() is est
    assert est.node_data_ == {} and rows_held(est, X) == {} and est._dual_state is None
    # what the rows cost: at least 240 x 5 float64 values fewer
    assert size - len(pickle.dumps(est)) >= 240 * 5 * 8
    np.testing.assert_array_equal(est.coef_, before[0])
    np.testing.assert_array_equal(est.intercept_, before[1])
    np.testing.assert_array_equal(est.decision_function(X, groups=groups), before[2])
    with pytest.raises(ValueError, match=r"drop_node_data\(\)"):
        est.add_nodes(X[:30], y[:30], groups=np.full(30, 99))
    # a fit restores the rows and the join
    _fit(est, X, y, groups)
    assert set(est.node_data_) == set(range(8))
    est.add_nodes(X[:30], y[:30], groups=np.full(30, 99))
    assert est.nodes_.tolist() == list(range(8)) + [99]


def test_join_without_rehearsal_unchanged_by_drop(federation):
    # a learned Omega's join asks the fitted nodes nothing: the drop leaves it
    # working and identical
    X, y, groups = federation
    new = groups >= 6
    kw = dict(omega="learn", random_state=0)
    a = _fit(FederatedMultiTaskClassifier(**kw), X[~new], y[~new], groups[~new])
    b = _fit(FederatedMultiTaskClassifier(**kw), X[~new], y[~new], groups[~new])
    b.drop_node_data()
    assert b.node_data_ == {} and a.omega_mode_ != "shared"
    a.add_nodes(X[new], y[new], groups=groups[new])
    b.add_nodes(X[new], y[new], groups=groups[new])
    np.testing.assert_array_equal(a.coef_, b.coef_)
    assert a.join_communication_.total_bytes == b.join_communication_.total_bytes
    assert rows_held(b, X) == {}


def test_kernel_mocha_keeps_its_support_vectors(federation):
    # the exact kernel model is a combination of its support vectors (as
    # sklearn's SVC): they are the model and stay
    X, y, groups = federation
    est = _fit(FederatedMultiTaskClassifier(kernel="rbf", approximation=None,
                                            max_rounds=5, random_state=0), X, y, groups)
    np.testing.assert_array_equal(est.support_vectors_, X[est.support_])
    assert set(rows_held(est, X)) == {"support_vectors_"}


def test_regressor_and_approximate_modes_hold_no_rows_after_drop(federation):
    X, y, groups = federation
    target = X @ np.array([1.0, -2.0, 0.5, 0.0])
    for est, yy in ((FederatedMultiTaskRegressor(random_state=0), target),
                    (FederatedMultiTaskClassifierCV(Cs=[0.1, 1.0], random_state=0), y),
                    (FederatedMultiTaskClassifier(approximation="rff", kernel="rbf",
                                                  random_state=0), y)):
        _fit(est, X, yy, groups)
        assert est.support_vectors_.shape == (0, 4)
        est.drop_node_data()
        assert rows_held(est, X) == {}, type(est).__name__


@pytest.mark.parametrize("make, allowed", [
    # the kernel learner's dictionaries are its models (kernel expansions):
    # dictionaries_, the network function's, and their working copies
    # (_points, _pub_points: what partial_fit continues and the nodes publish)
    (lambda: DecentralizedKernelSGDClassifier(random_state=0),
     {"dictionaries_", "_points", "_pub_points", "network_dictionary_",
      "_network_mean_dictionary"}),
    (lambda: DecentralizedBoostingClassifier(random_state=0), set()),
    (lambda: PersonalizedLinearClassifier(random_state=0), set()),
])
def test_other_estimators_hold_rows_only_in_their_models(federation, make, allowed):
    X, y, groups = federation
    est = _fit(make(), X, y, groups)
    held = set(rows_held(est, X))
    assert held <= allowed, held


def test_pickled_rehearsal_stores_rows_once_and_joins_the_same(federation):
    X, y, groups = federation
    new = groups >= 6
    est = _fit(FederatedMultiTaskClassifier(random_state=0), X[~new], y[~new], groups[~new])
    rehearsal = est._join_rehearsal
    n_rows = rehearsal.Z.nbytes + rehearsal.Y.nbytes + rehearsal.sw.nbytes
    blob = pickle.dumps(est)
    # the rows once, not once more for the per-node views: the pickle is the
    # rows plus the rest of the rehearsal (draws, seeds, centres)
    rest = len(pickle.dumps({k: v for k, v in vars(rehearsal).items()
                             if k not in ("Z", "Y", "sw", "data")}))
    assert n_rows < len(pickle.dumps(rehearsal)) < n_rows + rest + 1000
    assert len(pickle.dumps(pickle.loads(blob).drop_node_data())) < len(blob) - n_rows
    copy = pickle.loads(blob)
    for t, (Z, Y, sw) in copy._join_rehearsal.data.items():
        assert np.shares_memory(Z, copy._join_rehearsal.Z)
        np.testing.assert_array_equal(Z, rehearsal.data[t][0])
    est.add_nodes(X[new], y[new], groups=groups[new])
    copy.add_nodes(X[new], y[new], groups=groups[new])
    np.testing.assert_array_equal(est.coef_, copy.coef_)
    assert est.join_communication_.total_bytes == copy.join_communication_.total_bytes
