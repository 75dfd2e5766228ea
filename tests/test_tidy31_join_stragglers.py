"""Every join rule of the graph-personalized estimators refuses stragglers
as their fits do (tidy31: the shared-model, feature-mean and Dada one-class
joins took a ``straggler_rate`` set after the fit and ignored it)."""

import numpy as np
import pytest

import skfed._mean_neighbours as mn
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.boosting import _dada_gate as dg
from skfed.boosting import _perso_lin_shared as sh
from skfed.network import SimulatedNetwork


def _data(seed=0, n=12, m=30, d=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n * m, d))
    w = np.array([1.0, -1.0, 0.5])
    y = (X @ w + 0.3 * rng.normal(size=n * m) > 0).astype(int)
    Xn = rng.normal(size=(20, d))
    return X, y, np.repeat(np.arange(n), m), Xn, (Xn @ w > 0).astype(int)


@pytest.mark.parametrize("join_neighbours, rule", [("shared", "shared"), ("auto", "features"),
                                                   ("auto", "posterior"), ("graph", "graph")])
def test_every_perso_lin_join_refuses_stragglers(monkeypatch, join_neighbours, rule):
    if rule in ("shared", "features"):  # open the gates whatever the data
        monkeypatch.setattr(sh, "GATE_T", -np.inf)
        monkeypatch.setattr(mn, "GATE_T", -np.inf)
    X, y, g, Xn, yn = _data()
    est = PersonalizedLinearClassifier(join_neighbours=join_neighbours, random_state=0,
                                       max_iter=200).fit(X, y, groups=g)
    assert est.newcomer_rule_ == rule
    n_nodes = len(est.nodes_)
    est.set_params(network=SimulatedNetwork(straggler_rate=0.3))
    with pytest.raises(ValueError, match="straggler_rate"):
        est.add_nodes(Xn, yn, groups=np.repeat([100, 101], 10))
    assert len(est.nodes_) == n_nodes
    est.set_params(network=None)
    est.add_nodes(Xn, yn, groups=np.repeat([100, 101], 10))
    assert len(est.nodes_) == n_nodes + 2


def test_dada_one_class_join_refuses_stragglers(monkeypatch):
    monkeypatch.setattr(dg, "GATE_T", -np.inf)
    X, y, g, Xn, _ = _data(1)
    est = DecentralizedBoostingClassifier(n_estimators=8, max_iter=20,
                                          random_state=0).fit(X, y, groups=g)
    assert est.newcomer_rule_ == "one-class"
    yn = np.ones(len(Xn), dtype=int)  # one class per newcomer: the one-class join
    est.set_params(network=SimulatedNetwork(straggler_rate=0.3))
    with pytest.raises(ValueError, match="straggler_rate"):
        est.add_nodes(Xn, yn, groups=np.repeat([100, 101], 10))
    est.set_params(network=None)
    n_nodes = len(est.nodes_)
    est.add_nodes(Xn, yn, groups=np.repeat([100, 101], 10))
    assert len(est.nodes_) == n_nodes + 2
