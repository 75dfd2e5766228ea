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
        [--ks 5,10,20] [--baselines] [--out FILE]

Result (30 November 2026, 2 cores; identical before and after the change
except the rounds): see the "History" below.

History
-------
(filled in by the runs below)
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


def run(seed, drop, ks, with_baselines):
    X, y, groups, task = load("landmine", seed)
    fit_rows, new, order = split(X, y, groups, seed)
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
        row = dict(drop=drop, seed=seed, k=k,
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
    p.add_argument("--out", default=None)
    a = p.parse_args()
    rows = []
    for drop in [float(v) for v in a.drops.split(",")]:
        for seed in [int(v) for v in a.seeds.split(",")]:
            rows += run(seed, drop, [int(v) for v in a.ks.split(",")], a.baselines)
    if a.out:
        with open(a.out, "w") as f:
            json.dump(rows, f)


if __name__ == "__main__":
    main()
