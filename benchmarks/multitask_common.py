"""Shared pieces of the multi-task benchmarks: families, scores, baselines, fits.

Imported by ``multitask_small_nodes.py`` and ``multitask_bytes_small.py``
(and meant for ``bench_multitask.py`` and ``multitask_multiclass.py``, whose
own copies of the baselines and the fit check can move here):

- :func:`linear_rule_family`: nodes of ``2 n`` rows, one linear rule plus a
  per-node perturbation, the first ``n`` rows of every node for training;
- :func:`per_node_score`: mean per-node accuracy or R^2;
- :func:`standard_baselines` and :func:`best_baselines`: Global (one model
  on the pooled rows) and Local (one per node), each estimator of the
  standard set, and the better of each;
- :func:`fit_defaults`: a fit at the defaults with its CPU seconds and
  whether it converged (no ``ConvergenceWarning``), and
  :func:`selection_path`, which selection of ``omega="auto"`` ran.
"""

import time
import warnings

import numpy as np
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LassoCV, LogisticRegression, Ridge
from sklearn.metrics import r2_score
from sklearn.svm import SVC, SVR, LinearSVC

from skfed import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor, LocalEstimator

TASKS = ("classification", "regression")


def split_halves(X, y, groups, n):
    """The first ``n`` of every node's ``2 n`` consecutive rows for training,
    the rest for testing: ``Xtr, ytr, gtr, Xte, yte, gte``."""
    n_nodes = len(groups) // (2 * n)
    train = np.tile(np.r_[np.ones(n, bool), np.zeros(n, bool)], n_nodes)
    return X[train], y[train], groups[train], X[~train], y[~train], groups[~train]


def linear_rule_family(n_nodes, n, d, k, spread, task, seed):
    """Nodes of ``n`` training and ``n`` test rows, one linear rule plus a
    per-node perturbation.

    ``x`` standard normal in ``d`` dimensions, the first ``k`` informative;
    node t's rule ``w_t = w + spread u_t`` on them (``w``, ``u_t`` standard
    normal); targets ``s = x . w_t / sqrt(k) + 0.3 e``, labels ``[s > 0]``.

    Returns
    -------
    Xtr, ytr, gtr, Xte, yte, gte
    """
    rng = np.random.RandomState(seed)
    g = np.repeat(np.arange(n_nodes), 2 * n)
    X = rng.randn(len(g), d)
    informative = np.arange(d) < k
    W = np.where(informative, rng.randn(1, d), 0.0) + spread * rng.randn(n_nodes, d) * informative
    s = (X * W[g]).sum(axis=1) / np.sqrt(k)
    noisy = s + 0.3 * rng.randn(len(g))
    y = (noisy > 0).astype(int) if task == "classification" else noisy
    return split_halves(X, y, g, n)


def per_node_score(task, y, pred, groups):
    """Mean over the nodes of the accuracy (classification) or R^2."""
    score = (lambda a, b: np.mean(a == b)) if task == "classification" else r2_score
    return float(np.mean([score(y[groups == t], pred[groups == t]) for t in np.unique(groups)]))


def standard_estimators(task):
    """The standard baselines: ``LinearSVC()``, ``SVC()`` and
    ``LogisticRegression()``, or ``Ridge()``, ``SVR()`` and ``LassoCV()``."""
    if task == "classification":
        return {"LinearSVC": LinearSVC(), "SVC": SVC(), "LogisticRegression": LogisticRegression()}
    return {"Ridge": Ridge(), "SVR": SVR(), "LassoCV": LassoCV()}


def standard_baselines(task, Xtr, ytr, gtr, Xte, yte, gte, skip_local=(), skip_global=()):
    """Global and Local per-node scores of every standard estimator.

    Parameters
    ----------
    task : {"classification", "regression"}
    Xtr, ytr, gtr, Xte, yte, gte : ndarray
    skip_local : tuple of str
        Estimators not fitted per node (e.g. ``LassoCV`` on nodes of 10
        rows: not a contender, and slow).
    skip_global : tuple of str
        Estimators not fitted on the pooled rows.

    Returns
    -------
    dict
        ``global_<name>`` and ``local_<name>`` scores.
    """
    out = {}
    with warnings.catch_warnings():
        # the baselines run at their defaults, as a user would
        warnings.simplefilter("ignore", ConvergenceWarning)
        for label, est in standard_estimators(task).items():
            if label not in skip_global:
                out[f"global_{label}"] = per_node_score(
                    task, yte, clone(est).fit(Xtr, ytr).predict(Xte), gte)
            if label in skip_local:
                continue
            local = LocalEstimator(clone(est)).fit(Xtr, ytr, groups=gtr)
            out[f"local_{label}"] = per_node_score(task, yte, local.predict(Xte, groups=gte), gte)
    return out


def best_baselines(scores, lower_is_better=False):
    """``(best_global, best_local)`` of :func:`standard_baselines`' scores
    (None values, baselines not run, are left out)."""
    pick = min if lower_is_better else max
    best = []
    for prefix in ("global_", "local_"):
        best.append(pick(v for k, v in scores.items() if k.startswith(prefix) and v is not None))
    return tuple(best)


def fit_defaults(task, Xtr, ytr, gtr, **params):
    """The multi-task estimator of ``task`` at its defaults (``random_state=0``
    and ``params``) fitted on the training rows.

    Returns
    -------
    est, converged, cpu_seconds
    """
    Est = FederatedMultiTaskClassifier if task == "classification" else FederatedMultiTaskRegressor
    est = Est(random_state=0, **params)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConvergenceWarning)
        cpu = time.process_time()
        est.fit(Xtr, ytr, groups=gtr)
        cpu = time.process_time() - cpu
    converged = not any(issubclass(w.category, ConvergenceWarning) for w in caught)
    return est, converged, cpu


def selection_path(est):
    """Which selection ``omega="auto"`` ran: ``"share"``, ``"personal"`` or None."""
    selection = getattr(est, "share_selection_", None)
    if selection is None:
        return None
    return "personal" if "shared_part_share" in selection else "share"
