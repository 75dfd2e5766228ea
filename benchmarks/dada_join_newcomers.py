"""Dada's join against its refit, newcomer by newcomer (issue 32's Dada rows).

Usage::

    python benchmarks/dada_join_newcomers.py --datasets moons --seeds 0 --ks 10
    python benchmarks/dada_join_newcomers.py --datasets landmine --seeds 0,1,2 --ks 5,10

On ``new_nodes.py``'s split (80 % of the nodes fitted, 20 % new with ``k``
training samples each), the default ``DecentralizedBoostingClassifier`` is
fitted, joined (``add_nodes``) and refitted as in ``new_nodes.py``.  One
line per newcomer: its ``k`` samples' positives, its test samples and
their positives; accuracy % on its test samples of its joined model
(``join``), of its model in the refit (``refit``), of its neighbours'
weighted mean model ``S / d`` in the join (``nbrs``); its degree and number
of neighbours in the join and in the refit, the share of its weight inside
its cluster (rotated moons: clusters of 25 consecutive ids) and, in the
refit, on other newcomers; true and false positives of the join and the
refit on its test samples.
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes  # noqa: E402


def node_models(est):
    return est._full_coef()  # (n_nodes, P, n_base)


def scores(est, model, X):
    H = est._base_matrix(X, np.float64)
    return H @ np.asarray(model, dtype=np.float64)[0]


def cluster_of(name, ids):
    if name == "moons":
        return np.asarray(ids) // 25
    return None


def one_case(name, seed, ks, make=None):
    data = new_nodes.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = new_nodes.split(X, y, groups, seed, extra)
    make = make or (lambda: new_nodes.make_estimator("dada", task, seed))
    base = make().fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    out = []
    for k in ks:
        train, test = new_nodes.new_node_rows(order, k)
        joined = copy.deepcopy(base)
        joined.add_nodes(X[train], y[train], groups=groups[train])
        Xp = np.concatenate([X[fit_rows], X[train]])
        yp = np.concatenate([y[fit_rows], y[train]])
        gp = np.concatenate([groups[fit_rows], groups[train]])
        refit = make().fit(Xp, yp, groups=gp)
        Wj = joined.collaboration_graph_.toarray()
        Wr = refit.collaboration_graph_.toarray()
        mj, mr = node_models(joined), node_models(refit)
        pos = joined.classes_[1]
        acc_j, acc_r = [], []
        print(f"{name} seed {seed} k {k}: join "
              f"{100 * np.mean(joined.predict(X[test], groups=groups[test]) == y[test]):.2f} "
              f"refit {100 * np.mean(refit.predict(X[test], groups=groups[test]) == y[test]):.2f}")
        print("  node  k+  test  t+   join  refit  nbrs   deg_j nnz_j  deg_r nnz_r  "
              "in_j  in_r  new_r   TPj FPj  TPr FPr")
        for node in new:
            tr = train[groups[train] == node]
            te = test[groups[test] == node]
            ij = int(np.flatnonzero(joined.nodes_ == node)[0])
            ir = int(np.flatnonzero(refit.nodes_ == node)[0])
            yt = y[te] == pos
            sj = scores(joined, mj[ij], X[te]) > 0
            sr = scores(refit, mr[ir], X[te]) > 0
            rowj, rowr = Wj[ij], Wr[ir]
            dj, dr = rowj.sum(), rowr.sum()
            S = np.tensordot(rowj, mj, axes=(0, 0))
            sn = scores(joined, S / dj, X[te]) > 0 if dj > 0 else np.zeros(len(te), bool)
            cl = cluster_of(name, joined.nodes_)
            if cl is not None:
                inj = rowj[cl == cl[ij]].sum() / max(dj, 1e-300)
                clr = cluster_of(name, refit.nodes_)
                inr = rowr[clr == clr[ir]].sum() / max(dr, 1e-300)
            else:
                inj = inr = np.nan
            new_r = rowr[np.isin(refit.nodes_, new)].sum() / max(dr, 1e-300)
            a_j, a_r = 100 * np.mean(sj == yt), 100 * np.mean(sr == yt)
            acc_j.append(a_j)
            acc_r.append(a_r)
            print(f"  {node:4d} {int((y[tr] == pos).sum()):3d} {len(te):5d} {int(yt.sum()):3d} "
                  f"{a_j:6.1f} {a_r:6.1f} {100 * np.mean(sn == yt):6.1f}  "
                  f"{dj:6.3f} {np.count_nonzero(rowj):4d}  {dr:6.3f} {np.count_nonzero(rowr):4d}  "
                  f"{inj:5.2f} {inr:5.2f} {new_r:5.2f}  "
                  f"{int((sj & yt).sum()):4d} {int((sj & ~yt).sum()):3d} "
                  f"{int((sr & yt).sum()):4d} {int((sr & ~yt).sum()):3d}", flush=True)
        out.append((k, acc_j, acc_r))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--ks", default="10")
    args = parser.parse_args()
    warnings.filterwarnings("ignore")
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                one_case(name, seed, [int(k) for k in args.ks.split(",")])


if __name__ == "__main__":
    main()
