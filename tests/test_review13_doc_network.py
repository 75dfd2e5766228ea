"""review13: the support-recovery example of doc/user_guide/network.rst runs
as shown (it used an undefined ``selector`` before) and prints the closed-form
bytes: 10 clients x (16-byte header + ceil(50 / 8) = 7 bytes) = 230."""

import doctest
from pathlib import Path

import pytest

_PAGE = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "network.rst"


def test_network_page_example_runs_and_prints_the_closed_form_bytes():
    if not _PAGE.exists():
        pytest.skip("doc/user_guide/network.rst is not in this checkout")
    text = _PAGE.read_text()
    assert f"{10 * (16 + -(-50 // 8))} bytes in 10 messages" in text
    result = doctest.testfile(str(_PAGE), module_relative=False,
                              optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.attempted >= 5
    assert result.failed == 0
