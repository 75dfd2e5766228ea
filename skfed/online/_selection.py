"""``kernel="auto"``: the kernel chosen by validation within the nodes.

Every node holds out every 4th of its samples (in arrival order),
fits every candidate kernel alone on the rest (``consensus_penalty=0``: no
message), and reports its mean validation loss for each candidate, the loss
the estimator minimizes weighted by ``sample_weight`` (the held-out samples
and the losses are those of :mod:`._holdout`, shared with the joins).  The
network sums the reports over a spanning tree of its topology (every node
but the root sends its parent one message of ``n_candidates + 1`` float64
values, the root sends the choice back down as one int32), and every node
then streams with the kernel of least mean loss, every node counting the
same.  The MPI engine runs the same selection, each rank on its own nodes
(``combine``: one allgather, one allreduce).  The candidates are the
linear kernel and the nonlinear one of ``_nonlinear_kernel`` (the
laplacian kernel from ``_AUTO_LAPLACIAN_FEATURES`` features on, the rbf
kernel below): a rule shared by many nodes that are alike or a few samples
a node in many dimensions favour the first, a curved boundary the second.
"""

import numpy as np
from scipy import sparse
from scipy.sparse.csgraph import breadth_first_order
from sklearn.base import clone

from ..network import payload_bytes
from ._holdout import arrival_folds, loss_values, node_mean_losses, rows_by_node
from ._validation import _AUTO_LAPLACIAN_FEATURES, AFFINE_COEF0, _check_gamma


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


def count_tree_round(counter, parents, up, down, senders=None):
    """Count one round over the spanning trees: ``up`` bytes from every node
    to its parent, ``down`` bytes back (only the messages sent by
    ``senders`` when given: an MPI rank's nodes)."""
    mine = None
    if senders is not None:
        mine = np.zeros(len(parents), dtype=bool)
        mine[np.asarray(senders, dtype=np.intp)] = True
    for node in np.flatnonzero(parents >= 0):
        parent = int(parents[node])
        if mine is None or mine[node]:
            counter.send_message(int(node), parent, up)
        if mine is None or mine[parent]:
            counter.send_message(parent, int(node), down)


def tree_round(sim, parents, nodes, up, down):
    """One sum up the spanning tree of ``nodes`` and a reply down it, under
    the network's drops: a node sends ``up`` bytes to its parent once all
    its children have reported and both are active in a round; the root's
    reply (``down`` bytes) travels an edge when both ends are active.
    Returns the number of rounds used."""
    n = len(parents)
    member = np.zeros(n, dtype=bool)
    member[np.asarray(nodes, dtype=np.intp)] = True
    tree = np.where(member & (parents >= 0), parents, -1)
    tree = np.where((tree >= 0) & member[np.maximum(tree, 0)], tree, -1)
    children = [[] for _ in range(n)]
    for node in np.flatnonzero(tree >= 0):
        children[tree[node]].append(int(node))
    missing = np.array([len(c) for c in children], dtype=np.intp)
    ready = [int(v) for v in np.flatnonzero(member & (missing == 0) & (tree >= 0))]
    rounds = 0
    while ready:
        active = sim.draw_rounds(1)[0][0]
        later = []
        for node in ready:
            parent = int(tree[node])
            if active[node] and active[parent]:
                sim.counter.send_message(node, parent, up)
                missing[parent] -= 1
                if missing[parent] == 0 and tree[parent] >= 0:
                    later.append(parent)
            else:
                later.append(node)
        ready = later
        sim.counter.next_round()
        rounds += 1
    waiting = [c for root in np.flatnonzero(member & (tree < 0)) for c in children[root]]
    while waiting:
        active = sim.draw_rounds(1)[0][0]
        later = []
        for node in waiting:
            parent = int(tree[node])
            if active[node] and active[parent]:
                sim.counter.send_message(parent, node, down)
                later.extend(children[node])
            else:
                later.append(node)
        waiting = later
        sim.counter.next_round()
        rounds += 1
    return rounds


def count_selection_messages(counter, parents, n_candidates, senders=None):
    """Count the sum over the spanning trees and the choice sent back down
    (only the messages sent by ``senders`` when given: an MPI rank's nodes)."""
    count_tree_round(counter, parents, payload_bytes(n_float64=n_candidates + 1),
                     payload_bytes(n_int32=1), senders)


class _Alone:
    """How the selection combines what the nodes report, in one process:
    every node's values are here already (the MPI engine passes its own,
    which reduces over the ranks)."""

    def max(self, values):
        return values

    def sum(self, values):
        return values


def _candidate_sup(kernel, max_square_norm, affine_sup):
    """``max k(x, x)`` of a candidate kernel (linear: ``max ||x||^2``;
    affine: ``max gamma_i ||x||^2 + 1`` over every node's rows)."""
    if kernel == "linear":
        return max_square_norm
    if kernel == "affine":
        return affine_sup
    return 1.0


