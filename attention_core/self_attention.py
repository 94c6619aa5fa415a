"""Self-attention of a sequence to itself, in matrix form (chapter 5).

Tokens are the rows of X (n, d). With Q = X W_Q, K = X W_K, V = X W_V,

    A = softmax(Q K^T / sqrt(d_k))  (row by row),    Z = A V,

so row j of Z is z_j = sum_i a_ji v_i: token j's query attending to every token. A boolean
``mask`` (chapter 8) broadcastable to (n, n) gives ``a_ji = 0`` where ``mask[j, i]`` is False.
"""

import numpy as np

from .masks import check_mask, mask_scores
from .softmax import softmax_unchecked
from .validation import finite_array


def check_projections(func, X, W_Q, W_K, W_V=None):
    """Check X and the weight matrices chain: X (n, d), W_Q and W_K (d, d_k), W_V (d, d_v)."""
    X = finite_array(func, "X", X, (2,), "a matrix (n, d) with one token per row")
    return (X, *check_weights(func, X.shape, W_Q, W_K, W_V))


def check_weights(func, X_shape, W_Q, W_K, W_V=None, Y_shape=None):
    """Check W_Q (d, d_k), W_K and W_V (d, d_k), (d, d_v) for tokens X of shape ``X_shape``.

    For cross-attention (chapter 8) keys and values come from other tokens Y of shape
    ``Y_shape`` (n_y, d_y): then W_K is (d_y, d_k) and W_V (d_y, d_v).
    """
    checked = []
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        if W is None:
            continue
        tokens, shape, d = ("X", X_shape, "d") if name == "W_Q" or Y_shape is None else \
            ("Y", Y_shape, "d_y")
        rows = shape[-1]
        W = finite_array(func, name, W, (2,), f"a matrix (d, columns) with d = {rows} rows")
        if W.shape[0] != rows:
            raise ValueError(f"{func}: {name} has shape {W.shape} but the tokens {tokens} "
                             f"{tuple(shape)} have {d} = {rows}, so {tokens} @ {name} needs "
                             f"{name} with {rows} rows")
        checked.append(W)
    if checked[0].shape[1] != checked[1].shape[1]:
        raise ValueError(f"{func}: W_Q {checked[0].shape} and W_K {checked[1].shape} must have "
                         "the same number of columns d_k (queries and keys are compared)")
    return checked


def weights_unchecked(X, W_Q, W_K, mask=None):
    """The (n, n) weight matrix A for inputs (and a mask) already checked."""
    Q = X @ W_Q
    Q *= 1.0 / np.sqrt(W_Q.shape[1])
    return softmax_unchecked(mask_scores(Q @ (X @ W_K).T, mask))


def self_attention_weights(X, W_Q, W_K, mask=None):
    """The (n, n) matrix A with ``A[j, i] = a_ji``; row j sums to 1 (chapter 5).

    With a ``mask`` broadcastable to (n, n) (chapter 8), ``A[j, i] = 0`` exactly where
    ``mask[j, i]`` is False; e.g. ``causal_mask(n)`` makes A lower triangular.
    """
    X, W_Q, W_K = check_projections("self_attention_weights", X, W_Q, W_K)
    n = X.shape[0]
    if mask is not None:
        mask = check_mask("self_attention_weights", mask, (n, n))
    return weights_unchecked(X, W_Q, W_K, mask)


#: Rows of queries handled at once by ``attend_unchecked``: a block of scores (rows x n)
#: of at most this many bytes stays in the processor's cache through softmax and A V.
BLOCK_BYTES = 4 * 2**20


def attend_unchecked(X, W_Q, W_K, W_V, mask=None):
    """Z = softmax(Q K^T / sqrt(d_k)) V for inputs (and a mask) already checked."""
    Q = X @ W_Q
    Q *= 1.0 / np.sqrt(W_Q.shape[1])
    return weighted_sum_unchecked(Q, (X @ W_K).T, X @ W_V, mask)


def weighted_sum_unchecked(Q, K_T, V, mask=None):
    """softmax(Q K^T) V for queries Q (n, d_k) already divided by sqrt(d_k), K^T (d_k, m).

    The same numbers as ``softmax(Q @ K_T) @ V``, computed so that the softmax costs little
    next to the matrix products: the scores of a block of queries are shifted by their row
    maximum and exponentiated in place, multiplied by V, and only then divided by their row
    sums, which divides n x d_v numbers instead of n x m. Large n is done in blocks of rows
    whose scores fit in the cache. A checked ``mask`` (broadcastable to (n, m)) sets the
    masked scores to -inf first, so their weights are exactly 0.
    """
    n, m = Q.shape[0], K_T.shape[1]
    Z = np.empty((n, V.shape[1]))
    rows = max(128, BLOCK_BYTES // (8 * m))
    if rows < n:
        K_T = np.ascontiguousarray(K_T)
    blocked = None if mask is None else np.broadcast_to(~mask, (n, m))
    scores = np.empty((min(rows, n), m))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        s = scores[:stop - start]
        np.matmul(Q[start:stop], K_T, out=s)
        if blocked is not None:
            np.copyto(s, -np.inf, where=blocked[start:stop])
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        z = np.matmul(s, V, out=Z[start:stop])
        z /= s.sum(axis=1, keepdims=True)
    return Z


def self_attention(X, W_Q, W_K, W_V, mask=None):
    """Z = softmax(X W_Q (X W_K)^T / sqrt(d_k)) X W_V, shape (n, d_v) (chapter 5).

    With a ``mask`` broadcastable to (n, n) (chapter 8), token j's output leaves out the
    values of the tokens i with ``mask[j, i]`` False.
    """
    X, W_Q, W_K, W_V = check_projections("self_attention", X, W_Q, W_K, W_V)
    n = X.shape[0]
    if mask is not None:
        mask = check_mask("self_attention", mask, (n, n))
    return attend_unchecked(X, W_Q, W_K, W_V, mask)
