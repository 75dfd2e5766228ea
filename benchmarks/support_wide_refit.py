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
--support-candidates c``; ``--pooled-designs`` runs
``support_vs_pooled.py``'s exact sparse designs instead (1,000 clients of
30 samples, ``d / s`` = 20/3, 20/10, 200/5; test R^2 on 10 more samples a
client and the fit's kB)::

    OPENBLAS_NUM_THREADS=1 python benchmarks/support_wide_refit.py --pooled-designs \
        --seeds 0,1,2 --cs 0,auto

``--level-check RUNS`` prints how often the test round (below) rejects on
exact sparse models; ``--few-clients 8,20,24,30,40 --seeds 0,1,2,3,4,5``
compares ``c = 0`` and ``"auto"`` on few clients of many rows.

Measured 2026-11-29 (support17; means over seeds 0-2; ``--cs 0,32`` and
``--cs 16,64`` in two runs, the same draws; "bytes": the fit's at
``c = 32`` over ``c = 0``; "ridge": seeds whose server chose the ridge at
``c = 32``)::

    family            row      c=0    c=16   c=32   c=64   Ridge  bytes  ridge
    many-small        fit       69.5   79.0   79.1   79.1   60.1
                      join 5    65.2   77.2   77.2   77.2   61.9   12.6  2 of 3
                      join 10   72.2   79.1   79.1   79.1   62.6   11.4  2 of 3
                      join 20   62.3   78.9   78.8   78.8   62.0   13.4  3 of 3
    alike             fit       69.2   69.2   69.2   69.2   68.9
                      join 5    70.8   70.8   70.8   70.8   70.0    9.8  0 of 3
                      join 10   65.2   72.3   72.1   72.1   72.4   11.4  2 of 3
                      join 20   63.7   72.9   72.8   72.8   72.5   11.4  2 of 3
    noise-features    fit       57.7   77.2   80.5   80.3   77.8
                      join 5    57.4   76.9   79.4   78.9   76.0   18.4  3 of 3
                      join 10   61.1   81.0   82.8   82.2   78.3   18.4  3 of 3
                      join 20   58.8   80.7   83.6   83.2   79.8   19.5  3 of 3
    wide-spread       fit       92.7   92.7   92.7   92.7   27.5
                      join 5    91.0   91.0   91.0   91.0   20.6    7.9  0 of 3
                      join 10   89.1   89.1   89.1   89.1   28.5    7.9  0 of 3
                      join 20   92.0   92.0   92.0   92.0   32.8    7.9  0 of 3
    heavy-intercepts  fit       89.0   89.0   89.0   89.0   30.5
                      join 5    88.1   88.1   88.1   88.1   32.2    9.8  0 of 3
                      join 10   87.3   87.3   87.3   87.3   25.2    9.8  0 of 3
                      join 20   87.4   89.1   89.1   89.1   30.4   10.6  1 of 3
    mixed-sizes       fit       72.2   72.2   72.2   72.2   66.4
                      join 5    68.2   68.2   68.2   68.2   65.3   12.8  0 of 3
                      join 10   70.7   70.7   70.7   70.7   67.0   12.8  0 of 3
                      join 20   71.9   71.9   71.9   71.9   67.2   12.8  0 of 3
    d2                fit       63.5   63.5   63.5   63.5   36.9
                      join 5    55.0   55.0   55.0   55.0   33.5    1.3  0 of 3
                      join 10   60.0   60.0   60.0   60.0   31.8    1.3  1 of 3
                      join 20   58.6   58.6   58.6   58.6   35.5    1.3  1 of 3
    d500              fit       82.2   83.0   84.4   84.1   66.8
                      join 5    78.8   79.9   81.6   81.3   57.4    9.7  2 of 3
                      join 10   79.6   81.4   83.8   83.6   60.6   10.1  2 of 3
                      join 20   79.5   84.9   84.9   84.6   65.2    9.7  2 of 3
    dense-small       fit       60.8   63.1   63.7   63.7   28.8
                      join 5    51.1   53.7   54.6   54.6   23.3   12.3  3 of 3
                      join 10   55.4   58.4   59.1   59.1   24.9   12.3  3 of 3
                      join 20   58.5   60.4   61.3   61.3   26.4   12.3  3 of 3

``refit_candidates="auto"`` (``--cs 0,auto``, after the cap for small
clients) gives the ``c = 32`` column except many-small (6-16 rows a node,
4-11 fitted: ``c = 14``): join 77.2 / 79.1 / 79.0 at 7.1 / 6.5 / 7.6
times the bytes (fit row 79.1); every other row equal to the digit.

