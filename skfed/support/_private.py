"""Randomized response on the vote: how many features a client reports, which.

Under ``privacy`` every answering client flips each of its ``k`` reported
bits with the probability that makes its message ``(epsilon, delta)``-DP
(local DP, client level); the server tests the randomized votes against the
shifted null rate (``_OneShotSupportMixin._server_vote`` in :mod:`._protocol`).
"""

import math

import numpy as np
from sklearn.utils import check_random_state

from .._secure_noise import NoiseSource, record_noise_source
from ..privacy import calibrate_randomized_response, describe, epsilon_spent


def choose_n_reported(n_reported, d, spec):
    """How many features every client reports (``n_reported``)."""
    if n_reported != "auto":
        k = int(n_reported)
        if k > d:
            raise ValueError(
                f"n_reported={k} exceeds the number of features ({d})."
            )
        return k
    if spec is None or math.isinf(spec.budget()[0]):
        return d
    # Each report of a bit flipped with probability p carries (1 - 2 p)^2
    # of the information of a clean bit, and k reports share the budget
    # (p = 1 / (1 + exp(epsilon / k)) at delta = 0): maximize
    # k tanh(epsilon / (2 k))^2.
    epsilon = spec.budget()[0]
    ks = np.arange(1, d + 1)
    return int(ks[np.argmax(ks * np.tanh(epsilon / (2.0 * ks)) ** 2)])


def randomized_response(estimator, spec, k, d, answered, held):
    """Calibrate the clients' randomized response; record the spend on ``estimator``.

    Sets ``privacy_spent_`` and ``privacy_`` (the fitted clients' uses are
    in ``held["uses"]`` for a join).  Returns ``(p, source)``: the flip
    probability and the secure noise source that draws the flips.
    """
    source = NoiseSource.for_fit(spec, type(estimator).__name__)
    record_noise_source(estimator, source)
    epsilon, delta = spec.budget()
    mechanism = calibrate_randomized_response(epsilon, delta, k)
    p = mechanism.flip_probability
    uses = np.where(answered, k, 0)
    if held is not None:
        uses = np.concatenate([held["uses"], uses])
    estimator.privacy_spent_ = epsilon_spent(mechanism, uses, delta)
    estimator.privacy_ = describe(
        mechanism, uses=uses, delta=delta,
        composition=(
            f"{k} randomized-response bits per answering client, one shot"
            + ("" if k == d else f" ({k} of the {d} features, chosen by public "
               "randomness)")
        ),
        flip_probability=p, level="client (local DP)", n_reported=k,
        noise_source=source.describe(),
        public=(
            "which features each client reports (random_state) and which "
            "clients answer (the network); every answering client randomizes, "
            "a rogue corrupts its randomized bits (post-processing), and a "
            "client with too few samples sends randomized zeros instead of "
            "abstaining"
        ),
    )
    estimator.privacy_public_ = dict(_SUPPORT_PUBLIC)
    return p, source


# What a private fit treats as public (``privacy_public_``): not protected by
# the randomized response, each with why.  Per-client quantities computed on
# the clients and never sent (the test each client ran, ``ols_clients_`` and
# ``n_controls_``) are not kept: they are None under a finite epsilon.
_SUPPORT_PUBLIC = {
    "n_features": "the number of features (the length of every message)",
    "reported_features": "which features each client reports, drawn from "
    "random_state (public randomness the server shares)",
    "answering_clients": "which clients answer, decided by the network (drops, "
    "stragglers), never by the data: a client with too few samples sends "
    "randomized zeros instead of abstaining",
    "rogue_clients": "a rogue client corrupts its randomized bits "
    "(post-processing of its release)",
    "parameters": "the estimator's parameters (alpha, threshold, auto_z, fwer, "
    "rogue_tolerance, n_reported, vote, fit_intercept, privacy) and the number of "
    "clients, which set the server's test and every client's rule: every client "
    "runs the very-wide small-client rule (its own sphericity gate at 0.5, one "
    "control per 4 of its samples), whatever the other clients' sizes, which are "
    "not sent; a client's own data choose only its own test, under its own "
    "randomized response",
}


def _balanced_reports(n_nodes, d, k, random_state):
    """The ``k`` features each of ``n_nodes`` clients reports: every feature
    reported by ``floor`` or ``ceil(n_nodes k / d)`` clients.

    Clients in a random order take the features of a random permutation
    cyclically, ``k`` consecutive ones each (distinct, as ``k <= d``); public
    randomness from ``random_state``.  Rows are sorted.
    """
    rng = np.random.default_rng(
        check_random_state(random_state).randint(np.iinfo(np.int32).max)
    )
    features = rng.permutation(d)
    position = rng.permutation(n_nodes)[:, None] * k + np.arange(k)
    return np.sort(features[position % d], axis=1).astype(np.intp)
