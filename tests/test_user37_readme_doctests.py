"""README: the docstring examples that draw need the plot extra (user37).

In a fresh venv with only the README's first command installed, running
every docstring example by hand (``doctest.testmod`` over the installed
modules, as ``pytest --doctest-modules`` does) failed 20 examples, all in
``skfed.plotting`` modules, with the plot extra's ImportError; the README
called tests/test_docstrings.py "the same as ``pytest --doctest-modules``",
but that test skips the examples that use matplotlib when it is missing.
Here matplotlib is hidden and the drawing examples must fail for that reason
only, and the README must say so.
"""

import doctest
import importlib
import pkgutil
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import skfed

_README = Path(__file__).resolve().parents[1] / "README.md"


def _drawing_tests():
    finder = doctest.DocTestFinder(exclude_empty=True)
    for info in pkgutil.walk_packages(skfed.plotting.__path__, prefix="skfed.plotting."):
        module = importlib.import_module(info.name)
        for test in finder.find(module, info.name):
            if test.examples and "matplotlib" in test.docstring:
                yield test


def test_readme_says_the_drawing_examples_need_the_plot_extra():
    if not _README.exists():
        pytest.skip("README.md is not in this checkout")
    text = " ".join(_README.read_text().split())
    assert ("without the `plot` extra it skips those that draw, which "
            "`pytest --doctest-modules` would report as failures") in text


def test_without_matplotlib_the_drawing_examples_fail_on_the_extra_only(monkeypatch):
    import skfed.plotting  # noqa: F401

    tests = list(_drawing_tests())
    assert len(tests) >= 5
    for name in [m for m in sys.modules if m == "matplotlib" or m.startswith("matplotlib.")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setitem(sys.modules, "matplotlib", None)   # import matplotlib -> ImportError
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    failed = 0
    with np.printoptions(legacy=False), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in tests:
            out = []
            failed += runner.run(test, out=out.append, clear_globs=True).failed
            report = "".join(out)
            assert "ModuleNotFoundError" in report or "ImportError" in report, test.name
    assert failed >= len(tests)
