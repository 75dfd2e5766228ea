"""A second ``add_nodes`` after a private MOCHA fit with a learned Omega
(review32).

Under a finite ``privacy`` budget a MOCHA newcomer uploads nothing: "its
model and row of Sigma stay with it, its spend is 0" (``skfed/multitask/
_join.py``), and the server's copy of the models, ``_released_W``, gets a
NaN column for it ("the newcomers' models stay with them: the server holds
none").  With ``omega="learn"`` (also what ``"auto"`` resolves to under
privacy) the next join's newcomer computes its row of Omega from the
server's models, NaN columns included, and ``skfed/multitask/_omega.py``
``omega_update`` raises SciPy's "array must not contain infs or NaNs"
(``scipy.linalg.eigh``): every second join of a private learned-Omega fit
fails, naming nothing (fixed: the later newcomer's prior is built
from the tasks whose models and rows of Sigma the server holds).  The first join, two newcomers in one call, and the
same two joins without privacy or with ``omega="independent"`` work.

What a fix must keep (checked here once the second join runs): the
fitted nodes unchanged, the second newcomer's model finite, and, since the
first newcomer released nothing, the second newcomer's model independent
of the first newcomer's data (noise fixed by the testing switch).
"""

import copy

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from skfed import DifferentialPrivacy, FederatedMultiTaskClassifier  # noqa: E402


def _data(n_nodes, n, seed, offset=0):
    rng = np.random.RandomState(seed)
    w = np.random.RandomState(99).normal(size=5)
    X, y, g = [], [], []
    for k in range(n_nodes):
        x = rng.normal(size=(n, 5))
        X.append(x)
        y.append((x @ (w + 0.3 * rng.normal(size=5)) > 0).astype(int))
        g.append(np.full(n, k + offset))
    return np.vstack(X), np.concatenate(y), np.concatenate(g)


def _fit(omega, private=True):
    X, y, g = _data(10, 30, 0)
    privacy = DifferentialPrivacy(epsilon=1.0, insecure_noise_seed=3) if private else None
    with pytest.warns(Warning):  # (the testing switch warns that the guarantee is void)
        return FederatedMultiTaskClassifier(random_state=0, privacy=privacy,
                                            omega=omega).fit(X, y, groups=g)


@pytest.mark.parametrize("omega", ["independent", "learn", "auto"])
def test_second_join_after_a_private_fit(omega):
    est = _fit(omega)
    first_a = _data(1, 12, 7, offset=100)
    first_b = _data(1, 12, 8, offset=100)   # the first newcomer with other data
    second = _data(1, 12, 9, offset=200)
    models = []
    for first in (first_a, first_b):
        joined = copy.deepcopy(est)
        joined.add_nodes(*first[:2], groups=first[2])
        first_bytes = joined.join_communication_.total_bytes
        joined.add_nodes(*second[:2], groups=second[2])
        # the second newcomer downloads the models the server holds: the
        # fitted ones, not the first newcomer's (which it never released),
        # so its join costs what the first one did
        assert joined.join_communication_.total_bytes == 2 * first_bytes  # (the log sums joins)
        np.testing.assert_array_equal(joined.coef_[:10], est.coef_)
        assert np.isfinite(joined.coef_[-1]).all()
        models.append(joined.coef_[-1])
    np.testing.assert_array_equal(models[0], models[1])


def test_the_first_join_and_one_call_of_two_work():
    est = _fit("learn")
    first = _data(1, 12, 7, offset=100)
    second = _data(1, 12, 9, offset=200)
    one = copy.deepcopy(est).add_nodes(*first[:2], groups=first[2])
    assert np.isfinite(one.coef_).all()
    both = copy.deepcopy(est).add_nodes(np.vstack([first[0], second[0]]),
                                        np.r_[first[1], second[1]],
                                        groups=np.r_[first[2], second[2]])
    assert np.isfinite(both.coef_).all() and len(both.nodes_) == 12
    assert np.all(both.privacy_spent_[10:] == 0)
