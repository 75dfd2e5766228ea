"""Where a Perso-lin newcomer's points go: its row, its neighbours, its block optimum.

Issue 32's Perso-lin rows (``benchmarks/new_nodes.py --families persolin``)
miss pooled ``LogisticRegression`` on HAR and Local on rotated moons.  On
``new_nodes.py``'s split (80 % of the nodes fitted, each new node joins
with ``k`` samples, scored on the rest of its data) this script joins as
``add_nodes`` does (``skfed._graph_join_batch.lin_join_batched``, whose
inputs and result it records) and scores, per newcomer, on its test
samples (accuracy %, pooled over the new nodes, mean of the seeds):

* ``join``: the joined model (``add_nodes``);
* ``local``: the newcomer's local model (the join's step 1);
* ``nbrs``: ``S / d``, the weighted average of its fitted neighbours'
  final models under its join row (its model with no data of its own);
* ``best_nbr``: its best fitted neighbour, chosen with its test labels;
* ``block``: the exact optimum of its block of the objective (the join's
  model steps run 20,000 more steps: what the join's ``n_steps``
  approximate);
* ``global``: pooled ``LogisticRegression()`` on the fitted and new nodes'
  training samples (the table's Global on HAR);
* ``n_nbrs``, ``deg``, ``conf``: its fitted neighbours, its degree toward
  them and its confidence ``c = m / m_max``, sample-weighted means.

    python benchmarks/persolin_join_points.py --datasets har,moons,landmine \\
        [--seeds 0,1,2] [--ks 5,10,20] [--per-node]

``--per-node`` also prints every newcomer's row (seed, node, its columns).
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes  # noqa: E402

import skfed._graph_join_batch as gjb  # noqa: E402
from skfed._core._join_fast import lin_join_steps  # noqa: E402
from skfed._graph_join import _design, _loss, _targets  # noqa: E402

COLUMNS = ("join", "local", "nbrs", "best_nbr", "block", "global", "n_nbrs", "deg", "conf")
EXTRA_STEPS = 20_000


def _hits(classes, Z, y, model):
    scores = Z @ np.asarray(model, dtype=np.float64).T
    if scores.shape[1] == 1:
        pred = classes[(scores[:, 0] > 0).astype(int)]
    else:
        pred = classes[np.argmax(scores, axis=1)]
    return int(np.sum(pred == y))


class _Recorder:
    """Wraps ``lin_join_batched``: keeps its keyword inputs and its result."""

    def __init__(self):
        self.calls = []
        self._orig = gjb.lin_join_batched

    def __call__(self, est, X, y, sw_all, layout, **kw):
        out = self._orig(est, X, y, sw_all, layout, **kw)
        self.calls.append((est, X, y, sw_all, layout, kw, out))
        return out


def _block_optimum(est, X, y, sw_all, layout, kw, out):
    """The join's model steps continued: the exact block optimum."""
    models = kw["models"]
    dtype = models.dtype
    n_new, P, n = out["models"].shape
    offsets = np.ascontiguousarray(layout.offsets, dtype=np.intp)
    Z = np.ascontiguousarray(layout.sort(_design(est, X, dtype)), dtype=dtype)
    Y = np.ascontiguousarray(_targets(est, y, dtype)[:, layout.order])
    sw = np.ascontiguousarray(np.asarray(sw_all)[layout.order], dtype=dtype)
    loss = _loss(est)
    l2, n_pen = float(est.alpha), n - int(est.fit_intercept)
    sw64 = sw.astype(np.float64)
    mass = np.add.reduceat(sw64, offsets[:-1])
    rows64 = np.sqrt(sw64)[:, None] * Z.astype(np.float64)
    top = gjb.top_squared_singular_values(rows64, offsets)
    lipschitz = np.maximum(loss.py_curvature() * top / mass + l2, 1e-12)
    S = np.zeros((n_new, P, n))
    degree = np.zeros(n_new)
    for k, (cand, row) in enumerate(zip(kw["answered"], out["rows"])):
        S[k] = np.tensordot(row, models[cand].astype(np.float64), 1)
        degree[k] = row.sum()
    # newcomers linked to each other: their current models, fixed
    W_new = out["W_new"]
    S += (W_new @ out["models"].reshape(n_new, -1).astype(np.float64)).reshape(S.shape)
    degree += np.asarray(W_new.sum(axis=1)).ravel()
    theta = np.array(out["models"], dtype=dtype)
    losses = np.zeros((n_new, P))
    lin_join_steps(Z, Y, sw, offsets, theta, losses, loss, 1.0 / mass, lipschitz, l2, n_pen,
                   np.ascontiguousarray(S), degree, np.ascontiguousarray(out["confidence"]),
                   float(est.mu), EXTRA_STEPS)
    return theta, S, degree


