"""Very wide clients run the marginal test when the neighbour stage can link.

At ``d > 20 median(n_i)`` a small client's closest features are chance
correlations; with enough sketches (``skfed.support._rules.sketches_link``)
the fit sends every such client to the marginal test and leaves the
support's neighbours, which that test selects, to the neighbour stage
(``skfed.support._neighbours``).  Checked: the switch against its formula,
the selection bits against a NumPy marginal test, exact recovery on a
seeded Toeplitz instance with a pair of support features whose marginal
signal cancels by a quarter, and rogue clients that forge sketches to
weaken the links (so that a neighbour stays).
"""

import numpy as np
from scipy import stats

from skfed.network import NetworkSimulation, SimulatedNetwork
from skfed.support import FederatedSupportRecovery
from skfed.support._neighbours import neighbour_stage
from skfed.support._rules import LINKED_CORRELATION, sketches_link
from tests.test_support_neighbours import toeplitz_clients


def test_switch_against_its_formula():
    # all clients small (10 < d + 4): g_s = g, b = beta
    d, fwer, beta = 1000, 0.05, 0.02
    m = 2 * np.arcsin(LINKED_CORRELATION) / np.pi
    need = (stats.norm.isf(fwer / (2 * d * d)) * (1 - beta) / (m - beta)) ** 2
    assert 1300 < need < 1600
    for g in (int(need) - 5, int(need) + 5):
        assert sketches_link(np.full(g, 10), d, True, fwer, beta) == (g > need)
    # OLS clients send no sketch: the same count of small clients among more
    # clients carries a larger rogue share, so it links later
    mixed = np.r_[np.full(int(need) + 5, 10), np.full(2000, d + 10)]
    assert not sketches_link(mixed, d, True, fwer, beta)
    assert not sketches_link(np.full(10, d + 10), d, True, fwer, beta)


def _fit(X, y, groups, **kw):
    return FederatedSupportRecovery(random_state=0, **kw).fit(X, y, groups=groups)


def test_marginal_test_recovers_a_cancelled_pair_exactly():
    # d = 400, 3,000 clients of 10 samples: 100 and 102 (opposite signs, two
    # apart: a quarter of each one's marginal signal cancels) and 300.
    d, g, n = 400, 3000, 10
    X, y, groups = toeplitz_clients(g, n, d, [100, 102, 300], [1.5, -1.5, 1.5], seed=4)
    est = _fit(X, y, groups)
    assert est._wide_marginal and est.n_controls_.max() == 0
    stage_one = np.flatnonzero(est.pvalues_ <= 0.05 / d)
    assert {99, 103, 299, 301} <= set(stage_one.tolist())  # the neighbours pass stage one
    assert np.flatnonzero(est.support_).tolist() == [100, 102, 300]
    assert (est.explained_by_[[99, 103]] == [100, 102]).all()
    # fewer clients: the gated rule (no marginal switch), still exact
    few = _fit(X[groups < 1000], y[groups < 1000], groups[groups < 1000])
    assert not few._wide_marginal and few.n_controls_.max() > 0
    assert np.flatnonzero(few.support_).tolist() == [100, 102, 300]


def test_unlinking_sketches_do_not_keep_a_neighbour():
    # Direct check of the stage: a support feature selected at 0.4878 by the
    # marginal test (population correlation 0.3 at 10 samples) and its
    # neighbour (rho 0.5) at that test's exact rate 0.3607; 2 % rogues vote
    # for everything and send sketches that disagree on the pair, lowering
    # the observed agreement by up to 0.04.  Read at the smallest honest
    # agreement the link explained too little and the neighbour stayed
    # (votes 0.3765 against 0.3677); read at the largest it is removed.
    rng = np.random.default_rng(0)
    g, d, beta = 60000, 4, 0.02
    h = g - int(beta * g)
    bits = np.zeros((g, d), dtype=bool)
    bits[:h, 0] = rng.random(h) < 0.4878
    bits[:h, 1] = rng.random(h) < 0.3607
    bits[:h, 2:] = rng.random((h, 2)) < 2 * stats.norm.sf(1.0)
    bits[h:] = True
    z = rng.standard_normal((g, d))
    z[:, 1] = 0.5 * z[:, 0] + np.sqrt(0.75) * z[:, 1]
    signs = z > 0
    signs[h:, 0], signs[h:, 1] = True, False
    sketch = np.packbits(signs, axis=1, bitorder="little")
    support = np.array([True, True, False, False])
    keep, ref, by = neighbour_stage(support, bits, sketch, np.ones(g, bool), bits.sum(0),
                                    np.full(d, g), 1.0, beta, 0.05)
    assert by[1] == 0 and not keep[1] and keep[0]
    assert ref[1] > bits[:, 1].mean()
    # the same without rogues: the honest link removes it too
    keep0, _, _ = neighbour_stage(support, bits[:h], sketch[:h], np.ones(h, bool),
                                  bits[:h].sum(0), np.full(d, h), 1.0, beta, 0.05)
    assert not keep0[1] and keep0[0]


