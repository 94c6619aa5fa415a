"""Two classic mistakes in multi-head attention, written out so they can be shown and tested.

Chapter 6 runs them next to the correct :func:`attention_core.multi_head_attention`:

1. **Scaling by sqrt(d) instead of sqrt(d_k).** Each head compares queries and keys of
   dimension d_k, so its scores must be divided by sqrt(d_k) (8 for d_k = 64). Dividing by
   sqrt(d) of the tokens (sqrt(512) = 22.6) shrinks every score by sqrt(h) more and makes
   the weights of every head flatter (closer to the uniform 1/n).
2. **Splitting X into heads before the projections.** Head r must project the whole token
   x_j with its own matrices W_Q^(r), W_K^(r), W_V^(r) (d, d_k). Cutting X into h slices of
   d/h columns first and giving head r only slice r means head r never sees the other
   dimensions of a token: only the rows of its matrices in slice r take part.

These functions are wrong on purpose; never use them for anything but the comparison.
"""

import numpy as np

from .multi_head import check_heads
from .softmax import softmax_unchecked
from .validation import finite_array


def _check_output_matrix(func, W_O, h, d_v, d):
    W_O = finite_array(func, "W_O", W_O, (2,), "a matrix (h d_v, d)")
    if W_O.shape != (h * d_v, d):
        raise ValueError(f"{func}: W_O has shape {W_O.shape} but h d_v x d = {(h * d_v, d)} "
                         "is needed")
    return W_O


def weights_scaled_by_sqrt_d(X, W_Q, W_K):
    """MISTAKE 1 for one head: softmax(X W_Q (X W_K)^T / sqrt(d)) with d = X's width, not d_k."""
    X, [(W_Q, W_K, _)] = check_heads("weights_scaled_by_sqrt_d", X, [(W_Q, W_K, W_K)])
    S = (X @ W_Q) @ (X @ W_K).T
    S *= 1.0 / np.sqrt(X.shape[1])
    return softmax_unchecked(S)


def multi_head_scaled_by_sqrt_d(X, heads, W_O):
    """MISTAKE 1: multi-head attention whose every head divides its scores by sqrt(d)."""
    func = "multi_head_scaled_by_sqrt_d"
    X, heads = check_heads(func, X, heads)
    d_v = heads[0][2].shape[1]
    W_O = _check_output_matrix(func, W_O, len(heads), d_v, X.shape[1])
    concat = [weights_scaled_by_sqrt_d(X, W_Q, W_K) @ (X @ W_V) for W_Q, W_K, W_V in heads]
    return np.concatenate(concat, axis=1) @ W_O


def multi_head_split_first(X, heads, W_O):
    """MISTAKE 2: cut X into h column slices of d/h and give head r only slice r.

    Head r then uses only the rows of W_Q^(r), W_K^(r), W_V^(r) that belong to slice r,
    and scales by sqrt(d_k) as it should. Needs d divisible by h.
    """
    func = "multi_head_split_first"
    X, heads = check_heads(func, X, heads)
    n, d = X.shape
    h = len(heads)
    if d % h:
        raise ValueError(f"{func}: d = {d} is not divisible by h = {h}, so X cannot be cut "
                         "into h equal slices")
    d_v = heads[0][2].shape[1]
    W_O = _check_output_matrix(func, W_O, h, d_v, d)
    width = d // h
    concat = []
    for r, (W_Q, W_K, W_V) in enumerate(heads):
        part = slice(r * width, (r + 1) * width)
        X_r = X[:, part]
        S = (X_r @ W_Q[part]) @ (X_r @ W_K[part]).T
        S *= 1.0 / np.sqrt(W_Q.shape[1])
        concat.append(softmax_unchecked(S) @ (X_r @ W_V[part]))
    return np.concatenate(concat, axis=1) @ W_O
