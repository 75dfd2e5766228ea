"""Rogue nodes in Perso-lin's class vote (issue 27, ``tree_tally``).

Before, a node forwarded its subtree's masked counts (three int32) and
nothing bounded them: one rogue claiming a thousand ballots for a class
decided the election.  Now every ballot is sealed to the vote tree's root,
which counts a slot only when its code is valid and, for a relayed ballot,
it is the one its node sealed; a message of the wrong length is refused.
These tests check, by brute force over every message the rogues can send
(any valid or invalid code in every slot, and messages of wrong length),
that the counted ballots differ from the honest ones only on the rogues'
subtrees, relayed ballots only by erasure, and that no outcome's
probability moves by more than ``exp(s epsilon_v)``, ``s`` the number of
nodes in the rogues' subtrees (``s = k`` on the star of a complete
topology); the counted ballots against a reference written here; the
network's rogue behaviours; and the round's bytes in closed form.
"""

import itertools
import math
import warnings

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from skfed import PersonalizedLinearClassifier, SimulatedNetwork  # noqa: E402
from skfed._class_vote import BALLOT, vote_probabilities, vote_scale  # noqa: E402
from skfed.boosting._private import tree_tally, vote_tree  # noqa: E402
from skfed.privacy import DifferentialPrivacy  # noqa: E402

# the honest ballots of 7 nodes: 4 LinearSVC, 2 "no fixed class", one rbf
HONEST = np.array([1, 1, 0, 1, 2, 0, 1])


def _simulation(topology, K=7, rogue=(), header=16):
    network = SimulatedNetwork(topology=topology, header_bytes=header)
    simulation = network.start(K, server=False, random_state=0)
    simulation.rogue = np.zeros(K, dtype=bool)
    simulation.rogue[list(rogue)] = True
    return simulation


def _counts(ballots):
    b = np.asarray(ballots)
    return np.array([(b == j).sum() for j in range(len(BALLOT))])


def _slots_reference(parent, order):
    """Each node's subtree in preorder (children in ``order``), recursively."""
    children = {int(k): [int(c) for c in order if parent[c] == k] for k in order}

    def walk(k):
        return [k] + [j for c in children[k] for j in walk(c)]

    return {int(k): walk(int(k)) for k in order}


def _messages(size):
    """Every message a node with a subtree of ``size`` nodes can send, up to
    the values of its codes: each slot any of the codes 0..3 (abstain, an
    option) or an invalid one (-1, 4, 255); plus messages of wrong length,
    among them a claim of a thousand rbf ballots."""
    codes = (-1, 0, 1, 2, 3, 4, 255)
    for message in itertools.product(codes, repeat=size):
        yield np.array(message)
    for wrong in (size - 1, size + 1, 1000):
        if wrong >= 0:
            yield np.full(wrong, 3)


def _worst_log_ratio(counted, vote_epsilon):
    p0 = vote_probabilities(_counts(HONEST), vote_epsilon)
    p = vote_probabilities(_counts(counted), vote_epsilon)
    return float(np.max(np.abs(np.log(p / p0))))


@pytest.mark.parametrize("topology", [None, "ring"])
@pytest.mark.parametrize("rogues", [(3,), (1,), (2, 5)])
@pytest.mark.parametrize("vote_epsilon", [1.0, 10.0 / 3.0])
def test_rogues_move_no_outcome_beyond_their_subtrees(topology, rogues, vote_epsilon):
    simulation = _simulation(topology, rogue=rogues)
    online = np.ones(7, dtype=bool)
    parent, order = vote_tree(simulation, online)
    slots = _slots_reference(parent, order)
    if topology is None:  # a star on node 0
        assert parent[0] == -1 and np.all(parent[1:] == 0)
    else:  # breadth-first on the ring from 0: 1, 6 | 2, 5 | 3, 4
        assert parent.tolist() == [-1, 0, 1, 2, 5, 6, 0]
    theirs = sorted({j for r in rogues for j in slots[r]})
    _, eps = vote_scale(vote_epsilon)
    worst = 0.0
    for sent in itertools.product(*[list(_messages(len(slots[r]))) for r in rogues]):
        plan = dict(zip(rogues, sent))

        def corrupt(k, message, plan=plan):
            assert message.size == len(slots[k])  # what the rogue was to send
            return plan[k], True

        reached, _, _, counted = tree_tally(simulation, online, HONEST, corrupt=corrupt)
        assert reached.all()  # every rogue here passes the result on
        changed = np.flatnonzero(counted != HONEST)
        assert set(changed.tolist()) <= set(theirs)
        for j in changed.tolist():
            # a relayed ballot can only be erased; a rogue's own (a child of
            # an honest node or of the root) is any code it sealed
            if j not in rogues:
                assert counted[j] == -1
        worst = max(worst, _worst_log_ratio(counted, vote_epsilon))
    assert worst <= len(theirs) * eps + 1e-9
    # Without the check, a rogue's claimed counts decide the election: a
    # thousand rbf ballots give the rbf model probability ~1 against
    # ~exp(-eps (4 + T - 1) / 2) honest.
    claim = _counts(HONEST) + np.array([0, 0, 1000])
    p_claim = vote_probabilities(claim, vote_epsilon)[2]
    p_honest = vote_probabilities(_counts(HONEST), vote_epsilon)[2]
    assert p_claim > 0.999 and p_honest < 0.01
    # ... and now the same claim (every slot of the rogue's message the rbf
    # code, or a thousand of them) moves it by at most the bound
    for length in ("exact", 1000):
        plan = {r: np.full(len(slots[r]) if length == "exact" else length, 3) for r in rogues}
        _, _, _, counted = tree_tally(simulation, online, HONEST,
                                      corrupt=lambda k, m: (plan[k], True))
        assert _worst_log_ratio(counted, vote_epsilon) <= len(theirs) * eps + 1e-9
        # what it reaches: its own ballot recast as rbf, the ballots it
        # relays erased (unless they were rbf ballots, left as sealed), or,
        # at the wrong length, its whole subtree erased
        expected = HONEST.copy()
        for r in rogues:
            for j in slots[r]:
                if length != "exact":
                    expected[j] = -1
                elif j == r or HONEST[j] == 2:
                    expected[j] = 2
                else:
                    expected[j] = -1
        np.testing.assert_array_equal(counted, expected)
        p = vote_probabilities(_counts(counted), vote_epsilon)[2]
        assert p <= p_honest * math.exp(len(theirs) * eps) * (1 + 1e-9)


