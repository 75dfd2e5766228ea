"""Shrunk per-node intercepts of the sparse linear model (issue 32).

:class:`~skfed.support.FederatedSparseLinearRegression` with
``per_node_intercept=True`` gives every node the exact intercept of its
own rows, ``mean(y_i) - mean(X_{i,S}) coef_S``; a node of ``k = 5`` rows
gets a noisy one (on School the join and the refit score alike at ``k = 5``,
9 points under pooled Ridge).  ``per_node_intercept="shrunk"`` treats the
intercepts as random effects: the server estimates their mean ``mu``, their
spread ``tau^2`` and the residual variance ``sigma^2`` by moments from
``s + 4`` more float64 per client in the refit round, and every node (a
newcomer too) takes ``mu + n tau^2 / (n tau^2 + sigma^2) (own - mu)``.

This script compares the two on the same arrays (R^2 x 100):

* ``school``: ``benchmarks/new_nodes.py``'s School splits (111-112 fitted
  and 28 new schools; a newcomer's ``k`` rows, its other rows scored): the
  join and a refit on all schools for each variant, pooled ``Ridge()`` (the
  table's Global), and the join's bytes and CPU over the refit's;
* ``families``: held-out synthetic families made here (not used to design
  the rule): a sparse linear model with a random intercept per node; the
  fitted nodes' held-out rows (``fit``) and newcomers' (``join k``) against
  pooled ``Ridge`` / ``LassoCV`` (one intercept, on all training rows) and
  ``Ridge`` per node (Local, on the node's own rows; the newcomer's ``k``).

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/support_shrunk_intercepts.py school --seeds 0,1,2
    OPENBLAS_NUM_THREADS=1 python benchmarks/support_shrunk_intercepts.py families --seeds 0,1,2
    OPENBLAS_NUM_THREADS=1 python benchmarks/support_shrunk_intercepts.py fit-rows --seeds 0,1,2
    OPENBLAS_NUM_THREADS=1 python benchmarks/support_shrunk_intercepts.py school-prior --seeds 0,1,2
    OPENBLAS_NUM_THREADS=1 python benchmarks/support_shrunk_intercepts.py school-support --seeds 0,1,2
    OPENBLAS_NUM_THREADS=1 python benchmarks/support_shrunk_intercepts.py node-level-noise --seeds 0,1,2,3,4 --ks 5,10

Measured 2026-11-28 (support14; means over seeds 0-2, one BLAS thread,
load about 8 on 2 cores).  School (bytes and CPU: the join's over the
refit's; CPU here includes the copy of the model, see
``new_nodes_support_cpu.py`` for medians)::

    k    Ridge  join exact  refit exact  join shrunk  refit shrunk  bytes exact / shrunk
    5    31.83  22.59       22.54        28.85        29.03         0.083 / 0.076
    10   31.75  29.06       29.02        31.22        31.25         0.083 / 0.076
    20   31.94  32.69       32.76        32.81        32.94         0.083 / 0.076

``tau^2 / sigma^2`` = 0.130-0.144: a school of 5 pupils keeps 0.40 of
its own intercept's distance from ``mu``, one of 100 0.93.

Held-out families (``fit``: the fitted nodes' held-out rows at ``k = 5``'s
draw; ``join k``: the newcomers')::

    family            row      exact   shrunk  Ridge   LassoCV  Local
    many-small        fit      68.8    69.5    60.1    60.0     28.4
                      join 5   62.9    65.2    61.9    62.1     16.4
                      join 10  72.1    72.2    62.6    62.6     30.3
                      join 20  62.1    62.3    62.0    62.1     37.0
    alike             fit      68.3    69.2    68.9    69.1      5.7
                      join 5   65.7    70.8    70.0    70.4     -6.1
                      join 10  62.9    65.2    72.4    72.5      9.9
                      join 20  62.3    63.7    72.5    72.8      8.8
    noise-features    fit      57.4    57.7    77.8    78.6     12.5
                      join 5   51.8    57.4    76.0    79.6    -12.6
                      join 10  59.2    61.1    78.3    80.6      4.6
                      join 20  58.6    58.8    79.8    81.1     10.6
    wide-spread       fit      92.7    92.7    27.5    27.0     84.9
                      join 5   91.0    91.0    20.5    19.8     47.6
                      join 10  89.1    89.1    28.5    28.5     59.3
                      join 20  92.0    92.0    32.8    33.8     75.9
    heavy-intercepts  fit      89.0    89.0    30.5    30.7     65.5
                      join 5   88.0    88.1    32.2    33.3     54.0
                      join 10  87.3    87.3    25.2    25.7     61.8
                      join 20  87.4    87.4    30.4    31.2     62.7
    mixed-sizes       fit      72.1    72.2    66.4    66.2     48.8
                      join 5   65.0    68.3    65.3    65.6      0.0
                      join 10  69.7    70.7    67.0    67.2      8.8
                      join 20  71.5    71.9    67.2    67.3     17.8

No family's mean row is lower with ``"shrunk"`` (wide-spread join 20:
91.962 -> 91.959; per seed the largest drop is 0.30, mixed-sizes seed 0
at ``k = 20``).  The sparse model itself trails pooled ``LassoCV`` where
its support is smaller than the true one (2-3 features selected against
3 true in alike and 5 in noise-features, 1-3 against 3 in many-small, at
15-40 and 6-16 samples a node), which no intercept rule changes.  ``fit-rows`` (``support_vs_pooled.py``'s designs, 10 test
samples a client, intercepts N(0, 3^2)): shrunk minus exact R^2 is -4e-6
to +1.3e-5 at 1,000 x 30 and +7e-6 to +3.9e-5 at 10,000 x 10; the fit's
bytes 166 / 670 / 314 kB -> 230 / 790 / 394 kB at ``d / s`` = 20/3, 20/10,
200/5 (1,000 x 30; ten times that at 10,000 x 10).

``school-prior``::

    k    exact  shrunk  oracle  node-level prior  prior alone  Ridge
    5    22.59  28.85   35.64   30.56             27.97        31.83
    10   29.06  31.22   35.60   32.08             28.07        31.75
    20   32.69  32.81   35.91   33.26             28.26        31.94

So School's remaining gap is the newcomers' intercepts (the oracle is 3.8
points above Ridge at every ``k``); a prior mean from the schools' 7
constant features closes 1.7 of the 3.0 points at ``k = 5`` and passes
Ridge at ``k = 10``.  Not built: the clients would send those features'
values and the server must learn which features are constant within every
node (a bit per feature per client, or a round), and ``d`` floats per
client would swamp the refit's bytes on wide data.

Built 2026-11-28 (support15): the shrunk intercepts' prior mean is ``mu +
z' gamma`` on the node-level features (one bit per feature per client in
the refit message, then a round for the ``q`` values; ``gamma`` by
trimmed least squares on the server).  ``school`` now gives join shrunk
30.4 / 32.0 / 33.2 (refit 30.7 / 32.1 / 33.4) against Ridge 31.8 / 31.8 /
31.9 (``python benchmarks/new_nodes.py --families support --datasets
school --seeds 0,1,2 --ks 5,10,20``); ``school-prior``'s ``shrunk``
column now mixes the fit's ``mu`` with the new, smaller ``tau^2 /
sigma^2`` (28.63 / 30.98 / 32.61) and no longer describes a variant.  The
six held-out families have no node-level feature (``q = 0``): their rows
above are unchanged to the last digit printed (rerun 2026-11-28).

``school-support`` (means over seeds 0-2)::

    k    Ridge  sparse shrunk  sparse oracle  dense shrunk  dense oracle
    5    31.83  30.42          35.64          33.66         38.48
    10   31.75  32.05          35.60          34.85         38.37
    20   31.94  33.23          35.91          36.04         38.59

So with the node-level prior what is left at ``k = 5`` is the
coefficients, not the intercepts: the support's 2-3 features (vr1, vr2,
and on seed 1 one more) against dense within-school coefficients on all
21 row-level features, with the same intercept rule, is 3.2 points at
every ``k`` (the dense row passes Ridge at ``k = 5`` by 1.8).  Not built:
a larger support or a ridge refit on more features.  (Built 2026-11-29, support17:
``refit_candidates``, the clients' statistics on up to 32 candidates and
the server's choice between the support's least squares and a ridge on
them by cross-validation over the clients; School's join 33.5 / 34.7 /
35.9, ``benchmarks/support_wide_refit.py``.  Every table in this
docstring was measured with the support's refit, then the only one: run
at the new default, the estimator's columns give other numbers.)

``node-level-noise`` (means over seeds 0-4; newcomers' R^2; ``z used``:
the fraction of fits whose F test let ``z`` in)::

    family       k   default  z never  z used
    small-nodes  5   16.74    16.74    0.0
    small-nodes  10  17.48    17.48    0.0
    few-nodes    5   37.80    37.80    0.0
    few-nodes    10  40.03    40.03    0.0
    many-nodes   5   44.65    44.65    0.0
    many-nodes   10  45.86    45.86    0.0
    wide         5   38.19    38.27    0.2
    wide         10  40.35    40.34    0.2

Without the test (``z`` always in) the same rows lost up to 0.71
(wide, k = 5) and 0.55 (small-nodes, k = 10); at level 0.05 few-nodes
(25 nodes, q = 8) lost 1.0 / 1.1.  School's rows are the same at 0.01.
"""

