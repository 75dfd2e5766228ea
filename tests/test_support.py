"""One-shot federated support recovery (Barik & Honorio) and the sparse refit."""

import math
import pickle

import numpy as np
import pytest
from scipy import sparse
from sklearn import config_context
from sklearn.base import clone
from sklearn.linear_model import LinearRegression
from sklearn.pipeline import Pipeline

from skfed import SimulatedNetwork
from skfed.support import (
    FederatedSparseLinearRegression,
    FederatedSupportRecovery,
    auto_z,
)

HEADER = 16


# ----------------------------------------------------------------- helpers
def make_clients(n_clients=12, n_samples=150, d=40, s=3, rho=0.2, noise=0.5,
                 equicorrelated=0.0, mean=0.0, scale_range=(0.5, 2.0), seed=0):
    """A tiny version of the paper's setup: shared s-sparse w*, clients with
    their own predictor scale, AR(1) correlation and noise level."""
    rng = np.random.default_rng(seed)
    support = np.sort(rng.choice(d, size=s, replace=False))
    w = np.zeros(d)
    w[support] = rng.choice([-1.0, 1.0], size=s) * rng.uniform(1.0, 2.0, size=s)
    X_parts, y_parts, g_parts = [], [], []
    for i in range(n_clients):
        n_i = int(n_samples * rng.uniform(0.7, 1.3))
        scale = math.sqrt(rng.uniform(*scale_range))
        r = rho * rng.uniform(0.5, 1.0)
        z = rng.normal(size=(n_i, d))
        x = np.empty_like(z)
        x[:, 0] = z[:, 0]
        for j in range(1, d):
            x[:, j] = r * x[:, j - 1] + math.sqrt(1 - r * r) * z[:, j]
        if equicorrelated:
            x = math.sqrt(1 - equicorrelated) * x + math.sqrt(equicorrelated) * rng.normal(size=(n_i, 1))
        x = scale * x + mean
        X_parts.append(x)
        y_parts.append((x - mean) @ w + noise * rng.uniform(0.5, 1.5) * rng.normal(size=n_i) + i)
        g_parts.append(np.full(n_i, i))
    true = np.zeros(d, dtype=bool)
    true[support] = True
    return np.vstack(X_parts), np.concatenate(y_parts), np.concatenate(g_parts), true, w


def algorithm1(X, y, groups, alpha, *, threshold=0.5, center=False, z=None,
               answered=None, rogue=None):
    """Barik & Honorio's Algorithm 1 in plain NumPy (complement rogue clients)."""
    nodes = np.unique(groups)
    d = X.shape[1]
    z = math.sqrt(2 * math.log(max(d, 2))) if z is None else z
    sent = []
    for i, node in enumerate(nodes):
        Xi, yi = X[groups == node], y[groups == node]
        if center:
            Xi, yi = Xi - Xi.mean(axis=0), yi - yi.mean()
        n = len(yi)
        a = Xi.T @ yi / n
        if isinstance(alpha, str):
            lam = z * np.sqrt(np.maximum(((Xi * yi[:, None]) ** 2).mean(axis=0) - a**2, 0) / n)
        else:
            lam = np.broadcast_to(alpha, len(nodes))[i]
        bits = np.abs(a) > lam
        if rogue is not None and rogue[i]:
            bits = ~bits
        sent.append(bits)
    sent = np.array(sent)
    answered = np.ones(len(nodes), dtype=bool) if answered is None else answered
    votes = sent[answered].sum(axis=0)
    return votes / answered.sum() >= threshold, votes, sent


@pytest.fixture(scope="module")
def data():
    return make_clients()


# ---------------------------------------------------- Algorithm 1, bit for bit
@pytest.mark.parametrize("threshold", [0.5, 0.25, 1.0])
@pytest.mark.parametrize("center", [False, True])
@pytest.mark.parametrize("alpha", [0.6, "per-client", "auto", 0.0])
def test_support_equals_numpy_algorithm1(data, alpha, center, threshold):
    X, y, groups, _, _ = data
    if alpha == "per-client":
        alpha = np.linspace(0.2, 1.5, len(np.unique(groups)))
    if not center:
        y = y - groups  # the paper's model has no intercept
    sel = FederatedSupportRecovery(alpha, threshold=threshold, fit_intercept=center)
    sel.fit(X, y, groups=groups)
    support, votes, sent = algorithm1(X, y, groups, alpha, threshold=threshold, center=center)
    np.testing.assert_array_equal(sel.support_, support)
    np.testing.assert_array_equal(sel.votes_, votes)
    np.testing.assert_array_equal(sel.client_supports_, sent)
    np.testing.assert_allclose(sel.vote_fraction_, votes / len(sent))
    assert sel.support_.dtype == bool and sel.votes_.dtype == np.int64


def test_recovers_the_true_support(data):
    X, y, groups, true, _ = data
    for alpha in (0.5, "auto"):
        sel = FederatedSupportRecovery(alpha).fit(X, y, groups=groups)
        np.testing.assert_array_equal(sel.support_, true)


