"""Cheaper shared newcomer models for Perso-lin that did not work: averages and DANE.

``join_neighbours="shared"`` (:mod:`skfed.boosting._perso_lin_shared`)
solves one logistic model ``S`` at a hub by L-BFGS, one exchange with
every fitted node per evaluation.  Before persolin32 that was 50
evaluations on the kept rows and 10 on every row: 15.8 % of a HAR fit's
bytes in float32.  This script tried two cheaper estimates of ``S``, each
replacing the library's ``solve_shared`` for the run:

* ``avg g`` / ``avg l``: every node solves its own share of the objective
  on its own rows (local computation)::

      min_s (1 / m_k) sum_i s_i log(1 + exp(-y_i s . z_i)) + (beta / 2) ||s_w||^2

  (``g``: ``beta = 1 / M``, the node's share of the shared objective;
  ``l``: ``beta = 1 / m_k``, scikit-learn's ``C = 1`` on its rows alone),
  sends ``s_k`` once (``P n_base`` float32); ``S`` is the mass-weighted
  mean, sent back to every node for the gate;
* ``dane T mu``: ``T`` iterations of DANE (the hub sends ``S``, every node
  its gradient sums, the hub the global gradient, every node its solve of
  ``f_k(s) - (grad f_k(S) - grad f(S)).s + (mu / 2) ||s - S||^2``, averaged
  by mass), ``mu`` a multiple of the mean Jacobi curvature.

Each variant re-runs only the end of the fit (its state captured once per
seed and data set), then joins the newcomers at ``k = 5, 10, 20``.  Printed
per data set: the gate's ``t``, the shared rule's bytes (a 16-byte header
per message) over the fit's (``cost``), the newcomers' accuracy (%, mean
over seeds) and the rules::

    python benchmarks/persolin_shared_oneshot.py --datasets har --seeds 0

Measured on 2026-11-29 (persolin32, main 8354eb6 whose solve was Jacobi
L-BFGS 50 + 10, shown as ``built``; load 7-10), HAR seed 0::

    variant          t      cost    k=5      k=10     k=20
    built 50+10       7.49  0.1489    99.41    99.40    99.38  shared
    avg g            -1.58  0.0025    95.71    96.25    96.37  posterior
    avg l            -3.44  0.0025    95.71    96.25    96.37  posterior
    dane 3+1 mu1     -6.80  0.0171    95.71    96.25    96.37  posterior
    dane 5+2 mu1     -4.57  0.0269    95.71    96.25    96.37  posterior
    dane 3+1 mu.1    -8.84  0.0171    95.71    96.25    96.37  posterior
    dane 5+2 mu.1    -6.43  0.0269    95.71    96.25    96.37  posterior
    dane 5+2 mu.01   -7.72  0.0269    95.71    96.25    96.37  posterior

(``+1`` / ``+2``: DANE iterations of the second solve on every row, which
the library no longer runs.)  Neither opens the gate: a HAR person's 300
rows in 561 features do not determine its share, so the average is far
from ``S``, and DANE's local solves overshoot for the same reason.  What
was built instead is a Nystrom sketch preconditioner for the hub's L-BFGS
(``benchmarks/persolin_shared_cost.py``).  Since then ``built`` is that
solve and the DANE variants run one solve (``T``) only.
"""

import argparse
import copy
import os
import sys
import warnings

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import new_nodes  # noqa: E402

from skfed.boosting import _perso_lin, _perso_lin_shared as shared  # noqa: E402
from skfed.boosting._perso_lin_posterior import newcomer_blocks  # noqa: E402

HEADER = 16
_CAPTURED = {}
_ORIGINAL_RULE = shared.fit_newcomer_rule


def _capture(est, state, simulation, spec):
    _CAPTURED["args"] = (copy.deepcopy(est), state, simulation, spec)
    return _ORIGINAL_RULE(est, state, simulation, spec)