No row is lower at ``c = 32`` than at ``c = 0`` by more than 0.02 (``d2``,
where the ridge won a fold by a hair); where the server keeps the support's
least squares the predictions are those of ``c = 0`` (the same
coefficients from a sub-block of the same sums), and the fit pays the
bytes anyway (mixed-sizes: 12.8 times for nothing).  ``c = 16`` loses
0.6-3.3 points to 32 on noise-features, d500 and dense-small; ``c = 64``
0-0.6.  School (``new_nodes.py``, seeds 0-2; newcomers' R^2 and the join's
bytes over the refit's)::

    c          k = 5   k = 10  k = 20  bytes   refit kB
    0          30.5    32.0    33.2    0.0735   47
    16         33.7    35.0    36.0    0.0269   241
    "auto"     33.5    34.7    35.9    0.0158   582   (28 = all features)
    Ridge      31.8    31.8    31.9

``--pooled-designs``: at every design, ``d / s`` and seed the server kept
the support's least squares, and the test R^2 equals ``c = 0``'s to the
last of 6 digits; the fit's kB 233 / 793 / 419 -> 2,273 / 2,273 / 5,171
(``d / s`` = 20/3, 20/10, 200/5).  At 10,000 clients of 10 rows
(``--sizes 10000x10 --dims 20:3,200:5 --designs independent --seeds 0``)
R^2 unchanged, 2,330 / 4,190 kB -> 22,730 / 51,710 kB with 32
candidates and 19,130 / 19,790 kB at ``"auto"`` (``c = 18``; the raw
upload is 16,800 / 160,800 kB: at ``d = 20`` the fit, vote, moments and
broadcasts included, sends 14 % more than the raw rows).  Where the default costs bytes for
nothing: exact sparse models with strong effects (set
``refit_candidates=0``).  Not found: a rule on the vote's p-values that
tells the two apart before round 2 (the fraction of features outside the
support with p < 0.5 is 0.00-0.05 on the exact sparse designs but also
0.00-0.06 on nearly-alike and many-small fits whose server then chose the
ridge, and 0.33 on a d500 fit that kept least squares).

The test round (2026-11-29, support18; ``skfed/support/_candidate_test.py``)
-------------------------------------------------------------------------
The rule the p-values could not give, the clients' residuals give: the
server broadcasts the support's least squares, each client sends one float
per candidate off the support (its product with the residuals), and only
if Student's t per candidate (Bonferroni) or Hotelling's T^2 of all
rejects at 0.025 each do the clients send the candidates' statistics.
``--cs 0,auto`` again (columns: join R^2 x 100 at ``c = 0`` and
``"auto"``, pooled Ridge, the fit's bytes over ``c = 0``'s, seeds whose
test asked for the candidates, seeds whose server then chose the ridge;
the products sent as float32)::

    family            k    c=0    auto   Ridge  bytes  asked   ridge
    many-small         5   65.25  77.20  61.93   6.29  2 of 3  2 of 3
                      10   72.21  79.13  62.60   5.60  2 of 3  2 of 3
                      20   62.32  78.96  61.98   8.37  3 of 3  3 of 3
    alike              5   70.81  70.81  69.96   1.55  0 of 3  0 of 3
                      10   65.16  72.12  72.38   9.26  2 of 3  2 of 3
                      20   63.67  72.83  72.55   9.26  2 of 3  2 of 3
    noise-features     5   57.36  79.43  76.00  19.21  3 of 3  3 of 3
                      10   61.12  82.75  78.30  19.21  3 of 3  3 of 3
                      20   58.78  83.58  79.78  20.35  3 of 3  3 of 3
    wide-spread    k = 5 / 10 / 20: 91.02 / 89.10 / 91.96 at both, bytes 1.45, asked 0 of 9
    heavy-intercepts   5   88.10  88.10  32.17   1.55  0 of 3  0 of 3
                      10   87.33  87.33  25.17   1.55  0 of 3  0 of 3
                      20   87.39  89.12  30.43   8.37  2 of 3  1 of 3
    mixed-sizes    k = 5 / 10 / 20: 68.25 / 70.73 / 71.87 at both, bytes 1.49, asked 0 of 9
    d2             k = 5 / 10 / 20: 54.98 / 60.05 / 58.57 at both, bytes 1.32, asked 0 of 9
    d500               5   78.79  81.58  57.43   7.51  2 of 3  2 of 3
                      10   79.56  83.78  60.57   7.92  2 of 3  2 of 3
                      20   79.50  84.88  65.20   7.55  2 of 3  2 of 3
    dense-small        5   51.12  54.58  23.28  13.12  3 of 3  3 of 3
                      10   55.39  59.12  24.92  13.12  3 of 3  3 of 3
                      20   58.47  61.30  26.44  13.12  3 of 3  3 of 3

Every one of the 36 fits (of 81) whose server chose the ridge had its
test reject (37 rejected), so every R^2 is that of sending the
candidates' statistics always (the table above, to the digit); where the
test keeps the support the fit costs 1.45-1.55 times ``c = 0``'s bytes
instead of 7.9-12.8 (wide-spread, mixed sizes, alike and heavy
intercepts at ``k`` 5-10; ``d2``, two features, 1.35 -> 1.32); where it asks, about 4 % more than before
(the test round: noise-features 19.2 against 18.4).
``--pooled-designs --seeds 0,1,2 --cs 0,auto``: the test kept the
support on 25 of 27 fits (it asked on seed 0 of 20/3, independent and
Toeplitz, and the server kept least squares); R^2 unchanged to the last
digit; kB 233 / 793 / 419 (``c = 0``) -> 360 / 948 / 624 (2,432 on the two
fits that asked) instead of 2,273 / 2,273 / 5,171.  ``--sizes
10000x10,1000x10 --dims 20:3,200:5 --designs independent --seeds
0,1,2``: at 10,000 clients kept on every seed, 2,330 / 4,190 -> 3,520 /
5,680 kB instead of 19,130 / 19,790 (the raw upload: 16,800 / 160,800
kB; the fit now sends a fifth of it at ``d = 20``); at 1,000 clients,
``d = 20``: kept, 233 -> 352 kB (raw 1,680); ``d = 200``: the vote
finds the support only in part (R^2 0.10 / 0.28 / 0.45 at ``c = 0``),
the test asks on every seed and R^2 is 0.98 (2,140-2,148 kB).  The
test's level, ``--level-check 400`` (exact sparse models whose support
the vote found; ``level_check``): 30 clients of 60 rows rejected 3.8 %
(t part 1.3 %, Hotelling 2.8 %), 200 clients of 10 rows 3.7 % (2.2 %,
1.8 %), at 0.05.  Few clients, ``--few-clients 8,20,24,30,40 --seeds
0,1,2,3,4,5`` (100-200 rows, 18 weak effects of 0.04 or 0.07): R^2 equal
to main's always-send at every size (8 clients 56.98 / 58.18, 20:
59.36 / 60.19, 24: 57.67 / 59.01, 30: 62.22 / 63.08, 40: 60.68 / 61.48;
``c = 0`` 0.9-4.3 lower); with the test run whenever ``g > k + 1``
it had lost 0.61 / 0.40 at 20 / 24 clients (effects of 0.04), hence the
``k + 10`` clients the test needs.  School (``new_nodes.py``): the test
rejects on every seed; join, refit and Ridge as in the ``"auto"`` row
above; the refit's bytes 582 -> 608 kB (bytes ratio 0.0158 -> 0.0151).