def test_auto_z_default():
    assert auto_z(1000) == pytest.approx(math.sqrt(2 * math.log(1000)))
    assert auto_z(1) == auto_z(2)


# ----------------------------------------------------------------- bytes
@pytest.mark.parametrize("d", [1, 8, 13, 40])
@pytest.mark.parametrize("header", [0, 16, 40])
def test_bytes_are_one_packed_message_per_answering_client(d, header):
    X, y, groups, _, _ = make_clients(n_clients=9, n_samples=30, d=d, s=1, seed=d)
    net = SimulatedNetwork(drop_rate=0.3, straggler_rate=0.2, header_bytes=header,
                           random_state=3)
    sel = FederatedSupportRecovery(0.5, network=net).fit(X, y, groups=groups)
    g = int(sel.answered_.sum())
    assert sel.n_answered_ == g
    expected = g * (math.ceil(d / 8) + header)
    assert sel.n_bytes_sent_ == expected
    assert sel.n_messages_ == g
    np.testing.assert_array_equal(sel.bytes_per_round_, [expected])
    log = sel.communication_
    assert log.has_server and log.bytes_received[-1] == expected
    np.testing.assert_array_equal(log.messages_sent[:-1], sel.answered_.astype(int))
    assert log.bytes_sent[-1] == 0  # one-shot: the server sends nothing


def test_perfect_network_bytes(data):
    X, y, groups, _, _ = data
    sel = FederatedSupportRecovery().fit(X, y, groups=groups)
    assert sel.n_bytes_sent_ == 12 * (math.ceil(40 / 8) + HEADER)


# ----------------------------------------------------------------- faults
def test_dropped_and_straggling_clients_do_not_vote(data):
    X, y, groups, _, _ = data
    net = SimulatedNetwork(drop_rate=0.25, straggler_rate=0.25, random_state=1)
    sel = FederatedSupportRecovery(0.4, network=net).fit(X, y, groups=groups)
    assert 0 < sel.n_answered_ < 12
    assert not sel.client_supports_[~sel.answered_].any()
    support, votes, _ = algorithm1(X, y, groups, 0.4, center=True, answered=sel.answered_)
    np.testing.assert_array_equal(sel.votes_, votes)
    np.testing.assert_array_equal(sel.support_, support)
    # Same simulation seed, same faults: the answering set is reproducible.
    again = clone(sel).fit(X, y, groups=groups)
    np.testing.assert_array_equal(again.answered_, sel.answered_)


def test_rogue_clients_send_the_complement(data):
    X, y, groups, _, _ = data
    net = SimulatedNetwork(rogue_fraction=0.25, rogue_behavior="complement", random_state=1)
    sel = FederatedSupportRecovery(0.5, network=net).fit(X, y, groups=groups)
    assert sel.rogue_.sum() == 3
    _, _, honest = algorithm1(X, y, groups, 0.5, center=True)
    np.testing.assert_array_equal(sel.client_supports_[sel.rogue_], ~honest[sel.rogue_])
    np.testing.assert_array_equal(sel.client_supports_[~sel.rogue_], honest[~sel.rogue_])
    support, votes, _ = algorithm1(X, y, groups, 0.5, center=True, rogue=sel.rogue_)
    np.testing.assert_array_equal(sel.votes_, votes)
    np.testing.assert_array_equal(sel.support_, support)


@pytest.mark.parametrize("behavior", ["complement", "random"])
@pytest.mark.parametrize("fraction", [0.2, 0.45])
def test_rogue_minority_with_enough_samples_is_still_exact(behavior, fraction):
    # Independent predictors and enough samples that honest clients rarely
    # err: any rogue minority is outvoted.  The closer the rogue fraction is
    # to 1/2, the fewer honest errors the vote absorbs, so the more samples
    # it needs (paper, section 5: n_i > log(12 (1 - b) / (1 - 2 b)) / delta^2).
    n_samples = 400 if fraction < 0.4 else 1500
    X, y, groups, true, _ = make_clients(n_clients=20, n_samples=n_samples, d=60, rho=0.0,
                                         scale_range=(1.0, 1.0), seed=4)
    net = SimulatedNetwork(rogue_fraction=fraction, rogue_behavior=behavior, random_state=2)
    sel = FederatedSupportRecovery(0.5, network=net).fit(X, y, groups=groups)
    assert sel.rogue_.sum() == round(fraction * 20)
    np.testing.assert_array_equal(sel.support_, true)
    if behavior == "complement":
        # The rogue clients claim every other feature: the margin is thin.
        assert sel.vote_fraction_[~true].max() == pytest.approx(sel.rogue_.mean())


