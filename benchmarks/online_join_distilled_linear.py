"""Online HAR newcomers: a linear function from what a newcomer already receives.

online34 (issue 32).  At the defaults the online HAR joins sit 0.4-0.7
under pooled LogisticRegression (97.50 / 97.24 / 97.29 against 97.89 /
97.98 / 97.89, seeds 0-2): ``kernel="auto"`` picks the laplacian kernel and
a newcomer starts from a mean of laplacian functions, while a linear
function solved on every node's loss meets the goal (the opt-in
``join_function="auto"``, +12-13 % of a HAR fit's bytes).  This script
measures whether a newcomer can get a good linear function for no new
bytes, from what the default join already sends it: the network function
(its ``m`` points and weights) and its neighbours' dictionaries.  For
every newcomer and ``k``, ``LogisticRegression()`` (an alternative outside
the package, scored as the newcomer's whole model) is fitted on

``net``
    the network function's points labelled by the network function's
    sign, plus the newcomer's ``k`` samples;
``nbr``
    its neighbours' dictionary points (as the join linked them) labelled by
    each neighbour's own function, plus its ``k`` samples;
``net+nbr``
    both,

against the package's join on the same fit (``join``), on
``benchmarks/new_nodes.py``'s split; accuracy on the newcomers' test rows.
The kernel selection's own statistic is printed with ``--selection``: the
per-node held-out loss of each candidate (fitted alone, no message) and the
paired t over the reporting nodes of the nonlinear minus the best linear
one (negative: the nonlinear kernel is better on the nodes' own rows)::

    python benchmarks/online_join_distilled_linear.py --datasets har --seeds 0,1,2
    python benchmarks/online_join_distilled_linear.py --datasets har \\
        --seeds 0,1,2,3,4,5,6,7,8 --selection
    python benchmarks/online_join_distilled_linear.py --seeds 0,1,2 --own-rows

Measured 2026-11-29 (online34, main 7781cb8 + the join-means change, whose
models are hash-identical; load 6-11), HAR sitting, accuracy (%),
``k = 5 / 10 / 20``::

    seed   join                   net                    nbr                    net+nbr
    0      99.04 / 99.02 / 99.15  98.60 / 98.65 / 98.69  95.27 / 95.80 / 95.90  98.30 / 98.42 / 98.38
    1      94.40 / 94.32 / 94.37  93.03 / 93.01 / 93.95  91.33 / 91.41 / 92.02  93.78 / 93.84 / 94.37
    2      99.06 / 98.39 / 98.34  96.31 / 96.77 / 97.35  95.01 / 96.11 / 96.30  97.69 / 98.24 / 98.34
    mean   97.50 / 97.24 / 97.29  95.98 / 96.14 / 96.66  93.87 / 94.44 / 94.74  96.59 / 96.83 / 97.03

No variant beats the join it would replace on any seed and ``k``
(``net+nbr`` ties it on seeds 1 and 2 at ``k = 20``; on average the
variants are 0.3-3.6 points under): the network function's 100 points carry
its own decision, not the pooled rows', and a few neighbours' points are
a few people's.  A linear term learned from received points is no way to
the pooled model; rejected on the choice block (seeds 0-2), so not run on
seeds 3-8 or the held-out families.

``--selection`` (seeds 0-8, the fitted split's 17 reporting people): the
laplacian kernel's mean held-out hinge loss is 0.037-0.045 against the
affine kernel's 0.099-0.118 and the linear kernel's 0.152-0.184, paired t
-9.46 .. -7.08 on every seed: on the nodes' own rows the nonlinear kernel
wins by far, so no margin on this statistic moves HAR to a linear kernel
without ignoring the nodes' own validation.  A choice for newcomers would
have to score transfer between nodes (held-back nodes scoring the other
nodes' functions), which needs each candidate's functions sent: at least a
network-function round per candidate, and it would trade the fitted
nodes' own accuracy for the newcomers'.  ``--own-rows`` (seeds 0 / 1 / 2;
every fitted person holds out every 4th row, as ``online_har_fit.py``)::

                                     auto (laplacian)        linear
    fitted people's own rows         99.66 / 99.66 / 99.60   90.88 / 92.41 / 90.63
    network function, new people     98.91 / 93.87 / 98.29   99.49 / 95.96 / 98.65
    fit's bytes (MB)                 60.3 / 60.8 / 62.6      19.8 / 20.9 / 20.4

(pooled LogisticRegression on the same own rows 98.05 / 98.50 / 98.25.)
The linear kernel's network function serves new people better (+0.4 to
+2.1) but every fitted person loses 7.3-9.0 points on its own rows (the
linear kernel SGD is far from the linear optimum at the default passes;
the solved network function is not): a kernel chosen for newcomers is
not a default for the fit.
"""

import argparse
import copy
import json
import os
import sys
import time
import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402

from skfed.online._selection import _KernelSelectionMixin  # noqa: E402


class _Selected(Exception):
    """Raised after the kernel selection, to stop the fit there."""


