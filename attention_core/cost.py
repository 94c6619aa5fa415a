"""What self-attention and multi-head attention cost: parameters and multiply-adds (chapter 6).

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
