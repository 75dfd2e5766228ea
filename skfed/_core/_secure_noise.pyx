# Exact samplers of privacy noise, fed by a stream of random 64-bit words.
#
# Every sampler here turns uniformly random words into an exact draw of its
# distribution with integer arithmetic only (no floating point touches a
# probability), following the algorithms of Canonne, Kamath & Steinke, "The
# Discrete Gaussian for Differential Privacy" (NeurIPS 2020):
#
#   Bernoulli(num / den)           a uniform integer below den, compared to num
#   Bernoulli(exp(-num / den))     their Algorithm 1 (and its product form
#                                  for num / den > 1)
#   discrete Laplace, scale t      their Algorithm 2 (integer t):
#                                  P(x) proportional to exp(-|x| / t)
#   discrete Gaussian, sigma = S   their Algorithm 3 with proposal scale S
#                                  (integer S): P(x) proportional to
#                                  exp(-x^2 / (2 S^2))
#   Bernoulli(p), p a double       lazy comparison of a uniform binary
#                                  fraction with the exact binary expansion of p
#   exponential mechanism          rejection sampling: a uniform candidate j is
#                                  kept with probability exp(-(q_max - q_j) / t)
#                                  (integer qualities q, integer scale t)
#
# The words come from a ``BitStream``, whose buffer Python refills from the
# operating system's CSPRNG (``skfed._secure_noise``); these functions only
# compute.  A refill that fails marks the stream ``failed`` (the functions
# cannot raise without the GIL); the caller must check it and discard the
# draws (``BitStream.check``).

from libc.stdint cimport int64_t, uint8_t, uint64_t

import numpy as np

cdef extern from "math.h" nogil:
    double _frexp "frexp"(double x, int* exp)


cdef uint64_t _LOW32 = 0xFFFFFFFFu


cdef class BitStream:
    """A buffer of random 64-bit words, refilled by ``fill(n_words)``.

    ``fill`` returns ``n_words`` uniformly random ``uint64`` values (the
    operating system's CSPRNG for real privacy noise).  Cython samplers take
    words with ``next_word``; the buffer is refilled (with the GIL) when it
    runs out.
    """

    def __cinit__(self, fill, Py_ssize_t n_words=4096):
        if n_words < 1:
            raise ValueError(f"n_words must be >= 1, got {n_words}.")
        self.fill = fill
        self.size = n_words
        self._array = np.zeros(n_words, dtype=np.uint64)
        self.buffer = self._array
        self.pos = n_words
        self.failed = False
        self.n_words_used = 0

    cdef void _refill(self) noexcept:
        try:
            words = np.asarray(self.fill(self.size))
            if words.dtype != np.uint64 or words.shape != (self.size,):
                raise ValueError("fill must return n_words uint64 values")
            self._array[:] = words
        except BaseException:
            # Never reuse words: the draws that follow are garbage and the
            # caller discards them (``check`` raises).
            self.failed = True
        self.pos = 0

    cdef uint64_t next_word(self) noexcept nogil:
        if self.pos >= self.size:
            with gil:
                self._refill()
        self.pos += 1
        self.n_words_used += 1
        return self.buffer[self.pos - 1]

    def check(self):
        """Raise ``RuntimeError`` if a refill failed (the draws are invalid)."""
        if self.failed:
            raise RuntimeError(
                "The secure random source failed while drawing privacy noise; "
                "the noise drawn since is invalid and the result must be discarded."
            )

    def words(self, Py_ssize_t n):
        """The next ``n`` raw words (tests)."""
        out = np.empty(n, dtype=np.uint64)
        cdef uint64_t[::1] view = out
        cdef Py_ssize_t i
        with nogil:
            for i in range(n):
                view[i] = self.next_word()
        return out


# ------------------------------------------------------------ uniform, ratio
cdef uint64_t uniform_below(BitStream stream, uint64_t n) noexcept nogil:
    """A uniform integer in [0, n) (n >= 1): masked words, rejected above n."""
    cdef uint64_t mask, x
    if n <= 1:
        return 0
    mask = n - 1
    mask |= mask >> 1
    mask |= mask >> 2
    mask |= mask >> 4
    mask |= mask >> 8
    mask |= mask >> 16
    mask |= mask >> 32
    while True:
        x = stream.next_word() & mask
        if x < n:
            return x


