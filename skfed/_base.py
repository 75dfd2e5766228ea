"""Shared plumbing of every skfed estimator.

Each estimator writes only its algorithm; this module implements the
estimator contract of the design once:

* node ids come from ``groups=`` or from a column of ``X`` (``group_column``),
  and when both are given they must agree;
* ``nodes_`` holds the node labels seen in fit (sorted, like ``classes_``)
  and indexes every per-node axis of the fitted attributes;
* samples are laid out node by node (:class:`NodeLayout`: a stable sort
  order and offsets) for the Cython solvers;
* one ``uint32`` seed per node is drawn from ``random_state``;
* ``groups`` is requested by default for fit / predict / predict_proba /
  decision_function / score / transform under metadata routing;
* fitting a multi-node method on one node warns, predicting without node ids
  after a multi-node fit raises, and nodes unseen in fit follow
  ``handle_unknown``;
* the communication attributes (``communication_``, ``n_bytes_sent_``,
  ``n_messages_``, ``bytes_per_round_``) are set from the network simulation;
* nodes that join after the fit (``add_nodes``): their data are validated
  against the fit (features, classes, node ids not in ``nodes_``), their
  labels are appended to ``nodes_`` (the fitted nodes keep their indices, so
  their per-node attributes do not move) and what the join sent is kept in
  its own log, ``join_communication_``, while ``n_bytes_sent_`` and
  ``n_messages_`` stay the running totals of the fit and every join;
* the HTML representation of every public estimator and parameter object
  links to its page of the API reference (:class:`DocLinkMixin`).

Why a dedicated method (``add_nodes``) and not ``partial_fit``
----------------------------------------------------------------
In scikit-learn ``partial_fit`` means "learn from more samples of the same
problem": every call may move every parameter, and most skfed families are
batch methods without one.  A join is a different contract: only the new
nodes learn, from what the fitted federation already knows, and the fitted
nodes' models stay bit-identical.  A method of its own states that
contract, refuses node ids that are already in ``nodes_`` (so a typo in a
node id cannot silently retrain a node or create a duplicate), and exists
for every family with the same signature ``add_nodes(X, y, groups=...,
sample_weight=None)``, returning ``self`` as ``fit`` does.  The online
learner, whose ``partial_fit`` is a stream, also lets samples of unseen
nodes join through ``partial_fit``: they join by the same code and then
stream with everyone else.
"""

import itertools
import numbers
import warnings

