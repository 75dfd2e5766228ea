"""MOCHA newcomers whose samples hold one class (issue 32): the fitted
nodes' one-class draws against NumPy/SciPy logistic solves at ``w_0``, the
scale rule written again from its description, the newcomer's model against
a SciPy solve of its problem, the fitted nodes bit-identical and the join's
bytes in closed form."""

import copy
import math

import numpy as np
import pytest

from skfed.multitask import (
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    _rehearsal,
)
from skfed.multitask._rehearsal import (
    ONE_CLASS_EVIDENCE,
    REHEARSAL_SCALES,
    node_paired_difference,
    one_class_scale,
)

from .test_multitask_join import HEADER, _design, _logistic_solve

SIZES_BITS = math.ceil(math.log2(len(_rehearsal.REHEARSAL_SIZES))) + 1  # size index, kind


def _alike(n_nodes=8, n_per=40, d=3, seed=0, share=0.3):
    """Nodes of one task (so ``w_0`` is the right model for a newcomer) whose
    positive class is about ``share`` of each node's samples."""
    rng = np.random.RandomState(seed)
    w = rng.normal(size=d)
    X, y, g = [], [], []
    for t in range(n_nodes):
        Xt = rng.normal(size=(n_per, d))
        f = Xt @ w
        y.append((f > np.quantile(f, 1 - share)).astype(int))
        X.append(Xt)
        g.append(np.full(n_per, t))
    return np.concatenate(X), np.concatenate(y), np.concatenate(g)


@pytest.fixture
def exact_rehearsal(monkeypatch):
    """Rehearsal solves run to a relative gap of 1e-14 (the references'
    accuracy), so their errors can be compared sample by sample."""
    monkeypatch.setattr(_rehearsal, "REHEARSAL_GAP_TOL", 1e-14)
    monkeypatch.setattr(_rehearsal, "REHEARSAL_PASSES", 10000)


def _fitted(seed=0, d=3, n_per=40):
    X, y, g = _alike(seed=seed, d=d, n_per=n_per)
    old = g < 6
    est = FederatedMultiTaskClassifier(random_state=seed).fit(X[old], y[old], groups=g[old])
    assert est.omega_mode_ == "shared"
    return est, (X, y, g), old


def _reference_errors(est, Xo, yo, go, a):
    """NumPy/SciPy: every one-class draw of size set ``a`` solved toward
    ``w_0`` at every scale (the join's per-sample logistic problem with prior
    weight ``mu / (confidence * scale)``) and scored on its node's other
    samples, each held-out sample weighted by its class's share in the node
    over its share in the held-out samples."""
    reh = est._join_rehearsal
    m, n = len(est.nodes_), len(Xo)
    lam = 1.0 / (est.C * n)
    mu = lam * m / (1.0 - est.shared_weight_)
    w0 = np.append(est.shared_coef_, est.shared_intercept_)
    k, owners, _ = reh.draws[a]
    perms, kept, _, held_counts = reh._one_class_draws(a)
    errors = np.full((len(REHEARSAL_SCALES), len(owners)), np.nan)
    for j, (t, perm) in enumerate(zip(owners.tolist(), perms)):
        if not kept[j]:
            continue
        rows = np.flatnonzero(go == est.nodes_[t])
        Z, y = _design(Xo[rows]), yo[rows]
        tr, held = perm[:k], perm[k:]
        assert len(np.unique(y[tr])) == 1  # one class ...
        assert np.sum(y == y[tr][0]) > k   # ... with samples held out too
        node_share = np.array([np.mean(y == c) for c in (0, 1)])
        held_share = np.array([np.mean(y[held] == c) for c in (0, 1)])
        weight = (node_share / held_share)[y[held]]
        np.testing.assert_array_equal(held_counts[j], np.bincount(y[held], minlength=2))
        confidence = k / (n / m)
        for i, s in enumerate(REHEARSAL_SCALES):
            w = w0 if s == 0 else _logistic_solve(Z[tr], y[tr], w0, 1.0, mu / (confidence * s))
            margin = (Z[held] @ w) * np.where(y[held] == 1, 1.0, -1.0)
            assert np.min(np.abs(margin)) > 1e-6  # no sample on the boundary
            errors[i, j] = np.sum(weight * (margin <= 0)) / np.sum(weight)
    return errors[:, kept], owners[kept], kept, held_counts


def test_one_class_draws_are_logistic_solves_at_w0(exact_rehearsal):
    est, (X, y, g), old = _fitted()
    Xo, yo, go = X[old], y[old], g[old]
    reh = est._join_rehearsal
    assert reh.one_class_kind
    for a in reh.usable:
        E_ref, owners, kept, _ = _reference_errors(est, Xo, yo, go, a)
        # every node of 40 samples holds 28 negatives: a class above k
        assert kept.all()
        # (the draws are the fit's: the same whichever call asks)
        again = reh._one_class_draws(a)
        assert all(np.array_equal(p, q) for p, q in zip(again[0], reh._one_class_draws(a)[0]))
        E = reh._rehearse_one_class(a)
        assert E.shape == E_ref.shape
        np.testing.assert_allclose(E, E_ref, rtol=0, atol=1e-12)
        np.testing.assert_array_equal(reh.one_class_owners[a], owners)
    assert reh.data  # the ordinary draws are not solved yet: the rows stay
    reh.table()
    assert reh.data == {}  # every draw set solved: the rows are dropped