cdef bint bernoulli_ratio(BitStream stream, uint64_t num, uint64_t den) noexcept nogil:
    """Bernoulli(num / den), ``num <= den``, ``den >= 1``."""
    if num >= den:
        return True
    if num == 0:
        return False
    return uniform_below(stream, den) < num


# --------------------------------------------------------- Bernoulli(e^-g)
cdef bint _bernoulli_exp_at_most_one(BitStream stream, uint64_t num, uint64_t den) noexcept nogil:
    """Bernoulli(exp(-num / den)) for ``num <= den`` (Algorithm 1 of CKS).

    K counts up while Bernoulli(gamma / K) succeeds; the result is K odd.
    Bernoulli(gamma / K) is Bernoulli(num / den) and Bernoulli(1 / K) at
    once (independent), so nothing overflows.
    """
    cdef uint64_t k = 1
    if num == 0:
        return True
    while bernoulli_ratio(stream, num, den) and bernoulli_ratio(stream, 1, k):
        k += 1
    return (k & 1) == 1


cdef bint bernoulli_exp(BitStream stream, uint64_t num, uint64_t den) noexcept nogil:
    """Bernoulli(exp(-num / den)), ``den >= 1``: ``floor(num / den)`` coins of
    Bernoulli(exp(-1)) and one of Bernoulli(exp(-(num mod den) / den))."""
    cdef uint64_t whole = num // den, i
    for i in range(whole):
        if not _bernoulli_exp_at_most_one(stream, 1, 1):
            return False
    return _bernoulli_exp_at_most_one(stream, num % den, den)


# 128-bit helpers (portable: no compiler extension) for the discrete
# Gaussian's acceptance exp(-N^2 / M) with N up to 2^63 and M < 2^63.
cdef inline void _mul_128(uint64_t a, uint64_t b, uint64_t* hi, uint64_t* lo) noexcept nogil:
    cdef uint64_t a0 = a & _LOW32, a1 = a >> 32, b0 = b & _LOW32, b1 = b >> 32
    cdef uint64_t p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1
    cdef uint64_t mid = (p00 >> 32) + (p01 & _LOW32) + (p10 & _LOW32)
    lo[0] = (p00 & _LOW32) | (mid << 32)
    hi[0] = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32)


cdef inline void _divmod_128(uint64_t hi, uint64_t lo, uint64_t d,
                             uint64_t* q_hi, uint64_t* q_lo, uint64_t* rem) noexcept nogil:
    """(hi, lo) = q d + rem by binary long division; needs ``d < 2^63``."""
    cdef uint64_t r = 0, bit, qh = 0, ql = 0
    cdef int i
    for i in range(127, -1, -1):
        if i >= 64:
            bit = (hi >> (i - 64)) & 1
        else:
            bit = (lo >> i) & 1
        r = (r << 1) | bit
        if r >= d:
            r -= d
            if i >= 64:
                qh |= (<uint64_t>1) << (i - 64)
            else:
                ql |= (<uint64_t>1) << i
    q_hi[0] = qh
    q_lo[0] = ql
    rem[0] = r


cdef bint _bernoulli_exp_square(BitStream stream, uint64_t n, uint64_t m) noexcept nogil:
    """Bernoulli(exp(-n^2 / m)) for ``m < 2^63``, exactly."""
    cdef uint64_t hi, lo, q_hi, q_lo, rem
    _mul_128(n, n, &hi, &lo)
    _divmod_128(hi, lo, m, &q_hi, &q_lo, &rem)
    # floor(n^2 / m) = q_hi 2^64 + q_lo coins of Bernoulli(exp(-1)); one fails
    # with probability 1 - 1/e, so the loop ends after 1.6 coins on average.
    while q_hi != 0 or q_lo != 0:
        if not _bernoulli_exp_at_most_one(stream, 1, 1):
            return False
        if q_lo == 0:
            q_hi -= 1
        q_lo -= 1
    return _bernoulli_exp_at_most_one(stream, rem, m)


