"""How much a Dada pair signal separates the true clusters of the held-out moons (issue 33).

Issue 33 asks for at least 85 % of the learned graph's weight inside the
true clusters on the held-out moons.  Dada's defaults reach 76.4 % on
"noisy" (four clusters at random angles at least 30 degrees apart), 90.9 %
on "jitter" and 71.2 % on "noisy" with i.i.d. arc positions
(``dada_vote_evidence.py``).  This script measures where the gap comes
from, on seeds 0-4 of each family:

``costs``
    After a default fit, every pair signal the graph step could use, as a
    cost (lower: more alike), scored two ways: ``knn``, the share of the
    edges inside the true clusters when every node links to its 5 cheapest
    peers (symmetrized; 5 is ``max_neighbors``), and ``auc``, the
    probability that a cross-cluster pair costs more than a same-cluster
    pair.  Signals: ``z`` the squared distance of the models' coefficients
    (the graph step's model term), ``e`` the peer scores ``3 (L_k(alpha_l)
    - L_k(alpha_k))`` summed both ways (the graph step's score term),
    ``z+e`` the two as the step combines them (``mu / 2 = 1.5``),
    ``logistic`` the mean logistic loss of each model on the other node's
    samples, ``0-1`` its error rate, ``fdist`` the mean squared difference
    of the two models' margins on both nodes' samples, ``pooled`` the
    logistic loss pooled over k and its learned neighbours (what a
    neighbourhood vote on a peer could know) and ``oracle`` the same pooled
    over k's true cluster (a bound that needs the clusters).  ``learned``:
    the learned graph's own share (its weights).
``candidates``
    Dada's defaults on a topology that lets every node draw ``n_same`` of
    its cluster and ``n_other`` other nodes (symmetrized; seeded): the
    learned graph's share against the candidates' share.  How much the
    graph step itself rejects cross-cluster candidates.
``oracle-models``
    The ``costs`` of Dada fitted on the oracle graph (``graph=`` the true
    clusters): how well the pair signals would separate the clusters if
    the models were the best the clusters allow.

Usage::

    python benchmarks/dada_graph_signal.py costs [FAMILY ...]         # noisy iid jitter
    python benchmarks/dada_graph_signal.py candidates [FAMILY ...]    # noisy
    python benchmarks/dada_graph_signal.py oracle-models [FAMILY ...] # noisy iid

Results (2 shared cores, 2026-11-27, seeds 0-4; knn % / auc %)::

    family   learned   z          e          z+e        logistic   0-1        fdist      pooled     oracle
    noisy    76.4      72.7/80.7  73.3/79.6  73.5/79.9  75.5/85.5  72.9/85.7  74.3/81.1  73.8/84.7  87.8/93.2
    iid      71.2      69.8/64.9  71.7/75.6  71.4/75.0  70.3/85.1  67.5/86.4  71.4/80.7  70.6/84.4  85.3/93.0
    jitter   90.9      84.2/83.2  86.6/87.8  86.4/88.0  88.1/92.0  88.4/91.9  86.2/89.7  87.5/91.7  96.3/98.3

    noisy: candidates (other, same)   share of candidates in cluster   learned graph inside %
           8, 2                        0.20                             64.6
           complete topology           0.30                             76.4
           5, 5                        0.48                             86.5
           5, 9                        0.60                             92.0

    oracle-models  z          e          z+e        logistic   0-1        fdist      pooled
    noisy          99.9/99.9  84.3/84.9  87.9/86.7  85.3/90.5  82.2/89.9  87.5/87.3  96.3/96.8
    iid            98.9/96.8  80.8/83.6  82.6/84.5  80.3/89.4  76.8/89.7  84.3/87.9  95.1/97.2

No signal the models and one node's samples give separates the noisy
clusters better than the learned graph already does (5-nearest-neighbour
shares 67-76 % against 71-76 %); pooling a peer's loss over the node's
learned neighbours does not help (73.8 %), and only pooling over the true
cluster reaches 85 %.  Fitted on the oracle graph, the models' distance
mirrors that graph (99 %), while the scores on a node's own samples still
reach only 81-84 % (a node's 5 nearest peers by its score; "pooled" is
then over the oracle graph): the graph step's model term locks in the
graph the models were smoothed on.  The learned graph's share follows its
candidates'
(a peer drawn through a neighbour, which raises the share of same-cluster
candidates, was also measured, 2-5 of the 5 peers: 73.7-76.8 % on noisy,
68.7-71.6 % on i.i.d., code not kept).  Started from the oracle graph
(weights 0.1; the first graph learning replaced by it, a one-off prototype), the
re-learnings drift back to 76-78 % on noisy (defaults, ``mu_graph`` 0.3
or 1, ``max_neighbors=10``, ``peer_scoring=10``); the oracle graph kept
fixed scores 79.05 % against the defaults' 75.95 %.
"""
import sys
import warnings
from pathlib import Path

import numpy as np
from scipy.special import logsumexp
from scipy.stats import rankdata

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dada_experiments import moons_family
from dada_vote_evidence import iid_moons

from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._stumps import stump_predictions
from skfed.network import SimulatedNetwork

SEEDS = (0, 1, 2, 3, 4)


def load(family, seed):
    """``X, X_test, y, y_test, g, g_test, clusters`` of a family."""
    if family == "iid":
        return iid_moons(seed)
    X, X_test, y, y_test, g, g_test, _, clusters = moons_family(family, seed)
    return X, X_test, y, y_test, g, g_test, clusters


def inside_share(W, clusters):
    """Share of the weight of ``W`` between two nodes of the same cluster."""
    same = clusters[:, None] == clusters[None, :]
    return float(W[same].sum() / W.sum())


