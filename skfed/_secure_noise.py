"""Privacy noise that no seed reproduces: a secure source and exact samplers.

Every random draw that protects data under ``privacy=`` comes from here,
never from ``random_state`` or the per-node xorshift streams of
``skfed/_core/_random.pxd`` (those stay for *public* randomness: clocks, peer
sampling, stumps, feature maps).

Source
------
A :class:`NoiseSource` is made once per fit (:meth:`NoiseSource.for_fit`).
Its streams (:meth:`NoiseSource.stream`, Cython ``BitStream`` objects) read
64-bit words from the operating system's CSPRNG (``os.urandom``: every word
is fresh OS randomness, far more than 128 bits per fit, and nothing is
seeded, so no ``random_state`` and no search over seeds reproduces it).

Samplers (exact)
----------------
Floating-point noise leaks (Mironov 2012: the low bits of ``x + Laplace``
reveal ``x``; a Gumbel or exponential draw from a 53-bit uniform is bounded,
so a far-behind candidate of report-noisy-max is *never* chosen).  Here every
distribution is sampled exactly with integer arithmetic from random words
(``skfed/_core/_secure_noise.pyx``, after Canonne, Kamath & Steinke 2020),
and real-valued releases live on a grid:

* ``discrete_gaussian(sigma, size)`` / ``discrete_laplace(scale, size)``:
  integers with ``P(x) ~ exp(-x^2 / (2 sigma^2))`` / ``exp(-|x| / scale)``
  (integer ``sigma``, ``scale``);
* ``bernoulli(p, size)``: exact Bernoulli(p) for a double ``p`` (randomized
  response: flip a bit where it is 1);
* ``integers(high, size)``: uniform integers in ``[0, high)``;
* ``choice(quality, scale)``: the exponential mechanism on integer
  qualities, ``P(j) ~ exp(quality[j] / scale)`` (exact, rejection sampling).

Real values on a grid (the rounding is accounted in the sensitivity):

* :func:`gaussian_grid` / :func:`laplace_grid` give, for a noise level, the
  grid step ``g = noise / 2^20`` and the integer noise level ``2^20`` on it;
  :meth:`NoiseSource.add_gaussian` / :meth:`NoiseSource.add_laplace` round
  ``values`` to the nearest grid point and add ``g`` times discrete noise:
  the release ``g * (round(values / g) + Z)`` is a one-to-one function of
  the integer vector ``round(values / g) + Z``, so it is as private as it.
  Rounding moves a vector by at most half a step per coordinate, and a
  floating-point error of at most half a step more is allowed, so the
  sensitivity in grid steps is ``l2 / g + 2 sqrt(dim)`` (Gaussian,
  :func:`grid_l2_sensitivity`) or ``l1 / g + 2 dim`` (Laplace,
  :func:`grid_l1_sensitivity`).  Account the mechanism with these
  (``skfed.privacy.DiscreteGaussianMechanism`` / ``DiscreteLaplaceMechanism``
  do).
* :func:`choice_qualities` floors real scores of sensitivity ``Delta`` onto
  the grid ``Delta / resolution``: the integer qualities have sensitivity
  ``resolution + 1`` (one step for the floor, with a floating-point error of
  at most half a step); :meth:`NoiseSource.private_choice` then runs the
  exponential mechanism at the integer scale ``ceil(2 (resolution + 1) /
  epsilon)``: ``epsilon``-DP (and ``epsilon``-bounded range) per choice.

Cython loops that need noise at every step take pre-drawn arrays from Python
(Perso-lin's Gaussian noise) or a ``BitStream`` and ``cimport`` the samplers
from ``skfed._core._secure_noise`` (Dada's choices, whose number of random
words depends on the scores); Python allocates, Cython computes.  After a
loop that used a stream, call ``stream.check()``: a failed refill of the OS
source voids the draws and raises.

Testing switch
--------------
``DifferentialPrivacy(insecure_noise_seed=N)`` makes :meth:`NoiseSource.for_fit`
return a source whose words come from NumPy's PCG64 seeded with N, so a test
can fix the noise.  Such a fit warns (:class:`InsecureNoiseWarning`) and sets
``privacy_guarantee_void_ = True`` (:func:`record_noise_source`): its
privacy guarantee is void, whatever ``privacy_spent_`` says.

Example
-------
>>> from skfed._secure_noise import NoiseSource
>>> source = NoiseSource()                      # fresh OS randomness
>>> flips = source.bernoulli(0.25, 1000)        # randomized response flips
>>> noisy = source.add_gaussian([0.3, -1.2], sigma=0.5)
>>> j = source.private_choice([0.1, 0.9, 0.2], epsilon=1.0, sensitivity=0.1)
"""

import math
import os
import warnings

import numpy as np

from ._core._secure_noise import (
    BitStream,
    choose,
    fill_bernoulli,
    fill_discrete_gaussian,
    fill_discrete_laplace,
    fill_uniform,
)

__all__ = [
    "NoiseSource",
    "InsecureNoiseWarning",
    "gaussian_grid",
    "laplace_grid",
    "grid_l2_sensitivity",
    "grid_l1_sensitivity",
    "choice_qualities",
    "choice_scale",
    "choice_epsilon",
    "record_noise_source",
    "GRID_NOISE_STEPS",
    "CHOICE_RESOLUTION",
]

