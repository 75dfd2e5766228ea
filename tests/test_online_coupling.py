"""consensus_penalty="auto" and the "random_regular" topology.

The selection is checked against an independent computation: explicit
public fits of each candidate on the training rows (every node's every 4th
sample held out), their held-out errors computed in NumPy, the final model
against a public fit with the chosen coupling and graph, and the bytes
against the sum of those fits' bytes plus the closed form of the tree round.
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.sparse.csgraph import connected_components

from skfed._topology import _topology_csr, random_regular_degree
from skfed.network import SimulatedNetwork, make_topology
from skfed.online import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
)
from skfed.online._coupling import (
    NO_COUPLING,
    NONE_MARGIN,
    STRONG_COUPLING,
    WEAK_COUPLING,
)

HEADER = 16


def _alike(n_nodes=12, n_per=16, seed=0, regression=False):
    rng = np.random.RandomState(seed)
    w = rng.normal(size=3)
    X = rng.normal(size=(n_nodes * n_per, 3))
    groups = np.repeat(np.arange(n_nodes), n_per)
    coef = w + 0.2 * rng.normal(size=(n_nodes, 3))
    score = np.einsum("ij,ij->i", X, coef[groups])
    if regression:
        return X, score + 0.3 * rng.normal(size=len(score)), groups
    return X, (score + 0.3 * rng.normal(size=len(score)) > 0).astype(int), groups


def _held(groups):
    rank = np.zeros(len(groups), dtype=int)
    for g in np.unique(groups):
        rows = np.flatnonzero(groups == g)
        rank[rows] = np.arange(len(rows))
    return rank % 4 == 3


def _huber(r, delta):
    a = np.abs(r)
    return np.where(a <= delta, 0.5 * r * r, delta * (a - 0.5 * delta))


def candidate_errors(est, Est, X, y, groups, common, monkeypatch, n_nodes):
    """The ``"auto"`` selection of fitted ``est`` redone by hand: each
    candidate of ``consensus_selection_`` fitted explicitly on the training
    rows (the strong one over the random regular graph drawn from the
    estimator's own seed, its network seed's stream 1; a regressor's in the
    target location and scale ``est`` agreed on all rows) and scored on the
    held-out rows: ``(errors (n_candidates, n_nodes), reference fits)``."""
    sel = est.consensus_selection_
    held = _held(groups)
    seed0 = int(est._node_seeds[0])
    graph = _topology_csr("random_regular", n_nodes, {"degree": random_regular_degree(n_nodes)},
                          random_state=np.random.RandomState([est._network_seed, 1]))
    networks = [None, SimulatedNetwork(topology=graph), None]
    regression = est._is_regressor()
    if regression:
        agreed = (est.target_offset_, est.target_scale_, est.loss_threshold_)

        def set_agreed(self, y, codes, combine=None, sample_weight=None):
            self.target_offset_, self.target_scale_, self.loss_threshold_ = agreed
            self._pending_scale = True

        monkeypatch.setattr(Est, "_set_target_encoding", set_agreed)
    errors, refs = [], []
    for c, eps, network in zip(sel["consensus_penalty"], sel["epsilon"], networks):
        ref = Est(consensus_penalty=c, epsilon=eps, network=network,
                  **{**common, "random_state": seed0}).fit(
            X[~held], y[~held], groups=groups[~held])
        refs.append(ref)
        pred = ref.predict(X[held], groups=groups[held])
        if regression:
            # (the held-out losses are the solver's: in the encoded targets'
            # units, so Huber's at loss_epsilon over scale^2)
            values = _huber(pred - y[held], est.loss_threshold_) / est.target_scale_ ** 2
        else:
            values = (pred != y[held]).astype(float)
        errors.append([values[groups[held] == g].mean() for g in range(n_nodes)])
    return np.array(errors), refs


@pytest.mark.parametrize("regression", [False, True])
def test_auto_coupling_equals_explicit_candidate_fits(regression, monkeypatch):
    X, y, groups = _alike(regression=regression)
    Est = DecentralizedKernelSGDRegressor if regression else DecentralizedKernelSGDClassifier
    common = dict(kernel="rbf", gamma=0.3, max_epochs=4, random_state=3)
    # (a regressor's share of the network function, chosen after the
    # coupling, has its own test: tests/test_online_network_share.py)
    share = {"network_share": 0.0} if regression else {}
    est = Est(consensus_penalty="auto", **common, **share).fit(X, y, groups=groups)
    sel = est.consensus_selection_
    assert sel["candidates"] == ["weak", "strong", "none"]
    assert sel["consensus_penalty"] == [WEAK_COUPLING, STRONG_COUPLING, NO_COUPLING]
    assert_allclose(sel["epsilon"], [est.epsilon, est.epsilon * WEAK_COUPLING / STRONG_COUPLING,
                                     est.epsilon])
    n_nodes = 12
    degree = random_regular_degree(n_nodes)
    assert sel["topology"] == ["default", "random_regular", "default"]
    held = _held(groups)
    # The strong candidate's graph: a random regular graph drawn from the
    # estimator's own seed (its network seed's stream 1), as in candidate_errors.
    graph = _topology_csr("random_regular", n_nodes, {"degree": degree},
                          random_state=np.random.RandomState([est._network_seed, 1]))
    if regression:
        # The candidates learn the targets in the location and scale agreed
        # on all rows (a fit on the training rows alone would agree on its
        # own): the reference fits are given them.
        agreed = (est.target_offset_, est.target_scale_, est.loss_threshold_)
        own = Est(max_epochs=1).fit(X[~held], y[~held], groups=groups[~held])
        assert (own.target_offset_, own.target_scale_) != agreed[:2]
    errors, refs = candidate_errors(est, Est, X, y, groups, common, monkeypatch, n_nodes)
    assert (refs[1].adjacency_ != graph).nnz == 0
    assert_allclose(sel["node_validation_error"], errors, rtol=1e-10, atol=1e-12)
    assert_allclose(sel["mean_validation_error"], errors.mean(axis=1), rtol=1e-10)
    mean = errors.mean(axis=1)
    choice = int(np.argmin(mean))
    if choice == 2 and not mean[2] < NONE_MARGIN * mean[:2].min():
        choice = int(np.argmin(mean[:2]))   # (no coupling only by the margin)
    assert sel["choice"] == sel["candidates"][choice]
    assert est.consensus_penalty_ == sel["consensus_penalty"][choice]
    assert est.epsilon_ == sel["epsilon"][choice]
    # The final fit: the chosen coupling over the chosen graph, on all rows.
    final_network = SimulatedNetwork(topology=refs[1].adjacency_) if choice == 1 else None
    final = Est(consensus_penalty=sel["consensus_penalty"][choice],
                epsilon=sel["epsilon"][choice], network=final_network, **common, **share)
    final.fit(X, y, groups=groups)
    assert (est.adjacency_ != final.adjacency_).nnz == 0
    out = est.predict(X, groups=groups)
    assert_allclose(out, final.predict(X, groups=groups), rtol=1e-10, atol=1e-12)
    # Bytes: the three candidate fits (the uncoupled one sends nothing), the
    # tree round (closed form: 3 errors and a count up), the fit.
    # (The explicit fits also agree the location and scale of y up and down
    # a tree: 7 float64 up, 2 back; the candidates reuse the fit's.)
    tree = (n_nodes - 1) * ((HEADER + 8 * 4) + (HEADER + 4))
    scale_round = (n_nodes - 1) * ((HEADER + 8 * 7) + (HEADER + 8 * 2)) if regression else 0
    # The estimator's own scale round comes first (over the weak graph's
    # tree); the final fit then has none of its own.
    cand_bytes = [ref.communication_.total_bytes - scale_round for ref in refs]
    first = [scale_round] if regression else []
    assert (est.communication_.total_bytes
            == sum(cand_bytes) + tree + final.communication_.total_bytes)
    # (the network function: the fit's only, of the same functions)
    assert (est.network_communication_.total_bytes
            == final.network_communication_.total_bytes)
    assert cand_bytes[2] == 0
    assert_array_equal(est.bytes_per_round_[:len(first) + 4], first + cand_bytes + [tree])
    assert_array_equal(est.bytes_per_round_[len(first) + 4:],
                       final.bytes_per_round_[len(first):])
    assert len(est.consensus_error_curve_) == len(est.bytes_per_round_) == est.n_iter_
    assert np.isnan(est.consensus_error_curve_[:len(first) + 4]).all()


def test_auto_coupling_prefers_the_strong_one_on_alike_nodes_and_the_weak_on_clusters():
    rng = np.random.RandomState(0)
    n_nodes, n_per = 40, 20
    groups = np.repeat(np.arange(n_nodes), n_per)
    X = rng.normal(size=(n_nodes * n_per, 5))
    # One rule for all: the strong coupling pools it.
    w = rng.normal(size=5)
    y_alike = (X @ w + 0.5 * rng.normal(size=len(groups)) > 0).astype(int)
    est = DecentralizedKernelSGDClassifier(consensus_penalty="auto", kernel="linear",
                                           random_state=0, max_epochs=30)
    assert est.fit(X, y_alike, groups=groups).consensus_selection_["choice"] == "strong"
    # Opposite rules in two halves, nodes mixed: pooling hurts.
    sign = np.where(rng.permutation(n_nodes)[groups] % 2 == 0, 1.0, -1.0)
    y_split = (sign * (X @ w) > 0).astype(int)
    assert est.fit(X, y_split, groups=groups).consensus_selection_["choice"] == "weak"


def test_explicit_coupling_and_explicit_topology():
    X, y, groups = _alike()
    est = DecentralizedKernelSGDClassifier(consensus_penalty=0.3, max_epochs=2,
                                           random_state=0).fit(X, y, groups=groups)
    assert est.consensus_selection_ is None
    assert est.consensus_penalty_ == 0.3 and est.epsilon_ == 0.01
    # An explicit topology: every candidate uses it; only c and epsilon differ.
    net = SimulatedNetwork(topology="k_regular", topology_params={"degree": 4})
    auto = DecentralizedKernelSGDClassifier(network=net, consensus_penalty="auto",
                                            max_epochs=2, random_state=0)
    auto.fit(X, y, groups=groups)
    assert auto.consensus_selection_["topology"] == ["default", "default", "default"]
    assert (auto.adjacency_ != make_topology("k_regular", 12, {"degree": 4})).sum() == 0


def test_fixed_step_selects_no_coupling():
    X, y, groups = _alike()
    est = DecentralizedKernelSGDClassifier(eta0=0.05, max_epochs=2, random_state=0)
    est.fit(X, y, groups=groups)
    assert est.consensus_selection_ is None
    assert (est.consensus_penalty_, est.epsilon_) == (WEAK_COUPLING, 0.01)
    ref = DecentralizedKernelSGDClassifier(eta0=0.05, max_epochs=2, random_state=0,
                                           consensus_penalty=WEAK_COUPLING)
    assert_allclose(est.decision_function(X, groups=groups),
                    ref.fit(X, y, groups=groups).decision_function(X, groups=groups))


def test_nodes_too_small_to_hold_out_keep_the_weak_coupling():
    X, y, groups = _alike(n_nodes=30, n_per=3)
    est = DecentralizedKernelSGDClassifier(consensus_penalty="auto", max_epochs=2,
                                           random_state=0).fit(X, y, groups=groups)
    sel = est.consensus_selection_
    assert sel["choice"] == "weak" and np.isnan(sel["mean_validation_error"]).all()
    assert est.consensus_penalty_ == WEAK_COUPLING
    assert est.bytes_per_round_.shape == est.consensus_error_curve_.shape


def test_partial_fit_keeps_the_chosen_coupling():
    X, y, groups = _alike()
    est = DecentralizedKernelSGDClassifier(consensus_penalty="auto", random_state=0)
    est.partial_fit(X[:96], y[:96], groups=groups[:96], classes=[0, 1])
    c, eps = est.consensus_penalty_, est.epsilon_
    assert est.consensus_selection_ is not None
    est.partial_fit(X[96:], y[96:], groups=groups[96:])
    assert (est.consensus_penalty_, est.epsilon_) == (c, eps)


@pytest.mark.parametrize("bad", ["strong", -1.0])
def test_bad_consensus_penalty_is_refused_by_name(bad):
    X, y, groups = _alike()
    with pytest.raises(ValueError, match="consensus_penalty"):
        DecentralizedKernelSGDClassifier(consensus_penalty=bad).fit(X, y, groups=groups)


@pytest.mark.parametrize("n_nodes", [4, 5, 30, 100, 1000])
def test_random_regular_topology(n_nodes):
    degree = random_regular_degree(n_nodes)
    assert degree % 2 == 0 and 2 <= degree
    assert degree == {4: 2, 5: 2, 30: 4, 100: 6, 1000: 8}[n_nodes]
    A = _topology_csr("random_regular", n_nodes, None, random_state=0)
    deg = np.asarray(A.sum(axis=1)).ravel()
    assert deg.max() <= degree and deg.min() >= 2
    assert connected_components(A, directed=False)[0] == 1
    assert (A != A.T).nnz == 0 and A.diagonal().sum() == 0
    # Its definition: the union of degree / 2 cycles in random orders.
    rng = np.random.RandomState(0)
    edges = set()
    for _ in range(degree // 2):
        order = rng.permutation(n_nodes)
        for a, b in zip(order, np.roll(order, -1)):
            edges |= {(int(a), int(b)), (int(b), int(a))}
    rows, cols = A.nonzero()
    assert set(zip(rows.tolist(), cols.tolist())) == edges


@pytest.mark.parametrize("params, match", [({"degree": 3}, "even"), ({"degree": 40}, "even"),
                                           ({"p": 0.1}, "do not apply")])
def test_random_regular_bad_params_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        make_topology("random_regular", 20, params)


class _OtherRanks:
    """A stand-in for the MPI engine's reduction: the element-wise max of
    this process's values and those the other processes computed."""

    def __init__(self, others):
        self.others = others
        self.calls = 0

    def max(self, values):
        self.calls += 1
        return np.max([values, *self.others], axis=0)


