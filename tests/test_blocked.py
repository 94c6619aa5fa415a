"""Exact attention in linear memory (chapter 10): the online softmax and blocked attention
against the plain formula, the teaching view of its tiles, masks, memory and errors."""

import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core as ac

seeds = st.integers(0, 2**32 - 1)


def plain(Q, K, V, mask=None):
    S = Q @ K.T / np.sqrt(Q.shape[1])
    if mask is not None:
        S = np.where(mask, S, -np.inf)
    return ac.softmax(S) @ V


def qkv(rng, n, m, d_k=3, d_v=2, scale=1.0):
    return (rng.normal(size=(n, d_k)) * scale, rng.normal(size=(m, d_k)) * scale,
            rng.normal(size=(m, d_v)))


# --- the online softmax ---------------------------------------------------------------------

def test_running_max_and_sum_by_hand():
    m, total = ac.running_max_and_sum([1.0, 3.0, 2.0])
    np.testing.assert_array_equal(m, [1.0, 3.0, 3.0])
    np.testing.assert_allclose(total, [1.0, np.exp(-2) + 1, np.exp(-2) + 1 + np.exp(-1)])
    m, total = ac.running_max_and_sum([-np.inf, -np.inf, 0.0, 5.0], block_size=2)
    np.testing.assert_array_equal(m, [-np.inf, 5.0])
    np.testing.assert_allclose(total, [0.0, np.exp(-5) + 1])


@settings(max_examples=50, deadline=None)
@given(st.lists(st.floats(-1e4, 1e4), min_size=1, max_size=30), st.integers(1, 8))
def test_online_softmax_is_softmax(scores, block_size):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_allclose(ac.online_softmax(scores, block_size), ac.softmax(scores),
                                   rtol=1e-12, atol=1e-300)


# --- blocked attention equals the plain formula ---------------------------------------------

@settings(max_examples=60, deadline=None)
@given(st.integers(1, 20), st.integers(1, 20), st.integers(1, 9),
       st.sampled_from(["none", "causal", "random", "keys"]), seeds)
def test_blocked_attention_is_the_plain_formula(n, m, block_size, kind, seed):
    rng = np.random.default_rng(seed)
    Q, K, V = qkv(rng, n, m, scale=2.0)
    mask, causal = None, kind == "causal"
    expected_mask = np.tri(n, m, dtype=bool) if causal else None
    if kind == "random":
        mask = rng.random((n, m)) < 0.4
        mask[np.arange(n), rng.integers(0, m, n)] = True
        expected_mask = mask
    elif kind == "keys":  # a padding mask of the keys, broadcast over the queries
        mask = expected_mask = np.arange(m) < rng.integers(1, m + 1)
    Z = ac.blocked_attention(Q, K, V, block_size, mask=mask, causal=causal)
    np.testing.assert_allclose(Z, plain(Q, K, V, expected_mask), rtol=1e-12, atol=1e-12)


def test_rows_with_fully_masked_tiles_and_huge_scores_give_no_nan_and_no_warning():
    rng = np.random.default_rng(0)
    Q, K, V = qkv(rng, 7, 9, scale=60.0)  # scores of about 1e4
    mask = np.zeros((7, 9), dtype=bool)
    mask[:, 8] = True  # every row's only visible key is in the last tile
    mask[3, :4] = True
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Z = ac.blocked_attention(Q, K, V, 2, mask=mask)
        steps = list(ac.blocked_attention_steps(Q, K, V, 2, mask=mask))
        np.testing.assert_allclose(Z, plain(Q, K, V, mask), rtol=1e-12, atol=1e-12)
    first = steps[0]  # rows 0 and 1 have seen only masked keys
    assert np.all(first.running_max == -np.inf) and np.all(first.running_sum == 0.0)
    assert np.all(first.output == 0.0)
    assert all(np.isfinite(s.running_sum).all() and np.isfinite(s.output).all() for s in steps)


def test_one_block_or_one_row_at_a_time_gives_the_same():
    Q, K, V = qkv(np.random.default_rng(1), 10, 10)
    for block_size in (1, 10, 100):
        np.testing.assert_allclose(ac.blocked_attention(Q, K, V, block_size), plain(Q, K, V),
                                   rtol=1e-12, atol=1e-12)
    mask = ac.causal_mask(10)
    np.testing.assert_allclose(ac.blocked_attention(Q, K, V, 3, mask=mask),
                               ac.blocked_attention(Q, K, V, 3, causal=True), rtol=1e-14)


# --- the teaching view ----------------------------------------------------------------------

