"""Why MOCHA's joins miss on fresh seeds: the rehearsal's choices, and the joins at forced choices.

On the splits of ``benchmarks/new_nodes.py`` (MOCHA at its defaults) this
prints, per data set, seed and ``k``: the fitted share, the rehearsal's
table at the newcomers' size (mean held-out error per scale of ``c_n``,
the chosen scale and centre), the join, ``w_0`` alone, Global and Local
(best of the standard baselines), and the joins with every newcomer's
scale forced to each of ``--scales`` (the rehearsed centre kept) and with
the centre forced to each candidate (the rehearsed scale kept).

    python benchmarks/new_nodes_mocha_seeds.py --datasets har,moons --seeds 3,4,5 --ks 5,10,20
"""

import argparse
import copy
import json
import warnings

import new_nodes as nn
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skfed.multitask import _rehearsal


def forced_join(est, Xk, yk, gk, Xt, gt, scale=None, centre=None):
    joined = copy.deepcopy(est)
    reh = joined._join_rehearsal
    if scale is not None:
        original = reh.scales

        def scales(counts, one_class=None):
            out, asked = original(counts, one_class)
            return np.full(len(counts), float(scale)), asked
        reh.scales = scales
    if centre is not None:
        saved = _rehearsal.choose_centre
        _rehearsal.choose_centre = lambda found, owners: min(centre, len(found) - 1)
    try:
        joined.add_nodes(Xk, yk, groups=gk)
    finally:
        if centre is not None:
            _rehearsal.choose_centre = saved
    return joined.predict(Xt, groups=gt), joined


def run(name, seed, ks, forced_scales, out):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    est = nn.make_estimator("mocha", task, seed)
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    reh = est._join_rehearsal
    n_centres = 0 if reh is None else len(reh.centres)
    print(f"{name} seed {seed}: share {est.shared_weight_:.3f}, centres "
          f"{None if reh is None else reh.centre_shares.tolist()}, sizes "
          f"{None if reh is None else reh.sizes.tolist()}", flush=True)
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], groups[train]
        Xt, yt, gt = X[test], y[test], groups[test]
        pooled, local = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
        joined = copy.deepcopy(est)
        joined.add_nodes(Xk, yk, groups=gk)
        row = {"dataset": name, "seed": seed, "k": k,
               "join": nn.score(task, yt, joined.predict(Xt, groups=gt)),
               "w0": nn.score(task, yt, est.predict(Xt, groups=gt)),
               "pooled": pooled, "locals": local}
        r = joined._join_rehearsal
        if r is not None and len(r.sizes):
            near, _ = _rehearsal.nearest_size(np.array([k]), r.sizes)
            a = r.usable[int(near[0])]
            errors, se = r.results[a]
            row["size"] = int(r.sizes[near[0]])
            row["errors"] = np.round(errors, 4).tolist()
            row["se"] = np.round(se, 4).tolist()
            row["scale"] = _rehearsal.REHEARSAL_SCALES[_rehearsal.size_scale(errors, se)]
            row["centre"] = int(r.centre_of.get(a, 0))
        counts = np.unique(gk, return_counts=True)
        one = [len(np.unique(yk[gk == node])) == 1 for node in counts[0]]
        row["one_class_newcomers"] = int(np.sum(one))
        row["scales"] = {}
        for s in forced_scales:
            pred, _ = forced_join(est, Xk, yk, gk, Xt, gt, scale=s)
            row["scales"][str(s)] = nn.score(task, yt, pred)
        row["centres"] = {}
        for c in range(n_centres):
            pred, _ = forced_join(est, Xk, yk, gk, Xt, gt, centre=c)
            row["centres"][str(c)] = nn.score(task, yt, pred)
        print(json.dumps({key: (round(v, 3) if isinstance(v, float) else v)
                          for key, v in row.items()}), flush=True)
        if out:
            with open(out, "a") as fh:
                fh.write(json.dumps(row) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har,moons")
    parser.add_argument("--seeds", default="3,4,5")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--scales", default="0,0.0625,0.25,1,4,16,64")
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    warnings.simplefilter("ignore", ConvergenceWarning)
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in map(int, args.seeds.split(",")):
                run(name, seed, [int(k) for k in args.ks.split(",")],
                    [float(s) for s in args.scales.split(",")], args.out)


if __name__ == "__main__":
    main()