# Noise level of a grid release, in grid steps: the rounding to the grid
# (at most 2 sqrt(dim) steps of sensitivity) is negligible next to it.
GRID_NOISE_STEPS = 2**20
# Grid steps per sensitivity of the qualities of a private choice.
CHOICE_RESOLUTION = 2**10
# Words per refill of a stream.
_BUFFER_WORDS = 4096


class InsecureNoiseWarning(UserWarning):
    """The privacy noise of a fit came from a fixed seed
    (``insecure_noise_seed``): its privacy guarantee is void."""


def _os_words(n_words):
    return np.frombuffer(os.urandom(8 * int(n_words)), dtype=np.uint64).copy()


class NoiseSource:
    """The privacy noise of one fit.

    Parameters
    ----------
    insecure_seed : int, default=None
        ``None`` (always, outside tests): every word comes from the
        operating system's CSPRNG.  An integer draws from NumPy's PCG64
        seeded with it instead, which any reader of the seed reproduces:
        for tests only (the privacy guarantee is then void).
    """

    def __init__(self, insecure_seed=None):
        if insecure_seed is not None:
            if isinstance(insecure_seed, bool) or not isinstance(
                insecure_seed, (int, np.integer)
            ) or insecure_seed < 0:
                raise ValueError(
                    f"insecure_seed must be None or a non-negative integer, got {insecure_seed!r}."
                )
            self._seeds = np.random.SeedSequence(int(insecure_seed))
        else:
            self._seeds = None
        self.insecure_seed = insecure_seed
        self._default = None

    @classmethod
    def for_fit(cls, spec, estimator_name):
        """The source of a fit under ``spec`` (a ``DifferentialPrivacy``).

        Warns with :class:`InsecureNoiseWarning` when the specification
        fixes the noise (``insecure_noise_seed``).
        """
        seed = getattr(spec, "insecure_noise_seed", None)
        if seed is not None:
            warnings.warn(
                f"{estimator_name}: the privacy noise comes from insecure_noise_seed="
                f"{seed!r}, which reproduces it; the privacy guarantee of this fit is "
                "void (testing only).",
                InsecureNoiseWarning,
                stacklevel=3,
            )
        return cls(seed)

    @property
    def secure(self):
        """True when the words come from the operating system's CSPRNG."""
        return self._seeds is None

    def describe(self):
        """One line naming the source."""
        if self.secure:
            return "operating-system CSPRNG (os.urandom), exact integer samplers"
        return (f"INSECURE: NumPy PCG64 seeded with insecure_noise_seed={self.insecure_seed} "
                "(privacy guarantee void)")

    def stream(self):
        """A new, independent ``BitStream`` of this source (one per thread)."""
        if self.secure:
            return BitStream(_os_words, _BUFFER_WORDS)
        generator = np.random.Generator(np.random.PCG64(self._seeds.spawn(1)[0]))

        def words(n_words):
            return generator.integers(0, 2**64, size=n_words, dtype=np.uint64,
                                      endpoint=False)

        return BitStream(words, _BUFFER_WORDS)

    def _stream(self):
        if self._default is None:
            self._default = self.stream()
        return self._default

    # ------------------------------------------------------------ integers
    def discrete_gaussian(self, sigma, size):
        """Discrete Gaussian integers, ``P(x) ~ exp(-x^2 / (2 sigma^2))``."""
        sigma = _positive_integer(sigma, "sigma", 2**31)
        out = np.empty(_count(size), dtype=np.int64)
        fill_discrete_gaussian(self._stream(), sigma, out)
        return out.reshape(size)

    def discrete_laplace(self, scale, size):
        """Discrete Laplace integers, ``P(x) ~ exp(-|x| / scale)``."""
        scale = _positive_integer(scale, "scale", 2**32)
        out = np.empty(_count(size), dtype=np.int64)
        fill_discrete_laplace(self._stream(), scale, out)
        return out.reshape(size)

    def bernoulli(self, p, size):
        """Independent Bernoulli(p) draws (bool), exact for the double ``p``."""
        p = float(p)
        if not 0.0 <= p <= 1.0:
            raise ValueError(f"p must be in [0, 1], got {p}.")
        out = np.empty(_count(size), dtype=np.uint8)
        fill_bernoulli(self._stream(), p, out)
        return out.reshape(size).astype(bool)

    def integers(self, high, size):
        """Uniform integers in ``[0, high)``."""
        high = _positive_integer(high, "high", 2**63)
        out = np.empty(_count(size), dtype=np.uint64)
        fill_uniform(self._stream(), high, out)
        return out.reshape(size).astype(np.int64)

    def choice(self, quality, scale, n_draws=None):
        """Exponential mechanism on integer qualities: ``P(j) ~ exp(quality[j] / scale)``."""
        quality = np.ascontiguousarray(quality, dtype=np.int64).ravel()
        scale = _positive_integer(scale, "scale", 2**63)
        out = choose(self._stream(), quality, scale, 1 if n_draws is None else int(n_draws))
        return int(out[0]) if n_draws is None else out

    # ----------------------------------------------------------- on a grid
    def add_gaussian(self, values, sigma):
        """``values`` rounded to the grid of :func:`gaussian_grid` plus its
        discrete Gaussian noise (standard deviation at least ``sigma``)."""
        values = np.asarray(values, dtype=np.float64)
        step, steps = gaussian_grid(sigma)
        noise = self.discrete_gaussian(steps, values.shape)
        return step * (np.rint(values / step) + noise)

    def add_laplace(self, values, scale):
        """``values`` rounded to the grid of :func:`laplace_grid` plus its
        discrete Laplace noise (scale at least ``scale``)."""
        values = np.asarray(values, dtype=np.float64)
        step, steps = laplace_grid(scale)
        noise = self.discrete_laplace(steps, values.shape)
        return step * (np.rint(values / step) + noise)

    def private_choice(self, scores, epsilon, sensitivity, n_draws=None):
        """The exponential mechanism on real ``scores`` of the given sensitivity.

        ``epsilon``-DP (and ``epsilon``-bounded range) per choice: the scores
        are floored onto the grid ``sensitivity / CHOICE_RESOLUTION``
        (:func:`choice_qualities`) and the choice made at the integer scale
        :func:`choice_scale`.
        """
        quality = choice_qualities(scores, sensitivity)
        return self.choice(quality, choice_scale(epsilon), n_draws)


