"""Exact attention in linear memory: the online softmax and blocked attention (chapter 10).

The online softmax (Milakov and Gimelshein 2018) reads the scores once, block by block,
keeping the running maximum m and the running sum l of exp(s - m). When a block raises the
maximum from m to m', the sum so far is rescaled:

    m' = max(m, max of the block),   l' = exp(m - m') l + sum over the block of exp(s - m').

At the end softmax(s)_i = exp(s_i - m) / l. Blocked attention (FlashAttention, Dao et al.
2022) does the same for softmax(Q K^T / sqrt(d_k)) V tile by tile: for each block of query
rows it walks through the blocks of keys and keeps, besides m and l per row, the
unnormalised output acc = sum_i exp(s_i - m) v_i, rescaled by exp(m - m') like l. Only one
block_size x block_size tile of scores exists at a time, so the memory beyond the output
(n, d_v) is O(block_size^2 + block_size d_v) instead of the n x m scores; the result is the
plain formula's to rounding. A row that has seen only masked scores (m = -inf) keeps
l = 0 and acc = 0 until a tile gives it a score.
"""

from collections import deque
from dataclasses import dataclass

import numpy as np

from .masks import check_mask
from .validation import finite_array, positive_int, same_size, shape_text


def _rescale(m, block_max):
    """``(m', shift, alpha)``: the new running maximum, what to subtract, exp(m - m').

    A row still at -inf (only masked scores so far) subtracts 0 instead of -inf, so that
    exp gives 0 for its masked scores and for its (empty) past, never NaN.
    """
    m_new = np.maximum(m, block_max)
    shift = np.where(np.isneginf(m_new), 0.0, m_new)
    return m_new, shift, np.exp(m - shift)


def running_max_and_sum(s, block_size=1):
    """The running maximum m and sum l of the online softmax after each block of ``s``.

    ``s`` is a vector of scores (-inf allowed for masked ones, not all); returns two arrays
    of one entry per block of ``block_size`` scores: m after the block and
    l = sum over the scores so far of exp(s_i - m) (chapter 10).
    """
    func = "running_max_and_sum"
    s = _scores_vector(func, s)
    block_size = positive_int(func, "block_size", block_size)
    starts = range(0, s.size, block_size)
    ms, ls = np.empty(len(starts)), np.empty(len(starts))
    m, total = -np.inf, 0.0
    for t, start in enumerate(starts):
        block = s[start:start + block_size]
        m, shift, alpha = _rescale(m, block.max())
        total = alpha * total + np.exp(block - shift).sum()
        ms[t], ls[t] = m, total
    return ms, ls


def online_softmax(s, block_size=1):
    """softmax(s) from one pass of the running maximum and sum (chapter 10).

    The same numbers as ``softmax(s)`` to rounding: exp(s_i - m) / l with the final m and l
    of :func:`running_max_and_sum`.
    """
    s = _scores_vector("online_softmax", s)
    ms, ls = running_max_and_sum(s, block_size)
    return np.exp(s - ms[-1]) / ls[-1]


def _scores_vector(func, s):
    s = np.asarray(s, dtype=np.float64)
    if s.ndim != 1 or s.size == 0:
        raise ValueError(f"{func}: s must be a non-empty vector of scores; got shape "
                         f"{shape_text(s.shape)}")
    if np.isnan(s).any() or np.isposinf(s).any():
        raise ValueError(f"{func}: s contains NaN or +inf; only -inf is allowed, meaning a "
                         "masked entry")
    if np.isneginf(s).all():
        raise ValueError(f"{func}: every entry of s is -inf, so no entry can take the weight")
    return s


class _Rows:
    """Running max m, running sum l and unnormalised output acc of a block of query rows."""

    def __init__(self, rows, d_v):
        self.m = np.full(rows, -np.inf)
        self.l = np.zeros(rows)
        self.acc = np.zeros((rows, d_v))
        self.product = np.empty((rows, d_v))

    def add(self, S, V):
        """Take in a tile of scores S (rows, w), overwritten, and its values V (w, d_v)."""
        self.m, shift, alpha = _rescale(self.m, S.max(axis=1))
        S -= shift[:, None]
        np.exp(S, out=S)
        self.l *= alpha
        self.l += np.einsum("ij->i", S)
        self.acc *= alpha[:, None]
        self.acc += np.matmul(S, V, out=self.product)

    def output(self, out=None):
        """acc / l, and 0 in rows that have had only masked scores so far (l = 0)."""
        out = np.zeros_like(self.acc) if out is None else out
        return np.divide(self.acc, self.l[:, None], out=out, where=self.l[:, None] > 0)


