"""The linear network function's solve (``join_function="auto"``).

``join_function="auto"`` (:mod:`._linear`) solves ``w' x`` on the nodes'
summed smooth losses plus ``(alpha_w W / 2) ||w||^2``; newcomers start
from ``w' x``.  The fit solves it at the fixed penalty ``alpha_w =
FIXED_FACTOR x alpha`` on every node (:func:`solve_fixed`):

1. **Sketch.**  With the first report every node also sends
   ``X_i' diag(s_i) X_i Omega`` (``d x rank`` float64; ``Omega`` public
   orthonormal directions, :func:`sketch_directions`), summed up the tree:
   the root's Nystrom model of the Hessian at 0, which preconditions the
   L-BFGS solve (HAR's correlated features: the unpreconditioned solve
   stops far from the optimum within its cap).
2. **Solve.**  From ``w = 0``, at most ``ITERATIONS`` L-BFGS iterations
   (at most ``2 ITERATIONS`` evaluations; HAR's fits take 11-12).

Every evaluation is one tree round (every node sends ``d n_out + 2``
float64 up, its subtree's loss, weight and gradient, the first also
``d rank``; the root sends ``w`` down).

Until autocut37 the penalty was chosen on held-back nodes
(:func:`solve_chosen`: a public draw held back 20 % of the nodes, the
factors 30, 10, 3 were solved on the others, 10 iterations each, and the
one of least held-back loss solved on every node, 20 iterations; 55-60
evaluations on HAR).  Its choice bought nothing on average: on HAR's
newcomers (``k = 5``, 9 seeds) ``w' x`` scores 97.21 with it and 97.30
at ``3 x alpha`` in 10 iterations, whose joins are 97.25 against 97.27
over 27 cells for 3.3-3.6 % more bytes on a HAR fit instead of 12-13 %
(``benchmarks/onlinedef37_linear_cut.py``).  :func:`solve_chosen` stays
for the benchmarks that measured it (``online_join_linear_alpha.py``);
the fit does not run it.
"""

import numpy as np
from scipy.linalg import solve_triangular
from scipy.optimize import minimize

# The fit's penalty over the classifier's alpha and its iteration cap
# (benchmarks/onlinedef37_linear_cut.py: the preconditioned solve is at its
# plateau on HAR by 8-10 iterations; x3 and x10 score alike there).
FIXED_FACTOR = 3.0
ITERATIONS = 10
# The held-back choice (solve_chosen, not run by the fit): multiples of the
# classifier's alpha its path tries (largest first).
PATH_FACTORS = (30.0, 10.0, 3.0)
HOLD_FRACTION = 0.2
MIN_NODES = 5
FALLBACK_FACTOR = 10.0
PATH_ITERATIONS = 10
FINAL_ITERATIONS = 20
NYSTROM_RANK = 10
SKETCH_SEED = 0
# The smooth loss's second derivative at f = 0 (where the solve starts):
# the squared hinges 2, the logistic losses 1/4.
CURVATURE = {"hinge": 2.0, "multiclass_hinge": 2.0, "log_loss": 0.25,
             "multinomial": 0.25}


def sketch_directions(d, rank):
    """The public sketch directions ``Omega`` (d, rank): orthonormal columns
    of a Gaussian matrix from a fixed seed (every node draws the same)."""
    rng = np.random.RandomState(SKETCH_SEED)
    return np.linalg.qr(rng.normal(size=(d, rank)))[0]


def nystrom_model(sketch, omega):
    """``(U, lam)`` with ``C ~ U diag(lam) U'`` from ``sketch = C omega``
    (``C`` symmetric positive semidefinite), or None when the sketch's core
    is not positive definite."""
    Y = np.asarray(sketch, dtype=np.float64)
    shift = 1e-8 * max(float(np.linalg.norm(Y)), 1e-300)
    Y = Y + shift * omega
    core = omega.T @ Y
    core = 0.5 * (core + core.T)
    try:
        factor = np.linalg.cholesky(core)
    except np.linalg.LinAlgError:
        return None
    B = solve_triangular(factor, Y.T, lower=True).T
    U, sv, _ = np.linalg.svd(B, full_matrices=False)
    return U, np.maximum(sv * sv - shift, 0.0)


class Reports:
    """The root's view of one component's reports: ``evaluate(A, nodes)``
    returns the nodes' summed ``(loss, weight, gradient)`` (what
    :class:`~._network_function.NodeSums` reports, summed); every call is
    one tree round, counted in ``evaluations`` (a point already evaluated
    is not sent again)."""

    def __init__(self, evaluate, train, held):
        self.evaluate, self.train, self.held = evaluate, train, held
        self.evaluations = 0
        self._seen = {}

    def __call__(self, A):
        key = A.tobytes()
        if key not in self._seen:
            if len(self._seen) > 4 * (PATH_ITERATIONS + FINAL_ITERATIONS):
                self._seen.clear()
            train = self.evaluate(A, self.train).sum(axis=0)
            held = (self.evaluate(A, self.held).sum(axis=0) if len(self.held)
                    else np.zeros_like(train))
            self._seen[key] = (train, held[:2])
            self.evaluations += 1
        return self._seen[key]


