"""Layer 1: attention_core's formulas against hand computations, finite differences and
properties (Hypothesis)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

import attention_core as ac

Q = np.array([2.0, 1.0])
K = np.array([[1.0, 0.0], [0.0, 1.0], [-1.0, 0.0]])
V = np.array([10.0, 20.0, 30.0])


def finite(shape, bound=3.0):
    return arrays(np.float64, shape, elements=st.floats(-bound, bound, allow_nan=False))


def central_difference(f, x, eps=1e-6):
    """Gradient of the scalar function f at x by central differences."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        step = np.zeros_like(x)
        step[index] = eps
        grad[index] = (f(x + step) - f(x - step)) / (2 * eps)
    return grad


# --- chapter 1: the d = 2 example, computed by hand ---------------------------------------

def test_d2_example_scores_weights_output():
    s = np.array([2, 1, -2]) / np.sqrt(2)
    a = np.exp(s) / np.exp(s).sum()
    np.testing.assert_allclose(ac.scores(Q, K), s)
    np.testing.assert_allclose(ac.attention_weights(Q, K), a)
    np.testing.assert_allclose(ac.attention_weights(Q, K), [0.644257, 0.317663, 0.038079],
                               atol=1e-6)
    assert ac.attention(Q, K, V) == pytest.approx(13.938218, abs=1e-6)


def test_batch_of_queries_equals_one_query_at_a_time():
    queries = np.array([[2.0, 1.0], [0.0, 2.0], [-1.0, 0.5]])
    V2 = np.column_stack([V, -V])
    np.testing.assert_allclose(ac.scores(queries, K), [ac.scores(q, K) for q in queries])
    np.testing.assert_allclose(ac.attention(queries, K, V),
                               [ac.attention(q, K, V) for q in queries])
    assert ac.attention(queries, K, V2).shape == (3, 2)
    assert ac.attention(Q, K, V2).shape == (2,)


def test_a_wider_score_gap_moves_the_output_towards_the_first_value():
    outputs = [ac.attention(lam * Q, K, V) for lam in (0, 1, 2, 5, 20, 60)]
    assert outputs[0] == pytest.approx(20.0)
    assert all(b < a for a, b in zip(outputs, outputs[1:]))
    assert outputs[-1] == pytest.approx(10.0, abs=1e-9)


# --- softmax -------------------------------------------------------------------------------

def test_softmax_of_huge_scores_has_no_overflow():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        np.testing.assert_array_equal(ac.softmax([1e4, -1e4, 0.0]), [1.0, 0.0, 0.0])
        np.testing.assert_allclose(ac.softmax([1e4, 1e4]), [0.5, 0.5])
        np.testing.assert_allclose(ac.softmax([-1e4, -1e4 + np.log(3)]), [0.25, 0.75])


def test_softmax_masks_minus_infinity():
    a = ac.softmax([1.0, -np.inf, 1.0])
    np.testing.assert_allclose(a, [0.5, 0.0, 0.5])
    rows = ac.softmax(np.array([[0.0, -np.inf], [-np.inf, 3.0]]))
    np.testing.assert_array_equal(rows, np.eye(2))


def test_softmax_axis():
    s = np.array([[1.0, 2.0], [3.0, 5.0]])
    np.testing.assert_allclose(ac.softmax(s, axis=0).sum(axis=0), [1.0, 1.0])
    np.testing.assert_allclose(ac.softmax(s, axis=0)[:, 0], ac.softmax([1.0, 3.0]))


@pytest.mark.parametrize("bad, match", [
    ([1.0, np.nan], "NaN or \\+inf"),
    ([np.inf, 0.0], "NaN or \\+inf"),
    ([-np.inf, -np.inf], "all -inf"),
    ([], "at least one score"),
    (5.0, "at least one score"),
])
def test_softmax_rejects(bad, match):
    with pytest.raises(ValueError, match=match):
        ac.softmax(bad)


@given(finite((7,), bound=1e4))
def test_softmax_weights_are_positive_and_sum_to_one(s):
    a = ac.softmax(s)
    assert np.all(a >= 0) and np.isfinite(a).all()
    assert a.sum() == pytest.approx(1.0)
    assert np.argmax(a) == np.argmax(s) or a[np.argmax(s)] == a.max()


@given(finite((5,), bound=50), st.floats(-1e3, 1e3))
def test_softmax_ignores_a_common_shift(s, c):
    np.testing.assert_allclose(ac.softmax(s + c), ac.softmax(s), atol=1e-9)


def test_log_softmax_is_the_log_of_softmax_and_stays_finite():
    s = np.array([2.0, -1.0, 0.5])
    np.testing.assert_allclose(ac.log_softmax(s), np.log(ac.softmax(s)))
    tiny = ac.log_softmax([0.0, -2000.0])
    assert tiny[1] == pytest.approx(-2000.0) and ac.softmax([0.0, -2000.0])[1] == 0.0
    assert ac.log_softmax([0.0, -np.inf])[1] == -np.inf
    with pytest.raises(ValueError, match="log_softmax: s contains NaN"):
        ac.log_softmax([np.nan, 1.0])