def test_rogue_majority_of_answering_clients_breaks_the_vote():
    # With drops the rogue clients can become a majority of those that
    # answer; then the complement wins, which the median rule cannot prevent.
    X, y, groups, true, _ = make_clients(n_clients=10, n_samples=300, d=30, seed=5)
    net = SimulatedNetwork(rogue_fraction=0.4, drop_rate=0.5, random_state=0)
    for seed in range(50):
        sel = FederatedSupportRecovery(0.5, network=net.set_params(random_state=seed))
        sel.fit(X, y, groups=groups)
        if sel.rogue_[sel.answered_].mean() > 0.5:
            assert not np.array_equal(sel.support_, true)
            np.testing.assert_array_equal(sel.support_, ~true)
            return
    pytest.fail("no draw had a rogue majority")


def test_drops_keep_the_support_exact():
    X, y, groups, true, _ = make_clients(n_clients=20, n_samples=300, d=50, rho=0.0,
                                         scale_range=(1.0, 1.0), seed=6)
    for seed in range(5):
        net = SimulatedNetwork(drop_rate=0.5, straggler_rate=0.2, random_state=seed)
        sel = FederatedSupportRecovery(0.5, network=net).fit(X, y, groups=groups)
        assert sel.n_answered_ < 20
        np.testing.assert_array_equal(sel.support_, true)


def test_no_client_answers_warns_and_selects_nothing(data):
    X, y, groups, _, _ = data
    sel = FederatedSupportRecovery(network=SimulatedNetwork(straggler_rate=1.0, random_state=0))
    with pytest.warns(UserWarning, match="No client answered"):
        sel.fit(X, y, groups=groups)
    assert not sel.support_.any() and sel.n_answered_ == 0 and sel.n_bytes_sent_ == 0


# ------------------------------------------------------------ alpha="auto"
def test_auto_recovers_with_enough_samples_per_client():
    X, y, groups, true, _ = make_clients(n_clients=15, n_samples=200, d=200, s=4, seed=7)
    sel = FederatedSupportRecovery("auto").fit(X, y, groups=groups)
    np.testing.assert_array_equal(sel.support_, true)
    assert sel.vote_fraction_[true].min() > 0.9 and sel.vote_fraction_[~true].max() < 0.2


def test_auto_misses_the_support_with_too_few_samples():
    # 10 samples a client: the standard error sqrt(2 log d) / sqrt(n) hides
    # the smaller coefficients.
    X, y, groups, true, _ = make_clients(n_clients=15, n_samples=10, d=200, s=4, noise=2.0, seed=8)
    sel = FederatedSupportRecovery("auto").fit(X, y, groups=groups)
    assert not sel.support_[true].all()
    assert not sel.support_[~true].any()  # it errs on the side of missing


def test_auto_fails_with_strongly_correlated_predictors():
    # Equicorrelated predictors: E[y x_j] != 0 off the support, and with
    # many samples every client detects it; the statistic of Algorithm 1
    # (marginal correlation) then selects features outside the support.
    X, y, groups, true, _ = make_clients(n_clients=10, n_samples=2000, d=30, s=3, rho=0.0,
                                         equicorrelated=0.6, seed=9)
    sel = FederatedSupportRecovery("auto").fit(X, y, groups=groups)
    assert sel.support_[~true].any()


def test_fixed_alpha_too_large_or_too_small(data):
    X, y, groups, true, _ = data
    assert not FederatedSupportRecovery(50.0).fit(X, y, groups=groups).support_.any()
    assert FederatedSupportRecovery(0.0).fit(X, y, groups=groups).support_.sum() > true.sum()


def test_auto_is_scale_invariant(data):
    X, y, groups, _, _ = data
    scales = np.linspace(0.01, 100, X.shape[1])
    a = FederatedSupportRecovery().fit(X, y, groups=groups)
    b = FederatedSupportRecovery().fit(X * scales, 7 * y, groups=groups)
    np.testing.assert_array_equal(a.votes_, b.votes_)


# -------------------------------------------------- input types, invariances
def test_csr_equals_dense(data):
    X, y, groups, _, _ = data
    Xs = X.copy()
    Xs[np.abs(Xs) < 0.8] = 0.0
    for center in (False, True):
        for alpha in (0.3, "auto"):
            dense = FederatedSupportRecovery(alpha, fit_intercept=center).fit(Xs, y, groups=groups)
            for fmt in (sparse.csr_matrix, sparse.csc_matrix):
                sp = FederatedSupportRecovery(alpha, fit_intercept=center).fit(
                    fmt(Xs), y, groups=groups
                )
                np.testing.assert_array_equal(sp.client_supports_, dense.client_supports_)
                np.testing.assert_array_equal(sp.support_, dense.support_)
            out = sp.transform(sparse.csr_matrix(Xs))
            assert sparse.issparse(out)
            np.testing.assert_array_equal(out.toarray(), dense.transform(Xs))


def test_float32_kept_and_same_support(data):
    X, y, groups, _, _ = data
    a = FederatedSupportRecovery(0.5).fit(X, y, groups=groups)
    b = FederatedSupportRecovery(0.5).fit(X.astype(np.float32), y, groups=groups)
    np.testing.assert_array_equal(a.support_, b.support_)
    assert b.transform(X.astype(np.float32)).dtype == np.float32


