"""The join defects review17 found (issue 32), each against a reference.

1. A newcomer heavier than every fitted node: its confidence is its mass
   over the fit's largest node mass, at most ``NEWCOMER_CONFIDENCE_CAP``
   (1 by default, a refit's value for its own block; ``inf``, the paper's
   proportional reading, measured in
   ``benchmarks/joinfix18_newcomer_confidence.py``).  Both checked on the
   newcomer's problem, minimized by SciPy.
2. The model a node unseen in fit predicts with is the fit's average,
   before and after joins (LocalEstimator, Dada and Perso-lin averaged the
   newcomers in, as MOCHA and the online family do not).
3. A join ignores ``network.topology`` by the documented rule: a newcomer
   has no place in the fit's topology and may ask any fitted node.
4. Newcomers follow the fit's fault model: each is rogue with probability
   ``rogue_fraction`` (a public draw); later joins treat the rogue ones as
   rogue.
"""

import copy
import warnings

import numpy as np
import pytest
from scipy.optimize import minimize

from skfed._graph_join import _models, _random_seed, _targets, graph_join_nodes
from skfed.baselines import LocalEstimator
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.network import SimulatedNetwork
from skfed.privacy import DifferentialPrivacy


def _nodes(sizes, seed=0, n_features=3):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.normal(size=(len(groups), n_features))
    flip = np.where(np.arange(len(sizes)) % 2 == 0, 1.0, -1.0)[groups]
    y = (flip * X[:, 0] + 0.5 * X[:, 1] + 0.3 * rng.normal(size=len(groups)) > 0).astype(int)
    return X, y, groups


def _objective(theta, Z, y, c_eff, alpha, n_pen, mu, v, fixed):
    """c' F(theta) + (mu / 2) sum_r v_r ||theta - theta_r||^2 and its gradient
    (F: mean logistic loss + (alpha / 2) ||theta without intercept||^2)."""
    z = y * (Z @ theta)
    F = np.mean(np.logaddexp(0.0, -z)) + 0.5 * alpha * theta[:n_pen] @ theta[:n_pen]
    grad_F = Z.T @ (-y / (1.0 + np.exp(z))) / len(y)
    grad_F[:n_pen] += alpha * theta[:n_pen]
    diff = theta[None, :] - fixed
    return (c_eff * F + 0.5 * mu * v @ np.sum(diff ** 2, axis=1),
            c_eff * grad_F + mu * (v @ diff))


# ----------------------------------------------------------- 1. confidence
@pytest.fixture(params=[1.0, np.inf], ids=["cap1", "uncapped"])
def cap(request, monkeypatch):
    """The default cap (1) and the paper's proportional confidence (inf)."""
    import skfed._graph_join_fitted as fitted

    monkeypatch.setattr(fitted, "NEWCOMER_CONFIDENCE_CAP", request.param)
    return request.param


