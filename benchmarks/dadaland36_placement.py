"""Dada on Landmine: where the stumps go, and the one-class newcomers'
placement in the pooled rank space (issue 32, dadaland36).

Results: see the end of this docstring.
"""

import argparse
import copy
import json
import time
import warnings

import new_nodes as nn
import numpy as np
from scipy.stats import norm
from threadpoolctl import threadpool_limits

from skfed.boosting import _dada
from skfed.boosting._stumps import make_stumps

_MAKE_STUMPS = _dada.make_stumps


def _inverse_cdf(counts, lo, hi, levels):
    """Thresholds at ``levels`` of one feature's histogram (``make_stumps``'s
    rule for ``"quantile"``: linear inside a bin, first crossing)."""
    cdf = np.concatenate([[0.0], np.cumsum(counts)])
    cdf /= cdf[-1]
    edges = np.linspace(lo, hi, len(counts) + 1)
    right = np.searchsorted(cdf, levels, side="left")
    left = right - 1
    span = cdf[right] - cdf[left]
    frac = np.where(span > 0, (levels - cdf[left]) / np.where(span > 0, span, 1), 0)
    return edges[left] + frac * (edges[right] - edges[left])


def patched_stumps(rule):
    """``make_stumps`` for the variants that read the agreed histogram
    (the fit runs with ``stump_placement="quantile"``, so the histogram is
    agreed and its bytes counted); same features and counts, other levels:

    * ``trim``: evenly spaced between the pooled 0.5 % and 99.5 % quantiles;
    * ``normal``: at the levels ``Phi(z)``, ``z`` evenly spaced on
      ``[-2.5, 2.5]`` (dense in the body, a few in each tail).
    """
    def make(lo, hi, n_estimators, placement="range", histogram=None, features=None,
             max_per_feature=None):
        feats, thr = make_stumps(lo, hi, n_estimators, "range", None, features,
                                 max_per_feature)
        thr = thr.copy()
        for f in np.unique(feats):
            at = np.flatnonzero(feats == f)
            q = len(at)
            if rule == "trim":
                a, b = _inverse_cdf(histogram[f], lo[f], hi[f], np.array([0.005, 0.995]))
                thr[at] = a + np.arange(1, q + 1) * (b - a) / (q + 1)
            else:
                levels = norm.cdf(np.linspace(-2.5, 2.5, q)) if q > 1 else np.array([0.5])
                thr[at] = _inverse_cdf(histogram[f], lo[f], hi[f], levels)
        return feats, thr
    return make


def _accuracy(est, X, y, groups):
    return round(100 * float(np.mean(est.predict(X, groups=groups) == y)), 3)


def run(name, seed, ks, variant):
    data = nn.load(name, seed)
    X, y, groups = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("dada", "classification", seed)
    if "=" in variant:  # parameters of the estimator, e.g. beta=1.5 or beta=1.5+mu=6
        base.set_params(**{key: float(value) for key, value in
                           (item.split("=") for item in variant.split("+"))})
    elif variant != "range":
        base.set_params(stump_placement="quantile")
    if variant in ("trim", "normal"):
        _dada.make_stumps = patched_stumps(variant)
    try:
        t0 = time.process_time()
        base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
        fit_cpu = time.process_time() - t0
    finally:
        _dada.make_stumps = _MAKE_STUMPS
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(base)
        joined.add_nodes(X[train], y[train], groups=groups[train])
        print(json.dumps({"dataset": name, "seed": seed, "k": k, "variant": variant,
                              "join": _accuracy(joined, X[test], y[test], groups[test]),
                              "rule": base.newcomer_rule_, "fit_cpu": round(fit_cpu, 1),
                              "fit_bytes": int(base.n_bytes_sent_)}), flush=True)


# ------------------------------------------------ one-class neighbours (--select)
SELECT = ("mean", "m10", "f10l5", "f8l5", "f10l3", "errfilt")


def _loss(margins):
    """Dada's loss on a newcomer's rows, ``log mean exp(-y f)``."""
    top = margins.max()
    return top + np.log(np.mean(np.exp(margins - top)))


def select(seed, ks):
    """``--select``: the one-class newcomers' neighbours chosen with their
    own rows' labels (the models' loss on them) among the nearest fitted
    nodes; every other newcomer keeps the library's join.  The library's
    model (``mean``) is recomputed here and checked equal."""
    X, y, groups = nn.load("landmine", seed)[:3]
    fit_rows, new, order = nn.split(X, y, groups, seed)
    base = nn.make_estimator("dada", "classification", seed)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    means, masses = base._feature_table
    L = base._feature_map
    K = len(means)
    models = base._full_coef()[:K, 0, :].astype(np.float64)
    W = means @ L

    def mass_mean(chosen):
        chosen = np.asarray(chosen)
        return masses[chosen] / masses[chosen].sum() @ models[chosen]

    for k in ks:
        train, test = nn.new_node_rows(order, k)
        joined = copy.deepcopy(base)
        joined.add_nodes(X[train], y[train], groups=groups[train])
        nodes = list(joined.nodes_)
        full = joined._full_coef()[:, 0, :].astype(np.float64)
        alts = {v: full.copy() for v in SELECT}
        for g in new:
            rows = order[g][:k]
            if len(np.unique(y[rows])) != 1:
                continue
            r = nodes.index(g)
            near = np.argsort(np.sum((W - X[rows].mean(axis=0) @ L) ** 2, axis=1), kind="stable")
            s = np.where(y[rows] == base.classes_[1], 1.0, -1.0)
            F = base._base_matrix(X[rows], np.float64) @ models.T      # (k, K)
            loss = np.array([_loss(-s * F[:, j]) for j in range(K)])
            errors = np.sum(np.sign(F) != s[:, None], axis=0)
            alts["mean"][r] = mass_mean(near[:5])
            assert np.allclose(alts["mean"][r], full[r], atol=1e-6), "library's model"
            alts["m10"][r] = mass_mean(near[:10])
            for name, m, keep in (("f10l5", 10, 5), ("f8l5", 8, 5), ("f10l3", 10, 3)):
                c = near[:m]
                alts[name][r] = mass_mean(c[np.argsort(loss[c], kind="stable")[:keep]])
            ok = [j for j in near[:10] if errors[j] == 0][:5]
            ok += [j for j in near if j not in ok][:5 - len(ok)]
            alts["errfilt"][r] = mass_mean(ok)
        Zt = base._base_matrix(X[test], np.float64)
        at = np.array([nodes.index(g) for g in groups[test]])
        yt = np.where(y[test] == base.classes_[1], 1.0, -1.0)
        row = {"seed": seed, "k": k}
        for v in SELECT:
            score = np.einsum("ij,ij->i", Zt, alts[v][at])
            row[v] = round(100 * float(np.mean(np.where(score > 0, 1.0, -1.0) == yt)), 3)
        print(json.dumps(row), flush=True)


