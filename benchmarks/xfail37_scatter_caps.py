"""Direction-wise caps on the hub's scatter pool against rogue34's top attack (xfail37): not adopted.

``tests/test_scatter34_top_attack.py::test_top_attack_bounded`` asks that
``q`` rogue nodes (3 or 6 of Landmine's 29, cut to their first 10 rows)
sending ``t u u^T`` (``u`` the top direction of the node means' spread,
``t`` the largest :func:`skfed._mean_scatter.pool_scatters` keeps) grow the
pool along ``u`` at most twice the honest sum, while the same function
keeps every honest node of that data and of full Landmine with factor 1
(``test_honest_landmine_pools_are_the_plain_sum``).  The test gives the
pool the scatters and masses only (no means).  Three scatter-only rules
were measured here (the library is unchanged; each is a function of this
script applied to the library's pool):

* ``own``: every node's share along each of its own eigenvectors (features
  scaled by the pool's diagonal, unit-free; a rank-one rogue's own top
  direction is ``u`` itself) over the median share of all nodes there; a
  node above ``K`` times it is scaled down to ``K`` (factor ``K / ratio``).
* ``fill``: along the top eigenvector of the (raw) pool, the total may be
  at most ``c n`` times the median share; above it the largest shares are
  cut to a common level (water-filling), repeated on the next top direction.
* ``fraction``: the provable one.  If every node's scatter is at most a
  fraction ``f`` of the pool in the Loewner order (``S_i <= f P``), ``q``
  rogues give ``P <= H / (1 - q f)`` along every direction, so ``f <= 1 /
  (2 q)`` meets the test (1/6 for q = 3, 1/12 for q = 6).  What the honest
  nodes need is their largest ``lambda_max(P^-1/2 S_i P^-1/2)``.

Command (one BLAS thread, nice; about 20 s)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/xfail37_scatter_caps.py --seeds 0,1,2,3,4,5

Results (2026-11-30, main 92a0d0d4, xfail37)
--------------------------------------------

Honest nodes first (Landmine, new_nodes.py's split cut to m rows as in
``scatter34_direction.py``, seeds 0-5; and the test's first-10-rows cut):
the largest share of a node along one of its own directions over the median
there is 1.9-2.8 uncut, 3.5-4.7 at 20 rows, 3.4-5.1 at 10, 4.0-5.6 at 5,
and 5.2 on the test's data (raw coordinates: up to 7.0 on it, 11.9 at 5
rows).  The largest Loewner fraction of an honest node (``fraction``) is
printed per row: on the test's data 0.86 (one node holds most of the pool along a
direction only it spans), far above 1/12.

The attack (the test's data; ratio = ``u^T P u / u^T H u``, the test asks
<= 2; honest nodes cut in brackets, the test asks none)::

    rule               q = 3          q = 6
    library (today)    116            352
    own K = 4          1.46 [2]       2.07 [2]
    own K = 5.3        1.58 [0]       2.41 [0]
    own K = 8          1.88 [0]       3.12 [0]
    fill c = 1.5       1.62 [0]       2.22 [0]
    fill c = 2         2.16 [0]       2.96 [0]

Reading: along ``u`` the honest shares are not far from even (at most 3.9
times their median, 11 % of the sum), so a cap there cuts the attack from
116-352 to 1.5-3 at once; but the test's own honest data hold a node 5.2
times the median along its own top direction, so a cap that keeps every
honest node (K >= 5.3) leaves 6 rogues (20 %) at 2.4 (the median moves up
with them), and a cap that bounds 6 rogues (K = 4) cuts honest nodes.  The
provable fraction bound is out of reach (honest 0.86 against 1/12).  The
test stays a strict xfail with these numbers; a 10 % bound (q = 3) is
within reach of ``own`` at K 5.3 (1.58, no honest node cut on any
Landmine cut 5-20 or uncut, seeds 0-5, above), not adopted: ``own`` was
not run through the placement benchmarks (rogue34_scatter_placement.py)
nor the small-node families (new_nodes_maha_small_nodes.py), and
it is an O(n^2 d^3) check at the hub.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from skfed import _mean_scatter as ms  # noqa: E402
from skfed.datasets import load_landmine  # noqa: E402


def own_factors(tri, d, K):
    """``own``: each node scaled down to ``K`` times the median share along
    its own eigenvectors (features scaled by the pool's diagonal)."""
    S = ms._full(tri, d)
    live = (tri != 0).any(axis=1)
    diag = np.diag(S[live].sum(axis=0))
    w = 1 / np.sqrt(np.where(diag > 0, diag, 1.0))
    A = S * w[None, :, None] * w[None, None, :]
    V = np.linalg.eigh(A)[1]
    worst = np.zeros(len(tri))
    for j in range(d):
        E = V[:, :, j]
        sh = np.einsum("ni,mij,nj->nm", E, A, E)
        med = np.median(sh[:, live], axis=1)
        worst = np.maximum(worst, np.diag(sh) / np.maximum(med, np.finfo(float).tiny))
    return np.where(live & (worst > K), K / worst, 1.0)


def fill_factors(tri, d, c):
    """``fill``: water-filling along the raw pool's top directions."""
    S = ms._full(tri, d)
    live = (tri != 0).any(axis=1)
    f = np.ones(len(tri))
    for _ in range(2 * d):
        v = np.linalg.eigh(np.einsum("n,nij->ij", f, S))[1][:, -1]
        s = np.einsum("i,nij,j->n", v, S, v)
        bound = c * live.sum() * np.median(s[live])
        fs = f * s
        if fs.sum() <= bound:
            break
        top = np.sort(fs)[::-1]
        cum = np.cumsum(top)
        for k in range(1, len(top) + 1):
            tau = (bound - (cum[-1] - cum[k - 1])) / k
            if k == len(top) or tau >= top[k]:
                break
        f = np.where(fs > tau, tau / s, f)
    return f


def largest_fraction(tri, d):
    """The honest nodes' largest ``lambda_max(P^-1/2 S_i P^-1/2)``."""
    S = ms._full(tri, d)
    lam, V = np.linalg.eigh(S.sum(axis=0))
    keep = lam > 1e-10 * lam.max()
    W = V[:, keep] / np.sqrt(lam[keep])
    return float(np.linalg.eigvalsh(np.einsum("ji,njk,kl->nil", W, S, W)).max())


def test_data():
    X, _, g = load_landmine(return_X_y=True)
    rows = [np.flatnonzero(g == k)[:10] for k in np.unique(g)]
    means = np.array([X[r].mean(axis=0) for r in rows])
    full = np.array([(X[r] - m).T @ (X[r] - m) for r, m in zip(rows, means)])
    return full, means, np.full(len(rows), 10.0)


def attack(full, means, masses, q):
    """rogue34's strongest rank-one attack along the means' top direction."""
    iu = np.triu_indices(full.shape[1])
    C = means - means.mean(axis=0)
    u = np.linalg.eigh(C.T @ C)[1][:, -1]
    rogue = np.arange(1, 1 + q)
    t = 1e6 * np.abs(full).max()
    while True:
        bad = full.copy()
        bad[rogue] = t * np.outer(u, u)
        if ms.pool_scatters(bad[:, iu[0], iu[1]], full.shape[1], masses=masses)[1][rogue].all():
            return bad, u, rogue
        t *= 0.9


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0,1,2,3,4,5")
    a = p.parse_args()
    warnings.simplefilter("ignore")
    import scatter34_direction as sd

    full, means, masses = test_data()
    n, d = full.shape[:2]
    iu = np.triu_indices(d)
    print(f"test data: honest largest fraction {largest_fraction(full[:, iu[0], iu[1]], d):.2f}")
    rules = [("library", None)] + [(f"own K={K}", lambda t, K=K: own_factors(t, d, K))
                                   for K in (4.0, 5.3, 8.0)]
    rules += [(f"fill c={c}", lambda t, c=c: fill_factors(t, d, c)) for c in (1.5, 2.0)]
    for name, rule in rules:
        row = []
        for q in (3, 6):
            bad, u, rogue = attack(full, means, masses, q)
            tri = bad[:, iu[0], iu[1]]
            f = ms.pool_scatters(tri, d, masses=masses)[1] if rule is None else rule(tri)
            honest = np.setdiff1d(np.arange(n), rogue)
            H = full[honest].sum(axis=0)
            P = np.einsum("n,nij->ij", f, bad)
            row.append(f"q={q}: {u @ P @ u / (u @ H @ u):8.2f} [{int((f[honest] < 1).sum())}]")
        print(f"{name:12s} " + "  ".join(row), flush=True)
    for cut in (None, 20, 10, 5):
        for seed in [int(s) for s in a.seeds.split(",")]:
            tri, d2, _ = sd._landmine_tri(seed, cut)
            cuts = [int((own_factors(tri, d2, K) < 1).sum()) for K in (4.0, 5.3, 8.0)]
            print(f"landmine cut {cut} seed {seed}: honest cut by own K=4/5.3/8 {cuts}, "
                  f"fill c=1.5/2 {[int((fill_factors(tri, d2, c) < 1).sum()) for c in (1.5, 2.0)]}, "
                  f"largest fraction {largest_fraction(tri, d2):.2f}", flush=True)


if __name__ == "__main__":
    main()
