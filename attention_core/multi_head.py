"""Multi-head attention (chapter 6) and its backward pass (chapter 9).

    MultiHead(X) = [head_1, ..., head_h] W_O,
    head_r = self-attention with the head's own W_Q^(r), W_K^(r), W_V^(r),

where [.] lays the h matrices (n, d_v) side by side into (n, h d_v) and W_O is (h d_v, d).

For the transformer of chapter 9, X may also be a batch (b, n, d). The heads are then
computed all at once: their matrices stacked side by side into one (d, h (2 d_k + d_v))
matrix, so the projections of every token of every sequence are one matrix product, and
the scores of all sequences and heads one batched product (b, h, n, d_k) x (b, h, d_k, n).
"""

import numpy as np

from .masks import check_mask
from .self_attention import attend_unchecked, check_weights
from .validation import finite_array, shape_text


def check_heads(func, X, heads, ndims=(2,)):
    """Check X (n, d), or with ``ndims=(2, 3)`` also (b, n, d), and its ``heads``."""
    what = "a matrix (n, d) with one token per row"
    if ndims != (2,):
        what += " or a batch of them (b, n, d)"
    X = finite_array(func, "X", X, ndims, what)
    return X, check_head_weights(func, X.shape, heads)


def check_head_weights(func, X_shape, heads):
    """Check ``heads``: a non-empty sequence of (W_Q, W_K, W_V) triples of one shape each."""
    heads = list(heads) if not isinstance(heads, np.ndarray) else [tuple(h) for h in heads]
    if not heads:
        raise ValueError(f"{func}: heads is empty; give at least one (W_Q, W_K, W_V) triple")
    checked = []
    for r, head in enumerate(heads, start=1):
        if len(head) != 3:
            raise ValueError(f"{func}: head {r} has {len(head)} matrices; each head is a "
                             "(W_Q, W_K, W_V) triple")
        mats = check_weights(f"{func} (head {r})", X_shape, *head)
        shapes = [W.shape for W in mats]
        first = [W.shape for W in checked[0]] if checked else shapes
        if shapes != first:
            raise ValueError(f"{func}: head {r} has shapes {shapes} but head 1 has {first} "
                             "(all heads must have the same d_k and d_v)")
        checked.append(tuple(mats))
    return checked


def check_output(func, W_O, h, d_v, d):
    """Check W_O (h d_v, d): one row per column of the concatenated heads."""
    W_O = finite_array(func, "W_O", W_O, (2,), "a matrix (h d_v, d)")
    if W_O.shape != (h * d_v, d):
        raise ValueError(f"{func}: W_O has shape {W_O.shape} but h d_v x d = "
                         f"{h} * {d_v} x {d} = {(h * d_v, d)} is needed "
                         "(one row per column of the concatenated heads, one column per "
                         "dimension of X)")
    return W_O


def check_multi_head(func, X, heads, W_O, mask):
    """Check every input of multi-head attention once; X (n, d) or (b, n, d)."""
    X, heads = check_heads(func, X, heads, ndims=(2, 3))
    W_O = check_output(func, W_O, len(heads), heads[0][2].shape[1], X.shape[-1])
    if mask is not None:
        n = X.shape[-2]
        mask = check_mask(func, mask, X.shape[:-2] + (n, n))
    return X, heads, W_O, mask


def multi_head_attention(X, heads, W_O, mask=None):
    """[head_1, ..., head_h] W_O for X (n, d), h triples and W_O (h d_v, d); returns (n, d).

    ``X`` may be a batch (b, n, d) (chapter 9), returning (b, n, d). A ``mask`` (chapter 8)
    broadcastable to the scores (n, n), or (b, n, n) for a batch, applies to every head.
    """
    X, heads, W_O, mask = check_multi_head("multi_head_attention", X, heads, W_O, mask)
    if X.ndim == 3:
        return forward(X, stack_heads(heads), W_O, len(heads), mask)[0]
    d_v = heads[0][2].shape[1]
    concat = np.empty((X.shape[0], len(heads) * d_v))
    for r, (W_Q, W_K, W_V) in enumerate(heads):
        # each head into a contiguous array first: BLAS cannot write into a strided column block
        concat[:, r * d_v:(r + 1) * d_v] = attend_unchecked(X, W_Q, W_K, W_V, mask)
    return concat @ W_O


def multi_head_attention_backward(X, heads, W_O, grad_out, mask=None):
    """Gradients ``(dX, d_heads, dW_O)`` of multi-head attention (chapter 9).

    ``grad_out`` has the shape of the output (that of X); ``d_heads`` is a list of
    (dW_Q, dW_K, dW_V) triples, one per head. Per head and sequence, with A its weights and
    G its slice of ``grad_out W_O^T``: dV = A^T G, dA = G V^T, dS = A * (dA - rowsum(A dA)),
    dQ = dS K / sqrt(d_k), dK = dS^T Q / sqrt(d_k), then dW_Q = X^T dQ and so on, summed
    over the sequences of a batch. Masked weights are 0, so their scores get gradient 0.
    """
    func = "multi_head_attention_backward"
    X, heads, W_O, mask = check_multi_head(func, X, heads, W_O, mask)
    grad_out = finite_array(func, "grad_out", grad_out, (1, 2, 3))
    if grad_out.shape != X.shape:
        raise ValueError(f"{func}: grad_out has shape {shape_text(grad_out.shape)} but the "
                         f"output of multi_head_attention has shape {shape_text(X.shape)}")
    W = stack_heads(heads)
    cache = forward(X, W, W_O, len(heads), mask)[1]
    grad_X, grad_W, grad_W_O = backward(cache, grad_out)
    return grad_X, unstack_heads(grad_W, heads), grad_W_O


