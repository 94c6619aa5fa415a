"""The transformer block (encoder layer) and its backward pass (chapter 9).

A block is multi-head self-attention and a feed-forward network, each wrapped in a residual
connection and a layer normalisation. Post-norm (Vaswani et al. 2017, and PyTorch's
``TransformerEncoderLayer(norm_first=False)``):

    Y = LN_1(X + MHA(X)),          Z = LN_2(Y + FFN(Y));

pre-norm (``norm_first=True``, the usual choice since, e.g., GPT-2):

    Y = X + MHA(LN_1(X)),          Z = Y + FFN(LN_2(Y)).

With ``residual=False`` the two "X +" and "Y +" terms are left out (chapter 9 measures how
much gradient reaches the first block of a stack without them). X is one sequence (n, d) or
a batch (b, n, d), computed at once; the mask (chapter 8) is broadcastable to the scores
(n, n), or (b, n, n) for a batch, e.g. ``causal_mask(n)`` or ``padding_mask(lengths, n)``.
"""

import dataclasses
from dataclasses import dataclass

import numpy as np

from . import multi_head as mha
from .feed_forward import backward as ffn_backward
from .feed_forward import check_ffn_weights
from .feed_forward import forward as ffn_forward
from .layer_norm import backward as ln_backward
from .layer_norm import check_eps, check_scale_shift
from .layer_norm import forward as ln_forward
from .masks import check_mask
from .validation import finite_array, positive_int, shape_text

#: The fields of a :class:`Block` that hold numbers, in order (``heads`` first).
ARRAYS = ("heads", "W_O", "gamma_1", "beta_1", "W_1", "b_1", "W_2", "b_2", "gamma_2", "beta_2")


@dataclass(eq=False)
class Block:
    """The parameters of one transformer block (chapter 9).

    ``heads`` is a list of h triples (W_Q, W_K, W_V) of shapes (d, d_k), (d, d_k), (d, d_v)
    and ``W_O`` (h d_v, d), as for ``multi_head_attention``; ``gamma_1``, ``beta_1`` (d,)
    belong to LN_1; ``W_1`` (d, d_ff), ``b_1`` (d_ff,), ``W_2`` (d_ff, d), ``b_2`` (d,) to the
    feed-forward network; ``gamma_2``, ``beta_2`` (d,) to LN_2. ``norm_first`` chooses
    pre-norm, ``residual=False`` drops the residual connections, ``eps`` is the layer norms'.
    The gradients of :func:`transformer_block_backward` come as a Block of the same shapes.
    """

    heads: list
    W_O: np.ndarray
    gamma_1: np.ndarray
    beta_1: np.ndarray
    W_1: np.ndarray
    b_1: np.ndarray
    W_2: np.ndarray
    b_2: np.ndarray
    gamma_2: np.ndarray
    beta_2: np.ndarray
    norm_first: bool = False
    residual: bool = True
    eps: float = 1e-5

    @classmethod
    def random(cls, d, h, d_ff, rng, norm_first=False, residual=True):
        """A block with random weights from the generator ``rng`` (chapter 9).

        d_k = d_v = d / h (so h must divide d). Every matrix (fan_in, fan_out) is drawn from
        N(0, 2 / (fan_in + fan_out)), the scale of Glorot and Bengio (2010), which keeps the
        variance of the signal about the same forward and backward; biases and betas are 0,
        gammas 1.
        """
        func = "Block.random"
        d, h, d_ff = (positive_int(func, name, v) for name, v in (("d", d), ("h", h),
                                                                  ("d_ff", d_ff)))
        if d % h:
            raise ValueError(f"{func}: d = {d} is not divisible by h = {h}, so the heads "
                             "cannot have d_k = d_v = d / h")
        if not isinstance(rng, np.random.Generator):
            raise ValueError(f"{func}: rng must be a numpy.random.Generator, e.g. "
                             f"np.random.default_rng(0); got {type(rng).__name__}")

        def glorot(rows, cols):
            return rng.normal(0.0, np.sqrt(2.0 / (rows + cols)), (rows, cols))

        d_k = d // h
        heads = [tuple(glorot(d, d_k) for _ in range(3)) for _ in range(h)]
        return cls(heads, glorot(h * d_k, d), np.ones(d), np.zeros(d), glorot(d, d_ff),
                   np.zeros(d_ff), glorot(d_ff, d), np.zeros(d), np.ones(d), np.zeros(d),
                   norm_first=norm_first, residual=residual)

    @property
    def params(self):
        """Every array by name (``"W_Q^(1)"``, ..., ``"W_O"``, ``"gamma_1"``, ...).

        The arrays themselves, not copies: an optimiser such as ``toy_task.Adam`` that
        updates them in place trains the block. A Block of gradients gives the same names.
        """
        named = {}
        for r, head in enumerate(self.heads, start=1):
            named.update({f"{name}^({r})": W for name, W in zip(("W_Q", "W_K", "W_V"), head)})
        named.update({name: getattr(self, name) for name in ARRAYS[1:]})
        return named

    @property
    def n_params(self):
        """The number of learned numbers."""
        return sum(np.size(p) for p in self.params.values())

    def __repr__(self):
        kind = "pre-norm" if self.norm_first else "post-norm"
        extra = "" if self.residual else ", no residuals"
        d, d_ff = np.shape(self.W_1)
        return (f"<Block ({kind}{extra}): d = {d}, h = {len(self.heads)}, d_ff = {d_ff}, "
                f"{self.n_params} parameters>")


