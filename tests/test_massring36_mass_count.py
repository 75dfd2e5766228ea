"""massring36: the node-mass exchange in bytes linear in the nodes.

review36 (``tests/test_review36_mass_exchange_ring.py``) measured the
gather of every mass at the root quadratic on a ring (``8 sum_j depth_j``
bytes, ``K^2 / 4`` depths).  ``skfed._node_mass`` now gathers only while
the aggregation tree's depths average at most ``GATHER_DEPTH[kind]`` and
otherwise runs the count protocol (fixed-size messages per tree edge, a
pivot search for the two middle masses when the cap may bind).  These
tests check the values against NumPy (``agreed_max_mass`` and
``node_scale``, liars and NaN reports included), the bytes against closed
forms (ring, path, complete heap, random graph; liars on and off), the
ranks' counts against the whole, and a fit on a ring against the same fit
with no exchange counted.
"""

import itertools

import numpy as np
import pytest
from scipy import sparse
from scipy.sparse.csgraph import breadth_first_order
from sklearn.base import clone

from skfed import DecentralizedBoostingClassifier as DadaClassifier
from skfed import PersonalizedLinearClassifier, SimulatedNetwork
from skfed import _node_mass as node_mass
from skfed._node_mass import (
    GATHER_DEPTH,
    SUMMARY_FLOATS,
    _keys,
    _middle_pair,
    _pivots,
    agree_on_masses,
    agreed_max_mass,
    count_protocol,
    node_scale,
    protocol_of,
)

from ._helpers.mpi import launch, needs_mpi, saved_cases

H = 16  # header bytes
# count protocol payloads: first trip up (int32 + 3 float64), a pivot round's
# down (3 float64 + 2 bits) and up (4 x (int32 + 2 float64))
FIRST_UP, PIVOT_DOWN, BUCKETS_UP = 28, 25, 80


def _masses(K, seed=0, liars=0.0):
    rng = np.random.default_rng(seed)
    m = rng.integers(50, 400, K).astype(np.float64)
    lying = rng.random(K) < liars
    m[lying] = 1e6 * m.max()
    return m


def _depths(sim):
    """Breadth-first depths from node 0 (the heap's on a complete topology)."""
    K = sim.n_nodes
    if sim.is_complete:
        return np.floor(np.log2(np.arange(K) + 1)).astype(np.int64)
    order, pred = breadth_first_order(sim.adjacency, 0, directed=False,
                                      return_predecessors=True)
    depth = np.zeros(K, dtype=np.int64)
    for k in order[1:]:
        depth[k] = depth[pred[k]] + 1
    return depth


