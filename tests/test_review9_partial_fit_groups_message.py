"""Review9: partial_fit without node ids says what it needs them for.

A later ``partial_fit`` of a model fitted on several nodes, called without
``groups``, is refused (the samples' nodes are unknown).  The message said
the model "needs the node id of every sample to predict", which is not the
call that failed; it now names ``partial_fit``.  ``predict`` keeps its
message.
"""

import warnings

import numpy as np
import pytest

from skfed import DecentralizedKernelSGDClassifier, DecentralizedKernelSGDRegressor


@pytest.mark.parametrize("cls", [DecentralizedKernelSGDClassifier,
                                 DecentralizedKernelSGDRegressor])
def test_partial_fit_without_groups_names_partial_fit(cls):
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(4), 10)
    X = rng.normal(size=(40, 3))
    y = (X[:, 0] > 0).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = cls(max_epochs=1, random_state=0).fit(X, y, groups=groups)
    with pytest.raises(ValueError, match=r"fitted on 4 nodes, so it needs the node id of "
                                         r"every sample to learn from it in partial_fit"):
        est.partial_fit(X, y)
    with pytest.raises(ValueError, match=r"every sample to predict"):
        est.predict(X)
