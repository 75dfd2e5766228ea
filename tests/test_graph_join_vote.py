"""Dada joins: the newcomers' ballots join the fit's feature vote (skfed._graph_join)."""

import copy

import numpy as np
import pytest

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._agreement import _count_votes
from skfed.boosting._dada import _node_sizes
from skfed.boosting._stumps import (
    _vote_size,
    feature_relevance,
    make_stumps,
    node_ballots,
)
from skfed.datasets import make_rotated_moons
from skfed.network import SimulatedNetwork, index_bits, payload_bytes


def _split(seed=0, k=20):
    """The rotated-moons split of benchmarks/new_nodes.py (seed 0: the 80
    fitted nodes' vote misses feature 1, which the refit selects)."""
    X, Xt, y, yt, g, gt, _, _ = make_rotated_moons(n_nodes=100, n_test_per_node=60,
                                                   random_state=seed)
    n_train = len(X)
    X, y, g = np.concatenate([X, Xt]), np.concatenate([y, yt]), np.concatenate([g, gt])
    rng = np.random.RandomState(seed)
    new = np.sort(rng.choice(np.unique(g), size=20, replace=False))
    fit_rows = np.intersect1d(np.flatnonzero(~np.isin(g, new)), np.arange(n_train))
    order = {node: rng.permutation(np.flatnonzero(g == node)) for node in new}
    train = np.concatenate([rows[:k] for rows in order.values()])
    test = np.concatenate([rows[k:] for rows in order.values()])
    return X, y, g, fit_rows, train, test


def _ballots(est, X, y, g, voters_min):
    """Every node's two ballots (node order), recomputed from its data."""
    nodes = np.unique(g)
    codes_node = np.searchsorted(nodes, g)
    order = np.argsort(codes_node, kind="stable")
    offsets = np.concatenate([[0], np.cumsum(np.bincount(codes_node))]).astype(np.intp)
    Xs = np.ascontiguousarray(X[order], dtype=np.float64)
    codes = np.searchsorted(est.classes_, y[order]).astype(np.intp)
    sw = np.ones(len(y))
    lo, hi = est.feature_range_
    varying = hi > lo
    q = _vote_size(int(varying.sum()))
    relevance = feature_relevance(Xs, codes, offsets, sw)
    voters = _node_sizes(Xs, sw, offsets) >= voters_min
    # (continuous features: no tie between positive relevances)
    return node_ballots(relevance, codes, offsets, varying, q, np.zeros(relevance.shape),
                        voters, sw), varying, q


@pytest.fixture(scope="module")
def moons():
    X, y, g, fit_rows, train, test = _split()
    est = DecentralizedBoostingClassifier(random_state=0).fit(X[fit_rows], y[fit_rows],
                                                               groups=g[fit_rows])
    return X, y, g, fit_rows, train, test, est


