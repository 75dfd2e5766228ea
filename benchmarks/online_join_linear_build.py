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

Measured: see ``RESULTS`` below (filled by online25, 2026-11-29).
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


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default=",".join(map(str, KS)))
    parser.add_argument("--out", default=None)
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
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
