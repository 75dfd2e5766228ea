"""The server's second stage of the selection vote: features explained by a selected neighbour.

A client with fewer than ``d + 4`` samples tests each feature given its
few closest features in its own rows (or marginally).  When ``d`` is large
against its rows, those closest features are chance correlations, so a
feature outside the support that is correlated with a support feature (its
neighbour on a Toeplitz design) is tested nearly marginally: it is selected
above the null rate ``q0`` and, with enough clients, becomes significant
(issue 29: ``d = 1000``, 10,000 clients of 10 samples).  No count of
controls fixes it.  The server lacks one thing, the features' correlation,
and that comes from ``X`` alone.

**The sketch.**  Under the selection vote (``alpha="auto"``, ``threshold=
"auto"``, no finite privacy budget, every feature reported) with very wide
clients (``d > 20 median(n_i)``, :func:`skfed.support._rules.wide_clients`,
where the small-client rule's controls are chance correlations) every
client that runs the small-client rule (``n_i < d + 4``, ``d + 3``
without intercept: public) also sends, in its one message, ``d`` more
bits: the
signs of ``v_i = sum_t a_t (x_t - xbar_i)`` over its rows, ``a_t =
u_t sqrt(w_t)`` with ``u_t`` standard normal, a hash of the fit's seed
(from ``random_state``), the client's node index and the row's position
(:func:`sketch_coefficients`: a client computes its own alone, on any
engine), ``xbar_i`` its weighted means (0 without intercept).  The
coefficients of the rows sum to zero, so on Gaussian rows of covariance
``Sigma_i`` it is ``v_i ~ N(0, c Sigma_i)``, free of ``y``, and two
features' signs agree with probability ``1/2 + arcsin(rho_jl) / pi``
(Sheppard).  Over the ``g_s`` small clients::

    m_jl   = mean_i s_ij s_il                  (s = +-1 signs)
    rho_jl = sin(pi / 2 m_jl)                  (standard error about 1.6 / sqrt(g_s))

**The stage.**  After the binomial test (stage one, unchanged) the server
re-tests every selected feature ``j`` against the highest rate a feature
outside the support reaches from one selected ``l`` alone.  A nearly
marginal test of such a ``j`` has noncentrality ``rho_jl delta_l``, with
``delta_l`` the noncentrality of ``l``'s own test, read off ``l``'s vote
fraction among the small clients through the two-sided normal test at
``auto_z``::

    F(delta)  = Phi(-z - delta) + Phi(-z + delta)            (F(0) = q0)
    delta_l   = F^{-1}((f_l - b_s) / (1 - b_s))               (0 at or below q0)
    m'_jl     = max(0, (|m_jl| - b) / (1 - b)),  b = min(1, beta g / g_s)
    m"_jl     = min(1, (|m_jl| + b) / (1 - b))
    bound_j   = max_l sin(pi / 2 m"_jl) delta_l      over selected l != j with
                m'_jl > Phi^{-1}(1 - fwer / (2 d^2)) / sqrt(g_s)
    ref_j     = (1 - beta) ((1 - f) F(bound_j) + f q0) + beta
    keep j    if P(Binomial(n_j, ref_j) >= votes_j) <= fwer / d

Pass two then re-tests a kept feature ``j`` that is weaker than each of
two or more linked kept features (``delta_j < delta_l``; a feature between
two support features of the same sign, whose marginal signal is the sum of
theirs) against their summed effect, ``bound_j = sum_l sin(pi / 2 m"_jl)
delta_l`` over those ``l`` (kept after the first pass), in the same
binomial test.  A support feature between two weaker ones is never
re-tested this way; one weaker than both of its linked support
neighbours can be removed (a cost in power, measured in
``benchmarks/support_neighbour_sketch.py``'s docstring).

``f`` is the share of the answering clients that run the OLS test (their
features outside the support are selected at ``q0``), ``beta`` the rogue
tolerance, ``n_j`` the feature's reports, ``b`` and ``b_s = min(1,
beta g / n_s)`` the largest shares of rogue rows among the ``g_s``
sketches and the ``n_s`` small answering clients (``g`` answering
clients; all rogues may be small): ``m'`` and ``m"`` are the smallest and
the largest honest agreement the observed one allows, so forged sketches
can neither link two independent support features nor weaken the link
that explains a neighbour (which, under the marginal test of very wide
clients, stage one selects: the stage is what keeps it out), and
``delta_l`` is read off the honest small clients' rate (the stage does
not run when ``b`` or ``b_s`` is 1).
The excess of a two-sided test
grows with the square of its noncentrality, so a neighbour correlated 0.5
with a support feature sits at about a quarter of that feature's excess
(measured 0.351 against 0.461, ``q0 = 0.317``), below ``F(0.5 delta_l)``
(0.362; 0.361-0.364 for the five neighbours selected at 30,000 clients),
while a support feature is above the rate its neighbours imply.  The stage only removes features, so the
family-wise error of stage one still bounds the false positives, whatever
rogue clients send: a rogue sketch can make the server remove a support
feature, never add one, and ``m'`` bounds how far (a forged share of the
sketches moves no pair's agreement past what it allows).  With narrower clients (``d <= 20 median(n_i)``)
the 3-4 controls are real neighbours: they lower a weak support feature's
rate next to a strong one below the marginal model's, and the stage
dropped such features there (measured), so it does not run.
``benchmarks/support_neighbour_sketch.py`` measures it (see the user
guide).
"""

