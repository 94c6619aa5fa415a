"""The transformer block (chapter 9): layer norm, feed-forward network, multi-head attention's
backward pass, the block post-norm and pre-norm, with and without residuals, one sequence or
a batch; gradients against central differences, properties, errors, extreme values."""

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core as ac
from attention_core.cost import layer_cost
from attention_core.toy_task import Adam

seeds = st.integers(0, 2**32 - 1)


def central_difference(f, x, eps=1e-6):
    """Gradient of the scalar function f() at the array x (changed in place and restored)."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        original = x[index]
        x[index] = original + eps
        up = f()
        x[index] = original - eps
        down = f()
        x[index] = original
        grad[index] = (up - down) / (2 * eps)
    return grad


def small_block(rng, d=4, h=2, d_ff=6, **fields):
    """A random block whose betas and biases are not zero, so that their gradients matter."""
    block = ac.Block.random(d, h, d_ff, rng, **fields)
    for name in ("beta_1", "b_1", "b_2", "beta_2"):
        getattr(block, name)[:] = rng.normal(size=getattr(block, name).shape) * 0.3
    for name in ("gamma_1", "gamma_2"):
        getattr(block, name)[:] = 1 + rng.normal(size=d) * 0.3
    return block


# --- layer norm -----------------------------------------------------------------------------

def test_layer_norm_by_hand():
    x = np.array([1.0, 2.0, 3.0, 4.0])  # mean 2.5, biased variance 1.25
    gamma, beta = np.array([1.0, 2.0, 1.0, 1.0]), np.array([0.0, 0.0, 0.0, 1.0])
    expected = (x - 2.5) / np.sqrt(1.25 + 1e-5) * gamma + beta
    np.testing.assert_allclose(ac.layer_norm(x, gamma, beta), expected, rtol=1e-15)
    np.testing.assert_allclose(ac.layer_norm(np.array([[1.0, 3.0]]), np.ones(2), np.zeros(2),
                                             eps=1.0), [[-1 / np.sqrt(2), 1 / np.sqrt(2)]])


@settings(max_examples=40, deadline=None)
@given(st.sampled_from([(5,), (3, 6), (2, 3, 8)]), st.floats(1e-3, 1e3), seeds)
def test_layer_norm_gives_every_token_mean_zero_and_unit_variance(shape, scale, seed):
    X = np.random.default_rng(seed).normal(size=shape) * scale + 7.0
    d = shape[-1]
    Y = ac.layer_norm(X, np.ones(d), np.zeros(d))
    variance = X.var(axis=-1)
    np.testing.assert_allclose(Y.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(Y.var(axis=-1), variance / (variance + 1e-5), rtol=1e-10)


def test_layer_norm_of_a_constant_token_is_beta_and_huge_tokens_give_no_warning():
    beta = np.arange(4.0)
    np.testing.assert_array_equal(ac.layer_norm(np.full(4, 3.0), np.ones(4), beta), beta)
    X = np.random.default_rng(1).normal(size=(3, 4096)) * 1e8
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        Y = ac.layer_norm(X, np.ones(4096), np.zeros(4096))
        grads = ac.layer_norm_backward(X, np.ones(4096), np.zeros(4096), np.ones_like(X))
    np.testing.assert_allclose(Y.var(axis=-1), 1.0, rtol=1e-9)
    assert all(np.isfinite(g).all() for g in grads)


@pytest.mark.parametrize("shape", [(5,), (3, 5), (2, 3, 5)])
def test_layer_norm_backward_matches_central_differences(shape):
    rng = np.random.default_rng(2)
    X, gamma, beta = rng.normal(size=shape), rng.normal(size=5), rng.normal(size=5)
    G = rng.normal(size=shape)

    def loss():
        return float(np.sum(ac.layer_norm(X, gamma, beta, eps=1e-3) * G))

    grad_X, grad_gamma, grad_beta = ac.layer_norm_backward(X, gamma, beta, G, eps=1e-3)
    for grad, x in ((grad_X, X), (grad_gamma, gamma), (grad_beta, beta)):
        np.testing.assert_allclose(grad, central_difference(loss, x), rtol=1e-6, atol=1e-8)


# --- the feed-forward network ---------------------------------------------------------------

def test_feed_forward_by_hand():
    X = np.array([[1.0, -2.0]])
    W_1, b_1 = np.array([[1.0, -1.0, 0.5], [1.0, 0.0, 1.0]]), np.array([0.0, 0.0, 2.0])
    W_2, b_2 = np.array([[1.0, 0.0], [0.0, 1.0], [2.0, 1.0]]), np.array([0.5, -0.5])
    # X W_1 + b_1 = (-1, -1, 0.5) -> relu (0, 0, 0.5) -> (1, 0.5) + b_2
    np.testing.assert_allclose(ac.feed_forward(X, W_1, b_1, W_2, b_2), [[1.5, 0.0]])
    np.testing.assert_allclose(ac.feed_forward(X[0], W_1, b_1, W_2, b_2), [1.5, 0.0])


@pytest.mark.parametrize("shape", [(4,), (3, 4), (2, 3, 4)])
def test_feed_forward_backward_matches_central_differences(shape):
    rng = np.random.default_rng(3)
    X = rng.normal(size=shape)
    params = [rng.normal(size=s) for s in ((4, 7), (7,), (7, 4), (4,))]
    G = rng.normal(size=shape)

    def loss():
        return float(np.sum(ac.feed_forward(X, *params) * G))

    grads = ac.feed_forward_backward(X, *params, G)
    for grad, x in zip(grads, [X, *params]):
        np.testing.assert_allclose(grad, central_difference(loss, x), rtol=1e-6, atol=1e-8)


# --- multi-head attention: a batch, and the backward pass -----------------------------------

def heads_and_output(rng, d=4, h=2, d_k=2, d_v=3):
    heads = [tuple(rng.normal(size=(d, c)) for c in (d_k, d_k, d_v)) for _ in range(h)]
    return heads, rng.normal(size=(h * d_v, d))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 3), st.integers(1, 5), seeds)
def test_a_batch_of_sequences_is_each_sequence_alone(b, n, seed):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(b, n, 4))
    heads, W_O = heads_and_output(rng)
    mask = ac.causal_mask(n)
    block = small_block(rng, norm_first=bool(seed % 2))
    Z_mha = ac.multi_head_attention(X, heads, W_O, mask=mask)
    Z_block = ac.transformer_block(X, block, mask=mask)
    for s in range(b):
        np.testing.assert_allclose(Z_mha[s], ac.multi_head_attention(X[s], heads, W_O, mask=mask),
                                   rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(Z_block[s], ac.transformer_block(X[s], block, mask=mask),
                                   rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("shape, mask", [
    ((4, 4), None), ((4, 4), ac.causal_mask(4)),
    ((2, 4, 4), ac.causal_mask(4) & ac.padding_mask([4, 2], 4)),
])
def test_multi_head_attention_backward_matches_central_differences(shape, mask):
    rng = np.random.default_rng(4)
    X = rng.normal(size=shape)
    heads, W_O = heads_and_output(rng)
    G = rng.normal(size=shape)

    def loss():
        return float(np.sum(ac.multi_head_attention(X, heads, W_O, mask=mask) * G))

    grad_X, grad_heads, grad_W_O = ac.multi_head_attention_backward(X, heads, W_O, G, mask=mask)
    np.testing.assert_allclose(grad_X, central_difference(loss, X), rtol=1e-6, atol=1e-8)
    np.testing.assert_allclose(grad_W_O, central_difference(loss, W_O), rtol=1e-6, atol=1e-8)
    assert len(grad_heads) == 2
    for grads, head in zip(grad_heads, heads):
        for grad, W in zip(grads, head):
            assert grad.shape == W.shape
            np.testing.assert_allclose(grad, central_difference(loss, W), rtol=1e-6, atol=1e-8)


def test_masked_keys_get_no_gradient_through_their_scores():
    rng = np.random.default_rng(5)
    X = rng.normal(size=(4, 4))
    heads, W_O = heads_and_output(rng)
    G = np.zeros((4, 4))
    G[0] = rng.normal(size=4)  # only token 0's output matters; causally it sees itself only
    grad_X = ac.multi_head_attention_backward(X, heads, W_O, G, mask=ac.causal_mask(4))[0]
    assert np.all(grad_X[1:] == 0.0) and np.any(grad_X[0] != 0.0)


# --- the block, post-norm and pre-norm ------------------------------------------------------

def by_hand(X, p, mask=None):
    """The block composed from the package's checked public pieces."""
    def mha(x):
        return ac.multi_head_attention(x, p.heads, p.W_O, mask=mask)

    def ffn(x):
        return ac.feed_forward(x, p.W_1, p.b_1, p.W_2, p.b_2)

    def ln_1(x):
        return ac.layer_norm(x, p.gamma_1, p.beta_1)

    def ln_2(x):
        return ac.layer_norm(x, p.gamma_2, p.beta_2)

    r = 1.0 if p.residual else 0.0
    if p.norm_first:
        Y = r * X + mha(ln_1(X))
        return r * Y + ffn(ln_2(Y))
    Y = ln_1(r * X + mha(X))
    return ln_2(r * Y + ffn(Y))


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("residual", [True, False])
@pytest.mark.parametrize("mask", [None, ac.causal_mask(5)])
def test_the_block_is_its_formula(norm_first, residual, mask):
    rng = np.random.default_rng(6)
    block = small_block(rng, norm_first=norm_first, residual=residual)
    X = rng.normal(size=(5, 4))
    np.testing.assert_allclose(ac.transformer_block(X, block, mask=mask),
                               by_hand(X, block, mask), rtol=1e-12, atol=1e-12)


