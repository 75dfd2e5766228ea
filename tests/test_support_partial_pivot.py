"""The partial client rule's pivoted controls (skfed/support/_partial.py).

A client with fewer than ``d + 4`` samples tests each feature given its
closest features.  When the design has exact linear dependencies (a copy of
a column, a scaled copy, a constant, a full one-hot group) its controls are
pivoted like the OLS rule's columns: a control in the span of the controls
already chosen is skipped, a control that completes a dependency with the
tested feature is skipped when it comes after that feature in column order,
and the feature is not tested when it comes before (the later column of a
dependent pair is the dropped one, on every client).  These tests check the
estimator on review5's reproducer and the per-client bits against a NumPy
version of that rule written with least squares (not the Cholesky pivots of
the compiled pass or of ``partial_reference``).
"""

import numpy as np
import pytest
from scipy import stats
from skfed._core._support_fast import client_partial_dense, partial_work_size

from skfed.support import FederatedSupportRecovery
from skfed.support._partial import n_controls, partial_reference
from skfed.support._rules import _critical_values


def _duplicate_problem(seed=0, n_clients=30, n=20, d=20):
    """30 clients x 20 samples x 20 independent features (support 0-2), plus
    an exact copy of column 0 as column d (review5's reproducer at 20
    samples, fewer than d + 4: every client runs the partial rule)."""
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_clients * n, d))
    coef = np.zeros(d)
    coef[:3] = [2.0, -2.0, 1.5]
    y = X @ coef + 0.5 * rng.standard_normal(n_clients * n)
    groups = np.repeat(np.arange(n_clients), n)
    return X, y, groups


def _residual_share(A, x):
    """Share of ``x``'s squared norm left after its least-squares projection
    on the columns of ``A`` (1 when ``A`` has no column)."""
    if A.shape[1] == 0:
        return 1.0
    coef = np.linalg.lstsq(A, x, rcond=None)[0]
    left = x - A @ coef
    return float(left @ left) / float(x @ x)


def _pivoted_partial_bits(Xi, yi, k, z=1.0, tol=1e-10):
    """The pivoted partial rule on one unweighted client with intercept,
    written independently: returns (tested, bits)."""
    n, d = Xi.shape
    X = Xi - Xi.mean(axis=0)
    r = yi - yi.mean()
    ss = np.sum(X * X, axis=0)
    live = ss > 1e-10 * np.sum(Xi * Xi, axis=0)
    Z = np.where(live, X / np.sqrt(np.where(live, ss, 1.0)), 0.0)
    R = Z.T @ Z
    m = n - 1
    df = m - 1 - k
    crit = stats.t.isf(stats.norm.sf(z), df)
    tested = np.zeros(d, dtype=bool)
    bits = np.zeros(d, dtype=bool)
    for j in np.flatnonzero(live):
        others = [l for l in range(d) if l != j]
        order = sorted(others, key=lambda l: (-abs(R[j, l]), l))
        chosen, dropped = [], False
        for l in order:
            if len(chosen) == k:
                break
            if not live[l] or _residual_share(Z[:, chosen], Z[:, l]) <= tol:
                continue  # constant, or a copy of the controls chosen
            if _residual_share(Z[:, chosen + [l]], Z[:, j]) <= tol:
                # a dependency: its latest column in column order is dropped
                earlier = [c for c in chosen + [l] if c < j]
                if _residual_share(Z[:, earlier], Z[:, j]) <= tol:
                    dropped = True  # x_j: not tested
                    break
                continue  # a later column: the candidate is skipped
            chosen.append(l)
        if dropped or len(chosen) < k:
            continue
        A = np.column_stack([Z[:, j], Z[:, chosen]])
        coef, *_ = np.linalg.lstsq(A, r, rcond=None)
        resid = r - A @ coef
        se = np.sqrt(resid @ resid / df * np.linalg.inv(A.T @ A)[0, 0])
        tested[j] = True
        bits[j] = abs(coef[0] / se) > crit
    return tested, bits


def test_a_duplicate_column_no_longer_hides_unrelated_features():
    X, y, groups = _duplicate_problem()
    base = FederatedSupportRecovery().fit(X, y, groups=groups)
    Xd = np.column_stack([X, X[:, 0]])
    est = FederatedSupportRecovery().fit(Xd, y, groups=groups)
    d = X.shape[1]
    # Every client runs the partial rule (20 samples < 21 + 4).
    assert not est.ols_clients_.any()
    assert (est.n_controls_ == 4).all()
    # Every feature but the copy is tested by all 30 clients (was 24-29 on
    # the unrelated ones); the copy, the later column, by none.
    np.testing.assert_array_equal(est.n_reports_[:d], np.full(d, 30))
    assert est.n_reports_[d] == 0
    np.testing.assert_array_equal(est.get_support(indices=True), [0, 1, 2])
    np.testing.assert_array_equal(base.get_support(indices=True), [0, 1, 2])
    # Bytes: the closed form.  Without the copy each client sends one
    # vector of ceil(20 / 8) = 3 bytes after its header; with it, every
    # client skipped the copy, so it also sends its tested bits (3 bytes).
    header = base.n_bytes_sent_ // 30 - 3
    assert base.n_bytes_sent_ == 30 * (header + 3)
    assert est.n_bytes_sent_ == 30 * (header + 3 + 3)
    # The copy changes no other bit: column 0's controls skip its copy, and
    # a feature whose candidates include both copies keeps one of them and
    # skips the other (in the span of the controls chosen), so its controls
    # span what they span without the copy.
    np.testing.assert_array_equal(est.client_supports_[:, :d], base.client_supports_)