import numpy as np
from scipy import sparse
from sklearn.base import ClassifierMixin, RegressorMixin
from sklearn.metrics import accuracy_score, r2_score
from sklearn.utils import assert_all_finite, check_random_state
from sklearn.utils.validation import (
    check_array,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from ._compat import (
    Interval,
    StrOptions,
    _check_feature_names,
    _check_n_features,
    _check_sample_weight,
)
from ._fit_weights import weights_in_data_dtype, weights_working_dtype
from ._join_common import pad_log  # (re-exported: the online learner's logs)
from ._join_params import record_join_params
from ._magnitude import (  # (re-exported: check_C_weight, largest_row_norm, MAX_C_WEIGHT)
    MAX_C_WEIGHT, check_C_weight, check_magnitude, check_weighted_squares, largest_row_norm,  # noqa: F401
    working_dtype)
from ._node_ids import (  # (_check_label_kinds, _lookup_labels and _same_labels re-exported)
    _check_label_kinds,  # noqa: F401
    _kinds_text,
    _label_kinds,
    _lookup_labels,
    _same_labels,
    plain_label,
)

__all__ = [
    "DOCUMENTATION_URL",
    "DocLinkMixin",
    "SingleNodeWarning",
    "NodeLayout",
    "FederatedMixin",
    "FederatedClassifierMixin",
    "FederatedRegressorMixin",
    "node_seeds",
    "check_groups",
    "check_network_faults",
    "check_node_weights",
    "check_sample_weight",
    "pad_log",
    "N_JOBS_CONSTRAINT",
]

# ``n_jobs`` as scikit-learn and joblib understand it: None, a positive
# number of workers or a negative one (-1 all CPUs, -2 all but one, ...);
# 0 means nothing and is refused by parameter validation, naming n_jobs.
N_JOBS_CONSTRAINT = [
    None,
    Interval(numbers.Integral, None, -1, closed="right"),
    Interval(numbers.Integral, 1, None, closed="left"),
]


# The documentation's home; pyproject.toml's [project.urls] says the same
# (a test checks that they agree).
DOCUMENTATION_URL = "https://skfed.readthedocs.io"


class DocLinkMixin:
    """Link the HTML representation of an estimator to its API reference page.

    scikit-learn's HTML representation (``_repr_html_``, what a notebook
    shows) draws a "?" link to the estimator's documentation, and links from
    every parameter to its description, only for classes of the package
    named by ``_doc_link_module``.  This mixin names skfed and points the
    links at the pages that ``doc/api.rst`` generates: one page per public
    class, ``generated/<public module>.<class name>.html``, where the public
    module is the class's module up to its first private part (a class
    defined in ``skfed.multitask._classes`` is documented as
    ``skfed.multitask.<name>``).  A development version (``.dev`` in
    ``skfed.__version__``) links to the ``latest`` documentation, a release
    to ``stable``.

    Put it before :class:`~sklearn.base.BaseEstimator` in the bases;
    :class:`FederatedMixin` carries it, so every estimator built on it does.
    """

    _doc_link_module = "skfed"
    _doc_link_url_param_generator = None

    @property
    def _doc_link_template(self):
        template = getattr(self, "_skfed_doc_link_template", None)
        if template is not None:
            return template
        from . import __version__

        channel = "latest" if "dev" in __version__ else "stable"
        return (
            f"{DOCUMENTATION_URL}/en/{channel}/generated/"
            "{estimator_module}.{estimator_name}.html"
        )

    @_doc_link_template.setter
    def _doc_link_template(self, value):
        # scikit-learn lets a user override the template per instance.
        self._skfed_doc_link_template = value

    def _get_doc_link(self):
        """The URL of this class's page in the API reference.

        Returns
        -------
        url : str
            ``""`` for a class outside skfed (e.g. a user's subclass defined
            in their own module), as scikit-learn does.
        """
        module = type(self).__module__
        if module.split(".")[0] != self._doc_link_module:
            return ""
        if self._doc_link_url_param_generator is not None:
            return self._doc_link_template.format(**self._doc_link_url_param_generator())
        public_module = ".".join(
            itertools.takewhile(lambda part: not part.startswith("_"), module.split("."))
        )
        return self._doc_link_template.format(
            estimator_module=public_module, estimator_name=type(self).__name__
        )


class SingleNodeWarning(UserWarning):
    """A multi-node method was fitted with no node ids (one node).

    This usually means the node ids were lost on the way, for example by
    :class:`~sklearn.model_selection.GridSearchCV` without metadata routing.
    """


_GROUPS_HELP = (
    "pass them as groups=... or set group_column to the column of X that "
    "holds them (the route that works everywhere in scikit-learn, including "
    "string scorers, cross_val_predict and a search's predict); with "
    "sklearn.set_config(enable_metadata_routing=True), a Pipeline routes "
    "groups= to every method and GridSearchCV to fit and score, but a "
    "search's predict, predict_proba and decision_function pass none: call "
    "them on search.best_estimator_ with groups="
)


def node_seeds(random_state, n_nodes):
    """One ``uint32`` seed per node, drawn from ``random_state``.

    The Cython solvers advance a private xorshift state per node from these
    seeds, so results never depend on thread scheduling.
    """
    rng = check_random_state(random_state)
    seeds = rng.randint(1, np.iinfo(np.int32).max, size=n_nodes).astype(np.uint32)
    return seeds


_FAULTS = {
    "drop_rate": "dropped nodes",
    "straggler_rate": "stragglers",
    "rogue_fraction": "rogue nodes",
}


def check_network_faults(estimator, network, unsupported):
    """Refuse the faults of ``network`` that ``estimator`` does not model.

    No fault is silently ignored: a fault either has its documented effect
    on the fit or the fit stops here with an error naming the fault and the
    estimator.

    Parameters
    ----------
    estimator : estimator instance
    network : SimulatedNetwork or None
    unsupported : dict
        Fault parameter (``"drop_rate"``, ``"straggler_rate"``,
        ``"rogue_fraction"``) -> why the method has no such fault.
    """
    from .network import resolve_network

    if network is None:
        return
    network = resolve_network(network)  # a TypeError naming network for anything else
    for param, why in unsupported.items():
        value = getattr(network, param)
        if value:
            raise ValueError(
                f"{type(estimator).__name__} does not model {_FAULTS[param]} "
                f"(network.{param}={value!r}): {why}. Set network.{param}=0."
            )


def check_sample_weight(sample_weight, X, *, dtype=None, working=None, **options):
    """Validate ``sample_weight`` of a fit: shape, finiteness and sign.

    The one check every skfed estimator applies (through
    :meth:`FederatedMixin._validate_fit_data`): one finite, non-negative
    weight per sample.  A negative weight is refused, naming the first one;
    a weight of zero is allowed (the sample is ignored), and
    :func:`check_node_weights` names a node left with no positive weight.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,), scalar or None
        None or a scalar gives the same weight to every sample.
    X : array-like of shape (n_samples, n_features)
    dtype : dtype, default=None
        Of the returned weights (float64 when None).
    working : dtype, default=None
        The dtype the estimator squares them in (``_magnitude.working_dtype``);
        None: ``dtype``.
    **options : for ``_compat._check_sample_weight`` (``allow_all_zero_weights``).

    Returns
    -------
    sample_weight : ndarray of shape (n_samples,)
    """
    sample_weight = _check_sample_weight(sample_weight, X, dtype=dtype, **options)
    check_magnitude(sample_weight, "sample_weight", working)
    check_weighted_squares(sample_weight, X)
    negative = np.flatnonzero(sample_weight < 0)
    if negative.size:
        first = negative[0]
        raise ValueError(
            f"sample_weight must be non-negative; {negative.size} of its "
            f"{sample_weight.shape[0]} values are negative (the first, at index "
            f"{first}, is {float(sample_weight[first])!r})."
        )
    return sample_weight


def check_node_weights(estimator, codes, sample_weight, *, min_samples=1, why="",
                       labels=None):
    """Raise naming the first node with too few samples of positive weight.

    Parameters
    ----------
    estimator : estimator instance with ``nodes_``
    codes : ndarray of shape (n_samples,)
        Index into ``labels`` of every sample.
    sample_weight : ndarray of shape (n_samples,) or None
    min_samples : int, default=1
        Samples of positive weight every node present in ``codes`` needs.
    why : str, default=""
        Why the method needs ``min_samples`` of them (for the message).
    labels : ndarray, default=None
        The nodes' labels: ``estimator.nodes_`` when None, a join's new nodes.
    """
    labels = estimator.nodes_ if labels is None else labels
    positive = np.ones(len(codes), dtype=bool) if sample_weight is None else sample_weight > 0
    present = np.bincount(codes, minlength=len(labels)) > 0
    counts = np.bincount(codes, weights=positive, minlength=len(labels))
    bad = np.flatnonzero(present & (counts < min_samples))
    if bad.size:
        node = plain_label(labels[bad[0]])
        what = ("has no sample with a positive sample_weight" if min_samples == 1
                else f"has {int(counts[bad[0]])} sample(s) with a positive sample_weight")
        raise ValueError(
            f"Node {node!r} {what}; {type(estimator).__name__} needs at least "
            f"{min_samples} per node{why}."
            + (f" ({bad.size} such nodes.)" if bad.size > 1 else "")
        )


def check_groups(groups, n_samples, *, name="groups"):
    """Validate per-sample node ids and return them as a 1-d array.

    Raises a clear error for a wrong shape, a wrong length, missing values or
    labels of mixed types.
    """
    if groups is None:
        return None
    if sparse.issparse(groups):
        raise TypeError(f"{name} must be a 1-d array-like of node ids, got a sparse matrix.")
    if hasattr(groups, "to_numpy"):
        groups = groups.to_numpy()
    groups = np.asarray(groups)
    if groups.ndim == 2 and groups.shape[1] == 1:
        groups = groups.ravel()
    if groups.ndim != 1:
        raise ValueError(
            f"{name} must be 1-d (one node id per sample), got shape {groups.shape}."
        )
    if groups.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {groups.shape[0]} entries but X has {n_samples} samples; "
            "give one node id per sample."
        )
    if groups.dtype.kind == "f":
        if not np.all(np.isfinite(groups)):
            raise _missing_ids(name, groups, "NaN or infinite node ids")
    elif groups.dtype.kind == "O":
        _check_object_labels(groups, name)
    elif groups.dtype.kind not in "iubUS":
        raise TypeError(
            f"{name} must hold integer, string or other hashable node ids, got "
            f"dtype {groups.dtype}."
        )
    return groups


