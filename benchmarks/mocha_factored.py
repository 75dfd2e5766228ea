"""MOCHA's learned-Omega objective by a factored solver (mocha34): rounds,
bytes and excess over the optimum against the package's alternation.

The package's ``omega="learn"`` fit alternates W-steps (CoCoA rounds at a
fixed ``Sigma``) with closed-form Omega steps; at the default ``tol=1e-3`` it
stops 0.8-9.5 % above the optimum of its own joint objective
``J(W) = sum_t mean_i log(1 + exp(-y w_t . x)) + (lam / 2) ||W||_*^2``
(``benchmarks/mocha_stopping.py``).  The alternative measured here
(:func:`factored_fit`) is the factored form the certified reference uses,
run as a federated protocol: ``W = A B^T`` (``A``: one row per node,
``B``: d' x r, ``r = min(m, d')``), the server holds ``A`` and ``B`` and runs
L-BFGS on ``J(A B^T)``; one function evaluation is one round in which the
server sends node t its model ``w_t = B a_t`` (d' floats) and the node
answers with its mean loss and its gradient (1 + d' floats).  That is the
package's primal round (``w_t`` down, the change of ``v_t`` and three gap
floats up) less two floats up, so its bytes are counted per round with the
package's network header on each message.  Each evaluation of the line
search is a round.

Printed per family and seed (the families of ``mocha_stopping.py``):
the package's fit at the default tol (rounds, bytes, excess %, accuracy),
the package's rounds until its joint objective first falls to 2 / 1 / 0.5 %
above the optimum (an Omega step every round, the fastest schedule per round
mocha33 measured, ``tol=1e-12``, up to 1000 rounds), and the factored
solver's rounds to the same excesses and at its own stops (L-BFGS ``ftol``
1e-4 / 1e-5 / 1e-6: rounds, bytes, excess %, accuracy; then at 1e-5 with
every value a message carries rounded to float32, 4 bytes a value).

Command (from the repository root)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mocha_factored.py [SEEDS...] [FAMILIES...]
"""

import sys
import time
import warnings

import numpy as np
from scipy import optimize
from sklearn.exceptions import ConvergenceWarning

from mocha_stopping import _reference, families, joint_objective
from skfed.multitask import FederatedMultiTaskClassifier
from skfed.network import DEFAULT_HEADER_BYTES

_FLOAT = 8


def factored_fit(X, y, g, lam, ftol, max_rounds=5000, seed=0, trace=None, dtype=np.float64):
    """L-BFGS on ``J(A B^T)``, one round per evaluation.

    ``dtype``: the precision of the values the messages carry (float32: the
    models, losses and gradients rounded to it on the way).
    Returns ``(W, rounds)`` (``W = A B^T`` in float64); ``trace`` (a list) receives ``J`` of every round's
    models (``W`` as the server holds it when it sends the round's models)."""
    m, d = int(g.max()) + 1, X.shape[1]
    r = min(m, d)
    rows = [np.flatnonzero(g == t) for t in range(m)]
    count = [0]

    def f(p):
        count[0] += 1
        A, B = p[:m * r].reshape(m, r), p[m * r:].reshape(d, r)
        W = (A @ B.T).astype(dtype).astype(np.float64)  # the models the server sends
        gW = np.empty_like(W)
        loss = 0.0
        for t, rr in enumerate(rows):  # each node: its mean loss and gradient
            z = y[rr] * (X[rr] @ W[t])
            loss += np.logaddexp(0.0, -z).sum() / rr.size
            gW[t] = -X[rr].T @ (y[rr] * np.exp(-np.logaddexp(0.0, z))) / rr.size
        gW = gW.astype(dtype).astype(np.float64)  # the nodes' answers
        loss = float(np.float64(dtype(loss)))
        s = 0.5 * (np.sum(A * A) + np.sum(B * B))
        if trace is not None:
            trace.append(joint_objective(W, X, y, g, lam))
        return loss + 0.5 * lam * s * s, np.concatenate(
            [(gW @ B + lam * s * A).ravel(), (gW.T @ A + lam * s * B).ravel()])

    p0 = 0.1 * np.random.RandomState(seed).randn((m + d) * r)
    p = optimize.minimize(f, p0, jac=True, method="L-BFGS-B",
                          options=dict(ftol=ftol, gtol=0.0, maxiter=max_rounds,
                                       maxfun=max_rounds, maxcor=10)).x
    return p[:m * r].reshape(m, r) @ p[m * r:].reshape(d, r).T, count[0]


