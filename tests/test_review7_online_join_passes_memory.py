"""Review7: a regressor newcomer's choice of passes in memory O(runs x samples).

``_cross_validated_passes`` kept the running sum of the iterates after
every step, ``(max_epochs |train| + 1, runs, n, n_outputs)`` floats, when
only two of them per choice and run are read: 13 newcomers of 100 samples
took 132 MB in one add_nodes (31 KB of input), 13 of 500 would take about
3 GB.  The values are checked against a plain per-run loop of the step the
docstring gives, and the peak memory against the old array's size.
"""

import tracemalloc

import numpy as np
import pytest

from skfed.online._holdout import loss_arrays
from skfed.online._join_passes import _cross_validated_passes


def _runs(n_runs, n, seed=0):
    rng = np.random.default_rng(seed)
    runs = []
    for r in range(n_runs):
        m = n - (r % 3)  # runs of different lengths
        X = rng.normal(size=(m, 2))
        K = np.exp(-0.5 * ((X[:, None] - X[None]) ** 2).sum(-1))
        start = rng.normal(size=(m, 1)) * 0.3
        nsum = rng.normal(size=(m, 1)) * 0.5
        y = X[:, 0] + 0.1 * rng.normal(size=m)
        w = rng.uniform(0.5, 2.0, m)
        held = np.arange(r % 5, m, 5)
        train = np.setdiff1d(np.arange(m), held)
        runs.append((K, start, nsum, 2, y, w, train, held))
    return runs


def _reference(run, choices, loss, eta, alpha, c, average, threshold):
    """One run, step by step, as the docstring says."""
    K, start, nsum, degree, y, w, train, held = run
    E_max = max(choices)
    f = start.astype(np.float64).copy()
    iterates = []
    for t in range(E_max * len(train)):
        s = train[t % len(train)]
        _, grad = loss_arrays(loss, f[s:s + 1], y[s:s + 1], threshold)
        omega = w[s] * grad[0] + c * (degree * f[s] - nsum[s])
        f = (1.0 - eta(t) * alpha) * f - eta(t) * K[:, s][:, None] * omega[None, :]
        iterates.append(f.copy())
    out = []
    for E in choices:
        end = E * len(train)
        if end == 0:
            value = start
        elif average > 0:
            first = int(np.floor((1 - average) * end))
            value = np.mean(iterates[first:end], axis=0)
        else:
            value = iterates[end - 1]
        loss_values, _ = loss_arrays(loss, value[held], y[held], threshold)
        out.append(float(w[held] @ loss_values))
    return np.array(out)


@pytest.mark.parametrize("loss, average", [("huber", 0.5), ("squared_error", 0.0)])
def test_passes_scores_equal_a_per_run_loop(loss, average):
    runs = _runs(4, 12)
    choices = [0, 1, 3, 7]
    eta = lambda t: 0.3 / (1.0 + t) ** 0.25
    threshold = 0.5 if loss == "huber" else None
    scores = _cross_validated_passes(runs, choices, loss, eta, 0.01, 0.2, average, threshold)
    assert scores.shape == (4, 4)
    for r, run in enumerate(runs):
        expected = _reference(run, choices, loss, eta, 0.01, 0.2, average, threshold)
        np.testing.assert_allclose(scores[r], expected, rtol=1e-10, atol=1e-12)


def test_passes_memory_does_not_grow_with_the_steps():
    runs = _runs(5, 120, seed=1)
    choices = [0, 1, 3, 10, 30]
    eta = lambda t: 0.2
    n = 120
    steps = max(choices) * max(len(run[6]) for run in runs)
    old_array = (steps + 1) * len(runs) * n * 8  # the former running-sum array
    assert old_array > 13e6
    tracemalloc.start()
    _cross_validated_passes(runs, choices, "huber", eta, 0.001, 0.1, 0.5, 1.0)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    kernels = len(runs) * n * n * 8
    assert peak < 4 * kernels + 2e6, (peak, kernels, old_array)
