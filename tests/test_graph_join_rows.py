"""The newcomers' rows solved together (skfed._graph_join_rows), against NumPy
and SciPy."""

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed._graph_join_rows import joint_rows, pair_terms, sweep_messages
from skfed.network import NetworkSimulation, SimulatedNetwork

MU_G, LAM, DELTA = 0.7, 1.3, 1e-3


def _problem(seed, n_old=12, n_new=4, one_way=True):
    """Newcomers with random fitted candidates and peers; newcomer 0 draws
    newcomer 3 but not the other way (``one_way``): a weight one row holds."""
    rng = np.random.RandomState(seed)
    D = 3
    old_models, new_models = rng.normal(size=(n_old, D)), rng.normal(size=(n_new, D))
    l_old, l_new = rng.uniform(0.1, 0.5, n_old), rng.uniform(0.1, 0.5, n_new)
    d_fitted = rng.uniform(0.0, 1.0, n_old)
    entries = []
    for n in range(n_new):
        cands = np.sort(rng.choice(n_old, size=8, replace=False))
        peers = [j for j in range(n_new) if j != n and not (one_way and n == 3 and j == 0)]
        entries.append((cands, np.array(peers, dtype=np.intp)))
    indptr = np.concatenate([[0], np.cumsum([len(c) + len(p) for c, p in entries])])
    target = np.concatenate([np.concatenate([c, n_old + p]) for c, p in entries])
    src = np.concatenate([old_models, new_models])[target]
    src_l = np.concatenate([l_old, l_new])[target]
    a, pair = pair_terms(new_models, l_new, src, np.einsum("ij,ij->i", src, src), src_l,
                         indptr.astype(np.intp), 1.0)
    v0 = rng.uniform(0.0, 0.3, len(a)) * (rng.uniform(size=len(a)) < 0.5)
    return dict(a=a, pair=pair, target=target.astype(np.intp), indptr=indptr.astype(np.intp),
                v0=v0, d_fitted=d_fitted, n_old=n_old, n_new=n_new)


def _row_numpy(a, d, d0):
    """A row's minimizer: each weight from the quadratic of its stationarity
    condition given D (numpy.roots), D by bisection."""

    def weights(D):
        out = np.zeros(len(a))
        u = 1.0 / (D + DELTA)
        for r in range(len(a)):
            c, e = a[r] / MU_G - u, d[r] + DELTA
            if c * e < 1.0:
                out[r] = max(np.roots([2 * LAM, c + 2 * LAM * e, c * e - 1.0]).real)
        return out

    lo, hi = d0, d0 + weights(d0).sum()
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if d0 + weights(mid).sum() > mid else (lo, mid)
    return weights(hi)


def _variables(p):
    """One variable per fitted entry and per pair of newcomers."""
    n_old = p["n_old"]
    owner = np.repeat(np.arange(p["n_new"]), np.diff(p["indptr"]))
    names = [(n_old + o, t) if t < n_old else tuple(sorted((n_old + o, t)))
             for o, t in zip(owner, p["target"])]
    names = [("fitted", e) if t < n_old else names[e] for e, t in enumerate(p["target"])]
    keys = sorted(set(names), key=str)
    return owner, names, {k: i for i, k in enumerate(keys)}


def _sweeps_numpy(p, sweeps):
    """Block coordinate descent written out: newcomer by newcomer, its row
    solved with every other weight at its current value."""
    n_old, n_new = p["n_old"], p["n_new"]
    owner, names, index = _variables(p)
    var = np.array([index[k] for k in names])
    ends = {}
    for e, k in enumerate(names):
        ends[index[k]] = (n_old + owner[e], p["target"][e])
    w = np.zeros(len(index))
    for i in range(len(index)):
        w[i] = p["v0"][var == i].mean()
    for _ in range(sweeps):
        for n in range(n_new):
            rows = np.flatnonzero(owner == n)
            mine = set(var[rows].tolist())

            def degree(node, skip):
                base = p["d_fitted"][node] if node < n_old else 0.0
                return base + sum(w[i] for i, (x, y) in ends.items()
                                  if node in (x, y) and i not in skip)

            d = np.array([degree(p["target"][e], {var[e]}) for e in rows])
            d0 = degree(n_old + n, mine)
            w[var[rows]] = _row_numpy(p["a"][rows], d, d0)
    return w[var]


@pytest.mark.parametrize("seed", [0, 3, 5])  # (with positive weights of both kinds)
def test_one_sweep_equals_numpy_block_coordinate_descent(seed):
    p = _problem(seed)
    for sweeps in (1, 2):
        v, n_owners, changed = joint_rows(
            p["a"], p["pair"], p["target"], p["indptr"], p["v0"], p["d_fitted"],
            mu_graph=MU_G, lam=LAM, delta=DELTA, cap=None, threshold=None, sweeps=sweeps)
        np.testing.assert_allclose(v, _sweeps_numpy(p, sweeps), rtol=1e-8, atol=1e-12)
        assert changed.shape == (sweeps, len(v))
    # newcomer 0 draws newcomer 3, not the other way: one entry holds it
    owner = np.repeat(np.arange(p["n_new"]), np.diff(p["indptr"]))
    one = (owner == 0) & (p["target"] == p["n_old"] + 3)
    assert n_owners[one].tolist() == [1]
    both = (owner == 0) & (p["target"] == p["n_old"] + 1)
    assert n_owners[both].tolist() == [2]
    assert n_owners[p["target"] < p["n_old"]].max() == 1
    # the weight between two newcomers is the same in both entries
    n_old, linked = p["n_old"], 0
    for e in np.flatnonzero(n_owners == 2):
        back = (owner == p["target"][e] - n_old) & (p["target"] == n_old + owner[e])
        assert v[back][0] == v[e]
        linked += v[e] > 0
    assert linked > 0 and v[one][0] >= 0