def selection_statistic(name, seed):
    """The kernel selection's per-node losses on the fitted split, its
    choice and the paired t (nonlinear minus the best linear candidate)."""
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    fit_rows, _, _ = nn.split(X, y, groups, seed, data[4] if len(data) > 4 else None)
    est = nn.make_estimator("online", task, seed)
    original = _KernelSelectionMixin._select_kernel

    def select_then_stop(self, *args, **kwargs):
        original(self, *args, **kwargs)
        raise _Selected

    _KernelSelectionMixin._select_kernel = select_then_stop
    try:
        est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    except _Selected:
        pass
    finally:
        _KernelSelectionMixin._select_kernel = original
    sel = est.kernel_selection_
    losses = np.asarray(sel["node_validation_loss"])
    reporting = ~np.isnan(losses[0])
    best_linear = 1 + int(np.argmin(losses[1:, reporting].mean(axis=1)))
    diff = losses[0, reporting] - losses[best_linear, reporting]
    t = diff.mean() / (diff.std(ddof=1) / np.sqrt(len(diff)))
    return {"name": name, "seed": seed, "kernel": sel["kernel"],
            "candidates": sel["candidates"],
            "mean_loss": np.round(sel["mean_validation_loss"], 4).tolist(),
            "n_reporting": int(reporting.sum()), "t": round(float(t), 2)}


def own_rows(seed):
    """HAR at ``kernel="auto"`` and ``"linear"``: every fitted person holds
    out every 4th of its rows; accuracy of its own function there, of the
    network function on the new people's rows, and the fit's bytes."""
    from online_har_fit import held_out_rows

    from skfed.online import DecentralizedKernelSGDClassifier
    X, y, groups, _ = nn.load("har", seed)
    fit_rows, _, order = nn.split(X, y, groups, seed)
    train, held = held_out_rows(groups, fit_rows)
    new_rows = np.concatenate(list(order.values()))
    row = {"seed": seed}
    for kernel in ("auto", "linear"):
        est = DecentralizedKernelSGDClassifier(kernel=kernel, random_state=seed)
        est.fit(X[train], y[train], groups=groups[train])
        row[kernel] = {
            "own": 100 * float(np.mean(est.predict(X[held], groups=groups[held]) == y[held])),
            "unseen": 100 * float(np.mean(est.predict(X[new_rows],
                                                      groups=np.full(len(new_rows), -999))
                                          == y[new_rows])),
            "bytes": int(est.n_bytes_sent_)}
    pooled = LogisticRegression(max_iter=1000).fit(X[train], y[train])
    row["pooled_lr_own"] = 100 * float(np.mean(pooled.predict(X[held]) == y[held]))
    return row


def distilled(name, seed, ks):
    """Rows of the join and the three distilled linear models per ``k``."""
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    fit_rows, new, order = nn.split(X, y, groups, seed, data[4] if len(data) > 4 else None)
    est = nn.make_estimator("online", task, seed)
    t0 = time.process_time()
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    fit_cpu = time.process_time() - t0
    classes = est.classes_
    D = est.network_dictionary_[0]
    net_labels = classes[(est._network_values(D)[:, 0] > 0).astype(int)]
    rows = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(est)
        joined.add_nodes(X[train], y[train], groups=groups[train])
        row = {"name": name, "seed": seed, "k": k, "fit_cpu": round(fit_cpu, 1),
               "m_network": len(D), "starts": joined.join_start_.tolist(),
               "join": 100 * float(np.mean(joined.predict(X[test], groups=groups[test])
                                           == y[test]))}
        nodes = list(joined.nodes_)
        for variant in ("net", "nbr", "net+nbr"):
            correct = total = 0
            for node in new:
                own, scored = train[groups[train] == node], test[groups[test] == node]
                parts_X, parts_y = [X[own]], [y[own]]
                if "net" in variant.split("+"):
                    parts_X.append(D)
                    parts_y.append(net_labels)
                if "nbr" in variant.split("+"):
                    for j in joined.adjacency_[nodes.index(node)].indices:
                        Dj = joined.dictionaries_[j]
                        if len(Dj):
                            parts_X.append(Dj)
                            parts_y.append(classes[(joined._blended(j, Dj)[:, 0] > 0)
                                                   .astype(int)])
                Xa, ya = np.concatenate(parts_X), np.concatenate(parts_y)
                if len(np.unique(ya)) < 2:
                    pred = np.full(len(scored), ya[0])
                else:
                    pred = LogisticRegression(max_iter=1000).fit(Xa, ya).predict(X[scored])
                correct += int(np.sum(pred == y[scored]))
                total += len(scored)
            row[variant] = 100 * correct / total
        rows.append(row)
    return rows


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--selection", action="store_true",
                        help="print the kernel selection's statistic only")
    parser.add_argument("--own-rows", action="store_true",
                        help="HAR: the fitted people's own rows, kernel auto vs linear")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    for name in args.datasets.split(","):
        for seed in seeds:
            if args.own_rows:
                print(json.dumps(own_rows(seed)), flush=True)
                continue
            if args.selection:
                print(json.dumps(selection_statistic(name, seed)), flush=True)
                continue
            for row in distilled(name, seed, ks):
                print(json.dumps(row), flush=True)


if __name__ == "__main__":
    main()
