"""What every ``add_nodes`` shares: the newcomers' data checks and the join log.

:func:`validate_join_data` is ``FederatedMixin._validate_join_data`` (every
family's join starts with it) and :func:`pad_log` lets the logs of a fit and
of later joins, over more nodes, add up.  A join's own work is
proportional to its new nodes, so these fixed costs decide a small join's
CPU: the checks take a plain NumPy route for the common input (a float
ndarray ``X`` and a 1-d ndarray ``y``, both finite), with the results and
warnings of scikit-learn's ``validate_data``, and leave everything else
(lists, data frames, sparse matrices, anything to convert or to refuse)
to ``validate_data`` itself.
"""

import numpy as np
from scipy import sparse
from sklearn.base import is_classifier
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    check_is_fitted,
    validate_data,
)

from ._compat import _check_feature_names, _check_n_features
from ._join_params import check_join_params
from ._node_ids import _check_label_kinds, _lookup_labels

__all__ = ["pad_log", "validate_join_data"]

_FLOATS = (np.dtype(np.float64), np.dtype(np.float32))


def _plain_arrays(est, X, y, y_numeric):
    """``validate_data(est, X, y, reset=False, dtype=[float64, float32],
    y_numeric=y_numeric)`` for input it would return unchanged, or None.

    Plain is: ``X`` a 2-d ``numpy.ndarray`` (not a subclass) of float64 or
    float32, at least one sample and one feature, every value finite; ``y``
    a 1-d ``numpy.ndarray`` of numbers (or of strings for a classifier), as
    long as ``X``, finite.  ``validate_data`` returns such arrays as they
    are (``y`` C-contiguous), so the check is its own: the feature count
    against ``n_features_in_`` (the same error) and, only when the fit saw
    feature names, scikit-learn's warning for an ``X`` without them.
    """
    if (type(X) is not np.ndarray or type(y) is not np.ndarray or X.ndim != 2
            or y.ndim != 1 or X.dtype not in _FLOATS or X.shape[0] < 1 or X.shape[1] < 1
            or X.shape[0] != y.shape[0]):
        return None
    kind = y.dtype.kind
    if not (kind in "iub" or (kind == "f" and y.dtype.isnative)
            or (kind in "US" and not y_numeric)):
        return None
    # (as scikit-learn: a finite sum means finite values; else its full check)
    with np.errstate(over="ignore"):
        if not np.isfinite(X.sum()) or (kind == "f" and not np.isfinite(y.sum())):
            return None
    if hasattr(est, "feature_names_in_"):
        _check_feature_names(est, X, reset=False)
    _check_n_features(est, X, reset=False)
    return X, np.ascontiguousarray(y)


def _check_fits_dtype(X, dtype, name):
    """Refuse newcomers' ``X`` holding a value above the largest ``dtype``
    (the fit's, which the join casts ``X`` to: a float64 newcomer's 1e39
    became inf in a float32 fit's join, review40), naming ``X``."""
    data = X.data if sparse.issparse(X) else X
    if data.size == 0 or data.dtype.itemsize <= dtype.itemsize:
        return
    top = float(np.max(np.abs(data)))
    if top > float(np.finfo(dtype).max):
        raise ValueError(
            f"X of the new nodes holds a value of magnitude {top:.3g}, above the largest "
            f"{dtype} ({float(np.finfo(dtype).max):.3g}), the dtype this {name} was fitted "
            "in; rescale it (e.g. StandardScaler for features).")


