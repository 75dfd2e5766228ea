"""The code of doc/user_guide/growing.rst runs and gives what its comments say.

The page's examples are ``code-block`` (not doctest) blocks, so nothing ran
them: this test executes every Python block of the page in one namespace,
in order, and checks each bare expression that carries a value in its
comment (``expr  # 608 bytes for the join``: the first token of the comment;
``expr  # node 4's own model: 0.9``: the value after the last colon).  It
also checks what the "Behind a pipeline or a search" section states: a
Pipeline has no ``add_nodes``, the documented route serves the newcomer
through the pipeline, and a search's ``best_estimator_`` joins.

docs38: the page's Limits ("the rows that miss the goal") keep one short
bullet per table row that misses; the tests below check that every "no" row of the
table has its bullet, that every benchmark the page names exists and is
listed in doc/benchmarks.rst, and that every decimal number a bullet (or
the "Newcomers unlike the federation" section) quotes is in the docstrings
of the benchmarks it names, or in the page's table, at the precision quoted.
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


# --- the page's results table and its Limits (docs38) ----------------------
#
# The Limits keep one short bullet per table row that misses the goal (and per
# row that misses on fresh seeds); the measurements behind each bullet live
# in the docstrings of the benchmarks it names.  These tests keep that
# structure true: every "no" row has its bullet, every benchmark the page
# names exists and is listed in doc/benchmarks.rst, and every decimal number
# a bullet quotes is in the named benchmarks' docstrings (or the page's own
# table), at the precision quoted.

_BENCH_DOC = _PAGE.parents[1] / "benchmarks.rst"
_NUMBER = re.compile(r"(?<![\w.])-?\d[\d,]*\.\d+")


def _page_text():
    if not _PAGE.exists():
        pytest.skip("doc/user_guide/growing.rst is not in this checkout")
    return _PAGE.read_text()


def _section(text, start, end):
    return text[text.index(start):text.index(end)]


def _table_rows(text):
    """(estimator, k, goal) of every row of the results table."""
    rows = []
    for line in _section(text, ".. _growing-results:", "What a join costs").splitlines():
        m = re.match(r"^(\S.*?)\s{2,}(\d+)\s+-?\d.*\s(yes|no|n/a)$", line)
        if m:
            rows.append((m.group(1).strip(), int(m.group(2)), m.group(3)))
    return rows


def _bullets(section):
    """The section's top-level bullets, each cut at the blank line that ends it."""
    return [b.split("\n\n")[0] for b in re.split(r"\n(?=\* )", section) if b.startswith("* ")]


def _module_doc(path):
    import ast as _ast

    return _ast.get_docstring(_ast.parse(path.read_text())) or ""


def _numbers(text):
    return [float(t.replace(",", "")) for t in _NUMBER.findall(text)]


def _decimals(token):
    return len(token.split(".")[1])


def test_every_missing_row_has_its_bullet():
    text = _page_text()
    rows = _table_rows(text)
    assert len(rows) == 57                  # 19 estimator x data set pairs, 3 k each
    missing = [(est, k) for est, k, goal in rows if goal == "no"]
    assert len([r for r in rows if r[2] == "yes"]) == 25 and len(missing) == 20
    heads = [b.split("**", 2)[1] + b.split("\n", 1)[0] for b in
             _bullets(_section(text, ".. _growing-limits:", "On fresh seeds"))]
    for est, k in missing:
        family, data = est.split(",")[0], est.split(",")[1].split()[0]
        match = [h for h in heads if h.startswith(family + ",") and data.lower() in h.lower()]
        assert len(match) == 1, (est, k)
        assert "every" in match[0] or re.search(rf"\b{k}\b", match[0]), (est, k, match[0])


def test_named_benchmarks_exist_and_are_listed():
    text = _page_text()
    listed = _BENCH_DOC.read_text()
    names = sorted(set(re.findall(r"benchmarks/[a-z0-9_]+\.py", text)))
    assert len(names) >= 20
    root = _PAGE.parents[2]
    for name in names:
        if not (root / "benchmarks").exists():
            pytest.skip("benchmarks/ is not in this checkout")
        assert (root / name).exists(), name
        assert f"``{name}``" in listed, f"doc/benchmarks.rst does not list {name}"


def test_bullet_numbers_are_in_the_named_docstrings():
    text = _page_text()
    root = _PAGE.parents[2]
    if not (root / "benchmarks").exists():
        pytest.skip("benchmarks/ is not in this checkout")
    table = _numbers(_section(text, ".. _growing-results:", "What a join costs"))
    limits = _bullets(_section(text, ".. _growing-limits:", ".. rubric:: References"))
    assert len(limits) >= 8   # (the parser found the bullets)
    parts = list(limits)
    for paragraph in _section(text, ".. _growing-unlike:", ".. _growing-results:").split("\n\n"):
        parts += _bullets("\n" + paragraph) if paragraph.startswith("* ") else [paragraph]
    n_checked = 0
    for part in parts:
        names = set(re.findall(r"benchmarks/[a-z0-9_]+\.py", part))
        if part in limits:
            assert names, part[:60]
            assert len(part.strip().splitlines()) <= 9, part[:60]     # a bullet, not a history
        if not names:
            continue
        known = table + [x for n in names for x in _numbers(_module_doc(root / n))]
        for token in _NUMBER.findall(part):
            value, tol = float(token.replace(",", "")), 0.5 * 10 ** -_decimals(token) + 1e-9
            assert any(abs(abs(x) - abs(value)) <= tol for x in known), (token, sorted(names))
            n_checked += 1
    assert n_checked >= 100