def check_block(func, block, X_shape):
    """The block with every array checked against tokens of ``X_shape`` (..., d)."""
    missing = [name for name in ARRAYS if not hasattr(block, name)]
    if missing:
        raise ValueError(f"{func}: block must be a Block (or have its fields); "
                         f"{type(block).__name__} has no {', '.join(missing)}")
    for name in ("norm_first", "residual"):
        if not isinstance(getattr(block, name, None), (bool, np.bool_)):
            raise ValueError(f"{func}: block.{name} must be True or False; got "
                             f"{getattr(block, name, None)!r}")
    heads = mha.check_head_weights(func, X_shape, block.heads)
    W_O = mha.check_output(func, block.W_O, len(heads), heads[0][2].shape[1], X_shape[-1])
    gamma_1, beta_1 = check_scale_shift(func, X_shape, block.gamma_1, block.beta_1,
                                           ("gamma_1", "beta_1"))
    W_1, b_1, W_2, b_2 = check_ffn_weights(func, X_shape, block.W_1, block.b_1, block.W_2,
                                               block.b_2)
    gamma_2, beta_2 = check_scale_shift(func, X_shape, block.gamma_2, block.beta_2,
                                           ("gamma_2", "beta_2"))
    eps = check_eps(func, getattr(block, "eps", 1e-5))
    return Block(heads, W_O, gamma_1, beta_1, W_1, b_1, W_2, b_2, gamma_2, beta_2,
                 bool(block.norm_first), bool(block.residual), eps)


def _check(func, X, block, mask):
    X = finite_array(func, "X", X, (2, 3),
                     "a matrix (n, d) with one token per row or a batch of them (b, n, d)")
    block = check_block(func, block, X.shape)
    if mask is not None:
        n = X.shape[-2]
        mask = check_mask(func, mask, X.shape[:-2] + (n, n))
    return X, block, mask


def _forward(X, p, mask, n_queries=None):
    """``(Z, cache)`` of one block for checked inputs.

    With ``n_queries`` the block's output is computed for the first ``n_queries`` tokens
    only (every token is still a key and a value of the attention): Z is (..., n_queries,
    d), as a model needs it that reads its last block at token 0 alone.
    """
    h, attention = len(p.heads), (mha.stack_heads(p.heads), p.W_O)
    n_q = X.shape[-2] if n_queries is None else n_queries
    asking = X[..., :n_q, :]
    if p.norm_first:
        L_1, c_ln_1 = ln_forward(X, p.gamma_1, p.beta_1, p.eps)
        A, c_mha = mha.forward(L_1, *attention, h, mask, n_q)
        Y = asking + A if p.residual else A
        L_2, c_ln_2 = ln_forward(Y, p.gamma_2, p.beta_2, p.eps)
        F, c_ffn = ffn_forward(L_2, p.W_1, p.b_1, p.W_2, p.b_2)
        Z = Y + F if p.residual else F
    else:
        A, c_mha = mha.forward(X, *attention, h, mask, n_q)
        Y, c_ln_1 = ln_forward(asking + A if p.residual else A, p.gamma_1, p.beta_1, p.eps)
        F, c_ffn = ffn_forward(Y, p.W_1, p.b_1, p.W_2, p.b_2)
        Z, c_ln_2 = ln_forward(Y + F if p.residual else F, p.gamma_2, p.beta_2, p.eps)
    return Z, (c_mha, c_ln_1, c_ffn, c_ln_2, n_q)


def _backward(p, cache, dZ):
    """``(dX, grads)`` of one block from the cache of :func:`_forward`."""
    c_mha, c_ln_1, c_ffn, c_ln_2, n_q = cache
    if p.norm_first:
        dL_2, *g_ffn = ffn_backward(c_ffn, dZ)
        dY, *g_ln_2 = ln_backward(c_ln_2, dL_2)
        if p.residual:
            dY += dZ
        dL_1, dW, dW_O = mha.backward(c_mha, dY)
        dX, *g_ln_1 = ln_backward(c_ln_1, dL_1)
        if p.residual:
            dX[..., :n_q, :] += dY
    else:
        dV, *g_ln_2 = ln_backward(c_ln_2, dZ)
        dY, *g_ffn = ffn_backward(c_ffn, dV)
        if p.residual:
            dY += dV
        dU, *g_ln_1 = ln_backward(c_ln_1, dY)
        dX, dW, dW_O = mha.backward(c_mha, dU)
        if p.residual:
            dX[..., :n_q, :] += dU
    grads = Block(mha.unstack_heads(dW, p.heads), dW_O, *g_ln_1, *g_ffn, *g_ln_2,
                  p.norm_first, p.residual, p.eps)
    return dX, grads


