"""doc/engines.rst's Dask status table says what a process cluster does (user37).

A first-time user ran MOCHA and support recovery under
``joblib.parallel_config(backend="dask")`` on a ``LocalCluster`` of worker
processes: their node work went to both workers and the models equalled the
serial fits, while the page's table still called both "in-process workers
only" (written before the multi-task chunks and the support client pass
returned their results by value).  Each row's status is read from the page
and checked here on two worker processes: "distributed, same model" means
tasks on both workers and the serial model; "threads only" means no task
reaches Dask and the serial model; "no ``n_jobs``" means the estimator has
no such parameter.
"""

import re
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression

from skfed import FederatedSupportRecovery, LocalEstimator
from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.multitask import FederatedMultiTaskClassifier, FederatedMultiTaskRegressor
from skfed.online import (
    DecentralizedKernelSGDClassifier,
    DecentralizedKernelSGDRegressor,
)
from skfed.support import FederatedSparseLinearRegression

pytest.importorskip("distributed")

_PAGE = Path(__file__).resolve().parents[1] / "doc" / "engines.rst"


def _table():
    """{first estimator name of a row: status} from the page's Dask table."""
    if not _PAGE.exists():
        pytest.skip("doc/engines.rst is not in this checkout")
    text = _PAGE.read_text()
    start = text.index("2. On a Dask cluster")
    block = text[start:text.index(".. list-table::", start) + 3000]
    block = block[:block.index("\n\n", block.index("   * - estimator")) + 1]
    rows = re.findall(r"   \* - (.*?)\n     - (.*?)\n", block, flags=re.DOTALL)
    table = {}
    for cell, status in rows[1:]:
        name = re.search(r"(\w+)`|``(\w+)``|^(the same, exact kernel mode)", cell)
        table[next(g for g in name.groups() if g)] = " ".join(status.split())
    return table


def _data():
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(6), 30)
    X = rng.normal(size=(180, 8))
    yc = (X[:, 0] + 0.4 * (groups % 3) * X[:, 1] > 0).astype(int)
    yr = X[:, 0] - 2.0 * X[:, 1] + 0.1 * rng.normal(size=180)
    return X, yc, yr, groups


# row of the table -> (estimators, target, fitted arrays compared)
_ROWS = {
    "LocalEstimator": (
        [lambda: LocalEstimator(LogisticRegression(), n_jobs=2)], "yc",
        lambda e: np.concatenate([m.coef_.ravel() for m in e.estimators_.values()]),
    ),
    "FederatedMultiTaskClassifier": (
        [lambda: FederatedMultiTaskClassifier(kernel="linear", max_rounds=6, random_state=0,
                                              n_jobs=2)], "yc",
        lambda e: e.coef_.ravel(),
    ),
    "the same, exact kernel mode": (
        [lambda: FederatedMultiTaskRegressor(kernel="rbf", approximation=None, max_rounds=4,
                                             random_state=0, n_jobs=2)], "yr",
        lambda e: e.dual_coef_.ravel(),
    ),
    "FederatedSupportRecovery": (
        [lambda: FederatedSupportRecovery(n_jobs=2),
         lambda: FederatedSparseLinearRegression(n_jobs=2)], "yr",
        lambda e: np.concatenate([np.ravel(getattr(e, a)).astype(float)
                                  for a in ("support_", "votes_") if hasattr(e, a)]
                                 + [np.ravel(getattr(e, "coef_", []))]),
    ),
    "DecentralizedBoostingClassifier": (
        [lambda: DecentralizedBoostingClassifier(max_iter=60, random_state=0, n_jobs=2),
         lambda: PersonalizedLinearClassifier(max_iter=60, random_state=0, n_jobs=2)], "yc",
        lambda e: np.asarray(e.collaboration_graph_.toarray()).ravel(),
    ),
}


def test_the_table_has_the_rows_checked_here():
    table = _table()
    assert set(table) == set(_ROWS) | {"DecentralizedKernelSGDClassifier"}
    assert table["DecentralizedKernelSGDClassifier"] == "no ``n_jobs``"
    for cls in (DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor):
        assert "n_jobs" not in cls().get_params()


@pytest.fixture(scope="module")
def process_client():
    from distributed import Client, LocalCluster

    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           dashboard_address=None)
    client = Client(cluster)
    try:
        yield client
    finally:
        client.close()
        cluster.close()


def _fit(factory, y, X, groups):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return factory().fit(X, y, groups=groups)


@pytest.mark.parametrize("row", sorted(_ROWS))
def test_each_row_status_holds_on_worker_processes(row, process_client):
    import joblib
    from distributed import get_task_stream

    status = _table()[row]
    factories, target, summary = _ROWS[row]
    X, yc, yr, groups = _data()
    y = yc if target == "yc" else yr
    for factory in factories:
        serial = summary(_fit(factory, y, X, groups))
        with joblib.parallel_config(backend="dask"), get_task_stream(process_client) as stream:
            got = summary(_fit(factory, y, X, groups))
        workers = {task["worker"] for task in stream.data}
        if status == "distributed, same model":
            assert len(workers) == 2, row
            np.testing.assert_array_equal(got, serial)
        elif status == "distributed, same model to the solver's tolerance":
            assert len(workers) == 2, row
            # lbfgs on unpickled arrays: BLAS rounding ("1e-12 apart on the test's data")
            np.testing.assert_allclose(got, serial, rtol=1e-12, atol=1e-14)
        else:
            assert status == "threads only", (row, status)
            assert not workers, row
            np.testing.assert_array_equal(got, serial)


def _blocks():
    text = _PAGE.read_text()
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", text)
    return ["\n".join(line[3:] for line in b.splitlines()) for b in blocks]


def test_the_pages_dask_block_runs_and_imports_only_what_it_uses():
    """The section's block, after the page's setup block, on worker processes:
    no ConvergenceWarning, the serial predictions, coefficients as the table says."""
    _table()  # skips without the page
    blocks = _blocks()
    setup = next(b for b in blocks if "load_har" in b and "max_rounds=2" in b)
    block = next(b for b in blocks if "LocalCluster" in b)
    for name in re.findall(r"^\s*(?:from \S+ )?import (.+)$", block, flags=re.MULTILINE):
        for imported in (n.strip() for n in name.split(",")):
            assert len(re.findall(rf"\b{imported}\b", block)) >= 2, imported
    namespace = {"__name__": "__main__"}
    exec(compile(setup, "engines.rst (setup)", "exec"), namespace)  # noqa: S102
    X, y, groups = namespace["X"], namespace["y"], namespace["groups"]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("error", ConvergenceWarning)
            exec(compile(block, "engines.rst (Dask)", "exec"), namespace)  # noqa: S102
            serial = LocalEstimator(LogisticRegression(max_iter=1000)).fit(X, y, groups=groups)
        local = namespace["local"]
        np.testing.assert_array_equal(local.predict(X, groups=groups),
                                      serial.predict(X, groups=groups))
        for node, model in serial.estimators_.items():
            np.testing.assert_allclose(local.estimators_[node].coef_, model.coef_, atol=0.1)
    finally:
        if "client" in namespace:
            namespace["client"].close()
            namespace["cluster"].close()
