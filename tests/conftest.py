"""Fixtures shared by several test modules."""

import importlib.util
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


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
