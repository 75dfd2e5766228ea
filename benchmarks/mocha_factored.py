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
every value a message carries rounded to float32, 4 bytes a value, and
with 8-bit messages as the package's ``compression="auto"``, plus the final
models in float64).

Command (from the repository root)::

    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mocha_factored.py [SEEDS...] [FAMILIES...] [--no-curve]
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mocha_factored.py schedules [SEEDS...] [FAMILIES...] [beta=B ...]
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mocha_factored.py nodes [SEEDS...]
    OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 python benchmarks/mocha_factored.py polish [SEEDS...] [FAMILIES...]

(``--no-curve``: without the package's 1000-round curve, "-" there; the
second: the in-protocol alternatives at the default ``tol``, :func:`schedules`;
the third: 300 and 1,000 nodes of 10 rows, :func:`nodes`; the fourth: the
factored solver started from the package's fit, :func:`polish`).
The time in parentheses: CPU seconds of the row's fits after the reference.

Result (mocha34, 2026-11-29, main 7781cb8).  Nothing was tuned: the
factored solver's ``ftol=1e-5`` and 8 bits (the package's
``compression="auto"``) were fixed before any run; seeds 0-2 are the
first block, 6-8 (other starting points than the reference's) confirm.
Per family: the package's excess over the optimum at the default stop,
the 8-bit factored solver's rounds, excess and bytes as a multiple of the
package's, its accuracy minus the package's (points, min..max mean), the
optimum's minus the package's, and the rounds to 1 % above the optimum of
the package with an Omega step every round (seed 0 | 1 | 2) and of the
factored solver::

    seeds 0-2    excess b %  8-bit f: rounds excess %  bytes f/b  acc f-b               opt-b          to 1 %: b (every 1) | f
    alike        5.48-6.68   43-47    0.00-0.01        1.09-1.75  +0.55..+1.30 +0.87    +0.65..+1.20   231 156 189 | 20 20 18
    clusters     3.38-4.29   40-43    0.00-0.01        1.75-2.37  +0.10..+1.50 +0.83    +0.10..+1.60   214 269 247 | 17 18 17
    noisy-100f   1.91-2.43   44-45    0.01             1.78-2.12  -0.20..+0.50 +0.13    -0.20..+0.40   129 132 127 | 17 17 18
    low-dim-5f   5.06-6.61   29-37    0.00             1.48-2.08  +0.45..+0.75 +0.57    +0.40..+0.70   152 201 178 | 17 18 22
    many-small   7.33-9.45   43-47    0.01             2.34-2.84  +2.83..+3.40 +3.19    +2.87..+3.38   >1000 (2 %: 582 631 639) | 22 19 18
    moons        2.24-2.51   36-39    0.01             1.78-2.15  -1.07..+0.20 -0.37    -0.93..+0.10   365 240 369 | 16 15 15
    landmine     0.77-1.23   70-78    0.03-0.05        2.80-3.49  +0.06..+0.10 +0.08    +0.02..+0.11   31 26 24 | 40 31 40
    school       1.67-1.87   102-117  0.02-0.03        3.67-4.36  -0.36..+0.18 -0.01    -0.36..+0.23   46 62 54 | 44 46 48
    har          1.80-2.16   223-261  0.09-0.23        1.56-2.48  -0.06..+0.19 +0.08    -0.06..+0.19   130 151 110 | 158 163 140

    seeds 6-8 (--no-curve)
    alike        5.47-5.84   42-47    0.01             1.31-1.67  +0.15..+0.60 +0.38    +0.20..+0.60
    clusters     3.43-4.11   39-42    0.01             1.70-2.00  +0.20..+1.30 +0.82    +0.20..+1.30
    noisy-100f   1.70-1.98   45-47    0.01             1.74-1.90  -0.25..+0.85 +0.12    -0.20..+0.90
    low-dim-5f   4.12-5.18   34-36    0.00             1.81-1.92  +0.00..+0.70 +0.27    +0.00..+0.75
    many-small   7.75-8.16   42-45    0.01             2.09-2.28  +2.23..+3.20 +2.87    +2.22..+3.29
    moons        2.18-2.34   31-38    0.01             1.56-2.02  -0.40..+0.50 -0.02    -0.60..+0.40
    landmine     1.04-1.15   76-85    0.01             3.30-3.71  -0.05..+0.20 +0.06    -0.01..+0.20
    school       1.39-1.99   104-110  0.02-0.03        2.59-3.23  +0.25..+0.64 +0.46    +0.23..+0.67
    har          1.77-1.92   237-254  0.09-0.13        1.69-1.97  -0.03..+0.03 -0.01    -0.03..+0.03

(Seed 0, alike: the package 16 rounds, 103,360 B, 6.53 %, accuracy
0.8880; factored 8-bit 43 rounds, 175,920 B, 0.01 %, 0.9010; optimum
0.9000.  HAR seed 0: 140 rounds, 3,704,064 B, 1.80 %, 0.9916 against 229
rounds, 5,769,372 B, 0.23 %, 0.9935; optimum 0.9935.)  In float64 a
factored round costs 3.8x (d' = 21) to 7.6x (HAR) the 8-bit one; float32
halves float64 (excess within 0.02 points of %, HAR 0.22); at
``ftol=1e-4`` it stops 0.01-0.44 % above the optimum in 25-82 rounds (HAR
1.0-1.8 % at 127-146).

What it shows: the package's excess is its alternation's slow convergence,
not its stop.  To come within 1 % of the optimum the package's fastest
schedule needs 127-369 rounds on the synthetic families and moons (more
than 1,000 on 120 small nodes); the factored solver 15-22 (on Landmine,
School and HAR the two are alike: 24-62 against 31-48 rounds, HAR 110-151
against 140-163).  At its own stop, with the package's 8-bit messages, it
ends within 0.01 % on the synthetic families and moons, 0.05 % on
Landmine and School and 0.23 % on HAR at 1.1-2.8x the default fit's bytes
on the synthetic families and moons, 1.6-2.5x on HAR and 2.6-4.4x on
Landmine and School; the accuracy follows the optimum's (+2.2 to +3.4
points on 120 small nodes, means +0.1 to +0.9 on the 40-node families,
-0.37 / -0.02 on moons (rows -1.07 to +0.50), -0.01 to +0.46 on the real
data (rows -0.36 to +0.64).  The same excess costs the
package far more: ``tol=1e-5`` ends 0.1-0.8 % above at 257-1,293 rounds
(``mocha_stopping.py tolerances``).

Many small nodes (``nodes 0 1 6``; clustered, 10 rows a node): with 300
/ 1,000 nodes the package stops after 9 / 11-29 rounds 10.2-11.3 % /
13.4-16.2 % above the optimum, 4.7-5.2 / 6.4-7.1 points of accuracy under
it; at ``tol=1e-4`` it still ends 4.3-4.6 % / 5.2-5.3 % above (3.4-3.5 /
4.6-5.0 points under) at 263-285 rounds, 28-30 / 9-24 times the default's
bytes; the 8-bit factored solver reaches the optimum (0.00-0.01 %, its
accuracy) in 49-57 / 80-99 rounds at 3.3-3.8 / 1.9-5.2 times the
default's bytes (seed 0, 300 nodes: 9 rounds, 459,000 B, 0.7163; tol
1e-4: 285 rounds, 13,834,200 B, 0.7299; factored 49 rounds, 1,495,800 B,
0.7643 = the optimum's).

Started from the package's default fit (``polish 0 1 2``: SVD of its
``coef_`` and ``intercept_``) the factored solver needs 17-48 more rounds
(HAR 77-131) to 0.001-0.026 % (HAR 0.11-0.21 %); the total bytes are
0.95-1.66x the solver's own from a random start on the synthetic families
and moons, 0.62-0.79x on Landmine and School, 0.77-1.18x on HAR (seed 0,
Landmine: 13 + 32 rounds, 123,308 B against 70 rounds, 157,064 B).

In-protocol alternatives, at the default ``tol`` (``schedules``, seeds 0-2
and 6-8 at ``beta=1``, seed 0 also ``beta=3``): an Omega step every round
changes the excess by -1.7 to +0.5 points of % (rounds 0.70-2.33x,
accuracy -0.65 to +0.40); the Omega step extrapolated geometrically
(:func:`extrapolate`, ``beta=1``) by -0.8 to +1.5 (every round: -1.8 to
+2.1, Landmine up to 48x the rounds), accuracy -0.90 to +0.50; at
``beta=3`` the alternation diverges (1,000 rounds, 3.5-17.4 % above the
optimum on alike, clusters, low-dim-5f and Landmine).  Along the whole
curve (``tol=1e-12``, an Omega step every round, 120 small nodes seed 0)
``beta`` 0 / 1 / 3 end 4.26 / 4.26 / 4.25 % above the optimum after 200
rounds, and on alike seed 0 after 150 rounds 1.52 / 1.49 % (``beta=10``:
65 %): a larger Omega step leaves the W-step behind, whose dual
variables have to follow the new ``Sigma``.

Not built into the package (this shift): the factored solver is a
different fit, not a schedule of the alternation.  A version for
``omega="learn"`` in the primal modes would need smooth losses (logistic,
squared, squared hinge; the hinge and the exact kernel mode keep the
alternation), one-vs-rest problems solved side by side, the round
repeated for dropped nodes (as the shared model's L-BFGS does), a
certificate (the joint dual from the nodes' dual variables ``a = -loss'``
and conjugate sums, one float more per node: ``tests/test_mocha33_joint_optimum``'s
``_joint_dual``), ``omega_`` from the final ``W`` (the closed-form step)
and the dual state for joins and ``warm_start`` from the same ``a``.  As
a default it would cost 1.1-4.4x the bytes of ``omega="learn"`` for the
accuracy above.  Who it reaches: ``omega="auto"`` runs the learned Omega
only in the exact kernel mode and in private fits, which it does not
cover; in the primal modes ``"auto"`` is the shared model (``skfed
compare``'s mocha rows among them), so the solver would serve fits that set
``omega="learn"`` there.
"""

import sys
import time
import warnings

import numpy as np
from scipy import linalg, optimize
from sklearn.exceptions import ConvergenceWarning

from mocha_stopping import _reference, families, joint_objective
from skfed.multitask import FederatedMultiTaskClassifier, _protocol
from skfed.multitask._compression import quantize, quantized_bytes
from skfed.multitask._omega import _OMEGA_EIG_FLOOR, _LowRankSigma
from skfed.network import DEFAULT_HEADER_BYTES

_FLOAT = 8


def factored_fit(X, y, g, lam, ftol, max_rounds=5000, seed=0, trace=None, dtype=np.float64,
                 bits=None, start=None):
    """L-BFGS on ``J(A B^T)``, one round per evaluation.

    ``dtype``: the precision of the values the messages carry (float32: the
    models, losses and gradients rounded to it on the way).  ``bits``: the
    models and gradients quantized as the package's ``compression``
    (:func:`skfed.multitask._compression.quantize`, one float64 scale and
    ``bits``-bit integers a vector): the server sends the difference between
    ``w_t`` and the model node t holds (which it knows), so the node's model
    follows ``w_t`` within one rounding; the node evaluates its loss there
    and sends its gradient quantized (the loss as a float64).
    ``start``: models ``W`` to start from (``A = U S^1/2``, ``B = V S^1/2``
    of its SVD) instead of a small random point.
    Returns ``(W, rounds)`` (``W = A B^T`` in float64); ``trace`` (a list) receives ``J`` of every round's
    models (``W`` as the server holds it when it sends the round's models)."""
    m, d = int(g.max()) + 1, X.shape[1]
    r = min(m, d)
    rows = [np.flatnonzero(g == t) for t in range(m)]
    count = [0]
    held = np.zeros((m, d))  # the models the nodes hold

    def f(p):
        count[0] += 1
        A, B = p[:m * r].reshape(m, r), p[m * r:].reshape(d, r)
        W = (A @ B.T).astype(dtype).astype(np.float64)  # the models the server sends
        if bits is not None:
            held[:] += quantize(W - held, bits)
            W = held
        gW = np.empty_like(W)
        loss = 0.0
        for t, rr in enumerate(rows):  # each node: its mean loss and gradient
            z = y[rr] * (X[rr] @ W[t])
            loss += np.logaddexp(0.0, -z).sum() / rr.size
            gW[t] = -X[rr].T @ (y[rr] * np.exp(-np.logaddexp(0.0, z))) / rr.size
        gW = gW.astype(dtype).astype(np.float64)  # the nodes' answers
        if bits is not None:
            gW = quantize(gW, bits)
        loss = float(np.float64(dtype(loss)))
        s = 0.5 * (np.sum(A * A) + np.sum(B * B))
        if trace is not None:
            trace.append(joint_objective(W, X, y, g, lam))
        return loss + 0.5 * lam * s * s, np.concatenate(
            [(gW @ B + lam * s * A).ravel(), (gW.T @ A + lam * s * B).ravel()])

    if start is None:
        p0 = 0.1 * np.random.RandomState(seed).randn((m + d) * r)
    else:
        U, S, Vt = linalg.svd(start, full_matrices=False)
        root = np.sqrt(S[:r])
        p0 = np.concatenate([(U[:, :r] * root).ravel(), (Vt[:r].T * root).ravel()])
    p = optimize.minimize(f, p0, jac=True, method="L-BFGS-B",
                          options=dict(ftol=ftol, gtol=0.0, maxiter=max_rounds,
                                       maxfun=max_rounds, maxcor=10)).x
    return p[:m * r].reshape(m, r) @ p[m * r:].reshape(d, r).T, count[0]


def round_bytes(m, d, size=_FLOAT):
    """One factored round's bytes: ``w_t`` down (d' floats), loss and gradient
    up (1 + d' floats), each message with the network's header, m nodes."""
    return m * (2 * DEFAULT_HEADER_BYTES + (2 * d + 1) * size)


def quantized_round_bytes(m, d, bits):
    """One quantized round's bytes (``w_t``'s change down; the loss, a
    float64, and the gradient up), m nodes."""
    return m * (2 * DEFAULT_HEADER_BYTES + 2 * quantized_bytes(d, bits) + _FLOAT)


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
         ftols=(1e-4, 1e-5, 1e-6), curve=True):
    warnings.simplefilter("ignore", ConvergenceWarning)
    lv = "/".join(f"{v:g}" for v in levels)
    print(f"family seed | package: rounds bytes excess% acc | package rounds to {lv} % "
          f"| factored rounds to {lv} % | " + " | ".join(
              f"ftol {f:g}: rounds bytes excess% acc" for f in ftols)
          + f" | float32 ftol {ftols[1]:g} | 8-bit ftol {ftols[1]:g} | optimum acc")
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
            if curve:
                long = FederatedMultiTaskClassifier(
                    omega="learn", kernel="linear", tol=1e-12, max_rounds=max_rounds,
                    omega_update_every=1, random_state=seed).fit(X, y, groups=g)
                joint = long.joint_objective_curve_
                joint = np.fmin.accumulate(np.where(np.isfinite(joint), joint, np.inf))
            else:
                joint = [np.inf]
            Xa = np.hstack([X, np.ones((len(y), 1))])
            ys = np.where(y == classes[1], 1.0, -1.0)
            gi = np.searchsorted(nodes, g)
            lam = 1.0 / len(y)
            trace = []
            factored_fit(Xa, ys, gi, lam, 0.0, max_rounds=max_rounds, seed=seed, trace=trace)
            stops = []
            runs = [(f, np.float64, None) for f in ftols] + [(ftols[1], np.float32, None),
                                                             (ftols[1], np.float64, 8)]
            for ftol, dtype, bits in runs:
                W, rounds = factored_fit(Xa, ys, gi, lam, ftol, max_rounds=max_rounds, seed=seed,
                                         dtype=dtype, bits=bits)
                J = joint_objective(W, Xa, ys, gi, lam)
                size = np.dtype(dtype).itemsize
                if bits is None:
                    sent = rounds * round_bytes(nodes.size, Xa.shape[1], size)
                else:  # plus the final models in float64
                    sent = (rounds * quantized_round_bytes(nodes.size, Xa.shape[1], bits)
                            + nodes.size * (DEFAULT_HEADER_BYTES + Xa.shape[1] * _FLOAT))
                stops.append(f"{rounds} {sent} "
                             f"{100 * (J - ref['J']) / ref['J']:.2f} "
                             f"{_accuracy(W, Xt, yt, gt, classes, nodes):.4f}")
            print(f"{name} {seed} | {pkg[0]} {pkg[1]} {pkg[2]:.2f} {pkg[3]:.4f} | "
                  + " ".join(_first(joint, ref["J"], levels)) + " | "
                  + " ".join(_first(trace, ref["J"], levels)) + " | " + " | ".join(stops)
                  + f" | {ref['acc']:.4f}  ({time.process_time() - t0:.0f} s)", flush=True)


def extrapolate(old, new, beta):
    """The Omega step pushed further along its own direction: in the
    eigenbasis of the new ``Sigma`` (eigenvalues ``mu``) with ``nu`` the old
    ``Sigma``'s values on the same vectors, ``mu (mu / nu)^beta`` (a
    geometric extrapolation of each eigenvalue's change), the step's
    eigenvalue floor, trace one.  A factored ``Sigma`` keeps its basis; its
    complement's old value is the old trace left over, spread evenly."""
    floor = np.sqrt(_OMEGA_EIG_FLOOR)
    if isinstance(new, _LowRankSigma):
        m, U = new.m, new.U
        if isinstance(old, _LowRankSigma):
            OU, tr_old = old.apply(U[None])[0], old.f * m + old.s.sum()
        else:
            OU, tr_old = old @ U, np.trace(old)
        mu, nu = new.f + new.s, np.einsum("tr,tr->r", U, OU)
        rest = m - U.shape[1]
        mu = mu * (mu / nu) ** beta
        f = new.f * (new.f / ((tr_old - nu.sum()) / rest)) ** beta if rest else new.f
        f = max(f, floor * max(mu.max(), f))
        mu = np.maximum(mu, f)
        trace = f * m + (mu - f).sum()
        return _LowRankSigma(f / trace, U, (mu - f) / trace)
    old = old.dense() if isinstance(old, _LowRankSigma) else old
    mu, U = linalg.eigh(new)
    nu = np.einsum("tr,tr->r", U, old @ U)
    mu = mu * (mu / nu) ** beta
    mu = np.maximum(mu, floor * mu.max())
    S = (U * mu) @ U.T
    S = 0.5 * (S + S.T)
    return S / np.trace(S)


class extrapolated_omega:
    """Context manager: every adopted Omega step extrapolated by ``beta``
    (:func:`extrapolate`, patched over ``_RoundProtocol.adopt``)."""

    def __init__(self, beta):
        self.beta = beta

    def __enter__(self):
        cls, beta = _protocol._RoundProtocol, self.beta
        self.saved = adopt = cls.adopt

        def patched(protocol, sigma):
            adopt(protocol, extrapolate(protocol.sigma, sigma, beta))

        cls.adopt = patched

    def __exit__(self, *exc):
        _protocol._RoundProtocol.adopt = self.saved


def schedules(seeds=(0, 1, 2), names=None, betas=(1.0, 3.0)):
    """The package's fit at the default ``tol`` with its schedule, an Omega
    step every round, and the extrapolated Omega step (``beta``, both
    schedules): rounds, bytes, excess %, accuracy."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    variants = [("default", None, 0.0), ("every 1", 1, 0.0)]
    variants += [(f"beta {b:g}{e}", every, b) for b in betas
                 for e, every in (("", None), (" every 1", 1))]
    print("family seed | " + " | ".join(v[0] for v in variants)
          + " (rounds bytes excess% acc)")
    for seed in seeds:
        for name, data in families(seed, names).items():
            X, y, g, Xt, yt, gt = data
            ref = _reference(data)
            out = []
            for _, every, beta in variants:
                est = FederatedMultiTaskClassifier(omega="learn", kernel="linear",
                                                   omega_update_every=every, random_state=seed)
                if beta:
                    with extrapolated_omega(beta):
                        est.fit(X, y, groups=g)
                else:
                    est.fit(X, y, groups=g)
                out.append(f"{est.n_iter_} {int(est.communication_.total_bytes)} "
                           f"{100 * (est.joint_objective_ - ref['J']) / ref['J']:.2f} "
                           f"{np.mean(est.predict(Xt, groups=gt) == yt):.4f}")
            print(f"{name} {seed} | " + " | ".join(out), flush=True)


def nodes(seeds=(0,), sizes=(300, 1000), n_samples=10):
    """Many nodes (make_related_tasks, clustered, ``n_samples`` rows a node):
    the package's fit at the default ``tol`` and at ``tol=1e-4`` against the
    8-bit factored solver at ``ftol=1e-5`` (rounds, bytes, excess %,
    accuracy; optimum accuracy)."""
    from skfed.datasets import make_related_tasks

    warnings.simplefilter("ignore", ConvergenceWarning)
    for seed in seeds:
        for m in sizes:
            X, Xt, y, yt, g, gt, _ = make_related_tasks(
                n_nodes=m, n_samples_per_node=n_samples, structure="clustered",
                random_state=seed)
            data = (X, y, g, Xt, yt, gt)
            ref = _reference(data)
            classes, ids = np.unique(y), np.unique(g)
            est = FederatedMultiTaskClassifier(omega="learn", kernel="linear",
                                               random_state=seed).fit(X, y, groups=g)
            tight = FederatedMultiTaskClassifier(omega="learn", kernel="linear", tol=1e-4,
                                                 random_state=seed).fit(X, y, groups=g)
            Xa = np.hstack([X, np.ones((len(y), 1))])
            ys, gi, lam = np.where(y == classes[1], 1.0, -1.0), np.searchsorted(ids, g), 1 / len(y)
            W, rounds = factored_fit(Xa, ys, gi, lam, 1e-5, max_rounds=1000, seed=seed, bits=8)
            J = joint_objective(W, Xa, ys, gi, lam)
            sent = (rounds * quantized_round_bytes(m, Xa.shape[1], 8)
                    + m * (DEFAULT_HEADER_BYTES + Xa.shape[1] * _FLOAT))
            print(f"{m} nodes seed {seed} | package {est.n_iter_} {int(est.communication_.total_bytes)} "
                  f"{100 * (est.joint_objective_ - ref['J']) / ref['J']:.2f} "
                  f"{np.mean(est.predict(Xt, groups=gt) == yt):.4f} | tol 1e-4 {tight.n_iter_} "
                  f"{int(tight.communication_.total_bytes)} "
                  f"{100 * (tight.joint_objective_ - ref['J']) / ref['J']:.2f} "
                  f"{np.mean(tight.predict(Xt, groups=gt) == yt):.4f} | factored {rounds} {sent} "
                  f"{100 * (J - ref['J']) / ref['J']:.2f} "
                  f"{_accuracy(W, Xt, yt, gt, classes, ids):.4f} | optimum {ref['acc']:.4f}",
                  flush=True)


def polish(seeds=(0, 1, 2), names=None):
    """The factored solver (8-bit, ``ftol=1e-5``) started from the package's
    default fit (its ``coef_`` and ``intercept_``): the package's rounds,
    bytes and excess, then the polish's rounds, the total bytes, excess %
    and accuracy (optimum accuracy)."""
    warnings.simplefilter("ignore", ConvergenceWarning)
    for seed in seeds:
        for name, data in families(seed, names).items():
            X, y, g, Xt, yt, gt = data
            ref = _reference(data)
            classes, ids = np.unique(y), np.unique(g)
            est = FederatedMultiTaskClassifier(omega="learn", kernel="linear",
                                               random_state=seed).fit(X, y, groups=g)
            Xa = np.hstack([X, np.ones((len(y), 1))])
            ys, gi, lam = np.where(y == classes[1], 1.0, -1.0), np.searchsorted(ids, g), 1 / len(y)
            W, rounds = factored_fit(Xa, ys, gi, lam, 1e-5, max_rounds=1000, bits=8,
                                     start=np.hstack([est.coef_, est.intercept_[:, None]]))
            J = joint_objective(W, Xa, ys, gi, lam)
            base = int(est.communication_.total_bytes)
            sent = base + (rounds * quantized_round_bytes(ids.size, Xa.shape[1], 8)
                           + ids.size * (DEFAULT_HEADER_BYTES + Xa.shape[1] * _FLOAT))
            print(f"{name} {seed} | package {est.n_iter_} {base} "
                  f"{100 * (est.joint_objective_ - ref['J']) / ref['J']:.2f} | polish {rounds} "
                  f"{sent} {100 * (J - ref['J']) / ref['J']:.3f} "
                  f"{_accuracy(W, Xt, yt, gt, classes, ids):.4f} | optimum {ref['acc']:.4f}",
                  flush=True)


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["polish"]:
        args = args[1:]
        polish(tuple(int(a) for a in args if a.isdigit()) or (0, 1, 2),
               [a for a in args if not a.isdigit()] or None)
        sys.exit()
    if args[:1] == ["nodes"]:
        nodes(tuple(int(a) for a in args[1:]) or (0,))
        sys.exit()
    if args[:1] == ["schedules"]:
        args = args[1:]
        betas = tuple(float(a[5:]) for a in args if a.startswith("beta="))
        schedules(tuple(int(a) for a in args if a.isdigit()) or (0, 1, 2),
                  [a for a in args if not a.isdigit() and "=" not in a] or None,
                  betas or (1.0, 3.0))
        sys.exit()
    main(tuple(int(a) for a in args if a.isdigit()) or (0, 1, 2),
         [a for a in args if not a.isdigit() and a != "--no-curve"] or None,
         curve="--no-curve" not in args)
