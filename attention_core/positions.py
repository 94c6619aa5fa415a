"""Positions: sinusoidal encodings and rotary embeddings (chapter 8).

Self-attention alone does not see order (it is permutation-equivariant, chapter 5). Both
schemes here use the d/2 frequencies

    omega_i = base^(-2i/d),   i = 0, ..., d/2 - 1,   base = 10000,

from one turn per 2 pi tokens (i = 0) down to one turn per 2 pi base tokens.

* Sinusoidal encodings (Vaswani et al. 2017, §3.5), added to the tokens:
  PE[p, 2i] = sin(p omega_i), PE[p, 2i+1] = cos(p omega_i). A shift by k tokens is one fixed
  linear map, PE[p + k] = R(k) PE[p], with R(k) block-diagonal of 2 x 2 rotations that do
  not depend on p (:func:`sinusoidal_shift`); so PE[p] . PE[p + k] = sum_i cos(k omega_i)
  depends on k alone.
* Rotary embeddings, RoPE (Su et al. 2021), applied to queries and keys: the pair
  (x_2i, x_2i+1) of the token at position p is rotated by the angle p omega_i. Rotations
  keep lengths, and (rope q at p) . (rope k at p') = q . R((p' - p) omega) k depends on the
  positions only through p' - p.
"""

import numpy as np

from .validation import finite_array, positive_int


def _even(func, d):
    d = positive_int(func, "d", d)
    if d % 2:
        raise ValueError(f"{func}: d = {d} is odd; the dimensions go in pairs (2i, 2i+1), so d "
                         "must be even")
    return d


def _base(func, base):
    if isinstance(base, bool) or not isinstance(base, (int, float, np.floating)) \
            or not np.isfinite(base) or base <= 1:
        raise ValueError(f"{func}: base must be a number greater than 1; got {base!r}")
    return float(base)


def position_frequencies(d, base=10000.0):
    """The d/2 frequencies ``omega_i = base**(-2i/d)`` of dimension pairs i (chapter 8)."""
    func = "position_frequencies"
    d = _even(func, d)
    return _base(func, base) ** (-np.arange(0, d, 2) / d)


def sinusoidal_positions(n, d):
    """``PE`` (n, d): ``PE[p, 2i] = sin(p omega_i)``, ``PE[p, 2i+1] = cos(p omega_i)`` (chapter 8).

    Positions p = 0, ..., n - 1, frequencies omega_i = 10000**(-2i/d) (Vaswani et al. §3.5);
    d must be even.
    """
    n = positive_int("sinusoidal_positions", "n", n)
    d = _even("sinusoidal_positions", d)
    angles = np.arange(n)[:, None] * position_frequencies(d)
    PE = np.empty((n, d))
    PE[:, 0::2] = np.sin(angles)
    PE[:, 1::2] = np.cos(angles)
    return PE


def sinusoidal_shift(k, d):
    """The (d, d) matrix R(k) with ``PE[p + k] = R(k) @ PE[p]`` for every p (chapter 8).

    Block-diagonal: pair i has the block [[cos k omega_i, sin k omega_i], [-sin k omega_i,
    cos k omega_i]] (from sin(a + b) and cos(a + b)); it depends on the shift k (any real
    number) and not on p. For all rows at once, ``PE[p + k] = PE[p] @ R(k).T``.
    """
    func = "sinusoidal_shift"
    d = _even(func, d)
    k = float(finite_array(func, "k", k, (0,), "a number"))
    angle = k * position_frequencies(d)
    c, s = np.cos(angle), np.sin(angle)
    R = np.zeros((d, d))
    pairs = np.arange(0, d, 2)
    R[pairs, pairs] = R[pairs + 1, pairs + 1] = c
    R[pairs, pairs + 1] = s
    R[pairs + 1, pairs] = -s
    return R


def rope(X, positions=None, base=10000.0):
    """Rotary position embedding of X (..., n, d) (chapter 8; Su et al. 2021).

    The pair (x_2i, x_2i+1) of row p is rotated by the angle ``positions[p] * base**(-2i/d)``:
    (x_2i cos a - x_2i+1 sin a, x_2i sin a + x_2i+1 cos a). ``positions`` (n,) defaults to
    0, ..., n - 1 (any real numbers may be given, e.g. an offset); d must be even. X may have
    leading axes (a batch, heads); the same positions apply to each.
    """
    func = "rope"
    X = finite_array(func, "X", X, (2, 3, 4), "a matrix (n, d) with one token per row, or a "
                     "stack of them (..., n, d)")
    n, d = X.shape[-2:]
    _even(func, d)
    if positions is None:
        positions = np.arange(n, dtype=np.float64)
    else:
        positions = finite_array(func, "positions", positions, (1,), f"a vector (n,), n = {n}")
        if positions.shape != (n,):
            raise ValueError(f"{func}: positions has {positions.shape[0]} entries but X has "
                             f"n = {n} rows (one position per token)")
    angle = positions[:, None] * position_frequencies(d, _base(func, base))
    c, s = np.cos(angle), np.sin(angle)
    even, odd = X[..., 0::2], X[..., 1::2]
    out = np.empty_like(X)
    out[..., 0::2] = even * c - odd * s
    out[..., 1::2] = even * s + odd * c
    return out
