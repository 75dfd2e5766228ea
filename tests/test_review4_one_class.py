"""A fit on one class names it as the user wrote it.

Review of 2026-11-28: under NumPy 2 the message showed the class as a
NumPy scalar's repr ("got one class (np.int64(0))").
"""

import numpy as np
import pytest

from skfed import (
    DecentralizedBoostingClassifier,
    DecentralizedKernelSGDClassifier,
    PersonalizedLinearClassifier,
)


@pytest.mark.parametrize("Estimator", [DecentralizedKernelSGDClassifier,
                                       DecentralizedBoostingClassifier,
                                       PersonalizedLinearClassifier])
@pytest.mark.parametrize("label, shown", [(7, "7"), ("spam", "'spam'")])
def test_one_class_is_named_plainly(Estimator, label, shown):
    X = np.random.RandomState(0).normal(size=(20, 2))
    y = np.full(20, label)
    with pytest.raises(ValueError, match=r"at least 2 classes") as info:
        Estimator().fit(X, y, groups=np.repeat([0, 1], 10))
    message = str(info.value)
    assert shown in message and "np." not in message
