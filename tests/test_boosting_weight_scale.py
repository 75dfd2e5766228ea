"""Sample weights of Dada and Perso-lin: a weight is a repetition.

Dada's node loss is the paper's ``log sum_i s_i exp(-margin_i)`` (eq. 2, a
sum): multiplying every weight by an integer ``c`` must fit exactly as
repeating every sample ``c`` times, and so may move the learned graph (each
loss rises by ``log c``; the graph step weighs the losses).  Perso-lin's node
loss is a weighted mean and its confidences relative masses: a global scale
leaves it unchanged.
"""

import numpy as np
import pytest
from sklearn.datasets import make_moons

from skfed.boosting import DecentralizedBoostingClassifier, PersonalizedLinearClassifier


def _data():
    X, y = make_moons(240, noise=0.2, random_state=0)
    groups = np.repeat(np.arange(6), 40)
    w = np.random.RandomState(0).randint(1, 4, len(y)).astype(float)
    return X, y, groups, w


@pytest.mark.parametrize("Est", [DecentralizedBoostingClassifier, PersonalizedLinearClassifier])
@pytest.mark.parametrize("c", [2, 3])
def test_scaled_weights_fit_as_repeated_samples(Est, c):
    X, y, groups, w = _data()
    scaled = Est(random_state=0).fit(X, y, groups=groups, sample_weight=c * w)
    repeated = Est(random_state=0).fit(
        np.repeat(X, c, axis=0), np.repeat(y, c), groups=np.repeat(groups, c),
        sample_weight=np.repeat(w, c),
    )
    np.testing.assert_allclose(
        scaled.decision_function(X, groups=groups),
        repeated.decision_function(X, groups=groups), rtol=0, atol=1e-10,
    )
    np.testing.assert_array_equal(scaled.collaboration_graph_.toarray() > 0, repeated.collaboration_graph_.toarray() > 0)


def test_integer_weights_fit_as_repetitions_dada():
    X, y, groups, w = _data()
    n = w.astype(int)
    weighted = DecentralizedBoostingClassifier(random_state=0).fit(
        X, y, groups=groups, sample_weight=w)
    repeated = DecentralizedBoostingClassifier(random_state=0).fit(
        np.repeat(X, n, axis=0), np.repeat(y, n), groups=np.repeat(groups, n))
    np.testing.assert_array_equal(weighted.coef_, repeated.coef_)


def test_dada_losses_shift_by_log_c():
    # What a global scale does to Dada's objective: every node loss + log c.
    from skfed._core._boosting_fast import lse_losses

    rng = np.random.RandomState(1)
    margins = rng.normal(size=(2, 30))
    sw = rng.uniform(0.5, 2.0, 30)
    offsets = np.array([0, 10, 30], dtype=np.intp)
    out1, out7 = np.zeros((2, 2)), np.zeros((2, 2))
    lse_losses(margins, sw, offsets, out1)
    lse_losses(margins, 7 * sw, offsets, out7)
    ref = np.array([[np.log(np.sum(sw[a:b] * np.exp(-margins[p, a:b]))) for p in range(2)]
                    for a, b in ((0, 10), (10, 30))])
    np.testing.assert_allclose(out1, ref, rtol=1e-12)
    np.testing.assert_allclose(out7 - out1, np.log(7), rtol=1e-12)


@pytest.mark.parametrize("c", [0.5, 2, 10, 1000])
def test_persolin_invariant_to_weight_scale(c):
    X, y, groups, w = _data()
    base = PersonalizedLinearClassifier(random_state=0).fit(X, y, groups=groups, sample_weight=w)
    scaled = PersonalizedLinearClassifier(random_state=0).fit(
        X, y, groups=groups, sample_weight=c * w)
    np.testing.assert_allclose(scaled.coef_, base.coef_, rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(
        scaled.collaboration_graph_.toarray(), base.collaboration_graph_.toarray(),
        rtol=1e-9, atol=1e-12)
