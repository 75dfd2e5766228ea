"""Rogue nodes that lie about their mass: what it costs Dada and Perso-lin (rogue34).

Every confidence is ``c_k = m_k / M`` with ``M`` the federation's largest
mass, agreed up the setup's aggregation tree (``skfed/_node_mass.py``).  A
rogue node that reports ``1e6`` times the true largest mass divides every
honest confidence by ``1e6`` (each node's data term vanishes against the
graph's smoothing).  The root now takes ``M = min(max, MASS_CLIP x median)``
of the reported masses (fewer than half of them liars: the median is an
honest node's).  This script runs, on the split of ``benchmarks/new_nodes.py``
(80 % of the nodes fitted, 20 % join with ``k`` samples each), a fit and a
join per configuration:

* ``honest``: nobody lies (the library as it is);
* ``lie-none``: 10 % of the fitted nodes report ``1e6 x`` the largest mass,
  no bound (``MASS_CLIP = inf``: the library before rogue34);
* ``lie-c``: the same liars, ``MASS_CLIP = c``.

The lie is the benchmark's own (it wraps the private
``skfed._node_mass.agreed_max_mass``: the simulation keeps honest masses).
It reports the honest nodes' mean confidence, the fit's accuracy on the
fitted nodes' held-out rows (moons: their test draws; Landmine: 30 % of
each fitted node's rows, seeded) and the join's accuracy on the newcomers'
rows (``new_nodes.py``'s protocol).

Command::

    OPENBLAS_NUM_THREADS=1 python benchmarks/rogue34_mass_liar.py \\
        --datasets landmine,moons --seeds 0,1,2 --clips inf,2,4,8,16

Result: see the History below (2026-11-29).
"""

import argparse
import copy
import sys
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from new_nodes import load, new_node_rows, split  # noqa: E402

import skfed._node_mass as node_mass  # noqa: E402
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier  # noqa: E402

LIE = 1e6
METHODS = {"dada": DecentralizedBoostingClassifier, "persolin": PersonalizedLinearClassifier}


def lying(liars, n_fitted, original):
    """``agreed_max_mass`` as the root computes it when the ``liars`` (node
    positions among the ``n_fitted`` fitted nodes) report ``LIE`` times the
    largest true mass."""

    def agreed(mass):
        mass = np.array(mass, dtype=np.float64)
        if len(mass) == n_fitted and len(liars):
            mass[liars] = LIE * mass.max()
        return original(mass)

    return agreed


def held_out(X, y, g, fit_rows, seed, extra):
    """(train rows, test rows) of the fitted nodes."""
    if extra is not None:  # moons: the fitted nodes' test draws
        test = np.setdiff1d(np.flatnonzero(np.isin(g, np.unique(g[fit_rows]))), fit_rows)
        return fit_rows, test
    rng = np.random.RandomState(seed)
    mask = rng.rand(len(fit_rows)) < 0.3
    return fit_rows[~mask], fit_rows[mask]


def skewed(train_rows, g, seed, sigma=1.0, least=3):
    """A held-out family of unequal nodes: fitted node ``j`` keeps
    ``max(least, round(n_j exp(sigma (z_j - max z))))`` of its training rows
    (``z`` standard normal, seeded): the largest node keeps all of its rows,
    the median one about ``exp(-1.3 sigma)`` of them."""
    rng = np.random.RandomState(3000 + seed)
    nodes = np.unique(g[train_rows])
    z = rng.normal(size=len(nodes))
    keep = []
    for j, node in enumerate(nodes):
        rows = train_rows[g[train_rows] == node]
        keep.append(rows[:max(least, int(round(len(rows) * np.exp(sigma * (z[j] - z.max())))))])
    return np.sort(np.concatenate(keep))


def run(method, name, seed, clip, liar_share=0.1, k=10):
    """``clip``: "honest" (library), "honest-c" (MASS_CLIP = c, nobody lies) or
    c (MASS_CLIP = c, the liars lie); ``name`` ending in "-skew": the
    fitted nodes subsampled by :func:`skewed`."""
    base, skew = (name[:-5], True) if name.endswith("-skew") else (name, False)
    loaded = load(base, seed)
    X, y, g = loaded[:3]
    extra = loaded[4] if len(loaded) > 4 else None
    fit_rows, new, order = split(X, y, g, seed, extra)
    train_rows, test_rows = held_out(X, y, g, fit_rows, seed, extra)
    if skew:
        train_rows = skewed(train_rows, g, seed)
    K = len(np.unique(g[train_rows]))
    rng = np.random.RandomState(1000 + seed)
    lie = not str(clip).startswith("honest")
    liars = (np.sort(rng.choice(K, size=int(round(liar_share * K)), replace=False))
             if lie else np.array([], dtype=int))
    original, old_clip = node_mass.agreed_max_mass, node_mass.MASS_CLIP
    try:
        if lie:
            node_mass.MASS_CLIP = float(clip)
            node_mass.agreed_max_mass = lying(liars, K, original)
        elif clip != "honest":
            node_mass.MASS_CLIP = float(clip[len("honest-"):])
        est = METHODS[method](random_state=seed).fit(X[train_rows], y[train_rows],
                                                     groups=g[train_rows])
        fit_acc = est.score(X[test_rows], y[test_rows], groups=g[test_rows])
        honest = np.setdiff1d(np.arange(K), liars)
        conf = float(np.mean(est.confidence_[honest]))
        tr, te = new_node_rows(order, k)
        joined = copy.deepcopy(est).add_nodes(X[tr], y[tr], groups=g[tr])
        join_acc = joined.score(X[te], y[te], groups=g[te])
    finally:
        node_mass.agreed_max_mass, node_mass.MASS_CLIP = original, old_clip
    return conf, 100 * fit_acc, 100 * join_acc


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--datasets", default="landmine,moons")
    p.add_argument("--methods", default="dada,persolin")
    p.add_argument("--seeds", default="0,1,2")
    p.add_argument("--clips", default="inf,2,4,8,16")
    p.add_argument("--liars", type=float, default=0.1)
    p.add_argument("--honest-clips", default="", help="also fit honest runs at these MASS_CLIP")
    a = p.parse_args()
    warnings.simplefilter("ignore")
    configs = ["honest"] + a.clips.split(",")
    if a.honest_clips:
        configs += [f"honest-{c}" for c in a.honest_clips.split(",")]
    print(f"{'data':13s} {'method':8s} {'seed':>4s} {'config':>10s} {'conf':>9s} {'fit':>6s} {'join':>6s}")
    for name in a.datasets.split(","):
        for method in a.methods.split(","):
            for seed in map(int, a.seeds.split(",")):
                for c in configs:
                    conf, fa, ja = run(method, name, seed, c, a.liars)
                    label = c if c.startswith("honest") else f"lie-{c}"
                    print(f"{name:13s} {method:8s} {seed:4d} {label:>10s} {conf:9.2e} {fa:6.2f} {ja:6.2f}",
                          flush=True)


if __name__ == "__main__":
    main()
