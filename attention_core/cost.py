"""What attention costs: parameters and multiply-adds (chapter 6), the encoder layer (chapter 9)
and Table 1 of Vaswani et al. 2017 (chapter 10).

For n tokens of dimension d and h heads, each head r has W_Q^(r), W_K^(r) (d, d_k) and
W_V^(r) (d, d_v); W_O is (h d_v, d). One head computes

    Q, K, V = X W_Q, X W_K, X W_V     n d (2 d_k + d_v) multiply-adds,
    S = Q K^T                          n^2 d_k multiply-adds, n^2 entries,
    Z = A V                            n^2 d_v multiply-adds.

The parameters do not depend on n; the score matrix and the last two products grow
with n^2. For the original Transformer (d = 512, h = 8, d_k = d_v = 64) and n = 1 000, one
head has 98 304 parameters, 1 000 000 scores and 98 304 000 + 64 000 000 + 64 000 000
multiply-adds.

In the book's notation from chapter 5 on, ``d`` is d_model, the dimension of the tokens, and
d_k the dimension of queries and keys (the d of chapters 1-4).
"""

from dataclasses import dataclass
from typing import NamedTuple

from .validation import positive_int


@dataclass(frozen=True)
class AttentionCost:
    """Counts for one layer of (multi-head) self-attention; ``*_head`` fields are one head."""

    n: int
    d: int
    h: int
    d_k: int
    d_v: int
    #: W_Q, W_K, W_V of one head: d d_k + d d_k + d d_v
    params_head: int
    #: entries of one head's score matrix Q K^T: n^2
    scores_head: int
    #: multiply-adds of one head for Q, K, V: n d (2 d_k + d_v)
    madds_qkv_head: int
    #: multiply-adds of one head for Q K^T: n^2 d_k
    madds_scores_head: int
    #: multiply-adds of one head for the weighted sum A V: n^2 d_v
    madds_weighted_sum_head: int

    @property
    def params_heads(self):
        """W_Q, W_K, W_V of all h heads."""
        return self.h * self.params_head

    @property
    def params_W_O(self):  # noqa: N802 (the source's symbol)
        """The output matrix W_O (h d_v, d)."""
        return self.h * self.d_v * self.d

    @property
    def params_total(self):
        """All heads and W_O."""
        return self.params_heads + self.params_W_O

    @property
    def scores_heads(self):
        """Entries of the score matrices of all heads: h n^2."""
        return self.h * self.scores_head

    @property
    def madds_qkv(self):
        return self.h * self.madds_qkv_head

    @property
    def madds_scores(self):
        return self.h * self.madds_scores_head

    @property
    def madds_weighted_sum(self):
        return self.h * self.madds_weighted_sum_head

    @property
    def madds_W_O(self):  # noqa: N802 (the source's symbol)
        """[head_1, ..., head_h] W_O: n (h d_v) d multiply-adds."""
        return self.n * self.h * self.d_v * self.d

    @property
    def madds_head(self):
        """All multiply-adds of one head."""
        return self.madds_qkv_head + self.madds_scores_head + self.madds_weighted_sum_head

    @property
    def madds_total(self):
        """All multiply-adds of the layer: h heads and W_O."""
        return self.h * self.madds_head + self.madds_W_O

    @property
    def madds_linear(self):
        """The multiply-adds that grow as n: Q, K, V of all heads and W_O, 2 h n d (d_k + d_v)."""
        return self.madds_qkv + self.madds_W_O

    @property
    def madds_quadratic(self):
        """The multiply-adds that grow as n^2: Q K^T and A V of all heads, h n^2 (d_k + d_v).

        With W_O counted, they equal ``madds_linear`` at n = 2 d and exceed it for longer
        texts, whatever h, d_k and d_v are (n = 2 d = 1 024 for the original Transformer,
        chapter 6).
        """
        return self.madds_scores + self.madds_weighted_sum


