"""Dada's Landmine joins: where the stumps go, which neighbours a one-class
newcomer takes, and where the hub places it (issue 32, dadaland36; every
variant measured and rejected).

Same splits as ``new_nodes.py`` (Dada at its defaults, ``join_neighbours=
"auto"``; 20 % of the nodes join with k samples each; one fit per seed,
every k joined on copies).  Three questions, one per mode:

Stumps (default mode, ``--variants``).  On Landmine (standardized, per-node
skewness 1.8-14.7) ``stump_placement="range"`` puts 16-25 of a feature's 25
thresholds beyond its pooled 95th percentile (seed 7), and the models'
bias rides on such tail stumps (``dada_intercept_scale.py``).  Variants:

* ``range``: the library default;
* ``quantile``: ``stump_placement="quantile"`` (thresholds at the levels
  ``(r + 1) / (q + 1)`` of the agreed pooled histograms);
* ``trim``: the same histograms, thresholds evenly spaced between the
  pooled 0.5 % and 99.5 % quantiles;
* ``normal``: the same histograms, thresholds at the levels ``Phi(z)``,
  ``z`` evenly spaced on ``[-2.5, 2.5]`` (dense in the body, a few in each
  tail);
* ``key=value[+key=value]``: estimator parameters, e.g. ``beta=1.5+mu=6``
  (a smaller l1 radius, ``mu beta`` kept at 9 as ``beta="auto"`` does) or
  ``n_estimators=400``.

``trim`` and ``normal`` patch ``skfed.boosting._dada.make_stumps`` for the
fit (which runs with ``"quantile"``, so the histograms are agreed and their
bytes counted); a join under them adds no stumps (the join's vote is off
for ``"quantile"``, as in the library).

``--select``: the one-class newcomers' model from neighbours chosen with
their own k labels, every other newcomer the library's join (the library's
model is recomputed and checked equal): ``mean`` the library (5 nearest by
the hub's metric, mass shares), ``m10`` the 10 nearest, ``f10l5`` /
``f8l5`` / ``f10l3`` of the 10 (8) nearest the 5 (3) whose models have the
lowest Dada loss ``log mean exp(-y f)`` on the newcomer's rows,
``errfilt`` the nearest 5 of the 10 nearest that make no error on them;
``shift`` the library's model with its intercept moved by the mean model's
mean score on its 5 nodes' fitted rows minus its mean score on the
newcomer's k rows (a covariate-shift correction of the bias the tail
stumps carry; the nodes' stump means would cost ``n_stumps`` float64 each),
``shiftneg`` only when that lowers it; ``l1=2``, ``l1=1.5`` the library's
model projected on a smaller l1 ball (a join-side stand-in for the
smaller radius below).

``--place`` (no fit): per newcomer, whether the 5 fitted nodes nearest its
k-row query hold a majority of the other terrain (fields 1-15 against
16-29); ``raw`` the library's query (k-row mean, Mahalanobis in the pooled
within-node scatter), ``rank`` / ``hist`` the same after each feature goes
through the pooled fitted rows' CDF (exact, or read from 256-bin
histograms as ``"quantile"`` agrees), ``slog`` after ``sign(x) log(1 +
|x|)``, and robust queries in the library's metric: ``median`` / ``trimmed``
(the median / the sum without the largest of the k rows' own distances
to a node), ``vote`` (each row votes for its 5 nearest nodes), ``winsor``
(rows clipped to the pooled 2 % and 98 % quantiles before the mean).

    python benchmarks/dadaland36_placement.py --seeds 0,1,2,3,4,5 --variants range,quantile,trim,normal
    python benchmarks/dadaland36_placement.py --seeds 0,1,2,3,4,5 \
        --variants beta=1,beta=1.5,beta=2,beta=1.5+mu=6,mu=6,mu=10,n_estimators=100,n_estimators=400
    python benchmarks/dadaland36_placement.py --seeds 6,7,8,9,10,11 --variants range,beta=1.5,beta=2,beta=1.5+mu=6
    python benchmarks/dadaland36_placement.py --datasets moons,related-alike,related-clustered,\
        related-small,related-wide,related-narrow --seeds 0,1,2 --variants range,beta=1.5+mu=6
    python benchmarks/dadaland36_placement.py --seeds 0,1,2,3,4,5,6,7,8,9,10,11 \
        --variants range,beta=1.5+mu=6 --refit
    python benchmarks/dadaland36_placement.py --select --seeds 0,1,2,3,4,5,6,7,8,9,10,11
    python benchmarks/dadaland36_placement.py --place --seeds 0,1,2,3,4,5,6,7,8,9,10,11

Results (dadaland36, 2026-11-29, main bcda3b7, one BLAS thread; join
accuracy, mean over the seeds, k = 5 / 10 / 20; Global = pooled ``SVC()``,
new_nodes.py's better baseline on the same arrays)::

    Landmine          seeds 0-2              seeds 3-5              seeds 6-11
    range (default)   93.78 / 93.74 / 93.89  93.81 / 93.83 / 93.63  94.04 / 94.11 / 94.29
    quantile          92.43 / 92.51 / 93.88  92.73 / 92.88 / 93.73  -
    trim              92.92 / 92.80 / 93.75  93.91 / 93.79 / 93.26  -
    normal            93.67 / 93.65 / 93.90  93.85 / 93.68 / 93.67  -
    n_estimators=100  93.83 / 93.63 / 93.80  94.11 / 93.83 / 93.74  -
    n_estimators=400  93.90 / 93.87 / 93.91  93.90 / 93.69 / 93.69  -
    beta=1            93.77 / 93.71 / 93.77  94.08 / 93.61 / 93.56  -
    beta=1.5          93.81 / 93.80 / 93.94  94.09 / 93.87 / 93.66  94.15 / 94.22 / 94.25
    beta=2            93.84 / 93.79 / 93.95  93.97 / 93.86 / 93.71  93.93 / 94.12 / 94.37
    beta=1.5+mu=6     93.87 / 93.83 / 93.96  94.11 / 94.01 / 93.77  94.15 / 94.26 / 94.31
    mu=6              93.40 / 93.39 / 93.70  93.93 / 93.84 / 93.70  -
    mu=10             93.65 / 93.64 / 93.76  93.63 / 93.40 / 93.52  -
    Global (SVC)      93.81 / 93.77 / 93.78  93.48 / 93.45 / 93.42  94.51 / 94.52 / 94.50

Stumps in the body lose: ``quantile`` -1.35 / -1.23 at k = 5 / 10 on seeds
0-2 (seed 0, k = 5: 89.74 against 93.57) and its fits' gate closes on 4 of
6 seeds (seeds 1, 2, 4, 5: those newcomers take the graph join); ``trim``
loses up to 0.94 and closes the gate on seeds 1 and 4; ``normal``, the
mildest, loses 0.11 / 0.09 on seeds 0-2 at k = 5 / 10 and 0.15 on seeds
3-5 at k = 10.  The tail stumps are not only the bursts' carriers: they
are where Dada's right positives come from on seeds 0-5.  The stump count moves rows by -0.14..+0.30 with no
sign that holds over both blocks.

A smaller radius is the one change that lifts every Landmine block:
``beta=1.5+mu=6`` +0.09 / +0.09 / +0.07 on seeds 0-2 (above pooled SVC at
every k: +0.06 / +0.06 / +0.18), +0.30 / +0.18 / +0.14 on 3-5, +0.11 /
+0.15 / +0.02 on 6-11 (seed 7, k = 5: 92.15 -> 92.75; still 0.36 / 0.26 /
0.19 under SVC there; paired over seeds 0-11 the gain is +0.15 / +0.14 /
+0.06, t 2.2 / 2.1 / 0.9); the coupling alone (``mu=6`` or ``10`` at ``beta =
3``) loses up to 0.38 on seeds 0-2.  But it is a fit setting, and it loses
the held-out families' joins (seeds 0-2, k = 5 / 10 / 20, ``range`` ->
``beta=1.5+mu=6``)::

    moons               72.54 / 77.02 / 82.12  ->  72.75 / 76.00 / 79.05
    related-alike       72.96 / 74.76 / 75.94  ->  71.00 / 72.29 / 74.00
    related-clustered   63.76 / 68.69 / 74.33  ->  64.56 / 67.41 / 71.89
    related-small       62.75 / 65.79 / 69.44  ->  62.02 / 63.79 / 67.21
    related-wide        56.60 / 57.50 / 58.58  ->  56.56 / 57.00 / 57.42
    related-narrow      82.47 / 82.95 / 83.42  ->  79.22 / 80.83 / 81.58

(0.5-3.1 points on every family at k = 10 / 20, 0.7-3.3 at k = 5 on
related-alike, -small and -narrow; HAR's radius 3 already caps its
models, ``_dada_radius.py``), so it is no default; a user with
Landmine-like data (skewed features, 6 % positives) can pass it.  With
``--refit`` (the same estimator refitted on the fitted rows and the k
samples; join bytes over the refit's)::

                              join                   refit                  bytes
    range          seeds 0-2  93.78 / 93.74 / 93.89  93.71 / 93.73 / 93.82  0.0041 / 0.0050 / 0.0080
                   seeds 3-5  93.81 / 93.83 / 93.63  93.16 / 93.40 / 93.54  0.0047 / 0.0065 / 0.0069
                   6-11       94.04 / 94.11 / 94.29  94.07 / 94.18 / 94.07  0.0035 / 0.0051 / 0.0072
    beta=1.5+mu=6  seeds 0-2  93.87 / 93.83 / 93.96  93.54 / 93.73 / 93.74  0.0034 / 0.0042 / 0.0065
                   seeds 3-5  94.11 / 94.01 / 93.77  93.47 / 93.58 / 93.43  0.0038 / 0.0050 / 0.0054
                   6-11       94.15 / 94.26 / 94.31  94.20 / 94.08 / 94.31  0.0030 / 0.0044 / 0.0062

so under it the joins stay within 0.05 of their own refits or above them,
for fewer bytes.

Neighbours chosen by the newcomer's own labels (``--select``)::

                seeds 0-2              seeds 3-5              seeds 6-11
    mean        93.78 / 93.74 / 93.89  93.81 / 93.83 / 93.63  94.04 / 94.11 / 94.29
    m10         93.73 / 93.72 / 93.88  93.69 / 93.73 / 93.57  94.00 / 94.10 / 94.28
    f10l5       93.49 / 93.57 / 93.82  93.57 / 93.71 / 93.53  94.12 / 94.13 / 94.29
    f8l5        93.67 / 93.74 / 93.89  93.79 / 93.86 / 93.69  94.10 / 94.12 / 94.29
    f10l3       93.44 / 93.56 / 93.82  93.53 / 93.69 / 93.48  94.23 / 94.14 / 94.31
    errfilt     93.78 / 93.74 / 93.89  93.81 / 93.83 / 93.63  94.11 / 94.10 / 94.29
    shift       93.69 / 93.69 / 93.87  93.86 / 93.85 / 93.67  94.05 / 94.12 / 94.28
    shiftneg    93.76 / 93.73 / 93.89  93.85 / 93.86 / 93.65  94.08 / 94.10 / 94.28
    l1=2        93.79 / 93.75 / 93.87  93.80 / 93.82 / 93.67  93.99 / 94.08 / 94.28
    l1=1.5      93.04 / 93.01 / 93.66  93.46 / 93.49 / 93.27  94.00 / 94.05 / 94.28

The lowest-loss models on k negatives are those that call the fewest
positives: ``f10l5`` / ``f10l3`` trade seeds 0-5 (-0.24..-0.34 at k = 5)
for 6-11 (+0.08 / +0.19), the trade of every earlier intercept and
threshold variant; ``f8l5`` is within noise (-0.11..+0.06 on seeds 0-5,
+0.06 / +0.01 / 0 on 6-11); ``errfilt`` gives the library's rows on seeds
0-5 and +0.07 / -0.01 / 0 on 6-11.  The bias correction (``shift``) is
within noise everywhere (-0.09..+0.05; seed 7's burst stays): a misplaced
newcomer's k rows score like its neighbours' rows, its test rows do not.
Projecting the mean model on a smaller l1 ball (``l1=1.5``) loses up to
0.74 on seeds 0-2: what the smaller radius changes is the fit (which
stumps the nodes' Frank-Wolfe steps take), not the newcomer's scale.

Placement queries (``--place``; one-class newcomers whose 5 nodes are
mostly of the other terrain, seeds 0-5 / 6-11)::

    k    raw           rank          hist          slog          median         trimmed       vote          winsor
    5    2/27  11/31   5/27  8/31    3/27  8/31    2/27  11/31   9/27  15/31    5/27  13/31   3/27  13/31   2/27  11/31
    10   2/21   4/23   4/21  5/23    4/21  6/23    1/21   7/23   6/21   9/23    1/21   7/23   3/21   6/23   2/21   5/23
    20   0/13   2/13   3/13  1/13    2/13  1/13    0/13   1/13   5/13   7/13    0/13   2/13   0/13   1/13   0/13   2/13

No query places more newcomers right on both blocks: rank-space means fix
3 of the 11 misplaced on seeds 6-11 at k = 5 but misplace 1-3 more on
seeds 0-5 and at k = 10; robust per-row distances are worse than the mean
(the rows of a misplaced newcomer are typical of their node, dada32's
``chi2``: the 5-row mean is the best summary a Gaussian model has, and
it cannot tell the terrain).

Conclusion: nothing here is adopted.  The two causes are one trade: the
stumps and neighbours that let Dada call Landmine's positives on seeds 0-5
are the ones that burst on seeds 6-11, and 5 samples cannot say which
terrain a one-class newcomer is on.  The k = 5 / 10 rows stay 0.03 under
pooled SVC on seeds 0-2 and 0.4-0.5 under it on seeds 6-11 at the
defaults.
"""