def silent(block):
    """The block with sublayers that output zero: W_O = 0, W_2 = 0, b_2 = 0."""
    return dataclasses.replace(block, W_O=np.zeros_like(block.W_O),
                               W_2=np.zeros_like(block.W_2), b_2=np.zeros_like(block.b_2))


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), seeds)
def test_pre_norm_with_silent_sublayers_is_the_identity_through_its_residuals(n, seed):
    rng = np.random.default_rng(seed)
    block = silent(small_block(rng, norm_first=True))
    X = rng.normal(size=(2, n, 4)) * 5
    np.testing.assert_array_equal(ac.transformer_block(X, block), X)
    np.testing.assert_array_equal(ac.transformer_block(X, ac.without_residuals(block)), 0.0)


@settings(max_examples=30, deadline=None)
@given(st.integers(1, 6), seeds)
def test_post_norm_with_silent_sublayers_normalises_instead(n, seed):
    # Post-norm puts the layer norms on the residual path, so the block is not the identity:
    # with silent sublayers it is LN_2(LN_1(X)), and with gammas 1 and betas 0 each token
    # leaves with mean 0 and variance 1 (up to eps), whatever X was.
    rng = np.random.default_rng(seed)
    block = silent(small_block(rng, norm_first=False))
    X = rng.normal(size=(n, 4)) * 5 + 3
    expected = ac.layer_norm(ac.layer_norm(X, block.gamma_1, block.beta_1), block.gamma_2,
                             block.beta_2)
    np.testing.assert_allclose(ac.transformer_block(X, block), expected, rtol=1e-12, atol=1e-12)
    plain = silent(ac.Block.random(4, 2, 6, rng))
    Z = ac.transformer_block(X, plain)
    np.testing.assert_allclose(Z.mean(axis=-1), 0.0, atol=1e-12)
    np.testing.assert_allclose(Z.var(axis=-1), 1.0, rtol=1e-4)


