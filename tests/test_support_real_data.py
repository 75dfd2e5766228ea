"""The NumPy prototype of ``benchmarks/support_real_data.py`` (the pivot client rule).

Its client is checked against an independent ordinary least squares on the
reduced design (an explicit intercept column instead of centring, solved by
``lstsq``), its server test against ``scipy.stats.binom``, its null vote
rate against ``q0 = 2 Phi(-1)``, and its refit against the package's
``FederatedSparseLinearRegression`` (inside ``run``).
"""

import argparse
import importlib.util
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def bench():
    spec = importlib.util.spec_from_file_location(
        "support_real_data", ROOT / "benchmarks" / "support_real_data.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("support_real_data", module)
    spec.loader.exec_module(module)
    return module


def _client(rng, n, levels_present=(0, 1, 2)):
    """Two Gaussian columns, a 3-level one-hot group, a constant column."""
    G = rng.normal(size=(n, 2))
    level = rng.choice(levels_present, size=n)
    X = np.column_stack([G, np.eye(3)[level], np.full(n, 2.5)])
    y = 0.8 * G[:, 0] + 1.0 * (level == 0) + rng.normal(size=n)
    return X, y


def test_pivot_client_equals_reduced_ols(bench):
    rng = np.random.default_rng(0)
    n = 60
    X, y = _client(rng, n)
    tested, selected, df, t = bench.pivot_client(X, y)
    # The last level is collinear with the others and the intercept; the
    # constant column is dropped; the rest is tested.
    assert tested.tolist() == [True, True, True, True, False, False]
    assert df == n - 1 - 4
    A = np.column_stack([np.ones(n), X[:, :4]])
    coef, rss = np.linalg.lstsq(A, y, rcond=None)[:2]
    sigma2 = rss[0] / (n - 5)
    t_ref = coef[1:] / np.sqrt(sigma2 * np.diag(np.linalg.inv(A.T @ A))[1:])
    np.testing.assert_allclose(t[:4], t_ref, rtol=1e-9)
    assert np.isnan(t[4:]).all()
    crit = stats.t.isf(stats.norm.sf(1.0), n - 5)
    assert selected.tolist() == (np.abs(t_ref) > crit).tolist() + [False, False]
    # The effects are large at 60 rows: x0 and level 1 (against level 3).
    assert selected[0] and selected[2]


def test_missing_level_moves_the_reference(bench):
    rng = np.random.default_rng(1)
    X, y = _client(rng, 40, levels_present=(0, 1))
    tested, _, df, t = bench.pivot_client(X, y)
    # Level 3 absent (constant), so level 2 is the reference and is dropped.
    assert tested.tolist() == [True, True, True, False, False, False]
    assert df == 40 - 1 - 3 and np.isfinite(t[:3]).all()
    # Without the abstention bit every feature counts as reported.
    tested0, selected0, _, _ = bench.pivot_client(X, y, abstain=False)
    assert tested0.all() and not selected0[3:].any()


def test_too_few_degrees_of_freedom_abstain(bench):
    rng = np.random.default_rng(2)
    X, y = _client(rng, 7)  # 4 kept columns, df = 7 - 1 - 4 = 2 < OLS_MIN_DF
    tested, selected, df, t = bench.pivot_client(X, y)
    assert df == 2 and not tested.any() and not selected.any() and np.isnan(t).all()


def test_server_test(bench):
    votes = np.array([60, 45, 0, 3])
    reports = np.array([100, 100, 0, 3])
    support, pvalues, reference = bench.server_test(votes, reports, 1.0, 4)
    q0 = 2 * stats.norm.sf(1.0)
    assert reference == pytest.approx(0.9 * q0 + 0.1)
    expected = stats.binom.sf(votes[[0, 1, 3]] - 1, reports[[0, 1, 3]], reference)
    np.testing.assert_allclose(pvalues[[0, 1, 3]], expected)
    assert pvalues[2] == 1.0
    assert support.tolist() == [True, False, False, False]
    # Half the clients small: the margin is 0.02 + 0.08 / 2.
    assert bench.server_test(votes, reports, 0.5, 4)[2] == pytest.approx(0.94 * q0 + 0.06)


def test_null_vote_rate_is_q0(bench):
    rng = np.random.default_rng(3)
    n_clients, n = 800, 30
    X = np.concatenate([_client(rng, n)[0] for _ in range(n_clients)])
    y = rng.normal(size=len(X))
    groups = np.repeat(np.arange(n_clients), n)
    out = bench.pivot_vote(X, y, groups)
    assert out["reports"].tolist() == [n_clients] * 4 + [0, 0]
    q0 = 2 * stats.norm.sf(1.0)
    # sd of a fraction over 800 clients: 0.016
    np.testing.assert_allclose(out["fraction"][:4], q0, atol=0.05)
    assert not out["support"].any()


def test_synthetic_one_hot_recovery(bench):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = bench.run("synthetic", 0, argparse.Namespace(clients=120, samples=40))
    # The pivot rule recovers the support in the column-order coding; the
    # client-level feature and the reference levels are never tested.
    assert out["exact"]["pivot"]
    assert out["supports"]["pivot"] == ["x0", "x3", "A1", "B2"]
    assert out["constant_within"] == ["client0", "client1"]
    assert out["collinear_within"] == ["A4", "B3"]
    assert out["fractions"]["client0"][3] == 0  # no client reports it
    assert out["null_support"] == []
    # run() asserted the NumPy refit equal to the package's predictions; the
    # package ("main") now runs the pivot rule with the tested bit (every
    # client here has n_i >= d + 4, so it runs the pivoted OLS test).
    assert out["supports"]["main"] == out["supports"]["pivot"]
    assert out["r2"][5]["main"] == out["r2"][5]["pivot"]


def test_small_client_falls_back_to_partial_rule(bench):
    from skfed.support._partial import n_controls, partial_reference
    from skfed.support._rules import _critical_values

    rng = np.random.default_rng(2)
    X, y = _client(rng, 7)
    assert bench.pivot_client(X, y)[2] == 2  # too few for OLS after the pivot
    tested, selected = bench.partial_client(X, y)
    m, k = 6, int(n_controls(7, 6, True))
    tk, t0 = _critical_values(1.0, np.array([m - 1 - k, m - 1]))
    bits, t = partial_reference(X, y, np.ones(7), k, m, True, tk, t0)[:2]
    # It reports exactly the features whose t is defined, and its selections.
    assert tested.tolist() == (~np.isnan(t)).tolist()
    assert selected.tolist() == np.asarray(bits, dtype=bool).tolist()
    assert not tested[5]  # the constant column
    groups = np.zeros(7, dtype=int)
    out = bench.pivot_vote(X, y, groups)
    assert out["n_ols"] == 0 and out["reports"].tolist() == tested.astype(int).tolist()
    # The margin of a fit without OLS clients: 0.02.
    assert out["reference"] == pytest.approx(0.98 * 2 * stats.norm.sf(1.0) + 0.02)
    assert bench.pivot_vote(X, y, groups, small="abstain")["reports"].sum() == 0


def test_partial_skip_equals_main_without_collinearity_and_defines_one_hot(bench):
    rng = np.random.default_rng(5)
    # No collinear control: the same tests and selections as main's partial rule.
    for _ in range(20):
        X = rng.normal(size=(10, 8)) @ np.triu(np.ones((8, 8))) / 3
        y = X[:, 2] + rng.normal(size=10)
        np.testing.assert_array_equal(bench.partial_skip_client(X, y),
                                      bench.partial_client(X, y))
    # One-hot clients: main's rule (its controls pivoted) tests the two
    # Gaussian columns and the first two levels, and drops the last level
    # exactly when its two controls (9 samples: k = 2) are the other two
    # levels (the column-order pivot, as the OLS rule); the skip rule tests
    # every non-constant column.
    dropped = 0
    for _ in range(20):
        X, y = _client(rng, 9)
        tested_main, _ = bench.partial_client(X, y)
        tested_skip, _ = bench.partial_skip_client(X, y)
        live = X.std(axis=0) > 0
        assert tested_skip.tolist() == live.tolist()
        if not live[2:5].all():
            continue
        r = np.abs(np.corrcoef(X[:, :5], rowvar=False)[4, :4])
        closest = set(np.lexsort((np.arange(4), -r))[:2].tolist())
        assert tested_main.tolist() == [True] * 4 + [closest != {2, 3}, False]
        dropped += closest == {2, 3}
    assert dropped > 0


def test_partial_skip_null_rate(bench):
    rng = np.random.default_rng(6)
    n_clients, n = 1000, 6  # df <= 2 after the pivot unless two levels are absent
    X = np.concatenate([_client(rng, n)[0] for _ in range(n_clients)])
    y = rng.normal(size=len(X))
    groups = np.repeat(np.arange(n_clients), n)
    out = bench.pivot_vote(X, y, groups, small="skip")
    assert out["n_ols"] < 0.02 * n_clients
    tested = out["reports"] > 0
    assert tested.tolist() == [True] * 5 + [False]
    # sd of a fraction over 1,000 reports: 0.015
    np.testing.assert_allclose(out["fraction"][tested], 2 * stats.norm.sf(1.0), atol=0.06)
    assert not out["support"].any()


def test_pivot_equals_main_ols_clients_on_full_rank_designs(bench):
    # Where no column is dropped the pivot rule is main's OLS t-test: the same
    # bits, client by client, as the compiled pass.
    from skfed import FederatedSupportRecovery

    rng = np.random.default_rng(7)
    n_clients, n, d = 30, 25, 8
    X = rng.normal(size=(n_clients * n, d))
    groups = np.repeat(np.arange(n_clients), n)
    y = X[:, 1] - 0.5 * X[:, 4] + 0.3 * rng.normal(size=n_clients)[groups] + rng.normal(size=len(X))
    est = FederatedSupportRecovery(random_state=0).fit(X, y, groups=groups)
    assert est.ols_clients_.all()
    for i in range(n_clients):
        rows = groups == i
        tested, selected, df, _ = bench.pivot_client(X[rows], y[rows])
        assert tested.all() and df == n - 1 - d
        assert selected.tolist() == est.client_supports_[i].tolist()
    out = bench.pivot_vote(X, y, groups)
    np.testing.assert_allclose(out["fraction"], est.vote_fraction_)
    assert out["reference"] == pytest.approx(est.reference_rate_)
    assert out["support"].tolist() == est.support_.tolist()


# --------------------------------------------------------------------------
# The package's pivot client rule and "tested" bit (skfed/support/_rules.py,
# client_ols_* in skfed/_core/_support_fast.pyx), against the prototype and
# against NumPy.
# --------------------------------------------------------------------------
def _one_hot_fit_data(seed, n_clients=60, n=40, null=False):
    rng = np.random.default_rng(seed)
    X, y = zip(*(_client(rng, n) for _ in range(n_clients)))
    X, y = np.concatenate(X), np.concatenate(y)
    groups = np.repeat(np.arange(n_clients), n)
    if null:
        y = rng.normal(size=len(y))
    return X, y, groups


def test_package_client_equals_numpy_reference():
    from skfed.support._rules import _client_pass, ols_reference

    rng = np.random.default_rng(10)
    sizes = [40, 25, 30, 12]
    present = [(0, 1, 2), (0, 1), (1, 2), (0, 1, 2)]
    rows = [_client(rng, n, p) for n, p in zip(sizes, present)]
    X = np.concatenate([r[0] for r in rows])
    y = np.concatenate([r[1] for r in rows])
    w = rng.uniform(0.5, 2.0, size=len(y))
    offsets = np.concatenate([[0], np.cumsum(sizes)]).astype(np.intp)
    packed, ols, controls, tested = _client_pass(
        X, y, w, offsets, np.zeros(4), 1.0, True, True, None,
        n_positive=np.array(sizes))
    bits = np.unpackbits(packed, axis=1, bitorder="little")[:, :6].astype(bool)
    kept = np.unpackbits(tested, axis=1, bitorder="little")[:, :6].astype(bool)
    # Clients 0-2 run OLS (n_i >= d + 4 = 10... with the one-hot pivot);
    # the last one too (12 >= 6 + 1 + 3).
    assert ols.tolist() == [True, True, True, True]
    for i in range(4):
        s = slice(offsets[i], offsets[i + 1])
        ref_tested, ref_bits, t = ols_reference(X[s], y[s], w[s], True)
        assert kept[i].tolist() == ref_tested.tolist(), i
        assert bits[i].tolist() == ref_bits.tolist(), i
    # The reference itself: the dropped columns are the constant one and the
    # last level present; the kept ones' t equal lstsq with an intercept column.
    assert kept.tolist() == [[1, 1, 1, 1, 0, 0], [1, 1, 1, 0, 0, 0],
                             [1, 1, 0, 1, 0, 0], [1, 1, 1, 1, 0, 0]]
    s = slice(offsets[0], offsets[1])
    A = np.column_stack([np.ones(40), X[s][:, :4]]) * np.sqrt(w[s])[:, None]
    r = y[s] * np.sqrt(w[s])
    coef, rss = np.linalg.lstsq(A, r, rcond=None)[:2]
    t_ref = coef[1:] / np.sqrt(rss[0] / (40 - 5) * np.diag(np.linalg.inv(A.T @ A))[1:])
    np.testing.assert_allclose(ols_reference(X[s], y[s], w[s], True)[2][:4], t_ref,
                               rtol=1e-8)


def test_package_vote_fractions_equal_prototype(bench):
    from skfed import FederatedSupportRecovery

    X, y, groups = _one_hot_fit_data(11)
    est = FederatedSupportRecovery(random_state=0).fit(X, y, groups=groups)
    out = bench.pivot_vote(X, y, groups)
    assert est.ols_clients_.all() and out["n_ols"] == 60
    np.testing.assert_array_equal(est.n_reports_, out["reports"])
    assert est.n_reports_.tolist() == [60] * 4 + [0, 0]
    np.testing.assert_array_equal(est.votes_, out["votes"])
    np.testing.assert_allclose(est.vote_fraction_, out["fraction"])
    # Every answering client tested the reported features: the margin is the fit's.
    np.testing.assert_allclose(est.feature_reference_rate_[:4], est.reference_rate_)
    assert est.support_.tolist() == out["support"].tolist() == [True, False, True, False,
                                                                False, False]


def test_tested_bits_cost_bytes_only_where_sent():
    from skfed import FederatedSupportRecovery

    X, y, groups = _one_hot_fit_data(12, n_clients=30)
    est = FederatedSupportRecovery(random_state=0).fit(X, y, groups=groups)
    full = np.random.default_rng(0).normal(size=X.shape)
    est_full = FederatedSupportRecovery(random_state=0).fit(full, y, groups=groups)
    assert est_full.n_reports_.tolist() == [30] * 6
    assert est.n_reports_.tolist() == [30] * 4 + [0, 0]
    # every client dropped two columns: it sends its ceil(6 / 8) = 1 byte of
    # bits and 1 byte of tested bits; the full-rank clients send only the first
    assert est.n_bytes_sent_ - est_full.n_bytes_sent_ == 30 * 1


def test_rogue_claiming_tested_is_bounded_per_feature():
    from skfed import FederatedSupportRecovery
    from skfed.network import SimulatedNetwork

    # Level 3 of the group is rare: few clients hold two levels besides it,
    # so level 2 (column 3) is tested by few clients.  Null target: rogue
    # clients sending 1 on every feature must not make it significant.
    rng = np.random.default_rng(13)
    n_clients, n = 200, 30
    parts = [_client(rng, n, (0, 1, 2) if i < 20 else (0, 2)) for i in range(n_clients)]
    X = np.concatenate([p[0] for p in parts])
    y = rng.normal(size=len(X))
    groups = np.repeat(np.arange(n_clients), n)
    net = SimulatedNetwork(rogue_fraction=0.08)
    est = FederatedSupportRecovery(random_state=1, network=net).fit(X, y, groups=groups)
    n_rogue = int(est.rogue_[est.answered_].sum())
    assert 8 <= n_rogue <= est.rogue_tolerance_ * n_clients
    # column 3 (level 2) is tested only where level 2 is not the last present
    honest = (~est.rogue_)[:20].sum()
    assert est.n_reports_[3] == honest + n_rogue
    beta_j = min(1.0, est.rogue_tolerance_ * est.n_answered_ / est.n_reports_[3])
    q0 = 2 * stats.norm.sf(1.0)
    assert est.feature_reference_rate_[3] == pytest.approx((1 - beta_j) * q0 + beta_j)
    assert not est.support_.any()
    # With the fit-wide margin the rogues' votes would have passed.
    p_flat = stats.binom.sf(est.votes_[3] - 1, est.n_reports_[3], est.reference_rate_)
    assert p_flat <= 0.05 / 6


def test_private_fit_sends_no_tested_bit():
    from skfed import DifferentialPrivacy, FederatedSupportRecovery

    X, y, groups = _one_hot_fit_data(14, n_clients=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedSupportRecovery(
            random_state=0, privacy=DifferentialPrivacy(epsilon=4.0)).fit(X, y, groups=groups)
    # untested features are sent as (randomized) 0 bits and count as reported
    k = est.reported_features_.shape[1] if hasattr(est, "reported_features_") else 6
    assert est.n_reports_.sum() == 50 * k
    plain = FederatedSupportRecovery(
        random_state=0, privacy=DifferentialPrivacy(epsilon=4.0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain.fit(np.random.default_rng(0).normal(size=X.shape), y, groups=groups)
    assert est.n_bytes_sent_ == plain.n_bytes_sent_


def test_school_support_contains_vr1_and_vr2():
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from new_nodes import load, split
    from skfed import FederatedSupportRecovery

    X, y, g, _ = load("school", 0)
    fit_rows = split(X, y, g, 0)[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = FederatedSupportRecovery(random_state=0).fit(X[fit_rows], y[fit_rows],
                                                           groups=g[fit_rows])
    # vr1, vr2 are columns 7, 8; vr3 (the last level) is dropped by every client
    # holding all three bands, and the school-level columns by every client.
    assert est.support_[7] and est.support_[8]
    assert est.vote_fraction_[7] > 0.9 and est.vote_fraction_[8] > 0.9
    assert est.n_reports_[21:].max() == 0  # sgender_*, denom_*, bias: constant per school
    assert est.support_.sum() <= 4
    # Null check: the scores permuted within every school select nothing.
    rng = np.random.default_rng(7)
    yf, gf = y[fit_rows], g[fit_rows]
    y_null = yf.copy()
    for node in np.unique(gf):
        rows = np.flatnonzero(gf == node)
        y_null[rows] = yf[rng.permutation(rows)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        null = FederatedSupportRecovery(random_state=0).fit(X[fit_rows], y_null, groups=gf)
    assert not null.support_.any()


def test_join_adds_tested_counts_like_a_fit_on_all_clients():
    from skfed import FederatedSupportRecovery

    rng = np.random.default_rng(15)
    parts = [_client(rng, 30, (0, 1, 2) if i % 3 else (0, 1)) for i in range(60)]
    X = np.concatenate([p[0] for p in parts])
    y = np.concatenate([p[1] for p in parts])
    groups = np.repeat(np.arange(60), 30)
    full = FederatedSupportRecovery(random_state=0).fit(X, y, groups=groups)
    first = groups < 40
    joined = FederatedSupportRecovery(random_state=0).fit(X[first], y[first],
                                                          groups=groups[first])
    joined.add_nodes(X[~first], y[~first], groups=groups[~first])
    # column 3 (level 2) is not tested where level 3 is absent (20 of 60 clients)
    assert full.n_reports_.tolist() == [60, 60, 60, 40, 0, 0]
    for name in ("votes_", "n_reports_", "support_", "pvalues_", "feature_reference_rate_"):
        np.testing.assert_allclose(getattr(joined, name), getattr(full, name))