The test as a bootstrap-t over the clients of max |t_j| and sum t_j^2
(2026-11-29, support20; 1,000 resamples from ``random_state``, each part
at 0.025; support19's ``candidate_test_level.py``): ``--level-check
400``: 30 clients of 60 rows rejected 1.5 % (max |t| 1.0 %, sum 0.8 %;
was 3.8 %), 200 clients of 10 rows 3.5 % (2.5 %, 1.3 %; was 3.7 %).
``--pooled-designs --cs 0,auto`` (seeds 0-2): every row's R^2, kB and
decision as before (kept on 25 of 27, asked on seed 0 of 20/3
independent and Toeplitz; 360 / 948 / 624 kB, 2,432 on the two).
``--few-clients 8,20,24,30,40 --seeds 0,1,2,3,4,5``: every row as
before (the test asked on every fit).  School (``new_nodes.py --families
support --datasets school --seeds 0,1,2 --ks 5,10,20``): join 33.5 / 34.7
/ 35.9, refit 33.7 / 34.8 / 36.0, bytes 0.0151, as before.
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
                        row[f"asked c={c}"] = float(getattr(est, "refit_asked_", False))
                    print(design, size, dim, seed,
                          " ".join(f"{a} {b:.6f}" for a, b in row.items()), flush=True)


def level_check(runs):
    """How often the round-2c test rejects "the support is enough" on exact
    sparse models whose support the vote found (its level, 0.05): ``y =
    2 x_3 - x_9 + u_node + 0.5 e`` with ``d = 15``, 30 clients of 60 rows
    and 200 clients of 10 (``tests/test_sparse_linear_candidate_test.py``'s
    design), ``refit_candidates=15``, one draw per seed."""
    for n_nodes, n in ((30, 60), (200, 10)):
        asked, t_part, joint_part = [], [], []
        for seed in range(runs):
            rng = np.random.RandomState(seed)
            groups = np.repeat(np.arange(n_nodes), n)
            X = rng.normal(size=(len(groups), 15))
            y = (2 * X[:, 3] - X[:, 9] + rng.normal(size=n_nodes)[groups]
                 + 0.5 * rng.normal(size=len(groups)))
            est = FederatedSparseLinearRegression(refit_candidates=15, random_state=0).fit(
                X, y, groups=groups)
            if est.refit_test_pvalues_ is None or list(np.flatnonzero(est.support_)) != [3, 9]:
                continue
            asked.append(est.refit_asked_)
            t_part.append(est.refit_test_pvalues_.min() <= 0.025)
            joint_part.append(est.refit_test_joint_pvalue_ <= 0.025)
        print(f"{n_nodes} clients x {n} rows: {len(asked)} fits with the true support, "
              f"rejected {np.mean(asked):.3f} (bootstrap max|t| {np.mean(t_part):.3f}, "
              f"sum t^2 {np.mean(joint_part):.3f})", flush=True)


def few_clients(seeds, n_nodes_list, weak_list):
    """Few clients of 100-200 rows, ``d = 20``: two effects of 0.7 and 0.3
    and 18 of ``weak`` (random signs), node intercepts of sd 1, noise sd 1;
    each client's rows split 70 / 30.  R^2 x 100 of the held-out rows for
    ``c = 0`` and ``"auto"``, how often the candidates' statistics were
    sent, how often the ridge won, and the fit's kB."""
    for n_nodes in n_nodes_list:
        for weak in weak_list:
            res = {"R2 c=0": [], "R2 auto": [], "asked": [], "ridge": [], "kB c=0": [],
                   "kB auto": []}
            for seed in seeds:
                rng = np.random.RandomState(seed)
                n = rng.randint(100, 201, size=n_nodes)
                g = np.repeat(np.arange(n_nodes), n)
                X = rng.normal(size=(len(g), 20))
                coef = weak * rng.choice([-1, 1], 20)
                coef[:2] = [0.7, 0.3]
                y = X @ coef + rng.normal(size=n_nodes)[g] + rng.normal(size=len(g))
                tr = rng.uniform(size=len(g)) < 0.7
                for c in (0, "auto"):
                    est = FederatedSparseLinearRegression(refit_candidates=c, random_state=seed)
                    est.fit(X[tr], y[tr], groups=g[tr])
                    key = "c=0" if c == 0 else "auto"
                    res[f"R2 {key}"].append(
                        100 * r2_score(y[~tr], est.predict(X[~tr], groups=g[~tr])))
                    res[f"kB {key}"].append(est.n_bytes_sent_ / 1e3)
                    if c != 0:
                        res["asked"].append(float(getattr(est, "refit_asked_", True)))
                        res["ridge"].append(float(est.refit_alpha_ is not None))
            print(n_nodes, "clients, weak", weak,
                  " ".join(f"{a} {np.mean(b):.2f}" for a, b in res.items()), flush=True)


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
    parser.add_argument("--few-clients", default=None, metavar="N,N,...",
                        help="few_clients() with these numbers of clients")
    parser.add_argument("--weak", default="0.04,0.07")
    parser.add_argument("--level-check", type=int, default=0, metavar="RUNS",
                        help="the test round's rejection rate on RUNS exact sparse fits")
    args = parser.parse_args()
    warnings.filterwarnings("ignore", category=ConvergenceWarning)
    warnings.filterwarnings("ignore", category=UserWarning)
    seeds = [int(s) for s in args.seeds.split(",")]
    ks = [int(k) for k in args.ks.split(",")]
    cs = [int(c) if c != "auto" else c for c in args.cs.split(",")]
    if args.few_clients:
        few_clients(seeds, [int(v) for v in args.few_clients.split(",")],
                    [float(v) for v in args.weak.split(",")])
        return
    if args.level_check:
        level_check(args.level_check)
        return
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
                    row[f"asked c={c}"] = float(getattr(est, "refit_asked_", False))
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
