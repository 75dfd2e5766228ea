"""A join's wide-client switch reads every answering client, as the fit's does.

Whether the clients are very wide (``d > 20 median(n_i)``,
:func:`skfed.support._rules.wide_clients`) sets the small-client rule the
clients run (3 samples per control, or the wide rule's 4).  ``add_nodes``
decided it from the new clients' counts only, so small newcomers joining
a federation that is not very wide ran the wide rule although a fit on all
clients runs the other.  It is now decided over the fitted clients that
answered (their held sizes) and the new clients that answer: checked bit
for bit against a fit on all clients (newcomers' selection bits and
controls) with 12 fitted clients of 14 samples and 3 newcomers of 8 at
``d = 200`` (all: median 14, not very wide; newcomers alone: median 8,
very wide).
"""

import warnings

import numpy as np
import pytest

from skfed.privacy import DifferentialPrivacy
from skfed.support import FederatedSupportRecovery
from skfed.support._rules import wide_clients

D = 200
OLD, NEW = [14] * 12, [8] * 3


def _data():
    rng = np.random.default_rng(3)
    sizes = np.array(OLD + NEW)
    groups = np.repeat(np.arange(len(sizes)), sizes)
    X = rng.standard_normal((len(groups), D))
    y = X[:, :3] @ np.array([2.0, -2.0, 2.0]) + 0.1 * rng.standard_normal(len(groups))
    return X, y, groups, sizes


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # small-client warnings
        return call()


@pytest.mark.parametrize("seed", [0, 1])
def test_join_switch_reads_all_answering_clients(seed):
    X, y, groups, sizes = _data()
    old = groups < len(OLD)
    # the case: newcomers alone very wide, all clients not
    assert wide_clients(np.array(NEW), D) and not wide_clients(sizes, D)
    joined = _quiet(lambda: FederatedSupportRecovery(random_state=seed).fit(
        X[old], y[old], groups=groups[old]))
    _quiet(lambda: joined.add_nodes(X[~old], y[~old], groups=groups[~old]))
    full = _quiet(lambda: FederatedSupportRecovery(random_state=seed).fit(
        X, y, groups=groups))
    new = slice(len(OLD), None)
    # the non-wide rule's (8 - 2) // 3 = 2 controls, not the wide rule's 1
    np.testing.assert_array_equal(joined.n_controls_[new], [2, 2, 2])
    np.testing.assert_array_equal(joined.n_controls_, full.n_controls_)
    np.testing.assert_array_equal(joined.client_supports_[new], full.client_supports_[new])


def test_private_join_runs_the_wide_rule():
    # under a finite budget the server holds no sizes and reads none: every
    # client, fitted or joining, runs the very-wide rule (privsupport33)
    X, y, groups, _ = _data()
    old = groups < len(OLD)
    est = _quiet(lambda: FederatedSupportRecovery(
        random_state=0, privacy=DifferentialPrivacy(epsilon=2.0)).fit(X[old], y[old], groups=groups[old]))
    assert getattr(est, "_client_sizes", None) is None
    assert est._wide is True  # although 200 <= 20 x 14
    assert est._join_wide(np.array(NEW), D, private=True) is True
