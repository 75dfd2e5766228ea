"""Perso-lin's posterior join: a sharper posterior or more trust (persolin29).

The posterior join (:mod:`skfed.boosting._perso_lin_posterior`) weighs a
newcomer's candidates by ``exp(-s m_n L_n(theta_r))`` (``s = 1``: the
likelihood) and solves its block at ``TRUST`` times its confidence.  This
script runs the estimator's own join (``add_nodes``) with other ``s`` and
``TRUST`` (set on the module for the call), on ``benchmarks/new_nodes.py``'s
split and scoring (accuracy % on the newcomers' pooled test samples, mean
over seeds), next to Local (the best of LinearSVC / SVC / LogisticRegression
on the newcomers' ``k`` samples)::

    python benchmarks/persolin29_temperature.py --datasets moons --seeds 3,4,5

Results: see the end of this docstring (filled in when measured).
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes  # noqa: E402

import skfed.boosting._perso_lin_posterior as post  # noqa: E402

ORIGINAL = post.posterior_weights
VARIANTS = {"s1 T2": (1.0, 2.0), "s1 T1": (1.0, 1.0), "s1 T3": (1.0, 3.0),
            "s2 T2": (2.0, 2.0), "s3 T2": (3.0, 2.0), "s2 T3": (2.0, 3.0),
            "s3 T3": (3.0, 3.0)}


def run(dataset, seed, ks, variants, local=True):
    data = new_nodes.load(dataset, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, order = new_nodes.split(X, y, groups, seed, extra)
    base = new_nodes.make_estimator("persolin", task, seed).fit(
        X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    out = {}
    for k in ks:
        train, test = new_nodes.new_node_rows(order, k)
        res = {}
        for name in variants:
            s, trust = VARIANTS[name]
            post.posterior_weights = lambda m, L, s=s: ORIGINAL(s * m, L)
            post.TRUST = trust
            try:
                joined = copy.deepcopy(base)
                joined.add_nodes(X[train], y[train], groups=groups[train])
            finally:
                post.posterior_weights, post.TRUST = ORIGINAL, 2.0
            res[name] = new_nodes.score(task, y[test], joined.predict(X[test], groups=groups[test]))
            res["rule"] = joined.newcomer_rule_
        if local:
            loc = {}
            for lname, make in new_nodes.baseline_makers(task, k).items():
                est = new_nodes.LocalEstimator(make()).fit(X[train], y[train], groups=groups[train])
                loc[lname] = new_nodes.score(task, y[test], est.predict(X[test], groups=groups[test]))
            res["Local"] = max(loc.values())
        out[k] = res
        print(dataset, seed, k, {n: (round(v, 2) if isinstance(v, float) else v)
                                 for n, v in res.items()}, flush=True)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="moons")
    parser.add_argument("--seeds", default="3,4,5")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    parser.add_argument("--no-local", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    ks = [int(k) for k in args.ks.split(",")]
    variants = args.variants.split(",")
    datasets = args.datasets.split(",")
    if datasets == ["related"]:
        datasets = list(new_nodes.RELATED)
    for dataset in datasets:
        runs = [run(dataset, int(s), ks, variants, not args.no_local)
                for s in args.seeds.split(",")]
        print(f"== {dataset} seeds {args.seeds}")
        names = variants + ([] if args.no_local else ["Local"])
        print("name       " + "  ".join(f"k={k:<5d}" for k in ks))
        for name in names:
            print(f"{name:10s} " + "  ".join(
                f"{np.mean([r[k][name] for r in runs]):7.2f}" for k in ks), flush=True)


if __name__ == "__main__":
    main()
