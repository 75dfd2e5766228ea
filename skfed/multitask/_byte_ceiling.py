"""The byte ceiling of the shared-component model at ``omega="auto"``: no
more bytes than the raw upload, except that the first evaluation of every
node always runs (on nodes of a row or two it alone can cost more than
their rows: the ConvergenceWarning says so).

Pooling the data (every node sends its rows and targets once) is what a
federated fit must beat in bytes.  With ``omega="auto"`` the fits of
:func:`skfed.multitask._shared.fit_shared` that end the estimator (the
learned share's fit on small nodes, the refit at the selected share or
personal weight) stop before a round whose messages would take the
estimator's bytes, with what must still travel after it (the final
delivery and, on small nodes, the personal selection's reports), past
:func:`raw_upload_bytes`.  A round is priced before it runs by
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
    the report and a header.  The setup messages are added in the
    protocol's first round.
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
    if protocol.round == 0:
        for part in (protocol.setup_up, protocol.setup_down):
            total += int(part.sum()) + int(np.count_nonzero(part)) * header
    return total


def ceiling_note(raw_bytes, sent):
    """The ConvergenceWarning's words when the ceiling stopped the fit
    (``sent``: the estimator's bytes; more than ``raw_bytes`` only when one
    round of every node costs more than the raw upload, nodes of a row or two)."""
    if sent > raw_bytes:
        return (f"it stopped at its first evaluations, which alone sent {sent} bytes, more "
                f"than the raw upload's {raw_bytes} (what pooling the data would cost): "
                f"on nodes this small one round costs more than a node's rows")
    return (f"it stopped before the raw upload's bytes ({raw_bytes} bytes, what "
            f"pooling the data would cost; omega='auto' never sends more)")
