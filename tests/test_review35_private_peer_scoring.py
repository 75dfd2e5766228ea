"""review35: check_private_peer_scoring (the lead's fix of privacy34's xfail)
compared Dada's ``peer_scoring`` with its default by identity, so NumPy's
``np.True_`` (a ``param_grid`` built from a NumPy array, a value read from
a DataFrame) was refused under a finite budget while ``True``, the same
setting, fit.  Fixed (the value is taken as a Python scalar first); the
Dada test fails before.  Controls: Perso-lin's ``np.True_`` is still
refused, ``np.False_`` fits as ``False``.
"""

import warnings

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from skfed import (  # noqa: E402
    DecentralizedBoostingClassifier,
    DifferentialPrivacy,
    PersonalizedLinearClassifier,
)
from skfed.boosting import make_stump_predictors  # noqa: E402


def _nodes():
    rng = np.random.RandomState(0)
    X = rng.uniform(-1.0, 1.0, size=(6 * 20, 2))
    y = (X @ np.array([1.0, -0.5]) > 0).astype(int)
    return X, y, np.repeat(np.arange(6), 20)


def _dada(value):
    X, y, g = _nodes()
    est = DecentralizedBoostingClassifier(
        privacy=DifferentialPrivacy(epsilon=2.0, insecure_noise_seed=5), peer_scoring=value,
        max_iter=15, random_state=0, base_predictors=make_stump_predictors([-1, -1], [1, 1], 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
    return est, X, g


def test_dada_numpy_true_peer_scoring_is_the_default_under_privacy():
    ref, X, g = _dada(True)
    est, _, _ = _dada(np.True_)
    np.testing.assert_array_equal(est.decision_function(X, groups=g),
                                  ref.decision_function(X, groups=g))
    assert est.n_bytes_sent_ == ref.n_bytes_sent_


def test_persolin_numpy_bools_under_privacy():
    X, y, g = _nodes()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="peer_scoring"):
            PersonalizedLinearClassifier(privacy=DifferentialPrivacy(epsilon=2.0),
                                         peer_scoring=np.True_, max_iter=10).fit(X, y, groups=g)
        fits = [PersonalizedLinearClassifier(
            privacy=DifferentialPrivacy(epsilon=2.0, insecure_noise_seed=5), peer_scoring=v,
            max_iter=10, random_state=0).fit(X, y, groups=g) for v in (False, np.False_)]
    np.testing.assert_array_equal(fits[0].coef_, fits[1].coef_)


def test_dada_numpy_true_peer_scoring_weighs_as_true():
    """Without privacy, Dada's ``_score_weight`` tested ``peer_scoring is
    True``: ``np.True_`` weighed peer scores by float(np.True_) = 1 instead
    of DEFAULT_SCORE_WEIGHT (3), silently another model.  Fails before."""
    X, y, g = _nodes()
    fits = [DecentralizedBoostingClassifier(n_estimators=10, peer_scoring=v, random_state=0)
            .fit(X, y, groups=g) for v in (True, np.True_, 1.0)]
    assert fits[1]._score_weight() == fits[0]._score_weight() == 3.0
    np.testing.assert_array_equal(fits[1].decision_function(X, groups=g),
                                  fits[0].decision_function(X, groups=g))
    # control: the weight 1.0 is another model (the test can tell them apart)
    assert not np.array_equal(fits[2].decision_function(X, groups=g),
                              fits[0].decision_function(X, groups=g))
