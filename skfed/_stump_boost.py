"""Discrete AdaBoost (SAMME) over decision stumps, vectorized, for a private Dada node.

A private Dada node may keep a model it trains alone on its raw features
(:mod:`skfed._kept_local`).  Dada's Local baseline includes per-node
AdaBoost on stumps, its own natural local learner; scikit-learn's
``AdaBoostClassifier(DecisionTreeClassifier(max_depth=1))`` per node and
per fold cost 8-10 times the private fit's CPU (``benchmarks/
private_kept_local.py``).  This module fits the same model -- SAMME with
learning rate 1, stumps chosen by the weighted Gini criterion, thresholds
at midpoints of consecutive distinct training values, leaves by weighted
majority -- for several weightings of the same rows at once: the node's
K cross-validation folds (held-out rows at weight zero) and the fit on all
its rows are one batch of ``K + 1`` boosting runs sharing one sort of the
features (:func:`stump_boost_batch`).

What a stump reveals.  A fitted stump keeps a feature index, a threshold,
and the class of each side; the threshold is the midpoint of two
consecutive distinct training values of that feature (as scikit-learn's
trees), so it is a function of two of the node's raw coordinates, not a
training row (a row check: :func:`skfed._kept_local.stored_rows`).  On
attributes with a few public levels (Computer buyers' +-1) the midpoints
are the public mid-levels.  The kept model is never sent.
"""

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin

# scikit-learn's trees do not split between values closer than this
FEATURE_THRESHOLD = 1e-7


