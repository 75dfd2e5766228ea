"""A share limit along the pool's top direction against rogue scatters (scatter34).

rogue34 (``benchmarks/rogue34_scatter_placement.py``) found the attack the
size limit of :mod:`skfed._mean_scatter` does not bound: rank-one rogue
scatters just under the limit along the top direction of the fitted node
means' spread (Dada's one-class newcomers on Landmine cut to 10 rows: -7.1
points with 10 % rogues on seeds 0-2, -27.8 on seeds 3-5).  scatter34
measured a second check after the size limit
(:func:`skfed._mean_scatter.direction_outliers`): a node whose share
``v^T A_i v`` of the median-whitened pool along the pool's top eigenvector
``v`` is over ``median * max(DIRECTION_CAP, exp(DIRECTION_SPREAD * s))``
of the shares there is left out, repeated until none is.

``--honest`` counts the honest nodes the pool leaves out with and without
the check over ``new_nodes_maha_small_nodes.py``'s families (synthetic and
real; the goal is none beyond School's)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/scatter34_direction.py --honest --seeds 0,1,2
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
import new_nodes_maha_small_nodes as sn  # noqa: E402

from skfed import _mean_scatter as ms  # noqa: E402


def honest(seeds, real_only=False):
    total = {"size only": 0, "size + direction": 0}
    fams = ([] if real_only else [(f"synth n={n} rows={rows} d={d} {kind}",
                                   lambda s, a=(n, rows, d, kind): sn.synthetic(s, *a))
                                  for n, rows, d, kind in sn.SYNTH])
    fams += [(f"{name} rows={cut or 'all'}", lambda s, a=(name, cut): sn.real(a[0], s, a[1]))
             for name, cut in sn.REAL]
    for label, make in fams:
        out = {k: 0 for k in total}
        for seed in seeds:
            X, offsets = make(seed)
            d = X.shape[1]
            if d > ms.WHITEN_MAX_FEATURES:
                break
            tri = sn.tri_of(X, offsets)
            masses = np.diff(offsets).astype(float)
            out["size only"] += int((ms.pool_scatters(tri, d, masses=masses,
                                                      direction_cap=None)[1] == 0).sum())
            out["size + direction"] += int((ms.pool_scatters(tri, d, masses=masses)[1] == 0).sum())
        for k in total:
            total[k] += out[k]
        if out["size + direction"] != out["size only"]:
            print(f"{label:45s} " + "  ".join(f"{k}: {v}" for k, v in out.items()), flush=True)
    print("TOTAL honest nodes left out: " + "  ".join(f"{k}: {v}" for k, v in total.items()))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--honest", action="store_true")
    p.add_argument("--real-only", action="store_true")
    a = p.parse_args()
    warnings.simplefilter("ignore")
    seeds = [int(s) for s in a.seeds.split(",")]
    if a.honest:
        honest(seeds, a.real_only)


if __name__ == "__main__":
    main()
