"""How the shared-component model's round messages are encoded, and their bytes.

The shared model (:mod:`skfed.multitask._shared`) sends, each round, one
model vector (or its change) each way per node.  On small nodes a round
costs a sizeable part of the node's raw upload (nodes of 10 rows and 8
features: about a ninth), so every field is sent at the precision it needs:

- quantized vectors (``compression``) carry their scale in float32
  (:func:`quantize_float32_scale`): the integers' own rounding, ``1 / (2^bits
  - 2)`` of the scale, is far above float32's ``2^-24``;
- the number of the round whose point a node keeps, and the candidate a
  refit starts from, are int32 indices (:data:`~skfed.multitask._compression._INDEX`);
- the personal selection's validation errors, on nodes whose held-out
  samples all weigh 1, are counts of misclassified samples packed in
  ``ceil(log2(n_held + 1))`` bits each (:func:`error_report_bytes`).
"""

import numpy as np

from ..network import index_bits, payload_bytes
from ._compression import quantize_with_scale

_FLOAT32 = 4


def quantize_float32_scale(x, bits):
    """``x`` rounded to ``bits``-bit integers times one float32 scale per vector.

    As :func:`~skfed.multitask._compression.quantize`, with the scale
    ``s = max |x_j|`` rounded up to float32 (so ``|x_j| <= s`` still holds
    and every integer is within ``L = 2^(bits - 1) - 1``): the receiver
    decodes ``s q_j / L`` with the float32 ``s`` it received, and
    ``|x_j - decoded_j| <= s / (2 L)``.  Deterministic: sender and receiver
    agree on the decoded vector.

    Parameters
    ----------
    x : ndarray of shape (..., d)
    bits : int
        From 2 to 32.

    Returns
    -------
    decoded : ndarray of shape (..., d)
    """
    return quantize_with_scale(x, bits, float32_scale(x)[..., None])


def quantized_vector_bytes(d, bits):
    """Bytes of one vector of :func:`quantize_float32_scale`: a float32 scale
    and ``d`` integers of ``bits`` bits, packed."""
    return payload_bytes(n_float32=1, n_bits=int(d) * int(bits))


def error_report_bytes(n_candidates, n_held, unit_weights, classification):
    """Bytes of each node's report of the personal selection.

    Per candidate, the node's validation error over its held-out samples
    and, for a classifier, its validation loss (the tie-breaker) in float32;
    for the squared loss one float32 (the error is twice the loss).  A
    classifier's error is a float32, or, on a node whose held-out samples
    all weigh 1 (``unit_weights``: the error counts misclassified samples),
    an integer in ``[0, n_held]`` packed in
    :func:`~skfed.network.index_bits` ``(n_held + 1)`` bits (the server knows
    ``n_held``: the folds are dealt from the node's size); one bit tells
    which.

    Parameters
    ----------
    n_candidates : int
    n_held : ndarray of int
        Every reporting node's number of held-out samples over the folds run.
    unit_weights : ndarray of bool
        Whether the node's held-out samples all weigh 1.
    classification : bool

    Returns
    -------
    bytes : ndarray of int64
    """
    n_held = np.asarray(n_held, dtype=np.int64)
    if not classification:
        return np.full(n_held.shape, payload_bytes(n_float32=n_candidates), dtype=np.int64)
    unit_weights = np.asarray(unit_weights, dtype=bool)
    out = np.full(n_held.shape, payload_bytes(n_float32=2 * n_candidates, n_bits=1),
                  dtype=np.int64)
    for k in np.unique(n_held[unit_weights]):
        bits = 1 + n_candidates * index_bits(int(k) + 1)
        out[unit_weights & (n_held == k)] = payload_bytes(n_float32=n_candidates, n_bits=bits)
    return out


# Bits of the code of a node's quantization residual norm (a fraction of the
# bound the server knows, rounded up).
RESIDUAL_BITS = 8


def float32_scale(x):
    """The float32 scale :func:`quantize_float32_scale` sends with each
    vector of ``x`` (``max |x_j|`` rounded up to float32), as float64."""
    scale = np.max(np.abs(x), axis=-1)
    scale32 = np.asarray(scale, dtype=np.float32)
    low = scale32.astype(np.float64) < scale
    scale32[low] = np.nextafter(scale32[low], np.float32(np.inf))
    return scale32.astype(np.float64)


def residual_norm_code(residual_norm, scales, d, bits, rows_per_scale=1, rebuilt_row=False):
    """A node's quantization residual norm as the server decodes it.

    After a quantized change of scale ``s_k`` per problem, each coordinate
    of what the server's copy misses is at most ``s_k / (2 L)``, so its norm
    is at most ``bound = sqrt(d sum_k s_k^2) / (2 L)``, which the server
    knows from the scales it received.  When one scale covers ``r =
    rows_per_scale`` rows of ``d`` values and a further row is rebuilt as
    minus their sum (``rebuilt_row``: the multinomial loss's last class
    row, :func:`~skfed.multitask._multiclass.quantize_rows`), that row's
    coordinates miss at most ``r s / (2 L)``, and ``bound = s sqrt(d (r +
    r^2)) / (2 L)``.  The node sends the norm as the fraction ``ceil(255
    norm / bound) / 255`` of it (:data:`RESIDUAL_BITS` bits): the decoded
    value is at least the norm, so the dual bound that adds it stays a
    bound.

    Parameters
    ----------
    residual_norm : ndarray of shape (n_nodes,)
    scales : ndarray of shape (n_scales, n_nodes)
        The float32 scales of the nodes' quantized changes.
    d : int
    bits : int
        The quantization's bits.
    rows_per_scale : int, default=1
        Rows of ``d`` values each scale covers.
    rebuilt_row : bool, default=False
        Whether a further row, minus the sum of the scale's rows, is
        rebuilt by the receiver (and counted in ``residual_norm``).

    Returns
    -------
    decoded : ndarray of shape (n_nodes,)
    """
    levels = 2 ** (int(bits) - 1) - 1
    top = 2**RESIDUAL_BITS - 1
    r = int(rows_per_scale)
    coordinates = d * (r + r * r if rebuilt_row else r)
    bound = np.sqrt(coordinates * np.sum(np.asarray(scales) ** 2, axis=0)) / (2 * levels)
    safe = np.where(bound > 0, bound, 1.0)
    code = np.minimum(np.ceil(np.asarray(residual_norm) * (top / safe) * (1 + 1e-12)), top)
    return np.where(bound > 0, code * safe / top, 0.0)