def validate_join_data(est, X, y, groups=None, sample_weight=None, *,
                       accept_sparse=False, y_numeric=False):
    """Validate the data of ``add_nodes``: every sample is of a new node.

    ``X`` must have the fit's features (count and names, and the node-id
    column when ``group_column`` is set), node ids are required and must
    all be absent from ``nodes_``; a classifier's ``y`` must hold classes
    of ``classes_`` only; every new node needs a positive sample_weight
    (:func:`~skfed._base.check_node_weights`).  Nothing of the estimator
    changes here.

    Parameters
    ----------
    est : FederatedMixin
        The fitted estimator.
    X : {array-like, sparse matrix} of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
    groups : array-like of shape (n_samples,), default=None
    sample_weight : array-like of shape (n_samples,), default=None
    accept_sparse : bool, str or list of str, default=False
    y_numeric : bool, default=False

    Returns
    -------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Cast to the fit's dtype when the estimator recorded one
        (``_dtype``).
    y : ndarray of shape (n_samples,)
    sample_weight : ndarray of shape (n_samples,) or None
    new_labels : ndarray of shape (n_new,)
        The new nodes' labels, sorted, in the order they will be appended
        to ``nodes_``.
    layout : NodeLayout
        Samples laid out by new node (codes index ``new_labels``).
    """
    from ._base import (
        NodeLayout,
        _check_y,
        _numeric_target,
        check_magnitude,
        check_node_weights,
        check_sample_weight,
        working_dtype,
    )
    from ._fit_weights import weights_in, weights_working_dtype

    if "nodes_" not in vars(est) or hasattr(est, "__sklearn_is_fitted__"):
        # (scikit-learn's test finds an attribute ending in "_": nodes_ is one,
        # and a scan of every attribute and the estimator's tags cost more
        # than the rest of the checks)
        check_is_fitted(est)
    name = type(est).__name__
    check_join_params(est)
    if y is None:
        raise ValueError(f"{name}.add_nodes requires y (the new nodes' targets).")
    if y_numeric:
        y = _numeric_target(y, est)
    X_features, column_groups = est._split_X(X, reset=False)
    check_params = {"accept_sparse": accept_sparse, "dtype": [np.float64, np.float32]}
    if est.group_column is not None:
        X_features = check_array(X_features, **check_params)
        y = _check_y(y, multi_output=False, y_numeric=y_numeric)
        check_consistent_length(X_features, y)
    else:
        plain = _plain_arrays(est, X_features, y, y_numeric)
        if plain is None:
            plain = validate_data(est, X_features, y, reset=False,
                                  y_numeric=y_numeric, **check_params)
        X_features, y = plain
    stored = getattr(est, "_dtype", None)  # (the online learners' fit dtype: X is cast to it)
    working = working_dtype(est, X_features.dtype if stored is None else stored)
    check_magnitude(X_features, "X", working)
    n_samples = X_features.shape[0]
    groups = est._resolve_groups(groups, column_groups, n_samples)
    if groups is None:
        raise ValueError(
            f"{name}.add_nodes needs the node id of every sample, to know "
            "which new node each sample belongs to: pass them as groups=... "
            "(this estimator was fitted without group_column, so X holds no id "
            "column; behind a Pipeline or a search, call add_nodes on the fitted "
            "skfed step, see the user guide's page on growing federations)."
        )
    try:
        new_labels, codes = np.unique(groups, return_inverse=True)
    except TypeError as exc:
        raise TypeError(
            "groups could not be sorted; use node ids of one comparable type."
        ) from exc
    _check_label_kinds(est.nodes_, new_labels)
    known = _lookup_labels(est.nodes_, new_labels) >= 0
    if known.any():
        shown = ", ".join(repr(v) for v in new_labels[known][:5].tolist())
        raise ValueError(
            f"add_nodes got samples of {int(known.sum())} node(s) already in "
            f"nodes_ ({shown}{', ...' if known.sum() > 5 else ''}); add_nodes "
            "adds new nodes and leaves the fitted ones unchanged. Pass only "
            "the new nodes' samples (refit with fit to retrain the others)."
        )
    if hasattr(est, "classes_") and is_classifier(est):
        # (np.unique(y) is unique; duplicates in classes_ would not matter)
        unseen = np.setdiff1d(np.unique(y), est.classes_, assume_unique=True)
        if unseen.size:
            raise ValueError(
                f"y of the new nodes contains class(es) {unseen[:5].tolist()!r} "
                f"that are not in classes_ {est.classes_.tolist()!r}: the "
                "fitted federation has no model of them. Refit with fit to add "
                "classes."
            )
    # The dtype the join computes in: the online learners' stored fit
    # dtype, the graph family's fitted models' (its join casts everything to
    # them: a float32 fit joins in float32 whatever the newcomers' X), else
    # the newcomers' X's.
    fitted = stored
    if fitted is None and hasattr(est, "_full_coef"):
        fitted = est.coef_.dtype  # (the dtype of _graph_join._models)
    if fitted is not None:
        _check_fits_dtype(X_features, np.dtype(fitted), name)
    dtype = getattr(est, "_dtype", None)
    if dtype is not None and X_features.dtype != dtype:
        X_features = X_features.astype(dtype)
    if sample_weight is not None:  # (every add_nodes' one weightless-newcomer check)
        # validated in float64 (a weight X's dtype cannot hold is the user's
        # finite value, not "infinity"), then kept in the join's dtype
        sample_weight = check_sample_weight(sample_weight, X_features, dtype=np.float64,
                                            working=weights_working_dtype(est, working),
                                            allow_all_zero_weights=True)  # (named below)
        target = np.dtype(X_features.dtype if fitted is None else fitted)
        whose, fix = ((f"the dtype this {name} was fitted in", "rescale the weights")
                      if fitted is not None else
                      ("the dtype of the new nodes' X", "pass X as float64 or rescale the weights"))
        cast, over, under = weights_in(sample_weight, target)
        if over is not None:
            raise ValueError(
                f"sample_weight of the new nodes holds a weight of {over:.3g}, above the "
                f"largest {target} ({float(np.finfo(target).max):.3g}), {whose}; {fix}.")
        if under is not None:
            raise ValueError(
                f"sample_weight of the new nodes holds a positive weight of {under:.3g}, "
                f"which {target} ({whose}) rounds to 0; {fix}.")
        sample_weight = cast
        check_node_weights(est, codes, sample_weight, labels=new_labels, why=" that joins")
    return X_features, y, sample_weight, new_labels, NodeLayout(codes, len(new_labels))


def pad_log(log, node_labels):
    """``log`` over the longer node list ``node_labels`` (new nodes sent nothing).

    The nodes of ``log`` must be the first ones of ``node_labels``; the
    server, if any, stays the last endpoint.  Used to add up the logs of a
    fit and of later joins, whose networks have more nodes.

    Parameters
    ----------
    log : CommunicationLog
    node_labels : array-like of shape (n_nodes,)

    Returns
    -------
    CommunicationLog
    """
    from .network import CommunicationLog

    n_new = len(node_labels) - log.n_nodes
    if n_new < 0:
        raise ValueError(
            f"Cannot pad a log over {log.n_nodes} nodes to {len(node_labels)} nodes."
        )
    if n_new == 0:
        return log
    n_end = log.n_endpoints + n_new
    # Old endpoint e keeps its index below n_old; the server moves to the end.
    index = np.arange(log.n_endpoints)
    if log.has_server:
        index[-1] = n_end - 1

    def grow(matrix):
        coo = matrix.tocoo()
        return sparse.csr_array(
            (coo.data, (index[coo.row], index[coo.col])), shape=(n_end, n_end)
        )

    return CommunicationLog(
        grow(log.pair_bytes_sparse),
        grow(log.pair_messages_sparse),
        log.bytes_per_round,
        log.messages_per_round,
        node_labels=node_labels,
        has_server=log.has_server,
        header_bytes=log.header_bytes,
    )
