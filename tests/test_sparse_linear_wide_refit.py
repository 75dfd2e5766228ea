"""FederatedSparseLinearRegression(refit_candidates=c): the refit on the
support's candidates.  The server's cross-validation losses, its choice and
the ridge coefficients against a NumPy reference on the raw rows, the
support unchanged, the bytes of the fit and of a join in closed form, and a
newcomer's intercept from the candidates' coefficients."""

import math

import numpy as np
import pytest

from skfed.network import SimulatedNetwork
from skfed.support import FederatedSparseLinearRegression
from skfed.support._wide_refit import N_FOLDS, RIDGE_ALPHAS, auto_candidates, candidate_features

HEADER = 16


def _dense(seed=0, n_nodes=60, sizes=(8, 30), d=12):
    """Two larger effects and many small ones (the vote sees the larger)."""
    rng = np.random.RandomState(seed)
    n = rng.randint(sizes[0], sizes[1] + 1, size=n_nodes)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(len(groups), d))
    coef = np.full(d, 0.25) * rng.choice([-1, 1], d)
    coef[:2] = [1.5, -1.0]
    y = X @ coef + rng.normal(size=n_nodes)[groups] + rng.normal(size=len(groups))
    return X, y, groups


def _centred(X, y, groups, shared):
    """Each node's rows centred on its means (or [1, X] uncentred)."""
    if shared:
        return np.column_stack([np.ones(len(y)), X]), y.astype(float)
    Z, r = X.astype(float).copy(), y.astype(float).copy()
    for node in np.unique(groups):
        rows = groups == node
        Z[rows] -= Z[rows].mean(0)
        r[rows] -= r[rows].mean()
    return Z, r


def _numpy_refit(Z, r, groups, on_support, penalized):
    """Every model's CV loss (residual sum of squares less r'r, summed over
    folds of nodes by position) and every model's coefficients on all rows."""
    nodes = np.unique(groups)
    fold_of = {node: pos % N_FOLDS for pos, node in enumerate(nodes)}
    fold = np.array([fold_of[g] for g in groups])
    full_diag = np.sum(Z * Z, axis=0)
    keep_all = np.flatnonzero((full_diag > 0) | ~penalized)

    def fit(Zt, rt, model):
        beta = np.zeros(Z.shape[1])
        if model is None:
            beta[on_support] = np.linalg.lstsq(Zt[:, on_support], rt, rcond=None)[0]
        else:
            A = Zt[:, keep_all]
            pen = np.where(penalized, model * full_diag, 0.0)[keep_all]
            beta[keep_all] = np.linalg.solve(A.T @ A + np.diag(pen), A.T @ rt)
        return beta

    models = [None, *RIDGE_ALPHAS]
    losses = np.zeros(len(models))
    for f in range(N_FOLDS):
        test = fold == f
        for k, model in enumerate(models):
            beta = fit(Z[~test], r[~test], model)
            res = r[test] - Z[test] @ beta
            losses[k] += res @ res - r[test] @ r[test]
    return losses, [fit(Z, r, model) for model in models]


def _fit_all_candidates(per_node):
    """:func:`_dense` (seed 1) fitted with every feature a candidate."""
    X, y, groups = _dense(seed=1)
    reg = FederatedSparseLinearRegression(refit_candidates=X.shape[1],
                                          per_node_intercept=per_node,
                                          random_state=0).fit(X, y, groups=groups)
    return X, y, groups, reg, np.flatnonzero(reg.support_)


@pytest.mark.parametrize("per_node", [True, False])
def test_cv_losses_choice_and_coefficients_against_numpy(per_node):
    X, y, groups, reg, support = _fit_all_candidates(per_node)
    d = X.shape[1]
    assert 1 <= len(support) < d  # the vote sees the two larger effects only
    np.testing.assert_array_equal(reg.refit_features_, np.arange(d))
    shared = not per_node
    Z, r = _centred(X, y, groups, shared)
    on_support = support + int(shared)
    if shared:
        on_support = np.concatenate([[0], on_support])
    penalized = np.ones(Z.shape[1], bool)
    penalized[: int(shared)] = False
    losses, coefs = _numpy_refit(Z, r, groups, on_support, penalized)
    np.testing.assert_allclose(reg.refit_cv_losses_, losses, rtol=1e-9, atol=1e-9)
    best = int(np.argmin(losses))
    assert best > 0  # the many small effects: a ridge on all features wins
    assert reg.refit_alpha_ == RIDGE_ALPHAS[best - 1]
    np.testing.assert_allclose(reg.coef_, coefs[best][int(shared):], rtol=1e-9, atol=1e-12)
    if shared:
        np.testing.assert_allclose(reg.intercept_, coefs[best][0], rtol=1e-9)
    # and it predicts the fitted nodes' rows better than the support's refit
    sparse = FederatedSparseLinearRegression(refit_candidates=0, per_node_intercept=per_node,
                                             random_state=0).fit(X, y, groups=groups)
    assert reg.score(X, y, groups=groups) > sparse.score(X, y, groups=groups)


