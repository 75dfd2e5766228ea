"""The state of one Dada fit and the nodes' sizes (split out of ``_dada.py``).

:class:`_BoostingState` holds a fit's node-ordered arrays and drives the
kernels of ``_boosting_fast`` (purely local steps, asynchronous
Frank-Wolfe) and what the graph steps read (the models they compare and
the data that scores them: the boosting models, or the kernel graph models
of :mod:`skfed.boosting._kernel_graph`).
"""

import numpy as np

from .._core._boosting_fast import fw_async, fw_local, lse_losses
from ._agreement import fw_message_bytes
from ._base import _StateMixin, _graph_objective_value, _node_chunks, _run_chunks
from ._stumps import stump_groups


# Weight of the peer scores with ``peer_scoring=True`` (see the docstring's
# ``peer_scoring`` for the measurements that chose it).
DEFAULT_SCORE_WEIGHT = 3.0


class _BoostingState(_StateMixin):
    """Arrays of one Dada fit, node-ordered (see ``_boosting_fast``)."""

    unit = None  # per node: quality grid step of its private choices
    choice_scale = 0
    # graph_signal="kernel": (phi, models) of the kernel graph models
    # (_kernel_graph) and the pairs whose receiver holds a sender's model.
    kernel = None
    sent_models = None

    def __init__(self, H, Y, sw, offsets, confidence, beta, mu, dtype, rogue, rogue_mode,
                 score_weight=DEFAULT_SCORE_WEIGHT):
        self.H, self.Y, self.sw, self.offsets = H, Y, sw, offsets
        self.confidence = confidence
        self.score_weight = float(score_weight)
        self.beta, self.mu, self.dtype = float(beta), float(mu), dtype
        self.K = offsets.shape[0] - 1
        self.P = Y.shape[0]
        self.n_base = H.shape[1]
        self.rogue = rogue
        self.rogue_mode = rogue_mode
        self.setup_bytes = 0
        self.reset_models()

    def reset_models(self):
        self.alpha = np.zeros((self.K, self.P, self.n_base), dtype=self.dtype)
        self.public = np.zeros_like(self.alpha)
        self.margins = np.zeros((self.P, self.H.shape[0]))
        self.losses = np.zeros((self.K, self.P))
        lse_losses(self.margins, self.sw, self.offsets, self.losses)

    def local_models(self, n_steps, n_jobs):
        chunks = _node_chunks(self.K, n_jobs)

        private = {}
        if self.dp is not None:
            private = {"unit": self.unit, "scale": self.choice_scale}
            self.dp.local_done[:] = n_steps
        # One stream of secure words per thread.
        streams = {chunk: self.source.stream() for chunk in chunks} if private else {}

        def run(chunk):
            extra = dict(private, stream=streams[chunk]) if private else {}
            fw_local(self.H, self.Y, self.sw, self.offsets, self.alpha, self.margins,
                     self.losses, self.beta, n_steps, chunk[0], chunk[1], **extra)

        _run_chunks(run, chunks)
        self.public[...] = self.alpha


    def graph_models(self):
        """The models the graph steps compare: the kernel models, or the boosting ones."""
        if self.kernel is not None:
            return self.kernel[1].reshape(self.K, -1)
        return self.public.reshape(self.K, -1)

    def score_exchange(self, runner, counter, nodes=None):
        """Before a re-learning: refresh the scores of the graph neighbours.

        The kernel graph models never change during the fit, so neither do
        the scores a node holds: nothing is sent.
        """
        if self.kernel is not None:
            return 0
        return super().score_exchange(runner, counter, nodes)

    def objective(self):
        """Eq. 1 recomputed from scratch (nodes of degree 0 weigh their loss by 1)."""
        return _graph_objective_value(self.alpha, self.losses, self.graph, self.degree,
                                      self.confidence, self.mu)

    def score_data(self):
        """What the graph steps need to score a received model on a node's data.

        ``(H, Y, sw, offsets, factor, loss, H8, groups)``: the log-sum-exp
        of the margins (``loss`` None), every node's weighted by
        ``score_weight`` (``peer_scoring``; not by its confidence); ``H8``
        is H as int8 when every entry is +-1 (decision stumps and the
        intercept), read by the scores instead of H (the same values, an
        eighth of the memory traffic), else None; ``groups``: with Dada's
        own stumps (``stump_layout``), H's columns by feature
        (:func:`stump_groups`: a margin is one look-up a feature), or None.
        """
        if self.kernel is not None:
            # Node k's samples in the kernel features score the kernel models.
            return (self.kernel[0], self.Y, self.sw, self.offsets,
                    np.full(self.K, self.score_weight), None, None, None)
        if not hasattr(self, "_H8"):
            exact = self.H.size and np.all(np.abs(self.H) == 1)
            self._H8 = np.ascontiguousarray(self.H, dtype=np.int8) if exact else None
            layout = getattr(self, "stump_layout", None)
            self._stump_groups = (stump_groups(self._H8, *layout)
                                  if self._H8 is not None and layout is not None else None)
        return (self.H, self.Y, self.sw, self.offsets,
                np.full(self.K, self.score_weight), None, self._H8, self._stump_groups)

    def async_steps(self, t, n_steps, clock, node_state, offline, simulation, budget, spent):
        curve = np.zeros(n_steps)
        empty_i = np.zeros(0, dtype=np.intp)
        n_done, n_updates, spent, self.current = fw_async(
            self.H, self.Y, self.sw, self.offsets, self.alpha, self.public, self.margins,
            self.losses, self.indptr, self.indices, self.weights, self.degree,
            self.confidence, self.beta, self.mu, int(t), int(n_steps), clock, node_state,
            offline, self.rogue, self.rogue_mode, simulation.counter,
            fw_message_bytes(self.n_base, self.P), int(budget), int(spent),
            self.running_objective(), curve, empty_i, empty_i, np.zeros(0),
            **self._private_args(),
        )
        self.n_iter_done += n_done
        return n_done, n_updates, spent, curve[:n_done]

    def _private_args(self):
        if self.dp is None:
            return {}
        if self.stream is None:
            self.stream = self.source.stream()
        return {"unit": self.unit, "scale": self.choice_scale, "stream": self.stream,
                "wakeups_left": self.dp.wakeups_left, "stopped_at": self.dp.stopped_at,
                "it_offset": int(self.n_iter_done)}


# ------------------------------------------------------------------- Dada
def _node_sizes(Xs, sws, offsets):
    """Distinct samples of positive weight of every node (rows compared exactly).

    A duplicated row, like a row of weight 2, counts once; a row of weight
    0 not at all.
    """
    sizes = np.zeros(len(offsets) - 1, dtype=np.int64)
    for k, (start, stop) in enumerate(zip(offsets[:-1].tolist(), offsets[1:].tolist())):
        rows = Xs[start:stop][sws[start:stop] > 0]
        if rows.shape[0]:
            sizes[k] = np.unique(rows, axis=0).shape[0]
    return sizes


def _distinct_samples(Xs, sws, offsets):
    """Distinct samples of positive weight per node, summed over the nodes.

    A node counts its own (a sample held by two nodes counts twice, an
    upper bound).
    """
    return int(_node_sizes(Xs, sws, offsets).sum())
