"""MOCHA joins centred on a larger share's candidate (issue 32): the fitted
nodes' rehearsal scores each size's newcomers at the fitted ``w_0`` and at
the share selection's candidates of a larger share, and a size moves to
another centre only if it beats ``w_0`` by one standard error over the
rehearsing nodes (:func:`skfed.multitask._rehearsal.choose_centre`).

References: the rule written again in NumPy (per-node means, paired
differences), every draw's closed-form ridge toward every centre, the
newcomers' ridge solves toward their size's centre, the fitted nodes
bit-identical, the join's bytes in closed form."""

import copy

import numpy as np
import pytest
from .test_multitask_join import HEADER, _design, _split, _tasks

from skfed.multitask import FederatedMultiTaskRegressor, _rehearsal_bytes
from skfed.multitask._rehearsal import (
    REHEARSAL_SCALES,
    REHEARSAL_SIZES,
    choose_centre,
    rehearsal_draws,
)

SCALES = np.asarray(REHEARSAL_SCALES)


@pytest.fixture(autouse=True)
def _reports_at_any_cost(monkeypatch):
    """The tests' fits are small: their centres' reports would pass
    REHEARSAL_BYTE_SHARE of the fit's bytes and travel in 8 bits (tested in
    test_bytes38_rehearsal_budget); these tests check the float64 choice."""
    monkeypatch.setattr(_rehearsal_bytes, "REHEARSAL_BYTE_SHARE", np.inf)


def _reference_choice(found, owners):
    """The centre rule in NumPy: each centre at its own size scale (the
    lowest mean error if it beats scale 1 by one standard error of the
    paired difference over the draws), then the paired difference to centre
    0 over the nodes (a node's draws averaged first); a centre wins by one
    standard error, the lowest mean of the winners."""
    picked = []
    for E in found:
        n = E.shape[1]
        mean = E.mean(axis=1)
        diff = E - E[0]
        se = np.sqrt(((diff - diff.mean(axis=1, keepdims=True)) ** 2).sum(axis=1)
                     / (n - 1)) / np.sqrt(n)
        best = int(np.argmin(mean))
        picked.append(E[best] if mean[best] + se[best] < mean[0] else E[0])
    nodes = np.unique(owners)
    if len(found) < 2 or len(nodes) < 2:
        return 0
    per_node = np.array([[p[owners == t].mean() for t in nodes] for p in picked])
    diff = per_node - per_node[0]
    mean = diff.mean(axis=1)
    se = diff.std(axis=1, ddof=1) / np.sqrt(len(nodes))
    lowered = (diff < 0).sum(axis=1)
    wins = [c for c in range(1, len(found)) if mean[c] + se[c] < 0 and lowered[c] >= 2]
    return min(wins, key=lambda c: mean[c]) if wins else 0


def test_choose_centre_equals_the_numpy_rule():
    rng = np.random.RandomState(0)
    outcomes = set()
    for case in range(400):
        n_draws = rng.randint(3, 12)
        owners = np.sort(rng.randint(0, rng.randint(2, 6), size=n_draws))
        n_centres = rng.randint(1, 4)
        base = rng.uniform(0.1, 0.4, size=(len(SCALES), n_draws))
        found = [base + rng.normal(0, 0.03, size=base.shape) - c * rng.uniform(0, 0.03)
                 for c in range(n_centres)]
        got = choose_centre(found, owners)
        assert got == _reference_choice(found, owners), case
        outcomes.add(got)
    assert outcomes == {0, 1, 2}  # the rule keeps w0 and moves, both
    # one node: no standard error over nodes, w0 kept
    one = np.zeros(4, dtype=int)
    assert choose_centre([np.full((5, 4), .3), np.full((5, 4), .1)], one) == 0
    # by hand: per-node differences -1 and -3 (mean -2, standard error 1)
    # win; -0.5 and +1.5 (mean 0.5) do not
    fit = np.full((len(SCALES), 2), 5.0)
    win, lose = fit.copy(), fit.copy()
    win[:, 0], win[:, 1] = 4.0, 2.0
    lose[:, 0], lose[:, 1] = 4.5, 6.5
    assert choose_centre([fit, lose, win], np.array([0, 1])) == 2
    assert choose_centre([fit, lose], np.array([0, 1])) == 0
    # one node of five lowers its error, by any amount: its difference is
    # one standard error exactly, and one node is not evidence
    fit = np.full((len(SCALES), 5), 5.0)
    one = fit.copy()
    one[:, 2] = 1.0
    assert choose_centre([fit, one], np.arange(5)) == 0
    two = one.copy()
    two[:, 3] = 4.0
    assert choose_centre([fit, two], np.arange(5)) == 1


