"""The multi-task defaults on 1,000-10,000 nodes with a chosen subset of the baselines.

``bench_multitask.py --defaults`` runs every standard baseline (Global and
Local of ``LinearSVC()``, ``SVC()`` and ``LogisticRegression()``); at
10,000 nodes its 30,000 Local fits take most of an hour on a loaded
machine.  This script fits the defaults on the same arrays
(:func:`~skfed.datasets.make_related_tasks`, ``<structure>-<nodes>``, 30
training samples a node) and only the baselines named with
``--baselines`` (by default ``LogisticRegression`` and ``LinearSVC``, the
best Global and Local on every 1,000- and 10,000-node row measured with
all of them), Global and Local each.  Per row: the defaults' mean per-node
accuracy, the best Global and Local run, the margin to the better one
(target: at least -0.001), converged, bytes against the raw upload,
rounds, fit wall and CPU seconds.  One JSON line per row, one BLAS thread::

    python benchmarks/multitask_many_nodes.py [--datasets shared-10000 clustered-10000]
        [--seeds 0 1 2] [--baselines LogisticRegression LinearSVC SVC]
"""

import argparse
import json
import time

from threadpoolctl import threadpool_limits

from skfed.baselines import pooled_data_bytes
from skfed.datasets import make_related_tasks
from multitask_common import (
    best_baselines,
    fit_defaults,
    per_node_score,
    standard_baselines,
    standard_estimators,
)


def run(datasets, seeds, names):
    rows = []
    skip = tuple(set(standard_estimators("classification")) - set(names))
    for name in datasets:
        structure, size = name.split("-")
        for seed in seeds:
            Xtr, Xte, ytr, yte, gtr, gte = make_related_tasks(
                int(size), structure=structure, random_state=seed)[:6]
            wall = time.perf_counter()
            est, converged, cpu = fit_defaults("classification", Xtr, ytr, gtr)
            wall = time.perf_counter() - wall
            score = per_node_score("classification", yte, est.predict(Xte, groups=gte), gte)
            base = standard_baselines("classification", Xtr, ytr, gtr, Xte, yte, gte,
                                      skip_local=skip, skip_global=skip)
            best_global, best_local = best_baselines(base)
            best = max(best_global, best_local)
            rows.append(dict(
                dataset=name, seed=seed, defaults=round(score, 5),
                best_global=round(best_global, 5), best_local=round(best_local, 5),
                margin=round(score - best, 5), target_met=bool(score >= best - 0.001),
                converged=converged,
                bytes_ratio=round(est.n_bytes_sent_ / pooled_data_bytes(Xtr, ytr, gtr), 3),
                rounds=int(est.n_iter_), fit_s=round(wall, 1), fit_cpu_s=round(cpu, 1),
                baselines={k: round(v, 5) for k, v in base.items()}))
            print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", default=["shared-10000", "clustered-10000"])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--baselines", nargs="+", default=["LogisticRegression", "LinearSVC"],
                        choices=list(standard_estimators("classification")))
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        rows = run(args.datasets, args.seeds, args.baselines)
    print(json.dumps(dict(rows=len(rows), target_met=sum(r["target_met"] for r in rows),
                          converged=sum(r["converged"] for r in rows),
                          max_bytes_ratio=max(r["bytes_ratio"] for r in rows),
                          max_fit_cpu_s=max(r["fit_cpu_s"] for r in rows))))


if __name__ == "__main__":
    main()
