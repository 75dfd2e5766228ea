"""The shared model's message encodings (skfed/multitask/_shared_messages.py)
against closed forms."""

import numpy as np
import pytest

from skfed.multitask._shared_messages import (
    error_report_bytes,
    quantize_float32_scale,
    quantized_vector_bytes,
    residual_norm_code,
)


@pytest.mark.parametrize("bits", [2, 4, 8, 16])
def test_quantize_float32_scale_matches_the_integer_code(bits):
    rng = np.random.RandomState(0)
    x = rng.randn(3, 11) * np.array([[1e-3], [1.0], [1e4]])
    x[1, :] = 0.0  # a zero vector decodes to zeros
    decoded = quantize_float32_scale(x, bits)
    L = 2 ** (bits - 1) - 1
    for row, out in zip(x, decoded):
        s = np.float32(np.abs(row).max())
        if float(s) < np.abs(row).max():
            s = np.nextafter(s, np.float32(np.inf))
        s = float(s)
        if s == 0.0:
            np.testing.assert_array_equal(out, 0.0)
            continue
        q = np.round(row / s * L)  # integers within the levels
        assert np.abs(q).max() <= L
        np.testing.assert_allclose(out, q * s / L, rtol=1e-15)
        assert np.abs(out - row).max() <= s / (2 * L) * (1 + 1e-12)
    # deterministic: the receiver decodes what the sender kept
    np.testing.assert_array_equal(decoded, quantize_float32_scale(x, bits))


def test_quantized_vector_bytes():
    # a float32 scale and d integers of b bits, packed to whole bytes
    assert quantized_vector_bytes(9, 8) == 4 + 9
    assert quantized_vector_bytes(10, 4) == 4 + 5
    assert quantized_vector_bytes(3, 3) == 4 + 2


def test_error_report_bytes():
    n_held = np.array([12, 7, 8, 12, 0])
    unit = np.array([True, True, True, False, True])
    out = error_report_bytes(6, n_held, unit, classification=True)
    # counts: a flag bit and 6 counts of ceil(log2(n_held + 1)) bits, 6 float32 losses
    expected = [24 + -(-(1 + 6 * 4) // 8), 24 + -(-(1 + 6 * 3) // 8),
                24 + -(-(1 + 6 * 4) // 8), 48 + 1, 24 + 1]
    np.testing.assert_array_equal(out, expected)
    # the squared loss: one float32 a candidate
    np.testing.assert_array_equal(error_report_bytes(6, n_held, unit, classification=False),
                                  np.full(5, 24))
    assert error_report_bytes(6, np.zeros(0, int), np.zeros(0, bool), True).shape == (0,)


def test_residual_norm_code_bounds_the_norm_in_one_byte():
    rng = np.random.RandomState(1)
    d, bits = 9, 8
    change = rng.randn(2, 50, d) * rng.gamma(1.0, size=(1, 50, 1))  # 2 problems, 50 nodes
    kept = quantize_float32_scale(change, bits)
    residual = np.sqrt(((change - kept) ** 2).sum(axis=(0, 2)))
    scales = np.abs(change).max(axis=2).astype(np.float32).astype(np.float64)
    scales = np.where(scales < np.abs(change).max(axis=2),
                      np.nextafter(scales.astype(np.float32), np.float32(np.inf)), scales)
    bound = np.sqrt(d * (scales**2).sum(axis=0)) / (2 * 127)
    decoded = residual_norm_code(residual, scales, d, bits)
    # a multiple of bound / 255, at least the norm and less than one step above
    code = decoded / bound * 255
    np.testing.assert_allclose(code, np.round(code), atol=1e-9)
    assert np.all(code <= 255)
    assert np.all(decoded >= residual)
    assert np.all(decoded - residual <= bound / 255 * (1 + 1e-9))
    assert np.all(residual <= bound)
    # nothing missing (a zero change): zero
    assert residual_norm_code(np.zeros(1), np.zeros((1, 1)), d, bits)[0] == 0.0


def test_residual_code_of_k_minus_one_rows_bounds_the_rebuilt_row():
    # Multinomial: 3 of 4 class rows travel under one float32 scale and the
    # receiver rebuilds the last as minus their sum; the bound the server
    # knows (from that one scale) covers all 4 rows: s sqrt(d (3 + 9)) / (2 L).
    from types import SimpleNamespace

    from skfed.multitask._multiclass import quantize_rows, residual_code, sent_scales

    rng = np.random.RandomState(2)
    d, bits, K = 5, 4, 4
    change = rng.randn(K, 40, d) * rng.gamma(1.0, size=(1, 40, 1))
    change -= change.mean(axis=0)  # class rows summing to zero
    state = SimpleNamespace(n_problems=K, multinomial=True)
    kept = quantize_rows(change, bits, state, quantize_float32_scale)
    scales = sent_scales(change, state)
    assert scales.shape == (1, 40)
    # the scale is the sent rows' largest value rounded up to float32
    top = np.abs(change[:-1]).max(axis=(0, 2))
    assert np.all(scales[0] >= top) and np.all(scales[0].astype(np.float32) == scales[0])
    np.testing.assert_allclose(scales[0], top, rtol=2**-23)
    residual = np.sqrt(((change - kept) ** 2).sum(axis=(0, 2)))
    levels = 2 ** (bits - 1) - 1
    bound = scales[0] * np.sqrt(d * (3 + 9)) / (2 * levels)
    decoded = residual_code(residual, scales, state, d, bits)
    code = decoded / bound * 255
    np.testing.assert_allclose(code, np.round(code), atol=1e-9)
    assert np.all(decoded >= residual)
    assert np.all(decoded - residual <= bound / 255 * (1 + 1e-9))
    assert np.all(residual <= bound)
    # one-vs-rest: one scale per class row, mtl2's code unchanged
    ovr = SimpleNamespace(n_problems=K, multinomial=False)
    np.testing.assert_array_equal(residual_code(residual, np.abs(change).max(axis=2), ovr, d, bits),
                                  residual_norm_code(residual, np.abs(change).max(axis=2), d, bits))
