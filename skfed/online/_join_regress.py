"""What a regressor's join candidates add to their answers (issue 32).

A regressor's newcomer (:meth:`add_nodes` of the online regressors) takes
the network function ``f0`` of its component at its scale: every candidate
that answers in step 1 adds to its answer sums over its own samples of the
fit (``_network_fit_stats``).  When its component's network function is a
mean of functions (shrunk), it adds the three of them, ``sum w f0 y``,
``sum w f0^2`` and ``sum w`` (the newcomer multiplies ``f0`` by ``sum f0 y
/ sum f0^2``, and ``sum w`` weighs the prior).  When the fit's solve kept
the component's network function (``_network_solved``, which the root sent
down to every node of the component), the newcomer takes it at scale 1 and
uses ``sum w`` only: the candidate adds that one float64 (8 bytes instead
of 24; the two others were sent and never read until split28), and for
the newcomer's offset (:mod:`._join_offset`, ``add_nodes`` only) its two
offset sums (16 bytes more).
"""

import numpy as np

from ..network import payload_bytes
from ._join_offset import OFFSET_SUMS_BYTES

# Bytes a candidate adds to its answer: the three scale sums, or the weight
# sum alone when its component's network function was solved.
SCALE_SUMS_BYTES = payload_bytes(n_float64=3)
WEIGHT_SUM_BYTES = payload_bytes(n_float64=1)


def _solved(solved, component):
    """Whether the network function of ``component`` was solved (False when
    the fit kept no flags)."""
    return solved is not None and bool(solved[component])


def answer_extra_bytes(sums, solved, node_component, node, offsets=None):
    """Bytes candidate ``node`` adds to its answer (0 without sums: a
    classifier, or a fit that kept none); with the fit's ``offsets`` sums
    (an ``add_nodes`` of a fit that kept them), a candidate of a solved
    component adds those two too."""
    if sums is None:
        return 0
    if _solved(solved, node_component[node]):
        return WEIGHT_SUM_BYTES + (0 if offsets is None else OFFSET_SUMS_BYTES)
    return SCALE_SUMS_BYTES


def sent_scale_sums(sim, sums, answer, solved, node_component):
    """The sums the newcomer receives from the candidates ``answer`` (node
    order), one row each: ``(sum w f0 y, sum w f0^2, sum w)``, or ``(NaN,
    NaN, sum w)`` from a candidate of a solved component (the two were not
    sent).  A rogue candidate corrupts what it sends, one call per candidate
    in node order (the stream of one call over all of them when none is
    solved)."""
    rows = np.full((len(answer), 3), np.nan)
    for r, node in enumerate(answer):
        if _solved(solved, node_component[node]):
            rows[r, 2:] = sim.corrupt_value_rows(sums[[node], 2:], [node])[0]
        else:
            rows[r] = sim.corrupt_value_rows(sums[[node]], [node])[0]
    return rows


def sent_offset_sums(sim, offsets, answer, solved, node_component):
    """The offset sums ``(sum w r, sum w r^2)`` the newcomer receives from the
    candidates ``answer`` of a solved component (NaN from the others, which
    send none), a rogue's corrupted (after its scale sums)."""
    rows = np.full((len(answer), 2), np.nan)
    for r, node in enumerate(answer):
        if _solved(solved, node_component[node]):
            rows[r] = sim.corrupt_value_rows(offsets[[node]], [node])[0]
    return rows


def solved_prior(answered, sums, node_component, component):
    """The prior's weight of a newcomer that takes the solved network
    function of ``component`` at scale 1: the mean ``sum w`` of the
    candidates of that component that answered with a positive one (a
    rogue's complement is not); None when there are none."""
    answered = np.asarray(answered, dtype=np.intp)
    weight = sums[:, 2]
    use = (node_component[answered] == component) & (weight > 0)
    if not use.any():
        return None
    return float(weight[use].mean())
