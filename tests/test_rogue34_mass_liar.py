"""Rogue nodes that lie about their mass (rogue34).

Every confidence of a Dada / Perso-lin fit is ``c_k = m_k / M``, ``M`` the
largest node mass the root of the setup's tree agrees on from the masses
the nodes report (:mod:`skfed._node_mass`).  A liar that reports ``1e6``
times the true largest mass divided every honest confidence by ``1e6``
(Dada's fit on Landmine fell from 94.7 to 5.5-54 %:
``benchmarks/rogue34_mass_liar.py``).  The root now takes ``M = min(max,
MASS_CLIP x median)`` of the reported masses.  The lie is the test's own:
it wraps :func:`skfed._node_mass.agreed_max_mass` (the simulation keeps
honest masses); "before" is the same lie with ``MASS_CLIP = inf`` (the rule
of main before rogue34).  Numbers are checked against NumPy closed forms.
"""

import copy

import numpy as np
import pytest

import skfed._node_mass as node_mass
from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed._graph_join import join_info_from_data
from skfed._graph_join_fitted import NEWCOMER_CONFIDENCE_CAP
from skfed.datasets import make_rotated_moons

LIE = 1e6
METHODS = [DecentralizedBoostingClassifier, PersonalizedLinearClassifier]


def _numpy_scale(reported, clip):
    """The root's rule in NumPy: ``M = min(max, clip * median)``."""
    M = min(np.max(reported), clip * np.median(reported))
    return M


def _liars(monkeypatch, liars, n_fitted):
    original = node_mass.agreed_max_mass

    def agreed(mass):
        mass = np.array(mass, dtype=np.float64)
        if len(mass) == n_fitted:
            mass[liars] = LIE * mass.max()
        return original(mass)

    monkeypatch.setattr(node_mass, "agreed_max_mass", agreed)


def _moons(seed, n_nodes=24):
    X, Xt, y, yt, g, gt, *_ = make_rotated_moons(n_nodes, n_test_per_node=40, padding_std=0.0,
                                                  random_state=seed)
    return X, y, g, Xt, yt, gt


