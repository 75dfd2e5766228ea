"""The MOCHA estimators' docstring examples run without a ConvergenceWarning.

An example is what a user copies first; three of them (the regressor, both
CV estimators and ``add_nodes``) ran nodes of 20-40 rows, on which
certifying the joint objective costs more bytes than uploading the rows,
so the fit stopped at the byte ceiling with a ConvergenceWarning.  The
examples now use nodes large enough to certify (the defaults unchanged).
Every docstring example of :mod:`skfed.multitask` is run here with that
warning turned into an error.
"""

import doctest
import importlib
import pkgutil
import warnings

import pytest
from sklearn.exceptions import ConvergenceWarning

import skfed.multitask


def _examples():
    finder = doctest.DocTestFinder()
    for info in pkgutil.iter_modules(skfed.multitask.__path__):
        module = importlib.import_module(f"skfed.multitask.{info.name}")
        for test in finder.find(module):
            if test.examples:
                yield pytest.param(test, id=test.name)


@pytest.mark.parametrize("test", list(_examples()))
def test_example_converges(test):
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        runner.run(test, out=lambda text: None)
        result = runner.summarize(verbose=False)
    assert result.attempted > 0
    assert result.failed == 0, f"{test.name}: {result.failed} example(s) failed or warned"
