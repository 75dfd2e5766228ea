"""The ``near`` variant of benchmarks/new_nodes_mocha_neighbours.py (store34).

The library kept a module switch (``_join_neighbours.NEIGHBOUR_SCALE``)
that only that benchmark and one test set; the benchmark now carries the
alternative itself (``scale_gated_newcomers`` patches the rehearsal of the
joined copy).  Checked here against an independent reference: at scale 0
each gated newcomer's model is the size-weighted mean model of its 5
nearest fitted nodes (Mahalanobis distance of the pooled within-node
scatter, NumPy inverse), and a closed gate leaves the join unchanged.
"""
import copy
import importlib.util
import sys
from pathlib import Path

import numpy as np
import pytest

from skfed.multitask import _join_neighbours as jn

from .test_multitask_join_neighbours import _fit, _near5

BENCHMARKS = Path(__file__).resolve().parents[1] / "benchmarks"


@pytest.fixture(scope="module")
def bench():
    path = BENCHMARKS / "new_nodes_mocha_neighbours.py"
    if not path.exists():
        pytest.skip("benchmarks/new_nodes_mocha_neighbours.py is not in this checkout")
    sys.path.insert(0, str(BENCHMARKS))
    try:
        spec = importlib.util.spec_from_file_location("new_nodes_mocha_neighbours", path)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(BENCHMARKS))
    return module


@pytest.fixture(autouse=True)
def _any_cost(monkeypatch):
    # small fits: the gate would cost more than GATE_BYTE_SHARE of their bytes
    monkeypatch.setattr(jn, "GATE_BYTE_SHARE", np.inf)


def test_library_keeps_no_scale_switch():
    assert not hasattr(jn, "NEIGHBOUR_SCALE")


def test_scale_zero_takes_the_centre(bench):
    est, (Xo, yo, go), (Xn, yn, gn) = _fit()
    assert est._join_rehearsal.neighbours.open  # (the terrains' kinds: t > 3)
    m = len(est.nodes_)
    coef, icpt = est.coef_.copy(), est.intercept_.copy()
    sizes = np.bincount(go).astype(float)
    means = np.array([Xo[go == t].mean(axis=0) for t in range(m)])
    plain = copy.deepcopy(est)
    bench.scale_gated_newcomers(est, 0.0)
    est.add_nodes(Xn, yn, groups=gn)
    plain.add_nodes(Xn, yn, groups=gn)
    for j, node in enumerate(np.unique(gn)):
        near = _near5(means, Xn[gn == node].mean(axis=0), Xo, go)
        w = sizes[near] / sizes[near].sum()
        np.testing.assert_allclose(est.coef_[m + j], w @ coef[near], rtol=1e-12)
        np.testing.assert_allclose(est.intercept_[m + j], w @ icpt[near], rtol=1e-12)
        # the default (the rehearsed scale) does not take the centre as its model
        assert not np.allclose(plain.coef_[m + j], w @ coef[near], rtol=1e-6)
    # the variant moves no byte: the same messages as the default join
    assert est.join_communication_.total_bytes == plain.join_communication_.total_bytes


def test_closed_gate_leaves_the_join(bench):
    est, _, (Xn, yn, gn) = _fit()
    est._join_rehearsal.neighbours.open = False
    plain = copy.deepcopy(est)
    bench.scale_gated_newcomers(est, 0.0)
    est.add_nodes(Xn, yn, groups=gn)
    plain.add_nodes(Xn, yn, groups=gn)
    np.testing.assert_array_equal(est.coef_, plain.coef_)
    np.testing.assert_array_equal(est.intercept_, plain.intercept_)
