"""unlike37: the graph join records a flagged newcomer's kept model's loss.

Later joins read ``_join_info["losses"]`` (a candidate's answered loss).
unlike36's guard keeps a flagged newcomer's step-1 local model, but the
join recorded the loss of its step-4 model (the one it dropped) when its
candidates answer their final models (Dada's default): for the opposite
newcomer below 6.38 / 6.40 against the kept model's 1.61 (seeds 0 / 1,
before unlike37).  Perso-lin's graph join, whose candidates answer the
models the graph was learned from, already recorded the local loss (its
cases here guard that).  Checked here against the kept
model's loss in NumPy: Dada's ``c_n sum_p log sum_i s_i exp(-y_pi h_i.a_p)``
on the fit's base matrix, Perso-lin's ``c_n F_n``.
"""

import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

from skfed import DecentralizedBoostingClassifier, PersonalizedLinearClassifier

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_unlike37_perso_lin_default_joins import NEW, _join


def _data(seed):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(120, 3))
    Xn = rng.normal(size=(100, 3))
    return X, (X[:, 0] > 0).astype(int), np.repeat([0, 1, 2], 40), Xn, (Xn[:, 0] > 0).astype(int)


def _model(est, k):
    return np.r_[est.coef_[k], est.intercept_[k]]


def _dada_loss(est, X, y, model):
    H = est._base_matrix(X, np.float64)
    m = np.where(y == 1, 1.0, -1.0) * (H @ model)
    top = np.max(-m)
    return est.confidence_[-1] * (top + np.log(np.sum(np.exp(-m - top))))


def _lin_loss(est, X, y, model):
    m = np.where(y == 1, 1.0, -1.0) * (np.column_stack([X, np.ones(len(X))]) @ model)
    value = np.mean(np.logaddexp(0.0, -m)) + 0.5 * float(est.alpha) * model[:-1] @ model[:-1]
    return est.confidence_[-1] * value


CASES = [
    (lambda: DecentralizedBoostingClassifier(random_state=0), _dada_loss),
    (lambda: PersonalizedLinearClassifier(join_neighbours="graph", random_state=0), _lin_loss),
]


@pytest.mark.parametrize("make, loss", CASES, ids=["dada", "persolin-graph"])
@pytest.mark.parametrize("seed", [0, 1])
def test_flagged_newcomer_records_kept_loss(make, loss, seed):
    X, y, g, Xn, yn = _data(seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X, y, groups=g)
    assert est.newcomer_rule_ == "graph"
    joined, flags = _join(est, Xn, 1 - yn)
    assert [f.tolist() for f in flags] == [[True]]
    assert np.mean(joined.predict(Xn, groups=np.full(100, NEW)) == 1 - yn) >= 0.8
    recorded = joined._join_info["losses"][-1]
    assert recorded == pytest.approx(loss(joined, Xn, 1 - yn, _model(joined, -1)), rel=1e-9)
    # the step-4 model (what the join keeps with the test off) has a larger loss
    dropped, _ = _join(est, Xn, 1 - yn, off=True)
    assert loss(joined, Xn, 1 - yn, _model(dropped, -1)) > 2 * recorded


@pytest.mark.parametrize("make, loss", CASES, ids=["dada", "persolin-graph"])
def test_alike_newcomer_loss_bit_identical(make, loss):
    X, y, g, Xn, yn = _data(2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X, y, groups=g)
    on, flags = _join(est, Xn, yn)
    off, _ = _join(est, Xn, yn, off=True)
    assert [f.tolist() for f in flags] == [[False]]
    assert on._join_info["losses"].tobytes() == off._join_info["losses"].tobytes()
    assert on.coef_.tobytes() == off.coef_.tobytes()
    assert on.join_communication_.bytes_per_round.tolist() == (
        off.join_communication_.bytes_per_round.tolist())
