"""Generation with and without the cache of keys and values (chapter 10): the same tokens
and logits both ways, the logits of every prefix, the exact operation counts and their
growth (t^3 against t^2), the cache's memory, errors and extreme values."""

import dataclasses
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core as ac
from attention_core.cost import attention_cost, layer_cost
from attention_core.generation import (
    Decoder,
    decoder_logits,
    generate,
    generation_cost,
    kv_cache_bytes,
)

seeds = st.integers(0, 2**32 - 1)


def model(seed=0, n_vocab=11, d=8, h=2, d_ff=12, layers=2, norm_first=True):
    return Decoder.random(n_vocab, d, h, d_ff, layers, np.random.default_rng(seed),
                          norm_first=norm_first)


# --- the same outputs -----------------------------------------------------------------------

@settings(max_examples=25, deadline=None)
@given(seeds, st.integers(1, 4), st.integers(1, 8), st.booleans(), st.booleans(),
       st.integers(1, 3))
def test_the_cache_changes_nothing_but_the_work(seed, prompt_length, steps, norm_first,
                                                 residual, layers):
    m = model(seed, norm_first=norm_first, layers=layers)
    if not residual:
        m.blocks = [ac.without_residuals(block) for block in m.blocks]
    prompt = np.random.default_rng(seed).integers(0, 11, prompt_length).tolist()
    cached, plain = generate(m, prompt, steps), generate(m, prompt, steps, cache=False)
    assert cached.tokens == plain.tokens and len(cached.tokens) == prompt_length + steps
    assert cached.tokens[:prompt_length] == prompt
    np.testing.assert_allclose(cached.logits, plain.logits, rtol=1e-10, atol=1e-12)
    assert plain.cache is None and cached.cache.length == prompt_length + steps - 1


def test_each_step_reads_the_logits_of_its_prefix():
    m = model(1)
    out = generate(m, [3, 1], 6)
    logits = decoder_logits(m, out.tokens[:-1])
    np.testing.assert_allclose(out.logits, logits[1:], rtol=1e-10, atol=1e-12)
    assert out.tokens[2:] == np.argmax(logits[1:], axis=1).tolist()


def test_a_position_does_not_see_later_tokens():
    m = model(2)
    tokens = [1, 2, 3, 4, 5]
    later = [1, 2, 3, 9, 0]
    np.testing.assert_allclose(decoder_logits(m, tokens)[:3], decoder_logits(m, later)[:3],
                               rtol=1e-13, atol=1e-14)


def test_the_blocks_are_chapter_9s():
    """The cache-free path is the stack of chapter 9 under the causal mask, then LN, W_out."""
    m = model(3, norm_first=False)
    tokens = [4, 0, 7, 7]
    X = m.embedding[tokens] + ac.sinusoidal_positions(4, 8)
    Z = ac.transformer_stack(X, m.blocks, mask=ac.causal_mask(4))
    expected = ac.layer_norm(Z, m.gamma, m.beta) @ m.W_out
    np.testing.assert_allclose(decoder_logits(m, tokens), expected, rtol=1e-13)


# --- counts ---------------------------------------------------------------------------------

def by_the_steps(n_vocab, d, h, d_ff, layers, prompt_length, steps, cache):
    """generation_cost summed step by step from attention_cost and layer_cost."""
    attention = linear = 0
    if cache:
        for j in range(1, prompt_length + steps):
            a = attention_cost(j, d, h)
            attention += (a.madds_scores + a.madds_weighted_sum) // j   # one query, j keys
            linear += layer_cost(1, d, h, d_ff).madds_linear
    else:
        for n in range(prompt_length, prompt_length + steps):
            c = layer_cost(n, d, h, d_ff)
            attention += c.madds_quadratic
            linear += c.madds_linear
    return layers * attention, layers * linear + steps * d * n_vocab


@settings(max_examples=40, deadline=None)
@given(st.integers(1, 50), st.sampled_from([(8, 2), (12, 3), (16, 1)]), st.integers(1, 20),
       st.integers(1, 3), st.integers(1, 6), st.integers(1, 30), st.booleans())
def test_the_counts_are_the_sums_over_the_steps(n_vocab, dh, d_ff, layers, prompt, steps,
                                                cache):
    d, h = dh
    cost = generation_cost(n_vocab, d, h, d_ff, layers, prompt, steps, cache)
    assert (cost.attention, cost.linear) == by_the_steps(n_vocab, d, h, d_ff, layers, prompt,
                                                         steps, cache)
    assert cost.total == cost.attention + cost.linear


