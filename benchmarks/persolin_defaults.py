"""Perso-lin's ``alpha`` and ``mu`` on the node-size scale: a defaults pass over families.

Candidates set ``alpha = a / median(m_k)`` and ``mu = b / median(m_k)``
(``m_k`` a node's number of training samples), so that a candidate means
the same at any node size: ``a = 1`` is scikit-learn's ``C = 1`` for a
median node.  ``today`` is the estimator's defaults.  Each fit is the
estimator's default fit with only ``alpha``, ``mu`` (and, for the ``/i<N>``
candidates, ``graph_init_iter = N * n_nodes``) and ``random_state`` set.

Families.  Tuning families: the four moons families of
``dada_experiments.py`` (paper, random, noisy, jitter; 100 nodes of 3-14
samples, 2 features), Computer buyers and School (Dada's splits), HAR
walking (Dada's split) and HAR sitting (every person, 75 / 25 % of each
person's windows; ``persolin_local_models.py``).  Held-out families (not
looked at when choosing): ``alike_tiny``, ``unbalanced``, ``imbalance``,
``three_class`` and ``axis_rules`` of ``dada_probe_families.py`` (scored as
there: mean per-node accuracy, balanced accuracy for ``imbalance``) and
``uninformative`` (50 nodes of 20 samples, 30 features of which 3 carry the
related linear scores, spread 0.3, 0.3 label noise).  The moons and real
data sets are scored by test accuracy over all test samples.

Baselines per case: Local = the best of ``LinearSVC``, ``SVC`` and
``LogisticRegression`` at their defaults per node (a node with one class
predicts it); Global = the best of the three pooled; the best is chosen on
the test set (an oracle in the baselines' favour).

Usage::

    python benchmarks/persolin_defaults.py OUT.jsonl [--seeds 0 1 2]
        [--cases moons-paper,...] [--candidates today,a1b8,...]
    python benchmarks/persolin_defaults.py --summary OUT.jsonl

Candidate names: ``today``, ``a<A>b<B>`` (``A``, ``B`` floats, e.g.
``a1b8``, ``a0.3b2``), optionally with ``/i<N>`` (``graph_init_iter = N *
n_nodes``).  Rows are appended to ``OUT.jsonl`` as they are measured;
``--summary`` prints the means over the seeds, the baselines and the
change of each candidate against ``today``.

Measured 2026-11-28 (main at 08970a8, ``today`` = ``alpha=1e-2, mu=1,
graph_init_iter=50 * n_nodes``; seeds 0 1 2 with all candidates, then
``today`` and ``today/i10`` on seeds 3 4 of the held-out families and the
moons and seeds 5-9 of imbalance, three_class, uninformative and
moons-paper / random / jitter).  Test accuracy % (balanced for
imbalance), mean over the seeds, and the change against ``today``::

    case           seeds  Local (best)      Global (best)     today   today/i10
    moons-paper    0-9    76.95 SVC         65.93 SVC         68.34   -0.15
    moons-random   0-9    65.72 LinearSVC   64.57 SVC         64.06   +0.20
    moons-noisy    0-4    55.66 LinearSVC   57.67 LinearSVC   57.69   +1.68
    moons-jitter   0-9    69.08 SVC         63.40 SVC         64.66   +0.25
    computer       0-2    65.68 LinearSVC   67.52 LinearSVC   68.52   -0.24
    school         0-2    71.27 LogReg      70.61 SVC         72.44   -0.21
    har (walking)  0-2    99.84 SVC         99.91 SVC         99.89   -0.02
    har-sitting    0-2    99.14 LinearSVC   98.45 LogReg      97.27   -0.45
    alike_tiny     0-4    72.29 LinearSVC   90.97 LinearSVC   86.91   +2.51
    unbalanced     0-4    75.77 LinearSVC   82.13 LogReg      79.13   +2.47
    imbalance      0-9    78.94 LinearSVC   85.53 LinearSVC   75.64   +1.03
    three_class    0-9    76.12 LogReg      78.80 LogReg      74.95   +0.08
    axis_rules     0-4    56.02 LinearSVC   60.47 SVC         59.01   +0.94
    uninformative  0-9    66.20 LinearSVC   86.51 LinearSVC   82.83   +3.03

``today/i10``: mean +0.79 over the 14 families; on seeds 0-2 alone every
family within -0.45 (HAR sitting; imbalance +0.52, but -2.75 on seeds 3-4
and +2.85 on seeds 5-9: its balanced accuracy rests on about one positive
test sample a node).  CPU 0.58-0.98 times and bytes 0.44-1.05 times
``today``'s (family means).

The node-size scale (seeds 0-2, change against ``today``; mean over the
eight tuning / six held-out families, worst family)::

    candidate   tuning mean  worst               held-out mean  worst
    a1b8          +0.17      -1.13 moons-noisy      -4.91       -12.41 alike_tiny
    a1b4          -0.01      -1.53 moons-noisy      -6.25       -16.29 alike_tiny
    a1b2          -0.32      -2.34 moons-noisy      -6.98       -18.80 alike_tiny
    a1b1          -0.55      -2.70 moons-noisy      -7.39       -20.23 alike_tiny
    a0.3b2        +0.00      -1.47 moons-noisy      -3.17       -11.04 alike_tiny
    a0.3b1        -0.14      -2.23 moons-noisy      -4.39       -14.20 alike_tiny
    a3b4          -0.80      -5.49 moons-random     -9.57       -24.68 alike_tiny
    a1b4/i10      +0.21      -1.06 moons-noisy      -4.08       -12.20 alike_tiny
    a1b2/i10      -0.01      -1.72 moons-noisy      -5.44       -16.07 alike_tiny

They lift HAR sitting (97.27 -> 98.60-98.64 for a1b8, a0.3b2, a1b*/i10;
the best Local, LinearSVC per person, is 99.14) and moons-jitter (+2.1 to
+2.6), but lose 5-20 points on the held-out families of many small alike
nodes (alike_tiny: 500 nodes of 6) and of uninformative features (-6.9 to
-14.0): not adopted.  A scale that keeps HAR sitting's gain without
shrinking small alike nodes this much was not found in this pass.

**Not adopted: what ``10 * n_nodes`` moves beyond the fits above.**  The
fit-level rule held (mean up, no family of the table down by more than
0.5 point), but the uses that start from the fitted graph lose, measured
in one sitting against main at 08970a8 (``PYTHONPATH`` chose the code):

* joins (``new_nodes.py --families persolin --datasets har / moons /
  landmine --seeds 0,1,2 --ks 5,10,20``), join accuracy k = 5 / 10 / 20:
  HAR sitting 92.4 / 93.7 / 93.6 -> 91.6 / 92.1 / 93.1 (seed 0: 95.1 /
  95.8 / 95.8 -> 91.5 / 92.3 / 94.3; the refit rises 83.9 / 88.9 / 92.2 ->
  91.8 / 91.8 / 93.4); rotated moons 54.3 / 58.1 / 62.0 -> 53.6 / 57.2 /
  61.6 (refit 55.7 / 57.8 / 63.7 -> 55.8 / 59.1 / 64.3); Landmine 93.6 /
  93.6 / 93.7 -> 93.6 / 93.6 / 93.9 (k = 20 then meets issue 32's goal).
  The newcomers join a graph learned with fewer steps;
* privacy (``privacy_utility.py --seeds 0 1 2``): the non-private "off"
  column persolin-moons 0.824 -> 0.818, persolin-computer 0.685 -> 0.683;
  at ``--epsilons 3 --kept default`` the kept models 0.947 -> 0.947 and
  0.6536 -> 0.6530, the released models 0.774 -> 0.742 (moons) and 0.514
  -> 0.523 (Computer buyers);
* 1,000 / 10,000 noisy-moons nodes (``dada_experiments.py timing-one
  perso_lin 1000 0`` / ``10000 0``): accuracy 57.56 -> 56.99 / 56.81 ->
  56.51 %, weight inside the clusters 48.3 -> 41.8 / 45.4 -> 40.6 %, CPU
  0.3 -> 0.2 / 6.0 -> 3.8 s, peak 251 -> 219 / 893 -> 587 MB;
* the guide's PL def column: noisy moons 0-4 57.69 -> 59.37, School 72.44
  -> 72.24, HAR walking 99.89 -> 99.87; related linear tasks
  (``dada_when.py 0 1 2 --methods perso_lin``, same sitting) 89.43 / 93.21
  / 92.73 -> 91.79 / 93.18 / 92.75 %, bytes 106 / 25 / 4.4 -> 93 / 18 /
  1.9 times the raw upload.

``20 * n_nodes`` (seeds 3-4 of the held-out families and moons: mean
+0.08, worst -1.69) loses on the HAR joins too: 91.2 / 92.3 / 93.0 (the
class attribute ``_graph_init_per_node`` set to 20 around
``new_nodes.py``).  The HAR join at 50 steps per node rests on seed 0
(95.1 / 95.8 / 95.8; seeds 1-2 89.3-95.1), so a next pass should measure
the joins on more seeds before tying them to the fit's default.
"""

