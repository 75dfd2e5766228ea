"""MOCHA newcomers centred on their feature-mean neighbours (issue 32).

``skfed.multitask._join_neighbours``: when the fit's gate is open (every
fitted node's gain from its 5 nearest-feature-mean peers' mean model over
all others' on its own rows has t > 2), a newcomer's prior centre is the
size-weighted mean model of the 5 fitted nodes nearest its own samples'
feature mean.  Variants, from one fit per data set and seed (the splits
of ``benchmarks/new_nodes.py``):

* ``off``: the join without the gate (the threshold at infinity);
* ``centre``: the default, the neighbours' mean as the centre at the
  newcomer's rehearsed scale;
* ``near``: the neighbours' mean as the newcomer's model (scale 0: the
  rule ``gatenear5`` of ``new_nodes_landmine_neighbours.py``).

Command::

    python benchmarks/new_nodes_mocha_neighbours.py --datasets landmine \
        --seeds 0,1,2 --ks 5,10,20

Results: see the end of this docstring (filled in as measured).
"""

import argparse
import copy
import sys
import warnings

import new_nodes as nn
import numpy as np
from new_nodes_mocha_centre_heldout import FAMILIES as BIG
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skfed.multitask import _join_neighbours as jn

VARIANTS = {"off": (np.inf, None), "centre": (jn.GATE_T, None), "near": (jn.GATE_T, 0.0)}


nn.RELATED.update(BIG)  # the held-out families of 40 nodes of 150 samples


def run(name, seed, ks, variants):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("mocha", task, seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    gate = getattr(getattr(base, "_join_rehearsal", None), "neighbours", None)
    t = gate.t if gate is not None else float("nan")
    print(f"{name:18s} seed {seed} gate t {t:+.2f} open {gate is not None and gate.open}",
          flush=True)
    out = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        line = []
        for variant in variants:
            threshold, scale = VARIANTS[variant]
            old = (jn.GATE_T, jn.NEIGHBOUR_SCALE)
            jn.NEIGHBOUR_SCALE = scale
            joined = copy.deepcopy(base)
            if gate is not None:
                joined._join_rehearsal.neighbours.open = bool(gate.t > threshold)
            try:
                nn.add_nodes(joined, X[train], y[train], groups[train])
            finally:
                jn.GATE_T, jn.NEIGHBOUR_SCALE = old
            acc = nn.score(task, y[test], joined.predict(X[test], groups=groups[test]))
            nbytes = int(joined.join_communication_.total_bytes)
            line.append(f"{variant} {acc:6.2f} ({nbytes} B)")
            out.append((name, seed, k, variant, acc, nbytes))
        print(f"{name:18s} seed {seed} k {k:2d} " + "  ".join(line), flush=True)
    return out


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", default="landmine")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--ks", default="5,10,20")
    p.add_argument("--variants", default="off,centre,near")
    a = p.parse_args(argv)
    names = a.datasets.split(",")
    if names == ["related"]:
        names = list(nn.RELATED)
    variants = a.variants.split(",")
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        for name in names:
            for seed in map(int, a.seeds.split(",")):
                rows += run(name, seed, [int(k) for k in a.ks.split(",")], variants)
    for name in names:
        for k in sorted({r[2] for r in rows}):
            cells = []
            for v in variants:
                accs = [r[4] for r in rows if r[0] == name and r[2] == k and r[3] == v]
                cells.append(f"{v} {np.mean(accs):6.2f}")
            print(f"MEAN {name:18s} k {k:2d} " + "  ".join(cells))


if __name__ == "__main__":
    sys.exit(main())
