"""Review7: a graph join refuses graph parameters changed since the fit.

``add_nodes`` of Dada and Perso-lin solves a newcomer's row of the fitted
graph objective and runs "the fit's" schedule (its docstring): ``mu_graph``
changed after fit was refused, naming it, but ``lambda_graph``, ``delta``,
``max_neighbors``, ``sparsify_graph``, ``kappa``, ``max_iter``,
``graph_update_every`` and ``peer_scoring`` were read as they were at join
time, so the newcomers silently solved another problem than the fitted
nodes' (``lambda_graph=100`` or ``delta=10`` gave other rows and models).
"""

import numpy as np
import pytest

from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier
from skfed.datasets import make_rotated_moons

CHANGES = {
    "lambda_graph": 100.0,
    "delta": 10.0,
    "max_neighbors": 1,
    "sparsify_graph": None,
    "kappa": 1,
    "max_iter": 60,
    "graph_update_every": 7,
    "peer_scoring": "flip",
}


def _data():
    X, _, y, _, g, _, _, _ = make_rotated_moons(n_nodes=10, n_features=3, random_state=0)
    return X, y, g, g < 8


@pytest.mark.parametrize("cls", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
def test_changed_graph_parameters_are_refused_by_name(cls):
    X, y, g, old = _data()
    est = cls(random_state=0, max_iter=200).fit(X[old], y[old], groups=g[old])
    fresh = cls(random_state=0, max_iter=200).fit(X[old], y[old], groups=g[old])
    fresh.add_nodes(X[~old], y[~old], groups=g[~old])
    for name, value in CHANGES.items():
        before = est.get_params()[name]
        if value == "flip":
            value = not before
        assert value != before
        est.set_params(**{name: value})
        with pytest.raises(ValueError, match=rf"add_nodes: {name} was changed after fit"):
            est.add_nodes(X[~old], y[~old], groups=g[~old])
        assert len(est.nodes_) == 8  # nothing joined
        est.set_params(**{name: before})
    est.add_nodes(X[~old], y[~old], groups=g[~old])
    np.testing.assert_array_equal(est.coef_, fresh.coef_)
    np.testing.assert_array_equal(est.collaboration_graph_.toarray(),
                                  fresh.collaboration_graph_.toarray())
    # a refit takes the new value, and a join after it accepts it
    est.set_params(lambda_graph=2.0).fit(X[old], y[old], groups=g[old])
    est.add_nodes(X[~old], y[~old], groups=g[~old])
    assert len(est.nodes_) == 10