# --- the softmax derivative (chapter 4) ----------------------------------------------------

def test_softmax_jacobian_matches_central_differences():
    s = np.array([0.3, -1.2, 2.0, 0.5])
    a = ac.softmax(s)
    numeric = np.array([central_difference(lambda x, i=i: ac.softmax(x)[i], s)
                        for i in range(4)])
    np.testing.assert_allclose(ac.softmax_jacobian(a), numeric, atol=1e-9)
    np.testing.assert_allclose(ac.softmax_jacobian(a), np.diag(a) - np.outer(a, a))


def test_softmax_jacobian_entries_and_stack():
    a = np.array([0.7, 0.2, 0.1])
    J = ac.softmax_jacobian(a)
    assert J[0, 0] == pytest.approx(0.7 * 0.3)
    assert J[0, 1] == pytest.approx(-0.7 * 0.2)
    stack = ac.softmax_jacobian(np.array([a, a[::-1]]))
    assert stack.shape == (2, 3, 3)
    np.testing.assert_allclose(stack[1], ac.softmax_jacobian(a[::-1]))


def test_softmax_backward_is_the_jacobian_transposed_times_the_gradient():
    a = ac.softmax([0.1, 0.9, -0.4])
    g = np.array([1.0, -2.0, 0.5])
    np.testing.assert_allclose(ac.softmax_backward(a, g), ac.softmax_jacobian(a).T @ g)
    with pytest.raises(ValueError, match="grad_a has shape"):
        ac.softmax_backward(a, g[:2])


def test_softmax_jacobian_rejects_bad_weights():
    with pytest.raises(ValueError, match="softmax_jacobian"):
        ac.softmax_jacobian([])
    with pytest.raises(ValueError, match="softmax_jacobian"):
        ac.softmax_jacobian([0.5, np.nan])


# --- gradients of attention with respect to q, K and V -------------------------------------

@pytest.mark.parametrize("batch, vector_values", [(False, False), (False, True),
                                                  (True, False), (True, True)])
def test_attention_gradients_match_central_differences(batch, vector_values):
    rng = np.random.default_rng(3)
    q = rng.normal(size=(4, 3) if batch else 3)
    keys = rng.normal(size=(5, 3))
    values = rng.normal(size=5 if vector_values else (5, 2))
    out_shape = np.shape(ac.attention(q, keys, values))
    g = rng.normal(size=out_shape)

    def loss(q_, k_, v_):
        return float(np.sum(ac.attention(q_, k_, v_) * g))

    grad_q, grad_K, grad_V = ac.attention_backward(q, keys, values, g)
    np.testing.assert_allclose(grad_q, central_difference(lambda x: loss(x, keys, values), q),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(grad_K, central_difference(lambda x: loss(q, x, values), keys),
                               rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(grad_V, central_difference(lambda x: loss(q, keys, x), values),
                               rtol=1e-6, atol=1e-8)


def test_attention_backward_checks_the_gradient_shape():
    with pytest.raises(ValueError, match="grad_out has shape"):
        ac.attention_backward(Q, K, V, np.ones(2))


# --- bad input: a clear ValueError naming the argument and the shapes ----------------------

@pytest.mark.parametrize("call, match", [
    (lambda: ac.attention(Q, K, V[:2]), r"rows of K\) is 3 but the number of values .* is 2 "
                                        r"\(keys and values must pair up"),
    (lambda: ac.attention(np.ones(3), K, V), r"q has dimension d = 3 but the keys K \(3, 2\)"),
    (lambda: ac.scores(Q, np.ones((0, 2))), r"K is empty \(shape \(0, 2\)\)"),
    (lambda: ac.scores(Q, np.ones(2)), r"K must be a matrix \(n, d\).*got shape \(2,\)"),
    (lambda: ac.scores(np.ones((2, 2, 2)), K), r"q must be a vector.*got shape \(2, 2, 2\)"),
    (lambda: ac.attention([np.nan, 1.0], K, V), r"q contains NaN or infinite"),
    (lambda: ac.attention(Q, K, [1.0, np.inf, 0.0]), r"V contains NaN or infinite"),
    (lambda: ac.attention_weights(Q, [[1.0, -np.inf]] * 3), r"K contains NaN or infinite"),
    (lambda: ac.attention(Q, K, [["a", "b", "c"]]), r"V must be an array of numbers"),
])
def test_dot_product_attention_rejects(call, match):
    with pytest.raises(ValueError, match=match):
        call()


# --- self-attention and multi-head attention (chapters 5 and 6) -----------------------------

def random_projections(rng, n=5, d=4, d_k=3, d_v=2):
    return (rng.normal(size=(n, d)), rng.normal(size=(d, d_k)), rng.normal(size=(d, d_k)),
            rng.normal(size=(d, d_v)))


def test_self_attention_is_attention_of_every_token():
    X, W_Q, W_K, W_V = random_projections(np.random.default_rng(0))
    Q, Kx, Vx = X @ W_Q, X @ W_K, X @ W_V
    Z = ac.self_attention(X, W_Q, W_K, W_V)
    np.testing.assert_allclose(Z, [ac.attention(q, Kx, Vx) for q in Q])
    A = ac.self_attention_weights(X, W_Q, W_K)
    np.testing.assert_allclose(A, [ac.attention_weights(q, Kx) for q in Q])
    np.testing.assert_allclose(A.sum(axis=1), 1.0)
    assert Z.shape == (5, 2) and A.shape == (5, 5)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 6), st.integers(0, 2**32 - 1))
