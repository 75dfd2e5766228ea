"""Perso-lin on a node whose training labels are all one class (review9).

The paper's objective (Zantedeschi et al. 2020, eq. 1, which Perso-lin
minimizes) weights node k's loss by its degree: ``d_k c_k F_k(theta_k) +
(mu / 2) sum_l w_kl ||theta_k - theta_l||^2``.  The degree multiplies both of
node k's terms, so its block optimum minimizes ``c_k F_k(theta) + (mu / 2)
||theta - u_k||^2``, ``u_k`` its neighbours' weighted average, whatever the
total weight of its links: a weak link pulls as hard as a strong one.  A node
with one class has a loss whose optimum is at infinity and whose gradient
fades there, so it keeps most of its neighbours' model.  These tests pin that
behaviour (documented in nodes.rst) against a NumPy/SciPy reference of the
block optimum; the other personalized estimators predict the node's only
label on every row.
"""

import numpy as np
import pytest
from scipy import sparse
from scipy.optimize import minimize

from skfed.boosting import PersonalizedLinearClassifier


def _six_nodes():
    rng = np.random.RandomState(0)
    K, m = 6, 60
    X = rng.normal(size=(K * m, 2))
    groups = np.repeat(np.arange(K), m)
    y = (X[:, 0] > 0).astype(int)
    y[groups == 5] = 1          # node 5: one class
    return X, y, groups


def _block_optimum(Xk, yk, u, c, mu, l2):
    """Minimizer of ``c F(theta) + (mu / 2) ||theta - u||^2`` (logistic ``F``,
    mean over the node's samples, ``l2 / 2`` on the coefficients only)."""
    Z = np.column_stack([Xk, np.ones(len(Xk))])
    s = 2.0 * yk - 1.0

    def value_grad(t):
        z = s * (Z @ t)
        F = np.mean(np.logaddexp(0.0, -z)) + 0.5 * l2 * (t[:-1] @ t[:-1])
        gF = Z.T @ (-s / (1.0 + np.exp(z))) / len(z)
        gF[:-1] += l2 * t[:-1]
        return c * F + 0.5 * mu * ((t - u) @ (t - u)), c * gF + mu * (t - u)

    res = minimize(value_grad, u, jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10_000})
    return res.x


def _model(clf, k):
    return np.append(clf.coef_[k], clf.intercept_[k])


def test_one_class_node_takes_its_block_optimum_of_the_papers_objective():
    X, y, groups = _six_nodes()
    clf = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=groups)
    W = clf.collaboration_graph_.toarray()
    # The learned graph links node 5 weakly to one node only.
    assert np.flatnonzero(W[5]).tolist() == [0]
    assert W[5, 0] < 0.15 * np.sort(W[0])[-2]
    models = np.array([_model(clf, k) for k in range(6)])
    u = W[5] @ models / W[5].sum()
    ref = _block_optimum(X[groups == 5], y[groups == 5], u, clf.confidence_[5],
                         clf.mu, clf.alpha)
    np.testing.assert_allclose(_model(clf, 5), ref, rtol=1e-3, atol=1e-3)
    # It predicts its only label on about half of its training rows, as the
    # reference optimum does (31 of 60).
    own = clf.predict(X[groups == 5], groups=groups[groups == 5])
    Z5 = np.column_stack([X[groups == 5], np.ones(60)])
    assert (own == 1).sum() == (Z5 @ ref > 0).sum() == 31


@pytest.mark.parametrize("scale", [0.001, 0.1])
def test_the_pull_does_not_depend_on_the_weight_of_the_links(scale):
    X, y, groups = _six_nodes()
    W = np.zeros((6, 6))
    W[:5, :5] = 0.3
    np.fill_diagonal(W, 0.0)
    W[0, 5] = W[5, 0] = 0.3 * scale
    clf = PersonalizedLinearClassifier(graph=sparse.csr_matrix(W), random_state=0)
    clf.fit(X, y, groups=groups)
    ref = _block_optimum(X[groups == 5], y[groups == 5], _model(clf, 0),
                         clf.confidence_[5], clf.mu, clf.alpha)
    # (the fit's 100 gradient steps per node stop within 0.011 of it here)
    np.testing.assert_allclose(_model(clf, 5), ref, rtol=0, atol=0.02)
    # A link 1,000 times weaker than node 0's others (node 0's own model
    # barely moves) still leaves node 5 with its neighbour's model: its only
    # label on 31 of its 60 training rows.
    own = clf.predict(X[groups == 5], groups=groups[groups == 5])
    assert (own == 1).sum() == 31


def test_smaller_mu_lets_the_one_class_node_follow_its_label():
    X, y, groups = _six_nodes()
    share = []
    for mu in (1.0, 0.1, 0.01):
        clf = PersonalizedLinearClassifier(mu=mu, random_state=0).fit(X, y, groups=groups)
        share.append((clf.predict(X[groups == 5], groups=groups[groups == 5]) == 1).mean())
    assert share[0] < share[1] < share[2]
    assert share[2] > 0.95


def test_the_other_personalized_estimators_predict_the_only_label():
    from skfed.boosting import DecentralizedBoostingClassifier
    from skfed.multitask import FederatedMultiTaskClassifier
    from skfed.online import DecentralizedKernelSGDClassifier

    X, y, groups = _six_nodes()
    for est in (DecentralizedBoostingClassifier(random_state=0),
                FederatedMultiTaskClassifier(random_state=0),
                DecentralizedKernelSGDClassifier(random_state=0)):
        est.fit(X, y, groups=groups)
        own = est.predict(X[groups == 5], groups=groups[groups == 5])
        assert (own == 1).all(), type(est).__name__
