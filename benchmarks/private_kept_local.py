"""Which candidate a private node's kept model must beat: the collaborative model or Local's.

A private node keeps, among its collaborative kept model and the models it
trains alone (LinearSVC, SVC, LogisticRegression on its raw features,
:mod:`skfed._kept_local`), the one of lowest cross-validated error on its
own samples when it beats a reference candidate by one standard error, else
the reference.  This compares the two references on the rows of
``privacy_utility.py`` (accuracy pooled over the test samples, at the
given epsilons):

* ``collaborative``: the collaborative kept model is the reference (the
  default: a node leaves what it learned with the others only on evidence);
* ``LogisticRegression``: the node's LogisticRegression alone is.

Usage::

    OPENBLAS_NUM_THREADS=1 python benchmarks/private_kept_local.py \
        --only dada-computer mocha-school --seeds 0 1 2

Measured: see the privacy user guide ("The kept model").
"""

import argparse
import json
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import privacy_utility as pu  # noqa: E402

from skfed import _kept_local  # noqa: E402

REFERENCES = ("collaborative", "LogisticRegression")


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--only", nargs="+", choices=sorted(pu.ROWS),
                        default=["dada-moons", "dada-computer", "persolin-moons",
                                 "persolin-computer", "mocha-school", "mocha-har"])
    parser.add_argument("--epsilons", type=float, nargs="+", default=[3.0])
    args = parser.parse_args(argv)
    table = {}
    for name in args.only:
        row = {"local": float(np.mean([pu.ROWS[name](pu.LOCAL, s) for s in args.seeds]))}
        for reference in REFERENCES:
            _kept_local.REFERENCE = reference
            for eps in args.epsilons:
                pu.LOCAL_KEPT.clear()
                row[f"{reference} eps={eps:g}"] = float(
                    np.mean([pu.ROWS[name](eps, s) for s in args.seeds]))
                row[f"{reference} eps={eps:g} kept alone"] = float(
                    np.mean(pu.LOCAL_KEPT)) if pu.LOCAL_KEPT else float("nan")
        _kept_local.REFERENCE = "collaborative"
        table[name] = row
        print(f"{name:18s} " + "  ".join(f"{k} {v:.3f}" for k, v in row.items()),
              file=sys.stderr, flush=True)
    print(json.dumps({"seeds": args.seeds, "table": table}))


if __name__ == "__main__":
    main()
