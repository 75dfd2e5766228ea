"""Defaults of the multi-task model on small nodes: the personal selection
(omega="auto" when the share selection does not fit its byte budget) and
the exact kernel mode's byte bound behind approximation="auto"."""

import numpy as np
import pytest

import skfed.multitask._shared as shared
from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.multitask._base import exact_mode_bytes


def _alike(n_nodes=30, n=12, d=4, seed=0):
    rng = np.random.RandomState(seed)
    g = np.repeat(np.arange(n_nodes), n)
    X = rng.randn(n_nodes * n, d)
    W = rng.randn(1, d) + 0.2 * rng.randn(n_nodes, d)
    y = (X * W[g]).sum(1) + 0.5 * rng.randn(n_nodes * n)
    return X, y, g


def _ridge_part(Z, r, mu, n=None):
    """argmin_v (1/n) sum 0.5 (z.v - r)^2 + (mu / 2) ||v||^2 (closed form; n
    the node's samples, also on a training fold)."""
    n = len(r) if n is None else n
    return np.linalg.solve(Z.T @ Z / n + mu * np.eye(Z.shape[1]), Z.T @ r / n)


@pytest.mark.parametrize("samples, n_folds", [(2000, 5), (100, 2)])
def test_personal_selection_against_closed_form(monkeypatch, samples, n_folds):
    """Squared loss: every candidate's validation error, the returned node
    models and joint_objective_ against per-node ridge solves at the fitted w0
    (folds until ``samples`` were held out: 72 a fold here)."""
    monkeypatch.setattr(shared, "_PERSONAL_VALIDATION_SAMPLES", samples)
    folds = []
    real = shared.validation_folds

    def record(*args):
        out = real(*args)
        folds.append(out)
        return out

    monkeypatch.setattr(shared, "validation_folds", record)
    X, y, g = _alike()
    m, n, d = 30, 12, 4
    est = FederatedMultiTaskRegressor(random_state=0).fit(X, y, groups=g)
    sel = est.share_selection_
    # The share selection's fits would exceed its budget: the personal one ran.
    assert len(sel["shares"]) == len(shared.PERSONAL_GRID)
    assert not np.isnan(sel["shares"]).any()
    w0 = est._dual_state["shared"]["w0"][0]
    lam = 1.0 / (m * n)
    b_learned = sel["shares"][0]
    mus = lam * m / (1.0 - b_learned) * np.asarray(shared.PERSONAL_GRID)
    np.testing.assert_allclose(sel["shares"], 1.0 - lam * m / mus)
    Z = np.hstack([X, np.ones((m * n, 1))])
    fold = folds[-1]
    assert sel["n_folds"] == n_folds
    errors = np.zeros((len(mus), m))
    for c, mu in enumerate(mus):
        for t in range(m):
            Zt, yt, ft = Z[g == t], y[g == t], fold[g == t]
            for f in range(n_folds):
                tr, va = ft != f, ft == f
                v = _ridge_part(Zt[tr], yt[tr] - Zt[tr] @ w0, mu, n)
                errors[c, t] += ((Zt[va] @ (w0 + v) - yt[va]) ** 2).sum()
    held = np.array([np.count_nonzero(fold[g == t] < n_folds) for t in range(m)])
    expected = (errors / held).mean(axis=1)
    np.testing.assert_allclose(sel["validation_error"], expected, rtol=1e-7)
    chosen = int(np.argmin(expected))
    assert est.shared_weight_ == pytest.approx(sel["shares"][chosen])
    assert chosen > 0  # these nodes are alike: more shrinkage than the learned share
    V = np.array([_ridge_part(Z[g == t], y[g == t] - Z[g == t] @ w0, mus[chosen])
                  for t in range(m)])
    np.testing.assert_allclose(est.coef_, (w0 + V)[:, :d], atol=1e-9)
    np.testing.assert_allclose(est.intercept_, (w0 + V)[:, d], atol=1e-9)
    loss = sum(0.5 * ((Z[g == t] @ (w0 + V[t]) - y[g == t]) ** 2).mean() for t in range(m))
    joint = loss + 0.5 * lam * m * (np.linalg.norm(w0) + np.linalg.norm(V)) ** 2
    assert est.joint_objective_ == pytest.approx(joint, rel=1e-10)
    assert est.joint_duality_gap_ >= 0
    # its messages are in the fit's last round
    assert len(est.bytes_per_round_) == est.n_iter_ == len(est.duality_gap_curve_)


