"""A perfect network's rounds are not drawn, but its stream moves as if they were.

``NetworkSimulation.draw_rounds`` on a network where nothing can fail
(``drop_rate = straggler_rate = rogue_fraction = 0``) returns every node
active with all its work and advances the fault stream past the
``3 n_rounds n_nodes`` doubles it used to draw (eig36 found the online
learner's tree rounds drawing them one round at a time: quadratic in the
nodes on a ring).  Reference: the draws made with a copy of the stream.
"""

import numpy as np
import pytest

from skfed import SimulatedNetwork


def _reference(sim, n_rounds):
    rng = np.random.Generator(type(sim.rng.bit_generator)())
    rng.bit_generator.state = sim.rng.bit_generator.state
    shape = (n_rounds, sim.n_nodes)
    active = rng.uniform(size=shape) >= 0.0
    straggling = rng.uniform(size=shape) < 0.0
    fractions = rng.uniform(0.1, 1.0, size=shape)
    return active, np.where(straggling, fractions, 1.0), rng


@pytest.mark.parametrize("n_rounds, n_nodes", [(1, 1), (1, 7), (5, 40), (3, 1000)])
def test_perfect_rounds_equal_the_drawn_ones_and_leave_the_same_stream(n_rounds, n_nodes):
    sim = SimulatedNetwork().start(n_nodes, random_state=0)
    sim.rng.integers(5)          # a buffered 32-bit half must survive the skip
    sim.rng.random()
    active_ref, work_ref, rng = _reference(sim, n_rounds)
    active, work = sim.draw_rounds(n_rounds)
    np.testing.assert_array_equal(active, active_ref)
    np.testing.assert_array_equal(work, work_ref)
    assert active.dtype == bool and work.dtype == np.float64
    # the draws that follow are the same
    np.testing.assert_array_equal(sim.rng.random(9), rng.random(9))
    assert sim.rng.integers(2**31, size=3).tolist() == rng.integers(2**31, size=3).tolist()


def test_faulty_network_still_draws():
    sim = SimulatedNetwork(drop_rate=0.5).start(200, random_state=0)
    active, _ = sim.draw_rounds(2)
    assert 0 < active.mean() < 1
