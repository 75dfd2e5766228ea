"""MOCHA's rehearsal with the feature-mean gate open: each draw centred as
its newcomer would be (:mod:`skfed.multitask._rehearsal_centres`, issue 32).

References: a draw's centre as the NumPy size-weighted mean of the 5
fitted models (its own node left out) nearest its rows' mean by the
Mahalanobis distance of the pooled within-node scatter (float32 messages);
the draws' errors equal single-draw solves toward that centre; the
two-class newcomers' scale from the NumPy paired mean and standard error
over the draws holding two classes; the extra bytes in closed form; a
closed gate's join bit-identical to the rehearsal around ``w_0``."""

import copy

import numpy as np
import pytest

from skfed.multitask import _join_neighbours as jn
from skfed.multitask import _rehearsal as rh
from skfed.multitask._rehearsal_centres import CENTRE_BYTES

from .test_multitask_join import HEADER
from .test_multitask_join_neighbours import _fit


@pytest.fixture(autouse=True)
def _any_cost(monkeypatch):
    """The tests' fits are small: let the gate run whatever its byte share."""
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", np.inf)


def _f32(x):
    return np.asarray(x, dtype=np.float32).astype(np.float64)


def _reference_centres(est, Xo, go, k, owners, perms, kept):
    """Each kept draw's centre (P, n_draws, d'); NaN where not kept."""
    m = len(est.nodes_)
    coef = np.atleast_2d(est.coef_)
    icpt = np.ravel(est.intercept_)
    sizes = np.bincount(go).astype(float)
    means = np.array([Xo[go == t].mean(axis=0) for t in range(m)])
    S = sum((Xo[go == t] - means[t]).T @ (Xo[go == t] - means[t]) for t in range(m))
    inv = np.linalg.inv(S)
    out = np.full((1, len(owners), Xo.shape[1] + 1), np.nan)
    for j in np.flatnonzero(kept):
        t = int(owners[j])
        target = _f32(Xo[go == t][perms[j][:k]].mean(axis=0))
        diff = means - target
        dist = np.einsum("ij,jk,ik->i", diff, inv, diff)
        dist[t] = np.inf  # (its own node left out)
        near = np.argsort(dist, kind="stable")[:5]
        w = sizes[near] / sizes[near].sum()
        out[0, j] = _f32(np.append(w @ coef[near], w @ icpt[near] / est.intercept_scaling))
    return out


@pytest.mark.parametrize("regression", [False, True])
def test_draw_centres_are_the_nearest_other_nodes_mean_model(regression):
    est, (Xo, _, go), _ = _fit(regression)
    reh = est._join_rehearsal
    assert reh.neighbours.open and reh.around is not None
    a = reh.usable[list(reh.sizes).index(10)]
    k, owners, perms = reh.draws[a]
    kept = reh.kept[a]
    assert kept.sum() >= 10
    got = reh._draw_centres(k, owners, perms, kept)
    ref = _reference_centres(est, Xo, go, k, owners, perms, kept)
    np.testing.assert_allclose(got[:, kept], ref[:, kept], rtol=1e-5, atol=1e-6)
    # the draws' centres differ (each placed by its own rows)
    assert len({tuple(np.round(c, 6)) for c in got[0, kept]}) > 2
    # a draw's errors are its own solve toward its own centre
    solve = (k, owners, perms, kept, reh.seeds[a], reh.exact[a])
    E = reh._solve(*solve, w0=got)
    for j in np.flatnonzero(kept)[:3]:
        one = np.zeros(len(owners), dtype=bool)
        one[j] = True
        Ej = reh._solve(*solve[:3], one, *solve[4:], w0=got[:, j])
        np.testing.assert_allclose(E[:, j], Ej[:, j], rtol=1e-9, atol=1e-12)


def test_two_class_newcomers_take_the_two_class_draws_scale():
    est, (Xo, yo, go), _ = _fit()
    reh = est._join_rehearsal
    a = reh.usable[list(reh.sizes).index(2)]  # (draws of 2 samples: one class or two)
    k, owners, perms = reh.draws[a]
    kept = reh.kept[a]
    centres = reh._draw_centres(k, owners, perms, kept)
    E = reh._solve(k, owners, perms, kept, reh.seeds[a], reh.exact[a], w0=centres)
    nodes = {t: (Xo[go == t], yo[go == t]) for t in range(len(est.nodes_))}
    two = np.array([len(np.unique(nodes[int(t)][1][p[:k]])) == 2 for t, p in zip(owners, perms)])
    sel = kept & two
    assert 2 <= sel.sum() < kept.sum()
    diff = E[:, sel] - E[0, sel]
    mean, se = E[:, sel].mean(axis=1), diff.std(axis=1, ddof=1) / np.sqrt(sel.sum())
    best = int(np.argmin(mean))
    expect = rh.REHEARSAL_SCALES[best if mean[best] - mean[0] + se[best] < 0 else 0]
    counts = np.array([2, 2])
    scales, _ = reh.scales(counts, np.array([False, True]))
    assert scales[0] == expect
    np.testing.assert_allclose(reh.two_class[a][0], mean, rtol=1e-12)
    np.testing.assert_allclose(reh.two_class[a][1], se, rtol=1e-9)
    # a one-class newcomer keeps the all-draws rule and its one-class draws
    base = copy.deepcopy(reh)
    base.two_class = {}
    base.results = {}
    assert scales[1] == base.scales(counts, np.array([True, True]))[0][1]


def test_extra_bytes_in_closed_form():
    est, _, (Xn, yn, gn) = _fit()
    reh = est._join_rehearsal
    before = copy.deepcopy(est)
    before._join_rehearsal.around = None  # (the rehearsal around w0)
    est.add_nodes(Xn, yn, groups=gn)
    before.add_nodes(Xn, yn, groups=gn)
    P, _, d = reh.around.W.shape
    n_feat = reh.around.n_features
    owners_placed = []
    for item in sorted(set(reh.collected)):
        owners_placed.append(reh.draws[item][1][reh.kept[item]])
    for item in sorted(set(reh.one_class_collected)):
        owners_placed.append(reh.draws[item][1][reh.one_class_kept[item][0]])
    owners_placed = np.concatenate(owners_placed)
    n_placed = len(owners_placed)
    ordinary = sum(int(reh.kept[a].sum()) for a in reh.collected)
    # per kept draw its mean up and its centre down (float32), one more
    # message per node, a bit per ordinary draw (two classes or not)
    extra = (n_placed * (n_feat + P * d) * CENTRE_BYTES
             + len(np.unique(owners_placed)) * HEADER)
    got = est.join_communication_.total_bytes - before.join_communication_.total_bytes
    assert extra <= got <= extra + (ordinary + 7) // 8 + len(np.unique(owners_placed))


@pytest.mark.parametrize("seed", [0, 1])
def test_closed_gate_rehearses_around_w0(seed):
    est, _, (Xn, yn, gn) = _fit(signal=False, seed=seed)
    reh = est._join_rehearsal
    assert not reh.neighbours.open and reh.around is None
    a = reh.usable[list(reh.sizes).index(10)]
    k, owners, perms = reh.draws[a]
    E = reh._solve(k, owners, perms, reh.kept[a], reh.seeds[a], reh.exact[a])
    est.add_nodes(Xn, yn, groups=gn)
    kept = reh.kept[a]
    assert np.array_equal(reh.results[a][0], E[:, kept].mean(axis=1))
    assert reh.two_class == {}
