"""The guard's tests on the join table's newcomers: their false alarms.

``benchmarks/new_nodes.py``'s rows (its data sets, split, estimators, ``k``)
for Dada and Perso-lin: every newcomer the graph join's guard tests (Dada's
graph join, Perso-lin's posterior and feature-mean joins), before its
model is touched, gets the p-values of the errors test
(:func:`skfed._join_unlike.worse_than_chance`'s binomial tail), the
ranking test (:func:`skfed._join_rank.ranking_pvalues`) and the own-fit
test (``guardw37_own_fit.own_fit_pvalues``) on its joined model.  These
newcomers resemble fitted nodes, so every flag is a false alarm.  Prints
per row the newcomers tested and those under 0.01 / 0.05 per test, and the
smallest own-fit p-value.

Usage: ``python benchmarks/guardw37_table_pvalues.py --families dada,persolin
--datasets moons,landmine,har --seeds 0,1,2 --ks 5,10,20``.

Results (2026-11-30, branch guardw37 from main 92a0d0d4, guardw37; the
command above, about 9 min, most of it Perso-lin on HAR): 54 rows, 509
newcomers tested (Dada 20 / 0-5 / 4 per row on moons / Landmine / HAR,
Perso-lin 20 / 6 / 4).  Errors test under 0.01: 0 (so the guard touches
no table row whatever the veto: ``benchmarks/unlike36_guard_firing.py
--families dada,persolin --datasets moons,landmine,har``, 54 of 54 rows
identical, 509 tested, 0 flagged).  Ranking test alone under 0.05:
1 (Perso-lin, Landmine seed 0, k = 20; it only vetoes).  Own-fit test under
0.01: 0, under 0.05: 0; its smallest p-value 0.0705 (Perso-lin, Landmine
seed 0, k = 20); the smallest of the other rows 0.132 (Dada, the same).
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np
from scipy.stats import binom

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes
from guardw37_own_fit import own_fit_pvalues
from table_cells import table_cells

import skfed._graph_join as graph_join
import skfed._graph_join_unlike as graph_guard
from skfed._join_rank import ranking_pvalues
from skfed._join_unlike import class_codes

SEEN = []


def _binom_p(pred, y):
    _, counts = np.unique(y, return_counts=True)
    q = 1.0 - counts.max() / len(y)
    return 1.0 if q <= 0 else float(binom.sf(int(np.sum(pred != y)) - 1, len(y), q))


def _record(est, X, y, layout, models):
    dtype = models.dtype
    Z, Y = graph_join._design(est, X, dtype), graph_join._targets(est, y, dtype)
    for k in range(layout.n_nodes):
        idx = layout.node_indices(k)
        F = np.asarray(models[k], dtype=np.float64) @ np.asarray(Z[idx], dtype=np.float64).T
        pred, true = class_codes(F, np.asarray(Y[:, idx]))
        off = np.array([0, len(idx)])
        SEEN.append((_binom_p(pred, true), ranking_pvalues(F, true, off)[0],
                     own_fit_pvalues(np.asarray(X)[idx], F, true, off)[0]))


def _spy(original):
    def wrapped(est, X, y, sw, layout, new_models, *args, **kwargs):
        _record(est, X, y, layout, new_models)
        return original(est, X, y, sw, layout, new_models, *args, **kwargs)
    return wrapped


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", default="dada,persolin")
    parser.add_argument("--datasets", default="moons,landmine,har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    graph_join.keep_local_if_contradicted = _spy(graph_join.keep_local_if_contradicted)
    graph_guard.keep_alone_if_contradicted = _spy(graph_guard.keep_alone_if_contradicted)
    warnings.filterwarnings("ignore")
    new_nodes._import_joins()
    every = []
    for c in table_cells(args):
        SEEN.clear()
        new_nodes.add_nodes(copy.deepcopy(c.base), c.X[c.train], c.y[c.train],
                            c.groups[c.train])
        p = np.array(SEEN).reshape(-1, 3)
        every.append(p)
        counts = " ".join(f"{t} {int(np.sum(p[:, i] < 0.01))}/{int(np.sum(p[:, i] < 0.05))}"
                          for i, t in enumerate(("binom", "rank", "own")))
        low = p[:, 2].min() if len(p) else 1.0
        print(f"{c.family:8s} {c.name:8s} seed {c.seed} k {c.k:2d}: tested {len(p):3d}  "
              f"<0.01/<0.05: {counts}  min own p {low:.4f}", flush=True)
    p = np.concatenate(every)
    print(f"total tested {len(p)}; own-fit test under 0.01: {int(np.sum(p[:, 2] < 0.01))}, "
          f"under 0.05: {int(np.sum(p[:, 2] < 0.05))}; smallest {p[:, 2].min():.4f}")


if __name__ == "__main__":
    main()
