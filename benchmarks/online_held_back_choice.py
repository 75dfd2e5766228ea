"""The online learner's earlier choice of ``join_function="auto"``'s penalty.

Until autocut37 (main 92a0d0d4) the fit chose the linear network
function's penalty on held-back nodes: a public draw held back
``HOLD_FRACTION`` of the nodes, ``PATH_FACTORS`` x alpha were solved on the
others (``PATH_ITERATIONS`` preconditioned L-BFGS iterations each), and the
factor of least held-back loss was solved on every node
(``FINAL_ITERATIONS``).  The fit now solves at a fixed ``3 x alpha``
(``skfed.online._linear_solve.solve_fixed``); this module keeps the earlier
rule for the benchmarks that compare the two
(``online_join_linear_alpha.py``, ``onlinedef37_linear_cut.py``), built on
the library's ``lbfgs``, ``nystrom_model`` and ``Reports`` (here
:class:`HeldReports`: the held-back nodes answer in the same round).
``tests/test_online28_linear_alpha.py`` checks it against centralized
solves.
"""

import numpy as np

from skfed.online._linear_solve import Reports, lbfgs, nystrom_model

# Multiples of the classifier's alpha the path tries (largest first).
PATH_FACTORS = (30.0, 10.0, 3.0)
HOLD_FRACTION = 0.2
MIN_NODES = 5
FALLBACK_FACTOR = 10.0
PATH_ITERATIONS = 10
FINAL_ITERATIONS = 20


class HeldReports(Reports):
    """:class:`~skfed.online._linear_solve.Reports` of the ``train`` nodes
    whose rounds also carry the ``held`` nodes' summed loss and weight:
    ``reports(A)`` is ``(train's summed report, held's (loss, weight))``,
    zeros without held nodes, one tree round a point."""

    def __init__(self, evaluate, train, held):
        super().__init__(evaluate, train)
        self.held = held

    def _report(self, A):
        train = super()._report(A)
        held = (self.evaluate(A, self.held).sum(axis=0) if len(self.held)
                else np.zeros_like(train))
        return train, held[:2]


def held_back_nodes(nodes, random_state):
    """The public draw of the held-back nodes: ``round(HOLD_FRACTION n)`` of
    ``nodes`` (at least 1), or none below ``MIN_NODES``."""
    nodes = np.asarray(nodes)
    if len(nodes) < MIN_NODES:
        return nodes[:0]
    n_held = max(1, round(HOLD_FRACTION * len(nodes)))
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
        reports = Reports(evaluate, np.asarray(nodes))
        A = lbfgs(A, FALLBACK_FACTOR * alpha, reports, model, curvature,
                  FINAL_ITERATIONS + PATH_ITERATIONS)
        return A, FALLBACK_FACTOR, [], reports.evaluations
    reports = HeldReports(evaluate, train, held)
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
    everyone = Reports(evaluate, np.asarray(nodes))
    A = lbfgs(solved[factor], factor * alpha, everyone, model, curvature,
              FINAL_ITERATIONS)
    return A, factor, path, reports.evaluations + everyone.evaluations
