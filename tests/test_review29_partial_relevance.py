"""review29: Dada's second vote round (``partial_relevance``) conditions on
every selected feature, whatever their units and duplicates.

The round regresses the labels and each candidate on an intercept and the
selected features at the node (QR).  At c219bad it kept ``Q[:, :rank]``,
``rank`` the number of diagonal entries of ``R`` above 1e-10 times the
largest entry of ``R``:

* a selected feature in units 1e10 times the intercept's (or 1e-12) made
  the intercept's diagonal "small", ``rank`` 1, and ``Q[:, :1]`` the
  intercept alone: the selected feature was not conditioned on (r2 off by
  0.18 against the same data in unit scale; the first round's relevance is
  scale-free);
* a selected feature collinear with an earlier selected one (a duplicated
  feature: both get the first round's votes) dropped the *last* selected
  feature instead of the duplicate (candidate r2 0.17 instead of 0.30).

Reference: NumPy least squares on the deduplicated design (intercept and the
distinct selected features), the partial correlation from its residuals.
"""

import numpy as np
import pytest

from skfed.boosting import _dada_vote as dv


def _reference_r2(X, y, offsets, selected_columns, candidates):
    K = len(offsets) - 1
    out = np.zeros((K, X.shape[1]))
    for k in range(K):
        rows = slice(offsets[k], offsets[k + 1])
        A = np.column_stack([np.ones(offsets[k + 1] - offsets[k]), X[rows][:, selected_columns]])

        def residual(v):
            return v - A @ np.linalg.lstsq(A, v, rcond=None)[0]

        ry = residual(y[rows].astype(float))
        for j in np.flatnonzero(candidates):
            rx = residual(X[rows, j])
            out[k, j] = (rx @ ry) ** 2 / ((rx @ rx) * (ry @ ry))
    return out


def _nodes(seed=0, K=4, n=40, d=5):
    rng = np.random.default_rng(seed)
    return rng.normal(size=(K * n, d)), np.arange(K + 1) * n


@pytest.mark.parametrize("scale", [1.0, 1e10, 1e14, 1e-12])
def test_selected_feature_in_any_unit(scale):
    X, offsets = _nodes()
    X[:, 0] += 5
    y = (X[:, 0] - 5 + X[:, 1] > 0).astype(int)
    X[:, 0] *= scale
    selected = np.array([True, False, False, False, False])
    r2, dof, part = dv.partial_relevance(X, y, offsets, selected, ~selected)
    ref = _reference_r2(X / np.r_[scale, 1, 1, 1, 1], y, offsets, [0], ~selected)
    np.testing.assert_allclose(r2, ref, atol=1e-9)
    assert dof.tolist() == [40 - 2 - 1] * 4 and part.all()


def test_duplicated_selected_feature():
    X, offsets = _nodes(1)
    X[:, 1] = 2.0 * X[:, 0]                 # the same measurement in another unit
    y = (X[:, 0] + X[:, 2] + 0.7 * X[:, 3] > 0).astype(int)
    selected = np.array([True, True, True, False, False])
    candidates = np.array([False, False, False, True, True])
    r2, dof, _ = dv.partial_relevance(X, y, offsets, selected, candidates)
    ref = _reference_r2(X, y, offsets, [0, 2], candidates)
    np.testing.assert_allclose(r2, ref, atol=1e-9)
    assert dof.tolist() == [40 - 3 - 1] * 4      # intercept and two distinct features


def test_selected_feature_constant_at_a_node():
    # a selected feature constant at one node (collinear with its intercept,
    # first in the design): the other selected feature is still conditioned on
    X, offsets = _nodes(2)
    X[:40, 0] = 3.0
    y = (X[:, 1] + 0.8 * X[:, 3] > 0).astype(int)
    selected = np.array([True, True, False, False, False])
    candidates = ~selected
    r2, dof, _ = dv.partial_relevance(X, y, offsets, selected, candidates)
    np.testing.assert_allclose(r2[0], _reference_r2(X, y, offsets, [1], candidates)[0],
                               atol=1e-9)
    np.testing.assert_allclose(r2[1:], _reference_r2(X, y, offsets, [0, 1], candidates)[1:],
                               atol=1e-9)
    assert dof.tolist() == [37, 36, 36, 36]