import argparse
import copy
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LassoCV, Ridge
from sklearn.metrics import r2_score

sys.path.insert(0, str(Path(__file__).parent))
import new_nodes as nn

from skfed.baselines import LocalEstimator
from skfed.support import FederatedSparseLinearRegression
from skfed.support._intercepts import shrunk_intercepts

VARIANTS = (True, "shrunk")


def _cpu(fn):
    start = time.process_time()
    out = fn()
    return out, time.process_time() - start


def school(seeds, ks):
    rows = {}
    for seed in seeds:
        X, y, g, _ = nn.load("school", seed)
        fit_rows, _, order = nn.split(X, y, g, seed)
        Xf, yf, gf = X[fit_rows], y[fit_rows], g[fit_rows]
        fitted = {v: FederatedSparseLinearRegression(per_node_intercept=v, random_state=seed)
                  .fit(Xf, yf, groups=gf) for v in VARIANTS}
        for k in ks:
            tr, te = nn.new_node_rows(order, k)
            Xt, yt, gt = X[te], y[te], g[te]
            Xp, yp = np.concatenate([Xf, X[tr]]), np.concatenate([yf, y[tr]])
            gp = np.concatenate([gf, g[tr]])
            row = {"Ridge": 100 * r2_score(yt, Ridge().fit(Xp, yp).predict(Xt))}
            for v, est in fitted.items():
                joined, join_cpu = _cpu(
                    lambda est=est, Xk=X[tr], yk=y[tr], gk=g[tr]: copy.deepcopy(est).add_nodes(
                        Xk, yk, groups=gk))
                refit, refit_cpu = _cpu(
                    lambda est=est, Xp=Xp, yp=yp, gp=gp: clone(est).fit(Xp, yp, groups=gp))
                name = "exact" if v is True else "shrunk"
                row[f"join {name}"] = 100 * r2_score(yt, joined.predict(Xt, groups=gt))
                row[f"refit {name}"] = 100 * r2_score(yt, refit.predict(Xt, groups=gt))
                row[f"bytes {name}"] = (joined.join_communication_.total_bytes
                                        / refit.n_bytes_sent_)
                row[f"cpu {name}"] = join_cpu / refit_cpu
                if v == "shrunk":
                    row["ratio"] = est.intercept_ratio_
            rows.setdefault(k, []).append(row)
            print(seed, k, " ".join(f"{key} {val:.4f}" for key, val in row.items()), flush=True)
    _table(rows, "k")