def _missing_ids(name, groups, what="missing node ids (None or NaN)"):
    """The error for node ids that are None or not finite, naming the first sample."""
    first = next(i for i, value in enumerate(groups) if value is None or (
        isinstance(value, (float, np.floating)) and not np.isfinite(value)))
    return ValueError(
        f"{name} contains {what}, the first at sample {first}: "
        "every sample needs the id of its node; drop the rows whose node is unknown "
        "or give them one.")


def _check_object_labels(groups, name):
    """Missing, unhashable or mixed-type node ids in an object array.

    Works on the distinct labels (a set built in C), so its cost is one
    hashing pass over the samples, not a Python loop over them.
    """
    try:
        labels = set(groups.tolist())
    except TypeError:
        labels = None
    if labels is None or None in labels:
        for value in groups:  # find the first culprit for the message
            if value is None:
                raise _missing_ids(name, groups)
            try:
                hash(value)
            except TypeError as exc:
                raise TypeError(
                    f"{name} must hold hashable node ids, got {type(value).__name__}."
                ) from exc
    types = set(map(type, labels))
    floats = [type_ for type_ in types if issubclass(type_, (float, np.floating))]
    if floats:
        values = np.array([v for v in labels if isinstance(v, (float, np.floating))])
        if not np.all(np.isfinite(values)):
            raise _missing_ids(name, groups)
    has_str = any(issubclass(type_, (str, np.str_)) for type_ in types)
    kinds = {type_.__name__ for type_ in types if not issubclass(type_, (str, np.str_))}
    if has_str and kinds:
        raise TypeError(
            f"{name} mixes strings and other types ({sorted(kinds)}); use node "
            "ids of one type."
        )


