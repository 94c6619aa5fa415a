"""Masks (chapter 8): causal and padding masks, masked attention in every function that takes
one, and cross-attention. Hand-computed cases, Hypothesis properties, gradients, errors."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core as ac

Q = np.array([2.0, 1.0])
K = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
V = np.array([10.0, 20.0, 30.0])
seeds = st.integers(0, 2**32 - 1)


def central_difference(f, x, eps=1e-6):
    """Gradient of the scalar function f at x by central differences."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        grad[index] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


def random_mask(rng, shape):
    """A random boolean mask of ``shape`` with at least one True in every row."""
    mask = rng.random(shape) < 0.5
    rows = np.argwhere(~mask.any(axis=-1))
    mask[tuple(rows.T) + (rng.integers(0, shape[-1], len(rows)),)] = True
    return mask


# --- the two masks --------------------------------------------------------------------------

def test_causal_mask_by_hand():
    np.testing.assert_array_equal(ac.causal_mask(3), [[True, False, False],
                                                      [True, True, False],
                                                      [True, True, True]])
    assert ac.causal_mask(1).dtype == bool and ac.causal_mask(1).shape == (1, 1)


@given(st.integers(1, 20))
def test_causal_mask_lets_token_j_see_tokens_up_to_j(n):
    mask = ac.causal_mask(n)
    j, i = np.indices((n, n))
    np.testing.assert_array_equal(mask, i <= j)


def test_padding_mask_one_sequence_and_a_batch():
    np.testing.assert_array_equal(ac.padding_mask(3, 5), [True, True, True, False, False])
    batch = ac.padding_mask([2, 4], 4)
    assert batch.shape == (2, 1, 4)
    np.testing.assert_array_equal(batch[:, 0], [[True, True, False, False], [True] * 4])
    both = ac.causal_mask(4) & ac.padding_mask([2, 4], 4)
    assert both.shape == (2, 4, 4) and both.any(axis=-1).all()


@pytest.mark.parametrize("call, match", [
    (lambda: ac.causal_mask(0), r"causal_mask: n must be at least 1; got 0"),
    (lambda: ac.causal_mask(2.5), r"causal_mask: n must be a whole number"),
    (lambda: ac.padding_mask(0, 4), r"every length must be between 1 and n = 4; got 0"),
    (lambda: ac.padding_mask([2, 5], 4), r"between 1 and n = 4; got \[2, 5\]"),
    (lambda: ac.padding_mask([2.0], 4), r"lengths must be a whole number"),
    (lambda: ac.padding_mask([], 4), r"lengths must be a whole number or a non-empty"),
])
def test_masks_reject(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- masked attention of one query (chapter 1's example) ------------------------------------

def test_masking_a_key_of_the_d2_example_by_hand():
    mask = np.array([True, False, True])
    s = np.array([2.0, -2.0]) / np.sqrt(2)
    a = np.exp(s) / np.exp(s).sum()
    weights = ac.attention_weights(Q, K, mask=mask)
    assert weights[1] == 0.0
    np.testing.assert_allclose(weights[[0, 2]], a)
    assert ac.attention(Q, K, V, mask=mask) == pytest.approx(a @ [10.0, 30.0])


def test_an_all_true_mask_changes_nothing():
    queries = np.array([[2.0, 1.0], [0.0, 2.0]])
    for q in (Q, queries):
        everything = np.ones(np.shape(ac.scores(q, K)), dtype=bool)
        np.testing.assert_array_equal(ac.attention_weights(q, K, mask=everything),
                                      ac.attention_weights(q, K))
        np.testing.assert_array_equal(ac.attention(q, K, V, mask=everything),
                                      ac.attention(q, K, V))


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 4), st.integers(1, 7), seeds)
def test_masked_attention_is_attention_to_the_allowed_keys_only(t, n, seed):
    rng = np.random.default_rng(seed)
    q, keys, values = rng.normal(size=(t, 3)), rng.normal(size=(n, 3)), rng.normal(size=(n, 2))
    mask = random_mask(rng, (t, n))
    out = ac.attention(q, keys, values, mask=mask)
    a = ac.attention_weights(q, keys, mask=mask)
    for j in range(t):
        allowed = mask[j]
        np.testing.assert_allclose(out[j], ac.attention(q[j], keys[allowed], values[allowed]),
                                   atol=1e-12)
        assert np.all(a[j, ~allowed] == 0.0)
        assert a[j].sum() == pytest.approx(1.0)