class _KernelSelectionMixin:
    """``kernel="auto"``: fit the candidates alone, choose by held-out loss."""

    def _kernel_candidates(self, n_features):
        return [_nonlinear_kernel(n_features), "linear", "affine"]

    def _select_kernel(self, X, codes, sample_weight, y_encoded, epochs, shuffle,
                       combine=None):
        """Choose ``kernel_`` among the candidates (each fitted alone by
        ``epochs`` passes on every node's training rows); fills
        ``kernel_selection_``.

        ``combine`` reduces over the processes that hold the nodes
        (``max`` of the statistics the alone fits share, ``sum`` of the
        per-node losses); by default every node is here.  A node's losses
        are non-zero in one process only, so the sum is exact and every
        process chooses as one process would.
        """
        combine = _Alone() if combine is None else combine
        n_nodes = len(self.nodes_)
        candidates = self._kernel_candidates(X.shape[1])
        held = holdout_mask(codes, n_nodes)
        train = ~held
        # What every alone fit reads of all nodes' training rows: the largest
        # ||x||^2, sample weight and |target| (its step and its divergence
        # guard), whether any row is held out, and the classes they hold.
        n_classes = len(getattr(self, "classes_", ()))
        stats = np.zeros(4 + n_classes)
        if train.any():
            stats[0] = np.einsum("ij,ij->i", X[train], X[train], dtype=np.float64).max()
            stats[1] = sample_weight[train].max()
            stats[2] = np.abs(y_encoded[train]).max()
        stats[3] = float(held.any())
        if n_classes:
            index = (y_encoded[train] > 0).astype(np.intp) if n_classes == 2 \
                else y_encoded[train].astype(np.intp)
            stats[4 + np.unique(index)] = 1.0
        stats = combine.max(stats)
        # Every node's affine gamma from its own training rows (0 where it
        # has none here: in MPI, the nodes of the other ranks), so the alone
        # fits' step reads every node's.
        affine_gamma = np.zeros(n_nodes)
        if train.any():
            has_rows = np.bincount(codes[train], minlength=n_nodes) > 0
            affine_gamma[has_rows] = _check_gamma(self.gamma, self.nodes_, X[train],
                                                  codes[train], "affine")[has_rows]
        affine_gamma = combine.max(affine_gamma)
        affine_sup = np.zeros(1)
        if train.any():
            sq = np.einsum("ij,ij->i", X[train], X[train], dtype=np.float64)
            affine_sup[0] = (affine_gamma[codes[train]] * sq).max() + AFFINE_COEF0
        affine_sup = float(combine.max(affine_sup)[0])
        losses = np.full((len(candidates), n_nodes), np.nan)
        # Every class keeps a training row (else the candidates' outputs
        # would not line up with the classes).
        if stats[3] and np.all(stats[4:] > 0):
            for k, kernel in enumerate(candidates):
                alone = self._fit_alone(kernel, X[train], y_encoded[train], codes[train],
                                        sample_weight[train], epochs, shuffle, stats,
                                        affine_gamma, affine_sup)
                F = np.zeros((int(held.sum()), self._n_outputs))
                held_codes = codes[held]
                X_held = X[held]
                for node, rows in rows_by_node(held_codes):
                    F[rows] = alone._node_function(node, X_held[rows])
                values = loss_values(self._loss_name(), F, y_encoded[held],
                                     self._loss_threshold())
                losses[k] = node_mean_losses(values, held_codes, n_nodes, sample_weight[held])
        reporting = ~np.isnan(losses[0])
        total = combine.sum(np.vstack([np.where(np.isnan(losses), 0.0, losses),
                                       reporting[None].astype(np.float64)]))
        reporting = total[-1] > 0
        losses = np.where(reporting[None], total[:-1], np.nan)
        mean = (losses[:, reporting].mean(axis=1) if reporting.any()
                else np.zeros(len(candidates)))
        choice = int(np.argmin(mean))  # ties: the nonlinear kernel (first)
        self._pending_selection = len(candidates)
        self.kernel_selection_ = {
            "candidates": candidates, "mean_validation_loss": mean,
            "node_validation_loss": losses, "kernel": candidates[choice],
        }
        return candidates[choice]

    def _fit_alone(self, kernel, X, y_encoded, codes, sample_weight, epochs, shuffle, stats,
                   affine_gamma, affine_sup):
        """A fit of ``kernel`` with no consensus on these rows (every node
        alone, no message): the fit ``fit`` would make with
        ``consensus_penalty=0`` and ``random_state`` the first node seed, its
        step and guard from ``stats`` (all nodes' training rows)."""
        alone = clone(self).set_params(
            kernel=kernel, consensus_penalty=0.0, network=None, group_column=None,
            random_state=int(self._node_seeds[0]), max_epochs=epochs,
        )
        alone.nodes_ = self.nodes_
        alone._dtype = self._dtype
        alone._n_outputs = self._n_outputs
        if hasattr(self, "classes_"):
            alone.classes_ = self.classes_
        for name in ("loss_threshold_", "target_offset_", "target_scale_"):
            if hasattr(self, name):  # (the encoding the targets it is given had)
                setattr(alone, name, getattr(self, name))
        alone._setup(X, codes, self._compress)
        if kernel == "affine":
            alone.gamma_ = np.where(affine_gamma > 0, affine_gamma, alone.gamma_)
        alone._kernel_sup_seen = _candidate_sup(kernel, float(stats[0]), affine_sup)
        alone._s_max_seen = float(stats[1])
        alone._target_scale = float(stats[2]) if self._is_regressor() else 1.0
        queues = alone._make_queues(codes, epochs, shuffle)
        alone._run(X, y_encoded, sample_weight, queues, epochs)
        return alone