def _factorize(groups):
    """``np.unique(groups, return_inverse=True)``, in linear time when the
    node ids are integers already in non-decreasing order (the usual layout
    of per-node data: a million clients' 30 million rows need no sort)."""
    labels, codes, _ = _factorize_counts(groups)
    return labels, codes


def _factorize_counts(groups):
    """:func:`_factorize` plus each label's count when the ids were sorted.

    Returns ``(labels, codes, counts)``; ``counts`` (one per label, in the
    order of ``labels``) is None unless the node ids are integers in
    non-decreasing order, where the codes are written run by run (no
    cumulative sum) and the counts let :class:`NodeLayout` skip its own
    order check and counting pass.
    """
    if (groups.dtype.kind in "iu" and len(groups)
            and np.all(groups[1:] >= groups[:-1])):
        starts = np.flatnonzero(groups[1:] != groups[:-1]) + 1
        bounds = np.concatenate([[0], starts, [len(groups)]]).astype(np.intp)
        counts = np.diff(bounds)
        codes = np.repeat(np.arange(len(counts), dtype=np.intp), counts)
        return groups[bounds[:-1]], codes, counts
    labels, codes = np.unique(groups, return_inverse=True)
    return labels, codes, None


class NodeLayout:
    """Samples laid out node by node, for the Cython solvers.

    Parameters
    ----------
    codes : ndarray of shape (n_samples,)
        Node index (0 .. n_nodes - 1) of every sample.
    n_nodes : int
    counts : ndarray of shape (n_nodes,), default=None
        Samples of every node, given only when ``codes`` are known to be in
        non-decreasing order (then neither checked nor counted again).

    Attributes
    ----------
    codes : ndarray of shape (n_samples,), dtype=intp
    n_nodes : int
    order : ndarray of shape (n_samples,), dtype=intp
        Stable permutation that groups the samples node by node:
        ``X[order][offsets[t]:offsets[t + 1]]`` are node t's samples, in
        their original order.
    offsets : ndarray of shape (n_nodes + 1,), dtype=intp
    counts : ndarray of shape (n_nodes,), dtype=intp
    in_order : bool
        Whether the samples already are node by node (``order`` is then the
        identity, and only built if asked for).
    """

    def __init__(self, codes, n_nodes, *, counts=None):
        self.codes = np.asarray(codes, dtype=np.intp)
        self.n_nodes = int(n_nodes)
        # ``counts`` is given only by a caller that knows the codes are in
        # non-decreasing order (:func:`_factorize_counts`): it saves the
        # order check and the counting pass over the samples.
        self.in_order = counts is not None or bool(np.all(self.codes[1:] >= self.codes[:-1]))
        self._order = None
        if not self.in_order:
            self._order = np.argsort(self.codes, kind="stable").astype(np.intp)
        if counts is None:
            counts = np.bincount(self.codes, minlength=self.n_nodes)
        self.counts = np.asarray(counts).astype(np.intp)
        self.offsets = np.zeros(self.n_nodes + 1, dtype=np.intp)
        np.cumsum(self.counts, out=self.offsets[1:])

    @property
    def order(self):
        """Stable permutation grouping the samples node by node (the identity
        when they already are, built on first use)."""
        if self._order is None:
            self._order = np.arange(len(self.codes), dtype=np.intp)
        return self._order

    @order.setter
    def order(self, value):
        # A caller that maps the rows elsewhere (e.g. the kept rows of a
        # larger training set) sets it; ``in_order`` then no longer holds.
        self._order = np.asarray(value, dtype=np.intp)
        self.in_order = False

    def node_slice(self, node):
        """Slice of node ``node``'s rows in the node-ordered arrays."""
        return slice(self.offsets[node], self.offsets[node + 1])

    def node_indices(self, node):
        """Original row indices of node ``node``'s samples."""
        return self.order[self.offsets[node] : self.offsets[node + 1]]

    def sort(self, array):
        """``array`` (rows) reordered node by node, C-contiguous."""
        if array is None:
            return None
        if sparse.issparse(array):
            return array[self.order]
        return np.ascontiguousarray(array[self.order])

    def unsort(self, array):
        """Inverse of :meth:`sort` for an array of per-sample rows."""
        out = np.empty_like(array)
        out[self.order] = array
        return out


