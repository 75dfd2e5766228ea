"""MOCHA's feature-mean gate exchange under the network's drops (mochagate34).

The gate of a MOCHA fit (:mod:`skfed.multitask._join_neighbours`) is decided
when the fit ends and its messages (each fitted node's mean up, two mean
models down, its gain up, an open gate's scatter up) are sent with the first
``add_nodes``.  This script fits the default
:class:`~skfed.multitask.FederatedMultiTaskClassifier` on Landmine's fitted
nodes (``benchmarks/new_nodes.py``'s 80 / 20 split) under
``SimulatedNetwork(drop_rate=r, random_state=seed)``, joins the new nodes
with ``k`` samples each and prints, per (drop rate, seed, k): the join's
accuracy on the new nodes' other samples, the gate's state, the join's bytes
(``join_communication_``), rounds, the bytes of its first three rounds and a
hash of the joined model's ``coef_`` / ``intercept_``; with ``--baselines``
also the row's Global (pooled LinearSVC / SVC / LogisticRegression), Local
(the same per new node) and a refit under the same network.

    python benchmarks/mochagate34_gate_drops.py --seeds 0,1,2 --drops 0,0.1 \
        [--ks 5,10,20] [--baselines] [--dataset landmine] [--out FILE]

Without drops every exchange is in the join's first round, as before.  With
a seeded network the join's fault stream starts where the fit's did
(``SimulatedNetwork.start``: the network's own ``random_state`` seeds it),
so each seed's draws are the same for k = 5, 10, 20.

History
-------
29 November 2026 (mochagate34), Landmine seeds 0-2, k = 5 / 10 / 20: the
rows, bytes and models (sha256 of ``coef_`` / ``intercept_``) are the same
before and after the change at drop_rate 0, 0.1 and 0.3 (18 + 3 joins
hash-identical; the MOCHA fit itself is the same under these drops: it
waits for dropped nodes).  Join / Global / Local (the best candidate of each
row; means over the seeds as in growing.rst's table: 94.1 / 93.8 / 93.5 at
k = 5) / refit,
join bytes over refit bytes (the same at both drop rates)::

    seed  k   join   Global Local  refit  bytes j/r
    0     5   93.85  93.57  93.26  88.95  0.070
    0    10   93.67  93.51  93.32  89.83  0.058
    0    20   93.29  93.52  93.32  92.39  0.069
    1     5   94.03  93.36  92.96  93.14  0.068
    1    10   93.74  93.33  92.92  91.88  0.063
    1    20   93.94  93.37  93.03  92.72  0.057
    2     5   94.30  94.48  94.39  94.27  0.058
    2    10   94.58  94.46  94.49  94.49  0.059
    2    20   94.61  94.45  94.36  94.42  0.066

What moved is the join's rounds (bytes of the first rounds in brackets)::

    drop  seed  before                      after
    0     0-2   1 [all]                     1 [all]
    0.1   0     1 [14,613]                  1 (all 29 nodes up in round 0)
    0.1   1     2 [14,782, 208]             6 [4,384, 0, 4,450, ...]
    0.1   2     1 [14,241]                  7 [3,797, 3,488, 4,924, ...]
    0.3   0     2 [14,197, 416]             2 (fitted nodes all up in round 0)
    0.3   1     2 [14,574, 416]             14 [3,067, 904, 426, ...]
    0.3   2     2 [13,825, 416]             10 [3,447, 2,638, 2,200, ...]

(k = 5 shown at 0.1 and 0.3; k = 10, 20 take the same rounds.)  Before, the
gate's and the rehearsal's messages of every fitted node were in round 0
even when the node was dropped there.  Commands: this script at main
7781cb8 and at the branch, ``--seeds 0,1,2 --drops 0,0.1 --baselines`` and
``--seeds 0,1,2 --drops 0.3 --ks 5``.

Held out (``--dataset moons / related-clustered / har --seeds 0,1 --drops
0,0.1 --ks 5``, before and after): no gate there (its exchange would cost
more than 5 % of the fit's bytes), so only the rehearsal's request and
report move; every join hash-identical with the same bytes (moons 5,553 /
5,538, related-clustered 5,697 / 5,562, HAR 20,297 / 20,293 B); rounds at
drop_rate 0.1, seeds 0 / 1: moons 2 / 2 -> 3 / 4, related-clustered 2 / 2
-> 3 / 2, HAR 1 / 1 -> 1 / 4; 1 round each without drops.
"""

import argparse
import copy
import hashlib
import json
import os
import sys

import numpy as np
from sklearn.base import clone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from new_nodes import baselines, load, new_node_rows, score, split  # noqa: E402

from skfed.multitask import FederatedMultiTaskClassifier  # noqa: E402
from skfed.network import SimulatedNetwork  # noqa: E402


def model_hash(est):
    h = hashlib.sha256()
    for a in (est.coef_, est.intercept_):
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:12]


def run(seed, drop, ks, with_baselines, dataset="landmine"):
    data = load(dataset, seed)
    X, y, groups, task = data[:4]
    fit_rows, new, order = split(X, y, groups, seed, data[4] if len(data) > 4 else None)
    net = SimulatedNetwork(drop_rate=drop, random_state=seed)
    base = FederatedMultiTaskClassifier(random_state=seed, network=net)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    rows = []
    for k in ks:
        train, test = new_node_rows(order, k)
        joined = copy.deepcopy(base)
        joined.add_nodes(X[train], y[train], groups=groups[train])
        log = joined.join_communication_
        gate = getattr(getattr(base, "_join_rehearsal", None), "neighbours", None)
        row = dict(dataset=dataset, drop=drop, seed=seed, k=k,
                   join=score(task, y[test], joined.predict(X[test], groups=groups[test])),
                   gate=None if gate is None else ("open" if gate.open else "closed"),
                   join_bytes=int(log.total_bytes), rounds=int(log.n_rounds),
                   first_rounds=np.asarray(log.bytes_per_round[:3]).tolist(),
                   fit_bytes=int(base.communication_.total_bytes), hash=model_hash(joined))
        if with_baselines:
            pooled, local = baselines(task, X, y, groups, fit_rows, train, test, k)
            refit = clone(base).fit(np.concatenate([X[fit_rows], X[train]]),
                                    np.concatenate([y[fit_rows], y[train]]),
                                    groups=np.concatenate([groups[fit_rows], groups[train]]))
            row.update(global_=max(pooled.values()), local=max(local.values()),
                       refit=score(task, y[test], refit.predict(X[test], groups=groups[test])),
                       refit_bytes=int(refit.n_bytes_sent_))
        print(json.dumps({key: (round(v, 3) if isinstance(v, float) else v)
                          for key, v in row.items()}), flush=True)
        rows.append(row)
    return rows


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--drops", default="0,0.1")
    p.add_argument("--ks", default="5,10,20")
    p.add_argument("--baselines", action="store_true")
    p.add_argument("--dataset", default="landmine",
                   help="a data set of benchmarks/new_nodes.py (landmine, moons, har, related-*)")
    p.add_argument("--out", default=None)
    a = p.parse_args()
    rows = []
    for drop in [float(v) for v in a.drops.split(",")]:
        for seed in [int(v) for v in a.seeds.split(",")]:
            rows += run(seed, drop, [int(v) for v in a.ks.split(",")], a.baselines,
                        a.dataset)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f)


if __name__ == "__main__":
    main()
