"""A share limit along the pooled scatter's top direction (scatter34): not adopted.

rogue34 (``benchmarks/rogue34_scatter_placement.py``) found the attack the
size limit of :mod:`skfed._mean_scatter` does not bound: rank-one rogue
scatters just under the limit along the top direction of the fitted node
means' spread (Dada's one-class newcomers on Landmine cut to 10 rows: -7.1
points with 10 % rogues on seeds 0-2, -27.8 on seeds 3-5).  This script
carries the alternative scatter34 measured (:func:`direction_outliers`,
applied after the library's size limit by patching
``skfed._mean_scatter.pool_scatters`` for the run; the library is
unchanged):

* whiten every received scatter by the pool of the nodes still kept
  (``P^-1/2 S_i P^-1/2``), then by the coordinate-wise median of those
  (floored at ``FLOOR``; the raw coordinate-wise median is dominated on
  Landmine by a direction the median node barely spans: honest sizes
  2,000-49,000, so the raw-median version bounded nothing);
* along the top eigenvector ``v`` of the sum of the whitened scatters, a
  node's share is ``v^T A_i v``; a node over ``median * min(WIDEST,
  max(4, exp(k s)))`` of the shares (``s`` the normalized MAD of their
  logs) is left out, and the check repeats on the rest (``--passes 1``: once).

The idea: along one fixed direction an honest share is one chi-square-like
draw, not the largest of ``d`` as the size ``r_i`` is, so the limit could
be tighter where a rank-one rogue puts all its weight.

Commands (one BLAS thread, nice, shared machine; 2026-11-29)::

    # honest nodes left out, Landmine (new_nodes.py's split) cut to m rows
    OPENBLAS_NUM_THREADS=1 python benchmarks/scatter34_direction.py --honest-landmine \\
        --seeds 0,1,2,3,4,5 --spreads 2,2.5,3 [--passes 1]
    # honest nodes left out, new_nodes_maha_small_nodes.py's families
    OPENBLAS_NUM_THREADS=1 python benchmarks/scatter34_direction.py --honest \\
        --seeds 0,1,2 --spreads 1.5,2,2.5,3
    # rogue34's placement benchmark with the check (k = 2 here), then
    # rogue34_scatter_placement.py --summarize on the output
    OPENBLAS_NUM_THREADS=1 python benchmarks/scatter34_direction.py --spreads 2 \\
        --placement landmine:10,landmine-d3:10,landmine:5 --methods dada,persolin \\
        --seeds 0,1,2 > s02.txt      # and --seeds 3,4,5 > s35.txt
    # a fixed share limit that keeps every honest node
    OPENBLAS_NUM_THREADS=1 python benchmarks/scatter34_direction.py --spreads 0 \\
        --share-cap 128 --passes 1 --placement landmine:10,landmine-d3:10 --methods dada \\
        --seeds 0,1,2                # and 3,4,5; --honest-landmine for the counts
    # share ratios along the pool's top direction, honest and attacked
    OPENBLAS_NUM_THREADS=1 python benchmarks/scatter34_direction.py --ratios --seeds 0,1,2,3,4,5

Results
-------

Honest nodes left out of 23 (``--honest-landmine``; the size limit alone
leaves out none on every row, and none on full Landmine with the check)::

    cut  seed   iterated k=2 / 2.5 / 3    one pass k=2 / 2.5 / 3
    20   0-5    4 7 3 5 0 0 / 0 4 0 4 0 0 / 0 0 0 3 0 0    2 4 3 3 0 0 / 0 2 0 3 0 0 / 0 0 0 3 0 0
    10   0-5    5 9 0 4 8 7 / 5 4 0 3 6 2 / 5 3 0 0 5 0    4 4 0 3 4 4 / 4 4 0 3 4 2 / 3 3 0 0 4 0
    5    0-5    1 0 0 5 4 2 / 0 0 0 3 4 0 / 0 0 0 1 0 0    1 0 0 3 4 2 / 0 0 0 3 2 0 / 0 0 0 1 0 0

So honest Landmine nodes of 5-20 rows have shares along the pool's top
direction 9-83 times the median (``--ratios``; rare features that vary inside a few
nodes), where the attack puts its rogues.  ``--honest`` (the 240 synthetic
and 14 real families of ``new_nodes_maha_small_nodes.py``, seeds 0-2;
honest nodes left out in total, School's in brackets; its round is off by
default): size limit alone 32 [32]; with the check, iterated, k = 1.5:
6,369, k = 2: 541 [293], k = 2.5: 323, k = 3: 284 [274]; the fixed
128 x median share, one pass: 278 [272] (5 of 30 nodes where 2-row nodes
sit among 20-row ones, d = 9).  Full Landmine, moons, related-* uncut at k >= 2:
unchanged by every variant but related-small (1 node at k <= 2.5).

What it buys against the attack (``--placement``, k = 2, iterated; rogue34's
table with the check applied: attack minus honest newcomers' accuracy,
mean over seeds and k = 5, 10 [worst row]; ``top`` = the strongest rank-one
scatter along the top direction of the means' spread the hub keeps under
the widened size limit + the check; rogue34's numbers without the check in
the last column; the honest accuracy itself moves where the check leaves
honest nodes out, e.g. Dada Landmine:10 seed 0, k = 5: 89.30 -> 89.61)::

    family          method   q    seeds   with the check       without (rogue34)
    landmine:10     dada     10%  0-2     +1.16 [ +0.28]        -7.08 [-17.81]
    landmine:10     dada     20%  0-2     +1.15 [ +0.28]        -0.81 [ -6.34]
    landmine-d3:10  dada     10%  0-2     -2.72 [ -5.71]        -5.41 [-11.54]
    landmine-d3:10  dada     20%  0-2     -3.94 [-11.73]        -3.87 [-11.54]
    landmine:10     dada     10%  3-5     -2.86 [ -5.71]       -27.82 [-29.70]
    landmine:10     dada     20%  3-5     +0.07 [ -0.26]       -29.05 [-32.17]
    landmine-d3:10  dada     20%  3-5    -15.61 [-20.14]       -19.41 [-24.50]
    landmine:10     persolin 10%  3-5     -0.46 [ -0.59]        -0.54 [ -0.79]
    landmine:5      dada/persolin 0-5     -0.39 .. +0.60        -0.39 .. +0.67

(Dada's gate is shut on 1 of seeds 0-2 and 2 of seeds 3-5 there.)  With
k = 2.5 or 3 the Landmine:10 seed 3 rows stay at -29.7 / -25.9 (10 %) and
-23.0 / -13.0, -23.0 / -19.7 (20 %).  The k = 2 choice looked at seeds 0,
2 and 3 (seed 3 is in the confirmation block: it alone told k = 2 from
2.5).

``--ratios`` says why no per-node limit works: along the pool's top
direction honest Landmine nodes reach 8.9-83 times the median share alone
(cut to 5-20 rows, seeds 0-5; 50.1 at 10 rows seed 3, 83.0 at 5 rows seed
3), the library's strongest attack puts its rogues at 52-27,722 times,
and a fixed share limit that keeps every honest node (128 times the median,
one pass: ``--spreads 0 --share-cap 128 --passes 1``; no honest Landmine
node left out at any cut 2-20 or uncut, seeds 0-5) leaves the loss where it
was (Dada Landmine:10 seed 3: -29.7 / -25.9 with 10 %, seed 2: -12.1 /
-11.7; landmine-d3:10 seed 5, 20 %: -24.5 / -14.3): a handful of rogues at
a share honest nodes also reach already moves the newcomers' neighbours.

Reading: on Landmine cut to 10 rows nothing separates the attack from
honest pools along the top direction: a limit tight enough to cut the loss
from -30 to -6 leaves out 3-9 honest nodes of 23 (the pool is no longer the
plain sum), one loose enough to keep them all leaves the loss as it was,
and at d = 3 (landmine-d3:10, 20 % rogue) even the tight one costs -15.6.
Not adopted; the attack stays a strict xfail
(``tests/test_scatter34_top_attack.py``).  What might: a bound on the
newcomers' side (the placement's distance along the means' top
directions), not on the pool.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from skfed import _mean_scatter as ms  # noqa: E402

LIBRARY_POOL = ms.pool_scatters
SPREAD = 2.0
PASSES = None          # None: repeat until no node is left out
SHARE_CAP = 4.0        # the limit is at least SHARE_CAP x the median share


def share_limit(shares, spread, cap=None):
    """``median * min(WIDEST, max(cap, exp(spread * s)))``, ``s`` the
    normalized MAD of the log shares."""
    cap = SHARE_CAP if cap is None else cap
    logs = np.log(np.maximum(shares, np.finfo(np.float64).tiny))
    s = 1.4826 * np.median(np.abs(logs - np.median(logs)))
    return float(np.median(shares) * min(ms.WIDEST, max(cap, np.exp(spread * s))))


def direction_outliers(tri, d, live, spread=None, passes=None):
    """The ``live`` nodes the share limit along the pool's top direction
    leaves out (see the module)."""
    spread = SPREAD if spread is None else spread
    passes = PASSES if passes is None else passes
    finite = np.isfinite(tri).all(axis=1)
    out = np.zeros(len(tri), dtype=bool)
    live = np.asarray(live, dtype=bool) & finite & (np.where(finite[:, None], tri, 0) != 0).any(1)
    S = np.zeros((len(tri), d, d))
    S[finite] = ms._full(tri[finite], d)
    for _ in range(len(tri) if passes is None else passes):
        if live.sum() < 3:
            break
        lam, V = np.linalg.eigh(S[live].sum(axis=0))
        if not lam.max() > 0:
            break
        keep = lam > 1e-10 * lam.max()
        Wp = V[:, keep] / np.sqrt(lam[keep])
        A = np.einsum("ji,njk,kl->nil", Wp, S, Wp)
        mu, U = np.linalg.eigh(np.median(A[live], axis=0))
        if not mu.max() > 0:
            break
        Wm = U / np.sqrt(np.maximum(mu, ms.FLOOR * mu.max()))
        A = np.einsum("ji,njk,kl->nil", Wm, A, Wm)
        v = np.linalg.eigh(A[live].sum(axis=0))[1][:, -1]
        shares = np.einsum("i,nij,j->n", v, A, v)
        # a direction the median node barely spans (rounding residues of a
        # node-level feature) is the size check's
        least = 1e-3 * np.median(np.abs(np.linalg.eigvalsh(A[live])).max(axis=1))
        flagged = live & (shares > share_limit(np.maximum(shares, least)[live], spread))
        if not flagged.any():
            break
        out |= flagged
        live &= ~flagged
    return out


def pool_with_check(tri, d, cap=ms.CAP, masses=None):
    """The library's pool, then the check on the nodes it kept."""
    pooled, factors = LIBRARY_POOL(tri, d, cap, masses)
    if cap is None:
        return pooled, factors
    t = np.where(np.isfinite(tri), ms.positive_parts(np.asarray(tri, float), d), 0.0)
    counted = (factors > 0) & (t != 0).any(axis=1)
    out = direction_outliers(t, d, counted)
    if not out.any():
        return pooled, factors
    factors = np.where(out, 0.0, factors)
    iu = np.triu_indices(d)
    P = np.zeros((d, d))
    P[iu] = (t * factors[:, None]).sum(axis=0)
    return P + np.triu(P, 1).T, factors