def test_n_jobs_does_not_change_results(data):
    X, y, groups, _, _ = data
    net = SimulatedNetwork(drop_rate=0.2, rogue_fraction=0.2, rogue_behavior="random")
    a = FederatedSupportRecovery(network=net, random_state=0, n_jobs=1).fit(X, y, groups=groups)
    b = FederatedSupportRecovery(network=net, random_state=0, n_jobs=3).fit(X, y, groups=groups)
    np.testing.assert_array_equal(a.client_supports_, b.client_supports_)
    np.testing.assert_array_equal(a.support_, b.support_)


def test_invariant_to_relabelling_and_permuting(data):
    X, y, groups, _, _ = data
    a = FederatedSupportRecovery().fit(X, y, groups=groups)
    rng = np.random.default_rng(0)
    perm = rng.permutation(len(y))
    names = np.array([f"client-{k:02d}" for k in range(12)])[::-1]
    b = FederatedSupportRecovery().fit(X[perm], y[perm], groups=names[groups[perm]])
    np.testing.assert_array_equal(a.votes_, b.votes_)
    np.testing.assert_array_equal(a.support_, b.support_)
    # nodes_ are sorted labels: client rows follow them.
    order = np.argsort(names)
    np.testing.assert_array_equal(b.client_supports_, a.client_supports_[order])


def test_integer_weights_equal_repeated_rows(data):
    X, y, groups, _, _ = data
    rng = np.random.default_rng(1)
    w = rng.integers(1, 4, size=len(y))
    a = FederatedSupportRecovery("auto").fit(X, y, groups=groups, sample_weight=w)
    rep = np.repeat(np.arange(len(y)), w)
    b = FederatedSupportRecovery("auto").fit(X[rep], y[rep], groups=groups[rep])
    np.testing.assert_array_equal(a.client_supports_, b.client_supports_)
    ra = FederatedSparseLinearRegression(0.5).fit(X, y, groups=groups, sample_weight=w)
    rb = FederatedSparseLinearRegression(0.5).fit(X[rep], y[rep], groups=groups[rep])
    np.testing.assert_allclose(ra.coef_, rb.coef_, rtol=1e-10)
    np.testing.assert_allclose(ra.intercept_, rb.intercept_, rtol=1e-10)


def test_pickle_round_trip(data):
    X, y, groups, _, _ = data
    sel = FederatedSupportRecovery().fit(X, y, groups=groups)
    back = pickle.loads(pickle.dumps(sel))
    np.testing.assert_array_equal(back.transform(X), sel.transform(X))
    assert back.communication_.total_bytes == sel.n_bytes_sent_


# ------------------------------------------------- the selector interface
def test_transform_feature_names_and_pandas_output(data):
    pd = pytest.importorskip("pandas")
    X, y, groups, true, _ = data
    cols = [f"f{j}" for j in range(X.shape[1])]
    frame = pd.DataFrame(X, columns=cols)
    sel = FederatedSupportRecovery().fit(frame, y, groups=groups)
    np.testing.assert_array_equal(sel.get_support(), true)
    np.testing.assert_array_equal(sel.get_support(indices=True), np.flatnonzero(true))
    np.testing.assert_array_equal(sel.get_feature_names_out(), np.array(cols)[true])
    out = sel.set_output(transform="pandas").transform(frame)
    assert list(out.columns) == list(np.array(cols)[true])
    back = sel.inverse_transform(X[:, true])
    assert back.shape == X.shape and np.all(back[:, ~true] == 0)


def test_group_column_is_kept_in_the_output(data):
    pd = pytest.importorskip("pandas")
    X, y, groups, true, _ = data
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    frame.insert(2, "client", np.array([f"c{g}" for g in groups]))
    sel = FederatedSupportRecovery(group_column="client").fit(frame, y)
    np.testing.assert_array_equal(sel.support_, true)
    names = sel.get_feature_names_out()
    assert "client" in names and len(names) == true.sum() + 1
    out = sel.set_output(transform="pandas").transform(frame)
    assert list(out.columns) == list(names)
    # Plain arrays, integer node-id column first: it stays first.
    Xg = np.column_stack([groups, X])
    sel = FederatedSupportRecovery(group_column=0).fit(Xg, y)
    out = sel.transform(Xg)
    np.testing.assert_array_equal(out[:, 0], groups)
    np.testing.assert_array_equal(out[:, 1:], X[:, true])
    reg = FederatedSparseLinearRegression(group_column=0).fit(out, y)
    np.testing.assert_array_equal(reg.support_, np.ones(true.sum(), dtype=bool))