def test_join_vote_is_the_recount_of_all_ballots(moons):
    X, y, g, fit_rows, train, test, base = moons
    assert not base.selected_features_[1]  # the fit missed feature 1
    fit_ballots, varying, q = _ballots(base, X[fit_rows], y[fit_rows], g[fit_rows],
                                       base.vote_min_samples_)
    d = len(varying)
    # The reconstruction is the fit's vote.
    np.testing.assert_array_equal(
        np.vstack([fit_ballots[:, :d].sum(0), fit_ballots[:, d:2 * d].sum(0)]),
        base.feature_votes_)
    new_ballots, _, _ = _ballots(base, X[train], y[train], g[train], base.vote_min_samples_)
    selected, votes, threshold = _count_votes(np.vstack([fit_ballots, new_ballots]), varying, q)
    assert selected[1] and selected[0]

    est = copy.deepcopy(base).add_nodes(X[train], y[train], groups=g[train])
    np.testing.assert_array_equal(est.selected_features_, selected | base.selected_features_)
    np.testing.assert_array_equal(est.feature_votes_, votes)
    np.testing.assert_array_equal(est.vote_threshold_, threshold)
    both = np.vstack([fit_ballots, new_ballots])
    # The fit's tally (voters, testers, distinct samples) and the join's.
    n_fit_rows = len(np.unique(X[fit_rows], axis=0))
    assert tuple(int(t) for t in base._vote_tally) == (
        int(fit_ballots[:, :d].any(axis=1).sum()), int(fit_ballots[:, 2 * d].sum()), n_fit_rows)
    assert tuple(int(t) for t in est._vote_tally) == (
        int(both[:, :d].any(axis=1).sum()), int(both[:, 2 * d].sum()),
        n_fit_rows + len(np.unique(X[train], axis=0)))

    # The new feature's stumps are the fit's rule for the new selection.
    n_old_stumps = len(base.stump_features_)
    np.testing.assert_array_equal(est.stump_features_[:n_old_stumps], base.stump_features_)
    np.testing.assert_array_equal(est.stump_thresholds_[:n_old_stumps], base.stump_thresholds_)
    lo, hi = base.feature_range_
    f_all, t_all = make_stumps(lo, hi, base.n_estimators_, "range", features=est.selected_features_)
    added = ~base.selected_features_[f_all]
    np.testing.assert_array_equal(est.stump_features_[n_old_stumps:], f_all[added])
    np.testing.assert_allclose(est.stump_thresholds_[n_old_stumps:], t_all[added], rtol=1e-15)
    assert np.all(est.stump_features_[n_old_stumps:] == 1)
    assert len(est.stump_features_) - n_old_stumps == base.n_estimators_ // 2
    assert est.n_base_predictors_ == base.n_base_predictors_ + base.n_estimators_ // 2

    # The fitted nodes: their weights bit-identical, zero on the new stumps,
    # their predictions unchanged; the newcomers use the new feature.
    K = len(base.nodes_)
    np.testing.assert_array_equal(est.coef_[:K, :n_old_stumps], base.coef_)
    assert not est.coef_[:K, n_old_stumps:].any()
    np.testing.assert_array_equal(est.intercept_[:K], base.intercept_)
    old = np.flatnonzero(np.isin(g, base.nodes_))
    # (zeros added to a dot product: equal up to its rounding)
    np.testing.assert_allclose(est.decision_function(X[old], groups=g[old]),
                               base.decision_function(X[old], groups=g[old]), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.predict(X[old], groups=g[old]),
                                  base.predict(X[old], groups=g[old]))
    assert np.abs(est.coef_[K:, n_old_stumps:]).sum() > 0
    # And it pays: the newcomers score far better than without the vote.
    no_vote = copy.deepcopy(base)
    no_vote._vote_tally = None
    no_vote.add_nodes(X[train], y[train], groups=g[train])
    acc = np.mean(est.predict(X[test], groups=g[test]) == y[test])
    acc_without = np.mean(no_vote.predict(X[test], groups=g[test]) == y[test])
    assert acc > acc_without + 0.1


def test_join_vote_bytes_closed_form(moons):
    X, y, g, _, train, _, base = moons
    est = copy.deepcopy(base).add_nodes(X[train], y[train], groups=g[train])
    no_vote = copy.deepcopy(base)
    no_vote._vote_tally = None
    no_vote.add_nodes(X[train], y[train], groups=g[train])
    new_ballots, varying, _ = _ballots(base, X[train], y[train], g[train],
                                       base.vote_min_samples_)
    d = len(varying)
    header = SimulatedNetwork().header_bytes
    width = 2 * d + 1
    up = 0
    n_up = 0
    for row in new_ballots:
        m = int(row.sum())
        if m:
            up += header + min(payload_bytes(n_int32=2 + width),
                               payload_bytes(n_int32=2 + m, n_bits=m * index_bits(width)))
            n_up += 1
    n_new = len(np.unique(g[train]))
    n_sel = int(est.selected_features_.sum())
    down = n_new * (header + payload_bytes(n_bits=min(d, n_sel * index_bits(d))))
    log = est.join_communication_
    assert n_up == n_new  # every newcomer of 20 samples votes
    assert log.bytes_per_round[0] == up
    assert log.bytes_per_round[1] == down
    assert log.messages_per_round[0] == n_up and log.messages_per_round[1] == n_new
    assert up + down < 0.01 * log.total_bytes


