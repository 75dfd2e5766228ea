"""The network function's size cap against its score and bytes (issue 32).

Every online fit ends with the network function, the mean of the nodes'
functions compressed by KOMP to ``epsilon`` and ``max_dictionary_size``
(see ``skfed/online/_network_function.py``).  On HAR the cap binds (the
mean of 24 functions of 100 points each), and the network function, which
a joining node starts from, loses against the uncompressed mean.  This
fits the online classifier / regressor at its defaults on the fitted nodes
of ``benchmarks/new_nodes.py``'s split (80 % of the nodes) and rebuilds the
network function of that fit with the cap at several sizes; for each it
prints the score on the new nodes' test samples (those of ``k = 10``), the
relative RMS distance of its values there to the uncompressed mean's, its
bytes (``network_communication_``) and the fit's bytes, and its CPU time.

    python benchmarks/online_network_budget.py [--datasets har,landmine] \
        [--seeds 0,1,2] [--sizes 100,200,300,400,600]
"""

import argparse
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes as nn  # noqa: E402


def _score(est, task, y, F):
    if task != "classification":
        return nn.score(task, y, F[:, 0])
    index = (F[:, 0] > 0).astype(int) if F.shape[1] == 1 else F.argmax(axis=1)
    return nn.score(task, y, est.classes_[index])


def run(name, seed, sizes):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, order = nn.split(X, y, groups, seed, extra)
    est = nn.make_estimator("online", task, seed)
    cpu = time.process_time()
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    cpu = time.process_time() - cpu
    _, test = nn.new_node_rows(order, 10)
    Xt, yt = X[test], y[test]
    mean = np.mean([est._node_function(i, Xt) for i in range(len(est.nodes_))], axis=0)
    print(f"{name} seed {seed}: fit {cpu:.1f} s CPU, {est.communication_.total_bytes} bytes; "
          f"uncompressed mean {_score(est, task, yt, mean):.2f}", flush=True)
    cap = est._max_size
    rows = []
    for size in sizes:
        est._max_size = size
        cpu = time.process_time()
        log = est._build_network_function()
        cpu = time.process_time() - cpu
        F = est._network_values(Xt)
        distance = np.sqrt(np.mean((F - mean) ** 2) / np.mean(mean ** 2))
        rows.append((size, len(est.network_dictionary_[0]), _score(est, task, yt, F),
                     distance, log.total_bytes, cpu))
        print(f"  cap {size:4d}: {rows[-1][1]:4d} points, score {rows[-1][2]:.2f}, "
              f"distance {distance:.3f}, {log.total_bytes} bytes, {cpu:.1f} s CPU", flush=True)
    est._max_size = cap
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--sizes", default="100,200,300,400,600")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    for name in args.datasets.split(","):
        results = [run(name, int(seed), sizes) for seed in args.seeds.split(",")]
        print(f"{name}: mean over the seeds")
        for i, size in enumerate(sizes):
            score = np.mean([r[i][2] for r in results])
            size_bytes = np.mean([r[i][4] for r in results])
            print(f"  cap {size:4d}: score {score:.2f}, {size_bytes / 1e6:.2f} MB")


if __name__ == "__main__":
    main()
