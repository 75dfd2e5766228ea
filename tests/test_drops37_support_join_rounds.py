"""FederatedSparseLinearRegression.add_nodes under drops (drops37): the
server's message to each new node is a DropWait step; its rounds against a
reference that draws every round in full (``draw_round``) from the join's
seed and sends to each new node in its first round up."""

import numpy as np
import pytest

from skfed.network import SimulatedNetwork
from skfed.support import FederatedSparseLinearRegression
from skfed.support._join import _first_draw, _seeded

HEADER = 16


@pytest.mark.parametrize("drop, seed", [(0.0, 0), (0.3, 1), (0.6, 2), (0.9, 3)])
def test_join_rounds_are_each_new_nodes_first_round_up(drop, seed):
    rng = np.random.RandomState(seed)
    n_nodes, n, d, n_old = 30, 20, 10, 18
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    y = 2 * X[:, 1] - X[:, 4] + 0.3 * rng.normal(size=len(groups))
    old = groups < n_old
    net = SimulatedNetwork(drop_rate=drop, random_state=seed)
    reg = FederatedSparseLinearRegression(network=net, per_node_intercept=False,
                                          random_state=seed + 5)
    reg.fit(X[old], y[old], groups=groups[old])
    reg.add_nodes(X[~old], y[~old], groups=groups[~old])
    n_new = n_nodes - n_old
    # the reference: full rounds from the join's seed
    sim = net.start(n_nodes, server=True,
                    random_state=_seeded([_first_draw(reg.random_state), n_old, 7919]))
    waiting, arrivals = np.arange(n_old, n_nodes), []
    while len(waiting):
        active = sim.draw_round()[0]
        arrivals.append(int(active[waiting].sum()))
        waiting = waiting[~active[waiting]]
    m = len(reg.refit_features_) + 1  # (the shared intercept)
    per_new = (HEADER + -(-d // 8)) + (HEADER + 8 * m)
    log = reg.join_communication_
    assert sum(arrivals) == n_new
    assert log.n_rounds == len(arrivals)
    assert (drop == 0) == (len(arrivals) == 1)
    np.testing.assert_array_equal(log.bytes_per_round, per_new * np.array(arrivals))
    np.testing.assert_array_equal(log.messages_per_round, 2 * np.array(arrivals))
