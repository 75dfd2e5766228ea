"""bytes38: a MOCHA size's reports with the share selection's centres cost
at most REHEARSAL_BYTE_SHARE of the fit's bytes: float64 if they fit, else
rounded to 8 bits (one float64 scale a draw), else no centres
(skfed.multitask._rehearsal_bytes).

References: the join's bytes counted message by message in NumPy (the
newcomer's two messages, each rehearsing node's request and report); the
rule's choice recomputed from the draws at several federation sizes; the
rounded reports against a NumPy rounding of the float64 ones; a join whose
float64 reports are affordable is the join without the budget (share
monkeypatched to infinity), hash for hash; one that affords nothing is
the join of the same fit without the share selection's centres.
"""

import copy
import hashlib
import sys
from pathlib import Path

import numpy as np
import pytest

from skfed import FederatedMultiTaskRegressor
from skfed.multitask import _rehearsal_bytes as rb
from skfed.multitask._rehearsal import REHEARSAL_SCALES, choose_centre
from skfed.network import DEFAULT_HEADER_BYTES, index_bits

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from user37_small_federation_join import regression_sites

HEADER = DEFAULT_HEADER_BYTES


def _fitted(n_sites, seed=0):
    X, y, g = regression_sites(seed, n_sites=n_sites)
    old = g < n_sites - 1
    est = FederatedMultiTaskRegressor(random_state=0).fit(X[old], y[old], groups=g[old])
    new = np.flatnonzero(~old)[:10]
    return est, (X[new], y[new], g[new])


def _numpy_cost(reh, a, n_centres, bits=None):
    """Request, report and their headers of draw set ``a``, every kept draw
    reporting 5 values per centre (twice with more than one centre): float64,
    or ``bits`` bits each and one float64 scale."""
    _, owners, _ = reh.draws[a]
    kept = reh.kept[a]
    nodes = np.unique(owners)
    values = len(REHEARSAL_SCALES) * (n_centres * 2 if n_centres > 1 else 1)
    per_draw = 8 * values if bits is None else 8 + int(np.ceil(values * bits / 8))
    floats = per_draw * int(kept.sum())
    request = int(np.ceil(index_bits(5) / 8))  # one size, no one-class bit (a regressor)
    report_bits = 1  # which kind of report (floats)
    return len(nodes) * (request + HEADER + HEADER + int(np.ceil(report_bits / 8))) + floats


def _numpy_choice(reh, a, fit_bytes):
    budget = rb.REHEARSAL_BYTE_SHARE * fit_bytes
    for bits in (None, 8):
        if _numpy_cost(reh, a, len(reh.centres), bits) <= budget:
            return True, bits
    return False, None


def _digest(est):
    h = hashlib.sha256()
    for a in (est.coef_, est.intercept_, est._W):
        h.update(np.ascontiguousarray(a).tobytes())
    h.update(str(est.join_communication_.total_bytes).encode())
    h.update(np.asarray(est.join_communication_.pair_bytes).tobytes())
    return h.hexdigest()


def test_eight_sites_join_bytes_closed_form():
    est, (Xn, yn, gn) = _fitted(8)
    reh = est._join_rehearsal
    assert len(reh.centres) == 4  # the fit ran a share selection
    fit_bytes = est.communication_.total_bytes
    est.add_nodes(Xn, yn, groups=gn)
    a = reh.usable[list(reh.sizes).index(10)]
    # the rule: float64 reports cost more than the share, 8-bit ones less
    assert _numpy_cost(reh, a, 4) > rb.REHEARSAL_BYTE_SHARE * fit_bytes
    assert _numpy_cost(reh, a, 4, 8) <= rb.REHEARSAL_BYTE_SHARE * fit_bytes
    assert reh.centred == {a: True} and reh.report_bits == {a: 8}
    P, d = 1, est._W.shape[-1]
    newcomer = (2 * 8 + HEADER) + ((P * d + 1) * 8 + HEADER)
    log = est.join_communication_
    assert log.total_bytes == _numpy_cost(reh, a, 4, 8) + newcomer
    assert log.total_bytes <= 0.1 * fit_bytes
    # each rehearsing node: one request, one report; the newcomer: up, down
    assert log.total_messages == 2 * len(np.unique(reh.draws[a][1])) + 2


@pytest.mark.parametrize("n_sites, choice", [(4, (True, 8)), (8, (True, 8)), (12, (True, 8)),
                                             (20, (True, 8)), (40, (True, 8)),
                                             (80, (True, None))])
def test_the_rule_choice_at_several_sizes(n_sites, choice):
    """The choice recomputed from the draws; on these sites the float64
    reports cost 0.39 / 0.31 / 0.36 / 0.32 / 0.15 / 0.069 of the fit's
    bytes."""
    est, (Xn, yn, gn) = _fitted(n_sites)
    reh = est._join_rehearsal
    fit_bytes = est.communication_.total_bytes
    est.add_nodes(Xn, yn, groups=gn)
    a = reh.usable[list(reh.sizes).index(10)]
    assert len(reh.centres) == 4  # the share selection's centres
    assert (reh.centred[a], reh.report_bits[a]) == _numpy_choice(reh, a, fit_bytes) == choice
    assert reh.n_centres(a) == 4