def test_transform_accepts_and_ignores_groups(data):
    X, y, groups, _, _ = data
    sel = FederatedSupportRecovery().fit(X, y, groups=groups)
    np.testing.assert_array_equal(sel.transform(X, groups=groups), sel.transform(X))
    with pytest.raises(ValueError, match="groups"):
        sel.transform(X, groups=groups[:5])
    np.testing.assert_array_equal(
        sel.fit_transform(X, y, groups=groups), sel.transform(X)
    )


def test_pipeline_with_metadata_routing(data):
    X, y, groups, true, _ = data
    with config_context(enable_metadata_routing=True):
        pipe = Pipeline([
            ("select", FederatedSupportRecovery()),
            ("reg", FederatedSparseLinearRegression(alpha=0.0)),
        ])
        pipe.fit(X, y, groups=groups)
        np.testing.assert_array_equal(pipe["select"].support_, true)
        pred = pipe.predict(X, groups=groups)
        assert pipe.score(X, y, groups=groups) > 0.95
        # groups reach both steps: transform (ignored) and predict (intercepts).
        direct = pipe["reg"].predict(X[:, true], groups=groups)
        np.testing.assert_allclose(pred, direct)
        # A final step that does not take groups: they go to the selector only.
        pipe2 = Pipeline([("select", FederatedSupportRecovery()), ("lr", LinearRegression())])
        pipe2.fit(X, y, groups=groups)
        assert pipe2.predict(X, groups=groups).shape == y.shape


def test_pipeline_without_routing_uses_step_params(data):
    X, y, groups, true, _ = data
    pipe = Pipeline([("select", FederatedSupportRecovery()), ("lr", LinearRegression())])
    pipe.fit(X, y, select__groups=groups)
    np.testing.assert_array_equal(pipe["select"].support_, true)


# ----------------------------------------------------------- bad input
def test_bad_alpha(data):
    X, y, groups, _, _ = data
    with pytest.raises(ValueError, match="alpha .*12 nodes"):
        FederatedSupportRecovery(alpha=np.ones(5)).fit(X, y, groups=groups)
    bad = np.ones(12)
    bad[4] = -1
    with pytest.raises(ValueError, match="node 4 has alpha=-1"):
        FederatedSupportRecovery(alpha=bad).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="alpha"):
        FederatedSupportRecovery(alpha=-0.5).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match="threshold"):
        FederatedSupportRecovery(threshold=0.0).fit(X, y, groups=groups)


def test_node_without_weight_is_an_error(data):
    X, y, groups, _, _ = data
    w = np.ones(len(y))
    w[groups == 3] = 0
    with pytest.raises(ValueError, match="Node 3 has no sample with a positive"):
        FederatedSupportRecovery().fit(X, y, groups=groups, sample_weight=w)


def test_nan_and_missing_y(data):
    X, y, groups, _, _ = data
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        FederatedSupportRecovery().fit(Xn, y, groups=groups)
    with pytest.raises(ValueError, match="requires y"):
        FederatedSupportRecovery().fit(X, None, groups=groups)


# -------------------------------------------------- the sparse regression
def _pooled_centred_ols(X, y, groups, support):
    Xc, yc = [], []
    for g in np.unique(groups):
        m = groups == g
        Xc.append(X[m][:, support] - X[m][:, support].mean(axis=0))
        yc.append(y[m] - y[m].mean())
    return np.linalg.lstsq(np.vstack(Xc), np.concatenate(yc), rcond=None)[0]


def test_refit_per_node_intercepts_equal_pooled_centred_ols(data):
    X, y, groups, true, _ = data
    reg = FederatedSparseLinearRegression().fit(X, y, groups=groups)
    np.testing.assert_array_equal(reg.support_, true)
    coef = _pooled_centred_ols(X, y, groups, true)
    np.testing.assert_allclose(reg.coef_[true], coef, rtol=1e-10)
    assert np.all(reg.coef_[~true] == 0)
    for k, g in enumerate(reg.nodes_):
        m = groups == g
        np.testing.assert_allclose(
            reg.intercept_[k], y[m].mean() - X[m][:, true].mean(axis=0) @ coef, rtol=1e-10
        )
    # Per-node intercepts model the client offsets (+i in make_clients).
    assert reg.score(X, y, groups=groups) > 0.95


def test_refit_shared_intercept_equals_linear_regression(data):
    X, y, groups, true, _ = data
    reg = FederatedSparseLinearRegression(per_node_intercept=False).fit(X, y, groups=groups)
    lr = LinearRegression().fit(X[:, true], y)
    np.testing.assert_allclose(reg.coef_[true], lr.coef_, rtol=1e-9)
    assert reg.intercept_ == pytest.approx(lr.intercept_, rel=1e-9)
    np.testing.assert_allclose(reg.predict(X, groups=groups), lr.predict(X[:, true]), rtol=1e-9)
    nofit = FederatedSparseLinearRegression(fit_intercept=False).fit(X, y - groups, groups=groups)
    lr0 = LinearRegression(fit_intercept=False).fit(X[:, nofit.support_], y - groups)
    np.testing.assert_allclose(nofit.coef_[nofit.support_], lr0.coef_, rtol=1e-9)
    assert nofit.intercept_ == 0.0


