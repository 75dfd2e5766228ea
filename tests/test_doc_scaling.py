"""The scaling example of doc/user_guide/nodes.rst runs and prints what it says."""

import doctest
from pathlib import Path

import pytest

_PAGE = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "nodes.rst"


def test_nodes_page_examples_run():
    if not _PAGE.exists():
        pytest.skip("doc/user_guide/nodes.rst is not in this checkout")
    result = doctest.testfile(str(_PAGE), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 10
    assert result.failed == 0