def _tiles(Q, K, V, block_size, mask, causal, Z):
    """Walk the tiles in order; yield ``(i0, i1, j0, j1, rows)`` after each, fill Z.

    Queries i0 ... i1-1 against keys j0 ... j1-1; ``rows`` is their :class:`_Rows`. With
    ``causal`` the tiles above the diagonal (every key later than every query) are skipped.
    """
    (n, d_k), m, d_v = Q.shape, K.shape[0], V.shape[1]
    scale = 1.0 / np.sqrt(d_k)
    buffer = np.empty((min(block_size, n), min(block_size, m)))
    for i0 in range(0, n, block_size):
        i1 = min(i0 + block_size, n)
        queries = Q[i0:i1] * scale
        rows = _Rows(i1 - i0, d_v)
        for j0 in range(0, min(m, i1) if causal else m, block_size):
            j1 = min(j0 + block_size, m)
            S = np.matmul(queries, K[j0:j1].T, out=buffer[:i1 - i0, :j1 - j0])
            if mask is not None:
                np.copyto(S, -np.inf, where=~mask[i0:i1, j0:j1])
            if causal and j1 - 1 > i0:  # key j visible to query i iff j <= i
                np.copyto(S, -np.inf, where=~np.tri(i1 - i0, j1 - j0, i0 - j0, dtype=bool))
            rows.add(S, V[j0:j1])
            yield i0, i1, j0, j1, rows
        rows.output(out=Z[i0:i1])


def _check(func, Q, K, V, block_size, mask, causal):
    Q = finite_array(func, "Q", Q, (2,), "a matrix (n, d_k) with one query per row")
    K = finite_array(func, "K", K, (2,), "a matrix (m, d_k) with one key per row")
    V = finite_array(func, "V", V, (2,), "a matrix (m, d_v) with one value per row")
    if Q.shape[1] != K.shape[1]:
        raise ValueError(f"{func}: Q {Q.shape} and K {K.shape} must have the same number of "
                         "columns d_k (queries and keys are compared)")
    same_size(func, "the number of keys (rows of K)", K.shape[0],
              "the number of values (rows of V)", V.shape[0], "keys and values must pair up")
    block_size = positive_int(func, "block_size", block_size)
    if not isinstance(causal, (bool, np.bool_)):
        raise ValueError(f"{func}: causal must be True or False; got {causal!r}")
    scores = (Q.shape[0], K.shape[0])
    if mask is not None:
        mask = np.broadcast_to(check_mask(func, mask, scores), scores)
    return Q, K, V, block_size, mask, bool(causal)


def blocked_attention(Q, K, V, block_size, mask=None, causal=False):
    """``softmax(Q K^T / sqrt(d_k)) V`` tile by tile in linear memory (chapter 10).

    ``Q`` (n, d_k), ``K`` (m, d_k), ``V`` (m, d_v); returns (n, d_v). Never holds more than
    ``block_size x block_size`` scores (module docstring). ``mask`` broadcastable to (n, m)
    as for ``attention``; ``causal=True`` applies ``causal_mask`` (key j visible to query i
    iff j <= i, PyTorch's ``is_causal``) without forming the n x m mask: the tiles above the
    diagonal are skipped, those below it need no mask, and each tile across the diagonal
    makes its own mask of at most block_size x block_size.
    """
    Q, K, V, block_size, mask, causal = _check("blocked_attention", Q, K, V, block_size, mask,
                                               causal)
    Z = np.empty((Q.shape[0], V.shape[1]))
    deque(_tiles(Q, K, V, block_size, mask, causal, Z), maxlen=0)  # run every tile
    return Z


@dataclass(frozen=True)
class TileStep:
    """One tile of :func:`blocked_attention_steps`: what was computed and the state after it.

    ``queries`` and ``keys`` are the ranges (start, stop) of the tile's rows of Q and of K;
    ``running_max``, ``running_sum`` (stop - start of ``queries``,) are m and l of those
    query rows after the tile; ``output`` (rows, d_v) is acc / l, their output if the keys
    seen so far were all (0 for a row that has seen only masked keys).
    """

    queries: tuple
    keys: tuple
    running_max: np.ndarray
    running_sum: np.ndarray
    output: np.ndarray


def blocked_attention_steps(Q, K, V, block_size, mask=None, causal=False):
    """The steps of :func:`blocked_attention`, one :class:`TileStep` per tile in order.

    Checks its inputs at once and returns a generator, for chapter 10's slider: for each
    block of queries in turn, each block of keys (the order of the computation), with copies
    of the running maximum and sum of the query rows after the tile. The outputs of each
    query block's last tile are the rows of ``blocked_attention(Q, K, V, block_size, mask,
    causal)``.
    """
    checked = _check("blocked_attention_steps", Q, K, V, block_size, mask, causal)
    Z = np.empty((checked[0].shape[0], checked[2].shape[1]))
    return (TileStep((i0, i1), (j0, j1), rows.m.copy(), rows.l.copy(), rows.output())
            for i0, i1, j0, j1, rows in _tiles(*checked, Z))
