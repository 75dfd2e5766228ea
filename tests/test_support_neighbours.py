"""The neighbour stage of the selection vote (skfed.support._neighbours).

Small clients send a one-bit sketch of their centred rows; the server
estimates the features' correlation from the sketches and drops a selected
feature whose votes a correlated selected feature explains.  Checked
against NumPy references written here, and on a seeded Toeplitz instance
at d = 400 with 10-sample clients where the binomial test alone returns the
support feature's two neighbours.
"""

import numpy as np
import pytest
from scipy import optimize, sparse, stats

from skfed.network import SimulatedNetwork
from skfed.support import FederatedSparseLinearRegression, FederatedSupportRecovery
from skfed.support._neighbours import (
    noncentrality,
    rate_of,
    sketch_coefficients,
    sketch_signs,
)


def toeplitz_clients(n_clients, n_samples, d, support, coef, rho=0.5, seed=0):
    """Toeplitz(rho) Gaussian features, y = X w + N(0, 1), a random intercept per client."""
    rng = np.random.default_rng(seed)
    z = rng.standard_normal((n_clients * n_samples, d))
    q = np.sqrt(1.0 - rho * rho)
    for j in range(1, d):
        z[:, j] = rho * z[:, j - 1] + q * z[:, j]
    w = np.zeros(d)
    w[support] = coef
    groups = np.repeat(np.arange(n_clients), n_samples)
    y = z @ w + rng.normal(0.0, 3.0, n_clients)[groups] + rng.standard_normal(len(groups))
    return z, y, groups


def reference_sketch(X, w, offsets, clients, center, seed):
    """One client at a time: signs of sum_t a_t (x_t - weighted mean)."""
    out = []
    for i in clients:
        Xi = X[offsets[i]:offsets[i + 1]]
        Xi = Xi.toarray() if sparse.issparse(Xi) else np.asarray(Xi, dtype=np.float64)
        wi = np.asarray(w[offsets[i]:offsets[i + 1]], dtype=np.float64)
        u = sketch_coefficients(seed, np.full(len(wi), i), np.arange(len(wi)))
        a = u * np.sqrt(wi)
        v = a @ (Xi - (wi @ Xi) / wi.sum()) if center else a @ Xi
        out.append(v > 0)
    return np.array(out)


def unpack(packed, d):
    return np.unpackbits(packed, axis=1, bitorder="little", count=d).astype(bool)


@pytest.mark.parametrize("center", [True, False])
@pytest.mark.parametrize("fmt", ["dense", "csr", "float32"])
def test_sketch_matches_reference(center, fmt):
    rng = np.random.RandomState(0)
    offsets = np.array([0, 4, 9, 15, 22])
    X = rng.normal(size=(22, 11))
    X[rng.uniform(size=X.shape) < 0.3] = 0.0
    w = rng.uniform(0.2, 2.0, 22)
    w[3] = 0.0  # a row of zero weight contributes nothing
    Xin = {"dense": X, "csr": sparse.csr_matrix(X), "float32": X.astype(np.float32)}[fmt]
    clients = np.array([0, 2, 3])
    got = unpack(sketch_signs(Xin, w, offsets, clients, center, 7), 11)
    ref = reference_sketch(Xin, w, offsets, clients, center, 7)
    assert got.shape == (3, 11)
    np.testing.assert_array_equal(got, ref)
    # the sketch is free of each client's mean when centring: a shift changes nothing
    if center and fmt == "dense":
        shifted = X + 100.0 * rng.normal(size=(1, 11))
        np.testing.assert_array_equal(
            unpack(sketch_signs(shifted, w, offsets, clients, True, 7), 11), got)


