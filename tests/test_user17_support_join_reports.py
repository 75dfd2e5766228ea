"""support.rst's statement on FederatedSupportRecovery.add_nodes and a full fit.

It said a join is "equal to a fit on all clients with an integer
random_state" without condition; with ``n_reported < d`` (the default under
privacy) the new clients' reported features come from a public stream of
their own, balanced among them, so the counts differ from a fit on all
clients even without noise.  The page now states both cases; this test
keeps them true.
"""

import warnings

import numpy as np
import pytest

from skfed.support import FederatedSupportRecovery


def _data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(30), 50)
    X = rng.normal(size=(1500, 20))
    y = X[:, 3] - 2 * X[:, 7] + 0.5 * rng.normal(size=1500)
    return X, y, groups, groups < 24


def _join_and_full(**params):
    X, y, groups, old = _data()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        joined = FederatedSupportRecovery(random_state=0, **params).fit(
            X[old], y[old], groups=groups[old])
        joined.add_nodes(X[~old], y[~old], groups=groups[~old])
        full = FederatedSupportRecovery(random_state=0, **params).fit(X, y, groups=groups)
    return joined, full


@pytest.mark.parametrize("vote", ["sign", "selection"])
def test_join_equals_full_fit_with_every_feature_reported(vote):
    joined, full = _join_and_full(vote=vote)
    np.testing.assert_array_equal(joined.client_supports_, full.client_supports_)
    np.testing.assert_array_equal(joined.votes_, full.votes_)
    np.testing.assert_array_equal(joined.support_, full.support_)
    assert (joined.communication_.total_bytes + joined.join_communication_.total_bytes
            == full.communication_.total_bytes)


@pytest.mark.parametrize("vote", ["sign", "selection"])
def test_join_reports_are_balanced_among_the_new_clients(vote):
    joined, full = _join_and_full(vote=vote, n_reported=4)
    new_rows = joined.reported_features_[24:]
    assert new_rows.shape == (6, 4)
    # each new client reports 4 distinct features ...
    assert all(len(set(row)) == 4 for row in new_rows.tolist())
    # ... and the 6 x 4 = 24 reports cover the 20 features once or twice
    counts = np.bincount(new_rows.ravel(), minlength=20)
    assert counts.min() == 1 and counts.max() == 2
    # the fitted clients' reports are the fit's; the new ones are not a
    # full fit's (its assignment is balanced over all 30 clients)
    assert not np.array_equal(joined.reported_features_, full.reported_features_)
    # a client only reports the features it was assigned
    for row, bits in zip(joined.reported_features_, joined.client_supports_):
        assert set(np.flatnonzero(bits)) <= set(row.tolist())