import argparse
import json
import os
import re
import sys
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC, LinearSVC

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import dada_probe_families as probe  # noqa: E402
from persolin_local_models import load_case  # noqa: E402
from skfed.boosting import PersonalizedLinearClassifier  # noqa: E402

TUNING = ("moons-paper", "moons-random", "moons-noisy", "moons-jitter", "computer", "school",
          "har", "har-sitting")
HELD_OUT = ("alike_tiny", "unbalanced", "imbalance", "three_class", "axis_rules",
            "uninformative")
BASES = {
    "LinearSVC": lambda: LinearSVC(max_iter=20000),
    "SVC": lambda: SVC(),
    "LogisticRegression": lambda: LogisticRegression(max_iter=5000),
}


def load(name, seed):
    """``(X, X_test, y, y_test, g, g_test, metric)`` of a case."""
    if name in TUNING:
        return (*load_case(name, seed), "all")
    if name == "uninformative":
        rng = np.random.RandomState(seed)
        X, s, g, train = probe._linear_family(rng, [20] * 50, 30, 3, 0.3)
        y = (s + 0.3 * rng.normal(size=s.size) > 0).astype(int)
        metric = "accuracy"
    else:
        X, y, g, train, metric = probe.make_family(name, seed)
    return X[train], X[~train], y[train], y[~train], g[train], g[~train], metric


