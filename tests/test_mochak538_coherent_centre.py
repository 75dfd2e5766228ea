"""skfed.multitask._join_coherent: a MOCHA newcomer's margin centre where the
fitted models cancel (rho < 0.7), against NumPy re-derivations, and its gate
on fitted federations.
"""

import copy

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.multitask import _join_coherent as jc
from skfed.multitask import _rehearsal
from skfed.multitask._compression import _FLOAT


def _tasks(angles, n_per, seed, offset=0, n=20):
    """Nodes of 2-feature linear tasks, node ``k``'s rule at ``angles[k]``
    (degrees), ``n`` samples each, plus ``n_per`` padding-free copies."""
    rng = np.random.RandomState(seed)
    X, y, g = [], [], []
    for k, a in enumerate(np.repeat(angles, n_per)):
        r = np.deg2rad(a)
        x = rng.normal(size=(n, 2))
        X.append(x)
        y.append((x @ np.array([np.cos(r), np.sin(r)]) + 0.3 * rng.normal(size=n) > 0)
                 .astype(int))
        g.append(np.full(n, k + offset))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


@pytest.fixture(scope="module")
def rotated():
    X, y, g = _tasks([0, 90, 180, 270], 6, 0)
    return FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)


@pytest.fixture(scope="module")
def alike():
    X, y, g = _tasks([30], 24, 1)
    return FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)


def test_coherence_closed_forms():
    w = np.array([[[1.0, 2.0, -1.0], [-1.0, -2.0, 1.0]]])  # two opposite models
    assert jc.coherence(w) == 0.0
    assert jc.coherence(np.repeat(w[:, :1], 4, axis=1)) == pytest.approx(1.0)
    assert jc.coherence(np.zeros((1, 3, 2))) == 1.0
    W = np.random.RandomState(0).normal(size=(2, 7, 4))
    # ||sum_t w_t||^2 / (m sum_t ||w_t||^2), every problem's coordinates together
    total = W.sum(axis=1)
    expected = (total ** 2).sum() / (7 * (W ** 2).sum())
    assert jc.coherence(W) == pytest.approx(expected, rel=1e-12)


def test_label_sums_and_margin_centres_against_loops():
    rng = np.random.RandomState(3)
    W = rng.normal(size=(1, 12, 3))
    W[0, 7] = W[0, 2] * 2.0  # the same direction as model 2: a tie, the lower index first
    W[0, 9] = 0.0  # a zero model scores 0
    counts = [5, 7, 4]
    offsets = np.concatenate([[0], np.cumsum(counts)])
    Z = rng.normal(size=(offsets[-1], 3))
    Y = np.where(rng.uniform(size=(1, offsets[-1])) < 0.5, -1.0, 1.0)
    sw = rng.uniform(0.5, 2.0, size=offsets[-1])
    S = jc.label_sums(Z, Y, sw, offsets)
    centres = jc.margin_centres(W, S, n_ranked=4)
    for n in range(3):
        rows = slice(offsets[n], offsets[n + 1])
        s = sum(sw[i] * Y[0, i] * Z[i] for i in range(offsets[n], offsets[n + 1]))
        np.testing.assert_allclose(S[0, n], s, rtol=1e-12)
        cos = [0.0 if not np.any(w) else w @ s / np.sqrt(w @ w) for w in W[0]]
        ranked = sorted(range(12), key=lambda t: (-cos[t], t))[:4]
        np.testing.assert_allclose(centres[0, n], W[0, ranked].mean(axis=0), rtol=1e-12)
        assert Z[rows].shape[0] == counts[n]
    # model 2 and its double (7) tie exactly for an s along them: the lower index first
    S2 = W[:, [2]] / np.linalg.norm(W[0, 2])
    np.testing.assert_array_equal(jc.margin_centres(W, S2, n_ranked=1)[0, 0], W[0, 2])
    np.testing.assert_allclose(jc.margin_centres(W, S2, n_ranked=2)[0, 0], 1.5 * W[0, 2])


