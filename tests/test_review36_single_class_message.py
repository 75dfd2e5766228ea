"""review36: MOCHA's single-class refusal printed the class as a NumPy scalar.

``FederatedMultiTaskClassifier.fit`` on targets of one class raised
"got 1 class (np.str_('yes')) over all nodes" (``np.int64(3)`` for
integer targets): the ``repr`` of a NumPy scalar, which this session's
``plain_label`` removed from the other messages.  Fixed in
``skfed/multitask/_classes.py``; the Flower engine's copy of the message
(``skfed/engines/_flower_multitask.py``, another helper's) is left.
"""

import numpy as np
import pytest

from skfed import FederatedMultiTaskClassifier


@pytest.mark.parametrize("y, shown", [
    (np.full(40, "yes"), "'yes'"),
    (np.full(40, "yes", dtype=object), "'yes'"),
    (np.full(40, 3), "3"),
    (np.full(40, 2.0), "2.0"),
    (np.full(40, True), "True"),
])
def test_single_class_refusal_prints_the_plain_class(y, shown):
    X = np.random.RandomState(0).normal(size=(40, 2))
    with pytest.raises(ValueError) as error:
        FederatedMultiTaskClassifier().fit(X, y, groups=np.repeat([0, 1], 20))
    message = str(error.value)
    assert f"got 1 class ({shown}) over all nodes" in message, message
    assert "np." not in message
