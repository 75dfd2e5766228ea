"""Run the examples of every docstring of the installed skfed package.

The same as ``pytest --doctest-modules`` over the package, but inside the
test suite, so ``pytest tests`` after ``pip install .`` checks that every
``Examples`` section of the API reference still runs and prints what it
says.  Modules of optional extras that are not installed are skipped.
"""

import doctest
import importlib
import pkgutil
import warnings

import numpy as np
import pytest

import skfed

# Modules whose import starts something or needs an optional extra.
_SKIP = {"skfed.__main__"}


def _module_names():
    names = ["skfed"]
    for info in pkgutil.walk_packages(skfed.__path__, prefix="skfed."):
        if info.name in _SKIP:
            continue
        names.append(info.name)
    return sorted(names)


MODULES = _module_names()


def _import(name):
    try:
        return importlib.import_module(name)
    except ImportError as exc:  # an optional extra (flower, mpi, ...) is missing
        pytest.skip(f"{name} needs an optional dependency: {exc}")


@pytest.fixture(autouse=True)
def _agg_backend():
    try:
        import matplotlib
    except ImportError:
        yield
        return
    backend = matplotlib.get_backend()
    matplotlib.use("Agg")
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
    matplotlib.use(backend)


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = _import(name)
    finder = doctest.DocTestFinder(exclude_empty=True)
    tests = [t for t in finder.find(module, name) if t.examples]
    if not tests:
        pytest.skip(f"{name} has no docstring examples")
    runner = doctest.DocTestRunner(
        optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    report = []
    with np.printoptions(legacy=False), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for test in tests:
            if "matplotlib" in test.docstring and importlib.util.find_spec("matplotlib") is None:
                continue
            out = []
            result = runner.run(test, out=out.append, clear_globs=True)
            if result.failed:
                report.append("".join(out))
    assert not report, "\n".join(report)


def test_every_public_object_has_an_example():
    """Every estimator exported by skfed has a runnable Examples section."""
    missing = []
    for name in skfed.__all__:
        obj = getattr(skfed, name)
        if isinstance(obj, type) and hasattr(obj, "fit"):
            if ">>>" not in (obj.__doc__ or ""):
                missing.append(name)
    assert not missing, f"estimators without a docstring example: {missing}"


def test_api_reference_lists_every_public_callable():
    """doc/api.rst has every public class and function of every public module."""
    from pathlib import Path

    api = Path(__file__).resolve().parents[1] / "doc" / "api.rst"
    if not api.exists():
        pytest.skip("doc/api.rst is not in this checkout")
    listed = {line.strip() for line in api.read_text().splitlines()}
    missing = []
    for name in MODULES:
        if any(part.startswith("_") for part in name.split(".")[1:]):
            continue
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        for attr in getattr(module, "__all__", []):
            obj = getattr(module, attr)
            if callable(obj) and attr not in listed:
                missing.append(f"{name}.{attr}")
    assert not missing, f"not in doc/api.rst: {missing}"


def test_the_examples_run_here_are_those_pytest_doctest_modules_collects(tmp_path):
    # ``pytest --doctest-modules --pyargs skfed`` (run outside the source
    # tree, as from a ``pip install .``) and the parametrized test above must
    # run the same docstring examples: the README points to this file for
    # them, and CI runs ``pytest tests``.
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-m", "pytest", "--doctest-modules", "--pyargs", "skfed",
         "--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"],
        cwd=tmp_path, capture_output=True, text=True, check=False,
    ).stdout
    collected = {line.rsplit("::", 1)[1] for line in out.splitlines() if "::" in line}
    ours = set()
    for name in MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        finder = doctest.DocTestFinder(exclude_empty=True)
        ours |= {t.name for t in finder.find(module, name) if t.examples}
    assert len(ours) > 40   # (54 at defects14: every public module has its example)
    assert collected == ours
