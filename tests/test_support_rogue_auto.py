"""rogue_tolerance="auto": resolved from the clients' sizes, attacked at its value;
and the selector in a search scored by make_group_scorer."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import r2_score
from sklearn.model_selection import GridSearchCV, GroupKFold

from skfed import SimulatedNetwork
from skfed.model_selection import make_group_scorer
from skfed.privacy import DifferentialPrivacy
from skfed.support import (
    DEFAULT_ROGUE_TOLERANCE,
    SMALL_CLIENT_ROGUE_TOLERANCE,
    FederatedSparseLinearRegression,
    FederatedSupportRecovery,
)

Q0 = 2 * stats.norm.sf(1.0)


def clients(sizes, d, coef, seed=0, noise=1.0):
    """Independent standard-normal features, w* = coef on the first ones,
    one offset per client; ``sizes``: samples of every client."""
    rng = np.random.default_rng(seed)
    sizes = np.asarray(sizes)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(len(groups), d))
    w = np.zeros(d)
    w[: len(coef)] = coef
    y = X @ w + noise * rng.normal(size=len(groups)) + 3 * rng.normal(size=len(sizes))[groups]
    return X, y, groups, w != 0


def expected_tolerance(sizes, d, center=True):
    """The documented rule in plain NumPy: 0.1 for the share of clients with
    n_i >= d + center + 3, SMALL_CLIENT_ROGUE_TOLERANCE for the others."""
    f = np.mean(np.asarray(sizes) >= d + int(center) + 3)
    return SMALL_CLIENT_ROGUE_TOLERANCE * (1 - f) + DEFAULT_ROGUE_TOLERANCE * f


def reference(beta):
    return (1 - beta) * Q0 + beta


@pytest.mark.parametrize("sizes", [[30] * 200, [10] * 200, [8, 12, 23, 24, 25, 40] * 40])
@pytest.mark.parametrize("fit_intercept", [True, False])
def test_auto_tolerance_is_the_numpy_rule_on_the_clients_sizes(sizes, fit_intercept):
    X, y, groups, _ = clients(sizes, 20, [2.0, -2.0, 1.5], seed=1)
    if not fit_intercept:
        y = y - np.repeat(y.reshape(-1, 1)[np.r_[0, np.cumsum(sizes)[:-1]]].ravel(), sizes)
    sel = FederatedSupportRecovery(fit_intercept=fit_intercept).fit(X, y, groups=groups)
    beta = expected_tolerance(sizes, 20, fit_intercept)
    assert sel.rogue_tolerance_ == pytest.approx(beta, abs=1e-15)
    assert sel.reference_rate_ == pytest.approx(reference(beta), rel=1e-12)
    pvalues = stats.binom.sf(sel.votes_ - 1, sel.n_reports_, reference(beta))
    np.testing.assert_allclose(sel.pvalues_, pvalues, rtol=1e-10)
    np.testing.assert_array_equal(sel.support_, pvalues <= 0.05 / 20)
    # The alias None and an explicit number keep their meaning.
    none = FederatedSupportRecovery(rogue_tolerance=None, fit_intercept=fit_intercept)
    assert none.fit(X, y, groups=groups).rogue_tolerance_ == sel.rogue_tolerance_
    fixed = FederatedSupportRecovery(rogue_tolerance=0.2, fit_intercept=fit_intercept)
    fixed.fit(X, y, groups=groups)
    assert fixed.rogue_tolerance_ == 0.2
    assert fixed.reference_rate_ == pytest.approx(reference(0.2), rel=1e-12)


def test_auto_tolerance_does_not_depend_on_the_votes():
    # Public quantities only: the same clients with a target that has a
    # support, a permuted target (other votes) or pure noise resolve the
    # same tolerance; dropped clients count out (the answering clients).
    sizes = [10] * 150 + [40] * 50
    X, y, groups, _ = clients(sizes, 20, [2.0, -2.0, 1.5], seed=2)
    rng = np.random.default_rng(0)
    values = [FederatedSupportRecovery().fit(X, t, groups=groups).rogue_tolerance_
              for t in (y, rng.permutation(y), rng.normal(size=len(y)))]
    assert values == [pytest.approx(expected_tolerance(sizes, 20))] * 3
    net = SimulatedNetwork(drop_rate=0.3, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = FederatedSupportRecovery(network=net).fit(X, y, groups=groups)
    answered = np.asarray(sizes)[sel.answered_]
    assert sel.rogue_tolerance_ == pytest.approx(expected_tolerance(answered, 20))


def test_auto_tolerance_after_a_join_counts_every_answering_client():
    X, y, groups, _ = clients([40] * 100 + [10] * 300, 20, [2.0, -2.0, 1.5], seed=3)
    old = groups < 100
    sel = FederatedSupportRecovery().fit(X[old], y[old], groups=groups[old])
    assert sel.rogue_tolerance_ == DEFAULT_ROGUE_TOLERANCE
    sel.add_nodes(X[~old], y[~old], groups=groups[~old])
    assert sel.n_answered_ == 400
    assert sel.rogue_tolerance_ == pytest.approx(expected_tolerance([40] * 100 + [10] * 300, 20))
    full = FederatedSupportRecovery().fit(X, y, groups=groups)
    assert full.rogue_tolerance_ == pytest.approx(sel.rogue_tolerance_)
    np.testing.assert_array_equal(full.support_, sel.support_)


def test_auto_tolerance_under_privacy_is_the_promised_one():
    # Under a finite budget the clients' sizes are not sent: 0.1.
    X, y, groups, _ = clients([10] * 300, 20, [2.0, -2.0, 1.5], seed=4)
    priv = DifferentialPrivacy(epsilon=5.0, insecure_noise_seed=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        sel = FederatedSupportRecovery(privacy=priv, random_state=0).fit(X, y, groups=groups)
    assert sel.rogue_tolerance_ == DEFAULT_ROGUE_TOLERANCE


def test_fixed_rules_have_no_margin_and_refuse_a_tolerance():
    X, y, groups, _ = clients([30] * 50, 20, [2.0, -2.0, 1.5], seed=5)
    sel = FederatedSupportRecovery(alpha=0.5).fit(X, y, groups=groups)
    assert sel.rogue_tolerance_ == 0.0
    with pytest.raises(ValueError, match="rogue_tolerance=0.2 is used by the test"):
        FederatedSupportRecovery(alpha=0.5, rogue_tolerance=0.2).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="rogue_tolerance"):
        FederatedSupportRecovery(rogue_tolerance="always").fit(X, y, groups=groups)


def _omniscient(monkeypatch, pattern):
    """Rogue clients send ``pattern`` (every feature outside the support, none
    of it: the strongest attack on the test) instead of the simulated ones."""
    from skfed.network import NetworkSimulation

    def corrupt(self, bits, nodes):
        bits = np.array(bits, dtype=bool)
        bits[self.rogue[np.asarray(nodes, dtype=np.intp)]] = pattern
        return bits

    monkeypatch.setattr(NetworkSimulation, "corrupt_bit_rows", corrupt)


def _rogue_fit(X, y, groups, fraction, behavior):
    net = SimulatedNetwork(rogue_fraction=fraction, random_state=0,
                           rogue_behavior="complement" if behavior == "omniscient" else behavior)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return FederatedSupportRecovery(network=net).fit(X, y, groups=groups)


@pytest.mark.parametrize("behavior", ["complement", "random", "omniscient"])
def test_small_clients_keep_the_support_at_the_resolved_fraction(monkeypatch, behavior):
    # 10-sample clients (below d + 4): rogue_tolerance="auto" resolves to
    # SMALL_CLIENT_ROGUE_TOLERANCE, and at that fraction no attack changes
    # the support, the strongest (every rogue reports every feature outside
    # the support and none of it) included: a null feature votes at
    # (1 - r) q + r with q <= q0, at most the reference.
    X, y, groups, true = clients([10] * 40_000, 12, [1.0, -1.0, 1.0], seed=6)
    honest = FederatedSupportRecovery().fit(X, y, groups=groups)
    if behavior == "omniscient":
        _omniscient(monkeypatch, ~true)
    beta = SMALL_CLIENT_ROGUE_TOLERANCE
    sel = _rogue_fit(X, y, groups, beta, behavior)
    assert sel.rogue_tolerance_ == pytest.approx(beta)
    assert sel.rogue_.sum() == round(beta * 40_000)
    np.testing.assert_array_equal(sel.client_supports_[~sel.rogue_],
                                  honest.client_supports_[~sel.rogue_])
    np.testing.assert_array_equal(sel.support_, true)
    if behavior == "omniscient":
        r = sel.rogue_.mean()
        expected = (honest.client_supports_[~sel.rogue_].sum(axis=0) + r * 40_000 * ~true)
        np.testing.assert_array_equal(sel.votes_, expected)


@pytest.mark.parametrize("behavior, above", [("omniscient", 0.01), ("complement", 0.04),
                                             ("random", 0.12)])
def test_small_clients_lose_the_guarantee_above_the_resolved_fraction(
        monkeypatch, behavior, above):
    # The worst case for the honest clients: a target independent of the
    # features, so every feature is selected at exactly q0 (100,000 clients
    # of 10 samples).  At the resolved fraction nothing is selected; above
    # it the attack adds features: one point above for rogues that report
    # every feature (a vote of (1 - r) q0 + r), more for the complement
    # (q0 + r (1 - 2 q0)) and random bits (q0 + r (1/2 - q0)).
    rng = np.random.default_rng(10)
    groups = np.repeat(np.arange(100_000), 10)
    X = rng.normal(size=(len(groups), 12))
    y = rng.normal(size=len(groups))
    if behavior == "omniscient":
        _omniscient(monkeypatch, np.ones(12, dtype=bool))
    beta = SMALL_CLIENT_ROGUE_TOLERANCE
    at = _rogue_fit(X, y, groups, beta, behavior)
    assert at.rogue_tolerance_ == pytest.approx(beta)
    assert not at.support_.any()
    r = beta + above
    broken = _rogue_fit(X, y, groups, r, behavior)
    rate = {"omniscient": (1 - r) * Q0 + r, "complement": Q0 + r * (1 - 2 * Q0),
            "random": Q0 + r * (0.5 - Q0)}[behavior]
    np.testing.assert_allclose(broken.vote_fraction_, rate, atol=0.006)
    assert broken.support_.sum() >= 10


def test_clients_with_the_conditional_statistic_tolerate_0_1(monkeypatch):
    # 40-sample clients with d = 12 run the OLS test: the promised 0.1.
    X, y, groups, true = clients([40] * 3000, 12, [1.0, -1.0, 0.8], seed=7)
    _omniscient(monkeypatch, ~true)

    def fit(fraction):
        net = SimulatedNetwork(rogue_fraction=fraction, random_state=0)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return FederatedSupportRecovery(network=net).fit(X, y, groups=groups)

    sel = fit(0.1)
    assert sel.rogue_tolerance_ == DEFAULT_ROGUE_TOLERANCE
    np.testing.assert_array_equal(sel.support_, true)
    assert fit(0.16).support_.all()


def test_a_network_with_more_rogues_than_the_auto_tolerance_warns():
    X, y, groups, _ = clients([10] * 300, 20, [2.0, -2.0, 1.5], seed=8)
    net = SimulatedNetwork(rogue_fraction=0.05 + SMALL_CLIENT_ROGUE_TOLERANCE, random_state=0)
    with pytest.warns(UserWarning, match="rogue_tolerance='auto' resolved to"):
        FederatedSupportRecovery(network=net).fit(X, y, groups=groups)
    # An explicit tolerance is the user's statement: no warning about it.
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        FederatedSupportRecovery(network=net, rogue_tolerance=0.3).fit(X, y, groups=groups)
    assert not [w for w in caught if "resolved to" in str(w.message)]


# ------------------------------------------------ the selector in a search
def _search_data():
    X, y, groups, true = clients([60] * 20, 10, [1.0, -1.0], seed=9)
    return np.column_stack([groups, X]), y, groups, true


def test_group_scorer_names_the_selector_and_what_to_tune():
    Xg, y, groups, _ = _search_data()
    search = GridSearchCV(
        FederatedSupportRecovery(group_column=0), {"auto_z": [1.0, 1.5]},
        cv=GroupKFold(3), scoring=make_group_scorer(r2_score), error_score="raise",
    )
    with pytest.raises(AttributeError, match="FederatedSupportRecovery has none of the "
                       r"response methods \['predict'\].*transformer.*"
                       "FederatedSparseLinearRegression"):
        search.fit(Xg, y, groups=groups)
    # scikit-learn's default error_score turns it into NaN, with the message.
    search.set_params(error_score=np.nan)
    with pytest.warns(UserWarning, match="FederatedSparseLinearRegression"):
        search.fit(Xg, y, groups=groups)


def test_the_refit_regressor_is_the_estimator_to_tune():
    # The same selection parameters, scored meaningfully: finite scores on
    # every split, equal to the scorer applied to each split's fit.
    Xg, y, groups, true = _search_data()
    scorer = make_group_scorer(r2_score)
    search = GridSearchCV(
        FederatedSparseLinearRegression(group_column=0), {"auto_z": [1.0, 1.5]},
        cv=GroupKFold(3), scoring=scorer,
    ).fit(Xg, y, groups=groups)
    scores = search.cv_results_["split0_test_score"]
    assert np.all(np.isfinite(scores))
    train, test = next(GroupKFold(3).split(Xg, y, groups))
    reg = FederatedSparseLinearRegression(group_column=0, auto_z=1.0).fit(Xg[train], y[train])
    assert scores[0] == pytest.approx(r2_score(y[test], reg.predict(Xg[test])), rel=1e-12)
    np.testing.assert_array_equal(search.best_estimator_.support_, true)
