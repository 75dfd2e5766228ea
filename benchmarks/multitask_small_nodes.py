"""The multi-task defaults on many small nodes: the families where the share
selection does not fit its byte budget and the personal selection runs.

Two families, classification and regression, drawn per seed (train and test
halves of every node's samples)::

    alike          300 nodes x 20 training samples, 10 features, one rule
                   plus a 0.1 perturbation per node
    uninformative  100 nodes x 30 training samples, 50 features of which 45
                   are noise, one rule plus a 0.3 perturbation per node

Labels (classification): ``y = [x . w_t / sqrt(k) + 0.3 e > 0]``;
targets: ``x . w_t / sqrt(k) + 0.3 e`` (``k`` informative features).
Scores: mean per-node test accuracy or R^2.  Baselines on the same arrays:
Global (one model on the pooled data) and Local (one per node), each the
better of ``LinearSVC()``, ``SVC()`` and ``LogisticRegression()``, or
``Ridge()``, ``SVR()`` and ``LassoCV()``.  Per row: the defaults' score,
the baselines, the margin to the better one (target: at least -0.001),
converged, bytes against the raw upload, rounds, the selected share and CPU
seconds of the fit.  One JSON line per row, one BLAS thread.

``few-5``, ``few-10``, ``few-20``, ``few-40``: 5, 10, 20 and 40 nodes of 10 training
samples, 8 features, a 0.3 perturbation, to compare the personal
selection (``--personal-min-nodes 1``) with the learned share alone
(``--personal-min-nodes 1000000``) where the default threshold (20 nodes)
lies.

    python benchmarks/multitask_small_nodes.py [--seeds 0 1 2] [--families alike uninformative]
        [--tasks classification regression] [--personal-min-nodes N]

History
-------

Re-measurements, alternatives measured and not kept, and the few-nodes-in-high-dimension probe (moved from doc/user_guide/multitask.rst, 28 November 2026)::

    so the returned model is that problem's certified optimum and
    :attr:`joint_objective_` its objective (the tests check both against a
    closed-form ridge solve and SciPy's L-BFGS).  Keeping ``b_w`` rather than
    moving the shared part's penalty to the selected share as well scored .857
    against .854 on the uninformative classifier's seed 1 below, for fewer
    rounds.  On the small-node families of

    Every fit converged and met the target; the closest was the alike
    classifier's seed 0, 0.0008 below Global.  Re-run with the personal
    selection's plain-minimum rule (:ref:`mocha-small-nodes`): the same
    scores; the uninformative classifier's bytes and rounds were 0.13-0.20
    and 10-16.  Re-measured after the message
    sizes of :ref:`mocha-small-nodes`: the scores moved by at most 0.0009
    (uninformative regressor, .7596 before), the bytes fell from 0.82-0.94,
    0.44-0.50, 0.15-0.26 and 0.18-0.23 of the raw upload.  The 20-row nodes of
    the alike family are where bytes are tightest: a round costs every node
    about 4 % of its raw upload (75 of 1,776 bytes).  ``w_0`` was fitted with the held-out samples, a bias
    toward sharing that grows as the nodes get fewer; the personal selection
    runs from 5 nodes, where it was measured to help (mean per-node R^2, 5
    seeds of nodes of 10 samples x 8 features, a 0.3 perturbation; Global the
    better of ``Ridge()``, ``SVR()`` and ``LassoCV()``)::

    The personal selection column re-measured with the plain-minimum rule
    (below; the other columns are unchanged code): every fit converged, every
    mean is above Global, and two single seeds miss it, both of 5 nodes (seed
    3 by 0.066, seed 1 by 0.005).  With the former one-standard-error rule
    the column was .7751 / .7903 / .7426 / .8435 and the 20-node seeds 1 and
    2 missed Global by 0.045; before the held-out correction and the byte cap
    it was .7767 / .7935 / .7726 / .8432.
    Below 5 nodes the learned share is
    kept.  The training folds keep the whole node's weight in their objective,
    i.e. the penalty against the sum of the losses.

    Without the span factor (every envelope counted in every direction) the
    correction barely moved the ranking in high dimension (10 nodes x 15 rows
    x 500 features: validation errors 0-0.013 against test errors .35-.5); a
    plain ``w_0`` correction without curvature over-corrects (validation error
    .78-.89 for the shared model alone, worse than chance).  Requiring two
    standard errors instead of one kept the learned weight on the 100 x 30 x 50
    classifier and the 20-node regressor of the small-node benchmark, which
    then lost 0.7 and 3.3 points to Global.

    **Few nodes in high dimension** (10 nodes x 15 rows, 500 informative
    features, one rule plus a 0.3 perturbation; ``--families few-hd``, 150
    test samples a seed, so about 4 points of standard error): the defaults
    score .513 / .633 / .660 on seeds 0-2 (``python
    benchmarks/multitask_small_nodes.py --families few-hd --tasks classification``;
    .507 / .633 / .653 before the message changes above) against pooled
    ``LinearSVC()`` .58 / .64 / .64.  The share selection is not the cause (the shared model alone,
    ``C`` = 0.1 or 10 score the same); ``loss="squared_hinge"`` or ``"hinge"``
    score .527 / .673 / .673, on par with ``LinearSVC()``.  The default loss
    (logistic) is not changed here.

Moved from doc/user_guide/multitask.rst on 29 November 2026 (guide16): the
few-nodes table's provenance.  Its bytes and scores were re-measured at main
ac7f2db (28 November 2026, both commands, fresh clone); the learned share
alone converged on 9 of 20 fits.
"""

