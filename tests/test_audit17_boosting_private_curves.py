"""A private Dada / Perso-lin fit keeps no exact objective values (mutation
audit).

The objective curve and final objective are exact functions of every node's
training data (sums of its losses), released nowhere by the protocol: a fit
under a finite budget must not keep them (``objective_curve_`` and
``objective_`` are None), before and after ``add_nodes``.  With
``epsilon=inf`` (the non-private fit, reported) both are kept, and they match
a fit with ``privacy=None`` on the same random_state, so the attributes the
private fit drops do exist.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons

pytest.importorskip("dp_accounting")

from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier  # noqa: E402
from skfed.boosting import make_stump_predictors  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402

STUMPS = make_stump_predictors([-1.5, -1.0], [2.5, 1.5], 10)
MAKE = {
    "dada": lambda s: DecentralizedBoostingClassifier(base_predictors=STUMPS, beta=0.5,
                                                      max_iter=30, privacy=s, random_state=0),
    "persolin": lambda s: PersonalizedLinearClassifier(max_iter=30, privacy=s, random_state=0),
}


@pytest.mark.parametrize("name", list(MAKE))
def test_private_fit_and_join_keep_no_objective_values(name):
    X, y = make_moons(210, noise=0.2, random_state=0)
    groups = np.repeat(np.arange(7), 30)
    old = groups < 6
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        public = MAKE[name](None).fit(X, y, groups=groups)
        inf = MAKE[name](DifferentialPrivacy(np.inf)).fit(X, y, groups=groups)
        private = MAKE[name](DifferentialPrivacy(1.0, delta=1e-5)).fit(
            X[old], y[old], groups=groups[old])
        assert private.objective_curve_ is None and private.objective_ is None
        private.add_nodes(X[~old], y[~old], groups=groups[~old])
    assert private.objective_curve_ is None and private.objective_ is None
    assert np.all(np.asarray(private.privacy_spent_) > 0)
    # epsilon=inf keeps them, equal to the non-private fit's
    assert inf.objective_curve_ is not None and len(inf.objective_curve_) > 0
    np.testing.assert_allclose(inf.objective_curve_, public.objective_curve_, rtol=1e-12)
    assert np.isfinite(inf.objective_) and inf.objective_ == pytest.approx(public.objective_)
