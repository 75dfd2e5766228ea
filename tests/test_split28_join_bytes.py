"""A regressor's join candidates of a solved network function send ``sum w`` only.

Since online26 a newcomer takes a network function that the fit's solve
kept at scale 1; it reads only the third of the three scale sums its
candidates added to their answers (``sum w``, the prior's weight), yet they
still sent ``sum w f0 y`` and ``sum w f0^2`` (16 bytes per answer).  On a
fit whose solve was really kept, the same newcomers are joined to copies
that differ only by what the candidates add: the bytes differ by the closed
form, 8 bytes per answer against a fit without sums and 16 against the same
fit with its solve flag cleared (the three sums); at main both checks fail
(24 bytes per answer).  The newcomers' starts and prior weights are those
of the three sums (the stream's weights ``k / (n + k)``, NumPy).
"""

import copy
import warnings

import numpy as np

from skfed.online import _join as join_module
from skfed.online import _join_regress
from tests.test_online_join_scale import _fitted


def _join(est, Xn, yn, gn, monkeypatch=None):
    """Join the newcomers to a copy of ``est``; returns it, the number of
    candidates each newcomer read sums from, those sums (of a solved
    component, with ``monkeypatch``) and the streams' sample weights."""
    answered, received, streams = [], [], []
    joined = copy.deepcopy(est)
    scale, run = joined._network_scale, joined._run
    joined._network_scale = lambda a, s, c: answered.append(len(a)) or scale(a, s, c)
    joined._run = lambda X_, y_, w_, *a, **kw: streams.append(w_.copy()) or run(
        X_, y_, w_, *a, **kw)
    if monkeypatch is not None:
        prior_of = join_module.solved_prior
        monkeypatch.setattr(join_module, "solved_prior", lambda a, s, n, c: (
            answered.append(len(a)) or received.append(np.array(s)) or prior_of(a, s, n, c)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        joined.add_nodes(Xn, yn, groups=gn)
    return joined, answered, received, streams


def test_solved_candidates_send_the_weight_sum_alone(monkeypatch):
    est, X, y, g, Xn, yn, gn = _fitted(keep_solve=True)   # (asserts the solve was kept)
    assert est._network_fit_stats is not None and est._network_solved.all()
    # (without the offset sums solved candidates also add since onlinesch38,
    # 16 bytes: tests/test_onlinesch38_join_offset.py)
    est._network_offset_stats = None

    solved, answered, received, _ = _join(est, Xn, yn, gn, monkeypatch)
    monkeypatch.undo()
    # what each newcomer received: (NaN, NaN, sum w) per candidate, sum w the
    # candidate's weight over its own rows (10 rows of weight 1)
    assert len(answered) == len(received) == 3 and sum(answered) == 3 * 4   # (the budget: 4 candidates each)
    for sums in received:
        assert sums.shape == (4, 3)
        assert np.isnan(sums[:, :2]).all() and np.all(sums[:, 2] == 10.0)

    without = copy.deepcopy(est)
    without._network_fit_stats = None   # nothing added to the answers
    without, none_answered, _, _ = _join(without, Xn, yn, gn)
    three = copy.deepcopy(est)
    three._network_solved = np.zeros_like(three._network_solved)   # the three sums
    three, three_answered, _, _ = _join(three, Xn, yn, gn)
    assert none_answered == [] and sum(three_answered) == 12

    total = {name: joined.join_communication_.total_bytes
             for name, joined in [("solved", solved), ("none", without), ("three", three)]}
    n_answers = 12
    assert total["solved"] - total["none"] == _join_regress.WEIGHT_SUM_BYTES * n_answers
    assert total["three"] - total["solved"] == 16 * n_answers
    assert total["three"] - total["none"] == _join_regress.SCALE_SUMS_BYTES * n_answers
    assert _join_regress.WEIGHT_SUM_BYTES == 8 and _join_regress.SCALE_SUMS_BYTES == 24


def test_solved_newcomer_keeps_its_prior_weight_and_start():
    est, X, y, g, Xn, yn, gn = _fitted(keep_solve=True)
    joined, _, _, streams = _join(est, Xn, yn, gn)
    network = joined.join_start_ == "network"
    assert network.any()
    # k / (n + k) with k = 4 own samples and n = 10, the candidates' mean
    # weight (the prior of the three sums' rule), 1 for the other starts
    weights = np.concatenate(streams)
    expected = np.where(network[gn - 100], 4 / 14, 1.0)
    order = np.concatenate([np.flatnonzero(joined.join_passes_[gn - 100] == p)
                            for p in np.unique(joined.join_passes_[joined.join_passes_ > 0])])
    np.testing.assert_allclose(weights, expected[order], rtol=1e-12)
    # the old nodes are untouched
    np.testing.assert_array_equal(joined.predict(X, groups=g), est.predict(X, groups=g))


def test_rogue_candidate_corrupts_only_what_it_sends():
    class Sim:
        rogue = np.array([False, True, False])

        def corrupt_value_rows(self, rows, nodes):
            out = np.array(rows, dtype=float)
            out[self.rogue[nodes]] *= -1.0
            return out

    sums = np.array([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0], [7.0, 8.0, 9.0]])
    component = np.array([0, 0, 1])
    solved = np.array([True, False])
    rows = _join_regress.sent_scale_sums(Sim(), sums, [0, 1, 2], solved, component)
    np.testing.assert_array_equal(rows, [[np.nan, np.nan, 3.0], [np.nan, np.nan, -6.0],
                                         [7.0, 8.0, 9.0]])
    # the prior: the mean positive sum w of the solved component's candidates
    assert _join_regress.solved_prior([0, 1, 2], rows, component, 0) == 3.0
    assert _join_regress.solved_prior([1], rows[1:2], component, 0) is None
    assert [_join_regress.answer_extra_bytes(sums, solved, component, j)
            for j in range(3)] == [8, 8, 24]
    assert _join_regress.answer_extra_bytes(None, solved, component, 0) == 0
    assert _join_regress.answer_extra_bytes(sums, None, component, 0) == 24
