"""The built linear network function (``join_function="auto"``): gate, cost and joins.

``skfed/online/_linear.py`` builds what ``online_join_linear_network.py``
(onlinejoin20) and ``online_join_linear_choice.py`` (onlinejoin21)
measured: ``fit`` solves ``w' x`` on the nodes' summed losses (one tree
round per L-BFGS evaluation) and gates it by the paired ``t`` of the
fitted nodes' in-sample loss differences (``t <= -2`` opens); newcomers of
an open gate start from ``w' x`` and keep it as a linear term.  This
script fits the default (``join_function="network"``) and ``"auto"`` on
the same 80 % of the nodes (``new_nodes.py``'s split) and reports, per
data set and seed: the kernel ``kernel="auto"`` picked, the gate's ``t``
and whether it opened, the solve's evaluations, the fit's bytes and CPU
with ``"auto"`` over the default's, and for ``k = 5 / 10 / 20`` both
joins' accuracy on the newcomers' test rows and bytes (the join table's
rows themselves: ``new_nodes.py --families online --online-join-function
auto``).

Run (``OPENBLAS_NUM_THREADS=1``)::

    python benchmarks/online_join_linear_build.py --datasets har --seeds 0,1,2,3,4,5
    python benchmarks/online_join_linear_build.py \\
        --datasets landmine,moons,related-alike,related-clustered,related-small,related-wide,related-narrow \\
        --seeds 0,1,2
    python benchmarks/online_join_linear_build.py \\
        --datasets shared-circles,shared-circles-wide,shared-circles-small,shared-moons \\
        --seeds 0,1,2

Measured (2026-11-29, online25 at main 893a791 + this branch, load 10-15).

The gate, per fit (80 % of the nodes, ``new_nodes.py``'s split)::

    data set               kernel_     gate t (seeds)              fit bytes x
    HAR sitting            laplacian   -7.6 / -7.2 / -7.9 (3-5)    1.115-1.124
    Landmine               rbf         +106 / +129 / +98 (0-2)     1.014-1.017
    shared circles         rbf         +65 / +76 / +80             1.006
      with 40 noise feat.  laplacian   +38 / +41 / +38             1.031
      150 nodes of 8 rows  rbf         +72 / +79 / +87             1.007
    shared moons, moons,   linear or   not run                     1.000
    related-alike /        affine
    clustered / small /
    wide / narrow

(the solve took 57-60 evaluations on HAR, 38-44 on Landmine, 6-9 on the
circles; the fit's CPU with ``"auto"`` over the default's 0.95-1.09, the
load's noise, on every data set).  On
every held-out fit the gate stays closed and the joins are bit for bit the
default's (accuracy means, ``k = 5 / 10 / 20``, seeds 0-2): Landmine 93.54
/ 93.50 / 93.52, shared circles 92.93 / 91.87 / 92.59, with 40 noise
features 73.96 / 73.97 / 75.46, 150 nodes 88.96 / 92.64 / 93.26, shared
moons 86.93 / 86.94 / 87.36, moons 57.15 / 59.71 / 62.96, related-alike
89.98 / 89.17 / 89.75, -clustered 70.89 / 74.71 / 78.28, -small 88.98 /
89.22 / 89.77, -wide 85.84 / 87.95 / 88.64, -narrow 90.89 / 91.21 / 90.72.

HAR's joins, default -> ``"auto"`` (``w' x`` alone in brackets: every
newcomer scored as the linear function, the prototype's measure), per
fresh seed::

    seed  k=5                      k=10                     k=20
    3     96.27 -> 96.58 [96.58]   97.63 -> 97.95 [96.85]   97.96 -> 98.21 [96.91]
    4     93.83 -> 96.23 [95.43]   95.88 -> 93.37 [95.58]   93.78 -> 95.52 [95.52]
    5     96.61 -> 97.26 [97.11]   97.44 -> 97.07 [97.07]   97.36 -> 97.06 [97.06]

Every newcomer starts from ``w' x``; those whose start misclassifies more
than a tenth of their ``k`` samples stream ``max_epochs`` passes
(``_JOIN_KEEP_ERRORS``, unchanged): 1-2 of 4 at some ``k`` on seeds 3-5,
which gained 1.1 and 1.3 on seed 3 (``k = 10, 20``) and lost 2.2 on seed 4
(``k = 10``).  The join table's rows (``python benchmarks/new_nodes.py
--families online --datasets har --seeds S --ks 5,10,20
--online-join-function auto``)::

    row                  k   join   Global (best)   Local (best)   refit  bytes   CPU     goal
    seeds 0-2
    online, HAR sitting  5   98.07  97.84 LogReg    78.02 SVC      77.70  0.0176  0.0004  yes
    online, HAR sitting  10  98.07  97.91 LogReg    82.82 LinSVC   83.06  0.0175  0.0004  yes
    online, HAR sitting  20  98.04  97.87 LogReg    88.44 LinSVC   88.22  0.0166  0.0004  yes
    seeds 3-5
    online, HAR sitting  5   96.69  97.07 LinSVC    82.34 SVC      80.01  0.0179  0.0005  no
    online, HAR sitting  10  96.13  97.24 LinSVC    84.71 LinSVC   84.17  0.0175  0.0007  no
    online, HAR sitting  20  96.93  97.36 LinSVC    90.17 LinSVC   89.13  0.0165  0.0006  no

(seeds 3-5 per seed, join against Global: 96.58 / 96.23 / 97.26 against
97.59 / 96.44 / 97.18 at ``k = 5``, 97.95 / 93.37 / 97.07 against 98.03 /
96.54 / 97.14 at ``k = 10``, 98.21 / 95.52 / 97.06 against 98.29 / 96.81 /
96.98 at ``k = 20``; the default's joins on the same fits 95.57 / 96.98 /
96.37 averaged)

(default on seeds 0-2: 97.5 / 97.2 / 97.3, growing.rst).  The joins' bytes
fall from 0.032-0.034 of a refit to 0.017-0.018 (a newcomer receives 561
float64 instead of the 100-point network function), and the refit pays the
solve too.  So on seeds 0-2 (the seeds the design was measured on) the
rows meet the goal; on fresh seeds 3-5 neither the default nor ``"auto"``
reaches pooled Global: ``w' x`` itself, the solve of the squared hinge at
``alpha`` on 50 L-BFGS iterations, scores under pooled LinearSVC /
LogisticRegression there (96.37 / 96.50 / 96.50 averaged), which the gate
(a comparison with the network function only) cannot see.  ``"auto"`` stays
opt-in: +11.5-12.4 % of HAR's fit bytes, no MPI implementation (refused by
name), and the fresh seeds' mixed result.

Why ``w' x`` falls short on seeds 3-5: the solve's cap, not its objective
(``--caps``; ``k = 5``, every newcomer scored as ``w' x``; the cap-50 ``w``
equals the fit's)::

    python benchmarks/online_join_linear_build.py --datasets har --seeds 3,4 --caps 50,100,150,200,1000

    seed  cap 50 (evals)  cap 100        cap 150        cap 200        cap 1000        pooled LinSVC / LogReg
    3     96.58 (57)      97.52 (117)    97.67 (175)    97.59 (234)    97.59 (1010)    97.67 / 97.20
    4     95.43 (59)      96.30 (124)    96.44 (186)    96.52 (248)    96.37 (1057)    96.44 / 95.94

(pooled on the fitted nodes' rows only; the table's Global also sees the
newcomers' ``k`` samples).  At 150 iterations ``w' x`` equals pooled
LinearSVC on both seeds, but the solve's bytes triple (about +37 % of
HAR's fit instead of +12 %); 100 iterations (+25 %) come within 0.15.  A
better-conditioned solve (HAR's 561 features are strongly correlated:
L-BFGS on the raw coordinates is slow) is the lead this points to; not
tried (online25 ran out of time).

online32 (2026-11-29, at 9b22929, load 12-15; the chosen penalty of
online28, a warm-started L-BFGS call no longer asks the nodes again about
its start, the network solve's rounds under drops)::

    python benchmarks/online_join_linear_build.py --datasets har --seeds 3,4,5,0,1,2

    seed  evaluations  gate t  fit bytes x  joins k = 5 / 10 / 20 (default -> auto)
    3     55 (58)      -5.53   1.1212       96.27 / 97.63 / 97.96 -> 97.44 / 98.66 / 98.62
    4     57           -6.87   1.1238       93.83 / 95.88 / 93.78 -> 96.81 / 96.32 / 96.28
    5     56           -7.05   1.1257       96.61 / 97.44 / 97.36 -> 97.33 / 97.14 / 97.13
    0     56           -8.35   1.1283       99.04 / 99.02 / 99.15 -> 99.33 / 99.32 / 99.30
    1     56           -6.29   1.1264       94.40 / 94.32 / 94.37 -> 95.70 / 95.71 / 95.66
    2     56           -5.98   1.1225       99.06 / 98.39 / 98.34 -> 98.48 / 98.53 / 98.49

(seed 3 with the old warm start: 58 evaluations, 434 KB more, 1.1275;
``w`` within 2.3e-12).  The auto joins' means are online28's to the
digit: 97.19 / 97.37 / 97.34 on seeds 3-5, 97.84 / 97.85 / 97.82 on
seeds 0-2.  CPU ratio 0.93-1.03.
"""

