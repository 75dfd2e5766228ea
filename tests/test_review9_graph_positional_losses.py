"""Review9: ``CollaborationGraphLearner.fit(M, L)`` must not drop a positional ``L``.

The learner's second positional slot is scikit-learn's ``y``.  It used to be
ignored, so ``fit(models, losses)`` learned the graph of zero losses without
a word, while the MPI engine reads each node's ``y`` as its loss
(``save_partitions(models, losses, ...)``).  ``y`` is now the nodes' losses,
as in the MPI engine; giving both ``y`` and ``losses=`` is refused by name.
"""

import numpy as np
import pytest

from skfed.graph import CollaborationGraphLearner, graph_objective


def _models_and_losses():
    rng = np.random.RandomState(0)
    models = np.vstack([rng.normal(0.0, 0.3, (4, 3)) + [2.0, 0.0, 0.0],
                        rng.normal(0.0, 0.3, (4, 3)) - [2.0, 0.0, 0.0]])
    # Large losses on nodes 0 and 5: their links cost more, so their degrees shrink.
    losses = np.array([3.0, 0.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0])
    return models, losses


def _learner():
    return CollaborationGraphLearner(mu=1.0, kappa=3, max_iter=400, sparsify_graph=None,
                                     random_state=0)


def test_positional_losses_are_used():
    models, losses = _models_and_losses()
    by_position = _learner().fit(models, losses)
    by_name = _learner().fit(models, losses=losses)
    zero = _learner().fit(models)
    W_pos = by_position.collaboration_graph_.toarray()
    W_name = by_name.collaboration_graph_.toarray()
    W_zero = zero.collaboration_graph_.toarray()
    np.testing.assert_array_equal(W_pos, W_name)
    # The losses matter: the lossy nodes' degrees are smaller than without them.
    assert by_position.degree_[0] < zero.degree_[0] - 1e-3
    assert by_position.degree_[5] < zero.degree_[5] - 1e-3
    assert not np.allclose(W_pos, W_zero)
    # The objective the fit reports is h(w) of the given losses.
    h = graph_objective(by_position.collaboration_graph_, models, losses, mu=1.0)
    assert by_position.objective_curve_[-1] == pytest.approx(h, rel=1e-9)


def test_y_and_losses_both_refused():
    models, losses = _models_and_losses()
    with pytest.raises(ValueError, match=r"y.*losses"):
        _learner().fit(models, losses, losses=losses)


def test_positional_losses_checked_like_losses():
    models, losses = _models_and_losses()
    with pytest.raises(ValueError, match="one value per node"):
        _learner().fit(models, losses[:-1])
    bad = losses.copy()
    bad[2] = -1.0
    with pytest.raises(ValueError, match="node 2"):
        _learner().fit(models, bad)


def test_non_numeric_losses_named():
    models, _ = _models_and_losses()
    for args, kwargs in [((["a"] * 8,), {}), ((), {"losses": ["a"] * 8})]:
        with pytest.raises(ValueError, match=r"losses must be numbers"):
            _learner().fit(models, *args, **kwargs)
