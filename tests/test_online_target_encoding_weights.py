"""The online regressor's target encoding weighs the samples by ``sample_weight``.

``target_offset_`` and ``target_scale_`` came from the nodes' medians, MADs
and winsorized means of the raw rows, so a weighted sample counted once
(review10: weight 5 against 5 duplicated rows, offset 1.47 against 3.45).
A weight now counts as that many copies of the row in every statistic of
the encoding (median, MAD, mean absolute deviation, winsorized mean and
the node's count).  Checked against a NumPy reference written on the
duplicated rows; the fit itself streams samples (one step per row, the
weight scaling the step), so it is not duplication-equivalent and only
the encoding is compared.
"""

import numpy as np
import pytest

from skfed.online import DecentralizedKernelSGDRegressor
from skfed.online._robust import node_centres, node_log_scales

MAD = 1.482602218505602


def _reference(y, groups):
    """(offset, scale) of duplicated rows, in plain NumPy."""
    logs, means, counts = [], [], []
    for k in np.unique(groups):
        v = y[groups == k]
        med = np.median(v)
        mad = np.median(np.abs(v - med))
        spread = MAD * mad if mad > 0 else np.sqrt(np.pi / 2) * np.mean(np.abs(v - med))
        if len(v) >= 2 and spread > 0:
            logs.append(np.log(spread))
        reach = 3.0 * MAD * mad
        means.append(np.mean(np.clip(v, med - reach, med + reach) if reach > 0 else v))
        counts.append(len(v))
    scale = float(np.exp(np.mean(logs)))
    means, counts = np.array(means), np.array(counts, dtype=float)
    m = counts @ means / counts.sum()
    se = max(np.sqrt(np.sum((counts * (means - m)) ** 2)) / counts.sum(),
             scale / np.sqrt(counts.sum()))
    return (m if abs(m) > 2.0 * se else 0.0), scale


def _data(skew=True):
    rng = np.random.default_rng(4)
    n = 40
    groups = np.repeat(np.arange(4), n)
    X = rng.standard_normal((4 * n, 2))
    y = 2.0 * X[:, 0] + 0.5 * rng.standard_normal(4 * n)
    # weights tied to the targets, so that weighting moves every statistic
    w = np.where(y > 0.8, 5, 1) if skew else rng.integers(1, 4, size=4 * n)
    return X, y + 1.0, groups, w


@pytest.mark.parametrize("skew", [True, False])
def test_encoding_of_integer_weights_is_that_of_duplicated_rows(skew):
    X, y, groups, w = _data(skew)
    Xd, yd, gd = np.repeat(X, w, axis=0), np.repeat(y, w), np.repeat(groups, w)
    params = dict(kernel="rbf", gamma=0.5, max_epochs=1, random_state=0)
    weighted = DecentralizedKernelSGDRegressor(**params).fit(X, y, groups=groups,
                                                            sample_weight=w)
    copied = DecentralizedKernelSGDRegressor(**params).fit(Xd, yd, groups=gd)
    offset, scale = _reference(yd, gd)
    assert copied.target_offset_ == pytest.approx(offset, rel=1e-9, abs=1e-12)
    assert copied.target_scale_ == pytest.approx(scale, rel=1e-9)
    assert weighted.target_offset_ == pytest.approx(offset, rel=1e-9, abs=1e-12)
    assert weighted.target_scale_ == pytest.approx(scale, rel=1e-9)
    # the weights do move the encoding here (the test can fail)
    plain = DecentralizedKernelSGDRegressor(**params).fit(X, y, groups=groups)
    assert abs(plain.target_scale_ - scale) > 1e-3 * scale or abs(
        plain.target_offset_ - offset) > 1e-3 * abs(offset)


def test_node_statistics_of_weights_equal_those_of_copies():
    _, y, groups, w = _data()
    yd, gd = np.repeat(y, w), np.repeat(groups, w)
    np.testing.assert_allclose(node_centres(y, groups, 4, w), node_centres(yd, gd, 4),
                               rtol=1e-12)
    np.testing.assert_array_equal(node_log_scales(y, groups, 4, w), node_log_scales(yd, gd, 4))
    # unit weights are the unweighted statistics, to the bit
    ones = np.ones_like(y)
    np.testing.assert_array_equal(node_centres(y, groups, 4, ones), node_centres(y, groups, 4))
    np.testing.assert_array_equal(node_log_scales(y, groups, 4, ones),
                                  node_log_scales(y, groups, 4))


def test_scaling_the_weights_keeps_the_scale():
    X, y, groups, w = _data()
    params = dict(kernel="rbf", gamma=0.5, max_epochs=1, random_state=0)
    a = DecentralizedKernelSGDRegressor(**params).fit(X, y, groups=groups, sample_weight=w)
    b = DecentralizedKernelSGDRegressor(**params).fit(X, y, groups=groups,
                                                     sample_weight=0.5 * w)
    # medians and means do not change with a common factor of the weights
    assert b.target_scale_ == pytest.approx(a.target_scale_, rel=1e-9)