def _split_group_column(X, group_column):
    """Split ``X`` into its node-id column and the remaining features."""
    if hasattr(X, "columns") and hasattr(X, "iloc"):  # DataFrame
        columns = list(X.columns)
        if isinstance(group_column, str):
            if group_column not in columns:
                raise ValueError(
                    f"group_column={group_column!r} is not a column of X "
                    f"(columns: {columns[:10]}{'...' if len(columns) > 10 else ''})."
                )
            position = columns.index(group_column)
        else:
            position = _column_position(group_column, len(columns))
        groups = X.iloc[:, position].to_numpy()
        rest = X.drop(columns=X.columns[position])
        return groups, rest
    if isinstance(group_column, str):
        raise ValueError(
            f"group_column={group_column!r} is a column name but X has no column "
            "names; pass a pandas DataFrame or an integer column index."
        )
    if sparse.issparse(X):
        X = sparse.csc_matrix(X)
        position = _column_position(group_column, X.shape[1])
        groups = X[:, position].toarray().ravel()
        keep = np.delete(np.arange(X.shape[1]), position)
        return groups, X[:, keep]
    X = np.asarray(X)
    if X.ndim != 2:
        raise ValueError(
            f"Expected 2D array, got {X.ndim}D array instead; group_column needs a "
            "2-d X."
        )
    position = _column_position(group_column, X.shape[1])
    groups = X[:, position]
    rest = np.delete(X, position, axis=1)
    if groups.dtype == object:
        try:
            rest = rest.astype(np.float64)
        except (TypeError, ValueError):
            pass
    return groups, rest


def _column_position(group_column, n_columns):
    if not isinstance(group_column, numbers.Integral) or isinstance(group_column, bool):
        raise TypeError(
            f"group_column must be an integer index, a column name or None, got "
            f"{group_column!r}."
        )
    if not -n_columns <= group_column < n_columns:
        raise ValueError(
            f"group_column={group_column} is out of range for X with {n_columns} "
            "columns."
        )
    return int(group_column) % n_columns


