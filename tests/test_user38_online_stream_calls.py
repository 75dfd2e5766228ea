"""online.rst's figures for a stream fed through partial_fit (user38, seed 0).

fit makes ``max_epochs`` passes and a partial_fit call one; the page
gives the mean site accuracy of fit, of one call on all rows and of 15
calls of 10 rows a site on benchmarks/user38_first_user.py's circle task.
Re-fitted here (seed 0) and read back from the page; the step counts
check that a call is one pass.
"""

import re
from pathlib import Path

import numpy as np
import pytest

from skfed.online import DecentralizedKernelSGDClassifier

from ._helpers.bench import bench_function

_ROOT = Path(__file__).resolve().parents[1]


def _page():
    path = _ROOT / "doc" / "user_guide" / "online.rst"
    if not path.exists():
        pytest.skip("doc/user_guide/online.rst is not in this checkout")
    return " ".join(path.read_text().split())


def _circles(seed, n_sites=12, n_tr=150, d=4):
    rng = np.random.RandomState(seed)
    r = 1.0 + 0.2 * rng.randn(n_sites)
    g = np.repeat(np.arange(n_sites), n_tr + 100)
    X = rng.randn(len(g), d)
    y = ((X[:, :2] ** 2).sum(1) > r[g] ** 2).astype(int)
    flip = rng.rand(len(g)) < 0.05
    y[flip] = 1 - y[flip]
    tr = np.tile(np.r_[np.ones(n_tr, bool), np.zeros(100, bool)], n_sites)
    return X[tr], X[~tr], y[tr], y[~tr], g[tr], g[~tr]


def _site_mean(est, X, y, g):
    pred = est.predict(X, groups=g)
    return float(np.mean([np.mean(pred[g == k] == y[g == k]) for k in np.unique(g)]))


def test_stream_figures_seed_0():
    text = _page()
    said = re.search(r"``fit`` reached (\.\d+) / \.\d+ mean site accuracy.*?one ``partial_fit`` call "
                     r"on all rows (\.\d+) / \.\d+, and 15 calls of 10 rows a site (\.\d+) /", text)
    assert said, "online.rst no longer gives the stream figures"
    fit_said, one_said, calls_said = (float(v) for v in said.groups())
    Xtr, Xte, ytr, yte, gtr, gte = _circles(0)
    fit = DecentralizedKernelSGDClassifier(random_state=0).fit(Xtr, ytr, groups=gtr)
    one = DecentralizedKernelSGDClassifier(random_state=0).partial_fit(
        Xtr, ytr, groups=gtr, classes=[0, 1])
    calls = DecentralizedKernelSGDClassifier(random_state=0)
    pos = np.tile(np.arange(150), 12)
    for j in range(15):
        m = (pos >= 10 * j) & (pos < 10 * (j + 1))
        calls.partial_fit(Xtr[m], ytr[m], groups=gtr[m], classes=[0, 1])
    # one pass: every node stepped once on each of its 150 rows
    assert calls.n_steps_.tolist() == [150] * 12 and one.n_steps_.tolist() == [150] * 12
    assert fit.n_steps_.min() > 150
    assert round(_site_mean(fit, Xte, yte, gte), 3) == fit_said
    assert round(_site_mean(one, Xte, yte, gte), 3) == one_said
    assert round(_site_mean(calls, Xte, yte, gte), 3) == calls_said
    # the benchmark's task is this one
    for a, b in zip(bench_function("user38_first_user", "circles")(0), _circles(0)):
        np.testing.assert_array_equal(a, b)
