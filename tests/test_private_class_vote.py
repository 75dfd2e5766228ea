"""The private class vote on the Local model class (issue 27, ``skfed._class_vote``).

Every node of a private Perso-lin or MOCHA classifier fit ballots for the
simplest Local class no other beats by one standard error of calibrated
held-out log-loss; the federation elects one option by the exponential
mechanism on the ballot counts, with a guard for "no fixed class".

References are independent: the election's probabilities written out in
NumPy from the closed form ``P(j) ~ exp(epsilon (n_j + T [j = 0]) / 2)``,
brute force over neighbouring ballots for the sensitivity, scipy's
Nelder-Mead for Platt scaling, an empirical audit with Clopper-Pearson
bounds, and a walk over the fitted attributes for stored rows.
"""

import itertools
import math
import warnings

import numpy as np
import pytest
from scipy import optimize, stats
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC

pytest.importorskip("dp_accounting")

from skfed import FederatedMultiTaskClassifier, PersonalizedLinearClassifier  # noqa: E402
from skfed._class_vote import (  # noqa: E402
    BALLOT,
    VOTE_ALPHA,
    VOTE_RESOLUTION,
    VOTE_SHARE,
    ballot_counts,
    class_ballot,
    elect,
    platt_losses,
    split_budget,
    vote_guard,
    vote_probabilities,
    vote_qualities,
    vote_scale,
    voted_model,
)
from skfed._kept_local import collaboration_wins, kept_choice  # noqa: E402
from skfed._secure_noise import NoiseSource  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402

AUDIT_ALPHA = 1e-3  # each Clopper-Pearson bound holds with probability 1 - AUDIT_ALPHA


def _closed_form(counts, epsilon, spent):
    """P(j) ~ exp(spent q_j / 2), q = counts + T on "no fixed class", the
    guard T = (2 / epsilon) ln(2 / alpha) of the epsilon asked (real T)."""
    q = np.asarray(counts, dtype=float)
    q[0] += 2.0 / epsilon * math.log(2.0 / VOTE_ALPHA)
    w = np.exp(spent * (q - q.max()) / 2.0)
    return w / w.sum()


def test_split_is_a_public_fraction_and_needs_more_nodes_than_the_guard():
    # epsilon 3: the fit at 1.5, the vote at 1.5; its guard
    # T = (2 / 1.5) ln 200 = 7.06
    assert split_budget(3.0, 21) == (pytest.approx(1.5), pytest.approx(1.5))
    assert vote_guard(1.5) == pytest.approx(2.0 / 1.5 * math.log(200.0))
    assert split_budget(3.0, 7) == (3.0, 0.0)  # 7 nodes <= T: no vote
    assert split_budget(3.0, 8)[1] == pytest.approx(1.5)
    # epsilon 1: T = 2 ln 200 / 0.5 = 21.2, so HAR's 21 people hold no vote
    assert split_budget(1.0, 21) == (1.0, 0.0)
    assert split_budget(1.0, 22)[1] == pytest.approx(0.5)
    for epsilon in (0.3, 1.0, 10.0):  # the same fraction at every epsilon
        fit, vote = split_budget(epsilon, 10_000)
        assert vote == pytest.approx(VOTE_SHARE * epsilon)
        assert fit + vote == pytest.approx(epsilon)
    assert split_budget(math.inf, 100) == (math.inf, 0.0)
    assert split_budget(3.0, 100, vote=False) == (3.0, 0.0)


def test_qualities_and_probabilities_against_the_closed_form():
    for epsilon in (0.1, 1.0, 10.0 / 3.0):
        scale, spent = vote_scale(epsilon)
        assert scale == math.ceil(2 * VOTE_RESOLUTION / epsilon)
        assert spent <= epsilon and spent > epsilon * (1 - 1e-3)
        for counts in [(0, 0, 0), (2, 19, 0), (95, 39, 5), (0, 0, 20)]:
            q = vote_qualities(counts, epsilon)
            assert q[1] == VOTE_RESOLUTION * counts[1] and q[2] == VOTE_RESOLUTION * counts[2]
            assert q[0] == VOTE_RESOLUTION * counts[0] + math.floor(
                VOTE_RESOLUTION * vote_guard(epsilon))
            # the integer mechanism equals the real one up to the grid
            np.testing.assert_allclose(vote_probabilities(counts, epsilon),
                                       _closed_form(counts, epsilon, spent), rtol=2e-3,
                                       atol=1e-12)
    # the guard: a class with no more ballots than "no fixed class" is adopted
    # with probability below alpha (here 10 ballots each)
    p = vote_probabilities((10, 10, 10), 1.0)
    assert p[1] + p[2] < VOTE_ALPHA
    assert ballot_counts([0, 1, 1, -1, 2, 1]).tolist() == [1, 3, 1]


