"""Honest nodes with rare binary features and the scatter pool's size check (xfail38).

review39's strict xfail (``tests/test_review39_scatter_rare_features.py``):
30 honest nodes of 10 rows, 9 binary features each 1 with probability 0.1;
where more than half the nodes hold a feature constant the coordinate-wise
median scatter is 0 along it, ``node_sizes`` floored it at ``FLOOR`` = 1e-6
of its top eigenvalue, and every honest node varying in that feature was
sized ~1e6 times the median and left out (seed 2: 14 of 30, seed 5: 12).

Commands (one BLAS thread, nice; seconds, except ``--hash``, ~2 min)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/xfail38_rare_features.py --rare --seeds 0-11
    OPENBLAS_NUM_THREADS=1 python benchmarks/xfail38_rare_features.py --hash --seeds 0,1,2

``--rare``: honest nodes left out / scaled on the binary family per seed
(and with ``--p`` other feature rates).  ``--hash``: one SHA-256 per honest
family of every node's size, factor and the pool (Landmine uncut and cut to
2-20 rows, the synthetic and real families of
``new_nodes_maha_small_nodes.py``: moons, School, related-*), to compare a
change with main bit for bit (run it at both revisions, ``diff`` the output).

Results (2026-11-30, main 732136fa, xfail38)
--------------------------------------------

Adopted (``skfed._mean_scatter.spanned_median``, ``SPAN = 1/3``): a
feature whose median variance is under the floor but in which at least a
third of the nodes vary gets the median of their variances, and a node is
kept when within either limit (the median's, as before, or the raised
one's).  ``--rare --seeds 0-11 --p 0.1,0.07,0.05,0.03,0.02`` (30 nodes of
10 rows, 9 binary features): every row equal to main's except the four
where main left honest nodes out, now none::

    p = 0.1   seed 2: 14 -> 0 left out;  seed 5: 12 -> 0
    p = 0.07  seed 1: 11 -> 0 (and its 1 scaled node -> 0);  seed 10: 14 -> 0

Second commit: the direction check (``direction_factors``) takes the same
median along a node's own direction that more than half the reference
nodes lack and a third span; nodes varying in one rare feature only were
scaled to ~1e-4 there.  Smallest honest factor (nodes scaled), main ->
here, the other rows unchanged::

    p = 0.07  seed 11: 0.000 (4) -> 0.387 (3)
    p = 0.05  seed 0: 0.000 (5) -> 0.290 (4);  seed 3: 0.000 (6) -> 0.348 (6)
              seed 5: 0.000 (3) -> 0.771 (2);  seed 7: 0.000 (6) -> 0.379 (5)
              seed 8: 0.000 (4) -> 0.132 (3)

``--hash --seeds 0,1,2`` at main and here, ``diff``: the 780 honest pools
(Landmine uncut and cut to 20/10/5/3/2 rows, moons, related-*, School cut
to 3 rows, the 240 synthetic families) identical to the bit, except uncut
School seeds 0 and 2 (its round is off by default): 1 and 2 more nodes
kept (6 -> 5 and 18 -> 16 left out), none newly left out; seed 1 equal.
``benchmarks/xfail37_scatter_caps.py --families --landmine`` (seeds 0-5)
at main and here: identical output but uncut School's line (93 -> 94
honest nodes scaled: one node now kept is scaled by the direction check
instead of left out; total 115 -> 116 of 213,564).

Measured and not adopted: raising the floored directions of the median's
eigenvectors (Landmine's coordinate-wise median is indefinite: its
negative directions, which all 29 nodes span, were raised and the
scatter34 attack's largest kept ``t`` changed); the raised median alone,
without the median's limit kept (``SPAN`` 0.1 / 0.25 / 0.34: at p <= 0.05,
where main's median sizes are all large and its limit keeps every node,
it left out 6-12 nodes on 4-5 of 12 seeds, School cut to 3 rows 33 of
111, and the direction check then scaled 9-13 nodes to ~0.001 at p =
0.03); the same raise in ``direction_factors``' median shares (scaled
2-14 honest nodes at p <= 0.05 either way).

Rogues (``tests/test_xfail38_rare_features.py``): ``q`` nodes sending ``t
e e^T`` along a feature every honest node holds constant.  With ``q`` = 1,
3, 6, 9 of 30 the pool along it is main's to the bit (0 for ``t`` >=
1e3); with 10 (a third) they set the raised median themselves and it
grows with ``t`` (1,408 at ``t`` = 1e6, seed 2, after the first commit;
after the second, which raises the direction check's median too, they are
kept whole: 10 ``t``; main: 0 for any ``q`` under half; a strict xfail):
``SPAN`` trades that bound (half -> a third, only for features more than
half the nodes hold constant) for the honest nodes above; at 0.1 it was 3
rogues.
"""
import argparse
import hashlib
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from skfed import _mean_scatter as ms


