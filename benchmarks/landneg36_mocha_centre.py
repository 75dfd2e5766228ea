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

Only fits whose gate opened are changed (elsewhere every variant is a
plain copy of the fit: the join).  Global / Local: the best pooled / per-node baseline of
``new_nodes.py``.

    python benchmarks/landneg36_mocha_centre.py --datasets landmine \\
        --seeds 0,1,2,3,4,5,6,7,8,9,10,11
    python benchmarks/landneg36_mocha_centre.py --any-cost --seeds 0,1,2 \\
        --datasets clustered-shifted,clustered-shifted-corr,clustered-shifted-weak,shifted-alike

Results (2026-11-29, main bcda3b7, landneg36; one BLAS thread, nice)
--------------------------------------------------------------------

Landmine (the gate opens on all 12 fits; Global / Local here the best
pooled / per-node baseline, without the fit's unseen-node prediction)::

    seeds  k   join  two 0.5 two 0.25 two 0.1  two 0   global  local
    0-2    5   94.06  94.03   93.97   93.95   93.94   93.81  93.54
    0-2   10   94.00  93.96   93.97   93.97   93.96   93.77  93.58
    0-2   20   93.94  94.00   94.07   94.12   94.09   93.78  93.57
    3-5    5   93.98  93.98   93.98   93.99   93.99   93.48  93.22
    3-5   10   93.72  93.76   93.77   93.78   93.78   93.45  93.31
    3-5   20   93.86  93.89   93.90   93.90   93.90   93.42  93.18
    6-8    5   94.23  94.23   94.23   94.23   94.23   94.47  94.37
    6-8   10   94.32  94.53   94.59   94.70   94.73   94.48  94.35
    6-8   20   94.47  94.67   94.70   94.74   94.70   94.50  94.39
    9-11   5   94.51  94.57   94.58   94.58   94.54   94.55  94.46
    9-11  10   94.18  94.36   94.40   94.44   94.44   94.55  94.53
    9-11  20   94.53  94.62   94.62   94.56   94.49   94.50  94.47
    6-11   5   94.37  94.40   94.41   94.41   94.39   94.51  94.42
    6-11  10   94.25  94.45   94.50   94.57   94.58   94.52  94.44
    6-11  20   94.50  94.65   94.66   94.65   94.59   94.50  94.43

Held out, seeds 0-2, the gate forced open (``--any-cost``: by default
MOCHA runs no gate on these 100-node federations, so nothing would change
there; shifted-alike's gate stays shut, every variant equal)::

    clustered-shifted       5  76.00  76.89   77.62   78.38   78.22   80.51  68.62
                           10  78.43  78.81   79.60   79.55   78.93   80.31  73.60
                           20  80.47  80.89   80.56   80.22   79.08   80.92  75.86
    clustered-shifted-corr  5  77.98  78.47   79.07   79.58   79.09   68.80  63.00
                           10  77.14  77.90   78.33   78.76   78.02   68.86  68.10
                           20  76.69  77.75   78.50   79.19   77.94   70.03  71.14
    clustered-shifted-weak  5  75.47  76.36   76.71   76.22   75.98   69.11  59.64
                           10  76.26  76.62   76.48   76.00   75.69   68.79  64.05
                           20  77.72  78.39   77.86   76.72   75.89   69.56  69.19

Reading: a smaller data weight around the neighbours' centre helps
Landmine's two-class newcomers (seed 8 ``k = 10``: 94.10 -> 94.72 at
0.25, 95.08 at 0), which is where ``landneg36_sources.py`` found most of
MOCHA's ``k = 10, 20`` false positives.  Chosen on seeds 6-8 alone, ``f
= 0`` or ``0.1`` would win, but both lose on the held-out weak clusters
(``k = 20``: -1.83 and -1.00; ``f = 0`` also -1.39 on clustered-shifted).
``f = 0.25`` is the smallest value of the grid with no held-out loss
(gains +0.09 .. +1.81), found after seeing the held-out runs (so they
helped choose it); with it Landmine's seeds 6-11 read 94.41 / 94.50 /
94.66 against pooled 94.51 / 94.52 / 94.50 (``k = 10`` 0.02 under), seeds
0-2 93.97 / 93.97 / 94.07 (still over 93.81 / 93.77 / 93.78), seeds 0-5
within -0.05 .. +0.09.  ``k = 5`` does not move (placement,
``landneg36_sources.py``).  Not in the package: the scale is applied in
``skfed/multitask/_join.py`` (not landneg36's file; the change would be
``c = c * np.where(one_class, 1.0, 0.25)`` where the gate is open, which
sends no other bytes and leaves the fitted models untouched).  A
principled form would rehearse the scale around each rehearsing draw's
own feature-mean centre instead of ``w_0``.
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
