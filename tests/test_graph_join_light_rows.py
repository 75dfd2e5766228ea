"""A Perso-lin newcomer lighter than every fitted node keeps its whole row (issue 32).

``sparsify_graph="connected"`` drops a newcomer's weights below the fitted
graph's connectivity threshold, except for a Perso-lin newcomer of a
smaller mass than every node of the fit (``min(confidence_) * max_mass``):
its few samples cannot rank its candidates, so it keeps every weight of
its row (HAR sitting: see ``benchmarks/new_nodes.py``).  Dada's newcomers
and Perso-lin's as heavy as some fitted node are cut as before.  Checked
against ``tests/test_graph_join.py``'s NumPy per-node computation.
"""

import copy

import numpy as np
import pytest

from skfed._graph_join import _RESOLVE_EVERY, graph_join_nodes
from skfed._graph_join_batch import cut_rows
from skfed._graph_join_fitted import connected_threshold
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.graph import model_message_bytes
from skfed.network import SimulatedNetwork

from .test_graph_join import _data, _fit, _newcomer_reference

# Fits where the threshold cuts a 5-sample newcomer's row (checked below):
# Dada re-learns its graph (its default), Perso-lin learns it once.
_CASES = {
    DecentralizedBoostingClassifier: dict(n_nodes=14, update="n_nodes",
                                          extra=dict(n_estimators=8)),
    PersonalizedLinearClassifier: dict(n_nodes=8, update=None, extra={}),
}


def _setup(cls):
    case = _CASES[cls]
    X, y, groups = _data(0, n_nodes=case["n_nodes"])
    params = dict(max_iter=(case["n_nodes"] - 2) * 3 * _RESOLVE_EVERY, max_neighbors=None,
                  sparsify_graph="connected", graph_update_every=case["update"],
                  **case["extra"])
    est, _, _ = _fit(cls, X, y, groups, **params)
    return X, y, groups, est, case["update"] is not None


def _reference(est, X, y, rows, resolve, threshold):
    info = copy.deepcopy(est._join_info)
    info["losses"] = np.asarray(info["losses"], dtype=np.float64)
    n = 3 * _RESOLVE_EVERY  # max_iter / n_fitted: local and model steps
    return _newcomer_reference(est, info, X[rows], y[rows], np.ones(len(rows)), n, n,
                               resolve=resolve, threshold=threshold)