import argparse
import copy
import json
import time
import warnings

import new_nodes as nn
import numpy as np
from scipy.stats import norm
from sklearn.base import clone
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


def run(name, seed, ks, variant, refit=False):
    data = nn.load(name, seed)
    X, y, groups = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _new, order = nn.split(X, y, groups, seed, extra)
    base = nn.make_estimator("dada", "classification", seed)
    if "=" in variant:  # parameters of the estimator, e.g. beta=1.5 or beta=1.5+mu=6
        base.set_params(**{key: int(value) if value.isdigit() else float(value)
                           for key, value in (item.split("=") for item in variant.split("+"))})
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
        row = {"dataset": name, "seed": seed, "k": k, "variant": variant,
               "join": _accuracy(joined, X[test], y[test], groups[test]),
               "rule": base.newcomer_rule_, "fit_cpu": round(fit_cpu, 1),
               "fit_bytes": int(base.n_bytes_sent_),
               "join_bytes": int(joined.n_bytes_sent_ - base.n_bytes_sent_)}
        if refit:  # the same estimator refitted on the fitted rows and the k samples
            rows = np.concatenate([fit_rows, train])
            again = clone(base).fit(X[rows], y[rows], groups=groups[rows])
            row["refit"] = _accuracy(again, X[test], y[test], groups[test])
            row["refit_bytes"] = int(again.n_bytes_sent_)
        print(json.dumps(row), flush=True)