def test_sketch_coefficients_are_standard_normal_and_per_client():
    nodes = np.repeat(np.arange(2000), 10)
    pos = np.tile(np.arange(10), 2000)
    u = sketch_coefficients(3, nodes, pos)
    assert abs(u.mean()) < 4 / np.sqrt(len(u)) and abs(u.var() - 1) < 0.03
    assert stats.kstest(u, "norm").pvalue > 1e-3
    # lag correlations within a client and across clients are chance level
    assert abs(np.corrcoef(u[:-1], u[1:])[0, 1]) < 4 / np.sqrt(len(u))
    # one client alone (another engine) gets its coefficients of the fit
    np.testing.assert_array_equal(sketch_coefficients(3, np.full(10, 7), np.arange(10)),
                                  u[70:80])
    assert not np.array_equal(sketch_coefficients(4, nodes[:10], pos[:10]), u[:10])
    # blocks of clients give the same bits as one block
    import skfed.support._neighbours as nb
    blocks = np.arange(0, 300, 10)
    Xm = np.random.RandomState(2).normal(size=(290, 9))
    one = sketch_signs(Xm, np.ones(290), blocks, np.arange(29), True, 3)
    saved, nb._SKETCH_BLOCK = nb._SKETCH_BLOCK, 4
    try:
        np.testing.assert_array_equal(
            sketch_signs(Xm, np.ones(290), blocks, np.arange(29), True, 3), one)
    finally:
        nb._SKETCH_BLOCK = saved
    # a client's sketch equals the fit's when it computes it alone
    rng = np.random.RandomState(1)
    X, w = rng.normal(size=(30, 9)), np.ones(30)
    offsets = np.array([0, 10, 20, 30])
    whole = sketch_signs(X, w, offsets, np.arange(3), True, 5)
    alone = sketch_signs(X[10:20], w[10:20], np.array([0, 10]), [0], True, 5, nodes=[1])
    np.testing.assert_array_equal(alone[0], whole[1])


def test_rate_function_and_inverse():
    z = 1.0
    q0 = 2 * stats.norm.sf(z)
    assert rate_of(0.0, z) == pytest.approx(q0)
    rates = np.array([0.1, q0, 0.35, 0.46, 0.95, 0.999])
    delta = noncentrality(rates, z)
    assert delta[0] == 0.0 and delta[1] == 0.0
    for r, dl in zip(rates[2:], delta[2:]):
        ref = optimize.brentq(lambda t: stats.norm.sf(z + t) + stats.norm.sf(z - t) - r, 0, 40)
        assert dl == pytest.approx(ref, abs=1e-9)


def reference_stage(support, bits, sketch_bits, small, votes, n_reports, z, beta, fwer):
    """The neighbour stage written out feature by feature."""
    d = len(support)
    g, g_s = bits.shape[0], sketch_bits.shape[0]
    q0 = 2 * stats.norm.sf(z)
    f = 1.0 - small.sum() / g
    S = np.flatnonzero(support)
    keep, ref, by = support.copy(), np.full(d, np.nan), np.full(d, -1)
    signs = np.where(sketch_bits, 1.0, -1.0)
    crit = stats.norm.isf(fwer / (2 * d * d)) / np.sqrt(g_s)

    def delta_of(j):
        b_s = beta * g / small.sum()  # every rogue may be small
        honest = (bits[small, j].mean() - b_s) / (1 - b_s)
        if honest <= q0:
            return 0.0
        return optimize.brentq(
            lambda t: stats.norm.sf(z + t) + stats.norm.sf(z - t) - min(honest, 1 - 1e-12), 0, 40)

    for j in S:
        best, arg = -1.0, -1
        for l in S:
            if l == j:
                continue
            m = np.mean(signs[:, j] * signs[:, l])
            # rogue rows (at most beta g of the sketches) removed at worst
            b = beta * g / g_s
            if max(0.0, (abs(m) - b) / (1 - b)) <= crit:
                continue
            # ... and added at worst for the link's strength
            effect = np.sin(np.pi / 2 * min(1.0, (abs(m) + b) / (1 - b))) * delta_of(l)
            if effect > best:
                best, arg = effect, l
        if arg < 0:
            continue
        r = (1 - beta) * ((1 - f) * (stats.norm.sf(z + best) + stats.norm.sf(z - best))
                          + f * q0) + beta
        keep[j] = stats.binom.sf(votes[j] - 1, n_reports[j], r) <= fwer / d
        ref[j], by[j] = r, arg
    # pass two: a kept feature weaker than each of >= 2 linked kept features,
    # against their summed effect
    first = keep.copy()
    b = beta * g / g_s
    for j in S:
        if not first[j]:
            continue
        links = []
        for l in S:
            m = np.mean(signs[:, j] * signs[:, l])
            if l != j and first[l] and max(0.0, (abs(m) - b) / (1 - b)) > crit:
                links.append((l, np.sin(np.pi / 2 * min(1.0, (abs(m) + b) / (1 - b)))))
        if len(links) < 2 or not all(delta_of(j) < delta_of(l) for l, _ in links):
            continue
        total = sum(rho * delta_of(l) for l, rho in links)
        r = (1 - beta) * ((1 - f) * (stats.norm.sf(z + total) + stats.norm.sf(z - total))
                          + f * q0) + beta
        if stats.binom.sf(votes[j] - 1, n_reports[j], r) > fwer / d:
            keep[j] = False
            ref[j] = r
            by[j] = max(links, key=lambda t: t[1] * delta_of(t[0]))[0]
    return keep, ref, by


