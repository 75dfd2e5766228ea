"""A peer-scoring setting that a private fit cannot use is ignored silently
(privacy34).

Peer scores are losses of received models on a node's own samples: data
that no mechanism protects, so a finite ``privacy`` budget turns them off
(``skfed/boosting/_base.py``, ``_peer_scores``: ``if not peer_scoring or
private: return None, 0``; the join, ``skfed/_graph_join.py``: ``scoring =
peer_scoring and not private``).  That is the safe direction for privacy,
but an explicit non-default ``peer_scoring`` (Perso-lin's ``True``, whose
default is ``False``; Dada's weight ``0.5``, whose default is ``True``)
then has no effect, with no error, warning or fitted attribute saying so,
where the other settings a private fit cannot honour are refused by name
(``local_update="block"``, ``join_neighbours="posterior"``,
``compression=8``, ``aggregation="line_search"``, ``warm_start=True``).
Measured: Perso-lin private fits with ``peer_scoring=False`` and ``True``
(the same testing noise, 8 nodes, ``max_iter=20``) release bit-identical
models and send the same bytes.  The fix is one check in each estimator's
private-input validation (``skfed/boosting/_perso_lin.py`` / ``_dada.py``,
not this helper's files).  Fixed by the lead
(``skfed.boosting._private.check_private_peer_scoring``); the defaults and
``False`` still fit.
"""

import warnings

import numpy as np
import pytest

pytest.importorskip("dp_accounting")

from skfed import (  # noqa: E402
    DecentralizedBoostingClassifier,
    DifferentialPrivacy,
    PersonalizedLinearClassifier,
)
from skfed.boosting import make_stump_predictors  # noqa: E402


def _nodes():
    rng = np.random.RandomState(0)
    X = rng.uniform(-1.0, 1.0, size=(8 * 20, 2))
    y = (X @ np.array([1.0, -0.5]) > 0).astype(int)
    return X, y, np.repeat(np.arange(8), 20)


@pytest.mark.parametrize("which", ["persolin", "dada"])
def test_an_explicit_peer_scoring_is_refused_under_privacy(which):
    X, y, g = _nodes()
    spec = DifferentialPrivacy(epsilon=2.0)
    if which == "persolin":
        est = PersonalizedLinearClassifier(privacy=spec, peer_scoring=True, max_iter=20)
    else:
        est = DecentralizedBoostingClassifier(
            privacy=spec, peer_scoring=0.5, max_iter=20,
            base_predictors=make_stump_predictors([-1, -1], [1, 1], 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError, match="peer_scoring"):
            est.fit(X, y, groups=g)


@pytest.mark.parametrize("which", ["persolin", "dada"])
def test_the_default_peer_scoring_fits_under_privacy(which):
    X, y, g = _nodes()
    spec = DifferentialPrivacy(epsilon=2.0)
    if which == "persolin":
        est = PersonalizedLinearClassifier(privacy=spec, max_iter=20)
    else:
        est = DecentralizedBoostingClassifier(
            privacy=spec, max_iter=20, peer_scoring=False,
            base_predictors=make_stump_predictors([-1, -1], [1, 1], 4))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(X, y, groups=g)
    assert np.isfinite(est.decision_function(X, groups=g)).all()
