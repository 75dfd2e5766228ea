"""The pooled test's common class (skfed._class_vote_pooled.common_decision).

When MOCHA's class vote elects "no fixed class" and neither pooled test
fixes a class, the released sums can still show the classes equivalent
over the federation (two one-sided tests within a margin per node); every
node then keeps the logistic regression instead of its own one-standard-
error choice.  Cases in closed form: the decision against its formula at
and around both bounds, the kept models of a vote on hand-built evidence
(which the own rule answers differently), and the budget (post-processing:
nothing added).
"""

import math
from statistics import NormalDist

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression
from sklearn.svm import LinearSVC

from skfed._class_vote import run_class_vote, voted_model
from skfed._class_vote_pooled import (
    COMMON_MARGIN,
    POOLED_ALPHA,
    common_decision,
    node_statistics,
    pooled_scales,
    pooled_sums,
    pooled_test,
)
from skfed._secure_noise import NoiseSource

Z = NormalDist().inv_cdf(1.0 - POOLED_ALPHA)


def test_common_decision_against_the_closed_form():
    eps_p, n = 5.0, 40
    lam = pooled_scales(eps_p)[0]
    s1 = math.sqrt(8.0 + 2 * lam[0] ** 2)
    s3 = math.sqrt(6.0 + 2 * lam[3] ** 2)
    bound = COMMON_MARGIN * n  # 10
    assert bound == pytest.approx(10.0)
    # A_1 just under / over its bound, A_3 well inside
    a1 = bound - Z * s1
    for d, expected in ((-1e-6, True), (1e-6, False)):
        noisy = np.array([a1 + d, 8.0, 0.0, 0.0, 6.0])
        assert common_decision(noisy, eps_p, n) is expected
    # A_3 just over / under its bound (-bound + Z s_3), A_1 inside
    a3 = -bound + Z * s3
    for d, expected in ((1e-6, True), (-1e-6, False)):
        noisy = np.array([0.0, 8.0, 0.0, a3 + d, 6.0])
        assert common_decision(noisy, eps_p, n) is expected
    # a negative released square sum counts as 0 (its noise only)
    noisy = np.array([bound - Z * math.sqrt(2) * lam[0] - 1e-6, -3.0, 0.0, 0.0, -1.0])
    assert common_decision(noisy, eps_p, n)
    # the margin scales with the public number of nodes
    noisy = np.array([a1 - 1e-6, 8.0, 0.0, 0.0, 6.0])
    assert not common_decision(noisy, eps_p, n // 2)


def _node(kind, rng, m=20):
    """Evidence of one node: rows (collaborative, LinearSVC, rff-LinearSVC,
    LogisticRegression) of held-out 0-1 errors.  ``kind`` +1: LinearSVC
    errorless and the logistic regression wrong on 4 samples (the own rule
    keeps LinearSVC); -1: the reverse; 0: the classes tie; 2: the linear
    classes tie and the rbf model is wrong on 4 samples (u_3 = +1).  Else
    the rbf model errs as the better linear class (u_3 = 0).  The
    collaborative model errs everywhere (it never wins)."""
    X = rng.normal(size=(m, 2))
    codes = (X[:, 0] > 0).astype(int)
    codes[:2] = [0, 1]
    err = np.zeros((4, m))
    err[0] = 1.0
    if kind == 2:
        err[2, :4] = 1.0
    elif kind == 1:
        err[3, :4] = 1.0
    elif kind == -1:
        err[1, :4] = 1.0
    return {"err": err, "ballot": 0, "X": X, "codes": codes, "seed": 0}


class _Estimator:
    def __init__(self, n):
        self.privacy_spent_ = np.zeros(n)
        self.privacy_ = {}


@pytest.mark.parametrize("n_plus, n_minus, common", [(4, 4, True), (14, 0, False)])
def test_common_class_replaces_the_own_rule(n_plus, n_minus, common):
    rng = np.random.default_rng(0)
    n = 40
    kinds = [1] * n_plus + [-1] * n_minus + [2] * 8 + [0] * (n - n_plus - n_minus - 8)
    evidence = [_node(k, rng) for k in kinds]
    stats = np.array([node_statistics(e["err"]) for e in evidence])
    # closed form of the statistics: u_1 = +-1 on the switching nodes, u_3
    # = +1 where the rbf model alone errs, 0 elsewhere
    kinds = np.array(kinds)
    np.testing.assert_array_equal(stats[:, 0], np.where(kinds == 2, 0, kinds))
    np.testing.assert_array_equal(stats[:, 2], kinds == 2)
    sums = pooled_sums(stats)
    assert sums[0] == n_plus - n_minus and sums[1] == n_plus + n_minus
    assert sums[3] == 8 and sums[4] == 8
    # the own rule (elected 0) keeps LinearSVC on the +1 nodes
    own = [voted_model(e, 0, n) for e in evidence]
    assert sum(isinstance(m, LinearSVC) for m in own) == n_plus
    # the same noise the fit's test draws: the decision from its release
    eps_p, eps_v = 20.0, 1.5
    noise_seed = 3
    option, info = pooled_test(stats, eps_p, NoiseSource(insecure_seed=noise_seed), n_nodes=n)
    assert info["common"] is common
    est = _Estimator(n)
    models = run_class_vote(est, evidence, eps_v, NoiseSource(insecure_seed=noise_seed),
                            pooled_epsilon=eps_p)
    vote = est.privacy_["class_vote"]
    # every ballot names the logistic regression: "no fixed class" elected
    # (probability 1 - 2 exp(-eps_v (40 + T) / 2) within the noise source)
    if common:
        assert vote["pooled_test"]["common"]
        assert not vote["pooled_test"]["elected_by_test"]
        assert est.elected_local_class_ == "LogisticRegression"
        assert all(isinstance(m, LogisticRegression) for m in models)
        for m, e in zip(models, evidence):
            np.testing.assert_allclose(
                m.coef_, LogisticRegression(max_iter=1000).fit(e["X"], e["codes"]).coef_)
    else:
        # LinearSVC better on 14 of 40 nodes by more than the margin allows
        assert sums[0] + Z * math.sqrt(sums[1]) > COMMON_MARGIN * n
        assert not vote["pooled_test"]["common"]
        assert est.elected_local_class_ != "LogisticRegression"
        assert sum(isinstance(m, LinearSVC) for m in models) >= n_plus
    # the budget: the ballots' and the test's epsilons, nothing for the
    # common class (post-processing of the same release)
    assert vote["epsilon"] == pytest.approx(eps_v + eps_p, rel=1e-3)
    np.testing.assert_allclose(est.privacy_spent_, vote["epsilon"])