# Held-out families: (nodes, rows per fitted node (low, high), d, s, tau, sigma,
# random-effect law).  Newcomers are a fifth of the nodes with k + 30 rows.
FAMILIES = {
    "many-small": {"n_nodes": 300, "sizes": (6, 16), "d": 20, "s": 3, "tau": 1.0,
                   "sigma": 1.0},
    "alike": {"n_nodes": 100, "sizes": (15, 30), "d": 20, "s": 3, "tau": 0.05, "sigma": 1.0},
    "noise-features": {"n_nodes": 100, "sizes": (20, 40), "d": 200, "s": 5, "tau": 0.5,
                       "sigma": 1.0},
    "wide-spread": {"n_nodes": 60, "sizes": (30, 80), "d": 20, "s": 4, "tau": 3.0,
                    "sigma": 1.0},
    "heavy-intercepts": {"n_nodes": 150, "sizes": (8, 40), "d": 20, "s": 3, "tau": 1.0,
                         "sigma": 1.0, "law": "t2"},
    "mixed-sizes": {"n_nodes": 150, "sizes": (4, 300), "d": 30, "s": 5, "tau": 0.7,
                    "sigma": 1.5, "law": "normal", "log_sizes": True},
}


def make_family(name, seed, k):
    spec = FAMILIES[name]
    rng = np.random.RandomState(seed)
    n_nodes, d, s = spec["n_nodes"], spec["d"], spec["s"]
    low, high = spec["sizes"]
    if spec.get("log_sizes"):
        sizes = np.exp(rng.uniform(np.log(low), np.log(high), size=n_nodes)).astype(int)
    else:
        sizes = rng.randint(low, high + 1, size=n_nodes)
    new = rng.rand(n_nodes) < 0.2
    sizes = np.where(new, k + 30, sizes)
    coef = np.zeros(d)
    coef[rng.choice(d, s, replace=False)] = rng.choice([-1, 1], s) * rng.uniform(0.5, 1.5, s)
    if spec.get("law") == "t2":
        effects = spec["tau"] * rng.standard_t(2, size=n_nodes)
    else:
        effects = spec["tau"] * rng.normal(size=n_nodes)
    groups = np.repeat(np.arange(n_nodes), sizes)
    X = rng.normal(size=(len(groups), d)) + 0.3 * rng.normal(size=(n_nodes, d))[groups]
    y = X @ coef + effects[groups] + spec["sigma"] * rng.normal(size=len(groups))
    # fitted nodes: 70 % of their rows to train (at least 1 to test);
    # newcomers: their first k rows
    train = np.zeros(len(groups), bool)
    for node in range(n_nodes):
        rows = np.flatnonzero(groups == node)
        n_train = k if new[node] else max(1, min(len(rows) - 1, round(0.7 * len(rows))))
        train[rows[:n_train]] = True
    return X, y, groups, new, train


