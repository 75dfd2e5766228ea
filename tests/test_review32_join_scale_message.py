"""A Dada / Perso-lin newcomer uses the fit's largest node mass, which no
counted message brings it (review32).

A newcomer's confidence is ``min(m_n / max_mass, cap)`` (``skfed.
_graph_join_fitted.newcomer_confidence``), where ``max_mass`` is the
largest fitted node's mass, a federation-level statistic of the fitted
nodes' data; the heavy-newcomer and light-newcomer rules also read the
fitted nodes' mean, median and smallest confidence (``skfed/_graph_join.py``
lines 627-629 and 754).  The join's messages, as documented in
``skfed/_graph_join.py`` and asserted by ``tests/test_graph_join.py::
test_join_bytes_closed_form``, are the requests, the candidates' answers
(model, loss, degree) and the final weights: none carries these scales, so
the newcomer's model depends on data it never received (the first test
shows it: four times the largest mass moves an 8-sample newcomer's model by
0.066 (Dada) and 0.017 (Perso-lin), confidence 0.32 -> 0.08, with byte-identical logs).  The same holds in the fit, where every
node's confidence ``m_k / max_l m_l`` needs the largest mass of the
federation (no max-consensus is counted in ``communication_``).

The missing bytes are few (two float64 for Dada, four for Perso-lin, per
newcomer; a max-consensus in the fit): since mass33 the newcomer's first
answer carries them (``skfed._node_mass``), and the second test asserts the
closed form with them; the first shows the scale matters.
"""

import copy

import numpy as np
import pytest

from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier, SimulatedNetwork
from skfed.graph import model_message_bytes


def _data(n_nodes=8, n_per=25):
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(n_nodes), n_per)
    X = rng.normal(size=(n_nodes * n_per, 2))
    flip = np.where(np.arange(n_nodes) % 2 == 0, 1.0, -1.0)[groups]
    y = (flip * X[:, 0] + 0.3 * X[:, 1] > 0).astype(int)
    return X, y, groups


def _fit_and_newcomer(cls):
    X, y, groups = _data()
    fit = groups < groups.max() - 1
    est = cls(random_state=0, max_iter=60, join_neighbours="graph").fit(
        X[fit], y[fit], groups=groups[fit])
    new = np.flatnonzero(groups == groups.max())[:8]   # a newcomer of 8 samples
    return est, X[new], y[new], groups[new]


CLASSES = [DecentralizedBoostingClassifier, PersonalizedLinearClassifier]


@pytest.mark.parametrize("cls", CLASSES)
def test_the_newcomer_depends_on_the_largest_mass(cls):
    est, a, ya, ga = _fit_and_newcomer(cls)
    one = copy.deepcopy(est).add_nodes(a, ya, groups=ga)
    heavier = copy.deepcopy(est)
    heavier._join_info = dict(heavier._join_info)
    heavier._join_info["max_mass"] *= 4.0   # a fit whose heaviest node is 4x heavier
    heavier.add_nodes(a, ya, groups=ga)
    moved = np.abs(one._full_coef()[-1] - heavier._full_coef()[-1]).max()
    assert moved > 1e-3, moved
    # ... with the same messages: the scale did not travel.
    np.testing.assert_array_equal(one.join_communication_.bytes_received,
                                  heavier.join_communication_.bytes_received)


@pytest.mark.parametrize("cls", CLASSES)
def test_the_largest_mass_reaches_the_newcomer_in_a_counted_message(cls):
    est, a, ya, ga = _fit_and_newcomer(cls)
    models = est._full_coef()
    K = len(models)
    graph_models = est._join_info["graph_models"]
    est.add_nodes(a, ya, groups=ga)
    header = SimulatedNetwork().header_bytes
    answered = models if graph_models is None else graph_models
    answers = int(model_message_bytes(answered.reshape(K, -1), models.dtype).sum())
    W = est.collaboration_graph_[K:, :K].tocoo()
    documented = K * header + answers + K * (16 + header) + W.nnz * (8 + header)
    if graph_models is not None:  # the chosen neighbours then send their final models
        finals = model_message_bytes(models.reshape(K, -1), models.dtype)
        documented += 2 * W.nnz * header + int(finals[W.col].sum())
    total = est.join_communication_.total_bytes
    # ... plus the fit's mass summary on the newcomer's first answer (mass33):
    # (max, mean) for Dada, (max, mean, median, min) for Perso-lin.
    summary = 8 * (2 if cls is DecentralizedBoostingClassifier else 4)
    assert total == documented + summary, (total, documented)