def _n_search_rounds(valid):
    """Rounds of the pivot search, recounted here: the two middle ranks'
    bucket narrows until each is its bucket's first or last (or one value)."""
    keys = np.sort(_keys(valid)).astype(object)
    n = len(keys)
    targets = {(n - 1) // 2, n // 2}
    lo, hi, rounds, known = keys[0], keys[-1], 0, set()
    while known != targets and lo != hi:
        rounds += 1
        inside = sum(lo <= k <= hi for k in keys)
        below = sum(k < lo for k in keys)
        pivots = _pivots(int(lo), int(hi), inside, min(targets - known) - below)
        bounds = [lo] + pivots + [hi + 1]
        for a, b in itertools.pairwise(bounds):
            ranks = [r for r in range(n) if a <= keys[r] < b and lo <= keys[r] <= hi]
            if not ranks:
                continue
            known |= {r for r in targets if r in (ranks[0], ranks[-1])}
            if any(ranks[0] < r < ranks[-1] for r in targets - known):
                lo, hi = keys[ranks[0]], keys[ranks[-1]]
                break
    return rounds


def _expected(sim, kind, mass):
    """The exchange's bytes in closed form (module docstring)."""
    K, s = sim.n_nodes, SUMMARY_FLOATS[kind]
    depth = _depths(sim)
    if depth.sum() <= GATHER_DEPTH[kind] * (K - 1):
        return (K - 1) * (2 * H + 8 * s) + 8 * int(depth.sum())
    valid = mass[~np.isnan(mass)]
    n = valid.size
    trips = [FIRST_UP + H + H]
    search = kind == "persolin"
    if kind == "dada":
        trips[0] += 8
        trips.append(4 + H + H)
        search = np.count_nonzero(valid >= valid.max() / 4) < n - (n - 1) // 2
    if search:
        trips += [BUCKETS_UP + 2 * H] * _n_search_rounds(valid)
    per_edge = sum(trips) + 8 * s + PIVOT_DOWN * (len(trips) - (2 if kind == "dada" else 1))
    return (K - 1) * per_edge


@pytest.mark.parametrize("kind", ["dada", "persolin"])
@pytest.mark.parametrize("topology", ["ring", "path", "complete", "random"])
@pytest.mark.parametrize("K", [2, 9, 40, 130])
@pytest.mark.parametrize("liars", [0.0, 0.2])
def test_bytes_closed_form(kind, topology, K, liars):
    named = {"random": "random_regular", "path": _path}
    sim = SimulatedNetwork(topology=named.get(topology, topology), random_state=0).start(K)
    mass = _masses(K, seed=K, liars=liars)
    spent = agree_on_masses(sim, kind, mass)
    assert spent == _expected(sim, kind, mass) == sim.log().total_bytes
    assert protocol_of(sim, kind) == (
        "gather" if _depths(sim).sum() <= GATHER_DEPTH[kind] * (K - 1) else "count")
    assert sim.log().total_messages == 2 * (K - 1) * len(
        count_protocol(mass, kind)[1] if protocol_of(sim, kind) == "count" else [0])


def _path(n, random_state):
    """A path 0 - 1 - ... - (n - 1): node 0 (the tree's root) at its end."""
    return sparse.diags([np.ones(n - 1), np.ones(n - 1)], [-1, 1], format="csr")


@pytest.mark.parametrize("kind", ["dada", "persolin"])
@pytest.mark.parametrize("liars", [0.0, 0.1])
def test_ring_mass_exchange_is_linear_in_the_nodes(kind, liars):
    # review36's xfail, with the fit's masses (and liars): 4x the nodes, ~4x the bytes
    # (the pivot search's rounds depend on the reports; at most 64: 64-bit
    # keys, at most half the range kept per round)
    worst = FIRST_UP + 8 + 4 + 4 * H + 64 * (BUCKETS_UP + PIVOT_DOWN + 2 * H) + 8 * 4
    small, large = (agree_on_masses(SimulatedNetwork(topology="ring").start(K), kind,
                                    _masses(K, liars=liars)) for K in (400, 1600))
    assert small <= worst * 399 and large <= worst * 1599
    if not liars:
        assert large <= 4.5 * small, (small, large)
    # main gathered every mass: 8 sum_j depth_j = 8 K^2 / 4 bytes over its fixed part
    main = 1599 * (2 * H + 8 * SUMMARY_FLOATS[kind]) + 8 * 1600 ** 2 // 4
    assert large < (0.3 if liars else 0.25) * main


def test_complete_topology_keeps_the_gather_below_its_threshold():
    # the default topology's bytes (and every doc byte count) are main's
    for kind in ("dada", "persolin"):
        for K in (2, 23, 200, 1000):
            sim = SimulatedNetwork().start(K)
            depth = np.floor(np.log2(np.arange(K) + 1)).sum()
            assert agree_on_masses(sim, kind, _masses(K)) == (
                (K - 1) * (2 * H + 8 * SUMMARY_FLOATS[kind]) + 8 * int(depth))


def _reports(rng, K, case):
    if case == "integers":
        return rng.integers(50, 400, K).astype(np.float64)
    if case == "lognormal":
        return rng.lognormal(0.0, 2.0, K)
    if case == "ties":
        return rng.choice([1.0, 2.0, 3.0], K)
    m = rng.integers(50, 400, K).astype(np.float64)
    m[rng.random(K) < 0.3] = 1e9 if case == "liars" else np.nan
    if case == "nan-negative":  # any report a rogue may send
        m[rng.random(K) < 0.2] = -rng.random()
        m[rng.random(K) < 0.1] = np.inf
    return m


@pytest.mark.parametrize("case", ["integers", "lognormal", "ties", "liars", "nan-negative"])
def test_count_protocol_values_are_numpys_to_the_bit(case):
    rng = np.random.default_rng(36)
    n_search = 0
    for _ in range(150):
        K = int(rng.integers(1, 70))
        mass = _reports(rng, K, case)
        if np.isnan(mass).all():
            continue
        for kind in ("dada", "persolin"):
            summary, trips = count_protocol(mass, kind)
            assert summary["max_mass"] == agreed_max_mass(mass)
            n_search += len(trips) > (2 if kind == "dada" else 1)
            conf, M = node_scale(mass)
            conf = conf[~np.isnan(conf)]
            if kind == "persolin" and 0 < M < np.inf:
                assert summary["median_confidence"] == np.median(conf)
                assert summary["min_confidence"] == np.min(conf)
            assert summary["mean_mass"] == pytest.approx(np.nanmean(mass), rel=1e-12)
    assert n_search > 0


def test_middle_pair_against_a_sort():
    rng = np.random.default_rng(5)
    for _ in range(300):
        x = rng.lognormal(0, 3, int(rng.integers(1, 200)))
        x[rng.random(x.size) < 0.3] = x[0]
        lo, hi, rounds = _middle_pair(_keys(x))
        s = np.sort(_keys(x))
        assert (lo, hi) == (int(s[(x.size - 1) // 2]), int(s[x.size // 2]))
        assert rounds == _n_search_rounds(x) <= 64


def test_dada_honest_cap_check_skips_the_search_and_liars_force_it():
    honest = _masses(300)
    assert len(count_protocol(honest, "dada")[1]) == 2
    lied = _masses(300, liars=0.1)
    summary, trips = count_protocol(lied, "dada")
    assert len(trips) > 2
    assert summary["max_mass"] == 4.0 * np.median(lied) < lied.max()


def test_even_count_with_the_middle_pair_straddling_a_quarter_of_the_max():
    # 4 reports: middle pair (1, 7) with max 16: 1 < 16 / 4 <= 7, the count
    # cannot decide, the search finds median 4 = max / 4: M = 16 exactly
    mass = np.array([0.5, 1.0, 7.0, 16.0])
    summary, trips = count_protocol(mass, "dada")
    assert len(trips) > 2 and summary["max_mass"] == agreed_max_mass(mass) == 16.0
    mass = np.array([0.5, 1.0, 6.0, 16.0])     # median 3.5: M = 14
    assert count_protocol(mass, "dada")[0]["max_mass"] == agreed_max_mass(mass) == 14.0


@pytest.mark.parametrize("kind", ["dada", "persolin"])
def test_ranks_count_their_own_nodes_and_add_up(kind):
    K = 150
    mass = _masses(K, liars=0.1)
    whole = SimulatedNetwork(topology="ring").start(K)
    total = agree_on_masses(whole, kind, mass)
    assert protocol_of(whole, kind) == "count" or kind == "persolin"
    parts = [SimulatedNetwork(topology="ring").start(K) for _ in range(3)]
    for part, own in zip(parts, np.array_split(np.arange(K), 3)):
        assert agree_on_masses(part, kind, mass, nodes=own) == total
    np.testing.assert_array_equal(sum(p.log().bytes_sent for p in parts),
                                  whole.log().bytes_sent)


def test_bad_mass_shape_is_refused():
    with pytest.raises(ValueError, match="mass has shape"):
        agree_on_masses(SimulatedNetwork().start(5), "dada", np.ones(4))


@pytest.mark.parametrize("cls", [DadaClassifier, PersonalizedLinearClassifier])
def test_ring_fit_models_unchanged_and_bytes_are_the_exchange(cls, monkeypatch):
    rng = np.random.default_rng(0)
    K = 40
    groups = np.repeat(np.arange(K), 6)
    X = rng.normal(size=(groups.size, 3))
    y = (X[:, 0] + 0.3 * rng.normal(size=groups.size) > 0).astype(int)
    kw = {"network": SimulatedNetwork(topology="ring"), "random_state": 0}
    if cls is DadaClassifier:
        kw["n_estimators"] = 10
    est = cls(**kw).fit(X, y, groups=groups)
    from skfed.boosting import _base
    monkeypatch.setattr(_base, "agree_on_masses", lambda *a, **k: 0)
    ref = cls(**kw).fit(X, y, groups=groups)
    np.testing.assert_array_equal(est.decision_function(X, groups=groups),
                                  ref.decision_function(X, groups=groups))
    mass = np.full(K, 6.0)
    kind = node_mass.mass_kind(est)
    spent = est.n_bytes_sent_ - ref.n_bytes_sent_
    sim = SimulatedNetwork(topology="ring").start(K)
    assert spent == agree_on_masses(sim, kind, mass) == _expected(sim, kind, mass)


@needs_mpi
def test_mpi_ranks_count_the_same_exchange_on_deep_rings(tmp_path):
    # Dada on a 40-node ring and Perso-lin on a 200-node ring take the count
    # protocol; two ranks count it as the simulation (bytes, messages, models)
    from sklearn.datasets import make_moons

    cases, simulated = [], {}
    for name, cls, K, kw in [
        ("dada", DadaClassifier, 40, {"n_estimators": 8}),
        ("persolin", PersonalizedLinearClassifier, 200, {}),
    ]:
        X, y = make_moons(4 * K, noise=0.3, random_state=K)
        groups = np.repeat(np.arange(K), 4)
        est = cls(network=SimulatedNetwork(topology="ring"), random_state=0, max_iter=4 * K,
                  join_neighbours="graph", **kw)
        assert protocol_of(SimulatedNetwork(topology="ring").start(K),
                           node_mass.mass_kind(est)) == "count"
        simulated[name] = clone(est).fit(X, y, groups=groups)
        cases.append((name, est, X, y, groups, None))
    results = launch(2, saved_cases(cases, tmp_path), tmp_path / "run")
    for name, _, X, _, groups, _ in cases:
        sim, run = simulated[name], results[name]
        assert (run.n_bytes_sent_, run.n_messages_) == (sim.n_bytes_sent_, sim.n_messages_)
        np.testing.assert_array_equal(run.decision_function(X, groups=groups),
                                      sim.decision_function(X, groups=groups))
