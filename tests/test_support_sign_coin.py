"""The sign vote's dense-model warning: a selected fair-coin feature.

Under ``vote="sign"`` the server takes the median sign fraction as the
null one.  A feature independent of the others sends signs at rate 1/2;
selecting a feature whose rate is not significantly different from 1/2
means the median is not the null fraction, and the fit warns (the dense
case is in ``test_review3_support_dense_default.py``).  The rule must not
fire on a sparse model whose null fraction is itself away from 1/2 (an
equicorrelated design with same-sign support features, where the features
outside the support are correlated with the support and lean its way).
"""

import warnings

import numpy as np
from scipy import stats

from skfed import FederatedSupportRecovery


def _equicorrelated(n_clients=2000, n_samples=10, d=20, seed=0):
    rng = np.random.default_rng(seed)
    support = np.zeros(d, dtype=bool)
    support[[2, 9, 15]] = True
    w = np.where(support, -3.0, 0.0)
    groups = np.repeat(np.arange(n_clients), n_samples)
    n = n_clients * n_samples
    X = np.sqrt(0.7) * rng.standard_normal((n, d)) + np.sqrt(0.3) * rng.standard_normal((n, 1))
    offset = rng.normal(0.0, 3.0, n_clients)
    y = X @ w + offset[groups] + rng.standard_normal(n)
    return X, y, groups, support


def test_a_sparse_model_with_a_null_fraction_away_from_half_does_not_warn():
    X, y, groups, support = _equicorrelated()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = FederatedSupportRecovery(random_state=0).fit(X, y, groups=groups)
    assert est.vote_ == "sign"
    np.testing.assert_array_equal(est.get_support(), support)
    # the median (the null fraction) is far from 1/2 ...
    assert est.reference_rate_ > 0.57
    # ... and every selected feature is far from 1/2 too: an independent
    # two-sided binomial test at fwer / d rejects rate 1/2 for each
    d = X.shape[1]
    votes = est.votes_[support]
    n = est.n_reports_[support]
    p_half = 2.0 * np.minimum(stats.binom.sf(votes - 1, n, 0.5), stats.binom.cdf(votes, n, 0.5))
    assert np.all(p_half <= 0.05 / d)
    assert np.all(est.vote_fraction_[support] < 0.35)
    assert not [w for w in caught if issubclass(w.category, UserWarning)]
