"""The code of doc/user_guide/growing.rst runs and gives what its comments say.

The page's examples are ``code-block`` (not doctest) blocks, so nothing ran
them: this test executes every Python block of the page in one namespace,
in order, and checks each bare expression that carries a value in its
comment (``expr  # 608 bytes for the join``: the first token of the comment;
``expr  # node 4's own model: 0.9``: the value after the last colon).  It
also checks what the "Behind a pipeline or a search" section states: a
Pipeline has no ``add_nodes``, the documented route serves the newcomer
through the pipeline, and a search's ``best_estimator_`` joins.
"""

import ast
import re
import warnings
from pathlib import Path

import numpy as np
import pytest
import sklearn

_PAGE = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "growing.rst"


def _blocks(text):
    """The page's ``.. code-block:: python`` bodies, dedented."""
    blocks, lines = [], text.splitlines()
    i = 0
    while i < len(lines):
        if lines[i].strip() == ".. code-block:: python":
            i += 1
            body = []
            while i < len(lines) and (not lines[i].strip() or lines[i].startswith("   ")):
                body.append(lines[i][3:])
                i += 1
            blocks.append("\n".join(body).strip("\n"))
        else:
            i += 1
    return blocks


def _expected(comment):
    comment = comment.strip()
    tail = re.search(r":\s*(-?[\d.,]+|True|False)\s*$", comment)
    token = tail.group(1) if tail else comment.split()[0].rstrip(":")
    if token in ("True", "False"):
        return token == "True"
    return float(token.replace(",", ""))


def _checked_lines(source):
    """(expression source, expected value) of every bare expression with a value comment."""
    out = []
    tree = ast.parse(source)
    lines = source.splitlines()
    for node in tree.body:
        if isinstance(node, ast.Expr) and not isinstance(node.value, ast.Call) or (
            isinstance(node, ast.Expr)
            and isinstance(node.value, ast.Call)
            and getattr(node.value.func, "attr", "") in ("score", "array_equal")
        ):
            line = lines[node.end_lineno - 1]
            if "#" in line:
                out.append((ast.get_source_segment(source, node.value),
                            _expected(line.split("#", 1)[1])))
    return out


def test_growing_page_code_runs_as_commented():
    if not _PAGE.exists():
        pytest.skip("doc/user_guide/growing.rst is not in this checkout")
    blocks = _blocks(_PAGE.read_text())
    assert len(blocks) >= 2
    namespace = {}
    n_checked = 0
    with sklearn.config_context(enable_metadata_routing=False), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for source in blocks:
            checks = dict(_checked_lines(source))
            tree = ast.parse(source)
            for node in tree.body:
                segment = ast.get_source_segment(source, node)
                if isinstance(node, ast.Expr) and segment in checks:
                    value = eval(compile(ast.Expression(node.value), "<page>", "eval"), namespace)
                    expected = checks[segment]
                    if isinstance(expected, bool):
                        assert bool(value) is expected, segment
                    else:
                        assert value == pytest.approx(expected, abs=1e-12), segment
                    n_checked += 1
                else:
                    exec(compile(ast.Module([node], []), "<page>", "exec"), namespace)
        # what the pipeline section states, on the page's own objects
        pipe = namespace["pipe"]
        assert not hasattr(pipe, "add_nodes")
        assert pipe[-1].nodes_.tolist() == [0, 1, 2, 3, 4]
        np.testing.assert_array_equal(pipe[-1].coef_[:4], _refit_first_four(namespace))
    assert n_checked >= 5


def _refit_first_four(namespace):
    """The pipeline's fitted nodes' models, from a fresh fit without a join."""
    from sklearn.base import clone

    pipe, X, y, groups = (namespace[k] for k in ("pipe", "X", "y", "groups"))
    with sklearn.config_context(enable_metadata_routing=True):
        fresh = clone(pipe).fit(X[:80], y[:80], groups=groups[:80])
    return fresh[-1].coef_


def test_search_best_estimator_joins():
    """The route the page gives for a search: best_estimator_.add_nodes."""
    from sklearn.metrics import accuracy_score
    from sklearn.model_selection import GridSearchCV

    from skfed.boosting import PersonalizedLinearClassifier
    from skfed.model_selection import WithinGroupKFold, make_group_scorer

    rng = np.random.RandomState(0)
    X = rng.normal(size=(100, 2))
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat([0, 1, 2, 3, 4], 20)
    with sklearn.config_context(enable_metadata_routing=True), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = GridSearchCV(PersonalizedLinearClassifier(random_state=0), {"mu": [0.1, 1.0]},
                              cv=WithinGroupKFold(n_splits=3),
                              scoring=make_group_scorer(accuracy_score))
        search.fit(X[:80], y[:80], groups=groups[:80])
        assert not hasattr(search, "add_nodes")
        best = search.best_estimator_
        before = best.coef_.copy()
        best.add_nodes(X[80:90], y[80:90], groups=groups[80:90])
        np.testing.assert_array_equal(best.coef_[:4], before)
        # the search's predict takes no groups (the page says so)
        with pytest.raises(TypeError, match="groups"):
            search.predict(X[90:], groups=groups[90:])
        # its score routes them and uses the joined model of node 4
        assert search.score(X[90:], y[90:], groups=groups[90:]) == pytest.approx(
            accuracy_score(y[90:], best.predict(X[90:], groups=groups[90:])))