def test_one_node_equals_linear_regression_on_the_support(data):
    X, y, groups, _, _ = data
    m = groups == 0
    reg = FederatedSparseLinearRegression(alpha=0.3).fit(X[m], y[m], groups=groups[m])
    S = reg.support_
    lr = LinearRegression().fit(X[m][:, S], y[m])
    np.testing.assert_allclose(reg.coef_[S], lr.coef_, rtol=1e-9)
    np.testing.assert_allclose(reg.predict(X[m], groups=groups[m]), lr.predict(X[m][:, S]), rtol=1e-9)


@pytest.mark.parametrize("per_node", [True, False])
def test_refit_bytes(data, per_node):
    X, y, groups, true, _ = data
    net = SimulatedNetwork(drop_rate=0.3, random_state=4)
    reg = FederatedSparseLinearRegression(per_node_intercept=per_node, network=net)
    reg.fit(X, y, groups=groups)
    d, n_nodes, s = X.shape[1], 12, int(reg.support_.sum())
    m = s if per_node else s + 1
    bits = math.ceil(d / 8)
    g1, g2 = int(reg.answered_.sum()), int(reg.refit_answered_.sum())
    rounds = [
        g1 * (bits + HEADER),
        n_nodes * (bits + HEADER) + g2 * (8 * (m * (m + 1) // 2 + m) + HEADER),
        n_nodes * (8 * m + HEADER),
    ]
    np.testing.assert_array_equal(reg.bytes_per_round_, rounds)
    assert reg.n_bytes_sent_ == sum(rounds)
    assert reg.n_messages_ == g1 + n_nodes + g2 + n_nodes
    # The refit only uses the clients whose statistics arrived.
    Xa = np.isin(groups, reg.nodes_[reg.refit_answered_])
    if per_node:
        coef = _pooled_centred_ols(X[Xa], y[Xa], groups[Xa], reg.support_)
        np.testing.assert_allclose(reg.coef_[reg.support_], coef, rtol=1e-10)


def test_predict_unseen_nodes(data):
    X, y, groups, _, _ = data
    reg = FederatedSparseLinearRegression().fit(X, y, groups=groups)
    new = np.full(5, 99)
    np.testing.assert_allclose(
        reg.predict(X[:5], groups=new), X[:5] @ reg.coef_ + reg.intercept_.mean()
    )
    with pytest.raises(ValueError, match="not seen in fit"):
        reg.set_params(handle_unknown="error").predict(X[:5], groups=new)
    with pytest.raises(ValueError, match="node id"):
        reg.predict(X[:5])


def test_rogue_clients_corrupt_the_refit_but_not_the_support():
    X, y, groups, true, _ = make_clients(n_clients=20, n_samples=300, d=30, rho=0.0,
                                         scale_range=(1.0, 1.0), seed=10)
    net = SimulatedNetwork(rogue_fraction=0.2, rogue_behavior="random", random_state=0)
    clean = FederatedSparseLinearRegression(0.5).fit(X, y, groups=groups)
    dirty = FederatedSparseLinearRegression(0.5, network=net).fit(X, y, groups=groups)
    np.testing.assert_array_equal(dirty.support_, true)
    assert not np.allclose(dirty.coef_, clean.coef_, rtol=0.05)


def test_regression_csr_equals_dense(data):
    X, y, groups, _, _ = data
    a = FederatedSparseLinearRegression().fit(X, y, groups=groups)
    b = FederatedSparseLinearRegression().fit(sparse.csr_matrix(X), y, groups=groups)
    np.testing.assert_allclose(a.coef_, b.coef_, rtol=1e-10)
    np.testing.assert_allclose(
        a.predict(X, groups=groups), b.predict(sparse.csr_matrix(X), groups=groups), rtol=1e-10
    )


# -------------------------------------------------------- skfed compare
@pytest.mark.parametrize("dataset", ["sparse-regression", "school-regression"])
def test_registered_with_compare(dataset):
    from skfed import compare as cmp

    assert "fed-sparse-linear" in cmp.applicable_methods("regression", dataset)
    result = cmp.compare(dataset, ["fed-sparse-linear"], quick=True, verbose=0)
    (row,) = result.table
    assert row["method"] == "fed-sparse-linear"
    assert row["bytes_sent"] > 0 and np.isfinite(row["pooled_score"])


def test_grid_search_with_routing_and_within_group_folds(data):
    from sklearn.model_selection import GridSearchCV

    from skfed.model_selection import WithinGroupKFold

    X, y, groups, true, _ = data
    with config_context(enable_metadata_routing=True):
        search = GridSearchCV(
            FederatedSparseLinearRegression(),
            {"alpha": ["auto", 0.5, 50.0]},
            cv=WithinGroupKFold(n_splits=3, shuffle=True, random_state=0),
        )
        search.fit(X, y, groups=groups)
    # A huge lambda selects nothing and predicts the node means only.
    assert search.best_params_["alpha"] != 50.0
    np.testing.assert_array_equal(search.best_estimator_.support_, true)


def test_negative_weights_are_an_error(data):
    X, y, groups, _, _ = data
    w = np.ones(len(y))
    w[3] = -1
    with pytest.raises(ValueError, match="non-negative"):
        FederatedSupportRecovery().fit(X, y, groups=groups, sample_weight=w)


# ------------------------------------------------------------------ many nodes
def _many_nodes(n_nodes, n_samples=30, d=20, seed=0):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_nodes), n_samples)
    X = rng.normal(size=(n_nodes * n_samples, d))
    y = 1.5 * X[:, 3] - 2 * X[:, 7] + 0.5 * rng.normal(size=len(groups)) + groups % 7
    return X, y, groups