def families(seeds, ks, names):
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    rows = {}
    for name in names:
        for seed in seeds:
            for k in ks:
                X, y, g, new, train = make_family(name, seed, k)
                is_new = new[g]
                fit_tr, fit_te = train & ~is_new, ~train & ~is_new
                new_tr, new_te = train & is_new, ~train & is_new
                row = {}
                for v in VARIANTS:
                    est = FederatedSparseLinearRegression(
                        per_node_intercept=v, random_state=seed).fit(
                            X[fit_tr], y[fit_tr], groups=g[fit_tr])
                    label = "exact" if v is True else "shrunk"
                    if k == ks[0]:
                        row[f"fit {label}"] = 100 * r2_score(
                            y[fit_te], est.predict(X[fit_te], groups=g[fit_te]))
                    est.add_nodes(X[new_tr], y[new_tr], groups=g[new_tr])
                    row[f"join {label}"] = 100 * r2_score(
                        y[new_te], est.predict(X[new_te], groups=g[new_te]))
                for base, make in (("Ridge", Ridge), ("LassoCV", lambda: LassoCV(cv=5))):
                    model = make().fit(X[train], y[train])
                    if k == ks[0]:
                        row[f"fit {base}"] = 100 * r2_score(y[fit_te], model.predict(X[fit_te]))
                    row[f"join {base}"] = 100 * r2_score(y[new_te], model.predict(X[new_te]))
                local = LocalEstimator(Ridge()).fit(X[train], y[train], groups=g[train])
                if k == ks[0]:
                    row["fit Local"] = 100 * r2_score(y[fit_te],
                                                      local.predict(X[fit_te], groups=g[fit_te]))
                row["join Local"] = 100 * r2_score(y[new_te],
                                                   local.predict(X[new_te], groups=g[new_te]))
                rows.setdefault((name, k), []).append(row)
                print(name, seed, k, " ".join(f"{key} {val:.2f}" for key, val in row.items()),
                      flush=True)
    _table(rows, "family, k")


