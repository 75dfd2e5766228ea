"""Messages a first-time user could not act on (user37).

A join after a private fit warned that the newcomers' kept_local_models_
entries are None, without saying whether anything was wrong or what to do.
The warning now says nothing is wrong and that a refit with the newcomers'
samples gives them the choice, which is checked here.
"""

import warnings

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from skfed.boosting import PersonalizedLinearClassifier
from skfed.privacy import DifferentialPrivacy


def test_private_join_warning_says_what_to_do_and_the_refit_does_it():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(240, 3))
    y = (X[:, 0] > 0).astype(int)
    groups = np.repeat(np.arange(6), 40)
    old = groups < 4

    def make():
        return PersonalizedLinearClassifier(random_state=0,
                                            privacy=DifferentialPrivacy(epsilon=3.0))

    est = make().fit(X[old], y[old], groups=groups[old])
    with pytest.warns(UserWarning, match=r"keep their joined models") as caught:
        est.add_nodes(X[~old], y[~old], groups=groups[~old])
    message = next(str(w.message) for w in caught if "joined models" in str(w.message))
    assert ("Nothing is wrong; to give them that choice too, refit with their samples "
            "included.") in message
    assert est.kept_local_models_[4] is None and est.kept_local_models_[5] is None
    with warnings.catch_warnings():
        warnings.simplefilter("error", UserWarning)
        refit = make().fit(X, y, groups=groups)
    # every node made the choice: one kept-model entry per node, the newcomers'
    # fitted like the others' (a model trained alone, or None where the
    # collaborative model won the test)
    assert refit.kept_local_models_.shape == (6,)
    assert sum(m is not None for m in refit.kept_local_models_) >= 1
