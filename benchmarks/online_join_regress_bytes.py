"""The online regressor's join bytes on School when its candidates stop
sending two unused scale sums (split28, issue 32).

Since online26 a regressor's newcomer takes a network function that the
fit's solve kept at scale 1 and reads only ``sum w`` of the three sums its
candidates add to their answers; split28 stops sending ``sum w f0 y`` and
``sum w f0^2`` for such a function (16 bytes per answer, see
``skfed/online/_join_regress.py``).  On new_nodes.py's School splits (80 %
fitted, 20 % new, ``k`` samples per newcomer) this fits
:class:`~skfed.online.DecentralizedKernelSGDRegressor` at its defaults once
per seed (pickled under ``--cache``), then joins the newcomers with the code
on ``PYTHONPATH`` and prints one JSON line per (seed, k): R^2 x 100 of the
join on the newcomers' other samples, the join's bytes, whether the fit's
solve was kept and the candidates' answers.  Run it once with each code
and compare::

    PYTHONPATH=/work/wt/split28 python benchmarks/online_join_regress_bytes.py \
        --cache /tmp/school_fits --label split28
    PYTHONPATH=/path/to/main python benchmarks/online_join_regress_bytes.py \
        --cache /tmp/school_fits --label main

Measured (2026-11-29, seeds 0-2, k = 5 / 10 / 20; every fit's solve kept;
28 newcomers, 10 candidates each: 280 answers a join)::

    seed   R^2 x 100 k = 5 / 10 / 20     join bytes main -> split28
       0   34.13 / 35.06 / 35.84          426,360 -> 421,880
       1   31.30 / 31.16 / 31.00          417,996 -> 413,516
       2   30.99 / 32.29 / 35.32          422,612 -> 418,132

i.e. 4,480 = 16 x 280 bytes less per join (1.05 %), the same for every k
(the candidates answer the same queries); the scores and the sums of the
predictions are the same at main and here to every printed digit (the
start and the prior do not change).  The refit's bytes and every other
column of new_nodes.py's School row are unchanged.
"""

import argparse
import copy
import json
import os
import pickle
import sys
import warnings

import numpy as np
from sklearn.metrics import r2_score

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from new_nodes import load, new_node_rows, split  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--cache", required=True, help="directory of the pickled fits")
    parser.add_argument("--label", default="")
    args = parser.parse_args()
    from skfed.online import DecentralizedKernelSGDRegressor

    os.makedirs(args.cache, exist_ok=True)
    X, y, groups, _ = load("school", 0)
    for seed in map(int, args.seeds.split(",")):
        fit_rows, _, order = split(X, y, groups, seed)
        path = os.path.join(args.cache, f"school_{seed}.pkl")
        if os.path.exists(path):
            with open(path, "rb") as handle:
                base = pickle.load(handle)
        else:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                base = DecentralizedKernelSGDRegressor(kernel="auto", random_state=seed).fit(
                    X[fit_rows], y[fit_rows], groups=groups[fit_rows])
            with open(path, "wb") as handle:
                pickle.dump(base, handle)
        for k in map(int, args.ks.split(",")):
            train, test = new_node_rows(order, k)
            joined = copy.deepcopy(base)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                joined.add_nodes(X[train], y[train], groups=groups[train])
            pred = joined.predict(X[test], groups=groups[test])
            print(json.dumps(dict(
                label=args.label, seed=seed, k=k,
                join=round(100 * r2_score(y[test], pred), 6),
                join_bytes=int(joined.join_communication_.total_bytes),
                solved=[bool(s) for s in getattr(base, "_network_solved", [])],
                pred_sum=float(np.sum(pred)),
            )), flush=True)


if __name__ == "__main__":
    main()
