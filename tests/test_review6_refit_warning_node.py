"""The private Dada refit's ConvergenceWarning names the node (review6).

A final model stopped at the Frank-Wolfe step cap warns (review5); on main
at f28c2af the warning said "A node's final private Dada model" without
saying which, where Perso-lin's capped local solve names its nodes by
label.  A user with many nodes could not tell which model to distrust.
"""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

import skfed._private_refit as refit
from skfed.boosting import DecentralizedBoostingClassifier, make_stump_predictors
from skfed.privacy import DifferentialPrivacy


def test_capped_refit_warning_names_the_nodes(monkeypatch):
    rng = np.random.RandomState(0)
    K, m, d = 4, 20, 3
    X = rng.normal(size=(K * m, d))
    y = (X[:, 0] + 0.3 * rng.normal(size=K * m) > 0).astype(int)
    labels = np.array(["alice", "bob", "carol", "dave"])
    groups = np.repeat(labels, m)
    est = DecentralizedBoostingClassifier(
        base_predictors=make_stump_predictors(-4 * np.ones(d), 4 * np.ones(d), 12),
        privacy=DifferentialPrivacy(epsilon=3.0), random_state=0)
    # every node keeps its last candidate (boosting toward the neighbours at
    # the largest radius: a Frank-Wolfe solve), capped at one step
    monkeypatch.setattr(refit, "_one_se_choice", lambda held: len(held) - 1)
    monkeypatch.setattr(refit, "BOOST_MAX_STEPS", 1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.fit(X, y, groups=groups)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)
                and "Frank-Wolfe" in str(w.message)]
    assert len(messages) == K  # one per node (one class problem each)
    for label, message in zip(labels.tolist(), messages):
        assert f"Node {label!r}" in message
        assert "stopped at 1 Frank-Wolfe steps" in message


def test_refit_boosting_alone_still_warns_without_a_label(monkeypatch):
    rng = np.random.RandomState(0)
    H = np.sign(rng.normal(size=(30, 12)))
    S = np.where(rng.uniform(size=(1, 30)) < 0.5, -1.0, 1.0)
    prior = np.abs(rng.normal(size=(1, 12)))
    monkeypatch.setattr(refit, "_one_se_choice", lambda held: len(held) - 1)
    monkeypatch.setattr(refit, "BOOST_MAX_STEPS", 1)
    with pytest.warns(ConvergenceWarning, match="A node's final private Dada model"):
        refit.refit_boosting(H, S, prior, np.random.RandomState(1))
