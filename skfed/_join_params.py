"""The parameters a join reads from the fitted model (``add_nodes``).

``add_nodes`` extends the fitted model: the newcomers solve the fitted
nodes' problem.  Some parameters shape that problem (the intercept, the
loss, the coupling ``mu``), and a join reads them from the estimator as it
is when called; after ``set_params`` on a fitted estimator it would give
the newcomers models of another problem, or fail with an unrelated error.
Every fit path records their values (:func:`record_join_params`:
``FederatedMixin._validate_fit_data`` and the engines), and a join refuses
a changed one, naming it (:func:`check_join_params`); a refit takes the
new value.  Parameters a join is documented to read (a kernel-SGD ``gamma``
dict with the newcomers' widths, a support ``vote``) or does not use
(``C`` of the multi-task join, which uses the fitted lambda) stay free.
An estimator whose join also reads a parameter of its own names it in a
``_join_fixed_params`` class attribute (the graph methods: Perso-lin's
``alpha``, Dada's ``beta``, ``stump_placement`` and ``feature_selection``, and the graph objective's and the fit's
schedule's ``lambda_graph``, ``delta``, ``max_neighbors``,
``sparsify_graph``, ``kappa``, ``max_iter``, ``graph_update_every`` and
``peer_scoring``).  ``privacy`` (a specification object) is recorded too:
a join extends the fit's privacy accounting (``privacy_spent_``), and one
under another specification would spend nothing where it should, or
claim a spend for nodes that sent in the clear.
"""

import numbers

import numpy as np

from ._compat import validate_params_from_attributes

__all__ = ["JOIN_FIXED_PARAMS", "check_join_params", "fitted_param", "record_join_params"]

JOIN_FIXED_PARAMS = ("fit_intercept", "intercept_scaling", "per_node_intercept", "loss",
                     "loss_epsilon", "multi_class", "mu", "mu_graph")


def _scalar(value):
    return value is None or isinstance(value, (str, bool, np.bool_, numbers.Number))


def record_join_params(est):
    """Keep the fit's values of :data:`JOIN_FIXED_PARAMS` on ``est``."""
    params = est.get_params(deep=False)
    keys = JOIN_FIXED_PARAMS + tuple(getattr(est, "_join_fixed_params", ()))
    est._join_params = {key: params[key] if _scalar(params[key]) else np.array(params[key])
                        for key in keys if key in params
                        and (_scalar(params[key]) or isinstance(params[key], (np.ndarray, list)))}
    if "privacy" in params:
        est._join_privacy = (_privacy_key(params["privacy"]), repr(params["privacy"]))


def _privacy_key(spec):
    """What makes two ``privacy`` values the same specification: None, or
    the class and its parameters (an equal new object is the same: numbers
    by value, ``1 == 1.0``, a bool apart; an estimator parameter by its
    class and parameters; a ``RandomState`` by its state, not its repr's
    address, which a pickled or copied estimator does not keep)."""
    if isinstance(spec, (bool, np.bool_)):
        return ("bool", bool(spec))
    if isinstance(spec, numbers.Real):
        return ("number", float(spec))
    if isinstance(spec, np.random.RandomState):
        state = spec.get_state()
        return ("RandomState", state[0], state[1].tobytes(), *map(repr, state[2:]))
    if isinstance(spec, np.ndarray):  # (a long array's repr elides its middle)
        return ("ndarray", spec.dtype.str, spec.shape, spec.tobytes())
    if isinstance(spec, (list, tuple)):  # (a Pipeline's steps)
        return (type(spec).__name__, tuple(_privacy_key(v) for v in spec))
    if isinstance(spec, dict):
        return ("dict", tuple(sorted((repr(k), _privacy_key(v)) for k, v in spec.items())))
    if isinstance(spec, type) or (callable(spec) and hasattr(spec, "__qualname__")):
        # (a function's repr holds its address, which another process's differs
        # from; a class given for an instance: fit's check names it)
        return ("callable", getattr(spec, "__module__", None), spec.__qualname__)
    if spec is None or not hasattr(spec, "get_params"):
        return repr(spec)
    return (type(spec).__name__,
            tuple(sorted((k, _privacy_key(v)) for k, v in spec.get_params(deep=False).items())))


def _check_join_privacy(est):
    recorded = getattr(est, "_join_privacy", None)
    if recorded is None:
        return
    key, fitted = recorded
    now = getattr(est, "privacy", None)
    if _privacy_key(now) != key:
        raise ValueError(
            f"{type(est).__name__}.add_nodes: privacy was changed after fit "
            f"({fitted} -> {now!r}); add_nodes extends the fitted model and its "
            "privacy accounting (privacy_spent_), so set privacy back to the fit's "
            "specification, or refit with fit to use the new one."
        )


def fitted_param(est, name):
    """The fit's value of the recorded parameter ``name`` (the current one
    when the fit recorded none): what a fitted model's predictions read, so
    that ``set_params`` changes them only at the next fit."""
    fitted = getattr(est, "_join_params", None) or {}
    return fitted.get(name, getattr(est, name))


def same_param(now, fitted):
    """Whether a parameter's value ``now`` is its ``fitted`` one: None, a
    string, a bool or a number (``5`` and ``5.0`` are one value, ``True``
    and ``1`` are not); a matrix (MOCHA's ``omega``) by its values."""
    if isinstance(fitted, np.ndarray) or isinstance(now, (np.ndarray, list)):
        return (isinstance(fitted, np.ndarray) and isinstance(now, (np.ndarray, list))
                and np.array_equal(np.asarray(now), fitted))
    if fitted is None or now is None:
        return fitted is None and now is None
    if isinstance(fitted, (bool, np.bool_)) or isinstance(now, (bool, np.bool_)):
        return (isinstance(now, (bool, np.bool_)) and isinstance(fitted, (bool, np.bool_))
                and bool(now) == bool(fitted))
    if isinstance(fitted, str) or isinstance(now, str):
        return isinstance(now, str) and isinstance(fitted, str) and now == fitted
    return (isinstance(now, numbers.Number) and isinstance(fitted, numbers.Number)
            and now == fitted)


def check_join_params(est):
    """Refuse a join after ``set_params`` changed one of the recorded
    parameters, naming it with both values (nothing recorded: no check).

    The parameters are first checked as ``fit`` checks them (the join
    reads the free ones as they are: an invalid value is refused, named).
    """
    validate_params_from_attributes(est)
    _check_join_privacy(est)
    fitted = getattr(est, "_join_params", None)
    if not fitted:  # (fitted by a version that kept none)
        return
    # (get_params reads the same attributes, after an inspect.signature of
    # __init__ that took most of this check's time)
    params = {key: getattr(est, key, None) for key in fitted}
    changed = [key for key, value in fitted.items() if not same_param(params[key], value)]
    if changed:
        key = changed[0]
        raise ValueError(
            f"{type(est).__name__}.add_nodes: {key} was changed after fit "
            f"({fitted[key]!r} -> {params[key]!r}); add_nodes extends the fitted "
            f"model, so set {key}={fitted[key]!r} back, or refit with fit to use the new "
            "value." + (f" (Also changed: {', '.join(changed[1:])}.)" if len(changed) > 1 else "")
        )
