"""``warm_start=True`` after ``add_nodes`` of the kernelized-MOCHA estimators
(skfed.multitask._join_warm): the refit on the fitted and joined nodes starts
from the fitted dual variables, the newcomers' and the grown Sigma; other
nodes are refused."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor

from .test_review25_joins import _terrains

HEADER = 40  # the default network's bytes per message (test_multitask's warm-start bytes)


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        yield


def _data(new_first=100):
    X, y, g = _terrains(10)
    Xn, yn, gn = _terrains(3, n_rows=8, seed=7, first=new_first)
    return X, y, g, Xn, yn, gn


def _union(*parts):
    X, y, g, Xn, yn, gn = parts
    return np.vstack([X, Xn]), np.concatenate([y, yn]), np.concatenate([g, gn])


def _reference_state(before, est, Xn, yn, gn, new_g):
    """The state a refit should start from, assembled in NumPy: the fitted
    nodes' dual variables untouched, the newcomers' after them, all taken in
    sorted label order, and the grown Sigma in that order."""
    labels = np.concatenate([before["nodes"], np.unique(gn)])
    blocks_Y = np.split(before["Y"], np.cumsum(before["counts"])[:-1], axis=1)
    blocks_g = np.split(before["g"], np.cumsum(before["counts"])[:-1], axis=1)
    for label in np.unique(gn):
        blocks_Y.append(np.where(yn[gn == label] == 1, 1.0, -1.0)[None, :])
        blocks_g.append(new_g[label][None, :])
    order = np.argsort(labels, kind="stable")
    sigma = np.asarray(est.task_covariance_)
    position = {v: k for k, v in enumerate(est.nodes_.tolist())}
    at = np.array([position[v] for v in labels[order].tolist()])
    return dict(nodes=labels[order], Y=np.hstack([blocks_Y[k] for k in order]),
                g=np.hstack([blocks_g[k] for k in order]), sigma=sigma[np.ix_(at, at)])


def _newcomer_duals_from_models(est, Xn, gn, n_old):
    """Check the kept newcomer duals give the newcomers' models in closed form
    (learned Omega: ``w_n = A_n W_o + c_n V_n / lambda`` with ``c_n = 1 /
    Omega_nn``, ``A_n = -c_n Omega_no`` and ``V_n`` the dual vector), and
    return them by label."""
    state = est._dual_state
    lam = est._join_lam
    out = {}
    omega = np.asarray(est.omega_)
    for k, label in enumerate(np.unique(gn)):
        t = n_old + k
        start = np.cumsum(np.concatenate([[0], state["counts"]]))
        s = int(np.flatnonzero(state["nodes"] == label)[0])
        g_n = state["g"][0, start[s]:start[s + 1]]
        Z = np.hstack([Xn[gn == label], np.full(((gn == label).sum(), 1), est.intercept_scaling)])
        V = g_n @ Z / len(g_n)  # unit weights: the node's total is its count
        c = 1.0 / omega[t, t]
        A = -c * omega[t, :n_old]
        W_old = np.hstack([est.coef_[:n_old], (est.intercept_[:n_old] / est.intercept_scaling)[:, None]])
        w = A @ W_old + c * V / lam
        np.testing.assert_allclose(w[:-1], est.coef_[t], rtol=1e-9, atol=1e-12)
        np.testing.assert_allclose(w[-1] * est.intercept_scaling, est.intercept_[t],
                                   rtol=1e-9, atol=1e-12)
        out[label] = g_n
    return out


@pytest.mark.parametrize("new_first", [100, -5])  # newcomers' labels after / before the fitted
def test_the_warm_refit_after_a_join_starts_from_the_fitted_and_joined_duals(new_first):
    parts = _data(new_first)
    X, y, g, Xn, yn, gn = parts
    kw = dict(omega="learn", kernel="linear", random_state=0, max_rounds=8)
    est = FederatedMultiTaskClassifier(warm_start=True, **kw).fit(X, y, groups=g)
    before = {k: (v.copy() if hasattr(v, "copy") else v) for k, v in est._dual_state.items()}
    est.add_nodes(Xn, yn, groups=gn)
    state = est._dual_state
    n_old = len(before["nodes"])
    new_g = _newcomer_duals_from_models(est, Xn, gn, n_old)
    # the newcomers solved their problems: their duals are not all zero
    assert all(np.abs(v).max() > 0 for v in new_g.values())
    ref = _reference_state(before, est, Xn, yn, gn, new_g)
    np.testing.assert_array_equal(state["nodes"], ref["nodes"])
    np.testing.assert_array_equal(state["Y"], ref["Y"])
    np.testing.assert_array_equal(state["g"], ref["g"])
    np.testing.assert_array_equal(state["sigma"], ref["sigma"])
    assert state["nodes"].tolist() == sorted(est.nodes_.tolist())

    # The warm refit on the union is the refit from that reference state:
    # a fresh fit whose kept state is replaced by it runs the same rounds.
    XA, yA, gA = _union(*parts)
    other = FederatedMultiTaskClassifier(warm_start=True, **kw).fit(X, y, groups=g)
    other._dual_state = dict(before, nodes=ref["nodes"], counts=np.bincount(
        np.searchsorted(ref["nodes"], gA)), Y=ref["Y"], g=ref["g"], sigma=ref["sigma"])
    est.fit(XA, yA, groups=gA)
    other.fit(XA, yA, groups=gA)
    np.testing.assert_array_equal(est.coef_, other.coef_)
    np.testing.assert_array_equal(est.objective_curve_, other.objective_curve_)
    # and it did start warm: every node (13) sends its dual vector (d + 1 = 5
    # floats) once more in round 1 than a cold fit
    cold = FederatedMultiTaskClassifier(**kw).fit(XA, yA, groups=gA)
    assert est.bytes_per_round_[0] - cold.bytes_per_round_[0] == 13 * (HEADER + 5 * 8)
    assert est.objective_curve_[0] < cold.objective_curve_[0]


@pytest.mark.parametrize("omega", ["shared", "independent"])
def test_warm_refit_after_a_join_other_modes(omega):
    parts = _data()
    X, y, g, Xn, yn, gn = parts
    XA, yA, gA = _union(*parts)
    kw = dict(omega=omega, kernel="linear", random_state=0)
    est = FederatedMultiTaskClassifier(warm_start=True, **kw).fit(X, y, groups=g)
    est.add_nodes(Xn, yn, groups=gn)
    assert est._dual_state["nodes"].tolist() == sorted(est.nodes_.tolist())
    cold = FederatedMultiTaskClassifier(**kw).fit(XA, yA, groups=gA)
    est.fit(XA, yA, groups=gA)
    # started warm (one dual vector more per node in the first round's bytes)
    # and reaches the cold fit's objective
    assert est.bytes_per_round_[0] > cold.bytes_per_round_[0]
    np.testing.assert_allclose(est.objective_curve_[-1], cold.objective_curve_[-1], rtol=2e-2)
    assert est.n_iter_ <= cold.n_iter_


def test_two_joins_then_a_warm_refit_on_all_nodes():
    X, y, g, Xn, yn, gn = _data()
    X2, y2, g2 = _terrains(2, n_rows=6, seed=9, first=50)
    kw = dict(omega="learn", kernel="linear", random_state=0)
    est = FederatedMultiTaskClassifier(warm_start=True, **kw).fit(X, y, groups=g)
    fitted_g = est._dual_state["g"].copy()
    est.add_nodes(Xn, yn, groups=gn).add_nodes(X2, y2, groups=g2)
    state = est._dual_state
    assert state["nodes"].tolist() == sorted(est.nodes_.tolist())
    assert state["counts"].tolist() == [20] * 10 + [6, 6] + [8, 8, 8]
    np.testing.assert_array_equal(state["g"][:, :200], fitted_g)  # the fitted nodes' untouched
    assert state["sigma"].shape == (15, 15)
    est.fit(np.vstack([X, X2, Xn]), np.concatenate([y, y2, yn]),
            groups=np.concatenate([g, g2, gn]))
    assert len(est.nodes_) == 15


def test_a_warm_refit_on_other_nodes_after_a_join_is_refused():
    parts = _data()
    X, y, g, Xn, yn, gn = parts
    est = FederatedMultiTaskClassifier(warm_start=True, random_state=0).fit(X, y, groups=g)
    est.add_nodes(Xn, yn, groups=gn)
    with pytest.raises(ValueError, match="warm_start=True .* same nodes"):
        est.fit(X, y, groups=g)  # the fitted nodes only
    XA, yA, gA = _union(*parts)
    with pytest.raises(ValueError, match="warm_start=True .* same nodes"):
        est.fit(XA[:-1], yA[:-1], groups=gA[:-1])  # a newcomer's sample less
    with pytest.raises(ValueError, match="warm_start=True .* same nodes"):
        est.fit(XA, 1 - yA, groups=gA)  # other targets
    est.set_params(warm_start=False).fit(X, y, groups=g)  # cold: any data


def test_regressor_warm_refit_after_a_join():
    X, _, g, Xn, _, gn = _data()
    y, yn = X[:, 1] + 0.1 * (g % 3), Xn[:, 1]
    kw = dict(omega="learn", kernel="linear", random_state=0)
    est = FederatedMultiTaskRegressor(warm_start=True, **kw).fit(X, y, groups=g)
    est.add_nodes(Xn, yn, groups=gn)
    XA, yA, gA = np.vstack([X, Xn]), np.concatenate([y, yn]), np.concatenate([g, gn])
    np.testing.assert_array_equal(est._dual_state["Y"][0], yA)
    cold = FederatedMultiTaskRegressor(**kw).fit(XA, yA, groups=gA)
    est.fit(XA, yA, groups=gA)
    # per node, the warm start costs what it costs a refit without a join
    plain_cold = FederatedMultiTaskRegressor(**kw).fit(X, y, groups=g)
    plain = FederatedMultiTaskRegressor(warm_start=True, **kw).fit(X, y, groups=g)
    plain.fit(X, y, groups=g)
    per_node = (plain.bytes_per_round_[0] - plain_cold.bytes_per_round_[0]) / 10
    assert per_node >= HEADER + 5 * 8
    assert est.bytes_per_round_[0] - cold.bytes_per_round_[0] == 13 * per_node
    np.testing.assert_allclose(est.objective_curve_[-1], cold.objective_curve_[-1], rtol=2e-2)


def test_warm_refit_after_a_join_with_zero_weight_rows():
    # The join and the fit both leave out zero-weight rows: the refit with
    # the same weights continues from the kept state (13 dual vectors sent).
    parts = _data()
    X, y, g, Xn, yn, gn = parts
    sw = np.ones(len(yn))
    sw[[0, 9]] = 0.0
    XA, yA, gA = _union(*parts)
    swA = np.concatenate([np.ones(len(y)), sw])
    kw = dict(omega="learn", kernel="linear", random_state=0)
    est = FederatedMultiTaskClassifier(warm_start=True, **kw).fit(X, y, groups=g)
    est.add_nodes(Xn, yn, groups=gn, sample_weight=sw)
    assert est._dual_state["counts"].tolist() == [20] * 10 + [7, 7, 8]
    cold = FederatedMultiTaskClassifier(**kw).fit(XA, yA, groups=gA, sample_weight=swA)
    est.fit(XA, yA, groups=gA, sample_weight=swA)
    assert est.bytes_per_round_[0] - cold.bytes_per_round_[0] == 13 * (HEADER + 5 * 8)


def test_extend_dual_state_orders_nodes_and_zeroes_centre_keepers():
    # The helper alone, on a hand-made state: fitted nodes 3 and 7 (2 and 1
    # samples), newcomers 5 (kept at the shared centre: its duals dropped)
    # and 1; the state comes out in sorted label order, Sigma permuted alike.
    from types import SimpleNamespace

    from skfed.multitask._join_warm import extend_dual_state

    state = dict(nodes=np.array([3, 7]), counts=np.array([2, 1]), loss="hinge",
                 Y=np.array([[1.0, -1.0, 1.0]]), g=np.array([[0.1, -0.2, 0.3]]),
                 sigma=np.array([[1.0, 0.1], [0.1, 2.0]]))
    sigma = np.arange(16.0).reshape(4, 4)  # grown, in nodes_ order 3, 7, 5, 1
    est = SimpleNamespace(_dual_state=state, nodes_=np.array([3, 7, 5, 1]),
                          task_covariance_=sigma)
    extend_dual_state(est, 2, np.array([2, 1]), np.array([[-1.0, 1.0, -1.0]]),
                      np.array([[0.4, 0.5, -0.6]]), keeps_centre=np.array([True, False]))
    out = est._dual_state
    assert out["nodes"].tolist() == [1, 3, 5, 7]
    assert out["counts"].tolist() == [1, 2, 2, 1]
    np.testing.assert_array_equal(out["Y"], [[-1.0, 1.0, -1.0, -1.0, 1.0, 1.0]])
    np.testing.assert_array_equal(out["g"], [[-0.6, 0.1, -0.2, 0.0, 0.0, 0.3]])
    order = [3, 0, 2, 1]
    np.testing.assert_array_equal(out["sigma"], sigma[np.ix_(order, order)])
    assert out["loss"] == "hinge"
    # the shared model keeps no Sigma, and a private fit no state at all
    est = SimpleNamespace(_dual_state=dict(state, sigma=None, shared={"share": 0.5}),
                          nodes_=np.array([3, 7, 5, 1]), task_covariance_=sigma)
    extend_dual_state(est, 2, np.array([2, 1]), np.zeros((1, 3)), np.zeros((1, 3)))
    assert est._dual_state["sigma"] is None and est._dual_state["shared"] == {"share": 0.5}
    est = SimpleNamespace(_dual_state=None, nodes_=np.array([3, 7, 5, 1]))
    extend_dual_state(est, 2, np.array([2, 1]), np.zeros((1, 3)), np.zeros((1, 3)))
    assert est._dual_state is None
