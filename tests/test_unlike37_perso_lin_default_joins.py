"""unlike37: the opposite-task guard on Perso-lin's default joins.

Eight fitted nodes of 40 rows; a newcomer whose labels oppose theirs.
With every node on ``y = [x_0 > 0]`` the feature-mean gate closes and
newcomers take the posterior join; with two clusters of nodes (feature
``x_1`` shifted by +-3, the rule's sign flipped between them) it opens
and they take the feature-mean join.  Without the guard the opposite
newcomer scored 0.00-0.09 on its own samples on both paths (seeds 0-2,
20 and 100 rows; measured at main b007bba7 with the test switched off).
A flagged newcomer keeps the model it fits alone:
``argmin_theta mean_i loss(y_i theta.z_i) + (alpha / 2) ||w||^2``, here
checked against a SciPy solve of that objective, and its ``_join_info``
loss is that model's ``c_n F_n`` computed in NumPy.
"""

import copy
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from scipy.optimize import minimize

import skfed._graph_join_unlike as unlike
from skfed import PersonalizedLinearClassifier

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from unlike37_perso_lin_default import _setting

NEW = 99


def _fit(seed, clustered):
    X, y, g, Xn, opposite = _setting(seed, clustered, 300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=g)
    return est, Xn, 1 - opposite


def _join(est, X, y, off=False):
    """A copy of ``est`` joined by ``(X, y)`` as node NEW (``off``: the test
    switched off) and the flags the test returned."""
    est = copy.deepcopy(est)
    flags = []
    original = unlike.contradicted

    def spy(*args):
        out = original(*args)
        flags.append(out.copy())
        return np.zeros_like(out) if off else out

    own_fit = unlike.own_fit_beats_join  # (guard38's second test: off too)
    unlike.contradicted = spy
    if off:
        unlike.own_fit_beats_join = lambda X, F, c, o: np.zeros(len(o) - 1, dtype=bool)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            est.add_nodes(X, y, groups=np.full(len(y), NEW))
    finally:
        unlike.contradicted, unlike.own_fit_beats_join = original, own_fit
    return est, flags


def _bytes(est):
    log = est.join_communication_
    return log.bytes_per_round.tolist(), log.messages_per_round.tolist()


def _objective(est, X, y, theta):
    """The newcomer's F_n: mean logistic loss + (alpha / 2) ||w||^2, NumPy."""
    m = np.where(y == 1, 1.0, -1.0) * (np.column_stack([X, np.ones(len(X))]) @ theta)
    return np.mean(np.logaddexp(0.0, -m)) + 0.5 * float(est.alpha) * theta[:-1] @ theta[:-1]


def _alone_reference(est, X, y):
    """SciPy's argmin of the newcomer's F_n (unpenalized intercept)."""
    Z = np.column_stack([X, np.ones(len(X))])
    s = np.where(y == 1, 1.0, -1.0)

    def f(theta):
        m = s * (Z @ theta)
        grad = Z.T @ (-s * 0.5 * (1.0 - np.tanh(m / 2.0))) / len(y)
        grad[:-1] += float(est.alpha) * theta[:-1]
        return _objective(est, X, y, theta), grad

    res = minimize(f, np.zeros(Z.shape[1]), jac=True, method="L-BFGS-B",
                   options={"gtol": 1e-12, "ftol": 1e-15, "maxiter": 10000})
    return res.x, res.fun


@pytest.mark.parametrize("clustered, rule", [(False, "posterior"), (True, "features")])
@pytest.mark.parametrize("rows", [20, 100])
def test_opposite_newcomer_fits_alone(clustered, rule, rows):
    est, Xn, yn = _fit(0, clustered)
    assert est.newcomer_rule_ == rule
    opposite = 1 - yn
    joined, flags = _join(est, Xn[:rows], opposite[:rows])
    assert [f.tolist() for f in flags] == [[True]]
    groups = np.full(rows, NEW)
    assert np.mean(joined.predict(Xn[:rows], groups=groups) == opposite[:rows]) >= 0.8
    fresh = np.full(200, NEW)
    assert np.mean(joined.predict(Xn[100:], groups=fresh) == opposite[100:]) >= 0.8
    # the kept model is the newcomer's own solve (the fit's local solver's
    # tolerance: within 1e-4 of SciPy's optimum of F_n, measured 5e-5)
    theta, best = _alone_reference(est, Xn[:rows], opposite[:rows])
    kept = np.r_[joined.coef_[-1], joined.intercept_[-1]]
    value = _objective(est, Xn[:rows], opposite[:rows], kept)
    assert best - 1e-12 <= value <= best * (1 + 1e-4)
    np.testing.assert_allclose(kept, theta, rtol=0.02, atol=1e-3)
    # its recorded loss is c_n F_n(kept), c_n its mass over the fit's largest, at most 1
    c = joined.confidence_[-1]
    assert c == pytest.approx(min(rows / est._join_info["max_mass"], 1.0))
    assert joined._join_info["losses"][-1] == pytest.approx(c * value, rel=1e-10)
    # the guard sent nothing: bytes equal to the unguarded join's
    off, _ = _join(est, Xn[:rows], opposite[:rows], off=True)
    assert _bytes(joined) == _bytes(off) and sum(_bytes(off)[0]) > 0
    assert np.mean(off.predict(Xn[100:], groups=fresh) == opposite[100:]) < 0.2


@pytest.mark.parametrize("clustered", [False, True])
def test_alike_newcomer_unflagged_and_identical(clustered):
    est, Xn, yn = _fit(1, clustered)
    on, flags = _join(est, Xn[:20], yn[:20])
    off, _ = _join(est, Xn[:20], yn[:20], off=True)
    assert [f.tolist() for f in flags] == [[False]]
    for name in ("coef_", "intercept_", "confidence_"):
        assert getattr(on, name).tobytes() == getattr(off, name).tobytes()
    assert on._join_info["losses"].tobytes() == off._join_info["losses"].tobytes()
    assert (on.collaboration_graph_ != off.collaboration_graph_).nnz == 0
    assert _bytes(on) == _bytes(off)
    fresh = np.full(200, NEW)
    assert np.mean(on.predict(Xn[100:], groups=fresh) == yn[100:]) >= 0.8
