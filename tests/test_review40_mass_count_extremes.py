"""review40: the count protocol (``skfed._node_mass.count_protocol``) on
reports an adversary picks from the extremes: NaN, +-inf, +-0, the smallest
subnormal, float64's largest, negatives, all equal, one node.  References:
NumPy's :func:`~skfed._node_mass.agreed_max_mass` and the confidences of
:func:`~skfed._node_mass.node_scale` (NaN reports left out, as the protocol
does; while ``0 < M < inf``), the mean of the non-NaN reports, and the search's 64-round bound.
No defect found."""

import warnings

import numpy as np
import pytest

from skfed._node_mass import agreed_max_mass, count_protocol, node_scale

POOL = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, 5e-324, 1e-320, 2.2e-308, 0.25, 1.0,
                 2.0, 3.0, 4.0, 7.5, 1e300, np.finfo(np.float64).max, -1.0, -1e308])


def _same(a, b):
    return (np.isnan(a) and np.isnan(b)) or a == b


def _check(mass):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        M = agreed_max_mass(mass)
        conf = node_scale(mass)[0]
        conf = conf[~np.isnan(mass)]
        mean = np.mean(mass[~np.isnan(mass)])
    for kind in ("dada", "persolin"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)   # (0 / 0 when M = 0)
            summary, trips = count_protocol(mass, kind)
        assert _same(summary["max_mass"], M), (kind, mass)
        assert len(trips) <= 2 + 64
        if np.isfinite(mean):
            assert summary["mean_mass"] == pytest.approx(mean, rel=1e-12, abs=1e-300)
        if kind == "persolin" and 0 < M < np.inf:   # (confidences m / M)
            assert _same(summary["median_confidence"], np.median(conf)), mass
            assert _same(summary["min_confidence"], np.min(conf)), mass


def test_extreme_reports_agree_with_numpy():
    rng = np.random.default_rng(40)
    n_checked = 0
    for _ in range(3000):
        n = int(rng.integers(1, 9))
        mass = rng.choice(POOL, n)
        if rng.random() < 0.3:
            with np.errstate(over="ignore", invalid="ignore"):   # (a max doubled: inf)
                mass = mass * rng.uniform(0.5, 2.0, n)
        if np.isnan(mass).all():
            continue
        _check(mass)
        n_checked += 1
    assert n_checked > 2000


@pytest.mark.parametrize("mass", [[3.0], [5e-324], [np.inf], [2.0] * 7, [np.nan, 2.0],
                                  [1e308, 1e308, 1e308], [-0.0, 0.0, 0.0]])
def test_one_node_and_all_equal(mass):
    _check(np.array(mass))
