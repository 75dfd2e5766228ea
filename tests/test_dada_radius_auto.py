"""Dada's ``beta="auto"``: the l1 radius chosen on held-back rows.

References: the held-back draw and the z rule in NumPy, the two candidate
fits redone by hand on the kept rows and scored per node, the final model
equal to a fit at the chosen radius, the bytes in closed form (the three
fits' logs plus one convergecast / broadcast over the aggregation tree),
joins that leave the fitted nodes bit-identical and give the newcomers
what a join on the numeric fit gives them.
"""

import numpy as np
import pytest
from sklearn.datasets import make_moons

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._dada_radius import (
    RADII,
    Z_CHOOSE,
    _public_seed,
    held_back_rows,
    radius_decision,
)
from skfed.network import SimulatedNetwork
from skfed.privacy import DifferentialPrivacy

HEADER = 16


def _moons(K=6, n=60):
    X, y = make_moons(K * n, noise=0.25, random_state=0)
    return X, y, np.repeat(np.arange(K), n)


def _additive(K=6, n=300, d=8):
    """Labels ``sign(sum_j x_j)``: a margin spread over every feature, which
    the radius 3 caps (the larger radius wins on held-back rows, z ~ 6)."""
    rng = np.random.RandomState(0)
    X = rng.normal(size=(K * n, d))
    return X, (X.sum(axis=1) > 0).astype(int), np.repeat(np.arange(K), n)


CASES = {
    "moons": (_moons, {}, 3.0),
    "additive": (_additive, dict(feature_selection=None, n_estimators=160), 10.0),
}


def test_held_back_rows_counts():
    sws = np.array([1.0] * 3 + [1.0] * 8 + [1, 0, 1, 1, 0, 1] + [2.0] * 13)
    offsets = np.array([0, 3, 11, 17, 30])
    held = held_back_rows(offsets, sws, np.random.default_rng(0))
    per_node = np.add.reduceat(held.astype(int), offsets[:-1])
    # 3 rows: none; 8: 2; 4 positive of 6: 1; 13: 3
    assert per_node.tolist() == [0, 2, 1, 3]
    assert not held[sws == 0].any()
    again = held_back_rows(offsets, sws, np.random.default_rng(0))
    assert np.array_equal(held, again)


@pytest.mark.parametrize("seed", range(5))
def test_radius_decision_matches_numpy(seed):
    rng = np.random.RandomState(seed)
    d = rng.normal(0.02 * seed, 0.05, size=7 + seed)
    larger, gain, se, z = radius_decision(d.sum(), np.sum(d ** 2), d.size)
    ref_se = d.std(ddof=1) / np.sqrt(d.size)
    assert gain == pytest.approx(d.mean(), abs=1e-15)
    assert se == pytest.approx(ref_se, rel=1e-10)
    assert z == pytest.approx(d.mean() / ref_se, rel=1e-10)
    assert larger == bool(d.mean() > Z_CHOOSE * ref_se)


def test_radius_decision_edges():
    # exactly at the threshold: not chosen (strict); just above: chosen
    d = np.array([0.25, 0.75])  # mean 0.5, se 0.25 (exact in binary)
    assert radius_decision(d.sum(), np.sum(d ** 2), 2)[1:3] == (0.5, 0.25)
    assert not radius_decision(d.sum(), np.sum(d ** 2), 2)[0]
    d = np.array([0.3, 0.75])  # mean 0.525, se 0.225
    assert radius_decision(d.sum(), np.sum(d ** 2), 2)[0]
    assert not radius_decision(0.5, 0.25, 1)[0]  # one holding node: no test
    assert not radius_decision(0.0, 0.0, 5)[0]  # every node alike: keep 3
    assert radius_decision(0.5, 0.05, 5)[0]  # every node gains 0.1: se 0, chosen


