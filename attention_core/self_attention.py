"""Self-attention of a sequence to itself, in matrix form (chapter 5).

Tokens are the rows of X (n, d). With Q = X W_Q, K = X W_K, V = X W_V,

    A = softmax(Q K^T / sqrt(d_k))  (row by row),    Z = A V,

so row j of Z is z_j = sum_i a_ji v_i: token j's query attending to every token.
"""

import numpy as np

from .softmax import softmax_unchecked
from .validation import finite_array


def check_projections(func, X, W_Q, W_K, W_V=None):
    """Check X and the weight matrices chain: X (n, d), W_Q and W_K (d, d_k), W_V (d, d_v)."""
    X = finite_array(func, "X", X, (2,), "a matrix (n, d) with one token per row")
    d = X.shape[1]
    checked = []
    for name, W in (("W_Q", W_Q), ("W_K", W_K), ("W_V", W_V)):
        if W is None:
            continue
        W = finite_array(func, name, W, (2,), f"a matrix (d, columns) with d = {d} rows")
        if W.shape[0] != d:
            raise ValueError(f"{func}: {name} has shape {W.shape} but the tokens X {X.shape} have "
                             f"d = {d}, so X @ {name} needs {name} with {d} rows")
        checked.append(W)
    if checked[0].shape[1] != checked[1].shape[1]:
        raise ValueError(f"{func}: W_Q {checked[0].shape} and W_K {checked[1].shape} must have "
                         "the same number of columns d_k (queries and keys are compared)")
    return (X, *checked)


def weights_unchecked(X, W_Q, W_K):
    """The (n, n) weight matrix A for inputs already checked by ``check_projections``."""
    Q = X @ W_Q
    Q *= 1.0 / np.sqrt(W_Q.shape[1])
    return softmax_unchecked(Q @ (X @ W_K).T)


def self_attention_weights(X, W_Q, W_K):
    """The (n, n) matrix A with ``A[j, i] = a_ji``; row j sums to 1 (chapter 5)."""
    return weights_unchecked(*check_projections("self_attention_weights", X, W_Q, W_K))


#: Rows of queries handled at once by ``attend_unchecked``: a block of scores (rows x n)
#: of at most this many bytes stays in the processor's cache through softmax and A V.
BLOCK_BYTES = 4 * 2**20


def attend_unchecked(X, W_Q, W_K, W_V):
    """Z = softmax(Q K^T / sqrt(d_k)) V for inputs already checked by ``check_projections``.

    The same numbers as ``weights_unchecked(X, W_Q, W_K) @ (X @ W_V)``, computed so that the
    softmax costs little next to the matrix products: the scores of a block of queries are
    shifted by their row maximum and exponentiated in place, multiplied by V, and only then
    divided by their row sums, which divides n x d_v numbers instead of n x n. Large n is
    done in blocks of rows whose scores fit in the cache.
    """
    Q = X @ W_Q
    Q *= 1.0 / np.sqrt(W_Q.shape[1])
    K_T = (X @ W_K).T
    V = X @ W_V
    n = X.shape[0]
    Z = np.empty((n, V.shape[1]))
    rows = max(128, BLOCK_BYTES // (8 * K_T.shape[1]))
    if rows < n:
        K_T = np.ascontiguousarray(K_T)
    scores = np.empty((min(rows, n), K_T.shape[1]))
    for start in range(0, n, rows):
        stop = min(start + rows, n)
        s = scores[:stop - start]
        np.matmul(Q[start:stop], K_T, out=s)
        s -= s.max(axis=1, keepdims=True)
        np.exp(s, out=s)
        z = np.matmul(s, V, out=Z[start:stop])
        z /= s.sum(axis=1, keepdims=True)
    return Z


def self_attention(X, W_Q, W_K, W_V):
    """Z = softmax(X W_Q (X W_K)^T / sqrt(d_k)) X W_V, shape (n, d_v) (chapter 5)."""
    return attend_unchecked(*check_projections("self_attention", X, W_Q, W_K, W_V))
