"""Review9: the MPI online engine's scale-sums exchange is counted once, where it is sent.

After the fit, the root sends a regressor's network function to every live
rank and receives each rank's scale sums (``skfed.engines._mpi_online._scale_sums``).
``Peer.send`` counts every message it pickles; the exchange used to count
its own traffic a second time by pickling the network function again on the
root for each rank (and each received array again), beside ``Peer.send``'s
count.  It now reports the bytes the peer itself counted: the root's sends
(``Peer.traffic``) and the bytes it received (``Peer.recv``'s
``last_nbytes``).  Checked here with a stand-in peer, no MPI needed; the
2-rank runs of ``tests/test_online_join_scale_mpi.py`` check the exchange
end to end.
"""

import copy
import pickle
import warnings

import numpy as np

from skfed import DecentralizedKernelSGDRegressor
from skfed.engines._mpi_comm import Traffic
from skfed.engines._mpi_online import _scale_sums


class _RootPeer:
    """The root of 3 ranks: sends count a fixed size, receives return zero
    sums (the 3 scale sums and the 2 join-offset sums of every node)."""

    rank, root = 0, 0

    def __init__(self, n_nodes):
        self.traffic = Traffic()
        self.sent, self.n_nodes, self.last_nbytes = [], n_nodes, None

    def live_others(self):
        return [1, 2]

    def send(self, dest, tag, item, obj):
        self.sent.append((dest, item))
        self.traffic.add(item, 1000)

    def recv(self, source, tag=None, *, timeout=None, what="a message"):
        self.last_nbytes = 77 + source
        return tag, np.zeros((self.n_nodes, 5))

    def flush(self, dead=()):
        pass


def test_the_exchange_reports_the_peers_counts(monkeypatch):
    rng = np.random.RandomState(0)
    g = np.repeat(np.arange(4), 10)
    X = rng.normal(size=(40, 2))
    y = X @ [1.0, -1.0] + 0.1 * rng.normal(size=40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DecentralizedKernelSGDRegressor(kernel="rbf", gamma=0.5, max_epochs=1,
                                              max_dictionary_size=8,
                                              random_state=0).fit(X, y, groups=g)
    codes = np.unique(g, return_inverse=True)[1]
    expected = est._network_scale_sums(X, y, codes, None)
    # the root's own nodes' join-offset sums from the same rows (skfed.online._join_offset)
    ref = copy.deepcopy(est)
    ref._keep_fit_sums(X, y, codes, None)
    offsets = ref._network_offset_stats
    assert expected[:, 2].tolist() == [10.0] * 4
    pickled = []
    real_dumps = pickle.dumps
    monkeypatch.setattr(pickle, "dumps", lambda *a, **k: pickled.append(1) or real_dumps(*a, **k))
    peer = _RootPeer(4)
    traffic = _scale_sums(est, peer, (X, y, codes, None))
    assert pickled == []  # nothing pickled beside the peer's own sends
    assert peer.sent == [(1, "network"), (2, "network")]
    assert traffic == {"network": {"bytes": 2000, "messages": 2},
                       "scale_sums": {"bytes": 78 + 79, "messages": 2}}
    np.testing.assert_allclose(est._network_fit_stats, expected, rtol=0, atol=0)
    np.testing.assert_allclose(est._network_offset_stats, offsets, rtol=0, atol=0)


def test_one_rank_reports_no_exchange():
    rng = np.random.RandomState(1)
    g = np.repeat(np.arange(3), 8)
    X = rng.normal(size=(24, 2))
    y = X[:, 0] + 0.1 * rng.normal(size=24)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = DecentralizedKernelSGDRegressor(kernel="rbf", max_epochs=1,
                                              random_state=0).fit(X, y, groups=g)
    peer = _RootPeer(3)
    peer.live_others = list
    codes = np.unique(g, return_inverse=True)[1]
    assert _scale_sums(est, peer, (X, y, codes, None)) == {}
    assert peer.sent == [] and dict(peer.traffic.bytes) == {}
