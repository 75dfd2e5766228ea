"""small36: an earlier newcomer reports its two values to node 0 once.

Before a join reads the two means, every node that joined since node 0's
last sums sends node 0 its dictionary size and stream bytes
(skfed/online/_join_means.py ``report_late``).  Node 0 kept nothing of
those reports, so a second join heard the first join's newcomers and a
third heard them again with the second's.  Now node 0 keeps what each
reported until the next network round's sums; a newcomer reports again
only when its values changed (it stepped in a ``partial_fit`` that ran no
round).  Checked in closed form on three joins (the first round's bytes and
messages, the candidates rebuilt from the join's public draws, as in
tests/test_online34_join_means.py); the models equal those of a learner
whose node 0 forgets every report (the old behaviour), and the bytes differ
by exactly the repeated reports.
"""

import copy
import warnings

import numpy as np
import pytest

from tests.test_online34_join_means import _fitted, _newcomers, _sizes_and_first_round

CALLS = [(np.array([6, 7, 9]), 100, 11), (np.array([5, 8]), 200, 12),
         (np.array([4, 6]), 300, 13)]


def _join(est, counts, first, seed, forget=False):
    if forget:  # node 0 forgets what earlier newcomers reported (before small36)
        est.__dict__.pop("_join_late", None)
    Xn, yn, gn = _newcomers(counts, first=first, seed=seed)
    est.add_nodes(Xn, yn, groups=gn)


def _late_messages(before, after, late):
    """Messages each node of ``late`` sent node 0 in the join between logs."""
    n = len(before.node_labels)
    grown = after.pair_messages_sparse.toarray()[:n, :n]
    return (grown - before.pair_messages_sparse.toarray())[late, 0]


@pytest.mark.parametrize("header", [16, 200])
def test_three_joins_report_each_newcomer_once(header):
    est = _fitted(header=header)
    n_fit = len(est.nodes_)
    old = copy.deepcopy(est)
    _join(est, *CALLS[0])
    _join(old, *CALLS[0], forget=True)
    assert est._join_sums[0] == n_fit      # node 0's round sums: the fitted nodes'
    n_late = {1: len(CALLS[0][0]), 2: len(CALLS[1][0])}   # the reports each join hears
    for call in (1, 2):
        counts = CALLS[call][0]
        n_old = len(est.nodes_)
        _, expected, messages = _sizes_and_first_round(est, counts, header, n_late[call])
        before = est.join_communication_
        _join(est, *CALLS[call])
        _join(old, *CALLS[call], forget=True)
        log, r0 = est.join_communication_, len(before.bytes_per_round)
        assert int(log.bytes_per_round[r0]) == expected
        assert int(log.messages_per_round[r0]) == messages
        # one message to node 0 from each newcomer of the previous call only
        newest = np.arange(n_old - n_late[call], n_old)
        reported = np.arange(n_fit, n_old - n_late[call])
        np.testing.assert_array_equal(_late_messages(before, log, newest), 1)
        np.testing.assert_array_equal(_late_messages(before, log, reported), 0)
    # the same models as when every earlier newcomer reports at every join
    for a, b in zip(est.dual_coef_, old.dual_coef_):
        np.testing.assert_array_equal(a, b)
    np.testing.assert_array_equal(est.adjacency_.toarray(), old.adjacency_.toarray())
    # the old third join resent the first join's 3 reports: header + 16 each
    saved = old.join_communication_.total_bytes - est.join_communication_.total_bytes
    assert saved == len(CALLS[0][0]) * (header + 16)
    assert old.join_communication_.total_messages - est.join_communication_.total_messages == 3


def test_a_newcomer_that_stepped_reports_again():
    """A partial_fit on an earlier newcomer that runs no network round
    changes its values: it reports them again at the next join."""
    est = _fitted()
    _join(est, *CALLS[0])
    _join(est, *CALLS[1])
    n_fit, held = len(est.nodes_) - 5, est._join_sums
    stepped = n_fit   # the first newcomer (label 100)
    rng = np.random.RandomState(3)
    Xs = rng.normal(size=(3, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.partial_fit(Xs, (Xs[:, 0] > 0).astype(int), groups=np.full(3, 100))
    assert est._join_sums == held       # no round: node 0's sums are the fit's
    before = est.join_communication_
    _join(est, *CALLS[2])
    late = np.arange(n_fit, n_fit + 5)
    expected = np.array([1, 0, 0, 1, 1])   # the one that stepped; the second call's two
    np.testing.assert_array_equal(_late_messages(before, est.join_communication_, late),
                                  expected)
    assert stepped == late[0]
