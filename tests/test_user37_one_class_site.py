"""nodes.rst: what a one-class site's model predicts on other sites' rows (user37).

The page says a class absent from a node's training samples is rarely
predicted at that node; a first-time user found that true on the node's own
rows only: MOCHA's default model of a one-class site gave the absent classes
to about half of the other sites' rows.  The page now quotes
``benchmarks/user37_one_class_site.py`` (seeds 0-4); seeds 0 and 4 are
re-run here against the quoted ranges.
"""

import importlib.util
import re
import sys
import warnings
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]
_BENCH = _ROOT / "benchmarks" / "user37_one_class_site.py"
_PAGE = _ROOT / "doc" / "user_guide" / "nodes.rst"


def _bench():
    if not _BENCH.exists():
        pytest.skip("benchmarks/ is not in this checkout")
    sys.path.insert(0, str(_BENCH.parent))   # it imports its sibling's data
    try:
        spec = importlib.util.spec_from_file_location("user37_one_class_site", _BENCH)
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.path.remove(str(_BENCH.parent))
    return module


def _quoted():
    if not _PAGE.exists():
        pytest.skip("doc/user_guide/nodes.rst is not in this checkout")
    text = " ".join(_PAGE.read_text().split())
    match = re.search(
        r"gives its class to every one of its own rows but an absent class to "
        r"([\d.]+)-([\d.]+) % of the other sites' rows \(accuracy ([\d.]+)-([\d.]+) on them\), "
        r"Perso-lin's to ([\d.]+)-([\d.]+) %, Dada's to ([\d.]+)-([\d.]+) % and Local's to none",
        text)
    assert match, "nodes.rst no longer quotes the one-class site figures"
    v = [float(x) for x in match.groups()]
    return {"MOCHA": (v[0] / 100, v[1] / 100, v[2], v[3]), "Perso-lin": (v[4] / 100, v[5] / 100),
            "Dada": (v[6] / 100, v[7] / 100), "Local": (0.0, 0.0)}


@pytest.mark.parametrize("seed", [0, 4])
@pytest.mark.parametrize("name", ["MOCHA", "Perso-lin", "Dada", "Local"])
def test_the_quoted_ranges_hold(name, seed):
    quoted = _quoted()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        own, absent, accuracy = _bench().run(name, seed)
    # two-digit rounding on the page: half a unit either side
    assert quoted[0] - 0.005 <= absent <= quoted[1] + 0.005, (name, seed, absent)
    if name != "Perso-lin":   # the documented exception
        assert own == 1.0
    if name == "MOCHA":
        assert quoted[2] - 0.005 <= accuracy <= quoted[3] + 0.005
