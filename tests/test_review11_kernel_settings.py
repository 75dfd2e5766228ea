"""Kernel parameters the chosen kernel does not read are refused, naming them.

review11 found them accepted and without effect: ``kernel="linear"`` with
any ``gamma`` (MOCHA and the online learner fit the same model at
``gamma=0.1`` and ``10``), ``degree`` with a kernel other than poly, and
``coef0`` with one other than poly or sigmoid (the online learner's
``"auto"`` and ``"affine"`` included: its candidates read ``gamma`` only).
The first test shows that they had no effect (the check switched off, the
fits are bit-identical), the second that they are now refused, the third
that the settings a kernel reads are still accepted and change the fit.
"""
import warnings

import numpy as np
import pytest
from sklearn.base import is_classifier

import skfed.kernels
from skfed import (DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor,
                   FederatedMultiTaskClassifier, FederatedMultiTaskRegressor)
from tests.test_bad_input import DATA

IGNORED = [
    (FederatedMultiTaskClassifier, "linear", "gamma", 5.0, 0.1),
    (FederatedMultiTaskRegressor, "linear", "gamma", 5.0, 0.1),
    (FederatedMultiTaskClassifier, "rbf", "degree", 7, 2),
    (FederatedMultiTaskClassifier, "rbf", "coef0", 3.0, -2.0),
    (DecentralizedKernelSGDClassifier, "linear", "gamma", 5.0, 0.1),
    (DecentralizedKernelSGDRegressor, "linear", "gamma", 5.0, 0.1),
    (DecentralizedKernelSGDClassifier, "rbf", "degree", 7, 2),
    (DecentralizedKernelSGDClassifier, "auto", "coef0", 3.0, -2.0),
    (DecentralizedKernelSGDRegressor, "affine", "degree", 7, 2),
]
READ = [
    (FederatedMultiTaskClassifier, "rbf", "gamma", 5.0, 0.1),
    (FederatedMultiTaskClassifier, "poly", "degree", 2, 4),
    (FederatedMultiTaskClassifier, "sigmoid", "coef0", 0.5, -0.5),
    (DecentralizedKernelSGDClassifier, "affine", "gamma", 5.0, 0.1),
    (DecentralizedKernelSGDRegressor, "poly", "coef0", 0.5, 2.0),
]


def _fit_values(Est, kernel, param, value):
    y = DATA["class"] if is_classifier(Est()) else DATA["reg"]
    est = Est(kernel=kernel, random_state=0, **{param: value})
    if Est in (FederatedMultiTaskClassifier, FederatedMultiTaskRegressor):
        est.set_params(max_rounds=20)
    else:
        est.set_params(max_epochs=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(DATA["X"], y, groups=DATA["groups"])
    out = est.decision_function if hasattr(est, "decision_function") else est.predict
    return out(DATA["X"], groups=DATA["groups"])


@pytest.mark.parametrize("Est, kernel, param, a, b", IGNORED)
def test_the_refused_settings_had_no_effect(monkeypatch, Est, kernel, param, a, b):
    # (the fits call it through skfed.kernels._checked_kernel_settings)
    monkeypatch.setattr(skfed.kernels, "check_kernel_settings", lambda est: None)
    np.testing.assert_array_equal(_fit_values(Est, kernel, param, a),
                                  _fit_values(Est, kernel, param, b))


@pytest.mark.parametrize("Est, kernel, param, a, b", IGNORED)
def test_settings_the_kernel_does_not_read_are_refused(Est, kernel, param, a, b):
    with pytest.raises(ValueError, match=rf"^{param}={a!r} is not read by kernel={kernel!r}"):
        _fit_values(Est, kernel, param, a)


@pytest.mark.parametrize("Est, kernel, param, a, b", READ)
def test_settings_the_kernel_reads_are_accepted_and_change_the_fit(Est, kernel, param, a, b):
    assert not np.allclose(_fit_values(Est, kernel, param, a), _fit_values(Est, kernel, param, b))


def test_defaults_and_callables_pass():
    for Est in (FederatedMultiTaskClassifier, DecentralizedKernelSGDRegressor):
        for kernel in ("linear", "rbf", "poly", "sigmoid"):
            skfed.kernels.check_kernel_settings(Est(kernel=kernel))
    skfed.kernels.check_kernel_settings(
        FederatedMultiTaskClassifier(kernel=lambda A, B: A @ B.T, gamma=0.3, degree=5))
    # a per-node gamma (array) counts as set
    with pytest.raises(ValueError, match=r"^gamma=array"):
        skfed.kernels.check_kernel_settings(
            DecentralizedKernelSGDClassifier(kernel="linear", gamma=np.ones(3)))
