"""FederatedSparseLinearRegression(per_node_intercept="shrunk") with
node-level features (constant within every node): their detection from the
clients' bits, the server's prior ``mu + z' gamma`` against a NumPy least
squares, every node's intercept against a direct BLUP solve (the mixed
model's equations with the fit's tau^2 and sigma^2), the bytes' closed form
and the newcomers."""

import math

import numpy as np
import pytest

from skfed.network import SimulatedNetwork
from skfed.support import FederatedSparseLinearRegression
from skfed.support._intercepts import _PRIOR_LEVEL, intercept_prior

HEADER = 16


def _data(seed=0, n_nodes=40, sizes=(4, 40), d=8, levels=(6, 7)):
    """Row features plus, in the columns ``levels``, each node's own values."""
    rng = np.random.RandomState(seed)
    n = rng.randint(sizes[0], sizes[1] + 1, size=n_nodes)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(len(groups), d))
    z = rng.normal(size=(n_nodes, len(levels)))
    X[:, list(levels)] = z[groups]
    effects = 0.5 + z @ np.array([2.0, -1.0])[: len(levels)] + 0.5 * rng.normal(size=n_nodes)
    y = 1.5 * X[:, 2] - X[:, 5] + effects[groups] + rng.normal(size=len(groups))
    return X, y, groups


def _own_and_rss(X, y, groups, coef):
    S = np.flatnonzero(coef)
    own, W, rss = [], [], []
    for node in np.unique(groups):
        rows = groups == node
        b = y[rows].mean() - X[rows][:, S].mean(0) @ coef[S]
        r = y[rows] - X[rows][:, S] @ coef[S] - b
        own.append(b)
        W.append(rows.sum())
        rss.append(r @ r)
    return np.array(own), np.array(W, float), np.array(rss)


def _blup(X, y, groups, coef, prior, tau2, sigma2):
    """The random effects u solving the mixed model's equations
    ``(Z'Z / sigma^2 + I / tau^2) u = Z' r / sigma^2``, r = y - X coef - prior
    (each row's exact intercept's part: r's node mean is own - prior)."""
    nodes = np.unique(groups)
    Z = (groups[:, None] == nodes[None, :]).astype(float)
    resid = y - X @ coef - Z @ prior
    A = Z.T @ Z / sigma2 + np.eye(len(nodes)) / tau2
    return np.linalg.solve(A, Z.T @ resid / sigma2)


def _deleted_keep(design, target, sol, cut):
    """The rows left after cutting the ``cut`` lowest and highest deleted
    residuals (NumPy: the hat matrix's diagonal from its definition)."""
    hat = np.diag(design @ np.linalg.pinv(design.T @ design) @ design.T)
    deleted = (target - design @ sol) / (1.0 - hat)
    return np.sort(np.argsort(deleted, kind="stable")[cut : len(target) - cut])


