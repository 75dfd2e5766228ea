"""MOCHA newcomers with an open feature-mean gate: the scale rehearsed around each draw's own centre.

Issue 32, mochapop37.  ``benchmarks/landneg36_mocha_centre.py`` found that
with the gate open a two-class MOCHA newcomer's rehearsed scale times 0.25
lifts Landmine seeds 6-11 at ``k = 10, 20``: the scale was rehearsed around
``w_0`` but applied around the neighbours' mean model, a better prior.  The
package now rehearses it around the centre actually used
(:mod:`skfed.multitask._rehearsal_centres`: each draw solves toward the
mean model of the fitted nodes, other than its own, nearest its ``k``
samples' feature mean).  Columns, on ``new_nodes.py``'s split and MOCHA's
default fit (one fit per seed, every variant a copy of it):

* ``join``: the package (each draw toward its own centre; a two-class
  newcomer's scale from the draws holding two classes);
* ``centres``: the draws' centres, but two-class newcomers' scale from
  all the draws (not only the two-class ones);
* ``w0 reh``: the rehearsal around ``w_0`` as before (the copy's
  ``_join_rehearsal.around`` set to None: bit for bit the old join);
* ``x0.25``: that, with two-class newcomers' scale times 0.25 (landneg36);
* ``global`` / ``local``: ``new_nodes.py``'s best pooled / per-node
  baseline (without the fit's unseen-node prediction);
* ``open``: fits whose gate opened (elsewhere all three are equal);
* ``kB``: the join's bytes (package / before).

    python benchmarks/mochapop37_draw_centres.py --datasets landmine \\
        --seeds 0,1,2,3,4,5,6,7,8,9,10,11
    python benchmarks/mochapop37_draw_centres.py --any-cost --seeds 0,1,2 \\
        --datasets clustered-shifted,clustered-shifted-corr,clustered-shifted-weak,shifted-alike

Results (2026-11-30, main 92a0d0d4 + this branch, mochapop37; one BLAS thread, nice)
-------------------------------------------------------------------------------------

Why landneg36's 0.25 worked, at the cause (Landmine seed 8, size 10, the
32 draws' mean error at scales 1 / 4 / 1/4 / 1/16 / 0): around ``w_0``
0.0660 / 0.0738 / 0.0647 / 0.0647 / 0.0651, around each draw's own
centre 0.0631 / 0.0719 / 0.0620 / 0.0619 / 0.0618: centred as its
newcomer is, a draw gains from trusting the centre more, but by 1.0 of
the 1.4 standard errors the size's rule asks.  The draws holding two
classes carry the signal (0.0633 at 1 against 0.0584 at 0, 2.6 standard
errors; the one-class draws are flat, 0.0630-0.0642), which is where
landneg36 found the false positives; a two-class newcomer takes their
scale (as a one-class newcomer already takes its one-class draws').  No
constant: the join's own placement at the draw's size.

Landmine, the gate open on all 36 fits (``kB``: the join's bytes)::

    seeds  k    join centres  w0 reh   x0.25  global   local   kB join / w0 reh
    0-2    5   94.01   94.01   94.06   93.97   93.81   93.54   19.8 / 14.6
    0-2   10   93.94   93.94   94.00   93.97   93.77   93.58   19.8 / 14.6
    0-2   20   94.10   94.10   93.94   94.07   93.78   93.57   19.8 / 14.6
    3-5    5   93.90   93.95   93.98   93.98   93.48   93.22   20.0 / 14.8
    3-5   10   93.78   93.77   93.72   93.77   93.45   93.31   19.9 / 14.7
    3-5   20   93.96   93.96   93.86   93.90   93.42   93.18   19.9 / 14.7
    6-11   5   94.36   94.35   94.37   94.41   94.51   94.42   19.9 / 14.7
    6-11  10   94.56   94.44   94.25   94.50   94.52   94.44   19.9 / 14.7
    6-11  20   94.60   94.59   94.50   94.66   94.50   94.43   19.9 / 14.7

Held out, seeds 0-2, the gate forced open (``--any-cost``; by default
MOCHA runs no gate on these 100-node federations and nothing changes;
shifted-alike's gate stays shut, every column equal, 91.84 / 92.50 /
93.58)::

    clustered-shifted       5   77.93   78.44   76.00   77.62   80.51   68.62
                           10   78.95   79.19   78.43   79.60   80.31   73.60
                           20   80.44   80.44   80.47   80.56   80.92   75.86
    clustered-shifted-corr  5   79.33   78.93   77.98   79.07   68.80   63.02
                           10   78.55   78.55   77.14   78.33   68.86   68.10
                           20   79.81   79.81   76.69   78.50   70.03   71.14
    clustered-shifted-weak  5   76.38   76.38   75.47   76.71   69.11   59.64
                           10   75.69   75.69   76.26   76.48   68.79   64.05
                           20   77.72   77.72   77.72   77.86   69.56   69.19

Reading: Landmine seeds 6-11 at ``k = 10, 20`` go from 94.25 / 94.50 to
94.56 / 94.60, at pooled ``SVC()`` (94.52 / 94.50), like landneg36's x0.25
(94.50 / 94.66) without its constant; ``k = 5`` does not move (placement);
seeds 0-2 -0.05 / -0.06 / +0.16 and 3-5 -0.08 / +0.06 / +0.10, every row
still above Global and Local.  Held out with the gate forced open: +0.9
on average (up to +3.1 on the correlated clusters), one cell lost,
clustered-shifted-weak ``k = 10`` -0.57 (seeds 0 and 2 -0.85 each; the
draws' centres alone, the two-class rule does not act there), where
x0.25 gained +0.22.  Bytes: each rehearsing draw sends its mean and gets
its centre, float32 (in float64 the join was 24.8 kB): Landmine's first
join 14.7 -> 19.9 kB.
"""

