"""Perso-lin's shared-model gate counts gains nobody has (review34).

``skfed/boosting/_perso_lin_shared.py``: "Every node with held-back samples
compares ... its gain (positive: S better) goes to the hub (one float64)".
``shared_gate`` computes gains only for nodes with held-back rows and a
graph neighbour, but counts ``n - 1`` gain messages (8 B each) whatever
their number: on 12 nodes of 4 rows (``4 // HOLD_BACK = 0`` held back)
there is no gain at all (``newcomer_gate_["gains"]`` is empty, ``t = 0``)
and the log still holds 11 gain messages (logged but not sent).  Measured
at 7781cb8.  Expected: one gain message per non-hub node that has a gain.
The control (50-row nodes: every node has a gain) passes.  Fixed by the
lead: only the nodes with a gain send one.
"""

import warnings

import numpy as np
import pytest

import skfed.boosting._perso_lin_shared as shared
from skfed import PersonalizedLinearClassifier


def _gate_messages(monkeypatch, rows_per_node):
    calls = []
    original = shared._deliver

    def recording(sim, senders, receivers, n_bytes, requests=False):
        calls.append((np.asarray(senders).copy(), np.asarray(receivers).copy(),
                      np.asarray(n_bytes).copy()))
        return original(sim, senders, receivers, n_bytes, requests)

    monkeypatch.setattr(shared, "_deliver", recording)
    rng = np.random.RandomState(0)
    n_nodes = 12
    X = rng.normal(size=(n_nodes * rows_per_node, 4))
    y = (X[:, 0] + 0.3 * rng.normal(size=len(X)) > 0).astype(int)
    y[::rows_per_node] = 0
    y[1::rows_per_node] = 1  # both classes on every node
    g = np.repeat(np.arange(n_nodes), rows_per_node)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PersonalizedLinearClassifier(random_state=0, join_neighbours="shared")
        est.fit(X, y, groups=g)
    # the gate's two deliveries are the last two: gains up (to the hub), t down
    up = calls[-2]
    assert np.all(up[1] == 0) and np.all(up[2] == 8)
    n_gains = len(est.newcomer_gate_["gains"])
    hub_has_gain = n_gains > 0 and rows_per_node // shared.HOLD_BACK > 0
    return len(up[0]), n_gains - int(hub_has_gain)


def test_every_node_has_a_gain_control(monkeypatch):
    sent, non_hub_gains = _gate_messages(monkeypatch, 50)
    assert sent == non_hub_gains == 11


def test_no_gain_no_message(monkeypatch):
    sent, non_hub_gains = _gate_messages(monkeypatch, 4)
    assert non_hub_gains == 0
    assert sent == non_hub_gains