@settings(max_examples=20, deadline=None)
@given(st.integers(2, 6), st.booleans(), st.data())
def test_a_causal_block_never_looks_ahead(n, norm_first, data):
    rng = np.random.default_rng(data.draw(seeds))
    j = data.draw(st.integers(1, n - 1))
    block = small_block(rng, norm_first=norm_first)
    X = rng.normal(size=(2, n, 4))
    changed = X.copy()
    changed[:, j:] = rng.normal(size=(2, n - j, 4)) * 10
    mask = ac.causal_mask(n)
    np.testing.assert_array_equal(ac.transformer_block(changed, block, mask=mask)[:, :j],
                                  ac.transformer_block(X, block, mask=mask)[:, :j])


def block_cases():
    masks = {"no mask": None, "causal": ac.causal_mask(3),
             "causal and padding": ac.causal_mask(3) & ac.padding_mask([3, 2], 3)}
    for norm_first in (False, True):
        for residual in (True, False):
            for name, mask in masks.items():
                shape = (2, 3, 4) if name != "causal" else (3, 4)
                yield pytest.param(norm_first, residual, mask, shape,
                                   id=f"{'pre' if norm_first else 'post'}-norm, "
                                      f"{'residual' if residual else 'no residual'}, {name}, "
                                      f"X {shape}")