def test_sensitivity_is_one_ballot_against_brute_force():
    # every pair of neighbouring ballot sets of 4 nodes (one node's ballot
    # changed, abstention included): counts move by at most 1 each, and the
    # log-ratio of every option's probability is at most the spent epsilon,
    # attained up to the grid when one ballot moves between two options
    epsilon = 1.0
    _, spent = vote_scale(epsilon)
    worst = 0.0
    for ballots in itertools.product(range(-1, 3), repeat=4):
        a = ballot_counts(ballots)
        pa = vote_probabilities(a, epsilon)
        for node, other in itertools.product(range(4), range(-1, 3)):
            changed = list(ballots)
            changed[node] = other
            b = ballot_counts(changed)
            assert np.abs(a - b).max() <= 1
            assert np.abs(vote_qualities(a, epsilon) - vote_qualities(b, epsilon)).max() \
                <= VOTE_RESOLUTION
            ratio = np.abs(np.log(pa) - np.log(vote_probabilities(b, epsilon))).max()
            worst = max(worst, ratio)
    assert worst <= spent + 1e-12
    assert worst > 0.9 * spent


def test_election_matches_the_numpy_reference_on_fixed_ballots():
    source = NoiseSource(insecure_seed=5)
    n = 40_000
    for ballots, epsilon in [([1] * 19 + [0, 0], 1.0), ([0] * 5 + [1] * 14 + [2] * 15, 1.0),
                             ([2] * 12 + [-1] * 3, 2.0)]:
        counts = ballot_counts(ballots)
        p = vote_probabilities(counts, epsilon)
        scale, _ = vote_scale(epsilon)
        draws = source.choice(vote_qualities(counts, epsilon), scale, n)
        freq = np.bincount(draws, minlength=3) / n
        assert np.all(np.abs(freq - p) <= 5 * np.sqrt(p * (1 - p) / n) + 1e-12)
        # elect() itself: a function of the counts only
        got = {elect(np.random.default_rng(i).permutation(ballots), epsilon, source)
               for i in range(30)}
        assert got <= {j for j in range(3) if p[j] > 1e-9}


def _upper(successes, n):
    if successes >= n:
        return 1.0
    return float(stats.beta.ppf(1 - AUDIT_ALPHA, successes + 1, n - successes))


def test_audit_the_election_on_neighbouring_ballots():
    # One node's ballot moves from LinearSVC (D) to "no fixed class" (D'):
    # the event "no fixed class elected" is rare on D and about e^epsilon_v
    # times likelier on D'.  Secure source, as in a fit.
    epsilon = 1.0
    _, spent = vote_scale(epsilon)
    D, D2 = [1] * 20, [0] + [1] * 19
    n = 200_000
    scale, _ = vote_scale(epsilon)
    source = NoiseSource()
    on_d = source.choice(vote_qualities(ballot_counts(D), epsilon), scale, n)
    on_d2 = source.choice(vote_qualities(ballot_counts(D2), epsilon), scale, n)
    hits, hits2 = int(np.sum(on_d2 == 0)), int(np.sum(on_d == 0))  # likelier on D'
    fpr_hi = _upper(hits2, n)
    fnr_hi = _upper(n - hits, n)
    bound = max(0.0, math.log(max(1.0 - fnr_hi, 1e-300) / fpr_hi))
    assert bound <= spent  # the claim holds
    assert bound > 0.3 * spent  # and the audit is informative (rare event: loose)
    # the exact ratio of the event is close to e^epsilon
    p, p2 = vote_probabilities(ballot_counts(D), epsilon), vote_probabilities(
        ballot_counts(D2), epsilon)
    assert 0.9 * spent < math.log(p2[0] / p[0]) <= spent + 1e-12


def test_platt_losses_against_a_direct_minimization():
    rng = np.random.default_rng(0)
    codes = (rng.random(40) < 0.4).astype(int)
    f = 1.5 * (codes - 0.5) + rng.normal(size=40)
    n1, n0 = codes.sum(), 40 - codes.sum()
    t = np.where(codes == 1, (n1 + 1) / (n1 + 2), 1 / (n0 + 2))

    def value(theta):
        z = theta[0] * f + theta[1]
        p = 1 / (1 + np.exp(-z))
        return -np.mean(t * np.log(p) + (1 - t) * np.log(1 - p))

    a, b = optimize.minimize(value, [1.0, 0.0], method="Nelder-Mead",
                             options={"xatol": 1e-10, "fatol": 1e-14, "maxiter": 5000}).x
    p = 1 / (1 + np.exp(-(a * f + b)))
    expected = -np.where(codes == 1, np.log(p), np.log(1 - p))
    np.testing.assert_allclose(platt_losses(f, codes), expected, rtol=1e-5, atol=1e-7)


