"""review16: the refit test round's joint (Hotelling) part on one-hot
candidates.

When the candidates off the support hold every level of a categorical
feature (a full one-hot group, School's kind: its columns sum to one on
every row), each client's products with its residual centred on the client
sum to zero over the group, so the covariance of the products is singular.
``candidate_test`` then skipped the joint test (p = 1) although there are
many more clients than candidates: on School (139 schools, 25 candidates)
``refit_test_joint_pvalue_`` was 1.0 at the defaults, and a design whose
missed effects are many weak one-hot levels lost the test meant for them.
Hotelling's T^2 is invariant under an invertible linear map of the
coordinates, so the test on the products' rank ``r`` (their covariance's
non-null eigen-directions, F(r, g - r)) equals the test on any ``r``
linearly independent columns.

support20: the server's test is now a bootstrap-t over the clients of
max_j |t_j| and sum_j t_j^2 (no covariance inverted, so a singular one
needs nothing special); the reference below is that bootstrap in NumPy
with the same seeded ``RandomState``, on all columns, and checks that the
groups' products do sum to zero (the case this file is about).
"""

import numpy as np
import pytest

from skfed.support import FederatedSparseLinearRegression
from skfed.support._candidate_test import TEST_LEVEL, candidate_test


def _one_hot_products(rng, g=60, n=40, groups=(4, 5, 3), effect=0.0, d_cont=3):
    """Clients' products of continuous and full one-hot candidates with
    their residual (centred per client; ``effect`` on every level's first
    half: the missed weak effects)."""
    rows = []
    for _ in range(g):
        cols = [rng.normal(size=(n, d_cont))]
        for levels in groups:
            cols.append(np.eye(levels)[rng.randint(levels, size=n)])
        XE = np.hstack(cols)
        r = rng.normal(size=n) + effect * XE[:, d_cont:].dot(
            np.tile([1.0, -1.0], XE.shape[1])[: XE.shape[1] - d_cont])
        rows.append(XE.T @ (r - r.mean()))
    return np.array(rows).astype(np.float32).astype(np.float64), groups, d_cont


def _reference(P, seed, B=1000):
    """The bootstrap p-values in NumPy: max-t adjusted per column and the
    sum of t^2, resamples ``RandomState(seed).randint(g, size=(B, g))``."""
    g = len(P)
    t = np.sqrt(g) * P.mean(0) / P.std(0, ddof=1)
    Q = P[np.random.RandomState(seed).randint(g, size=(B, g))]
    ts = np.sqrt(g) * (Q.mean(1) - P.mean(0)) / Q.std(1, ddof=1)
    p = (1 + (np.abs(ts).max(1)[:, None] >= np.abs(t)).sum(0)) / (B + 1)
    return p, (1 + ((ts * ts).sum(1) >= t @ t).sum()) / (B + 1)


@pytest.mark.parametrize("effect", [0.0, 0.15])
def test_joint_test_runs_on_the_rank_of_one_hot_products(effect):
    P, groups, d_cont = _one_hot_products(np.random.RandomState(3), effect=effect)
    # the products of each group sum to zero on every client (up to float32)
    start = d_cont
    for levels in groups:
        np.testing.assert_allclose(P[:, start:start + levels].sum(1), 0, atol=1e-3)
        start += levels
    # the products' covariance has rank k - (number of groups)
    values = np.linalg.eigvalsh(np.cov((P / np.abs(P).max(0)).T))
    assert np.sum(values > 1e-10 * values.max()) == P.shape[1] - len(groups)
    p_ref, expected = _reference(P, 11)
    p, p_joint, _ = candidate_test(P, random_state=11)
    np.testing.assert_allclose(p, p_ref, rtol=1e-12)
    np.testing.assert_allclose(p_joint, expected, rtol=1e-12)
    assert p_joint < 1.0
    if effect:  # the weak level effects: the joint test sees them
        assert p_joint <= TEST_LEVEL / 2


def test_level_of_the_rank_joint_test_on_one_hot_products():
    rng = np.random.RandomState(0)
    draws = [candidate_test(_one_hot_products(rng)[0], random_state=rng)[1]
             for _ in range(400)]
    rate = float(np.mean(np.array(draws) <= TEST_LEVEL / 2))
    # the joint part's level is TEST_LEVEL / 2, up to three binomial errors
    assert rate <= TEST_LEVEL / 2 + 3 * np.sqrt(TEST_LEVEL / 2 / 400), rate
    assert np.mean(np.array(draws) < 1.0) == 1.0  # it ran on every draw


def test_school_runs_the_joint_test():
    from skfed.datasets import load_school

    bunch = load_school()
    X = np.asarray(bunch.data, dtype=np.float64)
    est = FederatedSparseLinearRegression(random_state=0).fit(X, bunch.target,
                                                             groups=bunch.groups)
    assert len(est.refit_test_features_) + 1 < est.refit_test_answered_.sum()
    assert est.refit_test_joint_pvalue_ < 1.0
