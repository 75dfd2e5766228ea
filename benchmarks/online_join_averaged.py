"""Online graph join: neighbours' raw iterates or their averaged functions.

tidy26 (issue 32).  In step 2 of the online learner's graph join
(``skfed/online/_join.py``, ``_join_receive``) a newcomer downloads its
chosen neighbours' functions and may start from a combination of them.  It
receives their raw iterates (as their graph neighbours hold them), while a
fitted node predicts with its averaged iterate (``average=0.5``:
``dictionaries_`` / ``dual_coef_``).  ``skfed.online._join._JOIN_RECEIVES``
chooses which; this script fits the default estimator once per data set and
seed (``benchmarks/new_nodes.py``'s split and ``k`` samples), joins the same
newcomers both ways on copies of that fit and prints the newcomers' test
score (accuracy, R^2 x 100 for School), the join's bytes and how many
newcomers started from their neighbours (``join_start_``)::

    python benchmarks/online_join_averaged.py --datasets moons,har,school \
        --seeds 0,1,2 --ks 5,10,20

Result: see the report of branch tidy26 (filled in below when measured).
"""

import argparse
import copy
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes  # noqa: E402  (the benchmark's data, split and estimator)
from skfed.online import _join  # noqa: E402

WAYS = ("raw", "averaged")


def run(name, seed, ks):
    data = new_nodes.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = new_nodes.split(X, y, groups, seed, extra)
    base = new_nodes.make_estimator("online", task, seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    rows = []
    for k in ks:
        train, test = new_nodes.new_node_rows(order, k)
        row = {"dataset": name, "seed": seed, "k": k}
        for way in WAYS:
            _join._JOIN_RECEIVES = way
            joined = copy.deepcopy(base)
            joined.add_nodes(X[train], y[train], groups=groups[train])
            pred = joined.predict(X[test], groups=groups[test])
            starts = np.asarray(joined.join_start_, dtype=object)
            row[way] = round(new_nodes.score(task, y[test], pred), 3)
            row[way + "_bytes"] = int(joined.join_communication_.total_bytes)
            row[way + "_neighbours"] = int(np.sum(starts == "neighbours"))
        _join._JOIN_RECEIVES = "raw"
        row["n_new"] = len(new)
        print(json.dumps(row), flush=True)
        rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default="moons,har,school")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    rows = []
    for name in args.datasets.split(","):
        for seed in [int(s) for s in args.seeds.split(",")]:
            rows += run(name, seed, ks)
    print("dataset   k    raw  averaged  (means over seeds; bytes ratio averaged/raw)")
    for name in args.datasets.split(","):
        for k in ks:
            sel = [r for r in rows if r["dataset"] == name and r["k"] == k]
            raw = np.mean([r["raw"] for r in sel])
            avg = np.mean([r["averaged"] for r in sel])
            ratio = np.sum([r["averaged_bytes"] for r in sel]) / np.sum([r["raw_bytes"] for r in sel])
            print(f"{name:9s} {k:2d} {raw:7.2f} {avg:8.2f}  {ratio:.3f}")


if __name__ == "__main__":
    main()