def test_ballot_is_the_simplest_class_within_one_standard_error():
    rng = np.random.default_rng(1)
    base = rng.random(50)
    # LinearSVC clearly best (by far more than one standard error): ballot 1
    losses = np.vstack([base + 0.5, base, base + 0.6])
    assert class_ballot(losses) == 1
    # the logistic regression tied within noise with the best: ballot 0
    noise = 0.05 * rng.normal(size=50)
    assert class_ballot(np.vstack([base + noise, base, base + 1.0])) == 0
    # a NumPy reference of the rule on random losses
    for seed in range(20):
        L = np.random.default_rng(seed).gamma(1.0, size=(3, 30)) * [[1.0], [0.9], [1.1]]
        expected = 0
        for c in range(3):
            ok = True
            for o in range(3):
                d = L[c] - L[o]
                if o != c and d.mean() > d.std(ddof=1) / np.sqrt(30) + 1e-12:
                    ok = False
            if ok:
                expected = c
                break
        assert class_ballot(L) == expected


def test_voted_model_keeps_the_elected_class_unless_collaboration_wins():
    rng = np.random.default_rng(2)
    X = rng.normal(size=(30, 3))
    codes = (X[:, 0] > 0).astype(int)
    err = np.zeros((4, 30))  # collaborative, LinearSVC, rff-LinearSVC, LogisticRegression
    err[1, :3] = 1.0
    evidence = {"err": err, "ballot": 1, "X": X, "codes": codes, "seed": 0}
    model = voted_model(evidence, 1, n_nodes=10)
    assert isinstance(model, LinearSVC)
    np.testing.assert_allclose(model.coef_, LinearSVC(random_state=0).fit(X, codes).coef_)
    assert isinstance(voted_model(evidence, 2, 10), Pipeline)
    # the collaborative model wins the sign test by 12 discordant samples
    err[1, :12] = 1.0
    assert collaboration_wins(err[1], err[0], True, 10)
    assert voted_model(evidence, 1, 10) is None
    # "no fixed class": the node's own one-standard-error rule
    err[:] = 0.0
    own = voted_model(evidence, 0, 10)
    assert isinstance(own, LogisticRegression)  # the simplest errorless candidate
    assert voted_model(None, 1, 10) is None  # an abstaining node
    # "no fixed class" and an errorless collaborative model: the
    # one-standard-error rule among the models trained alone, then the sign
    # test, not the collaborative model as one more 1-SE candidate
    err[:] = 0.0
    err[3, :3] = 1.0  # LogisticRegression: 3 errors, LinearSVC 2 (within 1 SE)
    err[1, 4:6] = 1.0
    err[2, :8] = 1.0
    se = err[1].std(ddof=1) / np.sqrt(30)
    assert err[3].mean() <= err[1].mean() + se  # LogisticRegression within 1 SE
    assert not collaboration_wins(err[3], err[0], True, 10)  # 3 discordant: p 0.125
    assert isinstance(voted_model(evidence, 0, 10), LogisticRegression)
    # as many discordant samples as the sign test needs at 0.05 / 10
    # (P(Bin(9, 1/2) >= 9) = 0.002 < 0.005): the collaborative model
    err[3, :9] = 1.0
    err[1, :9] = 1.0  # LinearSVC as bad, so LogisticRegression stays the choice
    assert collaboration_wins(err[3], err[0], True, 10)
    assert voted_model(evidence, 0, 10) is None
    # the former rule (the collaborative model one more 1-SE candidate)
    # kept the collaborative model here: errorless, so the margin was zero
    err[1:, :] = 0.0
    err[3, :5] = 1.0
    err[2, :3] = 1.0
    err[1, :2] = 1.0  # LinearSVC the lowest, LogisticRegression 1.5 SE above
    assert not collaboration_wins(err[1], err[0], True, 10)
    assert kept_choice(err, [3, 1, 2, 0]) == 0
    assert isinstance(voted_model(evidence, 0, 10), LinearSVC)


def _nodes(K, m=24, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(K * m, 2)) + rng.uniform(0.1, 0.2, size=(K * m, 2))
    y = (X[:, 0] + X[:, 1] ** 2 - 1.0 + 0.3 * rng.normal(size=K * m) > 0).astype(int)
    return X, y, np.repeat(np.arange(K), m)


