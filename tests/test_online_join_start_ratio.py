"""A regressor newcomer starts from its neighbours only if they clearly win (issue 32).

Besides doing better than the network function (at its scale) by more than
one standard error of the summed per-sample loss difference on its samples,
its neighbours' loss must be at most ``_JOIN_START_RATIO`` (0.5) times the
network function's.  On School (``benchmarks/new_nodes.py``) the newcomers
that chose their neighbours under the margin alone had 0.27-0.90 of the
network function's loss at k = 5 and scored worse than the network start;
the clustered regressions' newcomers have 0.04-0.31
(``tests/test_online_join_clusters.py``).  Before (main at f28c2af) the
first newcomer below (ratio 0.70, beyond the margin) started from its
neighbours and these checks fail.
"""

import copy
import warnings

import numpy as np

from skfed import DecentralizedKernelSGDRegressor
from skfed.online import _join

from ._helpers.coupling import pin_coupled_candidates


def _federation(seed=0, sigma=1.0, K=16, n=12, d=4, m=5, n_new=6):
    # linear tasks spread around a common one (sigma: the spread)
    rng = np.random.RandomState(seed)
    w = rng.normal(size=d)
    W = w + sigma * rng.normal(size=(K, d))
    g = np.repeat(np.arange(K), n)
    X = rng.normal(size=(K * n, d))
    y = np.einsum("ij,ij->i", X, W[g]) + 0.5 * rng.normal(size=K * n)
    W_new = w + sigma * rng.normal(size=(n_new, d))
    gn = np.repeat(np.arange(n_new), m)
    Xn = rng.normal(size=(n_new * m, d))
    yn = np.einsum("ij,ij->i", Xn, W_new[gn]) + 0.5 * rng.normal(size=len(gn))
    return X, y, g, Xn, yn, gn + 100


def _numpy_rule(net, neighbours, n_se=1.0, ratio=0.5):
    n = len(net)
    diff = neighbours - net
    se = np.sqrt(n / (n - 1) * np.sum((diff - diff.mean()) ** 2))
    beyond = neighbours.sum() < net.sum() - n_se * se
    return not (beyond and neighbours.sum() <= ratio * net.sum()), beyond


def test_regressor_start_needs_half_the_network_loss(monkeypatch):
    assert _join._JOIN_START_RATIO == 0.5 and _join._JOIN_START_MARGIN == 1.0
    X, y, g, Xn, yn, gn = _federation()
    # The federation the rule was measured on: the coupled candidates' choice
    # (weak).  With c = 0 among them (coupling38) its 3 passes of 12 samples
    # a node choose no coupling (held-out loss 0.17 against 0.25).
    pin_coupled_candidates(monkeypatch)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # (epsilon 0.01 in units of the targets' agreed scale, 3.08 here: a
        # budget at which one newcomer is past the margin but not under
        # half the network's loss, measured below)
        # (network_share=0: the join's byte budget, a share of the fit's
        # bytes, was measured without the share's rounds)
        est = DecentralizedKernelSGDRegressor(random_state=0, max_epochs=3, epsilon=0.01,
                                              network_share=0.0).fit(
            X, y, groups=g)
    joined = copy.deepcopy(est)
    # This federation's coupling selection finds it alike (strong / weak
    # validation loss 1.9, under _JOIN_ALIKE), where every newcomer keeps
    # the network function (tests/test_online_join_alike.py); the rule
    # below is the one for federations that are not.
    weak, strong = est.consensus_selection_["mean_validation_error"][:2]
    assert strong <= _join._JOIN_ALIKE * weak
    joined.consensus_selection_ = None
    seen = []
    rule = joined._join_prefers_network
    joined._join_prefers_network = lambda a, b: seen.append((np.array(a), np.array(b))) or rule(a, b)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        joined.add_nodes(Xn, yn, groups=gn)
    assert len(seen) == 6
    network = joined.join_start_ == "network"
    ratios, beyond = [], []
    for k, (net, neighbours) in enumerate(seen):
        assert len(net) == len(neighbours) == 5 and np.all(net >= 0) and np.all(neighbours >= 0)
        prefers, past_margin = _numpy_rule(net, neighbours)
        assert network[k] == prefers
        ratios.append(neighbours.sum() / net.sum())
        beyond.append(past_margin)
    # measured: newcomer 3 beats the margin at 0.65 of the network's loss
    # (the margin alone chose its neighbours), newcomer 5 at 0.16 (before
    # online26 took the solved network function at scale 1: newcomer 0 at
    # 0.70, newcomer 5 at 0.11)
    assert beyond[3] and 0.5 < ratios[3] < 1.0 and network[3]
    assert beyond[5] and ratios[5] < 0.2 and not network[5]
    # the old nodes are untouched
    np.testing.assert_array_equal(joined.predict(X, groups=g), est.predict(X, groups=g))


def test_classifier_rule_is_the_error_count():
    est = DecentralizedKernelSGDRegressor()
    # (the classifier's rule: the network function unless its neighbours
    # make fewer errors; no margin, no ratio)
    est._is_regressor = lambda: False
    assert est._join_prefers_network(np.array([1.0, 0.0, 1.0]), np.array([1.0, 0.0, 1.0]))
    assert not est._join_prefers_network(np.array([1.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]))