@pytest.mark.parametrize("kind", ["duplicate", "onehot"])
def test_vote_fractions_equal_a_numpy_version_of_the_pivoted_rule(kind):
    rng = np.random.default_rng(7)
    n_clients, n, d0 = 40, 12, 10
    X = rng.standard_normal((n_clients * n, d0))
    for j in range(1, d0):  # Toeplitz-like correlation
        X[:, j] = 0.5 * X[:, j - 1] + np.sqrt(0.75) * X[:, j]
    y = 1.5 * X[:, 0] - X[:, 3] + 0.7 * rng.standard_normal(len(X))
    if kind == "duplicate":
        # a copy of column 3 placed first, a scaled copy of 5 last
        X = np.column_stack([X[:, 3], X, 2.5 * X[:, 5]])
    else:
        # a three-level categorical as three one-hot columns, every level
        # on every client: the group sums to 1, a dependency.  Levels of 5,
        # 4 and 3 rows (equal counts tie |r| between the levels exactly,
        # and rounding, not the rule, would then order them).
        level = np.concatenate([rng.permutation(np.repeat(rng.permutation(3), [5, 4, 3]))
                                for _ in range(n_clients)])
        X = np.column_stack([X, np.eye(3)[level]])
    groups = np.repeat(np.arange(n_clients), n)
    d = X.shape[1]
    est = FederatedSupportRecovery().fit(X, y, groups=groups)
    k = int(n_controls(n, d, True))
    assert k == 3 and (est.n_controls_ == k).all()
    tested = np.zeros((n_clients, d), dtype=bool)
    bits = np.zeros((n_clients, d), dtype=bool)
    for i in range(n_clients):
        rows = groups == i
        tested[i], bits[i] = _pivoted_partial_bits(X[rows], y[rows], k)
    np.testing.assert_array_equal(est.client_supports_, bits)
    np.testing.assert_array_equal(est.n_reports_, tested.sum(axis=0))
    reports = tested.sum(axis=0)
    fraction = np.divide(bits.sum(axis=0), reports, out=np.zeros(d), where=reports > 0)
    np.testing.assert_allclose(est.vote_fraction_, fraction, rtol=0, atol=1e-12)
    if kind == "duplicate":
        # The later copy of each pair is never tested; every other column
        # always is (column 4 = the original of column 0 comes later).
        assert reports[4] == 0 and reports[d - 1] == 0
        assert (reports[[0, 1, 2, 3, 5, 6, 7, 8, 9, 10]] == n_clients).all()
    else:
        # The first two levels are always tested (a dependency met in their
        # walk has a later column); the last is dropped on the clients whose
        # walk meets both other levels (elsewhere its controls hold no
        # dependency and its t statistic is defined).
        assert reports[d - 1] < n_clients
        assert (reports[: d - 1] == n_clients).all()


@pytest.mark.parametrize("n_live", [3, 4, 6])
def test_a_client_whose_non_constant_columns_run_out_matches_the_reference(n_live):
    # A wide client (40 columns, 10 samples: k = 3 controls) on which only
    # n_live columns vary: with 3 a feature has 2 candidates and is not
    # tested; with 4 or more every varying column is, given the others.
    rng = np.random.default_rng(n_live)
    n, d = 10, 40
    X = np.zeros((n, d))
    cols = rng.choice(d, n_live, replace=False)
    X[:, cols] = rng.standard_normal((n, n_live))
    X[:, 0] = 1.5 if 0 not in cols else X[:, 0]
    y = X[:, cols[0]] + rng.standard_normal(n)
    w = np.ones(n)
    k = int(n_controls(n, d, True))
    assert k == 3
    m = n - 1.0
    tk, t0 = _critical_values(1.0, np.array([m - 1 - k, m - 1]))
    tstat = np.zeros((1, d))
    packed = np.zeros((1, (d + 7) // 8), dtype=np.uint8)
    used = np.zeros(1, dtype=np.intp)
    client_partial_dense(X, y, w, np.array([0, n], dtype=np.intp), np.array([0], dtype=np.intp),
                         np.array([k], dtype=np.intp), np.array([m]), np.array([tk]),
                         np.array([t0]), -np.inf, True, tstat, packed, used, np.zeros(1),
                         np.zeros(partial_work_size(n, d)))
    bits, t, _, _ = partial_reference(X, y, w, k, m, True, tk, t0)
    defined = ~np.isnan(tstat[0])
    np.testing.assert_array_equal(defined, ~np.isnan(t))
    expected = np.zeros(d, dtype=bool)
    if n_live > k:
        expected[cols] = True
    np.testing.assert_array_equal(defined, expected)
    np.testing.assert_allclose(tstat[0, defined], t[defined], rtol=1e-10)
    bits_c = np.unpackbits(packed[0], bitorder="little")[:d].astype(bool)
    np.testing.assert_array_equal(bits_c, bits)
