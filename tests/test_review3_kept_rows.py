"""The no-stored-rows check of DifferentialPrivacy(local_estimator=...) on
models that store no sample.

``skfed._kept_local.check_no_rows`` refuses a fitted Local model when any
numeric array it holds equals a training row.  Two coincidences made it
refuse models the error message itself recommends, and so fail the whole
private fit:

* integer arrays that are labels or counters, never rows: with two binary
  features the class codes ``classes_ = [0, 1]`` equal every training row
  ``(0, 1)``; a fitted estimator stores rows as the floats it was given;
* an all-zero parameter row (``coef_`` of a node whose rows are all zero,
  an ``l1`` model's zero coefficients) against an all-zero training row.

A model that stores samples is still refused (``SVC`` on binary features,
whose support vectors are training rows other than the zero row).
"""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.svm import SVC, LinearSVC

from skfed import PersonalizedLinearClassifier
from skfed._kept_local import check_no_rows, stored_rows
from skfed.privacy import DifferentialPrivacy


def _fit(X, y, g, reference):
    est = PersonalizedLinearClassifier(
        max_iter=100, random_state=0,
        privacy=DifferentialPrivacy(3.0, insecure_noise_seed=0, local_estimator=reference))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return est.fit(X, y, groups=g)


def test_class_codes_are_not_rows():
    X = np.array([[0.0, 1.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0], [1.0, 0.0], [0.0, 0.0]])
    y = np.array([0, 1, 0, 1, 1, 0])
    model = LogisticRegression().fit(X, y)
    np.testing.assert_array_equal(model.classes_, [0, 1])  # equal to rows 0 and 2
    assert stored_rows(model, X) == 0
    check_no_rows(model, X, 0)


def test_a_zero_coefficient_row_is_not_a_row():
    rng = np.random.RandomState(0)
    X = np.zeros((20, 3))
    y = np.arange(20) % 2
    for model in (LogisticRegression().fit(X, y), LinearSVC().fit(X, y)):
        np.testing.assert_array_equal(model.coef_, 0.0)  # the rows, all zero
        assert stored_rows(model, X) == 0
    # an l1 model's zero coefficients beside one zero row among others
    X = rng.normal(size=(30, 3))
    X[5] = 0.0
    y = (rng.uniform(size=30) > 0.5).astype(int)
    model = LogisticRegression(penalty="l1", C=0.01, solver="liblinear").fit(X, y)
    np.testing.assert_array_equal(model.coef_, 0.0)
    assert stored_rows(model, X) == 0


def test_models_that_store_samples_are_still_refused():
    rng = np.random.RandomState(1)
    X = rng.randint(0, 2, size=(40, 2)).astype(float)
    y = ((X[:, 0] + rng.uniform(size=40)) > 0.8).astype(int)
    model = SVC().fit(X, y)
    n_sv = model.support_vectors_.shape[0]
    n_zero = int(np.sum(~model.support_vectors_.any(axis=1)))
    assert n_sv - n_zero >= 3
    # every non-zero support vector (and SVC's class_weight_ [1, 1], a row too)
    assert stored_rows(model, X) >= n_sv - n_zero
    with pytest.raises(ValueError, match="stores training rows of node 4"):
        check_no_rows(model, X, 4)


def test_private_fits_on_binary_features_and_a_zero_node():
    rng = np.random.RandomState(0)
    g = np.repeat(np.arange(6), 20)
    # two binary features: every node has rows (0, 1)
    X = rng.randint(0, 2, size=(120, 2)).astype(float)
    y = ((X[:, 0] + rng.uniform(size=120)) > 0.8).astype(int)
    est = _fit(X, y, g, LogisticRegression())
    assert len(est.kept_local_models_) == 6
    # a node whose rows are all zero, both classes
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    X[g == 4] = 0.0
    y[g == 4] = np.arange(20) % 2
    est = _fit(X, y, g, LinearSVC())
    assert len(est.kept_local_models_) == 6
