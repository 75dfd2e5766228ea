"""Within-node cross-validation of ``C``: the CV variants of the multi-task estimators."""

import numbers
import warnings

import numpy as np
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils import check_random_state

from .._base import check_C_weight
from .._compat import Interval
from ._classes import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor


# Parameters of the base estimators that the CV variants do not take: C is
# what they choose and lam is deprecated.  (warm_start is kept: it chooses
# between warm-started paths over Cs and independent fits in every fold.)
_CV_DROPPED = ("C", "lam")


def _check_Cs(Cs):
    """The grid of ``C`` values in increasing order (an int: that many on [0.1, 100])."""
    if isinstance(Cs, numbers.Integral) and not isinstance(Cs, bool):
        if Cs < 1:
            raise ValueError(f"Cs must be a positive int or a list of C values > 0, got {Cs!r}.")
        return np.logspace(-1, 2, int(Cs))
    if isinstance(Cs, str):
        raise TypeError(f"Cs must be a positive int or a list of C values > 0, got {Cs!r}.")
    try:
        values = np.asarray(Cs, dtype=np.float64).ravel()
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"Cs must be a positive int or a list of C values > 0, got {Cs!r}."
        ) from exc
    if values.size == 0:
        raise ValueError("Cs is empty; give at least one C value > 0.")
    if not np.all(np.isfinite(values)) or np.any(values <= 0):
        raise ValueError(f"Every value of Cs must be a finite number > 0, got {Cs!r}.")
    return np.unique(values)


