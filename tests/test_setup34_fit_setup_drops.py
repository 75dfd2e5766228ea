"""MOCHA's fit setup messages run under the network's drops (setup34).

The setup of a fit (``gamma="scale"``: every node's count, sum and sum of
squares up, ``gamma`` down; Nystroem: the landmark rows or local k-means
centres up, the others' landmarks down; ``warm_start``: the previous dual
variables up) used to be counted in round 0 for every node, also for the
nodes the network drops in round 0, whose values round 0's solves used
(``gamma`` and the landmarks are functions of every node's setup).  The
rule (:meth:`skfed.multitask._protocol._RoundProtocol.count_setup`): a
node sends its setup up in its first round up; the W-steps start in the
round in which the server holds every node's setup (before it, no node
solves: a round as if every node were dropped); a node receives its
setup down in its first round up from then on, or with the final
delivery.  Reference: the per-round bytes of the setup rounds in closed
form from the fit's own draws (recorded as they are made), and for the
W-step rounds a fit with ``gamma`` given (no setup exchange) on the same
draws from the first W-step round on: the same models, its bytes plus the
setup downs.  Without drops the fits are main's (bytes per round, and the
decision values' mean, mean absolute value, first and last entry to 1e-8:
a hash of them differed between CPUs, whose BLAS kernels move the values
by about 1e-13).
"""

import unittest.mock as mock
import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import ConvergenceWarning

from skfed.multitask import FederatedMultiTaskClassifier
from skfed.network import NetworkSimulation, SimulatedNetwork

from .test_engines_flower import check_traffic, flower_fit, needs_flwr, task_identity  # noqa: F401

HEADER = 16  # SimulatedNetwork's default header_bytes
F = 8  # float64


def _data(seed=0, m=6, n=30, d=4):
    rng = np.random.RandomState(seed)
    g = np.repeat(np.arange(m), n)
    X = rng.normal(size=(m * n, d))
    t = np.repeat(np.arange(m), n)
    y = ((X[:, 0] + 0.5 * (t % 3) * X[:, 1] - 0.3 * X[:, 2] ** 2) > 0).astype(int)
    return X, y, g


CONFIGS = {
    "rff-auto": dict(kernel="rbf", max_rounds=15),
    "rff-learn": dict(kernel="rbf", omega="learn", max_rounds=15),
    "nystroem-learn": dict(kernel="rbf", approximation="nystroem", n_components=20,
                           omega="learn", max_rounds=15),
    "kmeans-learn": dict(kernel="rbf", approximation="nystroem", landmarks="kmeans",
                         n_components=12, omega="learn", max_rounds=15),
    "exact-learn": dict(kernel="rbf", approximation=None, omega="learn", max_rounds=15),
    "warm-linear": dict(omega="learn", warm_start=True, max_rounds=10),
    "warm-linear-f64": dict(omega="learn", warm_start=True, max_rounds=10, compression="none"),
}

# main (7781cb8 .. fc96aa9) without drops: n_bytes_sent_, bytes_per_round_,
# the decision values' mean, mean |.|, first and last entry (to 1e-8).
MAIN = {
    "rff-auto": (11118, [1812, 1146, 2010, 2010, 2010, 2130],
                 (-0.731508596, 1.3533099324, 0.5002712058, -1.6490700676)),
    "rff-learn": (31080, [2604, 2364, 2316, 2412, 2412, 2412, 2412, 2412, 2412, 9324],
                  (-0.7965710703, 1.5908893604, 0.3176089684, -2.2629653962)),
    "nystroem-learn": (13788, [5004, 924, 876, 972, 972, 972, 972, 972, 2124],
                       (-0.8488038902, 1.5194378384, 0.4546324413, -2.2312656082)),
    "kmeans-learn": (11964, [4332, 828, 780, 876, 876, 876, 876, 876, 1644],
                     (-0.8482448042, 1.4703181658, 0.7195769409, -2.2638080123)),
    "exact-learn": (147936, [49056, 14112, 14112, 14112, 14112, 14112, 14112, 14208],
                    (-0.827404229, 1.6080659059, 0.7720993041, -2.2554752683)),
    "warm-linear": (2232, [1068, 1164],
                    (-1.3069941454, 3.0142898401, 6.0220273514, -3.3645452123)),
}