def test_support_and_pvalues_are_those_of_the_support_refit():
    X, y, groups = _dense(seed=2)
    plain = FederatedSparseLinearRegression(refit_candidates=0, random_state=3).fit(
        X, y, groups=groups)
    wide = FederatedSparseLinearRegression(refit_candidates=8, random_state=3).fit(
        X, y, groups=groups)
    np.testing.assert_array_equal(wide.support_, plain.support_)
    np.testing.assert_array_equal(wide.pvalues_, plain.pvalues_)
    np.testing.assert_array_equal(wide.votes_, plain.votes_)
    # the candidates: the support, then the smallest p-values (ties by index)
    order = np.lexsort((np.arange(X.shape[1]), plain.pvalues_))
    expected = np.sort(np.unique(np.concatenate(
        [np.flatnonzero(plain.support_), order[~plain.support_[order]][: 8 - plain.support_.sum()]])))
    np.testing.assert_array_equal(wide.refit_features_, expected)
    np.testing.assert_array_equal(
        candidate_features(plain.support_, plain.pvalues_, plain.votes_, 8), expected)
    assert np.all(plain.coef_[~plain.support_] == 0)


def test_a_sparse_model_keeps_the_support_refit():
    # exact sparse target, large nodes: least squares on the support wins the
    # CV and the coefficients are the support refit's (same sums, other order)
    rng = np.random.RandomState(4)
    groups = np.repeat(np.arange(30), 60)
    X = rng.normal(size=(len(groups), 15))
    y = 2 * X[:, 3] - X[:, 9] + rng.normal(size=30)[groups] + 0.5 * rng.normal(size=len(groups))
    plain = FederatedSparseLinearRegression(refit_candidates=0, random_state=0).fit(
        X, y, groups=groups)
    wide = FederatedSparseLinearRegression(refit_candidates=15, random_state=0).fit(
        X, y, groups=groups)
    assert wide.refit_alpha_ is None and plain.refit_alpha_ is None
    assert plain.refit_cv_losses_ is None
    np.testing.assert_array_equal(np.flatnonzero(wide.support_), [3, 9])
    np.testing.assert_allclose(wide.coef_, plain.coef_, rtol=1e-10, atol=1e-13)
    np.testing.assert_allclose(wide.intercept_, plain.intercept_, rtol=1e-10, atol=1e-12)


