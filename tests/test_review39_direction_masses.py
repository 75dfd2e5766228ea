"""review39: the scatter pool's direction check (``skfed._mean_scatter.
direction_factors``, xfail37) against masses the hub cannot verify.

Dada's and Perso-lin's hub holds each node's mass as the node sent it (a
rogue's row of mean and mass is corrupted whole, ``np.abs`` of it:
``boosting/_dada_gate.py``, ``_mean_neighbours.py``).  The attack is
scatter34's: ``q`` rogues of Landmine cut to 10 rows send ``t u u^T``,
``u`` the top direction of the fitted means' spread, ``t`` the largest the
size limit keeps.  References: the pool's growth along ``u`` against the
honest sum in NumPy, the factors against the check run without the liar.
"""

import numpy as np
import pytest

from skfed import _mean_scatter as ms

from .test_scatter34_top_attack import _strongest_top, _tri, landmine10  # noqa: F401


@pytest.fixture(scope="module")
def attacked(landmine10):  # noqa: F811
    """scatter34's attack with 3 rogues (nodes 1-3): the scatters, d, the
    true masses, u, the honest sum and the rogues."""
    full, means, masses = landmine10
    rogue = np.arange(1, 4)
    bad, _, u = _strongest_top(full, means, masses, len(rogue))
    honest = np.setdiff1d(np.arange(len(full)), rogue)
    return _tri(bad), full.shape[1], masses, u, full[honest].sum(axis=0), rogue


def _growth(attacked, masses):
    tri, d, _, u, H, _ = attacked
    pooled, factors = ms.pool_scatters(tri, d, masses=masses)
    return float(u @ pooled @ u / (u @ H @ u)), factors


def test_honest_masses_bound_the_attack(attacked):
    # the control: xfail37's check with the masses as they are
    growth, factors = _growth(attacked, attacked[2])
    assert 1.0 < growth < 1.2                              # measured 1.126
    assert factors[attacked[5]].max() < 0.01


@pytest.mark.parametrize("lie", [0.0, -0.0, np.nan])
def test_a_massless_liar_does_not_turn_the_check_off(attacked, lie):
    # one node (not a rogue: its scatter is honest) says its mass is 0: the
    # check was off for every node (all(w > 0) false) and the pool grew 116
    # times along u; now the liar leaves the pool and the others are checked
    # as without it
    tri, d, masses, _, _, rogue = attacked
    lied = masses.copy()
    lied[5] = lie
    growth, factors = _growth(attacked, lied)
    assert factors[5] == 0.0
    assert growth < 1.2
    others = np.delete(np.arange(len(tri)), 5)
    alone = ms.direction_factors(tri[others], d, np.ones(len(others), bool), masses[others])
    np.testing.assert_array_equal(
        ms.direction_factors(tri, d, np.ones(len(tri), bool), lied)[others], alone)
    assert alone[rogue].max() < 0.01                       # (rogues 1-3 keep their index)


@pytest.mark.parametrize("lie", [1e3, 1e6])
def test_rogues_claiming_a_large_mass_are_bounded(attacked, lie):
    # the rogues also claim a large mass: their shares were divided by it
    # (1e3: growth 40.9, 1e6: 116, the size limit's alone); a mass now
    # counts at most MASS_CLIP = 4 times the median (as the confidences'
    # scale, skfed._node_mass): any lie weighs as 4 x 10
    masses, rogue = attacked[2], attacked[5]
    lied = masses.copy()
    lied[rogue] = lie
    growth, factors = _growth(attacked, lied)
    assert growth < 2.0                                    # measured 1.79
    at_clip = masses.copy()
    at_clip[rogue] = 4 * np.median(masses)
    np.testing.assert_array_equal(factors, _growth(attacked, at_clip)[1])
    assert factors[rogue].max() < 0.01
