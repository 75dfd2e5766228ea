"""A known defect: the online regressor at ``epsilon=0`` can diverge.

``epsilon=0`` keeps every streamed point in a node's dictionary (KOMP prunes
nothing).  On the bad-input probe's data (``tests/test_bad_input.py``) about
one seed in a thousand makes a node's value exceed the divergence limit, and
the fit is refused with a ``FloatingPointError``, where ``epsilon=1e-6`` (the
same dictionary up to numerically dependent points) fits.  Found by the
README's test run in a fresh venv (random seed); the seeds below were found
by drawing 2,400 seeds at random (2 diverged).  The same seeds diverge at
main 068eee0, before the regressor's target encoding.  Strict xfail: it
fails loudly once ``epsilon=0`` is made safe (e.g. a numerical floor on the
pruning residual).
"""
import warnings

import numpy as np
import pytest

from tests.test_bad_input import DATA, build, fit

SEEDS = [1282426608, 2115576186]


@pytest.mark.parametrize("seed", SEEDS)
def test_tiny_epsilon_fits_on_the_seeds_that_diverge_at_zero(seed):
    est = build("DecentralizedKernelSGDRegressor", epsilon=1e-6, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit(est)
    pred = est.predict(DATA["X"], groups=DATA["groups"])
    assert pred.shape == DATA["reg"].shape
    assert np.isfinite(pred).all()


@pytest.mark.xfail(strict=True, raises=FloatingPointError,
                   reason="epsilon=0 keeps numerically dependent points; the fit diverges")
@pytest.mark.parametrize("seed", SEEDS)
def test_epsilon_zero_does_not_diverge(seed):
    est = build("DecentralizedKernelSGDRegressor", epsilon=0, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fit(est)