class _MultiTaskCV:
    """Within-node cross-validation of ``C`` (independent fits, or a
    warm-started path per fold with ``warm_start=True``).

    Mixed into a subclass of a multi-task estimator whose ``__init__`` takes
    ``Cs``, ``cv``, ``scoring`` and the base's parameters except
    ``_CV_DROPPED``.
    """

    _base_class = None

    def _inner(self, seed):
        params = {k: v for k, v in self.get_params(deep=False).items()
                  if k not in ("Cs", "cv", "scoring")}
        params["random_state"] = seed
        return self._base_class(**params)

    def _splitter(self, sample_weight=None):
        from ..model_selection import WithinGroupKFold

        n_splits = None
        if self.cv is None:
            n_splits = 3
        elif isinstance(self.cv, numbers.Integral) and not isinstance(self.cv, bool):
            n_splits = int(self.cv)
        if n_splits is not None:
            if sample_weight is not None and np.any(np.asarray(sample_weight) == 0):
                return _WeightedWithinGroupKFold(n_splits, sample_weight)
            return WithinGroupKFold(n_splits=n_splits, small_nodes="keep")
        if hasattr(self.cv, "split"):
            return self.cv
        return _Splits(list(self.cv))

    def _score(self, estimator, X, y, groups, sample_weight):
        kwargs = {} if sample_weight is None else {"sample_weight": sample_weight}
        if self.group_column is None and groups is not None:
            kwargs["groups"] = groups
        if self.scoring is None:
            return float(estimator.score(X, y, **kwargs))
        return float(self.scoring(estimator, X, y, **kwargs))

    def _set_totals(self):
        """The byte totals after a join: ``n_bytes_total_`` counts it too."""
        super()._set_totals()
        if "n_bytes_cv_" in vars(self):
            self.n_bytes_total_ = self.n_bytes_cv_ + int(self.n_bytes_sent_)

    def _fit_cv(self, X, y, groups, sample_weight, y_numeric):
        from sklearn.utils import _safe_indexing

        from .._base import SingleNodeWarning

        self._validate_params()
        if self.privacy is not None:
            raise ValueError(
                f"privacy={self.privacy!r}: {type(self).__name__} runs n_folds x n_Cs + 1 "
                "fits on the same data, each spending the budget, and does not account "
                "for their composition; tune C on public data or with the base estimator."
            )
        Cs = _check_Cs(self.Cs)
        # Validates the data, sets nodes_ and n_features_in_, warns once
        # without node ids; the fits below get the original X and groups.
        _, y_checked, sw, layout = self._validate_fit_data(
            X, y, groups, sample_weight, y_numeric=y_numeric
        )
        total = float(len(y_checked) if sw is None else np.sum(sw))  # (the final fit's)
        for C in Cs:  # the inner fit's bound on C x weight, naming Cs (review34)
            check_C_weight(C * total, f"{type(self).__name__}, Cs value C={C:g}")
        if groups is not None and self.group_column is None:
            groups = np.asarray(groups)
        if not hasattr(X, "iloc"):  # (sparse X was refused above)
            X = np.asarray(X)  # lists and array-likes, for the folds' row indexing
        split_groups = layout.codes  # node index of every sample (0 for one node)
        splits = list(self._splitter(sw).split(X, y_checked, groups=split_groups))
        if not splits:
            raise ValueError(f"cv={self.cv!r} produced no splits.")
        # Every training fold must hold samples of every node, weighted or not
        # (a node missing from one has no model there, only the shared one).
        _check_positive_training_weight(
            splits, split_groups, np.ones(len(split_groups)) if sw is None else sw,
            self.nodes_, self.cv, has_weights=sw is not None)
        random_state = self.random_state
        if not isinstance(random_state, numbers.Integral):
            # One seed for every fit: the same random features, landmarks and
            # coordinate orders along a path and across folds.
            random_state = int(check_random_state(random_state).randint(np.iinfo(np.int32).max))
        n_folds, n_Cs = len(splits), len(Cs)
        scores = np.empty((n_folds, n_Cs))
        n_bytes = np.zeros((n_folds, n_Cs), dtype=np.int64)
        n_iter = np.zeros((n_folds, n_Cs), dtype=np.int64)
        fold_groups = groups if self.group_column is None else None

        def rows(a, idx):
            return None if a is None else _safe_indexing(a, idx)

        with warnings.catch_warnings():
            # One node (no ids): warned once above, not at every fit.
            warnings.simplefilter("ignore", SingleNodeWarning)
            stopped = []  # the path fits' ConvergenceWarnings, reported once
            for k, (train, test) in enumerate(splits):
                model = self._inner(random_state)  # warm_start: self.warm_start
                for j, C in enumerate(Cs):
                    with warnings.catch_warnings(record=True) as caught:
                        warnings.simplefilter("always")
                        warnings.simplefilter("ignore", SingleNodeWarning)
                        model.set_params(C=float(C)).fit(
                            rows(X, train), rows(y_checked, train),
                            groups=rows(fold_groups, train),
                            sample_weight=rows(sw, train),
                        )
                    for w in caught:
                        if issubclass(w.category, ConvergenceWarning):
                            stopped.append((k, float(C), str(w.message)))
                        else:
                            warnings.warn(w.message, w.category, stacklevel=2)
                    n_bytes[k, j] = model.n_bytes_sent_
                    n_iter[k, j] = model.n_iter_
                    scores[k, j] = self._score(model, rows(X, test), rows(y_checked, test),
                                               rows(fold_groups, test), rows(sw, test))
            mean = scores.mean(axis=0)
            if not np.all(np.isfinite(mean)):
                raise ValueError(
                    f"scoring={self.scoring!r} returned non-finite scores for Cs "
                    f"{Cs[~np.isfinite(mean)].tolist()}."
                )
            if stopped:
                fold, C, message = stopped[0]
                warnings.warn(
                    f"{len(stopped)} of {n_folds * n_Cs} fits of the C path did not "
                    f"converge (their scores are those of the models they returned); "
                    f"the first, fold {fold} at C={C:g}: {message}",
                    ConvergenceWarning, stacklevel=3,
                )
            best = int(np.argmax(mean))  # ties: the smallest C (most regularized)
            final = self._inner(random_state).set_params(C=float(Cs[best]), warm_start=False)
            final.fit(X, y_checked, groups=fold_groups, sample_weight=sw)
        params = set(final.get_params(deep=False))
        # What an earlier add_nodes left on this estimator (the fitted node
        # count and the seed the next join reads) goes with the fit it joined,
        # as the plain estimators' fit drops it (skfed/multitask/_base.py).
        for key in ("_released_W", "_join_n_fit", "_join_seed", "_join_rehearsal",
                    "_dual_state", "_node_data_dropped"):
            self.__dict__.pop(key, None)
        for key, value in vars(final).items():
            if key not in params and key != "_dual_state":
                setattr(self, key, value)
        self.Cs_ = Cs
        self.C_ = float(Cs[best])
        self.scores_ = scores
        self.n_bytes_cv_path_ = n_bytes
        self.n_iter_cv_path_ = n_iter
        self.n_bytes_cv_ = int(n_bytes.sum())
        self.n_bytes_total_ = self.n_bytes_cv_ + int(self.n_bytes_sent_)
        self.cv_results_ = {
            "param_C": Cs.copy(),
            "mean_test_score": mean,
            "std_test_score": scores.std(axis=0),
            "rank_test_score": (np.argsort(np.argsort(-mean, kind="stable")) + 1),
            **{f"split{k}_test_score": scores[k] for k in range(n_folds)},
            "n_bytes": n_bytes.sum(axis=0),
            "n_iter": n_iter.sum(axis=0),
        }
        return self