def _fit(seed=0, n_per=200):
    X, y, g = _tasks(n_per=n_per, seed=seed, regression=True)
    (Xo, yo, go), (Xn, yn, gn) = _split(X, y, g, 2, 10)
    est = FederatedMultiTaskRegressor(random_state=seed).fit(Xo, yo, groups=go)
    return est, (Xo, yo, go), (Xn, yn, gn)


def _ridge(Z, y, prior, mu_k):
    k = len(y)
    A = Z.T @ Z / k + mu_k * np.eye(Z.shape[1])
    return np.linalg.solve(A, Z.T @ y / k + mu_k * prior)


def test_regressor_centres_are_ridge_solves_and_the_join_follows_them():
    """Nodes of 400 samples (the share selection runs three folds: its
    candidates 0.9, 0.99 and 0.5 lie above the learned share): every draw's
    ridge toward every centre at every scale, the rule on them, and
    newcomers of 10 samples solved toward their size's centre (its w0
    averaged over the folds) at the scale rehearsed for it."""
    est, (Xo, yo, go), (Xn, yn, gn) = _fit(0, 400)
    assert est.share_selection_["n_folds"] == 3
    reh = est._join_rehearsal
    b = est.shared_weight_
    shares = est.share_selection_["shares"]
    assert np.isnan(shares[0]) and est.share_selection_["selected"] != est.share_selection_[
        "selected"]  # the learned share was selected (NaN)
    # the centres: w0, then the candidates of a larger share (0.9, 0.99, 0.5)
    np.testing.assert_array_equal(reh.centre_shares[1:], [s for s in shares[1:] if s > b])
    assert len(reh.centres) == 4 and b < 0.5
    m, n = len(est.nodes_), len(Xo)
    lam = 1.0 / (est.C * n)
    mu = lam * m / (1.0 - b)
    w0 = np.append(est.shared_coef_, est.shared_intercept_)
    np.testing.assert_array_equal(reh.centres[0][0], w0)
    order = np.argsort(go, kind="stable")
    Z, t_of, Y = _design(Xo[order]), go[order], yo[order]
    counts = np.bincount(t_of)
    # the selection's last fold: about a fifth of every node's rows
    in_fold = np.concatenate([reh.fold[t] for t in sorted(reh.fold)])
    assert in_fold.dtype == bool and 0.15 < in_fold.mean() < 0.25
    assert not np.array_equal(reh.fold_w0, reh.centres[0])

    def errors_at(centre, k, owners, perms, fold_only):
        E = np.full((len(SCALES), len(owners)), np.nan)
        for j, (t, perm) in enumerate(zip(owners, perms)):
            Zt, yt = Z[t_of == t], Y[t_of == t]
            tr, held = perm[:k], perm[k:]
            if fold_only:
                held = held[reh.fold[t][held]]
            if not len(held):
                continue
            for i, s in enumerate(SCALES):
                w = centre[0] if s == 0 else _ridge(Zt[tr], yt[tr], centre[0],
                                                    mu / (k / (n / m) * s))
                E[i, j] = np.mean((Zt[held] @ w - yt[held]) ** 2)
        return E

    chosen, errors_ref = {}, []
    for k, owners, perms in rehearsal_draws(counts, 0):
        # the choice: on the fold's held-out rows, the selected candidate's
        # fold w0 against the other candidates
        clean = [errors_at(c, k, owners, perms, True)
                 for c in [reh.fold_w0] + reh.centres[1:]]
        scored = np.isfinite(clean[0][0])
        chosen[k] = _reference_choice([E[:, scored] for E in clean], owners[scored])
        # the scales: the chosen centre on all held-out rows (w0 for 0)
        errors_ref.append(errors_at(reh.centres[chosen[k]], k, owners, perms, False)
                          .mean(axis=1))
    fresh = copy.deepcopy(est)
    table = fresh._join_rehearsal.table()
    assert list(table["sizes"]) == list(REHEARSAL_SIZES)
    np.testing.assert_array_equal(table["centres"], [chosen[k] for k in REHEARSAL_SIZES])
    np.testing.assert_allclose(table["errors"], np.array(errors_ref), rtol=1e-5)
    assert chosen[10] != 0  # the join below is centred on a candidate

    coef, intercept, W = est.coef_.copy(), est.intercept_.copy(), est._W.copy()
    before = est.n_bytes_sent_
    est.add_nodes(Xn, yn, groups=gn)
    # the fitted nodes and the unseen node's model (w0) are bit-identical
    assert np.array_equal(est.coef_[:m], coef) and np.array_equal(est.intercept_[:m], intercept)
    assert np.array_equal(est._W[:, :m + 0], W[:, :m]) and np.array_equal(est._W[:, -1], W[:, -1])
    # the candidate's w0 of the last fold compared, its mean over the folds joined
    centre = reh.join_centres[chosen[10]][0]
    assert not np.array_equal(centre, reh.centres[chosen[10]][0])
    i = list(REHEARSAL_SIZES).index(10)
    row = table["errors"][i]
    found_se = table["standard_errors"][i]
    best = int(np.argmin(row))
    scale = SCALES[best] if row[best] - row[0] + found_se[best] < 0 else 1.0
    for j, node in enumerate(np.unique(gn)):
        rows = gn == node
        Zn, k = _design(Xn[rows]), rows.sum()
        w = centre if scale == 0 else _ridge(Zn, yn[rows], centre, mu / (k / (n / m) * scale))
        np.testing.assert_allclose(est.coef_[m + j], w[:-1], rtol=1e-6, atol=1e-8)
        np.testing.assert_allclose(est.intercept_[m + j], w[-1], rtol=1e-6, atol=1e-8)

    # bytes: each newcomer up 2 floats, down its centre and prior weight
    # (d' + 1 floats, as at w0); each node rehearsing size 10 a request (3
    # bits: the size; no one-class bit for a regressor) and a report of two
    # floats per kept draw, centre and scale (all held-out rows, the fold's;
    # one bit first)
    d = Xn.shape[1] + 1
    n_new = len(np.unique(gn))
    per_newcomer = 2 * 8 + HEADER + (d + 1) * 8 + HEADER
    _, owners, perms = [x for x in reh.draws if x[0] == 10][0]
    floats = np.bincount(owners, minlength=m) * 2 * len(reh.centres) * len(SCALES)
    asked = np.unique(owners)
    requests = len(asked) * (np.ceil(3 / 8) + HEADER)
    reports = (8 * floats[asked] + np.ceil(1 / 8) + HEADER).sum()
    expected = n_new * per_newcomer + requests + reports
    assert est.join_communication_.total_bytes == expected
    assert est.n_bytes_sent_ == before + expected


