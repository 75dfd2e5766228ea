"""The dual bound of the shared-component model's certificate: at the
nodes' reported dual variables and at combinations of evaluated rounds'
(methods of :class:`skfed.multitask._shared._SharedFit`, kept here so that
module stays small)."""

import numpy as np


def dual_value(self, conj, s_norm, uu):
    """The dual bound from a conjugate sum, a bound on ``||sum_t u_t||``
    and one on ``sum_t ||u_t||^2`` (the fixed-share dual when ``b`` is
    fixed, else the joint one)."""
    lam_m = self.lam * self.m
    if self.fixed is not None:
        b_w = self.fixed if self.b_w is None else self.b_w
        return -conj - b_w * s_norm**2 / (2.0 * lam_m) - uu / (2.0 * self.nodes.mu)
    return -conj - np.maximum(s_norm**2, uu) / (2.0 * lam_m)


def combined_dual(self):
    """The best dual bound over the segment between the anchor (the
    dual variables of the best bound so far, itself a combination of
    evaluated ones) and the nodes' current dual variables.

    Any convex combination ``theta alpha_a + (1 - theta) alpha`` of
    dual-feasible variables is dual-feasible, and the server bounds its
    dual from what it holds: the conjugate sum by the combination of the
    reported ones (the conjugate is convex), ``||sum_t u_t||`` by the
    norm of the combined copies plus the combined residual bounds, and
    each ``||u_t||^2`` by ``theta^2 q_a + (1 - theta)^2 q + 2 theta (1 -
    theta) c_t``, ``c_t`` an upper bound on ``<u_at, u_t>`` (the copies'
    product plus the residual terms, or Cauchy-Schwarz).  Nothing
    travels: the server keeps one more copy of the ``u_t``.  Returns the
    bound (the anchor moves to its maximizer).
    """
    conj = self.report[:, 1].copy()
    q = self.report[:, 2].copy()
    r = self.report[:, 3].copy()
    U = self.U.copy()
    if self._anchor is None:
        self._anchor = dict(conj=conj, q=q, r=r, U=U)
        return float(self._dual_value(conj.sum(), np.sqrt(np.vdot(U.sum(axis=1), U.sum(axis=1)))
                                      + r.sum(), q.sum()))
    a = self._anchor
    Ua_norm = np.sqrt(np.einsum("ktd,ktd->t", a["U"], a["U"]))
    U_norm = np.sqrt(np.einsum("ktd,ktd->t", U, U))
    cross = np.minimum(np.sqrt(a["q"] * q),
                       np.einsum("ktd,ktd->t", a["U"], U) + a["r"] * U_norm
                       + r * Ua_norm + a["r"] * r)
    Sa, S = a["U"].sum(axis=1), U.sum(axis=1)
    saa, sss, sas = np.vdot(Sa, Sa), np.vdot(S, S), np.vdot(Sa, S)
    theta = np.linspace(0.0, 1.0, 1001)
    c = 1.0 - theta
    s_norm = np.sqrt(np.maximum(theta**2 * saa + c**2 * sss + 2 * theta * c * sas, 0.0)) \
        + theta * a["r"].sum() + c * r.sum()
    uu = theta**2 * a["q"].sum() + c**2 * q.sum() + 2 * theta * c * cross.sum()
    duals = self._dual_value(theta * a["conj"].sum() + c * conj.sum(), s_norm, uu)
    k = int(np.argmax(duals))
    th = theta[k]
    self._anchor = dict(
        conj=th * a["conj"] + (1 - th) * conj,
        q=th**2 * a["q"] + (1 - th) ** 2 * q + 2 * th * (1 - th) * cross,
        r=th * a["r"] + (1 - th) * r, U=th * a["U"] + (1 - th) * U)
    return float(duals[k])