def test_neighbours_of_a_support_feature_are_dropped():
    # d = 400 > 20 x 10 and 2,000 sketches (they link features correlated
    # 0.25): each 10-sample client runs the marginal test, so the features
    # next to support feature 340 (rho 0.5 and 0.25) are selected well above
    # the reference 0.331 and pass stage one.
    d, g, n = 400, 2000, 10
    X, y, groups = toeplitz_clients(g, n, d, [340], [3.0], seed=0)
    est = FederatedSupportRecovery(random_state=0).fit(X, y, groups=groups)
    assert est.vote_ == "selection" and est._wide_marginal
    stage_one = np.flatnonzero(est.pvalues_ <= 0.05 / d)
    assert stage_one.tolist() == [338, 339, 340, 341, 342]
    assert est.vote_fraction_[[339, 341]].min() > 0.5
    assert np.flatnonzero(est.support_).tolist() == [340]
    assert (est.explained_by_[[338, 339, 341, 342]] == 340).all()
    assert np.isnan(est.neighbour_reference_rate_[:338]).all()
    # the neighbours' reference, F(0.5 delta_340), is above their votes
    assert est.neighbour_reference_rate_[[339, 341]].min() > 0.6
    assert (est.neighbour_reference_rate_[[339, 341]] > est.vote_fraction_[[339, 341]]).all()
    # every client is small (10 < d + 4): bits and sketch, ceil(400 / 8) each
    assert est.n_bytes_sent_ == g * (16 + 50 + 50)
    assert est.n_controls_.max() == 0 and not est.ols_clients_.any()
    # the stage against the reference written out here
    keep, ref, by = reference_stage(
        est.pvalues_ <= 0.05 / d, est.client_supports_[est.answered_],
        unpack(est._sketch_rows, d), ~est.ols_clients_[est.answered_], est.votes_,
        est.n_reports_, 1.0, est.rogue_tolerance_, 0.05)
    np.testing.assert_array_equal(keep, est.support_)
    np.testing.assert_array_equal(by, est.explained_by_)
    # every client selects 340: its noncentrality is unbounded (the estimator
    # stops where the rate rounds to 1, the reference at 1 - 1e-12), so the
    # references it sets agree only near 1; 340's own (set by 341) exactly
    assert est.vote_fraction_[340] == 1.0 and est.explained_by_[340] == 341
    np.testing.assert_allclose(ref[340], est.neighbour_reference_rate_[340], rtol=1e-9)
    near = [338, 339, 341, 342]
    np.testing.assert_allclose(ref[near], est.neighbour_reference_rate_[near], atol=0.03)
    # the sketches estimate the population correlation (0.5 for neighbours)
    s = np.where(unpack(est._sketch_rows, d), 1.0, -1.0)
    rho = np.sin(np.pi / 2 * np.mean(s[:, 339] * s[:, 340]))
    assert abs(rho - 0.5) < 4 * 1.6 / np.sqrt(g)


def test_stage_keeps_two_correlated_support_features_and_reference():
    # Two support features two apart (rho 0.25), a third far away: the stage
    # re-tests the first two against each other and keeps both.
    d, g, n = 400, 2000, 10
    X, y, groups = toeplitz_clients(g, n, d, [100, 102, 300], [3.0, -3.0, 3.0], seed=3)
    est = FederatedSupportRecovery(random_state=1).fit(X, y, groups=groups)
    stage_one = est.pvalues_ <= 0.05 / d
    keep, ref, by = reference_stage(
        stage_one, est.client_supports_[est.answered_], unpack(est._sketch_rows, d),
        ~est.ols_clients_[est.answered_], est.votes_, est.n_reports_, 1.0,
        est.rogue_tolerance_, 0.05)
    np.testing.assert_array_equal(keep, est.support_)
    np.testing.assert_array_equal(by, est.explained_by_)
    np.testing.assert_allclose(ref, est.neighbour_reference_rate_, rtol=1e-9)
    assert est.support_[[100, 102, 300]].all()
    assert not (est.support_ & ~stage_one).any()  # the stage only removes


