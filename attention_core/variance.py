"""The variance of the dot product of two random vectors, by simulation (chapter 3).

If q and k in R^d have independent components with mean 0 and variance 1, then

    E[q . k] = 0,    Var(q . k) = d,    Var(q . k / sqrt(d)) = 1;

with variance sigma^2 instead of 1 the scaled score has variance sigma^4. The functions
here draw many pairs (q, k) and measure the sample mean and variance with standard errors.
"""

from dataclasses import dataclass

import numpy as np

from .validation import positive_int

#: Distributions of the components with mean 0 and variance 1 (before scaling by sigma).
DISTRIBUTIONS = ("normal", "uniform", "sign")

#: At most this many components are drawn at once (bounds the memory of a simulation).
_CHUNK = 1 << 20


def _check_rng(func, rng):
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"{func}: rng must be a numpy Generator, e.g. np.random.default_rng(0); "
                         f"got {type(rng).__name__}")


def _check_sigma(func, sigma):
    if isinstance(sigma, bool) or not isinstance(sigma, (int, float, np.integer, np.floating)):
        raise ValueError(f"{func}: sigma must be a positive number; got {sigma!r}")
    if not np.isfinite(sigma) or sigma <= 0:
        raise ValueError(f"{func}: sigma must be a positive finite number; got {sigma!r}")
    return float(sigma)


def components(shape, rng, distribution="normal", sigma=1.0):
    """Independent random numbers of mean 0 and variance ``sigma**2`` in an array of ``shape``.

    ``distribution`` is ``"normal"`` (N(0, 1)), ``"uniform"`` (uniform on [-sqrt 3, sqrt 3])
    or ``"sign"`` (+1 or -1 with probability 1/2 each), each then multiplied by ``sigma``.
    """
    _check_rng("components", rng)
    sigma = _check_sigma("components", sigma)
    if distribution == "normal":
        x = rng.standard_normal(shape)
    elif distribution == "uniform":
        x = rng.uniform(-np.sqrt(3.0), np.sqrt(3.0), shape)
    elif distribution == "sign":
        x = rng.integers(0, 2, shape).astype(np.float64) * 2.0 - 1.0
    else:
        raise ValueError(f"components: distribution must be one of {DISTRIBUTIONS}; "
                         f"got {distribution!r}")
    if sigma != 1.0:
        x *= sigma
    return x


def dot_products(d, samples, rng, distribution="normal", sigma=1.0):
    """``samples`` independent dot products q . k of random q, k in R^d; returns (samples,).

    Every component of q and k is independent, drawn by :func:`components` with the given
    ``distribution`` and ``sigma``. The pairs are drawn in chunks, so memory stays small
    even for d = 4096.
    """
    d = positive_int("dot_products", "d", d)
    samples = positive_int("dot_products", "samples", samples)
    _check_rng("dot_products", rng)
    sigma = _check_sigma("dot_products", sigma)
    if distribution not in DISTRIBUTIONS:
        raise ValueError(f"dot_products: distribution must be one of {DISTRIBUTIONS}; "
                         f"got {distribution!r}")
    out = np.empty(samples)
    step = max(1, _CHUNK // d)
    for start in range(0, samples, step):
        m = min(step, samples - start)
        q = components((m, d), rng, distribution, sigma)
        k = components((m, d), rng, distribution, sigma)
        np.einsum("td,td->t", q, k, out=out[start:start + m])
    return out


@dataclass(frozen=True)
class Moments:
    """Sample mean and variance of N numbers, each with its standard error."""

    samples: int
    mean: float
    mean_se: float
    variance: float
    variance_se: float


def sample_moments(x):
    """Sample mean and (unbiased) variance of the numbers ``x``, with standard errors.

    The standard error of the mean is sqrt(s^2 / N); that of the variance is
    sqrt((m_4 - s^4) / N), with m_4 the sample fourth central moment (large-N formula).
    """
    x = np.asarray(x, dtype=np.float64).ravel()
    if x.size < 2 or not np.isfinite(x).all():
        raise ValueError("sample_moments: x needs at least 2 finite numbers; "
                         f"got {x.size} numbers")
    n = x.size
    mean = float(x.mean())
    centred = x - mean
    square = centred * centred
    m2 = float(square.mean())
    m4 = float((square * square).mean())
    variance = m2 * n / (n - 1)
    return Moments(n, mean, float(np.sqrt(variance / n)), variance,
                   float(np.sqrt(max(m4 - m2 * m2, 0.0) / n)))


def dot_product_moments(d, samples, rng, distribution="normal", sigma=1.0):
    """Moments of q . k and of q . k / sqrt(d) over ``samples`` pairs: ``(raw, scaled)``."""
    raw = dot_products(d, samples, rng, distribution, sigma)
    return sample_moments(raw), sample_moments(raw / np.sqrt(d))
