"""Multiclass strategies of the multi-task classifier: the multinomial loss or one-vs-rest.

:class:`_MulticlassMixin` resolves ``multi_class`` and hands the fit its
Cython loss (:class:`~skfed._core._multitask_fast.Multinomial`, whose
dual variable of a sample is a vector over the classes, or the binary
loss of every one-vs-rest problem); see the user guide's "Multiclass"
section and ``benchmarks/multitask_multiclass.py``.
"""

import numpy as np

from .._core._multitask_fast import Multinomial
from ._compression import quantize, quantized_bytes
from ._shared_messages import float32_scale, residual_norm_code


def rows_sent(state):
    """Class rows of a model vector or update that travel in a round message.

    Under the multinomial loss a sample's dual variables ``g_i = e_y - pi``
    sum to zero over the classes (``pi`` is in the simplex), so every dual
    vector ``v_t = sum_i alpha_i x_i / n_t``, every ``w_t = V Sigma /
    lambda`` and every shared model (the L-BFGS iterates are combinations of
    such vectors) has class rows that sum to zero: the first ``K - 1`` rows
    travel and the receiver forms the last as minus their sum (the softmax
    is invariant to a common shift of the scores, so the model is the same
    one).  ``state.multinomial`` is set by the round protocol
    (:meth:`~skfed.multitask._protocol._RoundProtocol.begin`) or the shared
    model's fit.

    Parameters
    ----------
    state : _PrimalMessages
        Holds ``n_problems`` and ``multinomial``.

    Returns
    -------
    int
    """
    n_problems = state.n_problems
    if getattr(state, "multinomial", False) and n_problems > 1:
        return n_problems - 1
    return n_problems


def _sent_block(x):
    """The first ``K - 1`` class rows of ``x`` (``(K, ..., d)``) as one
    vector per message: shape ``(..., (K - 1) d)``."""
    rows = np.moveaxis(x[:-1], 0, -2)  # (..., K - 1, d)
    return rows.reshape(rows.shape[:-2] + (-1,))


def quantize_rows(x, bits, state, quantizer=quantize):
    """``quantizer(x, bits)`` as the receiver decodes it (``x``: (n_problems, ..., d)).

    Without the multinomial loss every class row is one quantized vector
    (``quantizer(x, bits)`` itself).  Under it (:func:`rows_sent`) the first
    ``K - 1`` class rows are quantized as ONE vector (one scale) and sent,
    and the last is minus their decoded sum: the decoded rows sum to zero
    exactly, and the last row's rounding is the sum of the others' (the
    error feedback of the compressed protocol carries it as any other
    rounding).

    Parameters
    ----------
    x : ndarray of shape (n_problems, ..., d)
    bits : int
    state : object
        Holds ``n_problems`` and ``multinomial`` (:func:`rows_sent`).
    quantizer : callable, default=:func:`~skfed.multitask._compression.quantize`
        ``quantizer(v, bits)`` quantizes each vector of the last axis of
        ``v`` with one scale (the linear modes' float64 scale, or the shared
        model's :func:`~skfed.multitask._shared_messages.quantize_float32_scale`).

    Returns
    -------
    decoded : ndarray of the shape of ``x``
    """
    if rows_sent(state) == state.n_problems:
        return quantizer(x, bits)
    out = np.empty_like(x)
    rows = np.moveaxis(x[:-1], 0, -2)
    flat = quantizer(_sent_block(x), bits)
    out[:-1] = np.moveaxis(flat.reshape(rows.shape), -2, 0)
    out[-1] = -out[:-1].sum(axis=0)
    return out


def quantized_rows_bytes(state, d, bits, vector_bytes=quantized_bytes):
    """Bytes of one quantized model vector or update of every class row.

    ``vector_bytes(n, bits)`` is the bytes of one quantized vector of ``n``
    values (one scale): ``n_problems`` vectors of ``d`` values, or under the
    multinomial loss one vector of ``(K - 1) d`` values.
    """
    if rows_sent(state) == state.n_problems:
        return state.n_problems * vector_bytes(d, bits)
    return vector_bytes(rows_sent(state) * d, bits)


def sent_scales(x, state):
    """The float32 scales the receiver gets with ``quantize_rows(x, bits,
    state, quantize_float32_scale)``: shape ``(n_problems, ...)``, or under
    the multinomial loss ``(1, ...)`` (one scale for the ``K - 1`` rows)."""
    if rows_sent(state) == state.n_problems:
        return float32_scale(x)
    return float32_scale(_sent_block(x))[None]