class _WeightedWithinGroupKFold:
    """:class:`~skfed.model_selection.WithinGroupKFold` (unshuffled) that
    splits each node's positive-weight and zero-weight samples separately.

    Fold k holds out the k-th contiguous part (in the order of the data) of
    a node's positive-weight samples and the k-th part of its zero-weight
    samples, so every training fold of every node keeps positive weight.
    Without zero weights the folds are those of ``WithinGroupKFold``.
    """

    def __init__(self, n_splits, sample_weight):
        self.n_splits = n_splits
        self.sample_weight = np.asarray(sample_weight)

    def split(self, X, y=None, groups=None):
        codes = np.asarray(groups)
        n = codes.shape[0]
        positive = self.sample_weight > 0
        # One pass over the samples (not one per node): the parts (a node's
        # positive-weight samples, then its zero-weight ones) in data order.
        _, part = np.unique(2 * np.unique(codes, return_inverse=True)[1] + ~positive,
                            return_inverse=True)
        order = np.argsort(part, kind="stable")
        size = np.bincount(part)
        start = np.concatenate(([0], np.cumsum(size)[:-1]))
        rank = np.empty(n, dtype=np.intp)
        rank[order] = np.arange(n) - start[part[order]]
        # KFold's fold sizes (np.array_split): the first m % n_splits folds
        # of a part of m samples hold one more.
        m = size[part]
        q, rem = np.divmod(m, self.n_splits)
        edge = rem * (q + 1)
        fold_of = np.where(rank < edge, rank // (q + 1),
                           rem + (rank - edge) // np.maximum(q, 1))
        indices = np.arange(n)
        for fold in range(self.n_splits):
            test = fold_of == fold
            yield indices[~test], indices[test]


def _check_positive_training_weight(splits, codes, sample_weight, nodes, cv, has_weights=True):
    """Refuse a split whose training part leaves a node without positive weight
    (``has_weights=False``: without samples, ``sample_weight`` all ones)."""
    sample_weight = np.asarray(sample_weight)
    codes = np.asarray(codes)
    n_nodes = len(nodes)
    # A node without any positive weight is refused by the fits themselves.
    weighted = np.bincount(codes, weights=sample_weight, minlength=n_nodes)[:n_nodes] > 0
    # (An iterable of index arrays is not repeated in the message.)
    where = (f"cv={cv!r}" if cv is None or isinstance(cv, numbers.Integral)
             or hasattr(cv, "split") else "the cv iterable")
    for k, (train, _) in enumerate(splits):
        train = np.asarray(train)
        if train.dtype == bool:
            train = np.flatnonzero(train)
        weight = np.bincount(codes[train], weights=sample_weight[train], minlength=n_nodes)
        empty = np.flatnonzero((weight[:n_nodes] <= 0) & weighted)
        if empty.size and not has_weights:
            node = np.asarray(nodes).tolist()[empty[0]]
            raise ValueError(
                f"Fold {k} of {where} leaves node {node!r} out of the training samples: "
                "the fold's fit has no model of that node, so its validation samples "
                "would be scored by the shared (or average) model, not by a model of its "
                "own. Pass a splitter that keeps samples of every node in every training "
                "fold (cv=None, an int, or WithinGroupKFold; GroupKFold holds out whole "
                "nodes)."
            )
        if empty.size:
            node = np.asarray(nodes).tolist()[empty[0]]
            total = int(np.count_nonzero(sample_weight[codes == empty[0]] > 0))
            raise ValueError(
                f"Fold {k} of {where} leaves node {node!r} no training sample with "
                f"positive weight (the node has {total} in all): a node's model needs "
                "some. With cv=None or an int the folds split each node's positive- and "
                "zero-weight samples separately, which needs at least 2 positive-weight "
                "samples per node; give the node more, or pass a splitter that keeps "
                "positive-weight samples of every node in every training fold."
            )


class _Splits:
    """An iterable of ``(train, test)`` index pairs as a splitter."""

    def __init__(self, splits):
        self.splits = splits

    def split(self, X, y=None, groups=None):
        yield from self.splits


_CV_PARAMETER_CONSTRAINTS = {
    "Cs": [Interval(numbers.Integral, 1, None, closed="left"), "array-like"],
    "cv": ["cv_object"],
    "scoring": [None, callable],
}


class FederatedMultiTaskClassifierCV(_MultiTaskCV, FederatedMultiTaskClassifier):
    """Federated multi-task classifier with ``C`` chosen by within-node cross-validation.

    :class:`FederatedMultiTaskClassifier` (the same objective, with
    ``lam = 1 / (C n_samples)``)::

        min_{W, Omega}  sum_t (1 / n_t) sum_i loss(w_t . phi(x_ti), y_ti)
                        + (lam / 2) tr(W Omega W^T)

    whose ``C`` is picked among ``Cs`` by cross-validation inside every node
    (:class:`~skfed.model_selection.WithinGroupKFold`: every node is in
    every training and every validation set), as
    :class:`~sklearn.linear_model.LogisticRegressionCV` does for ``C``.
    Every fit of the search is a federated fit over the simulated network;
    their bytes are counted (``n_bytes_cv_``) next to the final fit's
    (``n_bytes_sent_``).

    With ``warm_start=True`` the fits of each fold form a path: one
    estimator is fitted at the values of ``Cs`` in increasing order, each fit
    starting from the previous one's dual variables and ``Sigma`` (valid in
    every mode: the dual variables' box does not depend on ``C``).  It is
    not the default because it costs more than independent fits at the
    defaults: on 8 HAR people (random features, learned Omega) the warm
    search took 2,979 rounds and 26.7 MB against 344 rounds and 3.4 MB cold,
    and in the exact kernel mode the warm fits at ``C >= 10`` did not reach
    the stopping rule in 1,000 rounds (cold: 66-163): started from the
    previous ``C``'s learned ``Sigma`` (larger ``rho``), the first W-step
    is slow; restarting ``Sigma`` and warm-starting only the dual variables
    was measured too and is not cheaper at the defaults (see the user
    guide).  With a fixed Omega it helps in the exact kernel mode (the
    tests' data: fewer rounds than cold fits).  Every fit uses one seed
    (``random_state``, or one draw from it), so all of them share their
    random features, landmarks and coordinate orders.  The ``C`` with the
    best mean validation score over the folds (ties: the smallest) is
    refitted on all the data from zero (on 8 HAR people: 0.52 MB, 43
    rounds, against 12.5 MB and 1,109 rounds for the warm path up to
    ``C_``).

    Parameters
    ----------
    Cs : int or array-like of float > 0, default=4
        The values of ``C`` to try (sorted increasingly, duplicates
        dropped).  An int ``n``: ``n`` values log-spaced on ``[0.1, 100]``
        (the default, ``[0.1, 1, 10, 100]``: decades around the untuned
        default ``C=1``, up to the ``C ~ 30`` that the old ``lam=1e-5`` meant on
        HAR; one value per decade because the validation score changes on
        that scale, and each value costs ``n_folds`` federated fits).
    cv : int, cross-validation generator or iterable, default=None
        How to split: None, 3 folds of
        :class:`~skfed.model_selection.WithinGroupKFold`; an int, that many
        folds of it, with ``small_nodes="keep"`` (a node of fewer samples
        than folds stays in every training set and holds out at most one
        sample per fold; a warning names it); a splitter (its ``split`` gets the node index of every
        sample as ``groups``) or an iterable of ``(train, test)`` indices.
        With zero entries in ``sample_weight``, None and an int split each
        node's positive-weight samples and its zero-weight samples into the
        folds separately (in the order of the data, as ``WithinGroupKFold``
        does), so that every training fold keeps positive-weight samples of
        every node (a node needs two); a split that leaves a node none is
        refused, naming the fold and the node.  Any split whose training part
        leaves out every sample of a node (e.g. ``GroupKFold``) is refused:
        that node's validation samples would be scored by the shared model.
    scoring : callable or None, default=None
        None: the estimator's ``score`` (mean accuracy of the personalized
        predictions of the validation samples of all nodes, weighted by
        ``sample_weight``).  A callable ``scoring(estimator, X, y,
        groups=..., sample_weight=...)``, e.g. from
        :func:`~skfed.model_selection.make_group_scorer` (``groups`` is
        passed unless ``group_column`` is set, ``sample_weight`` when
        given); greater is better.
    loss, multi_class, kernel, gamma, degree, coef0, omega, omega_update_every, approximation, \
n_components, landmarks, fit_intercept, intercept_scaling, local_epochs, \
local_gap_target, local_solver, aggregation, compression, tol, max_rounds, \
cache_size, group_column, handle_unknown, network, n_jobs, verbose
        As in :class:`FederatedMultiTaskClassifier`, for every fit of the
        search and the final fit (``n_jobs`` parallelizes the nodes inside
        each fit; the folds run one after another).
    warm_start : bool, default=False
        True: in every fold, fit the values of ``Cs`` in increasing order,
        each fit warm-started from the previous one (a path); False:
        independent fits, as :class:`~sklearn.model_selection.GridSearchCV`
        runs them (the default: cheaper at the defaults, see above).  The
        final fit is always cold.
    random_state : int, RandomState instance or None, default=None
        Seed of every fit (None or a RandomState: one integer drawn from
        it, shared by all fits).
    privacy : None, default=None
        Must be None: the search's ``n_folds x n_Cs + 1`` fits would each
        spend the privacy budget, and their composition is not accounted
        for, so a value raises an error.

    Attributes
    ----------
    C_ : float
        The chosen ``C``.
    Cs_ : ndarray of shape (n_Cs,)
        The values tried, increasing.
    scores_ : ndarray of shape (n_folds, n_Cs)
        Validation score of every fold and ``C``.
    cv_results_ : dict of ndarrays
        ``param_C``, ``mean_test_score``, ``std_test_score``,
        ``rank_test_score``, ``split<k>_test_score`` (as in
        :class:`~sklearn.model_selection.GridSearchCV`), and ``n_bytes`` and
        ``n_iter``: bytes and rounds of each ``C``'s fits summed over the
        folds.
    n_bytes_cv_path_, n_iter_cv_path_ : ndarray of shape (n_folds, n_Cs)
        Bytes and rounds of every fit of the search.
    n_bytes_cv_ : int
        Bytes of all the fits of the search (the sum of ``n_bytes_cv_path_``).
    n_bytes_sent_ : int
        Bytes of the final fit (its ``communication_``, ``n_messages_``,
        ``bytes_per_round_`` and ``n_iter_`` likewise).
    n_bytes_total_ : int
        ``n_bytes_cv_ + n_bytes_sent_``: what choosing and fitting cost (and
        every :meth:`add_nodes` since).
    nodes_, classes_, omega_, task_covariance_, rho_, dual_coef_, support_, \
support_vectors_, n_support_, coef_, intercept_, approximation_, \
n_components_, n_iter_, communication_, n_features_in_
        Those of the final fit, as in :class:`FederatedMultiTaskClassifier`.

    See Also
    --------
    FederatedMultiTaskClassifier : The estimator at a given ``C``.
    skfed.model_selection.WithinGroupKFold : The default splitter.
    sklearn.linear_model.LogisticRegressionCV : The same idea, centralized.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.
    .. [2] V. Smith, C.-K. Chiang, M. Sanjabi, A. Talwalkar. "Federated
       Multi-Task Learning". NeurIPS 2017.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed import FederatedMultiTaskClassifierCV
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(240, 2)); groups = np.repeat([0, 1, 2], 80)
    >>> y = (X[:, 0] + 0.3 * groups * X[:, 1] > 0).astype(int)
    >>> clf = FederatedMultiTaskClassifierCV(Cs=[0.1, 1.0, 10.0], random_state=0)
    >>> clf = clf.fit(X, y, groups=groups)
    >>> clf.C_ in (0.1, 1.0, 10.0), clf.scores_.shape
    (True, (3, 3))
    >>> bool(clf.n_bytes_total_ == clf.n_bytes_cv_path_.sum() + clf.n_bytes_sent_)
    True
    """

    _base_class = FederatedMultiTaskClassifier
    _parameter_constraints = {
        k: v for k, v in FederatedMultiTaskClassifier._parameter_constraints.items()
        if k not in _CV_DROPPED
    } | _CV_PARAMETER_CONSTRAINTS

    def __init__(
        self,
        *,
        Cs=4,
        cv=None,
        scoring=None,
        loss="logistic",
        multi_class="auto",
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="auto",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds=1000,
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.loss = loss
        self.multi_class = multi_class
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.omega = omega
        self.omega_update_every = omega_update_every
        self.approximation = approximation
        self.n_components = n_components
        self.landmarks = landmarks
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.local_epochs = local_epochs
        self.local_gap_target = local_gap_target
        self.local_solver = local_solver
        self.aggregation = aggregation
        self.compression = compression
        self.tol = tol
        self.max_rounds = max_rounds
        self.cache_size = cache_size
        self.warm_start = warm_start
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.privacy = privacy

    def fit(self, X, y, groups=None, sample_weight=None):
        """Choose ``C`` by within-node cross-validation, then fit on all the data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (routed under metadata routing).
            ``None`` (and no ``group_column``) means one node, with a
            :class:`~skfed.SingleNodeWarning`.
        sample_weight : array-like of shape (n_samples,), default=None
            Used by every fit and by the default score.

        Returns
        -------
        self : FederatedMultiTaskClassifierCV
        """
        return self._fit_cv(X, y, groups, sample_weight, y_numeric=False)


class FederatedMultiTaskRegressorCV(_MultiTaskCV, FederatedMultiTaskRegressor):
    """Federated multi-task regressor with ``C`` chosen by within-node cross-validation.

    :class:`FederatedMultiTaskRegressor` (squared loss,
    ``lam = 1 / (C n_samples)``)::

        min_{W, Omega}  sum_t (1 / n_t) sum_i (w_t . phi(x_ti) - y_ti)^2 / 2
                        + (lam / 2) tr(W Omega W^T)

    whose ``C`` is picked among ``Cs`` by cross-validation inside every node,
    as :class:`~sklearn.linear_model.RidgeCV` picks ``alpha``; the search's
    bytes are counted (``n_bytes_cv_``).

    The search (independent fits by default, warm-started paths with
    ``warm_start=True``, one seed for every fit, the refit at the best ``C``
    from zero) and its measured costs are those of
    :class:`FederatedMultiTaskClassifierCV`.

    Parameters
    ----------
    Cs : int or array-like of float > 0, default=4
        As in :class:`FederatedMultiTaskClassifierCV` (default ``[0.1, 1,
        10, 100]``).
    cv : int, cross-validation generator or iterable, default=None
        As in :class:`FederatedMultiTaskClassifierCV` (default 3 folds of
        :class:`~skfed.model_selection.WithinGroupKFold`).
    scoring : callable or None, default=None
        None: the estimator's ``score`` (R^2 of the personalized predictions
        of the validation samples of all nodes); else a callable
        ``scoring(estimator, X, y, groups=..., sample_weight=...)``, greater
        is better.
    loss, kernel, gamma, degree, coef0, omega, omega_update_every, approximation, \
n_components, landmarks, fit_intercept, intercept_scaling, local_epochs, \
local_gap_target, local_solver, aggregation, compression, tol, max_rounds, \
cache_size, group_column, handle_unknown, network, n_jobs, verbose
        As in :class:`FederatedMultiTaskRegressor`.
    warm_start : bool, default=False
        Warm-started paths over ``Cs`` in every fold, or independent fits
        (see :class:`FederatedMultiTaskClassifierCV`).
    random_state : int, RandomState instance or None, default=None
        Seed of every fit (None or a RandomState: one integer drawn from it).
    privacy : None, default=None
        Must be None (see :class:`FederatedMultiTaskClassifierCV`).

    Attributes
    ----------
    C_ : float
    Cs_ : ndarray of shape (n_Cs,)
    scores_ : ndarray of shape (n_folds, n_Cs)
    cv_results_ : dict of ndarrays
    n_bytes_cv_path_, n_iter_cv_path_ : ndarray of shape (n_folds, n_Cs)
    n_bytes_cv_, n_bytes_sent_, n_bytes_total_ : int
        As in :class:`FederatedMultiTaskClassifierCV`.
    nodes_, omega_, task_covariance_, rho_, dual_coef_, coef_, intercept_, \
approximation_, n_iter_, communication_, n_features_in_
        Those of the final fit, as in :class:`FederatedMultiTaskRegressor`.

    See Also
    --------
    FederatedMultiTaskRegressor : The estimator at a given ``C``.
    sklearn.linear_model.RidgeCV : The same idea, centralized.

    References
    ----------
    .. [1] S. Caldas, V. Smith, A. Talwalkar. "Federated Kernelized
       Multi-Task Learning". SysML 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from skfed import FederatedMultiTaskRegressorCV
    >>> rng = np.random.RandomState(0)
    >>> X = rng.normal(size=(300, 3)); groups = np.repeat(["a", "b", "c"], 100)
    >>> y = X @ [1.0, -1.0, 0.5] + 0.1 * rng.normal(size=300)
    >>> reg = FederatedMultiTaskRegressorCV(kernel="linear", random_state=0)
    >>> reg.fit(X, y, groups=groups).C_
    1.0
    """

    _base_class = FederatedMultiTaskRegressor
    _parameter_constraints = {
        k: v for k, v in FederatedMultiTaskRegressor._parameter_constraints.items()
        if k not in _CV_DROPPED
    } | _CV_PARAMETER_CONSTRAINTS

    def __init__(
        self,
        *,
        Cs=4,
        cv=None,
        scoring=None,
        loss="squared",
        kernel="linear",
        gamma="scale",
        degree=3,
        coef0=1.0,
        omega="auto",
        omega_update_every=None,
        approximation="auto",
        n_components="auto",
        landmarks="random",
        fit_intercept=True,
        intercept_scaling=1.0,
        local_epochs=10.0,
        local_gap_target=None,
        local_solver="auto",
        aggregation="auto",
        compression="auto",
        tol=1e-3,
        max_rounds=1000,
        cache_size=None,
        warm_start=False,
        group_column=None,
        handle_unknown="global",
        network=None,
        random_state=None,
        n_jobs=None,
        verbose=0,
        privacy=None,
    ):
        self.Cs = Cs
        self.cv = cv
        self.scoring = scoring
        self.loss = loss
        self.kernel = kernel
        self.gamma = gamma
        self.degree = degree
        self.coef0 = coef0
        self.omega = omega
        self.omega_update_every = omega_update_every
        self.approximation = approximation
        self.n_components = n_components
        self.landmarks = landmarks
        self.fit_intercept = fit_intercept
        self.intercept_scaling = intercept_scaling
        self.local_epochs = local_epochs
        self.local_gap_target = local_gap_target
        self.local_solver = local_solver
        self.aggregation = aggregation
        self.compression = compression
        self.tol = tol
        self.max_rounds = max_rounds
        self.cache_size = cache_size
        self.warm_start = warm_start
        self.group_column = group_column
        self.handle_unknown = handle_unknown
        self.network = network
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.verbose = verbose
        self.privacy = privacy

    def fit(self, X, y, groups=None, sample_weight=None):
        """Choose ``C`` by within-node cross-validation, then fit on all the data.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        groups : array-like of shape (n_samples,), default=None
            Node id of every sample (routed under metadata routing).
        sample_weight : array-like of shape (n_samples,), default=None
            Used by every fit and by the default score.

        Returns
        -------
        self : FederatedMultiTaskRegressorCV
        """
        return self._fit_cv(X, y, groups, sample_weight, y_numeric=True)
