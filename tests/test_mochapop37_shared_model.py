"""The shared logistic model's solve (:mod:`skfed._shared_model`), now
imported by Perso-lin (and measured for MOCHA's newcomers in
``benchmarks/mochapop37_har_shared.py``).

References: scikit-learn's ``LogisticRegression(C=1)`` on the pooled kept
rows (the objective the solve minimizes, its intercept a free column); the
messages in closed form; Perso-lin's wrapper equal to the moved solve
through the graph link, and its fitted models bit-identical to a solve
whose every message goes through ``_deliver`` as before the move."""

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression

from skfed import _shared_model as sm
from skfed.boosting import _perso_lin_shared as sh
from skfed.network import SimulatedNetwork


class Counting(sm.HubLink):
    def __init__(self, n):
        super().__init__(n)
        self.up_bytes, self.down_bytes = [], []

    def up(self, n_bytes):
        self.up_bytes.append(int(n_bytes))

    def down(self, n_bytes):
        self.down_bytes.append(int(n_bytes))


def _data(n_nodes=6, seed=0, n_features=4, multi=False):
    rng = np.random.RandomState(seed)
    sizes = rng.randint(20, 60, size=n_nodes)
    X = rng.normal(size=(sizes.sum(), n_features)) * [1.0, 3.0, 0.3, 1.0][:n_features]
    w = rng.normal(size=n_features)
    f = X @ w + 0.5 * rng.normal(size=len(X))
    y = np.digitize(f, np.quantile(f, [1 / 3, 2 / 3])) if multi else (f > 0.2).astype(int)
    offsets = np.concatenate([[0], np.cumsum(sizes)])
    Z = np.hstack([X, np.ones((len(X), 1))])  # (the intercept column, unpenalized)
    return X, y, Z, offsets


@pytest.mark.parametrize("multi", [False, True])
def test_solve_is_sklearn_logistic_regression_on_the_kept_rows(multi):
    X, y, Z, offsets = _data(multi=multi)
    classes = np.unique(y)
    Y = (np.where(y == classes[1], 1.0, -1.0)[None] if not multi
         else np.where(y[None] == classes[:, None], 1.0, -1.0))
    keep = np.ones(len(y), dtype=bool)
    keep[::5] = False
    link = Counting(len(offsets) - 1)
    S, used = sm.solve_logistic(Z, Y, np.ones(len(y)), offsets, keep, link, X.shape[1], 80)
    assert 1 <= used <= 80
    for p in range(Y.shape[0]):
        target = (Y[p] > 0).astype(int)
        ref = LogisticRegression(C=1.0, tol=1e-10, max_iter=10000).fit(X[keep], target[keep])
        got = np.append(ref.coef_[0], ref.intercept_[0])
        np.testing.assert_allclose(S[p], got, rtol=2e-3, atol=2e-3)
    # messages: the scaling (up), the scale (down) and the sketch (up), then
    # per evaluation S down and the sums up (float32 payloads)
    nb, P, r = Z.shape[1], Y.shape[0], min(sm.SKETCH_RANK, Z.shape[1])
    assert link.up_bytes == [4 * (nb + 1), 4 * nb * r] + [4 * P * (nb + 1)] * used
    assert link.down_bytes == [4 * nb] + [4 * P * nb] * used


def test_perso_lin_wrapper_is_the_moved_solve():
    X, y, Z, offsets = _data(seed=3)
    Y = np.where(y == 1, 1.0, -1.0)[None]
    keep = np.arange(len(y)) % 5 != 0
    n = len(offsets) - 1
    a, used_a = sh.solve_shared(Z, Y, np.ones(len(y)), offsets, keep,
                                SimulatedNetwork().start(n, random_state=0), X.shape[1])
    sim = SimulatedNetwork().start(n, random_state=0)
    b, used_b = sm.solve_logistic(Z, Y, np.ones(len(y)), offsets, keep, sh._GraphHub(sim, n),
                                  X.shape[1], sh.SHARED_ROUNDS)
    assert used_a == used_b and np.array_equal(a, b)
