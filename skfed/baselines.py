"""Baselines every federated method is compared against.

* **Global**: one scikit-learn estimator fitted on the pooled data of all
  nodes (the data would have to leave the nodes); use the estimator itself.
* **Local**: :class:`LocalEstimator`, one clone of a scikit-learn estimator
  per node, fitted on that node's data only (nothing is communicated).
"""

import copy

import numpy as np
from joblib import Parallel, delayed
from sklearn import config_context
from sklearn.base import BaseEstimator, MetaEstimatorMixin, clone, is_classifier
from sklearn.dummy import DummyClassifier
from sklearn.utils import get_tags
from sklearn.utils.metaestimators import available_if
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ._base import (
    N_JOBS_CONSTRAINT,
    FederatedClassifierMixin,
    FederatedMixin,
    FederatedRegressorMixin,
)
from ._compat import HasMethods
from ._parallel import capped_n_jobs, node_chunks

__all__ = ["LocalEstimator", "pooled_data_bytes"]


def pooled_data_bytes(X, y=None, groups=None, *, header_bytes=16):
    """Bytes needed to ship every node's raw data to a server once.

    The cost of the Global baseline under skfed's byte model: each node sends
    one message with its feature rows (4 or 8 bytes a value by dtype) and
    its targets (8 bytes each).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), default=None
    groups : array-like of shape (n_samples,), default=None
        One message per distinct node id (one node when None).
    header_bytes : int, default=16

    Returns
    -------
    int

    Examples
    --------
    >>> import numpy as np
    >>> from skfed.baselines import pooled_data_bytes
    >>> pooled_data_bytes(np.zeros((10, 3)), np.zeros(10), groups=[0] * 5 + [1] * 5)
    352
    """
    X = np.asarray(X) if not hasattr(X, "dtype") else X
    n_samples, n_features = X.shape
    value_bytes = 4 if np.dtype(X.dtype) == np.float32 else 8
    n_nodes = 1 if groups is None else len(np.unique(np.asarray(groups)))
    payload = n_samples * n_features * value_bytes
    if y is not None:
        payload += 8 * n_samples
    return int(payload + n_nodes * header_bytes)


def _fit_one(estimator, X, y, sample_weight, single_class, node=None):
    if single_class:
        estimator = DummyClassifier(strategy="most_frequent")
    try:
        if sample_weight is None:
            return estimator.fit(X, y)
        return estimator.fit(X, y, sample_weight=sample_weight)
    except ValueError as exc:
        # Name the node whose data the estimator refused (e.g. all-zero
        # sample weights, too few samples), keeping the estimator's message.
        raise ValueError(f"Node {node!r} ({len(y)} samples): {exc}") from exc


def _fit_chunk(template, X, y, sample_weight, offsets, single_class, labels, validated):
    """Fit one copy of ``template`` per node of a run of consecutive nodes.

    ``X``, ``y`` and ``sample_weight`` hold only these nodes' rows, node by
    node (``offsets`` starts at 0), so a chunk ships only its own data to a
    joblib worker.  A copy is ``copy.deepcopy`` of the unfitted clone
    ``template`` (what :func:`~sklearn.base.clone` would build, without
    re-reading the constructor signature per node).  With ``validated``
    the parameters were checked on an identical copy already and X was
    checked finite, so scikit-learn's own checks of both are skipped.
    """
    fitted = []
    with config_context(assume_finite=True, skip_parameter_validation=bool(validated)):
        for k in range(len(offsets) - 1):
            rows = slice(offsets[k], offsets[k + 1])
            fitted.append(
                _fit_one(
                    copy.deepcopy(template), X[rows], y[rows],
                    None if sample_weight is None else sample_weight[rows],
                    single_class[k], labels[k],
                )
            )
    return fitted


def _estimator_has(attr):
    def check(self):
        getattr(self.estimator, attr)
        return True

    return check


