"""The tanh recurrent layer of chapter 10: a hand case, the definition step by step, the
order of dependence (a state never depends on a later token), bounds, errors, extreme values."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core.recurrent import rnn_layer

seeds = st.integers(0, 2**32 - 1)


def weights(rng, d, d_h, scale=1.0):
    return (rng.normal(size=(d, d_h)) * scale, rng.normal(size=(d_h, d_h)) * scale,
            rng.normal(size=d_h) * scale)


def by_the_definition(X, W_x, W_h, b_h, h_0):
    """h_j = tanh(W_x^T x_j + W_h^T h_{j-1} + b_h), literally, one token at a time."""
    states, h = [], h_0
    for x in X:
        h = np.tanh(W_x.T @ x + W_h.T @ h + b_h)
        states.append(h)
    return np.array(states)


def test_one_dimension_by_hand():
    X = np.array([[1.0], [2.0], [-1.0]])
    H = rnn_layer(X, [[0.5]], [[2.0]], [0.1])
    h_1 = np.tanh(0.5 + 0.1)
    h_2 = np.tanh(1.0 + 2.0 * h_1 + 0.1)
    h_3 = np.tanh(-0.5 + 2.0 * h_2 + 0.1)
    np.testing.assert_allclose(H[:, 0], [h_1, h_2, h_3], rtol=1e-15)


@settings(max_examples=50, deadline=None)
@given(st.integers(1, 12), st.integers(1, 5), st.integers(1, 5), st.booleans(), seeds)
def test_the_layer_is_the_definition(n, d, d_h, start, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    W_x, W_h, b_h = weights(rng, d, d_h)
    h_0 = rng.normal(size=d_h) if start else np.zeros(d_h)
    H = rnn_layer(X, W_x, W_h, b_h, h_0 if start else None)
    assert H.shape == (n, d_h)
    np.testing.assert_allclose(H, by_the_definition(X, W_x, W_h, b_h, h_0), rtol=1e-12,
                               atol=1e-14)
    assert np.all(np.abs(H) <= 1.0)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 12), st.data(), seeds)
def test_a_state_depends_on_earlier_tokens_only(n, data, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    W_x, W_h, b_h = weights(rng, 3, 4)
    j = data.draw(st.integers(1, n - 1))
    changed = X.copy()
    changed[j] += 1.0
    before, after = rnn_layer(X, W_x, W_h, b_h), rnn_layer(changed, W_x, W_h, b_h)
    np.testing.assert_array_equal(before[:j], after[:j])
    assert not np.allclose(before[j], after[j])


def test_the_inputs_are_not_changed():
    rng = np.random.default_rng(0)
    X, h_0 = rng.normal(size=(5, 3)), rng.normal(size=4)
    W_x, W_h, b_h = weights(rng, 3, 4)
    copies = [a.copy() for a in (X, W_x, W_h, b_h, h_0)]
    rnn_layer(X, W_x, W_h, b_h, h_0)
    for original, copy in zip((X, W_x, W_h, b_h, h_0), copies):
        np.testing.assert_array_equal(original, copy)


def test_huge_inputs_saturate_without_nan_or_warnings():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 3)) * 1e100
    W_x, W_h, b_h = weights(rng, 3, 4, scale=1e100)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        H = rnn_layer(X, W_x, W_h, b_h)
    assert np.all(np.isfinite(H)) and np.all(np.abs(H) <= 1.0)
    assert np.all(np.abs(H) > 0.999)   # tanh of huge numbers is +-1


@pytest.mark.parametrize("args, match", [
    ((np.ones(3), np.ones((3, 2)), np.ones((2, 2)), np.ones(2)),
     r"rnn_layer: X must be a matrix \(n, d\) with one token per row; got shape \(3,\)"),
    ((np.ones((4, 3)), np.ones((2, 2)), np.ones((2, 2)), np.ones(2)),
     r"rnn_layer: W_x has shape \(2, 2\) but the tokens X \(4, 3\) have d = 3"),
    ((np.ones((4, 3)), np.ones((3, 2)), np.ones((3, 3)), np.ones(2)),
     r"rnn_layer: W_h must be square \(d_h, d_h\) with d_h = the columns of W_x; "
     r"got W_x \(3, 2\) and W_h \(3, 3\)"),
    ((np.ones((4, 3)), np.ones((3, 2)), np.ones((2, 3)), np.ones(2)),
     r"W_h must be square"),
    ((np.ones((4, 3)), np.ones((3, 2)), np.ones((2, 2)), np.ones(3)),
     r"rnn_layer: b_h has shape \(3,\) but the state has d_h = 2"),
    ((np.ones((4, 3)), np.ones((3, 2)), np.ones((2, 2)), np.ones(2), np.ones(5)),
     r"rnn_layer: h_0 has shape \(5,\) but the state has d_h = 2"),
    ((np.full((4, 3), np.nan), np.ones((3, 2)), np.ones((2, 2)), np.ones(2)),
     r"rnn_layer: X contains NaN or infinite values"),
    ((np.ones((0, 3)), np.ones((3, 2)), np.ones((2, 2)), np.ones(2)),
     r"rnn_layer: X is empty"),
])
def test_bad_input_is_a_clear_error(args, match):
    with pytest.raises(ValueError, match=match):
        rnn_layer(*args)