def round_bytes(m, d, size=_FLOAT):
    """One factored round's bytes: ``w_t`` down (d' floats), loss and gradient
    up (1 + d' floats), each message with the network's header, m nodes."""
    return m * (2 * DEFAULT_HEADER_BYTES + (2 * d + 1) * size)


def _first(curve, ref, levels):
    ex = 100.0 * (np.asarray(curve) - ref) / ref
    out = []
    for level in levels:
        hit = np.flatnonzero(ex <= level)
        out.append(str(hit[0] + 1) if hit.size else "-")
    return out


def _accuracy(W, Xt, yt, gt, classes, nodes):
    z = np.einsum("ij,ij->i", np.hstack([Xt, np.ones((len(yt), 1))]),
                  W[np.searchsorted(nodes, gt)])
    return float(np.mean(np.where(z > 0, classes[1], classes[0]) == yt))


def main(seeds=(0, 1, 2), names=None, max_rounds=1000, levels=(2.0, 1.0, 0.5),
         ftols=(1e-4, 1e-5, 1e-6)):
    warnings.simplefilter("ignore", ConvergenceWarning)
    lv = "/".join(f"{v:g}" for v in levels)
    print(f"family seed | package: rounds bytes excess% acc | package rounds to {lv} % "
          f"| factored rounds to {lv} % | " + " | ".join(
              f"ftol {f:g}: rounds bytes excess% acc" for f in ftols)
          + f" | float32 ftol {ftols[1]:g}: rounds bytes excess% acc | optimum acc")
    for seed in seeds:
        for name, data in families(seed, names).items():
            X, y, g, Xt, yt, gt = data
            classes, nodes = np.unique(y), np.unique(g)
            ref = _reference(data)
            t0 = time.process_time()
            est = FederatedMultiTaskClassifier(omega="learn", kernel="linear",
                                               random_state=seed).fit(X, y, groups=g)
            pkg = (est.n_iter_, int(est.communication_.total_bytes),
                   100 * (est.joint_objective_ - ref["J"]) / ref["J"],
                   float(np.mean(est.predict(Xt, groups=gt) == yt)))
            long = FederatedMultiTaskClassifier(omega="learn", kernel="linear", tol=1e-12,
                                                max_rounds=max_rounds, omega_update_every=1,
                                                random_state=seed).fit(X, y, groups=g)
            curve = long.joint_objective_curve_
            curve = np.fmin.accumulate(np.where(np.isfinite(curve), curve, np.inf))
            Xa = np.hstack([X, np.ones((len(y), 1))])
            ys = np.where(y == classes[1], 1.0, -1.0)
            gi = np.searchsorted(nodes, g)
            lam = 1.0 / len(y)
            trace = []
            factored_fit(Xa, ys, gi, lam, 0.0, max_rounds=max_rounds, seed=seed, trace=trace)
            stops = []
            for ftol, dtype in [(f, np.float64) for f in ftols] + [(ftols[1], np.float32)]:
                W, rounds = factored_fit(Xa, ys, gi, lam, ftol, max_rounds=max_rounds, seed=seed,
                                         dtype=dtype)
                J = joint_objective(W, Xa, ys, gi, lam)
                size = np.dtype(dtype).itemsize
                stops.append(f"{rounds} {rounds * round_bytes(nodes.size, Xa.shape[1], size)} "
                             f"{100 * (J - ref['J']) / ref['J']:.2f} "
                             f"{_accuracy(W, Xt, yt, gt, classes, nodes):.4f}")
            print(f"{name} {seed} | {pkg[0]} {pkg[1]} {pkg[2]:.2f} {pkg[3]:.4f} | "
                  + " ".join(_first(curve, ref["J"], levels)) + " | "
                  + " ".join(_first(trace, ref["J"], levels)) + " | " + " | ".join(stops)
                  + f" | {ref['acc']:.4f}  ({time.process_time() - t0:.0f} s)", flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    main(tuple(int(a) for a in args if a.isdigit()) or (0, 1, 2),
         [a for a in args if not a.isdigit()] or None)