def _check_gradient(func, dZ, shape):
    dZ = finite_array(func, "dZ", dZ, (1, 2, 3))
    if dZ.shape != shape:
        raise ValueError(f"{func}: dZ has shape {shape_text(dZ.shape)} but the output Z has "
                         f"shape {shape_text(shape)} (they must match)")
    return dZ


def transformer_block(X, block, mask=None):
    """Z of one transformer block (post-norm or pre-norm, module docstring) (chapter 9).

    ``X`` (n, d) or (b, n, d); ``block`` a :class:`Block`; returns Z of the shape of X.
    """
    X, block, mask = _check("transformer_block", X, block, mask)
    return _forward(X, block, mask)[0]


def transformer_block_vjp(X, block, mask=None):
    """``(Z, backward)``: the block's output and a function ``backward(dZ) -> (dX, grads)``.

    One forward pass whose intermediate results are kept for the backward pass, as a
    training step needs (chapter 9); ``backward`` gives what :func:`transformer_block_backward`
    gives, without computing the forward pass again. ("vjp": vector-Jacobian product.)
    """
    X, block, mask = _check("transformer_block_vjp", X, block, mask)
    Z, cache = _forward(X, block, mask)

    def backward(dZ):
        return _backward(block, cache, _check_gradient("transformer_block_vjp", dZ, Z.shape))
    return Z, backward


def transformer_block_backward(X, block, dZ, mask=None):
    """``(dX, grads)``: the gradients of ``sum(Z * dZ)`` for ``Z = transformer_block(X, block)``.

    ``grads`` is a :class:`Block` with the gradient of each parameter in its field (``heads``
    a list of (dW_Q, dW_K, dW_V) triples) (chapter 9). Back through the block in reverse:
    post-norm dV = LN_2'(dZ), dY = dV + FFN'(dV), dU = LN_1'(dY), dX = dU + MHA'(dU);
    pre-norm dY = dZ + LN_2'(FFN'(dZ)), dX = dY + LN_1'(MHA'(dY)).
    """
    func = "transformer_block_backward"
    X, block, mask = _check(func, X, block, mask)
    dZ = _check_gradient(func, dZ, X.shape)
    return _backward(block, _forward(X, block, mask)[1], dZ)


def without_residuals(block):
    """The same block (same arrays) with ``residual=False`` (chapter 9's comparison)."""
    return dataclasses.replace(block, residual=False)


def transformer_stack(X, blocks, mask=None):
    """The output of the blocks applied one after another (chapter 9); X (n, d) or (b, n, d)."""
    return _stack("transformer_stack", X, blocks, mask)[0]


def transformer_stack_vjp(X, blocks, mask=None, n_queries=None):
    """``(Z, backward)`` for a stack of blocks; ``backward(dZ) -> (dX, [grads per block])``.

    Chapter 9 reads, e.g., the size of the gradient that reaches the first block. With
    ``n_queries`` the last block is computed for the first ``n_queries`` tokens only (Z is
    (..., n_queries, d)): the same numbers as the full stack's first rows, and the same
    gradients when only those rows enter the loss, for less work.
    """
    return _stack("transformer_stack_vjp", X, blocks, mask, n_queries)


def _stack(func, X, blocks, mask, n_queries=None):
    blocks = list(blocks)
    if not blocks:
        raise ValueError(f"{func}: blocks is empty; give at least one Block")
    X, first, mask = _check(func, X, blocks[0], mask)
    if n_queries is not None:
        n_queries = positive_int(func, "n_queries", n_queries)
        if n_queries > X.shape[-2]:
            raise ValueError(f"{func}: n_queries = {n_queries} but X has only "
                             f"{X.shape[-2]} tokens")
    checked = [first] + [check_block(f"{func} (block {i})", b, X.shape)
                         for i, b in enumerate(blocks[1:], start=2)]
    caches = []
    for k, p in enumerate(checked, start=1):
        X, cache = _forward(X, p, mask, n_queries if k == len(checked) else None)
        caches.append(cache)

    def backward(dZ):
        dX = _check_gradient(func, dZ, X.shape)
        grads = []
        for p, cache in zip(reversed(checked), reversed(caches)):
            dX, g = _backward(p, cache, dX)
            grads.append(g)
        return dX, grads[::-1]
    return X, backward