def residual_code(residual_norm, scales, state, d, bits):
    """:func:`~skfed.multitask._shared_messages.residual_norm_code` of the
    rows as they travel: the bound the server knows from the scales it
    received (:func:`sent_scales`) covers, under the multinomial loss, the
    ``K - 1`` rows of one scale and the rebuilt last row (its rounding,
    minus the sum of theirs, up to ``K - 1`` times theirs per coordinate)."""
    if rows_sent(state) == state.n_problems:
        return residual_norm_code(residual_norm, scales, d, bits)
    return residual_norm_code(residual_norm, scales, d, bits,
                              rows_per_scale=rows_sent(state), rebuilt_row=True)


def softmax_proba(scores):
    """Row-wise softmax of ``scores`` (n_samples, n_classes), stabilized."""
    scores = scores - scores.max(axis=1, keepdims=True)
    p = np.exp(scores)
    return p / p.sum(axis=1, keepdims=True)


class _MulticlassMixin:
    """``multi_class`` of :class:`~skfed.multitask.FederatedMultiTaskClassifier`."""

    def _resolve_multi_class(self, n_problems):
        """``multi_class`` resolved for ``n_problems`` rows of targets (refuses
        an explicit ``"multinomial"`` where it cannot run)."""
        if n_problems < 2 or self.multi_class == "ovr":
            return "ovr"
        reasons = []
        if self.loss != "logistic":
            reasons.append(f"loss='logistic' (got loss={self.loss!r})")
        if not self._primal_mode():
            reasons.append(
                f"a primal mode, kernel='linear' or an approximation (got kernel="
                f"{self.kernel!r} in the exact kernel mode)")
        if self.privacy is not None:
            reasons.append("no privacy (privacy= releases one-vs-rest problems)")
        if not reasons:
            return "multinomial"
        if self.multi_class == "multinomial":
            raise ValueError(
                "multi_class='multinomial' needs " + " and ".join(reasons)
                + "; use multi_class='ovr' or 'auto'."
            )
        return "ovr"

    def _loss_object(self, n_problems):
        """The Cython loss of the fit (called by ``_fit`` once the mode is
        resolved); sets ``multi_class_``."""
        resolved = self._resolve_multi_class(n_problems)
        previous = self.__dict__.get("multi_class_")
        if (self.warm_start and previous is not None and previous != resolved
                and getattr(self, "_dual_state", None)):
            raise ValueError(
                f"warm_start=True continues a fit with multi_class_={previous!r}, whose dual "
                f"variables do not fit multi_class={self.multi_class!r} (resolved to "
                f"{resolved!r}); fit with warm_start=False."
            )
        self.multi_class_ = resolved
        if resolved == "multinomial":
            return Multinomial()
        from ._state import _LOSSES  # (_state imports this module)
        return _LOSSES[self.loss]()

    def _fitted_loss(self):
        """The Cython loss of the fitted model (for nodes that join later)."""
        if getattr(self, "multi_class_", "ovr") == "multinomial":
            return Multinomial()
        from ._state import _LOSSES
        return _LOSSES[self.loss]()

    def _line_search(self, dp_spec):
        """The learned-Omega W-step's exact line search needs the binary
        conjugates' coefficients; under the multinomial loss the steps are
        added (``aggregation="auto"``) or the setting is refused."""
        if getattr(self, "multi_class_", None) == "multinomial":
            if self.aggregation == "line_search":
                raise ValueError(
                    "aggregation='line_search' searches along the binary losses' conjugates; "
                    "with multi_class_='multinomial' use aggregation='add' or 'auto' (or "
                    "multi_class='ovr')."
                )
            return False
        return super()._line_search(dp_spec)

    def _has_proba(self):
        return self.loss == "logistic"

    def _proba(self, X, groups):
        """Class probabilities: the logistic function of a binary score, the
        softmax of the multinomial model's scores, or the one-vs-rest
        logistic probabilities normalized to sum to one."""
        scores = self._raw_decision(X, groups)
        if scores.shape[1] == 1:
            # sigmoid of each side, no overflow; each class exact where it is
            # tiny (1 - p would round it to 0)
            s = scores[:, 0]
            return np.column_stack([np.exp(-np.logaddexp(0.0, s)), np.exp(-np.logaddexp(0.0, -s))])
        if getattr(self, "multi_class_", "ovr") == "multinomial":
            return softmax_proba(scores)
        # log-sigmoids shifted by the row's largest before exp: the ratios the
        # normalization keeps, without 0 / 0 when every sigmoid underflows
        q = -np.logaddexp(0.0, -scores)
        p = np.exp(q - q.max(axis=1, keepdims=True))
        return p / p.sum(axis=1, keepdims=True)
