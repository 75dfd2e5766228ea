"""What a MOCHA rehearsal's reports cost, and the centres a federation can afford.

A size's rehearsal (:mod:`skfed.multitask._rehearsal`) costs each of its
rehearsing nodes one request and one report.  With the share selection's
centres (:func:`~skfed.multitask._rehearsal.choose_centre`) an ordinary
draw reports its errors at every scale for every centre, twice (on all
its held-out rows and on those of the selection's last fold): with ``C``
centres ``2 C`` times the ``5`` values of one centre.  On a federation of
a few nodes that converges in a few rounds that is more than the fit's
messages: 8 sites of ``benchmarks/user37_small_federation_join.py``, 7
fitted with 4 centres, 14 draws of 40 float64 each, 4.5 kB of a MOCHA
regressor join's 4.9 kB against a refit of 13-16 kB.

A size's reports with the centres therefore cost at most
:data:`REHEARSAL_BYTE_SHARE` of the fit's bytes (requests, reports and
their headers: :func:`rehearsal_bytes`): in float64 if they fit; else
each draw's float reports travel as one float64 scale, its largest, and
8-bit integers of it (:data:`REPORT_BITS`; the server decides on what it
decodes, :func:`quantized_reports`), if those fit; else the size is
rehearsed around the fitted ``w_0`` alone, the size's rule without a
share selection (its newcomers solve toward ``w_0``; a draw reports its 5
errors).  A classifier's nodes whose samples weigh 1 report counts in a
few bits already and are not rounded.  The share is the issue's budget for
a whole join, a tenth of a refit, which the fit's bytes stand for (the
federation's own measure of what it can hold, the same at any number of
nodes); the fitted nodes' gate (:mod:`skfed.multitask._join_neighbours`)
has its own.  The choice is made when the size is first rehearsed, from
the fit's bytes, the draws and the network's header: the same whichever
join asks.  A rehearsal whose fit's bytes are unknown (``fit_bytes``
None: :meth:`~skfed.multitask._rehearsal.Rehearsal.table`) reports in
float64.

Measured (``benchmarks/user37_small_federation_join.py --rows "MOCHA
regressor" --sites 4 8 12 20 --ks 5 10 20``, seeds 0-4): a join's bytes
over a refit's, means over the seeds at each ``k``, 0.50-0.70 /
0.31-0.34 / 0.28-0.30 / 0.26-0.31 -> 0.13-0.18 / 0.067-0.075 /
0.059-0.062 / 0.054-0.064 at 4 / 8 / 12 / 20 sites (8 sites: at most
0.097 on every seed and ``k``), scores the same but on 7 of 60 seed-rows
(R^2 within -0.007 / +0.029; means within -0.0014 / +0.006); around
``w_0`` alone instead they lost 0.003-0.026 at ``k = 5, 10``.  The
table's federations (HAR, Landmine, School, rotated moons: reports at
most 0.025 of their fits' bytes, or one centre, or the gate's centres)
join hash for hash as before.
"""

import numpy as np

from ..network import index_bits, payload_bytes
from ._compression import _FLOAT, quantize_with_scale
from ._rehearsal_centres import CENTRE_BYTES

__all__ = ["REHEARSAL_BYTE_SHARE", "REPORT_BITS", "centres_affordable", "quantized_reports",
           "rehearsal_bytes", "report_messages"]

# The most a size's rehearsal reports (requests, reports, headers) may cost
# with the share selection's centres, as a share of the fit's bytes.
REHEARSAL_BYTE_SHARE = 0.1
# The bits a float report may be rounded to (most first) when its float64
# do not fit the share.
REPORT_BITS = (8,)