@pytest.mark.scale
def test_twenty_thousand_clients_vote_like_the_vectorised_reference():
    n_nodes, n, d, lam = 20_000, 30, 20, 0.6
    X, y, groups = _many_nodes(n_nodes, n, d)
    # Paper's client step (no centring), every client at once with NumPy.
    a = (X * y[:, None]).reshape(n_nodes, n, d).mean(axis=1)
    bits = np.abs(a) > lam
    sel = FederatedSupportRecovery(lam, fit_intercept=False).fit(X, y, groups=groups)
    np.testing.assert_array_equal(sel.client_supports_, bits)
    np.testing.assert_array_equal(sel.votes_, bits.sum(axis=0))
    np.testing.assert_array_equal(sel.support_, bits.mean(axis=0) >= 0.5)
    assert sel.n_bytes_sent_ == n_nodes * (math.ceil(d / 8) + HEADER)
    assert sel.communication_.pair_bytes_sparse.nnz == n_nodes


@pytest.mark.scale
def test_twenty_thousand_clients_refit_equals_pooled_centred_ols():
    n_nodes, n = 20_000, 30
    X, y, groups = _many_nodes(n_nodes, n, seed=1)
    # Shuffled rows: the layout must group them node by node.
    order = np.random.default_rng(2).permutation(len(y))
    reg = FederatedSparseLinearRegression().fit(X[order], y[order], groups=groups[order])
    true = np.zeros(X.shape[1], dtype=bool)
    true[[3, 7]] = True
    np.testing.assert_array_equal(reg.support_, true)
    Xs = X[:, true].reshape(n_nodes, n, 2)
    Xc = (Xs - Xs.mean(axis=1, keepdims=True)).reshape(-1, 2)
    yc = (y.reshape(n_nodes, n) - y.reshape(n_nodes, n).mean(axis=1, keepdims=True)).ravel()
    coef = np.linalg.lstsq(Xc, yc, rcond=None)[0]
    np.testing.assert_allclose(reg.coef_[true], coef, rtol=1e-10)
    intercepts = y.reshape(n_nodes, n).mean(axis=1) - Xs.mean(axis=1) @ coef
    np.testing.assert_allclose(reg.intercept_, intercepts, rtol=1e-9, atol=1e-9)
    # Round 2: support broadcast + 3 + 2 float64 statistics; round 3: 2 coefficients.
    expected = n_nodes * ((3 + HEADER) * 2 + (8 * 5 + HEADER) + (8 * 2 + HEADER))
    assert reg.n_bytes_sent_ == expected


def test_random_rogue_refit_equals_the_per_node_protocol():
    # The refit's statistics, computed per node and corrupted node by node
    # with the simulation's own per-node call, sum to what the fit used.
    X, y, groups, true, _ = make_clients(n_clients=15, n_samples=80, d=12, rho=0.0,
                                         scale_range=(1.0, 1.0), seed=3)
    net = SimulatedNetwork(rogue_fraction=0.3, rogue_behavior="random", random_state=0)
    reg = FederatedSparseLinearRegression(0.5, fit_intercept=True, per_node_intercept=False,
                                          network=net, random_state=0).fit(X, y, groups=groups)
    support = np.flatnonzero(reg.support_)
    sim = net.start(15, server=True, random_state=0)
    sim.draw_round()  # round 1's faults
    assert reg.rogue_.any()
    m = len(support) + 1
    iu = np.triu_indices(m)
    gram, rhs = np.zeros((m, m)), np.zeros(m)
    # Replay round 1's random bit draws, then round 2.
    for node in np.flatnonzero(reg.answered_):
        sim.corrupt_bits(np.zeros(X.shape[1], dtype=bool), node)
    sim.draw_round()
    for node in range(15):
        rows = groups == node
        Z = np.column_stack([np.ones(rows.sum()), X[rows][:, support]])
        message = np.concatenate([(Z.T @ Z)[iu], Z.T @ y[rows]])
        message = sim.corrupt_values(message, node)
        G = np.zeros((m, m))
        G[iu] = message[: len(iu[0])]
        gram += G + np.triu(G, 1).T
        rhs += message[len(iu[0]):]
    solution = np.linalg.lstsq(gram, rhs, rcond=None)[0]
    np.testing.assert_allclose(reg.coef_[support], solution[1:], rtol=1e-9)
    np.testing.assert_allclose(reg.intercept_, solution[0], rtol=1e-9)