def score(y_true, y_pred, g, metric):
    if metric == "all":
        return float(np.mean(y_true == y_pred))
    return probe.per_node_score(y_true, y_pred, g, metric)


def baselines(X, X_test, y, y_test, g, g_test, metric):
    """Best Local and best Global of the three scikit-learn classifiers."""
    pooled = {k: score(y_test, b().fit(X, y).predict(X_test), g_test, metric)
              for k, b in BASES.items()}
    local = {}
    for k, b in BASES.items():
        pred = np.empty_like(y_test)
        for node in np.unique(g_test):
            train, test = g == node, g_test == node
            if len(np.unique(y[train])) < 2:
                pred[test] = y[train][0]
            else:
                pred[test] = b().fit(X[train], y[train]).predict(X_test[test])
        local[k] = score(y_test, pred, g_test, metric)
    best_local = max(local, key=local.get)
    best_global = max(pooled, key=pooled.get)
    return {"local": local[best_local], "local_by": best_local,
            "global": pooled[best_global], "global_by": best_global}


def candidate_params(name, g):
    """Estimator parameters of a candidate on training groups ``g``."""
    params = {}
    base, _, init = name.partition("/")
    if re.fullmatch(r"i[0-9]+", init):
        params["graph_init_iter"] = int(init[1:]) * np.unique(g).size
    elif init:
        raise SystemExit(f"unknown candidate suffix {init!r}")
    if base == "today":
        return params
    match = re.fullmatch(r"a([0-9.e-]+)b([0-9.e-]+)", base)
    if match is None:
        raise SystemExit(f"unknown candidate {name!r}")
    med = float(np.median(np.unique(g, return_counts=True)[1]))
    params.update(alpha=float(match.group(1)) / med, mu=float(match.group(2)) / med)
    return params