@pytest.mark.parametrize("norm_first, residual, mask, shape", block_cases())
def test_block_backward_matches_central_differences(norm_first, residual, mask, shape):
    rng = np.random.default_rng(7)
    block = small_block(rng, norm_first=norm_first, residual=residual)
    X = rng.normal(size=shape)
    dZ = rng.normal(size=shape)

    def loss():
        return float(np.sum(ac.transformer_block(X, block, mask=mask) * dZ))

    dX, grads = ac.transformer_block_backward(X, block, dZ, mask=mask)
    assert isinstance(grads, ac.Block) and grads.norm_first == norm_first
    np.testing.assert_allclose(dX, central_difference(loss, X), rtol=1e-6, atol=1e-8)
    for name, p in block.params.items():
        np.testing.assert_allclose(grads.params[name], central_difference(loss, p), rtol=1e-6,
                                   atol=1e-8, err_msg=name)


def test_vjp_gives_the_output_and_the_same_gradients():
    rng = np.random.default_rng(8)
    block = small_block(rng)
    X, dZ = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))
    Z, backward = ac.transformer_block_vjp(X, block)
    np.testing.assert_array_equal(Z, ac.transformer_block(X, block))
    dX, grads = backward(dZ)
    dX_2, grads_2 = ac.transformer_block_backward(X, block, dZ)
    np.testing.assert_array_equal(dX, dX_2)
    for name, g in grads.params.items():
        np.testing.assert_array_equal(g, grads_2.params[name])
    with pytest.raises(ValueError, match=r"transformer_block_vjp: dZ has shape \(3, 4\) but the "
                                         r"output Z has shape \(2, 3, 4\)"):
        backward(dZ[0])