class LocalEstimator(FederatedMixin, MetaEstimatorMixin, BaseEstimator):
    """One clone of a scikit-learn estimator per node: the "Local" baseline.

    Each node fits its own copy of ``estimator`` on its own samples; nothing
    is communicated (``n_bytes_sent_ == 0``).  This is the per-node baseline
    of every paper skfed implements.

    Parameters
    ----------
    estimator : estimator object
        A scikit-learn classifier or regressor, cloned once per node.
    group_column : int, str or None, default=None
        Column of ``X`` holding the node id of every sample (an index, or a
        name for a DataFrame).  The column is removed before the per-node
        estimators see the data.
    handle_unknown : {"global", "error"}, default="global"
        What to do with a node never seen in fit: ``"global"`` predicts with
        the average of the fit's per-node models (mean of ``predict_proba``
        for a classifier that has it, majority vote otherwise, mean
        prediction for a regressor; ``add_nodes`` keeps it); ``"error"``
        raises.
    n_jobs : int, default=None
        Number of nodes fitted in parallel (joblib).

    Attributes
    ----------
    nodes_ : ndarray of shape (n_nodes,)
        Node labels seen in fit.
    estimators_ : dict
        Fitted estimator of every node, keyed by node label.  A classifier
        node that saw a single class gets a constant
        :class:`~sklearn.dummy.DummyClassifier`.
    classes_ : ndarray of shape (n_classes,)
        All classes seen in fit, over all nodes (classifiers only).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Defined when ``X`` has feature names that are all strings.
    n_bytes_sent_ : int
        Always 0: local models communicate nothing.

    See Also
    --------
    sklearn.multioutput.MultiOutputClassifier : one clone per target, not per node.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.linear_model import LogisticRegression
    >>> from skfed.baselines import LocalEstimator
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(40, 2)); groups = np.repeat(["a", "b"], 20)
    >>> y = np.where(groups == "a", X[:, 0] > 0, X[:, 1] > 0).astype(int)
    >>> local = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    >>> local.score(X, y, groups=groups)
    0.95
    """

    _parameter_constraints = {
        "estimator": [HasMethods(["fit", "predict"])],
        **FederatedMixin._federated_parameter_constraints,
        "n_jobs": N_JOBS_CONSTRAINT,
    }

    def __init__(self, estimator, *, group_column=None, handle_unknown="global", n_jobs=None):
        self.estimator = estimator
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        inner = get_tags(self.estimator)
        tags.estimator_type = inner.estimator_type
        tags.classifier_tags = inner.classifier_tags
        tags.regressor_tags = inner.regressor_tags
        tags.target_tags.required = True
        tags.input_tags.sparse = inner.input_tags.sparse
        tags.input_tags.allow_nan = False
        return tags

    def fit(self, X, y, groups=None, sample_weight=None):
        """Fit one clone of ``estimator`` on every node's samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample.  ``None`` (and no ``group_column``)
            means one node, with a :class:`~skfed.SingleNodeWarning`.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to each node's ``fit``.

        Returns
        -------
        self : LocalEstimator
        """
        self._validate_params()
        classifier = is_classifier(self.estimator)
        X, y, sample_weight, layout = self._validate_fit_data(
            X,
            y,
            groups,
            sample_weight,
            accept_sparse=get_tags(self.estimator).input_tags.sparse and ["csr", "csc"],
            y_numeric=not classifier,
        )
        if classifier:
            check_classification_targets(y)
            self.classes_ = np.unique(y)
        self.estimators_ = dict(
            zip(self.nodes_.tolist(), self._fit_nodes(X, y, sample_weight, layout, self.nodes_))
        )
        self.n_bytes_sent_ = 0
        self._n_fit = len(self.nodes_)  # the unseen nodes' average (add_nodes keeps it)
        return self

    def add_nodes(self, X, y, groups=None, sample_weight=None):
        """Fit one clone of ``estimator`` on each new node's samples only.

        The nodes of ``fit`` (and of earlier joins) keep their fitted
        estimators untouched; nothing is communicated.  Each new node's
        estimator is fitted exactly as :meth:`fit` would fit it.  A node
        unseen in fit and in every join still predicts with the average of
        the fit's nodes' models (a join changes nothing but its newcomers).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Samples of the new nodes, with the features of ``fit``.
        y : array-like of shape (n_samples,)
            Their targets (classes of ``classes_`` for a classifier).
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``); each
            must be absent from ``nodes_``.
        sample_weight : array-like of shape (n_samples,), default=None
            Passed to each new node's ``fit``.

        Returns
        -------
        self : LocalEstimator
            With the new nodes appended to ``nodes_`` and ``estimators_``.

        Examples
        --------
        >>> import numpy as np
        >>> from sklearn.linear_model import LogisticRegression
        >>> from skfed.baselines import LocalEstimator
        >>> rng = np.random.RandomState(0)
        >>> X = rng.normal(size=(60, 2)); groups = np.repeat(["a", "b", "c"], 20)
        >>> y = (X[:, 0] > 0).astype(int)
        >>> local = LocalEstimator(LogisticRegression()).fit(X[:40], y[:40], groups=groups[:40])
        >>> local.add_nodes(X[40:], y[40:], groups=groups[40:]).nodes_.tolist()
        ['a', 'b', 'c']
        """
        check_is_fitted(self)
        X, y, sample_weight, new_labels, layout = self._validate_join_data(
            X,
            y,
            groups,
            sample_weight,
            accept_sparse=get_tags(self.estimator).input_tags.sparse and ["csr", "csc"],
            y_numeric=not is_classifier(self.estimator),
        )
        if is_classifier(self.estimator):
            check_classification_targets(y)
        fitted = self._fit_nodes(X, y, sample_weight, layout, new_labels)
        self._append_nodes(new_labels)
        self.estimators_.update(zip(new_labels.tolist(), fitted))
        return self

    def _fit_nodes(self, X, y, sample_weight, layout, node_labels):
        """Fitted copies of ``estimator``, one per node of ``layout``."""
        classifier = is_classifier(self.estimator)
        labels = np.asarray(node_labels).tolist()
        n_nodes = layout.n_nodes
        if np.all(layout.codes[1:] >= layout.codes[:-1]):
            # Already node by node (the usual layout of per-node data): no copy.
            X_nodes, y_nodes, w_nodes = X, y, sample_weight
        else:
            X_nodes, y_nodes = layout.sort(X), y[layout.order]
            w_nodes = None if sample_weight is None else sample_weight[layout.order]
        offsets = layout.offsets
        if classifier:
            # A node whose samples all have one class: first == last class.
            _, y_codes = np.unique(y_nodes, return_inverse=True)
            y_codes = y_codes.ravel()
            lo = np.minimum.reduceat(y_codes, offsets[:-1])
            hi = np.maximum.reduceat(y_codes, offsets[:-1])
            single_class = lo == hi
        else:
            single_class = np.zeros(n_nodes, dtype=bool)
        template = clone(self.estimator)

        def chunk_args(first, stop, validated):
            lo, hi = offsets[first], offsets[stop]
            return (
                template, X_nodes[lo:hi], y_nodes[lo:hi],
                None if w_nodes is None else w_nodes[lo:hi],
                offsets[first : stop + 1] - lo, single_class[first:stop],
                labels[first:stop], validated,
            )

        # Nodes up to the first one that fits the estimator itself (not a
        # one-class DummyClassifier) are fitted here with the estimator's
        # full parameter validation, so a bad parameter raises its own clear
        # error; the other nodes' identical copies skip it, a few chunks of
        # consecutive nodes per joblib task.
        real = np.flatnonzero(~single_class)
        head = int(real[0]) + 1 if real.size else n_nodes
        fitted = _fit_chunk(*chunk_args(0, head, False))
        if head < n_nodes:
            bounds = node_chunks(n_nodes - head, self.n_jobs, chunks_per_worker=4)
            parts = Parallel(n_jobs=capped_n_jobs(self.n_jobs, len(bounds)))(
                delayed(_fit_chunk)(*chunk_args(head + first, head + stop, True))
                for first, stop in bounds
            )
            fitted = fitted + [est for part in parts for est in part]
        return fitted

    # ---------------------------------------------------------------- helpers
    def _per_node(self, X, groups, method, n_outputs, unseen_method=None):
        """``method(estimator, rows)`` with each row's node model.

        Rows of nodes unseen in fit get the mean of ``unseen_method`` (default
        ``method``) over the models of the fit's nodes (not the joined ones).
        """
        unseen_method = method if unseen_method is None else unseen_method
        X, codes = self._validate_predict_data(X, groups, accept_sparse=["csr", "csc"])
        estimators = list(self.estimators_.values())
        fitted = estimators[:getattr(self, "_n_fit", len(estimators))]
        out = None
        # Rows grouped by node with one stable sort (unseen nodes, code -1,
        # form one group: they all use the average model).
        order = np.argsort(codes, kind="stable")
        nodes, starts = np.unique(codes[order], return_index=True)
        stops = np.append(starts[1:], len(codes))
        with config_context(assume_finite=True):  # X was checked above
            for node, start, stop in zip(nodes.tolist(), starts.tolist(), stops.tolist()):
                rows = order[start:stop]
                if node >= 0:
                    try:  # name the node whose model refused the rows, as fit does
                        values = method(estimators[node], X[rows])
                    except ValueError as exc:
                        label = self.nodes_[node:node + 1].tolist()[0]
                        raise ValueError(f"Node {label!r}: {exc}") from exc
                else:
                    values = np.mean(
                        [unseen_method(est, X[rows]) for est in fitted], axis=0
                    )
                if out is None:
                    out = np.zeros((X.shape[0],) + values.shape[1:], dtype=values.dtype)
                out[rows] = values
        if out is None:
            out = np.zeros((0,) + n_outputs)
        return out

    def _aligned_proba(self, estimator, X):
        proba = np.zeros((X.shape[0], len(self.classes_)))
        columns = np.searchsorted(self.classes_, estimator.classes_)
        proba[:, columns] = estimator.predict_proba(X)
        return proba

    def _vote(self, estimator, X):
        votes = np.zeros((X.shape[0], len(self.classes_)))
        columns = np.searchsorted(self.classes_, estimator.predict(X))
        votes[np.arange(X.shape[0]), columns] = 1.0
        return votes

    # ------------------------------------------------------------- prediction
    def predict(self, X, groups=None):
        """Predict with the model of each sample's node.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column`` or
            after a one-node fit).

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        check_is_fitted(self)
        if not is_classifier(self.estimator):
            return self._per_node(X, groups, lambda est, Z: est.predict(Z), ())
        if all(hasattr(est, "predict_proba") for est in self.estimators_.values()):
            average = self._aligned_proba
        else:
            average = self._vote
        # A seen node predicts with its own model; an unseen one with the average.
        scores = self._per_node(
            X, groups, self._vote, (len(self.classes_),), unseen_method=average
        )
        return self.classes_[np.argmax(scores, axis=1)]

    @available_if(_estimator_has("predict_proba"))
    def predict_proba(self, X, groups=None):
        """Class probabilities from the model of each sample's node.

        Columns follow the global ``classes_``; a class a node never saw gets
        probability 0 from that node.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        check_is_fitted(self)
        return self._per_node(X, groups, self._aligned_proba, (len(self.classes_),))

    @available_if(_estimator_has("decision_function"))
    def decision_function(self, X, groups=None):
        """Decision function of the model of each sample's node.

        For a binary problem a node that saw one class returns -1 or +1
        (toward that class); for multiclass, columns of classes a node never
        saw get the row minimum minus one.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        groups : array-like of shape (n_samples,), default=None

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
        """
        check_is_fitted(self)
        n_classes = len(self.classes_)
        binary = n_classes == 2

        def decision(estimator, Z):
            if isinstance(estimator, DummyClassifier):
                column = np.searchsorted(self.classes_, estimator.classes_[0])
                if binary:
                    return np.full(Z.shape[0], 1.0 if column == 1 else -1.0)
                scores = np.full((Z.shape[0], n_classes), -1.0)
                scores[:, column] = 1.0
                return scores
            raw = np.asarray(estimator.decision_function(Z), dtype=np.float64)
            if binary or len(estimator.classes_) == n_classes:
                return raw
            if raw.ndim == 1:  # a binary node inside a multiclass problem
                raw = np.column_stack([-raw, raw])
            scores = np.repeat(raw.min(axis=1, keepdims=True) - 1.0, n_classes, axis=1)
            scores[:, np.searchsorted(self.classes_, estimator.classes_)] = raw
            return scores

        shape = () if binary else (n_classes,)
        return self._per_node(X, groups, decision, shape)

    def score(self, X, y, groups=None, sample_weight=None):
        """Accuracy (classifier) or R^2 (regressor) of the per-node predictions, pooled.

        Pooled over all rows as scikit-learn's ``score``; the mean over the nodes is
        ``make_group_scorer(average="nodes")`` (:mod:`skfed.model_selection`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
        """
        mixin = FederatedClassifierMixin if is_classifier(self.estimator) else FederatedRegressorMixin
        return mixin.score(self, X, y, groups=groups, sample_weight=sample_weight)