import argparse
import json

from threadpoolctl import threadpool_limits

from skfed.baselines import pooled_data_bytes
from multitask_common import (
    TASKS,
    best_baselines,
    fit_defaults,
    linear_rule_family,
    per_node_score,
    selection_path,
    standard_baselines,
)

FAMILIES = {
    # n_nodes, training samples a node, features, informative features, spread
    "alike": (300, 20, 10, 10, 0.1),
    "uninformative": (100, 30, 50, 5, 0.3),
    # few nodes, for the personal selection's minimum number of nodes
    "few-5": (5, 10, 8, 8, 0.3),
    "few-10": (10, 10, 8, 8, 0.3),
    "few-20": (20, 10, 8, 8, 0.3),
    "few-40": (40, 10, 8, 8, 0.3),
    # few nodes in high dimension (issue 28's probe: 10 nodes x 15 rows, d = 500)
    "few-hd": (10, 15, 500, 500, 0.3),
    "few-hd-sparse": (10, 15, 500, 10, 0.3),
}


def make_family(name, task, seed):
    """``Xtr, ytr, gtr, Xte, yte, gte`` of one family, task and seed."""
    return linear_rule_family(*FAMILIES[name], task=task, seed=seed)


def run(families, tasks, seeds):
    rows = []
    for name in families:
        for task in tasks:
            for seed in seeds:
                Xtr, ytr, gtr, Xte, yte, gte = make_family(name, task, seed)
                est, converged, cpu = fit_defaults(task, Xtr, ytr, gtr)
                score = per_node_score(task, yte, est.predict(Xte, groups=gte), gte)
                base = standard_baselines(task, Xtr, ytr, gtr, Xte, yte, gte)
                best_global, best_local = best_baselines(base)
                best = max(best_global, best_local)
                rows.append(dict(
                    family=name, task=task, seed=seed, defaults=round(score, 5),
                    best_global=round(best_global, 5), best_local=round(best_local, 5),
                    margin=round(score - best, 5), target_met=bool(score >= best - 0.001),
                    converged=converged,
                    bytes_ratio=round(est.n_bytes_sent_ / pooled_data_bytes(Xtr, ytr, gtr), 3),
                    rounds=int(est.n_iter_), selection=selection_path(est),
                    shared_weight=round(float(est.shared_weight_), 5), fit_cpu_s=round(cpu, 2),
                    baselines={k: round(v, 5) for k, v in base.items()},
                ))
                print(json.dumps(rows[-1]), flush=True)
    return rows


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2])
    parser.add_argument("--families", nargs="+", default=["alike", "uninformative"],
                        choices=list(FAMILIES))
    parser.add_argument("--tasks", nargs="+", default=list(TASKS), choices=TASKS)
    parser.add_argument("--personal-min-nodes", type=int, default=None,
                        help="override the personal selection's minimum number of nodes")
    parser.add_argument("--personal-byte-budget", type=float, default=None,
                        help="override the learned share's byte budget before the personal "
                             "selection (a fraction of the raw upload)")
    args = parser.parse_args(argv)
    if args.personal_byte_budget is not None:
        import skfed.multitask._shared as shared

        shared._PERSONAL_BYTE_BUDGET = args.personal_byte_budget
    if args.personal_min_nodes is not None:
        import skfed.multitask._shared as shared

        shared._PERSONAL_MIN_NODES = args.personal_min_nodes
    with threadpool_limits(1):
        rows = run(args.families, args.tasks, args.seeds)
    print(json.dumps(dict(rows=len(rows), target_met=sum(r["target_met"] for r in rows),
                          converged=sum(r["converged"] for r in rows),
                          max_bytes_ratio=max(r["bytes_ratio"] for r in rows))))


if __name__ == "__main__":
    main()