# ------------------------------------------------------- clients that join later
def _join_data():
    rng = np.random.RandomState(5)
    groups = np.repeat(np.arange(9), 60)
    X = rng.normal(size=(540, 30))
    y = X[:, 2] - 1.5 * X[:, 11] + 0.8 * rng.normal(size=540)
    return X, y, groups


def test_join_votes_add_up_to_the_fit_on_all_clients():
    X, y, groups = _join_data()
    old = groups < 6
    sel = FederatedSupportRecovery(threshold=0.4).fit(X[old], y[old], groups=groups[old])
    fitted_supports = sel.client_supports_.copy()
    sel.add_nodes(X[~old], y[~old], groups=groups[~old])
    full = FederatedSupportRecovery(threshold=0.4).fit(X, y, groups=groups)
    # NumPy: each new client's support is |alpha_ij| > lambda_ij on its own rows.
    for node in range(6, 9):
        rows = groups == node
        Xc = X[rows] - X[rows].mean(0)
        yc = y[rows] - y[rows].mean()
        prod = Xc * yc[:, None]
        lam = np.sqrt(2 * np.log(30)) * np.sqrt(prod.var(0) / rows.sum())
        np.testing.assert_array_equal(sel.client_supports_[node], np.abs(prod.mean(0)) > lam)
    np.testing.assert_array_equal(sel.client_supports_[:6], fitted_supports)
    np.testing.assert_array_equal(sel.votes_, full.votes_)
    np.testing.assert_array_equal(sel.support_, full.support_)
    assert sel.n_answered_ == 9 and sel.nodes_.tolist() == list(range(9))
    # One message of ceil(30 / 8) bytes + header per new client.
    assert sel.join_communication_.total_bytes == 3 * (4 + 16)
    assert sel.n_bytes_sent_ == 6 * 20 + 3 * 20


def test_join_under_privacy_accounts_the_new_clients_spend():
    pytest.importorskip("dp_accounting")
    from skfed.privacy import DifferentialPrivacy

    X, y, groups = _join_data()
    old = groups < 6
    sel = FederatedSupportRecovery(privacy=DifferentialPrivacy(epsilon=30.0), random_state=0)
    sel.fit(X[old], y[old], groups=groups[old])
    spent = sel.privacy_spent_.copy()
    sel.add_nodes(X[~old], y[~old], groups=groups[~old])
    assert sel.privacy_spent_.shape == (9,)
    np.testing.assert_array_equal(sel.privacy_spent_[:6], spent)
    np.testing.assert_allclose(sel.privacy_spent_[6:], spent[0])
    assert sel.privacy_["uses"].shape == (9,)


def test_regression_join_receives_the_model_and_sets_its_intercept():
    X, y, groups = _join_data()
    y = y + groups
    old = groups < 6
    reg = FederatedSparseLinearRegression().fit(X[old], y[old], groups=groups[old])
    coef, intercepts = reg.coef_.copy(), reg.intercept_.copy()
    reg.add_nodes(X[~old], y[~old], groups=groups[~old])
    np.testing.assert_array_equal(reg.coef_, coef)
    np.testing.assert_array_equal(reg.intercept_[:6], intercepts)
    for node in range(6, 9):
        rows = groups == node
        assert np.isclose(reg.intercept_[node], y[rows].mean() - X[rows].mean(0) @ coef)
    s = int(reg.support_.sum())
    assert reg.join_communication_.total_bytes == 3 * ((4 + 16) + (8 * s + 16))
    with pytest.raises(ValueError, match="already in nodes_"):
        reg.add_nodes(X[:5], y[:5], groups=groups[:5])


def test_join_under_dropped_and_rogue_clients():
    X, y, groups = _join_data()
    old = groups < 6
    net = SimulatedNetwork(drop_rate=0.4, rogue_fraction=0.3, random_state=3)
    sel = FederatedSupportRecovery(network=net).fit(X[old], y[old], groups=groups[old])
    answered, votes = sel.answered_.copy(), sel.votes_.copy()
    sel.add_nodes(X[~old], y[~old], groups=groups[~old])
    new = sel.answered_[6:]
    np.testing.assert_array_equal(sel.answered_[:6], answered)
    assert sel.n_answered_ == answered.sum() + new.sum()
    # Only the new clients that answered sent their bits, as received.
    assert sel.join_communication_.total_bytes == new.sum() * (4 + 16)
    received = sel.client_supports_[6:][new].sum(axis=0)
    np.testing.assert_array_equal(sel.votes_, votes + received)
    assert sel.rogue_.shape == (9,)
