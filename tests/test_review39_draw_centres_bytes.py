"""review39: the bytes of MOCHA's draw centres (mochapop37,
:mod:`skfed.multitask._rehearsal_centres`) for regressors, three classes
and under drops.

Reference: the closed form of mochapop37's classifier test -- per kept
draw its feature mean up (``d`` float32) and its centre down (``P d'``
float32), one more message per rehearsing node -- against the same join
with the rehearsal around ``w_0`` on the same network draws.  Under drops
(``drop_rate=0.5``) the messages take more rounds, not more bytes.
"""

import copy

import numpy as np
import pytest

from skfed import (
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    SimulatedNetwork,
)
from skfed.multitask import _join_neighbours as jn
from skfed.multitask._rehearsal_centres import CENTRE_BYTES

from .test_multitask_join import HEADER
from .test_multitask_join_neighbours import _terrains


@pytest.fixture(autouse=True)
def _any_cost(monkeypatch):
    """Small fits: let the gate run whatever its byte share."""
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", np.inf)


def _three_classes(X, g):
    """Three classes from the terrains' margin (its slope flips by kind)."""
    return np.digitize(X[:, :2] @ np.array([1.0, 0.5]) * np.where(g % 2, 1, -1), [-0.7, 0.7])


def _joined(kind, drop):
    X, y, g = _terrains(seed=0, regression=kind == "regressor")
    if kind == "three classes":
        y = _three_classes(X, g)
    old = g < 14
    cls = FederatedMultiTaskRegressor if kind == "regressor" else FederatedMultiTaskClassifier
    est = cls(random_state=0, network=SimulatedNetwork(drop_rate=drop, random_state=0))
    est.fit(X[old], y[old], groups=g[old])
    new = np.flatnonzero(~old)
    new = np.concatenate([new[g[new] == t][:10] for t in np.unique(g[new])])
    reh = est._join_rehearsal
    assert reh.neighbours.open and reh.around is not None
    before = copy.deepcopy(est)
    before._join_rehearsal.around = None
    est.add_nodes(X[new], y[new], groups=g[new])
    before.add_nodes(X[new], y[new], groups=g[new])
    return est, before, reh


@pytest.mark.parametrize("kind", ["regressor", "three classes"])
@pytest.mark.parametrize("drop", [0.0, 0.5])
def test_extra_bytes_in_closed_form(kind, drop):
    est, before, reh = _joined(kind, drop)
    P, _, d = reh.around.W.shape
    assert (P, d) == ((3, 4) if kind == "three classes" else (1, 4))
    owners = [reh.draws[a][1][reh.kept[a]] for a in sorted(reh.collected)]
    owners += [reh.draws[a][1][reh.one_class_kept[a][0]] for a in sorted(reh.one_class_collected)]
    owners = np.concatenate(owners)
    assert len(owners) > 0
    assert kind != "regressor" or not reh.one_class_collected
    extra = (len(owners) * (reh.around.n_features + P * d) * CENTRE_BYTES
             + len(np.unique(owners)) * HEADER)
    got = est.join_communication_.total_bytes - before.join_communication_.total_bytes
    ordinary = sum(int(reh.kept[a].sum()) for a in reh.collected)
    slack = 0 if kind == "regressor" else (ordinary + 7) // 8 + len(np.unique(owners))
    assert extra <= got <= extra + slack
    rounds = len(est.join_communication_.bytes_per_round)
    assert (rounds == 1) == (drop == 0.0)
    assert rounds == len(before.join_communication_.bytes_per_round)


def test_three_class_draws_scale_in_numpy():
    # with three classes a "two-class" draw holds two classes or more among
    # its k training labels (NumPy from the raw y); the size's result is the
    # paired mean and standard error over those draws
    reh = _joined("three classes", 0.0)[2]
    X, _, g = _terrains(seed=0)
    y = _three_classes(X, g)
    labels = {t: y[g == t] for t in range(14)}
    checked = 0
    for a, two in reh.two_class.items():
        k, owners, perms = reh.draws[a]
        sel = reh.kept[a] & np.array([len(np.unique(labels[int(t)][p[:k]])) > 1
                                      for t, p in zip(owners, perms)])
        if sel.sum() < 2:
            assert two is None
            continue
        centres = reh._draw_centres(k, owners, perms, reh.kept[a])
        E = reh._solve(k, owners, perms, reh.kept[a], reh.seeds[a], reh.exact[a], w0=centres)
        diff = E[:, sel] - E[0, sel]
        np.testing.assert_allclose(two[0], E[:, sel].mean(axis=1), rtol=1e-12)
        np.testing.assert_allclose(two[1], diff.std(axis=1, ddof=1) / np.sqrt(sel.sum()),
                                   rtol=1e-9, atol=1e-15)
        checked += 1
    assert checked >= 1
