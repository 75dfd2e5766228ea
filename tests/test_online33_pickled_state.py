"""The online learners pickle every repeated array once (online33).

A fitted online learner kept each node's dictionary in ``dictionaries_``,
``_points`` and ``_pub_points`` (and its weights in ``dual_coef_``,
``_weights`` / ``_avg_weights`` and ``_pub_weights``), and
``model_order_curve_`` as ``(n_rounds, n_nodes)`` integers that change in a
few entries; all of it was pickled (Landmine: 8,214 KB; 3,150 KB now,
``benchmarks/fitted_state_size.py``).  ``skfed/online/_state.py`` stores
what repeats as references and the curve as its changes.  Checked here: a
loaded estimator has every attribute equal (values, dtypes, shapes, the
shared curve one object), predicts, continues with ``partial_fit`` and
joins new nodes exactly as the original (bytes included), and its pickle
is at most the state without the repeated arrays plus the references and
the curve's changes in closed form (failed before: the pickle held the
repeated arrays, tens of KB here).
"""

import pickle
import warnings

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor

_REPEATED = ("dictionaries_", "dual_coef_", "_pub_points", "_pub_weights",
             "_order_curve", "model_order_curve_")
_BUFFERS = ("_points", "_weights", "_avg_weights", "_pub_points", "_pub_weights", "_slot_ids",
            "_gram_inv")


def _data(kind, seed=0, n_nodes=6, n=150, d=8, first=0):
    rng = np.random.RandomState(seed)
    groups = np.repeat(first + np.arange(n_nodes), n)
    X = rng.normal(size=(len(groups), d))
    y = X[:, 0] + np.sin(2 * X[:, 1]) + 0.1 * rng.normal(size=len(groups))
    return X, ((y > 0).astype(int) if kind == "clf" else y), groups


def _fit(kind, **params):
    cls = DecentralizedKernelSGDClassifier if kind == "clf" else DecentralizedKernelSGDRegressor
    X, y, g = _data(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return cls(kernel="rbf", max_epochs=3, random_state=0, **params).fit(X, y, groups=g)


def _equal(a, b):
    if isinstance(a, np.ndarray):
        return (isinstance(b, np.ndarray) and a.dtype == b.dtype and a.shape == b.shape
                and np.array_equal(a, b, equal_nan=a.dtype.kind == "f"))
    if isinstance(a, list) and a and isinstance(a[0], np.ndarray):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    return True


CASES = [("clf", {}), ("clf", {"exchange_every": 5}), ("reg", {}), ("reg", {"average": 0.0})]


@pytest.mark.parametrize("kind, params", CASES)
def test_loaded_estimator_equals_original(kind, params):
    est = _fit(kind, **params)
    capacity = est._points.shape
    loaded = pickle.loads(pickle.dumps(est))
    for name, value in est.__dict__.items():
        if name in _BUFFERS:
            # trimmed to the used capacity on pickling (as before online33)
            used = loaded.__dict__[name].shape[1]
            value = value[:, :used, :used] if name == "_gram_inv" else value[:, :used]
        assert _equal(value, loaded.__dict__[name]), name
    assert loaded.model_order_curve_ is loaded._order_curve
    # fresh copies: a later step writes the buffers, not the public attributes
    assert not any(np.shares_memory(D, loaded._points) for D in loaded.dictionaries_)
    # pickling leaves the live estimator as it was
    assert est._points.shape == capacity
    X, y, g = _data(kind, seed=1, n_nodes=7, n=10)     # node 6 is new
    Xn, yn, gn = _data(kind, seed=2, n_nodes=2, n=8, first=100)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for e in (est, loaded):
            e.partial_fit(X, y, groups=g)
            e.add_nodes(Xn, yn, groups=gn)
    for name in ("dictionaries_", "dual_coef_", "model_order_curve_", "join_passes_"):
        assert _equal(getattr(est, name), getattr(loaded, name)), name
    assert est.n_bytes_sent_ == loaded.n_bytes_sent_
    Xt = np.vstack([X, Xn])
    gt = np.concatenate([g, gn])
    np.testing.assert_array_equal(est.predict(Xt, groups=gt), loaded.predict(Xt, groups=gt))


@pytest.mark.parametrize("kind, params", CASES)
def test_pickle_holds_repeated_arrays_once(kind, params):
    est = _fit(kind, **params)
    full = len(pickle.dumps(est))
    state = est.__getstate__()
    stripped = len(pickle.dumps({k: v for k, v in state.items() if k not in _REPEATED}))
    n_nodes = len(est.nodes_)
    curve = est.model_order_curve_
    n_changes = int(np.count_nonzero(np.diff(curve, axis=0)))
    # what the repeated arrays cost now: per node a source index and a size
    # (lists) or a source index (rows), the rows of _pub_* that repeat no
    # buffer, the curve's first row and (row, column, value) per change,
    # and a little pickle framing
    own = 0
    for name in ("_pub_points", "_pub_weights"):
        if hasattr(state[name], "tails"):   # each tail its own array
            own += sum(t.nbytes + 200 for t in state[name].tails)
    bound = 2048 + 8 * 5 * n_nodes + 8 * n_nodes + 24 * n_changes + own
    assert full - stripped <= bound, (full - stripped, bound)
    # what they cost before: each of them in full
    before = sum(D.nbytes for D in est.dictionaries_) + sum(W.nbytes for W in est.dual_coef_) \
        + curve.nbytes
    assert before > 3 * bound
    # the published points a node's neighbours hold are referenced, not
    # stored: at least the first _pub_sizes of every row, in every case here
    assert (state["_pub_points"].n >= est._pub_sizes).all()
