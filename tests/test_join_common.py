"""The shared checks of every add_nodes (skfed/_join_common.py) and the
network's parameter check: the fast routes give scikit-learn's results,
errors and warnings."""

import warnings

import joblib
import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import NotFittedError
from sklearn.utils._param_validation import InvalidParameterError
from sklearn.utils.validation import validate_data

from skfed._join_common import _plain_arrays
from skfed.baselines import LocalEstimator
from skfed.network import SimulatedNetwork
from skfed.support import FederatedSparseLinearRegression


def _fitted(n_features=4, frame=False, classifier=False):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, n_features))
    y = X[:, 0] + 0.1 * rng.normal(size=60)
    groups = np.repeat(np.arange(6), 10)
    if frame:
        X = pd.DataFrame(X, columns=[f"f{j}" for j in range(n_features)])
    if classifier:
        from sklearn.svm import SVC

        return LocalEstimator(SVC()).fit(X, (y > 0).astype(int), groups=groups)
    return FederatedSparseLinearRegression(random_state=0).fit(X, y, groups=groups)


def _reference(est, X, y, y_numeric):
    return validate_data(est, X, y, reset=False, y_numeric=y_numeric,
                         dtype=[np.float64, np.float32])


X4 = np.random.RandomState(1).normal(size=(7, 4))
Y7 = np.arange(7.0)
PLAIN = {
    "float64": (X4, Y7),
    "float32": (X4.astype(np.float32), Y7.astype(np.float32)),
    "fortran X": (np.asfortranarray(X4), Y7),
    "strided y": (X4, np.arange(14.0)[::2]),
    "int y": (X4, np.arange(7)),
    "bool y": (X4, np.arange(7) % 2 == 0),
}
NOT_PLAIN = {
    "list X": (X4.tolist(), Y7),
    "list y": (X4, Y7.tolist()),
    "int X": (X4.astype(int), Y7),
    "float16 X": (X4.astype(np.float16), Y7),
    "matrix X": (np.asmatrix(X4), Y7),
    "column y": (X4, Y7[:, None]),
    "object y": (X4, Y7.astype(object)),
    "big-endian y": (X4, Y7.astype(">f8")),
    "huge X (sum overflows)": (np.full((7, 4), 1e308), Y7),
}
FAILING = {
    "NaN in X": (np.where(np.eye(7, 4) > 0, np.nan, X4), Y7),
    "inf in y": (X4, np.r_[Y7[:-1], np.inf]),
    "three features": (X4[:, :3], Y7),
    "lengths differ": (X4, Y7[:5]),
    "no sample": (X4[:0], Y7[:0]),
    "complex X": (X4.astype(complex), Y7),
}


@pytest.mark.parametrize("case", list(PLAIN))
def test_plain_route_returns_what_validate_data_returns(case):
    est = _fitted()
    X, y = PLAIN[case]
    got = _plain_arrays(est, X, y, y_numeric=True)
    assert got is not None
    want = _reference(est, X, y, True)
    for a, b in zip(got, want):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_array_equal(a, b)
        assert a.flags.c_contiguous == b.flags.c_contiguous
    assert got[1].flags.c_contiguous


@pytest.mark.parametrize("case", list(NOT_PLAIN))
@pytest.mark.filterwarnings("error::RuntimeWarning")
def test_other_input_goes_to_validate_data(case):
    est = _fitted()
    X, y = NOT_PLAIN[case]
    assert _plain_arrays(est, X, y, y_numeric=True) is None


@pytest.mark.parametrize("case", list(FAILING))
def test_bad_input_raises_scikit_learns_error(case):
    est = _fitted()
    X, y = FAILING[case]
    with pytest.raises(ValueError) as expected:
        _reference(est, X, y, True)
    # the join's own check: the same error, whichever route it took
    with pytest.raises(ValueError) as got:
        est.add_nodes(X, y, groups=np.arange(len(y)) + 100)
    assert str(got.value) == str(expected.value)


def test_string_targets_of_a_classifier_stay_plain():
    est = _fitted()
    y = np.array(list("abababa"))
    got = _plain_arrays(est, X4, y, y_numeric=False)
    assert got is not None and got[1].dtype == y.dtype
    assert _plain_arrays(est, X4, y, y_numeric=True) is None


def test_array_after_a_data_frame_fit_warns_as_scikit_learn():
    est = _fitted(frame=True)
    with pytest.warns(UserWarning, match="does not have valid feature names") as plain:
        assert _plain_arrays(est, X4, Y7, y_numeric=True) is not None
    with pytest.warns(UserWarning) as reference:
        _reference(est, X4, Y7, True)
    assert [str(w.message) for w in plain] == [str(w.message) for w in reference]
    # an array after an array fit: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        _plain_arrays(_fitted(), X4, Y7, y_numeric=True)


@pytest.mark.parametrize("classifier", [False, True])
def test_join_before_fit_raises_not_fitted(classifier):
    from sklearn.svm import SVC

    est = LocalEstimator(SVC()) if classifier else FederatedSparseLinearRegression()
    with pytest.raises(NotFittedError):
        est.add_nodes(X4, (Y7 > 3).astype(int), groups=np.arange(7))


def test_network_check_passes_nothing_it_would_refuse():
    # values that passed are remembered; a changed value is checked again,
    # on this object or a new one, and refused with scikit-learn's message
    net = SimulatedNetwork(drop_rate=0.1)
    net.start(3)
    for key, bad in [("drop_rate", 1.0), ("drop_rate", True), ("drop_rate", float("nan")),
                     ("rogue_behavior", "x"), ("header_bytes", -1), ("header_bytes", 16.0),
                     ("random_state", "x"), ("random_state", 2**40), ("topology_params", [1])]:
        for network in (net, SimulatedNetwork(drop_rate=0.1)):
            good = network.get_params()[key]
            network.set_params(**{key: bad})
            with pytest.raises(InvalidParameterError, match=f"'{key}' parameter"):
                network.start(3)
            network.set_params(**{key: good})
            network.start(3)
    net.set_params(random_state=np.random.RandomState(0), topology_params=None)
    net.start(3)


def test_a_fit_leaves_the_network_parameter_unchanged():
    # (scikit-learn's estimator checks compare the parameters' hashes)
    net = SimulatedNetwork(drop_rate=0.2, random_state=0)
    before = joblib.hash(net)
    est = FederatedSparseLinearRegression(network=net, random_state=0)
    rng = np.random.RandomState(0)
    X = rng.normal(size=(60, 4))
    est.fit(X, X[:, 0], groups=np.repeat(np.arange(6), 10))
    est.add_nodes(X[:10], X[:10, 0], groups=np.repeat([10, 11], 5))
    assert joblib.hash(net) == before
