"""A private federation-level vote on the Local model class (issue 27).

Every private node keeps, by the default rule, the simplest of its
candidates within one standard error (:func:`skfed._kept_local.kept_choice`)
-- a choice each node makes alone on a few hundred held-out samples.  Local
(``privacy_utility.py``) is ONE strategy for every node of a data set.  Here
the nodes vote on that strategy: each node's ballot is the model class
trained alone it prefers on its own held-out samples, the federation draws
the winner by the exponential mechanism on the vote counts (one node moves
each count by at most 1: sensitivity 1), and every node then keeps its fit
of the voted class unless its collaborative model is significantly better
(:func:`skfed._kept_local.choose_reference`, the ``--kept local`` rule).

This script reads the records of ``private_kept_combine.py --save`` (one
private fit per row and seed, every node's held-out errors and scores of
its four candidates and their test scores) and prints, per row:

* ``ref-<class>``: every node keeps that class unless the collaborative
  model wins the one-sided sign test at 0.05 / K;
* ``ref-1se``: the same with each node's one-standard-error choice among
  the three classes alone as the reference;
* the exact vote counts (ballots ``platt``: the class of lowest
  Platt-calibrated held-out log-loss; ``err``: the lowest 0-1 error, ties
  split) and the expected accuracy of the private vote at ``--vote-eps``
  (the exponential mechanism's probabilities on the counts, exact).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/private_kept_combine.py \
        --only persolin-computer mocha-school mocha-har --seeds 0 1 2 --save rows.pkl
    OPENBLAS_NUM_THREADS=1 python benchmarks/private_class_vote.py rows.pkl
"""

import argparse
import os
import pickle
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from privacy_utility import platt_loss  # noqa: E402

from skfed._kept_local import CLASSIFIERS, collaboration_wins, kept_choice  # noqa: E402

ALONE = [1 + CLASSIFIERS.index(n) for n in ("LogisticRegression", "LinearSVC",
                                            "rff-LinearSVC")]
NAMES = ["LogisticRegression", "LinearSVC", "rff-LinearSVC"]


def ballots(rec, kind):
    """One node's ballot over ALONE's classes (a probability vector)."""
    err, S, codes = rec["err"], rec["scores"], rec["codes"]
    if kind == "platt":
        losses = np.array([platt_loss(S[c], codes) for c in ALONE])
        best = losses <= losses.min() + 1e-12
    else:
        mean = err[ALONE].mean(axis=1)
        best = mean <= mean.min() + 1e-12
    return best / best.sum()


def reference_pred(rec, ref, n_nodes):
    """Test predictions when the node keeps ``ref`` (an index into err) unless
    the collaborative model wins the sign test at 0.05 / n_nodes."""
    err, T = rec["err"], rec["test"]
    if collaboration_wins(err[ref], err[0], True, n_nodes):
        return (T[0] > 0).astype(int)
    return (T[ref] > 0).astype(int)


def one_se_alone(rec):
    """Index of the one-standard-error choice among the classes alone, and its
    cross-fitted held-out errors (each fold scored by the choice on the others)."""
    err, fold, n_folds = rec["err"], rec["fold"], rec["n_folds"]
    sub = err[ALONE]
    pick = ALONE[kept_choice(sub)]
    crossed = np.empty(err.shape[1])
    for f in range(n_folds):
        test = fold == f
        crossed[test] = err[ALONE[kept_choice(sub[:, ~test])], test]
    return pick, crossed


def row_scores(saved, vote_eps):
    nodes = [r for r in saved["nodes"] if "test" in r and r["rows"].size]
    K = len(saved["nodes"])
    y = saved["codes_test"]
    base = (saved["collab"] > 0).astype(int)
    out = {}
    for name, ref in zip(NAMES, ALONE):
        pred = base.copy()
        for rec in nodes:
            pred[rec["rows"]] = reference_pred(rec, ref, K)
        out["ref-" + name] = float(np.mean(pred == y))
    pred = base.copy()
    for rec in nodes:
        pick, crossed = one_se_alone(rec)
        keep = not collaboration_wins(crossed, rec["err"][0], True, K)
        pred[rec["rows"]] = (rec["test"][pick if keep else 0] > 0).astype(int)
    out["ref-1se"] = float(np.mean(pred == y))
    pred = base.copy()
    for rec in nodes:
        pred[rec["rows"]] = (rec["test"][kept_choice(rec["err"], ORDER)] > 0).astype(int)
    out["built"] = float(np.mean(pred == y))
    for kind in ("platt", "err"):
        counts = np.sum([ballots(rec, kind) for rec in nodes], axis=0)
        out["count-" + kind] = counts
        # exponential mechanism, sensitivity 1: P(j) ~ exp(eps count_j / 2)
        logits = vote_eps * counts / 2.0
        prob = np.exp(logits - logits.max())
        prob /= prob.sum()
        out["vote-" + kind] = float(sum(p * out["ref-" + n] for p, n in zip(prob, NAMES)))
        out["p-" + kind] = prob
    return out


ORDER = [0 if n == "collaborative" else 1 + CLASSIFIERS.index(n)
         for n in ("LogisticRegression", "LinearSVC", "rff-LinearSVC", "collaborative")]


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records", nargs="+")
    parser.add_argument("--vote-eps", type=float, default=0.3)
    args = parser.parse_args(argv)
    saved = []
    for path in args.records:
        with open(path, "rb") as handle:
            saved += pickle.load(handle)
    rows = {}
    for s in saved:
        res = row_scores(s, args.vote_eps)
        rows.setdefault(s["row"], []).append(res)
        print(f"{s['row']} seed {s['seed']}: " + " ".join(
            f"{k}={v:.5f}" if np.isscalar(v) else f"{k}={np.round(v, 3).tolist()}"
            for k, v in res.items()), flush=True)
    keys = ["built", "ref-LogisticRegression", "ref-LinearSVC", "ref-rff-LinearSVC",
            "ref-1se", "vote-platt", "vote-err"]
    print(f"{'row':20s}" + "".join(f"{k[:14]:>15s}" for k in keys))
    for row, runs in rows.items():
        print(f"{row:20s}" + "".join(f"{np.mean([r[k] for r in runs]):15.5f}" for k in keys))


if __name__ == "__main__":
    main()