def attention_cost(n, d, h=1, d_k=None, d_v=None):
    """Parameters and multiply-adds of self-attention with h heads over n tokens of dimension d.

    ``d_k`` and ``d_v`` default to d / h (the Transformer's choice); then d must be divisible
    by h. Every size must be a whole number >= 1. Returns an :class:`AttentionCost`.
    """
    func = "attention_cost"
    n = positive_int(func, "n", n)
    d = positive_int(func, "d", d)
    h = positive_int(func, "h", h)
    if d_k is None or d_v is None:
        if d % h:
            raise ValueError(f"{func}: d = {d} is not divisible by h = {h}, so d_k = d_v = d/h "
                             "is not a whole number; give d_k and d_v explicitly")
    d_k = d // h if d_k is None else positive_int(func, "d_k", d_k)
    d_v = d // h if d_v is None else positive_int(func, "d_v", d_v)
    return AttentionCost(
        n=n, d=d, h=h, d_k=d_k, d_v=d_v,
        params_head=d * (2 * d_k + d_v),
        scores_head=n * n,
        madds_qkv_head=n * d * (2 * d_k + d_v),
        madds_scores_head=n * n * d_k,
        madds_weighted_sum_head=n * n * d_v,
    )


@dataclass(frozen=True)
class LayerCost:
    """Counts for one encoder layer (transformer block) over n tokens (chapter 9).

    Multiply-adds are those of the matrix products only; the element-wise work (softmax,
    layer norms, ReLU, biases, residual sums) is O(n d + h n^2) and not counted.
    """

    n: int
    d: int
    h: int
    d_k: int
    d_v: int
    d_ff: int
    #: W_Q, W_K, W_V of all heads and W_O: h d (2 d_k + d_v) + h d_v d
    params_attention: int
    #: W_1, b_1, W_2, b_2: d d_ff + d_ff + d_ff d + d
    params_ffn: int
    #: gamma and beta of both layer norms: 4 d
    params_norms: int
    #: X W_Q, X W_K, X W_V of all heads: n h d (2 d_k + d_v)
    madds_projections: int
    #: [head_1, ..., head_h] W_O: n h d_v d
    madds_W_O: int  # noqa: N815 (the source's symbol)
    #: relu(X W_1 + b_1) W_2: 2 n d d_ff
    madds_ffn: int
    #: Q K^T of all heads: h n^2 d_k
    madds_scores: int
    #: A V of all heads: h n^2 d_v
    madds_weighted_sum: int

    @property
    def params_total(self):
        return self.params_attention + self.params_ffn + self.params_norms

    @property
    def madds_linear_attention(self):
        """The attention sublayer's multiply-adds linear in n: projections and W_O."""
        return self.madds_projections + self.madds_W_O

    @property
    def madds_linear(self):
        """The layer's multiply-adds linear in n: projections, W_O and the FFN."""
        return self.madds_linear_attention + self.madds_ffn

    @property
    def madds_quadratic(self):
        """The multiply-adds quadratic in n: scores and weighted sums, h n^2 (d_k + d_v)."""
        return self.madds_scores + self.madds_weighted_sum

    @property
    def madds_attention(self):
        """The whole attention sublayer with W_O."""
        return self.madds_linear_attention + self.madds_quadratic

    @property
    def madds_total(self):
        return self.madds_linear + self.madds_quadratic

    @property
    def crossover_attention(self):
        """The n at which the n^2 part equals the linear part of the attention sublayer.

        Linear: n h d (2 d_k + 2 d_v); quadratic: n^2 h (d_k + d_v); equal at n = 2 d, for
        any h, d_k and d_v.
        """
        return self.n * self.madds_linear_attention / self.madds_quadratic

    @property
    def crossover_layer(self):
        """The n at which the n^2 part equals the linear part of the whole layer.

        n = 2 d + 2 d d_ff / (h (d_k + d_v)); for h d_k = h d_v = d that is 2 d + d_ff,
        n = 6 d for d_ff = 4 d.
        """
        return self.n * self.madds_linear / self.madds_quadratic


def layer_cost(n, d, h, d_ff, d_k=None, d_v=None):
    """Parameters and multiply-adds of one encoder layer (chapter 9); a :class:`LayerCost`.

    ``d_k``, ``d_v`` default to d / h as in :func:`attention_cost`. For the base transformer
    (d = 512, h = 8, d_ff = 2 048) the attention sublayer with W_O has 4 d^2 = 1 048 576
    parameters and the FFN 2 d d_ff + d_ff + d = 2 099 712.
    """
    a = attention_cost(n, d, h, d_k, d_v)
    d_ff = positive_int("layer_cost", "d_ff", d_ff)
    return LayerCost(
        n=a.n, d=a.d, h=a.h, d_k=a.d_k, d_v=a.d_v, d_ff=d_ff,
        params_attention=a.params_total,
        params_ffn=2 * a.d * d_ff + d_ff + a.d,
        params_norms=4 * a.d,
        madds_projections=a.madds_qkv,
        madds_W_O=a.madds_W_O,
        madds_ffn=2 * a.n * a.d * d_ff,
        madds_scores=a.madds_scores,
        madds_weighted_sum=a.madds_weighted_sum,
    )


