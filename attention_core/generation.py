"""Generating tokens one at a time, with and without a cache of keys and values (chapter 10).

A small decoder-only model (:class:`Decoder`): token embeddings E (n_vocab, d) plus the
sinusoidal positions of chapter 8, a stack of transformer blocks (chapter 9) under the
causal mask, a final layer norm and an output layer W_out (d, n_vocab) that gives the
logits of the next token. Greedy generation appends the token with the largest logit.

Without a cache, every step runs the whole stack over all tokens so far and reads the
logits at the last position: a step over n_s tokens computes h n_s^2 (d_k + d_v) products
in the attention of each layer, so t steps after a one-token prompt cost about t^3 / 3
times that. Under the causal mask the key and the value of a position in every layer
depend only on the tokens up to that position, so they stay the same at every later step.
The cache keeps them (per layer, (h, positions, d_k) and (h, positions, d_v)); a step then
computes only the new token's query, key and value and attends over the cache, h n_s
(d_k + d_v) products per layer, about t^2 / 2 for t steps. :func:`generation_cost` counts
the multiply-adds of both exactly, :func:`kv_cache_bytes` the cache's memory.
"""

from dataclasses import dataclass

import numpy as np

from . import multi_head as mha
from .cost import attention_cost, layer_cost
from .feed_forward import forward as ffn_forward
from .layer_norm import check_eps, check_scale_shift
from .layer_norm import forward as ln_forward
from .masks import causal_mask
from .positions import sinusoidal_positions
from .softmax import softmax_unchecked
from .transformer import Block, _forward, check_block
from .validation import finite_array, positive_int, shape_text


@dataclass(eq=False)
class Decoder:
    """A decoder-only language model (chapter 10): embeddings, blocks, final norm, output.

    ``embedding`` (n_vocab, d); ``blocks`` a list of :class:`Block` with d = the embedding's
    columns (the causal mask is applied in every one); ``gamma``, ``beta`` (d,) the final
    layer norm; ``W_out`` (d, n_vocab) the output layer. Position p (0, 1, ...) adds row p
    of ``sinusoidal_positions`` to its token's embedding; ``eps`` is the final norm's.
    """

    embedding: np.ndarray
    blocks: list
    gamma: np.ndarray
    beta: np.ndarray
    W_out: np.ndarray
    eps: float = 1e-5

    @classmethod
    def random(cls, n_vocab, d, h, d_ff, layers, rng, norm_first=True):
        """A model with random weights from ``rng``: pre-norm blocks of ``Block.random``,
        embeddings N(0, 1), W_out of the same Glorot scale as the blocks' matrices."""
        func = "Decoder.random"
        n_vocab, d, layers = (positive_int(func, name, value) for name, value in
                              (("n_vocab", n_vocab), ("d", d), ("layers", layers)))
        if d % 2:
            raise ValueError(f"{func}: d = {d} must be even (sinusoidal positions pair the "
                             "components)")
        blocks = [Block.random(d, h, d_ff, rng, norm_first=norm_first) for _ in range(layers)]
        return cls(rng.normal(size=(n_vocab, d)), blocks, np.ones(d), np.zeros(d),
                   rng.normal(0.0, np.sqrt(2.0 / (d + n_vocab)), (d, n_vocab)))

    @property
    def sizes(self):
        """``(n_vocab, d, h, d_k, d_v, d_ff, layers)``."""
        block = self.blocks[0]
        (d, d_k), d_v = block.heads[0][0].shape, block.heads[0][2].shape[1]
        return (self.embedding.shape[0], d, len(block.heads), d_k, d_v, block.W_1.shape[1],
                len(self.blocks))


def _check_model(func, model):
    for name in ("embedding", "blocks", "gamma", "beta", "W_out"):
        if not hasattr(model, name):
            raise ValueError(f"{func}: model must be a Decoder (or have its fields); "
                             f"{type(model).__name__} has no {name}")
    E = finite_array(func, "model.embedding", model.embedding, (2,),
                     "a matrix (n_vocab, d) with one row per token")
    n_vocab, d = E.shape
    if d % 2:
        raise ValueError(f"{func}: the embedding has d = {d} columns; d must be even "
                         "(sinusoidal positions pair the components)")
    blocks = list(model.blocks)
    if not blocks:
        raise ValueError(f"{func}: model.blocks is empty; give at least one Block")
    blocks = [check_block(f"{func} (block {i})", block, (1, d))
              for i, block in enumerate(blocks, start=1)]
    gamma, beta = check_scale_shift(func, (1, d), model.gamma, model.beta,
                                    ("model.gamma", "model.beta"))
    W_out = finite_array(func, "model.W_out", model.W_out, (2,), "a matrix (d, n_vocab)")
    if W_out.shape != (d, n_vocab):
        raise ValueError(f"{func}: model.W_out has shape {shape_text(W_out.shape)} but the "
                         f"embedding {shape_text(E.shape)} needs ({d}, {n_vocab})")
    return Decoder(E, blocks, gamma, beta, W_out, check_eps(func, getattr(model, "eps", 1e-5)))


