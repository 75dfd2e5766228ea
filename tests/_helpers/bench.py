"""A benchmark script's function, for tests that check a page's numbers
against the benchmark that measured them."""

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


def bench_function(script, name):
    """``name`` from ``benchmarks/<script>.py``; skips the test where the
    checkout has no benchmarks."""
    path = BENCHMARKS / f"{script}.py"
    if not path.exists():
        pytest.skip("benchmarks/ is not in this checkout")
    spec = importlib.util.spec_from_file_location(f"_bench_{script}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return getattr(module, name)