def _summary(est, X, g):
    dec = np.asarray(est.decision_function(X, groups=g), dtype=np.float64).ravel()
    return np.array([dec.mean(), np.abs(dec).mean(), dec[0], dec[-1]])


def _recorded(fit):
    """Run ``fit()`` recording every ``active`` row of its draws."""
    rows = []
    draw = NetworkSimulation.draw_rounds

    def recording(sim, n_rounds):
        active, work = draw(sim, n_rounds)
        rows.extend(active.copy())
        return active, work

    with mock.patch.object(NetworkSimulation, "draw_rounds", recording):
        fit()
    return np.array(rows)


def _fit(name, drop, net_seed=1, **params):
    X, y, g = _data()
    est = FederatedMultiTaskClassifier(
        random_state=0, network=SimulatedNetwork(drop_rate=drop, random_state=net_seed),
        **{**CONFIGS[name], **params})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        if est.warm_start:
            est.fit(X, y, groups=g)
        rows = _recorded(lambda: est.fit(X, y, groups=g))
    return est, X, y, g, rows


def _first_up(active, start):
    """Each node's first round >= ``start`` in which it is not dropped (-1: none)."""
    out = np.full(active.shape[1], -1)
    for t in range(active.shape[1]):
        up = np.flatnonzero(active[start:, t])
        if up.size:
            out[t] = start + up[0]
    return out


