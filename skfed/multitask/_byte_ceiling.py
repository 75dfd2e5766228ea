"""The byte ceiling of the shared-component model at ``omega="auto"``: no
more bytes than the raw upload for a fit within reach of its certificate.

Pooling the data (every node sends its rows and targets once) is what a
federated fit must beat in bytes.  With ``omega="auto"`` the fits of
:func:`skfed.multitask._shared.fit_shared` that end the estimator (the
learned share's fit on small nodes, the refit at the selected share or
personal weight) stop before a round whose messages would take the
estimator's bytes, with what must still travel after it (the final
delivery and, on small nodes, the personal selection's reports), past
:func:`raw_upload_bytes`, once their certified gap is within
``CEILING_GAP_FACTOR`` of their tolerance (:func:`near_certified`); a fit
further from its optimum continues past it (on nodes of a few rows,
where certifying costs more than the rows).  A round is priced before it runs by
:func:`round_bound`: what it costs if every node still to be evaluated takes
part, with the messages :meth:`~skfed.multitask._shared._SharedFit._node_round`
counts.
"""

import numpy as np

from ..network import payload_bytes
from ._compression import _FLOAT, _INDEX


def raw_upload_bytes(X, dtype_bytes, n_nodes, header_bytes):
    """Bytes of the raw upload: every node's rows (``dtype_bytes`` a value)
    and targets (8 bytes each) in one message (as
    :func:`skfed.baselines.pooled_data_bytes`)."""
    return int(X.shape[0] * (X.shape[1] * dtype_bytes + _FLOAT) + n_nodes * header_bytes)


def byte_ceiling(raw_bytes, n_nodes, header_bytes):
    """The bytes the counter may reach before a fit's final message: the raw
    upload less that message (:func:`delivery_bytes`)."""
    return raw_bytes - delivery_bytes(n_nodes, header_bytes)


def delivery_bytes(n_nodes, header_bytes):
    """Bytes of a fit's final message: the index of the round every node keeps."""
    return n_nodes * (_INDEX + header_bytes)


def report_bound(n_nodes, n_candidates, header_bytes):
    """An upper bound on the personal selection's reports
    (:func:`~skfed.multitask._shared_messages.error_report_bytes`: at most two
    float32 and a bit per candidate and node)."""
    return n_nodes * (payload_bytes(n_float32=2 * n_candidates, n_bits=1) + header_bytes)


def round_bound(fit, pending, stale):
    """Bytes of the next round of ``fit`` if every ``pending`` node takes part.

    Per node: down, the change of ``w0`` (float64 if ``stale``, else as
    the round sends it), ``mu`` when it may change (every round while the
    share is learned, else where the node does not hold it), the bytes
    carried from a previous fit, and a header; up, the change of ``u_t``,
    the report and a header.  The setup messages not yet counted are added
    (all of them in the first round; under drops, those still to come).
    """
    protocol = fit.protocol
    header = protocol.counter.header_bytes
    idx = np.flatnonzero(pending)
    stale = stale[idx]
    down = np.where(stale, fit._vector_bytes(False), fit._vector_bytes(True))
    changing = np.isnan(fit.node_mu[idx])
    if fit.fixed is None and fit.personal_mu is None:
        changing[:] = True
    down = down + np.where(changing, fit._mu_bytes(), 0) + fit.carry[idx] + header
    up = fit._vector_bytes(True) + fit._report_payload() + header
    total = int(down.sum()) + idx.size * int(up)
    for part in (protocol.setup_up, protocol.setup_down):  # the setup not yet counted
        total += int(part.sum()) + int(np.count_nonzero(part)) * header
    return total


def ceiling_note(raw_bytes, sent):
    """The ConvergenceWarning's words when the ceiling stopped the fit
    (``sent``: the estimator's bytes; more than ``raw_bytes`` when the fit
    was not yet within reach of its certificate at the raw upload, on nodes
    of a few rows)."""
    if sent > raw_bytes:
        return (f"it stopped within {CEILING_GAP_FACTOR:g} times tol, having sent {sent} "
                f"bytes, more than the raw upload's {raw_bytes} (what pooling the data "
                f"would cost): on nodes this small certifying costs more than their rows")
    return (f"it stopped before the raw upload's bytes ({raw_bytes} bytes, what "
            f"pooling the data would cost), within {CEILING_GAP_FACTOR:g} times tol")


# A fit stops at the ceiling only when its certified gap is within this
# factor of its tolerance: its best model is then within a hair of the
# certified one (measured where the ceiling binds, benchmarks/
# multitask_multiclass.py --seeds 8 25 --families small and
# multitask_bytes_small.py --no-baselines --seeds 7 9: gaps of 1.0e-3 to
# 4.9e-3 at tol=1e-3).  A fit further from its optimum continues past the
# raw upload: stopping there returned models far under pooling (200 binary
# nodes of 4 rows, tests/test_review3_mtl_ceiling.py: 0.718 against pooled
# LogisticRegression's 0.854 and 0.858 when run to tol).
CEILING_GAP_FACTOR = 10.0


def near_certified(gap, tol, joint):
    """Whether a certified ``gap`` is within ``CEILING_GAP_FACTOR`` times the
    relative tolerance ``tol`` of the objective ``joint``."""
    return bool(gap <= CEILING_GAP_FACTOR * tol * abs(joint))