def test_fewer_answering_clients_than_folds_keep_the_support_refit():
    # 4 clients (a loose fwer lets the vote select with so few)
    X, y, groups = _dense(seed=5, n_nodes=4, sizes=(60, 80))
    plain = FederatedSparseLinearRegression(refit_candidates=0, per_node_intercept=True,
                                            fwer=0.5, random_state=0).fit(X, y, groups=groups)
    with pytest.warns(UserWarning, match="refit_candidates=12: only 4 clients"):
        wide = FederatedSparseLinearRegression(refit_candidates=12, per_node_intercept=True,
                                               fwer=0.5, random_state=0).fit(X, y, groups=groups)
    assert plain.support_.sum() >= 1
    np.testing.assert_array_equal(wide.support_, plain.support_)
    assert wide.refit_alpha_ is None and wide.refit_cv_losses_ is None
    np.testing.assert_allclose(wide.coef_, plain.coef_, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("drop", [0.0, 0.2])
def test_bytes_of_the_fit_and_a_join_are_the_closed_form(drop):
    X, y, groups = _dense(seed=6, n_nodes=50)
    old = groups < 40
    net = SimulatedNetwork(drop_rate=drop, random_state=4)
    c = 9
    reg = FederatedSparseLinearRegression(refit_candidates=c, network=net, random_state=0).fit(
        X[old], y[old], groups=groups[old])
    assert len(reg.refit_features_) == c and len(reg.node_level_) == 0 and reg.refit_asked_
    n_nodes, bits = 40, math.ceil(X.shape[1] / 8)
    g1, g2 = int(reg.answered_.sum()), int(reg.refit_answered_.sum())
    g2c, g2d = int(reg.refit_test_answered_.sum()), int(reg.refit_candidates_answered_.sum())
    s = int(reg.support_.sum())
    stat_s, stats = s * (s + 1) // 2 + s, c * (c + 1) // 2 + c
    rounds = [
        g1 * (bits + HEADER),
        # the support's bits out; statistics on s columns, W, the centred
        # target's squares, the s + 1 means and a bit per feature back
        n_nodes * (bits + HEADER) + g2 * (8 * (stat_s + s + 3) + bits + HEADER),
        # the test: s coefficients and the candidates' bits out, c - s products back
        g2 * (8 * s + bits + HEADER) + g2c * (4 * (c - s) + HEADER),
        # the request out; the rest of the statistics on c and c - s means back
        g2 * HEADER + g2d * (8 * (stats - stat_s + c - s) + HEADER),
        n_nodes * (8 * (c + 2) + HEADER),  # c coefficients, mu, tau^2 / sigma^2
    ]
    before = reg.n_bytes_sent_
    assert before == sum(rounds)
    reg.add_nodes(X[~old], y[~old], groups=groups[~old])
    # every newcomer receives the candidates' bits and their coefficients once
    assert reg.join_communication_.total_bytes == 10 * ((bits + HEADER) + 8 * (c + 2) + HEADER)
    assert reg.n_bytes_sent_ == before + reg.join_communication_.total_bytes
    # the newcomers answered none of the fit's rounds
    for mask in (reg.refit_answered_, reg.refit_test_answered_, reg.refit_candidates_answered_):
        assert len(mask) == 50 and not mask[40:].any()


def test_join_uses_the_candidates_coefficients_and_keeps_the_fitted_nodes():
    X, y, groups = _dense(seed=7, n_nodes=70)
    old = groups < 60
    reg = FederatedSparseLinearRegression(refit_candidates=12, random_state=0).fit(
        X[old], y[old], groups=groups[old])
    assert reg.refit_alpha_ is not None
    assert np.count_nonzero(reg.coef_) > reg.support_.sum()
    before = reg.intercept_.copy(), reg.coef_.copy()
    new = ~old & (np.arange(len(y)) % 3 == 0)  # a third of the newcomers' rows
    reg.add_nodes(X[new], y[new], groups=groups[new])
    np.testing.assert_array_equal(reg.intercept_[:60], before[0])
    np.testing.assert_array_equal(reg.coef_, before[1])
    mu, ratio = reg.intercept_mean_, reg.intercept_ratio_
    for i, node in enumerate(range(60, 70)):
        rows = new & (groups == node)
        own = y[rows].mean() - X[rows].mean(0) @ reg.coef_
        lam = rows.sum() * ratio / (rows.sum() * ratio + 1)
        np.testing.assert_allclose(reg.intercept_[60 + i], mu + lam * (own - mu), rtol=1e-10)


def test_bad_refit_candidates_is_refused_by_name():
    X, y, groups = _dense(seed=0, n_nodes=10)
    for bad in (-1, 2.5, "all"):
        with pytest.raises(ValueError, match="refit_candidates"):
            FederatedSparseLinearRegression(refit_candidates=bad).fit(X, y, groups=groups)


def test_auto_caps_the_candidates_so_statistics_do_not_outnumber_a_median_clients_rows():
    # the largest c with c (c + 1) / 2 + c <= n (c + 1), by brute force
    for n in (2, 5, 10, 11, 16, 17, 40):
        expected = max(c for c in range(33) if c * (c + 1) / 2 + c <= n * (c + 1))
        assert auto_candidates([n - 1, n, n + 50]) == expected
    assert auto_candidates([10]) == 18 and auto_candidates([100]) == 32
    rng = np.random.RandomState(8)
    groups = np.repeat(np.arange(60), 10)
    X = rng.normal(size=(600, 40))
    y = 2 * X[:, 1] - X[:, 30] + rng.normal(size=600)
    reg = FederatedSparseLinearRegression(random_state=0).fit(X, y, groups=groups)
    assert len(reg.refit_features_) == 18
    # 5 answering clients of the vote are needed for the cross-validation
    # (4 clients of 60 rows, 10 features: a loose fwer selects with so few)
    g4 = np.repeat(np.arange(4), 60)
    X4 = rng.normal(size=(240, 10))
    y4 = 2 * X4[:, 1] - X4[:, 3] + rng.normal(size=240)
    few = FederatedSparseLinearRegression(random_state=0, fwer=0.5).fit(X4, y4, groups=g4)
    assert few.n_answered_ == 4 and few.support_.any()
    np.testing.assert_array_equal(few.refit_features_, np.flatnonzero(few.support_))
