"""CommunicationLog.from_counter goes through the constructor.

Review of 2026-11-28: ``from_counter`` built the log with ``cls.__new__`` and
a private ``_store``, skipping ``__init__``; a subclass's constructor (or any
attribute a later ``__init__`` sets) was silently missing from every log an
estimator reports.  It now calls the constructor with an already-checked flag
that takes the counter's fresh sparse arrays without copying them.
"""

import numpy as np
from numpy.testing import assert_array_equal

from skfed import network
from skfed._core._comm import CommCounter
from skfed.network import CommunicationLog


def _counter(server):
    counter = CommCounter(4, server=server, header_bytes=16)
    counter.send_message(0, 1, 10)
    counter.send_message(1, 0, 10)
    counter.send_message(0, 1, 5)
    counter.next_round()
    counter.send_message(2, 3, 7)
    if server:
        counter.send_message(3, 4, 3)
    counter.next_round()
    return counter


def test_from_counter_runs_the_subclass_constructor():
    class Tagged(CommunicationLog):
        def __init__(self, *args, **kwargs):
            self.tag = "built"
            super().__init__(*args, **kwargs)

    log = Tagged.from_counter(_counter(False), node_labels=list("abcd"))
    assert isinstance(log, Tagged)
    assert log.tag == "built"
    assert_array_equal(log.node_labels, list("abcd"))


def test_from_counter_matches_the_log_built_from_dense_counts():
    for server in (False, True):
        counter = _counter(server)
        snap = counter.snapshot(dense=True)
        dense = CommunicationLog(
            snap["pair_bytes"], snap["pair_messages"], snap["round_bytes"],
            snap["round_messages"], has_server=server, header_bytes=16,
        )
        log = CommunicationLog.from_counter(counter)
        assert log.has_server is server
        assert log.header_bytes == 16
        assert_array_equal(log.pair_bytes, dense.pair_bytes)
        assert_array_equal(log.pair_messages, dense.pair_messages)
        # Closed form: each message costs its payload plus a 16-byte header.
        assert log.pair_bytes[0, 1] == (10 + 16) + (5 + 16)
        assert log.pair_messages[0, 1] == 2
        assert_array_equal(log.bytes_per_round, [3 * 16 + 25, 16 + 7 + server * (16 + 3)])
        assert_array_equal(log.node_labels, np.arange(4))
        # Only the pairs that talked are stored, indices sorted.
        assert log.pair_bytes_sparse.nnz == 3 + server
        assert log.pair_bytes_sparse.has_sorted_indices


def test_from_counter_takes_the_snapshot_without_a_checking_copy(monkeypatch):
    # The counter's snapshot is fresh int64 CSR: the checked path must not
    # route it through the copying check of user input.
    def refuse(*args, **kwargs):
        raise AssertionError("from_counter copied the counter's arrays")

    monkeypatch.setattr(network, "_pair_matrix", refuse)
    log = CommunicationLog.from_counter(_counter(False))
    assert log.total_bytes == 3 * 16 + 25 + 16 + 7


def test_constructor_still_checks_user_input():
    import pytest

    with pytest.raises(ValueError, match="pair_bytes must be square"):
        CommunicationLog(np.zeros((2, 3)), np.zeros((2, 3)), [0], [0])
    with pytest.raises(ValueError, match="same shape"):
        CommunicationLog(np.zeros((2, 2)), np.zeros((3, 3)), [0], [0])
