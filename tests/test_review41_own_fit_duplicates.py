"""review41: Perso-lin's own-fit test (skfed/_join_own_fit.py) on a newcomer
whose rows repeat.

The own fit's leave-one-out margin of a row left its copies in the fit: in
high dimension the ridge fit recalls the copies' label, so the "held-out"
margins of noisy labels rank them right and the test fired against a
joined model that *is* the rule (the labels' 25 % flips its only errors):
d = 50, 20 distinct rows each twice, seeds 0-59: 83 % of newcomers
flagged (10 rows x 2: 25 %; d = 2, 10 rows x 4: 8 %; no repeats: 0 %).
Rows that repeat are one point to leave out: the margin of each copy is
the fit without all of them (for the fit's fixed transform of the
features the leave-a-group-out identity ``(I - H_GG)^-1``; ``H_GG`` of
``m`` equal rows is ``h 1 1'``), checked here against refits.
"""

import numpy as np
import pytest

from skfed._join_own_fit import loo_ridge_margins, own_fit_pvalues


def _refit_margins(X, t):
    """Every row's margin from the scaled ridge fit without it and its
    copies (the scaling, penalty and centring of the whole node's rows;
    unpenalized intercept), by solving each refit."""
    X = np.asarray(X, dtype=np.float64)
    n = len(t)
    sd = X.std(axis=0)
    Z = (X - X.mean(axis=0)) / np.where(sd > 0, sd, 1.0)
    lam = max(float((Z ** 2).sum()) / n, 1e-12)
    D = np.hstack([np.ones((n, 1)), Z])
    P = lam * np.eye(D.shape[1])
    P[0, 0] = 0.0
    out = np.empty(n)
    for i in range(n):
        keep = ~np.all(X == X[i], axis=1)
        beta = np.linalg.lstsq(D[keep].T @ D[keep] + P, D[keep].T @ t[keep], rcond=None)[0]
        out[i] = D[i] @ beta
    return out


@pytest.mark.parametrize("d", [3, 30])
def test_margins_leave_out_every_copy(d):
    rng = np.random.RandomState(d)
    Xu = rng.normal(size=(12, d))
    X = Xu[[0, 0, 1, 2, 2, 2, 3, 4, 5, 6, 7, 7, 8, 9, 10, 11]]
    t = np.where(rng.uniform(size=len(X)) < 0.5, -1.0, 1.0)
    np.testing.assert_allclose(loo_ridge_margins(X, t), _refit_margins(X, t), rtol=1e-9,
                               atol=1e-10)
    # (distinct rows: the plain leave-one-out, as before)
    np.testing.assert_allclose(loo_ridge_margins(Xu, t[:12]), _refit_margins(Xu, t[:12]),
                               rtol=1e-9, atol=1e-10)


def test_repeated_rows_do_not_flag_the_rule():
    fired = []
    for seed in range(20):
        rng = np.random.RandomState(seed)
        w = rng.normal(size=50)
        Xu = rng.normal(size=(20, 50))
        yu = (Xu @ w > 0).astype(int)
        yu = np.where(rng.uniform(size=20) < 0.25, 1 - yu, yu)
        X, y = np.repeat(Xu, 2, axis=0), np.repeat(yu, 2)
        if 0 < y.sum() < len(y):
            fired.append(own_fit_pvalues(X, (X @ w)[None], y, [0, len(y)])[0] < 0.01)
    assert len(fired) >= 18 and sum(fired) == 0