def _objective(p, w, var, ends):
    """Eq. 5 over the newcomers' weights, the fitted ones fixed (their
    degrees and the terms of the fitted pairs are constants)."""
    n_old, n_new = p["n_old"], p["n_new"]
    coef = np.zeros(len(w))
    np.add.at(coef, var, 0.0)
    for e, i in enumerate(var):
        coef[i] = p["a"][e]  # the entries of one pair hold one coefficient here
    deg = np.concatenate([p["d_fitted"], np.zeros(n_new)])
    np.add.at(deg, ends[:, 0], w)
    np.add.at(deg, ends[:, 1], w)
    return coef @ w + MU_G * (LAM * w @ w - np.sum(np.log(deg + DELTA)))


def test_sweeps_converge_to_the_minimizer_of_the_graph_objective():
    """With a symmetric coefficient for every pair of newcomers (no peer
    scores), enough sweeps reach the minimizer of eq. 5 over all the
    newcomers' weights (L-BFGS-B on the objective)."""
    p = _problem(5, one_way=False)
    owner, names, index = _variables(p)
    var = np.array([index[k] for k in names])
    # the two entries of a pair computed the same coefficient up to rounding
    for i in range(len(index)):
        assert np.ptp(p["a"][var == i]) < 1e-12
    ends = np.zeros((len(index), 2), dtype=np.intp)
    for e, k in enumerate(names):
        ends[index[k]] = (p["n_old"] + owner[e], p["target"][e])
    v, _, changed = joint_rows(p["a"], p["pair"], p["target"], p["indptr"], p["v0"],
                               p["d_fitted"], mu_graph=MU_G, lam=LAM, delta=DELTA, cap=None,
                               threshold=None, sweeps=300)
    w = np.zeros(len(index))
    w[var] = v
    res = minimize(lambda x: _objective(p, x, var, ends), np.full(len(w), 0.1),
                   method="L-BFGS-B", bounds=[(0, None)] * len(w),
                   options={"ftol": 1e-15, "gtol": 1e-12, "maxiter": 20000})
    assert _objective(p, w, var, ends) <= res.fun + 1e-9
    np.testing.assert_allclose(w, res.x, atol=2e-4)
    # the first sweeps moved weights, the last ones no more
    assert changed[0].any() and (w > 0).sum() >= 3


def test_cap_and_threshold():
    p = _problem(1)
    kw = dict(mu_graph=MU_G, lam=LAM, delta=DELTA)
    free, _, _ = joint_rows(p["a"], p["pair"], p["target"], p["indptr"], p["v0"],
                            p["d_fitted"], cap=None, threshold=None, **kw)
    capped, _, _ = joint_rows(p["a"], p["pair"], p["target"], p["indptr"], p["v0"],
                              p["d_fitted"], cap=2, threshold=None, **kw)
    counts = np.add.reduceat(free > 0, p["indptr"][:-1])
    assert counts.max() > 2
    owner = np.repeat(np.arange(p["n_new"]), np.diff(p["indptr"]))
    # a row holds at most the cap of its own weights, plus weights toward it
    # that another row set (a row caps what it solves)
    own = np.add.reduceat(capped > 0, p["indptr"][:-1])
    assert own.max() <= 2 + p["n_new"] - 1
    t = float(np.median(free[free > 0]))
    cut, _, _ = joint_rows(p["a"], p["pair"], p["target"], p["indptr"], p["v0"],
                           p["d_fitted"], cap=None, threshold=t, **kw)
    np.testing.assert_array_equal(cut[cut > 0], free[cut > 0])
    for n in range(p["n_new"]):
        row, kept = free[owner == n], cut[owner == n]
        fitted = p["target"][owner == n] < p["n_old"]
        # a fitted weight is kept iff it reaches min(t, the row's largest)
        np.testing.assert_array_equal((kept > 0)[fitted],
                                      (row >= min(t, row.max()))[fitted] & (row > 0)[fitted])
        assert (kept > 0).any()


def test_sweep_messages_closed_form():
    p = _problem(2)
    _, _, changed = joint_rows(p["a"], p["pair"], p["target"], p["indptr"], p["v0"],
                               p["d_fitted"], mu_graph=MU_G, lam=LAM, delta=DELTA, cap=None,
                               threshold=None, sweeps=3)
    sim = NetworkSimulation(SimulatedNetwork(), p["n_old"] + p["n_new"], server=False, seed=0)
    sweep_messages(sim.counter, p["n_old"], p["indptr"], p["target"], changed)
    log = sim.log()
    header, E = SimulatedNetwork().header_bytes, len(p["a"])
    assert log.total_bytes == 3 * E * (header + 8 + header) + changed.sum() * (8 + header)
    assert log.total_messages == 3 * 2 * E + changed.sum()
    np.testing.assert_array_equal(log.messages_per_round, 2 * E + changed.sum(axis=1))
