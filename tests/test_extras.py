"""The install hints of missing optional dependencies match pyproject.toml."""

from pathlib import Path

import pytest

# tomllib is in the standard library from Python 3.11; the package supports 3.10.
tomllib = pytest.importorskip("tomllib")

from skfed._extras import _FALLBACK, extra_requirements, install_hint

PYPROJECT = Path(__file__).resolve().parents[1] / "pyproject.toml"


def _declared():
    if not PYPROJECT.exists():  # pragma: no cover - tests run outside the tree
        pytest.skip("pyproject.toml is not beside the tests")
    with open(PYPROJECT, "rb") as f:
        return tomllib.load(f)["project"]["optional-dependencies"]


@pytest.mark.parametrize("extra", sorted(_FALLBACK))
def test_extra_requirements_are_the_declared_ones(extra):
    declared = [r.split(";")[0].strip().replace(" ", "") for r in _declared()[extra]]
    assert extra_requirements(extra) == declared
    # The fallback used when no metadata is readable says the same.
    assert _FALLBACK[extra] == declared


def test_install_hint_is_a_runnable_pip_command():
    hint = install_hint("flower")
    assert hint.startswith('pip install "flwr==')
    assert 'pip install ".[flower]"' in hint
