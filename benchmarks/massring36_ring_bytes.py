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

Results (2026-11-30, main 4dcac699 + massring36, massring36)
-------------------------------------------------------------
``python benchmarks/massring36_ring_bytes.py --fit 100,400,1600``::

    (filled in below)
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
