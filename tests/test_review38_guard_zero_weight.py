"""review38: zero-weight rows and the contradicting-newcomer guard.

A row of ``sample_weight`` 0 is an absent row: every join gives its
newcomer the model of the same join without it (MOCHA drops such rows
before anything else, ``skfed/multitask/_join.py``; the online join and
the Dada / Perso-lin joins weigh them by 0).  The guard of Dada's and
Perso-lin's joins (``skfed/_graph_join_unlike.py`` ``contradicted``) counts
every row's misclassification, weighted 0 or not: a newcomer of 20 honest
rows plus 40 zero-weight rows whose labels are flipped is flagged and
keeps its local (Dada) or alone (Perso-lin) model, where the same join
without those rows keeps its joined model.  With the guard off the two
joins give the same model (the control below), so the guard alone reads
the absent rows.  Fixed by the lead as review38 proposed: ``contradicted`` /
``keep_*_if_contradicted`` pass the join's weights and test the rows of
positive weight only (was a strict xfail for Dada and Perso-lin).
"""

import importlib
import warnings

import numpy as np
import pytest

import skfed._join_unlike as guard

from .test_unlike36_guard_rule import FAMILIES


def _data():
    rng = np.random.RandomState(0)
    X = rng.normal(size=(120, 3))
    y = (X[:, 0] > 0).astype(int)
    g = np.repeat([0, 1, 2], 40)
    Xn = rng.normal(size=(60, 3))
    yn = (Xn[:, 0] > 0).astype(int)
    yn[20:] = 1 - yn[20:]  # rows 20-59: labels flipped, weight 0
    sw = np.r_[np.ones(20), np.zeros(40)]
    return X, y, g, Xn, yn, np.full(60, 8), sw


def _joins(family, monkeypatch, guard_on):
    """The newcomer's scores after a join with the zero-weight rows and one without."""
    make, (module,) = FAMILIES[family]
    if not guard_on:
        monkeypatch.setattr(importlib.import_module(module), "worse_than_chance",
                            lambda pred, y, offsets, alpha=guard.ALPHA:
                            np.zeros(len(offsets) - 1, dtype=bool))
    X, y, g, Xn, yn, gn, sw = _data()
    out = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for rows, weights in ((slice(None), sw), (slice(0, 20), None)):
            est = make().fit(X, y, groups=g)
            est.add_nodes(Xn[rows], yn[rows], groups=gn[rows], sample_weight=weights)
            out.append(est.decision_function(Xn[:20], groups=gn[:20]))
    monkeypatch.undo()
    return out


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_without_the_guard_zero_weight_rows_are_absent(family, monkeypatch):
    with_rows, without = _joins(family, monkeypatch, guard_on=False)
    np.testing.assert_allclose(with_rows, without, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("family", ["mocha", "online", "dada", "persolin"])
def test_guard_ignores_zero_weight_rows(family, monkeypatch):
    with_rows, without = _joins(family, monkeypatch, guard_on=True)
    np.testing.assert_allclose(with_rows, without, rtol=1e-12, atol=1e-12)
