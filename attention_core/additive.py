"""Additive attention (Bahdanau), the score network the dot product replaced (chapter 7).

    e_i = w^T tanh(W s + U h_i),    (a_1..a_n) = softmax(e_1..e_n),    c = sum_i a_i h_i,

with the decoder state s = s_{t-1} (d_s,) as the query and the encoder states h_i, rows
of H (n, d_h), as both keys and values. W is (p, d_s), U is (p, d_h), w is (p,).
"""

import numpy as np

from .softmax import softmax_unchecked
from .validation import finite_array


def _check(func, s, H, W, U, w):
    s = finite_array(func, "s", s, (1,), "a vector (d_s,)")
    H = finite_array(func, "H", H, (2,), "a matrix (n, d_h) with one encoder state per row")
    W = finite_array(func, "W", W, (2,), "a matrix (p, d_s)")
    U = finite_array(func, "U", U, (2,), "a matrix (p, d_h)")
    w = finite_array(func, "w", w, (1,), "a vector (p,)")
    p = w.shape[0]
    if W.shape != (p, s.shape[0]):
        raise ValueError(f"{func}: W has shape {W.shape} but (p, d_s) = {(p, s.shape[0])} is "
                         f"needed for w {w.shape} and s {s.shape}")
    if U.shape != (p, H.shape[1]):
        raise ValueError(f"{func}: U has shape {U.shape} but (p, d_h) = {(p, H.shape[1])} is "
                         f"needed for w {w.shape} and H {H.shape}")
    return s, H, W, U, w


def _scores(s, H, W, U, w):
    hidden = H @ U.T
    hidden += W @ s
    return np.tanh(hidden, out=hidden) @ w


def additive_scores(s, H, W, U, w):
    """Scores ``e_i = w^T tanh(W s + U h_i)`` for every row h_i of H; returns (n,)."""
    return _scores(*_check("additive_scores", s, H, W, U, w))


def additive_weights(s, H, W, U, w):
    """Weights ``softmax(e)``: positive, summing to 1 (chapter 7, step 2)."""
    return softmax_unchecked(_scores(*_check("additive_weights", s, H, W, U, w)))


def additive_attention(s, H, W, U, w):
    """The context vector ``c = sum_i a_i h_i`` (d_h,) (chapter 7, step 3)."""
    s, H, W, U, w = _check("additive_attention", s, H, W, U, w)
    return softmax_unchecked(_scores(s, H, W, U, w)) @ H