class FederatedMixin(DocLinkMixin):
    """Node-id handling shared by every skfed estimator.

    Subclasses declare ``group_column`` and ``handle_unknown`` constructor
    parameters and call :meth:`_validate_fit_data` in ``fit`` and
    :meth:`_validate_predict_data` in their predict methods.
    """

    # Request node ids by default under metadata routing, as GroupKFold does.
    __metadata_request__fit = {"groups": True}
    __metadata_request__partial_fit = {"groups": True}
    __metadata_request__predict = {"groups": True}
    __metadata_request__predict_proba = {"groups": True}
    __metadata_request__predict_log_proba = {"groups": True}
    __metadata_request__decision_function = {"groups": True}
    __metadata_request__score = {"groups": True}
    __metadata_request__transform = {"groups": True}

    _federated_parameter_constraints = {
        "group_column": [None, numbers.Integral, str],
        "handle_unknown": [StrOptions({"global", "error"})],
    }

    # ------------------------------------------------------------------ fit side
    def _split_X(self, X, reset):
        """Return ``(X_features, column_groups)``, checking feature counts/names."""
        if self.group_column is None:
            return X, None
        if not (hasattr(X, "shape") and len(getattr(X, "shape", ())) == 2):
            if sparse.issparse(X) or hasattr(X, "iloc"):
                pass
            else:
                X = np.asarray(X)
                if X.ndim != 2:
                    raise ValueError(
                        f"Expected 2D array, got {X.ndim}D array instead. Reshape your "
                        "data either using array.reshape(-1, 1) if your data has a "
                        "single feature or array.reshape(1, -1) if it contains a single "
                        "sample; X must be 2-d when group_column is set."
                    )
        if not hasattr(X, "iloc") and np.iscomplexobj(X):
            raise ValueError(f"Complex data not supported\n{X}\n")
        if X.shape[1] == 0:
            raise ValueError(
                f"Found array with 0 feature(s) (shape={tuple(X.shape)}) while a minimum "
                "of 1 is required (the node-id column of group_column plus features)."
            )
        if X.shape[1] == 1 and reset:
            raise ValueError(
                "X has 1 feature(s): only the node-id column (group_column="
                f"{self.group_column!r}); at least one feature is needed besides it."
            )
        if (
            not reset
            and isinstance(self.group_column, str)
            and hasattr(X, "columns")
            and self.group_column not in list(X.columns)
        ):
            raise ValueError(
                f"X lacks the node-id column group_column={self.group_column!r} "
                "that this estimator was fitted with; predicting needs every "
                "sample's node id in that column."
            )
        _check_n_features(self, X, reset=reset)
        _check_feature_names(self, X, reset=reset)
        groups, rest = _split_group_column(X, self.group_column)
        # Node ids are checked before the features, so that a missing id is
        # reported as one (naming group_column), not as NaN in X.
        groups = check_groups(groups, groups.shape[0], name="group_column")
        return rest, groups

    def _resolve_groups(self, groups, column_groups, n_samples):
        groups = check_groups(groups, n_samples)
        if column_groups is not None:
            column_groups = check_groups(column_groups, n_samples, name="group_column")
            if groups is not None and not _same_labels(groups, column_groups):
                raise ValueError(
                    "groups= and the node ids in group_column="
                    f"{self.group_column!r} disagree; pass one or make them equal."
                )
            groups = column_groups
        return groups

    def _validate_fit_data(
        self,
        X,
        y=None,
        groups=None,
        sample_weight=None,
        *,
        accept_sparse=False,
        dtype=(np.float64, np.float32),
        y_numeric=False,
        multi_output=False,
        ensure_min_samples=1,
        requires_y=True,
        single_node_warning=True,
    ):
        """Validate fit inputs and set ``nodes_`` and ``n_features_in_``.

        Returns
        -------
        X : ndarray or sparse matrix of shape (n_samples, n_features)
            The features, without the node-id column, float32 or float64.
        y : ndarray or None
        sample_weight : ndarray of shape (n_samples,) or None
        layout : NodeLayout
        """
        # A fit describes itself only: an earlier fit's privacy accounting and
        # its joins' logs go (a non-private refit kept privacy_spent_).
        for name in [k for k in vars(self) if k.startswith(("privacy_", "join_"))
                     and k.endswith("_")]:
            del self.__dict__[name]
        if requires_y and y is None:
            raise ValueError(
                f"{type(self).__name__} requires y to be passed, but the target y is None."
            )
        if y_numeric:
            y = _numeric_target(y, self)
        X_features, column_groups = self._split_X(X, reset=True)
        check_params = dict(
            accept_sparse=accept_sparse,
            dtype=list(dtype),
            ensure_min_samples=ensure_min_samples,
        )
        if self.group_column is None:
            if y is None:
                X_features = validate_data(self, X_features, reset=True, **check_params)
            else:
                X_features, y = validate_data(
                    self,
                    X_features,
                    y,
                    reset=True,
                    y_numeric=y_numeric,
                    multi_output=multi_output,
                    **check_params,
                )
        else:
            X_features = check_array(X_features, ensure_min_features=1, **check_params)
            if y is not None:
                y = _check_y(y, multi_output=multi_output, y_numeric=y_numeric)
                check_consistent_length(X_features, y)
        working = working_dtype(self, X_features.dtype)
        check_magnitude(X_features, "X", working)
        n_samples = X_features.shape[0]
        groups = self._resolve_groups(groups, column_groups, n_samples)
        if groups is None:
            if single_node_warning:
                warnings.warn(
                    f"{type(self).__name__} was fitted without node ids, so all "
                    "samples are treated as one node. If the data come from several "
                    "nodes, " + _GROUPS_HELP + ".",
                    SingleNodeWarning,
                    stacklevel=3,
                )
            self.nodes_ = np.array([0])
            codes = np.zeros(n_samples, dtype=np.intp)
            counts = np.array([n_samples], dtype=np.intp)
        else:
            try:
                self.nodes_, codes, counts = _factorize_counts(groups)
            except TypeError as exc:
                raise TypeError(
                    "groups could not be sorted; use node ids of one comparable type."
                ) from exc
        self._fitted_with_groups = groups is not None
        if sample_weight is not None:
            # validated in float64 (a weight float32 X cannot hold is no
            # "infinity"), then kept in X's dtype (skfed/_fit_weights.py)
            sample_weight = check_sample_weight(
                sample_weight, X_features, dtype=np.float64,
                working=weights_working_dtype(self, working))
            X_features, sample_weight = weights_in_data_dtype(self, X_features, sample_weight,
                                                              working)
        layout = NodeLayout(codes, len(self.nodes_), counts=counts)
        record_join_params(self)  # what add_nodes must find unchanged
        return X_features, y, sample_weight, layout

    # -------------------------------------------------------------- predict side
    def _validate_predict_data(self, X, groups=None, *, accept_sparse=False, reset=False):
        """Validate predict inputs; map node ids to indices into ``nodes_``.

        Returns
        -------
        X : ndarray or sparse matrix of shape (n_samples, n_features)
        codes : ndarray of shape (n_samples,), dtype=intp
            Index into ``nodes_`` of every sample, -1 for a node unseen in
            fit (only when ``handle_unknown="global"``).
        """
        check_is_fitted(self)
        X_features, column_groups = self._split_X(X, reset=False)
        if self.group_column is None:
            X_features = validate_data(
                self, X_features, reset=False, accept_sparse=accept_sparse,
                dtype=[np.float64, np.float32],
            )
        else:
            X_features = check_array(
                X_features, accept_sparse=accept_sparse, dtype=[np.float64, np.float32]
            )
        n_samples = X_features.shape[0]
        groups = self._resolve_groups(groups, column_groups, n_samples)
        return X_features, self._node_codes(groups, n_samples)

    def _node_codes(self, groups, n_samples, purpose="predict"):
        if groups is None:
            if len(self.nodes_) > 1 or getattr(self, "_fitted_with_groups", False):
                raise ValueError(
                    f"This {type(self).__name__} was fitted on {len(self.nodes_)} "
                    f"nodes, so it needs the node id of every sample to {purpose}: "
                    + _GROUPS_HELP + "."
                )
            return np.zeros(n_samples, dtype=np.intp)
        unique, inverse = np.unique(groups, return_inverse=True)
        fitted_kinds, given_kinds = _label_kinds(self.nodes_), _label_kinds(unique)
        if not given_kinds <= fitted_kinds:
            raise ValueError(
                f"groups holds node ids of kind {_kinds_text(given_kinds)} but "
                f"this {type(self).__name__} was fitted with node ids of kind "
                f"{_kinds_text(fitted_kinds)} (nodes_ has dtype "
                f"{self.nodes_.dtype}); pass the ids as in fit (e.g. convert "
                "ids read back as strings to integers)."
            )
        mapped = _lookup_labels(self.nodes_, unique)
        codes = mapped[inverse.ravel()]
        if np.any(mapped < 0):
            unseen = unique[mapped < 0]
            if self.handle_unknown == "error":
                shown = ", ".join(repr(v) for v in unseen[:5].tolist())
                raise ValueError(
                    f"{len(unseen)} node(s) were not seen in fit ({shown}"
                    f"{', ...' if len(unseen) > 5 else ''}); set "
                    "handle_unknown='global' to predict for them with the model for "
                    "unseen nodes (the shared model, or the average of the fitted "
                    "nodes' models)" + (", or give them their own models with add_nodes."
                               if hasattr(self, "add_nodes") else ".")
                )
        return codes

    # ---------------------------------------------------------- joining nodes
    def _validate_join_data(self, X, y, groups=None, sample_weight=None, *,
                            accept_sparse=False, y_numeric=False):
        """Validate the data of ``add_nodes``: every sample is of a new node
        (:func:`skfed._join_common.validate_join_data`).

        Returns
        -------
        X, y, sample_weight, new_labels, layout
        """
        from ._join_common import validate_join_data

        return validate_join_data(self, X, y, groups, sample_weight,
                                  accept_sparse=accept_sparse, y_numeric=y_numeric)

    def _append_nodes(self, new_labels):
        """Append ``new_labels`` to ``nodes_``; return the first new index.

        The fitted nodes keep their indices, so every per-node attribute is
        extended by appending rows, never reordered.
        """
        n_old = len(self.nodes_)
        nodes = np.concatenate([self.nodes_, np.asarray(new_labels)])
        if nodes.dtype.kind == "f" and self.nodes_.dtype.kind in "iub":  # (int64 + uint64:
            nodes = np.array(self.nodes_.tolist() + np.asarray(new_labels).tolist())  # exact)
        if nodes.dtype.kind == "O" or self.nodes_.dtype.kind == "O":
            nodes = np.array(self.nodes_.tolist() + np.asarray(new_labels).tolist(), dtype=object)
        elif not all(a == b for a, b in zip(
                nodes.tolist(), self.nodes_.tolist() + np.asarray(new_labels).tolist())):
            # integer ids float64 cannot hold (>= 2**53) with float ones, fitted or
            # new: keep every id exact (object), never merge two nodes
            nodes = np.array(self.nodes_.tolist() + np.asarray(new_labels).tolist(),
                             dtype=object)
        self.nodes_ = nodes
        self._fitted_with_groups = True
        return n_old

    def _record_join(self, log):
        """Keep the join's ``log`` in ``join_communication_`` and update the totals.

        Successive joins add up in one log over all nodes (rounds
        appended); ``n_bytes_sent_`` and ``n_messages_`` stay the totals of
        the fit (``communication_``) and of every join.
        """
        previous = getattr(self, "join_communication_", None)
        if previous is not None:
            log = pad_log(previous, log.node_labels).combine(log)
        self.join_communication_ = log
        self._set_totals()
        return log

    def _set_totals(self):
        """``n_bytes_sent_`` / ``n_messages_``: the fit's log plus the joins'."""
        logs = [getattr(self, name, None) for name in ("communication_", "join_communication_")]
        logs = [log for log in logs if log is not None]
        self.n_bytes_sent_ = sum(log.total_bytes for log in logs)
        self.n_messages_ = sum(log.total_messages for log in logs)

    # ------------------------------------------------------------ communication
    def _set_communication(self, simulation):
        """Set the communication attributes from a :class:`NetworkSimulation`."""
        log = simulation.log(node_labels=self.nodes_)
        self.communication_ = log
        self.n_bytes_sent_ = log.total_bytes
        self.n_messages_ = log.total_messages
        self.bytes_per_round_ = log.bytes_per_round
        return log