import argparse
import copy
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402
import online_join_linear_network as lin  # noqa: E402

from skfed.online import DecentralizedKernelSGDClassifier  # noqa: E402

KS = (5, 10, 20)


def run(name, seed, ks):
    data = lin.load_curved(name, seed) if name in lin.CURVED else nn.load(name, seed)
    X, y, groups, task = data[:4]
    if task != "classification":
        return dict(dataset=name, seed=seed, skipped="regression (join_function is the "
                    "classifier's)")
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    Xf, yf, gf = X[fit_rows], y[fit_rows], groups[fit_rows]
    fits, cpu = {}, {}
    for jf in ("network", "auto"):
        t0 = time.process_time()
        fits[jf] = DecentralizedKernelSGDClassifier(random_state=seed, join_function=jf).fit(
            Xf, yf, groups=gf)
        cpu[jf] = time.process_time() - t0
    auto = fits["auto"]
    gate = auto.network_linear_gate_
    out = dict(dataset=name, seed=seed, kernel=auto.kernel_, n_fitted=len(auto.nodes_),
               d=X.shape[1], gate_t=None if gate is None else [float(v) for v in gate["t"]],
               gate_open=None if gate is None else [bool(v) for v in gate["open"]],
               evaluations=None if gate is None else [int(v) for v in gate["evaluations"]],
               fit_bytes=int(fits["network"].n_bytes_sent_),
               fit_bytes_ratio=float(auto.n_bytes_sent_ / fits["network"].n_bytes_sent_),
               fit_cpu_ratio=float(cpu["auto"] / max(cpu["network"], 1e-9)), rows=[])
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        row = dict(k=k)
        for jf, est in fits.items():
            joined = copy.deepcopy(est)
            joined.add_nodes(X[train], y[train], groups=groups[train])
            pred = joined.predict(X[test], groups=groups[test])
            row[jf] = nn.score(task, y[test], pred)
            row[f"{jf}_bytes"] = int(joined.join_communication_.total_bytes)
            row[f"{jf}_starts"] = joined.join_start_.tolist()
            row[f"{jf}_passes"] = joined.join_passes_.tolist()
        if gate is not None and gate["open"].any():
            # every newcomer scored as w' x (the prototype's measure)
            F = np.asarray(X[test], dtype=np.float64) @ auto.network_linear_coef_[0]
            pred = lin.predict_values(F, auto.classes_)
            row["linear"] = nn.score(task, y[test], pred)
        out["rows"].append(row)
    return out