def test_attention_grows_like_t_cubed_without_the_cache_and_t_squared_with_it():
    sizes = dict(n_vocab=100, d=512, h=8, d_ff=2048, layers=6, prompt_length=1)
    for t in (64, 1024):
        plain = generation_cost(**sizes, steps=t, cache=False).attention
        cached = generation_cost(**sizes, steps=t, cache=True).attention
        per = 6 * 8 * (64 + 64)                     # layers h (d_k + d_v)
        assert plain == per * t * (t + 1) * (2 * t + 1) // 6
        assert cached == per * t * (t + 1) // 2
        assert plain * 3 == cached * (2 * t + 1)    # (2t + 1) / 3 times more without it
    ratio = [generation_cost(**sizes, steps=2 * t, cache=c).attention
             / generation_cost(**sizes, steps=t, cache=c).attention
             for t, c in ((4096, False), (4096, True))]
    assert 7.99 < ratio[0] < 8 and 3.999 < ratio[1] < 4   # 8 - 6/(t+1), 4 - 2/(t+1)


def test_the_cache_holds_what_kv_cache_bytes_counts():
    m = model(4, d=8, h=2, layers=3)
    out = generate(m, [1, 2, 3], 5)
    assert out.cache.nbytes == kv_cache_bytes(7, 8, 2, 3, 8) == 3 * 7 * 2 * (4 + 4) * 8


def test_the_base_transformer_cache_at_2048_tokens():
    assert kv_cache_bytes(2048, 512, 8, 6, 4) == 50_331_648 == 48 * 2**20
    assert kv_cache_bytes(2048, 512, 8, 6, 2, d_k=64, d_v=64) == 24 * 2**20


# --- bad input and extreme values -----------------------------------------------------------

def test_huge_embeddings_give_no_nan_and_no_warning():
    m = model(5)
    m.embedding *= 1e150
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        cached, plain = generate(m, [0, 1], 4), generate(m, [0, 1], 4, cache=False)
    assert np.isfinite(cached.logits).all() and cached.tokens == plain.tokens


@pytest.mark.parametrize("call, match", [
    (lambda m: generate(m, [], 3), r"generate: prompt must be a non-empty sequence of whole"),
    (lambda m: generate(m, [1.5], 3), r"generate: prompt must be a non-empty sequence"),
    (lambda m: generate(m, [11], 3), r"generate: every token id in prompt must be in 0 \.\.\. 10"),
    (lambda m: generate(m, [1], 0), r"generate: steps must be at least 1"),
    (lambda m: generate(m, [1], 2, cache="yes"), r"generate: cache must be True or False"),
    (lambda m: generate(dataclasses.replace(m, W_out=m.W_out[:, :5]), [1], 2),
     r"generate: model.W_out has shape \(8, 5\) but the embedding \(11, 8\) needs \(8, 11\)"),
    (lambda m: generate(dataclasses.replace(m, blocks=[]), [1], 2),
     r"generate: model.blocks is empty"),
    (lambda m: generate(dataclasses.replace(m, gamma=np.ones(3)), [1], 2),
     r"generate: model.gamma has shape \(3,\)"),
    (lambda m: generate(dataclasses.replace(m, embedding=m.embedding[:, :7]), [1], 2),
     r"generate: the embedding has d = 7 columns; d must be even"),
    (lambda m: generate(object(), [1], 2), r"generate: model must be a Decoder"),
    (lambda m: decoder_logits(m, [[1, 2]]), r"decoder_logits: tokens must be a non-empty"),
    (lambda m: generation_cost(10, 8, 3, 4, 1, 1, 2, True), r"d = 8 is not divisible by h = 3"),
    (lambda m: generation_cost(10, 8, 2, 4, 1, 0, 2, True), r"prompt_length must be at least 1"),
    (lambda m: kv_cache_bytes(10, 8, 2, 1, 0), r"kv_cache_bytes: itemsize must be at least 1"),
    (lambda m: Decoder.random(5, 7, 1, 4, 1, np.random.default_rng(0)), r"d = 7 must be even"),
])
def test_bad_input_is_a_clear_error(call, match):
    with pytest.raises(ValueError, match=match):
        call(model())