def local_models(Z, Y, sw, offsets, keep, n_pen, beta):
    """Every node's minimizer of its share (see the module), ``(n, P, nb)``,
    and its kept mass; Newton in the samples' space (``newcomer_blocks``)."""
    n = len(offsets) - 1
    Zp, Yp, Wp = _padded(Z, Y, sw, offsets, keep)
    P, nb = Yp.shape[1], Zp.shape[2]
    mass = Wp.sum(axis=1)
    Wn = Wp / np.maximum(mass, 1e-300)[:, None]
    M = mass.sum()
    out = np.zeros((n, P, nb))
    for k in range(n):  # one node at a time (memory: n x width x width)
        if mass[k] <= 0:
            continue
        b = 1.0 / M if beta == "g" else 1.0 / mass[k]
        out[k] = newcomer_blocks(Zp[k:k + 1], Yp[k:k + 1], Wn[k:k + 1], np.zeros((1, P, nb)),
                                 np.ones(1), b, 1e-8, n_pen, "logistic")[0]
    return out, mass


def _padded(Z, Y, sw, offsets, keep):
    Z = np.asarray(Z, dtype=np.float64)
    Y = np.asarray(Y, dtype=np.float64)
    w = np.where(keep, np.asarray(sw, dtype=np.float64), 0.0)
    counts = np.diff(offsets)
    width = int(counts.max())
    pos = np.arange(width)[None, :]
    pad = pos < counts[:, None]
    idx = np.where(pad, np.asarray(offsets[:-1])[:, None] + pos, 0)
    Zp = np.where(pad[..., None], Z[idx], 0.0)
    Yp = np.where(pad[:, None, :], Y[:, idx].transpose(1, 0, 2), 1.0)
    Wp = np.where(pad, w[idx], 0.0)
    return Zp, Yp, Wp


def dane(Z, Y, sw, offsets, keep, sim, n_pen, iters, mu_rel):
    """DANE on the shared objective: per iteration the hub sends ``S``, every
    node its gradient sums, the hub the global gradient, every node its
    solve of ``f_k(s) - (grad f_k(S) - grad f(S)).s + (mu / 2) ||s - S||^2``
    (its share ``f_k``, Newton in its samples' space), averaged by mass."""
    n = len(offsets) - 1
    Zp, Yp, Wp = _padded(Z, Y, sw, offsets, keep)
    P, nb = Yp.shape[1], Zp.shape[2]
    rest, hub = np.arange(1, n, dtype=np.intp), np.zeros(n - 1, dtype=np.intp)
    # scaling round: masses and sums of squares (nb + 1 float32), as the module's
    shared._deliver(sim, rest, hub, np.full(n - 1, shared.payload_bytes(n_float32=nb + 1)))
    mass = Wp.sum(axis=1)
    M = mass.sum()
    lam = 1.0 / M
    curv = 0.25 * np.einsum("nk,nkd->d", Wp, Zp * Zp) / M
    mu = mu_rel * float(curv.mean())
    Wn = Wp / np.maximum(mass, 1e-300)[:, None]
    frac = mass / M
    down = shared.payload_bytes(n_float32=P * nb)
    up = shared.payload_bytes(n_float32=P * (nb + 1))
    S = np.zeros((P, nb))
    live = mass > 0
    for _ in range(iters):
        shared._deliver(sim, hub, rest, np.full(n - 1, down))
        S = shared._sent(S)
        margins = Yp * np.einsum("nkd,pd->npk", Zp, S)
        slope = -1.0 / (1.0 + np.exp(np.clip(margins, -500, 500)))
        gsum = shared._sent(np.einsum("npk,nkd->npd", Wp[:, None, :] * Yp * slope, Zp))
        shared._deliver(sim, rest, hub, np.full(n - 1, up))
        reg = np.zeros((P, nb))
        reg[:, :n_pen] = lam * S[:, :n_pen]
        g = gsum.sum(axis=0) / M + reg
        shared._deliver(sim, hub, rest, np.full(n - 1, down))
        g = shared._sent(g)
        gk = gsum / np.maximum(mass, 1e-300)[:, None, None] + reg
        U = S[None] + (gk - g[None]) / mu
        sk = newcomer_blocks(Zp[live], Yp[live], Wn[live], U[live], np.ones(live.sum()), lam,
                             mu, n_pen, "logistic")
        sk = shared._sent(sk)
        shared._deliver(sim, rest, hub, np.full(n - 1, down))
        S = np.tensordot(frac[live], sk, axes=1)
    shared._deliver(sim, hub, rest, np.full(n - 1, down))  # the last S to the nodes
    return S, 2 * iters


def make_dane(iters, mu_rel):
    def solve(Z, Y, sw, offsets, keep, sim, n_pen, rounds=None):
        return dane(Z, Y, sw, offsets, keep, sim, n_pen, iters, mu_rel)

    return solve


