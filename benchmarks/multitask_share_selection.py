"""What ``omega="auto"``'s share selection costs and what it buys (issue 28).

Per data set and seed, :class:`~skfed.FederatedMultiTaskClassifier` (or
``...Regressor``) at its defaults except for the selection's settings, each a
variant of the module constants of :mod:`skfed.multitask._shared`:

- ``learned``: ``omega="shared"``, the share the training objective learns
  (no selection);
- ``auto``: the defaults as shipped;
- the variants named on the command line (``folds=K``: at most K held-out
  folds, ``budget=F``: the selection's byte budget as a fraction of the raw
  upload, ``tol=T``: the candidates' tolerance factor), e.g.
  ``--variant folds=1,budget=0.25``.

Each row: score (mean per-node accuracy, AUC or RMSE), the better of the
Global and Local baselines (better of ``LinearSVC()`` / ``SVC()`` /
``LogisticRegression()``, or ``Ridge()`` / ``SVR()``; cached with ``--cache``
as in ``bench_multitask.py``), bytes against the raw upload, rounds, CPU
seconds, the candidates run and the selected share.  One JSON line per fit,
one BLAS thread.

    python benchmarks/multitask_share_selection.py --datasets har-sitting landmine \
        --seeds 0 --variant folds=1 --variant folds=1,budget=0.25 --cache baselines.json
"""

import argparse
import json

import numpy as np
from threadpoolctl import threadpool_limits

from bench_multitask import fit_checked, node_score
from bench_multitask_choice import load_cache, split_with_baselines
from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.baselines import pooled_data_bytes
from skfed.multitask import _shared

_CONSTANTS = dict(folds="SELECTION_MAX_FOLDS", budget="SELECTION_BYTE_BUDGET",
                  tol="SELECTION_TOL_FACTOR")


def parse_variant(text):
    """``"folds=1,budget=0.25"`` -> ``{"SELECTION_MAX_FOLDS": 1, ...}``."""
    out = {}
    for item in text.split(","):
        key, value = item.split("=")
        out[_CONSTANTS[key]] = float(value) if key != "folds" else int(value)
    return out


def run(datasets, seeds, variants, cache=None):
    stored = load_cache(cache)
    defaults = {name: getattr(_shared, name) for name in _CONSTANTS.values()}
    for name in datasets:
        for seed in seeds:
            split, regression, metric, best = split_with_baselines(name, seed, stored, cache)
            Xtr, Xte, ytr, yte, gtr, gte = split
            raw = pooled_data_bytes(Xtr, ytr, gtr)
            Est = FederatedMultiTaskRegressor if regression else FederatedMultiTaskClassifier
            for label, constants in [("learned", None), ("auto", {})] + variants:
                for const, value in {**defaults, **(constants or {})}.items():
                    setattr(_shared, const, value)
                est = Est(random_state=0, omega="shared" if constants is None else "auto")
                cpu = []
                try:
                    seconds, ok = fit_checked(est, Xtr, ytr, gtr, cpu)
                finally:
                    for const, value in defaults.items():
                        setattr(_shared, const, value)
                score = node_score(metric, est, Xte, yte, gte)
                sel = getattr(est, "share_selection_", None)
                print(json.dumps(dict(
                    dataset=name, seed=seed, variant=label, score=round(score, 5),
                    best=round(best, 5),
                    margin=round((best - score) / best if regression else score - best, 5),
                    converged=ok, bytes_ratio=round(est.n_bytes_sent_ / raw, 3),
                    rounds=est.n_iter_, cpu_s=round(cpu[0], 2),
                    share=round(est.shared_weight_, 4),
                    candidates=None if sel is None else [
                        None if np.isnan(s) else float(s) for s in sel["shares"]],
                    n_folds=None if sel is None else sel["n_folds"],
                )), flush=True)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", nargs="+", required=True)
    parser.add_argument("--seeds", nargs="+", type=int, default=[0])
    parser.add_argument("--variant", action="append", default=[])
    parser.add_argument("--cache", default=None)
    args = parser.parse_args(argv)
    variants = [(text, parse_variant(text)) for text in args.variant]
    with threadpool_limits(limits=1):
        run(args.datasets, args.seeds, variants, cache=args.cache)


if __name__ == "__main__":
    main()
