"""choosing.rst's rule for related dense tasks without a server names a regressor (user37).

A first-time user with a per-site regression and no server read "With a
server, MOCHA; without one, Perso-lin" and found that Perso-lin has no
regressor.  The rule now names the online learner's regressor for that case,
with a claim read off doc/user_guide/online.rst's held-out table; this test
re-reads that table so the claim cannot drift from it.
"""

import re
from pathlib import Path

import pytest

import skfed.boosting

_GUIDE = Path(__file__).resolve().parents[1] / "doc" / "user_guide"


def _read(name):
    path = _GUIDE / name
    if not path.exists():
        pytest.skip(f"doc/user_guide/{name} is not in this checkout")
    return " ".join(path.read_text().split())


def test_perso_lin_has_no_regressor_and_the_rule_says_what_to_use():
    assert not [name for name in skfed.boosting.__all__ if "Regress" in name]
    text = _read("choosing.rst")
    assert ("without one, Perso-lin for a classification (it has no regressor) and "
            ":class:`~skfed.online.DecentralizedKernelSGDRegressor` for a regression") in text
    assert "at 13 to 72 times the raw upload" in text


def test_the_claim_matches_the_online_held_out_table():
    page = (_GUIDE / "online.rst")
    if not page.exists():
        pytest.skip("doc/user_guide/online.rst is not in this checkout")
    rows = re.findall(
        r"^(\S[\w-]*) \(RMSE\)\s+\**([\d.]+)\** \(([\d.]+)\)\s+\**[\d.]+\** \([\d.]+\)"
        r"\s+([\d.]+)\s+([\d.]+)\s*$",
        page.read_text(), flags=re.MULTILINE)
    assert [r[0] for r in rows] == ["alike-regression", "nonlinear-regression",
                                    "heavy-tailed", "outliers"]
    for name, rmse, times_raw, best_global, best_local in rows:
        # "at least the better of Global and Local": the lowest RMSE
        assert float(rmse) <= min(float(best_global), float(best_local)), name
    times = [float(r[2]) for r in rows]
    assert round(min(times)) == 13 and round(max(times)) == 72
