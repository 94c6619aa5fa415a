"""A plain recurrent layer, the tanh RNN of Elman (1990), for chapter 10's comparison.

For tokens x_1, ..., x_n (the rows of X, (n, d)) and a start state h_0 (default 0),

    h_j = tanh(W_x^T x_j + W_h^T h_{j-1} + b_h),   j = 1, ..., n,

with W_x (d, d_h), W_h (d_h, d_h) and b_h (d_h,); the states are the rows of H (n, d_h).
The input terms X W_x of all tokens are one matrix product, since they do not depend on
one another. The recurrent terms do: h_j needs h_{j-1}, so the layer takes n steps one
after another, each a product of a vector (d_h,) with W_h. These are the n "sequential
operations" of a recurrent layer in Table 1 of Vaswani et al. (2017). Chapter 7's encoder
states h_i are not quite this: Bahdanau et al. (2015) run two recurrent layers with gated
cells, one forwards and one backwards over the sentence, and h_i joins their states at i.
"""

import numpy as np

from .validation import finite_array, shape_text


def _check(func, X, W_x, W_h, b_h, h_0):
    X = finite_array(func, "X", X, (2,), "a matrix (n, d) with one token per row")
    W_x = finite_array(func, "W_x", W_x, (2,), "a matrix (d, d_h)")
    W_h = finite_array(func, "W_h", W_h, (2,), "a square matrix (d_h, d_h)")
    b_h = finite_array(func, "b_h", b_h, (1,), "a vector (d_h,)")
    d, d_h = X.shape[1], W_h.shape[0]
    if W_x.shape[0] != d:
        raise ValueError(f"{func}: W_x has shape {shape_text(W_x.shape)} but the tokens X "
                         f"{shape_text(X.shape)} have d = {d}, so W_x needs {d} rows")
    if W_h.shape != (d_h, d_h) or W_x.shape[1] != d_h:
        raise ValueError(f"{func}: W_h must be square (d_h, d_h) with d_h = the columns of W_x; "
                         f"got W_x {shape_text(W_x.shape)} and W_h {shape_text(W_h.shape)}")
    if b_h.shape != (d_h,):
        raise ValueError(f"{func}: b_h has shape {shape_text(b_h.shape)} but the state has "
                         f"d_h = {d_h}, so b_h must be ({d_h},)")
    if h_0 is None:
        h_0 = np.zeros(d_h)
    else:
        h_0 = finite_array(func, "h_0", h_0, (1,), "a vector (d_h,)")
        if h_0.shape != (d_h,):
            raise ValueError(f"{func}: h_0 has shape {shape_text(h_0.shape)} but the state has "
                             f"d_h = {d_h}, so h_0 must be ({d_h},)")
    return X, W_x, W_h, b_h, h_0


def rnn_layer(X, W_x, W_h, b_h, h_0=None):
    """The states H (n, d_h) of a tanh recurrent layer over the tokens X (chapter 10).

    Row j of H is h_j = tanh(W_x^T x_j + W_h^T h_{j-1} + b_h) (module docstring), from
    ``h_0`` (default the zero vector): one matrix product X W_x for all tokens, then n
    sequential steps, each one vector-matrix product with W_h and one tanh.
    """
    X, W_x, W_h, b_h, h = _check("rnn_layer", X, W_x, W_h, b_h, h_0)
    H = X @ W_x
    H += b_h                     # row j: W_x^T x_j + b_h, for every token at once
    recurrent = np.empty_like(h)
    for j in range(H.shape[0]):  # the n steps: h_j needs h_{j-1}
        np.matmul(h, W_h, out=recurrent)
        row = H[j]
        row += recurrent
        np.tanh(row, out=row)
        h = row
    return H