def _landmine_tri(seed, cut):
    import rogue34_scatter_placement as rp

    from skfed._mean_neighbours import node_means
    X, y, g, task, fit_rows, order = rp.fit_data("landmine", seed, cut)
    gf = g[fit_rows]
    nodes = np.unique(gf)
    idx = np.concatenate([fit_rows[gf == k] for k in nodes])
    Xf = np.asarray(X[idx], dtype=np.float64)
    offsets = np.concatenate([[0], np.cumsum([np.sum(gf == k) for k in nodes])])
    sw = np.ones(len(idx))
    means, masses = node_means(Xf, sw, offsets)
    d = Xf.shape[1]
    iu = np.triu_indices(d)
    return ms.node_scatters(Xf, sw, offsets, means)[:, iu[0], iu[1]], d, masses


def share_ratios(tri, d):
    """Every node's share along the pool's top direction (whitened as in
    :func:`direction_outliers`, one pass, all nonzero scatters) over the
    median share."""
    S = ms._full(tri, d)
    live = (tri != 0).any(axis=1)
    lam, V = np.linalg.eigh(S[live].sum(axis=0))
    keep = lam > 1e-10 * lam.max()
    Wp = V[:, keep] / np.sqrt(lam[keep])
    A = np.einsum("ji,njk,kl->nil", Wp, S, Wp)
    mu, U = np.linalg.eigh(np.median(A[live], axis=0))
    Wm = U / np.sqrt(np.maximum(mu, ms.FLOOR * mu.max()))
    A = np.einsum("ji,njk,kl->nil", Wm, A, Wm)
    v = np.linalg.eigh(A[live].sum(axis=0))[1][:, -1]
    s = np.einsum("i,nij,j->n", v, A, v)
    return s / np.median(s[live])


