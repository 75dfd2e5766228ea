"""bytes38: a MOCHA size compares the share selection's centres only if its
reports with them cost at most REHEARSAL_BYTE_SHARE of the fit's bytes
(skfed.multitask._rehearsal_bytes).

References: the join's bytes counted message by message in NumPy (the
newcomer's two messages, each rehearsing node's request and report); the
rule's choice recomputed from the draws at several federation sizes; a
join whose reports are affordable is the join without the budget (share
monkeypatched to infinity), hash for hash; one whose reports are not is
the join of the same fit without the share selection's centres.
"""

import copy
import hashlib

import numpy as np
import pytest
from sklearn.preprocessing import StandardScaler

from skfed import FederatedMultiTaskRegressor
from skfed.multitask import _rehearsal_bytes as rb
from skfed.multitask._rehearsal import REHEARSAL_SCALES
from skfed.network import DEFAULT_HEADER_BYTES, index_bits

HEADER = DEFAULT_HEADER_BYTES


def _sites(n_sites, seed=0, n_per=80):
    """user37's regression sites (benchmarks/user37_small_federation_join.py):
    shared coefficients plus a site's own, an offset and a shift."""
    rng = np.random.RandomState(seed)
    X = rng.randn(n_per * n_sites, 12)
    coef = rng.randn(12) * 30
    y = X @ coef + 5 * rng.randn(len(X))
    g = np.repeat(np.arange(n_sites), n_per)
    for t in range(n_sites):
        rows = g == t
        y[rows] += X[rows] @ (rng.randn(12) * 0.3 * np.abs(coef).mean()) + 20 * rng.randn()
        X[rows] += 0.5 * rng.randn(12)
    return StandardScaler().fit_transform(X), y, g


def _fitted(n_sites, seed=0):
    X, y, g = _sites(n_sites, seed)
    old = g < n_sites - 1
    est = FederatedMultiTaskRegressor(random_state=0).fit(X[old], y[old], groups=g[old])
    new = np.flatnonzero(~old)[:10]
    return est, (X[new], y[new], g[new])


def _numpy_cost(reh, a, n_centres):
    """Request, report and their headers of draw set ``a``, every kept draw
    reporting 5 float64 per centre (twice with more than one centre)."""
    _, owners, _ = reh.draws[a]
    kept = reh.kept[a]
    nodes = np.unique(owners)
    per_draw = len(REHEARSAL_SCALES) * (n_centres * 2 if n_centres > 1 else 1) * 8
    floats = per_draw * int(kept.sum())
    request = int(np.ceil(index_bits(5) / 8))  # one size, no one-class bit (a regressor)
    report_bits = 1  # which kind of report (floats)
    return len(nodes) * (request + HEADER + HEADER + int(np.ceil(report_bits / 8))) + floats


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
    assert len(reh.centres) > 1  # the fit ran a share selection
    fit_bytes = est.communication_.total_bytes
    est.add_nodes(Xn, yn, groups=gn)
    a = reh.usable[list(reh.sizes).index(10)]
    # the rule: with the centres the reports cost more than the share
    with_centres = _numpy_cost(reh, a, len(reh.centres))
    assert with_centres > rb.REHEARSAL_BYTE_SHARE * fit_bytes
    assert reh.centred == {a: False} and reh.centre_of[a] == 0
    P, d = 1, est._W.shape[-1]
    newcomer = (2 * 8 + HEADER) + ((P * d + 1) * 8 + HEADER)
    assert est.join_communication_.total_bytes == _numpy_cost(reh, a, 1) + newcomer
    assert est.join_communication_.total_bytes <= 0.1 * fit_bytes
    # each rehearsing node: one request, one report; the newcomer: up, down
    log = est.join_communication_
    n_rehearsing = len(np.unique(reh.draws[a][1]))
    assert log.total_messages == 2 * n_rehearsing + 2


@pytest.mark.parametrize("n_sites, centred", [(4, False), (8, False), (12, False), (20, False),
                                               (40, False), (80, True)])
def test_the_rule_choice_at_several_sizes(n_sites, centred):
    """The choice recomputed from the draws; on these sites the centres'
    reports cost 0.37 / 0.34 / 0.41 / 0.25 / 0.15 / 0.086 of the fit's bytes."""
    est, (Xn, yn, gn) = _fitted(n_sites)
    reh = est._join_rehearsal
    fit_bytes = est.communication_.total_bytes
    est.add_nodes(Xn, yn, groups=gn)
    a = reh.usable[list(reh.sizes).index(10)]
    assert len(reh.centres) == 4  # the share selection's centres
    affordable = _numpy_cost(reh, a, len(reh.centres)) <= rb.REHEARSAL_BYTE_SHARE * fit_bytes
    assert reh.centred[a] == affordable == centred
    assert reh.n_centres(a) == (len(reh.centres) if affordable else 1)


def test_affordable_reports_leave_the_join_unchanged(monkeypatch):
    """A share that affords the reports (here the 8 sites' fit with the share
    at 1.0, which holds their 0.3-0.4) changes nothing: models and bytes are
    the unbudgeted join's."""
    est, (Xn, yn, gn) = _fitted(8)
    budgeted, free = copy.deepcopy(est), copy.deepcopy(est)
    monkeypatch.setattr(rb, "REHEARSAL_BYTE_SHARE", 1.0)
    budgeted.add_nodes(Xn, yn, groups=gn)
    monkeypatch.setattr(rb, "REHEARSAL_BYTE_SHARE", np.inf)
    free.add_nodes(Xn, yn, groups=gn)
    assert all(budgeted._join_rehearsal.centred.values())
    assert _digest(budgeted) == _digest(free)


def test_unaffordable_reports_are_the_join_without_centres():
    """Past the share the size is rehearsed around w_0 alone: the same
    models as the same fit with the share selection's centres removed."""
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
