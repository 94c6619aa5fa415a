"""Masks: which keys a query may attend to (chapter 8).

A mask is a boolean array, ``True`` where attending is allowed, broadcastable to the score
array (``(n,)`` for one query, ``(t, n)`` for a batch of queries, ``(n, n)`` for a sequence,
``(b, n, n)`` for a batch of sequences). A masked score becomes ``-inf`` before the softmax,

    a_i = exp(s_i) / sum_{j allowed} exp(s_j)  if i is allowed,    a_i = 0  otherwise,

so its weight is exactly 0 and the allowed weights still sum to 1 (PyTorch's convention for
a boolean ``attn_mask``). A row with no ``True`` has nothing to attend to and is an error.
"""

import numpy as np

from .validation import positive_int, shape_text


def causal_mask(n):
    """The ``(n, n)`` causal mask ``mask[j, i] = (i <= j)`` (chapter 8).

    Token j sees itself and the tokens before it, never a later one: the mask of a decoder,
    the same as PyTorch's ``is_causal=True``.
    """
    n = positive_int("causal_mask", "n", n)
    return np.tri(n, dtype=bool)


def padding_mask(lengths, n):
    """The key mask of sequences padded to ``n`` tokens (chapter 8).

    For one length (an int) returns ``(n,)``: ``mask[i] = (i < length)``, the real tokens
    and not the padding. For a batch of ``b`` lengths returns ``(b, 1, n)``, which broadcasts
    to the scores ``(b, n, n)`` of a batch of sequences: every query, padded or not, sees
    the real tokens of its own sequence. Combine it with :func:`causal_mask` by ``&``. The
    outputs at padded positions are computed but mean nothing; only the real tokens' outputs
    are to be read (they do not depend on the padding at all). Each length is in 1 ... n.
    """
    n = positive_int("padding_mask", "n", n)
    single = np.ndim(lengths) == 0
    values = np.atleast_1d(np.asarray(lengths))
    if values.ndim != 1 or values.size == 0 or not np.issubdtype(values.dtype, np.integer):
        raise ValueError("padding_mask: lengths must be a whole number or a non-empty sequence "
                         f"of whole numbers; got {lengths!r}")
    if values.min() < 1 or values.max() > n:
        raise ValueError(f"padding_mask: every length must be between 1 and n = {n}; got "
                         f"{values.tolist() if not single else int(values[0])}")
    mask = np.arange(n) < values[:, None]
    return mask[0] if single else mask[:, None, :]


def check_mask(func, mask, score_shape):
    """Return ``mask`` as a bool array after checking it against the score shape.

    ``ValueError`` naming ``func`` if the mask is not boolean (naming its dtype), does not
    broadcast to ``score_shape`` (naming both shapes), or leaves a row of the scores with no
    ``True`` (naming the row).
    """
    mask = np.asarray(mask)
    if mask.dtype != np.bool_:
        raise ValueError(f"{func}: mask must be a boolean array (True = may attend); got dtype "
                         f"{mask.dtype}")
    mask = np.atleast_1d(mask)
    score_shape = tuple(score_shape)
    try:
        fits = np.broadcast_shapes(mask.shape, score_shape) == score_shape
    except ValueError:
        fits = False
    if not fits:
        raise ValueError(f"{func}: mask of shape {shape_text(mask.shape)} does not broadcast to "
                         f"the scores of shape {shape_text(score_shape)}")
    allowed = np.broadcast_to(mask.any(axis=-1), score_shape[:-1])
    if not allowed.all():
        row = tuple(int(i) for i in np.argwhere(~allowed)[0])
        where = f"row {row[0] if len(row) == 1 else row} of the scores" if row else "the scores"
        raise ValueError(f"{func}: mask leaves {where} (shape {shape_text(score_shape)}) with no "
                         "True entry, so that query has nothing to attend to")
    return mask


def mask_scores(s, mask):
    """Set the scores ``s`` where ``mask`` is False to ``-inf``, in place; returns ``s``.

    For a mask already checked by :func:`check_mask`; ``None`` leaves ``s`` as it is.
    """
    if mask is not None:
        np.copyto(s, -np.inf, where=~mask)
    return s