def test_agreed_max_mass_is_numpy_min_of_max_and_clip_times_median():
    rng = np.random.RandomState(0)
    for trial in range(200):
        K = rng.randint(1, 40)
        mass = np.exp(rng.normal(scale=rng.uniform(0, 2), size=K)) * rng.uniform(1, 500)
        n_lie = rng.randint(0, (K - 1) // 2 + 1)      # fewer than half
        liars = rng.choice(K, n_lie, replace=False)
        true = mass.copy()
        mass[liars] *= 10.0 ** rng.uniform(0, 12)
        M = _numpy_scale(mass, node_mass.MASS_CLIP)
        assert node_mass.agreed_max_mass(mass) == M
        conf, M2 = node_mass.node_scale(mass)
        assert M2 == M
        np.testing.assert_array_equal(conf, np.minimum(mass / M, 1.0))
        assert conf.max() <= 1.0 and conf.min() > 0
        # the guarantee: an honest confidence is at least 1 / MASS_CLIP of
        # its value among the honest masses alone, whatever the liars say
        honest = np.setdiff1d(np.arange(K), liars)
        alone = true[honest] / true[honest].max()
        assert np.all(conf[honest] * node_mass.MASS_CLIP >= alone * (1 - 1e-12))


def test_under_the_bound_the_scale_is_the_largest_mass_to_the_bit():
    rng = np.random.RandomState(1)
    for _ in range(100):
        mass = rng.randint(1, 400, size=rng.randint(2, 60)).astype(float)
        if mass.max() > node_mass.MASS_CLIP * np.median(mass):
            continue
        conf, M = node_mass.node_scale(mass)
        assert M == mass.max()
        np.testing.assert_array_equal(conf, mass / mass.max())


@pytest.mark.parametrize("cls", METHODS)
def test_honest_federation_fits_as_before(cls, monkeypatch):
    """No mass above MASS_CLIP x median: the fit and its join are those of
    the unbounded rule (main before rogue34) to the bit."""
    X, y, g, *_ = _moons(0)
    sizes = np.bincount(g)
    assert sizes.max() <= node_mass.MASS_CLIP * np.median(sizes)
    fit = g < 20
    kw = dict(random_state=0, max_iter=200)
    est = cls(**kw).fit(X[fit], y[fit], groups=g[fit])
    joined = copy.deepcopy(est).add_nodes(X[~fit], y[~fit], groups=g[~fit])
    with monkeypatch.context() as m:
        m.setattr(node_mass, "MASS_CLIP", np.inf)
        old = cls(**kw).fit(X[fit], y[fit], groups=g[fit])
        old_joined = copy.deepcopy(old).add_nodes(X[~fit], y[~fit], groups=g[~fit])
    np.testing.assert_array_equal(est._full_coef(), old._full_coef())
    np.testing.assert_array_equal(est.confidence_, old.confidence_)
    np.testing.assert_array_equal(joined._full_coef(), old_joined._full_coef())
    np.testing.assert_array_equal(joined.confidence_, old_joined.confidence_)
    assert est.n_bytes_sent_ == old.n_bytes_sent_


def _run(cls, seed, liars, clip, monkeypatch):
    X, y, g, Xt, yt, gt = _moons(seed)
    fit = g < 20
    K = 20
    with monkeypatch.context() as m:
        m.setattr(node_mass, "MASS_CLIP", clip)
        if liars is not None:
            _liars(m, liars, K)
        est = cls(random_state=seed).fit(X[fit], y[fit], groups=g[fit])
        info = join_info_from_data(est, X[fit], y[fit], g[fit])
        joined = copy.deepcopy(est).add_nodes(X[~fit], y[~fit], groups=g[~fit])
    tfit, tnew = gt < 20, gt >= 20
    return (est, info, joined, 100 * est.score(Xt[tfit], yt[tfit], groups=gt[tfit]),
            100 * joined.score(Xt[tnew], yt[tnew], groups=gt[tnew]))


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("cls", METHODS)
def test_mass_liars_are_bounded(cls, seed, monkeypatch):
    """2 of 20 fitted nodes (10 %) report 1e6 x the largest mass."""
    liars = np.array([3, 11])
    X, y, g, *_ = _moons(seed)
    mass = np.bincount(g[g < 20]).astype(float)
    honest = np.setdiff1d(np.arange(20), liars)
    reported = mass.copy()
    reported[liars] = LIE * mass.max()

    est0, _, _, fit0, join0 = _run(cls, seed, None, node_mass.MASS_CLIP, monkeypatch)
    np.testing.assert_allclose(est0.confidence_, mass / mass.max(), rtol=0, atol=0)

    # before: the lie divides every honest confidence by 1e6
    before, _, _, fit_b, join_b = _run(cls, seed, liars, np.inf, monkeypatch)
    np.testing.assert_array_equal(before.confidence_, mass / (LIE * mass.max()))
    assert before.confidence_[honest].max() <= 1e-6

    # now: the scale is MASS_CLIP x the median reported mass (NumPy), so an
    # honest confidence shrinks by max / (MASS_CLIP median) at most
    est, info, joined, fit_a, join_a = _run(cls, seed, liars, node_mass.MASS_CLIP, monkeypatch)
    M = node_mass.MASS_CLIP * np.median(reported)
    assert info["max_mass"] == M
    np.testing.assert_array_equal(est.confidence_, np.minimum(mass / M, 1.0))
    shrink = est0.confidence_[honest] / est.confidence_[honest]
    np.testing.assert_allclose(shrink, M / mass.max())
    assert shrink.max() <= node_mass.MASS_CLIP
    # a newcomer reads the same scale: min(m / M, cap)
    new_mass = np.bincount(g[g >= 20])[20:].astype(float)
    np.testing.assert_array_equal(joined.confidence_[20:],
                                  np.minimum(new_mass / M, NEWCOMER_CONFIDENCE_CAP))
    # accuracy (this run, seeds 0-2, MASS_CLIP = 4): the lie cost the fit
    # 16-42 (Dada) / 10-12 (Perso-lin) points and the newcomers 7-39;
    # bounded, the fit moves by -2.4..+3.8 and the newcomers stay above
    # the unbounded run (Dada 63.1 / 84.4 / 77.5 against 48.8 / 80.6 / 59.4
    # and honest 77.5 / 87.5 / 79.4; Perso-lin 56.9 / 54.4 / 54.4 against
    # 35.0 / 25.0 / 27.5 and honest 60.0 / 64.4 / 56.9)
    assert fit_b < fit0 - 5
    assert abs(fit_a - fit0) <= 4
    assert join_b < join_a <= join0 + 2


LANDMINE = {}


def _landmine(seed):
    if seed not in LANDMINE:
        from skfed.datasets import load_landmine

        X, y, g = load_landmine(return_X_y=True)
        X = (X - X.mean(axis=0)) / X.std(axis=0)
        rng = np.random.RandomState(seed)
        nodes = np.unique(g)
        new = rng.choice(nodes, size=6, replace=False)
        test = rng.rand(len(y)) < 0.3
        LANDMINE[seed] = X, y, g, new, test
    return LANDMINE[seed]


# stop 59: with the liars bounded, honest confidences shrink up to 4x and
# seed 1's newcomers 19 and 20, whose first 10 rows hold 7 and 8 positives
# (their fields' rate is 5-7 %), take their neighbours' model, which gets
# 8-9 of those rows wrong; unlike36's guard then kept their local models
# (72.4 on their test rows).  guardw37: the graph join's guard also asks
# that the model rank their rows the wrong way round
# (skfed/_join_rank.py): it ranks them right (Mann-Whitney AUC 0.67 /
# 0.44, one-sided p 0.81 / 0.44), so they keep the joined model.


@pytest.mark.parametrize("cls, seed", [(DecentralizedBoostingClassifier, 0),
                                       (DecentralizedBoostingClassifier, 1),
                                       (DecentralizedBoostingClassifier, 2),
                                       (PersonalizedLinearClassifier, 0)])
def test_mass_liars_on_landmine(cls, seed, monkeypatch):
    """Landmine: 23 fitted nodes, 2 of them (10 %) report 1e6 x the largest
    mass; 6 newcomers join with 10 rows each.  Measured (fit / newcomers):
    Dada honest 94.5 / 94.2 / 94.0 and 93.8 / 94.2 / 94.9 (seeds 0-2), lie
    94.2 / 32.2 / 62.0 and 93.6 / 23.1 / 82.7, bounded 94.4 / 93.8 / 93.8
    and 93.8 / 94.1 / 94.8; Perso-lin (seeds 0-2 measured, 0 kept here: its
    feature-mean join does not read the scale) fit 94.3 / 94.3 / 93.9, lie
    93.9 / 94.0 / 93.6, bounded 94.2 / 94.2 / 93.8, newcomers unchanged."""
    X, y, g, new, test = _landmine(seed)
    is_new = np.isin(g, new)
    fit, fit_test = ~is_new & ~test, ~is_new & test
    join = np.concatenate([np.flatnonzero(g == k)[:10] for k in new])
    new_test = np.setdiff1d(np.flatnonzero(is_new), join)
    K = 23
    mass = np.unique(g[fit], return_counts=True)[1].astype(float)
    liars = np.array([4, 15])
    reported = mass.copy()
    reported[liars] = LIE * mass.max()
    out = {}
    for label, lie, clip in [("honest", False, node_mass.MASS_CLIP), ("before", True, np.inf),
                             ("bounded", True, node_mass.MASS_CLIP)]:
        with monkeypatch.context() as m:
            m.setattr(node_mass, "MASS_CLIP", clip)
            if lie:
                _liars(m, liars, K)
            est = cls(random_state=seed).fit(X[fit], y[fit], groups=g[fit])
            joined = copy.deepcopy(est).add_nodes(X[join], y[join], groups=g[join])
        out[label] = (est.confidence_.copy(),
                      100 * est.score(X[fit_test], y[fit_test], groups=g[fit_test]),
                      100 * joined.score(X[new_test], y[new_test], groups=g[new_test]))
    np.testing.assert_array_equal(out["honest"][0], mass / mass.max())
    np.testing.assert_array_equal(out["before"][0], mass / (LIE * mass.max()))
    M = node_mass.MASS_CLIP * np.median(reported)
    np.testing.assert_array_equal(out["bounded"][0], np.minimum(mass / M, 1.0))
    fit0, join0 = out["honest"][1:]
    fit_b, join_b = out["before"][1:]
    fit_a, join_a = out["bounded"][1:]
    if cls is DecentralizedBoostingClassifier and seed > 0:
        assert fit_b < fit0 - 10 and join_b < join0 - 10    # the lie broke Dada
    assert fit_a >= fit0 - 0.5 and join_a >= join0 - 0.5
    assert fit_a >= fit_b and join_a >= join_b - 0.2
