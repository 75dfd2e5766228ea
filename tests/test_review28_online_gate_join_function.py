"""``join_function`` changed after the fit is refused by name also when the
online classifier's feature-mean gate is open (review28).

``_join_new`` (skfed/online/_join.py) handed an open gate's join to
``_gate_join`` before ``_check_join_function_fitted``, so on data where the
gate opens (two terrains told apart by feature 0's mean) a
``set_params(join_function=...)`` between ``fit`` and ``add_nodes`` /
``partial_fit`` was silently ignored (the newcomer started from the
features rule either way), while the same change on a closed gate is
refused.  A refused join must also leave the estimator as it was: the
gate's pending messages are not sent and recorded by a call that fails.
"""

import copy

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDClassifier

from .test_dada18_one_class_join import terrains


def _newcomer():
    rng = np.random.RandomState(3)
    a = rng.normal(size=(8, 3))
    a[:, 0] += 3
    return a, (a[:, 1] > 0).astype(int), np.full(8, 100)


@pytest.fixture(scope="module", params=["network", "auto"])
def fitted(request):
    X, y, g = terrains(n_nodes=14)
    est = DecentralizedKernelSGDClassifier(max_epochs=3, random_state=0,
                                           join_function=request.param)
    return est.fit(X, y, groups=g)


@pytest.mark.parametrize("call", ["add_nodes", "partial_fit"])
def test_changed_join_function_refused_with_the_gate_open(fitted, call):
    assert fitted.newcomer_rule_ == "features" and fitted.newcomer_gate_["open"]
    other = {"network": "auto", "auto": "network"}[fitted.join_function]
    est = copy.deepcopy(fitted).set_params(join_function=other)
    a, ya, ga = _newcomer()
    with pytest.raises(ValueError, match=rf"join_function={other!r} was set after the fit"):
        getattr(est, call)(a, ya, groups=ga)
    # Nothing of the refused call stays: no node, no gate message recorded.
    assert len(est.nodes_) == len(fitted.nodes_)
    assert est.newcomer_gate_["sent"] is False
    assert est.n_bytes_sent_ == fitted.n_bytes_sent_
    # Set back, the join is the untouched estimator's, bit for bit.
    est.set_params(join_function=fitted.join_function)
    ref = copy.deepcopy(fitted)
    getattr(est, call)(a, ya, groups=ga)
    getattr(ref, call)(a, ya, groups=ga)
    np.testing.assert_array_equal(est.decision_function(a, groups=ga),
                                  ref.decision_function(a, groups=ga))
    assert est.join_communication_.total_bytes == ref.join_communication_.total_bytes > 0
