"""What a MOCHA fit's convergence warning says about its setup exchange.

Since setup34 (:meth:`skfed.multitask._protocol._RoundProtocol.count_setup`)
no node solves before the server holds every node's setup message
(``gamma="scale"``: a node's count, sum and sum of squares; Nystroem: its
landmark rows or local k-means centres; ``warm_start``: its previous dual
variables).  Under heavy drops a node may never be up within
``max_rounds``: then no W-step runs, every dual variable stays 0 and the
fit returns the all-zero model (every decision value 0, a constant
prediction).  Or the setup completes late and only the last rounds solve.
:func:`setup_note` is the sentence the fit's :class:`ConvergenceWarning`
adds in either case, so neither passes as an ordinary slow fit: it names
the nodes whose setup never arrived and what their setup holds.
"""

import numpy as np

from .._node_ids import listed_labels


def _warm(est):
    """Whether the fit starts from the previous fit's dual variables (read
    before the fit stores its own; a warm start on other data raises)."""
    return bool(getattr(est, "warm_start", False)) and getattr(est, "_dual_state", None) is not None


def setup_parts(est, gamma_setup):
    """The parts of a fit's setup message up, in words (the estimator's
    settings that ask for them; ``gamma_setup``: the ``gamma="scale"``
    exchange takes place, see ``_RoundProtocol.add_gamma_setup``)."""
    parts = []
    if gamma_setup:
        parts.append("gamma='scale' needs each node's sample count, sum and sum of squares")
    if getattr(est, "approximation_", None) == "nystroem":
        parts.append("landmarks='kmeans' needs each node's local k-means centres"
                     if est.landmarks == "kmeans" else
                     "approximation='nystroem' needs each node's share of the landmark rows")
    if _warm(est):
        parts.append("warm_start=True needs each node's previous dual variables")
    return parts


def setup_note(protocol):
    """``""`` or ``"; ..."``: how the setup exchange held the fit's W-steps back.

    Parameters
    ----------
    protocol : _RoundProtocol
        After its rounds: ``setup_up`` (each node's setup bytes still owed
        up, 0 once sent), ``rounds_waited`` (rounds in which no node solved
        because a setup was missing) and ``gamma_setup``.

    Returns
    -------
    note : str
        Empty when no round waited for a setup.  When some node never sent
        its setup, says that no node ever solved, names those nodes and
        what their setup holds, and what the returned model is: the
        all-zero model, or with ``warm_start`` the previous fit's;
        otherwise how many rounds ran no W-step.
    """
    est = protocol.estimator
    owing = np.flatnonzero(protocol.setup_up > 0)
    waited = int(protocol.rounds_waited)
    if not owing.size and not waited:
        return ""
    parts = setup_parts(est, protocol.gamma_setup)
    what = f" ({'; '.join(parts)})" if parts else ""
    if owing.size:
        alone = protocol.gamma_setup and len(parts) == 1  # gamma's exchange is all of it
        advice = " (give gamma a number: no setup exchange)" if alone else ""
        if _warm(est):
            # the dual variables start at the previous fit's (_RoundProtocol.warm_start)
            result = ("every dual variable kept the previous fit's value (warm_start=True): "
                      "the returned model is the previous fit's, this fit changed no "
                      "node's dual variables")
        else:
            result = ("every dual variable stayed 0 and the returned model is the all-zero "
                      "model (every decision value 0, a constant prediction): do not use it")
        return (
            f"; NO NODE EVER SOLVED: in all {waited} rounds the server never held every "
            f"node's setup message{what}: node{'s' if owing.size > 1 else ''} "
            f"{listed_labels(est.nodes_, owing)} never sent "
            f"{'theirs' if owing.size > 1 else 'its setup'}, so {result}{advice}"
        )
    return (
        f"; the first {waited} rounds ran no W-step: no node solves before the server "
        f"holds every node's setup message{what}"
    )
