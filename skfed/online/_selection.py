"""``kernel="auto"``: the kernel chosen by validation within the nodes.

Every node holds out every 4th of its samples (in arrival order),
fits every candidate kernel alone on the rest (``consensus_penalty=0``: no
message), and reports its mean validation loss for each candidate, the loss
the estimator minimizes weighted by ``sample_weight`` (the held-out samples
and the losses are those of :mod:`._holdout`, shared with the joins).  The network sums the reports over a spanning tree
of its topology (every node but the root sends its parent one message of
``n_candidates + 1`` float64 values, the root sends the choice back down as
one int32), and every node then streams with the kernel of least mean loss,
every node counting the same.  The candidates are the linear kernel and the
nonlinear one of ``_nonlinear_kernel`` (the laplacian kernel from
``_AUTO_LAPLACIAN_FEATURES`` features on, the rbf kernel below): a rule
shared by many nodes that are alike or a few samples a node in many
dimensions favour the first, a curved boundary the second.
"""

import warnings

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import breadth_first_order
from sklearn.base import clone

from ..network import payload_bytes
from ._holdout import arrival_folds, loss_values, node_mean_losses
from ._validation import _AUTO_LAPLACIAN_FEATURES


def _nonlinear_kernel(n_features):
    """The nonlinear candidate of ``kernel="auto"`` at ``n_features`` features."""
    return "laplacian" if n_features >= _AUTO_LAPLACIAN_FEATURES else "rbf"


def holdout_mask(codes, n_nodes, every=4):
    """Which samples every node holds out: every ``every``-th of its samples
    in arrival order (the 4th, 8th, ...), so the choice does not depend on
    the node labels or any seed; a node of fewer than ``every`` samples
    holds out none (it reports nothing)."""
    return arrival_folds(codes, n_nodes, every) == every - 1


def tree_parents(adjacency):
    """Parent of every node in breadth-first spanning trees of ``adjacency``
    (one tree per connected component, rooted at its smallest node; -1 for
    a root)."""
    n_nodes = adjacency.shape[0]
    parents = np.full(n_nodes, -1, dtype=np.intp)
    seen = np.zeros(n_nodes, dtype=bool)
    graph = sparse.csr_matrix(adjacency)
    for root in range(n_nodes):
        if seen[root]:
            continue
        order, pred = breadth_first_order(graph, root, directed=False,
                                          return_predecessors=True)
        seen[order] = True
        parents[order] = np.where(pred[order] >= 0, pred[order], -1)
    return parents


def count_selection_messages(counter, parents, n_candidates):
    """Count the sum over the spanning trees and the choice sent back down."""
    up = payload_bytes(n_float64=n_candidates + 1)
    down = payload_bytes(n_int32=1)
    for node in np.flatnonzero(parents >= 0):
        counter.send_message(int(node), int(parents[node]), up)
        counter.send_message(int(parents[node]), int(node), down)


class _KernelSelectionMixin:
    """``kernel="auto"``: fit the candidates alone, choose by held-out loss."""

    def _kernel_candidates(self, n_features):
        return [_nonlinear_kernel(n_features), "linear"]

    def _held_out_classes_ok(self, y_train):
        """Every class keeps a training sample (else the candidates' outputs
        would not line up with the classes)."""
        if not hasattr(self, "classes_"):
            return True
        return len(np.unique(y_train)) == len(self.classes_)

    def _select_kernel(self, X, y, codes, sample_weight, y_encoded, epochs):
        """Choose ``kernel_`` among the candidates (each fitted alone by
        ``epochs`` passes); fills ``kernel_selection_``."""
        n_nodes = len(self.nodes_)
        candidates = self._kernel_candidates(X.shape[1])
        held = holdout_mask(codes, n_nodes)
        train = ~held
        losses = np.full((len(candidates), n_nodes), np.nan)
        if held.any() and self._held_out_classes_ok(y[~held]):
            weight = None if sample_weight is None else sample_weight[train]
            for k, kernel in enumerate(candidates):
                alone = clone(self).set_params(
                    kernel=kernel, consensus_penalty=0.0, network=None, group_column=None,
                    random_state=int(self._node_seeds[0]), max_epochs=epochs,
                )
                alone._fit_alone(X[train], y[train], codes[train], weight, self)
                F = alone._raw_decision_codes(X[held], codes[held])
                values = loss_values(self._loss_name(), F, y_encoded[held])
                losses[k] = node_mean_losses(values, codes[held], n_nodes,
                                             sample_weight[held])
        reporting = ~np.isnan(losses[0])
        mean = (losses[:, reporting].mean(axis=1) if reporting.any()
                else np.zeros(len(candidates)))
        choice = int(np.argmin(mean))  # ties: the nonlinear kernel (first)
        self._pending_selection = len(candidates)
        self.kernel_selection_ = {
            "candidates": candidates, "mean_validation_loss": mean,
            "node_validation_loss": losses, "kernel": candidates[choice],
        }
        return candidates[choice]

    def _fit_alone(self, X, y, codes, sample_weight, parent):
        """Fit with the parent's node labels and classes (nodes by code)."""
        groups = parent.nodes_[codes]
        with warnings.catch_warnings():
            # one node: the parent has said so already
            warnings.simplefilter("ignore", UserWarning)
            self.fit(X, y, groups=groups if len(parent.nodes_) > 1 else None,
                     sample_weight=sample_weight)
        # A node whose samples were all held out is missing from this fit.
        self._code_map = np.searchsorted(self.nodes_, parent.nodes_)
        return self

    def _raw_decision_codes(self, X, codes):
        out = np.zeros((X.shape[0], self._n_outputs))
        for node in np.unique(codes):
            rows = np.flatnonzero(codes == node)
            out[rows] = self._node_function(int(self._code_map[node]), X[rows])
        return out