def test_light_persolin_newcomer_keeps_its_whole_row():
    X, y, groups, est, resolve = _setup(PersonalizedLinearClassifier)
    K = len(est.nodes_)
    t = connected_threshold(est.collaboration_graph_)
    rows = np.flatnonzero(groups == groups.max())[:5]
    # light: 5 samples, every fitted node 25
    assert len(rows) < est.confidence_.min() * est._join_info["max_mass"]
    before = copy.deepcopy(est)
    est.add_nodes(X[rows], y[rows], groups=groups[rows])
    model, v = _reference(before, X, y, rows, resolve, threshold=None)
    np.testing.assert_allclose(est.collaboration_graph_[K, :K].toarray()[0], v,
                               rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(est._full_coef()[K], model, rtol=1e-7, atol=1e-9)
    # The fit's threshold would have cut this row (what the join did before).
    assert ((v > 0) & (v < min(t, v.max()))).sum() >= 1
    assert np.count_nonzero(est.collaboration_graph_[K, :K].toarray()) == np.count_nonzero(v)
    # The fitted nodes are untouched.
    np.testing.assert_array_equal(est.coef_[:K], before.coef_)
    np.testing.assert_array_equal(est.intercept_[:K], before.intercept_)
    np.testing.assert_array_equal(est.collaboration_graph_[:K, :K].toarray(),
                                  before.collaboration_graph_.toarray())


@pytest.mark.parametrize("cls, n_rows", [(DecentralizedBoostingClassifier, 5),
                                         (DecentralizedBoostingClassifier, 25),
                                         (PersonalizedLinearClassifier, 25)])
def test_other_newcomers_rows_are_still_sparsified(cls, n_rows):
    """Dada's newcomers, light or not, and a Perso-lin newcomer as heavy as
    the fitted nodes: the row is cut at the fitted graph's threshold."""
    X, y, groups, est, resolve = _setup(cls)
    K = len(est.nodes_)
    t = connected_threshold(est.collaboration_graph_)
    rows = np.flatnonzero(groups == groups.max())[:n_rows]
    before = copy.deepcopy(est)
    est.add_nodes(X[rows], y[rows], groups=groups[rows])
    model, v = _reference(before, X, y, rows, resolve, threshold=t)
    np.testing.assert_allclose(est.collaboration_graph_[K, :K].toarray()[0], v,
                               rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(est._full_coef()[K], model, rtol=1e-7, atol=1e-9)
    if (cls, n_rows) == (DecentralizedBoostingClassifier, 5):
        # the uncut row differs: the threshold did cut this newcomer's row
        _, whole = _reference(before, X, y, rows, resolve, threshold=None)
        assert np.count_nonzero(whole) > np.count_nonzero(v)


def test_persolin_newcomer_as_heavy_as_a_fitted_node_is_cut():
    """The bound is the lightest fitted node, not the fitted nodes' mean: with
    one fitted node of total weight 2.5, a 5-sample newcomer is cut."""
    case = _CASES[PersonalizedLinearClassifier]
    X, y, groups = _data(0, n_nodes=case["n_nodes"])
    fit = groups < groups.max() - 1
    sw = np.where(groups == 0, 0.1, 1.0)
    est = PersonalizedLinearClassifier(
        random_state=0, max_iter=(case["n_nodes"] - 2) * 3 * _RESOLVE_EVERY,
        max_neighbors=None).fit(X[fit], y[fit], groups=groups[fit], sample_weight=sw[fit])
    K = len(est.nodes_)
    rows = np.flatnonzero(groups == groups.max())[:5]
    max_mass = est._join_info["max_mass"]
    assert est.confidence_.min() * max_mass < len(rows) < est.confidence_.mean() * max_mass
    t = connected_threshold(est.collaboration_graph_)
    before = copy.deepcopy(est)
    est.add_nodes(X[rows], y[rows], groups=groups[rows])
    v = est.collaboration_graph_[K, :K].toarray()[0]
    assert v.max() > 0
    assert not ((v > 0) & (v < min(t, v.max()))).any()
    model, ref = _reference(before, X, y, rows, False, threshold=t)
    np.testing.assert_allclose(v, ref, rtol=1e-7, atol=1e-10)
    np.testing.assert_allclose(est._full_coef()[K], model, rtol=1e-7, atol=1e-9)
    _, whole = _reference(before, X, y, rows, False, threshold=None)
    assert np.count_nonzero(whole) > np.count_nonzero(ref)  # the cut mattered


def test_cut_rows_equals_a_loop_over_the_rows():
    rng = np.random.RandomState(0)
    lengths = np.array([3, 0, 5, 1, 4, 2])
    indptr = np.concatenate([[0], np.cumsum(lengths)])
    out = np.where(rng.uniform(size=indptr[-1]) < 0.3, 0.0, rng.uniform(size=indptr[-1]))
    out[indptr[4]:indptr[5]] = 0.0  # a row without a positive weight
    which = np.array([True, True, False, True, True, True])
    expected = out.copy()
    for k in range(len(lengths)):
        seg = expected[indptr[k]:indptr[k + 1]]
        if which[k] and len(seg) and seg.max() > 0:
            seg[seg < min(0.4, seg.max())] = 0.0
    got = out.copy()
    cut_rows(got, indptr, 0.4, which)
    np.testing.assert_array_equal(got, expected)
    assert np.count_nonzero(got) < np.count_nonzero(out)  # something was cut
    # Row 2 is not selected: kept whole.
    np.testing.assert_array_equal(got[indptr[2]:indptr[3]], out[indptr[2]:indptr[3]])


def test_batched_join_of_light_and_heavy_newcomers_equals_one_by_one():
    X, y, groups = _data(0, n_nodes=12)
    est, _, _ = _fit(PersonalizedLinearClassifier, X, y, groups, max_iter=10 * 60,
                     max_neighbors=None, join_neighbours="graph")
    # The fit holds nodes 0-9; node 10 joins with its 25 samples (heavy),
    # node 11 with 5 (light), and a node of another draw of node 10's task
    # with 25 (heavy), so that the two heavy newcomers sample each other.
    X2, y2, g2 = _data(1, n_nodes=12)
    parts = [groups == 10, np.flatnonzero(groups == 11)[:5]]
    Xn = np.concatenate([X[parts[0]], X[parts[1]], X2[g2 == 10]])
    yn = np.concatenate([y[parts[0]], y[parts[1]], y2[g2 == 10]])
    gn = np.concatenate([groups[parts[0]], groups[parts[1]], np.full((g2 == 10).sum(), 12)])
    K = len(est.nodes_)
    batched, single = copy.deepcopy(est), copy.deepcopy(est)
    batched.add_nodes(Xn, yn, groups=gn)
    graph_join_nodes(single, Xn, yn, gn, one_by_one=True)
    np.testing.assert_allclose(batched._full_coef(), single._full_coef(), rtol=1e-9,
                               atol=1e-12)
    A, B = batched.collaboration_graph_.toarray(), single.collaboration_graph_.toarray()
    np.testing.assert_allclose(A, B, rtol=1e-9, atol=1e-12)
    assert ((A > 0) == (B > 0)).all()
    # The two heavy newcomers are linked; the light one keeps a weight under
    # the fitted graph's threshold, the heavy ones none.
    t = connected_threshold(est.collaboration_graph_)
    assert A[K, K + 2] > 0
    light = A[K + 1, :K]
    assert ((light > 0) & (light < t)).any()
    for k in (K, K + 2):
        heavy = A[k, :K]
        assert not ((heavy > 0) & (heavy < min(t, heavy.max()))).any()


def test_light_newcomer_bytes_closed_form():
    X, y, groups, est, _ = _setup(PersonalizedLinearClassifier)
    rows = np.flatnonzero(groups == groups.max())[:5]
    models = est._full_coef()
    K = len(models)
    graph_models = est._join_info["graph_models"]
    est.add_nodes(X[rows], y[rows], groups=groups[rows])
    header = SimulatedNetwork().header_bytes
    answers = int(model_message_bytes(graph_models.reshape(K, -1), models.dtype).sum())
    finals = model_message_bytes(models.reshape(K, -1), models.dtype)
    W = est.collaboration_graph_[K:, :K].tocoo()
    n = W.nnz
    assert n >= 2  # more than the one weight the threshold kept before
    expected = (K * header + answers + K * (16 + header)   # requests, answers
                + 2 * n * header + int(finals[W.col].sum())  # its requests, their final models
                + n * (8 + header)                          # its weights
                + 4 * 8)    # the fit's mass summary on its first answer (skfed._node_mass)
    assert est.join_communication_.total_bytes == expected
