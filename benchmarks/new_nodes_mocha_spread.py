"""Prototype harness (commit of the not-kept spread prior; see
benchmarks/new_nodes_mocha_scales.py's docstring): MOCHA joins on the splits of
benchmarks/new_nodes.py with SKFED_PROTO_SPREAD unset (main) and set.

    python benchmarks/new_nodes_mocha_spread.py moons 0,1,2 ",1e-2,loo"

(variants: "" = the default join; a number = the spread prior with that floor
of the relative variance, chosen against the isotropic prior by the
rehearsal; "loo" = floor 1e-2 with each rehearsing node's own part left out
of the spread it rehearses with.)
"""
import copy
import os
import sys
import warnings

import new_nodes as nn
import numpy as np

warnings.filterwarnings("ignore")


def main():
    name = sys.argv[1]
    seeds = [int(s) for s in sys.argv[2].split(",")]
    variants = sys.argv[3].split(",")
    res = {}
    for seed in seeds:
        data = nn.load(name, seed)
        X, y, g, task = data[:4]
        extra = data[4] if len(data) > 4 else None
        fit_rows, new, order = nn.split(X, y, g, seed, extra)
        est = nn.make_estimator("mocha", task, seed).fit(X[fit_rows], y[fit_rows], groups=g[fit_rows])
        for k in (5, 10, 20):
            tr, te = nn.new_node_rows(order, k)
            for v in variants:
                os.environ.pop("SKFED_PROTO_LOO", None)
                if v == "loo":
                    os.environ["SKFED_PROTO_SPREAD"] = "1e-2"
                    os.environ["SKFED_PROTO_LOO"] = "1"
                elif v:
                    os.environ["SKFED_PROTO_SPREAD"] = v
                else:
                    os.environ.pop("SKFED_PROTO_SPREAD", None)
                j = copy.deepcopy(est)
                j.add_nodes(X[tr], y[tr], groups=g[tr])
                sc = nn.score(task, y[te], j.predict(X[te], groups=g[te]))
                r = j._join_rehearsal
                picks = r.scales(np.array([k]))[0][0] if r is not None else None
                res[(v, seed, k)] = sc
                print(f"seed {seed} k {k} variant {v or 'main':8s} {sc:.3f} scale {picks} "
                      f"shape {getattr(r, 'shape_of', None)}", flush=True)
    for v in variants:
        print(f"{v or 'main':8s}", " / ".join(
            f"{np.mean([res[(v, s, k)] for s in seeds]):.2f}" for k in (5, 10, 20)))


if __name__ == "__main__":
    main()
