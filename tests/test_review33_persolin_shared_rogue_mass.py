"""Perso-lin's shared solve when rogue nodes negate their kept mass (review33).

``join_neighbours="shared"`` (persolin32) starts its hub solve by summing
every node's kept mass ``M``; ``lambda = 1 / M``.  A rogue node under
``rogue_behavior="complement"`` sends its mass negated.  With
``SimulatedNetwork(rogue_fraction=0.49)`` on 8 equal nodes,
``round(0.49 * 8) = 4`` nodes are rogue, the negated masses cancel the
honest ones exactly and ``fit`` raised ``ZeroDivisionError: float division
by zero`` (skfed/boosting/_perso_lin_shared.py ``solve_shared``); with
fewer, larger rogue nodes ``M`` was negative (a negative penalty).  Fixed
(one line): the hub counts a negative mass as 0, as no honest mass is
negative.
"""

import warnings

import numpy as np
import pytest

from skfed import PersonalizedLinearClassifier
from skfed.boosting import _perso_lin_shared as sh
from skfed.network import SimulatedNetwork

HEADER = 16


def _equal_nodes(n_nodes=8, rows=40, d=5, seed=0):
    rng = np.random.RandomState(seed)
    w = rng.normal(size=d)
    X = rng.normal(size=(n_nodes * rows, d))
    y = (X @ w + 0.3 * rng.normal(size=len(X)) > 0).astype(int)
    return X, y, np.repeat(np.arange(n_nodes), rows)


@pytest.mark.parametrize("seed", [0, 1])
def test_fit_with_half_the_nodes_negating_their_mass(seed):
    X, y, g = _equal_nodes()
    net = SimulatedNetwork(rogue_fraction=0.49, rogue_behavior="complement", random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PersonalizedLinearClassifier(join_neighbours="shared", network=net,
                                           random_state=0).fit(X, y, groups=g)
    assert int(np.sum(est._join_info["rogue"])) == 4     # round(0.49 * 8)
    assert 1 <= est.newcomer_gate_["n_rounds"] <= sh.SHARED_ROUNDS
    assert np.isfinite(est.coef_).all()


def test_hub_mass_is_the_honest_nodes_and_bytes_unchanged(monkeypatch):
    """The solve's lambda is 1 / (the honest nodes' kept mass) when the rogue
    nodes negate theirs; the bytes keep their closed form."""
    X, y, g = _equal_nodes()
    Z = np.c_[X, np.ones(len(X))]
    Y = np.where(y == 1, 1.0, -1.0)[None]
    offsets = np.arange(0, len(X) + 1, 40)
    n, nb = 8, Z.shape[1]
    keep = np.ones(len(y), dtype=bool)
    keep[::7] = False                               # unequal kept masses
    sim = SimulatedNetwork(rogue_fraction=0.49, rogue_behavior="complement",
                           random_state=0).start(n, random_state=0)
    sim.rogue[:] = False
    sim.rogue[[1, 2, 3, 4]] = True
    seen = []
    real = sh.sketch_preconditioner

    def spy(Z_, w_, offsets_, scale, mass, sim_):
        seen.append(mass)
        return real(Z_, w_, offsets_, scale, mass, sim_)

    monkeypatch.setattr(sh, "sketch_preconditioner", spy)
    S, used = sh.solve_shared(Z, Y, np.ones(len(y)), offsets, keep, sim, nb - 1)
    honest_mass = sum(keep[offsets[k]:offsets[k + 1]].sum() for k in (0, 5, 6, 7))
    assert seen == [pytest.approx(float(honest_mass))]
    assert np.isfinite(S).all() and 1 <= used <= sh.SHARED_ROUNDS
    per_eval = (n - 1) * ((HEADER + 4 * nb) + (HEADER + 4 * (nb + 1)))
    fixed = (n - 1) * ((HEADER + 4 * (nb + 1)) + (HEADER + 4 * nb) + (HEADER + 4 * nb * min(10, nb)))
    assert sim.log(node_labels=np.arange(n)).total_bytes == fixed + used * per_eval
