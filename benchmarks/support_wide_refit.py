"""The sparse linear model's refit on a wider candidate set (issue 32).

:class:`~skfed.support.FederatedSparseLinearRegression` refits least
squares on the recovered support.  With ``refit_candidates=c`` every
answering client sends its statistics on ``c`` candidates (the support,
then the features of smallest vote p-value) instead, and the server picks,
by 5-fold cross-validation over the answering clients, least squares on the
support or ridge on all candidates (``skfed/support/_wide_refit.py``).
``support_`` is unchanged; ``coef_`` may be non-zero off it.

This script measures it on held-out families (the six of
``support_shrunk_intercepts.py``, made by its ``make_family``, plus ``d2``,
``d500`` and ``dense-small``, School-like: two effects of 0.7 and 0.3 and
18 of 0.07): R^2 x 100 of the fitted nodes' held-out rows (``fit``) and of
the newcomers' (``join k``), for each ``c`` given, against pooled
``Ridge``; the fit's bytes over ``c = 0``'s, and how often the server chose
ridge::

    OPENBLAS_NUM_THREADS=1 python benchmarks/support_wide_refit.py --seeds 0,1,2 --cs 0,32

School is ``benchmarks/new_nodes.py --families support --datasets school
--support-candidates c``.
"""

import argparse
import os
import sys
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import support_shrunk_intercepts as ssi  # noqa: E402

from skfed.support import FederatedSparseLinearRegression  # noqa: E402

EXTRA = {
    "d2": {"n_nodes": 100, "sizes": (10, 30), "d": 2, "s": 1, "tau": 1.0, "sigma": 1.0},
    "d500": {"n_nodes": 100, "sizes": (20, 40), "d": 500, "s": 5, "tau": 1.0, "sigma": 1.0},
    "dense-small": {"n_nodes": 140, "sizes": (20, 150), "d": 20, "s": 20, "tau": 1.0,
                    "sigma": 1.0, "dense": True},
}


def make(name, seed, k):
    spec = {**ssi.FAMILIES, **EXTRA}[name]
    ssi.FAMILIES.setdefault(name, spec)
    X, y, g, new, train = ssi.make_family(name, seed, k)
    if spec.get("dense"):
        # School-like target: two larger effects, many small ones
        rng = np.random.RandomState(1000 + seed)
        coef = np.full(spec["d"], 0.07) * rng.choice([-1, 1], spec["d"])
        coef[:2] = [0.7, 0.3]
        effects = spec["tau"] * rng.normal(size=spec["n_nodes"])
        y = X @ coef + effects[g] + spec["sigma"] * rng.normal(size=len(g))
    return X, y, g, new, train


def pooled_designs(seeds, cs, sizes, dims, designs):
    """``support_vs_pooled.py --refit``'s designs (exact sparse models,
    coefficients of 3 noise sd, 10 test samples a client): test R^2 and the
    fit's kB for each ``c``."""
    import support_vs_pooled as svp

    for design in designs:
        for size in sizes:
            g, n = (int(v) for v in size.split("x"))
            for dim in dims:
                d, s = (int(v) for v in dim.split(":"))
                for seed in seeds:
                    X, y, groups, Xt, yt, gt, _ = svp.make_design(design, g, n, d, s, seed,
                                                                  n_test=10)
                    row = {}
                    for c in cs:
                        est = FederatedSparseLinearRegression(refit_candidates=c).fit(
                            X, y, groups=groups)
                        row[f"R2 c={c}"] = r2_score(yt, est.predict(Xt, groups=gt))
                        row[f"kB c={c}"] = est.n_bytes_sent_ / 1e3
                        row[f"ridge c={c}"] = float(est.refit_alpha_ is not None)
                    print(design, size, dim, seed,
                          " ".join(f"{a} {b:.6f}" for a, b in row.items()), flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--cs", default="0,32")
    parser.add_argument("--families", default=",".join(list(ssi.FAMILIES) + list(EXTRA)))
    parser.add_argument("--pooled-designs", action="store_true",
                        help="support_vs_pooled.py's designs instead of the families")
    parser.add_argument("--sizes", default="1000x30")
    parser.add_argument("--dims", default="20:3,20:10,200:5")
    parser.add_argument("--designs", default="independent,toeplitz,heterogeneous")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    cs = [int(c) if c != "auto" else c for c in args.cs.split(",")]
    if args.pooled_designs:
        pooled_designs(seeds, cs, args.sizes.split(","), args.dims.split(","),
                       args.designs.split(","))
        return
    table = {}
    for name in args.families.split(","):
        for seed in seeds:
            for k in ks:
                X, y, g, new, train = make(name, seed, k)
                is_new = new[g]
                fit_tr, fit_te = train & ~is_new, ~train & ~is_new
                new_tr, new_te = train & is_new, ~train & is_new
                row, base_bytes = {}, None
                for c in cs:
                    est = FederatedSparseLinearRegression(
                        refit_candidates=c, random_state=seed).fit(
                            X[fit_tr], y[fit_tr], groups=g[fit_tr])
                    if k == ks[0]:
                        row[f"fit c={c}"] = 100 * r2_score(
                            y[fit_te], est.predict(X[fit_te], groups=g[fit_te]))
                    base_bytes = base_bytes or est.n_bytes_sent_
                    row[f"bytes c={c}"] = est.n_bytes_sent_ / base_bytes
                    row[f"ridge c={c}"] = float(est.refit_alpha_ is not None)
                    est.add_nodes(X[new_tr], y[new_tr], groups=g[new_tr])
                    row[f"join c={c}"] = 100 * r2_score(
                        y[new_te], est.predict(X[new_te], groups=g[new_te]))
                model = Ridge().fit(X[train], y[train])
                if k == ks[0]:
                    row["fit Ridge"] = 100 * r2_score(y[fit_te], model.predict(X[fit_te]))
                row["join Ridge"] = 100 * r2_score(y[new_te], model.predict(X[new_te]))
                table.setdefault((name, k), []).append(row)
                print(name, seed, k, " ".join(f"{a} {b:.2f}" for a, b in row.items()),
                      flush=True)
    print("family, k: means over seeds")
    for key, rows in table.items():
        print(key, " ".join(f"{n} {np.mean([r[n] for r in rows]):.2f}" for n in rows[0]))


if __name__ == "__main__":
    main()
