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
    _assert_same_models(a, b)


def _assert_same_models(a, b):
    assert len(a.dual_coef_) == len(b.dual_coef_)
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


def _sequence(seed, drop):
    """Random joins (``add_nodes``, ``partial_fit`` with new ids), steps of
    earlier newcomers (``partial_fit``), refits and pickling; at every join
    the late reports to node 0 are checked against a tracker of what node 0
    last heard from each node (forgotten at each network round's sums), and
    the models at the end against a learner whose node 0 forgets every
    report (it always resends).  Returns (resent, skipped) counts."""
    from tests.test_online34_join_means import _newcomers

    rng = np.random.RandomState(seed)
    X, y, groups = _data(5, 14, 12)
    est = _fitted()
    if drop:
        est.set_params(network__drop_rate=drop)
    forgetful = pickle.loads(pickle.dumps(est))
    label, heard, sums, counts = 100, {}, est._join_sums, [0, 0]
    for step in range(8):
        op = rng.choice(["add", "new", "step", "pickle", "refit"], p=[.3, .25, .25, .1, .1])
        if est._join_sums is not sums:
            heard.clear()            # a round's sums: node 0 starts afresh
        if op == "pickle":
            est = pickle.loads(pickle.dumps(est))
            sums = est._join_sums
            continue
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            if op == "refit":
                for model in (est, forgetful):
                    model.fit(X, y, groups=groups)
                label = 100
            elif op == "step":
                late = [node for node in est.nodes_.tolist() if node >= 100]
                if late:
                    Xs = rng.normal(size=(3, 2))
                    who = np.full(3, rng.choice(late))
                    for model in (est, forgetful):
                        model.partial_fit(Xs, (Xs[:, 0] > 0).astype(int), groups=who)
            else:
                n_old, n_covered = len(est.nodes_), est._join_sums[0]
                sent = np.zeros(n_old)
                own = np.asarray(est.communication_.bytes_sent, float)[:n_old]
                sent[:len(own)] = own
                expected = []
                for node in range(n_covered, n_old):
                    values = (float(est._sizes[node]), sent[node])
                    expected.append(int(heard.get(node) != values))
                    heard[node] = values
                before = getattr(est, "join_communication_", None)
                sizes = rng.randint(3, 8, size=rng.randint(1, 3))
                Xn, yn, gn = _newcomers(sizes, first=label, seed=100 * seed + step)
                label += len(sizes)
                forgetful.__dict__.pop("_join_late", None)
                for model in (est, forgetful):
                    (model.add_nodes if op == "add" else model.partial_fit)(Xn, yn, groups=gn)
                if expected and before is not None:
                    got = _late_messages(before, est.join_communication_,
                                         np.arange(n_covered, n_old))
                    np.testing.assert_array_equal(got, expected, err_msg=f"step {step}")
                    counts[0] += sum(expected)
                    counts[1] += len(expected) - sum(expected)
        sums = est._join_sums
    _assert_same_models(est, forgetful)   # (its bytes differ: it resends)
    return counts


def test_random_sequences_report_what_changed_once():
    counts = np.zeros(2, dtype=int)
    for seed in range(4):
        for drop in (0.0, 0.3):
            counts += _sequence(seed, drop)
    assert counts.min() >= 5      # both resent and skipped reports were checked