def test_vote_that_adds_no_feature_leaves_the_join_unchanged(moons):
    """Newcomers of 5 samples (under the fit's median size) cast no ranking
    ballot and add no feature: the join's models are those without the vote."""
    X, y, g, _, _, _, base = moons
    _, _, _, _, train5, _ = _split(k=5)
    est = copy.deepcopy(base).add_nodes(X[train5], y[train5], groups=g[train5])
    no_vote = copy.deepcopy(base)
    no_vote._vote_tally = None
    no_vote.add_nodes(X[train5], y[train5], groups=g[train5])
    np.testing.assert_array_equal(est.selected_features_, base.selected_features_)
    np.testing.assert_array_equal(est.coef_, no_vote.coef_)
    np.testing.assert_array_equal(est.collaboration_graph_.toarray(),
                                  no_vote.collaboration_graph_.toarray())
    assert est._vote_tally[0] == base._vote_tally[0]  # no ranking ballot
    assert est._vote_tally[1] > base._vote_tally[1]  # significance ballots


@pytest.mark.parametrize("seed", range(3))
def test_distinct_sizes_equal_node_sizes(seed):
    from skfed._graph_join_vote import _distinct_sizes

    rng = np.random.RandomState(seed)
    counts = rng.randint(0, 12, size=7)
    offsets = np.concatenate([[0], np.cumsum(counts)]).astype(np.intp)
    Xs = rng.randint(0, 3, size=(offsets[-1], 3)).astype(np.float64)  # many duplicates
    Xs[::5, 0] = -0.0
    sw = rng.choice([0.0, 1.0, 2.0], size=offsets[-1])
    got = _distinct_sizes(Xs, sw, offsets)
    np.testing.assert_array_equal(got, _node_sizes(Xs, sw, offsets))
    assert got.sum() < (sw > 0).sum()  # duplicates were merged


def test_join_vote_with_a_graph_learned_once(moons):
    """graph_update_every=None: the kept graph models grow by the new stumps
    (before the intercept) and the fitted nodes' predictions do not move."""
    X, y, g, fit_rows, train, _, _ = moons
    base = DecentralizedBoostingClassifier(graph_update_every=None, random_state=0).fit(
        X[fit_rows], y[fit_rows], groups=g[fit_rows])
    if base.selected_features_[1]:
        pytest.skip("this fit's vote kept feature 1")
    est = copy.deepcopy(base).add_nodes(X[train], y[train], groups=g[train])
    n_add = len(est.stump_features_) - len(base.stump_features_)
    assert n_add > 0
    K = len(base.nodes_)
    kept = est._join_info["graph_models"]
    before = base._join_info["graph_models"]
    n_stumps = before.shape[-1] - 1
    np.testing.assert_array_equal(kept[:K, :, :n_stumps], before[:, :, :n_stumps])
    assert not kept[:K, :, n_stumps:n_stumps + n_add].any()
    np.testing.assert_array_equal(kept[:K, :, -1], before[:, :, -1])
    old = np.flatnonzero(np.isin(g, base.nodes_))
    # (zeros added to a dot product: equal up to its rounding)
    np.testing.assert_allclose(est.decision_function(X[old], groups=g[old]),
                               base.decision_function(X[old], groups=g[old]), rtol=0, atol=1e-12)
    np.testing.assert_array_equal(est.predict(X[old], groups=g[old]),
                                  base.predict(X[old], groups=g[old]))


