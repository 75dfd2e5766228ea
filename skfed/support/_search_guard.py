"""Refuse to be scored as a predictor by a scikit-learn search.

:class:`~skfed.support.FederatedSupportRecovery` is a transformer: a
scorer that needs ``predict`` (``make_group_scorer(r2_score)``,
``scoring="r2"``) can only fail on it.  scikit-learn catches that failure
on every split and, under the default ``error_score=np.nan``, turns it into
NaN scores and a warning, then refits the "best" candidate as if the search
had meant something.  :func:`refuse_predictor_scoring` runs at the start of
the selector's ``fit``: when the fit is one split of a scikit-learn
evaluation (``_fit_and_score``, behind ``GridSearchCV``,
``RandomizedSearchCV``, ``cross_validate``...) whose estimator is this
selector and whose scorer needs a method the selector lacks, the fit raises
before fitting anything.  Every split then fails at once and scikit-learn
raises its "All the fits failed" error with this message, whatever
``error_score`` is.

The only place the fit can see the scorer is the evaluation's frame, so
the check reads the ``estimator`` and ``scorer`` arguments of
``sklearn.model_selection._validation._fit_and_score`` from the call
stack; when they are not there (another scikit-learn version, a fit outside
a search) it does nothing, and the scorer's own error (see
:class:`skfed.model_selection.GroupScorer`) still names the cause.
"""

import sys

# The frames searched for the evaluation (a fit is a few calls below it).
_MAX_DEPTH = 30
_EVALUATION = ("_fit_and_score", "sklearn.model_selection._validation")


def _needed_methods(scorer):
    """The estimator methods a scorer calls, as a list of alternatives per
    metric; None when unknown (the check then does nothing)."""
    scorers = getattr(scorer, "_scorers", None)  # sklearn's _MultimetricScorer
    if isinstance(scorers, dict):
        out = []
        for inner in scorers.values():
            need = _needed_methods(inner)
            if need is None:
                return None
            out.extend(need)
        return out
    method = getattr(scorer, "response_method", None)  # skfed's GroupScorer
    if method is None:
        method = getattr(scorer, "_response_method", None)  # sklearn's _Scorer
    if method is None:
        if type(scorer).__name__ == "_PassthroughScorer":
            return [["score"]]
        return None
    return [[method] if isinstance(method, str) else list(method)]


def _evaluation_scorer(estimator):
    """The scorer of the scikit-learn evaluation that is fitting ``estimator``, or None."""
    frame = sys._getframe(1)
    for _ in range(_MAX_DEPTH):
        if frame is None:
            return None
        code = frame.f_code
        if (code.co_name == _EVALUATION[0]
                and frame.f_globals.get("__name__") == _EVALUATION[1]):
            local = frame.f_locals
            if local.get("estimator") is estimator:
                return local.get("scorer")
            return None
        frame = frame.f_back
    return None


def refuse_predictor_scoring(estimator, predictor_name):
    """Raise when ``estimator`` is being fitted to be scored by a method it lacks.

    Parameters
    ----------
    estimator : estimator instance
        The selector whose ``fit`` is running.
    predictor_name : str
        The estimator to tune instead (named in the message).

    Raises
    ------
    TypeError
        When the fit is one split of a scikit-learn search or
        ``cross_validate`` whose scorer needs a method (``predict``,
        ``predict_proba``, ``score``...) that ``estimator`` does not have.
    """
    scorer = _evaluation_scorer(estimator)
    if scorer is None:
        return
    needs = _needed_methods(scorer)
    if not needs:
        return
    missing = [alts for alts in needs if not any(hasattr(estimator, m) for m in alts)]
    if not missing:
        return
    name = type(estimator).__name__
    raise TypeError(
        f"{name} is a transformer (a feature selector): the search's scorer needs "
        f"{' or '.join(missing[0])}, which it does not have, so every split would score "
        f"NaN. {name} was not fitted. Tune {predictor_name} instead (it takes the same "
        "selection parameters and refits on the support), or score a Pipeline that ends "
        "with a predictor."
    )
