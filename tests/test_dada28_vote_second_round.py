"""The conditional second round of Dada's feature vote (skfed.boosting._dada_vote,
``feature_selection="conditional_vote"``).

References: the t statistic of the feature's coefficient in each node's own
least-squares fit of its labels on an intercept, the selected features and
the feature (explicit ``(A'A)^-1`` standard error, not the partial
correlation the module computes), the ranking count's threshold from the
binomial tail directly, and the round's bytes in closed form over the
aggregation tree (binary heap of a complete topology); at the fit, the
round's counts against the same OLS reference, the fit with no feature
admitted bit-identical to ``feature_selection="vote"`` but for the round's
bytes, and the admission rate of noise features against the level.  The
nodes send their ranking ballots only (dada33: the significance ballot,
which admitted nothing, is no longer cast nor sent).
"""

import copy
import math

import numpy as np
import pytest
from scipy.stats import binom

from skfed.boosting import DecentralizedBoostingClassifier, _dada_vote as dv
from skfed.boosting._agreement import _aggregation_tree
from skfed.network import index_bits, payload_bytes

from ._helpers.mpi import launch, needs_mpi, saved_cases


def _nodes(rng, n_nodes, n, d, conditional=True):
    """Labels y = 1[x1 > 0] at half the nodes and 1[x0 + x1 > 0] at the
    others; features 2.. are noise, feature 0 is informative marginally."""
    X, y, g = [], [], []
    for k in range(n_nodes):
        x = rng.normal(size=(n, d))
        if conditional:
            lab = (x[:, 0] + (x[:, 1] if k % 2 else 0.0) + 0.3 * x[:, 1] > 0)
        else:
            lab = x[:, 0] > 0
        X.append(x)
        y.append(lab.astype(int))
        g.append(np.full(n, k))
    X, y = np.vstack(X), np.concatenate(y)
    offsets = np.arange(n_nodes + 1) * n
    return X, y, offsets


def _t_reference(Xk, yk, S, j):
    """|t| of x_j's coefficient in the OLS of y on (1, x_S, x_j), and its dof."""
    A = np.column_stack([np.ones(len(yk)), Xk[:, S], Xk[:, j]])
    coef, *_ = np.linalg.lstsq(A, yk.astype(float), rcond=None)
    resid = yk - A @ coef
    dof = len(yk) - A.shape[1]
    sigma2 = resid @ resid / dof
    cov = sigma2 * np.linalg.inv(A.T @ A)
    return abs(coef[-1]) / math.sqrt(cov[-1, -1]), dof


def test_partial_relevance_matches_the_ols_t_statistic():
    rng = np.random.default_rng(0)
    X, y, offsets = _nodes(rng, 6, 12, 5)
    selected = np.array([True, False, False, False, False])
    candidates = ~selected
    r2, dof, takes_part = dv.partial_relevance(X, y, offsets, selected, candidates)
    assert takes_part.all() and np.all(dof == 12 - 1 - 2)
    assert np.all(r2[:, 0] == 0) and np.all((r2 >= 0) & (r2 <= 1))
    for k in range(6):
        a, b = offsets[k], offsets[k + 1]
        for j in range(1, 5):
            t_ref, dof_ref = _t_reference(X[a:b], y[a:b], [0], j)
            t = math.sqrt(r2[k, j] * dof[k] / (1 - r2[k, j]))
            assert dof_ref == dof[k]
            assert t == pytest.approx(t_ref, rel=1e-8)


def test_one_class_and_tiny_nodes_do_not_take_part():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(9, 3))
    y = np.array([0, 1, 0, 1, 1, 1, 1, 0, 1])
    offsets = np.array([0, 3, 6, 9])  # node 1 one class; node 0: 3 - 1 - 2 = 0 dof
    selected = np.array([True, False, False])
    r2, dof, takes_part = dv.partial_relevance(X, y, offsets, selected, ~selected)
    assert takes_part.tolist() == [False, False, False]
    assert np.all(r2[:2] == 0)


