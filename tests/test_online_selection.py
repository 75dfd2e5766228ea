"""kernel="auto": the kernel chosen by validation within the nodes.

Every check is against an independent computation: the losses against the
Cython losses, the held-out rows against their definition, the reported
validation losses against explicit fits of each candidate alone scored in
NumPy, the bytes against their closed form.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skfed.network import SimulatedNetwork
from skfed.online import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor
from skfed.online._holdout import arrival_folds, arrival_rank, loss_values, node_mean_losses
from skfed.online._selection import count_selection_messages, holdout_mask, tree_parents
from skfed.online._validation import _LOSSES


@pytest.mark.parametrize("loss, n_out", [("squared_error", 1), ("hinge", 1), ("log_loss", 1),
                                         ("multiclass_hinge", 4),
                                         ("multinomial_log_loss", 4)])
def test_loss_values_equal_the_solver_losses(loss, n_out):
    rng = np.random.RandomState(0)
    F = 3 * rng.normal(size=(50, n_out))
    if loss == "squared_error":
        y = rng.normal(size=50)
    elif n_out == 1:
        y = rng.choice([-1.0, 1.0], size=50)
    else:
        y = rng.randint(n_out, size=50).astype(float)
    solver = _LOSSES[loss]()
    expected = [solver.py_value(F[i], y[i]) for i in range(50)]
    assert_allclose(loss_values(loss, F, y), expected, rtol=1e-12, atol=1e-14)


def test_holdout_is_every_fourth_sample_of_a_node_in_arrival_order():
    codes = np.array([1, 0, 1, 1, 0, 1, 2, 1, 0, 0, 1, 1, 1, 2, 2])
    mask = holdout_mask(codes, 3)
    for node in range(3):
        rows = np.flatnonzero(codes == node)
        expected = np.zeros(len(rows), bool)
        expected[3::4] = True
        assert_array_equal(mask[rows], expected)
    assert mask.sum() == 1 + 2 + 0


def test_arrival_folds_and_weighted_node_means_against_their_definitions():
    rng = np.random.RandomState(0)
    codes = rng.randint(4, size=40)
    codes[codes == 3] = 2  # node 3 has no sample
    rank, folds = arrival_rank(codes, 4), arrival_folds(codes, 4, 3)
    for node in range(4):
        rows = np.flatnonzero(codes == node)
        assert_array_equal(rank[rows], np.arange(len(rows)))
        assert_array_equal(folds[rows], np.arange(len(rows)) % 3)
    values, w = rng.uniform(size=40), rng.uniform(0.1, 2.0, size=40)
    means = node_mean_losses(values, codes, 4, w)
    for node in range(3):
        rows = codes == node
        assert_allclose(means[node], (w[rows] * values[rows]).sum() / w[rows].sum())
    assert np.isnan(means[3])
    assert_allclose(node_mean_losses(values, codes, 4)[:3],
                    [values[codes == k].mean() for k in range(3)])


def test_selection_messages_split_by_sender_add_up_to_the_whole():
    # An MPI rank counts the messages its nodes send; over any split of the
    # nodes the counts add up to the one-process count, pair by pair.
    from skfed._core._comm import CommCounter

    A = np.zeros((7, 7))
    for i, j in [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 6), (6, 0)]:
        A[i, j] = A[j, i] = 1
    parents = tree_parents(A)
    whole = CommCounter(7, server=False, header_bytes=16)
    count_selection_messages(whole, parents, 2)
    parts = []
    for senders in ([0, 1, 2], [3, 4, 5, 6]):
        part = CommCounter(7, server=False, header_bytes=16)
        count_selection_messages(part, parents, 2, senders=senders)
        parts.append(part.snapshot())
    expected = whole.snapshot()
    assert_array_equal(parts[0]["pair_bytes"] + parts[1]["pair_bytes"], expected["pair_bytes"])
    assert_array_equal(parts[0]["pair_messages"] + parts[1]["pair_messages"],
                       expected["pair_messages"])
    # 6 tree edges, up 16 + 3 x 8 bytes and down 16 + 4.
    assert expected["pair_bytes"].sum() == 6 * (40 + 20)


def test_tree_parents_span_every_component():
    # Two components: a path 0-1-2-3 and an edge 4-5; node 6 alone.
    A = np.zeros((7, 7))
    for i, j in [(0, 1), (1, 2), (2, 3), (4, 5)]:
        A[i, j] = A[j, i] = 1
    parents = tree_parents(A)
    assert_array_equal(parents, [-1, 0, 1, 2, -1, 4, -1])


def _alike_linear(n_nodes=12, n=24, d=5, seed=0):
    rng = np.random.RandomState(seed)
    w = rng.normal(size=d)
    groups = np.repeat(np.arange(n_nodes), n)
    X = rng.normal(size=(n_nodes * n, d))
    coef = w + 0.3 * rng.normal(size=(n_nodes, d))
    y = np.einsum("ij,ij->i", X, coef[groups])
    return X, y, groups


@pytest.mark.parametrize("kind, weighted", [("classifier", False), ("regressor", False),
                                            ("classifier", True)])
def test_selection_equals_candidates_fitted_alone_and_scored_in_numpy(kind, weighted,
                                                                     monkeypatch):
    X, margin, groups = _alike_linear()
    n_nodes = 12
    sw = (np.random.RandomState(2).uniform(0.2, 3.0, size=len(groups)) if weighted
          else np.ones(len(groups)))
    if kind == "classifier":
        y = (margin > 0).astype(int)
        Est = DecentralizedKernelSGDClassifier
    else:
        y = margin + 0.3 * np.random.RandomState(1).normal(size=len(margin))
        Est = DecentralizedKernelSGDRegressor
    params = dict(max_epochs=3, shuffle=False, random_state=0, consensus_penalty=0.1)
    if kind == "regressor":
        params["loss"] = "squared_error"
    est = Est(**params).fit(X, y, groups=groups, sample_weight=sw)
    if kind == "regressor":
        # The candidates learn the targets in the location and scale agreed
        # on all rows; the reference fits on 3/4 of them are given them.
        agreed = (est.target_offset_, est.target_scale_)

        def set_agreed(self, y, codes, combine=None, sample_weight=None):
            self.target_offset_, self.target_scale_ = agreed
            self._pending_scale = True

        monkeypatch.setattr(Est, "_set_target_encoding", set_agreed)
    sel = est.kernel_selection_
    assert sel["candidates"] == ["rbf", "linear", "affine"]
    # The reference: each candidate alone (no consensus) on the rows not
    # held out (every 4th of a node), scored on the held-out rows by the
    # estimator's own loss, node by node, then averaged over the nodes.
    held = np.zeros(len(y), bool)
    for node in range(n_nodes):
        held[np.flatnonzero(groups == node)[3::4]] = True
    means = []
    for kernel in sel["candidates"]:
        alone = Est(kernel=kernel, **{**params, "consensus_penalty": 0.0}).fit(
            X[~held], y[~held], groups=groups[~held], sample_weight=sw[~held])
        if kind == "classifier":
            f = alone.decision_function(X[held], groups=groups[held])
            t = np.where(y[held] == 1, 1.0, -1.0)
            values = np.maximum(0.0, 1.0 - t * f)
        else:
            # (the solver's loss: in the encoded targets' units)
            values = 0.5 * ((alone.predict(X[held], groups=groups[held]) - y[held])
                            / est.target_scale_) ** 2
        # Means weighted by sample_weight (plain means without it).
        per_node = [np.average(values[groups[held] == k], weights=sw[held][groups[held] == k])
                    for k in range(n_nodes)]
        assert_allclose(sel["node_validation_loss"][len(means)], per_node, rtol=1e-10)
        means.append(np.mean(per_node))
    assert_allclose(sel["mean_validation_loss"], means, rtol=1e-10)
    assert est.kernel_ == sel["kernel"] == sel["candidates"][int(np.argmin(means))]
    # A linear rule shared by alike nodes: the linear kernel wins (with
    # equal weights; the random weights here make the step small).
    assert weighted or est.kernel_ == "linear"
    # The main fit is the explicit kernel's fit, plus the selection round
    # (a regressor's explicit fit has the round too: its targets' location
    # and scale, which the selection's sum shares).
    explicit = Est(kernel=est.kernel_, **params).fit(X, y, groups=groups, sample_weight=sw)
    for i in range(n_nodes):
        assert_array_equal(est.dual_coef_[i], explicit.dual_coef_[i])
    assert est.n_iter_ == explicit.n_iter_ + (kind == "classifier")


def test_curved_boundary_selects_the_nonlinear_kernel():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(6), 40)
    X = rng.uniform(-2, 2, size=(240, 2))
    y = (X[:, 0] * X[:, 1] > 0).astype(int)  # XOR: no linear rule
    clf = DecentralizedKernelSGDClassifier(max_epochs=5, random_state=0).fit(X, y, groups=groups)
    assert clf.kernel_ == "rbf"
    loss = clf.kernel_selection_["mean_validation_loss"]
    assert loss[0] < loss[1]


@pytest.mark.parametrize("header", [16, 100])
def test_selection_bytes_are_a_spanning_tree_sum_and_the_choice_back(header):
    X, margin, groups = _alike_linear(n_nodes=7)
    y = (margin > 0).astype(int)
    net = SimulatedNetwork("ring", header_bytes=header)
    clf = DecentralizedKernelSGDClassifier(max_epochs=1, random_state=0, network=net)
    clf.fit(X, y, groups=groups)
    explicit = DecentralizedKernelSGDClassifier(
        kernel=clf.kernel_, max_epochs=1, random_state=0, network=net).fit(X, y, groups=groups)
    # 6 tree edges: up, 3 candidates' losses + a count (4 float64); down, an int32.
    assert clf.bytes_per_round_[0] == 6 * ((header + 4 * 8) + (header + 4))
    assert_array_equal(clf.bytes_per_round_[1:], explicit.bytes_per_round_)
    assert clf.communication_.total_bytes == clf.bytes_per_round_.sum()
    assert np.isnan(clf.consensus_error_curve_[0])
    assert clf.model_order_curve_.shape == (clf.n_iter_, 7)
    assert clf.communication_.total_messages == explicit.communication_.total_messages + 12


def test_fixed_step_or_explicit_kernel_selects_nothing():
    X, margin, groups = _alike_linear()
    y = (margin > 0).astype(int)
    fixed = DecentralizedKernelSGDClassifier(eta0=0.1, max_epochs=1).fit(X, y, groups=groups)
    assert fixed.kernel_selection_ is None and fixed.kernel_ == "rbf"
    rbf = DecentralizedKernelSGDClassifier(kernel="rbf", max_epochs=1).fit(X, y, groups=groups)
    assert rbf.kernel_selection_ is None
