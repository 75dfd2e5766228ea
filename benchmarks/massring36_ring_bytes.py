"""massring36: the node-mass exchange's bytes, main's gather against the count protocol.

``skfed._node_mass`` gathered every mass at the root (``8 sum_j depth_j``
bytes over ``(K - 1) (2 h + 8 s)``: quadratic on a ring, review36).  It
now gathers only while the aggregation tree's depths average at most
``GATHER_DEPTH`` (Dada 9, Perso-lin 48) and otherwise counts (fixed-size
messages, a pivot search for the median when needed).  This prints, per
topology and number of nodes, main's gather bytes (its closed form) and
the library's, for honest integer masses (50-400, the rows of unit-weight
nodes) and with 10 % liars reporting 1e6 x the largest; ``--fit K,...``
also fits Dada (``n_estimators=20``, 5 rows per node, review36's setting)
on a ring and prints the exchange's share of the fit's bytes.

Results (2026-11-30, main 4dcac699 + this branch, massring36)
-------------------------------------------------------------
``python benchmarks/massring36_ring_bytes.py --fit 100,400,1600``::

    topology         kind         K     main B      now B    liars B way
    ring             dada        23       2112       2112       2112 gather
    ring             dada       100      24752      11880      66132 count
    ring             dada       400     339152      47880     321195 count
    ring             dada      1600    5196752     191880    1068132 count
    ring             dada      3200   20633552     383880    2136932 count
    ring             persolin    23       2464       2464       2464 gather
    ring             persolin   100      26336      26336      26336 gather
    ring             persolin   400     345536     200697     310023 count
    ring             persolin  1600    5222336     804297    1023360 count
    ring             persolin  3200   20684736    1609097    2047360 count
    complete         dada        23       1584       1584       1584 gather
    complete         dada       100       8592       8592       8592 gather
    complete         dada       400      40736      40736      40736 gather
    complete         dada      1600     188464     188464     188464 gather
    complete         dada      3200     402488     383880    2136932 count
    complete         persolin    23       1936       1936       1936 gather
    complete         persolin   100      10176      10176      10176 gather
    complete         persolin   400      47120      47120      47120 gather
    complete         persolin  1600     214048     214048     214048 gather
    complete         persolin  3200     453672     453672     453672 gather
    random_regular   dada        23       1440       1440       1440 gather
    random_regular   dada       100       6928       6928       6928 gather
    random_regular   dada       400      30728      30728      30728 gather
    random_regular   dada      1600     125600     125600     125600 gather
    random_regular   dada      3200     250760     250760     250760 gather
    random_regular   persolin    23       1792       1792       1792 gather
    random_regular   persolin   100       8512       8512       8512 gather
    random_regular   persolin   400      37112      37112      37112 gather
    random_regular   persolin  1600     151184     151184     151184 gather
    random_regular   persolin  3200     301944     301944     301944 gather
    Dada ring K=100: fit 2,964,865 B; exchange now 11,880 B (0.40 %), main's gather 24,752 B (0.83 % of main's fit); 1 s
    Dada ring K=400: fit 12,517,640 B; exchange now 47,880 B (0.38 %), main's gather 339,152 B (2.65 % of main's fit); 1 s
    Dada ring K=1600: fit 52,872,759 B; exchange now 191,880 B (0.36 %), main's gather 5,196,752 B (8.98 % of main's fit); 3 s

Conclusion: linear in the nodes on a ring (Dada's honest exchange 120 B per
tree edge; review36's 1,600-node ring fit: 0.36 % of the bytes instead of
8.98 %); unchanged to the byte wherever the gather is kept (complete
topology up to 1,600 nodes, random regular graphs, small rings: every doc
count).  The cost: where the cap may bind (10 % liars) or for Perso-lin's
median, the search's rounds (137 B each per edge) make the count protocol
5-10x Dada's honest run; on the complete topology at 3,200 nodes with 10 %
liars that is 2.1 MB against the gather's 0.40 MB (the honest run is
0.38 MB against 0.40 MB).  A threshold on the data is not possible before
the exchange (the root learns whether the cap binds only from it).
"""

import argparse
import time

import numpy as np

from skfed import DecentralizedBoostingClassifier, SimulatedNetwork
from skfed._node_mass import SUMMARY_FLOATS, agree_on_masses, protocol_of
from skfed.boosting._agreement import _aggregation_tree


def _main_gather(sim, kind):
    parent, order = _aggregation_tree(sim)
    depth = np.zeros(sim.n_nodes, dtype=np.int64)
    for k in order.tolist():
        if parent[k] >= 0:
            depth[k] = depth[parent[k]] + 1
    return (sim.n_nodes - 1) * (32 + 8 * SUMMARY_FLOATS[kind]) + 8 * int(depth.sum())


def _masses(K, liars, seed=0):
    rng = np.random.default_rng(seed)
    m = rng.integers(50, 400, K).astype(np.float64)
    m[rng.random(K) < liars] = 1e6 * m.max()
    return m


def exchange_table(Ks):
    print(f"{'topology':16s} {'kind':8s} {'K':>5s} {'main B':>10s} {'now B':>10s} "
          f"{'liars B':>10s} {'way':6s}")
    for topology in ("ring", "complete", "random_regular"):
        for kind in ("dada", "persolin"):
            for K in Ks:
                net = SimulatedNetwork(topology=topology, random_state=0)
                main = _main_gather(net.start(K), kind)
                now = agree_on_masses(net.start(K), kind, _masses(K, 0.0))
                lied = agree_on_masses(net.start(K), kind, _masses(K, 0.1))
                print(f"{topology:16s} {kind:8s} {K:5d} {main:10d} {now:10d} {lied:10d} "
                      f"{protocol_of(net.start(K), kind):6s}", flush=True)


def fit_shares(Ks):
    for K in Ks:
        rng = np.random.default_rng(K)
        X = rng.normal(size=(5 * K, 4))
        y = (X[:, 0] + 0.5 * rng.normal(size=5 * K) > 0).astype(int)
        groups = np.repeat(np.arange(K), 5)
        t = time.perf_counter()
        est = DecentralizedBoostingClassifier(
            n_estimators=20, network=SimulatedNetwork(topology="ring"), random_state=0,
        ).fit(X, y, groups=groups)
        mass = agree_on_masses(SimulatedNetwork(topology="ring").start(K), "dada",
                               np.full(K, 5.0))
        main = _main_gather(SimulatedNetwork(topology="ring").start(K), "dada")
        total = est.n_bytes_sent_
        print(f"Dada ring K={K}: fit {total:,} B; exchange now {mass:,} B "
              f"({100 * mass / total:.2f} %), main's gather {main:,} B "
              f"({100 * main / (total - mass + main):.2f} % of main's fit); "
              f"{time.perf_counter() - t:.0f} s", flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--ks", default="23,100,400,1600,3200")
    p.add_argument("--fit", default="", help="also fit Dada on rings of these sizes")
    args = p.parse_args()
    exchange_table([int(k) for k in args.ks.split(",")])
    if args.fit:
        fit_shares([int(k) for k in args.fit.split(",")])