def _numeric_target(y, estimator):
    """A numeric target ``y``: strings (or objects) that are not numbers are
    refused with an error naming ``y``; numbers written as strings become
    float64; anything else is returned as given (validated later)."""
    if y is None or hasattr(y, "toarray"):
        return y
    values = np.asarray(y)
    if values.dtype.kind not in "OUS":
        return y
    try:
        return values.astype(np.float64)
    except (TypeError, ValueError) as exc:
        raise ValueError(
            f"y must hold numbers: {type(estimator).__name__} fits a numeric target, "
            f"and y holds a value that is not a number ({exc}). Encode the target as "
            "numbers (class labels go to a classifier)."
        ) from exc


def _check_y(y, *, multi_output, y_numeric):
    """``y`` checks of ``validate_data`` for the group-column path."""
    if multi_output:
        y = check_array(y, ensure_2d=False, dtype=None, input_name="y")
    else:
        y = column_or_1d(y, warn=True)
    if y_numeric and y.dtype.kind == "O":
        y = y.astype(np.float64)
    if y.dtype.kind in "fc":
        assert_all_finite(y, input_name="y")
    return y


class FederatedClassifierMixin(ClassifierMixin):
    """``score`` with node ids: mean accuracy of the personalized predictions."""

    def score(self, X, y, groups=None, sample_weight=None):
        """Mean accuracy of ``predict(X, groups)`` against ``y``.

        Pooled over all rows, as scikit-learn's ``score``: a node weighs in
        proportion to its rows.  For the mean over the nodes of each node's
        accuracy (what the user guide reports) score with
        ``make_group_scorer(average="nodes")`` (:mod:`skfed.model_selection`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``).
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
        """
        return accuracy_score(y, self.predict(X, groups=groups), sample_weight=sample_weight)


class FederatedRegressorMixin(RegressorMixin):
    """``score`` with node ids: R^2 of the personalized predictions."""

    def score(self, X, y, groups=None, sample_weight=None):
        """Coefficient of determination of ``predict(X, groups)``.

        Pooled over all rows, as scikit-learn's ``score``: a node weighs in
        proportion to its rows.  For the mean over the nodes of each node's
        R^2 score with ``make_group_scorer(r2_score, average="nodes")``
        (:mod:`skfed.model_selection`).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (not needed with ``group_column``).
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        score : float
        """
        return r2_score(y, self.predict(X, groups=groups), sample_weight=sample_weight)