#: The layer types of Table 1 of Vaswani et al. (2017), as :func:`layer_complexity` names them.
LAYER_TYPES = ("self_attention", "recurrent", "convolutional", "restricted_self_attention")


class Complexity(NamedTuple):
    """One row of Table 1 of Vaswani et al. (2017) as numbers (chapter 10); a tuple."""

    #: operations per layer, the table's expression: n^2 d, n d^2, k n d^2 or min(r, n) n d
    operations: int
    #: operations that must follow one another: 1, n, 1 or 1
    sequential: int
    #: layers (recurrent steps) from the input at position 1 to the output at position n:
    #: 1, n, max(1, ceil(log_k n)) or max(1, ceil((n - 1) / r))
    path_length: int


def layer_complexity(kind, n, d, k=None, r=None):
    """Table 1 of Vaswani et al. (2017) for one layer ``kind`` of ``LAYER_TYPES`` (chapter 10).

    Operations and sequential operations are the table's expressions read as numbers, i.e.
    orders of magnitude, not exact counts (self-attention's matrix products alone are
    2 n^2 d multiply-adds, plus 3 n d^2 for its projections):

    * ``"self_attention"``: n^2 d operations, 1 sequential;
    * ``"recurrent"``: n d^2, n;
    * ``"convolutional"`` with kernel width ``k`` >= 2: k n d^2, 1;
    * ``"restricted_self_attention"`` with a window of ``r`` >= 1 positions: r n d with r
      capped at n (a window longer than the text is the whole text), 1.

    Path lengths are exact, for layers that pass information forwards only, from earlier
    positions to later ones (as a recurrent layer does, and every layer of a decoder): the
    smallest number of stacked layers (for the recurrent layer, of steps) through which the
    input at position 1 reaches the output at position n, at least 1. Self-attention: 1.
    Recurrent: n (x_1 enters h_1, then n - 1 steps to h_n). Convolutional: dilated causal
    kernels, layer l seeing the inputs k^(l-1) apart, so that L layers see k^L positions:
    the smallest L >= 1 with k^L >= n. Restricted: each output sees its own position and the
    r before it, so one layer carries information r positions forwards: ceil((n - 1) / r),
    at least 1. Vaswani et al. restrict self-attention instead to a neighbourhood of size r
    centred on the output position, which reaches r / 2 positions each way; its path is
    ceil(2 (n - 1) / r), about twice as long, of the same order n / r.

    ``k`` is needed for the convolutional layer and ``r`` for the restricted one, and only
    there. Returns a :class:`Complexity`.
    """
    func = "layer_complexity"
    if kind not in LAYER_TYPES:
        raise ValueError(f"{func}: kind must be one of {', '.join(map(repr, LAYER_TYPES))}; "
                         f"got {kind!r}")
    n = positive_int(func, "n", n)
    d = positive_int(func, "d", d)
    for name, value, owner in (("k", k, "convolutional"), ("r", r, "restricted_self_attention")):
        if value is None and kind == owner:
            raise ValueError(f"{func}: the {kind} layer needs {name}")
        if value is not None and kind != owner:
            raise ValueError(f"{func}: {name} belongs to the {owner} layer, not to {kind}")
    if kind == "self_attention":
        return Complexity(n * n * d, 1, 1)
    if kind == "recurrent":
        return Complexity(n * d * d, n, n)
    if kind == "convolutional":
        k = positive_int(func, "k", k, minimum=2)
        layers, reach = 1, k
        while reach < n:
            layers, reach = layers + 1, reach * k
        return Complexity(k * n * d * d, 1, layers)
    r = positive_int(func, "r", r)
    return Complexity(min(r, n) * n * d, 1, max(1, -(-(n - 1) // r)))
