"""The evidence behind the multi-task defaults (issue 28): candidate configurations
on the selection families, and the defaults on held-out families.

``--selection``: split 0 of HAR sitting, Landmine, School and the shared
regime at 1,000 nodes (the rows of ``bench_multitask.py --defaults``), each
candidate configuration at ``C=1`` with 8-bit messages: its score, bytes
against the raw upload, rounds, learned share and CPU seconds, beside the
better of the Global and Local baselines (cached with ``--cache``).

``--heldout``: three families no choice looked at, the defaults and
``kernel="rbf"`` against Global and Local (each the better of
``LinearSVC()``, ``SVC()`` and ``LogisticRegression()``): 300 nodes whose
personal rules are as large as the shared one (``personal_scale=1``), 100
nodes of 50 samples in 300 dimensions, and Dada's rotated moons (100 nodes
of 3-15 samples).

One JSON line per fit, one BLAS thread.

    python benchmarks/bench_multitask_choice.py --selection [--cache baselines.json]
    python benchmarks/bench_multitask_choice.py --heldout [--seeds 0]
"""

import argparse
import json
import os

from threadpoolctl import threadpool_limits

from bench_multitask import _best, baselines, fit_checked, load_split, node_score
from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.baselines import pooled_data_bytes
from skfed.datasets import make_related_tasks, make_rotated_moons

CANDIDATES = {
    "former defaults (rbf, learned Omega, squared hinge)": dict(
        kernel="rbf", approximation="rff", omega="learn", loss="squared_hinge"),
    "linear, learned Omega, squared hinge": dict(
        kernel="linear", omega="learn", loss="squared_hinge"),
    "linear, shared, squared hinge": dict(kernel="linear", omega="shared",
                                          loss="squared_hinge"),
    "linear, shared, logistic (the defaults)": dict(),
    "linear, shared, hinge": dict(kernel="linear", omega="shared", loss="hinge"),
    "rbf random features, shared, squared hinge": dict(
        kernel="rbf", approximation="rff", omega="shared", loss="squared_hinge"),
    "rbf random features, shared, logistic": dict(
        kernel="rbf", approximation="rff", omega="shared", loss="logistic"),
}
SELECTION = ("har-sitting", "landmine", "school", "shared-1000")
HELDOUT = {
    "300 nodes, personal_scale=1": lambda seed: make_related_tasks(
        300, personal_scale=1.0, random_state=seed)[:6],
    "100 nodes x 50 samples x 300 features": lambda seed: make_related_tasks(
        100, n_features=300, n_samples_per_node=50, random_state=seed)[:6],
    "rotated moons, 100 nodes": lambda seed: make_rotated_moons(100, random_state=seed)[:6],
}


def _fit(params, regression, Xtr, ytr, gtr, Xte, yte, gte, metric):
    Est = FederatedMultiTaskRegressor if regression else FederatedMultiTaskClassifier
    est = Est(random_state=0, **params)
    cpu = []
    _, ok = fit_checked(est, Xtr, ytr, gtr, cpu)
    return dict(score=round(node_score(metric, est, Xte, yte, gte), 5), converged=ok,
                rounds=est.n_iter_,
                bytes_ratio=round(est.n_bytes_sent_ / pooled_data_bytes(Xtr, ytr, gtr), 3),
                mode=est.approximation_, n_components=est.n_components_,
                share=getattr(est, "shared_weight_", None), cpu_s=round(cpu[0], 1))


def load_cache(cache):
    """The baseline scores stored in the JSON file ``cache`` (``{}`` if none)."""
    if cache and os.path.exists(cache):
        with open(cache) as f:
            return json.load(f)
    return {}


def split_with_baselines(name, seed, stored, cache=None):
    """One row of the defaults table: its split and its better baseline.

    Parameters
    ----------
    name : str
        A data set of ``bench_multitask.py``'s defaults table.
    seed : int
        Its split.
    stored : dict
        Baseline scores by ``"name/seed"``; the row's are measured and added
        when missing (only the missing estimators, as in
        ``bench_multitask.defaults_table``).
    cache : str or None, default=None
        JSON file that ``stored`` is written to after a measurement.

    Returns
    -------
    split : tuple
        ``Xtr, Xte, ytr, yte, gtr, gte``.
    regression : bool
        Whether the row is a regression (School).
    metric : {"rmse", "auc", "accuracy"}
        The row's score.
    best : float
        The better of the best Global and the best Local score (the lower
        RMSE, or the higher AUC or accuracy).
    """
    split = load_split(name, seed)
    regression = name == "school"
    metric = "rmse" if regression else "auc" if name == "landmine" else "accuracy"
    key = f"{name}/{seed}"
    # A cache written before LassoCV joined the regression baselines lacks it.
    if key not in stored or (regression and "local_LassoCV" not in stored[key]):
        stored[key] = baselines(name, *split, metric, known=stored.get(key))
        if cache:
            with open(cache, "w") as f:
                json.dump(stored, f)
    pick = min if regression else max
    best = pick(_best(stored[key], "global_", regression),
                _best(stored[key], "local_", regression))
    return split, regression, metric, best


def selection(cache=None):
    stored = load_cache(cache)
    for name in SELECTION:
        split, regression, metric, best = split_with_baselines(name, 0, stored, cache)
        Xtr, Xte, ytr, yte, gtr, gte = split
        for label, params in CANDIDATES.items():
            if regression:  # the regressor has the squared loss only
                if params.get("loss") in ("logistic", "hinge"):
                    continue
                params = {k: v for k, v in params.items() if k != "loss"}
            row = dict(family=name, config=label, best_baseline=round(best, 5))
            row.update(_fit(params, regression, Xtr, ytr, gtr, Xte, yte, gte, metric))
            print(json.dumps(row), flush=True)


def heldout(seeds):
    for name, make in HELDOUT.items():
        for seed in seeds:
            Xtr, Xte, ytr, yte, gtr, gte = make(seed)
            base = baselines(name, Xtr, Xte, ytr, yte, gtr, gte, "accuracy")
            best = max(_best(base, "global_", False), _best(base, "local_", False))
            for label, params in {"defaults": {}, "kernel=rbf": dict(kernel="rbf")}.items():
                row = dict(family=name, seed=seed, config=label, best_baseline=round(best, 5))
                row.update(_fit(params, False, Xtr, ytr, gtr, Xte, yte, gte, "accuracy"))
                row["baselines"] = {k: None if v is None else round(v, 5) for k, v in base.items()}
                print(json.dumps(row), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--selection", action="store_true")
    parser.add_argument("--heldout", action="store_true")
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--cache", default=None)
    args = parser.parse_args(argv)
    with threadpool_limits(1):
        if args.selection:
            selection(args.cache)
        if args.heldout:
            heldout(args.seeds)


if __name__ == "__main__":
    main()
