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

from skfed.network import NetworkSimulation, SimulatedNetwork
from skfed.support import FederatedSupportRecovery
from skfed.support._neighbours import neighbour_stage

from test_support_neighbours import toeplitz_clients


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
    keep0, _, by0 = neighbour_stage(support, bits, sketch, np.ones(g, bool), votes,
                                    n_reports, 1.0, 0.0, 0.05)
    assert by0[1] == 0