def test_personal_selection_bytes(monkeypatch):
    """Each candidate costs every node two floats (one message either way)."""
    X, y, g = _alike()
    full = FederatedMultiTaskRegressor(random_state=0).fit(X, y, groups=g)
    n_candidates = len(shared.PERSONAL_GRID)
    monkeypatch.setattr(shared, "PERSONAL_GRID", (1.0,))
    one = FederatedMultiTaskRegressor(random_state=0).fit(X, y, groups=g)
    extra = 30 * 2 * (n_candidates - 1) * 8
    assert full.n_bytes_sent_ - one.n_bytes_sent_ == extra
    # the learned share alone: the model of the fit at the learned share
    assert one.shared_weight_ == pytest.approx(one.share_selection_["shares"][0])


def test_share_selection_unchanged_on_large_nodes():
    """Nodes large enough for the share selection's fits keep it (candidate
    fits, the learned share first, NaN)."""
    rng = np.random.RandomState(1)
    g = np.repeat(np.arange(3), 600)
    X = rng.randn(1800, 3)
    y = (X[:, 0] + 0.3 * rng.randn(1800) > 0).astype(int)
    est = FederatedMultiTaskClassifier(random_state=0).fit(X, y, groups=g)
    assert np.isnan(est.share_selection_["shares"][0])


@pytest.mark.parametrize("n_nodes, n, n_classes, loss", [
    (4, 6, 2, "hinge"), (4, 6, 2, "logistic"), (6, 3, 3, "hinge"), (10, 2, 2, "hinge"),
])
def test_exact_mode_bytes_bound(n_nodes, n, n_classes, loss):
    """The exact kernel mode's counted bytes are within exact_mode_bytes at the
    fit's rounds (and not far below it: the bound is what the auto rule weighs)."""
    rng = np.random.RandomState(0)
    g = np.repeat(np.arange(n_nodes), n)
    X = rng.randn(n_nodes * n, 3)
    y = np.arange(n_nodes * n) % n_classes
    est = FederatedMultiTaskClassifier(kernel="rbf", approximation=None, loss=loss,
                                       random_state=0).fit(X, y, groups=g)
    P = 1 if n_classes == 2 else n_classes
    bound = exact_mode_bytes(n_nodes * n, 3, n_nodes, P, 8, est.n_iter_, est.n_iter_)
    assert est.n_bytes_sent_ <= bound
    assert est.n_bytes_sent_ >= 0.3 * bound
    raw = n_nodes * n * (3 * 8 + 8) + n_nodes * 16
    # the documented bound: rows to every node plus the per-round changes
    assert bound > (n_nodes - 1) * raw


def test_auto_mode_never_exact_when_features_send_less():
    """Many one- and two-sample nodes: the exact mode relays every dual
    change to every node each round; approximation='auto' takes random
    features, which send less."""
    rng = np.random.RandomState(0)
    n_nodes, n = 40, 2
    g = np.repeat(np.arange(n_nodes), n)
    X = rng.randn(n_nodes * n, 5)
    y = (X[:, 0] > 0).astype(int)
    auto = FederatedMultiTaskClassifier(kernel="rbf", random_state=0).fit(X, y, groups=g)
    exact = FederatedMultiTaskClassifier(kernel="rbf", approximation=None,
                                         random_state=0).fit(X, y, groups=g)
    assert auto.approximation_ == "rff"
    assert auto.n_bytes_sent_ < exact.n_bytes_sent_


def test_no_personal_selection_on_few_nodes():
    """Below _PERSONAL_MIN_NODES nodes (the shared model weighs each held-out
    sample too much) the learned share is kept, as before."""
    X, y, g = _alike(n_nodes=shared._PERSONAL_MIN_NODES - 1)
    est = FederatedMultiTaskRegressor(random_state=0).fit(X, y, groups=g)
    assert est.share_selection_ is None
