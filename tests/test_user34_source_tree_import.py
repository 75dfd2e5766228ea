"""``import skfed`` from a source tree without compiled modules (user34).

A first-time user follows the README (``pip install .`` in the clone), then
starts ``python`` (or Jupyter) in the clone's root: the current directory
comes first on ``sys.path``, so the source tree's ``skfed/``, which holds no
compiled module, shadows the installed package, and ``import skfed`` fails
with ``ModuleNotFoundError: No module named 'skfed._core._comm'``, which
does not say why nor what to do.  ``tests/conftest.py`` says it for
``python -m pytest``; plain ``import skfed`` did not.  Fixed by the lead:
``skfed/__init__.py`` says both.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import skfed


def test_import_from_unbuilt_source_tree_says_why(tmp_path):
    source = Path(skfed.__file__).resolve().parent
    # the source tree as a fresh clone has it: Python files only
    shutil.copytree(source, tmp_path / "skfed",
                    ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "*.cpp",
                                                  "__pycache__"))
    assert not list((tmp_path / "skfed").rglob("*.so"))
    env = {k: v for k, v in __import__("os").environ.items() if k != "PYTHONPATH"}
    proc = subprocess.run([sys.executable, "-c", "import skfed"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode != 0
    # it did import the unbuilt copy (the installed one would have worked)
    assert "No module named 'skfed._core" in proc.stderr or "compiled" in proc.stderr
    # what a user needs: that the tree has no compiled modules, and a way out
    assert "compiled" in proc.stderr
    assert "build_ext --inplace" in proc.stderr or "another directory" in proc.stderr
