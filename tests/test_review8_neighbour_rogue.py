"""Review8: forged sketches of rogue clients must not remove a true support feature.

The neighbour stage (skfed.support._neighbours) estimates the features'
correlation from the small clients' one-bit sketches and drops a selected
feature whose votes a correlated selected feature explains.  A rogue client
(a fraction ``rogue_tolerance`` of the clients is tolerated) may send any
sketch: all-ones sketches shift every pair's sign agreement ``m_jl`` by up
to that fraction, which at 5,000 clients is above the linking threshold, so
two independent support features looked correlated and the weaker was
removed although the binomial test (stage one) selected it.
"""

import numpy as np
import pytest
from scipy import optimize, stats

from skfed.network import NetworkSimulation, SimulatedNetwork
from skfed.support import FederatedSupportRecovery
from skfed.support._neighbours import neighbour_stage
from tests.test_support_neighbours import toeplitz_clients


def _forging(monkeypatch, target):
    """Rogue clients send all-ones sketches, and all-ones bits but 0 for ``target``."""
    calls = []

    def forged(self, bits, nodes):
        calls.append(len(nodes))
        out = np.ones(np.shape(bits), dtype=bool)
        if len(calls) == 2:  # the first call corrupts the sketches, the second the bits
            out[:, target] = False
        return out

    monkeypatch.setattr(NetworkSimulation, "corrupt_bit_rows", forged)
    return calls


def test_forged_sketches_do_not_remove_a_support_feature(monkeypatch):
    d, g, n = 400, 5000, 10
    X, y, groups = toeplitz_clients(g, n, d, [100, 300], [3.0, 2.0], seed=0)
    calls = _forging(monkeypatch, 300)
    net = SimulatedNetwork(rogue_fraction=0.1, random_state=0)
    est = FederatedSupportRecovery(network=net, rogue_tolerance=0.1,
                                   random_state=0).fit(X, y, groups=groups)
    assert len(calls) == 2 and est.rogue_.sum() == 500
    assert est.explained_by_ is not None  # the stage ran
    stage_one = est.pvalues_ <= 0.05 / d
    assert stage_one[[100, 300]].all()
    # the forged rows are 10 % of the sketches: every pair's m is 0.1 higher
    assert est.support_[[100, 300]].all()
    assert not (est.support_ & ~stage_one).any()


def test_stage_bounds_the_rogue_share_of_the_sketches():
    # Direct check: two independent selected features, honest sketches of
    # random signs, a share beta of all-ones rogue sketches.  The honest
    # agreement lies in [(|m| - b) / (1 - b)] of the observed one with b the
    # rogue share of the sketches (beta g / g_s), so the pair is not linked.
    rng = np.random.default_rng(0)
    d, g, beta = 8, 20000, 0.1
    signs = rng.random((g, d)) < 0.5
    signs[: int(beta * g)] = True
    sketch = np.packbits(signs, axis=1, bitorder="little")
    bits = np.zeros((g, d), dtype=bool)
    bits[:, 0] = rng.random(g) < 0.9
    bits[:, 1] = rng.random(g) < 0.45
    support = np.zeros(d, dtype=bool)
    support[:2] = True
    votes = bits.sum(axis=0)
    n_reports = np.full(d, g)
    m = np.mean(np.where(signs[:, 0], 1, -1) * np.where(signs[:, 1], 1, -1))
    assert m > 0.08  # the forged share alone would link them
    keep, ref, by = neighbour_stage(support, bits, sketch, np.ones(g, bool), votes,
                                    n_reports, 1.0, beta, 0.05)
    assert keep[:2].all() and (by == -1).all() and np.isnan(ref).all()
    # without rogue tolerance the same m links them and the weaker is removed
    _, _, by0 = neighbour_stage(support, bits, sketch, np.ones(g, bool), votes,
                                    n_reports, 1.0, 0.0, 0.05)
    assert by0[1] == 0


def test_rogues_among_the_small_clients_do_not_inflate_a_noncentrality():
    # Half the answering clients run the OLS test, half the small-client
    # rule; rogue_tolerance 0.05 of the 20,000 clients (1,000) may all be
    # small, a share 0.1 of the small clients.  Honest small clients select
    # feature 0 at 0.5, the rogues at 1 (0.55 observed); honest sketches
    # agree on features 0 and 1 with m = 1/3 (rho = 0.5), forged ones always
    # (0.4 observed, 1/3 once the forged share is removed).  Feature 1's
    # votes are significantly above the rate feature 0 explains through
    # rho = 0.5 from its honest rate (reference 0.3756): it stays.
    g, n_small, d, beta, z = 20000, 10000, 4, 0.05, 1.0
    n_rogue = int(beta * g)
    small = np.zeros(g, dtype=bool)
    small[:n_small] = True
    bits = np.zeros((g, d), dtype=bool)
    honest = n_small - n_rogue
    bits[: honest // 2, 0] = True           # honest small: 0.5
    bits[honest:n_small, 0] = True          # rogue small: all
    bits[: int(0.4 * n_small), 1] = True
    signs = np.zeros((n_small, d), dtype=bool)
    signs[: 2 * honest // 3, :2] = True     # honest: agree on two thirds,
    signs[2 * honest // 3:honest, 0] = True  # disagree on the last third
    signs[honest:, :2] = True               # forged: agree
    sketch = np.packbits(signs, axis=1, bitorder="little")
    s = np.where(signs, 1.0, -1.0)
    assert np.mean(s[:honest, 0] * s[:honest, 1]) == pytest.approx(1 / 3, abs=1e-3)
    assert bits[small, 0].mean() == pytest.approx(0.55)
    votes = np.array([int(0.6 * g), int(0.3842 * g), 0, 0])
    n_reports = np.full(d, g)
    support = np.array([True, True, False, False])
    keep, ref, by = neighbour_stage(support, bits, sketch, small, votes, n_reports,
                                    z, beta, 0.05)
    assert by[1] == 0
    # the reference from the honest small clients' rate 0.5 (not 0.55) and
    # the largest honest agreement the forged share allows (support13: the
    # link's strength is read at (|m| + b) / (1 - b) = 0.5 / 0.9, rho 0.77,
    # so that forged sketches cannot weaken a link to keep a neighbour)
    q0 = float(stats.norm.sf(z) * 2)
    delta = optimize.brentq(lambda t: stats.norm.sf(z + t) + stats.norm.sf(z - t) - 0.5, 0, 40)
    rho = np.sin(np.pi / 2 * (0.4 + 0.1) / 0.9)
    expected = (1 - beta) * (0.5 * (stats.norm.sf(z + rho * delta)
                                    + stats.norm.sf(z - rho * delta)) + 0.5 * q0) + beta
    assert ref[1] == pytest.approx(expected, abs=2e-3)
    # read off the inflated rate 0.55 the reference would be higher still
    delta_all = optimize.brentq(
        lambda t: stats.norm.sf(z + t) + stats.norm.sf(z - t) - 0.55, 0, 40)
    assert ref[1] < (1 - beta) * (0.5 * (stats.norm.sf(z + rho * delta_all)
                                         + stats.norm.sf(z - rho * delta_all)) + 0.5 * q0) + beta
    # at that strength feature 1's votes (0.3842) are explained: it goes
    assert not keep[1]
