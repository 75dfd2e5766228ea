"""Dada's defaults alone on every family of ``dada_experiments.py defaults``.

A before / after check of a change to Dada (issue 33): the default fit of
:class:`~skfed.boosting.DecentralizedBoostingClassifier` (the same
``n_estimators`` and ``random_state`` as the ``defaults`` part) on the four
moons families (paper, random, noisy, jitter; 100 nodes, seeds 0-4) and on
Computer buyers, School and HAR walking (runs 0-2; School 0-1), without the
baselines (they do not depend on Dada).  Per case: test accuracy %, share of
the learned weight inside the true clusters (moons), non-zeros of the
graph, bytes sent and CPU seconds of the fit.  Run it once with the code
before the change and once after (``PYTHONPATH`` chooses which ``skfed``
is imported) and compare the two JSON files with ``compare``.

Usage::

    python benchmarks/dada_families_check.py run OUT.json [case ...]
    python benchmarks/dada_families_check.py compare BEFORE.json AFTER.json

Cases are ``moons-<family>:<seed>`` or ``<dataset>:<run>``; none: all.
"""

import json
import sys
import time
import warnings

import numpy as np

from dada_experiments import _graph_recovery, _load_case

from skfed.boosting import DecentralizedBoostingClassifier

CASES = ([f"moons-{family}:{seed}" for family in ("paper", "random", "noisy", "jitter")
          for seed in range(5)]
         + [f"computer:{run}" for run in range(3)] + [f"school:{run}" for run in range(2)]
         + [f"har:{run}" for run in range(3)])


def run(out, cases):
    rows = {}
    for case in cases:
        name, index = case.split(":")
        X, X_test, y, y_test, g, g_test, n_estimators, clusters = _load_case(name, int(index))
        start = time.process_time()
        model = DecentralizedBoostingClassifier(n_estimators, random_state=int(index)).fit(
            X, y, groups=g)
        row = {"cpu_seconds": time.process_time() - start,
               "accuracy": 100.0 * model.score(X_test, y_test, groups=g_test),
               "bytes": int(model.n_bytes_sent_),
               "graph_nnz": int(model.collaboration_graph_.nnz)}
        if clusters is not None:
            row["inside"] = 100.0 * _graph_recovery(model, clusters)["weight_inside_clusters"]
        rows[case] = row
        print(case, json.dumps(row), flush=True)
        with open(out, "w") as handle:
            json.dump(rows, handle, indent=1)


def compare(before_path, after_path):
    with open(before_path) as handle:
        before = json.load(handle)
    with open(after_path) as handle:
        after = json.load(handle)
    families = {}
    for case in before:
        if case in after:
            families.setdefault(case.split(":")[0], []).append(case)
    keys = ("accuracy", "inside", "graph_nnz", "cpu_seconds")
    print(f"{'family (cases)':24s}" + "".join(f"{k + ' b/a':>24s}" for k in keys)
          + "   identical")
    for family, cases in families.items():
        line = f"{family + ' (' + str(len(cases)) + ')':24s}"
        for key in keys:
            if key in before[cases[0]]:
                b = np.mean([before[c][key] for c in cases])
                a = np.mean([after[c][key] for c in cases])
                line += f"{b:12.2f}{a:12.2f}"
            else:
                line += " " * 24
        same = sum(before[c]["accuracy"] == after[c]["accuracy"]
                   and before[c]["bytes"] == after[c]["bytes"] for c in cases)
        print(line + f"   {same}/{len(cases)}")


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    if sys.argv[1] == "run":
        run(sys.argv[2], sys.argv[3:] or CASES)
    else:
        compare(sys.argv[2], sys.argv[3])
