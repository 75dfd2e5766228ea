r"""Measured, not built: the online gate with one random extra peer (issue 32).

``new_nodes_online_gate.py``'s gate (skfed/online/_join_gate.py) compares,
on every node's rows, its nearest and its farthest graph neighbour by
feature mean.  On the default ring (the weak coupling's graph, built in
label order) Landmine seed 3's nodes have both neighbours on their own
terrain and the gate stays closed (t 1.0).  This variant adds to each
node's candidates one fitted node drawn at random among its non-neighbours
(public draw), whose function it would download, under a node-local cost
rule: only when that dictionary (header + points and weights) is at most 5
% of what the node sent in the fit.  The scores here use the final
functions (``decision_function``), not the held copies::

    python benchmarks/new_nodes_online_gate_randpeer.py landmine 3,0,1,2,4,5
    python benchmarks/new_nodes_online_gate_randpeer.py moons,related-small,related-clustered,related-alike 0,1
    python benchmarks/new_nodes_online_gate_randpeer.py null 200

Measured (onlinegate25, 2026-11-29): Landmine t 3.08 (seed 3) / 9.89 /
5.70 / 7.19 / 6.33 / 9.00 (seeds 0, 1, 2, 4, 5; every node fetches: a
Landmine dictionary is 1.6 % of a node's fit bytes), so seed 3 would open
just over 3; held out rotated moons 1.88 / 0.65 (79-84 % of the nodes
fetch), related-small 2.38 / 2.24, related-clustered 0.98 / -1.39,
related-alike -0.90 / -0.32 (all fetch); null federations (18 nodes):
0.5 % of 200 fits above 3, 3.0 % above 2 (max 3.60).  So it buys seed 3
a marginal opening for 184 kB more at the first join on Landmine, moves
the held-out related-small fits closer to 3, and rests on a chosen 5 %
constant: not built (the built gate's nulls: 0 % above 3).
"""

import sys
import warnings

import new_nodes as nn
import numpy as np
from threadpoolctl import threadpool_limits

from skfed._mean_neighbours import gate_statistic


def t_of(est, X, y, g, seed):
    nodes = np.asarray(est.nodes_); classes = np.asarray(est.classes_)
    means = np.array([X[g == v].mean(0) for v in nodes])
    S = np.array([np.asarray(est.decision_function(X, groups=np.full(len(X), v)), float) for v in nodes])
    A = est.adjacency_.tocsr(); n = len(nodes)
    rng = np.random.RandomState([seed, 17])
    sent = np.asarray(est.communication_.pair_bytes_sparse.sum(axis=1)).ravel()[:n]
    d = X.shape[1]
    gains, fetch = np.zeros(n), np.zeros(n, bool)
    for i, v in enumerate(nodes):
        rows = g == v
        nb = A.indices[A.indptr[i]:A.indptr[i+1]]
        others = np.setdiff1d(np.arange(n), np.append(nb, i))
        r = rng.choice(others) if len(others) else None
        dict_bytes = 16 + len(est.dictionaries_[r]) * (d + 1) * 8 if r is not None else 0
        fetch[i] = r is not None and dict_bytes <= 0.05 * sent[i]
        cand = np.append(nb, r) if fetch[i] else nb
        if len(cand) < 2: continue
        dist = ((means[cand] - means[i]) ** 2).sum(1)
        o = cand[np.argsort(dist, kind="stable")]
        acc = lambda j: np.mean(classes[(S[j][rows] > 0).astype(int)] == y[rows])
        gains[i] = acc(o[0]) - acc(o[-1])
    return gate_statistic(gains), fetch.mean()


def run(name, seed):
    X, y, groups, task, *extra = nn.load(name, seed)
    fit_rows, _, _ = nn.split(X, y, groups, seed, extra[0] if extra else None)
    est = nn.make_estimator("online", task, seed).fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    t, f = t_of(est, X[fit_rows], y[fit_rows], groups[fit_rows], seed)
    print(f"{name} seed {seed}: t_rand1 {t:+.2f} fetching {100*f:.0f} %", flush=True)


def null(k, big):
    from new_nodes_persolin_mean_neighbours import conflicting_clusters
    T = []
    for seed in range(k):
        X, y, g = conflicting_clusters(seed, 40, (20, 60)) if big else conflicting_clusters(seed)
        est = nn.make_estimator("online", "classification", 0).fit(X, y, groups=g)
        T.append(t_of(est, X, y, g, seed))
    T = np.array(T)
    print(f"null big={big} {k}: t>2 {100*np.mean(T[:,0]>2):.1f}% t>3 {100*np.mean(T[:,0]>3):.1f}% max {T[:,0].max():.2f} fetching {100*T[:,1].mean():.0f} %", flush=True)



def main():
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        if sys.argv[1] == "null":
            null(int(sys.argv[2]), len(sys.argv) > 3)
        else:
            for name in sys.argv[1].split(","):
                for seed in sys.argv[2].split(","):
                    run(name, int(seed))


if __name__ == "__main__":
    main()
