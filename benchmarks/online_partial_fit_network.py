"""CPU and bytes per ``partial_fit`` call of the online learner with the
network function recomputed at every call against the default schedule
(recomputed when the network's steps have doubled).

    python benchmarks/online_partial_fit_network.py [--nodes 20] [--batch 10] [--calls 20]

A stream of XOR-like batches (``--batch`` samples per node per call) after a
fit on 300 samples per node; prints the fit's CPU, then per schedule the
mean CPU of a call, the bytes the calls sent and the test accuracy after
the last call.
"""

import argparse
import time

import numpy as np

import skfed.online._classes as online_classes
from skfed.online import DecentralizedKernelSGDClassifier


def _batch(rng, n_nodes, per):
    X = rng.normal(size=(n_nodes * per, 5))
    y = ((X[:, 0] * X[:, 1] + 0.3 * X[:, 2]) > 0).astype(int)
    return X, y, np.repeat(np.arange(n_nodes), per)


def run(factor, args):
    online_classes.NETWORK_REFRESH_FACTOR = factor
    rng = np.random.RandomState(0)
    X, y, groups = _batch(rng, args.nodes, 300)
    t = time.process_time()
    clf = DecentralizedKernelSGDClassifier(random_state=0).fit(X, y, groups=groups)
    fit_cpu = time.process_time() - t
    start_bytes = clf.n_bytes_sent_
    cpu = []
    for _ in range(args.calls):
        Xb, yb, gb = _batch(rng, args.nodes, args.batch)
        t = time.process_time()
        clf.partial_fit(Xb, yb, groups=gb)
        cpu.append(time.process_time() - t)
    Xt, yt, gt = _batch(np.random.RandomState(1), args.nodes, 100)
    return fit_cpu, float(np.mean(cpu)), clf.n_bytes_sent_ - start_bytes, clf.score(Xt, yt, groups=gt)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=20)
    parser.add_argument("--batch", type=int, default=10)
    parser.add_argument("--calls", type=int, default=20)
    args = parser.parse_args()
    default = online_classes.NETWORK_REFRESH_FACTOR
    for name, factor in (("every call", 1), (f"steps x{default}", default)):
        fit_cpu, call_cpu, sent, score = run(factor, args)
        print(f"{name:>12}: fit {fit_cpu:.2f} s CPU; partial_fit {call_cpu * 1e3:.1f} ms CPU "
              f"a call, {sent / 1e6:.2f} MB over {args.calls} calls; test accuracy {score:.4f}")


if __name__ == "__main__":
    main()