@pytest.mark.parametrize("topology", ["complete", "ring"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_selection_equals_reference(case, topology):
    make, params, expected = CASES[case]
    params = dict(params, network=SimulatedNetwork(topology=topology))
    X, y, g = make()
    K = np.unique(g).size
    est = DecentralizedBoostingClassifier(beta="auto", random_state=0, **params)
    est.fit(X, y, groups=g)
    # reference: the same public draw, both candidates fitted on the kept rows
    offsets = np.r_[0, np.cumsum(np.bincount(g))]
    held = held_back_rows(offsets, np.ones(len(y)),
                          np.random.default_rng([_public_seed(0), 0xDADA]))
    acc, logs, msgs = [], [], []
    for beta in RADII:
        cand = DecentralizedBoostingClassifier(beta=beta, mu=3.0 * 3.0 / beta,
                                               random_state=0, **params)
        cand.fit(X[~held], y[~held], groups=g[~held])
        logs.append(cand.n_bytes_sent_)
        msgs.append(cand.n_messages_)
        pred = cand.predict(X[held], groups=g[held])
        acc.append(np.array([np.mean(pred[g[held] == k] == y[held][g[held] == k])
                             for k in range(K)]))
    d = acc[1] - acc[0]
    se = d.std(ddof=1) / np.sqrt(K)
    sel = est.radius_selection_
    assert sel["n_nodes"] == K and sel["n_held_back"] == int(held.sum())
    assert sel["gain"] == pytest.approx(d.mean(), abs=1e-12)
    assert sel["se"] == pytest.approx(se, rel=1e-9)
    chosen = RADII[int(d.mean() > Z_CHOOSE * se)]
    assert est.beta_ == chosen
    if topology == "complete":  # (both branches of the choice are taken)
        assert chosen == expected
    assert est.mu_ == pytest.approx(9.0 / chosen)
    # the final model is a fit on every row at the chosen radius
    ref = DecentralizedBoostingClassifier(beta=chosen, mu=9.0 / chosen, random_state=0,
                                          **params).fit(X, y, groups=g)
    assert np.array_equal(est.coef_, ref.coef_)
    assert np.array_equal(est.intercept_, ref.intercept_)
    assert ref.beta_ == chosen and ref.radius_selection_ is None
    # bytes: both candidates, the tree (K - 1 messages up of 2 float64 and an
    # int32, K - 1 down of a float64, headers of 16 bytes; a spanning tree of
    # the topology has K - 1 edges whatever it is), the final fit
    tree = (K - 1) * (2 * 8 + 4 + 8 + 2 * HEADER)
    assert est.n_bytes_sent_ == sum(logs) + tree + ref.n_bytes_sent_
    assert est.communication_.total_bytes == est.n_bytes_sent_
    assert est.n_messages_ == est.communication_.total_messages
    assert est.n_messages_ == sum(msgs) + 2 * (K - 1) + ref.n_messages_


@pytest.mark.parametrize("case", sorted(CASES))
def test_join_after_auto(case):
    make, params, _ = CASES[case]
    X, y, g = make()
    new = np.isin(g, [4, 5])
    est = DecentralizedBoostingClassifier(beta="auto", random_state=0, **params)
    est.fit(X[~new], y[~new], groups=g[~new])
    coef, inter = est.coef_.copy(), est.intercept_.copy()
    graph = est.collaboration_graph_.toarray()
    ref = DecentralizedBoostingClassifier(beta=est.beta_, mu=est.mu_, random_state=0,
                                          **params).fit(X[~new], y[~new], groups=g[~new])
    est.add_nodes(X[new], y[new], groups=g[new])
    ref.add_nodes(X[new], y[new], groups=g[new])
    # old nodes bit-identical; the newcomers get the numeric fit's join
    assert np.array_equal(est.coef_[:4], coef) and np.array_equal(est.intercept_[:4], inter)
    assert np.array_equal(est.collaboration_graph_.toarray()[:4, :4], graph)
    assert np.array_equal(est.coef_, ref.coef_)
    assert est.join_communication_.total_bytes == ref.join_communication_.total_bytes
    assert est.beta == "auto" and est.mu == 3.0  # the parameters are the user's again
    assert est.predict(X[new], groups=g[new]).shape == (int(new.sum()),)


def test_set_params_after_auto_is_refused_at_join():
    X, y, g = _moons()
    new = g == 5
    est = DecentralizedBoostingClassifier(beta="auto", random_state=0)
    est.fit(X[~new], y[~new], groups=g[~new])
    est.set_params(beta=est.beta_)
    with pytest.raises(ValueError, match="beta"):
        est.add_nodes(X[new], y[new], groups=g[new])
    # a refit at a numeric radius forgets the choice
    est.fit(X[~new], y[~new], groups=g[~new])
    assert est.radius_selection_ is None and not hasattr(est, "_radius_join_params")
    est.add_nodes(X[new], y[new], groups=g[new])


def test_refusals():
    X, y, g = _moons()
    with pytest.raises(ValueError, match="communication_budget"):
        DecentralizedBoostingClassifier(beta="auto", communication_budget=10**6).fit(
            X, y, groups=g)
    with pytest.raises(ValueError, match="privacy"):
        DecentralizedBoostingClassifier(beta="auto",
                                        privacy=DifferentialPrivacy(epsilon=1.0)).fit(
            X, y, groups=g)
    with pytest.raises(ValueError, match="beta"):
        DecentralizedBoostingClassifier(beta="large").fit(X, y, groups=g)


def test_small_nodes_hold_nothing_back():
    """Nodes of 3 rows hold nothing back: no test, the radius stays 3."""
    X, y, g = _moons(K=10, n=3)
    est = DecentralizedBoostingClassifier(beta="auto", random_state=0).fit(X, y, groups=g)
    assert est.beta_ == 3.0
    assert est.radius_selection_["n_nodes"] == 0
    assert est.radius_selection_["n_held_back"] == 0


def test_refit_drops_an_earlier_fits_attributes():
    """An ``auto`` refit after a join holds no join log nor join seed of the
    earlier fit, and keeps attributes scikit-learn sets (``_``-prefixed,
    not the fit's)."""
    X, y, g = _moons()
    new = g == 5
    est = DecentralizedBoostingClassifier(beta="auto", random_state=0)
    est.fit(X[~new], y[~new], groups=g[~new]).add_nodes(X[new], y[new], groups=g[new])
    assert hasattr(est, "join_communication_")
    est._framework_marker = "kept"
    est.fit(X[~new], y[~new], groups=g[~new])
    assert not hasattr(est, "join_communication_") and not hasattr(est, "_join_seed")
    assert est._framework_marker == "kept"
    assert est.nodes_.tolist() == [0, 1, 2, 3, 4]


def test_mpi_engine_refuses_auto():
    pytest.importorskip("mpi4py")
    from mpi4py import MPI

    from skfed.engines import mpi

    X, y, g = _moons(K=3, n=20)
    with pytest.raises(ValueError, match='beta="auto"'):
        mpi.fit(DecentralizedBoostingClassifier(beta="auto"),
                lambda label: (X[g == label], y[g == label]), nodes=np.unique(g),
                comm=MPI.COMM_WORLD)


def test_warns_once_like_a_fit_at_a_fixed_radius():
    from skfed import SingleNodeWarning

    X, y, _ = _moons(K=2, n=50)
    with pytest.warns(SingleNodeWarning) as record:
        DecentralizedBoostingClassifier(beta="auto", random_state=0).fit(X, y)
    assert sum(issubclass(w.category, SingleNodeWarning) for w in record) == 1
