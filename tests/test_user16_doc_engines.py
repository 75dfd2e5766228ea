"""doc/engines.rst's MOCHA example, run as a first-time user would.

The page fits one estimator on three HAR users "three ways, and gets the
same coef_, omega_ and number of rounds each time", and shows the
simulated fit's ``(n_iter_, n_bytes_sent_)`` and the Flower run's
``flower_traffic_.summary()``.  With the estimator the page showed before
(every other parameter at its default), the simulated fit searched the
step and sent 8-bit messages (``aggregation`` and ``compression`` "auto"),
which Flower does not: 20,952 bytes against the page's 67,968 and
``coef_`` off by 3e-3 from the Flower fit's.  These tests read the code
from the page itself, so the page and the engines cannot drift apart
again.
"""

import re
import textwrap
import warnings
from pathlib import Path

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

DOC = Path(__file__).resolve().parents[1] / "doc" / "engines.rst"
pytestmark = pytest.mark.skipif(not DOC.exists(), reason="doc/engines.rst not in this checkout")


def _python_blocks():
    """The ``.. code-block:: python`` blocks of the page, dedented."""
    lines = DOC.read_text().splitlines()
    blocks, i = [], 0
    while i < len(lines):
        if lines[i].strip() == ".. code-block:: python":
            j, body = i + 1, []
            while j < len(lines) and (not lines[j].strip() or lines[j].startswith("   ")):
                body.append(lines[j])
                j += 1
            blocks.append(textwrap.dedent("\n".join(body)).strip("\n"))
            i = j
        else:
            i += 1
    return blocks


def _literal_after(marker):
    """The ``::`` literal block that follows ``marker`` on the page."""
    text = DOC.read_text()
    start = text.index(marker)
    body = text[start:].split("::\n\n", 1)[1]
    out = []
    for line in body.splitlines():
        if line and not line.startswith("   "):
            break
        out.append(line[3:])
    return "\n".join(out).strip("\n")


@pytest.fixture(scope="module")
def page_fit():
    blocks = _python_blocks()
    setup = next(b for b in blocks if "load_har" in b and "max_rounds=2" in b)
    fit = next(b for b in blocks if b.startswith("simulated = estimator.fit"))
    namespace = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        exec(setup, namespace)
        exec(fit, namespace)
    return namespace, fit


def test_simulated_fit_shows_the_pages_rounds_and_bytes(page_fit):
    namespace, fit = page_fit
    shown = re.search(r"#\s*\((\d+),\s*(\d+)\)", fit)
    simulated = namespace["simulated"]
    assert (simulated.n_iter_, simulated.n_bytes_sent_) == (int(shown[1]), int(shown[2]))
    # The page's closed form: 15 messages, 16-byte headers, 67,800 payload
    # (67,728 before flower17: the line search's 72 bytes, now run on Flower).
    assert simulated.n_messages_ == 15
    assert simulated.n_bytes_sent_ - 16 * simulated.n_messages_ == 67_800


def test_app_py_builds_the_same_estimator(page_fit):
    namespace, _ = page_fit
    app = next(b for b in _python_blocks() if "make_server_app(estimator)" in b)
    construct = app[app.index("estimator = "):app.index("server = ")]
    other = {}
    exec("from skfed.multitask import FederatedMultiTaskClassifier\n" + construct, other)
    assert other["estimator"].get_params() == namespace["estimator"].get_params()


def test_flower_fit_equals_the_pages_simulated_fit(page_fit):
    pytest.importorskip("flwr")
    from tests.test_engines_flower import TaskIdentity, flower_fit

    namespace, _ = page_fit
    saved = (TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id)
    TaskIdentity.run_id, TaskIdentity.node_id, TaskIdentity.task_id = 1, 0, 1
    try:
        flower, _ = flower_fit(namespace["estimator"], namespace["X"], namespace["y"],
                               namespace["groups"])
    finally:
        TaskIdentity._run_id, TaskIdentity._node_id, TaskIdentity._task_id = saved
    simulated = namespace["simulated"]
    # What the page says is True.
    assert np.array_equal(flower.coef_, simulated.coef_)
    assert np.array_equal(flower.task_covariance_, simulated.task_covariance_)
    X, y, groups = namespace["X"], namespace["y"], namespace["groups"]
    assert flower.score(X, y, groups=groups) == simulated.score(X, y, groups=groups)
    assert flower.n_bytes_sent_ == simulated.n_bytes_sent_
    assert flower.n_iter_ == simulated.n_iter_
    # ... and the summary the page prints.
    assert flower.flower_traffic_.summary().strip() == _literal_after(
        "``flower_traffic_.summary()`` reads")
