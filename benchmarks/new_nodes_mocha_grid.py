"""MOCHA joins under variants of the rehearsal's rule, on the splits of ``new_nodes.py``.

Each data set and seed is fitted once (MOCHA at its defaults); every
variant then joins a copy of the fitted estimator (the rehearsal is lazy:
a variant's constants are read when its join rehearses).  Variants
(``--variants``):

* ``default``: the package as it is;
* ``up16``: the scales ``(1, 4, 1/4, 1/16, 0, 16)`` (one scale above 4);
* ``up64``: ``(1, 4, 1/4, 1/16, 0, 16, 64)``;
* ``default4``: the scales ``(4, 1, 1/4, 1/16, 0)``: 4 the scale kept
  without evidence (the first; 1 now needs one standard error like the
  others); ``default4up16``: ``(4, 1, 16, 1/4, 1/16, 0)``;
* ``centre2`` / ``centre15``: the centre rule at 2 / 1.5 standard errors
  (``CENTRE_EVIDENCE``);
* ``leave``: each rehearsing node solves toward the fitted ``w_0`` minus its
  estimated own part (``w_0 - v_t / H``, ``H = lambda m / b_w + (m - 1)
  min(1, n / (m d')) mu``: the no-message leave-out of commit befc140, here
  patched into a copy of ``Rehearsal._solve``); ``leave16``: with ``up16``'s
  scales too.

Prints one JSON row per data set, seed, ``k`` and variant (join accuracy,
R^2 x 100 on School; ``join_bytes``, no refit), then means over the seeds
with Global and Local (best mean of the standard baselines).  ``--loss``
sets the classifier's loss.  The results are in
``new_nodes_mocha_seeds.py``'s docstring.

    python benchmarks/new_nodes_mocha_grid.py --datasets har,moons --seeds 0,1,2,3,4,5,6,7,8
"""

import argparse
import copy
import inspect
import json
import textwrap
import warnings

import new_nodes as nn
import numpy as np
from sklearn.exceptions import ConvergenceWarning
from threadpoolctl import threadpool_limits

from skfed.multitask import _rehearsal

VARIANTS = {
    "default": {},
    "up16": {"REHEARSAL_SCALES": (1.0, 4.0, 0.25, 1.0 / 16, 0.0, 16.0)},
    "up64": {"REHEARSAL_SCALES": (1.0, 4.0, 0.25, 1.0 / 16, 0.0, 16.0, 64.0)},
    "centre2": {"CENTRE_EVIDENCE": 2.0},
    "centre15": {"CENTRE_EVIDENCE": 1.5},
    "default4": {"REHEARSAL_SCALES": (4.0, 1.0, 0.25, 1.0 / 16, 0.0)},
    "default4up16": {"REHEARSAL_SCALES": (4.0, 1.0, 16.0, 0.25, 1.0 / 16, 0.0)},
    "leave": {"_M25_LEAVE_OUT": True},
    "leave16": {"_M25_LEAVE_OUT": True,
                "REHEARSAL_SCALES": (1.0, 4.0, 0.25, 1.0 / 16, 0.0, 16.0)},
}

# the held-out big-node families of new_nodes_mocha_centre_heldout.py
nn.RELATED.setdefault("related-clustered-big",
                      {"n_nodes": 40, "structure": "clustered", "n_samples_per_node": 150})
nn.RELATED.setdefault("related-alike-big",
                      {"n_nodes": 40, "structure": "shared", "n_samples_per_node": 150})

_rehearsal._M25_LEAVE_OUT = False
_original_init = _rehearsal.Rehearsal.__init__


def _init(self, est, nodes, lam):
    """The original, then every rehearsing node's estimate of its own part of
    ``w_0`` (befc140's ``_own_part``)."""
    _original_init(self, est, nodes, lam)
    m = nodes.layout.n_nodes
    b = float(est.shared_weight_)
    b_w = float((getattr(est, "share_selection_", None) or {}).get("shared_part_share", b))
    n_mean = float(nodes.layout.offsets[-1]) / m
    curvature = lam * m / b_w + (m - 1) * min(1.0, n_mean / nodes.d) * float(nodes.mu)
    V = np.asarray(nodes.V, dtype=np.float64)
    self._m25_shift = {t: V[:, t] / curvature for t in self.rows}


