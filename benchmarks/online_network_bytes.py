"""Bytes of the online learner's network function and what a cap on its size costs.

Fits the online classifier or regressor at its defaults on the fitted nodes
of ``benchmarks/new_nodes.py``'s split, then rebuilds its network function
(:mod:`skfed.online._network_function`) with

* every point sent as values (``refs=off``, the protocol before points were
  sent by reference) and with references (``refs=on``, the default);
* its size capped below ``max_dictionary_size`` (``--caps``), with
  references;

and prints, for each: the network function's bytes and their share of the
fit's bytes (rounds plus network function), the score of the newcomers'
test samples predicted as unknown nodes (``handle_unknown="global"``, the
network function itself) and the join's score at every ``k`` (accuracy, R^2
x 100 for School).

    python benchmarks/online_network_bytes.py [--datasets har,moons] [--seeds 0] \\
        [--ks 5,10,20] [--caps 70,50]
"""

import argparse
import copy
import json
import time

from new_nodes import add_nodes, load, make_estimator, new_node_rows, score, split


def rebuild(est, cap=None, references=True):
    """``est`` with its network function rebuilt; returns (copy, bytes)."""
    est = copy.deepcopy(est)
    if cap is not None:
        est._max_size = cap
    log = est._build_network_function(references=references)
    return est, log.total_bytes


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har,moons")
    parser.add_argument("--seeds", default="0")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--caps", default="70,50")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    caps = [int(c) for c in args.caps.split(",") if c]
    rows = []
    for name in args.datasets.split(","):
        for seed in [int(s) for s in args.seeds.split(",")]:
            data = load(name, seed)
            X, y, groups, task = data[:4]
            fit_rows, _, order = split(X, y, groups, seed, data[4] if len(data) > 4 else None)
            start = time.process_time()
            est = make_estimator("online", task, seed).fit(
                X[fit_rows], y[fit_rows], groups=groups[fit_rows])
            fit_cpu = time.process_time() - start
            rounds = est.communication_.total_bytes
            variants = [("refs=off", None, False), ("refs=on", None, True)]
            variants += [(f"cap={c}", c, True) for c in caps]
            for label, cap, refs in variants:
                built, nbytes = rebuild(est, cap, refs)
                row = dict(dataset=name, seed=seed, variant=label,
                           size=len(built.network_dictionary_[0]),
                           network_bytes=int(nbytes), fit_bytes=int(rounds + nbytes),
                           share=nbytes / (rounds + nbytes), fit_cpu=round(fit_cpu, 1))
                for k in ks:
                    train, test = new_node_rows(order, k)
                    gt = groups[test]
                    if k == ks[0]:
                        row["unknown"] = score(task, y[test], built.predict(X[test], groups=gt))
                    joined = copy.deepcopy(built)
                    add_nodes(joined, X[train], y[train], groups[train])
                    row[f"join_k{k}"] = score(task, y[test], joined.predict(X[test], groups=gt))
                    row[f"join_bytes_k{k}"] = int(joined.join_communication_.total_bytes)
                print(f"{name:9s} seed {seed} {label:9s} size {row['size']:4d}  network "
                      f"{nbytes / 1e6:7.3f} MB of {row['fit_bytes'] / 1e6:7.2f} MB "
                      f"({100 * row['share']:4.1f} %)  unknown {row['unknown']:6.2f}  join "
                      + " / ".join(f"{row[f'join_k{k}']:6.2f}" for k in ks), flush=True)
                rows.append(row)
    print(json.dumps(rows))


if __name__ == "__main__":
    main()
