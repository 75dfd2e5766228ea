"""FederatedSparseLinearRegression(per_node_intercept="shrunk"): the server's
random-effects prior and every node's shrunk intercept against NumPy
references written here, the bytes' closed form, joins, rogues and the
explicit True left exact."""

import math

import numpy as np
import pytest

from skfed.network import SimulatedNetwork
from skfed.support import FederatedSparseLinearRegression
from skfed.support._intercepts import intercept_prior, shrunk_intercepts

HEADER = 16


def _data(seed=0, n_nodes=40, sizes=(4, 40), d=10, tau=1.0, weights=False):
    rng = np.random.RandomState(seed)
    n = rng.randint(sizes[0], sizes[1] + 1, size=n_nodes)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(len(groups), d))
    effects = tau * rng.normal(size=n_nodes)
    y = 1.5 * X[:, 2] - X[:, 5] + effects[groups] + rng.normal(size=len(groups))
    w = rng.randint(1, 4, size=len(groups)).astype(float) if weights else None
    return X, y, groups, w


def _trimmed_mean(values, trim):
    v = np.sort(values)
    cut = int(math.floor(trim * len(v)))
    return v[cut : len(v) - cut].mean()


def _reference(X, y, groups, w, coef, trim, senders):
    """mu, tau^2 / sigma^2 and the shrunk intercepts, node by node."""
    support = np.flatnonzero(coef)
    w = np.ones(len(y)) if w is None else w
    own, W, rss = [], [], []
    for node in np.unique(groups):
        rows = groups == node
        ww = w[rows]
        mean_y = np.sum(ww * y[rows]) / ww.sum()
        mean_x = (ww[:, None] * X[rows][:, support]).sum(0) / ww.sum()
        b = mean_y - mean_x @ coef[support]
        r = y[rows] - X[rows][:, support] @ coef[support] - b
        own.append(b)
        W.append(ww.sum())
        rss.append(np.sum(ww * r * r))
    own, W, rss = map(np.array, (own, W, rss))
    k = senders & (W >= 1)
    sigma2 = rss[k].sum() / (W[k] - 1).sum()
    mu = _trimmed_mean(own[k], trim)
    tau2 = max(0.0, np.var(own[k], ddof=1) - sigma2 * np.mean(1 / W[k]))
    lam = W * tau2 / (W * tau2 + sigma2)
    return mu, tau2 / sigma2, mu + lam * (own - mu), own


@pytest.mark.parametrize("weights", [False, True])
def test_fit_intercepts_are_the_numpy_random_effects_shrinkage(weights):
    X, y, groups, w = _data(weights=weights)
    reg = FederatedSparseLinearRegression(random_state=0).fit(
        X, y, groups=groups, sample_weight=w)
    assert reg.per_node_intercept == "shrunk"  # the default
    np.testing.assert_array_equal(np.flatnonzero(reg.support_), [2, 5])
    mu, ratio, expected, own = _reference(
        X, y, groups, w, reg.coef_, reg.rogue_tolerance_, reg.refit_answered_)
    assert reg.intercept_mean_ == pytest.approx(mu, rel=1e-10)
    assert reg.intercept_ratio_ == pytest.approx(ratio, rel=1e-9)
    np.testing.assert_allclose(reg.intercept_, expected, rtol=1e-9, atol=1e-12)
    # the small nodes moved toward mu, by less than their distance to it
    moved = np.abs(reg.intercept_ - own)
    assert np.all(moved <= np.abs(own - mu) + 1e-12)
    assert 0 < ratio < np.inf
    # the coefficients are the exact per-node-intercept refit's
    exact = FederatedSparseLinearRegression(per_node_intercept=True, random_state=0).fit(
        X, y, groups=groups, sample_weight=w)
    np.testing.assert_array_equal(reg.coef_, exact.coef_)
    np.testing.assert_allclose(exact.intercept_, own, rtol=1e-10, atol=1e-12)
    assert not hasattr(exact, "intercept_mean_")