def _stored(value, seen):
    if id(value) in seen:
        return
    seen.add(id(value))
    if isinstance(value, np.ndarray):
        if value.dtype.kind == "f":
            yield value
        elif value.dtype == object:
            for item in value.ravel():
                yield from _stored(item, seen)
    elif isinstance(value, dict):
        for item in value.values():
            yield from _stored(item, seen)
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _stored(item, seen)
    elif hasattr(value, "__dict__") and not isinstance(value, type):
        for item in vars(value).values():
            yield from _stored(item, seen)


@pytest.mark.parametrize("method", ["persolin", "mocha"])
def test_fit_spends_the_split_and_keeps_the_elected_class(method):
    K, epsilon = 14, 3.0  # 14 nodes > the guard 7.06 at epsilon_v = 1.5
    X, y, groups = _nodes(K)
    spec = DifferentialPrivacy(epsilon, delta=1e-5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if method == "persolin":
            est = PersonalizedLinearClassifier(max_iter=40, privacy=spec, random_state=0)
        else:
            est = FederatedMultiTaskClassifier(max_rounds=3, privacy=spec, random_state=0)
        est.fit(X, y, groups=groups)
    vote = est.privacy_["class_vote"]
    # MOCHA's pooled test (skfed._class_vote_pooled) takes 0.4 of epsilon
    # from the fit: fit 0.3, ballots 1.5, test 1.2
    planned_fit = 1.5 if method == "persolin" else 0.3
    assert vote["held"] and vote["epsilon"] == pytest.approx(3.0 - planned_fit, rel=1e-3)
    assert ("pooled_test" in vote) == (method == "mocha")
    # the vote's round (test_private_class_vote_bytes.py: the closed forms)
    assert vote["ballots_counted"] == K
    assert vote["bytes"] == est.communication_.bytes_per_round[-1]
    # privacy_spent_ composes the fit's and the vote's, at most 3
    fit_spent = est.privacy_spent_ - vote["epsilon"]
    assert fit_spent.max() <= planned_fit + 1e-9
    if method == "mocha":  # every node takes part in every round
        assert fit_spent.max() == pytest.approx(planned_fit, rel=1e-3)
    else:  # a node's wake-ups are random: some spend less than planned
        assert fit_spent.max() > 0.75
    # MOCHA's pooled test may also make the logistic regression the common class
    common = ("LogisticRegression",) if method == "mocha" else ()
    assert est.elected_local_class_ in (None,) + BALLOT[1:] + common
    kept = [model for model in est.kept_local_models_ if model is not None]
    if est.elected_local_class_ == "LogisticRegression":
        assert all(isinstance(model, LogisticRegression) for model in kept)
    elif est.elected_local_class_ == "LinearSVC":
        assert all(isinstance(model, LinearSVC) for model in kept)
    elif est.elected_local_class_ == "rff-LinearSVC":
        assert all(isinstance(model, Pipeline) for model in kept)
    # no fitted attribute holds a training row (the ballots, counts and
    # held-out losses are not stored either)
    rows = {tuple(np.round(r, 12)) for r in X}
    for name, value in vars(est).items():
        if name.endswith("_"):
            for array in _stored(value, set()):
                if array.ndim >= 1 and array.shape[-1] == X.shape[1]:
                    flat = np.round(array.reshape(-1, X.shape[1]), 12)
                    assert not any(tuple(r) in rows for r in flat), name
    assert not hasattr(est, "_class_vote_plan")
    # too few nodes: no vote, the whole budget goes to the fit
    X, y, groups = _nodes(6)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=groups)
    assert est.privacy_["class_vote"] == {"held": False, "epsilon": 0.0}
    assert est.elected_local_class_ is None
    assert est.privacy_spent_.max() <= epsilon + 1e-9
    assert est.privacy_spent_.max() > 2.0 + 1e-6  # the fit had the whole budget


def test_a_given_local_estimator_holds_no_vote():
    X, y, groups = _nodes(14)
    spec = DifferentialPrivacy(3.0, delta=1e-5, local_estimator=LogisticRegression())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = PersonalizedLinearClassifier(max_iter=40, privacy=spec, random_state=0).fit(
            X, y, groups=groups)
    assert est.privacy_["class_vote"]["held"] is False
    assert est.elected_local_class_ is None
    assert 2.0 + 1e-6 < est.privacy_spent_.max() <= 3.0 + 1e-9  # the fit had it all