def school_prior(seeds, ks):
    """Where School's remaining ``k = 5`` gap is: the newcomers' intercepts.

    On the package's fit (coefficients unchanged), a newcomer's intercept
    set five ways: ``exact`` (per_node_intercept=True), ``shrunk`` (the
    default), ``oracle`` (its test rows' mean residual: the ceiling of any
    intercept rule), and shrunk toward a prior *mean* predicted from the
    school's node-level features (the 7 of School's 28 that are constant
    within every school: invisible to the centred refit), ``RidgeCV`` of
    the fitted schools' exact intercepts on them (weighted by size); the
    prior's spread is the residuals' less the noise.  Computed here from
    the arrays: a protocol would have every client send those features'
    values (and the server tell which features are node-level).
    """
    from sklearn.linear_model import RidgeCV

    warnings.filterwarnings("ignore", category=UserWarning)
    rows = {}
    for seed in seeds:
        X, y, g, _ = nn.load("school", seed)
        fit_rows, _, order = nn.split(X, y, g, seed)
        Xf, yf, gf = X[fit_rows], y[fit_rows], g[fit_rows]
        est = FederatedSparseLinearRegression(random_state=seed).fit(Xf, yf, groups=gf)
        exact = FederatedSparseLinearRegression(per_node_intercept=True,
                                                random_state=seed).fit(Xf, yf, groups=gf)
        S, n_old = np.flatnonzero(est.coef_), len(est.nodes_)
        codes = np.searchsorted(est.nodes_, gf)
        W = np.bincount(codes).astype(float)
        node_means = np.array([Xf[codes == i].mean(0) for i in range(n_old)])
        within = np.array([Xf[codes == i].var(0) for i in range(n_old)])
        level2 = np.flatnonzero(np.average(within, axis=0, weights=W) < 1e-12)
        resid = yf - Xf[:, S] @ est.coef_[S] - exact.intercept_[codes]
        sigma2 = (resid ** 2).sum() / (W - 1).sum()
        between = RidgeCV(alphas=np.logspace(-3, 3, 13)).fit(
            node_means[:, level2], exact.intercept_, sample_weight=W)
        spread = exact.intercept_ - between.predict(node_means[:, level2])
        tau2 = max(0.0, np.mean(spread ** 2) - sigma2 * np.mean(1 / W))
        for k in ks:
            tr, te = nn.new_node_rows(order, k)
            Xt, yt, gt = X[te], y[te], g[te]
            joined = copy.deepcopy(exact).add_nodes(X[tr], y[tr], groups=g[tr])
            new = joined.nodes_[n_old:]
            own = joined.intercept_[n_old:]
            new_codes = np.searchsorted(new, g[tr])
            Wn = np.bincount(new_codes).astype(float)
            test_codes = np.searchsorted(new, gt)

            def score(intercepts, joined=joined, Xt=Xt, yt=yt, gt=gt, n_old=n_old):
                model = copy.deepcopy(joined)
                model.intercept_ = np.concatenate([joined.intercept_[:n_old], intercepts])
                return 100 * r2_score(yt, model.predict(Xt, groups=gt))

            mu, ratio = est.intercept_mean_, est.intercept_ratio_
            oracle = np.array([(yt[test_codes == i] - Xt[test_codes == i][:, S]
                                @ est.coef_[S]).mean() for i in range(len(new))])
            prior = between.predict(np.array(
                [X[tr][new_codes == i].mean(0) for i in range(len(new))])[:, level2])
            lam = Wn * tau2 / (Wn * tau2 + sigma2)
            row = {
                "exact": score(own), "shrunk": score(shrunk_intercepts(own, Wn, mu, ratio)),
                "oracle": score(oracle), "node-level prior": score(prior + lam * (own - prior)),
                "prior alone": score(prior),
                "Ridge": 100 * r2_score(yt, Ridge().fit(np.concatenate([Xf, X[tr]]),
                                                        np.concatenate([yf, y[tr]])).predict(Xt)),
                "level-2 features": len(level2),
            }
            rows.setdefault(k, []).append(row)
            print(seed, k, " ".join(f"{key} {val:.2f}" for key, val in row.items()), flush=True)
    _table(rows, "k")


