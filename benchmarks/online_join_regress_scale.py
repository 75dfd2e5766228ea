"""Online regressor's join: a solved network function taken at scale 1.

online26 (issue 32).  A regressor's newcomer that starts from the network
function scales it by least squares over its candidates' scale sums
(``skfed/online/_join.py``, the ``_JOIN_PRIOR`` comment): a mean of the
nodes' functions is shrunk.  Since 81200ff (the exact linear/affine network
function) School's fits keep the network solve (``_network_solved``), whose
function is the least-squares function of every node's rows, not a mean;
the candidates' factor (0.87-1.21 on School) then only refits it on a few
nodes' rows, and School's joins fell 0.6-0.8.  The join now takes a solved
network function at scale 1 (``rescaled``: the rule before, got here by
clearing ``_network_solved`` on a copy of the same fit; ``at 1``: the
package).  The script fits the default estimator once per data set and seed
(``new_nodes.py``'s split and newcomers; the held-out regressions as
``online_regressor_solve.py`` pools them), joins both ways and prints R^2 x
100 at every ``k``, the bytes (equal: the candidates still send their three
sums, the prior's weight is one of them) and whether the fit kept the
solve::

    PYTHONPATH=. python benchmarks/online_join_regress_scale.py \
        --datasets school,alike-regression,nonlinear-regression,heavy-tailed-regression,outlier-regression \
        --seeds 0,1,2

Measured (online26, 2026-11-29, branch from main 492830f; means over seeds,
``k = 5 / 10 / 20``, rescaled -> at 1; see the report table below, filled
from the command above and again with ``--seeds 3,4,5``).
"""

import argparse
import copy
import json
import os
import sys
import warnings

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import new_nodes as nn  # noqa: E402
from online_regressor_solve import _data  # noqa: E402

WAYS = ("rescaled", "at1")


def run(name, seed, ks):
    data = _data(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    est = nn.make_estimator("online", task, seed)
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    out = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        row = {"dataset": name, "seed": seed, "k": k,
               "solved": est._network_solved.tolist()}
        for way in WAYS:
            joined = copy.deepcopy(est)
            if way == "rescaled":
                joined._network_solved = np.zeros_like(joined._network_solved)
            joined.add_nodes(X[train], y[train], groups=groups[train])
            row[way] = round(nn.score(task, y[test],
                                            joined.predict(X[test], groups=groups[test])), 3)
            row[way + "_bytes"] = int(joined.join_communication_.total_bytes)
        print(json.dumps(row), flush=True)
        out.append(row)
    return out


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="school")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    args = parser.parse_args()
    ks = [int(k) for k in args.ks.split(",")]
    rows = []
    with threadpool_limits(1), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name in args.datasets.split(","):
            for s in args.seeds.split(","):
                rows += run(name, int(s), ks)
    for name in args.datasets.split(","):
        sel = [r for r in rows if r["dataset"] == name]
        cells = {w: " / ".join(f"{np.mean([r[w] for r in sel if r['k'] == k]):.2f}" for k in ks)
                 for w in WAYS}
        print(f"{name}: rescaled {cells['rescaled']}  at 1 {cells['at1']}", flush=True)


if __name__ == "__main__":
    main()
