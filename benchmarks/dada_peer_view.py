"""Dada's bounded peer view (``peer_view``): accuracy, graph recovery and bytes per node.

review13 found that the default kernel graph signal sends each node's
fixed 300-float graph model once to every peer it ever samples, and that
those peers grow with the nodes (bytes per node linear in the nodes up to
about 1,090 partners).  ``peer_view`` restricts every graph step to a
fixed random symmetric view of at most that many peers per node
(``skfed/boosting/_dada_view.py``).  This script fits Dada at its
defaults with several view sizes (``None``: no view, the sampling before)
and prints, per family or data set and view size, the mean over the seeds
or runs of: test accuracy % (the mean per-node accuracy for the probe
families, as ``dada_probe_families.py`` scores them), the share of the
learned graph's weight inside the true clusters % (moons only), kB sent
per node, and the most distinct partners of any node.

Families (the first two groups chose the default; the rest held out):

* moons ``noisy``, ``jitter``, ``paper``, ``random``, ``iid`` (100 nodes
  of 3-14 samples, four clusters of 10-40 nodes; ``dada_kernel_graph.py``);
* ``school``, ``computer``, ``har`` (the paper's real data; runs);
* ``axis_rules`` and ``alike_tiny`` (``dada_probe_families.py``: 100
  nodes of 10 samples in four clusters of axis rules; 500 nearly-alike
  nodes of 6 samples);
* ``noisy400`` (held out: many small nodes in many clusters): the noisy
  moons on 400 nodes of 3-14 samples in 8 clusters of 50, every two
  clusters at least 30 degrees apart;
* ``related400`` (held out): review13's related linear nodes, 400 nodes
  of 10 samples x 10 features, one shared direction plus 0.3 node noise
  (tested on 100 held-out samples a node).

Usage::

    python benchmarks/dada_peer_view.py FAMILY[,FAMILY...] SEEDS VIEWS
    python benchmarks/dada_peer_view.py noisy,jitter 0,1,2 None,20,40,80

Results: see the end of this docstring (filled in by the run that chose
the default).
"""

import sys
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dada_experiments import MOONS_FAMILIES, cluster_angles, load_run  # noqa: E402
from dada_graph_signal import inside_share, load  # noqa: E402
from dada_probe_families import make_family, per_node_score  # noqa: E402

from skfed.boosting import DecentralizedBoostingClassifier  # noqa: E402
from skfed.datasets import make_rotated_moons  # noqa: E402

REAL = ("school", "har", "computer")
PROBE = ("axis_rules", "alike_tiny")


def _noisy400(seed):
    params = dict(MOONS_FAMILIES["noisy"])
    params["angles"] = cluster_angles(seed, 8)
    X, X_test, y, y_test, g, g_test, _, clusters = make_rotated_moons(
        400, cluster_sizes=[50] * 8, n_samples_range=(3, 14), n_features=20,
        random_state=seed, **params)
    return X, X_test, y, y_test, g, g_test, clusters


def _related400(seed, n_nodes=400, n=10, n_test=100, d=10):
    rng = np.random.RandomState(seed)
    W = rng.randn(d) + 0.3 * rng.randn(n_nodes, d)
    g = np.repeat(np.arange(n_nodes), n + n_test)
    X = rng.randn(g.size, d)
    y = (np.einsum("ij,ij->i", X, W[g]) > 0).astype(int)
    train = np.tile(np.r_[np.ones(n, bool), np.zeros(n_test, bool)], n_nodes)
    return X[train], X[~train], y[train], y[~train], g[train], g[~train]


def data(name, seed):
    """``X, X_test, y, y_test, g, g_test, clusters, n_estimators, metric``."""
    if name in REAL:
        X, X_test, y, y_test, g, g_test, n_est = load_run(name, seed)
        return X, X_test, y, y_test, g, g_test, None, n_est, None
    if name in PROBE:
        X, y, g, train, metric = make_family(name, seed)
        return (X[train], X[~train], y[train], y[~train], g[train], g[~train], None,
                "auto", metric)
    if name == "noisy400":
        return (*_noisy400(seed), 200, None)
    if name == "related400":
        return (*_related400(seed), None, "auto", None)
    return (*load(name, seed), 200, None)


def fit_row(name, seed, view):
    X, X_test, y, y_test, g, g_test, clusters, n_est, metric = data(name, seed)
    start = time.process_time()
    model = DecentralizedBoostingClassifier(n_est, random_state=seed, peer_view=view)
    model.fit(X, y, groups=g)
    cpu = time.process_time() - start
    pred = model.predict(X_test, groups=g_test)
    acc = (per_node_score(y_test, pred, g_test, metric) if metric is not None
           else float(np.mean(pred == y_test)))
    K = len(model.nodes_)
    pairs = model.communication_.pair_bytes_sparse[:K, :K].tocsr()
    G = model.collaboration_graph_.toarray()
    return [100 * acc, 100 * inside_share(G, clusters) if clusters is not None else np.nan,
            model.n_bytes_sent_ / K / 1e3, np.diff(pairs.indptr).max(), cpu]


def main(argv):
    warnings.simplefilter("ignore")
    names = argv[0].split(",")
    seeds = [int(s) for s in argv[1].split(",")]
    views = [None if v == "None" else int(v) for v in argv[2].split(",")]
    for name in names:
        table = {}
        for view in views:
            rows = [fit_row(name, seed, view) for seed in seeds]
            table[view] = np.mean(rows, axis=0)
            print(f"  {name} view {view}: " + " ".join(f"{r[0]:.2f}/{r[1]:.1f}" for r in rows),
                  flush=True)
        print(f"{name:10s} seeds {argv[1]}: " + " | ".join(
            f"view {v}: {m[0]:.2f} {m[1]:.1f} {m[2]:.0f} kB {m[3]:.0f} partners {m[4]:.1f} s"
            for v, m in table.items()), flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