def test_ballots_against_reference_and_thresholds():
    rng = np.random.default_rng(2)
    n_nodes, n, d = 30, 14, 8
    X, y, offsets = _nodes(rng, n_nodes, n, d)
    selected = np.zeros(d, dtype=bool)
    selected[0] = True
    candidates = ~selected
    tie = rng.random((n_nodes, d))
    voters = np.arange(n_nodes) % 3 != 0
    ballots, q = dv.conditional_ballots(X, y, offsets, selected, candidates, tie, voters)
    assert q == math.ceil(math.sqrt(d - 1))
    # only the ranking ballot is cast (dada33: no significance ballot)
    assert ballots.shape == (n_nodes, d)
    for k in range(n_nodes):
        a, b = offsets[k], offsets[k + 1]
        ts = {j: _t_reference(X[a:b], y[a:b], [0], j) for j in range(1, d)}
        best = sorted(range(1, d), key=lambda j: (-ts[j][0], tie[k, j]))[:q]
        assert set(np.flatnonzero(ballots[k])) == (set(best) if voters[k] else set())
    added, counts, threshold, spent = dv.second_round(X, y, offsets, np.ones(d, bool),
                                                       selected, tie, voters)
    n_voters = int(voters.sum())
    assert n_voters == int(ballots.any(1).sum()) == 20
    level = 0.025 / (d - 1)  # half the first round's 0.05
    p = q / (d - 1)
    first = min(v for v in range(n_voters + 2) if binom.sf(v - 1, n_voters, p) <= level)
    assert threshold == first
    assert counts.tolist() == ballots.sum(0).tolist()
    assert counts.sum() == q * n_voters
    assert added.tolist() == (candidates & (counts >= first)).tolist()
    assert added[1] and not added[2:].any()  # the conditional feature, no noise
    assert spent == 0  # no simulation: nothing sent


def test_noise_only_adds_nothing():
    rng = np.random.default_rng(3)
    X, y, offsets = _nodes(rng, 40, 10, 12, conditional=False)
    selected = np.zeros(12, dtype=bool)
    selected[0] = True
    tie = rng.random((40, 12))
    added, counts, threshold, _ = dv.second_round(X, y, offsets, np.ones(12, bool), selected,
                                                  tie, np.ones(40, bool))
    assert not added.any()
    assert counts.max() < threshold
    # Nothing selected, or nothing left: no round.
    assert dv.second_round(X, y, offsets, np.ones(12, bool), np.zeros(12, bool), tie,
                           np.ones(40, bool))[1] is None


def _heap_bytes(ballots, added, d, header=10):
    """The round's bytes on the binary heap: each node's subtree's non-zero
    counts up (int32 each with an index, or all counts), the added features
    down (bits or indices), a header each way."""
    n_nodes = ballots.shape[0]
    width = d  # the ranking counts only
    total = 0
    for k in range(1, n_nodes):
        sub, grow = {k}, [k]
        while grow:
            c = grow.pop()
            kids = [i for i in (2 * c + 1, 2 * c + 2) if i < n_nodes]
            sub.update(kids)
            grow += kids
        nnz = int(ballots[sorted(sub)].any(axis=0).sum())
        up = min(4 * (2 + width), 4 * (2 + nnz) + math.ceil(nnz * index_bits(width) / 8))
        down = math.ceil(min(d, int(added.sum()) * index_bits(d)) / 8)
        total += up + down + 2 * header
    return total


class _Counter:
    header_bytes = 10

    def __init__(self):
        self.sent = []

    def send_message(self, a, b, n):
        self.sent.append((a, b, n))


class _Complete:
    is_complete = True

    def __init__(self, n):
        self.n_nodes = n
        self.counter = _Counter()