# ------------------------------------------------ one-class neighbours (--select)
SELECT = ("mean", "m10", "f10l5", "f8l5", "f10l3", "errfilt", "shift", "shiftneg", "l1=2",
          "l1=1.5")


def _l1_ball(v, radius):
    """Euclidean projection of ``v`` on the l1 ball of ``radius`` (sort and
    soft-threshold)."""
    if np.abs(v).sum() <= radius:
        return v
    u = np.sort(np.abs(v))[::-1]
    total = np.cumsum(u)
    last = np.flatnonzero(u * np.arange(1, len(u) + 1) > total - radius)[-1]
    cut = (total[last] - radius) / (last + 1.0)
    return np.sign(v) * np.maximum(np.abs(v) - cut, 0.0)


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
    H_fit = base._base_matrix(X[fit_rows], np.float64)
    H_bar = np.array([H_fit[groups[fit_rows] == g].mean(axis=0) for g in base.nodes_[:K]])

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
            Z_own = base._base_matrix(X[rows], np.float64)
            F = Z_own @ models.T      # (k, K)
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
            # the mean model's mean score on its 5 nodes' rows minus on the
            # newcomer's k rows, added to the newcomer's intercept
            w = masses[near[:5]] / masses[near[:5]].sum()
            shift = (w @ H_bar[near[:5]]) @ full[r] - np.mean(Z_own @ full[r])
            alts["shift"][r, -1] += shift
            alts["shiftneg"][r, -1] += min(shift, 0.0)
            for radius in (2, 1.5):
                alts[f"l1={radius:g}"][r] = _l1_ball(full[r], radius)
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
    parser.add_argument("--refit", action="store_true")
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
                    run(name, seed, ks, variant, args.refit)


if __name__ == "__main__":
    main()
