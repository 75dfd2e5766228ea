"""The node-mass search's pivots on reported values spanning float64's range.

review38 noted that ``skfed._node_mass._pivots`` raised a RuntimeWarning
(``inf - inf``) when the reported values' range exceeds float64's largest
(a liar reporting -1e308 beside 1e308): the spread-based guess became NaN
and a NaN was turned into a key.  Now such a round uses the middle and the
quarter points only; the search stays exact (its values against NumPy's
sort) and warns of nothing.
"""

import warnings

import numpy as np
import pytest

from skfed._node_mass import _keys, _middle_pair, _pivots, _value


def test_pivots_over_a_range_past_float64_warn_nothing():
    lo, hi = (int(k) for k in _keys(np.array([-1e308, 1e308])))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        picks = _pivots(lo, hi, 10, 4)
    assert picks and all(lo < p <= hi for p in picks) and picks == sorted(set(picks))
    # the key range's middle is always among them
    assert lo + (hi - lo + 1) // 2 in picks


@pytest.mark.parametrize("seed", range(5))
def test_middle_pair_exact_on_extreme_values(seed):
    rng = np.random.RandomState(seed)
    values = np.r_[rng.choice([-1e308, 1e308, -5e307, 7e307], size=7),
                   rng.lognormal(size=int(rng.randint(3, 20)))]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        low, high, rounds = _middle_pair(_keys(values))
    ordered = np.sort(values)
    n = len(values)
    assert _value(low) == ordered[(n - 1) // 2] and _value(high) == ordered[n // 2]
    assert 1 <= rounds <= 64
