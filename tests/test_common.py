"""scikit-learn's estimator checks over every public skfed estimator.

Each estimator is checked twice: with node ids passed as ``groups=`` (the
checks pass none, so every fit is a one-node fit) and with
``group_column=0`` (column 0 of the checks' data becomes the node id, so most
samples are nodes of their own).  Every expected failure is listed one by one
with its reason.
"""

import warnings

import pytest
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.utils.estimator_checks import parametrize_with_checks

from skfed import LocalEstimator, SingleNodeWarning
from skfed.support import FederatedSparseLinearRegression, FederatedSupportRecovery

# Reasons shared by every estimator checked with group_column=0.
GROUP_COLUMN_XFAIL = {
    "check_dtype_object": (
        "with group_column=0 the check's dict lands in the node-id column, which "
        "raises a TypeError naming group_column instead of the numeric-conversion error"
    ),
    "check_sample_weight_equivalence_on_dense_data": (
        "with group_column=0 nearly every sample is its own node, so removing a "
        "sample removes its node and the per-node models are no longer comparable"
    ),
    "check_sample_weight_equivalence_on_sparse_data": (
        "with group_column=0 nearly every sample is its own node, so zero weights "
        "leave nodes with no weight at all"
    ),
    "check_classifiers_one_label_sample_weights": (
        "with group_column=0 every sample is its own node; the error for a node whose "
        "weights are all zero names the weights, not the class"
    ),
}


def _group_column_variant(estimator):
    return estimator.set_params(group_column=0)


# (estimator instance, {check name: reason}) pairs; each estimator issue adds
# its estimators here, with and without group_column.
ESTIMATORS = [
    (LocalEstimator(LogisticRegression()), {}),
    (LocalEstimator(Ridge()), {}),
    (_group_column_variant(LocalEstimator(LogisticRegression())), GROUP_COLUMN_XFAIL),
    (_group_column_variant(LocalEstimator(Ridge())), GROUP_COLUMN_XFAIL),
    (FederatedSupportRecovery(), {}),
    (FederatedSparseLinearRegression(), {}),
    (_group_column_variant(FederatedSupportRecovery()), GROUP_COLUMN_XFAIL),
    (_group_column_variant(FederatedSparseLinearRegression()), GROUP_COLUMN_XFAIL),
]

_EXPECTED = {id(estimator): failures for estimator, failures in ESTIMATORS}


def _expected_failed_checks(estimator):
    return _EXPECTED.get(id(estimator), {})


@parametrize_with_checks(
    [estimator for estimator, _ in ESTIMATORS],
    expected_failed_checks=_expected_failed_checks,
)
def test_sklearn_compatible_estimator(estimator, check):
    with warnings.catch_warnings():
        # The checks never pass node ids: every fit is a (warned) one-node fit.
        warnings.simplefilter("ignore", SingleNodeWarning)
        check(estimator)
