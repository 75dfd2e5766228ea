"""review37: data a working dtype cannot hold that pass the magnitude checks.

Perso-lin declares ``_squares_dtype = np.float64`` (every square of its
inputs in float64: ``skfed._magnitude.working_dtype``), so float32 X past
float32's bound, and any float64 X under float64's, is accepted.  But its
shared newcomer model (``join_neighbours="shared"``,
skfed/boosting/_perso_lin_shared.py) sends every value as float32: round
1's column sums of ``w z^2`` (``solve_shared``, ``stats = _sent(stats)``)
and round 2's sketches of ``Z' W Z``.  Past ``~1.8e19 / sqrt(n)`` per
column those squares overflow float32 to inf, the Jacobi scale becomes 0,
and the shared model's weights are 0 (only an intercept): silently, where
the same solve with float64 messages gives the model of the unscaled data
(the solve is scale-equivariant once it scales by the columns' squares).
Such values are now refused naming them (``skfed._magnitude.as_message``),
and so are the newcomer placement's float32 scatters below.
"""

import warnings
from unittest import mock

import numpy as np
import pytest

import skfed.boosting._perso_lin_shared as shared
from skfed import PersonalizedLinearClassifier


def _shared_model(scale, dtype=np.float64, exact=False):
    """The shared model ``S`` Perso-lin's fit solves, weights times
    ``scale`` (those of the unscaled data when equivariant)."""
    rng = np.random.RandomState(0)
    K, n = 12, 40
    X = rng.randn(n * K, 3)
    y = (X[:, 0] + 0.3 * rng.randn(len(X)) > 0).astype(int)
    groups = np.repeat(np.arange(K), n)
    solved, solve = [], shared.solve_shared

    def record(*args, **kwargs):
        S, count = solve(*args, **kwargs)
        solved.append(S.copy())
        return S, count

    est = PersonalizedLinearClassifier(join_neighbours="shared", random_state=0)
    with warnings.catch_warnings(), mock.patch.object(shared, "solve_shared", record):
        warnings.simplefilter("ignore")
        if exact:   # every message in float64
            with mock.patch.object(shared, "_sent", lambda v, *a: np.asarray(v, np.float64)):
                est.fit((X * scale).astype(dtype), y, groups=groups)
        else:
            est.fit((X * scale).astype(dtype), y, groups=groups)
    (S,) = solved
    return S[:, :3] * scale, S[:, 3]


def test_shared_model_is_scale_equivariant_within_float32_squares():
    # the reference: 1e10 and 1e18 give one model (their squares fit float32)
    w_ref, b_ref = _shared_model(1e10)
    w, b = _shared_model(1e18)
    np.testing.assert_allclose(w, w_ref, rtol=1e-4)
    np.testing.assert_allclose(b, b_ref, rtol=1e-4)
    assert np.abs(w_ref).max() > 1     # (a model that uses the features)
    # past it, with float64 messages, the same model again
    w, b = _shared_model(1e20, exact=True)
    np.testing.assert_allclose(w, w_ref, rtol=1e-4)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_shared_model_past_float32_squares_is_refused(dtype):
    # the column sums of w z^2 cannot ride float32 messages: refused naming
    # them (the model used to come out with zero weights, silently)
    with pytest.raises(ValueError, match=r"column sums of w z\^2 .* overflow the float32"):
        _shared_model(1e20, dtype=dtype)


# Dada's one-class newcomer placement (review28: bit-equal under power-of-two
# units) on float32 data: the whitening round's scatters
# (skfed/_mean_scatter.py whitening_round) are computed in float64, then
# rounded to the fit's dtype to be sent.  A node's scatter sums w x x' over
# its rows, so at 2**60 (every value and row norm under float32's own
# bound, 1.8e19) the float32 message overflows to inf ("overflow
# encountered in cast") and the newcomer moves by 0.21.
_Q = np.random.RandomState(2).normal(size=(40, 4)) + [3.0, 0.0, 0.0, 0.0]


def _dada_one_class(scale):
    from skfed.boosting import DecentralizedBoostingClassifier

    from .test_dada27_whitened_join import correlated_terrains, newcomer

    X, y, g = correlated_terrains()
    a, ya, ga = newcomer()
    est = DecentralizedBoostingClassifier(n_estimators=12, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        est.fit((X * scale).astype(np.float32), y, groups=g)
        est.add_nodes((a * scale).astype(np.float32), ya, groups=ga)
    assert est.newcomer_rule_ == "one-class"
    Q = (_Q * scale).astype(np.float32)
    return (est.decision_function(Q, groups=np.full(len(Q), 3)),
            est.decision_function(Q, groups=np.full(len(Q), 100)))


def test_dada_float32_one_class_placement_is_unit_free_below_the_overflow():
    fitted0, joined0 = _dada_one_class(1.0)
    fitted, joined = _dada_one_class(2.0**40)
    np.testing.assert_array_equal(fitted, fitted0)
    np.testing.assert_array_equal(joined, joined0)


def test_dada_float32_one_class_placement_past_the_scatter_overflow_is_refused():
    # the scatters cannot ride the fit's float32 messages: refused naming them
    # (the newcomer used to move by 0.21, silently)
    with pytest.raises(ValueError, match="feature scatters .* overflow the float32"):
        _dada_one_class(2.0**60)


# Sample weights next to float32 X (xfail37 fixed both; they were strict
# xfails): check_sample_weight cast them to X's dtype before any check and
# bounded LocalEstimator's by float32's squares.  They are now validated in
# float64, bounded by the dtype that squares them (float64 for a
# meta-estimator, whose wrapped model does its own) and then kept in X's
# dtype; weights that dtype cannot hold promote the boosting family's X to
# float64 (skfed/_fit_weights.py; its cast to float32 gave inf masses and a
# graph loop that never ended).
def test_local_float32_X_with_large_float64_weights():
    from sklearn.linear_model import LogisticRegression

    from skfed import LocalEstimator

    rng = np.random.RandomState(0)
    X = rng.randn(120, 3).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat(np.arange(4), 30)
    weights = np.full(120, 1e20)
    LocalEstimator(LogisticRegression()).fit(X.astype(np.float64), y, groups=groups,
                                             sample_weight=weights)   # (float64 X: fits)
    est = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups, sample_weight=weights)
    for k in range(4):
        rows = groups == k
        ref = LogisticRegression().fit(X[rows], y[rows], sample_weight=weights[rows])
        np.testing.assert_allclose(est.decision_function(X[rows], groups=groups[rows]),
                                   ref.decision_function(X[rows]), rtol=1e-5)


@pytest.mark.parametrize("name", ["dada", "persolin"])
def test_boosting_float32_X_with_weights_past_float32(name):
    from skfed import DecentralizedBoostingClassifier

    Est = DecentralizedBoostingClassifier if name == "dada" else PersonalizedLinearClassifier
    rng = np.random.RandomState(0)
    X = rng.randn(120, 3).astype(np.float32)
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat(np.arange(4), 30)
    weights = np.full(120, 1e39)
    ref = Est(random_state=0).fit(X.astype(np.float64), y, groups=groups,
                                  sample_weight=weights).predict(X, groups=groups)
    assert np.mean(ref == y) > 0.8
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # (the cast's overflow)
        est = Est(random_state=0).fit(X, y, groups=groups, sample_weight=weights)
    np.testing.assert_array_equal(est.predict(X, groups=groups), ref)