import numpy as np
from scipy import sparse, stats

from .._core._support_fast import unpack_bits

# Bisection steps of the inverse of the rate function (noncentralities in
# [0, 40]: 2^-50 of that range, far below the rates' sampling noise).
_BISECTION_STEPS = 50
_MAX_NONCENTRALITY = 40.0


def rate_of(delta, z):
    """Selection rate ``Phi(-z - delta) + Phi(-z + delta)`` of a two-sided test."""
    delta = np.asarray(delta, dtype=np.float64)
    return stats.norm.sf(z + delta) + stats.norm.sf(z - delta)


def noncentrality(rate, z):
    """Inverse of :func:`rate_of` in ``delta >= 0`` (0 at or below ``rate_of(0, z)``)."""
    rate = np.clip(np.asarray(rate, dtype=np.float64), 0.0, 1.0)
    lo = np.zeros(rate.shape)
    hi = np.full(rate.shape, _MAX_NONCENTRALITY)
    for _ in range(_BISECTION_STEPS):
        mid = 0.5 * (lo + hi)
        below = rate_of(mid, z) < rate
        lo = np.where(below, mid, lo)
        hi = np.where(below, hi, mid)
    return np.where(rate > rate_of(0.0, z), 0.5 * (lo + hi), 0.0)


# Clients are sketched this many at a time (their dense v rows stay a few
# megabytes whatever the number of clients).
_SKETCH_BLOCK = 4096
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _mix(x):
    """The splitmix64 finalizer on ``uint64`` arrays (wrapping arithmetic)."""
    x = (x ^ (x >> np.uint64(30))) * _MIX1
    x = (x ^ (x >> np.uint64(27))) * _MIX2
    return x ^ (x >> np.uint64(31))


def sketch_coefficients(seed, nodes, positions):
    """Standard normal coefficients ``u`` of rows ``positions`` of clients ``nodes``.

    Counter-based (a hash of ``(seed, node, position)`` through splitmix64,
    then Box-Muller), so a client computes its own coefficients alone, in
    any engine and in any order, and gets the simulated fit's.
    """
    with np.errstate(over="ignore"):
        key = _mix(np.full(1, seed, dtype=np.uint64) + _GOLDEN)
        node = _mix(np.asarray(nodes, dtype=np.uint64) * _GOLDEN + key)
        pos = np.asarray(positions, dtype=np.uint64) * np.uint64(2)
        h1 = _mix(node ^ _mix(pos + _GOLDEN))
        h2 = _mix(node ^ _mix(pos + np.uint64(1) + _GOLDEN))
    u1 = 1.0 - (h1 >> np.uint64(11)).astype(np.float64) * 2.0 ** -53  # in (0, 1]
    u2 = (h2 >> np.uint64(11)).astype(np.float64) * 2.0 ** -53
    return np.sqrt(-2.0 * np.log(u1)) * np.cos(2.0 * np.pi * u2)