def ratios(seeds):
    """Per Landmine cut and seed: the honest nodes' largest share ratio
    without rogues; with the strongest rank-one scatter along the top
    direction of the means' spread the library keeps from q = 2 / 5 nodes:
    the rogues' smallest ratio, the honest nodes' largest, and the pool's
    growth along it (``1 + q t u^T H^-1 u``)."""
    import rogue34_scatter_placement as rp

    from skfed._mean_neighbours import node_means
    for cut in (20, 10, 5):
        for seed in seeds:
            X, y, g, task, fit_rows, order = rp.fit_data("landmine", seed, cut)
            gf = g[fit_rows]
            nodes = np.unique(gf)
            idx = np.concatenate([fit_rows[gf == k] for k in nodes])
            Xf = np.asarray(X[idx], dtype=np.float64)
            offsets = np.concatenate([[0], np.cumsum([np.sum(gf == k) for k in nodes])])
            sw = np.ones(len(idx))
            means, masses = node_means(Xf, sw, offsets)
            d = Xf.shape[1]
            iu = np.triu_indices(d)
            tri = ms.node_scatters(Xf, sw, offsets, means)[:, iu[0], iu[1]]
            C = means - means.mean(axis=0)
            u = np.linalg.eigh(C.T @ C)[1][:, -1]
            res = []
            for q in (2, 5):
                rogue = np.arange(1, 1 + q)
                t = tri.copy()
                scale = 1e6 * np.abs(tri).max()
                while True:
                    t[rogue] = (scale * np.outer(u, u))[iu]
                    if LIBRARY_POOL(t, d, masses=masses)[1][rogue].all():
                        break
                    scale *= 0.9
                r = share_ratios(t, d)
                H = ms._full(np.delete(tri, rogue, axis=0).sum(axis=0)[None], d)[0]
                res.append(f"q={q}: rogues {r[rogue].min():8.1f} honest {np.delete(r, rogue).max():5.1f}"
                           f" growth {1 + q * scale * u @ np.linalg.solve(H, u):8.1f}")
            print(f"landmine:{cut} seed {seed} honest alone {share_ratios(tri, d).max():5.1f}  "
                  + "  ".join(res), flush=True)