def lbfgs(A0, alpha, totals, model, curvature, max_iter):
    """``w`` minimizing ``totals``' loss plus ``(alpha W / 2) ||w||^2`` from
    ``A0`` by L-BFGS in coordinates ``w = P b``, ``P`` the inverse square
    root of the Nystrom model of the Hessian at 0, ``alpha W I + curvature
    U diag(lam) U'`` (scaled so the complement's factor is 1; the identity
    without a model), at most ``max_iter`` iterations and ``2 max_iter``
    evaluations.  ``totals(A)`` returns ``(loss, W, gradient...)``."""
    shape = A0.shape
    W = float(totals(A0)[1])
    if not W > 0:
        return A0
    if model is None:
        def apply(G):
            return G
        inverse = apply
    else:
        U, lam = model
        level = alpha * W + curvature * lam
        inside = 1.0 / np.sqrt(level / (alpha * W + curvature * lam.min()))

        def apply(G):
            UG = U.T @ G
            return G - U @ UG + U @ (inside[:, None] * UG)

        def inverse(A):
            UA = U.T @ A
            return A - U @ UA + U @ (UA / inside[:, None])

    # The start maps back to A0 itself: apply(inverse(A0)) misses it by
    # rounding (~1e-17), which would ask the nodes about it again.
    b0 = inverse(A0).ravel()
    start = b0.tobytes()

    def to_a(b):
        return A0 if b.tobytes() == start else apply(b.reshape(shape))

    def objective(b):
        A = to_a(b)
        total = totals(A)
        grad = total[2:].reshape(shape) + alpha * W * A
        return float(total[0] + 0.5 * alpha * W * np.sum(A * A)), apply(grad).ravel()

    # (at most 2 max_iter evaluations: line searches on the multiclass
    # hinge's kinks took 128 for 50 iterations on a 3-class problem)
    result = minimize(objective, b0, jac=True, method="L-BFGS-B",
                      options={"maxiter": int(max_iter), "maxfun": 2 * int(max_iter),
                               "gtol": 1e-6})
    return np.ascontiguousarray(to_a(result.x))


def solve_fixed(shape, alpha, evaluate, nodes, sketch, omega, curvature):
    """The fit's solve: ``(w, evaluations)``, ``w`` minimizing the summed
    reports of ``nodes`` plus ``(FIXED_FACTOR alpha W / 2) ||w||^2`` by
    :func:`lbfgs` from 0, at most ``ITERATIONS`` iterations, preconditioned
    by the Nystrom model of ``sketch`` (the summed ``X' diag(s) X omega``
    of all ``nodes``; None: unpreconditioned).  ``evaluate(A, nodes)``
    returns the listed nodes' reports stacked (n, 2 + d n_out)."""
    nodes = np.asarray(nodes)
    model = None if sketch is None else nystrom_model(sketch, omega)
    reports = Reports(evaluate, nodes, nodes[:0])
    A = lbfgs(np.zeros(shape), FIXED_FACTOR * alpha, lambda A: reports(A)[0], model,
              curvature, ITERATIONS)
    return A, reports.evaluations


def held_back_nodes(nodes, random_state):
    """The public draw of the held-back nodes: ``round(HOLD_FRACTION n)`` of
    ``nodes`` (at least 1), or none below ``MIN_NODES``."""
    nodes = np.asarray(nodes)
    if len(nodes) < MIN_NODES:
        return nodes[:0]
    n_held = max(1, int(round(HOLD_FRACTION * len(nodes))))
    rng = np.random.RandomState(random_state)
    return np.sort(rng.choice(nodes, size=n_held, replace=False))


def solve_chosen(shape, alpha, evaluate, nodes, held, sketch, omega, curvature,
                 carry_on=None):
    """The earlier held-back choice (not run by the fit, see the module):
    ``(w, factor, path, evaluations)``, ``path``
    the list of ``(factor, held-back mean loss)`` tried.  ``evaluate(A,
    nodes)`` returns the listed nodes' reports stacked (n, 2 + d n_out);
    ``sketch`` is the summed ``X' diag(s) X omega`` of all ``nodes``.
    ``carry_on(w)``, when given, is asked after the path's first solve
    (``w`` at its largest factor): False stops there and returns that ``w``
    (the caller's early gate)."""
    held = np.asarray(held)
    train = np.setdiff1d(nodes, held)
    model = None if sketch is None else nystrom_model(sketch, omega)
    A = np.zeros(shape)
    if not len(held):
        reports = Reports(evaluate, np.asarray(nodes), held)
        A = lbfgs(A, FALLBACK_FACTOR * alpha, lambda A: reports(A)[0], model, curvature,
                  FINAL_ITERATIONS + PATH_ITERATIONS)
        return A, FALLBACK_FACTOR, [], reports.evaluations
    reports = Reports(evaluate, train, held)
    W_all = float(reports(A)[0][1] + reports(A)[1][1])
    W_train = float(reports(A)[0][1])
    # (the sketch sums every node; the held-out solve's Hessian is about
    # the training nodes' share of it)
    train_model = None if model is None or not W_all > 0 else (
        model[0], model[1] * (W_train / W_all))
    path, solved = [], {}
    for factor in PATH_FACTORS:
        A = lbfgs(A, factor * alpha, lambda A: reports(A)[0], train_model, curvature,
                  PATH_ITERATIONS)
        loss, weight = reports(A)[1]
        path.append((factor, float(loss / weight) if weight > 0 else float("inf")))
        solved[factor] = A
        if len(path) == 1 and carry_on is not None and not carry_on(A):
            return A, factor, path, reports.evaluations
    factor = min(path, key=lambda p: (p[1], -p[0]))[0]
    everyone = Reports(evaluate, np.asarray(nodes), held[:0])
    A = lbfgs(solved[factor], factor * alpha, lambda A: everyone(A)[0], model, curvature,
              FINAL_ITERATIONS)
    return A, factor, path, reports.evaluations + everyone.evaluations