def test_no_sketch_without_small_clients_or_for_other_votes():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(20), 40)
    X = rng.normal(size=(800, 12))
    y = 2 * X[:, 0] - 2 * X[:, 1] + 0.5 * rng.normal(size=800)
    est = FederatedSupportRecovery().fit(X, y, groups=groups)  # 40 >= 12 + 4: OLS
    assert est.ols_clients_.all()
    assert est.n_bytes_sent_ == 20 * (16 + 2)  # no sketch bytes
    assert est.explained_by_ is None and est.neighbour_reference_rate_ is None
    fixed = FederatedSupportRecovery(threshold=0.5).fit(X[:, :], y, groups=groups)
    assert fixed.explained_by_ is None and fixed.neighbour_reference_rate_ is None
    # small clients that are not very wide (d = 12 <= 20 x 10): their
    # controls are real neighbours, no sketch
    small = FederatedSupportRecovery(vote="selection").fit(X[:200], y[:200],
                                                           groups=np.repeat(np.arange(20), 10))
    assert not small.ols_clients_.any() and small.n_controls_.max() > 0
    assert small.n_bytes_sent_ == 20 * (16 + 2) and small.explained_by_ is None


def test_sketch_bytes_and_join_keeps_the_stage():
    d, g, n = 400, 1200, 10
    X, y, groups = toeplitz_clients(g, n, d, [340], [3.0], seed=1)
    old = groups < 1000
    est = FederatedSupportRecovery(random_state=0).fit(X[old], y[old], groups=groups[old])
    assert est.n_bytes_sent_ == 1000 * (16 + 50 + 50)
    est.add_nodes(X[~old], y[~old], groups=groups[~old])
    # the new clients send their selection bits only; the fit's sketches stay
    assert est.join_communication_.total_bytes == 200 * (16 + 50)
    assert est.explained_by_ is not None and est.n_answered_ == 1200
    assert est._sketch_rows.shape == (1000, 50)
    assert np.flatnonzero(est.support_).tolist() == [340]
    stage_one = est.pvalues_ <= 0.05 / d
    keep, _, _ = reference_stage(
        stage_one, est.client_supports_[est.answered_], unpack(est._sketch_rows, d),
        np.ones(est.n_answered_, bool), est.votes_, est.n_reports_, 1.0,
        est.rogue_tolerance_, 0.05)
    np.testing.assert_array_equal(keep, est.support_)


@pytest.mark.parametrize("behavior", ["complement", "random"])
def test_rogue_sketches_only_remove(behavior):
    # Rogue clients corrupt their sketch with their bits; the stage can then
    # drop features but never add one to the binomial test's selection.
    d, g, n = 400, 2000, 10
    X, y, groups = toeplitz_clients(g, n, d, [340], [3.0], seed=0)
    net = SimulatedNetwork(rogue_fraction=0.02, rogue_behavior=behavior, random_state=0)
    est = FederatedSupportRecovery(network=net, random_state=0).fit(X, y, groups=groups)
    stage_one = est.pvalues_ <= 0.05 / d
    assert est.rogue_.sum() > 0
    assert not (est.support_ & ~stage_one).any()
    assert np.flatnonzero(est.support_).tolist() == [340]


def test_regressor_uses_the_stage():
    d, g, n = 400, 2000, 10
    X, y, groups = toeplitz_clients(g, n, d, [340], [3.0], seed=0)
    reg = FederatedSparseLinearRegression(random_state=0).fit(X, y, groups=groups)
    assert np.flatnonzero(reg.support_).tolist() == [340]
    assert reg.explained_by_[339] == 340


def test_recovery_non_decreasing_in_clients_at_d_400():
    # Nested clients of the Toeplitz d = 400 instance: the binomial test alone
    # adds the neighbours 339 / 341 once there are enough clients (recovery
    # falls); with the neighbour stage it stays exact.
    d, n = 400, 10
    X, y, groups = toeplitz_clients(3000, n, d, [340], [3.0], seed=2)
    stage_one, final = [], []
    for g in (300, 1000, 3000):
        m = groups < g
        est = FederatedSupportRecovery(random_state=0).fit(X[m], y[m], groups=groups[m])
        stage_one.append(np.flatnonzero(est.pvalues_ <= 0.05 / d).tolist())
        final.append(np.flatnonzero(est.support_).tolist())
    # the binomial test alone: exact at 300 clients, not from 1,000 on; at
    # 3,000 the sketches link (skfed.support._rules.sketches_link) and the
    # clients run the marginal test, which also selects 338 and 342
    assert stage_one == [[340], [339, 340, 341], [338, 339, 340, 341, 342]]
    assert final == [[340], [340], [340]]