def binary_nodes(seed, p=0.1, n=30, rows=10, d=9):
    rng = np.random.RandomState(seed)
    Xs = [(rng.rand(rows, d) < p).astype(float) for _ in range(n)]
    iu = np.triu_indices(d)
    full = np.array([(x - x.mean(axis=0)).T @ (x - x.mean(axis=0)) for x in Xs])
    return full[:, iu[0], iu[1]], d


def run_rare(seeds, rates):
    for p in rates:
        for seed in seeds:
            tri, d = binary_nodes(seed, p)
            diag = tri[:, np.cumsum(np.r_[0, np.arange(d, 1, -1)])]
            f = ms.pool_scatters(tri, d, masses=np.full(len(tri), 10.0))[1]
            scaled = f[(f > 0) & (f < 1)]
            print(f"p={p:g} seed {seed:2d}: most constant {int((diag == 0).sum(axis=0).max()):2d} "
                  f"of {len(tri)}, left out {int((f == 0).sum()):2d}, scaled {len(scaled):2d} "
                  f"(smallest {min(scaled.tolist() + [1.0]):.3f})", flush=True)


def _digest(tri, d, masses):
    h = hashlib.sha256()
    sizes = ms.node_sizes(tri, d)
    pooled, factors = ms.pool_scatters(tri, d, masses=masses)
    for a in (sizes, factors, pooled):
        h.update(np.ascontiguousarray(a if a is not None else np.zeros(0)).tobytes())
    return h.hexdigest()[:16], int((factors < 1).sum())


def run_hash(seeds):
    import new_nodes_maha_small_nodes as sn
    import scatter34_direction as sd

    for cut in (None, 20, 10, 5, 3, 2):
        for seed in seeds:
            tri, d, masses = sd._landmine_tri(seed, cut)
            print(f"landmine cut {cut} seed {seed}: %s (%d not whole)" % _digest(tri, d, masses),
                  flush=True)
    fams = [(f"synth {a}", lambda s, a=a: sn.synthetic(s, *a)) for a in sn.SYNTH]
    fams += [(f"{name} rows={cut}", lambda s, a=(name, cut): sn.real(a[0], s, a[1]))
             for name, cut in sn.REAL]
    for label, make in fams:
        for seed in seeds:
            X, offsets = make(seed)
            d = X.shape[1]
            if d > ms.WHITEN_MAX_FEATURES:
                break
            print(f"{label} seed {seed}: %s (%d not whole)" % _digest(
                sn.tri_of(X, offsets), d, np.diff(offsets).astype(float)), flush=True)


def _seeds(text):
    if "-" in text:
        a, b = text.split("-")
        return list(range(int(a), int(b) + 1))
    return [int(s) for s in text.split(",")]


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--rare", action="store_true")
    p.add_argument("--p", default="0.1")
    p.add_argument("--hash", action="store_true")
    a = p.parse_args()
    warnings.simplefilter("ignore")
    seeds = _seeds(a.seeds)
    if a.rare:
        run_rare(seeds, [float(x) for x in a.p.split(",")])
    if a.hash:
        run_hash(seeds)


if __name__ == "__main__":
    main()
