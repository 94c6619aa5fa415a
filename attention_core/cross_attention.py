"""Cross-attention: queries from one sequence, keys and values from another (chapter 8).

The decoder's tokens X (n_x, d) ask, the encoder's tokens Y (n_y, d_y) answer:

    Q = X W_Q,  K = Y W_K,  V = Y W_V,    Z = softmax(Q K^T / sqrt(d_k)) V,   Z (n_x, d_v),

so row j of Z is the attention of X's token j to all of Y. Self-attention is the case Y = X.
"""

import numpy as np

from .masks import check_mask
from .self_attention import check_weights, weighted_sum_unchecked
from .validation import finite_array


def cross_attention(X, Y, W_Q, W_K, W_V, mask=None):
    """softmax(X W_Q (Y W_K)^T / sqrt(d_k)) Y W_V, shape (n_x, d_v) (chapter 8).

    ``X`` (n_x, d), ``Y`` (n_y, d_y), ``W_Q`` (d, d_k), ``W_K`` (d_y, d_k), ``W_V``
    (d_y, d_v); ``mask`` broadcastable to (n_x, n_y), e.g. ``padding_mask`` of Y's length.
    """
    func = "cross_attention"
    X = finite_array(func, "X", X, (2,), "a matrix (n_x, d) with one query token per row")
    Y = finite_array(func, "Y", Y, (2,), "a matrix (n_y, d_y) with one key/value token per row")
    W_Q, W_K, W_V = check_weights(func, X.shape, W_Q, W_K, W_V, Y_shape=Y.shape)
    if mask is not None:
        mask = check_mask(func, mask, (X.shape[0], Y.shape[0]))
    Q = X @ W_Q
    Q *= 1.0 / np.sqrt(W_Q.shape[1])
    return weighted_sum_unchecked(Q, (Y @ W_K).T, Y @ W_V, mask)
