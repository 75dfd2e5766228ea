"""Every private path, fitted and then grown by ``add_nodes`` (review14).

``tests/test_privacy_audit.py`` checks two promises of a private fit on the
binary MOCHA classifier, Dada, Perso-lin and support recovery, fit only:

* two private fits with the same integer ``random_state`` draw different
  noise (``random_state`` fixes public randomness only);
* no fitted attribute holds a training row of any node.

Here the same two promises are checked on the paths it leaves out: the
MOCHA regressor (linear and random-feature modes), the multiclass
classifiers (MOCHA, Perso-lin, Dada on public stumps) and every estimator
after a private ``add_nodes`` (the joined node's own release and the rows
it brings).  The noise is shown where it is released: the server's average
model (MOCHA's prediction for a node never seen), ``released_coef_``
(Dada, Perso-lin) and the vote bits (support recovery); after a join, the
joined node's part of them.
"""

import warnings

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from skfed import (  # noqa: E402
    DecentralizedBoostingClassifier,
    DifferentialPrivacy,
    FederatedMultiTaskClassifier,
    FederatedMultiTaskRegressor,
    FederatedSupportRecovery,
    PersonalizedLinearClassifier,
)
from skfed.boosting import make_stump_predictors  # noqa: E402

from .test_privacy_audit import _arrays, _holds_a_row  # noqa: E402

K, M = 4, 30
JOINED = K - 1  # the node add_nodes brings


def _data():
    rng = np.random.default_rng(3)
    # no round values, so a stored row cannot match by coincidence
    X = rng.normal(size=(K * M, 2)) + rng.uniform(0.1, 0.2, size=(K * M, 2))
    groups = np.repeat(np.arange(K), M)
    noise = 0.3 * rng.normal(size=K * M)
    y = {
        "binary": (X[:, 0] + noise > 0).astype(int),
        "three": np.digitize(X[:, 0] + noise, [-0.5, 0.5]),
        "real": X @ np.array([1.0, -0.5]) + 0.1 * rng.normal(size=K * M),
    }
    return X, groups, y


X, GROUPS, Y = _data()
STUMPS = make_stump_predictors([-4.0, -4.0], [4.0, 4.0], 8)


def _spec():
    return DifferentialPrivacy(1.0, delta=1e-5)


# name -> (make(spec), target)
PATHS = {
    "mocha-classifier-3-classes": (
        lambda s: FederatedMultiTaskClassifier(max_rounds=3, privacy=s, random_state=0),
        "three"),
    "mocha-regressor-linear": (
        lambda s: FederatedMultiTaskRegressor(max_rounds=3, privacy=s, random_state=0), "real"),
    "mocha-regressor-rbf": (
        lambda s: FederatedMultiTaskRegressor(kernel="rbf", max_rounds=3, privacy=s,
                                              random_state=0), "real"),
    "mocha-classifier-linear": (
        lambda s: FederatedMultiTaskClassifier(max_rounds=3, privacy=s, random_state=0),
        "binary"),
    "mocha-classifier-rbf": (
        lambda s: FederatedMultiTaskClassifier(kernel="rbf", max_rounds=3, privacy=s,
                                               random_state=0), "binary"),
    "persolin": (
        lambda s: PersonalizedLinearClassifier(max_iter=30, privacy=s, random_state=0), "binary"),
    "persolin-3-classes": (
        lambda s: PersonalizedLinearClassifier(max_iter=30, privacy=s, random_state=0), "three"),
    "dada": (
        lambda s: DecentralizedBoostingClassifier(base_predictors=STUMPS, beta=0.5, max_iter=30,
                                                  privacy=s, random_state=0), "binary"),
    "dada-3-classes": (
        lambda s: DecentralizedBoostingClassifier(base_predictors=STUMPS, beta=0.5, max_iter=30,
                                                  privacy=s, random_state=0), "three"),
    "support": (
        lambda s: FederatedSupportRecovery(privacy=s, random_state=0), "real"),
}


def _fit(name, join):
    make, target = PATHS[name]
    y = Y[target]
    est = make(_spec())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if not join:
            return est.fit(X, y, groups=GROUPS)
        old = GROUPS != JOINED
        est.fit(X[old], y[old], groups=GROUPS[old])
        return est.add_nodes(X[~old], y[~old], groups=GROUPS[~old])


def _released(est, join):
    """What the fit (or the join) released with noise in it."""
    if isinstance(est, (FederatedMultiTaskClassifier, FederatedMultiTaskRegressor)):
        if join:
            # the joined node's model, from the noisy shared average
            own = GROUPS == JOINED
            Xj, gj = X[own], GROUPS[own]
        else:
            Xj, gj = X, np.full(len(X), 99)  # a node never seen: the server's average
        if hasattr(est, "decision_function"):
            return est.decision_function(Xj, groups=gj)
        return est.predict(Xj, groups=gj)
    if isinstance(est, FederatedSupportRecovery):
        votes = np.asarray(est.votes_)
        return votes[-1] if join and votes.ndim == 2 else votes
    released = np.asarray(est.released_coef_)
    return released[-1] if join else released


@pytest.mark.parametrize("join", [False, True], ids=["fit", "add_nodes"])
@pytest.mark.parametrize("name", list(PATHS))
def test_private_path_keeps_no_training_row(name, join):
    est = _fit(name, join)
    assert est.privacy_guarantee_void_ is False
    spent = np.asarray(est.privacy_spent_, dtype=float)
    assert len(est.nodes_) == K and spent.shape[0] == K
    assert np.all(spent[:JOINED] > 0)
    if join and isinstance(est, (FederatedMultiTaskClassifier, FederatedMultiTaskRegressor)):
        # MOCHA's newcomer downloads the (noisy) shared model and sends nothing
        assert np.all(spent[JOINED] == 0)
    else:
        assert np.all(spent[JOINED] > 0)
    offenders = [
        attr for attr, value in vars(est).items()
        if attr.endswith("_") and any(_holds_a_row(a, X) for a in _arrays(value))
    ]
    assert offenders == []


@pytest.mark.parametrize("join", [False, True], ids=["fit", "add_nodes"])
@pytest.mark.parametrize("name", list(PATHS))
def test_private_path_draws_fresh_noise_under_one_random_state(name, join):
    # support recovery releases a few randomized-response bits (4 clients x
    # 2 features; a join, the newcomer's 2), which two fits draw alike with
    # probability 0.61 a bit at epsilon 1: compare 12 fits there (all alike
    # with probability < 2e-5), two elsewhere
    n_fits = 12 if name == "support" else 2
    fits = [_fit(name, join) for _ in range(n_fits)]
    released = [_released(est, join) for est in fits]
    a = released[0]
    assert a.size and all(r.shape == a.shape for r in released)
    assert all(np.all(np.isfinite(r)) for r in released)
    assert any(not np.array_equal(a, r) for r in released[1:])
    assert "os.urandom" in fits[0].privacy_["noise_source"]
