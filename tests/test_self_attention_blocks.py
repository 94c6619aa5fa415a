"""self_attention and multi_head_attention, which work in blocks of rows for speed, agree
with the formula computed the plain way, Z = softmax(Q K^T / sqrt(d_k)) V, at every n."""

import importlib

import numpy as np
import pytest

from attention_core import multi_head_attention, self_attention, self_attention_weights, softmax

module = importlib.import_module("attention_core.self_attention")


def plain(X, W_Q, W_K, W_V):
    S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(W_Q.shape[1])
    return softmax(S) @ (X @ W_V)


@pytest.mark.parametrize("n", [1, 2, 7, 129, 300])
def test_blocks_agree_with_the_formula(n, monkeypatch):
    # tiny blocks, so that n = 129 and 300 cross several block boundaries
    monkeypatch.setattr(module, "BLOCK_BYTES", 8 * 16)
    rng = np.random.default_rng(n)
    X = rng.standard_normal((n, 6)) * 3
    W_Q, W_K = rng.standard_normal((2, 6, 4))
    W_V = rng.standard_normal((6, 5))
    Z = self_attention(X, W_Q, W_K, W_V)
    assert Z.shape == (n, 5)
    np.testing.assert_allclose(Z, plain(X, W_Q, W_K, W_V), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(Z, self_attention_weights(X, W_Q, W_K) @ (X @ W_V),
                               rtol=1e-12, atol=1e-12)


def test_large_scores_do_not_overflow():
    X = np.array([[300.0, 0.0], [0.0, 300.0], [300.0, 300.0]])
    W = np.eye(2)
    Z = self_attention(X, W, W, W)
    assert np.isfinite(Z).all()
    np.testing.assert_allclose(Z, plain(X, W, W, W))


def test_multi_head_is_the_heads_side_by_side_times_w_o(monkeypatch):
    monkeypatch.setattr(module, "BLOCK_BYTES", 8 * 40)
    rng = np.random.default_rng(3)
    X = rng.standard_normal((90, 8))
    heads = [tuple(rng.standard_normal((3, 8, 2))) for _ in range(4)]
    W_O = rng.standard_normal((8, 8))
    expected = np.hstack([plain(X, *head) for head in heads]) @ W_O
    np.testing.assert_allclose(multi_head_attention(X, heads, W_O), expected,
                               rtol=1e-12, atol=1e-12)
