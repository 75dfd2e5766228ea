"""A MOCHA newcomer's centre where the fitted models cancel (issue 32).

A newcomer of MOCHA's shared model solves its problem toward the fitted
``w_0`` (:mod:`skfed.multitask._join`).  Where the fitted tasks come in
groups whose models point different ways (rotated moons: four rotations;
tasks in clusters) ``w_0`` averages them away, near chance, and 5-20
samples shrunk toward it stay under Local.  Two facts, each measured
before on its own, make a rule:

* the fitted models' *coherence*, computed by the server from the models
  it holds (no message)::

      rho = ||mean_t w_t||^2 / mean_t ||w_t||^2

  (every problem and coordinate, intercept included) is 0.08-0.69 where
  the tasks come in groups (rotated moons but one seed of 18, the
  clustered families of :func:`~skfed.datasets.make_related_tasks`,
  shifted or not) and 0.88-1.0 where they share one task up to noise
  (HAR's subjects 0.97-0.99, Landmine, School, the alike / small / wide /
  narrow families);
* a newcomer's *margin centre*: it uploads the direction of ``s = sum_i
  sw_i y_i z_i`` (its labelled samples' weighted sum in the fit's feature
  space, ``P d'`` values of :data:`UPLOAD_BITS` bits, in the message that
  already carries its number of samples), the server ranks the fitted
  models by ``w_t . s / ||w_t||`` (how well each one's direction agrees
  with the newcomer's labels) and answers the plain mean of the first
  :data:`N_RANKED` instead of ``w_0`` (same size).

With ``rho <`` :data:`COHERENCE_T` the newcomer's prior centre is its
margin centre; it still solves its own problem at its rehearsed scale.
Else (and under ``privacy``, for regressors, for more than two classes,
with fewer than ``2`` :data:`N_RANKED` fitted nodes, or where the
feature-mean gate already placed it, :mod:`skfed.multitask._join_neighbours`)
nothing changes, bit for bit.  The upload adds ``ceil(P d' bits / 64)``
8-byte words to the newcomer's first message (two on rotated moons, d' =
21: 320 bytes a join of 20 newcomers, where float64 sums would be 3,360
and break the join's tenth of a refit); no message or round is added.

Measured on ``benchmarks/new_nodes.py``'s splits
(``benchmarks/mochak538_coherent_centre.py``, its docstring): rotated
moons seeds 0-11 ``k = 5 / 10 / 20`` 53.62 / 56.13 / 59.90 -> 55.11 /
57.52 / 60.98 (seeds 0-2: 55.72 -> 57.15 at ``k = 5``, above Local); the
clustered families +0.6 to +11.4; every alike family's, HAR's and
Landmine's rows unchanged.
"""

import math

import numpy as np

from ._compression import _FLOAT, quantize

COHERENCE_T = 0.7  # rho under it: the fitted models cancel in w_0
N_RANKED = 5  # the fitted models a margin centre averages
UPLOAD_BITS = 4  # bits per value of the uploaded label sum (its direction only)


def coherence(W):
    """``rho`` of fitted models ``W`` ``(P, m, d')``: the squared norm of
    their mean over the mean of their squared norms (1 if they are all 0)."""
    W = np.asarray(W, dtype=np.float64)
    flat = np.transpose(W, (1, 0, 2)).reshape(W.shape[1], -1)
    second = float(np.mean(np.einsum("td,td->t", flat, flat)))
    if not second > 0:
        return 1.0
    u = flat.mean(axis=0)
    return float(u @ u) / second


def label_sums(Z, Y, sw, offsets):
    """Each newcomer's upload ``(P, n_new, d')``: ``sum_i sw_i Y_pi z_i``
    over its rows (``Z`` node after node, ``offsets`` their starts)."""
    weighted = (Y * sw[None, :])[:, :, None] * Z[None, :, :]
    return np.add.reduceat(weighted, offsets[:-1], axis=1)


def margin_centres(W, S, n_ranked=N_RANKED):
    """``(P, n_new, d')``: per problem and newcomer the plain mean of the
    ``n_ranked`` fitted models ``W`` ``(P, m, d')`` of largest ``w_t . s /
    ||w_t||`` for its upload ``s`` (``S``, :func:`label_sums`); ties go to
    the lower index, a zero model scores 0."""
    norms = np.linalg.norm(W, axis=2)  # (P, m)
    scores = np.einsum("pmd,pnd->pnm", W, S) / np.where(norms > 0, norms, 1.0)[:, None, :]
    top = np.argsort(-scores, axis=2, kind="stable")[:, :, :n_ranked]  # (P, n_new, r)
    return np.stack([W[p][top[p]].mean(axis=1) for p in range(W.shape[0])])


def coherent_centres(est, W, Z, Y, sw, offsets):
    """The newcomers' prior centres ``(P, n_new, d')`` when the rule acts
    (see the module), else ``None``: ``W`` the server's fitted models ``(P,
    m, d')``, ``Z`` / ``Y`` / ``sw`` the newcomers' features, targets and
    weights node after node (``offsets``)."""
    if (getattr(est, "omega_mode_", None) != "shared" or est._noised()
            or len(getattr(est, "classes_", ())) != 2 or W.shape[1] < 2 * N_RANKED
            or coherence(W) >= COHERENCE_T):
        return None
    return margin_centres(W, sent_sums(label_sums(Z, Y, sw, offsets)))


def sent_sums(S, bits=None):
    """What the server holds of the uploads ``S``: each newcomer's ``s``
    rounded to ``bits`` (:data:`UPLOAD_BITS`) bits a value on its own
    ``max |s_j|`` (:func:`~skfed.multitask._compression.quantize`).  The
    ranking reads only the direction of ``s``, so the scale is not sent."""
    return quantize(S, UPLOAD_BITS if bits is None else bits)


def upload_floats(W, bits=None):
    """The 8-byte words a newcomer adds to its first message when the rule
    acts: its ``P d'`` values of ``bits`` bits, rounded up to whole words
    (the join's byte model counts its messages in float64s)."""
    bits = UPLOAD_BITS if bits is None else bits
    return math.ceil(W.shape[0] * W.shape[2] * bits / (8 * _FLOAT))