def test_the_steps_walk_the_tiles_in_order_and_end_at_the_result():
    rng = np.random.default_rng(2)
    Q, K, V = qkv(rng, 5, 7)
    steps = list(ac.blocked_attention_steps(Q, K, V, 3))
    assert [(s.queries, s.keys) for s in steps] == [
        ((0, 3), (0, 3)), ((0, 3), (3, 6)), ((0, 3), (6, 7)),
        ((3, 5), (0, 3)), ((3, 5), (3, 6)), ((3, 5), (6, 7))]
    S = Q @ K.T / np.sqrt(3)
    for s in steps:
        rows, seen = slice(*s.queries), S[slice(*s.queries), :s.keys[1]]
        np.testing.assert_allclose(s.running_max, seen.max(axis=1))
        np.testing.assert_allclose(s.running_sum,
                                   np.exp(seen - seen.max(axis=1, keepdims=True)).sum(axis=1))
        np.testing.assert_allclose(s.output, plain(Q[rows], K[:s.keys[1]], V[:s.keys[1]]),
                                   atol=1e-12)
    Z = ac.blocked_attention(Q, K, V, 3)
    np.testing.assert_allclose(np.vstack([steps[2].output, steps[5].output]), Z, rtol=1e-14)


def test_causal_steps_skip_the_tiles_above_the_diagonal():
    Q, K, V = qkv(np.random.default_rng(3), 6, 6)
    tiles = [(s.queries, s.keys) for s in ac.blocked_attention_steps(Q, K, V, 2, causal=True)]
    assert tiles == [((0, 2), (0, 2)), ((2, 4), (0, 2)), ((2, 4), (2, 4)),
                     ((4, 6), (0, 2)), ((4, 6), (2, 4)), ((4, 6), (4, 6))]


# --- memory ---------------------------------------------------------------------------------

def peak_bytes(f):
    tracemalloc.start()
    try:
        f()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_memory_beyond_the_output_is_a_few_tiles():
    n, d, block_size = 1024, 16, 64
    Q, K, V = qkv(np.random.default_rng(4), n, n, d_k=d, d_v=d)
    output = n * d * 8
    blocked = peak_bytes(lambda: ac.blocked_attention(Q, K, V, block_size, causal=True))
    scores = peak_bytes(lambda: plain(Q, K, V))
    assert blocked - output < 8 * block_size * (block_size + 4 * d) + 50_000
    assert scores > n * n * 8 > 10 * blocked


# --- bad input ------------------------------------------------------------------------------

@pytest.mark.parametrize("call, match", [
    (lambda Q, K, V: ac.blocked_attention(Q, K[:, :2], V, 2),
     r"Q \(4, 3\) and K \(5, 2\) must have the same number of columns d_k"),
    (lambda Q, K, V: ac.blocked_attention(Q, K, V[:4], 2),
     r"the number of keys \(rows of K\) is 5 but the number of values \(rows of V\) is 4"),
    (lambda Q, K, V: ac.blocked_attention(Q, K, V, 0), r"block_size must be at least 1"),
    (lambda Q, K, V: ac.blocked_attention(Q, K, V, 2.0), r"block_size must be a whole number"),
    (lambda Q, K, V: ac.blocked_attention(Q, K, V, 2, causal=1), r"causal must be True or False"),
    (lambda Q, K, V: ac.blocked_attention(Q, K, V, 2, mask=np.ones((4, 4), dtype=bool)),
     r"mask of shape \(4, 4\) does not broadcast to the scores of shape \(4, 5\)"),
    (lambda Q, K, V: ac.blocked_attention(Q, K, V, 2, mask=np.ones(5)), r"got dtype float64"),
    (lambda Q, K, V: ac.blocked_attention(Q, K, V, 2, mask=np.eye(4, 5, dtype=bool) & False),
     r"mask leaves row 0 of the scores"),
    (lambda Q, K, V: ac.blocked_attention(Q[0], K, V, 2), r"Q must be a matrix \(n, d_k\)"),
    (lambda Q, K, V: ac.blocked_attention_steps(Q, K, V * np.nan, 2), r"V contains NaN"),
    (lambda Q, K, V: ac.online_softmax([-np.inf, -np.inf]), r"every entry of s is -inf"),
    (lambda Q, K, V: ac.online_softmax([[1.0]]), r"s must be a non-empty vector"),
    (lambda Q, K, V: ac.running_max_and_sum([1.0, np.nan]), r"s contains NaN or \+inf"),
])
def test_blocked_attention_rejects(call, match):
    with pytest.raises(ValueError, match=match):
        call(*qkv(np.random.default_rng(0), 4, 5))
