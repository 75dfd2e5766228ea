"""review29: Perso-lin's posterior join after an MPI fit equals the one after
the simulated fit (``engines/_mpi_persolin.py`` keeps ``"posterior"`` when it
is asked for; no test ran a join on an MPI-fitted Perso-lin with it).

Reference: the simulated fit and its join: newcomer models, graph rows,
the join's bytes and the fitted models bit for bit.
"""

import numpy as np
from sklearn.base import clone

from skfed.boosting import PersonalizedLinearClassifier

from ._helpers.mpi import launch, needs_mpi, saved_cases
from .test_persolin28_posterior import _clusters


@needs_mpi
def test_posterior_join_after_mpi_fit_equals_the_simulated(tmp_path):
    X, y, g = _clusters(n_nodes=14)
    new = g >= 12
    est = PersonalizedLinearClassifier(random_state=0, join_neighbours="posterior")
    sim = clone(est).fit(X[~new], y[~new], groups=g[~new])
    cases = saved_cases([("posterior", est, X[~new], y[~new], g[~new], None)], tmp_path / "d")
    run = launch(2, cases, tmp_path / "run")["posterior"]
    assert run.newcomer_rule_ == sim.newcomer_rule_ == "posterior"
    np.testing.assert_array_equal(run.coef_, sim.coef_)
    for fitted in (sim, run):
        fitted.add_nodes(X[new], y[new], groups=g[new])
    np.testing.assert_array_equal(run.coef_, sim.coef_)
    np.testing.assert_array_equal(run.intercept_, sim.intercept_)
    np.testing.assert_array_equal(run.collaboration_graph_.toarray(),
                                  sim.collaboration_graph_.toarray())
    assert run.join_communication_.total_bytes == sim.join_communication_.total_bytes