def test_node_level_features_are_found_and_the_prior_is_the_least_squares():
    X, y, groups = _data()
    reg = FederatedSparseLinearRegression(random_state=0).fit(X, y, groups=groups)
    np.testing.assert_array_equal(reg.node_level_, [6, 7])
    own, W, rss = _own_and_rss(X, y, groups, reg.coef_)
    z = np.array([X[groups == g][0, [6, 7]] for g in np.unique(groups)])
    design = np.column_stack([np.ones(len(own)), z])
    cut = int(reg.rogue_tolerance_ * len(own))  # the rogue tolerance's trim
    assert cut > 0
    # least squares, then again without the cut lowest and highest deleted
    # residuals r_i / (1 - h_ii) (h the hat matrix's diagonal)
    sol = np.linalg.lstsq(design, own, rcond=None)[0]
    keep = _deleted_keep(design, own, sol, cut)
    sol = np.linalg.lstsq(design[keep], own[keep], rcond=None)[0]
    np.testing.assert_allclose(reg.intercept_mean_, sol[0], rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(reg.intercept_coef_, sol[1:], rtol=1e-9)
    assert abs(sol[1] - 2.0) < 0.5 and abs(sol[2] + 1.0) < 0.5
    resid = own - design @ sol
    sigma2 = rss.sum() / (W - 1).sum()
    tau2 = max(0.0, resid @ resid / (len(own) - 3) - sigma2 * np.mean(1 / W))
    assert tau2 > 0
    np.testing.assert_allclose(reg.intercept_ratio_, tau2 / sigma2, rtol=1e-9)
    # every node's intercept: prior + the BLUP of its random effect
    prior = design @ sol
    u = _blup(X, y, groups, reg.coef_, prior, tau2, sigma2)
    np.testing.assert_allclose(reg.intercept_, prior + u, rtol=1e-8, atol=1e-10)
    # shrunk, not exact: between the prior and the node's own intercept
    lam = (reg.intercept_ - prior) / (own - prior)
    assert np.all((lam > 0) & (lam < 1))


def test_without_node_level_features_the_prior_is_unchanged():
    rows, coef = [], np.array([0.5, -1.0])
    rng = np.random.RandomState(3)
    for _ in range(12):
        G = rng.normal(size=(2, 2))
        rows.append(np.r_[(G @ G.T)[np.triu_indices(2)], rng.normal(size=2), rng.randint(5, 30),
                          50.0 + rng.uniform(0, 10), rng.normal(size=3)])
    rows = np.array(rows)
    mu0, r0, g0 = intercept_prior(rows, coef, 0.2)
    mu1, r1, g1 = intercept_prior(rows, coef, 0.2, np.zeros((12, 0)))
    assert (mu0, r0) == (mu1, r1) and g0.shape == g1.shape == (0,)
    # a constant z column adds nothing the intercept column does not have
    mu2, r2, g2 = intercept_prior(rows, coef, 0.0, rng.normal(size=(12, 1)))
    assert np.isfinite(mu2) and g2.shape == (1,)


def _server_rows(X, y, groups, S):
    """Each client's refit message and moments, as the server receives them."""
    rows = []
    for node in np.unique(groups):
        r = groups == node
        XS, yy = X[r][:, S], y[r]
        mx, my = XS.mean(0), yy.mean()
        G = (XS - mx).T @ (XS - mx)
        rows.append(np.r_[G[np.triu_indices(len(S))], (XS - mx).T @ (yy - my), r.sum(),
                          (yy - my) @ (yy - my), my, mx])
    return np.array(rows)


def test_corrupted_intercepts_are_trimmed():
    X, y, groups = _data(seed=2, n_nodes=60)
    clean = FederatedSparseLinearRegression(random_state=0).fit(X, y, groups=groups)
    own, W, rss = _own_and_rss(X, y, groups, clean.coef_)
    z = np.array([X[groups == g][0, [6, 7]] for g in np.unique(groups)])
    coef_S = clean.coef_[clean.support_]
    S = np.flatnonzero(clean.support_)
    # the rows as the server receives them; three clients' intercepts
    # corrupted (their mean of y shifted by 50)
    rows = _server_rows(X, y, groups, S)
    col = len(rows[0]) - len(S) - 1
    rows[:3, col] += 50.0
    mu, ratio, gamma = intercept_prior(rows, coef_S, 0.1, z)
    np.testing.assert_allclose(gamma, [2.0, -1.0], atol=0.3)
    assert abs(mu - 0.5) < 0.3
    # without the trim the corrupted client drags gamma
    untrimmed, _, _ = intercept_prior(rows, coef_S, 0.0, z)
    assert untrimmed - 0.5 > 1.0


@pytest.mark.parametrize("far", [1e2, 1e4])
def test_a_rogue_far_off_in_z_is_trimmed(far):
    # one client sends z = (far, 0) with its honest intercept: a plain
    # residual trim keeps it (the first fit passes through it, its residual
    # is about 0) and gamma's first entry collapses toward 0; the deleted
    # residual (its error against the others' fit) is huge, so it is cut
    X, y, groups = _data(seed=2, n_nodes=60)
    clean = FederatedSparseLinearRegression(random_state=0).fit(X, y, groups=groups)
    S = np.flatnonzero(clean.support_)
    coef_S = clean.coef_[S]
    rows = _server_rows(X, y, groups, S)
    own = rows[:, -len(S) - 1] - rows[:, -len(S):] @ coef_S
    z = np.array([X[groups == g][0, [6, 7]] for g in np.unique(groups)])
    z[0] = [far, 0.0]
    mu, ratio, gamma = intercept_prior(rows, coef_S, 0.1, z)
    np.testing.assert_allclose(gamma, [2.0, -1.0], atol=0.3)
    assert abs(mu - 0.5) < 0.3
    # the same trimmed least squares in NumPy
    design = np.column_stack([np.ones(60), z])
    sol = np.linalg.lstsq(design, own, rcond=None)[0]
    keep = _deleted_keep(design, own, sol, 6)
    assert 0 not in keep
    ref = np.linalg.lstsq(design[keep], own[keep], rcond=None)[0]
    np.testing.assert_allclose(np.r_[mu, gamma], ref, rtol=1e-9, atol=1e-12)
    # the plain-residual trim the rule replaced keeps the rogue
    plain = np.sort(np.argsort(own - design @ sol, kind="stable")[6:54])
    assert 0 in plain
    assert abs(np.linalg.lstsq(design[plain], own[plain], rcond=None)[0][1] - 2.0) > 1.0


@pytest.mark.parametrize("drop", [0.0, 0.3])
def test_bytes_are_the_closed_form(drop):
    X, y, groups = _data(seed=1)
    net = SimulatedNetwork(drop_rate=drop, random_state=4)
    reg = FederatedSparseLinearRegression(network=net, random_state=0).fit(X, y, groups=groups)
    d, n_nodes, s, q = X.shape[1], 40, int(reg.support_.sum()), len(reg.node_level_)
    c = len(reg.refit_features_)  # the coefficients' columns
    assert q == 2 and not reg.refit_asked_ and c == s
    bits = math.ceil(d / 8)
    g2 = int(reg.refit_answered_.sum())
    stats = s * (s + 1) // 2 + s
    per_round = reg.bytes_per_round_
    assert len(per_round) == 5  # 1, 2, 2b, the candidates' test 2c, 3
    exact = FederatedSparseLinearRegression(network=net, per_node_intercept=True,
                                            random_state=0).fit(X, y, groups=groups)
    assert exact.bytes_per_round_[0] == per_round[0]  # the support stage: unchanged
    k, g2c = len(reg.refit_test_features_), int(reg.refit_test_answered_.sum())
    np.testing.assert_array_equal(per_round[[1, 3, 4]], [
        n_nodes * (bits + HEADER) + g2 * (8 * (stats + s + 3) + bits + HEADER),
        # the s coefficients and the candidates' bits out, k products back
        g2 * (8 * s + bits + HEADER) + g2c * (4 * k + HEADER),
        n_nodes * (8 * (c + 2 + q) + bits + HEADER),  # + mu, ratio, gamma; the features
    ])
    # round 2b: the features to the g2 senders, q values back from those answering
    g3 = (per_round[2] - g2 * (bits + HEADER)) // (8 * q + HEADER)
    assert per_round[2] == g2 * (bits + HEADER) + g3 * (8 * q + HEADER)
    assert (g3 == g2) if drop == 0 else (0 < g3 <= g2)
    assert reg.n_bytes_sent_ == per_round.sum()


def test_newcomers_shrink_toward_their_own_prior():
    X, y, groups = _data(seed=4, n_nodes=50)
    fit = groups < 40
    reg = FederatedSparseLinearRegression(random_state=0).fit(X[fit], y[fit], groups=groups[fit])
    reg.add_nodes(X[~fit], y[~fit], groups=groups[~fit])
    own, W, _ = _own_and_rss(X[~fit], y[~fit], groups[~fit], reg.coef_)
    z = np.array([X[groups == g][0, reg.node_level_] for g in range(40, 50)])
    prior = reg.intercept_mean_ + z @ reg.intercept_coef_
    r = reg.intercept_ratio_
    expected = prior + W * r / (W * r + 1) * (own - prior)
    np.testing.assert_allclose(reg.intercept_[40:], expected, rtol=1e-9)
    # the join's message: coef_S, mu, ratio, gamma and the features' bits
    s, q, d = len(reg.refit_features_), len(reg.node_level_), X.shape[1]
    assert q == 2 and s >= 2
    # each newcomer received the support (d bits) and the model (s + 2 + q
    # values with the features' d bits); it sends nothing
    bits = math.ceil(d / 8)
    assert reg.join_communication_.total_bytes == 10 * (
        bits + HEADER + 8 * (s + 2 + q) + bits + HEADER)


def test_uninformative_node_level_features_are_left_out_by_the_f_test():
    from scipy.stats import f as f_dist

    rng = np.random.RandomState(5)
    n, s = 30, 2
    coef = np.array([0.5, -1.0])
    rows = []
    for _ in range(n):
        A = rng.normal(size=(20, s))
        G = A.T @ A
        rows.append(np.r_[G[np.triu_indices(s)], A.T @ rng.normal(size=20), 20.0,
                          30.0, rng.normal(), rng.normal(size=s)])
    rows = np.array(rows)
    own = rows[:, -3] - rows[:, -2:] @ coef
    noise = rng.normal(size=(n, 3))
    informative = np.column_stack([own * 3.0 + 0.01 * rng.normal(size=n), noise[:, :2]])
    mu0, r0, _ = intercept_prior(rows, coef, 0.0)
    for z, used in ((noise, False), (informative, True)):
        D = np.column_stack([np.ones(n), z])
        sol = np.linalg.lstsq(D, own, rcond=None)[0]
        rss_q, rss_0 = np.sum((own - D @ sol) ** 2), np.sum((own - own.mean()) ** 2)
        F = (rss_0 - rss_q) / 3 / (rss_q / (n - 4))
        assert (F > f_dist.ppf(1 - _PRIOR_LEVEL, 3, n - 4)) == used
        mu, ratio, gamma = intercept_prior(rows, coef, 0.0, z)
        if used:
            np.testing.assert_allclose(np.r_[mu, gamma], sol, rtol=1e-9)
            assert ratio < r0
        else:
            np.testing.assert_array_equal(gamma, 0.0)
            assert (mu, ratio) == (mu0, r0)


def test_columns_with_one_value_everywhere_are_not_node_level_features():
    # an all-zero column and an all-3 column are constant on every node's rows
    # but carry nothing the prior's mean does not: the fit equals the fit
    # without them (they used to enter node_level_ and take two degrees of
    # freedom from the F test of gamma)
    X, y, groups = _data(seed=5)
    wide = np.column_stack([X, np.zeros(len(y)), np.full(len(y), 3.0)])
    reg = FederatedSparseLinearRegression(random_state=0).fit(wide, y, groups=groups)
    ref = FederatedSparseLinearRegression(random_state=0).fit(X, y, groups=groups)
    np.testing.assert_array_equal(reg.node_level_, [6, 7])
    np.testing.assert_array_equal(reg.support_[:8], ref.support_)
    np.testing.assert_allclose(reg.intercept_coef_, ref.intercept_coef_, rtol=1e-12)
    np.testing.assert_allclose(reg.intercept_mean_, ref.intercept_mean_, rtol=1e-12)
    np.testing.assert_allclose(reg.intercept_, ref.intercept_, rtol=1e-12)
    # round 2b still carries the four candidates' values (sent before the
    # server sees they never vary); round 2c the test of the k candidates
    # off the support (which keeps it); round 3 carries the two kept gammas
    bits, s, n = math.ceil(10 / 8), len(reg.refit_features_), 40
    k = len(reg.refit_test_features_)
    assert not reg.refit_asked_ and s == reg.support_.sum() and k == 10 - s
    np.testing.assert_array_equal(reg.bytes_per_round_[2:], [
        n * (bits + HEADER) + n * (8 * 4 + HEADER),
        n * (8 * s + bits + HEADER) + n * (4 * k + HEADER),
        n * (8 * (s + 2 + 2) + bits + HEADER)])
    # only the all-equal columns: no node-level feature, the prior of q = 0
    only = FederatedSparseLinearRegression(random_state=0).fit(
        np.column_stack([X[:, :6], np.zeros(len(y))]), y, groups=groups)
    assert len(only.node_level_) == 0 and only.intercept_coef_.shape == (0,)
