"""``benchmarks/landneg36_sources.py`` rebuilds Landmine joins from the fit.

Its offline placement rules (issue 32, landneg36) replace the 5 fitted
nodes a newcomer averages; they are only comparable with the join if the
benchmark's own reconstruction of the join (the hub's 5 nodes, the
mass-weighted mean of their models) is the package's join.  Checked here
on one fresh seed against a NumPy reference: the named nodes are the
newcomer's graph row, its model the mean, its decision values ``X w + b``;
and MOCHA's gate ranks the same per-node means of the raw features.
"""

import importlib.util
from pathlib import Path

import numpy as np
import pytest

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


def _bench():
    path = BENCHMARKS / "landneg36_sources.py"
    if not path.exists():
        pytest.skip("benchmarks/landneg36_sources.py is not in this checkout")
    import sys

    sys.path.insert(0, str(BENCHMARKS))
    spec = importlib.util.spec_from_file_location("landneg36_sources", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


@pytest.fixture(scope="module")
def landmine():
    bench = _bench()
    nn = bench.nn
    X, y, groups, task = nn.load("landmine", 6)
    fit_rows, _, order = nn.split(X, y, groups, 6)
    train, test = nn.new_node_rows(order, 5)
    return bench, X, y, groups, task, fit_rows, train, test


def test_persolin_join_is_the_mean_of_the_named_nodes(landmine):
    bench, X, y, groups, task, fit_rows, train, test = landmine
    import copy

    base = bench.nn.make_estimator("persolin", task, 6)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    assert base.newcomer_rule_ == "features"  # (the gate opens on this seed)
    joined = copy.deepcopy(base)
    joined.add_nodes(X[train], y[train], groups=groups[train])
    fitted = np.asarray(base.nodes_)
    n_fit = len(fitted)
    near = bench.hub_neighbours(base, "persolin", X[train], groups[train])
    sizes = np.array([np.sum(groups[fit_rows] == g) for g in fitted], dtype=float)
    W = bench.fitted_models(base, n_fit)
    np.testing.assert_array_equal(W, bench.fitted_models(joined, n_fit))  # old nodes untouched
    graph = joined.collaboration_graph_.tocsr()
    labels = list(joined.nodes_)
    assert sorted(near) == sorted(np.unique(groups[train]).tolist())
    for g, chosen in near.items():
        assert len(chosen) == 5
        row = graph[labels.index(g)]
        assert sorted(row.indices.tolist()) == sorted(chosen.tolist())
        share = sizes[chosen] / sizes[chosen].sum()
        np.testing.assert_allclose(row[0, chosen].toarray().ravel(), share, rtol=1e-12)
        ref = share @ W[chosen]  # the NumPy reference of the newcomer's model
        i = labels.index(g)
        got = np.append(np.ravel(joined.coef_[i]), np.ravel(joined.intercept_[i]))
        np.testing.assert_allclose(got, ref, rtol=1e-10, atol=1e-12)
        rows = test[groups[test] == g]
        dec = joined.decision_function(X[rows], groups=groups[rows])
        np.testing.assert_allclose(dec, X[rows] @ ref[:-1] + ref[-1], rtol=1e-9, atol=1e-9)


def test_mocha_gate_means_are_the_raw_feature_means(landmine):
    bench, X, y, groups, task, fit_rows, train, _ = landmine
    base = bench.nn.make_estimator("mocha", task, 6)
    base.fit(X[fit_rows], y[fit_rows], groups=groups[fit_rows])
    gate = base._join_rehearsal.neighbours
    assert gate is not None and gate.open and gate.whiten is not None
    fitted = np.asarray(base.nodes_)
    ref = np.array([X[fit_rows][groups[fit_rows] == g].mean(axis=0) for g in fitted])
    np.testing.assert_allclose(gate.means, ref, rtol=1e-10, atol=1e-12)
    near = bench.hub_neighbours(base, "mocha", X[train], groups[train])
    # every newcomer is named its 5 nearest fitted nodes under the server's map
    P = ref @ gate.whiten
    for g, chosen in near.items():
        q = X[train][groups[train] == g].mean(axis=0) @ gate.whiten
        order = np.argsort(((P - q) ** 2).sum(axis=1), kind="stable")[:5]
        assert chosen.tolist() == order.tolist()
