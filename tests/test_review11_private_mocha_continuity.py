"""Private MOCHA as epsilon grows: does it approach the non-private fit?

review11's probe: 60 nearly-alike nodes of 6 training samples each (one
shared linear rule, little noise), the family where federation pays most
(non-private MOCHA and pooled logistic regression score about .95 on fresh
samples of the same nodes, each node alone about .68).  At
``epsilon=inf`` the private path is the non-private fit exactly and scores
the same.  At ``epsilon=1e6`` the noise is negligible, so its fit should be
close to it; instead every private fit scores like Local (about .69): the
collaborative refit that ``coef_`` holds scores .69 too, so it is not the
kept-local choice but the private training itself that loses the shared
rule (also with ``max_rounds=200``).  The privacy guide's table has no
row where ``off`` is far above Local at a loose budget, so this does not
show there.
"""
import warnings

import numpy as np
import pytest

from skfed import DifferentialPrivacy, FederatedMultiTaskClassifier

N_NODES = 60


def _nodes(n_per_node, rng):
    groups = np.repeat(np.arange(N_NODES), n_per_node)
    X = rng.normal(size=(len(groups), 5))
    y = (X[:, 0] + X[:, 1] + 0.2 * rng.normal(size=len(groups)) > 0).astype(int)
    return X, y, groups


def _refit_accuracy(est, X, y, groups):
    """Accuracy of the collaborative refit held in ``coef_`` / ``intercept_``."""
    rows = np.searchsorted(est.nodes_, groups)
    decision = np.einsum("ij,ij->i", X, est.coef_[rows]) + est.intercept_[rows]
    return np.mean(est.classes_[(decision > 0).astype(int)] == y)


@pytest.fixture(scope="module")
def data():
    rng = np.random.RandomState(0)
    return _nodes(6, rng), _nodes(50, rng)


def _fit(epsilon, train):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return FederatedMultiTaskClassifier(
            random_state=0, privacy=DifferentialPrivacy(epsilon=epsilon)).fit(
                train[0], train[1], groups=train[2])


def test_epsilon_inf_is_the_federated_fit(data):
    train, test = data
    est = _fit(np.inf, train)
    # the shared rule is learned: far above what 6 samples per node give alone
    assert _refit_accuracy(est, *test) > 0.9
    assert est.score(test[0], test[1], groups=test[2]) > 0.9


@pytest.mark.xfail(strict=True, reason=(
    "review11: private MOCHA at epsilon=1e6 scores like Local where epsilon=inf scores "
    ".954.  Remeasured by xfail37 (30 Nov 2026, main 92a0d0d4, "
    "benchmarks/private_mocha_continuity.py, one secure-noise draw): refit .678 / "
    ".840 and score .745 / .745 at epsilon 1e6 / 1e12; 57 of 60 nodes keep Local "
    "LinearSVC at every epsilon.  Causes, none in multitask/_private.py: (1) "
    "epsilon=inf runs the shared-component model (.954), which no private fit runs "
    "(a private shared mode: multitask/_shared.py); (2) at 1e6 sigma is 0.0064 per "
    "entry (~1/sqrt(epsilon)) and the Omega step's Bonferroni test kept no relation "
    "(server model .752 = omega='independent'; 1e12: .885 = MOCHA); (3) the kept "
    "model: the pooled class test fixes LinearSVC on every node, and a node keeps "
    "its collaborative model only when McNemar's sign test wins at 0.05 / 60 "
    "(skfed/_class_vote.py voted_model, _kept_local.collaboration_wins), which 6 "
    "samples can never reach (it needs 11 discordant samples): the score is Local "
    "LinearSVC's .745 even at 1e12, where the collaborative refit scores .840; a "
    "federation-level test of collaborative vs the fixed class would lift it at 1e9-1e12 "
    "only.  xfail38 (30 Nov 2026, benchmarks/xfail38_collab_ceiling.py, data draws 0-2, "
    "noise draws 0-1): the refit, which every node keeping its collaborative model "
    "(the ceiling of any collaboration test) would score, is .668-.686 at every epsilon "
    "from 3 to 1e6 (no relation survives: each node alone), under Local LinearSVC "
    ".738-.745, and .812-.849 at 1e9-1e12: at 1e6 no kept-model rule passes this test; "
    "the refit needs (1) and (2), and even MOCHA without noise (.884) is under .904"))
def test_negligible_noise_approaches_the_federated_fit(data):
    train, test = data
    inf_score = _refit_accuracy(_fit(np.inf, train), *test)
    est = _fit(1e6, train)
    assert _refit_accuracy(est, *test) > inf_score - 0.05
    assert est.score(test[0], test[1], groups=test[2]) > inf_score - 0.05


def test_vanishing_noise_server_model_is_mocha(data, monkeypatch):
    """privacy13: the private training path is continuous.  At epsilon=1e12
    (sigma about 6e-6 per entry) the server's models with each node's exact
    share, before any kept-model choice, score as non-private MOCHA with a
    learned Omega (0.884; measured 0.885), far above the nodes without task
    relations (omega="independent", 0.752): no relation is dropped by the
    Omega step's noise test once the noise vanishes."""
    from skfed.multitask import _base

    def server_models(est, state, sigma, lam, raw_X=None):
        W = state.weights(sigma, lam) + state.own_correction(sigma, lam)
        return W, np.full((W.shape[1], W.shape[0]), "server", dtype=object)

    train, test = data
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mocha = FederatedMultiTaskClassifier(random_state=0, omega="learn").fit(
            train[0], train[1], groups=train[2])
        alone = FederatedMultiTaskClassifier(random_state=0, omega="independent").fit(
            train[0], train[1], groups=train[2])
    mocha_score, alone_score = _refit_accuracy(mocha, *test), _refit_accuracy(alone, *test)
    assert mocha_score > alone_score + 0.1
    monkeypatch.setattr(_base, "kept_node_models", server_models)
    est = _fit(1e12, train)
    assert est.privacy_["sigma"] < 1e-4
    assert abs(_refit_accuracy(est, *test) - mocha_score) < 0.01