def _best_stumps(Xs, order, Y, W, train):
    """The weighted-Gini stump of every batch member.

    Parameters
    ----------
    Xs : ndarray of shape (n, d)
        Each feature's values sorted.
    order : ndarray of shape (n, d)
        The row of each sorted value.
    Y : ndarray of shape (n, C)
        One-hot labels.
    W : ndarray of shape (B, n)
        Sample weights of every member (0: not a training row of it).
    train : ndarray of shape (B, n), bool
        The training rows of every member.

    Returns
    -------
    feature, threshold : ndarrays of shape (B,)
        ``feature`` -1 when the member has no valid split (pure weights or
        constant features): its stump is one leaf.
    left, right : ndarrays of shape (B,)
        Class index of each side (the weighted majority, ties to the first).
    """
    B, n = W.shape
    WY = W[:, :, None] * Y[None]  # (B, n, C)
    total = WY.sum(axis=1)  # (B, C)
    # left counts after each sorted position p (left = sorted[: p + 1])
    L = np.cumsum(WY[:, order, :], axis=1)[:, :-1]  # (B, n - 1, d, C)
    R = total[:, None, None, :] - L
    wl = L.sum(axis=-1)
    wr = R.sum(axis=-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        proxy = (L * L).sum(axis=-1) / wl + (R * R).sum(axis=-1) / wr
    # valid positions: the next training value is above the last one on the
    # left by more than FEATURE_THRESHOLD; positions between the same two
    # training values give the same partition and score, and the first of
    # them is scored (its threshold is set from the training values below)
    tr_sorted = train[:, order]  # (B, n, d)
    lo = np.where(tr_sorted, Xs[None], -np.inf)
    hi = np.where(tr_sorted, Xs[None], np.inf)
    left_max = np.maximum.accumulate(lo, axis=1)[:, :-1]
    right_min = np.minimum.accumulate(hi[:, ::-1], axis=1)[:, ::-1][:, 1:]
    # the position right after a training value, before any held-out value
    valid = (tr_sorted[:, :-1] & np.isfinite(right_min)
             & (right_min > left_max + FEATURE_THRESHOLD))
    proxy = np.where(valid, proxy, -np.inf)  # (B, n - 1, d)
    # ties: the first feature, then the lowest threshold
    flat = proxy.transpose(0, 2, 1).reshape(B, -1)
    best = np.argmax(flat, axis=1)
    ok = np.isfinite(flat[np.arange(B), best]) if n > 1 else np.zeros(B, dtype=bool)
    # a pure member does not split (scikit-learn: impurity <= machine epsilon)
    frac = total / np.maximum(total.sum(axis=1, keepdims=True), 1e-300)
    ok &= 1.0 - (frac * frac).sum(axis=1) > np.finfo(np.float64).eps
    feature = np.where(ok, best // max(n - 1, 1), -1)
    pos = best % max(n - 1, 1)
    b = np.arange(B)
    f = np.maximum(feature, 0)
    a = left_max[b, pos, f] if n > 1 else np.zeros(B)
    c = right_min[b, pos, f] if n > 1 else np.zeros(B)
    threshold = a / 2.0 + c / 2.0
    # scikit-learn: a midpoint that rounds to the upper value goes to the lower one
    threshold = np.where((threshold == c) | ~np.isfinite(threshold), a, threshold)
    threshold = np.where(ok, threshold, 0.0)
    if n > 1:
        left = np.argmax(L[b, pos, f], axis=1)
        right = np.argmax(R[b, pos, f], axis=1)
    else:
        left = right = np.zeros(B, dtype=np.intp)
    lone = np.argmax(total, axis=1)
    left = np.where(ok, left, lone)
    right = np.where(ok, right, lone)
    return feature, threshold, left, right


def _stump_predict(X, feature, threshold, left, right):
    """Class index ``(B, n)`` of every member's stump on the rows ``X``."""
    f = np.maximum(feature, 0)
    goes_left = (X[:, f] <= threshold).T | (feature < 0)[:, None]
    return np.where(goes_left, left[:, None], right[:, None])


def stump_boost_batch(X, codes, train, n_estimators, n_classes):
    """SAMME over stumps for ``B`` weightings of the same rows at once.

    Member ``b`` is discrete AdaBoost (SAMME, learning rate 1) on the rows
    ``train[b]`` only, with scikit-learn's ``AdaBoostClassifier`` rules:
    weights start uniform, are clipped below at machine epsilon, and the
    run stops at a stump with no weighted error (that stump alone, weight
    1) or one no better than chance (dropped).

    Parameters
    ----------
    X : ndarray of shape (n, d)
    codes : ndarray of shape (n,)
        Class indices in ``range(n_classes)``.
    train : ndarray of shape (B, n), bool
    n_estimators : int
    n_classes : int

    Returns
    -------
    feature, threshold, left, right, weight : ndarrays of shape (B, n_estimators)
        Every member's stumps (:func:`_best_stumps`) and their SAMME
        weights (0 after the member stopped; all 0 when its first stump is
        no better than chance: scikit-learn's cannot fit then).
    """
    X = np.asarray(X, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.intp)
    train = np.asarray(train, dtype=bool)
    B, n = train.shape
    order = np.argsort(X, axis=0, kind="stable")
    Xs = np.take_along_axis(X, order, axis=0)
    Y = np.eye(n_classes)[codes]
    W = train / train.sum(axis=1, keepdims=True)
    eps = np.finfo(np.float64).eps
    shape = (B, n_estimators)
    feature = np.full(shape, -1, dtype=np.intp)
    threshold = np.zeros(shape)
    left = np.zeros(shape, dtype=np.intp)
    right = np.zeros(shape, dtype=np.intp)
    weight = np.zeros(shape)
    active = np.ones(B, dtype=bool)
    for t in range(n_estimators):
        if not active.any():
            break
        W = np.where(train, np.maximum(W, eps), 0.0)
        idx = np.flatnonzero(active)
        fe, th, le, ri = _best_stumps(Xs, order, Y, W[idx], train[idx])
        wrong = _stump_predict(X, fe, th, le, ri) != codes[None]
        err = (W[idx] * wrong).sum(axis=1) / W[idx].sum(axis=1)
        worse = err >= 1.0 - 1.0 / n_classes
        perfect = err <= 0
        keep = idx[~worse]
        with np.errstate(divide="ignore"):
            alpha = np.where(perfect, 1.0,
                             np.log((1.0 - err) / err) + np.log(n_classes - 1.0))
        feature[keep, t] = fe[~worse]
        threshold[keep, t] = th[~worse]
        left[keep, t] = le[~worse]
        right[keep, t] = ri[~worse]
        weight[keep, t] = alpha[~worse]
        go = ~worse & ~perfect
        upd = idx[go]
        W[upd] = W[upd] * np.exp(alpha[go, None] * wrong[go])
        W[upd] /= W[upd].sum(axis=1, keepdims=True)
        active[idx[~go]] = False
    return feature, threshold, left, right, weight


def stump_boost_scores(X, feature, threshold, left, right, weight, n_classes):
    """SAMME decision scores of one member's stumps: ``(n,)`` for two classes
    (positive: the second class), else ``(n, n_classes)``, normalized by the
    sum of the stump weights as scikit-learn's ``decision_function``."""
    X = np.asarray(X, dtype=np.float64)
    used = weight > 0
    if not used.any():
        return np.zeros(X.shape[0]) if n_classes == 2 else np.zeros((X.shape[0], n_classes))
    pred = _stump_predict(X, feature[used], threshold[used], left[used], right[used])
    w = weight[used]
    votes = np.where(pred[:, :, None] == np.arange(n_classes), 1.0, -1.0 / (n_classes - 1))
    out = np.einsum("t,tnc->nc", w, votes) / w.sum()
    if n_classes == 2:
        return out[:, 1] - out[:, 0]
    return out


class StumpBoostClassifier(ClassifierMixin, BaseEstimator):
    """Discrete AdaBoost (SAMME) over decision stumps on one node's rows.

    The same model as ``AdaBoostClassifier(DecisionTreeClassifier(
    max_depth=1), n_estimators=n_estimators)`` (learning rate 1): the
    same predictions on rows without tied split scores (scikit-learn's
    trees also round the features to float32 and break ties between
    features in a random order).  Stores no training row: each stump is
    a feature, a threshold (the midpoint of two training values) and a
    class per side.

    Parameters
    ----------
    n_estimators : int, default=50
        The most stumps (boosting stops earlier at a stump without
        weighted error or no better than chance).

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    feature_, threshold_, left_, right_, weight_ : ndarrays of shape (n_estimators,)
        The stumps (``feature_`` -1: a single leaf) and their weights
        (0: not used).
    """

    def __init__(self, n_estimators=50):
        self.n_estimators = n_estimators

    def fit(self, X, y):
        """Fit the stumps on ``X``, ``y``; returns self."""
        if int(self.n_estimators) < 1:
            raise ValueError(f"n_estimators must be at least 1, got {self.n_estimators!r}.")
        X = np.asarray(X, dtype=np.float64)
        self.classes_, codes = np.unique(np.asarray(y), return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError("StumpBoostClassifier needs samples of at least two classes.")
        out = stump_boost_batch(X, codes, np.ones((1, X.shape[0]), dtype=bool),
                                int(self.n_estimators), self.classes_.size)
        self.feature_, self.threshold_, self.left_, self.right_, self.weight_ = (
            a[0] for a in out)
        if not np.any(self.weight_ > 0):
            raise ValueError("The first stump is no better than chance on these samples: "
                             "AdaBoost cannot fit them.")
        return self

    def decision_function(self, X):
        """SAMME scores: ``(n,)`` for two classes, else ``(n, n_classes)``."""
        return stump_boost_scores(X, self.feature_, self.threshold_, self.left_,
                                  self.right_, self.weight_, self.classes_.size)

    def predict(self, X):
        """The class of highest score."""
        f = self.decision_function(X)
        if f.ndim == 1:
            return self.classes_[(f > 0).astype(np.intp)]
        return self.classes_[np.argmax(f, axis=1)]


def stump_boost_cv(X, codes, fold, n_folds, n_estimators, n_classes):
    """Held-out 0-1 errors on the folds and the fit on all rows, in one batch.

    Parameters
    ----------
    X : ndarray of shape (m, d)
    codes : ndarray of shape (m,)
        Class indices in ``range(n_classes)``.
    fold : ndarray of shape (m,)
        Fold of every row (``range(n_folds)``).
    n_folds : int
    n_estimators : int
    n_classes : int

    Returns
    -------
    err : ndarray of shape (m,)
        Held-out errors of the stumps fitted on the other folds (a row whose
        training part had no stump better than chance counts as an error).
    model : StumpBoostClassifier or None
        The fit on all rows (None when its first stump is no better than
        chance).
    """
    X = np.asarray(X, dtype=np.float64)
    codes = np.asarray(codes, dtype=np.intp)
    train = np.vstack([fold[None] != np.arange(n_folds)[:, None],
                       np.ones((1, X.shape[0]), dtype=bool)])
    fe, th, le, ri, w = stump_boost_batch(X, codes, train, n_estimators, n_classes)
    err = np.ones(X.shape[0])
    for f in range(n_folds):
        test = fold == f
        if not np.any(w[f] > 0):
            continue
        s = stump_boost_scores(X[test], fe[f], th[f], le[f], ri[f], w[f], n_classes)
        pred = (s > 0).astype(np.intp) if s.ndim == 1 else np.argmax(s, axis=1)
        err[test] = pred != codes[test]
    if not np.any(w[-1] > 0):
        return err, None
    model = StumpBoostClassifier(n_estimators)
    model.classes_ = np.arange(n_classes)
    model.feature_, model.threshold_, model.left_, model.right_, model.weight_ = (
        fe[-1], th[-1], le[-1], ri[-1], w[-1])
    return err, model
