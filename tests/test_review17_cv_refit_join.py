"""A MOCHA CV estimator refitted after a join forgets the join (review17).

``FederatedMultiTaskClassifierCV`` / ``RegressorCV`` copy the final fit's
attributes onto themselves but kept what an earlier ``add_nodes`` had set
on them: the fitted node count the next join reads (``_join_n_fit``, in
the newcomer's prior weight ``lambda n_fit / (1 - b)``) and the join
counter seeding its draws (``_join_seed``).  A join after (fit on 6 nodes,
join, refit on 4 nodes) then gave the newcomers other models than the
same join after a fresh fit on the 4 nodes (decision values 0.26 apart for
the classifier, 0.027 for the regressor, more under drops), unlike the
plain estimators, whose fit drops both (``skfed/multitask/_base.py``).

And ``n_bytes_total_``, documented as ``n_bytes_cv_ + n_bytes_sent_``,
stayed at the fit's value while a join grew ``n_bytes_sent_``.
"""

import warnings

import numpy as np
import pytest

from skfed import SimulatedNetwork

from .test_bad_input import DATA, build, kind_of

X, GROUPS = DATA["X"], DATA["groups"]
FITTED, NEW, FOUR = GROUPS < 6, GROUPS >= 6, GROUPS < 4


def _values(est, rows):
    if hasattr(est, "decision_function"):
        return est.decision_function(X[rows], groups=GROUPS[rows])
    return est.predict(X[rows], groups=GROUPS[rows])


@pytest.mark.parametrize("drop_rate", [0.0, 0.5])
@pytest.mark.parametrize("name", ["FederatedMultiTaskClassifierCV",
                                  "FederatedMultiTaskRegressorCV",
                                  "FederatedMultiTaskClassifier"])
def test_join_after_a_refit_is_the_join_after_a_fresh_fit(name, drop_rate):
    network = SimulatedNetwork(drop_rate=drop_rate, random_state=0) if drop_rate else None
    y = DATA[kind_of(build(name))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        refitted = build(name, random_state=0, network=network)
        refitted.fit(X[FITTED], y[FITTED], groups=GROUPS[FITTED])
        refitted.add_nodes(X[NEW], y[NEW], groups=GROUPS[NEW])
        refitted.fit(X[FOUR], y[FOUR], groups=GROUPS[FOUR])
        for attr in ("_join_n_fit", "_join_seed", "join_communication_"):
            assert attr not in vars(refitted)
        refitted.add_nodes(X[NEW], y[NEW], groups=GROUPS[NEW])
        fresh = build(name, random_state=0, network=network)
        fresh.fit(X[FOUR], y[FOUR], groups=GROUPS[FOUR])
        fresh.add_nodes(X[NEW], y[NEW], groups=GROUPS[NEW])
    assert refitted.nodes_.tolist() == fresh.nodes_.tolist() == [0, 1, 2, 3, 6, 7]
    np.testing.assert_array_equal(_values(refitted, NEW), _values(fresh, NEW))
    np.testing.assert_array_equal(refitted.join_communication_.bytes_per_round,
                                  fresh.join_communication_.bytes_per_round)
    assert refitted.n_bytes_sent_ == fresh.n_bytes_sent_


@pytest.mark.parametrize("name", ["FederatedMultiTaskClassifierCV",
                                  "FederatedMultiTaskRegressorCV"])
def test_total_bytes_count_the_joins(name):
    # n_bytes_total_ is documented as n_bytes_cv_ + n_bytes_sent_; a join
    # grows n_bytes_sent_ (fit + joins) and left the total at the fit's
    y = DATA[kind_of(build(name))]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = build(name, random_state=0).fit(X[FITTED], y[FITTED], groups=GROUPS[FITTED])
        path, fit_bytes = est.n_bytes_cv_, est.n_bytes_sent_
        assert est.n_bytes_total_ == path + fit_bytes
        for node in (6, 7):
            rows = GROUPS == node
            est.add_nodes(X[rows], y[rows], groups=GROUPS[rows])
            joined = est.join_communication_.total_bytes
            assert joined > 0 and est.n_bytes_sent_ == fit_bytes + joined
            assert est.n_bytes_total_ == path + fit_bytes + joined
        assert est.n_bytes_cv_ == path