# ------------------------------------------------------------------ grids
def _grid(noise, name):
    noise = float(noise)
    if not (noise > 0 and math.isfinite(noise)):
        raise ValueError(f"{name} must be a positive finite number, got {noise}.")
    return noise / GRID_NOISE_STEPS, GRID_NOISE_STEPS


def gaussian_grid(sigma):
    """``(step, steps)``: the grid step ``sigma / 2^20`` and the integer
    standard deviation ``2^20`` on it.

    The release ``step * (round(values / step) + Z)`` is a one-to-one function
    of the integer vector ``round(values / step) + Z`` (products of a step by
    distinct integers below 2^53 are distinct doubles), so it is exactly as
    private as that vector: any step works, and one noise level in steps for
    every node lets a loop draw its noise from one pre-drawn pool.
    """
    return _grid(sigma, "sigma")


def laplace_grid(scale):
    """``(step, steps)`` for Laplace noise of scale ``scale`` (as :func:`gaussian_grid`)."""
    return _grid(scale, "scale")


def grid_l2_sensitivity(l2_sensitivity, step, dim):
    """l2 sensitivity in grid steps of a rounded release: ``l2 / step + 2 sqrt(dim)``."""
    return float(l2_sensitivity) / step + 2.0 * math.sqrt(dim)


def grid_l1_sensitivity(l1_sensitivity, step, dim):
    """l1 sensitivity in grid steps of a rounded release: ``l1 / step + 2 dim``."""
    return float(l1_sensitivity) / step + 2.0 * dim


def choice_qualities(scores, sensitivity, resolution=CHOICE_RESOLUTION):
    """Integer qualities ``floor(score / (sensitivity / resolution))``, clamped
    to ``+-2^62``; their sensitivity is ``resolution + 1`` grid steps."""
    scores = np.asarray(scores, dtype=np.float64)
    sensitivity = float(sensitivity)
    if not (sensitivity > 0 and math.isfinite(sensitivity)):
        raise ValueError(f"sensitivity must be a positive finite number, got {sensitivity}.")
    if not np.all(np.isfinite(scores)):
        raise ValueError("scores must be finite.")
    scaled = np.floor(scores * (resolution / sensitivity))
    return np.clip(scaled, -(2.0**62), 2.0**62).astype(np.int64)


def choice_scale(epsilon, resolution=CHOICE_RESOLUTION):
    """The integer scale ``ceil(2 (resolution + 1) / epsilon)`` of an
    ``epsilon``-DP exponential mechanism on :func:`choice_qualities`."""
    epsilon = float(epsilon)
    if not epsilon > 0:
        raise ValueError(f"epsilon must be > 0, got {epsilon}.")
    if math.isinf(epsilon):
        raise ValueError("epsilon=inf needs no noise: take the argmax instead.")
    return int(math.ceil(2.0 * (resolution + 1) / epsilon))


def choice_epsilon(scale, resolution=CHOICE_RESOLUTION):
    """The epsilon (at most the one asked) that the integer ``scale`` gives."""
    return 2.0 * (resolution + 1) / float(scale)


def record_noise_source(estimator, source):
    """Set ``privacy_guarantee_void_`` (True for an insecure source)."""
    estimator.privacy_guarantee_void_ = not source.secure


def _positive_integer(value, name, limit):
    if isinstance(value, (float, np.floating)) and float(value).is_integer():
        value = int(value)
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an integer, got {value!r}.")
    value = int(value)
    if not 1 <= value < limit:
        raise ValueError(f"{name} must be in [1, {limit}), got {value}.")
    return value


def _count(size):
    return int(np.prod(size, dtype=np.int64)) if np.ndim(size) else int(size)