def one_split(dataset, seed, ks, per_node):
    data = new_nodes.load(dataset, seed)
    X, y, groups, task = data[:4]
    fit_rows, _, order = new_nodes.split(X, y, groups, seed, data[4] if len(data) > 4 else None)
    base = new_nodes.make_estimator("persolin", task, seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    K = len(base.nodes_)
    res = {}
    for k in ks:
        train, test = new_nodes.new_node_rows(order, k)
        joined = copy.deepcopy(base)
        rec = _Recorder()
        gjb.lin_join_batched = rec
        try:
            joined.add_nodes(X[train], y[train], groups=groups[train])
        finally:
            gjb.lin_join_batched = rec._orig
        est, Xn, yn, sw_all, layout, kw, out = rec.calls[-1]
        block, S, degree = _block_optimum(est, Xn, yn, sw_all, layout, kw, out)
        rows_fit = np.concatenate([fit_rows, train])
        lr = LogisticRegression().fit(X[rows_fit], y[rows_fit])
        M = joined._full_coef().astype(np.float64)
        Zt = _design(joined, X[test], np.float64)
        classes = joined.classes_
        node_order = [joined.nodes_[K + i] for i in range(layout.n_nodes)]
        sums = dict.fromkeys(COLUMNS, 0.0)
        n_test = 0
        for i, node in enumerate(node_order):
            # the layout's i-th newcomer is joined.nodes_[K + i] (add_nodes' order)
            sel = groups[test] == node
            Zi, yi = Zt[sel], y[test][sel]
            row, cand = out["rows"][i], kw["answered"][i]
            nb = cand[row > 0]
            avg = S[i] / degree[i] if degree[i] > 0 else M[:K].mean(axis=0)
            cols = {
                "join": _hits(classes, Zi, yi, M[K + i]),
                "local": _hits(classes, Zi, yi, out["local_models"][i]),
                "nbrs": _hits(classes, Zi, yi, avg),
                "best_nbr": max([_hits(classes, Zi, yi, M[j]) for j in nb] or [0]),
                "block": _hits(classes, Zi, yi, block[i]),
                "global": int(np.sum(lr.predict(X[test][sel]) == yi)),
            }
            assert np.allclose(M[K + i], out["models"][i]), "newcomer order"
            for c, v in cols.items():
                sums[c] += v
            sums["n_nbrs"] += len(nb) * len(yi)
            sums["deg"] += degree[i] * len(yi)
            sums["conf"] += out["confidence"][i] * len(yi)
            n_test += len(yi)
            if per_node:
                print(f"  {dataset} seed {seed} k {k} node {node!s:>6}: "
                      + " ".join(f"{c}={100 * v / len(yi):5.1f}" for c, v in cols.items())
                      + f" n_nbrs={len(nb)} deg={degree[i]:.3f} conf={out['confidence'][i]:.3f}",
                      flush=True)
        res[k] = [(1.0 if c in ("n_nbrs", "deg", "conf") else 100.0) * sums[c] / n_test
                  for c in COLUMNS]
    return res


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har,moons,landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--per-node", action="store_true")
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    warnings.simplefilter("ignore")
    print("data      k   " + "  ".join(f"{c:>8s}" for c in COLUMNS))
    for dataset in args.datasets.split(","):
        per_seed = [one_split(dataset, s, ks, args.per_node) for s in seeds]
        for k in ks:
            mean = np.mean([r[k] for r in per_seed], axis=0)
            print(f"{dataset:9s} {k:<3d} " + "  ".join(f"{m:8.2f}" for m in mean), flush=True)


if __name__ == "__main__":
    main()