def sketch_signs(X_nodes, w_nodes, offsets, clients, center, seed, nodes=None):
    """The packed sketch bits of ``clients`` (node indices), one row each.

    ``X_nodes`` (dense or CSR), ``w_nodes`` and ``offsets`` are the
    node-ordered rows; a client's rows are ``offsets[i]:offsets[i + 1]``.
    ``nodes`` (default ``clients``): the clients' node indices in the fit,
    which with ``seed`` fix their coefficients
    (:func:`sketch_coefficients`).  Returns ``uint8`` rows of ``ceil(d /
    8)`` bytes, feature ``j`` in bit ``j % 8`` of byte ``j // 8`` (as the
    selection bits).
    """
    d = X_nodes.shape[1]
    clients = np.asarray(clients, dtype=np.intp)
    nodes = clients if nodes is None else np.asarray(nodes, dtype=np.intp)
    out = np.zeros((len(clients), (d + 7) // 8), dtype=np.uint8)
    for lo in range(0, len(clients), _SKETCH_BLOCK):
        hi = min(lo + _SKETCH_BLOCK, len(clients))
        out[lo:hi] = _sketch_block(X_nodes, w_nodes, offsets, clients[lo:hi],
                                   nodes[lo:hi], center, seed)
    return out


def _sketch_block(X_nodes, w_nodes, offsets, clients, nodes, center, seed):
    """The packed sketches of one block of clients (see :func:`sketch_signs`)."""
    starts, stops = offsets[clients], offsets[clients + 1]
    sizes = stops - starts
    first = np.repeat(sizes.cumsum() - sizes, sizes)
    position = np.arange(int(sizes.sum())) - first
    rows = np.repeat(starts, sizes) + position
    owner = np.repeat(np.arange(len(clients)), sizes)
    w = np.asarray(w_nodes, dtype=np.float64)[rows]
    a = sketch_coefficients(seed, nodes[owner], position) * np.sqrt(w)
    if center:
        # a_t - w_t A / W: coefficients summing to zero over the client
        W = np.bincount(owner, weights=w, minlength=len(clients))
        A = np.bincount(owner, weights=a, minlength=len(clients))
        a = a - w * (A / np.where(W > 0, W, 1.0))[owner]
    # One sparse product over the rows in place (no copy of X): row i of
    # the indicator holds client i's coefficients at its rows.
    dtype = X_nodes.dtype if X_nodes.dtype in (np.float32, np.float64) else np.float64
    indicator = sparse.csr_matrix((a.astype(dtype), (owner, rows)),
                                  shape=(len(clients), X_nodes.shape[0]))
    v = indicator @ X_nodes
    v = v.toarray() if sparse.issparse(v) else np.asarray(v)
    return np.packbits(v > 0, axis=1, bitorder="little")


def _unpacked(packed, d):
    bits = np.zeros((packed.shape[0], d), dtype=np.uint8)
    unpack_bits(np.ascontiguousarray(packed), bits)
    return bits


def link_threshold(fwer, d, g_s):
    """The sign agreement (net of forged sketches) above which the stage
    links two of ``d`` features from ``g_s`` sketches: ``Phi^{-1}(1 - fwer
    / (2 d^2)) / sqrt(g_s)``, a two-sided test over the ``d^2`` pairs."""
    return stats.norm.isf(fwer / (2.0 * d * d)) / np.sqrt(g_s)


def neighbour_stage(support, bits, sketch, small, votes, n_reports, z, beta, fwer):
    """The second stage: which selected features to keep.

    ``support`` (d,) stage one's selection; ``bits`` (g, d) bool, what the
    ``g`` answering clients sent; ``sketch`` (g_s, ceil(d / 8)) the packed
    sketches of the small answering clients, ``small`` (g,) which of the
    answering clients ran the small-client rule (in a fit, the rows of
    ``sketch`` in that order; a join's new clients send no sketch);
    ``votes`` / ``n_reports`` the server's counts; ``z`` ``auto_z``;
    ``beta`` the rogue tolerance; ``fwer`` the level.  Returns ``(keep,
    reference, explained_by)``: the kept support, each re-tested feature's
    reference rate ``ref_j`` (NaN where not re-tested) and the selected
    feature ``l`` that sets it (-1 there).
    """
    d = len(support)
    keep = np.asarray(support, dtype=bool).copy()
    reference = np.full(d, np.nan)
    explained_by = np.full(d, -1, dtype=np.intp)
    selected = np.flatnonzero(keep)
    g = bits.shape[0]
    n_small = int(np.sum(small))
    g_s = sketch.shape[0]  # the clients that sent a sketch (a join adds none)
    if len(selected) < 2 or g_s < 1 or n_small < 1:
        return keep, reference, explained_by
    q0 = float(rate_of(0.0, z))
    f_ols = 1.0 - n_small / g
    # The rogue clients (at most beta g) may all be small: among the small
    # clients their share is up to beta g / n_small, which the honest rate
    # (hence delta_l) is read net of.
    among_small = min(1.0, beta * g / n_small)
    if among_small >= 1.0:
        return keep, reference, explained_by
    fraction = bits[small][:, selected].mean(axis=0)
    honest = (fraction - among_small) / (1.0 - among_small)
    delta = noncentrality(honest, z)
    # Rogue clients (at most beta g of the answering clients, all of them
    # possibly among the sketches' senders) may send any sketch: a share b
    # of forged rows moves m_jl by up to b, so the honest agreement is at
    # least (|m_jl| - b) / (1 - b) in absolute value.  The stage uses that
    # lower bound, so forged sketches cannot link independent features.
    forged = min(1.0, beta * g / g_s)
    if forged >= 1.0:
        return keep, reference, explained_by
    # The same share can also lower |m_jl| by up to b, to weaken the link
    # through which a selected neighbour explains j and keep j: the
    # reference reads the strength at the largest honest agreement, so
    # forged sketches cannot make the stage keep a neighbour either.
    s = 2.0 * _unpacked(sketch, d)[:, selected].astype(np.float64) - 1.0
    m = np.abs(s.T @ s) / g_s
    low = np.clip((m - forged) / (1.0 - forged), 0.0, 1.0)
    high = np.clip((m + forged) / (1.0 - forged), 0.0, 1.0)
    rho = np.sin(0.5 * np.pi * high)
    linked = low > link_threshold(fwer, d, g_s)
    np.fill_diagonal(linked, False)
    for a, j in enumerate(selected):
        cand = np.flatnonzero(linked[a])
        if not len(cand):
            continue
        effect = np.abs(rho[a, cand]) * delta[cand]
        b = cand[int(np.argmax(effect))]
        bound = float(effect.max())
        ref = (1.0 - beta) * ((1.0 - f_ols) * float(rate_of(bound, z)) + f_ols * q0) + beta
        pvalue = stats.binom.sf(votes[j] - 1, n_reports[j], ref)
        keep[j] = pvalue <= fwer / d
        reference[j] = ref
        explained_by[j] = selected[b]
    # Pass two: a kept feature weaker than each of two or more linked kept
    # features (one between two support features of the same sign) is
    # re-tested against the rate they reach together, sum_l rho_jl delta_l.
    kept_one = keep[selected]
    for a, j in enumerate(selected):
        cand = np.flatnonzero(linked[a] & kept_one)
        if not keep[j] or len(cand) < 2 or not (delta[a] < delta[cand]).all():
            continue
        bound = float(np.sum(rho[a, cand] * delta[cand]))
        ref = (1.0 - beta) * ((1.0 - f_ols) * float(rate_of(bound, z)) + f_ols * q0) + beta
        if stats.binom.sf(votes[j] - 1, n_reports[j], ref) > fwer / d:
            keep[j] = False
            reference[j] = ref
            explained_by[j] = selected[cand[int(np.argmax(rho[a, cand] * delta[cand]))]]
    return keep, reference, explained_by
