"""Dada's kernel graph signal on tasks linear in many features: the bandwidth rule.

Usage::

    python benchmarks/dada_kernel_signal_linear.py related-clustered 0 1 2 3 4
    python benchmarks/dada_kernel_signal_linear.py noisy jitter paper random iid 0 1 2
    python benchmarks/dada_kernel_signal_linear.py har computer school 0 1
    python benchmarks/dada_kernel_signal_linear.py related-clustered jitter 0 1 variant=linear

Per data set and seed, fits of ``DecentralizedBoostingClassifier`` (200
stumps on the synthetic families, ``dada_experiments.load_run``'s on the
real ones): ``graph_signal="boosting"``; ``"kernel"`` with the former fixed
bandwidth 0.3 (``fixed``, patched in below); ``"kernel"`` as the package
fits it (``package``: bandwidth ``max(0.3, 2 sqrt(2 d) n^(-1 / d))``,
:func:`skfed.boosting._kernel_graph.kernel_bandwidth`).  Columns: test
accuracy %, share of the learned graph's weight inside the true clusters
% (synthetic families), non-zeros of the graph, MB sent; the package fit's
bytes as a ratio to the fixed-bandwidth fit's.  ``related-clustered`` is
:func:`~skfed.datasets.make_related_tasks` with 100 nodes in four clusters
of linear tasks on 20 features (the generator's defaults otherwise).
``variant=linear`` adds fixed-bandwidth fits whose map also carries the
standardized inputs over ``sqrt(d)`` (a Gaussian + linear kernel).
"""
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from dada_experiments import load_run  # noqa: E402
from dada_graph_signal import inside_share, load  # noqa: E402

import skfed.boosting._kernel_graph as kernel_module  # noqa: E402
from skfed.boosting import DecentralizedBoostingClassifier  # noqa: E402
from skfed.datasets import make_related_tasks  # noqa: E402

REAL = ("school", "har", "computer")
PACKAGE_MAP = kernel_module.kernel_features
PACKAGE_BANDWIDTH = kernel_module.kernel_bandwidth


def fixed_bandwidth(n_samples, n_inputs):
    """The former bandwidth: 0.3 whatever the samples."""
    return kernel_module.KERNEL_BANDWIDTH


def with_linear(X, features, mean, spread, W, b):
    """The Fourier features and the standardized inputs over ``sqrt(d)``
    (kernel: Gaussian + ``z^T z' / d``, each of mean diagonal 1)."""
    Z = (np.asarray(X[:, features], dtype=np.float64) - mean) / spread
    return np.hstack([PACKAGE_MAP(X, features, mean, spread, W, b), Z / np.sqrt(Z.shape[1])])


def load_any(name, seed):
    if name in REAL:
        X, Xt, y, yt, g, gt, n_estimators = load_run(name, seed)
        return X, Xt, y, yt, g, gt, None, n_estimators
    if name == "related-clustered":
        X, Xt, y, yt, g, gt, _ = make_related_tasks(n_nodes=100, structure="clustered",
                                                    random_state=seed)
        return X, Xt, y, yt, g, gt, np.unique(g) * 4 // 100, 200
    X, Xt, y, yt, g, gt, clusters = load(name, seed)
    return X, Xt, y, yt, g, gt, clusters, 200


def fit_row(data, seed, signal, bandwidth, feature_map):
    X, Xt, y, yt, g, gt, clusters, n_estimators = data
    kernel_module.kernel_bandwidth = bandwidth
    kernel_module.kernel_features = feature_map
    try:
        model = DecentralizedBoostingClassifier(n_estimators, random_state=seed,
                                                graph_signal=signal).fit(X, y, groups=g)
    finally:
        kernel_module.kernel_bandwidth = PACKAGE_BANDWIDTH
        kernel_module.kernel_features = PACKAGE_MAP
    G = model.collaboration_graph_.toarray()
    return [100 * np.mean(model.predict(Xt, groups=gt) == yt),
            100 * inside_share(G, clusters) if clusters is not None else np.nan,
            np.count_nonzero(G), model.n_bytes_sent_ / 1e6]


FITS = {"boosting": ("boosting", PACKAGE_BANDWIDTH, PACKAGE_MAP),
        "fixed": ("kernel", fixed_bandwidth, PACKAGE_MAP),
        "package": ("kernel", PACKAGE_BANDWIDTH, PACKAGE_MAP)}
VARIANTS = {"linear": ("kernel", fixed_bandwidth, with_linear)}


def main(args):
    fits = dict(FITS)
    for a in [a for a in args if a.startswith("variant=")]:
        fits[a[8:]] = VARIANTS[a[8:]]
    args = [a for a in args if not a.startswith("variant=")]
    names = [a for a in args if not a.isdigit()] or ["related-clustered"]
    seeds = [int(a) for a in args if a.isdigit()] or [0, 1, 2]
    for name in names:
        rows = {fit: [] for fit in fits}
        for seed in seeds:
            data = load_any(name, seed)
            for fit, spec in fits.items():
                rows[fit].append(fit_row(data, seed, *spec))
            print(f"  {name} seed {seed}: " + " | ".join(
                f"{fit} {r[-1][0]:.2f} {r[-1][1]:.1f} {r[-1][2]} {r[-1][3]:.2f}"
                for fit, r in rows.items()), flush=True)
        means = {fit: np.mean(r, axis=0) for fit, r in rows.items()}
        ratio = np.mean([n[3] / o[3] for n, o in zip(rows["package"], rows["fixed"])])
        print(f"{name:17s} seeds {seeds}: " + " | ".join(
            f"{fit} {m[0]:.2f} {m[1]:.1f} {m[2]:.0f} {m[3]:.1f} MB" for fit, m in means.items())
            + f" | bytes package/fixed x{ratio:.4f}", flush=True)


if __name__ == "__main__":
    main(sys.argv[1:])
