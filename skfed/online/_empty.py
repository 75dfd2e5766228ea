"""A fit of the online kernel learners whose dictionaries ended empty says so.

Every step adds the sample to its node's dictionary with the coefficient
``-eta s loss'(f(x), y)`` (``eta`` the step, ``s`` the sample weight);
KOMP then prunes what the error budget ``epsilon`` allows.  When the step
is tiny against the budget -- ``eta0="auto"`` is ``1 / (alpha + K (s_max +
c lambda_max))`` (see ``_ConsensusMixin._resolve_step``), so a strong
``consensus_penalty`` ``c`` on a dense topology (``lambda_max`` of the
complete graph on ``m`` nodes is ``m``) makes it vanish -- every new term
is pruned and the dictionary stays empty: the node's function is 0, a
constant predictor.  Found by online35 (``benchmarks/online_join_moons_seeds.py
--oracle-graph --consensus-penalty 1``: on seed 4 every dictionary ended
empty).  :func:`warn_empty_dictionaries` warns (:class:`ConvergenceWarning`)
when a fit or ``partial_fit`` call ends with every dictionary empty while the
call's targets vary, or with a node's dictionary empty although its
samples of the call hold two classes (two target values for a
regressor), naming the parameter that made the step vanish (``eta0``
given, ``consensus_penalty`` on a dense topology, ``epsilon`` given), or
the features' scale when the kernel's values ``k(x, x)`` sink every term
(review36: features of scale 1e-12 under the linear kernel).  Nothing of the fit changes.
"""

import inspect
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning

from .._node_ids import listed_labels


def _silent_nodes(sizes, codes, y, n_nodes):
    """Nodes whose dictionary is empty although their samples (``codes``)
    hold two distinct targets (rows of ``y``); one sort, not one scan of
    every sample per empty node (quadratic in the nodes)."""
    y = np.asarray(y).reshape(len(codes), -1)
    codes = np.asarray(codes)
    empty = np.zeros(max(n_nodes, int(codes.max(initial=-1)) + 1), dtype=bool)
    empty[np.flatnonzero(np.asarray(sizes[:n_nodes]) == 0)] = True
    mine = np.flatnonzero(empty[codes])  # the samples of nodes with empty dictionaries
    _, first, inverse = np.unique(codes[mine], return_index=True, return_inverse=True)
    # a sample whose target differs from its node's first one
    differs = np.any(y[mine] != y[mine][first][inverse.ravel()], axis=1)
    return np.unique(codes[mine][differs]).astype(np.intp)


def _cause(est):
    """Which parameter made the step vanish, in words."""
    eta, eps = float(est.eta0_), float(est.epsilon_)
    c = float(est.consensus_penalty_)
    lam = float(getattr(est, "_lambda_max", 0.0))
    kernel_sup = float(getattr(est, "_kernel_sup_seen", 1.0))
    head = f"the step eta0_={eta:.3g} is small against the KOMP budget epsilon_={eps:.3g}"
    if eta * np.sqrt(kernel_sup) < eps <= eta:
        # a term's norm is eta s |loss'| sqrt(k(x, x)): here the kernel's values sink it
        return (f"a new term's norm, about eta0_={eta:.3g} x sample weight x |loss'| x "
                f"sqrt(k(x, x)), is under the KOMP budget epsilon_={eps:.3g} because k(x, x) "
                f"is at most {kernel_sup:.3g} (kernel={est.kernel_!r} on features of tiny "
                "scale); standardize the features (e.g. StandardScaler)")
    if est.eta0 != "auto":
        return (f"{head}: eta0={est.eta0!r} was given; raise eta0 (below the stability "
                f"bound {est.step_bound_:.3g}) or lower epsilon")
    coupling = c * kernel_sup * lam
    rest = 1.0 / eta - coupling  # alpha + K s_max (eta0_ = 1 / (rest + coupling))
    default = inspect.signature(type(est)).parameters["epsilon"].default
    if est.epsilon != default and coupling < rest:
        return (f"the KOMP budget epsilon_={eps:.3g} is large against the step eta0_={eta:.3g}: "
                f"epsilon={est.epsilon!r} was given (default {default}); lower epsilon")
    if coupling >= rest:
        chosen = (f"consensus_penalty='auto' chose {c:g}" if est.consensus_penalty == "auto"
                  else f"consensus_penalty={c:g}")
        return (
            f"{head}: eta0='auto' is 1 / (alpha + K (s_max + c lambda_max)) and the coupling "
            f"term c K lambda_max = {coupling:.3g} dominates it ({chosen}, lambda_max of the "
            f"graph Laplacian {lam:.3g}: a dense topology); lower consensus_penalty, use a "
            "sparser topology, or lower epsilon"
        )
    s_max = float(getattr(est, "_s_max_seen", 1.0))
    values = (f"{head}: eta0='auto' is 1 / (alpha + K (s_max + c lambda_max)) = {eta:.3g}, "
              f"K = max k(x, x) = {kernel_sup:.3g}, the largest sample weight s_max = "
              f"{s_max:.3g}, alpha={est.alpha:g}; each term is about eta0_ x sample weight x "
              "|loss'|")
    if kernel_sup * s_max >= 100.0 * est.alpha and kernel_sup >= 100.0:
        # features in large units under a linear or polynomial kernel
        return (f"{values}, so the large K keeps it within the budget: put the features on "
                "a unit scale (StandardScaler), or lower epsilon")
    return (f"{values}, so small sample weights (or a large s_max or alpha) keep it within "
            "the budget; lower epsilon or rescale sample_weight")


def warn_empty_dictionaries(est, codes, y):
    """Warn when the fit (or ``partial_fit`` call) left a constant predictor
    although the call's targets vary; returns ``est``.

    Parameters
    ----------
    est : DecentralizedKernelSGDClassifier or DecentralizedKernelSGDRegressor
        After the call's passes (``_sizes``: every node's dictionary size).
    codes : ndarray of shape (n_samples,)
        The node of each of the call's samples.
    y : ndarray of shape (n_samples,) or (n_samples, n_outputs)
        The call's encoded targets.

    Returns
    -------
    est
    """
    sizes = np.asarray(est._sizes)
    if not len(codes):
        return est
    n_nodes = len(est.nodes_)
    rows = np.asarray(y).reshape(len(codes), -1)
    # every dictionary empty: a constant predictor, useless when the targets vary
    every = not sizes[:n_nodes].any() and bool(np.any(rows != rows[0]))
    silent = _silent_nodes(sizes, np.asarray(codes), y, n_nodes)
    if not every and not silent.size:
        return est
    kind = "two target values" if est._is_regressor() else "both classes"
    if every:
        what = ("every node's dictionary empty (every node's function is 0, a constant "
                "predictor: do not use it)")
    else:
        labels = listed_labels(est.nodes_, silent)
        many = silent.size > 1
        function = ("their functions are 0, constant predictors" if many else
                    "its function is 0, a constant predictor")
        what = (f"an empty dictionary at node{'s' if many else ''} {labels} although "
                f"{'their' if many else 'its'} samples hold {kind} ({function})")
    warnings.warn(
        f"{type(est).__name__} ended with {what}; every step's new dictionary term was "
        f"pruned: {_cause(est)}.",
        ConvergenceWarning,
    )
    return est
