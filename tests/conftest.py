"""Fixtures shared by several test modules."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def pytest_configure(config):
    # ``python -m pytest`` puts the current directory first on sys.path: from
    # the repository root it imports the source tree's skfed, whose compiled
    # modules are not built there, and every test module failed to import
    # with the same ModuleNotFoundError.  Say why once, and what to run.
    try:
        import skfed  # noqa: F401
    except ModuleNotFoundError as exc:
        if not (exc.name or "").startswith("skfed._core"):
            raise
        spec = importlib.util.find_spec("skfed")
        where = Path(spec.origin).parent if spec and spec.origin else "the source tree"
        raise pytest.UsageError(
            f"skfed was imported from {where}, which has no compiled module "
            f"{exc.name}. `python -m pytest` puts the current directory first on "
            "sys.path, so the source tree shadows the installed skfed: run `pytest "
            "tests` instead (it tests the installed package), or build in place "
            "first with `python setup.py build_ext --inplace`."
        ) from exc


@pytest.fixture(scope="session")
def one_bit_sim():
    """``benchmarks/support_one_bit_rules.py`` as a module: the NumPy
    simulation of one-bit client rules that the support tests compare the
    estimator's votes with."""
    spec = importlib.util.spec_from_file_location(
        "support_one_bit_rules", ROOT / "benchmarks" / "support_one_bit_rules.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
