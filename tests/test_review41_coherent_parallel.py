"""review41: MOCHA's margin-centre join (skfed/multitask/_join_coherent.py)
after node-parallel fits: with ``n_jobs=2`` under joblib's threading and
loky backends the fit and the join (the rule acting: rotated tasks, rho <
0.7) give the serial run's models and bytes to the bit."""

import warnings

import numpy as np
import pytest
from joblib import parallel_config

from skfed import FederatedMultiTaskClassifier
from skfed.multitask import _join_coherent as jc

from .test_mochak538_coherent_centre import _tasks


def _fit_and_join(n_jobs, backend=None):
    X, y, g = _tasks([0, 90, 180, 270], 6, 0)
    Xn, yn, gn = _tasks([0, 180], 1, 5, offset=100, n=5)
    est = FederatedMultiTaskClassifier(random_state=0, n_jobs=n_jobs)
    with warnings.catch_warnings(), parallel_config(backend=backend or "sequential"):
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
        est.add_nodes(Xn, yn, groups=gn)
    return est


@pytest.mark.parametrize("backend", ["threading", "loky"])
def test_parallel_fit_joins_as_serial(backend):
    serial = _fit_and_join(None)
    assert jc.coherence(np.asarray(serial._W[:, :24], dtype=np.float64)) < jc.COHERENCE_T
    run = _fit_and_join(2, backend)
    np.testing.assert_array_equal(run.coef_, serial.coef_)
    np.testing.assert_array_equal(run.intercept_, serial.intercept_)
    assert run.join_communication_.total_bytes == serial.join_communication_.total_bytes