def _check_tokens(func, name, tokens, n_vocab):
    array = np.asarray(tokens)
    if array.ndim != 1 or array.size == 0 or not np.issubdtype(array.dtype, np.integer):
        raise ValueError(f"{func}: {name} must be a non-empty sequence of whole numbers (token "
                         f"ids); got {tokens!r}")
    if array.min() < 0 or array.max() >= n_vocab:
        raise ValueError(f"{func}: every token id in {name} must be in 0 ... {n_vocab - 1} "
                         f"(n_vocab = {n_vocab}); got {array.tolist()}")
    return [int(token) for token in array]


def _embed(model, tokens, positions):
    return model.embedding[tokens] + positions[:len(tokens)]


def _hidden(model, tokens, positions):
    """The last block's output (n, d) for the tokens, all at once under the causal mask."""
    X = _embed(model, tokens, positions)
    mask = causal_mask(len(tokens))
    for block in model.blocks:
        X = _forward(X, block, mask)[0]
    return X


def _logits(model, hidden):
    return _ln(hidden, model.gamma, model.beta, model.eps) @ model.W_out


def decoder_logits(model, tokens):
    """The logits (n, n_vocab) of the next token after each prefix of ``tokens`` (chapter 10).

    Row j is computed from tokens 0 ... j only (the causal mask): the logits a generator
    reads after token j.
    """
    model = _check_model("decoder_logits", model)
    tokens = _check_tokens("decoder_logits", "tokens", tokens, model.embedding.shape[0])
    positions = sinusoidal_positions(len(tokens), model.embedding.shape[1])
    return _logits(model, _hidden(model, tokens, positions))


class KVCache:
    """The keys and values of every layer and head for the positions seen so far.

    ``keys[l]`` (h, capacity, d_k) and ``values[l]`` (h, capacity, d_v) for block l; the
    first ``length`` positions are filled. ``nbytes`` is the memory of the filled part.
    """

    def __init__(self, model, capacity):
        _, _, h, d_k, d_v, _, layers = model.sizes
        self.keys = [np.empty((h, capacity, d_k)) for _ in range(layers)]
        self.values = [np.empty((h, capacity, d_v)) for _ in range(layers)]
        self.length = 0

    @property
    def nbytes(self):
        per_position = sum(K[:, 0].nbytes + V[:, 0].nbytes
                           for K, V in zip(self.keys, self.values))
        return self.length * per_position


def _ln(z, gamma, beta, eps):
    return ln_forward(z, gamma, beta, eps)[0]


def _attend_cached(u, block, W, K, V, p):
    """Multi-head attention of one token u (d,) at position p over the cached positions."""
    h = len(block.heads)
    d_k, d_v = block.heads[0][0].shape[1], block.heads[0][2].shape[1]
    P = u @ W                               # the query (already / sqrt(d_k)), key and value
    q = P[:h * d_k].reshape(h, 1, d_k)
    K[:, p] = P[h * d_k:2 * h * d_k].reshape(h, d_k)
    V[:, p] = P[2 * h * d_k:].reshape(h, d_v)
    S = np.matmul(q, K[:, :p + 1].transpose(0, 2, 1))   # (h, 1, p + 1): one row per head
    heads = np.matmul(softmax_unchecked(S), V[:, :p + 1])
    return heads.reshape(h * d_v) @ block.W_O


def _step(model, stacked, cache, token, positions):
    """The last block's output (d,) for ``token`` at the next position, filling the cache."""
    p = cache.length
    x = model.embedding[token] + positions[p]
    for b, W, K, V in zip(model.blocks, stacked, cache.keys, cache.values):
        if b.norm_first:   # the block of chapter 9 for one token (transformer._forward)
            a = _attend_cached(_ln(x, b.gamma_1, b.beta_1, b.eps), b, W, K, V, p)
            y = x + a if b.residual else a
            f = ffn_forward(_ln(y, b.gamma_2, b.beta_2, b.eps), b.W_1, b.b_1, b.W_2, b.b_2)[0]
            x = y + f if b.residual else f
        else:
            a = _attend_cached(x, b, W, K, V, p)
            y = _ln(x + a if b.residual else a, b.gamma_1, b.beta_1, b.eps)
            f = ffn_forward(y, b.W_1, b.b_1, b.W_2, b.b_2)[0]
            x = _ln(y + f if b.residual else f, b.gamma_2, b.beta_2, b.eps)
    cache.length = p + 1
    return x


