"""model_selection.rst's cross_val_score paragraph runs and says what happens (user36).

A first-time user's ``cross_val_score(..., groups=g)`` with routing on was
refused by scikit-learn, and nothing in the guide said to pass
``params={"groups": g}``; a plain ``cv=3`` on rows stored node by node holds
out whole nodes without a warning.  The page's code block is run as printed
and its scores recomputed fold by fold: each fold's fit and every node's
accuracy on its own held-out rows, counted with NumPy.
"""

import re
from pathlib import Path

import numpy as np
import pytest
import sklearn
from sklearn.metrics import accuracy_score
from sklearn.model_selection import cross_val_score

from skfed.boosting import PersonalizedLinearClassifier
from skfed.model_selection import WithinGroupKFold, make_group_scorer

_PAGE = Path(__file__).resolve().parents[1] / "doc" / "user_guide" / "model_selection.rst"


def _text():
    if not _PAGE.exists():
        pytest.skip("doc/user_guide/model_selection.rst is not in this checkout")
    return _PAGE.read_text()


def _cross_val_block():
    blocks = re.findall(r"\.\. code-block:: python\n\n((?:   .*\n|\n)+)", _text())
    found = [b for b in blocks if "cross_val_score(" in b]
    assert len(found) == 1
    return "\n".join(line[3:] for line in found[0].splitlines())


def _data():
    # 8 nodes stored node by node; odd nodes flip the boundary, so a node's
    # own model beats the average one
    rng = np.random.RandomState(0)
    groups = np.repeat(np.arange(8), 30)
    X = rng.normal(size=(240, 4))
    sign = np.where(groups % 2 == 0, 1.0, -1.0)
    y = (sign * (X[:, 0] + 0.5 * X[:, 1]) + 0.3 * rng.normal(size=240) > 0).astype(int)
    return X, y, groups


def test_page_block_runs_and_scores_each_node_on_its_own_rows():
    X, y, groups = _data()
    namespace = {"sklearn": sklearn, "PersonalizedLinearClassifier": PersonalizedLinearClassifier,
                 "WithinGroupKFold": WithinGroupKFold, "make_group_scorer": make_group_scorer,
                 "X": X, "y": y, "groups": groups}
    exec(compile(_cross_val_block(), "model_selection.rst (cross_val_score)", "exec"), namespace)  # noqa: S102
    scores = namespace["scores"]
    assert scores.shape == (3,)
    # reference: the same folds, fits and per-node accuracies by hand
    cv = WithinGroupKFold(n_splits=3, shuffle=True, random_state=0)
    expected = []
    for train, test in cv.split(X, y, groups=groups):
        model = PersonalizedLinearClassifier(random_state=0)
        model.fit(X[train], y[train], groups=groups[train])
        pred = model.predict(X[test], groups=groups[test])
        per_node = [accuracy_score(y[test][groups[test] == g], pred[groups[test] == g])
                    for g in np.unique(groups[test])]
        assert len(per_node) == 8   # every node is in every test fold
        expected.append(np.mean(per_node))
    np.testing.assert_allclose(scores, expected, rtol=0, atol=1e-12)
    assert scores.mean() > 0.85


def test_groups_argument_refused_under_routing_as_quoted():
    X, y, groups = _data()
    text = " ".join(_text().split())
    assert '("``groups`` can only be passed if metadata routing is not enabled")' in text
    with sklearn.config_context(enable_metadata_routing=True), pytest.raises(
            ValueError, match="`groups` can only be passed if metadata routing is not enabled"):
        cross_val_score(PersonalizedLinearClassifier(random_state=0), X, y, groups=groups,
                        cv=WithinGroupKFold(3), scoring=make_group_scorer())


def test_plain_cv_holds_out_whole_nodes_silently():
    X, y, groups = _data()
    with sklearn.config_context(enable_metadata_routing=True):
        kwargs = {"params": {"groups": groups}, "scoring": make_group_scorer(average="nodes")}
        plain = cross_val_score(PersonalizedLinearClassifier(random_state=0), X, y, cv=3,
                                **kwargs)
        within = cross_val_score(PersonalizedLinearClassifier(random_state=0), X, y,
                                 cv=WithinGroupKFold(3), **kwargs)
    # cv=3 (stratified, unshuffled) on rows stored node by node: every test fold is
    # made of nodes its training fold never saw, predicted by the average model
    assert within.mean() > 0.85
    assert plain.mean() < within.mean() - 0.2