# ------------------------------------------------------------ placement (--place)
def _rank_map(Xf, n_bins=None):
    """Each feature through the pooled fitted rows' CDF: exact (linear between
    the sorted distinct values) or, with ``n_bins``, read from the histogram
    ``stump_placement="quantile"`` agrees on."""
    lo, hi = Xf.min(axis=0), Xf.max(axis=0)
    tables = []
    for f in range(Xf.shape[1]):
        if n_bins is None:
            u = np.unique(Xf[:, f])
            tables.append((u, np.linspace(0, 1, len(u))))
        elif hi[f] > lo[f]:
            counts, edges = np.histogram(Xf[:, f], bins=n_bins, range=(lo[f], hi[f]))
            tables.append((edges, np.concatenate([[0], np.cumsum(counts)]) / counts.sum()))
        else:
            tables.append((np.array([lo[f]]), np.array([0.0])))

    def T(Z):
        return np.column_stack([np.interp(Z[:, f], *tables[f]) for f in range(Z.shape[1])])
    return T


def place(seeds, ks):
    """``--place`` (no fit): per newcomer and k, whether the 5 fitted nodes
    the hub would answer hold a majority of the other terrain (fields 1-15
    against 16-29), for the library's query (its k rows' mean, Mahalanobis
    in the pooled within-node scatter) and for other queries."""
    from skfed._mean_scatter import hub_whitening

    counts = {}
    for seed in seeds:
        X, y, groups = nn.load("landmine", seed)[:3]
        fit_rows, new, order = nn.split(X, y, groups, seed)
        Xf, gf = X[fit_rows], groups[fit_rows]
        labels = np.unique(gf)
        own = labels <= 15
        low, high = np.percentile(Xf, 2, axis=0), np.percentile(Xf, 98, axis=0)
        spaces = {"raw": lambda Z: Z, "rank": _rank_map(Xf), "hist": _rank_map(Xf, 256),
                  "slog": lambda Z: np.sign(Z) * np.log1p(np.abs(Z))}
        for space, T in spaces.items():
            Tf = T(Xf)
            M = np.array([Tf[gf == g].mean(axis=0) for g in labels])
            C = np.vstack([Tf[gf == g] - Tf[gf == g].mean(axis=0) for g in labels])
            A = hub_whitening(C.T @ C, means=M)
            for k in ks:
                for g in new:
                    rows = order[g][:k]
                    R = T(X[rows])
                    scores = {space: np.sum(((M - R.mean(axis=0)) @ A) ** 2, axis=1)}
                    if space == "raw":
                        D = np.sum(((R[:, None, :] - M[None]) @ A) ** 2, axis=2)   # (k, K)
                        votes = np.zeros(len(labels))
                        for d in D:
                            votes[np.argsort(d, kind="stable")[:5]] += 1
                        scores.update({
                            "median": np.median(D, axis=0),
                            "trimmed": np.sort(D, axis=0)[:-1].sum(axis=0),
                            "vote": -votes + 1e-9 * scores["raw"],
                            "winsor": np.sum(((M - np.clip(R, low, high).mean(axis=0)) @ A) ** 2,
                                             axis=1)})
                    one = len(np.unique(y[rows])) == 1
                    for name, score in scores.items():
                        near = np.argsort(score, kind="stable")[:5]
                        wrong = np.mean(own[near] == (g <= 15)) < 0.5
                        c = counts.setdefault((name, k, "0-5" if seed < 6 else "6+"), [0, 0, 0, 0])
                        c[0] += wrong
                        c[1] += 1
                        c[2] += wrong and one
                        c[3] += one
    for (name, k, block), c in sorted(counts.items(), key=lambda t: (t[0][1], t[0][2], t[0][0])):
        print(json.dumps({"query": name, "k": k, "seeds": block, "misplaced": f"{c[0]}/{c[1]}",
                              "one_class_misplaced": f"{c[2]}/{c[3]}"}), flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default="landmine")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default="range,quantile,trim,normal")
    parser.add_argument("--select", action="store_true")
    parser.add_argument("--place", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    ks = [int(k) for k in args.ks.split(",")]
    seeds = [int(s) for s in args.seeds.split(",")]
    with threadpool_limits(1):
        if args.place:
            place(seeds, ks)
            return
        for name in args.datasets.split(","):
            for seed in seeds:
                if args.select:
                    select(seed, ks)
                    continue
                for variant in args.variants.split(","):
                    run(name, seed, ks, variant)


if __name__ == "__main__":
    main()
