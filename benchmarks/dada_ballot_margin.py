"""Vote fractions of the significance ballot: noise against informative features.

The significance ballot of Dada's feature vote (issue 33) keeps a feature
whose count of nodes finding it significant (each node's F test at level
0.05) beats Binomial(n_tested, 0.05).  The F test is exact for normal
features only, so a noise feature's per-node rate can sit a little above
0.05; with thousands of nodes the binomial test detects that.  This script
prints, per case, every feature's vote fraction (significance count / nodes
tested), the binomial threshold, and what a floor ``ceil(margin *
n_tested)`` would change:

* the "noisy" moons family at 100, 1,000 and 10,000 nodes (features 0-1
  informative, 2-19 noise);
* the probe families of ``dada_probe_families.py`` (training samples only);
* HAR walking runs 0-2 (561 features; which are informative is unknown, so
  it reports how many pass each rule);
* per-node false-positive rates of the F test on pure-noise features of
  other shapes (binary, Student t with 2 degrees of freedom, lognormal),
  nodes of 3-14 samples, two classes.

Usage::

    python benchmarks/dada_ballot_margin.py [margin ...]
"""
import math
import sys

import numpy as np

from skfed.boosting import binomial_threshold, feature_relevance
from skfed.boosting._stumps import significant_features


def fractions(X, y, g):
    order = np.argsort(g, kind="stable")
    X, y, g = X[order], y[order], g[order]
    _, codes = np.unique(y, return_inverse=True)
    offsets = np.r_[0, np.cumsum(np.bincount(g - g.min()))]
    offsets = np.unique(offsets)
    relevance = feature_relevance(X, codes, offsets)
    varying = X.max(axis=0) > X.min(axis=0)
    votes, tested = significant_features(relevance, codes, offsets, varying)
    n_tested = int(tested.sum())
    return votes.sum(axis=0) / max(n_tested, 1), n_tested, int(varying.sum())


def report(name, frac, n_tested, n_varying, margins, noise=None):
    binom = binomial_threshold(n_tested, 0.05, n_varying)
    line = f"{name:>22s} tested {n_tested:6d} binom thr {binom:5d} ({binom / n_tested:.3f})"
    if noise is not None:
        inf = np.setdiff1d(np.arange(frac.size), noise)
        line += (f" | informative {np.round(frac[inf], 3).tolist()} noise max "
                 f"{frac[noise].max():.4f} mean {frac[noise].mean():.4f}")
    for m in [None] + list(margins):
        thr = binom if m is None else max(binom, math.ceil(m * n_tested))
        kept = int((frac * n_tested >= thr).sum())
        kept_noise = 0 if noise is None else int((frac[noise] * n_tested >= thr).sum())
        line += f" | m={m}: kept {kept}" + ("" if noise is None else f" (noise {kept_noise})")
    print(line, flush=True)


def main(argv):
    margins = [float(a) for a in argv] or [0.075, 0.1]
    sys.path.insert(0, "benchmarks")
    from dada_experiments import load_run, moons_family
    from dada_probe_families import make_family

    rng = np.random.default_rng(0)
    for shape in ["normal", "binary", "t2", "lognormal"]:
        K, rates = 20000, []
        m = rng.integers(3, 15, size=K)
        g = np.repeat(np.arange(K), m)
        y = rng.integers(0, 2, size=g.size)
        y[np.r_[0, np.cumsum(m)[:-1]]] = 0
        y[np.r_[0, np.cumsum(m)[:-1]] + 1] = 1
        n = g.size
        X = {"normal": lambda: rng.normal(size=(n, 4)),
             "binary": lambda: (rng.random((n, 4)) < 0.2).astype(float),
             "t2": lambda: rng.standard_t(2, size=(n, 4)),
             "lognormal": lambda: rng.lognormal(size=(n, 4))}[shape]()
        frac, n_tested, _ = fractions(X, y, g)
        print(f"F test per-node false-positive rate, {shape:>9s} noise, {n_tested} nodes "
              f"of 3-14: {np.round(frac, 4).tolist()}", flush=True)
    for n_nodes in [100, 1000, 10000]:
        for seed in [0, 1]:
            X, _, y, _, g, _, _, _ = moons_family("noisy", seed, n_nodes)
            frac, n_tested, n_varying = fractions(X, y, g)
            report(f"noisy K={n_nodes} s{seed}", frac, n_tested, n_varying, margins,
                   noise=np.arange(2, 20))
    for family in ["three_class", "unbalanced", "imbalance", "alike_tiny", "axis_rules"]:
        for seed in [0, 1]:
            X, y, g, train, _ = make_family(family, seed)
            frac, n_tested, n_varying = fractions(X[train], y[train], g[train])
            report(f"{family} s{seed}", frac, n_tested, n_varying, margins)
            print(" " * 23 + "fractions " + str(np.round(np.sort(frac)[::-1][:12], 3).tolist()))
    for run in [0, 1, 2]:
        X, _, y, _, g, _, _ = load_run("har", run)
        frac, n_tested, n_varying = fractions(X, y, g)
        report(f"har run {run}", frac, n_tested, n_varying, margins)
        print(" " * 23 + "fraction quantiles (50/75/90/99 %) "
              + str(np.round(np.quantile(frac, [0.5, 0.75, 0.9, 0.99]), 3).tolist()))


if __name__ == "__main__":
    main(sys.argv[1:])
