"""A newcomer's choice of passes over its samples, by cross-validation.

The held-out loss of every choice of passes for a batch of (newcomer,
fold) runs, in NumPy (:meth:`skfed.online._join._JoinMixin.add_nodes`).
"""

import numpy as np

from ._holdout import loss_arrays


def _cross_validated_passes(runs, choices, loss_name, eta, alpha, c, average,
                            threshold=None):
    """Mean held-out loss of every choice of passes, for a batch of runs.

    Every run is one fold of one newcomer: ``(K, start, neighbour_sum,
    degree, y, w, train, held)`` with ``K`` its kernel between its ``n``
    samples, ``start`` (n, n_out) its start's values there,
    ``neighbour_sum`` (n, n_out) the sum of its neighbours' values there,
    ``train`` the samples it steps on (arrival order, pass after pass) and
    ``held`` those it is scored on.  A step on sample ``s`` is the
    solver's, in function values at the ``n`` samples: ``omega = w_s
    loss'(f(x_s), y_s) + c (degree f(x_s) - sum_j f_j(x_s))`` and ``f <- (1
    - eta_t alpha) f - eta_t omega k(x_s, .)``; the run for ``E`` passes is
    the first ``E |train|`` steps of the longest one.  The value of ``E``
    passes is the last iterate's, or the mean of the iterates over the last
    ``average`` fraction of the ``E |train|`` steps.  Returns (n_runs,
    len(choices)) sums of ``w_s loss`` over the held-out samples.
    """
    B = len(runs)
    n = max(len(run[4]) for run in runs)
    n_out = runs[0][1].shape[1]
    K = np.zeros((B, n, n))
    V = np.zeros((B, n, n_out))
    S = np.zeros((B, n, n_out))
    y = np.zeros((B, n))
    w = np.zeros((B, n))
    held = np.zeros((B, n), dtype=bool)
    lengths = np.array([len(run[6]) for run in runs], dtype=np.intp)
    L = max(int(lengths.max()), 1)
    seq = np.zeros((B, L), dtype=np.intp)
    degree = np.zeros(B)
    for r, (Kr, start, nsum, deg, yr, wr, train, out) in enumerate(runs):
        m = len(yr)
        K[r, :m, :m], V[r, :m], S[r, :m] = Kr, start, nsum
        y[r, :m], w[r, :m], degree[r] = yr, wr, deg
        held[r, out] = True
        seq[r, :len(train)] = train
    E_max = max(choices)
    T = E_max * L
    steps = lengths * E_max  # every run's steps
    # The running sum of the iterates (after each step) is read at two
    # steps per choice and run (the first and the end of its average): it
    # is kept at those steps only, not at every one of the T steps.
    rows = np.arange(B)
    ends, firsts = [], []
    for E in choices:
        end = E * lengths  # steps of E passes
        if average > 0:
            first = np.floor((1 - average) * end).astype(np.intp)
        else:
            first = np.maximum(end - 1, 0)
        ends.append(end)
        firsts.append(first)
    wanted = np.concatenate(ends + firsts)  # (2 len(choices) B,), run = index % B
    owner = np.tile(rows, 2 * len(choices))
    order = np.argsort(wanted, kind="stable")
    kept = np.zeros((wanted.size, n, n_out))  # the running sum at each wanted step
    position = int(np.searchsorted(wanted[order], 0, side="right"))  # step 0: the sum 0
    running = np.zeros((B, n, n_out))
    start_values = V.copy()
    for t in range(T):
        active = t < steps
        if not active.any():
            break
        s = seq[rows, t % np.maximum(lengths, 1)]
        v = V[rows, s]
        _, grad = loss_arrays(loss_name, v, y[rows, s], threshold)
        omega = w[rows, s][:, None] * grad + c * (degree[:, None] * v - S[rows, s])
        step = eta(t)
        update = (1.0 - step * alpha) * V - step * K[rows, :, s][:, :, None] * omega[:, None, :]
        V = np.where(active[:, None, None], update, V)
        running = running + V
        while position < order.size and wanted[order[position]] == t + 1:
            kept[order[position]] = running[owner[order[position]]]
            position += 1
    scores = np.zeros((B, len(choices)))
    n_choices = len(choices)
    for e in range(n_choices):
        end, first = ends[e], firsts[e]
        count = np.maximum(end - first, 1)
        at_end = kept[e * B:(e + 1) * B]
        at_first = kept[(n_choices + e) * B:(n_choices + e + 1) * B]
        mean = (at_end - at_first) / count[:, None, None]
        values = np.where((end > 0)[:, None, None], mean, start_values)
        for r in range(B):
            out = np.flatnonzero(held[r])
            if len(out):
                loss, _ = loss_arrays(loss_name, values[r, out], y[r, out], threshold)
                scores[r, e] = np.dot(w[r, out], loss)
    return scores