@pytest.mark.parametrize("regression", [False, True])
def test_coupling_setup_over_processes_equals_the_pooled_one(regression):
    """``_coupling_setup`` (shared by fit and the MPI engine): the held-out
    rows are every node's every 4th, the statistics are those of all rows,
    and with each process holding half of the nodes, one max-reduction
    gives every process the pooled statistics and decision."""
    X, y, groups = _alike(regression=regression)
    Est = DecentralizedKernelSGDRegressor if regression else DecentralizedKernelSGDClassifier
    rng = np.random.RandomState(0)
    sw = rng.uniform(0.5, 3.0, size=len(y))
    est = Est(kernel="linear", consensus_penalty=0.1, max_epochs=1, random_state=0)
    est.fit(X, y, groups=groups, sample_weight=sw)
    y_enc = est._encode_targets(y)
    candidates, held, ready = est._coupling_setup(X, groups, sw, y_enc)
    assert [label for label, *_ in candidates] == ["weak", "strong", "none"]
    assert_array_equal(held, _held(groups))
    assert ready
    assert est._kernel_sup_seen == np.max(np.einsum("ij,ij->i", X, X))
    assert est._s_max_seen == sw.max()
    # Two processes, nodes 0-5 and 6-11; the second's max is 3x the first's.
    part = [groups < 6, groups >= 6]
    sw2 = sw.copy()
    sw2[part[1]] *= 3
    values = []
    for rows in part:
        values.append(np.concatenate([
            [np.max(np.einsum("ij,ij->i", X[rows], X[rows])), sw2[rows].max(),
             float(_held(groups)[rows].any())],
            [] if regression else
            [float(np.any(y[rows & ~_held(groups)] == c)) for c in est.classes_]]))
    combine = _OtherRanks([values[1]])
    _, held0, ready0 = est._coupling_setup(X[part[0]], groups[part[0]], sw2[part[0]],
                                           y_enc[part[0]], combine=combine)
    assert combine.calls == 1
    assert_array_equal(held0, _held(groups)[part[0]])
    assert ready0
    assert est._kernel_sup_seen == np.max(np.einsum("ij,ij->i", X, X))
    assert est._s_max_seen == sw2.max()
    if not regression:
        # A class without a training row in any process: no selection.
        y_one = np.where(part[0], est.classes_[0], est.classes_[0])
        combine = _OtherRanks([np.concatenate([values[1][:3], [1.0, 0.0]])])
        _, _, ready1 = est._coupling_setup(X[part[0]], groups[part[0]], sw2[part[0]],
                                           est._encode_targets(y_one[part[0]]),
                                           combine=combine)
        assert not ready1