def test_prior_on_fixed_statistics_against_closed_form():
    # s = 2, coef (1, -2); rows: G triu (3), b (2), W, yy, mean y, mean x (2)
    coef = np.array([1.0, -2.0])
    rng = np.random.RandomState(3)
    rows = []
    for _ in range(9):
        A = rng.normal(size=(6, 2))
        G = A.T @ A
        b = rng.normal(size=2)
        W = float(rng.randint(2, 30))
        yy = 50.0 + rng.uniform(0, 10)
        means = rng.normal(size=3)
        rows.append(np.r_[G[np.triu_indices(2)], b, W, yy, means])
    rows = np.array(rows)
    bad = rows[0].copy()
    bad[5] = -bad[5]  # a complemented weight: refused
    mu, ratio, gamma = intercept_prior(np.vstack([rows, bad]), coef, trim=0.2)
    assert gamma.shape == (0,)
    own = rows[:, 7] - rows[:, 8:] @ coef
    G = rows[:, :3]
    quad = G[:, 0] * 1.0 - 2 * G[:, 1] * 2.0 + G[:, 2] * 4.0  # coef' G coef
    rss = rows[:, 6] - 2 * rows[:, 3:5] @ coef + quad
    sigma2 = rss.sum() / (rows[:, 5] - 1).sum()
    tau2 = max(0.0, own.var(ddof=1) - sigma2 * np.mean(1 / rows[:, 5]))
    assert mu == pytest.approx(np.sort(own)[1:-1].mean(), rel=1e-12)  # floor(0.2 * 9) = 1
    assert ratio == pytest.approx(tau2 / sigma2, rel=1e-12)
    # the shrinkage itself
    out = shrunk_intercepts([1.0, 3.0], [4.0, 1.0], 2.0, 0.5)
    np.testing.assert_allclose(out, [2 + 2 / 3 * (1 - 2), 2 + 1 / 3 * (3 - 2)], rtol=1e-15)
    np.testing.assert_array_equal(shrunk_intercepts([1.0, 3.0], [4, 1], 2.0, np.inf), [1, 3])


def test_fewer_than_four_answering_clients_keep_their_exact_intercepts():
    X, y, groups, _ = _data(n_nodes=3, sizes=(60, 80))
    reg = FederatedSparseLinearRegression(alpha=0.3, random_state=0).fit(X, y, groups=groups)
    exact = FederatedSparseLinearRegression(alpha=0.3, per_node_intercept=True,
                                            random_state=0).fit(X, y, groups=groups)
    assert reg.intercept_ratio_ == np.inf
    np.testing.assert_array_equal(reg.intercept_, exact.intercept_)


