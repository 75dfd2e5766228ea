"""review38: the online join's guard never fires with more than two classes.

``skfed/online/_join_unlike.py`` ``zero_unlike_starts`` reads ``y`` as
"+-1, per class with more than two" columns, but the online join
(``skfed/online/_join.py``, ``y_new = self._encode_targets(...)``) passes
class indices, one column, for any number of classes (``_join_targets``
builds the one-vs-rest columns elsewhere).  With three classes
``class_codes`` then takes the argmax of a one-row ``Y``: every true code
is 0, the newcomer looks like a one-class node (``q = 0``) and is never
tested.  A newcomer whose three classes are relabeled cyclically keeps the
federation's start and links (fresh accuracy on its task 0.68 here; with
the true codes it is flagged, starts from zero alone and scores 0.89,
alike newcomers unchanged at 0.99).  MOCHA, Dada and Perso-lin flag it.
Was a strict xfail for the online family; fixed by the lead (the class
indices are read as they are).
"""

import importlib
import warnings

import numpy as np
import pytest

import skfed._join_unlike as guard

from .test_unlike36_guard_rule import FAMILIES

NAMES = np.array(["cat", "dog", "eel"])


def _codes(X):
    return np.digitize(X[:, 0], [-0.43, 0.43])  # three about equal classes


def _join(family, monkeypatch):
    """Fit four nodes of the task, join an alike newcomer (7) and a cyclically
    relabeled one (8); returns the estimator, what the guard saw, the newcomers' labels."""
    make, (module,) = FAMILIES[family]
    seen = []

    def spy(pred, y, offsets, alpha=guard.ALPHA):
        seen.append((np.asarray(pred).copy(), np.asarray(y).copy(), np.asarray(offsets)))
        return guard.worse_than_chance(pred, y, offsets, alpha)

    monkeypatch.setattr(importlib.import_module(module), "worse_than_chance", spy)
    rng = np.random.RandomState(1)
    X = rng.normal(size=(240, 3))
    Xn = rng.normal(size=(80, 3))
    codes = _codes(Xn)
    codes[40:] = (codes[40:] + 1) % 3
    gn = np.repeat([7, 8], 40)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = make().fit(X, NAMES[_codes(X)], groups=np.repeat([0, 1, 2, 3], 60))
        est.add_nodes(Xn, NAMES[codes], groups=gn)
    monkeypatch.undo()
    return est, seen, codes


@pytest.mark.parametrize("family", [
    "mocha", "dada", "persolin", "online"])
def test_relabeled_multiclass_newcomer_is_flagged(family, monkeypatch):
    est, seen, codes = _join(family, monkeypatch)
    assert len(seen) == 1
    pred, true, offsets = seen[0]
    # the guard sees the newcomers' own classes (its samples in node order)...
    np.testing.assert_array_equal(np.sort(true[offsets[1]:offsets[2]]), np.sort(codes[40:]))
    np.testing.assert_array_equal(np.sort(true[: offsets[1]]), np.sort(codes[:40]))
    # ...flags the relabeled newcomer only (the start / model the federation's)
    assert guard.worse_than_chance(pred, true, offsets).tolist() == [False, True]
    if family == "online":
        assert est.join_start_.tolist()[-1] == "zero"