@dataclass(frozen=True)
class Generation:
    """What :func:`generate` returns.

    ``tokens`` the prompt followed by the generated tokens; ``logits`` (steps, n_vocab) the
    logits each step chose from; ``cache`` the :class:`KVCache` (None without a cache).
    """

    tokens: list
    logits: np.ndarray
    cache: KVCache | None


def generate(model, prompt, steps, cache=True):
    """Greedy generation of ``steps`` tokens after ``prompt`` (chapter 10).

    Each step appends the token with the largest logit. With ``cache=True`` every token
    goes through the blocks once and its keys and values are kept (:class:`KVCache`); with
    ``cache=False`` each step runs the blocks over the whole sequence so far. Both give the
    same tokens and, to rounding, the same logits.
    """
    func = "generate"
    model = _check_model(func, model)
    prompt = _check_tokens(func, "prompt", prompt, model.embedding.shape[0])
    steps = positive_int(func, "steps", steps)
    if not isinstance(cache, (bool, np.bool_)):
        raise ValueError(f"{func}: cache must be True or False; got {cache!r}")
    tokens = list(prompt)
    positions = sinusoidal_positions(len(prompt) + steps, model.embedding.shape[1])
    logits = np.empty((steps, model.embedding.shape[0]))
    kv = KVCache(model, len(prompt) + steps - 1) if cache else None
    stacked = [mha.stack_heads(block.heads) for block in model.blocks]
    for s in range(steps):
        if cache:
            for token in tokens[kv.length:]:    # the prompt first, then the newest token
                last = _step(model, stacked, kv, token, positions)
        else:
            last = _hidden(model, tokens, positions)[-1]
        logits[s] = _logits(model, last)
        tokens.append(int(np.argmax(logits[s])))
    return Generation(tokens, logits, kv)


@dataclass(frozen=True)
class GenerationCost:
    """Multiply-adds of generating ``steps`` tokens (:func:`generation_cost`)."""

    #: Q K^T and A V of every layer: the part that grows like t^3 without a cache
    attention: int
    #: the projections, W_O and the feed-forward network of every layer, and W_out
    linear: int

    @property
    def total(self):
        return self.attention + self.linear


def generation_cost(n_vocab, d, h, d_ff, layers, prompt_length, steps, cache):
    """The multiply-adds that :func:`generate` computes (chapter 10); a GenerationCost.

    d_k = d_v = d / h. Without a cache, step s (1 ... steps) runs every layer over
    n_s = prompt_length + s - 1 tokens: h n_s^2 (d_k + d_v) in attention (all n_s^2
    scores, masked ones too, as a dense implementation computes them) and
    ``layer_cost(n_s, ...).madds_linear`` in the rest. With a cache, each of the positions
    1 ... prompt_length + steps - 1 goes through every layer once, the one at position j
    attending to j keys: h j (d_k + d_v) in attention and the linear part of one token.
    Either way each step ends with d n_vocab for the logits of the last position.
    """
    func = "generation_cost"
    n_vocab, prompt_length, steps = (positive_int(func, name, value) for name, value in
                                     (("n_vocab", n_vocab), ("prompt_length", prompt_length),
                                      ("steps", steps)))
    layers = positive_int(func, "layers", layers)
    if not isinstance(cache, (bool, np.bool_)):
        raise ValueError(f"{func}: cache must be True or False; got {cache!r}")
    one = layer_cost(1, d, h, d_ff)
    per_key = one.h * (one.d_k + one.d_v)        # attention products per query and key
    if cache:
        last = prompt_length + steps - 1         # positions that go through the blocks
        attention = per_key * last * (last + 1) // 2
        linear = last * one.madds_linear
    else:
        lengths = range(prompt_length, prompt_length + steps)
        attention = per_key * sum(n * n for n in lengths)
        linear = sum(lengths) * one.madds_linear
    return GenerationCost(layers * attention, layers * linear + steps * one.d * n_vocab)


def kv_cache_bytes(positions, d, h, layers, itemsize, d_k=None, d_v=None):
    """Bytes of the keys and values of ``positions`` tokens in every layer (chapter 10).

    layers * positions * h (d_k + d_v) numbers of ``itemsize`` bytes (8 for float64, 4 for
    float32, 2 for float16); d_k = d_v = d / h by default. The original base transformer's
    sizes (d = 512, h = 8) with 6 layers at 2 048 tokens in float32: 50 331 648 bytes.
    """
    func = "kv_cache_bytes"
    a = attention_cost(positions, d, h, d_k, d_v)
    layers = positive_int(func, "layers", layers)
    itemsize = positive_int(func, "itemsize", itemsize)
    return layers * a.n * a.h * (a.d_k + a.d_v) * itemsize