def test_rounded_reports_are_what_the_server_decodes(monkeypatch):
    """The 8-bit reports: each draw's 40 errors rounded to 8-bit integers of
    its largest one (NumPy), then the float64 rule on them: the same
    results as the join's."""
    est, (Xn, yn, gn) = _fitted(8)
    free = copy.deepcopy(est)._join_rehearsal
    est.add_nodes(Xn, yn, groups=gn)
    reh = est._join_rehearsal
    a = reh.usable[list(reh.sizes).index(10)]
    # the float64 errors of every centre (the table, no budget)
    recorded = []
    original = free._solve

    def solve(*args, **kwargs):
        out = original(*args, **kwargs)
        recorded.append(out)
        return out

    monkeypatch.setattr(free, "_solve", solve)
    free._rehearse(a)
    found = [recorded[0]] + [r[0] for r in recorded[2:]]
    clean = [recorded[1]] + [r[1] for r in recorded[2:]]
    stacked = np.concatenate(found + clean, axis=0)  # (40, n_draws)
    scale = np.nanmax(np.abs(stacked), axis=0)
    decoded = np.rint(stacked * (127 / scale)) * (scale / 127)
    d_found = decoded[:20].reshape(4, 5, -1)
    d_clean = decoded[20:].reshape(4, 5, -1)
    kept = reh.kept[a]
    owners = reh.draws[a][1]
    scored = kept & np.isfinite(d_clean[0][0])
    centre = choose_centre([E[:, scored] for E in d_clean], owners[scored])
    assert reh.centre_of[a] == centre
    E = d_found[centre][:, kept]
    np.testing.assert_allclose(reh.results[a][0], E.mean(axis=1), rtol=1e-12)
    np.testing.assert_allclose(reh.results[a][1], (E - E[0]).std(axis=1, ddof=1)
                               / np.sqrt(kept.sum()), rtol=1e-10, atol=1e-14)
    # rounding moved the errors (the reports are not the float64 ones)
    assert not np.allclose(decoded[np.isfinite(decoded)], stacked[np.isfinite(stacked)],
                           rtol=1e-6)


def test_affordable_reports_leave_the_join_unchanged(monkeypatch):
    """A share that affords the float64 reports (here the 8 sites' fit with
    the share at 1.0, which holds their 0.3-0.4) changes nothing: models and
    bytes are the unbudgeted join's (the table's federations: their reports
    cost at most 0.025 of their fits' bytes)."""
    est, (Xn, yn, gn) = _fitted(8)
    budgeted, free = copy.deepcopy(est), copy.deepcopy(est)
    monkeypatch.setattr(rb, "REHEARSAL_BYTE_SHARE", 1.0)
    budgeted.add_nodes(Xn, yn, groups=gn)
    monkeypatch.setattr(rb, "REHEARSAL_BYTE_SHARE", np.inf)
    free.add_nodes(Xn, yn, groups=gn)
    assert all(budgeted._join_rehearsal.centred.values())
    assert set(budgeted._join_rehearsal.report_bits.values()) == {None}
    assert _digest(budgeted) == _digest(free)


def test_unaffordable_reports_are_the_join_without_centres(monkeypatch):
    """Where not even the 8-bit reports fit (the share at 0.02 of the 8
    sites' fit), the size is rehearsed around w_0 alone: the same models as
    the same fit with the share selection's centres removed."""
    monkeypatch.setattr(rb, "REHEARSAL_BYTE_SHARE", 0.02)
    est, (Xn, yn, gn) = _fitted(8)
    alone = copy.deepcopy(est)
    reh = alone._join_rehearsal
    reh.centres, reh.join_centres = reh.centres[:1], reh.join_centres[:1]
    est.add_nodes(Xn, yn, groups=gn)
    alone.add_nodes(Xn, yn, groups=gn)
    assert not any(est._join_rehearsal.centred.values())
    np.testing.assert_array_equal(est._W, alone._W)
    assert est.join_communication_.total_bytes == alone.join_communication_.total_bytes


def test_no_fit_log_no_budget():
    """A rehearsal whose fit bytes are unknown (table(), a benchmark's) has
    no budget: the centres are compared as before."""
    est, _ = _fitted(8)
    reh = copy.deepcopy(est._join_rehearsal)
    assert reh.fit_bytes is None
    reh.table()
    assert all(reh.centred.values()) and len(reh.centred) == len(reh.usable)


def test_gate_open_reports_count_one_centre(monkeypatch):
    """The terrains' fit (the gate open) with a second, unused centre: the
    join sends the same reports, so its bytes must not move."""
    from skfed.multitask import _join_neighbours as jn

    from .test_multitask_join_neighbours import _terrains

    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", np.inf)
    X, y, g = _terrains(seed=0, regression=True)
    old = g < 14
    est = FederatedMultiTaskRegressor(random_state=0).fit(X[old], y[old], groups=g[old])
    assert est._join_rehearsal.around is not None and len(est._join_rehearsal.centres) == 1
    two = copy.deepcopy(est)
    reh = two._join_rehearsal
    reh.centres = reh.centres + [reh.centres[0]]
    reh.join_centres = reh.join_centres + [reh.join_centres[0]]
    new = np.flatnonzero(~old)
    new = np.concatenate([new[g[new] == t][:10] for t in np.unique(g[new])])
    est.add_nodes(X[new], y[new], groups=g[new])
    two.add_nodes(X[new], y[new], groups=g[new])
    np.testing.assert_array_equal(est._W, two._W)  # the same reports were used
    assert two.join_communication_.total_bytes == est.join_communication_.total_bytes
