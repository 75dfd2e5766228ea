"""review38: the count protocol's cap check on tiny (subnormal) masses.

Dada's count protocol (``skfed._node_mass.count_protocol``) skips the
median search when both middle masses are at least a quarter of the
largest, which makes ``4 x median >= max`` and ``M = max``.  It counted
``m >= max / 4``; a quarter of a subnormal largest mass rounds (``5
x 5e-324 / 4`` to ``5e-324``, ``5e-324 / 4`` to 0), so on masses ``(u, u,
5 u)`` (``u = 5e-324``) the check passed and the protocol agreed on ``M =
5 u`` where the fit's ``agreed_max_mass`` (NumPy: ``min(max, 4 x
median)``) is ``4 u``.  The check now counts ``4 m >= max``, exact but for
overflow to inf, which is right too.  Normal masses: the same decision as
before (the same rounds and bytes).
"""

import numpy as np
import pytest

from skfed._node_mass import MASS_CLIP, agreed_max_mass, count_protocol

U = 5e-324  # the smallest positive float64


def _numpy_max(mass):
    valid = mass[~np.isnan(mass)]
    return float(min(valid.max(), MASS_CLIP * np.median(valid)))


@pytest.mark.parametrize("units", [(1, 1, 5), (1, 1, 1, 5, 5), (2, 2, 9), (3, 3, 3, 13)])
def test_subnormal_masses_agree_with_numpy(units):
    mass = np.array(units, dtype=np.float64) * U
    summary, trips = count_protocol(mass, "dada")
    assert summary["max_mass"] == _numpy_max(mass) == agreed_max_mass(mass)
    # the cap binds (4 x median < max): the median search ran
    assert _numpy_max(mass) < mass.max() and len(trips) > 2


def test_random_tiny_masses_agree_with_numpy():
    rng = np.random.default_rng(38)
    for _ in range(2000):
        K = int(rng.integers(1, 12))
        mass = rng.integers(1, 40, K) * U
        if rng.random() < 0.5:
            mass = mass * 2.0 ** int(rng.integers(0, 60))  # into the normal range
        for kind in ("dada", "persolin"):
            assert count_protocol(mass, kind)[0]["max_mass"] == _numpy_max(mass)


def test_normal_masses_take_the_same_rounds_as_the_quarter_check():
    # the old check (m >= max / 4) and the new (4 m >= max) decide alike on
    # normal masses: the same search decisions, so the same bytes
    rng = np.random.default_rng(0)
    for _ in range(3000):
        K = int(rng.integers(2, 60))
        mass = rng.lognormal(0.0, 1.5, K) * 10.0 ** int(rng.integers(-290, 290))
        mass[rng.random(K) < 0.1] = 1e6 * mass.max()  # liars
        n = K - (K - 1) // 2
        old = np.count_nonzero(mass >= mass.max() / 4.0) < n
        trips = count_protocol(mass, "dada")[1]
        assert (len(trips) > 2) == old


def test_huge_masses_overflowing_four_times_are_counted_right():
    # 4 m overflows to inf: at least any max, as 4 x median then is
    with np.errstate(over="ignore"):
        for mass in ([1e308, 1.5e308, np.inf], [1.0, 1e308, 1.7e308], [1.0, 2.0, 1e308]):
            mass = np.array(mass)
            summary, _ = count_protocol(mass, "dada")
            assert summary["max_mass"] == _numpy_max(mass)
