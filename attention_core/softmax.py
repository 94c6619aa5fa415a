"""Softmax and its derivative (chapters 1 and 4).

    a_i = exp(s_i) / sum_j exp(s_j),        da_i/ds_j = a_i ([i = j] - a_j).
"""

import numpy as np

from .validation import shape_text


def _shifted(func, s, axis):
    """Scores minus their slice maximum, after checking them as ``softmax`` documents."""
    s = np.asarray(s, dtype=np.float64)
    if s.ndim == 0 or s.shape[axis] == 0:
        raise ValueError(f"{func}: s needs at least one score along axis {axis}; got shape "
                         f"{shape_text(s.shape)}")
    if np.isnan(s).any() or np.isposinf(s).any():
        raise ValueError(f"{func}: s contains NaN or +inf (shape {shape_text(s.shape)}); "
                         "only -inf is allowed, meaning a masked entry")
    top = s.max(axis=axis, keepdims=True)
    if np.isneginf(top).any():
        raise ValueError(f"{func}: a slice of s (shape {shape_text(s.shape)}) along axis {axis} "
                         "is all -inf, so no entry can take the weight")
    return s - top


def softmax(s, axis=-1):
    """Weights ``a = softmax(s)`` along ``axis`` (chapter 1, step 2 of the definition).

    Numerically stable: the largest score of each slice is subtracted before ``exp``, so
    scores of 1e4 give no overflow. An entry of ``-inf`` means "masked" and gets weight 0.
    NaN, ``+inf``, or a slice whose entries are all ``-inf`` raise ``ValueError``.
    """
    return softmax_unchecked(_shifted("softmax", s, axis), axis)


def log_softmax(s, axis=-1):
    """``ln softmax(s)``: the log-probabilities of the cross-entropy loss (chapters 2 and 4).

    Computed as ``(s - max s) - ln sum_j exp(s_j - max s)`` (the sum is at least 1), so a
    weight too small for a float keeps its finite logarithm instead of ``ln 0``. Checks
    its input as ``softmax`` does; a masked score gets ``-inf``.
    """
    shifted = _shifted("log_softmax", s, axis)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def softmax_unchecked(s, axis=-1):
    """Softmax of finite scores, computed in place in ``s`` (which it returns).

    For callers that have already checked their inputs, where a second pass over a large
    score matrix would cost more than the softmax itself (chapters 5 and 6).
    """
    s -= s.max(axis=axis, keepdims=True)
    np.exp(s, out=s)
    s /= s.sum(axis=axis, keepdims=True)
    return s


def softmax_jacobian(a):
    """The Jacobian ``diag(a) - a a^T`` of softmax at weights ``a`` (chapter 4).

    Entry ``[i, j]`` is da_i/ds_j = a_i([i = j] - a_j). ``a`` is a weight vector ``(n,)``
    or a stack ``(..., n)``; the result is ``(n, n)`` or ``(..., n, n)``.
    """
    a = np.asarray(a, dtype=np.float64)
    if a.ndim == 0 or a.shape[-1] == 0 or not np.isfinite(a).all():
        raise ValueError("softmax_jacobian: a must be a non-empty vector of finite weights; "
                         f"got shape {shape_text(a.shape)}")
    eye = np.eye(a.shape[-1])
    return a[..., :, None] * eye - a[..., :, None] * a[..., None, :]


def softmax_backward(a, grad_a, axis=-1):
    """Gradient with respect to the scores, given weights ``a`` and the gradient ``grad_a``.

    The vector-Jacobian product of softmax (chapter 4): ``a * (g - sum(g * a))``, the
    same as ``softmax_jacobian(a).T @ g`` without forming the n x n matrix.
    """
    a = np.asarray(a, dtype=np.float64)
    grad_a = np.asarray(grad_a, dtype=np.float64)
    if a.shape != grad_a.shape:
        raise ValueError(f"softmax_backward: a has shape {shape_text(a.shape)} but grad_a has "
                         f"shape {shape_text(grad_a.shape)} (they must match)")
    return a * (grad_a - (grad_a * a).sum(axis=axis, keepdims=True))