# --- all heads at once, for checked inputs (the transformer block uses these) ------------

def stack_heads(heads):
    """The (d, h (2 d_k + d_v)) matrix [W_Q^(1) ... W_Q^(h) | W_K^(1) ... | W_V^(1) ...].

    The query columns are divided by sqrt(d_k), so that X times it gives Q / sqrt(d_k).
    """
    d_k = heads[0][0].shape[1]
    return np.concatenate([W_Q * (1.0 / np.sqrt(d_k)) for W_Q, _, _ in heads]
                          + [W_K for _, W_K, _ in heads] + [W_V for _, _, W_V in heads], axis=1)


def unstack_heads(grad_W, heads):
    """The gradient of the stacked matrix split back into (dW_Q, dW_K, dW_V) per head."""
    h, (d_k, d_v) = len(heads), (heads[0][0].shape[1], heads[0][2].shape[1])
    scale = 1.0 / np.sqrt(d_k)
    q, k, v = np.split(grad_W, [h * d_k, 2 * h * d_k], axis=1)
    return [(q[:, r * d_k:(r + 1) * d_k] * scale, k[:, r * d_k:(r + 1) * d_k],
             v[:, r * d_v:(r + 1) * d_v]) for r in range(h)]


def _per_head(M, b, n, h):
    """(b n, h c) columns of h heads as (b, h, n, c): a view of M (its rows and column
    blocks split in place; reshape(copy=False) would need NumPy 2.1)."""
    return M.reshape(b, n, h, -1).transpose(0, 2, 1, 3)


def forward(X, W, W_O, h, mask=None, n_queries=None):
    """``(MultiHead(X), cache)`` for X (b, n, d) or (n, d), W from :func:`stack_heads`.

    A mask (checked) broadcastable to (b, n, n) is applied to every head. With
    ``n_queries`` only the first ``n_queries`` tokens ask (their rows of the output, shape
    (b, n_queries, d)); every token is still a key and a value. A model that reads its
    last block at token 0 alone (chapter 9) needs no more.
    """
    b, n, d = (1, *X.shape) if X.ndim == 2 else X.shape
    n_q = n if n_queries is None else n_queries
    flat = X.reshape(b * n, d)
    queries = X[..., :n_q, :].reshape(b * n_q, d)
    d_v = W_O.shape[0] // h
    d_k = (W.shape[1] - h * d_v) // (2 * h)
    Q = _per_head(queries @ W[:, :h * d_k], b, n_q, h)
    P = flat @ W[:, h * d_k:]
    K = _per_head(P[:, :h * d_k], b, n, h)
    V = _per_head(P[:, h * d_k:], b, n, h)
    A = np.matmul(Q, K.transpose(0, 1, 3, 2))
    if mask is not None:
        blocked = ~mask[..., :n_q, :] if mask.ndim >= 2 else ~mask
        np.copyto(A, -np.inf, where=blocked[..., None, :, :] if blocked.ndim == 3 else blocked)
    A -= A.max(axis=-1, keepdims=True)
    np.exp(A, out=A)
    A /= np.einsum("...ij->...i", A)[..., None]  # einsum: faster row sums than A.sum
    concat = np.empty((b * n_q, h * d_v))
    np.matmul(A, V, out=_per_head(concat, b, n_q, h))
    out = concat @ W_O
    shape = X.shape[:-2] + (n_q, X.shape[-1])
    return out.reshape(shape), (flat, queries, W, W_O, Q, K, V, A, concat, X.shape)


def backward(cache, grad_out):
    """``(dX, dW, dW_O)`` from the cache of :func:`forward`; dW is the stacked gradient.

    ``grad_out`` has the shape of the output; dX has the shape of X (with ``n_queries``,
    the tokens that did not ask get gradient only as keys and values).
    """
    flat, queries, W, W_O, Q, K, V, A, concat, X_shape = cache
    b, h, n_q, d_k = Q.shape
    n = K.shape[2]
    G = grad_out.reshape(b * n_q, -1)
    grad_W_O = concat.T @ G
    grad_O = _per_head(G @ W_O.T, b, n_q, h)
    grad_P = np.empty((b * n, W.shape[1] - h * d_k))
    grad_k, grad_v = (_per_head(part, b, n, h) for part in
                      np.split(grad_P, [h * d_k], axis=1))
    np.matmul(A.transpose(0, 1, 3, 2), grad_O, out=grad_v)
    grad_S = np.matmul(grad_O, V.transpose(0, 1, 3, 2))
    grad_S -= np.einsum("...ij,...ij->...i", grad_S, A)[..., None]
    grad_S *= A
    grad_Q = np.empty((b * n_q, h * d_k))
    np.matmul(grad_S, K, out=_per_head(grad_Q, b, n_q, h))
    np.matmul(grad_S.transpose(0, 1, 3, 2), Q, out=grad_k)
    grad_X = grad_P @ W[:, h * d_k:].T
    grad_X.reshape(b, n, -1)[:, :n_q] += (grad_Q @ W[:, :h * d_k].T).reshape(b, n_q, -1)
    grad_W = np.concatenate([queries.T @ grad_Q, flat.T @ grad_P], axis=1)
    return grad_X.reshape(X_shape), grad_W, grad_W_O
