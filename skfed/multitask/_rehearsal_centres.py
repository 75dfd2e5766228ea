"""The rehearsal's centres when the feature-mean gate is open (issue 32).

With the gate open (:mod:`skfed.multitask._join_neighbours`) a MOCHA
newcomer solves its problem toward the mean model of the fitted nodes
nearest its samples' feature mean, not toward ``w_0``; its scale of ``c_n``
was rehearsed around ``w_0`` (:mod:`skfed.multitask._rehearsal`), a prior
that on Landmine is far weaker than the neighbours' mean, so the newcomer
weighed its 5-20 samples too much against a good centre (landneg36: most
of MOCHA's false positives at ``k = 10, 20`` on seeds 6-11 are newcomers
holding 1-2 positives).  A scale is only meaningful for the centre it was
measured around: here each rehearsing draw is centred as a newcomer of its
size would be.  Its ``k`` training samples' feature mean picks, by the
gate's placement (the server's whitening map and
:data:`~skfed.multitask._join_neighbours.NEIGHBOURS` nearest fitted
means), the size-weighted mean model of the nearest fitted nodes *other
than the draw's own* (whose model was fitted on the rows the draw is
scored on, as a newcomer's neighbours never are), and the draw solves
toward it at every scale.  The rule has no constant: it is the join's own
placement at the draw's own size and number of nodes.

Bytes: for each draw set it rehearses, a node uploads its kept draws'
feature means (``d`` float32 values each, one message) and the server adds
their centres (``P d'`` float32 values each) to its request
(:meth:`~skfed.multitask._rehearsal.Rehearsal.collect`).  With the gate
closed nothing changes, bit for bit.
"""

import numpy as np

from .._magnitude import as_message
from .._mean_neighbours import nearest_rows, node_means
from ..network import float_bytes
from ._join_neighbours import NEIGHBOURS, mean_model

__all__ = ["CENTRE_BYTES", "DrawCentres", "draw_centres", "paired_result", "two_class_draws"]

# The draws' means and centres travel as float32 (as the gate's scatters):
# in float64 they added 10 kB to Landmine's first join of 14.6 kB.
CENTRE_DTYPE = np.float32
CENTRE_BYTES = float_bytes(CENTRE_DTYPE)


class DrawCentres:
    """What the server holds to centre rehearsing draws: the fitted nodes'
    feature means, masses, whitening map and models.

    Parameters
    ----------
    gate : FeatureNeighbours
        Open.
    W : ndarray of shape (n_problems, n_nodes, d')
        The fitted nodes' models.
    """

    def __init__(self, gate, W):
        self.n_features = int(gate.n_features)
        self.weights = np.asarray(gate.weights, dtype=np.float64)
        L = getattr(gate, "whiten", None)
        self.whiten = None if L is None else np.asarray(L, dtype=np.float64)
        self.means = np.asarray(gate.means, dtype=np.float64)
        self.W = np.array(W, dtype=np.float64)

    def centres(self, Z, sw, k, owners, perms, kept, fallback):
        """Each draw's centre ``(P, n_draws, d')``.

        Draw ``j`` trains on rows ``perms[j][:k]`` of its node ``owners[j]``
        (``Z[owners[j]]``, ``sw[owners[j]]``: the node's design rows and
        weights); a draw not ``kept`` keeps ``fallback`` ``(P, d')``.
        """
        out = np.repeat(np.asarray(fallback, dtype=np.float64)[:, None, :], len(owners), axis=1)
        idx = np.flatnonzero(kept)
        if not idx.size:
            return out
        rows = [Z[int(owners[j])][perms[j][:k], :self.n_features] for j in idx.tolist()]
        weights = [sw[int(owners[j])][perms[j][:k]] for j in idx.tolist()]
        offsets = np.concatenate([[0], np.cumsum([len(r) for r in rows])])
        means = as_message(node_means(np.concatenate(rows), np.concatenate(weights), offsets)[0],
                           CENTRE_DTYPE, "A rehearsing draw's feature means")
        fitted = self.means
        if self.whiten is not None:
            fitted, means = fitted @ self.whiten, means @ self.whiten
        near = nearest_rows(fitted, means, NEIGHBOURS, exclude=np.asarray(owners)[idx])
        for j, chosen in zip(idx.tolist(), near):
            out[:, j] = as_message(mean_model(self.W, self.weights, chosen), CENTRE_DTYPE,
                                   "A rehearsing draw's centre")
        return out


def draw_centres(gate, W):
    """A :class:`DrawCentres` if ``gate`` is open, else None (the rehearsal
    solves toward ``w_0`` or its chosen centre, as before)."""
    if gate is None or not gate.open:
        return None
    return DrawCentres(gate, W)


def two_class_draws(Y, k, owners, perms):
    """Whether each draw's ``k`` training rows hold two classes or more
    (``Y[t]`` node ``t``'s targets ``(P, n_t)`` as the solver sees them:
    signs of one binary problem, or one-vs-rest columns)."""
    out = np.zeros(len(owners), dtype=bool)
    for j, (t, p) in enumerate(zip(np.asarray(owners).tolist(), perms)):
        Yt = Y[int(t)][:, p[:k]]
        labels = (Yt[0] > 0) if Yt.shape[0] == 1 else np.argmax(Yt, axis=0)
        out[j] = len(np.unique(labels)) > 1
    return out


def paired_result(errors, chosen):
    """``(mean errors, standard errors of the paired difference with scale
    1)`` over the draws ``chosen`` of ``errors`` ``(n_scales, n_draws)``
    (the form of :meth:`~skfed.multitask._rehearsal.Rehearsal._rehearse`'s
    results), or None with fewer than two."""
    if int(np.sum(chosen)) < 2:
        return None
    e = errors[:, chosen]
    diff = e - e[0]
    return e.mean(axis=1), diff.std(axis=1, ddof=1) / np.sqrt(e.shape[1])
