"""Positions (chapter 8): sinusoidal encodings, their shift matrix R(k), and RoPE."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core as ac

seeds = st.integers(0, 2**32 - 1)
even = st.integers(1, 16).map(lambda half: 2 * half)


def test_sinusoidal_positions_by_hand():
    PE = ac.sinusoidal_positions(3, 4)  # frequencies 1 and 10000**(-1/2) = 0.01
    expected = [[0, 1, 0, 1],
                [np.sin(1), np.cos(1), np.sin(0.01), np.cos(0.01)],
                [np.sin(2), np.cos(2), np.sin(0.02), np.cos(0.02)]]
    np.testing.assert_allclose(PE, expected, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(ac.position_frequencies(4), [1.0, 0.01])
    np.testing.assert_allclose(ac.position_frequencies(4, base=100.0), [1.0, 0.1])


@settings(max_examples=40, deadline=None)
@given(even, st.integers(0, 50), st.integers(-20, 20))
def test_a_shift_by_k_is_one_rotation_for_every_position(d, p, k):
    PE = ac.sinusoidal_positions(max(p, p + k) + 1, d)
    R = ac.sinusoidal_shift(k, d)
    if p + k >= 0:
        np.testing.assert_allclose(R @ PE[p], PE[p + k], atol=1e-12)
    np.testing.assert_allclose(R @ R.T, np.eye(d), atol=1e-14)  # a rotation
    off_blocks = R.copy()
    for i in range(0, d, 2):
        off_blocks[i:i + 2, i:i + 2] = 0.0
    assert np.all(off_blocks == 0.0)  # block-diagonal of 2 x 2 blocks


def test_the_shift_matrix_moves_every_row_at_once():
    PE = ac.sinusoidal_positions(20, 8)
    np.testing.assert_allclose(PE[:-3] @ ac.sinusoidal_shift(3, 8).T, PE[3:], atol=1e-12)
    np.testing.assert_allclose(ac.sinusoidal_shift(0, 8), np.eye(8))


@settings(max_examples=40, deadline=None)
@given(even, st.integers(0, 40), st.integers(0, 40), st.integers(0, 20))
def test_the_dot_product_of_two_positions_depends_only_on_their_distance(d, p, q, k):
    PE = ac.sinusoidal_positions(max(p, q) + k + 1, d)
    np.testing.assert_allclose(PE[p] @ PE[p + k], PE[q] @ PE[q + k], atol=1e-10)
    np.testing.assert_allclose(PE[p] @ PE[p + k],
                               np.cos(k * ac.position_frequencies(d)).sum(), atol=1e-10)


def test_rope_by_hand():
    X = np.array([[1.0, 0.0, 2.0, 0.0], [1.0, 0.0, 2.0, 0.0]])
    rotated = ac.rope(X)  # row 1 turns pair 0 by 1 radian, pair 1 by 0.01
    np.testing.assert_array_equal(rotated[0], X[0])
    np.testing.assert_allclose(rotated[1], [np.cos(1), np.sin(1), 2 * np.cos(0.01),
                                            2 * np.sin(0.01)])
    np.testing.assert_allclose(ac.rope(X, positions=[0.0, -1.0])[1],
                               [np.cos(1), -np.sin(1), 2 * np.cos(0.01), -2 * np.sin(0.01)])


@settings(max_examples=40, deadline=None)
@given(even, st.integers(1, 6), seeds)
def test_rope_keeps_lengths_and_works_on_stacks(d, n, seed):
    X = np.random.default_rng(seed).normal(size=(2, 3, n, d))
    rotated = ac.rope(X)
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=-1), np.linalg.norm(X, axis=-1),
                               rtol=1e-12)
    np.testing.assert_allclose(rotated[1, 2], ac.rope(X[1, 2]), rtol=1e-15)


@settings(max_examples=40, deadline=None)
@given(even, st.floats(-100, 100), st.floats(-100, 100), st.floats(-50, 50), seeds)
def test_rope_scores_depend_only_on_the_offset(d, p, p_key, shift, seed):
    q, k = np.random.default_rng(seed).normal(size=(2, 1, d))
    score = ac.rope(q, [p]) @ ac.rope(k, [p_key]).T
    moved = ac.rope(q, [p + shift]) @ ac.rope(k, [p_key + shift]).T
    np.testing.assert_allclose(score, moved, atol=1e-9)
    # the offset alone: the query at 0 and the key at p_key - p
    np.testing.assert_allclose(score, ac.rope(q, [0.0]) @ ac.rope(k, [p_key - p]).T, atol=1e-9)


def test_long_sequences_and_wide_tokens_stay_finite_without_warnings():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        PE = ac.sinusoidal_positions(1000, 4096)
        rotated = ac.rope(np.ones((4, 4096)), positions=[0.0, 1e6, -1e6, 3.5])
    assert np.isfinite(PE).all() and np.abs(PE).max() <= 1.0
    np.testing.assert_allclose(np.linalg.norm(rotated, axis=1), 64.0)


@pytest.mark.parametrize("call, match", [
    (lambda: ac.sinusoidal_positions(4, 5), r"sinusoidal_positions: d = 5 is odd"),
    (lambda: ac.sinusoidal_positions(0, 4), r"sinusoidal_positions: n must be at least 1"),
    (lambda: ac.sinusoidal_shift(1, 3), r"sinusoidal_shift: d = 3 is odd"),
    (lambda: ac.sinusoidal_shift(np.nan, 4), r"sinusoidal_shift: k contains NaN"),
    (lambda: ac.rope(np.ones((2, 3))), r"rope: d = 3 is odd"),
    (lambda: ac.rope(np.ones(4)), r"rope: X must be a matrix \(n, d\)"),
    (lambda: ac.rope(np.ones((2, 4)), positions=[0, 1, 2]),
     r"rope: positions has 3 entries but X has n = 2 rows"),
    (lambda: ac.rope(np.ones((2, 4)), base=1.0), r"rope: base must be a number greater than 1"),
    (lambda: ac.position_frequencies(7), r"position_frequencies: d = 7 is odd"),
])
def test_positions_reject(call, match):
    with pytest.raises(ValueError, match=match):
        call()