def test_batched_peer_scores_equal_newcomer_by_newcomer():
    """Dada's newcomers score their peers' models in one batch per row solve;
    newcomer by newcomer (``_Newcomer.data_losses``) gives the same join."""
    import skfed._graph_join as gj

    X, Xt, y, yt, g, gt, _, _ = make_rotated_moons(n_nodes=24, n_test_per_node=30,
                                                   random_state=1)
    fit = g < 18
    est = DecentralizedBoostingClassifier(random_state=0, graph_update_every="n_nodes").fit(
        X[fit], y[fit], groups=g[fit])
    new = (gt >= 18) & (np.arange(len(gt)) % 30 < 20)  # 6 newcomers of 20 samples
    joined = copy.deepcopy(est).add_nodes(Xt[new], yt[new], groups=gt[new])
    reference = gj.graph_join_nodes(copy.deepcopy(est), Xt[new], yt[new], gt[new],
                                    one_by_one=True)
    K = len(est.nodes_)
    graph = joined.collaboration_graph_.toarray()
    assert np.count_nonzero(graph[K:, K:]) > 0  # the newcomers scored each other
    np.testing.assert_allclose(graph, reference.collaboration_graph_.toarray(),
                               rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(joined.coef_, reference.coef_, rtol=1e-10, atol=1e-13)


def test_join_vote_multiclass_and_a_second_join():
    """Three classes: newcomers whose labels follow a feature the fit did not
    select add it (their models use it), the fitted nodes' weights stay
    bit-identical, and a second join adds its ballots to the first's tally."""
    rng = np.random.RandomState(0)

    def nodes(ids, n, informative):
        X = rng.normal(size=(len(ids) * n, 12))
        return X, np.digitize(X[:, informative], [-0.5, 0.5]), np.repeat(ids, n)

    X, y, g = nodes(np.arange(30), 8, 0)
    base = DecentralizedBoostingClassifier(random_state=0, n_estimators=60).fit(X, y, groups=g)
    assert np.flatnonzero(base.selected_features_).tolist() == [0]
    Xn, yn, gn = nodes(np.arange(30, 45), 20, 5)
    est = copy.deepcopy(base).add_nodes(Xn, yn, groups=gn)
    assert est.selected_features_[5] and est.coef_.shape == (45, 3, 90)
    np.testing.assert_array_equal(est.coef_[:30, :, :60], base.coef_)
    assert not est.coef_[:30, :, 60:].any() and est.coef_[30:, :, 60:].any()
    np.testing.assert_array_equal(est.predict(X, groups=g), base.predict(X, groups=g))
    Xt, yt, gt = nodes(np.arange(30, 45), 20, 5)
    no_vote = copy.deepcopy(base)
    no_vote._vote_tally = None
    no_vote.add_nodes(Xn, yn, groups=gn)
    assert (np.mean(est.predict(Xt, groups=gt) == yt)
            > np.mean(no_vote.predict(Xt, groups=gt) == yt) + 0.3)
    tally = tuple(int(t) for t in est._vote_tally)
    Xm, ym, gm = nodes(np.array([99]), 40, 5)
    est.add_nodes(Xm, ym, groups=gm)
    assert est.coef_.shape == (46, 3, 90)  # feature 5 already has its stumps
    assert tuple(int(t) for t in est._vote_tally) == (tally[0] + 1, tally[1] + 1,
                                                      tally[2] + 40)


def test_auto_join_gives_every_newly_selected_feature_its_stumps():
    # A fit whose vote kept a few of 250 features ("auto": 200 stumps), then a
    # recount that selects all of them (the fit's significance counts raised to
    # every tester, so that the join's rule selects every varying feature).
    # The join must give the new features the stumps "auto" gives the grown
    # selection, max(200, 2 * 250) = 500, two per feature: the fit's resolved
    # 200 spread over 250 features left the last 50 without a stump.
    rng = np.random.RandomState(0)
    n_nodes, n_per, d = 12, 30, 250
    X = rng.normal(size=(n_nodes * n_per, d))
    y = (X[:, 0] + 0.5 * X[:, 1] > 0).astype(int)
    g = np.repeat(np.arange(n_nodes), n_per)
    fit = g < 9
    base = DecentralizedBoostingClassifier(random_state=0).fit(X[fit], y[fit], groups=g[fit])
    assert base.n_estimators_ == 200 and base.selected_features_.sum() < 100
    est = copy.deepcopy(base)
    votes = np.array(est.feature_votes_, dtype=np.int64)
    votes[1] = int(est._vote_tally[1])  # every fitted tester found every feature significant
    est.feature_votes_ = votes
    lo, hi = base.feature_range_
    est.add_nodes(X[~fit], y[~fit], groups=g[~fit])
    assert est.selected_features_.all()
    n_old = len(base.stump_features_)
    np.testing.assert_array_equal(est.stump_features_[:n_old], base.stump_features_)
    f_all, t_all = make_stumps(lo, hi, 2 * d, "range", features=est.selected_features_)
    added = ~base.selected_features_[f_all]
    np.testing.assert_array_equal(est.stump_features_[n_old:], f_all[added])
    np.testing.assert_allclose(est.stump_thresholds_[n_old:], t_all[added], rtol=1e-15)
    # Every selected feature has stumps: the fit's (200 over a few) or two.
    counts = np.bincount(est.stump_features_, minlength=d)
    assert np.all(counts[~base.selected_features_] == 2)
    assert np.all(counts[base.selected_features_] == 200 // base.selected_features_.sum())
    assert est.n_estimators_ == 200  # the fit's resolved count is kept
    # The fitted nodes' weights are zero on the new stumps.
    assert not est.coef_[:len(base.nodes_), n_old:].any()