def caps(name, seed, cap_list, k=5):
    """``w`` re-solved with each L-BFGS cap (the fit's is ``SOLVE_ITERATIONS``
    = 50) on the fitted nodes' rows, every newcomer's test rows scored as
    ``w' x``; pooled LinearSVC / LogisticRegression on the fitted rows."""
    from sklearn.linear_model import LogisticRegression
    from sklearn.svm import LinearSVC

    from skfed.online._coordinates import coordinate_points
    from skfed.online._network_function import NodeSums, solve_weights

    X, y, groups, task = nn.load(name, seed)[:4]
    fit_rows, _, order = nn.split(X, y, groups, seed, None)
    Xf, yf, gf = X[fit_rows], y[fit_rows], groups[fit_rows]
    est = DecentralizedKernelSGDClassifier(random_state=seed, join_function="auto").fit(
        Xf, yf, groups=gf)
    codes = np.searchsorted(est.nodes_, gf)
    d = X.shape[1]
    sums = NodeSums(lin.linear_kernel, est._loss_name(), np.asarray(Xf, dtype=np.float64),
                    est._encode_targets(yf), codes, None, None, est._loss_threshold())
    D = coordinate_points("linear", d)
    _, test = nn.new_node_rows(order, k)
    Xt = np.asarray(X[test], dtype=np.float64)
    out = dict(dataset=name, seed=seed, k=k)
    for cap in cap_list:
        w, evals = solve_weights(np.eye(d), np.zeros((d, est._n_outputs)), float(est.alpha),
                                 lambda A: sums(D, 1.0, A, np.unique(codes)), max_iter=cap)
        if cap == 50:
            out["equals_fit"] = bool(np.allclose(w, est.network_linear_coef_[0]))
        out[f"cap{cap}"] = dict(evaluations=int(evals), score=nn.score(
            task, y[test], lin.predict_values(Xt @ w, est.classes_)))
    for label, model in (("LinearSVC", LinearSVC()),
                         ("LogisticRegression", LogisticRegression(max_iter=1000))):
        out[label] = nn.score(task, y[test], model.fit(Xf, yf).predict(X[test]))
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default=",".join(map(str, KS)))
    parser.add_argument("--out", default=None)
    parser.add_argument("--caps", default=None,
                        help="e.g. 50,100,200: re-solve w with these L-BFGS caps instead")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    if args.caps:
        for name in args.datasets.split(","):
            for seed in (int(s) for s in args.seeds.split(",")):
                print(json.dumps(caps(name, seed, [int(c) for c in args.caps.split(",")])),
                      flush=True)
        return
    results = []
    for name in args.datasets.split(","):
        for seed in (int(s) for s in args.seeds.split(",")):
            res = run(name, seed, ks)
            results.append(res)
            print(json.dumps(res), flush=True)
            if args.out:
                with open(args.out, "w") as fh:
                    fh.writelines(json.dumps(r) + "\n" for r in results)
    for name in args.datasets.split(","):
        part = [r for r in results if r["dataset"] == name and "rows" in r]
        if not part:
            continue
        ts = [t for r in part for t in (r["gate_t"] or [])]
        print(f"{name}: kernel {sorted({r['kernel'] for r in part})}, gate t "
              f"{', '.join(f'{t:+.1f}' for t in ts) or 'not run'}, fit bytes x "
              f"{np.mean([r['fit_bytes_ratio'] for r in part]):.3f}")
        for k in ks:
            rows = [row for r in part for row in r["rows"] if row["k"] == k]
            print(f"  k={k:2d}  network {np.mean([r['network'] for r in rows]):.2f}  auto "
                  f"{np.mean([r['auto'] for r in rows]):.2f}")


if __name__ == "__main__":
    main()
