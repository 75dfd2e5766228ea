"""growing.rst's join-bytes figures on a small federation (user37).

A first-time user with 8 sites found MOCHA's regressor join costing far
more than the "0.1-9.3 % of a refit's bytes" the page quoted from the
larger federations of ``benchmarks/new_nodes.py``.  The page now gives the
small-federation figures of ``benchmarks/user37_small_federation_join.py``
(seeds 0-4, min-max); here seed 0 is re-run and must fall in each quoted
range, and the MOCHA regressor's join must score
on average over seeds 0-4 at least its refit on the newcomer.
"""

import importlib.util
import re
from pathlib import Path

import pytest

_ROOT = Path(__file__).resolve().parents[1]
_BENCH = _ROOT / "benchmarks" / "user37_small_federation_join.py"
_PAGE = _ROOT / "doc" / "user_guide" / "growing.rst"


def _bench():
    if not _BENCH.exists():
        pytest.skip("benchmarks/ is not in this checkout")
    spec = importlib.util.spec_from_file_location("user37_small_federation_join", _BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _quoted():
    if not _PAGE.exists():
        pytest.skip("doc/user_guide/growing.rst is not in this checkout")
    text = " ".join(_PAGE.read_text().split())
    match = re.search(
        r"MOCHA's join cost ([\d.]+)-([\d.]+) % of a refit's bytes for the regressor "
        r"and ([\d.]+)-([\d.]+) % for the classifier, Perso-lin's ([\d.]+)-([\d.]+) % and "
        r"the online regressor's ([\d.]+)-([\d.]+) %, each join scoring on average at least "
        r"its refit",
        text)
    assert match, "growing.rst no longer quotes the small-federation figures"
    assert "(on 8, up to 13 % of the bytes:" in text
    bounds = [float(v) / 100 for v in match.groups()]
    names = ["MOCHA regressor", "MOCHA classifier", "Perso-lin", "online kernel SGD regressor"]
    return dict(zip(names, zip(bounds[::2], bounds[1::2])))


@pytest.mark.parametrize("name", ["MOCHA regressor", "MOCHA classifier", "Perso-lin",
                                  "online kernel SGD regressor"])
def test_seed_0_falls_in_the_quoted_range(name):
    import warnings

    low, high = _quoted()[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _, joined, refit, ratio = _bench().run(name, 0, 10)
    # the page rounds to two digits: half a unit of the last either side
    assert 0.95 * low <= ratio <= 1.05 * high, (name, ratio)
    assert 0.5 < joined <= 1.0 and joined >= refit - 0.01, (name, joined, refit)


def test_mocha_regressor_join_scores_its_refit_on_average():
    import warnings

    import numpy as np

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        runs = np.array([_bench().run("MOCHA regressor", seed, 10) for seed in range(5)])
    unseen, joined, refit, _ = runs.mean(axis=0)
    assert joined >= refit > unseen
    assert runs[0, 1] < runs[0, 2]   # not on every seed: the page says "on average"
