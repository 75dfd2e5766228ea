"""The nodes' curvature bounds that scale the personal path refit's first step."""

import numpy as np
import pytest

from skfed._core._multitask_fast import Multinomial
from skfed.multitask._curvature import node_curvatures


class _Layout:
    def __init__(self, counts):
        self.offsets = np.r_[0, np.cumsum(counts)]
        self.n_nodes = len(counts)

    def node_slice(self, t):
        return slice(self.offsets[t], self.offsets[t + 1])


def _hessian(loss, Z, sw, total, W, y):
    """The exact Hessian of ``sum_i (s_i / n_t) loss(W z_i, y_i)`` in ``W``
    (NumPy, independent of the module)."""
    d = Z.shape[1]
    if loss == "multinomial":
        K = W.shape[0]
        H = np.zeros((K * d, K * d))
        for z, s in zip(Z, sw):
            e = np.exp(W @ z - (W @ z).max())
            p = e / e.sum()
            H += s / total * np.kron(np.diag(p) - np.outer(p, p), np.outer(z, z))
        return H
    zw = Z @ W[0]
    if loss == "logistic":
        sig = 1.0 / (1.0 + np.exp(-y * zw))
        second = sig * (1.0 - sig)
    elif loss == "squared_hinge":
        second = 2.0 * (1.0 - y * zw > 0)
    else:  # squared: (z - y)^2 / 2
        second = np.ones_like(zw)
    return (Z * (sw * second / total)[:, None]).T @ Z


@pytest.mark.parametrize("loss", ["logistic", "squared_hinge", "squared", "multinomial"])
def test_node_curvatures_bound_the_exact_hessian(loss):
    """Every node's bound is c lambda_max of its weighted second moment (as
    computed here on the d x d matrix), in float32 rounded up, and at least
    the largest eigenvalue of its loss term's exact Hessian at random points
    (equal to it where the loss's second derivative is at its maximum)."""
    rng = np.random.RandomState(0)
    counts = [3, 12, 7]  # fewer and more rows than features
    d = 5
    Z = rng.randn(sum(counts), d) * rng.uniform(0.5, 3.0, size=d)
    sw = rng.uniform(0.2, 2.0, size=sum(counts))
    layout = _Layout(counts)
    totals = np.add.reduceat(sw, layout.offsets[:-1]) * 1.3
    obj = Multinomial() if loss == "multinomial" else None
    name = "logistic" if loss == "multinomial" else loss
    bound = node_curvatures(Z, sw, layout, totals, name, obj)
    c = dict(logistic=0.25, squared_hinge=2.0, squared=1.0, multinomial=0.5)[loss]
    assert bound.shape == (3,)
    for t in range(3):
        sl = layout.node_slice(t)
        moment = (Z[sl] * (sw[sl] / totals[t])[:, None]).T @ Z[sl]
        expected = c * np.linalg.eigvalsh(moment)[-1]
        assert bound[t] >= expected
        assert bound[t] == pytest.approx(expected, rel=2 ** -22)
        assert np.float32(bound[t]) == bound[t]  # travels in float32
        K = 3 if loss == "multinomial" else 1
        y = rng.choice([-1.0, 1.0], size=counts[t]) if loss != "squared" else rng.randn(counts[t])
        top = 0.0
        for scale in (0.0, 0.1, 1.0, 5.0):
            W = scale * rng.randn(K, d)
            top = max(top, np.linalg.eigvalsh(_hessian(loss, Z[sl], sw[sl], totals[t], W, y))[-1])
            assert top <= bound[t] * (1 + 1e-12)
        if loss != "multinomial":  # the logistic at W = 0, squared (hinge) inside the margin
            assert top == pytest.approx(expected, rel=1e-9)


def test_hinge_has_no_curvature_bound():
    layout = _Layout([2, 2])
    assert node_curvatures(np.ones((4, 2)), np.ones(4), layout, np.full(2, 2.0),
                           "hinge", None) is None


def test_node_without_weight_bounds_nothing():
    """A node whose samples all weigh zero has curvature 0 (no loss term)."""
    layout = _Layout([2, 3])
    sw = np.r_[0.0, 0.0, np.ones(3)]
    bound = node_curvatures(np.ones((5, 2)), sw, layout, np.r_[0.0, 3.0], "logistic", None)
    np.testing.assert_array_equal(bound[0], 0.0)
    assert bound[1] == pytest.approx(0.25 * 2.0, rel=2 ** -22)
