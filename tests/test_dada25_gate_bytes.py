"""Dada's feature-mean gate with model-sized messages (skfed.boosting._dada_gate).

References: the shared gate (skfed._mean_neighbours.run_gate, dense float64
messages) for the same gains and t on a float64 fit, a NumPy loop over the
nodes with the values as sent (rounded to float32) on a float32 fit, and the
gate's bytes in closed form.
"""

import numpy as np
import pytest

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting import _dada_mean_join as mj
from skfed.graph import model_message_bytes
from skfed.network import DEFAULT_HEADER_BYTES, payload_bytes

from .test_dada18_one_class_join import nearest5, terrains


def _fit(X, y, g, **kw):
    return DecentralizedBoostingClassifier(n_estimators=12, random_state=0,
                                           join_neighbours="auto", **kw).fit(X, y, groups=g)


def _closed_form(clf, X, g, value_bytes):
    n, d = len(clf.nodes_), X.shape[1]
    flat = clf._full_coef().reshape(n, -1)
    dtype = flat.dtype
    masses = np.bincount(g)[clf.nodes_].astype(float)
    means = np.array([X[g == k].astype(float).mean(axis=0) for k in clf.nodes_]).astype(dtype)
    per_model = model_message_bytes(flat, dtype)
    near = [nearest5(means.astype(float), means[i].astype(float), exclude=i) for i in range(n)]
    shares = (masses[:, None] * flat.astype(float)).astype(dtype)
    total = shares.astype(float).sum(axis=0).astype(dtype)
    payload = ((n - 1) * (d * value_bytes + 8)                         # means, masses
               + (n - 1) * payload_bytes(n_float64=5, n_int32=5)         # the hub's answers
               + sum(int(per_model[c].sum()) for c in near)              # nearest models
               + int(model_message_bytes(shares[1:], dtype).sum()) + (n - 1) * 8
               + (n - 1) * (int(model_message_bytes(total[None], dtype)[0]) + 8)
               + 2 * (n - 1) * 8                                         # gains, t
               + (n - 1) * d * (d + 1) // 2 * value_bytes)               # scatters (dada27)
    messages = 2 * (n - 1) + 10 * n + 4 * (n - 1) + (n - 1)
    return payload + DEFAULT_HEADER_BYTES * messages, messages, means, masses, shares, total, near


def test_float64_gate_is_the_shared_gate_with_fewer_bytes(monkeypatch):
    X, y, g = terrains(n_nodes=14)
    ours = _fit(X, y, g)
    from skfed import _mean_neighbours

    monkeypatch.setattr(mj, "run_gate", _mean_neighbours.run_gate)
    shared = _fit(X, y, g)
    a, b = ours.newcomer_gate_, shared.newcomer_gate_
    np.testing.assert_array_equal(a["gains"], b["gains"])
    assert a["t"] == b["t"] and a["open"] and ours.newcomer_rule_ == "one-class"
    np.testing.assert_array_equal(ours._feature_table[0], shared._feature_table[0])
    np.testing.assert_array_equal(ours.coef_, shared.coef_)
    expected, messages, *_ = _closed_form(ours, X, g, 8)
    assert a["n_bytes"] == expected
    n, n_base = len(ours.nodes_), ours._full_coef().shape[2]
    # the shared gate sends both sums dense: n_base + 1 float64 each way
    dense = 2 * (n - 1) * payload_bytes(n_float64=n_base + 1)
    scatters = (n - 1) * (payload_bytes(n_float64=X.shape[1] * (X.shape[1] + 1) // 2)
                          + DEFAULT_HEADER_BYTES)
    ours_sums = expected - scatters - (b["n_bytes"] - dense)
    assert 0 < ours_sums < dense / 2
    assert shared.n_messages_ + n - 1 == ours.n_messages_       # + the scatters (dada27)
    assert ours.n_bytes_sent_ == ours.communication_.total_bytes


def test_float32_gate_against_numpy_with_the_values_as_sent():
    X, y, g = terrains(n_nodes=14)
    X = X.astype(np.float32)
    clf = _fit(X, y, g)
    assert clf._full_coef().dtype == np.float32
    expected, messages, means, masses, shares, total, near = _closed_form(clf, X, g, 4)
    gate = clf.newcomer_gate_
    assert gate["n_bytes"] == expected
    W = clf._full_coef()[:, 0, :].astype(float)
    H = clf._base_matrix(X, np.float64)
    gains = []
    for i, k in enumerate(clf.nodes_):
        rows = g == k
        w = masses[near[i]] / masses[near[i]].sum()
        near_model = w @ W[near[i]]
        other = (total.astype(float) - shares[i].astype(float)) / (masses.sum() - masses[i])
        acc = [np.mean((H[rows] @ m > 0) == (y[rows] == 1)) for m in (near_model, other)]
        gains.append(acc[0] - acc[1])
    np.testing.assert_allclose(gate["gains"], gains, atol=1e-12)
    np.testing.assert_array_equal(clf._feature_table[0], means.astype(float))
    assert gate["t"] == pytest.approx(np.mean(gains) / (np.std(gains, ddof=1) / np.sqrt(14)))
