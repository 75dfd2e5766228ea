"""Perso-lin on nodes whose training labels are all one class (review9's defect).

Perso-lin's objective (Zantedeschi et al. 2020, eq. 1) weights node k's loss
by its degree, so node k's block optimum minimizes ``c_k F_k(theta) + (mu /
2) ||theta - u_k||^2`` (``u_k`` its neighbours' weighted average): how far
it follows its neighbours does not depend on how weak its links are.  A
node with one class has a loss whose optimum is at infinity and whose
gradient fades there, so it can keep a neighbour's decision boundary and
predict a class it never saw.  This script measures how often that happens:

* ``example``: the six-node case of ``tests/test_persolin_constant_labels.py``
  (five nodes with the boundary ``x_0 = 0``, node 5 labelled 1 everywhere),
  the share of node 5's training rows predicted 1 at ``mu`` = 1, 0.1, 0.01;
* every case of ``persolin_local_models.py`` (the Dada splits of the moons
  families, Computer buyers, School, HAR walking and sitting), seeds 0-2:
  the fitted one-class nodes, the share of their training rows Perso-lin
  predicts with their label, and its test accuracy on their test rows
  against predicting their only label (what Local does for such a node).

    python benchmarks/persolin_one_class_nodes.py [--seeds 0 1 2] [--cases computer,...]

Measured 2026-11-28 (joinsg10, main at 8aeda58, one BLAS thread):

* example: node 5 (linked to node 0 only, weight 0.037 against 0.24-0.31
  between the others) predicts 1 on 52 % / 88 % / 100 % of its training
  rows at ``mu`` = 1 / 0.1 / 0.01;
* Computer buyers: 19 / 28 / 18 of 190 nodes are one-class on seeds 0 / 1 /
  2; Perso-lin predicts their label on every one of their training rows and
  scores on their test rows exactly what their only label scores (0.8594 /
  0.8234 / 0.8625);
* moons families (nodes of 3-14 samples, balanced test rows): 0-7 one-class
  nodes of 100 a seed.  On 6 of the 8 seeds with one, Perso-lin predicts
  their label on all their training rows; on their test rows it scores
  1,051 of 2,200 against 1,084 for their only label: moons-random seed 1
  (2 nodes) 0.395 against 0.520, moons-jitter seed 1 (1 node) 0.270
  against 0.490, moons-noisy 0.4900 / 0.5575 / 0.4657 against 0.4750 /
  0.5200 / 0.4714 (the others equal): over a family's 30,000 test rows
  (three seeds) Perso-lin is 0.08 / 0.07 point under predicting the only
  label on random / jitter and 0.05 over it on noisy;
* School, HAR walking and HAR sitting: no one-class node.

So the blending review9 found needs a neighbour whose boundary crosses the
node's data: it decides a handful of moons nodes (a one-class node's
local model, an intercept, places it among arbitrary neighbours), in both
directions, and no node of Computer buyers.  Predicting the only label
instead would move the families by under 0.1 point and would undo the
neighbours' help to a newcomer whose few samples happen to hold one class;
Perso-lin keeps the paper's objective and ``nodes.rst`` says what it does.
"""

import argparse
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from persolin_local_models import CASES, load_case  # noqa: E402
from skfed.boosting import PersonalizedLinearClassifier  # noqa: E402


def example():
    rng = np.random.RandomState(0)
    K, m = 6, 60
    X = rng.normal(size=(K * m, 2))
    g = np.repeat(np.arange(K), m)
    y = (X[:, 0] > 0).astype(int)
    y[g == 5] = 1
    for mu in (1.0, 0.1, 0.01):
        est = PersonalizedLinearClassifier(mu=mu, random_state=0).fit(X, y, groups=g)
        share = np.mean(est.predict(X[g == 5], groups=g[g == 5]) == 1)
        W = est.collaboration_graph_.toarray()
        print(f"example mu={mu:<5g} node 5 predicts its label on {100 * share:.1f} % of its "
              f"training rows (its links: {np.round(W[5][W[5] > 0], 3).tolist()})", flush=True)


def one_case(name, seed):
    X, Xt, y, yt, g, gt = load_case(name, seed)
    nodes = np.unique(g)
    one = [n for n in nodes if len(np.unique(y[g == n])) == 1]
    if not one:
        print(f"{name:13s} seed {seed}: no one-class node of {len(nodes)}", flush=True)
        return
    est = PersonalizedLinearClassifier(random_state=seed).fit(X, y, groups=g)
    tr, te = np.isin(g, one), np.isin(gt, one)
    own = est.predict(X[tr], groups=g[tr])
    pred = est.predict(Xt[te], groups=gt[te])
    label = {n: y[g == n][0] for n in one}
    only = np.array([label[n] for n in gt[te]])
    print(f"{name:13s} seed {seed}: {len(one)} of {len(nodes)} nodes one-class; Perso-lin "
          f"predicts their label on {100 * np.mean(own == y[tr]):.1f} % of their training "
          f"rows; their {te.sum()} test rows: Perso-lin {np.mean(pred == yt[te]):.4f}, "
          f"their only label {np.mean(only == yt[te]):.4f}", flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--cases", default=",".join(CASES))
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    example()
    for name in args.cases.split(","):
        for seed in args.seeds:
            one_case(name, seed)


if __name__ == "__main__":
    main()