import argparse
import copy
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import landneg36_mocha_centre as ln
import new_nodes as nn
import new_nodes_maha_landmine as maha

VARIANTS = ("join", "centres", "w0 reh", "x0.25")


class _Nothing(dict):
    """A dict that keeps nothing (no two-class draws' results)."""

    def __setitem__(self, key, value):
        pass


def variant(base, name):
    """A copy of the fitted ``base`` joined as ``name`` (see the module)."""
    gate = base._join_rehearsal.neighbours
    if name == "x0.25" and gate is not None and gate.open:
        # (landneg36's wrapper: two-class newcomers' scale x 0.25)
        est = ln.scaled(base, 0.25, False)
        est._join_rehearsal.around = None
        return est
    est = copy.deepcopy(base)
    if name == "centres":
        est._join_rehearsal.two_class = _Nothing()
    elif name != "join":
        est._join_rehearsal.around = None
    return est


def run(name, seed, ks, baselines=True):
    X, y, groups, task, *extra = maha.load(name, seed)
    fit_rows, _, order = nn.split(X, y, groups, seed, *extra[:1])
    base = nn.make_estimator("mocha", task, seed).fit(X[fit_rows], y[fit_rows],
                                                      groups=groups[fit_rows])
    reh = getattr(base, "_join_rehearsal", None)
    is_open = bool(reh is not None and reh.neighbours is not None and reh.neighbours.open)
    rows = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xt, yt, gt = X[test], y[test], groups[test]
        row = {"dataset": name, "seed": seed, "k": k, "open": is_open}
        for v in VARIANTS:
            est = variant(base, v) if reh is not None else copy.deepcopy(base)
            est.add_nodes(X[train], y[train], groups=groups[train])
            row[v] = nn.score(task, yt, est.predict(Xt, groups=gt))
            row[v + " B"] = int(est.join_communication_.total_bytes)
        if baselines:  # (the best pooled and per-node baselines)
            found = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
            row.update(zip(("global", "local"), (max(f.values()) for f in found)))
        print(row, flush=True)
        rows.append(row)
    return rows


def summarize(rows, blocks):
    """landneg36's table of these columns, then the joins' bytes."""
    ln.VARIANTS = dict.fromkeys(VARIANTS)
    ln.summarize(rows, blocks)
    for name in dict.fromkeys(r["dataset"] for r in rows):
        sel = [r for r in rows if r["dataset"] == name]
        print(f"{name}: join kB {np.mean([r['join B'] for r in sel]) / 1e3:.1f}, "
              f"rehearsed around w0 {np.mean([r['w0 reh B'] for r in sel]) / 1e3:.1f}")


OPTIONS = (("--datasets", {"default": "landmine"}), ("--seeds", {"default": "0,1,2"}),
           ("--ks", {"default": "5,10,20"}), ("--no-baselines", {"action": "store_true"}),
           ("--out", {"help": "also write the rows as JSON"}),
           ("--from-json", {"help": "only summarize these JSON files' rows (comma-separated)"}),
           ("--any-cost", {"action": "store_true",
                           "help": "run MOCHA's gate whatever its share of the fit's bytes"}))


def main():
    p = argparse.ArgumentParser()
    for flag, kwargs in OPTIONS:
        p.add_argument(flag, **kwargs)
    a = p.parse_args()
    if a.any_cost:
        from skfed.multitask import _join_neighbours

        _join_neighbours.GATE_BYTE_SHARE = np.inf
    rows = []
    for f in a.from_json.split(",") if a.from_json else ():
        with open(f) as fh:
            rows += json.load(fh)
    if not a.from_json:
        ks = [int(k) for k in a.ks.split(",")]
        rows = [row for name in a.datasets.split(",") for seed in map(int, a.seeds.split(","))
                for row in run(name, seed, ks, not a.no_baselines)]
    if a.out:
        with open(a.out, "w") as fh:
            json.dump(rows, fh)
    seeds = {r["seed"] for r in rows}
    summarize(rows, [(f"{lo}-{hi}", range(lo, hi + 1))
                     for lo, hi in ((0, 2), (3, 5), (6, 8), (9, 11), (0, 5), (6, 11))
                     if seeds & set(range(lo, hi + 1))])


if __name__ == "__main__":
    main()