@pytest.mark.parametrize("k", [60, 300])
def test_heavy_perso_lin_newcomer_solves_its_problem_with_its_confidence(k, cap):
    sizes = [12, 20, 14, 20, 10, 16, 18, 12, k]           # the fit's heaviest: 20
    X, y, groups = _nodes(sizes)
    new = groups == len(sizes) - 1
    est = PersonalizedLinearClassifier(random_state=0, join_neighbours="graph").fit(
        X[~new], y[~new], groups=groups[~new])
    assert est._join_info["max_mass"] == 20.0
    joined = copy.deepcopy(est).add_nodes(X[new], y[new], groups=groups[new])
    K = len(sizes) - 1
    c = min(k / 20.0, cap)
    assert joined.confidence_[K] == c
    np.testing.assert_array_equal(joined.confidence_[:K], est.confidence_)
    if cap == np.inf:  # the newcomer's weight relative to a fitted node's is its mass ratio
        # (the paper's proportional confidence; a refit now caps the largest
        # mass at 4 x the median mass, skfed._node_mass, so a 300-row node
        # among 10-20-row ones would get 1 there)
        np.testing.assert_allclose(joined.confidence_[K] / joined.confidence_[:K],
                                   k / np.asarray(sizes[:K], dtype=float), rtol=1e-14)
        if k <= 4 * np.median(sizes):  # the cap does not bind: a refit's ratio
            refit = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=groups)
            np.testing.assert_allclose(joined.confidence_[K] / joined.confidence_[:K],
                                       refit.confidence_[K] / refit.confidence_[:K],
                                       rtol=1e-14)
    # its model minimizes c d F + (mu / 2) sum_r v_r ||theta - theta_r||^2
    models = _models(joined)
    v = joined.collaboration_graph_.toarray()[K, :K]
    assert v.sum() > 0
    Z = joined._design(X[new], np.float64)
    Y = _targets(joined, y[new], np.float64)
    rest = (joined.alpha, Z.shape[1] - 1, joined.mu, v, models[:K, 0])
    opts = {"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10000}
    res = minimize(_objective, models[:K, 0].mean(axis=0), args=(Z, Y[0], c * v.sum()) + rest,
                   jac=True, method="L-BFGS-B", options=opts)
    assert res.success
    np.testing.assert_allclose(models[K, 0], res.x, rtol=1e-5, atol=1e-6)
    # and the other reading of c gives another minimizer
    other_c = k / 20.0 if cap == 1.0 else 1.0
    other = minimize(_objective, res.x, args=(Z, Y[0], other_c * v.sum()) + rest, jac=True,
                     method="L-BFGS-B", options=opts).x
    assert np.linalg.norm(other - res.x) > 100 * np.linalg.norm(models[K, 0] - res.x)


def test_heavy_dada_newcomer_confidence(cap):
    sizes = [12, 20, 14, 20, 10, 16, 50, 8]
    X, y, groups = _nodes(sizes)
    new = groups >= 6
    est = DecentralizedBoostingClassifier(n_estimators=12, max_iter=60, random_state=0).fit(
        X[~new], y[~new], groups=groups[~new])
    joined = copy.deepcopy(est).add_nodes(X[new], y[new], groups=groups[new])
    np.testing.assert_array_equal(joined.confidence_,
                                  np.minimum(np.array(sizes) / 20.0, [1.0] * 6 + [cap] * 2))


# ---------------------------------------------- 2. the unseen nodes' model
@pytest.mark.parametrize("make", [
    lambda: PersonalizedLinearClassifier(random_state=0),
    lambda: DecentralizedBoostingClassifier(n_estimators=12, max_iter=60, random_state=0),
    lambda: PersonalizedLinearClassifier(random_state=0,
                                         privacy=DifferentialPrivacy(epsilon=3.0)),
], ids=["persolin", "dada", "persolin-private"])
def test_unseen_nodes_keep_the_fits_model_after_joins(make):
    sizes = [20, 20, 20, 20, 20, 20, 30, 30, 10]
    X, y, groups = _nodes(sizes, seed=1)
    old = groups < 6
    est = make().fit(X[old], y[old], groups=groups[old])
    X_unseen = np.random.RandomState(5).normal(size=(50, 3))
    unseen = np.full(50, 99)
    before = est.decision_function(X_unseen, groups=unseen)
    # NumPy reference: the mean of the fit's models (released ones if private)
    private = hasattr(est, "released_coef_")
    coef = est._full_coef(released=private)
    H = (est._design(X_unseen, np.float64) if isinstance(est, PersonalizedLinearClassifier)
         else est._base_matrix(X_unseen, np.float64))
    ref = H @ np.asarray(coef, dtype=np.float64).mean(axis=0).T
    np.testing.assert_allclose(before, ref[:, 0] if ref.shape[1] == 1 else ref, rtol=1e-10,
                               atol=1e-12)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(X[groups == 6], y[groups == 6], groups=groups[groups == 6])
        est.add_nodes(X[groups > 6], y[groups > 6], groups=groups[groups > 6])
    assert len(est.nodes_) == 9
    np.testing.assert_array_equal(est.decision_function(X_unseen, groups=unseen), before)
    # (the joined nodes' own models differ from that average)
    assert not np.allclose(est._full_coef(released=private)[6:].mean(axis=0),
                           np.asarray(coef).mean(axis=0))


def test_local_estimator_unseen_nodes_keep_the_fits_average_after_a_join():
    from sklearn.linear_model import LogisticRegression

    sizes = [20, 20, 20, 30, 30]
    X, y, groups = _nodes(sizes, seed=2)
    old = groups < 3
    local = LocalEstimator(LogisticRegression()).fit(X[old], y[old], groups=groups[old])
    X_unseen = np.random.RandomState(6).normal(size=(40, 3))
    unseen = np.full(40, 99)
    before = local.predict_proba(X_unseen, groups=unseen)
    ref = np.mean([LogisticRegression().fit(X[groups == g], y[groups == g]).predict_proba(
        X_unseen) for g in range(3)], axis=0)
    np.testing.assert_allclose(before, ref, rtol=1e-10)
    local.add_nodes(X[~old], y[~old], groups=groups[~old])
    np.testing.assert_array_equal(local.predict_proba(X_unseen, groups=unseen), before)
    # a refit on all five nodes averages all five
    refit = LocalEstimator(LogisticRegression()).fit(X, y, groups=groups)
    assert not np.allclose(refit.predict_proba(X_unseen, groups=unseen), before)


# ------------------------------------------------------------ 3. topology
def test_join_on_a_ring_asks_any_fitted_node_and_keeps_the_ring():
    sizes = [20] * 8 + [20]
    X, y, groups = _nodes(sizes, seed=3)
    old = groups < 8
    est = PersonalizedLinearClassifier(random_state=0, network=SimulatedNetwork(
        topology="ring")).fit(X[old], y[old], groups=groups[old])
    ring = np.zeros((8, 8), dtype=bool)
    for i in range(8):
        ring[i, (i + 1) % 8] = ring[(i + 1) % 8, i] = True
    W_fit = est.collaboration_graph_.toarray()
    assert not (W_fit[~ring] > 0).any()                      # the fit learned inside the ring
    est.add_nodes(X[~old], y[~old], groups=groups[~old])
    W = est.collaboration_graph_.toarray()
    np.testing.assert_array_equal(W[:8, :8], W_fit)          # the fitted edges: still the ring's
    # the newcomer asked every fitted node (min(8, 20 kappa) candidates), not
    # a ring neighbourhood: 8 requests and 8 answers, nothing over ring edges
    msgs = est.join_communication_.pair_messages_sparse.toarray()
    np.testing.assert_array_equal(msgs[8, :8] >= 1, np.ones(8, dtype=bool))
    np.testing.assert_array_equal(msgs[:8, 8] >= 1, np.ones(8, dtype=bool))
    assert msgs[:8, :8].sum() == 0


# ---------------------------------------------------------- 4. rogue newcomers
@pytest.mark.parametrize("cls", [PersonalizedLinearClassifier, DecentralizedBoostingClassifier])
def test_newcomers_are_rogue_with_the_fits_fault_model(cls):
    sizes = [20] * 10 + [20] * 12 + [20] * 4
    X, y, groups = _nodes(sizes, seed=4)
    kw = (dict(n_estimators=12, max_iter=60) if cls is DecentralizedBoostingClassifier
          else dict(join_neighbours="graph"))  # (the graph join; persolin28)
    net = SimulatedNetwork(rogue_fraction=0.3, random_state=0)
    first = groups < 10
    est = cls(random_state=0, network=net, **kw).fit(X[first], y[first], groups=groups[first])
    assert est._join_info["rogue"].sum() == 3              # round(0.3 * 10)
    batch = (groups >= 10) & (groups < 22)
    seed = int(getattr(est, "_join_seed", 0))
    est.add_nodes(X[batch], y[batch], groups=groups[batch])
    rogue = est._join_info["rogue"]
    assert rogue.shape == (22,)
    # each newcomer drew alone from the join's public stream
    draw = np.random.RandomState([_random_seed(est), seed, 7919]).uniform(size=12) < 0.3
    np.testing.assert_array_equal(rogue[10:], draw)
    assert 0 < draw.sum() < 12
    # a later join: the rogue newcomers answer corrupted values, as fitted
    # rogue nodes do (flags forced honest give other newcomers' models)
    last = groups >= 22
    kept = copy.deepcopy(est).add_nodes(X[last], y[last], groups=groups[last])
    honest_info = dict(est._join_info, rogue=np.concatenate([rogue[:10], np.zeros(12, bool)]))
    honest = graph_join_nodes(copy.deepcopy(est), X[last], y[last], groups[last],
                              info=honest_info)
    same = graph_join_nodes(copy.deepcopy(est), X[last], y[last], groups[last],
                            info=dict(est._join_info))
    np.testing.assert_array_equal(same.coef_, kept.coef_)
    assert not np.allclose(honest.coef_[22:], kept.coef_[22:])


def test_no_rogue_fraction_draws_no_rogue_newcomer():
    X, y, groups = _nodes([20] * 8, seed=5)
    old = groups < 6
    est = PersonalizedLinearClassifier(random_state=0).fit(X[old], y[old], groups=groups[old])
    est.add_nodes(X[~old], y[~old], groups=groups[~old])
    assert not est._join_info["rogue"].any()


def test_private_heavy_newcomer_keeps_the_sensitivity_of_its_mass(cap):
    # Perso-lin releases the clipped mean gradient of F_k (sensitivity
    # 2 C sqrt(P) / m_k) before d_k c_k multiplies it, so c (capped or not)
    # is post-processing: the newcomer's recorded sensitivity and noise
    # scale are those of its mass.
    sizes = [20, 20, 14, 20, 10, 16, 60]
    X, y, groups = _nodes(sizes, seed=7)
    new = groups == 6
    est = PersonalizedLinearClassifier(random_state=0, privacy=DifferentialPrivacy(
        epsilon=3.0)).fit(X[~new], y[~new], groups=groups[~new])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.add_nodes(X[new], y[new], groups=groups[new])
    assert est.confidence_[6] == min(3.0, cap)
    clip = est.privacy.clip_norm
    np.testing.assert_allclose(est.privacy_["gradient_sensitivity"],
                               2.0 * clip / np.array(sizes, dtype=float), rtol=1e-14)
    np.testing.assert_allclose(est.privacy_["sigma"][6] / est.privacy_["sigma"][0],
                               20.0 / 60.0, rtol=1e-14)


@pytest.mark.parametrize("cls", [PersonalizedLinearClassifier, DecentralizedBoostingClassifier])
def test_a_rogue_newcomer_sends_other_newcomers_corrupted_models(cls, monkeypatch):
    import skfed._graph_join as graph_join

    X, y, groups = _nodes([20] * 11, seed=7)
    old, new = groups < 8, np.isin(groups, [8, 10])          # two newcomers of one concept
    kw = (dict(n_estimators=12, max_iter=60) if cls is DecentralizedBoostingClassifier
          else dict(join_neighbours="graph"))  # (the graph join; persolin28)
    est = cls(random_state=0, **kw).fit(X[old], y[old], groups=groups[old])

    def join(flags):
        monkeypatch.setattr(graph_join, "join_rogue",
                            lambda network, rogue_old, n_new, seed: np.r_[rogue_old, flags])
        return copy.deepcopy(est).add_nodes(X[new], y[new], groups=groups[new])

    honest, rogue = join([False, False]), join([False, True])
    assert honest.collaboration_graph_[8, 9] > 0            # the two newcomers are linked
    np.testing.assert_array_equal(rogue._join_info["rogue"][8:], [False, True])
    # newcomer 8 (honest) received newcomer 9's model negated: its model moved
    assert not np.allclose(rogue.coef_[8], honest.coef_[8])
    np.testing.assert_array_equal(rogue.coef_[:8], honest.coef_[:8])
