"""review37: node 0's kept late-join reports (skfed/online/_join_means.py)
across refits and pickling.

small36 made node 0 keep the reports of the nodes that joined since its
last round's sums (``_join_late``) and skip a newcomer whose values equal
what it reported.  The check compared node 0's sums by value, and nothing
forgot the kept reports at a refit: refitting on the same data gives the
same sums, so the next fit's first newcomers were taken as already heard
and their reports went unsent (and uncounted).  A network round's sums now
replace the kept reports.  Each test compares the join logs and models to
an estimator that never saw the earlier history (or was never pickled).
"""

import pickle
import warnings

import numpy as np

from tests.test_online34_join_means import _data, _fitted
from tests.test_small36_join_reports import CALLS, _join, _late_messages


def _assert_same_joins(a, b):
    la, lb = a.join_communication_, b.join_communication_
    np.testing.assert_array_equal(la.bytes_per_round, lb.bytes_per_round)
    np.testing.assert_array_equal(la.messages_per_round, lb.messages_per_round)
    np.testing.assert_array_equal(la.pair_messages_sparse.toarray(),
                                  lb.pair_messages_sparse.toarray())
    for u, v in zip(a.dual_coef_, b.dual_coef_):
        np.testing.assert_array_equal(u, v)
    np.testing.assert_array_equal(a.adjacency_.toarray(), b.adjacency_.toarray())


def test_refit_forgets_the_previous_fits_reports():
    est = _fitted()
    X, y, groups = _data(5, 14, 12)
    n_fit = len(est.nodes_)
    _join(est, *CALLS[0])
    _join(est, *CALLS[1])
    sums = est._join_sums
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=groups)
    assert est._join_sums == sums     # the refit's sums equal the first fit's
    fresh = _fitted()
    for model in (est, fresh):
        _join(model, *CALLS[0])
    before = est.join_communication_
    for model in (est, fresh):
        _join(model, *CALLS[1])
    # the refit's first newcomers (3) report once each, as after a first fit
    np.testing.assert_array_equal(
        _late_messages(before, est.join_communication_, np.arange(n_fit, n_fit + 3)), 1)
    _assert_same_joins(est, fresh)


def test_pickling_between_joins_changes_no_report():
    est, plain = _fitted(), _fitted()
    for call in CALLS:
        est = pickle.loads(pickle.dumps(est))
        _join(est, *call)
        _join(plain, *call)
    _assert_same_joins(est, plain)
    # node 0 keeps the values of the five nodes that joined since its sums
    assert est._join_late[1].shape == (5,)