def test_huge_masked_scores_give_exact_zeros_without_warnings():
    q = np.array([1e4, 0.0])
    keys = np.array([[1.0, 0.0], [-1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    mask = np.array([False, True, True, True])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        a = ac.attention_weights(q, keys, mask=mask)
        out = ac.attention(q, keys, np.arange(4.0), mask=mask)
        grads = ac.attention_backward(q, keys, np.arange(4.0), 1.0, mask=mask)
    assert a[0] == 0.0 and np.isfinite(a).all() and a.sum() == pytest.approx(1.0)
    assert np.isfinite(out) and all(np.isfinite(g).all() for g in grads)


@pytest.mark.parametrize("batch", [False, True])
def test_masked_attention_backward_matches_central_differences(batch):
    rng = np.random.default_rng(4)
    q = rng.normal(size=(3, 3) if batch else 3)
    keys, values = rng.normal(size=(5, 3)), rng.normal(size=(5, 2))
    mask = random_mask(rng, (3, 5)) if batch else np.array([True, False, True, True, False])
    g = rng.normal(size=np.shape(ac.attention(q, keys, values, mask=mask)))

    def loss(q_, k_, v_):
        return float(np.sum(ac.attention(q_, k_, v_, mask=mask) * g))

    grad_q, grad_K, grad_V = ac.attention_backward(q, keys, values, g, mask=mask)
    np.testing.assert_allclose(grad_q, central_difference(lambda x: loss(x, keys, values), q),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(grad_K, central_difference(lambda x: loss(q, x, values), keys),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(grad_V, central_difference(lambda x: loss(q, keys, x), values),
                               rtol=1e-6, atol=1e-8)
    if not batch:  # a key masked for the only query gets no gradient at all
        assert np.all(grad_K[~mask] == 0.0) and np.all(grad_V[~mask] == 0.0)


# --- masked self-attention and multi-head attention (sequences) -----------------------------

def sequence(rng, n=6, d=4, d_k=3, d_v=2):
    return (rng.normal(size=(n, d)), rng.normal(size=(d, d_k)), rng.normal(size=(d, d_k)),
            rng.normal(size=(d, d_v)))


def test_causal_weights_are_lower_triangular_rows_of_the_prefix():
    X, W_Q, W_K, _ = sequence(np.random.default_rng(0))
    A = ac.self_attention_weights(X, W_Q, W_K, mask=ac.causal_mask(6))
    assert np.all(np.triu(A, 1) == 0.0)
    np.testing.assert_allclose(A.sum(axis=1), 1.0)
    for j in range(6):  # row j is the weights of token j over tokens 0 ... j alone
        np.testing.assert_allclose(A[j, :j + 1],
                                   ac.self_attention_weights(X[:j + 1], W_Q, W_K)[j], atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 8), st.data())
def test_changing_later_tokens_leaves_earlier_outputs_exactly_unchanged(n, data):
    rng = np.random.default_rng(data.draw(seeds))
    j = data.draw(st.integers(1, n - 1))  # tokens j ... n-1 change
    X, W_Q, W_K, W_V = sequence(rng, n=n)
    heads = [sequence(rng, n=1)[1:] for _ in range(2)]
    W_O = rng.normal(size=(4, 4))
    changed = X.copy()
    changed[j:] = rng.normal(size=(n - j, 4)) * 10
    mask = ac.causal_mask(n)
    for f in (lambda x: ac.self_attention(x, W_Q, W_K, W_V, mask=mask),
              lambda x: ac.self_attention_weights(x, W_Q, W_K, mask=mask),
              lambda x: ac.multi_head_attention(x, heads, W_O, mask=mask),
              lambda x: ac.multi_head_attention(x[None], heads, W_O, mask=mask)[0]):
        np.testing.assert_array_equal(f(changed)[:j], f(X)[:j])


def test_blocks_of_rows_apply_the_mask_row_by_row(monkeypatch):
    module = __import__("attention_core.self_attention", fromlist=["BLOCK_BYTES"])
    monkeypatch.setattr(module, "BLOCK_BYTES", 8 * 16)  # blocks of 128 rows over n = 300
    rng = np.random.default_rng(5)
    X, W_Q, W_K, W_V = sequence(rng, n=300)
    mask = random_mask(rng, (300, 300))
    S = (X @ W_Q) @ (X @ W_K).T / np.sqrt(3)
    expected = ac.softmax(np.where(mask, S, -np.inf)) @ (X @ W_V)
    np.testing.assert_allclose(ac.self_attention(X, W_Q, W_K, W_V, mask=mask), expected,
                               rtol=1e-12, atol=1e-12)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.integers(0, 4), seeds)
def test_padding_changes_nothing_of_the_real_tokens_outputs(length, padding, seed):
    rng = np.random.default_rng(seed)
    n = length + padding
    X, W_Q, W_K, W_V = sequence(rng, n=n)
    heads = [sequence(rng, n=1)[1:] for _ in range(2)]
    W_O = rng.normal(size=(4, 4))
    mask = ac.padding_mask(length, n)
    other = X.copy()
    other[length:] = rng.normal(size=(padding, 4)) * 100  # other padding tokens
    for f, alone in ((lambda x, m: ac.self_attention(x, W_Q, W_K, W_V, mask=m),
                      ac.self_attention(X[:length], W_Q, W_K, W_V)),
                     (lambda x, m: ac.multi_head_attention(x, heads, W_O, mask=m),
                      ac.multi_head_attention(X[:length], heads, W_O))):
        padded = f(X, mask)[:length]
        np.testing.assert_allclose(padded, alone, rtol=1e-12, atol=1e-12)
        np.testing.assert_array_equal(f(other, mask)[:length], padded)


def test_a_batch_of_padded_sequences_matches_each_sequence_alone():
    rng = np.random.default_rng(6)
    lengths, n = [2, 5, 3], 5
    X = rng.normal(size=(3, n, 4))
    heads = [sequence(rng, n=1)[1:] for _ in range(2)]
    W_O = rng.normal(size=(4, 4))
    Z = ac.multi_head_attention(X, heads, W_O, mask=ac.padding_mask(lengths, n))
    for b, length in enumerate(lengths):
        np.testing.assert_allclose(Z[b, :length], ac.multi_head_attention(X[b, :length], heads,
                                                                          W_O), atol=1e-12)


# --- cross-attention ------------------------------------------------------------------------

def test_cross_attention_is_attention_of_each_query_to_the_other_sequence():
    rng = np.random.default_rng(7)
    X, Y = rng.normal(size=(3, 4)), rng.normal(size=(5, 6))
    W_Q, W_K, W_V = rng.normal(size=(4, 2)), rng.normal(size=(6, 2)), rng.normal(size=(6, 3))
    Z = ac.cross_attention(X, Y, W_Q, W_K, W_V)
    assert Z.shape == (3, 3)
    np.testing.assert_allclose(Z, [ac.attention(q, Y @ W_K, Y @ W_V) for q in X @ W_Q])
    mask = ac.padding_mask(2, 5)  # the decoder sees only Y's two real tokens
    np.testing.assert_allclose(ac.cross_attention(X, Y, W_Q, W_K, W_V, mask=mask),
                               ac.cross_attention(X, Y[:2], W_Q, W_K, W_V), atol=1e-12)


def test_cross_attention_to_itself_is_self_attention():
    X, W_Q, W_K, W_V = sequence(np.random.default_rng(8))
    mask = ac.causal_mask(6)
    np.testing.assert_allclose(ac.cross_attention(X, X, W_Q, W_K, W_V, mask=mask),
                               ac.self_attention(X, W_Q, W_K, W_V, mask=mask), atol=1e-12)


# --- bad masks and bad input: clear errors ---------------------------------------------------

def calls_with_mask(mask):
    """Every function that takes a mask, on inputs whose scores are (3, 3)."""
    rng = np.random.default_rng(0)
    X, W_Q, W_K, W_V = sequence(rng, n=3)
    heads = [(W_Q, W_K, W_V)]
    return {
        "attention_weights": lambda: ac.attention_weights(X, X, mask=mask),
        "attention": lambda: ac.attention(X, X, V, mask=mask),
        "attention_backward": lambda: ac.attention_backward(X, X, V, np.ones(3), mask=mask),
        "self_attention_weights": lambda: ac.self_attention_weights(X, W_Q, W_K, mask=mask),
        "self_attention": lambda: ac.self_attention(X, W_Q, W_K, W_V, mask=mask),
        "multi_head_attention": lambda: ac.multi_head_attention(X, heads, rng.normal(size=(2, 4)),
                                                                mask=mask),
        "cross_attention": lambda: ac.cross_attention(X, X, W_Q, W_K, W_V, mask=mask),
    }


@pytest.mark.parametrize("mask, match", [
    (np.ones((3, 3), dtype=int), r"mask must be a boolean array \(True = may attend\); got "
                                 r"dtype int64"),
    (np.ones((3, 3)), r"mask must be a boolean array .*; got dtype float64"),
    (np.ones((2, 3), dtype=bool), r"mask of shape \(2, 3\) does not broadcast to the scores of "
                                  r"shape \(3, 3\)"),
    (np.ones((1, 3, 3), dtype=bool), r"mask of shape \(1, 3, 3\) does not broadcast to the "
                                     r"scores of shape \(3, 3\)"),
    (np.array([[1, 1, 1], [0, 0, 0], [1, 1, 1]], dtype=bool),
     r"mask leaves row 1 of the scores \(shape \(3, 3\)\) with no True entry"),
    (np.array([[True], [True], [False]]), r"mask leaves row 2 of the scores"),
])
def test_every_function_rejects_a_bad_mask(mask, match):
    for name, call in calls_with_mask(mask).items():
        with pytest.raises(ValueError, match=f"^{name}: " + match):
            call()


def test_a_single_query_with_nothing_to_attend_to():
    with pytest.raises(ValueError, match=r"attention: mask leaves the scores \(shape \(3,\)\) "
                                         r"with no True entry"):
        ac.attention(Q, K, V, mask=np.zeros(3, dtype=bool))


def test_a_batch_mask_names_the_empty_row():
    X = np.random.default_rng(0).normal(size=(2, 3, 4))
    mask = np.ones((2, 3, 3), dtype=bool)
    mask[1, 2] = False
    heads = [tuple(np.eye(4)[:, :2] for _ in range(3))]
    with pytest.raises(ValueError, match=r"multi_head_attention: mask leaves row \(1, 2\) of the "
                                         r"scores \(shape \(2, 3, 3\)\)"):
        ac.multi_head_attention(X, heads, np.ones((2, 4)), mask=mask)


@pytest.mark.parametrize("args, match", [
    ((np.ones((3, 4)), np.ones((5, 6)), np.ones((4, 2)), np.ones((4, 2)), np.ones((6, 3))),
     r"W_K has shape \(4, 2\) but the tokens Y \(5, 6\) have d_y = 6, so Y @ W_K needs W_K "
     r"with 6 rows"),
    ((np.ones((3, 4)), np.ones((5, 6)), np.ones((6, 2)), np.ones((6, 2)), np.ones((6, 3))),
     r"W_Q has shape \(6, 2\) but the tokens X \(3, 4\) have d = 4"),
    ((np.ones((3, 4)), np.ones((5, 6)), np.ones((4, 2)), np.ones((6, 3)), np.ones((6, 3))),
     r"W_Q \(4, 2\) and W_K \(6, 3\) must have the same number of columns d_k"),
    ((np.ones(4), np.ones((5, 6)), np.ones((4, 2)), np.ones((6, 2)), np.ones((6, 3))),
     r"X must be a matrix \(n_x, d\)"),
    ((np.ones((3, 4)), np.ones((5, 6)) * np.nan, np.ones((4, 2)), np.ones((6, 2)),
      np.ones((6, 3))), r"Y contains NaN"),
])
def test_cross_attention_rejects(args, match):
    with pytest.raises(ValueError, match="^cross_attention: " + match):
        ac.cross_attention(*args)