def knn_share(cost, clusters, k=5):
    """Share of the edges inside the clusters when each node links to its k cheapest peers."""
    n = len(clusters)
    cost = cost.astype(np.float64, copy=True)
    np.fill_diagonal(cost, np.inf)
    nearest = np.argsort(cost, axis=1, kind="stable")[:, :k]
    A = np.zeros((n, n))
    A[np.repeat(np.arange(n), k), nearest.ravel()] = 1.0
    return inside_share(np.maximum(A, A.T), clusters)


def auc(cost, clusters):
    """P(cost of a cross-cluster pair > cost of a same-cluster pair), ties half."""
    upper = np.triu_indices(len(clusters), 1)
    same = (clusters[:, None] == clusters[None, :])[upper]
    ranks = rankdata(cost[upper])
    n_cross, n_same = np.count_nonzero(~same), np.count_nonzero(same)
    return float((ranks[~same].sum() - n_cross * (n_cross + 1) / 2) / (n_cross * n_same))


def pair_costs(model, X, y, g, clusters):
    """Every pair signal of the module docstring, as an (n_nodes, n_nodes) cost."""
    coef = np.hstack([model.coef_, model.intercept_[:, None]])
    H = np.hstack([stump_predictions(X, model.stump_features_, model.stump_thresholds_),
                   np.ones((X.shape[0], 1))])
    margins = H @ coef.T  # margins[i, l]: node l's model on sample i
    n = coef.shape[0]
    lse, logistic, error, fdist = (np.zeros((n, n)) for _ in range(4))
    signs = np.where(y > 0, 1.0, -1.0)
    for k in range(n):
        rows = g == k
        m = signs[rows, None] * margins[rows]
        lse[k] = logsumexp(-m, axis=0)
        logistic[k] = np.logaddexp(0.0, -m).mean(axis=0)
        error[k] = (m <= 0).mean(axis=0)
        fdist[k] = ((margins[rows] - margins[rows][:, [k]]) ** 2).mean(axis=0)
    sq = (coef ** 2).sum(axis=1)
    z = np.maximum(sq[:, None] + sq[None, :] - 2.0 * coef @ coef.T, 0.0)
    e = 3.0 * (lse - np.diag(lse)[:, None])
    e = e + e.T
    links = (model.collaboration_graph_.toarray() > 0).astype(np.float64)
    oracle = (clusters[:, None] == clusters[None, :]).astype(np.float64) - np.eye(n)

    def pooled(B):
        P = (logistic + B @ logistic) / (1.0 + B.sum(axis=1))[:, None]
        return P + P.T

    return {"z": z, "e": e, "z+e": 1.5 * z + e, "logistic": logistic + logistic.T,
            "0-1": error + error.T, "fdist": fdist + fdist.T, "pooled": pooled(links),
            "oracle": pooled(oracle)}


def run_costs(families, oracle=False):
    for family in families:
        rows = []
        for seed in SEEDS:
            X, _, y, _, g, _, clusters = load(family, seed)
            graph = None
            if oracle:
                graph = (clusters[:, None] == clusters[None, :]).astype(np.float64)
                np.fill_diagonal(graph, 0.0)
            model = DecentralizedBoostingClassifier(200, random_state=seed, graph=graph).fit(
                X, y, groups=g)
            costs = pair_costs(model, X, y, g, clusters)
            rows.append([100 * inside_share(model.collaboration_graph_.toarray(), clusters)]
                        + [100 * f(c, clusters) for c in costs.values()
                           for f in (knn_share, auc)])
        mean = np.mean(rows, axis=0)
        print(f"{family:8s} learned {mean[0]:.1f}  " + "  ".join(
            f"{name} {mean[1 + 2 * i]:.1f}/{mean[2 + 2 * i]:.1f}"
            for i, name in enumerate(costs)), flush=True)


def candidate_topology(clusters, n_other, n_same, seed):
    rng = np.random.RandomState(100 + seed)
    n = len(clusters)
    A = np.zeros((n, n))
    for k in range(n):
        others = np.flatnonzero(clusters != clusters[k])
        same = np.flatnonzero((clusters == clusters[k]) & (np.arange(n) != k))
        A[k, rng.choice(others, n_other, replace=False)] = 1.0
        A[k, rng.choice(same, min(n_same, same.size), replace=False)] = 1.0
    return np.maximum(A, A.T)


def run_candidates(families, settings=((8, 2), (5, 5), (5, 9))):
    for family in families:
        for n_other, n_same in settings:
            shares, inside = [], []
            for seed in SEEDS:
                X, _, y, _, g, _, clusters = load(family, seed)
                A = candidate_topology(clusters, n_other, n_same, seed)
                model = DecentralizedBoostingClassifier(
                    200, random_state=seed, network=SimulatedNetwork(topology=A),
                ).fit(X, y, groups=g)
                shares.append(inside_share(A, clusters))
                inside.append(100 * inside_share(model.collaboration_graph_.toarray(),
                                                 clusters))
            print(f"{family:8s} candidates ({n_other} other, {n_same} same): share "
                  f"{np.mean(shares):.2f}, learned graph inside {np.mean(inside):.1f} % "
                  f"{np.round(inside, 1).tolist()}", flush=True)


if __name__ == "__main__":
    warnings.simplefilter("ignore")
    part = sys.argv[1] if len(sys.argv) > 1 else "costs"
    if part == "costs":
        run_costs(sys.argv[2:] or ["noisy", "iid", "jitter"])
    elif part == "oracle-models":
        run_costs(sys.argv[2:] or ["noisy", "iid"], oracle=True)
    elif part == "candidates":
        run_candidates(sys.argv[2:] or ["noisy"])
    else:
        raise SystemExit("usage: dada_graph_signal.py {costs,candidates,oracle-models} [FAMILY ...]")
