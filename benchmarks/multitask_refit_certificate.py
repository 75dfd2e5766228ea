"""Why the personal path's refit needs its rounds: the certified gap per round.

For the 4-class small family (:mod:`multitask_multiclass`), one seed: every
round of the fixed-share refit (the personal path's last fit) prints its
objective ``F``, its certified gap ``F - D`` (the round's own dual), and
``b_w ||grad_w F||^2 / (2 lambda m)``.  When the nodes' dual variables are
the loss derivatives at their solved margins (Fenchel-Young with equality),
the two last agree up to the personal parts' term ``sum_t ||u_t||^2 / (2
mu)`` and the quantization residuals: the certificate is the strong
convexity bound, which exceeds the suboptimality ``F - F*`` by about the
curvature of ``F`` over ``lambda m / b_w``.  The last line is one JSON object.

    cd benchmarks && python multitask_refit_certificate.py [--seed 8]
"""

import argparse
import json
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

from skfed import FederatedMultiTaskClassifier
from skfed.baselines import pooled_data_bytes
from skfed.multitask import _shared

from multitask_multiclass import load_family


def run(seed):
    rows = []
    values = _shared._SharedFit._values

    def recorded(fit, b):
        v = values(fit, b)
        if fit.personal_mu is not None:  # the refit at the selected weight
            g = v["grad"][:-1]
            rows.append(dict(
                F=float(v["F"]), gap=float(v["F"] - v["dual"]),
                strong_convexity=float(fit.b_w * (g @ g) / (2 * fit.lam * fit.m)),
                personal_term=float(fit.report[:, 2].sum() / (2 * fit.nodes.mu)),
                mu=float(fit.nodes.mu)))
        return v

    Xtr, Xte, ytr, yte, gtr, gte = load_family("small", seed)
    _shared._SharedFit._values = recorded
    try:
        est = FederatedMultiTaskClassifier(random_state=0).fit(Xtr, ytr, groups=gtr)
    finally:
        _shared._SharedFit._values = values
    best = min(r["F"] for r in rows)
    for r in rows:
        r["F_minus_last_best"] = r["F"] - best  # >= the suboptimality's lower part
    return dict(seed=seed, tol=est.tol, rounds=est.n_iter_,
                bytes_ratio=est.n_bytes_sent_ / pooled_data_bytes(Xtr, ytr, gtr),
                refit=rows)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args()
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = run(args.seed)
    print(f"seed {out['seed']}: {out['rounds']} rounds, {out['bytes_ratio']:.3f} x raw")
    print("| F | F - best F | certified gap F - D | b_w |g|^2 / (2 lambda m) | sum |u|^2 / (2 mu) |")
    print("|---|---|---|---|---|")
    for r in out["refit"]:
        print(f"| {r['F']:.4f} | {r['F_minus_last_best']:.4f} | {r['gap']:.4f} | "
              f"{r['strong_convexity']:.4f} | {r['personal_term']:.2e} |")
    print(json.dumps(dict(benchmark="multitask_refit_certificate", **out)))


if __name__ == "__main__":
    main()
