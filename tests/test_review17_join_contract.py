"""What every ``add_nodes`` owes its caller, checked across the families (review17).

Issue 32 asks that a join leave the fitted nodes as they are, be counted
byte for byte and behave like any scikit-learn method.  The family tests
check each join against its NumPy computation; these check, for every
public estimator with ``add_nodes`` on the same small data (tests/
test_bad_input.py's table: 8 nodes x 30 samples x 5 features, nodes 0-5
fitted), what those tests do not vary:

* **a join's state survives pickling**: fit, join node 6, pickle (and
  deep-copy), join node 7 on the original and on the copies: the same
  outputs, ``nodes_``, bytes and messages (the next join's draws and what
  later joins need travel with the estimator);
* **the newcomers' ids are only names**: the same rows joined as 6 / 7, as
  16 / 17, as -2 / -1 (before every fitted id, so ``nodes_`` is no longer
  sorted) or as 3.5 / 100 give the same newcomer outputs and bytes, and the
  fitted nodes' outputs, looked up by their ids, do not move;
* **row order across nodes does not matter**: the newcomers' rows
  interleaved (7, 6, 7, 6, ...) join as their contiguous rows do;
* **a refit forgets the joins before it**: fit on nodes 0-5, join 6-7,
  refit on nodes 0-3 and join 6-7 again is the join after a fresh fit on
  nodes 0-3 (the MOCHA CV estimators kept the first join's node count and
  counter: fixed in ``skfed/multitask/_cv.py``, see
  ``test_review17_cv_refit_join.py``);
* **the logs add up**: after two joins ``n_bytes_sent_`` / ``n_messages_``
  are the fit's totals plus ``join_communication_``'s, which holds both
  joins (its rounds the first join's plus the second's), and the fit's
  ``communication_`` is untouched.
"""

import copy
import pickle
import warnings

import numpy as np
import pytest

from .test_bad_input import DATA, build, kind_of, public_estimators

X, GROUPS = DATA["X"], DATA["groups"]
JOINABLE = [n for n in public_estimators()
            if kind_of(build(n)) != "models" and hasattr(build(n), "add_nodes")]
OLD, NEW = GROUPS < 6, GROUPS >= 6


def _quiet(call, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return call(*args, **kwargs)


def _fitted(name):
    est = build(name)
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    return _quiet(est.fit, X[OLD], DATA[kind_of(est)][OLD], groups=GROUPS[OLD])


def _join(est, rows, groups=None):
    y = DATA[kind_of(est)]
    return _quiet(est.add_nodes, X[rows], y[rows],
                  groups=GROUPS[rows] if groups is None else groups)


def _out(est, rows, groups=None):
    """Continuous outputs where there are some (decision values, predictions)."""
    groups = GROUPS[rows] if groups is None else groups
    if hasattr(est, "decision_function"):
        return np.asarray(_quiet(est.decision_function, X[rows], groups=groups), float)
    if hasattr(est, "predict"):
        return np.asarray(_quiet(est.predict, X[rows], groups=groups), float)
    return np.asarray(_quiet(est.transform, X[rows]), float)


def _totals(est):
    return getattr(est, "n_bytes_sent_", 0), getattr(est, "n_messages_", 0)


@pytest.mark.parametrize("name", JOINABLE)
def test_a_pickled_join_continues_like_the_original(name):
    six, seven = GROUPS == 6, GROUPS == 7
    est = _join(_fitted(name), six)
    copies = [pickle.loads(pickle.dumps(est)), copy.deepcopy(est)]
    for e in [est, *copies]:
        _join(e, seven)
    for e in copies:
        assert e.nodes_.tolist() == est.nodes_.tolist() == list(range(8))
        np.testing.assert_array_equal(_out(e, GROUPS >= 0), _out(est, GROUPS >= 0))
        assert _totals(e) == _totals(est)


RELABELS = {"after": {6: 16, 7: 17}, "before": {6: -2, 7: -1}, "float": {6: 3.5, 7: 100}}


@pytest.mark.parametrize("relabel", list(RELABELS))
@pytest.mark.parametrize("name", JOINABLE)
def test_newcomer_ids_are_only_names(name, relabel):
    plain = _join(_fitted(name), NEW)
    ids = np.array([RELABELS[relabel][g] for g in GROUPS[NEW]])
    renamed = _join(_fitted(name), NEW, groups=ids)
    assert renamed.nodes_.tolist() == list(range(6)) + sorted(RELABELS[relabel].values())
    np.testing.assert_array_equal(_out(renamed, NEW, ids), _out(plain, NEW))
    np.testing.assert_array_equal(_out(renamed, OLD), _out(_fitted(name), OLD))
    assert _totals(renamed) == _totals(plain)


@pytest.mark.parametrize("name", JOINABLE)
def test_interleaved_rows_join_as_contiguous_rows(name):
    six, seven = np.flatnonzero(GROUPS == 6), np.flatnonzero(GROUPS == 7)
    interleaved = np.ravel(np.column_stack([seven, six]))
    contiguous = _join(_fitted(name), NEW)
    mixed = _fitted(name)
    _quiet(mixed.add_nodes, X[interleaved], DATA[kind_of(mixed)][interleaved],
           groups=GROUPS[interleaved])
    assert mixed.nodes_.tolist() == contiguous.nodes_.tolist()
    np.testing.assert_array_equal(_out(mixed, NEW), _out(contiguous, NEW))
    assert _totals(mixed) == _totals(contiguous)


@pytest.mark.parametrize("name", [n for n in JOINABLE if n != "LocalEstimator"])
def test_two_joins_add_up_in_the_logs(name):
    est = _fitted(name)
    fit_log = est.communication_
    fit_bytes, fit_messages = _totals(est)
    fit_rounds = fit_log.n_rounds
    _join(est, GROUPS == 6)
    first = est.join_communication_
    assert _totals(est) == (fit_bytes + first.total_bytes, fit_messages + first.total_messages)
    _join(est, GROUPS == 7)
    both = est.join_communication_
    assert both.total_bytes > first.total_bytes and both.n_rounds > first.n_rounds
    assert _totals(est) == (fit_bytes + both.total_bytes, fit_messages + both.total_messages)
    # the first join's rounds open the log of both, node for node
    np.testing.assert_array_equal(np.asarray(both.bytes_per_round)[:first.n_rounds],
                                  np.asarray(first.bytes_per_round))
    assert est.communication_ is fit_log and fit_log.n_rounds == fit_rounds
    assert list(both.node_labels) == list(range(8))


@pytest.mark.parametrize("name", JOINABLE)
def test_a_refit_forgets_the_joins_before_it(name):
    # fit on nodes 0-5, join 6-7, refit on nodes 0-3, join 6-7 again: the
    # same as the join after a fresh fit on nodes 0-3 (nothing of the first
    # fit or join, e.g. its node count or join counter, is read again)
    four = GROUPS < 4
    y = DATA[kind_of(build(name))]
    refitted = _join(_fitted(name), NEW)
    _quiet(refitted.fit, X[four], y[four], groups=GROUPS[four])
    _join(refitted, NEW)
    fresh = build(name)
    if "random_state" in fresh.get_params():
        fresh.set_params(random_state=0)
    _join(_quiet(fresh.fit, X[four], y[four], groups=GROUPS[four]), NEW)
    assert refitted.nodes_.tolist() == fresh.nodes_.tolist() == [0, 1, 2, 3, 6, 7]
    rows = four | NEW
    np.testing.assert_array_equal(_out(refitted, rows), _out(fresh, rows))
    assert _totals(refitted) == _totals(fresh)
