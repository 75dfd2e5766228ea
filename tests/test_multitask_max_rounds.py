"""What max_rounds bounds (probe item 9): every fit the estimator runs; with
the share selection of omega="auto", n_iter_ counts the rounds of all of them."""

import warnings

import numpy as np

from skfed import FederatedMultiTaskClassifier


def test_max_rounds_bounds_each_fit_and_n_iter_counts_all():
    rng = np.random.RandomState(0)
    # 400 samples a node: the share selection fits its byte budget (with 50
    # it is skipped, and only one fit runs)
    groups = np.repeat(np.arange(10), 400)
    X = rng.normal(size=(4000, 10))
    X[:, 0] *= 1000  # badly scaled: every fit runs out of rounds
    W = rng.normal(size=10) + 0.3 * rng.normal(size=(10, 10))
    y = ((X * W[groups]).sum(1) > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        shared = FederatedMultiTaskClassifier(omega="shared", max_rounds=5, random_state=0)
        shared.fit(X, y, groups=groups)
        auto = FederatedMultiTaskClassifier(max_rounds=5, random_state=0).fit(X, y, groups=groups)
    # One fit: max_rounds bounds n_iter_.
    assert shared.n_iter_ == 5
    # Share selection: up to 4 candidates x 5 folds, then the final fit.
    assert auto.omega_mode_ == "shared" and auto.share_selection_ is not None
    n_fits = len(auto.share_selection_["shares"]) * auto.share_selection_["n_folds"] + 1
    assert 5 < auto.n_iter_ <= 5 * n_fits
    assert len(auto.duality_gap_curve_) == auto.n_iter_
