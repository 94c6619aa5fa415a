"""The position-wise feed-forward network of a transformer block (chapter 9).

The same two-layer network for every token, with a ReLU in between (Vaswani et al. 2017,
eq. 2):

    FFN(x) = relu(x W_1 + b_1) W_2 + b_2,    W_1 (d, d_ff), b_1 (d_ff,), W_2 (d_ff, d), b_2 (d,).

Backward, with H = relu(X W_1 + b_1) and G the gradient of the output:
dW_2 = H^T G, db_2 = sum G, dP = (G W_2^T) * [H > 0], dW_1 = X^T dP, db_1 = sum dP,
dX = dP W_1^T (the ReLU's derivative taken as 0 at 0, as PyTorch does).
"""

import numpy as np

from .validation import finite_array, shape_text


def check_feed_forward(func, X, W_1, b_1, W_2, b_2):
    """Check X (..., d) with 1 to 3 axes and the shapes of W_1, b_1, W_2, b_2 against d."""
    X = finite_array(func, "X", X, (1, 2, 3),
                     "a token (d,), a matrix (n, d) or a batch (b, n, d)")
    return X, *check_ffn_weights(func, X.shape, W_1, b_1, W_2, b_2)


def check_ffn_weights(func, X_shape, W_1, b_1, W_2, b_2):
    """Check W_1 (d, d_ff), b_1 (d_ff,), W_2 (d_ff, d), b_2 (d,) for tokens of ``X_shape``."""
    d = X_shape[-1]
    W_1 = finite_array(func, "W_1", W_1, (2,), f"a matrix (d, d_ff) with d = {d} rows")
    d_ff = W_1.shape[1]
    expected = {"W_1": (d, d_ff), "b_1": (d_ff,), "W_2": (d_ff, d), "b_2": (d,)}
    checked = {"W_1": W_1}
    for name, p in (("b_1", b_1), ("W_2", W_2), ("b_2", b_2)):
        checked[name] = finite_array(func, name, p, (len(expected[name]),),
                                     f"of shape {shape_text(expected[name])}")
    for name, p in checked.items():
        if p.shape != expected[name]:
            raise ValueError(f"{func}: {name} has shape {shape_text(p.shape)} but "
                             f"{shape_text(expected[name])} is needed for X "
                             f"{shape_text(X_shape)} (d = {d}) and W_1 {shape_text(W_1.shape)} "
                             f"(d_ff = {d_ff})")
    return list(checked.values())


def forward(X, W_1, b_1, W_2, b_2):
    """``(FFN(X), cache)`` for checked inputs; the cache is what :func:`backward` needs."""
    flat = X.reshape(-1, X.shape[-1])
    H = flat @ W_1
    H += b_1
    np.maximum(H, 0.0, out=H)
    out = H @ W_2
    out += b_2
    return out.reshape(X.shape), (flat, H, W_1, W_2)


def backward(cache, grad_out):
    """``(dX, dW_1, db_1, dW_2, db_2)`` from the cache of :func:`forward` and dFFN(X)."""
    flat, H, W_1, W_2 = cache
    G = grad_out.reshape(flat.shape)
    grad_W_2 = H.T @ G
    grad_b_2 = G.sum(axis=0)
    grad_P = G @ W_2.T
    grad_P *= H > 0
    grad_W_1 = flat.T @ grad_P
    grad_b_1 = grad_P.sum(axis=0)
    return (grad_P @ W_1.T).reshape(grad_out.shape), grad_W_1, grad_b_1, grad_W_2, grad_b_2


def feed_forward(X, W_1, b_1, W_2, b_2):
    """``relu(X W_1 + b_1) W_2 + b_2`` for each token of X (d,), (n, d) or (b, n, d) (chapter 9)."""
    return forward(*check_feed_forward("feed_forward", X, W_1, b_1, W_2, b_2))[0]


def feed_forward_backward(X, W_1, b_1, W_2, b_2, grad_out):
    """Gradients ``(dX, dW_1, db_1, dW_2, db_2)``, given ``grad_out`` of the shape of X.

    The formulas of chapter 9 (module docstring).
    """
    func = "feed_forward_backward"
    X, W_1, b_1, W_2, b_2 = check_feed_forward(func, X, W_1, b_1, W_2, b_2)
    grad_out = finite_array(func, "grad_out", grad_out, (1, 2, 3))
    if grad_out.shape != X.shape:
        raise ValueError(f"{func}: grad_out has shape {shape_text(grad_out.shape)} but X has "
                         f"shape {shape_text(X.shape)} (they must match)")
    return backward(forward(X, W_1, b_1, W_2, b_2)[1], grad_out)
