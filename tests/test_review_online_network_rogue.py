"""Review: the network function and rogue nodes.

A rogue node corrupts the subtree mean it sends up the spanning tree, which
carries its honest descendants' functions too, so a few rogue nodes near
the root flipped most of the mean (the never-seen node scored 0.147 here).
Fixed: with rogue nodes in the network every parent checks the messages it
receives on its own samples and drops those that do worse than ignoring
``x`` (``tests/test_online_network_rogue.py`` checks the protocol against
NumPy).
"""

import numpy as np

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier


def test_unseen_node_prediction_survives_three_rogue_nodes_of_ten():
    rng = np.random.RandomState(0)
    n_nodes, n, d = 10, 30, 3
    X = rng.normal(size=(n_nodes * n, d))
    groups = np.repeat(np.arange(n_nodes), n)
    y = (X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    X_test = rng.normal(size=(400, d))
    y_test = (X_test[:, 0] + 0.3 * X_test[:, 1] > 0).astype(int)
    est = DecentralizedKernelSGDClassifier(
        max_epochs=2, random_state=0, gamma=0.5,
        network=SimulatedNetwork("ring", rogue_fraction=0.3, rogue_behavior="complement",
                                 random_state=0),
    ).fit(X, y, groups=groups)
    rogue = np.flatnonzero(est._rogue)
    assert rogue.tolist() == [0, 3, 9]
    honest = np.setdiff1d(np.arange(n_nodes), rogue)
    honest_mean = np.mean([est._node_function(i, X_test)[:, 0] for i in honest], axis=0)
    # The honest nodes' mean scores 0.978 here; the network function was 0.147.
    assert np.mean((honest_mean > 0) == y_test) > 0.95
    # The rogue root's child 9 (subtree 9-6) and node 3 (subtree 3-5) are dropped.
    assert np.flatnonzero(est.network_excluded_).tolist() == [3, 4, 5, 6, 7, 8, 9]
    unseen = est.predict(X_test, groups=np.full(len(X_test), 99))
    assert np.mean(unseen == y_test) > 0.9