def report_messages(rehearsal, asked, float_bytes):
    """The messages of collecting draw sets ``asked`` (see
    :meth:`~skfed.multitask._rehearsal.Rehearsal.collect`).

    Returns
    -------
    nodes : ndarray of int
        The rehearsing nodes asked.
    requests, reports : ndarray of int
        Each one's request and report payload (bytes).
    up : ndarray of int
        With the gate open, each one's upload of its kept draws' feature
        means (bytes; 0 for a node with none), else None.
    """
    from ._rehearsal import REHEARSAL_SCALES, REHEARSAL_SIZES

    n_scales = len(REHEARSAL_SCALES)
    n = rehearsal.n_nodes
    sizes = np.zeros(n, dtype=np.int64)
    floats = np.zeros(n, dtype=np.int64)
    bits = np.zeros(n, dtype=np.int64)
    centre_bits = np.zeros(n, dtype=np.int64)
    placed = np.zeros(n, dtype=np.int64)  # kept draws centred by the gate
    quantized = np.zeros(n, dtype=np.int64)  # bytes of rounded float reports
    around = rehearsal.around
    for item in asked:
        one = isinstance(item, tuple)
        a = item[1] if one else item
        k, owners, perms = rehearsal.draws[a]
        kept = rehearsal.one_class_kept[a][0] if one else rehearsal.kept[a]
        n_centres = rehearsal.n_centres(a)
        bits_a = rehearsal.report_bits.get(a)
        np.add.at(sizes, np.unique(owners), 1)
        if one and n_centres > 1:  # which centre its draws solve toward
            np.add.at(centre_bits, np.unique(owners), index_bits(n_centres))
        if around is not None:
            np.add.at(placed, owners[kept], 1)
            if not one and rehearsal.one_class_kind:  # a bit: whether it holds two classes
                np.add.at(bits, owners[kept], 1)
        for j in np.flatnonzero(kept).tolist():
            t = int(owners[j])
            n_held = len(perms[j]) - k
            # an ordinary draw is scored at every centre, a one-class draw
            # at its size's centre only; with more than one centre an
            # ordinary draw also reports every centre's errors on its
            # held-out rows of the selection's last fold (the selected
            # candidate's fold w0 in place of w0), as a count: with their
            # number
            reports = n_scales * (1 if one else n_centres)
            if not one and n_centres > 1:
                reports *= 2
            if not rehearsal.count_reports[t] and bits_a is not None and not one:
                # rounded: one float64 scale and bits_a bits a report
                quantized[t] += float_bytes + -(-reports * bits_a // 8)
            elif not rehearsal.count_reports[t]:
                floats[t] += reports
            elif one:
                # its class, its held-out samples per class, then per scale
                # its misclassified ones per class
                held = rehearsal.one_class_kept[a][1][j]
                bits[t] += (index_bits(len(held)) + len(held) * index_bits(n_held + 1)
                            + n_scales * sum(index_bits(int(h) + 1) for h in held))
            else:
                bits[t] += (reports + int(n_centres > 1)) * index_bits(n_held + 1)
    nodes = np.flatnonzero(sizes).astype(np.intp)
    size_bits = index_bits(len(REHEARSAL_SIZES)) + int(rehearsal.one_class_kind)
    requests = np.array([payload_bytes(n_bits=int(s) * size_bits + int(c))
                         for s, c in zip(sizes[nodes], centre_bits[nodes])], dtype=np.int64)
    reports = (floats[nodes] * float_bytes + quantized[nodes]
               + np.array([payload_bytes(n_bits=int(b) + 1) for b in bits[nodes]],
                          dtype=np.int64))
    up = None
    if around is not None:
        # with the gate open: up its kept draws' feature means, then their
        # centres with the request (skfed.multitask._rehearsal_centres)
        P, _, d = around.W.shape
        up = placed[nodes] * around.n_features * CENTRE_BYTES
        requests = requests + placed[nodes] * P * d * CENTRE_BYTES
    return nodes, requests, reports, up


def rehearsal_bytes(rehearsal, asked, float_bytes, header_bytes):
    """Every byte of collecting draw sets ``asked``: payloads and one header
    a message (the request, the report, and with the gate open the upload
    of a node that has one)."""
    nodes, requests, reports, up = report_messages(rehearsal, asked, float_bytes)
    total = int(requests.sum() + reports.sum()) + 2 * len(nodes) * int(header_bytes)
    if up is not None:
        total += int(up.sum()) + int(np.count_nonzero(up)) * int(header_bytes)
    return total


def centres_affordable(rehearsal, a, float_bytes=_FLOAT):
    """How draw set ``a`` reports with the share selection's centres:
    ``(True, None)`` (float64) if that costs at most
    :data:`REHEARSAL_BYTE_SHARE` of the rehearsal's ``fit_bytes`` (None:
    no limit), else ``(True, b)`` for the most bits ``b`` of
    :data:`REPORT_BITS` that does, else ``(False, None)``: no centres (see
    the module)."""
    if rehearsal.fit_bytes is None:
        return True, None
    budget = REHEARSAL_BYTE_SHARE * rehearsal.fit_bytes
    rehearsal.centred[a] = True
    try:
        for bits in (None, *REPORT_BITS):
            rehearsal.report_bits[a] = bits
            if rehearsal_bytes(rehearsal, [a], float_bytes, rehearsal.header_bytes) <= budget:
                return True, bits
    finally:
        del rehearsal.centred[a]
        del rehearsal.report_bits[a]
    return False, None


def quantized_reports(errors, bits, floats):
    """What the server decodes of the draws' float reports sent in ``bits``
    bits: per draw (a column of every array of ``errors``, all its reports
    together) one float64 scale, its largest finite value, and each report
    rounded to a ``bits``-bit integer of it
    (:func:`~skfed.multitask._compression.quantize_with_scale`); the
    columns of draws whose node reports counts (``floats`` False) are
    left as they are."""
    stacked = np.concatenate(errors, axis=0)
    finite = np.isfinite(stacked)
    scale = np.max(np.where(finite, np.abs(stacked), 0.0), axis=0, keepdims=True)
    rounded = quantize_with_scale(np.where(finite, stacked, 0.0).T, bits, scale.T).T
    decoded = np.where(finite, rounded, stacked)
    decoded = np.where(np.asarray(floats, dtype=bool)[None, :], decoded, stacked)
    return np.split(decoded, np.cumsum([E.shape[0] for E in errors])[:-1], axis=0)
