"""review16: FederatedSparseLinearRegression's refit when the vote selects
nothing, and when nobody answers round 2.

* An empty support with candidates: the test round and the server's
  cross-validation may choose the ridge on the candidates (a dense model
  of weak effects, 60 clients: every feature a candidate, coef_ non-zero
  on all 20, in-sample R^2 0.10-0.14), but the fit warned that it
  "predicts the intercepts only".  The warning now follows the refit and
  says what the coefficients are.
* No client answers round 2 (every one dropped): the server warned that
  nobody answered and coef_ is zero, and then still "asked" the empty set
  for the candidates' statistics: ``refit_asked_`` True, a second warning
  about 0 clients and a zero-byte round 2d in ``bytes_per_round_``.
"""

import warnings

import numpy as np

import skfed.network as network_module
from skfed.support import FederatedSparseLinearRegression


def _dense(seed):
    rng = np.random.RandomState(seed)
    groups = np.repeat(np.arange(60), 30)
    X = rng.normal(size=(len(groups), 20))
    y = X @ (0.08 * rng.choice([-1, 1], 20)) + rng.normal(size=len(groups))
    return X, y, groups


def test_empty_support_warning_says_what_the_refit_predicts():
    for seed in (0, 1):
        X, y, groups = _dense(seed)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            est = FederatedSparseLinearRegression(random_state=0).fit(X, y, groups=groups)
        assert est.support_.sum() == 0
        messages = [str(w.message) for w in caught if "No features were selected" in str(w.message)]
        assert len(messages) == 1
        ridge = bool(np.any(est.coef_))
        # this design: the ridge on the candidates is chosen
        assert ridge and est.refit_alpha_ is not None and est.refit_asked_
        np.testing.assert_array_equal(np.flatnonzero(est.coef_), est.refit_features_)
        assert ("intercepts only" in messages[0]) == (not ridge)
        assert "refit_features_" in messages[0]


def test_nobody_answers_round_2_no_candidate_round(monkeypatch):
    rng = np.random.RandomState(2)
    groups = np.repeat(np.arange(30), 40)
    X = rng.normal(size=(len(groups), 8))
    y = 2 * X[:, 3] - X[:, 1] + rng.normal(size=len(groups))
    draw = network_module.NetworkSimulation.draw_round
    calls = []

    def drop_round_2(self):
        # the fit's second draw is round 2's (round 1 draws once)
        calls.append(None)
        active, work = draw(self)
        if len(calls) == 2:
            active, work = np.zeros_like(active), np.zeros_like(work)
        return active, work

    monkeypatch.setattr(network_module.NetworkSimulation, "draw_round", drop_round_2)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est = FederatedSparseLinearRegression(refit_candidates=8, random_state=0).fit(
            X, y, groups=groups)
    assert est.answered_.sum() == 30 and est.support_.sum() > 0
    assert not est.refit_answered_.any()
    messages = [str(w.message) for w in caught]
    assert any("No client answered the refit round" in m for m in messages)
    assert not any("candidates' statistics" in m for m in messages), messages
    assert not est.refit_asked_
    assert not est.refit_test_answered_.any() and not est.refit_candidates_answered_.any()
    # rounds 1, 2 and 3 only: no round to nobody
    assert len(est.bytes_per_round_) == 3 and np.all(est.bytes_per_round_ > 0)
    np.testing.assert_array_equal(est.coef_, 0.0)
