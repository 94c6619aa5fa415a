"""Saturation of the softmax: large scores make one weight near 1 and stop learning (chapter 4).

For a random query q and n random keys k_i in R^d with independent N(0, 1) components the
scores q . k_i have variance d. Without the division by sqrt(d) the softmax of such scores
puts almost all weight on one key, and the factor a (1 - a) by which the softmax multiplies
the gradient of that weight (da_i/ds_i = a_i (1 - a_i)) is near 0.
"""

from dataclasses import dataclass

import numpy as np

from .softmax import log_softmax
from .validation import finite_array, positive_int
from .variance import _check_rng

#: At most this many key components are drawn at once (bounds the memory of a simulation).
_CHUNK = 1 << 20

#: How the scores of random keys are drawn: every key, or the exact shortcut via |q|.
METHODS = ("direct", "norm")


def random_scores(d, n, trials, rng, method="direct"):
    """Unscaled scores q . k_i for ``trials`` random draws of q and n keys; returns (trials, n).

    All components are independent N(0, 1). ``method="direct"`` draws q and all n keys;
    ``method="norm"`` uses that for a fixed q the n numbers q . k_i are independent
    N(0, |q|^2): it draws |q|^2 from the chi-square distribution with d degrees of freedom
    and n standard normal numbers, which has exactly the same distribution at a fraction of
    the cost.
    """
    d = positive_int("random_scores", "d", d)
    n = positive_int("random_scores", "n", n)
    trials = positive_int("random_scores", "trials", trials)
    _check_rng("random_scores", rng)
    if method == "norm":
        norm = np.sqrt(rng.chisquare(d, trials))
        return rng.standard_normal((trials, n)) * norm[:, None]
    if method != "direct":
        raise ValueError(f"random_scores: method must be one of {METHODS}; got {method!r}")
    out = np.empty((trials, n))
    step = max(1, _CHUNK // (n * d))
    for start in range(0, trials, step):
        m = min(step, trials - start)
        q = rng.standard_normal((m, d, 1))
        K = rng.standard_normal((m, n, d))
        out[start:start + m] = np.matmul(K, q)[..., 0]
    return out


def _scores(func, s):
    return finite_array(func, "s", s, (1, 2), "a vector of scores (n,) or a matrix (trials, n)")


def largest_weight(s):
    """The largest weight max_i a_i of softmax(s), for each row of scores ``s``."""
    s = _scores("largest_weight", s)
    top = s.max(axis=-1, keepdims=True)
    # max_i a_i = exp(0) / sum_j exp(s_j - max s) = 1 / sum_j exp(s_j - max s)
    return 1.0 / np.exp(s - top).sum(axis=-1)


def weight_entropy(s):
    """Entropy -sum_i a_i ln a_i (in nats) of the weights softmax(s), for each row of ``s``.

    Computed from ln a_i = log_softmax(s)_i, so a weight that rounds to 0 contributes 0
    (no 0 * ln 0 = NaN). Between 0 (one weight 1) and ln n (all equal).
    """
    log_a = log_softmax(_scores("weight_entropy", s))
    a = np.exp(log_a)
    return np.maximum(-(a * log_a).sum(axis=-1), 0.0)


def gradient_factor(a):
    """The factor a (1 - a) = da/ds by which the softmax multiplies a weight's own gradient."""
    a = finite_array("gradient_factor", "a", a, (0, 1, 2), "weights (numbers between 0 and 1)")
    if (a < 0).any() or (a > 1).any():
        raise ValueError("gradient_factor: a must hold weights between 0 and 1; got values from "
                         f"{a.min()} to {a.max()}")
    return a * (1.0 - a)


@dataclass(frozen=True)
class Saturation:
    """How saturated the softmax of random scores is, for one (d, n), with or without sqrt(d).

    ``largest`` and ``entropy`` hold one value per trial; the properties average them.
    """

    d: int
    n: int
    scaled: bool
    score_variance: float
    largest: np.ndarray
    entropy: np.ndarray

    @property
    def trials(self):
        return self.largest.size

    @property
    def mean_largest(self):
        """The average largest weight over the trials."""
        return float(self.largest.mean())

    @property
    def largest_se(self):
        """Standard error of :attr:`mean_largest`."""
        return float(self.largest.std(ddof=1) / np.sqrt(self.trials)) if self.trials > 1 else 0.0

    @property
    def factor(self):
        """a (1 - a) at the average largest weight a (the table's gradient factor)."""
        a = self.mean_largest
        return a * (1.0 - a)

    @property
    def mean_factor(self):
        """The average over trials of a (1 - a) at each trial's largest weight."""
        return float(gradient_factor(self.largest).mean())

    @property
    def mean_entropy(self):
        """The average entropy of the weights, in nats."""
        return float(self.entropy.mean())


def _measure(d, n, scaled, s):
    return Saturation(d, n, scaled, float(s.var()), largest_weight(s), weight_entropy(s))


def saturation(d, n, trials, rng, method="direct"):
    """Saturation without and with the division by sqrt(d), from the same random draws.

    Returns ``(unscaled, scaled)``, two :class:`Saturation` for scores q . k_i and
    q . k_i / sqrt(d) of random q and n keys in R^d with N(0, 1) components.
    """
    raw = random_scores(d, n, trials, rng, method)
    return _measure(d, n, False, raw), _measure(d, n, True, raw / np.sqrt(d))
