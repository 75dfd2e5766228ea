"""The Python blocks of doc/user_guide/privacy.rst run as written (user34).

The page shows its examples as literal (``::``) blocks that use the
reader's ``X, y, groups``, so no doctest runs them.  This test takes every
block of the page that imports from skfed, gives it data of the kind it
needs (a sparse regression for support recovery, two features inside the
stumps' public domain for Dada), runs the blocks in order in one namespace
(the Dada block uses the ``DifferentialPrivacy`` the first one imports),
and checks what their comments say: ``privacy_spent_`` holds one epsilon
per node, at most the budget, and ``privacy_`` names the mechanism, the
noise, the composition and the accountant.
"""

import re
import warnings
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from skfed.datasets import make_federated_sparse_regression  # noqa: E402

_PAGE = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "privacy.rst"


def _literal_blocks(text):
    """Bodies of the ``::`` literal blocks that import from skfed, dedented."""
    blocks, lines = [], text.splitlines()
    for i, line in enumerate(lines):
        if not line.rstrip().endswith("::") or line.lstrip().startswith(".."):
            continue
        body, j = [], i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].startswith("    ")):
            body.append(lines[j][4:])
            j += 1
        source = "\n".join(body).strip("\n")
        if re.search(r"^from skfed", source, flags=re.M):
            blocks.append(source)
    return blocks


def test_privacy_page_blocks_run_and_spend_at_most_the_budget():
    if not _PAGE.exists():
        pytest.skip("doc/user_guide/privacy.rst is not in this checkout")
    blocks = _literal_blocks(_PAGE.read_text())
    assert len(blocks) == 2
    support, dada = blocks
    assert "FederatedSupportRecovery(privacy=DifferentialPrivacy(epsilon=2.0" in support
    assert "make_stump_predictors([-2, -2], [3, 2], 100)" in dada

    namespace = {}
    X, y, groups, true, _ = make_federated_sparse_regression(
        n_clients=200, n_samples=60, n_features=10, n_informative=3, random_state=0)
    namespace.update(X=X, y=y, groups=groups)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the block as written warns about nothing
        exec(compile(support, "privacy.rst (support recovery)", "exec"), namespace)
    est = namespace["est"]
    spent = np.asarray(est.privacy_spent_)
    assert spent.shape == (200,)  # one epsilon per node
    assert np.all(spent > 0) and np.all(spent <= 2.0)
    assert {"mechanism", "noise", "composition", "accountant"} <= set(est.privacy_)
    assert est.privacy_["mechanism"] == "randomized response"

    # Dada: two features inside the public domain [-2, 3] x [-2, 2] of the
    # block's stumps, six nodes of 100 samples
    rng = np.random.RandomState(0)
    X = np.column_stack([rng.uniform(-2, 3, 600), rng.uniform(-2, 2, 600)])
    groups = np.repeat(np.arange(6), 100)
    y = (X[:, 0] + 0.3 * (groups - 2.5) * X[:, 1] > 0.5).astype(int)
    namespace.update(X=X, y=y, groups=groups)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(compile(dada, "privacy.rst (Dada)", "exec"), namespace)
    clf = namespace["clf"]
    assert clf.n_features_in_ == 2
    # 100 public stumps, 50 a feature, thresholds inside the known domain;
    # each node's model weighs every one of them
    stumps = namespace["stumps"]
    assert len(stumps) == 100 == clf.coef_.shape[1] and clf.coef_.shape[0] == 6
    for feature, (low, high) in enumerate([(-2, 3), (-2, 2)]):
        thresholds = [s.threshold for s in stumps if s.feature == feature]
        assert len(thresholds) == 50
        assert low < min(thresholds) and max(thresholds) < high
    spent = np.asarray(clf.privacy_spent_)
    assert spent.shape == (6,)
    assert np.all(spent > 0) and np.all(spent <= 5.0)
    # the released models are what left the nodes; the kept ones did not
    assert clf.released_coef_.shape == clf.coef_.shape