def test_node_paired_difference_and_one_class_scale_follow_their_rule():
    rng = np.random.RandomState(0)
    E = rng.uniform(size=(len(REHEARSAL_SCALES), 9))
    owners = np.array([0, 0, 1, 2, 2, 3, 4, 4, 5])
    base = 0  # scale 1
    mean, se = node_paired_difference(E, base, owners)
    nodes = np.unique(owners)
    per_node = np.array([[np.mean(E[i, owners == t] - E[base, owners == t]) for t in nodes]
                         for i in range(len(E))])
    np.testing.assert_allclose(mean, per_node.mean(axis=1))
    np.testing.assert_allclose(se, per_node.std(axis=1, ddof=1) / np.sqrt(len(nodes)))
    assert node_paired_difference(E, base, np.zeros(9, dtype=int)) == (None, None)
    scales = np.asarray(REHEARSAL_SCALES)
    # w_0 alone (scale 0) and 1/16 both beat scale 1 clearly, 1/16 within one
    # standard error of w_0: the nearest to 1 of them, 1/16, is taken; scale 4
    # (above 1) never competes, however low its error
    E = np.tile(np.array([[0.30], [0.01], [0.30], [0.112], [0.11]]), (1, 6))
    E += 0.01 * rng.normal(size=E.shape)
    owners = np.arange(6)
    mean, se = node_paired_difference(E, 0, owners)
    assert mean[1] < mean[4] and mean[4] + se[4] >= mean[3]
    assert one_class_scale(E, 0, owners) == list(scales).index(1.0 / 16)
    # from 1/16, only 0 may compete: it does not beat 1/16 by the evidence
    mean, se = node_paired_difference(E, 3, owners)
    assert mean[4] + ONE_CLASS_EVIDENCE * se[4] >= 0
    assert one_class_scale(E, 3, owners) == 3
    # nothing beats the base: the base
    flat = np.full((len(scales), 6), 0.5)
    assert one_class_scale(flat, 0, owners) == 0