def test_self_attention_is_permutation_equivariant(n, seed):
    rng = np.random.default_rng(seed)
    X, W_Q, W_K, W_V = random_projections(rng, n=n)
    perm = rng.permutation(n)
    np.testing.assert_allclose(ac.self_attention(X[perm], W_Q, W_K, W_V),
                               ac.self_attention(X, W_Q, W_K, W_V)[perm], atol=1e-10)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 5), st.integers(0, 2**32 - 1))
def test_one_head_with_identity_output_is_self_attention(n, seed):
    rng = np.random.default_rng(seed)
    d = 4
    X, W_Q, W_K, W_V = random_projections(rng, n=n, d=d, d_v=d)
    np.testing.assert_allclose(ac.multi_head_attention(X, [(W_Q, W_K, W_V)], np.eye(d)),
                               ac.self_attention(X, W_Q, W_K, W_V), atol=1e-12)


def test_multi_head_concatenates_heads_before_W_O():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(6, 8))
    heads = [tuple(rng.normal(size=(8, 2)) for _ in range(3)) for _ in range(4)]
    W_O = rng.normal(size=(4 * 2, 8))
    expected = np.hstack([ac.self_attention(X, *head) for head in heads]) @ W_O
    np.testing.assert_allclose(ac.multi_head_attention(X, heads, W_O), expected)


@pytest.mark.parametrize("call, match", [
    (lambda X, W: ac.self_attention(X, W[:3], W, W), r"W_Q has shape \(3, 3\) but the tokens X "
                                                     r"\(5, 4\) have d = 4"),
    (lambda X, W: ac.self_attention(X, W, W[:, :2], W), r"W_Q \(4, 3\) and W_K \(4, 2\) must "
                                                        r"have the same number of columns"),
    (lambda X, W: ac.self_attention(X[:, :, None], W, W, W), r"X must be a matrix \(n, d\)"),
    (lambda X, W: ac.self_attention_weights(X * np.nan, W, W), r"X contains NaN"),
    (lambda X, W: ac.multi_head_attention(X, [], np.eye(4)), r"heads is empty"),
    (lambda X, W: ac.multi_head_attention(X, [(W, W)], np.eye(4)), r"head 1 has 2 matrices"),
    (lambda X, W: ac.multi_head_attention(X, [(W, W, W), (W, W, W[:, :2])], np.eye(6)),
     r"head 2 has shapes .* but head 1 has"),
    (lambda X, W: ac.multi_head_attention(X, [(W, W, W)], np.eye(4)),
     r"W_O has shape \(4, 4\) but h d_v x d = 1 \* 3 x 4 = \(3, 4\)"),
])
def test_self_and_multi_head_attention_reject(call, match):
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match=match):
        call(rng.normal(size=(5, 4)), rng.normal(size=(4, 3)))


# --- additive attention (chapter 7) ---------------------------------------------------------

def additive_parameters(rng, n=5, d_s=3, d_h=4, p=6):
    return (rng.normal(size=d_s), rng.normal(size=(n, d_h)), rng.normal(size=(p, d_s)),
            rng.normal(size=(p, d_h)), rng.normal(size=p))


def test_additive_attention_by_hand():
    s, H, W, U, w = additive_parameters(np.random.default_rng(2))
    e = np.array([w @ np.tanh(W @ s + U @ h) for h in H])
    np.testing.assert_allclose(ac.additive_scores(s, H, W, U, w), e)
    np.testing.assert_allclose(ac.additive_weights(s, H, W, U, w), np.exp(e) / np.exp(e).sum())
    np.testing.assert_allclose(ac.additive_attention(s, H, W, U, w),
                               ac.additive_weights(s, H, W, U, w) @ H)


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 8), st.integers(0, 2**32 - 1))
def test_additive_weights_sum_to_one(n, seed):
    a = ac.additive_weights(*additive_parameters(np.random.default_rng(seed), n=n))
    assert np.all(a >= 0) and a.sum() == pytest.approx(1.0)


@pytest.mark.parametrize("index, bad, match", [
    (2, np.ones((6, 2)), r"W has shape \(6, 2\) but \(p, d_s\) = \(6, 3\)"),
    (3, np.ones((6, 3)), r"U has shape \(6, 3\) but \(p, d_h\) = \(6, 4\)"),
    (1, np.ones((0, 4)), r"H is empty"),
    (0, np.array([np.nan, 0, 0]), r"s contains NaN"),
])
def test_additive_attention_rejects(index, bad, match):
    args = list(additive_parameters(np.random.default_rng(0)))
    args[index] = bad
    with pytest.raises(ValueError, match=match):
        ac.additive_attention(*args)
