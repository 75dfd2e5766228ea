"""Review9: the partial client rule breaks exact ties of ``|r|`` by the rule, not by rounding.

A small client's controls for feature ``j`` are the features of largest
``|r_jl|``, the lower index first among equal values.  On integer features
(counts, ratings, one-hot levels of equal size) many correlations are
exactly equal; computed in floating point they differ in the last bits, and
the compiled pass (which standardizes before its product) and the NumPy
reference (which standardizes after) then ordered tied candidates
differently: 11-14 of 3,000 selection bits differed between them on
3-level integer features, 8 samples, 10 features.  Values of ``|r|`` are
now compared on a grid of ``TIE_GRID`` (:func:`skfed.support._partial.tie_key`).

The order is checked against correlations computed exactly: on integer
features a client's centred cross-products are integers, so the order of
``|r_jl|`` for a fixed ``j`` is the order of ``c_jl^2 / c_ll`` in rationals.
"""

from fractions import Fraction

import numpy as np
import pytest
from scipy import stats

from skfed.support import FederatedSupportRecovery
from skfed.support._partial import TIE_GRID, n_controls, partial_reference, tie_key
from skfed.support._rules import _critical_values
from tests.test_support_partial import _run


def _integer_clients(seed, n_clients=300, n=8, d=10, levels=3):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, levels, size=(n_clients * n, d)).astype(np.float64)
    y = X[:, 0] - X[:, 3] + rng.normal(size=len(X))
    return X, y, np.repeat(np.arange(n_clients), n)


def _exact_order(Xi, j):
    """Features l != j by exactly decreasing |r_jl|, lower index first (live ones only)."""
    n = Xi.shape[0]
    Xi = Xi.astype(np.int64)
    s = Xi.sum(axis=0)
    C = n * (Xi.T @ Xi) - np.outer(s, s)  # n^2 times the centred cross-products
    keys = []
    for l in range(Xi.shape[1]):
        if l == j or C[l, l] == 0:
            continue
        keys.append((-Fraction(int(C[j, l]) ** 2, int(C[l, l])), l))
    return [l for _, l in sorted(keys)]


def _residual_share(A, x):
    if A.shape[1] == 0:
        return 1.0
    left = x - A @ np.linalg.lstsq(A, x, rcond=None)[0]
    return float(left @ left) / float(x @ x)


def _exact_partial_bits(Xi, yi, k, z=1.0, tol=1e-10):
    """The pivoted partial rule of an unweighted client with intercept, its
    candidates in the exact order of |r|: returns (tested, bits)."""
    n, d = Xi.shape
    X = Xi - Xi.mean(axis=0)
    r = yi - yi.mean()
    ss = np.sum(X * X, axis=0)
    live = ss > 0
    Z = np.where(live, X / np.sqrt(np.where(live, ss, 1.0)), 0.0)
    df = n - 2 - k
    crit = stats.t.isf(stats.norm.sf(z), df)
    tested = np.zeros(d, dtype=bool)
    bits = np.zeros(d, dtype=bool)
    for j in np.flatnonzero(live):
        chosen, dropped = [], False
        for l in _exact_order(Xi, j):
            if len(chosen) == k:
                break
            if _residual_share(Z[:, chosen], Z[:, l]) <= tol:
                continue
            if _residual_share(Z[:, chosen + [l]], Z[:, j]) <= tol:
                earlier = [c for c in chosen + [l] if c < j]
                if _residual_share(Z[:, earlier], Z[:, j]) <= tol:
                    dropped = True
                    break
                continue
            chosen.append(l)
        if dropped or len(chosen) < k:
            continue
        A = np.column_stack([Z[:, j], Z[:, chosen]])
        coef = np.linalg.lstsq(A, r, rcond=None)[0]
        resid = r - A @ coef
        se = np.sqrt(resid @ resid / df * np.linalg.inv(A.T @ A)[0, 0])
        tested[j] = True
        bits[j] = abs(coef[0] / se) > crit
    return tested, bits


def test_tie_key_grid():
    assert TIE_GRID == 2.0 ** -32
    # Values within rounding of each other share a key; values a grid step
    # apart do not; the sign is ignored.
    r = 1.0 / 3.0
    assert tie_key(r) == tie_key(-np.nextafter(r, 1.0)) == tie_key(np.nextafter(r, 0.0))
    assert tie_key(r) != tie_key(r + 2 * TIE_GRID)
    np.testing.assert_array_equal(tie_key(np.array([0.0, -1.0, 0.5])), [0.0, 2.0 ** 32, 2.0 ** 31])


def test_compiled_pass_equals_reference_on_integer_features():
    X, y, groups = _integer_clients(0)
    n_clients, n, d = 300, 8, 10
    w = np.ones(len(y))
    sizes = np.full(n_clients, n)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    k = n_controls(sizes, d, True).astype(np.intp)
    dof = (sizes - 1).astype(np.float64)
    tk, t0 = _critical_values(1.0, dof - 1 - k), _critical_values(1.0, dof - 1)
    bits, tstat, _, _ = _run(X, y, w, offsets, k, dof, tk, t0, True, np.float64, False,
                             gate=-np.inf)
    n_defined = 0
    for i in range(n_clients):
        rows = slice(offsets[i], offsets[i + 1])
        rb, rt, _, _ = partial_reference(X[rows], y[rows], w[rows], k[i], dof[i], True,
                                         tk[i], t0[i])
        np.testing.assert_array_equal(np.isnan(tstat[i]), np.isnan(rt), err_msg=f"client {i}")
        ok = ~np.isnan(rt)
        np.testing.assert_allclose(tstat[i, ok], rt[ok], rtol=1e-9, err_msg=f"client {i}")
        np.testing.assert_array_equal(bits[i], rb, err_msg=f"client {i}")
        n_defined += ok.sum()
    assert n_defined > 0.9 * n_clients * d


@pytest.mark.filterwarnings("ignore:80 of the 80 answering clients")
def test_estimator_bits_follow_the_exact_order_of_r():
    X, y, groups = _integer_clients(1, n_clients=80)
    n, d = 8, X.shape[1]
    est = FederatedSupportRecovery().fit(X, y, groups=groups)
    k = int(n_controls(n, d, True))
    assert k == 2 and (est.n_controls_ == k).all()
    tested = np.zeros((80, d), dtype=bool)
    bits = np.zeros((80, d), dtype=bool)
    n_ties = 0
    for i in range(80):
        rows = groups == i
        tested[i], bits[i] = _exact_partial_bits(X[rows], y[rows], k)
        # Count the clients whose top-k candidates of some feature hold a tie.
        Xi = X[rows].astype(np.int64)
        s = Xi.sum(axis=0)
        C = n * (Xi.T @ Xi) - np.outer(s, s)
        for j in range(d):
            order = _exact_order(Xi, j)
            val = [Fraction(int(C[j, l]) ** 2, int(C[l, l])) for l in order[: k + 1]]
            n_ties += len(set(val)) < len(val)
    assert n_ties > 100  # ties are common here: the order is what is tested
    np.testing.assert_array_equal(est.client_supports_, bits)
    np.testing.assert_array_equal(est.n_reports_, tested.sum(axis=0))
