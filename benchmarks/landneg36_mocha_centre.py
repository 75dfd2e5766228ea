"""MOCHA newcomers with an open feature-mean gate: how much should their own samples weigh?

Issue 32, landneg36.  ``benchmarks/landneg36_sources.py`` found that on
Landmine's fresh seeds most of MOCHA's false positives at ``k = 10, 20``
come from newcomers whose samples hold 1-2 positives: each solves its own
problem around its centre at the scale its size rehearsed.  With the gate
open that centre is the mass-weighted mean model of its 5 feature-nearest
fitted nodes, but the scale was rehearsed around the fitted ``w_0`` (or
the rehearsal's centre), a far weaker prior on Landmine; Perso-lin's
newcomers in the same situation take the mean model with no solve
(:mod:`skfed._mean_neighbours`).  This measures, on ``new_nodes.py``'s
split and MOCHA's default fit, the join with the newcomers' rehearsed
scale multiplied by ``f`` (a fitted copy whose rehearsal's ``scales`` is
wrapped; the package is unchanged):

* ``two f``: newcomers whose ``k`` labels hold two classes, ``f = 0.5,
  0.25, 0.1, 0`` (``0``: the centre itself, the newcomer's samples weigh
  nothing; one-class newcomers keep their one-class rehearsal's scale).

Only fits whose gate opened are changed (elsewhere every variant is the
join, checked).  Global / Local: the best pooled / per-node baseline of
``new_nodes.py``.

    python benchmarks/landneg36_mocha_centre.py --datasets landmine \\
        --seeds 0,1,2,3,4,5,6,7,8,9,10,11
    python benchmarks/landneg36_mocha_centre.py --any-cost \\
        --datasets clustered-shifted,clustered-shifted-corr,clustered-shifted-weak --seeds 0,1,2
"""

import argparse
import copy
import os
import sys
import types

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn
import new_nodes_maha_landmine as maha

VARIANTS = {"join": (1.0, False), "two 0.5": (0.5, False), "two 0.25": (0.25, False),
            "two 0.1": (0.1, False), "two 0": (0.0, False)}


def scaled(base, f, every):
    """A copy of the fitted ``base`` whose newcomers' rehearsed scales are
    multiplied by ``f`` (two-class newcomers only unless ``every``)."""
    est = copy.deepcopy(base)
    reh = est._join_rehearsal
    inner = reh.scales

    def scales(self, counts, one_class=None):
        s, asked = inner(counts, one_class)
        pick = (np.ones(len(s), bool) if every or one_class is None
                else ~np.asarray(one_class, dtype=bool))
        return np.where(pick, s * f, s), asked

    reh.scales = types.MethodType(scales, reh)
    return est


def run(name, seed, ks, baselines=True):
    data = maha.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("mocha", task, seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    gate = getattr(base._join_rehearsal, "neighbours", None)
    is_open = gate is not None and gate.open
    rows = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xt, yt, gt = X[test], y[test], groups[test]
        row = {"dataset": name, "seed": seed, "k": k, "open": is_open}
        for v, (f, every) in VARIANTS.items():
            est = scaled(base, f, every) if is_open else copy.deepcopy(base)
            est.add_nodes(X[train], y[train], groups=groups[train])
            row[v] = nn.score(task, yt, est.predict(Xt, groups=gt))
        if baselines:
            pooled, local = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
            row["global"] = max(pooled.values())
            row["local"] = max(local.values())
        print(row, flush=True)
        rows.append(row)
    return rows


def summarize(rows, blocks):
    cols = list(VARIANTS) + [c for c in ("global", "local") if c in rows[0]]
    print(f"{'data':24s} {'seeds':6s} {'k':>3s} open " + " ".join(f"{c:>8s}" for c in cols))
    for name in dict.fromkeys(r["dataset"] for r in rows):
        for label, seeds in blocks:
            for k in sorted({r["k"] for r in rows}):
                sel = [r for r in rows if r["dataset"] == name and r["k"] == k
                       and r["seed"] in seeds]
                if sel:
                    print(f"{name:24s} {label:6s} {k:3d} {sum(r['open'] for r in sel):4d} "
                          + " ".join(f"{np.mean([r[c] for r in sel]):8.2f}" for c in cols))


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", default="landmine")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--ks", default="5,10,20")
    p.add_argument("--no-baselines", action="store_true")
    p.add_argument("--any-cost", action="store_true",
                   help="run MOCHA's gate whatever its share of the fit's bytes")
    a = p.parse_args()
    if a.any_cost:
        from skfed.multitask import _join_neighbours

        _join_neighbours.GATE_BYTE_SHARE = np.inf
    seeds = [int(s) for s in a.seeds.split(",")]
    rows = []
    for name in a.datasets.split(","):
        for seed in seeds:
            rows += run(name, seed, [int(k) for k in a.ks.split(",")], not a.no_baselines)
    blocks = [(lab, s) for lab, s in (("0-2", (0, 1, 2)), ("3-5", (3, 4, 5)), ("6-8", (6, 7, 8)),
                                      ("9-11", (9, 10, 11)), ("0-5", range(6)),
                                      ("6-11", range(6, 12))) if set(s) & set(seeds)]
    summarize(rows, blocks)


if __name__ == "__main__":
    main()