def school_support(seeds, ks):
    """Where School's ``k = 5`` gap is once the node-level prior is built:
    the coefficients.  The package's fit (``sparse``: its 2-3 features) and
    the same intercept rule on dense coefficients (``dense``: ``Ridge(1.0)``
    without intercept on the fitted schools' rows centred per school, every
    row-level feature; the prior ``mu + z' gamma`` refitted, untrimmed, on
    the fitted schools' intercepts under those coefficients; the fit's
    ``tau^2 / sigma^2``), each with the shrunk intercept (``shrunk``) and
    with the intercept taken from the newcomer's test rows (``oracle``).
    Computed here from the arrays: a diagnostic, not a federated fit.
    """
    warnings.filterwarnings("ignore", category=UserWarning)
    rows = {}

    def node_means(values, codes, n):
        return np.bincount(codes, weights=values, minlength=n) / np.bincount(codes, minlength=n)

    for seed in seeds:
        X, y, g, _ = nn.load("school", seed)
        fit_rows, _, order = nn.split(X, y, g, seed)
        Xf, yf, gf = X[fit_rows], y[fit_rows], g[fit_rows]
        est = FederatedSparseLinearRegression(random_state=seed).fit(Xf, yf, groups=gf)
        codes = np.unique(gf, return_inverse=True)[1]
        n_old, levels = codes.max() + 1, est.node_level_
        Xc = Xf - np.column_stack([node_means(c, codes, n_old) for c in Xf.T])[codes]
        yc = yf - node_means(yf, codes, n_old)[codes]
        dense = Ridge(1.0, fit_intercept=False).fit(Xc, yc).coef_
        dense[levels] = 0.0
        z_old = np.column_stack([node_means(c, codes, n_old) for c in Xf[:, levels].T])
        design = np.column_stack([np.ones(n_old), z_old])
        dense_prior = np.linalg.lstsq(
            design, node_means(yf - Xf @ dense, codes, n_old), rcond=None)[0]
        for k in ks:
            tr, te = nn.new_node_rows(order, k)
            new, new_codes = np.unique(g[tr], return_inverse=True)
            test_codes, n_new = np.searchsorted(new, g[te]), len(new)
            W = np.bincount(new_codes).astype(float)
            lam = W * est.intercept_ratio_ / (W * est.intercept_ratio_ + 1.0)
            z = np.column_stack([node_means(c, new_codes, n_new) for c in X[tr][:, levels].T])
            row = {"Ridge": 100 * r2_score(y[te], Ridge().fit(
                np.concatenate([Xf, X[tr]]), np.concatenate([yf, y[tr]])).predict(X[te]))}
            for name, coef, sol in (
                    ("sparse", est.coef_, np.r_[est.intercept_mean_, est.intercept_coef_]),
                    ("dense", dense, dense_prior)):
                own = node_means(y[tr] - X[tr] @ coef, new_codes, n_new)
                prior = sol[0] + z @ sol[1:]
                oracle = node_means(y[te] - X[te] @ coef, test_codes, n_new)
                for tag, b in (("shrunk", prior + lam * (own - prior)), ("oracle", oracle)):
                    row[f"{name} {tag}"] = 100 * r2_score(y[te], X[te] @ coef + b[test_codes])
            rows.setdefault(k, []).append(row)
            print(seed, k, " ".join(f"{key} {val:.2f}" for key, val in row.items()), flush=True)
    _table(rows, "k")


NOISE_FAMILIES = {  # nodes fitted, their row range, q node-level features, d
    "small-nodes": (60, 3, 12, 5, 20), "few-nodes": (25, 10, 40, 8, 20),
    "many-nodes": (200, 4, 30, 3, 40), "wide": (60, 10, 30, 5, 200),
}


