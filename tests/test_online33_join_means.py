"""A newcomer's join budget reads two federation means that now travel in a
counted message (online33).

``add_nodes`` of the online learners sizes a newcomer's candidates and
neighbours from the fitted nodes' mean dictionary size and the mean bytes a
fitted node sent in the fit (``_join_sizes`` in skfed/online/_join.py).  No
counted message carried either to the newcomer; now fitted node 0 sends each
newcomer both (two float64) in step 1's first round, and only when the
budget reads them.  Checked in closed form against the first round's bytes
and messages of the join log (the candidates' answers rebuilt from the
join's public draws); failed before (the round lacked ``n_new (header +
16)`` bytes).
"""

import warnings

import numpy as np
import pytest

import skfed.online._join as join
from skfed import DecentralizedKernelSGDClassifier, SimulatedNetwork


def _fitted(header, n_old=6):
    rng = np.random.RandomState(5)
    groups = np.repeat(np.arange(n_old), 12)
    X = rng.normal(size=(len(groups), 2))
    y = (X[:, 0] + 0.3 * groups / n_old * X[:, 1] > 0).astype(int)
    est = DecentralizedKernelSGDClassifier(
        kernel="rbf", gamma=0.7, epsilon=0.0, max_dictionary_size=None, max_epochs=2,
        shuffle=False, alpha=1e-3, consensus_penalty=0.3, random_state=0,
        network=SimulatedNetwork("ring", header_bytes=header))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=groups)
    return est


def _newcomers(counts):
    rng = np.random.RandomState(11)
    Xn = rng.normal(size=(sum(counts), 2))
    yn = (Xn[:, 0] > 0).astype(int)
    yn[:2] = [0, 1]
    gn = np.repeat(100 + np.arange(len(counts)), counts)
    return Xn, yn, gn


def _first_round(est, counts, header, means_read):
    """Bytes and messages of step 1's first round, in closed form."""
    n_old, n_new = len(est.nodes_), len(counts)
    unit = 3 * 8                      # a point (2 features) and its value, float64
    sizes = np.array([len(D) for D in est.dictionaries_], dtype=np.float64)
    q = np.minimum(counts, 5)         # the samples a candidate is judged on
    degree = int(round(np.median(np.diff(est.adjacency_.indptr))))
    n_most = min(10, n_old)
    if means_read:
        budget = 0.4 * est.communication_.total_bytes / n_old
        dictionary = header + sizes.mean() * unit
        candidate = min(2 * header + q.mean() * unit, dictionary)
        n_candidates = int(np.clip((budget - dictionary) // candidate,
                                   min(degree, n_most), n_most))
    else:
        n_candidates = n_most
    draws = np.random.RandomState([est._network_seed, est._n_calls, 7919])
    draws.uniform(size=n_new)         # whether each is rogue
    total, messages = 0, 0
    for m in range(n_new):
        for j in np.sort(draws.choice(n_old, size=n_candidates, replace=False)):
            query, answer = 2 * header + q[m] * unit, header + sizes[j] * unit
            total += min(query, answer)
            messages += 1 if answer < query else 2
    if means_read:
        # fitted node 0 -> every newcomer: mean dictionary size, mean fit bytes
        total += n_new * (header + 16)
        messages += n_new
    return total, messages, n_candidates


@pytest.mark.parametrize("header", [16, 1000])
@pytest.mark.parametrize("budget", [0.4, np.inf])
def test_join_means_travel_in_counted_messages(header, budget, monkeypatch):
    monkeypatch.setattr(join, "_JOIN_BUDGET", budget)
    est = _fitted(header)
    counts = np.array([3, 5, 8])
    Xn, yn, gn = _newcomers(counts)
    n_old = len(est.nodes_)
    expected, messages, n_candidates = _first_round(est, counts, header,
                                                    means_read=np.isfinite(budget))
    # the budget binds at the default (fewer candidates than the most)
    assert (n_candidates < min(10, n_old)) == np.isfinite(budget)
    est.add_nodes(Xn, yn, groups=gn)
    log = est.join_communication_
    assert int(log.bytes_per_round[0]) == expected
    assert int(log.messages_per_round[0]) == messages
    # node 0 sent each newcomer at least the means (when read)
    pair = log.pair_messages_sparse.toarray()
    if np.isfinite(budget):
        assert (pair[0, n_old:n_old + len(counts)] >= 1).all()
    assert est.n_bytes_sent_ == est.communication_.total_bytes + log.total_bytes + (
        est.network_communication_.total_bytes)