def run(out, cases, seeds, candidates):
    warnings.filterwarnings("ignore")
    for name in cases:
        for seed in seeds:
            X, X_test, y, y_test, g, g_test, metric = load(name, seed)
            row = {"case": name, "seed": seed, **baselines(X, X_test, y, y_test, g, g_test,
                                                           metric)}
            for cand in candidates:
                params = candidate_params(cand, g)
                start = time.process_time()
                est = PersonalizedLinearClassifier(random_state=seed, **params).fit(
                    X, y, groups=g)
                cpu = time.process_time() - start
                row[cand] = score(y_test, est.predict(X_test, groups=g_test), g_test, metric)
                row[f"{cand}_cpu"] = cpu
                row[f"{cand}_bytes"] = int(est.n_bytes_sent_)
            print(json.dumps(row), flush=True)
            with open(out, "a") as handle:
                handle.write(json.dumps(row) + "\n")


def summary(path):
    with open(path) as handle:
        rows = [json.loads(line) for line in handle]
    by_case = {}
    for row in rows:
        by_case.setdefault(row["case"], {})[row["seed"]] = row  # last row of a seed wins
    cands = []
    for row in rows:
        cands += [k for k in row if not k.endswith(("_cpu", "_bytes", "_by"))
                  and k not in ("case", "seed", "local", "global") and k not in cands]
    print(f"{'case':14s} {'n':>2s} {'Local':>6s} {'Global':>6s} " + " ".join(f"{c:>12s}"
                                                                          for c in cands))
    deltas = {c: [] for c in cands}
    for case, seeds in by_case.items():
        rs = list(seeds.values())
        line = (f"{case:14s} {len(rs):2d} {100 * np.mean([r['local'] for r in rs]):6.2f} "
                f"{100 * np.mean([r['global'] for r in rs]):6.2f} ")
        today = [r.get("today") for r in rs]
        for c in cands:
            vals = [r.get(c) for r in rs]
            if any(v is None for v in vals):
                line += f"{'-':>12s} "
                continue
            mean = 100 * np.mean(vals)
            if all(t is not None for t in today):
                d = mean - 100 * np.mean(today)
                deltas[c].append(d)
                line += f"{mean:6.2f}{d:+6.2f} "
            else:
                line += f"{mean:12.2f} "
        print(line)
    print("mean change against today, worst family, and CPU / bytes ratios to today:")
    for c in cands:
        if deltas[c]:
            cpu = [r[f"{c}_cpu"] / r["today_cpu"] for r in rows if f"{c}_cpu" in r
                   and "today_cpu" in r]
            byt = [r[f"{c}_bytes"] / r["today_bytes"] for r in rows if f"{c}_bytes" in r
                   and "today_bytes" in r]
            print(f"  {c:12s} mean {np.mean(deltas[c]):+.2f}  worst {min(deltas[c]):+.2f} "
                  f"over {len(deltas[c])} cases; CPU x{np.median(cpu):.2f} "
                  f"(max {np.max(cpu):.2f}), bytes x{np.median(byt):.2f} "
                  f"(max {np.max(byt):.2f})")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--cases", default=",".join(TUNING))
    parser.add_argument("--candidates", default="today,a1b8,a1b1,a1b4,a0.3b2,today/i10")
    parser.add_argument("--summary", action="store_true")
    args = parser.parse_args(argv)
    if args.summary:
        summary(args.out)
    else:
        run(args.out, args.cases.split(","), args.seeds, args.candidates.split(","))


if __name__ == "__main__":
    main()
