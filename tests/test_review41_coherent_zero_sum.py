"""review41: a MOCHA newcomer whose label sum is zero under the margin-centre
rule (skfed/multitask/_join_coherent.py).

Its upload ``s = sum_i sw_i y_i z_i`` has no direction (two points, each
seen once with either label), so every fitted model scores 0 and the
ranking's tie-break alone chose the centre: the mean of the fitted models
0-4, on the rotated-moons-like fixture the 0-degree group's models
(first coefficient 1.46 where ``w_0`` holds 0.04).  Its labels say nothing
about which group it belongs to, so it keeps the centre it has without the
rule; checked against the join with the rule switched off.
"""

import copy

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier
from skfed.multitask import _join_coherent as jc

from .test_mochak538_coherent_centre import _tasks


@pytest.fixture(scope="module")
def rotated():
    X, y, g = _tasks([0, 90, 180, 270], 6, 0)
    return FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)


def _silent_newcomer():
    a, b = np.random.RandomState(5).normal(size=(2, 2))
    return np.array([a, a, b, b]), np.array([0, 1, 0, 1]), np.full(4, 99)


def test_zero_label_sum_keeps_its_centre(rotated, monkeypatch):
    Xn, yn, gn = _silent_newcomer()
    Z = rotated._features(Xn)
    Y = np.where(yn == 1, 1.0, -1.0)[None, :]
    W = np.asarray(rotated._W[:, :24], dtype=np.float64)
    S = jc.sent_sums(jc.label_sums(Z, Y, np.ones(4), np.array([0, 4])))
    np.testing.assert_allclose(S, 0.0, atol=1e-12)  # (no direction to rank by)
    assert jc.coherence(W) < jc.COHERENCE_T  # (the rule acts on this federation)
    # a zero upload keeps the given centre, else the fitted w_0
    w0 = np.asarray(rotated._W[:, -1], dtype=np.float64)
    got = jc.coherent_centres(rotated, W, Z, Y, np.ones(4), np.array([0, 4]))
    np.testing.assert_array_equal(got[:, 0], w0)
    prior = np.full((W.shape[0], 1, W.shape[2]), 0.25)
    got = jc.coherent_centres(rotated, W, Z, Y, np.ones(4), np.array([0, 4]), prior=prior)
    np.testing.assert_array_equal(got, prior)
    # the join: as with the rule off (bar the upload's bytes)
    joined = copy.deepcopy(rotated).add_nodes(Xn, yn, groups=gn)
    monkeypatch.setattr(jc, "coherent_centres", lambda *args, **kw: None)
    reference = copy.deepcopy(rotated).add_nodes(Xn, yn, groups=gn)
    np.testing.assert_allclose(joined.coef_[-1], reference.coef_[-1], rtol=1e-10, atol=1e-12)


def test_a_silent_newcomer_leaves_the_others_ranked(rotated):
    Xs, ys, _ = _silent_newcomer()
    Xn, yn, _ = _tasks([180], 1, 5, n=5)
    Z = rotated._features(np.vstack([Xn, Xs]))
    Y = np.where(np.concatenate([yn, ys]) == 1, 1.0, -1.0)[None, :]
    W = np.asarray(rotated._W[:, :24], dtype=np.float64)
    offsets, sw = np.array([0, 5, 9]), np.ones(9)
    got = jc.coherent_centres(rotated, W, Z, Y, sw, offsets)
    ranked = jc.margin_centres(W, jc.sent_sums(jc.label_sums(Z, Y, sw, offsets)))
    np.testing.assert_array_equal(got[:, 0], ranked[:, 0])
    np.testing.assert_array_equal(got[:, 1], np.asarray(rotated._W[:, -1], dtype=np.float64))
    assert got[0, 0, 0] < 0  # (the 180-degree newcomer: the opposite models)