def node_level_noise(seeds, ks):
    """Held-out families whose ``q`` node-level features carry nothing: the
    default against the same fit with the F test's level set to 0 (``z``
    never enters the prior).  20 newcomers of ``k`` rows, scored on 20
    more rows each; a sparse model (3 of ``d`` features), N(0, 1) node
    intercepts, noise sd 2."""
    import skfed.support._intercepts as intercepts

    warnings.filterwarnings("ignore", category=UserWarning)
    level, rows = intercepts._PRIOR_LEVEL, {}
    for fam, (n_nodes, lo, hi, q, d) in NOISE_FAMILIES.items():
        for seed in seeds:
            rng = np.random.RandomState(seed)
            N = n_nodes + 20
            n = rng.randint(lo, hi + 1, size=N) + 20
            g = np.repeat(np.arange(N), n)
            X = np.hstack([rng.normal(size=(len(g), d)), rng.normal(size=(N, q))[g]])
            beta = np.zeros(d + q)
            beta[:3] = [1.5, -1.0, 0.7]
            y = X @ beta + rng.normal(size=N)[g] + 2 * rng.normal(size=len(g))
            for k in ks:
                train = np.zeros(len(g), bool)
                for i in range(N):
                    train[np.flatnonzero(g == i)[: n[i] - 20 if i < n_nodes else k]] = True
                fit, new, test = train & (g < n_nodes), train & (g >= n_nodes), ~train & (g >= n_nodes)
                row = {}
                for name, lvl in (("default", level), ("z never", 0.0)):
                    intercepts._PRIOR_LEVEL = lvl
                    est = FederatedSparseLinearRegression(random_state=seed).fit(
                        X[fit], y[fit], groups=g[fit]).add_nodes(X[new], y[new], groups=g[new])
                    row[name] = 100 * r2_score(y[test], est.predict(X[test], groups=g[test]))
                    row[f"z used {name}"] = float(np.any(est.intercept_coef_ != 0))
                intercepts._PRIOR_LEVEL = level
                rows.setdefault((fam, k), []).append(row)
    _table(rows, "family, k")


def fit_rows(seeds, sizes, dims, designs):
    """``support_vs_pooled.py --refit``'s rows (10 test samples a client):
    both variants' test R^2 (the guide quotes the default's)."""
    import support_vs_pooled as svp

    warnings.filterwarnings("ignore", category=UserWarning)
    for design in designs:
        for size in sizes:
            g, n = (int(v) for v in size.split("x"))
            for dim in dims:
                d, s = (int(v) for v in dim.split(":"))
                for seed in seeds:
                    X, y, groups, Xt, yt, gt, _ = svp.make_design(design, g, n, d, s, seed,
                                                                  n_test=10)
                    row = {}
                    for v in VARIANTS:
                        est = FederatedSparseLinearRegression(per_node_intercept=v).fit(
                            X, y, groups=groups)
                        label = "exact" if v is True else "shrunk"
                        row[label] = r2_score(yt, est.predict(Xt, groups=gt))
                        row[f"kB {label}"] = est.n_bytes_sent_ / 1e3
                    print(design, size, dim, seed,
                          " ".join(f"{key} {val:.6f}" for key, val in row.items()), flush=True)


def _table(rows, label):
    print(label)
    for key, sel in rows.items():
        names = list(sel[0])
        print(key, " ".join(f"{n} {np.mean([r[n] for r in sel]):.3f}" for n in names))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("what", choices=("school", "families", "fit-rows",
                                         "school-prior", "school-support",
                                         "node-level-noise"))
    parser.add_argument("--sizes", default="1000x30,10000x10")
    parser.add_argument("--dims", default="20:3,20:10,200:5")
    parser.add_argument("--designs", default="independent,toeplitz,heterogeneous")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--families", default=",".join(FAMILIES))
    args = parser.parse_args()
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    if args.what == "school":
        school(seeds, ks)
    elif args.what == "school-prior":
        school_prior(seeds, ks)
    elif args.what == "school-support":
        school_support(seeds, ks)
    elif args.what == "node-level-noise":
        node_level_noise(seeds, ks)
    elif args.what == "families":
        families(seeds, ks, args.families.split(","))
    else:
        fit_rows(seeds, args.sizes.split(","), args.dims.split(","), args.designs.split(","))


if __name__ == "__main__":
    main()