def test_bytes_closed_form_on_the_heap():
    rng = np.random.default_rng(4)
    n_nodes, d = 9, 6
    X, y, offsets = _nodes(rng, n_nodes, 12, d)
    selected = np.zeros(d, dtype=bool)
    selected[0] = True
    tie = rng.random((n_nodes, d))
    sim = _Complete(n_nodes)
    added, _, _, spent = dv.second_round(X, y, offsets, np.ones(d, bool), selected, tie,
                                         np.ones(n_nodes, bool), sim)
    ballots, _ = dv.conditional_ballots(X, y, offsets, selected, ~selected, tie,
                                        np.ones(n_nodes, bool))
    parent, _ = _aggregation_tree(sim)
    assert parent.tolist() == [-1] + [(i - 1) // 2 for i in range(1, n_nodes)]
    assert spent == _heap_bytes(ballots, added, d)
    assert len(sim.counter.sent) == 2 * (n_nodes - 1)
    assert payload_bytes(n_int32=2 + d) == 4 * (2 + d)


def _weak_second_feature(seed, c, n_nodes=40, n=12, d=12):
    """y = 1[x0 + c x1 > 0] at every node, features 2.. noise: with c = 0.3
    feature 1 is weak marginally, clear once x0 is accounted for."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_nodes * n, d))
    return X, (X[:, 0] + c * X[:, 1] > 0).astype(int), np.repeat(np.arange(n_nodes), n)


def _reference_counts(X, y, g, selected):
    """The second round's ranking counts from each node's OLS t statistics:
    its ``ceil(sqrt(n_candidates))`` largest |t| (all nodes vote: equal sizes)."""
    cand = np.flatnonzero(~selected)
    q = math.ceil(math.sqrt(cand.size))
    ranked = np.zeros(X.shape[1], int)
    for k in np.unique(g):
        rows = g == k
        ts = {j: _t_reference(X[rows], y[rows], np.flatnonzero(selected), j) for j in cand}
        for j in sorted(cand, key=lambda j: -ts[j][0])[:q]:
            ranked[j] += 1
    return ranked


def test_fit_adds_the_conditional_feature_with_the_reference_counts():
    X, y, g = _weak_second_feature(0, 0.3)
    common = dict(n_estimators=40, max_iter=30, random_state=0)
    first = DecentralizedBoostingClassifier(**common).fit(X, y, groups=g)
    both = DecentralizedBoostingClassifier(feature_selection="conditional_vote",
                                           **common).fit(X, y, groups=g)
    assert np.flatnonzero(first.selected_features_).tolist() == [0]
    assert first.conditional_features_ is None and first.conditional_votes_ is None
    # The first round is the same; the second adds feature 1 only.
    np.testing.assert_array_equal(both.feature_votes_, first.feature_votes_)
    np.testing.assert_array_equal(both.vote_threshold_, first.vote_threshold_)
    assert np.flatnonzero(both.conditional_features_).tolist() == [1]
    assert np.flatnonzero(both.selected_features_).tolist() == [0, 1]
    counts, threshold = both.conditional_votes_
    ranked = _reference_counts(X, y, g, first.selected_features_)
    assert counts.tolist() == ranked.tolist()
    n_voters, n_cand = 40, 11
    p = math.ceil(math.sqrt(n_cand)) / n_cand
    level = 0.025 / n_cand
    assert threshold == min(v for v in range(n_voters + 2)
                            if binom.sf(v - 1, n_voters, p) <= level)
    assert counts[1] >= threshold > counts[2:].max()
    # Stumps now split feature 1 too, as many as feature 0.
    assert np.bincount(both.stump_features_).tolist() == [20, 20]


def test_no_feature_admitted_is_the_vote_fit_to_the_bit_plus_the_rounds_bytes():
    X, y, g = _weak_second_feature(0, 0.5)  # the first round selects 0 and 1
    common = dict(n_estimators=40, max_iter=30, random_state=0)
    first = DecentralizedBoostingClassifier(**common).fit(X, y, groups=g)
    both = DecentralizedBoostingClassifier(feature_selection="conditional_vote",
                                           **common).fit(X, y, groups=g)
    selected = first.selected_features_
    assert np.flatnonzero(selected).tolist() == [0, 1]
    assert both.conditional_votes_ is not None and not both.conditional_features_.any()
    np.testing.assert_array_equal(both.coef_, first.coef_)
    np.testing.assert_array_equal(both.stump_features_, first.stump_features_)
    np.testing.assert_array_equal(both.collaboration_graph_.toarray(),
                                  first.collaboration_graph_.toarray())
    # The bytes differ by the round's, in closed form from the reference ballots.
    d = X.shape[1]
    ballots = np.zeros((40, d), dtype=bool)
    cand = np.flatnonzero(~selected)
    q = math.ceil(math.sqrt(cand.size))
    for k in range(40):
        rows = g == k
        ts = {j: _t_reference(X[rows], y[rows], np.flatnonzero(selected), j) for j in cand}
        ballots[k, sorted(cand, key=lambda j: -ts[j][0])[:q]] = True
    extra = _heap_bytes(ballots, np.zeros(d, bool), d, header=16)
    assert both.n_bytes_sent_ - first.n_bytes_sent_ == extra > 0


def test_noise_admission_rate_is_within_the_level():
    """Noise-only candidates given the selected feature: over 200 draws the
    round admits one in at most 2.5 % + 3 standard errors of them (the
    binomial thresholds are conservative)."""
    rng = np.random.default_rng(5)
    n_nodes, n, d = 30, 14, 8
    admitted = 0
    for _ in range(200):
        X, y, offsets = _nodes(rng, n_nodes, n, d, conditional=False)
        selected = np.zeros(d, dtype=bool)
        selected[0] = True
        added = dv.second_round(X, y, offsets, np.ones(d, bool), selected,
                                rng.random((n_nodes, d)), np.ones(n_nodes, bool))[0]
        admitted += bool(added.any())
    assert admitted / 200 <= 0.025 + 3 * math.sqrt(0.025 * 0.975 / 200)


@needs_mpi
def test_mpi_engine_holds_the_second_round_as_the_simulation(tmp_path):
    """On 2 ranks the round adds the same feature, with the same counts and
    bytes, and the fit equals the simulated one to the bit."""
    from sklearn.base import clone

    X, y, g = _weak_second_feature(0, 0.3)
    est = DecentralizedBoostingClassifier(feature_selection="conditional_vote",
                                          n_estimators=40, max_iter=30, random_state=0,
                                          join_neighbours="graph")  # (MPI: no gate)
    sim = clone(est).fit(X, y, groups=g)
    assert np.flatnonzero(sim.conditional_features_).tolist() == [1]
    cases = saved_cases([("conditional_vote", est, X, y, g, None)], tmp_path / "data")
    run = launch(2, cases, tmp_path / "run")["conditional_vote"]
    np.testing.assert_array_equal(run.selected_features_, sim.selected_features_)
    np.testing.assert_array_equal(run.conditional_features_, sim.conditional_features_)
    for got, want in zip(run.conditional_votes_, sim.conditional_votes_):
        np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(run.stump_features_, sim.stump_features_)
    np.testing.assert_array_equal(run.coef_, sim.coef_)
    assert run.n_bytes_sent_ == sim.n_bytes_sent_


def test_sample_weight_counts_as_repeated_rows():
    """Weight 2 is the row twice, weight 0 the row dropped (as the first
    round's feature_relevance): same r2 and degrees of freedom."""
    rng = np.random.default_rng(6)
    X, y, offsets = _nodes(rng, 4, 15, 5)
    w = rng.integers(0, 3, size=X.shape[0]).astype(float)
    selected = np.array([True, False, False, False, False])
    r2, dof, part = dv.partial_relevance(X, y, offsets, selected, ~selected, w)
    rep = np.repeat(np.arange(X.shape[0]), w.astype(int))
    node = np.repeat(np.arange(4), 15)[rep]
    r2_ref, dof_ref, part_ref = dv.partial_relevance(
        X[rep], y[rep], np.r_[0, np.cumsum(np.bincount(node, minlength=4))], selected,
        ~selected)
    np.testing.assert_allclose(r2, r2_ref, rtol=1e-10, atol=1e-14)
    assert dof.tolist() == dof_ref.tolist() and part.tolist() == part_ref.tolist()


def test_join_recounts_the_first_round_and_keeps_the_rounds_feature():
    """Rotated moons seed 0 (new_nodes.py's split): the first round misses
    feature 1, the second adds it; add_nodes recounts the first round with
    the newcomers' ballots (the counts of feature_selection="vote"'s join)
    and keeps the fit's selection and stumps, so it adds none."""
    from .test_graph_join_vote import _split

    X, y, g, fit_rows, train, test = _split()
    vote = DecentralizedBoostingClassifier(random_state=0).fit(
        X[fit_rows], y[fit_rows], groups=g[fit_rows])
    cond = DecentralizedBoostingClassifier(random_state=0, feature_selection="conditional_vote"
                                           ).fit(X[fit_rows], y[fit_rows], groups=g[fit_rows])
    assert np.flatnonzero(vote.selected_features_).tolist() == [0]
    assert np.flatnonzero(cond.conditional_features_).tolist() == [1]
    np.testing.assert_array_equal(cond.feature_votes_, vote.feature_votes_)
    joined_vote = copy.deepcopy(vote).add_nodes(X[train], y[train], groups=g[train])
    joined = copy.deepcopy(cond).add_nodes(X[train], y[train], groups=g[train])
    np.testing.assert_array_equal(joined.feature_votes_, joined_vote.feature_votes_)
    np.testing.assert_array_equal(joined.selected_features_, cond.selected_features_)
    np.testing.assert_array_equal(joined.stump_features_, cond.stump_features_)
    assert np.mean(joined.predict(X[test], groups=g[test]) == y[test]) > 0.7


def test_multiclass_nodes_with_three_classes_abstain():
    """Class codes of three classes at a node are no binary response: the
    node abstains; a node holding two of the three classes takes part."""
    rng = np.random.default_rng(7)
    X = rng.normal(size=(60, 4))
    y = np.r_[np.arange(30) % 3, np.where(X[30:, 0] > 0, 2, 0)]
    selected = np.array([True, False, False, False])
    r2, dof, part = dv.partial_relevance(X, y, np.array([0, 30, 60]), selected, ~selected)
    assert part.tolist() == [False, True] and dof[1] == 30 - 2 - 1
    assert not r2[0].any()
    t_ref, _ = _t_reference(X[30:], (y[30:] == 2).astype(int), [0], 1)
    assert math.sqrt(r2[1, 1] * dof[1] / (1 - r2[1, 1])) == pytest.approx(t_ref, rel=1e-8)
    g = np.repeat([0, 1], 30)
    est = DecentralizedBoostingClassifier(feature_selection="conditional_vote", n_estimators=8,
                                          max_iter=5, random_state=0).fit(X, y, groups=g)
    assert est.conditional_features_.dtype == bool and est.conditional_features_.shape == (4,)
