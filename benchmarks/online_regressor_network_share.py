"""Why the online kernel regressor misses Global on many small nodes, and
what a validated share of the network function gives (review13's held-out
families, ``tests/test_review13_heldout_defaults.py``, and the regression
families of ``online_experiments.py held-out``).

Command::

    python benchmarks/online_regressor_network_share.py --seeds 0 1 2

For every family and seed it prints the intermediate quantities of a fit at
the defaults: the chosen kernel and coupling (and both couplings' held-out
losses), the step ``eta0_`` against ``step_bound_``, the model orders, the
fraction of a node's test inputs outside the span of its own training
inputs (a linear node function is a combination of its own samples: it
cannot use that part), the node functions' score, the network function's
(``network_dictionary_``, what a node never seen predicts with), and the
score of ``(1 - s) f_i + s fbar`` for s = 0, 1/4, ..., 1 on the test rows
(an oracle, for reading only).  ``validated`` chooses ``s`` honestly: the
defaults are fitted on every node's rows but every 4th (the coupling
selection's split, ``holdout_mask``), every node scores the blends on its
held-out rows with the fit's loss (Huber at the agreed threshold), the
mean over the nodes picks ``s``, and the fit on all rows predicts with it
(its extra bytes: the inner fit's, in ``x fit`` of the final fit's).

Scores: R^2 (mean per node) for review13's families, RMSE (mean per node,
lower is better) for the online_experiments families; Global and Local
the better of Ridge / SVR / LassoCV pooled or one per node.
"""

import argparse
import sys
import warnings
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent / "tests"))

from online_experiments import held_out_baselines, held_out_family  # noqa: E402
from test_review13_heldout_defaults import (best_baselines, make_family,  # noqa: E402
                                            per_node_score)

from skfed import DecentralizedKernelSGDRegressor  # noqa: E402
from skfed.online._holdout import loss_values  # noqa: E402
from skfed.online._selection import holdout_mask  # noqa: E402

REVIEW13 = ("many_small", "alike", "half_noise", "d2", "d500")
EXPERIMENTS = ("alike-regression", "nonlinear-regression", "heavy-tailed-regression",
               "outlier-regression")
SHARES = np.linspace(0.0, 1.0, 5)


def load(family, seed):
    """``(Xtr, ytr, gtr, Xte, yte, gte, score, glob, loc, higher_is_better)``."""
    if family in REVIEW13:
        Xtr, ytr, gtr, Xte, yte, gte = make_family(family, "reg", seed)
        glob, loc = best_baselines("reg", Xtr, ytr, gtr, Xte, yte, gte)
        return (Xtr, ytr, gtr, Xte, yte, gte,
                lambda p: per_node_score(p, yte, gte, "reg"), glob, loc, True)
    _, Xtr, Xte, ytr, yte, gtr, gte = held_out_family(family, seed)
    base = held_out_baselines("regression", Xtr, Xte, ytr, yte, gtr, gte)
    glob = min(v[0] for k, v in base.items() if k.startswith("global"))
    loc = min(v[0] for k, v in base.items() if k.startswith("local"))

    def rmse(p):
        return float(np.mean([np.sqrt(np.mean((p[gte == k] - yte[gte == k]) ** 2))
                              for k in np.unique(gte)]))
    return Xtr, ytr, gtr, Xte, yte, gte, rmse, glob, loc, False


def both(est, X, groups):
    """Node functions' and the network function's predictions."""
    return est.predict(X, groups=groups), est.predict(X, groups=np.full(len(X), -10**9))


def outside_span(Xtr, gtr, Xte, gte):
    """Mean over nodes of the share of ||x||^2 of a node's test inputs
    outside the span of its own training inputs."""
    out = []
    for k in np.unique(gtr):
        Q, _ = np.linalg.qr(Xtr[gtr == k].T)
        X = Xte[gte == k]
        out.append(1 - np.sum((X @ Q) ** 2) / np.sum(X ** 2))
    return float(np.mean(out))


def validated_share(Xtr, ytr, gtr, **params):
    """The share chosen on every node's held-out rows, and the inner fit's bytes."""
    codes = np.unique(gtr, return_inverse=True)[1]
    held = holdout_mask(codes, codes.max() + 1)
    inner = DecentralizedKernelSGDRegressor(random_state=0, **params).fit(
        Xtr[~held], ytr[~held], groups=gtr[~held])
    f, g = both(inner, Xtr[held], gtr[held])
    losses = []
    for s in SHARES:
        r = ((1 - s) * f + s * g - inner.target_offset_) / inner.target_scale_
        y = (ytr[held] - inner.target_offset_) / inner.target_scale_
        values = loss_values(inner._loss_name(), (r)[:, None], y, inner._loss_threshold())
        losses.append(np.mean([values[codes[held] == k].mean()
                               for k in np.unique(codes[held])]))
    return float(SHARES[int(np.argmin(losses))]), inner.n_bytes_sent_, np.round(losses, 4)


def run(family, seed, params):
    Xtr, ytr, gtr, Xte, yte, gte, score, glob, loc, higher = load(family, seed)
    est = DecentralizedKernelSGDRegressor(random_state=0, **params).fit(Xtr, ytr, groups=gtr)
    f, g = both(est, Xte, gte)
    blends = [score((1 - s) * f + s * g) for s in SHARES]
    s, inner_bytes, losses = validated_share(Xtr, ytr, gtr, **params)
    sel = est.consensus_selection_
    print(f"{family} seed {seed}: kernel {est.kernel_}, c {est.consensus_penalty_} "
          f"(held-out losses weak/strong {np.round(sel['mean_validation_error'], 3)}), "
          f"eta0_ {est.eta0_:.3g} of bound {est.step_bound_:.3g}, "
          f"orders median {int(np.median(est.model_order_))} max {est.model_order_.max()}, "
          f"test inputs outside own span {outside_span(Xtr, gtr, Xte, gte):.2f}")
    print(f"    Global {glob:.4f} Local {loc:.4f} | node functions {blends[0]:.4f} "
          f"network function {blends[-1]:.4f} | oracle blends "
          + " ".join(f"{v:.4f}" for v in blends))
    best = max(glob, loc) if higher else min(glob, loc)
    val = blends[int(np.flatnonzero(SHARES == s)[0])]
    ok = val >= best if higher else val <= best
    print(f"    validated s={s:.2f} (held-out losses {losses}): {val:.4f} "
          f"{'>=' if ok else 'misses'} best baseline {best:.4f}; "
          f"bytes {est.n_bytes_sent_} + inner {inner_bytes} "
          f"(x fit {1 + inner_bytes / est.n_bytes_sent_:.2f})", flush=True)
    return family, seed, glob, loc, blends[0], val, s


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--families", nargs="+", default=list(REVIEW13 + EXPERIMENTS))
    parser.add_argument("--params", default="{}", help="JSON of estimator parameters")
    args = parser.parse_args(argv)
    import json
    params = json.loads(args.params)
    rows = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for family in args.families:
            for seed in args.seeds:
                rows.append(run(family, seed, params))
    print("\nfamily                    Global   Local  defaults  validated share (s)")
    for family in args.families:
        part = np.array([r[2:6] for r in rows if r[0] == family])
        shares = [r[6] for r in rows if r[0] == family]
        print(f"{family:24s} " + " ".join(f"{v:7.4f}" for v in part.mean(axis=0))
              + f"  {shares}")


if __name__ == "__main__":
    main()