@pytest.mark.parametrize("drop", [0.0, 0.3])
def test_bytes_are_the_closed_form(drop):
    X, y, groups, _ = _data(seed=1)
    net = SimulatedNetwork(drop_rate=drop, random_state=4)
    reg = FederatedSparseLinearRegression(network=net, random_state=0).fit(X, y, groups=groups)
    exact = FederatedSparseLinearRegression(network=net, per_node_intercept=True,
                                            random_state=0).fit(X, y, groups=groups)
    d, n_nodes, s = X.shape[1], 40, int(reg.support_.sum())
    c = len(reg.refit_features_)  # the coefficients' columns
    bits = math.ceil(d / 8)
    g1, g2 = int(reg.answered_.sum()), int(reg.refit_answered_.sum())
    stats = s * (s + 1) // 2 + s
    rounds = [
        g1 * (bits + HEADER),
        # + W, the centred target's sum of squares and the s + 1 means
        # (+ one bit a feature: constant on the client's rows; none is on all)
        n_nodes * (bits + HEADER) + g2 * (8 * (stats + s + 3) + bits + HEADER),
    ]
    # the test round: the s coefficients and the candidates' bits out, k
    # products back; the candidates' statistics only if it rejects
    k = len(reg.refit_test_features_)
    g2c = int(reg.refit_test_answered_.sum())
    rounds.append(g2 * (8 * s + bits + HEADER) + g2c * (4 * k + HEADER))
    extra = 0
    if reg.refit_asked_:
        g2d, m = int(reg.refit_candidates_answered_.sum()), s + k
        rounds.append(g2 * HEADER + g2d * (8 * (m * (m + 1) // 2 + m - stats + k) + HEADER))
        extra = g2d * 8 * k  # the candidates' means
    rounds.append(n_nodes * (8 * (c + 2) + HEADER))  # + mu and tau^2 / sigma^2
    np.testing.assert_array_equal(reg.bytes_per_round_, rounds)
    assert reg.n_bytes_sent_ == sum(rounds)
    assert len(reg.node_level_) == 0
    assert exact.refit_asked_ == reg.refit_asked_
    assert exact.n_bytes_sent_ == sum(rounds) - g2 * (8 * (s + 3) + bits) - n_nodes * 16 - extra


def test_join_shrinks_newcomers_with_the_fits_prior_and_keeps_the_fitted_nodes():
    X, y, groups, w = _data(seed=2, n_nodes=50, weights=True)
    old = groups < 40
    reg = FederatedSparseLinearRegression(random_state=0).fit(
        X[old], y[old], groups=groups[old], sample_weight=w[old])
    before = reg.intercept_.copy(), reg.coef_.copy(), reg.intercept_mean_, reg.intercept_ratio_
    reg.add_nodes(X[~old], y[~old], groups=groups[~old], sample_weight=w[~old])
    np.testing.assert_array_equal(reg.intercept_[:40], before[0])
    np.testing.assert_array_equal(reg.coef_, before[1])
    assert (reg.intercept_mean_, reg.intercept_ratio_) == before[2:]
    mu, ratio = before[2:]
    S = np.flatnonzero(reg.coef_)
    for i, node in enumerate(range(40, 50)):
        rows = groups == node
        W = w[rows].sum()
        own = np.average(y[rows], weights=w[rows]) - np.average(
            X[rows][:, S], axis=0, weights=w[rows]) @ reg.coef_[S]
        lam = W * ratio / (W * ratio + 1)
        assert reg.intercept_[40 + i] == pytest.approx(mu + lam * (own - mu), rel=1e-10)
    # an unseen node is predicted with mu
    pred = reg.predict(X[:3], groups=np.array([99, 99, 99]))
    np.testing.assert_allclose(pred, X[:3] @ reg.coef_ + mu, rtol=1e-12)


def test_join_of_an_exact_fit_with_shrunk_set_is_refused_by_name():
    X, y, groups, _ = _data(seed=2, n_nodes=20)
    old = groups < 15
    reg = FederatedSparseLinearRegression(per_node_intercept=True, random_state=0).fit(
        X[old], y[old], groups=groups[old])
    reg.set_params(per_node_intercept="shrunk")
    with pytest.raises(ValueError, match="per_node_intercept"):
        reg.add_nodes(X[~old], y[~old], groups=groups[~old])


def test_bad_per_node_intercept_is_refused_by_name():
    X, y, groups, _ = _data(n_nodes=6)
    with pytest.raises(ValueError, match="per_node_intercept"):
        FederatedSparseLinearRegression(per_node_intercept="auto").fit(X, y, groups=groups)


@pytest.mark.parametrize("behavior", ["complement", "random"])
def test_rogue_clients_move_mu_no_more_than_trimming_allows(behavior):
    X, y, groups, _ = _data(seed=4, n_nodes=80, sizes=(20, 40))
    clean = FederatedSparseLinearRegression(random_state=0).fit(X, y, groups=groups)
    net = SimulatedNetwork(rogue_fraction=0.05, rogue_behavior=behavior, random_state=5)
    dirty = FederatedSparseLinearRegression(network=net, random_state=0).fit(X, y, groups=groups)
    again = FederatedSparseLinearRegression(network=net, random_state=0).fit(X, y, groups=groups)
    assert dirty.rogue_.sum() >= 2
    np.testing.assert_array_equal(dirty.intercept_, again.intercept_)  # deterministic
    np.testing.assert_array_equal(dirty.support_, clean.support_)
    own = clean.intercept_mean_  # the honest prior's mean
    # the honest intercepts' spread: a rogue moves mu by a fraction of it
    spread = np.std(FederatedSparseLinearRegression(per_node_intercept=True, random_state=0)
                    .fit(X, y, groups=groups).intercept_)
    assert abs(dirty.intercept_mean_ - own) < 0.25 * spread
    if behavior == "complement":
        # a complemented client's weight is negative: it is left out of the
        # prior, which is the honest senders' on the corrupted coefficients
        honest = dirty.refit_answered_ & ~dirty.rogue_
        mu, ratio, _, _ = _reference(X, y, groups, None, dirty.coef_,
                                     dirty.rogue_tolerance_, honest)
        assert dirty.intercept_mean_ == pytest.approx(mu, rel=1e-9)
        assert dirty.intercept_ratio_ == pytest.approx(ratio, rel=1e-9)