# ----------------------------------------------------- discrete Laplace, Gaussian
cdef int64_t discrete_laplace(BitStream stream, uint64_t scale) noexcept nogil:
    """P(x) proportional to exp(-|x| / scale) on the integers (CKS Algorithm 2).

    ``1 <= scale < 2^32``.  ``|x| = U + scale V`` with U uniform below
    ``scale`` kept with probability exp(-U / scale) and V geometric
    (P(V >= v) = e^-v); a random sign, with -0 rejected.
    """
    cdef uint64_t u, v, x
    cdef bint negative
    while True:
        u = uniform_below(stream, scale)
        if not bernoulli_exp(stream, u, scale):
            continue
        v = 0
        while _bernoulli_exp_at_most_one(stream, 1, 1):
            v += 1
        x = u + scale * v
        negative = (stream.next_word() & 1) == 1
        if negative and x == 0:
            continue
        return -<int64_t>x if negative else <int64_t>x


cdef int64_t discrete_gaussian(BitStream stream, uint64_t sigma) noexcept nogil:
    """P(x) proportional to exp(-x^2 / (2 sigma^2)) on the integers.

    Rejection from the discrete Laplace of scale ``t = sigma`` (CKS
    Algorithm 3 with ``t = sigma``, which is valid for any ``t > 0``): Y is
    kept with probability ``exp(-(|Y| - sigma^2 / t)^2 / (2 sigma^2)) =
    exp(-(|Y| - sigma)^2 / (2 sigma^2))``.  ``1 <= sigma < 2^31``.
    """
    cdef int64_t y
    cdef uint64_t a, n, m = 2 * sigma * sigma
    while True:
        y = discrete_laplace(stream, sigma)
        a = <uint64_t>(-y if y < 0 else y)
        n = a - sigma if a >= sigma else sigma - a
        if _bernoulli_exp_square(stream, n, m):
            return y


# ----------------------------------------------------------- Bernoulli(p)
cdef bint bernoulli_float(BitStream stream, double p) noexcept nogil:
    """Bernoulli(p) for a double p, exactly.

    ``p = M / 2^E`` with M a 53-bit integer; a uniform binary fraction u is
    compared with p one 64-bit word at a time (usually the first decides);
    the draw is ``u < p``.
    """
    cdef uint64_t mant, word, pw
    cdef int e, shift, w = 0
    cdef double frac
    if not p > 0.0:
        return False
    if p >= 1.0:
        return True
    # p = frac 2^e with frac in [0.5, 1): mant = frac 2^53, p = mant 2^(e - 53).
    frac = _frexp(p, &e)
    mant = <uint64_t>(frac * 9007199254740992.0)
    while True:
        # Word w of p's expansion: floor(p 2^(64 (w + 1))) mod 2^64.
        shift = 64 * (w + 1) + e - 53
        if shift >= 64:
            pw = 0
        elif shift >= 0:
            pw = mant << shift
        elif shift > -64:
            pw = mant >> (-shift)
        else:
            pw = 0
        word = stream.next_word()
        if word < pw:
            return True
        if word > pw:
            return False
        # Equal so far: p has more bits below this word only if shift < 0
        # and mant has nonzero bits below the cut; else u >= p.
        if shift >= 0:
            return False
        if shift > -64 and (mant & (((<uint64_t>1) << (-shift)) - 1)) == 0:
            return False
        w += 1


# ------------------------------------------------------ exponential mechanism
cdef Py_ssize_t exponential_choice(
    BitStream stream, const int64_t* quality, Py_ssize_t n, uint64_t scale,
) noexcept nogil:
    """Index j drawn with probability proportional to ``exp(quality[j] / scale)``.

    Rejection sampling: a uniform candidate j is accepted with probability
    ``exp(-(q_max - q_j) / scale)`` (at most n proposals on average).  The
    qualities must lie within ``+-2^62`` (so their gaps fit).
    """
    cdef Py_ssize_t j
    cdef int64_t top = quality[0]
    for j in range(1, n):
        if quality[j] > top:
            top = quality[j]
    while True:
        j = <Py_ssize_t>uniform_below(stream, <uint64_t>n)
        if bernoulli_exp(stream, <uint64_t>(top - quality[j]), scale):
            return j