def honest_landmine(seeds, spreads, passes):
    global SPREAD, PASSES
    PASSES = passes
    for cut in (None, 20, 10, 5, 3, 2):
        for seed in seeds:
            tri, d, masses = _landmine_tri(seed, cut)
            res = []
            for k in spreads:
                SPREAD = k
                res.append(int((pool_with_check(tri, d, masses=masses)[1] == 0).sum()))
            base = int((LIBRARY_POOL(tri, d, masses=masses)[1] == 0).sum())
            print(f"landmine cut {cut} seed {seed} n={len(tri)} left out, size limit {base}, "
                  f"with the check at k={spreads}: {res}", flush=True)


def honest(seeds, spreads, real_only=False):
    import new_nodes_maha_small_nodes as sn
    global SPREAD
    labels = ["size only"] + [f"check k={k}" for k in spreads]
    total = {k: 0 for k in labels}
    fams = ([] if real_only else [(f"synth n={n} rows={rows} d={d} {kind}",
                                   lambda s, a=(n, rows, d, kind): sn.synthetic(s, *a))
                                  for n, rows, d, kind in sn.SYNTH])
    fams += [(f"{name} rows={cut or 'all'}", lambda s, a=(name, cut): sn.real(a[0], s, a[1]))
             for name, cut in sn.REAL]
    for label, make in fams:
        out = {k: 0 for k in labels}
        for seed in seeds:
            X, offsets = make(seed)
            d = X.shape[1]
            if d > ms.WHITEN_MAX_FEATURES:
                break
            tri = sn.tri_of(X, offsets)
            masses = np.diff(offsets).astype(float)
            out["size only"] += int((LIBRARY_POOL(tri, d, masses=masses)[1] == 0).sum())
            for k in spreads:
                SPREAD = k
                out[f"check k={k}"] += int((pool_with_check(tri, d, masses=masses)[1] == 0).sum())
        for k in labels:
            total[k] += out[k]
        if len(set(out.values())) > 1:
            print(f"{label:45s} " + "  ".join(f"{k}: {v}" for k, v in out.items()), flush=True)
    print("TOTAL honest nodes left out: " + "  ".join(f"{k}: {v}" for k, v in total.items()))


def main():
    global SPREAD, PASSES, SHARE_CAP
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--honest", action="store_true")
    p.add_argument("--honest-landmine", action="store_true")
    p.add_argument("--real-only", action="store_true")
    p.add_argument("--ratios", action="store_true")
    p.add_argument("--spreads", default="2")
    p.add_argument("--passes", type=int, default=None)
    p.add_argument("--share-cap", type=float, default=4.0,
                   help="SHARE_CAP (with --spreads 0: a fixed multiple of the median share)")
    p.add_argument("--placement", default="", help="FAMILY:CUT,... rogue34_scatter_placement.py "
                   "with the check (k = the first of --spreads)")
    p.add_argument("--methods", default="dada,persolin")
    p.add_argument("--rogues", default="0.1,0.2")
    a = p.parse_args()
    warnings.simplefilter("ignore")
    seeds = [int(s) for s in a.seeds.split(",")]
    spreads = [float(k) for k in a.spreads.split(",")]
    SHARE_CAP = a.share_cap
    if a.honest:
        honest(seeds, spreads, a.real_only)
    if a.ratios:
        ratios(seeds)
    if a.honest_landmine:
        honest_landmine(seeds, spreads, a.passes)
    if a.placement:
        import rogue34_scatter_placement as rp
        SPREAD, PASSES = spreads[0], a.passes
        ms.pool_scatters = pool_with_check
        sys.argv = [sys.argv[0], "--families", a.placement, "--methods", a.methods,
                    "--seeds", a.seeds, "--ks", "5,10", "--rogues", a.rogues]
        rp.main()


if __name__ == "__main__":
    main()