def test_bound_reached_on_the_star():
    # On a star one rogue recasting its ballot from LinearSVC to "no fixed
    # class" moves the outcome by at least half the bound exp(eps_v).
    simulation = _simulation(None, rogue=(3,))
    _, eps = vote_scale(1.0)
    _, _, _, counted = tree_tally(simulation, np.ones(7, bool), HONEST,
                                  corrupt=lambda k, m: (np.array([1]), True))
    assert counted.tolist() == [1, 1, 0, 0, 2, 0, 1]
    assert 0.5 * eps <= _worst_log_ratio(counted, 1.0) <= eps + 1e-12


@pytest.mark.parametrize("behavior", ["complement", "random"])
@pytest.mark.parametrize("topology", [None, "ring"])
def test_network_rogue_behaviour(behavior, topology):
    # The network's rogue: its message's codes corrupted as the network
    # corrupts bits (complement: code c -> 3 - c), the elected option
    # withheld from its subtree.
    network = SimulatedNetwork(topology=topology, rogue_fraction=0.3, rogue_behavior=behavior)
    simulation = network.start(10, server=False, random_state=3)
    rogue = np.flatnonzero(simulation.rogue)
    assert rogue.size == 3
    ballots = np.array([1, 0, 1, 2, -1, 1, 1, 0, 1, 2])
    online = np.ones(10, dtype=bool)
    online[7] = False
    parent, order = vote_tree(simulation, online)
    slots = _slots_reference(parent, order)
    reached, n_bytes, n_messages, counted = tree_tally(simulation, online, ballots)
    root = int(order[0])
    hidden = {j for r in rogue.tolist() if r in slots for j in slots[r][1:]}
    assert set(np.flatnonzero(reached).tolist()) == set(order.tolist()) - hidden
    # the root is trusted with the election (as MOCHA's server); a rogue
    # root withholds it from everyone, and the ballots it counts then
    # decide nothing
    erased = {j for r in rogue.tolist() if r in slots and r != root for j in slots[r][1:]}
    if simulation.rogue[root]:
        assert np.flatnonzero(reached).tolist() == [root]
    for k in range(10):
        if not online[k] or k in erased:
            assert counted[k] == -1  # offline, or relayed by a rogue: erased
        elif simulation.rogue[k] and behavior == "complement":
            assert counted[k] == 3 - (ballots[k] + 1) - 1
        elif simulation.rogue[k]:
            assert -1 <= counted[k] < len(BALLOT)
        else:
            assert counted[k] == ballots[k]
    # bytes in closed form: one sealed byte per node of each sender's
    # subtree up, one byte down, a header each
    n = order.size
    up = sum(len(slots[int(k)]) for k in order if int(k) != root)
    assert n_messages == 2 * (n - 1)
    assert n_bytes == up + (n - 1) + 2 * (n - 1) * 16
    if topology is None:
        assert up == n - 1


def test_honest_tally_counts_every_ballot():
    for topology in (None, "ring"):
        simulation = _simulation(topology, K=7)
        _, _, _, counted = tree_tally(simulation, np.ones(7, bool), HONEST)
        np.testing.assert_array_equal(counted, HONEST)


def test_rogue_perso_lin_fit_holds_a_vote():
    # A private Perso-lin fit with rogue nodes runs the checked tally: on a
    # complete topology (a star) every node still hears the elected option
    # and the round's bytes are those of n - 1 one-byte ballots up and
    # n - 1 one-byte results down.
    rng = np.random.default_rng(0)
    K, m = 14, 24
    X = rng.normal(size=(K * m, 2))
    y = (X[:, 0] + 0.5 * rng.normal(size=K * m) > 0).astype(int)
    groups = np.repeat(np.arange(K), m)
    network = SimulatedNetwork(rogue_fraction=0.2, header_bytes=16)
    est = PersonalizedLinearClassifier(
        max_iter=30, network=network, random_state=1,
        privacy=DifferentialPrivacy(3.0, delta=1e-5))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=groups)
    vote = est.privacy_["class_vote"]
    assert vote["held"]
    assert vote["ballots_counted"] == K
    assert vote["bytes"] == (K - 1) * (1 + 16 + 1 + 16)