# ------------------------------------------------------------- batch draws
def fill_discrete_gaussian(BitStream stream, uint64_t sigma, int64_t[::1] out):
    """Write independent discrete Gaussian draws of integer ``sigma`` into ``out``."""
    if not 1 <= sigma < (<uint64_t>1) << 31:
        raise ValueError(f"sigma must be an integer in [1, 2^31), got {sigma}.")
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = discrete_gaussian(stream, sigma)
    stream.check()


def fill_discrete_laplace(BitStream stream, uint64_t scale, int64_t[::1] out):
    """Write independent discrete Laplace draws of integer ``scale`` into ``out``."""
    if not 1 <= scale < (<uint64_t>1) << 32:
        raise ValueError(f"scale must be an integer in [1, 2^32), got {scale}.")
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = discrete_laplace(stream, scale)
    stream.check()


def fill_bernoulli(BitStream stream, double p, uint8_t[::1] out):
    """Write independent Bernoulli(p) draws (0/1) into ``out``."""
    if not 0.0 <= p <= 1.0:
        raise ValueError(f"p must be in [0, 1], got {p}.")
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = bernoulli_float(stream, p)
    stream.check()


def fill_bernoulli_exp(BitStream stream, uint64_t num, uint64_t den, uint8_t[::1] out):
    """Write independent Bernoulli(exp(-num / den)) draws into ``out`` (tests)."""
    if den < 1:
        raise ValueError("den must be >= 1.")
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = bernoulli_exp(stream, num, den)
    stream.check()


def fill_uniform(BitStream stream, uint64_t n, uint64_t[::1] out):
    """Write independent uniform integers in [0, n) into ``out``."""
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}.")
    cdef Py_ssize_t i
    with nogil:
        for i in range(out.shape[0]):
            out[i] = uniform_below(stream, n)
    stream.check()


def choose(BitStream stream, const int64_t[::1] quality, uint64_t scale, Py_ssize_t n_draws=1):
    """``n_draws`` independent exponential-mechanism choices over ``quality``.

    Each is j with probability proportional to ``exp(quality[j] / scale)``.
    """
    cdef Py_ssize_t n = quality.shape[0], d
    if n < 1:
        raise ValueError("quality must hold at least one candidate.")
    if scale < 1:
        raise ValueError("scale must be >= 1.")
    for d in range(n):
        if quality[d] > (<int64_t>1) << 62 or quality[d] < -((<int64_t>1) << 62):
            raise ValueError("qualities must lie within +-2^62.")
    out = np.empty(n_draws, dtype=np.intp)
    cdef Py_ssize_t[::1] view = out
    with nogil:
        for d in range(n_draws):
            view[d] = exponential_choice(stream, &quality[0], n, scale)
    stream.check()
    return out


def bernoulli_exp_square(BitStream stream, uint64_t n, uint64_t m, Py_ssize_t n_draws):
    """``n_draws`` Bernoulli(exp(-n^2 / m)) draws (tests of the 128-bit path)."""
    if not 1 <= m < (<uint64_t>1) << 63:
        raise ValueError("m must be in [1, 2^63).")
    out = np.empty(n_draws, dtype=np.uint8)
    cdef uint8_t[::1] view = out
    cdef Py_ssize_t d
    with nogil:
        for d in range(n_draws):
            view[d] = _bernoulli_exp_square(stream, n, m)
    stream.check()
    return out


def mul_divmod_128(uint64_t n, uint64_t m):
    """``divmod(n * n, m)`` by the 128-bit helpers (tests)."""
    cdef uint64_t hi, lo, q_hi, q_lo, rem
    _mul_128(n, n, &hi, &lo)
    _divmod_128(hi, lo, m, &q_hi, &q_lo, &rem)
    return (int(q_hi) << 64) | int(q_lo), int(rem)