def test_a_stack_is_its_blocks_in_turn_and_its_gradient_the_chain_rule():
    rng = np.random.default_rng(9)
    blocks = [small_block(rng), small_block(rng, norm_first=True)]
    X, dZ = rng.normal(size=(2, 3, 4)), rng.normal(size=(2, 3, 4))
    mask = ac.causal_mask(3)
    Z, backward = ac.transformer_stack_vjp(X, blocks, mask=mask)
    middle = ac.transformer_block(X, blocks[0], mask=mask)
    np.testing.assert_array_equal(Z, ac.transformer_block(middle, blocks[1], mask=mask))
    np.testing.assert_array_equal(ac.transformer_stack(X, blocks, mask=mask), Z)
    dX, grads = backward(dZ)
    d_middle, last = ac.transformer_block_backward(middle, blocks[1], dZ, mask=mask)
    dX_2, first = ac.transformer_block_backward(X, blocks[0], d_middle, mask=mask)
    np.testing.assert_allclose(dX, dX_2, rtol=1e-14, atol=1e-14)
    for g, g_2 in ((grads[0], first), (grads[1], last)):
        for name, value in g.params.items():
            np.testing.assert_allclose(value, g_2.params[name], rtol=1e-14, atol=1e-14)

    def loss():
        return float(np.sum(ac.transformer_stack(X, blocks, mask=mask) * dZ))

    np.testing.assert_allclose(dX, central_difference(loss, X), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("residual", [True, False])
@pytest.mark.parametrize("mask", ["padding", "causal", None])
def test_a_stack_read_at_its_first_tokens_is_the_full_stack_there(norm_first, residual, mask):
    """n_queries: the last block's first rows, and the same gradients when only they count."""
    rng = np.random.default_rng(11)
    blocks = [small_block(rng, norm_first=norm_first, residual=residual) for _ in range(2)]
    X = rng.normal(size=(3, 5, 4))
    mask = {"padding": ac.padding_mask([5, 3, 4], 5), "causal": ac.causal_mask(5),
            None: None}[mask]
    for n_q in (1, 2, 5):
        dZ = rng.normal(size=(3, n_q, 4))
        Z, backward = ac.transformer_stack_vjp(X, blocks, mask=mask, n_queries=n_q)
        full, full_backward = ac.transformer_stack_vjp(X, blocks, mask=mask)
        assert Z.shape == (3, n_q, 4)
        np.testing.assert_allclose(Z, full[:, :n_q], rtol=1e-13, atol=1e-13)
        dZ_full = np.zeros_like(full)
        dZ_full[:, :n_q] = dZ
        (dX, grads), (dX_full, grads_full) = backward(dZ), full_backward(dZ_full)
        np.testing.assert_allclose(dX, dX_full, rtol=1e-12, atol=1e-13)
        for g, g_full in zip(grads, grads_full):
            for name, value in g.params.items():
                np.testing.assert_allclose(value, g_full.params[name], rtol=1e-12,
                                           atol=1e-13)
    one = ac.transformer_stack_vjp(X[0], blocks, n_queries=2)[0]
    np.testing.assert_allclose(one, ac.transformer_stack(X[0], blocks)[:2], rtol=1e-13,
                               atol=1e-13)
    with pytest.raises(ValueError, match="transformer_stack_vjp: n_queries = 6 but X has "
                                         "only 5 tokens"):
        ac.transformer_stack_vjp(X, blocks, n_queries=6)
    with pytest.raises(ValueError, match="transformer_stack_vjp: n_queries"):
        ac.transformer_stack_vjp(X, blocks, n_queries=0)


def test_without_residuals_shares_the_arrays():
    block = ac.Block.random(4, 2, 6, np.random.default_rng(0))
    other = ac.without_residuals(block)
    assert other.residual is False and block.residual is True
    assert other.W_1 is block.W_1 and other.heads is block.heads


# --- Block.random and the parameters --------------------------------------------------------

def test_random_block_shapes_scales_and_seed():
    block = ac.Block.random(48, 4, 192, np.random.default_rng(0), norm_first=True)
    assert len(block.heads) == 4 and block.norm_first and block.residual
    assert [W.shape for W in block.heads[0]] == [(48, 12)] * 3
    assert block.W_O.shape == (48, 48) and block.W_1.shape == (48, 192)
    assert block.W_2.shape == (192, 48) and block.b_1.shape == (192,)
    np.testing.assert_array_equal(block.gamma_1, 1.0)
    np.testing.assert_array_equal(block.beta_2, 0.0)
    np.testing.assert_array_equal(block.b_2, 0.0)
    assert block.W_1.std() == pytest.approx(np.sqrt(2 / (48 + 192)), rel=0.05)
    again = ac.Block.random(48, 4, 192, np.random.default_rng(0))
    np.testing.assert_array_equal(again.W_1, block.W_1)
    assert "d = 48, h = 4, d_ff = 192" in repr(block) and "pre-norm" in repr(block)


def test_the_base_transformer_block_has_the_counted_parameters():
    block = ac.Block.random(512, 8, 2048, np.random.default_rng(0))
    assert block.n_params == layer_cost(1, 512, 8, 2048).params_total == 3_150_336
    names = list(block.params)
    assert names[:3] == ["W_Q^(1)", "W_K^(1)", "W_V^(1)"] and names[-1] == "beta_2"


def test_adam_on_block_params_trains_the_block_in_place():
    rng = np.random.default_rng(10)
    block = ac.Block.random(8, 2, 16, rng, norm_first=True)
    X, target = rng.normal(size=(4, 5, 8)), rng.normal(size=(4, 5, 8))
    optimiser = Adam(block.params, learning_rate=0.01)
    losses = []
    for _ in range(30):
        Z, backward = ac.transformer_block_vjp(X, block)
        losses.append(0.5 * np.sum((Z - target) ** 2))
        optimiser.step(backward(Z - target)[1].params)
    assert losses[-1] < 0.8 * losses[0]


@pytest.mark.parametrize("args, match", [
    ((4, 3, 6), r"Block.random: d = 4 is not divisible by h = 3"),
    ((4, 0, 6), r"Block.random: h must be at least 1"),
    ((4, 2, 6, "seed"), r"Block.random: rng must be a numpy.random.Generator"),
])
def test_random_block_rejects(args, match):
    args = args if len(args) == 4 else (*args, np.random.default_rng(0))
    with pytest.raises(ValueError, match=match):
        ac.Block.random(*args)


# --- bad input ------------------------------------------------------------------------------

def replaced(**fields):
    return dataclasses.replace(ac.Block.random(4, 2, 6, np.random.default_rng(0)), **fields)


@pytest.mark.parametrize("block, match", [
    (replaced(W_1=np.ones((5, 6))), r"W_1 has shape \(5, 6\) but \(4, 6\) is needed for X "
                                    r"\(3, 4\) \(d = 4\)"),
    (replaced(b_1=np.ones(5)), r"b_1 has shape \(5,\) but \(6,\) is needed .* W_1 \(4, 6\) "
                               r"\(d_ff = 6\)"),
    (replaced(W_2=np.ones((6, 5))), r"W_2 has shape \(6, 5\) but \(6, 4\) is needed"),
    (replaced(W_O=np.ones((4, 5))), r"W_O has shape \(4, 5\) but h d_v x d = 2 \* 2 x 4"),
    (replaced(gamma_1=np.ones(3)), r"gamma_1 has shape \(3,\) but X \(3, 4\) has d = 4, so "
                                   r"gamma_1 must be \(4,\)"),
    (replaced(beta_2=np.ones((4, 1))), r"beta_2 must be a vector \(d,\) with d = 4"),
    (replaced(heads=[]), r"heads is empty"),
    (replaced(heads=[tuple(np.ones((4, 2)) for _ in range(3)),
                     (np.ones((4, 2)), np.ones((4, 2)), np.ones((4, 3)))]),
     r"head 2 has shapes .* but head 1 has"),
    (replaced(heads=[tuple(np.ones((5, 2)) for _ in range(3))] * 2),
     r"\(head 1\): W_Q has shape \(5, 2\) but the tokens X \(3, 4\) have d = 4"),
    (replaced(norm_first="yes"), r"block.norm_first must be True or False; got 'yes'"),
    (replaced(eps=0.0), r"eps must be a positive number; got 0.0"),
    ("a block", r"block must be a Block .* str has no heads, W_O"),
])
def test_the_block_rejects_mismatched_parameters(block, match):
    X = np.ones((3, 4))
    for name, call in (("transformer_block", lambda: ac.transformer_block(X, block)),
                       ("transformer_block_backward",
                        lambda: ac.transformer_block_backward(X, block, X))):
        with pytest.raises(ValueError, match=f"^{name}.*{match}"):
            call()


@pytest.mark.parametrize("call, match", [
    (lambda X, b: ac.transformer_block(X[0, 0], b), r"X must be a matrix \(n, d\) .* or a batch "
                                                    r"of them \(b, n, d\); got shape \(4,\)"),
    (lambda X, b: ac.transformer_block(X, b, mask=np.ones((3, 2), dtype=bool)),
     r"mask of shape \(3, 2\) does not broadcast to the scores of shape \(2, 3, 3\)"),
    (lambda X, b: ac.transformer_block(X, b, mask=np.ones((3, 3, 3), dtype=bool)),
     r"mask of shape \(3, 3, 3\) does not broadcast to the scores of shape \(2, 3, 3\)"),
    (lambda X, b: ac.transformer_block_backward(X, b, X[0]),
     r"dZ has shape \(3, 4\) but the output Z has shape \(2, 3, 4\)"),
    (lambda X, b: ac.transformer_stack(X, []), r"transformer_stack: blocks is empty"),
    (lambda X, b: ac.transformer_stack(X, [b, dataclasses.replace(b, b_2=np.ones(3))]),
     r"transformer_stack \(block 2\): b_2 has shape \(3,\)"),
    (lambda X, b: ac.layer_norm(X, np.ones(4), np.ones(4), eps=-1), r"eps must be a positive"),
    (lambda X, b: ac.layer_norm_backward(X, np.ones(4), np.ones(4), X[0]),
     r"grad_out has shape \(3, 4\) but X has shape \(2, 3, 4\)"),
    (lambda X, b: ac.feed_forward_backward(X, b.W_1, b.b_1, b.W_2, b.b_2, X[..., :3]),
     r"grad_out has shape \(2, 3, 3\) but X has shape \(2, 3, 4\)"),
    (lambda X, b: ac.multi_head_attention_backward(X, b.heads, b.W_O, X[:1]),
     r"grad_out has shape \(1, 3, 4\) but the output of multi_head_attention has shape "
     r"\(2, 3, 4\)"),
    (lambda X, b: ac.multi_head_attention(X[None], b.heads, b.W_O),
     r"X must be a matrix \(n, d\) with one token per row or a batch of them"),
])
def test_bad_input_is_named(call, match):
    X = np.ones((2, 3, 4))
    with pytest.raises(ValueError, match=match):
        call(X, ac.Block.random(4, 2, 6, np.random.default_rng(0)))


# --- extreme values -------------------------------------------------------------------------

def test_a_wide_block_with_huge_scores_gives_no_nan_and_no_warning():
    rng = np.random.default_rng(11)
    block = ac.Block.random(1024, 8, 32, rng)
    block.heads = [(W_Q * 300, W_K * 300, W_V) for W_Q, W_K, W_V in block.heads]
    X = rng.normal(size=(2, 4, 1024)) * 30
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for norm_first in (False, True):
            p = dataclasses.replace(block, norm_first=norm_first)
            Z, backward = ac.transformer_block_vjp(X, p, mask=ac.causal_mask(4))
            dX, grads = backward(np.ones_like(X))
            assert np.isfinite(Z).all() and np.isfinite(dX).all()
            assert all(np.isfinite(g).all() for g in grads.params.values())
