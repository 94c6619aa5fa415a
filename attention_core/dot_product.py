"""Scaled dot-product attention of one query (or a batch of queries) to n items (chapter 1).

    s_i = q . k_i / sqrt(d),    (a_1, ..., a_n) = softmax(s_1, ..., s_n),
    Attention(q; k_1..k_n; v_1..v_n) = sum_i a_i v_i.

Keys and values are rows: ``K`` is ``(n, d)``, ``V`` is ``(n,)`` or ``(n, m)``. A boolean
``mask`` (chapter 8, ``True`` = may attend) broadcastable to the scores ``(n,)`` or ``(t, n)``
gives the masked keys weight exactly 0 (see :mod:`attention_core.masks`).
"""

import numpy as np

from .masks import check_mask, mask_scores
from .softmax import softmax_backward, softmax_unchecked
from .validation import finite_array, same_size


def _query_and_keys(func, q, K):
    q = finite_array(func, "q", q, (1, 2), "a vector (d,) or a batch of queries (t, d)")
    K = finite_array(func, "K", K, (2,), "a matrix (n, d) with one key per row")
    if q.shape[-1] != K.shape[1]:
        raise ValueError(f"{func}: q has dimension d = {q.shape[-1]} but the keys K {K.shape} "
                         f"have d = {K.shape[1]} (a query and its keys must have the same d)")
    return q, K


def _values(func, V, n):
    V = finite_array(func, "V", V, (1, 2),
                     "a vector (n,) or a matrix (n, m) with one value per row")
    same_size(func, "the number of keys (rows of K)", n, "the number of values (rows of V)",
              V.shape[0], "keys and values must pair up")
    return V


def _scores(q, K):
    return (q @ K.T) * (1.0 / np.sqrt(K.shape[1]))


def _weights(func, q, K, mask):
    """Checked masked weights: softmax of the scores with masked entries at -inf."""
    s = _scores(q, K)
    if mask is not None:
        mask_scores(s, check_mask(func, mask, s.shape))
    return softmax_unchecked(s)


def scores(q, K):
    """Scores ``s_i = q . k_i / sqrt(d)``: ``(n,)`` for q ``(d,)``, ``(t, n)`` for q ``(t, d)``."""
    q, K = _query_and_keys("scores", q, K)
    return _scores(q, K)


def attention_weights(q, K, mask=None):
    """Weights ``a = softmax(s)``; each row is positive and sums to 1 (chapter 1).

    With a ``mask`` (chapter 8) the masked weights are exactly 0 and the others sum to 1.
    """
    q, K = _query_and_keys("attention_weights", q, K)
    return _weights("attention_weights", q, K, mask)


def attention(q, K, V, mask=None):
    """The soft-dictionary look-up ``sum_i a_i v_i`` (chapter 1, the definition).

    Returns a scalar for q ``(d,)`` and V ``(n,)``; ``(m,)`` for V ``(n, m)``; and one
    more leading axis of length t for a batch of queries ``(t, d)``. A ``mask`` (chapter 8)
    leaves the masked values out of the sum.
    """
    q, K = _query_and_keys("attention", q, K)
    V = _values("attention", V, K.shape[0])
    return _weights("attention", q, K, mask) @ V


def attention_backward(q, K, V, grad_out, mask=None):
    """Gradients ``(dq, dK, dV)`` of a loss, given its gradient ``grad_out`` w.r.t. the output.

    Backpropagation through the three steps of the definition (chapters 1, 2 and 4):
    dV = a^T g, da = g V^T, ds = a * (da - sum(a * da)), dq = ds K / sqrt(d),
    dK = ds^T q / sqrt(d). ``grad_out`` has the shape of ``attention(q, K, V)``. With a
    ``mask`` the masked weights are 0, so are their ds, and a masked key and value get
    exactly zero gradient from that query.
    """
    q, K = _query_and_keys("attention_backward", q, K)
    V = _values("attention_backward", V, K.shape[0])
    a = _weights("attention_backward", q, K, mask)
    g = np.asarray(grad_out, dtype=np.float64)
    expected = np.shape(a @ V)
    if g.shape != expected:
        raise ValueError(f"attention_backward: grad_out has shape {g.shape} but the output of "
                         f"attention has shape {expected}")
    grad_V = np.tensordot(a, g, axes=(list(range(a.ndim - 1)),) * 2)
    grad_a = g @ V.T if V.ndim == 2 else np.multiply.outer(g, V)
    grad_s = softmax_backward(a, grad_a) / np.sqrt(K.shape[1])
    grad_q = grad_s @ K
    grad_K = np.tensordot(grad_s, q, axes=(list(range(q.ndim - 1)),) * 2)
    return grad_q, grad_K, grad_V
