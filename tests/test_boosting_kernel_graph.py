"""Dada's kernel graph models (``graph_signal="kernel"``) against NumPy references.

The graph models (kernel ridge on public random Fourier features, fitted by
every node alone), the bytes of the graph steps that send each model once
per (sender, receiver) pair, and the graph step on those models against the
dense NumPy computation of eq. 5 with peer scores.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

import skfed.boosting._kernel_graph as kernel_module
from skfed._core._comm import CommCounter
from skfed._core._graph_fast import SentModels, graph_steps
from skfed.boosting import DecentralizedBoostingClassifier
from skfed.boosting._kernel_graph import (
    KERNEL_BANDWIDTH,
    KERNEL_FEATURES,
    KERNEL_NORM,
    KERNEL_RIDGE,
    kernel_directions,
)
from skfed.graph import _GraphRunner
from skfed.network import SimulatedNetwork

HEADER = 16


def _core_helpers():
    """The NumPy references of ``tests/core/test_graph_fast.py`` (eq. 5, scores)."""
    path = Path(__file__).resolve().parent / "core" / "test_graph_fast.py"
    spec = importlib.util.spec_from_file_location("_graph_fast_refs", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _clusters(seed=0, n_nodes=12, n_classes=2):
    """Nodes in two clusters whose labels depend on opposite signs of feature 0;
    feature 1 is a weak shared signal, features 2-5 noise; weights with zeros."""
    rng = np.random.RandomState(seed)
    sizes = rng.randint(4, 9, size=n_nodes)
    g = np.repeat(np.arange(n_nodes), sizes)
    X = rng.normal(size=(g.size, 6)) * np.array([1.0, 1.0, 3.0, 0.1, 1.0, 1.0])
    flip = np.where(g % 2 == 0, 1.0, -1.0)
    score = flip * X[:, 0] + 0.3 * X[:, 1]
    if n_classes == 2:
        y = (score > 0).astype(int)
    else:
        y = np.digitize(score, [-0.5, 0.5])
    sw = rng.uniform(0.5, 2.0, size=g.size)
    sw[rng.uniform(size=g.size) < 0.15] = 0.0
    first = np.r_[0, np.cumsum(sizes)[:-1]]
    sw[first] = 1.0
    return X, y, g, sw


class _Capture:
    """Record the directions the fit draws and the models every graph run gets."""

    def __init__(self, monkeypatch):
        self.directions, self.runs = [], []
        original_run = _GraphRunner.run

        def directions(n_inputs, seeds, **kw):
            out = kernel_directions(n_inputs, seeds, **kw)
            self.directions.append(out)
            return out

        def run(runner, models, losses, n_steps, **kw):
            self.runs.append((np.array(models), kw.get("score_data"), kw.get("sent_models")))
            return original_run(runner, models, losses, n_steps, **kw)

        monkeypatch.setattr(kernel_module, "kernel_directions", directions)
        monkeypatch.setattr(_GraphRunner, "run", run)


def _numpy_kernel_models(X, y, g, sw, features, W, b, classes):
    """Weighted pooled standardization, the RFF map and each node's ridge fit in
    its primal (``D`` unknowns), rescaled to the norm ``KERNEL_NORM``: an
    independent route to the same models."""
    keep = sw > 0
    Z = X[:, features]
    mean = np.average(Z[keep], axis=0, weights=sw[keep])
    spread = np.sqrt(np.average((Z[keep] - mean) ** 2, axis=0, weights=sw[keep]))
    phi = np.sqrt(2.0 / W.shape[1]) * np.cos(((Z - mean) / spread) @ W + b)
    targets = ([np.where(y == classes[1], 1.0, -1.0)] if len(classes) == 2
               else [np.where(y == c, 1.0, -1.0) for c in classes])
    models = []
    for node in np.unique(g):
        rows = g == node
        A = phi[rows]
        S = sw[rows]
        gram = A.T @ (S[:, None] * A) + KERNEL_RIDGE * np.eye(W.shape[1])
        models.append([np.linalg.solve(gram, A.T @ (S * t[rows])) for t in targets])
    # Each problem's model rescaled to the norm KERNEL_NORM.
    models = np.array(models)                                  # (K, P, D)
    norms = np.linalg.norm(models, axis=2)
    models = models / norms[:, :, None] * KERNEL_NORM
    return phi, models.reshape(len(models), -1)


@pytest.mark.parametrize("n_classes", [2, 3])
def test_graph_models_are_each_nodes_kernel_ridge_on_public_fourier_features(
        monkeypatch, n_classes):
    X, y, g, sw = _clusters(n_classes=n_classes)
    capture = _Capture(monkeypatch)
    est = DecentralizedBoostingClassifier(20, random_state=3, max_iter=200).fit(
        X, y, groups=g, sample_weight=sw)
    assert est.graph_signal_ == "kernel"
    # The inputs are the vote's features (those that got stumps).
    np.testing.assert_array_equal(est.kernel_features_,
                                  np.flatnonzero(est.selected_features_))
    assert 0 in est.kernel_features_.tolist()
    (W, b), = capture.directions
    assert W.shape == (est.kernel_features_.size, KERNEL_FEATURES)
    assert b.shape == (KERNEL_FEATURES,) and b.min() >= 0 and b.max() < 2 * np.pi
    # Public randomness from random_state: N(0, 1 / bandwidth^2) directions.
    assert np.std(W) == pytest.approx(1.0 / KERNEL_BANDWIDTH, rel=0.1)
    phi, models = _numpy_kernel_models(X, y, g, sw, est.kernel_features_, W, b,
                                       est.classes_)
    # The random features approximate the Gaussian kernel of the standardized inputs.
    keep = sw > 0
    Z = X[:, est.kernel_features_]
    mean = np.average(Z[keep], axis=0, weights=sw[keep])
    spread = np.sqrt(np.average((Z[keep] - mean) ** 2, axis=0, weights=sw[keep]))
    Zs = (Z - mean) / spread
    exact = np.exp(-((Zs[:, None] - Zs[None]) ** 2).sum(-1) / (2 * KERNEL_BANDWIDTH ** 2))
    assert np.abs(phi @ phi.T - exact).max() < 0.35
    # Every graph run compares these models and scores them on these features
    # (the samples are node-ordered; g already is).
    assert len(capture.runs) == est.n_graph_updates_ + 1
    for run_models, score_data, sent in capture.runs:
        np.testing.assert_allclose(run_models, models, rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(score_data[0], phi, rtol=1e-10, atol=1e-12)
        assert score_data[6] is None and score_data[7] is None
        assert isinstance(sent, SentModels)
    # The same random_state draws the same directions; another one others.
    DecentralizedBoostingClassifier(20, random_state=3, max_iter=200).fit(
        X, y, groups=g, sample_weight=sw)
    DecentralizedBoostingClassifier(20, random_state=4, max_iter=200).fit(
        X, y, groups=g, sample_weight=sw)
    np.testing.assert_array_equal(capture.directions[1][0], W)
    assert not np.allclose(capture.directions[2][0], W)


def test_boosting_signal_and_fixed_graph_use_no_kernel(monkeypatch):
    X, y, g, sw = _clusters()
    capture = _Capture(monkeypatch)
    est = DecentralizedBoostingClassifier(20, random_state=0, max_iter=200,
                                          graph_signal="boosting").fit(X, y, groups=g)
    assert est.graph_signal_ == "boosting" and not capture.directions
    for run_models, score_data, sent in capture.runs:
        assert sent is None and run_models.shape[1] == 21  # 20 stumps + intercept
    fixed = DecentralizedBoostingClassifier(20, random_state=0, max_iter=200,
                                            graph=np.ones((12, 12)) - np.eye(12))
    assert fixed.fit(X, y, groups=g).graph_signal_ is None
    with pytest.raises(ValueError, match="graph_signal"):
        DecentralizedBoostingClassifier(graph_signal="stumps").fit(X, y, groups=g)


def test_kernel_signal_finds_the_clusters_the_boosting_models_mix():
    """Four clusters of 3-8 samples per node, each the moons turned by a
    multiple of 90 degrees, three noise features: the kernel models put over
    90 % of the learned weight inside the clusters, the boosting models
    (the former signal) clearly less."""
    from sklearn.datasets import make_moons

    K = 40
    for seed in (0, 1):
        rng = np.random.RandomState(seed)
        g = np.repeat(np.arange(K), rng.randint(3, 9, size=K))
        cluster = np.arange(K) % 4
        moons, y = make_moons(g.size, noise=0.1, random_state=seed)
        moons = moons - [0.5, 0.25]
        angle = (cluster * np.pi / 2)[g]
        X = np.column_stack([np.cos(angle) * moons[:, 0] - np.sin(angle) * moons[:, 1],
                             np.sin(angle) * moons[:, 0] + np.cos(angle) * moons[:, 1],
                             rng.normal(size=(g.size, 3))])
        same = cluster[:, None] == cluster[None, :]
        shares = {}
        for signal in ("kernel", "boosting"):
            est = DecentralizedBoostingClassifier(40, random_state=0, graph_signal=signal)
            G = est.fit(X, y, groups=g).collaboration_graph_.toarray()
            shares[signal] = G[same].sum() / G.sum()
        assert shares["kernel"] > 0.9
        assert shares["kernel"] > shares["boosting"] + 0.15


@pytest.mark.filterwarnings("ignore::skfed._secure_noise.InsecureNoiseWarning")
def test_finite_privacy_keeps_the_boosting_models():
    from skfed.boosting import make_stump_predictors
    from skfed.privacy import DifferentialPrivacy

    X, y, g, _ = _clusters()
    preds = make_stump_predictors(np.full(6, -4.0), np.full(6, 4.0), 12)
    private = DecentralizedBoostingClassifier(
        base_predictors=preds, random_state=0, max_iter=100,
        privacy=DifferentialPrivacy(epsilon=3.0, insecure_noise_seed=0)).fit(X, y, groups=g)
    assert private.graph_signal_ == "boosting"


def _kernel_problem(seed=0, K=9, D=7, P=1):
    rng = np.random.RandomState(seed)
    sizes = rng.randint(2, 6, size=K)
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    n = offsets[-1]
    H = np.sqrt(2.0 / D) * np.cos(rng.normal(size=(n, D)) * 3)  # dense RFF-like features
    Y = np.where(rng.uniform(size=(P, n)) > 0.5, 1.0, -1.0)
    sw = rng.uniform(0.5, 2.0, size=n)
    models = rng.normal(size=(K, P * D))  # dense, as the kernel models
    models[: K // 2] += 0.8
    return models, H, Y, sw, offsets


def test_each_model_is_sent_once_per_pair_and_the_graph_is_unchanged():
    """Bytes against the closed form: every sampled peer costs a request, an
    answer (loss, degree, score) and a weight; a model's ``8 D`` bytes count
    only the first time its (sender, receiver) pair talks, across runs."""
    refs = _core_helpers()
    models, H, Y, sw, offsets = _kernel_problem()
    K, D = models.shape
    losses = np.random.RandomState(2).uniform(0, 0.5, size=K)
    kw = dict(mu=0.8, mu_graph=1.5, lambda_graph=0.5, delta=1e-2)
    kappa, n_steps = 3, 40
    score = (H, Y, sw, offsets, np.full(K, 3.0), None, None, None)

    def runner():
        sim = SimulatedNetwork().start(K, random_state=0)
        return sim, _GraphRunner(sim, kappa=kappa, clock=np.array([5], np.uint32),
                                 node_state=np.arange(1, K + 1, dtype=np.uint32), **kw)

    sim_a, cached = runner()
    sim_b, plain = runner()
    sent = SentModels(K)
    seen = set()
    spent_a = spent_b = 0
    for _ in range(3):  # three graph phases, the cache kept between them
        n, spent_a, _, (nodes, peers, _) = cached.run(
            models, losses, n_steps, model_dtype=np.float64, spent=spent_a, trace=True,
            score_data=score, sent_models=sent)
        _, spent_b, _, _ = plain.run(models, losses, n_steps, model_dtype=np.float64,
                                     spent=spent_b, score_data=score)
        # The cache changes bytes only: the same graph, bit for bit.
        np.testing.assert_array_equal(cached.graph_csr().toarray(), plain.graph_csr().toarray())
        assert n == n_steps
        for k, p in zip(nodes, peers):
            for l in p[p >= 0].tolist():
                seen.update({(int(k), l), (l, int(k))})
    n_exchanges = 3 * n_steps * kappa
    per_exchange = 3 * HEADER + 16 + 8 + 8  # headers, loss + degree, score, weight
    assert spent_b == n_exchanges * (per_exchange + 2 * 8 * D)
    assert sent.n_pairs == len(seen) < n_exchanges * 2
    assert spent_a == n_exchanges * per_exchange + len(seen) * 8 * D
    assert all(sent.contains(k, l) for k, l in seen)
    assert not sent.contains(0, 0)
    # The counter holds the same bytes, pair by pair.
    counts = sim_a.counter.snapshot()["pair_bytes"]
    assert counts.sum() == spent_a
    # The graph learned is the dense NumPy replay of eq. 5 with the kernel
    # models' scores (checked on a fresh one-phase run, its scores read
    # densely as Dada's kernel fits read them).
    sim, fresh = runner()
    _, spent, _, (nodes, peers, _) = fresh.run(
        models, losses, n_steps, model_dtype=np.float64, trace=True, score_data=score,
        sent_models=SentModels(K), dense_scores=True)
    E = refs.ref_scores(models, H, Y, sw, offsets, np.full(K, 3.0))
    S = E + E.T
    ref = np.zeros((K, K))
    for k, p in zip(nodes, peers):  # no max_neighbors cap: eq. 5's steps alone
        ref, _, _ = refs.ref_graph_step(ref, models, losses, k, p, mu=0.8, mu_graph=1.5,
                                        lam=0.5, delta=1e-2, S=S)
    np.testing.assert_allclose(fresh.graph_csr().toarray(), ref, rtol=1e-9, atol=1e-12)


def test_sent_models_at_the_kernel_level_count_each_pair_once():
    """graph_steps alone: the same steps with and without the cache differ by
    ``8 D`` bytes per repeated (sender, receiver) pair."""
    models, H, Y, sw, offsets = _kernel_problem(seed=3, K=6)
    K, D = models.shape
    losses = np.zeros(K)

    def run(sent):
        counter = CommCounter(K, header_bytes=HEADER)
        R = K
        wv, nbr, n_slots = np.zeros(K * R), np.full(K * R, -1, np.intp), np.zeros(K, np.intp)
        out = graph_steps(
            models, losses, wv, nbr, n_slots, np.zeros(K), np.zeros(K + 1, np.intp),
            np.zeros(0, np.intp), True, 1.0, 1.0, 1.0, 1e-2, 5, 30,
            np.array([9], np.uint32), np.arange(1, K + 1, dtype=np.uint32),
            np.zeros(0, np.uint8), np.full(K, 8 * D, np.int64), counter, True, -1, 0, 0.0,
            np.zeros(0), np.zeros(0, np.intp), np.zeros(0, np.intp), np.zeros(0),
            sent_models=sent)
        return out[1], counter.snapshot()["pair_bytes"]

    sent = SentModels(K)
    cached, cached_pairs = run(sent)
    plain, plain_pairs = run(None)
    exchanges = 30 * 5  # kappa = K - 1 = 5 peers per step
    # All 30 ordered pairs talk; each sends its model once instead of
    # (messages of the pair) times.
    assert sent.n_pairs == K * (K - 1)
    assert plain - cached == (2 * exchanges - K * (K - 1)) * 8 * D
    assert cached_pairs.sum() == cached and plain_pairs.sum() == plain


def test_kernel_ridge_models_solve_the_smaller_system_for_any_node_size():
    # Nodes smaller and larger than D (dual and primal), weights with zeros,
    # two problems: every model equals the NumPy primal solve.
    rng = np.random.RandomState(0)
    D, sizes = 12, np.array([3, 12, 13, 40, 40, 5])
    offsets = np.r_[0, np.cumsum(sizes)].astype(np.intp)
    phi = rng.normal(size=(offsets[-1], D))
    Y = np.where(rng.uniform(size=(2, offsets[-1])) < 0.5, -1.0, 1.0)
    sw = rng.uniform(0.2, 3.0, size=offsets[-1])
    sw[rng.uniform(size=sw.size) < 0.2] = 0.0
    models = kernel_module.kernel_ridge_models(phi, Y, sw, offsets, ridge=0.7)
    assert models.shape == (len(sizes), 2, D)
    for k in range(len(sizes)):
        rows = slice(offsets[k], offsets[k + 1])
        A, S = phi[rows], sw[rows]
        gram = A.T @ (S[:, None] * A) + 0.7 * np.eye(D)
        for p in range(2):
            ref = np.linalg.solve(gram, A.T @ (S * Y[p, rows]))
            np.testing.assert_allclose(models[k, p], ref, rtol=1e-9, atol=1e-12)