@pytest.mark.parametrize("seed", [0, 1])
def test_one_centre_is_the_former_join(seed, monkeypatch):
    """Without candidates above the fitted share the rehearsal has one
    centre and the join is the former one: models and bytes equal those of
    a join whose rehearsal is told nothing of the candidates."""
    import skfed.multitask._rehearsal as rehearsal_module

    est, _, (Xn, yn, gn) = _fit(seed)
    assert len(est._join_rehearsal.centres) > 1
    plain = copy.deepcopy(est)
    reh = plain._join_rehearsal
    reh.centres, reh.centre_shares = reh.centres[:1], reh.centre_shares[:1]
    # the same with the rule never moving: same models, more report bytes
    monkeypatch.setattr(rehearsal_module, "CENTRE_EVIDENCE", np.inf)
    never = copy.deepcopy(est)
    plain.add_nodes(Xn, yn, groups=gn)
    never.add_nodes(Xn, yn, groups=gn)
    np.testing.assert_array_equal(plain.coef_, never.coef_)
    np.testing.assert_array_equal(plain.intercept_, never.intercept_)
    assert never.join_communication_.total_bytes > plain.join_communication_.total_bytes


def test_classifier_centre_reports_are_counts_in_closed_form():
    """A classifier's nodes (samples of weight 1) report counts: per kept
    draw of size 10 the number of its held-out rows in the fold, then per
    centre and scale its misclassified held-out rows and those in the fold,
    each in ceil(log2(n_held + 1)) bits; the request names the size and the
    one-class bit (4 bits)."""
    from skfed.multitask import FederatedMultiTaskClassifier

    X, y, g = _tasks(n_per=200, seed=0)
    (Xo, yo, go), (Xn, yn, gn) = _split(X, y, g, 2, 10)
    est = FederatedMultiTaskClassifier(random_state=0).fit(Xo, yo, groups=go)
    reh = est._join_rehearsal
    n_centres = len(reh.centres)
    assert n_centres > 1
    m, d = len(est.nodes_), X.shape[1] + 1
    for node in np.unique(gn):
        assert len(np.unique(yn[gn == node])) == 2  # no one-class newcomer
    coef = est.coef_.copy()
    est.add_nodes(Xn, yn, groups=gn)
    assert np.array_equal(est.coef_[:m], coef)
    _, owners, perms = [x for x in reh.draws if x[0] == 10][0]
    bits = np.zeros(m, dtype=int)
    for t, perm in zip(owners, perms):
        n_held = len(perm) - 10
        bits[t] += (2 * n_centres * len(SCALES) + 1) * int(np.ceil(np.log2(n_held + 1)))
    asked = np.unique(owners)
    requests = len(asked) * (1 + HEADER)
    reports = (np.ceil((bits[asked] + 1) / 8) + HEADER).sum()
    per_newcomer = 2 * 8 + HEADER + (d + 1) * 8 + HEADER
    assert est.join_communication_.total_bytes == 2 * per_newcomer + requests + reports


