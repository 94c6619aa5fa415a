"""The two classic mistakes of chapter 6 give different results from the correct version."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import multi_head_attention, self_attention_weights
from attention_core.mistakes import (
    multi_head_scaled_by_sqrt_d,
    multi_head_split_first,
    weights_scaled_by_sqrt_d,
)


def transformer_like(seed, n=12, d=64, h=8):
    rng = np.random.default_rng(seed)
    d_k = d // h
    X = rng.normal(size=(n, d))
    heads = [tuple(rng.normal(size=(d, d_k)) / np.sqrt(d) * 2 for _ in range(3)) for _ in range(h)]
    W_O = rng.normal(size=(h * d_k, d)) / np.sqrt(d)
    return X, heads, W_O


def entropy(A):
    return -(A * np.log(A)).sum(axis=-1)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_scaling_by_sqrt_d_makes_every_row_flatter(seed):
    X, heads, _ = transformer_like(seed)
    for W_Q, W_K, _ in heads:
        right = self_attention_weights(X, W_Q, W_K)
        wrong = weights_scaled_by_sqrt_d(X, W_Q, W_K)
        assert np.all(wrong.max(axis=1) <= right.max(axis=1) + 1e-12)
        assert np.all(entropy(wrong) >= entropy(right) - 1e-12)
        assert not np.allclose(wrong, right)


def test_scaling_by_sqrt_d_is_right_only_with_one_head():
    X, heads, W_O = transformer_like(0, h=1)
    assert np.allclose(multi_head_scaled_by_sqrt_d(X, heads, W_O),
                       multi_head_attention(X, heads, W_O))
    X, heads, W_O = transformer_like(0, h=8)
    assert not np.allclose(multi_head_scaled_by_sqrt_d(X, heads, W_O),
                           multi_head_attention(X, heads, W_O))


@settings(max_examples=20, deadline=None)
@given(seed=st.integers(0, 10_000))
def test_splitting_x_before_the_projections_differs(seed):
    X, heads, W_O = transformer_like(seed)
    assert not np.allclose(multi_head_split_first(X, heads, W_O),
                           multi_head_attention(X, heads, W_O))


def test_after_splitting_a_head_is_blind_to_the_other_slices():
    X, heads, W_O = transformer_like(1, d=16, h=2)
    changed = X.copy()
    changed[:, 8:] += 5.0  # only the second slice
    n, d_v = X.shape[0], heads[0][2].shape[1]
    first_head = np.eye(2 * d_v)[:, :d_v] @ np.eye(d_v, 16)  # keep head 1's columns only
    W_only_first = np.zeros_like(W_O)
    W_only_first[:d_v] = first_head[:d_v]
    wrong = multi_head_split_first(X, heads, W_only_first)
    assert np.allclose(wrong, multi_head_split_first(changed, heads, W_only_first))
    right = multi_head_attention(X, heads, W_only_first)
    assert not np.allclose(right, multi_head_attention(changed, heads, W_only_first))
    assert wrong.shape == right.shape == (n, 16)


def test_with_one_head_splitting_changes_nothing():
    X, heads, W_O = transformer_like(2, h=1)
    assert np.allclose(multi_head_split_first(X, heads, W_O), multi_head_attention(X, heads, W_O))


def test_bad_inputs_are_rejected():
    X, heads, W_O = transformer_like(3, d=64, h=8)
    with pytest.raises(ValueError, match="not divisible by h = 3"):
        multi_head_split_first(X, heads[:3], np.zeros((24, 64)))
    with pytest.raises(ValueError, match="W_O has shape"):
        multi_head_scaled_by_sqrt_d(X, heads, W_O[:-1])
    with pytest.raises(ValueError, match="W_Q"):
        weights_scaled_by_sqrt_d(X[:, :5], heads[0][0], heads[0][1])


def test_scaling_by_sqrt_d_is_exactly_a_smaller_w_q():
    """Chapter 6: the mistake with sqrt(h) W_Q gives the correct output, to rounding."""
    X, heads, W_O = transformer_like(4, d=64, h=8)
    larger = [(np.sqrt(8) * W_Q, W_K, W_V) for W_Q, W_K, W_V in heads]
    assert np.allclose(multi_head_scaled_by_sqrt_d(X, larger, W_O),
                       multi_head_attention(X, heads, W_O), rtol=0, atol=1e-12)