def _setup_sizes(est, name):
    """Per node, the setup's payloads up and down in closed form."""
    m, d = len(est.nodes_), est.n_features_in_
    up, down = np.zeros(m, dtype=np.int64), np.zeros(m, dtype=np.int64)
    if name.startswith("warm"):  # the previous dual variables' sums: d + 1 floats
        up += (d + 1) * F
    else:  # gamma="scale": count, sum, sum of squares up; gamma down
        up += 3 * F
        down += F
    if name == "nystroem-learn":
        counts = est._landmark_counts
        assert counts.sum() == 20 and counts.min() >= 20 // m and counts.max() <= -(-20 // m)
        up += counts * d * F
        down += (20 - counts) * d * F
    if name == "kmeans-learn":
        share = np.full(m, 12 // m)  # equal node sizes: 12 landmarks, 2 each
        up += 2 * share * (d * F + F)
        down += 12 * d * F
    return up, down


@pytest.mark.parametrize("name", sorted(MAIN))
def test_without_drops_the_fit_is_mains(name):
    est, X, _, g, _ = _fit(name, 0.0)
    total, per_round, summary = MAIN[name]
    assert est.n_bytes_sent_ == total
    assert [int(b) for b in est.bytes_per_round_] == per_round
    np.testing.assert_allclose(_summary(est, X, g), summary, rtol=0, atol=1e-8)


@pytest.mark.parametrize("name", ["rff-auto", "rff-learn", "nystroem-learn", "kmeans-learn",
                                  "exact-learn", "warm-linear-f64"])
def test_setup_rounds_follow_the_drops(name):
    est, X, _, g, rows = _fit(name, 0.3)
    first = _first_up(rows, 0)
    assert (first > 0).any(), "the draws drop no node in round 0: the test shows nothing"
    assert (first >= 0).all()
    start = first.max()  # the round in which the server holds every node's setup
    up, down = _setup_sizes(est, name)
    # Before it: only the setup ups, each node's in its first round up.
    expected = np.bincount(first, weights=up + HEADER, minlength=start)[:start]
    np.testing.assert_array_equal(est.bytes_per_round_[:start], expected)
    # Every setup message is counted once: ups and downs.
    log = est.communication_
    assert est.n_bytes_sent_ >= int((up + down).sum()) + 2 * len(up) * HEADER
    assert log.total_bytes == est.n_bytes_sent_
    # No W-step before: the curve repeats the all-zero model's gap.
    if start and est.duality_gap_curve_ is not None:
        curve = np.asarray(est.duality_gap_curve_)
        np.testing.assert_array_equal(curve[:start], np.full(start, curve[0]))


@pytest.mark.parametrize("name", ["rff-learn", "exact-learn"])
def test_w_steps_are_those_of_a_fit_without_setup_on_the_later_draws(name):
    est, X, y, g, rows = _fit(name, 0.3)
    first = _first_up(rows, 0)
    start = first.max()
    assert start > 0
    # The same fit with gamma given (no setup exchange), its rounds on the
    # draws from round `start` on, with `start` fewer rounds.
    later = rows[start:]

    def replay(sim, n_rounds):
        a = np.ones((n_rounds, sim.n_nodes), dtype=bool)
        k = min(n_rounds, len(later) - replay.used)
        a[:k] = later[replay.used:replay.used + k]
        replay.used += n_rounds
        return a, a.astype(np.float64)

    replay.used = 0
    ref = clone(est).set_params(gamma=est.gamma_, warm_start=False,
                                max_rounds=est.max_rounds - start)
    with warnings.catch_warnings(), mock.patch.object(NetworkSimulation, "draw_rounds", replay):
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref.fit(X, y, groups=g)
    assert ref.gamma_ == est.gamma_
    np.testing.assert_array_equal(est.decision_function(X, groups=g),
                                  ref.decision_function(X, groups=g))
    assert est.n_iter_ == ref.n_iter_ + start
    np.testing.assert_array_equal(est.duality_gap_curve_[start:], ref.duality_gap_curve_)
    # Its bytes plus the setup ups sent in round `start` (the last ones)
    # and each node's setup down: in its first round up from `start` on, or
    # with the final delivery (the last round).
    up, down = _setup_sizes(est, name)
    n_rounds = len(est.bytes_per_round_)
    got = _first_up(rows[:n_rounds], start)
    final = got < 0  # (in the final message: no header of its own)
    got[final] = n_rounds - 1
    extra = np.bincount(got, weights=down + HEADER * ~final, minlength=n_rounds)[start:]
    extra[0] += ((up + HEADER) * (first == start)).sum()
    np.testing.assert_array_equal(est.bytes_per_round_[start:], ref.bytes_per_round_ + extra)


def test_never_complete_setup_no_w_step_downs_with_the_final_delivery():
    # Node sets that are never all up within max_rounds: the server never
    # holds every node's setup, no node solves, every model stays zero.
    est, X, _, g, rows = _fit("rff-learn", 0.8, max_rounds=2)
    first = _first_up(rows[:2], 0)
    assert (first < 0).any()
    assert np.all(est.decision_function(X, groups=g) == 0.0)
    up, _ = _setup_sizes(est, "rff-learn")
    assert est.bytes_per_round_[0] == int((up + HEADER)[first == 0].sum())


@needs_flwr
@pytest.mark.parametrize("name", ["nystroem-learn", "rff-learn", "exact-learn"])
def test_flower_logs_equal_the_simulations_under_drops(name, task_identity):  # noqa: F811
    X, y, g = _data(m=4, n=40)
    est = FederatedMultiTaskClassifier(
        aggregation="add", local_solver="coordinate", compression="none", random_state=0,
        network=SimulatedNetwork(drop_rate=0.3, random_state=1), **CONFIGS[name])
    reference = clone(est)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        rows = _recorded(lambda: reference.fit(X, y, groups=g))
    assert (_first_up(rows, 0) > 0).any()
    fitted, _ = flower_fit(est, X, y, g)
    assert fitted.n_iter_ == reference.n_iter_
    np.testing.assert_allclose(fitted.decision_function(X, groups=g),
                               reference.decision_function(X, groups=g), rtol=1e-9, atol=1e-12)
    np.testing.assert_array_equal(fitted.bytes_per_round_, reference.bytes_per_round_)
    np.testing.assert_array_equal(fitted.communication_.pair_bytes,
                                  reference.communication_.pair_bytes)
    check_traffic(fitted, reference)
