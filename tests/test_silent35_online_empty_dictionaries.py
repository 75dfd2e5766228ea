"""An online kernel fit whose dictionaries ended empty says so (silent35).

``eta0="auto"`` is ``1 / (alpha + K (s_max + c lambda_max))``: a strong
``consensus_penalty`` ``c`` on a dense topology (the complete graph on m
nodes has ``lambda_max = m``) shrinks it under the KOMP budget
``epsilon``, every new dictionary term is pruned and every node's
function stays 0: a constant predictor, which used to come without a word
(online35, ``benchmarks/online_join_moons_seeds.py --oracle-graph
--consensus-penalty 1``, seed 4).  Reference: the step in closed form, the
fitted ``dictionaries_`` and each node's classes counted in NumPy.
"""

import warnings

import numpy as np
import pytest
from sklearn.datasets import make_moons
from sklearn.exceptions import ConvergenceWarning

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor

M = 10
LABELS = np.array(list("abcdefghij"))


def _moons(m=M, n=10):
    X, y = make_moons(m * n, noise=0.2, random_state=0)
    return X, y, LABELS[np.repeat(np.arange(m), n)]


def _fit(est, X, y, g, **kw):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y, groups=g, **kw)
    return [str(w.message) for w in caught
            if issubclass(w.category, ConvergenceWarning) and "ended with" in str(w.message)]


def _empty(est):
    return np.array([len(d) == 0 for d in est.dictionaries_])


def test_a_strong_coupling_on_the_complete_graph_warns_every_dictionary_empty():
    X, y, g = _moons()
    est = DecentralizedKernelSGDClassifier(
        kernel="rbf", consensus_penalty=10.0, random_state=0,
        network=SimulatedNetwork(topology="complete"))
    messages = _fit(est, X, y, g)
    # the step in closed form: K = 1 (rbf), s_max = 1, lambda_max = m
    eta = 1.0 / (est.alpha + 1.0 * (1.0 + 10.0 * M))
    assert est.eta0_ == pytest.approx(eta, rel=1e-12)
    assert est.eta0_ < est.epsilon_
    assert _empty(est).all()
    dec = est.decision_function(X, groups=g)
    assert np.all(dec == dec.flat[0])  # a constant predictor
    assert len(messages) == 1
    message = messages[0]
    assert "ended with every node's dictionary empty" in message
    assert f"eta0_={eta:.3g}" in message and f"epsilon_={est.epsilon_:.3g}" in message
    assert "consensus_penalty=10" in message
    assert f"c K lambda_max = {10.0 * M:.3g}" in message
    assert f"lambda_max of the graph Laplacian {M:.3g}" in message


def test_the_same_fit_with_a_weaker_coupling_says_nothing():
    X, y, g = _moons()
    est = DecentralizedKernelSGDClassifier(
        kernel="rbf", consensus_penalty=1.0, random_state=0,
        network=SimulatedNetwork(topology="complete"))
    assert _fit(est, X, y, g) == []
    assert not _empty(est).any()


def test_a_given_eta0_is_named():
    X, y, g = _moons()
    est = DecentralizedKernelSGDClassifier(kernel="rbf", eta0=0.004, random_state=0,
                                           network=SimulatedNetwork(topology="ring"))
    messages = _fit(est, X, y, g)
    assert _empty(est).all()
    assert len(messages) == 1 and "eta0=0.004 was given" in messages[0]


def test_one_node_empty_although_it_holds_both_classes():
    # Node 'c''s samples weigh 1e-3: its terms fall under the budget while
    # the other nodes' do not (no coupling: its neighbours add none).
    X, y, g = _moons()
    sw = np.where(g == "c", 1e-3, 1.0)
    est = DecentralizedKernelSGDClassifier(kernel="rbf", random_state=0, consensus_penalty=0.0,
                                           network=SimulatedNetwork(topology="ring"))
    messages = _fit(est, X, y, g, sample_weight=sw)
    empty = _empty(est)
    classes = np.array([np.unique(y[g == label]).size for label in est.nodes_])
    named = np.asarray(est.nodes_)[empty & (classes == 2)]
    assert list(named) == ["c"]
    assert len(messages) == 1
    assert "an empty dictionary at node 'c' although its samples hold both classes" in messages[0]


def test_partial_fit_warns_per_call():
    X, y, g = _moons()
    est = DecentralizedKernelSGDClassifier(
        kernel="rbf", consensus_penalty=10.0, random_state=0,
        network=SimulatedNetwork(topology="complete"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.partial_fit(X, y, groups=g, classes=[0, 1])
    assert _empty(est).all()
    assert any("every node's dictionary empty" in str(w.message) for w in caught)


def test_the_regressor_warns_too():
    X, y, g = _moons()
    target = X[:, 0] + 0.1 * y
    est = DecentralizedKernelSGDRegressor(
        kernel="rbf", consensus_penalty=100.0, random_state=0,
        network=SimulatedNetwork(topology="complete"))
    messages = _fit(est, X, target, g)
    assert est.eta0_ == pytest.approx(1.0 / (est.alpha + 1.0 + 100.0 * M), rel=1e-12)
    assert _empty(est).all()
    assert len(messages) == 1 and "every node's dictionary empty" in messages[0]
    assert "consensus_penalty=100" in messages[0]


def test_a_given_epsilon_is_named_and_equal_targets_say_nothing():
    X, y, g = _moons()
    est = DecentralizedKernelSGDClassifier(kernel="rbf", epsilon=1e6, random_state=0)
    messages = _fit(est, X, y, g)
    assert _empty(est).all()
    assert len(messages) == 1
    assert "epsilon=1000000.0 was given (default 0.01); lower epsilon" in messages[0]
    # Equal targets: the constant predictor is the right one (review10).
    reg = DecentralizedKernelSGDRegressor(kernel="rbf", epsilon=1e6, random_state=0)
    assert _fit(reg, X, np.full(len(g), 7.0), g) == []
    assert _empty(reg).all()
    np.testing.assert_allclose(reg.predict(X, groups=g), 7.0, rtol=1e-9)
