"""Support recovery's wide-client switch reads the answering clients only.

Whether the clients are very wide (``d > 20 median(n_i)``,
:func:`skfed.support._rules.wide_clients`) sets the small-client rule
(gate and samples per control), the neighbour stage's sketches and the
marginal switch.  It was computed from every registered client's count,
dropped ones included (review10: at ``drop_rate=0.5`` one cell's F1 0.857),
although only the answering clients' tests are voted on.  It now reads the
counts of the clients that answer the round, so a fit with dropped clients
runs, on the answering clients, the rule a fit of those clients alone runs:
checked bit for bit against that fit (selection bits and controls) on
clients of 8 and 14 samples at ``d = 200``, where the registered clients
are not very wide (median 11) and the answering ones are (median 8).
"""

import warnings

import numpy as np
import pytest

from skfed.network import SimulatedNetwork
from skfed.support import FederatedSupportRecovery
from skfed.support._rules import wide_clients

D = 200


def _clients():
    rng = np.random.default_rng(0)
    sizes = np.array([8] * 6 + [14] * 6)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.standard_normal((len(groups), D))
    y = X[:, :3] @ np.array([2.0, -2.0, 2.0]) + 0.1 * rng.standard_normal(len(groups))
    return X, y, groups, sizes


def _fit(X, y, groups, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-client warnings
        return FederatedSupportRecovery(**kw).fit(X, y, groups=groups)


@pytest.mark.parametrize("seed", [0, 1, 8])
def test_dropped_clients_do_not_set_the_wide_switch(seed):
    X, y, groups, sizes = _clients()
    est = _fit(X, y, groups, random_state=seed, network=SimulatedNetwork(drop_rate=0.5))
    answered = est.answered_
    # the case: registered clients not very wide, answering ones very wide
    assert not wide_clients(sizes, D) and wide_clients(sizes[answered], D)
    keep = np.isin(groups, np.flatnonzero(answered))
    alone = _fit(X[keep], y[keep], groups[keep], random_state=seed)
    assert alone.answered_.all()
    np.testing.assert_array_equal(est.n_controls_[answered], alone.n_controls_)
    np.testing.assert_array_equal(est.client_supports_[answered], alone.client_supports_)
    np.testing.assert_array_equal(est.support_, alone.support_)


def test_without_drops_the_switch_reads_every_client():
    X, y, groups, sizes = _clients()
    est = _fit(X, y, groups, random_state=0)
    assert est.answered_.all() and not wide_clients(sizes, D)
    # the registered clients' rule: 3 samples per control (the partial
    # rule's), not the wide rule's 4: (n - 1 - 1) // 3 controls
    np.testing.assert_array_equal(est.n_controls_, (sizes - 2) // 3)
