"""Online regressor's join: a newcomer's own level on a solved network function.

onlinesch38 (issue 32).  Placeholder docstring; the Results section is
written below once measured.
"""

import argparse
import copy
import hashlib
import json
import os
import sys
import warnings

import numpy as np
from sklearn.datasets import make_regression
from sklearn.linear_model import LassoCV, Ridge
from sklearn.metrics import r2_score
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn
from online_regressor_solve import _data

N_SITES = 40


def sites(seed, kind, n_sites=N_SITES, n_per_site=60):
    """``n_sites`` sites of ``make_regression`` (12 features, 8 informative, noise 5):
    ``offset`` adds every site a slope change (0.3 of the mean coefficient
    size) and a level (sd 20), ``slopes`` the slope change only, ``alike``
    nothing (the rule's null: no level to find)."""
    rng = np.random.RandomState(seed)
    n = n_per_site * n_sites
    X, y, coef = make_regression(n_samples=n, n_features=12, n_informative=8, noise=5.0,
                                 coef=True, random_state=seed)
    site = np.arange(n) // n_per_site
    size = 0.3 * np.abs(coef).mean()
    slopes = (size * rng.randn(n_sites, 12) if kind in ("offset", "slopes")
              else np.zeros((n_sites, 12)))
    levels = 20 * rng.randn(n_sites) if kind == "offset" else np.zeros(n_sites)
    y = y + np.einsum("ij,ij->i", X, slopes[site]) + levels[site]
    return StandardScaler().fit_transform(X), (y - y.mean()) / y.std(), site, "regression"


def load(name, seed):
    if name.startswith("sites-small-"):
        # many small sites (100 of 40 rows): the fits keep the network solve
        return sites(seed, name.split("-", 2)[2], n_sites=100, n_per_site=40)
    if name.startswith("sites-"):
        return sites(seed, name.split("-", 1)[1])
    return _data(name, seed)


def digest(*arrays):
    h = hashlib.sha1()
    for a in arrays:
        h.update(np.ascontiguousarray(a).tobytes())
    return h.hexdigest()[:12]


def run(name, seed, ks, baselines):
    data = load(name, seed)
    X, y, groups = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, order = nn.split(X, y, groups, seed, extra)
    est = nn.make_estimator("online", "regression", seed)
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    out = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        row = {"dataset": name, "seed": seed, "k": k,
               "solved": bool(np.any(est._network_solved))}
        Xt, gt = X[test], groups[test]
        row["network"] = round(100 * r2_score(y[test], est.predict(Xt, groups=gt)), 3)
        for way in ("before", "offset"):
            joined = copy.deepcopy(est)
            if way == "before":
                joined._network_offset_stats = None   # main's join: no sums, no offsets
            joined.add_nodes(X[train], y[train], groups=groups[train])
            pred = joined.predict(Xt, groups=gt)
            row[way] = round(100 * r2_score(y[test], pred), 3)
            row[way + "_bytes"] = int(joined.join_communication_.total_bytes)
            row[way + "_hash"] = digest(pred, joined._points, joined._weights)
        offsets = joined.join_offset_
        row["n_offset"] = int(np.sum(offsets != 0))
        row["mean_abs_offset"] = round(float(np.mean(np.abs(offsets))), 4)
        if baselines:
            Xp = np.concatenate([X[fit_rows], X[train]])
            yp = np.concatenate([y[fit_rows], y[train]])
            row["Ridge"] = round(100 * r2_score(y[test], Ridge().fit(Xp, yp).predict(Xt)), 3)
            row["LassoCV"] = round(100 * r2_score(
                y[test], LassoCV(cv=5).fit(Xp, yp).predict(Xt)), 3)
        print(json.dumps(row), flush=True)
        out.append(row)
    return out


def summarize(rows, ks):
    for name in dict.fromkeys(r["dataset"] for r in rows):
        sel = [r for r in rows if r["dataset"] == name]
        seeds = sorted({r["seed"] for r in sel})

        def cell(key, sel=sel):
            return " / ".join(f"{np.mean([r[key] for r in sel if r['k'] == k]):.2f}"
                              for k in ks)
        keys = ["network", "before", "offset"] + [b for b in ("Ridge", "LassoCV") if b in sel[0]]
        worst = min(r["offset"] - r["before"] for r in sel)
        acted = sum(r["n_offset"] > 0 for r in sel)
        print(f"{name} seeds {seeds[0]}-{seeds[-1]}: " + "; ".join(f"{key} {cell(key)}"
                                                                   for key in keys)
              + f"; worst cell {worst:+.2f}; acted on {acted}/{len(sel)} joins", flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="school")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--no-baselines", action="store_true")
    parser.add_argument("--from-json", nargs="*")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    if args.from_json:
        rows = []
        for name in args.from_json:
            with open(name) as f:
                rows += [json.loads(line) for line in f if line.startswith("{")]
        summarize(rows, ks)
        return
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.datasets.split(","):
            for s in args.seeds.split(","):
                rows += run(name, int(s), ks, not args.no_baselines)
    summarize(rows, ks)


if __name__ == "__main__":
    main()
