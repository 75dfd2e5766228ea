"""Support recovery's ``wide_marginal`` mode on Flower equals the simulation.

With very wide clients (``d > 20 median(n_i)``) and enough small clients
for the neighbour stage's sketches to link correlated features
(:func:`skfed.support._rules.sketches_link`: about 1,100 clients of 4
samples at ``d = 100``), every small client runs the marginal test
(``_wide_marginal``, no control).  On the in-process Flower grid each
client runs the pass alone, with the switch the server sends it; its bits,
sketch, the vote, the neighbour stage and the bytes must be the simulated
fit's, with a perfect network and with dropped clients (the switch then
reads the answering clients' counts) and stragglers.  A mixed case, where
the registered clients are not very wide but the answering ones are,
checks that the server's switch, not a client's own count, sets the rule.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from skfed import FederatedSupportRecovery, SimulatedNetwork
from skfed.support._rules import wide_clients

from .test_engines_flower import (  # noqa: F401  (task_identity: a fixture)
    HAVE_FLWR,
    check_traffic,
    flower_fit,
    task_identity,
)
from .test_support_neighbours import toeplitz_clients

needs_flwr = pytest.mark.skipif(not HAVE_FLWR, reason="Flower is not installed")
pytestmark = pytest.mark.usefixtures("task_identity")

ATTRS = ("support_", "votes_", "vote_fraction_", "client_supports_", "answered_", "rogue_",
         "pvalues_", "explained_by_", "neighbour_reference_rate_",
         "bytes_per_round_")


def _fits(estimator, X, y, groups):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        reference = clone(estimator).fit(X, y, groups=groups)
        fitted, grid = flower_fit(estimator, X, y, groups)
    return reference, fitted, grid


def _equal(fitted, reference):
    for name in ATTRS:
        np.testing.assert_array_equal(getattr(fitted, name), getattr(reference, name),
                                      err_msg=name)
    np.testing.assert_array_equal(fitted._sketch_rows, reference._sketch_rows)
    assert fitted._wide_marginal == reference._wide_marginal
    check_traffic(fitted, reference)


@needs_flwr
@pytest.mark.parametrize("network", [None, "faults"])
def test_wide_marginal_on_flower_equals_simulation(network):
    d, n, g = 100, 4, 1300
    X, y, groups = toeplitz_clients(g, n, d, [20, 22, 60], [1.5, -1.5, 1.5], seed=1)
    params = dict(random_state=0)
    if network == "faults":
        params["network"] = SimulatedNetwork(drop_rate=0.05, straggler_rate=0.02,
                                             random_state=3)
    reference, fitted, grid = _fits(FederatedSupportRecovery(**params), X, y, groups)
    # the mode under test: every small client ran the marginal test
    assert reference._wide_marginal and reference.n_controls_.max() == 0
    if network == "faults":
        assert 0 < (~reference.answered_).sum() < 0.15 * g
    assert grid.n_exchanges == 2
    _equal(fitted, reference)
    # one sketch of ceil(d / 8) bytes per answering small client
    assert fitted.flower_traffic_.item_totals().get("sketch", 0) == (
        reference.n_answered_ * ((d + 7) // 8))


@needs_flwr
def test_flower_clients_follow_the_servers_wide_switch():
    # Clients of 8 and 14 samples at d = 200: the registered clients are not
    # very wide (median 11), the answering ones are (median 8); a client
    # deciding from its own count (8: wide, 14: not) would run another rule.
    rng = np.random.default_rng(0)
    sizes = np.array([8] * 6 + [14] * 6)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.standard_normal((len(groups), 200))
    y = X[:, :3] @ np.array([2.0, -2.0, 2.0]) + 0.1 * rng.standard_normal(len(groups))
    est = FederatedSupportRecovery(random_state=1, network=SimulatedNetwork(drop_rate=0.5))
    reference, fitted, _ = _fits(est, X, y, groups)
    assert wide_clients(sizes[reference.answered_], 200) and not wide_clients(sizes, 200)
    # (a Flower fit keeps no n_controls_: the clients' bits carry the rule)
    for name in ("support_", "client_supports_", "answered_", "bytes_per_round_"):
        np.testing.assert_array_equal(getattr(fitted, name), getattr(reference, name),
                                      err_msg=name)
    check_traffic(fitted, reference)
