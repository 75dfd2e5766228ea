"""Dada's kernel graph signal with small newcomers: refits of new_nodes.py's splits per bandwidth rule.

Usage::

    python benchmarks/dada_kernel_small_nodes.py har fixed,spacing,cell 5,10,20 0,1,2
    python benchmarks/dada_kernel_small_nodes.py landmine fixed,cell 5,10,20 0,1,2

For a data set of ``benchmarks/new_nodes.py`` (``har``: HAR sitting with
people as nodes; ``landmine``; ``moons``; the ``related-*`` families), each
seed's split (80 % of the nodes fitted, 20 % new with ``k`` training
samples each) and each ``k``, ``DecentralizedBoostingClassifier`` at its
defaults is fitted from scratch on the fitted nodes' data and the
newcomers' ``k`` samples (``new_nodes.py``'s ``refit`` column), once per
bandwidth rule of the kernel graph models, patched in as
``benchmarks/dada_kernel_signal_linear.py`` does:

* ``fixed``: the package's 0.3;
* ``spacing``: dada7's ``max(0.3, 2 sqrt(2 d) n^(-1/d))``;
* ``cell``: ``max(0.3, 8 n^(-1/d))`` (``d`` voted features, ``n`` samples).

Per line: accuracy % on the newcomers' test samples, the bandwidth, the
newcomers' mean degree and the share of their graph weight that goes to
other newcomers.  Then the means over the seeds.
"""
import sys
from pathlib import Path

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent))
import new_nodes  # noqa: E402

import skfed.boosting._kernel_graph as kernel_module  # noqa: E402
from skfed.boosting import DecentralizedBoostingClassifier  # noqa: E402

PACKAGE_DIRECTIONS = kernel_module.kernel_directions


def spacing_bandwidth(n, d):
    """dada7's rule: twice the typical distance ``sqrt(2 d)`` shrunk by ``n^(-1/d)``."""
    return max(0.3, 2.0 * np.sqrt(2.0 * d) * max(n, 2) ** (-1.0 / d))


def cell_bandwidth(n, d):
    """Eight times the side ``n^(-1/d)`` of a sample's cell in the standardized cube."""
    return max(0.3, 8.0 * max(n, 2) ** (-1.0 / d))


RULES = {"fixed": lambda n, d: 0.3, "spacing": spacing_bandwidth, "cell": cell_bandwidth}


def refit(X, y, groups, seed, rule):
    used = []

    def directions(n_inputs, seeds, **kw):
        kw["bandwidth"] = RULES[rule](len(X), max(int(n_inputs), 1))
        used.append(kw["bandwidth"])
        return PACKAGE_DIRECTIONS(n_inputs, seeds, **kw)

    kernel_module.kernel_directions = directions
    try:
        with threadpool_limits(1):
            model = DecentralizedBoostingClassifier(random_state=seed).fit(X, y, groups=groups)
    finally:
        kernel_module.kernel_directions = PACKAGE_DIRECTIONS
    return model, used[0]


def main(name, rules, ks, seeds):
    means = {}
    for seed in seeds:
        data = new_nodes.load(name, seed)
        X, y, g = data[:3]
        fit_rows, new, order = new_nodes.split(X, y, g, seed, data[4] if len(data) > 4 else None)
        for k in ks:
            train, test = new_nodes.new_node_rows(order, k)
            Xp, yp = np.concatenate([X[fit_rows], X[train]]), np.concatenate([y[fit_rows], y[train]])
            gp = np.concatenate([g[fit_rows], g[train]])
            for rule in rules:
                model, bandwidth = refit(Xp, yp, gp, seed, rule)
                acc = 100 * np.mean(model.predict(X[test], groups=g[test]) == y[test])
                G = model.collaboration_graph_.toarray()
                newcomer = np.isin(model.nodes_, new)
                rows = G[newcomer]
                degree = rows.sum(axis=1)
                on_new = rows[:, newcomer].sum(axis=1) / np.maximum(degree, 1e-300)
                means.setdefault((rule, k), []).append(acc)
                print(f"{name} seed {seed} k {k:2d} {rule:8s} acc {acc:6.2f}  bandwidth "
                      f"{bandwidth:6.2f}  newcomers' degree {degree.mean():.3f}, on "
                      f"newcomers {on_new.mean():.2f}", flush=True)
    for (rule, k), accs in sorted(means.items(), key=lambda item: (item[0][1], item[0][0])):
        print(f"{name} k {k:2d} {rule:8s} mean accuracy {np.mean(accs):6.2f} over seeds {seeds}")


if __name__ == "__main__":
    args = sys.argv[1:] + [None] * 4
    main(args[0] or "har", (args[1] or "fixed,spacing,cell").split(","),
         [int(k) for k in (args[2] or "5,10,20").split(",")],
         [int(s) for s in (args[3] or "0,1,2").split(",")])
