"""online.rst's "unrelated sites": the coupling selection picks none there (user38, coupling38).

On benchmarks/user38_first_user.py's ``unrelated`` family (every site its
own linear regression) the two-candidate selection (weak, strong) was 5-7
R^2 points under a per-site Ridge; with none among the candidates the
default chooses it and matches ``consensus_penalty=0`` and the Ridge.  Re-fitted here on
seed 0 against a per-site ``StandardScaler`` + ``Ridge()`` fitted by hand;
the page's figures are read back.
"""

import re
from pathlib import Path

import numpy as np
import pytest
from sklearn.linear_model import Ridge
from sklearn.metrics import r2_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skfed.online import DecentralizedKernelSGDRegressor

from ._helpers.bench import bench_function
from ._helpers.coupling import pin_coupled_candidates

_ROOT = Path(__file__).resolve().parents[1]


def _unrelated(seed):
    return bench_function("user38_first_user", "unrelated")(seed)


def _site_r2(pred, y, g):
    return float(np.mean([r2_score(y[g == k], pred[g == k]) for k in np.unique(g)]))


def test_default_coupling_is_none_on_unrelated_sites(monkeypatch):
    path = _ROOT / "doc" / "user_guide" / "online.rst"
    if not path.exists():
        pytest.skip("doc/user_guide/online.rst is not in this checkout")
    text = " ".join(path.read_text().split())
    said = re.search(r"the defaults' mean site R\^2 went from (\.\d+) / .*? \(weak chosen\) to "
                     r"(\.\d+) / .*? with none, the best Local's (\.\d+) /", text)
    assert said, "online.rst no longer gives the unrelated-sites figures"
    Xtr, Xte, ytr, yte, gtr, gte = _unrelated(0)
    pred = np.empty_like(yte)
    for k in np.unique(gtr):
        model = make_pipeline(StandardScaler(), Ridge()).fit(Xtr[gtr == k], ytr[gtr == k])
        pred[gte == k] = model.predict(Xte[gte == k])
    local = _site_r2(pred, yte, gte)
    default = DecentralizedKernelSGDRegressor(random_state=0).fit(Xtr, ytr, groups=gtr)
    alone = DecentralizedKernelSGDRegressor(consensus_penalty=0.0, random_state=0).fit(
        Xtr, ytr, groups=gtr)
    assert default.consensus_selection_["choice"] == "none"
    assert default.consensus_penalty_ == 0 and alone.consensus_selection_ is None
    # before coupling38: the weak and the strong candidates alone
    pin_coupled_candidates(monkeypatch)
    before = DecentralizedKernelSGDRegressor(random_state=0).fit(Xtr, ytr, groups=gtr)
    assert before.consensus_selection_["choice"] == "weak"
    s_default = _site_r2(default.predict(Xte, groups=gte), yte, gte)
    s_alone = _site_r2(alone.predict(Xte, groups=gte), yte, gte)
    s_before = _site_r2(before.predict(Xte, groups=gte), yte, gte)
    assert (f"{s_before:.3f}"[1:], f"{s_default:.3f}"[1:], f"{local:.3f}"[1:]) == said.groups()
    assert s_before < local - 0.05 and abs(s_default - local) < 0.005
    assert abs(s_alone - s_default) < 0.005