def make_solve(beta):
    """A ``solve_shared`` replacement: the mass-weighted mean of the nodes'
    own solves (see the module)."""

    def solve(Z, Y, sw, offsets, keep, sim, n_pen, rounds=None):
        n = len(offsets) - 1
        rest, hub = np.arange(1, n, dtype=np.intp), np.zeros(n - 1, dtype=np.intp)
        P, nb = np.asarray(Y).shape[0], np.asarray(Z).shape[1]
        message = shared.payload_bytes(n_float32=P * nb)
        models, mass = local_models(Z, Y, sw, offsets, keep, n_pen, beta)
        models = shared._sent(models)
        shared._deliver(sim, rest, hub, np.full(n - 1, message))
        shared._deliver(sim, hub, rest, np.full(n - 1, message))  # S to the nodes
        return np.tensordot(mass / mass.sum(), models, axes=1), 0

    return solve


def variant(spec):
    est, state, simulation, fspec = _CAPTURED["args"]
    est = copy.deepcopy(est)  # (the state and simulation are reused: the cost is counted here)
    fit_bytes = est.n_bytes_sent_
    saved = (shared.solve_shared, shared._deliver)
    sent = [0]

    def deliver(sim, src, dst, nbytes):
        nbytes = np.asarray(nbytes)
        sent[0] += int(nbytes.sum()) + HEADER * len(nbytes)
        return saved[1](sim, src, dst, nbytes)

    shared._deliver = deliver
    if spec is not None and spec[0] == "dane":
        shared.solve_shared = make_dane(*spec[1:])
    elif spec is not None:
        shared.solve_shared = make_solve(spec[0])
    try:
        _ORIGINAL_RULE(est, state, simulation, fspec)
    finally:
        shared.solve_shared, shared._deliver = saved
    return est, sent[0] / fit_bytes


def one(dataset, seed, ks, variants):
    data = new_nodes.load(dataset, seed)
    X, y, groups, task = data[:4]
    fit_rows, _, order = new_nodes.split(X, y, groups, seed, data[4] if len(data) > 4 else None)
    _perso_lin.fit_newcomer_rule = _capture
    try:
        base = new_nodes.make_estimator("persolin", task, seed)
        base.set_params(join_neighbours="shared")
        base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    finally:
        _perso_lin.fit_newcomer_rule = _ORIGINAL_RULE
    out = {}
    for name in variants:
        est, cost = variant(VARIANTS[name])
        gate = est.newcomer_gate_ or {}
        row = {"t": gate.get("t", np.nan), "cost": cost, "rule": est.newcomer_rule_}
        for k in ks:
            train, test = new_nodes.new_node_rows(order, k)
            joined = copy.deepcopy(est)
            joined.add_nodes(X[train], y[train], groups=groups[train])
            row[k] = 100 * joined.score(X[test], y[test], groups=groups[test])
        out[name] = row
        print(dataset, seed, name, {k: (round(v, 4) if isinstance(v, float) else v)
                                    for k, v in row.items()}, flush=True)
    return out


VARIANTS = {  # name: ("dane", T, mu) or (beta,), None for the library's solve
    "built": None,
    "avg g": ("g",),
    "avg l": ("l",),
    "dane 3 mu1": ("dane", 3, 1.0),
    "dane 5 mu1": ("dane", 5, 1.0),
    "dane 5 mu.1": ("dane", 5, 0.1),
}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--datasets", default="har")
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--ks", default="5,10,20")
    parser.add_argument("--variants", default=",".join(VARIANTS))
    args = parser.parse_args()
    warnings.simplefilter("ignore")
    ks = [int(k) for k in args.ks.split(",")]
    names = args.variants.split(",")
    for dataset in args.datasets.split(","):
        runs = [one(dataset, int(s), ks, names) for s in args.seeds.split(",")]
        print(f"{dataset}: variant          t      cost    "
              + "  ".join(f"k={k:<5d}" for k in ks))
        for name in names:
            rows = [r[name] for r in runs]
            print(f"{name:15s} {np.mean([r['t'] for r in rows]):6.2f}  "
                  f"{np.mean([r['cost'] for r in rows]):.4f}  "
                  + "  ".join(f"{np.mean([r[k] for r in rows]):7.2f}" for k in ks)
                  + "  " + "/".join(str(r["rule"]) for r in rows), flush=True)


if __name__ == "__main__":
    main()
