"""The refit's curvature-pair transfer (skfed.multitask._curvature) against
the Moreau envelope of quadratic node losses, computed in NumPy."""

import numpy as np
import pytest

from skfed.multitask._curvature import MEMORY, add_pair, curvature_ratio, transfer_pairs


def _envelope(H, r0, mu):
    """Node t's ``u_t = mu (H_t + mu I)^-1 r_t`` and its envelope Hessian
    ``mu H_t (H_t + mu I)^-1`` (quadratic loss of Hessian ``H_t``)."""
    d = H.shape[-1]
    inv = np.linalg.inv(H + mu * np.eye(d))
    return mu * np.einsum("tij,tj->ti", inv, r0), mu * H @ inv


@pytest.mark.parametrize("mu_old, mu_new", [(0.1, 0.4), (0.085, 85_000.0), (2.0, 0.5)])
def test_ratio_is_exact_for_one_curvature_per_node(mu_old, mu_new):
    """Every node of one curvature h (H = h I): the ratio of the u_t is the
    envelope's curvature ratio (mu_new / mu_old) (h + mu_old) / (h + mu_new),
    and the transferred pair is the penalty plus the new envelope Hessian
    times s, summed over the nodes."""
    rng = np.random.RandomState(0)
    m, d, h = 5, 4, 0.7
    H = np.repeat(h * np.eye(d)[None], m, axis=0)
    r0 = rng.normal(size=(m, d))
    u_old, A_old = _envelope(H, r0, mu_old)
    u_new, A_new = _envelope(H, r0, mu_new)
    ratio = curvature_ratio(u_old[None], u_new[None], mu_old, mu_new)
    assert ratio == pytest.approx((mu_new / mu_old) * (h + mu_old) / (h + mu_new), rel=1e-12)
    s = rng.normal(size=d)
    e = A_old.sum(axis=0) @ s  # the envelope part of the old pair's gradient change
    penalty = 0.3
    S, Y, _ = transfer_pairs([s], [e], np.full(d, penalty), ratio)
    assert len(S) == 1
    np.testing.assert_allclose(Y[0], penalty * s + A_new.sum(axis=0) @ s, rtol=1e-10)


def test_ratio_stays_in_the_envelopes_range():
    """Nodes of many curvatures: the estimate lies between the smallest and
    largest per-direction factor, hence in [1, mu_new / mu_old]; with no
    evidence (u_old = 0) it is mu_new / mu_old, the far end of that range."""
    rng = np.random.RandomState(1)
    m, d, mu_old, mu_new = 6, 5, 0.1, 10.0
    Q = np.linalg.qr(rng.normal(size=(d, d)))[0]
    h = np.array([1e-3, 0.05, 0.3, 2.0, 50.0])
    H = np.repeat((Q * h) @ Q.T[None], m, axis=0)
    r0 = rng.normal(size=(m, d))
    u_old, _ = _envelope(H, r0, mu_old)
    u_new, _ = _envelope(H, r0, mu_new)
    ratio = curvature_ratio(u_old, u_new, mu_old, mu_new)
    rho = (mu_new / mu_old) * (h + mu_old) / (h + mu_new)
    assert rho.min() <= ratio <= rho.max()
    assert 1.0 <= ratio <= mu_new / mu_old
    assert curvature_ratio(np.zeros(3), np.ones(3), 1.0, 8.0) == 8.0
    assert curvature_ratio(np.zeros(3), np.ones(3), 8.0, 1.0) == 0.125


def test_pairs_keep_positive_curvature_and_the_memory():
    """A pair without positive curvature is refused; past MEMORY pairs the
    oldest leaves (all three lists)."""
    pairs = ([], [], [])
    assert not add_pair(pairs, np.array([1.0, 0.0]), np.array([-1.0, 0.0]))
    for k in range(MEMORY + 2):
        assert add_pair(pairs, np.array([1.0, k]), np.array([2.0, 0.0]), k)
    assert [len(p) for p in pairs] == [MEMORY] * 3
    assert pairs[2][0] == 2 and pairs[2][-1] == MEMORY + 1