def _centres(self, w0, owners, n_new):
    if _rehearsal._M25_LEAVE_OUT and w0 is self.w0:
        return np.ascontiguousarray(np.stack([w0 - self._m25_shift[int(t)] for t in owners], axis=1))
    return np.repeat(w0[:, None, :], n_new, axis=1)


_source = inspect.getsource(_rehearsal.Rehearsal._solve)
_marker = "M = np.repeat(w0[:, None, :], n_new, axis=1)"
assert _marker in _source
_source = textwrap.dedent(_source).replace(_marker, "M = _m25_centres(self, w0, owners, n_new)")
_rehearsal._m25_centres = _centres
_namespace = vars(_rehearsal)  # (its constants read at call time, as the original's)
_original_solve = _rehearsal.Rehearsal._solve
exec(compile(_source, "<patched _solve>", "exec"), _namespace)
_rehearsal.Rehearsal.__init__ = _init
_rehearsal.Rehearsal._solve = _namespace["_solve"]


def join_variant(est, variant, Xk, yk, gk):
    saved = {name: getattr(_rehearsal, name) for name in VARIANTS[variant]}
    joined = copy.deepcopy(est)
    try:
        for name, value in VARIANTS[variant].items():
            setattr(_rehearsal, name, value)
        joined.add_nodes(Xk, yk, groups=gk)
    finally:
        for name, value in saved.items():
            setattr(_rehearsal, name, value)
    log = getattr(joined, "join_communication_", None)
    return joined, 0 if log is None else int(log.total_bytes)


LOSS = None  # --loss (None: the estimator's default)


def run(name, seed, ks, variants, out):
    data = nn.load(name, seed)
    X, y, groups, task = data[:4]
    extra = data[4] if len(data) > 4 else None
    fit_rows, new, order = nn.split(X, y, groups, seed, extra)
    est = nn.make_estimator("mocha", task, seed)
    if LOSS is not None:
        est.set_params(loss=LOSS)
    est.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    rows = []
    for k in ks:
        train, test = nn.new_node_rows(order, k)
        Xk, yk, gk = X[train], y[train], groups[train]
        Xt, yt, gt = X[test], y[test], groups[test]
        pooled, local = nn.baselines(task, X, y, groups, fit_rows, train, test, k)
        for v in variants:
            joined, sent = join_variant(est, v, Xk, yk, gk)
            row = {"dataset": name, "seed": seed, "k": k, "variant": v,
                   "join": nn.score(task, yt, joined.predict(Xt, groups=gt)),
                   "join_bytes": sent, "pooled": pooled, "locals": local}
            print(json.dumps({key: (round(val, 3) if isinstance(val, float) else val)
                              for key, val in row.items() if key not in ("pooled", "locals")}),
                  flush=True)
            rows.append(row)
            if out:
                with open(out, "a") as fh:
                    fh.write(json.dumps(row) + "\n")
    return rows


def summarize(rows, variants):
    for name in sorted({r["dataset"] for r in rows}):
        for k in sorted({r["k"] for r in rows if r["dataset"] == name}):
            here = [r for r in rows if r["dataset"] == name and r["k"] == k]
            first = [r for r in here if r["variant"] == variants[0]]
            glob = max(np.mean([r["pooled"][b] for r in first]) for b in first[0]["pooled"])
            loc = max(np.mean([r["locals"][b] for r in first]) for b in first[0]["locals"])
            means = "  ".join(f"{v} {np.mean([r['join'] for r in here if r['variant'] == v]):.2f}"
                              for v in variants)
            print(f"{name} k={k} seeds={len(first)}: {means}  Global {glob:.2f}  Local {loc:.2f}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--datasets", default="har,moons")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default="default,up16,up64")
    parser.add_argument("--out", default=None)
    parser.add_argument("--loss", default=None, help="the MOCHA classifier's loss (default: its own)")
    args = parser.parse_args()
    global LOSS
    LOSS = args.loss
    warnings.simplefilter("ignore", ConvergenceWarning)
    variants = args.variants.split(",")
    rows = []
    with threadpool_limits(1):
        for name in args.datasets.split(","):
            for seed in map(int, args.seeds.split(",")):
                rows += run(name, seed, [int(k) for k in args.ks.split(",")], variants, args.out)
    summarize(rows, variants)


if __name__ == "__main__":
    main()