def test_rogues_at_the_tolerance_add_no_neighbour(monkeypatch):
    # The fit at the defaults (rogue tolerance 0.02 for small clients) with
    # 2 % rogues that send all-ones bits and sketches alternating in sign
    # (every adjacent pair disagrees): the neighbours stay out.
    d, g, n = 400, 3000, 10
    X, y, groups = toeplitz_clients(g, n, d, [100, 300], [1.5, 1.5], seed=5)
    calls = []

    def forged(self, rows, nodes):
        calls.append(len(nodes))
        out = np.ones(np.shape(rows), dtype=bool)
        if len(calls) == 1:  # the sketches
            out[:, 1::2] = False
        return out

    monkeypatch.setattr(NetworkSimulation, "corrupt_bit_rows", forged)
    net = SimulatedNetwork(rogue_fraction=0.02, random_state=0)
    est = _fit(X, y, groups, network=net)
    assert len(calls) == 2 and est.rogue_.sum() == 60 and est._wide_marginal
    assert np.flatnonzero(est.support_).tolist() == [100, 300]


def test_feature_between_two_support_features_of_the_same_sign():
    # 101 between 100 and 102 (same sign): its marginal covariance with y
    # is 0.5 x 1.5 + 0.5 x 1.5, so one neighbour explains only half of it;
    # pass two re-tests it against the two together and removes it.
    d, g, n = 400, 3000, 10
    X, y, groups = toeplitz_clients(g, n, d, [100, 102, 300], [1.5, 1.5, 1.5], seed=0)
    est = _fit(X, y, groups)
    assert est._wide_marginal
    stage_one = np.flatnonzero(est.pvalues_ <= 0.05 / d)
    assert 101 in stage_one and est.vote_fraction_[101] > 0.7
    assert np.flatnonzero(est.support_).tolist() == [100, 102, 300]
    assert est.explained_by_[101] in (100, 102)
    assert est.neighbour_reference_rate_[101] > est.vote_fraction_[101]
    from tests.test_support_neighbours import reference_stage, unpack
    keep, ref, by = reference_stage(
        stage_one.size and est.pvalues_ <= 0.05 / d, est.client_supports_[est.answered_],
        unpack(est._sketch_rows, d), ~est.ols_clients_[est.answered_], est.votes_,
        est.n_reports_, 1.0, est.rogue_tolerance_, 0.05)
    np.testing.assert_array_equal(keep, est.support_)
    np.testing.assert_array_equal(by, est.explained_by_)
    ok = est.vote_fraction_[est.explained_by_.clip(0)] < 1.0
    np.testing.assert_allclose(ref[ok], est.neighbour_reference_rate_[ok], rtol=1e-6)


def test_newcomers_run_the_fits_rule():
    # The fit chose the marginal test (3,000 sketches); 200 newcomers, too
    # few to link on their own, run it as well (n_controls_ 0), and a fit
    # of 1,000 keeps the gated rule for its newcomers too.
    d, n = 400, 10
    X, y, groups = toeplitz_clients(3200, n, d, [100, 300], [1.5, 1.5], seed=6)
    old = groups < 3000
    est = _fit(X[old], y[old], groups[old])
    assert est._wide_marginal
    est.add_nodes(X[~old], y[~old], groups=groups[~old])
    assert est.n_controls_.shape == (3200,) and est.n_controls_.max() == 0
    assert np.flatnonzero(est.support_).tolist() == [100, 300]
    few = groups < 1000
    gated = _fit(X[few], y[few], groups[few])
    assert not gated._wide_marginal
    new = (groups >= 3000)
    gated.add_nodes(X[new], y[new], groups=groups[new])
    assert gated.n_controls_[1000:].max() > 0