def test_one_class_newcomer_is_centred_with_its_size():
    """A one-class newcomer of 20 samples whose size chose a candidate
    centre: its size's one-class draws are solved toward that centre, its
    model is the SciPy logistic solve toward it at the one-class rule's
    scale, and the request of the one-class draws names the centre
    (index_bits(n_centres) more bits)."""
    import math

    from skfed.multitask import FederatedMultiTaskClassifier
    from skfed.multitask._rehearsal import one_class_scale, size_scale

    from .test_multitask_join import _logistic_solve

    X, y, g = _tasks(n_per=200, seed=2)
    old = g < 6
    Xo, yo, go = X[old], y[old], g[old]
    est = FederatedMultiTaskClassifier(random_state=2).fit(Xo, yo, groups=go)
    m, n, k = len(est.nodes_), len(Xo), 20
    reh = copy.deepcopy(est._join_rehearsal)
    table = reh.table()
    i = list(table["sizes"]).index(k)
    a = reh.usable[i]
    c = int(table["centres"][i])
    assert c != 0 and len(reh.centres) == 4
    centre = reh.centres[c][0]
    # its one-class draws: solved toward the centre
    E = table["one_class_errors"][i]
    fresh = copy.deepcopy(est._join_rehearsal)  # (the rows of reh are freed)
    perms, kept, weights, _ = fresh._one_class_draws(a)
    idx = np.flatnonzero(kept)
    again = fresh._solve(k, reh.draws[a][1][idx], [perms[j] for j in idx],
                         np.ones(len(idx), dtype=bool), reh.seeds[a][idx],
                         np.asarray(reh.exact[a])[idx], [weights[j] for j in idx], w0=reh.centres[c])
    np.testing.assert_array_equal(E, again)
    base = size_scale(table["errors"][i], table["standard_errors"][i])
    scale = SCALES[one_class_scale(E, base, reh.one_class_owners[a])]

    rows = np.flatnonzero((g == 6) & (y == 0))[:k]
    coef, W = est.coef_.copy(), est._W.copy()
    before = est.n_bytes_sent_
    est.add_nodes(X[rows], y[rows], groups=g[rows])
    assert np.array_equal(est.coef_[:m], coef) and np.array_equal(est._W[:, -1], W[:, -1])
    lam = 1.0 / (est.C * n)
    mu = lam * m / (1.0 - est.shared_weight_)
    w = centre if scale == 0 else _logistic_solve(_design(X[rows]), y[rows], centre, 1.0,
                                                  mu / (k / (n / m) * scale))
    np.testing.assert_allclose(np.append(est.coef_[m], est.intercept_[m]), w,
                               rtol=1e-5, atol=1e-6)
    # bytes: the newcomer (up 2 floats, down d' + 1); per node rehearsing
    # size 20 a request of two items (4 bits each) and the one-class
    # centre's index (2 bits), a report: per kept ordinary draw 2 x 4
    # centres x 5 scales counts and its fold count, per kept one-class draw
    # its class, held-out counts per class and per scale its errors per class
    d = X.shape[1] + 1
    _, owners, ord_perms = reh.draws[a]
    held_counts = reh.one_class_kept[a][1]
    bits = np.zeros(m, int)
    for t, perm, keep in zip(owners, ord_perms, reh.kept[a]):
        bits[t] += keep * (2 * 4 * len(SCALES) + 1) * math.ceil(math.log2(len(perm) - k + 1))
    for j, t in enumerate(owners):
        if kept[j]:
            held = held_counts[j]
            bits[t] += 1 + 2 * math.ceil(math.log2(int(held.sum()) + 1)) + len(SCALES) * sum(
                math.ceil(math.log2(int(h) + 1)) for h in held)
    expected = 2 * 8 + HEADER + (d + 1) * 8 + HEADER
    for t in np.unique(owners):
        expected += math.ceil((2 * 4 + 2) / 8) + HEADER + math.ceil((bits[t] + 1) / 8) + HEADER
    assert est.join_communication_.total_bytes == expected
    assert est.n_bytes_sent_ == before + expected