def test_sent_sums_closed_form():
    S = np.array([[[3.0, -1.0, 0.4, 0.0], [0.0, 0.0, 0.0, 0.0]]])
    # 4 bits: levels -7..7 on max |s_j| = 3 (the zero upload stays zero)
    np.testing.assert_allclose(jc.sent_sums(S)[0, 0], [3.0, -2 * 3.0 / 7, 3.0 / 7, 0.0],
                               rtol=1e-15)
    np.testing.assert_array_equal(jc.sent_sums(S)[0, 1], 0.0)
    # words of 64 bits: P d' 4-bit values rounded up
    for P, d, words in [(1, 3, 1), (1, 16, 1), (1, 17, 2), (1, 21, 2), (2, 21, 3), (1, 562, 36)]:
        assert jc.upload_floats(np.zeros((P, 5, d))) == words
        assert words == -(-(P * d * 4) // 64)


def test_gate_on_fitted_federations(rotated, alike):
    W_rot = np.asarray(rotated._W[:, :24], dtype=np.float64)
    W_alike = np.asarray(alike._W[:, :24], dtype=np.float64)
    assert rotated.omega_mode_ == alike.omega_mode_ == "shared"
    # (the join's rehearsed path, where its centres are chosen, runs here)
    assert len(rotated._join_rehearsal.sizes) > 0
    # the four rotations cancel in w_0; one rule does not
    assert jc.coherence(W_rot) < 0.2
    assert jc.coherence(W_alike) > 0.9
    Xn, yn, _ = _tasks([0, 180], 1, 5, offset=100, n=5)
    Z = rotated._features(Xn)
    Y = np.where(yn == 1, 1.0, -1.0)[None, :]
    offsets, sw = np.array([0, 5, 10]), np.ones(10)
    got = jc.coherent_centres(rotated, W_rot, Z, Y, sw, offsets)
    np.testing.assert_array_equal(
        got, jc.margin_centres(W_rot, jc.sent_sums(jc.label_sums(Z, Y, sw, offsets))))
    assert got.shape == (1, 2, Z.shape[1])
    # a newcomer of the 0-degree task is centred on 0-degree-like models,
    # one of the 180-degree task on the opposite ones
    assert got[0, 0, 0] > 0 > got[0, 1, 0]
    assert jc.coherent_centres(alike, W_alike, Z, Y, sw, offsets) is None
    # d' = 3 values of 4 bits: 12 bits, one 8-byte word
    assert Z.shape[1] == 3 and jc.upload_floats(W_rot) == 1
    # too few fitted nodes to rank
    assert jc.coherent_centres(rotated, W_rot[:, :2 * jc.N_RANKED - 1], Z, Y, sw, offsets) is None


def test_gate_closed_for_multiclass_and_regressors():
    X, y, g = _tasks([0, 90, 180, 270], 4, 2)
    y3 = y + (X[:, 0] > 1).astype(int)  # three classes
    est3 = FederatedMultiTaskClassifier(random_state=0).fit(X, y3, groups=g)
    W3 = np.asarray(est3._W[:, :16], dtype=np.float64)
    Z = est3._features(X[:10])
    Y = -np.ones((W3.shape[0], 10))
    assert jc.coherent_centres(est3, W3, Z, Y, np.ones(10), np.array([0, 10])) is None
    reg = FederatedMultiTaskRegressor(random_state=0).fit(X, X @ [1.0, -1.0], groups=g)
    Wr = np.asarray(reg._W[:, :16], dtype=np.float64)
    assert jc.coherent_centres(reg, Wr, reg._features(X[:10]), X[None, :10, 0],
                               np.ones(10), np.array([0, 10])) is None


def test_join_uses_the_margin_centre(rotated, monkeypatch):
    Xn, yn, gn = _tasks([0, 180], 1, 5, offset=100, n=5)
    joined = copy.deepcopy(rotated).add_nodes(Xn, yn, groups=gn)
    W = np.asarray(rotated._W[:, :24], dtype=np.float64)
    Y = np.where(yn == 1, 1.0, -1.0)[None, :]
    centres = jc.coherent_centres(rotated, W, rotated._features(Xn), Y, np.ones(10),
                                  np.array([0, 5, 10]))
    # the reference: the same centres handed to the join's centre step, the
    # rule itself off (no label sum sent)
    with monkeypatch.context() as patch:
        patch.setattr(_rehearsal.Rehearsal, "centres_for", lambda self, counts, M: centres.copy())
        patch.setattr(jc, "coherent_centres", lambda *args: None)
        reference = copy.deepcopy(rotated).add_nodes(Xn, yn, groups=gn)
    np.testing.assert_allclose(joined.coef_[-2:], reference.coef_[-2:], rtol=1e-10)
    # the newcomers' first message grows by their label sums (P d' floats
    # each, in the same message: no header more)
    assert (joined.join_communication_.total_bytes
            == reference.join_communication_.total_bytes + 2 * jc.upload_floats(W) * _FLOAT)
