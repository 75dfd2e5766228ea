"""How the numbers of the round messages travel: the byte model's sizes and
the quantized (``compression``) model vectors and updates of the primal modes.

See :mod:`skfed.multitask._protocol` for which message carries what.
"""

import numpy as np

from ..network import payload_bytes


_FLOAT = 8  # bytes of a float64 in the byte model


_INDEX = 4  # bytes of an int32 index


# compression="auto": bits per value of the primal modes' model vectors and
# updates (see quantize).
_AUTO_BITS = 8


def quantize(x, bits):
    """``x`` rounded to ``bits``-bit integers times one scale per vector.

    The message of a vector ``x`` (the last axis) is its scale ``s =
    max |x_j|`` (a float64) and the integers ``round(x_j L / s)``, ``L =
    2^(bits - 1) - 1``, packed ``bits`` bits each; the receiver decodes
    ``s q_j / L``.  Rounding is to the nearest integer (ties to even), so
    ``|x_j - decoded_j| <= s / (2 L)`` and the decoded vector is a
    deterministic function of ``x``: sender and receiver agree on it
    without any shared randomness.

    Parameters
    ----------
    x : ndarray of shape (..., d)
    bits : int
        From 2 to 32.

    Returns
    -------
    decoded : ndarray of shape (..., d)
        What the receiver holds.
    """
    return quantize_with_scale(x, bits, np.max(np.abs(x), axis=-1, keepdims=True))


def quantize_with_scale(x, bits, scale):
    """``x`` rounded to ``bits``-bit integers of a given per-vector ``scale``.

    The decoding of :func:`quantize` for any scale ``scale >= max |x_j|``
    (shape ``(..., 1)``; a zero scale decodes to zeros).
    """
    levels = float(2 ** (int(bits) - 1) - 1)
    safe = np.where(scale > 0.0, scale, 1.0)
    return np.rint(x * (levels / safe)) * (safe / levels)


def quantized_bytes(d, bits):
    """Bytes of one quantized vector of ``d`` values: a float64 scale and
    ``d`` integers of ``bits`` bits, packed (the byte model's
    :func:`~skfed.network.payload_bytes`)."""
    return payload_bytes(n_float64=1, n_bits=int(d) * int(bits))