@pytest.mark.parametrize("seed, n_per", [(0, 80), (2, 40)], ids=["quarter", "w0"])
def test_one_class_newcomer_joins_at_its_scale(exact_rehearsal, seed, n_per):
    """A newcomer of 20 negatives and one of 20 mixed samples: the mixed one
    at its size's ordinary scale, the one-class one at the one-class rule's
    scale from the reference errors (here 1/4, or 0: ``w_0`` itself, where
    the ordinary scale is 1: every node has the same task, so a one-class
    sample moves a newcomer away from the right ``w_0``); each model is the SciPy solve of its problem; the
    fitted nodes are bit-identical; the bytes are the closed form."""
    est, (X, y, g), old = _fitted(seed, 3, n_per)
    Xo, yo, go = X[old], y[old], g[old]
    m, n = len(est.nodes_), len(Xo)
    lam = 1.0 / (est.C * n)
    mu = lam * m / (1.0 - est.shared_weight_)
    w0 = np.append(est.shared_coef_, est.shared_intercept_)
    reh = est._join_rehearsal
    k = 20
    a = reh.usable[list(reh.sizes).index(k)]
    E_ref, owners, _, held_counts = _reference_errors(est, Xo, yo, go, a)
    table = reh.table()  # (solves every size, ordinary and one-class)
    i = list(table["sizes"]).index(k)
    errors, se = table["errors"][i], table["standard_errors"][i]
    best = int(np.argmin(errors))
    base = best if errors[best] - errors[0] + _rehearsal.REHEARSAL_EVIDENCE * se[best] < 0 else 0
    picked = one_class_scale(E_ref, base, owners)
    assert REHEARSAL_SCALES[picked] < REHEARSAL_SCALES[base] == 1.0  # the rule acts here
    assert REHEARSAL_SCALES[picked] == (0.25 if seed == 0 else 0.0)

    est, (X, y, g), old = _fitted(seed, 3, n_per)  # a fresh fit: nothing rehearsed yet
    coef, intercept, W = est.coef_.copy(), est.intercept_.copy(), est._W.copy()
    one = np.flatnonzero((g == 6) & (y == 0))[:k]
    mixed = np.flatnonzero(g == 7)[:k]
    assert len(np.unique(y[mixed])) == 2
    rows = np.concatenate([one, mixed])
    before = est.n_bytes_sent_
    est.add_nodes(X[rows], y[rows], groups=g[rows])
    assert np.array_equal(est.coef_[:m], coef) and np.array_equal(est.intercept_[:m], intercept)
    assert np.array_equal(est._W[:, :m], W[:, :m]) and np.array_equal(est._W[:, -1], W[:, -1])
    for j, (r, scale) in enumerate(((one, REHEARSAL_SCALES[picked]),
                                    (mixed, REHEARSAL_SCALES[base]))):
        w = w0 if scale == 0 else _logistic_solve(_design(X[r]), y[r], w0, 1.0,
                                                  mu / (k / (n / m) * scale))
        np.testing.assert_allclose(np.append(est.coef_[m + j], est.intercept_[m + j]), w,
                                   rtol=1e-6, atol=1e-8)

    # bytes: each newcomer up 2 floats, down w_0 and its prior weight; each
    # rehearsing node a request of two items (size 20, ordinary and
    # one-class: SIZES_BITS each) and one report of counts (one bit first):
    # per kept ordinary draw and scale its misclassified held-out samples in
    # ceil(log2(n_held + 1)) bits; per kept one-class draw its class (1
    # bit), its held-out samples per class (ceil(log2(n_held + 1)) bits
    # each) and per scale its misclassified ones per class
    # (ceil(log2(n_j + 1)) bits for n_j held-out samples of class j)
    d = X.shape[1] + 1
    expected = 2 * (2 * 8 + HEADER + (d + 1) * 8 + HEADER)
    _, ord_owners, perms = est._join_rehearsal.draws[a]
    ord_kept = est._join_rehearsal.kept[a]
    bits = np.zeros(m, int)
    S = len(REHEARSAL_SCALES)
    for t, perm, keep in zip(ord_owners, perms, ord_kept):
        bits[t] += keep * S * math.ceil(math.log2(len(perm) - k + 1))
    for t, held in zip(owners, held_counts):  # (every one-class draw is kept here)
        n_held = int(held.sum())
        assert n_held == n_per - k
        bits[t] += 1 + 2 * math.ceil(math.log2(n_held + 1)) + S * sum(
            math.ceil(math.log2(h + 1)) for h in held)
    for t in np.unique(ord_owners):
        expected += math.ceil(2 * SIZES_BITS / 8) + HEADER
        expected += math.ceil((bits[t] + 1) / 8) + HEADER
    assert est.join_communication_.total_bytes == expected
    assert est.n_bytes_sent_ == before + expected


def test_one_class_rule_is_for_classifiers_only():
    """A regressor's newcomer with constant targets is not a one-class
    newcomer: its rehearsal has no one-class draws and its requests carry
    no kind bit."""
    X, y, g = _alike()
    y = y.astype(float)
    old = g < 6
    est = FederatedMultiTaskRegressor(random_state=0).fit(X[old], y[old], groups=g[old])
    reh = est._join_rehearsal
    assert not reh.one_class_kind
    rows = np.flatnonzero((g == 6) & (y == 0))[:10]
    est.add_nodes(X[rows], y[rows], groups=g[rows])
    assert reh.one_class_errors == {} and reh.one_class_collected == set()
    assert len(reh.results) == 1


def test_multiclass_one_class_draws_and_join():
    """Three classes (one problem each): a one-class draw holds one class of
    its node, its held-out counts are per class, and a newcomer of one class
    joins at the rule's scale with the fitted nodes untouched."""
    rng = np.random.RandomState(0)
    W = rng.normal(size=(3, 4))
    X = rng.normal(size=(8 * 45, 4))
    y = np.argmax(X @ W.T + 0.3 * rng.normal(size=(len(X), 3)), axis=1)
    g = np.repeat(np.arange(8), 45)
    old = g < 6
    est = FederatedMultiTaskClassifier(random_state=0).fit(X[old], y[old], groups=g[old])
    reh = est._join_rehearsal
    k = 10
    a = reh.usable[list(reh.sizes).index(k)]
    _, owners, _ = reh.draws[a]
    perms, kept, _, held_counts = reh._one_class_draws(a)
    assert kept.any()
    for t, perm, keep, held in zip(owners.tolist(), perms, kept, held_counts):
        labels = y[old][g[old] == est.nodes_[t]]
        if not keep:
            continue
        assert len(np.unique(labels[perm[:k]])) == 1
        np.testing.assert_array_equal(held, np.bincount(labels[perm[k:]], minlength=3))
    coef = est.coef_.copy()
    rows = np.flatnonzero((g == 6) & (y == np.bincount(y[g == 6]).argmax()))[:k]
    scales, _ = copy.deepcopy(reh).scales(np.array([k]), np.array([True]))
    est.add_nodes(X[rows], y[rows], groups=g[rows])
    assert np.array_equal(est.coef_[:6], coef)
    if scales[0] == 0.0:
        np.testing.assert_array_equal(est.coef_[6], est.shared_coef_)
