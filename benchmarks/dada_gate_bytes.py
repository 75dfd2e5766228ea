"""Dada's default feature-mean gate: its bytes against the fit's, its t on
every family, and how often it opens where it should not (issue 32, dada25).

Dada at its defaults (``join_neighbours="auto"``) on the fitted nodes of
``new_nodes.py``'s splits (80 % of the nodes); one line per (data set, seed):
the gate's ``t``, whether it opened, its bytes (``newcomer_gate_["n_bytes"]``)
and their share of the fit's other bytes.  ``--null N``: N federations whose
feature means say nothing (``new_nodes_persolin_mean_neighbours.py``'s
``conflicting_clusters``: one input distribution, two opposite label rules,
18 nodes of 6-15 rows; ``--null-big``: 40 nodes of 20-59), the share of fits
whose gate opens.

    python benchmarks/dada_gate_bytes.py --datasets landmine,har,moons,related --seeds 0,1,2
    python benchmarks/dada_gate_bytes.py --null 200
    python benchmarks/dada_gate_bytes.py --null 100 --null-big

Results (2026-11-29, dada25; the gate of skfed/boosting/_dada_gate.py, share
= gate bytes over the fit's other bytes)::

    landmine        23 nodes  t 5.30 / 3.36 / 6.45  open    share 0.020 / 0.022 / 0.021
    har             17 nodes  t -0.12 / -1.93 / 0.96 closed share 0.047 / 0.045 / 0.045
    moons           80 nodes  t 0.72 / 0.70 / 0.30  closed  share 0.017
    related-alike   80 nodes  t -2.67 .. -3.43      closed  share 0.015-0.016
    related-clust.  80 nodes  t -3.06 .. -1.71      closed  share 0.016
    related-small  200 nodes  t -5.15 .. 0.66       closed  share 0.008
    related-wide    80 nodes  t -8.96 .. -1.16      closed  share 0.020-0.021
    related-narrow  80 nodes  t -3.55 .. -0.14      closed  share 0.014-0.015
    null, 18 nodes of 6-15 rows, 200 fits: t > 2 4.5 %, > 3 1.5 %, > 3.5 1.0 %
    null, 40 nodes of 20-59 rows, 100 fits: t > 2 2.0 %, > 3 1.0 %

With the shared gate's dense float64 sums and means (dada18) the shares
were Landmine 0.041 and HAR 0.218 (seed 0: 104 kB and 366 kB of gate).

In percent (docs38, 2026-11-30, read off the table above, nothing re-run):
the gate costs 1.7-4.7 % of a Dada fit's bytes on ``new_nodes.py``'s data
sets (moons 1.7, Landmine 2.0-2.2, HAR 4.5-4.7) and 0.8-2.1 % on the
related-* families; doc/user_guide/growing.rst quotes the first range.
"""

import argparse
import json
import warnings

import new_nodes as nn
import numpy as np
from new_nodes_persolin_mean_neighbours import conflicting_clusters
from threadpoolctl import threadpool_limits


def gate_row(name, seed):
    data = nn.load(name, seed)
    X, y, groups = data[:3]
    extra = data[4] if len(data) > 4 else None
    fit_rows, _, _ = nn.split(X, y, groups, seed, extra)
    est = nn.make_estimator("dada", "classification", seed)
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    gate = est.newcomer_gate_ or {}
    n_bytes = int(gate.get("n_bytes", 0))
    return dict(dataset=name, seed=seed, n_nodes=len(est.nodes_), t=round(float(gate.get("t", np.nan)), 2),
                open=bool(gate.get("open", False)), gate_bytes=n_bytes,
                fit_bytes=int(est.n_bytes_sent_),
                share=round(n_bytes / max(1, est.n_bytes_sent_ - n_bytes), 4))


def null_rates(n_seeds, big=False):
    from skfed.boosting import DecentralizedBoostingClassifier

    ts = []
    for seed in range(n_seeds):
        X, y, g = conflicting_clusters(seed, 40, (20, 60)) if big else conflicting_clusters(seed)
        est = DecentralizedBoostingClassifier(random_state=0).fit(X, y, groups=g)
        ts.append(est.newcomer_gate_["t"])
    ts = np.asarray(ts)
    print(f"null ({'40 nodes of 20-59' if big else '18 nodes of 6-15'} rows, {n_seeds} seeds): "
          + ", ".join(f"t > {th}: {100 * np.mean(ts > th):.1f} %" for th in (2, 2.5, 3, 3.5))
          + f"; t quantiles 50/95/99 %: {np.round(np.quantile(ts, [.5, .95, .99]), 2)}",
          flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--datasets", default="landmine,har,moons,related")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--null", type=int, default=0)
    parser.add_argument("--null-big", action="store_true")
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    with threadpool_limits(1):
        if args.null:
            null_rates(args.null, args.null_big)
            return
        names = []
        for name in args.datasets.split(","):
            names += list(nn.RELATED) if name == "related" else [name]
        for name in names:
            for seed in [int(s) for s in args.seeds.split(",")]:
                print(json.dumps(gate_row(name, seed)), flush=True)


if __name__ == "__main__":
    main()
