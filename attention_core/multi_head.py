"""Multi-head attention (chapter 6).

    MultiHead(X) = [head_1, ..., head_h] W_O,
    head_r = self-attention with the head's own W_Q^(r), W_K^(r), W_V^(r),

where [.] lays the h matrices (n, d_v) side by side into (n, h d_v) and W_O is (h d_v, d).
"""

import numpy as np

from .self_attention import attend_unchecked, check_projections
from .validation import finite_array


def check_heads(func, X, heads):
    """Check ``heads``: a non-empty sequence of (W_Q, W_K, W_V) triples of one shape each."""
    heads = list(heads) if not isinstance(heads, np.ndarray) else [tuple(h) for h in heads]
    if not heads:
        raise ValueError(f"{func}: heads is empty; give at least one (W_Q, W_K, W_V) triple")
    checked = []
    for r, head in enumerate(heads, start=1):
        if len(head) != 3:
            raise ValueError(f"{func}: head {r} has {len(head)} matrices; each head is a "
                             "(W_Q, W_K, W_V) triple")
        X, *mats = check_projections(f"{func} (head {r})", X, *head)
        shapes = [W.shape for W in mats]
        first = [W.shape for W in checked[0]] if checked else shapes
        if shapes != first:
            raise ValueError(f"{func}: head {r} has shapes {shapes} but head 1 has {first} "
                             "(all heads must have the same d_k and d_v)")
        checked.append(mats)
    return X, checked


def multi_head_attention(X, heads, W_O):
    """[head_1, ..., head_h] W_O for X (n, d), h triples and W_O (h d_v, d); returns (n, d)."""
    X, heads = check_heads("multi_head_attention", X, heads)
    d_v = heads[0][2].shape[1]
    h = len(heads)
    W_O = finite_array("multi_head_attention", "W_O", W_O, (2,), "a matrix (h d_v, d)")
    if W_O.shape != (h * d_v, X.shape[1]):
        raise ValueError(f"multi_head_attention: W_O has shape {W_O.shape} but h d_v x d = "
                         f"{h} * {d_v} x {X.shape[1]} = {(h * d_v, X.shape[1])} is needed "
                         "(one row per column of the concatenated heads, one column per "
                         "dimension of X)")
    concat = np.empty((X.shape[0], h * d_v))
    for r, (W_Q, W_K, W_V) in enumerate(heads):
        # each head into a contiguous array first: BLAS cannot write into a strided column block
        concat[:, r * d_v:(r + 1) * d_v] = attend_unchecked(X, W_Q, W_K, W_V)
    return concat @ W_O
