"""Could the nodes choose how strongly to couple, by validation within the nodes?

On the held-out families of ``online_experiments.py held-out`` the defaults
(a ring, ``consensus_penalty=0.1``) stay far below Global where many nodes
share one rule, and strong coupling over a faster-mixing graph (a random
6-regular graph, ``consensus_penalty=1``, ``epsilon=0.001``) closes part
of that gap but loses where the nodes differ.  This script measures
whether a choice between the two made the way ``kernel="auto"`` chooses
its kernel would pick the better one: every node holds out every 4th of
its samples (``skfed.online._holdout``), both candidates are fitted on the
rest (with their consensus), and the mean over the nodes of the held-out
loss (the loss the estimator minimizes) and of the held-out error rate
(classification) are compared with the test score of each candidate
fitted on all the training samples.  Prints one JSON line per family and
seed, and a table.

    python benchmarks/online_consensus_choice.py [--families ...] [--seeds 0]
"""

import argparse
import json
import os
import sys

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from online_experiments import (  # noqa: E402
    HELD_OUT_FAMILIES,
    _node_score,
    _variant_params,
    held_out_family,
)
from skfed.online import (  # noqa: E402
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
)
from skfed.online._holdout import arrival_folds, loss_values, node_mean_losses  # noqa: E402

CANDIDATES = {
    "ring c=0.1 (defaults)": {},
    "6-regular c=1": {"random_regular_degree": 6, "consensus_penalty": 1.0,
                      "epsilon": 0.001},
}


def choice_row(name, seed):
    task, Xtr, Xte, ytr, yte, gtr, gte = held_out_family(name, seed)
    nodes, codes = np.unique(gtr, return_inverse=True)
    n_nodes = len(nodes)
    held = arrival_folds(codes, n_nodes, 4) == 3
    regression = task == "regression"
    Est = DecentralizedKernelSGDRegressor if regression else DecentralizedKernelSGDClassifier
    row = {"family": name, "seed": seed, "task": task}
    for label, params in CANDIDATES.items():
        kw = _variant_params(params, n_nodes, seed)
        est = Est(random_state=seed, **kw).fit(Xtr[~held], ytr[~held], groups=gtr[~held])
        if regression:
            F = est.predict(Xtr[held], groups=gtr[held])
            target = ytr[held].astype(float)
        else:
            F = est.decision_function(Xtr[held], groups=gtr[held])
            index = np.searchsorted(est.classes_, ytr[held])
            target = np.where(index == 1, 1.0, -1.0) if len(est.classes_) == 2 else index
        values = loss_values(est._loss_name(), F, np.asarray(target, dtype=float),
                             est._loss_threshold())
        loss = float(np.nanmean(node_mean_losses(values, codes[held], n_nodes)))
        error = None
        if not regression:
            wrong = (est.predict(Xtr[held], groups=gtr[held]) != ytr[held]).astype(float)
            error = float(np.nanmean(node_mean_losses(wrong, codes[held], n_nodes)))
        full = Est(random_state=seed, **kw).fit(Xtr, ytr, groups=gtr)
        row[label] = {"held_out_loss": loss, "held_out_error": error,
                      "test_score": _node_score(task, full.predict(Xte, groups=gte), yte, gte)}
    return row


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--families", nargs="+", default=list(HELD_OUT_FAMILIES),
                        choices=HELD_OUT_FAMILIES)
    parser.add_argument("--seeds", type=int, nargs="+", default=[0])
    args = parser.parse_args()
    rows = []
    with threadpool_limits(limits=1, user_api="blas"):
        for name in args.families:
            for seed in args.seeds:
                rows.append(choice_row(name, seed))
                print(json.dumps(rows[-1]), flush=True)
    weak, strong = CANDIDATES
    print(f"{'family':22s} {'seed':>4s} {'test weak':>9s} {'test strong':>11s} "
          f"{'loss picks':>10s} {'error picks':>11s} better")
    for row in rows:
        reg = row["task"] == "regression"
        a, b = row[weak], row[strong]
        better = "weak" if (a["test_score"] < b["test_score"]) == reg else "strong"
        by_loss = "weak" if a["held_out_loss"] <= b["held_out_loss"] else "strong"
        # Regression: the error is the squared loss itself.
        ea = a["held_out_loss"] if reg else a["held_out_error"]
        eb = b["held_out_loss"] if reg else b["held_out_error"]
        by_error = "weak" if ea <= eb else "strong"
        print(f"{row['family']:22s} {row['seed']:4d} {a['test_score']:9.4f} "
              f"{b['test_score']:11.4f} {by_loss:>10s} {by_error:>11s} {better}")


if __name__ == "__main__":
    main()
