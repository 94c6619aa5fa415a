"""Two classic mistakes in multi-head attention, written out so they can be shown and tested.

Chapter 6 runs them next to the correct :func:`attention_core.multi_head_attention`:

1. **Scaling by sqrt(d) instead of sqrt(d_k).** Each head compares queries and keys of
   dimension d_k, so its scores must be divided by sqrt(d_k) (8 for d_k = 64). Dividing by
   sqrt(d) of the tokens (d_model in the book; sqrt(512) = 22.6) shrinks every score by
   sqrt(h) more and makes the weights of every head flatter (closer to the uniform 1/n).
   It is exactly the correct computation with every W_Q divided by sqrt(h) (see below), so
   a model trained from scratch with it can learn the same functions, with W_Q sqrt(h)
   times larger. The harm is elsewhere: the scores start at the wrong scale (variance 1/h
   instead of about 1) and move sqrt(h) times less per step of Adam, which changes the
   optimisation regime the initialisation and the learning rate were chosen for (chapters 4
   and 6); and matrices trained with the correct scaling, loaded into such code, give every
   head sqrt(h) times smaller scores and silently different outputs.
2. **Splitting X into heads before the projections.** Head r must project the whole token
   x_j with its own matrices W_Q^(r), W_K^(r), W_V^(r) (d, d_k). Cutting X into h slices of
   d/h columns first and giving head r only slice r means head r never sees the other
   dimensions of a token: only the rows of its matrices in slice r take part.

Each mistake is the correct computation with altered matrices, so it is written that way:
dividing by sqrt(d) is the same as multiplying W_Q by sqrt(d_k / d); giving head r only
slice r of each token is the same as zeroing the rows of its matrices outside slice r.

These functions are wrong on purpose; never use them for anything but the comparison.
"""

import numpy as np

from .multi_head import check_heads, multi_head_attention
from .self_attention import check_projections, weights_unchecked


def _shrink(W_Q, d):
    """W_Q times sqrt(d_k / d): dividing its scores by sqrt(d_k) then divides them by sqrt(d)."""
    return W_Q * np.sqrt(W_Q.shape[1] / d)


def weights_scaled_by_sqrt_d(X, W_Q, W_K):
    """MISTAKE 1 for one head: softmax(X W_Q (X W_K)^T / sqrt(d)) with d = X's width, not d_k."""
    X, W_Q, W_K = check_projections("weights_scaled_by_sqrt_d", X, W_Q, W_K)
    return weights_unchecked(X, _shrink(W_Q, X.shape[1]), W_K)


def multi_head_scaled_by_sqrt_d(X, heads, W_O):
    """MISTAKE 1: multi-head attention whose every head divides its scores by sqrt(d)."""
    X, heads = check_heads("multi_head_scaled_by_sqrt_d", X, heads)
    d = X.shape[1]
    return multi_head_attention(X, [(_shrink(W_Q, d), W_K, W_V) for W_Q, W_K, W_V in heads],
                                W_O)


def multi_head_split_first(X, heads, W_O):
    """MISTAKE 2: cut X into h column slices of d/h and give head r only slice r.

    Head r then uses only the rows of W_Q^(r), W_K^(r), W_V^(r) that belong to slice r,
    and scales by sqrt(d_k) as it should. Needs d divisible by h.
    """
    func = "multi_head_split_first"
    X, heads = check_heads(func, X, heads)
    d, h = X.shape[1], len(heads)
    if d % h:
        raise ValueError(f"{func}: d = {d} is not divisible by h = {h}, so X cannot be cut "
                         "into h equal slices")
    blind = []
    for r, matrices in enumerate(heads):
        in_slice = np.zeros((d, 1))
        in_slice[r * d // h:(r + 1) * d // h] = 1.0
        blind.append(tuple(W * in_slice for W in matrices))
    return multi_head_attention(X, blind, W_O)
