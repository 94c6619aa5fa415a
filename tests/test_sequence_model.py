"""Chapter 9's small transformer: the whole model's gradient against central differences,
what the padding mask and the missing positions imply, the ablation of a head, training,
bad input and extreme values."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core as ac
from attention_core.lookup_task import N_CLASSES, N_FEATURES, make_examples
from attention_core.sequence_model import SequenceClassifier, evaluate, train

seeds = st.integers(0, 2**32 - 1)


def tiny(seed=0, **options):
    """A small model with every parameter moved off its initial value (betas, biases not 0)."""
    rng = np.random.default_rng(seed)
    settings_ = dict(d_model=8, h=2, d_ff=6, n_blocks=2) | options
    model = SequenceClassifier(rng, N_FEATURES, N_CLASSES, **settings_)
    for p in model.params.values():
        p += rng.normal(size=p.shape) * 0.2
    return model, make_examples(3, rng)


def central_difference(f, x, indices, eps=1e-6):
    """The derivatives of the scalar f() by the entries ``indices`` of the array x."""
    grad = []
    for index in indices:
        original = x[index]
        x[index] = original + eps
        up = f()
        x[index] = original - eps
        down = f()
        x[index] = original
        grad.append((up - down) / (2 * eps))
    return np.array(grad)


@pytest.mark.parametrize("norm_first", [True, False])
def test_every_gradient_of_the_model_matches_central_differences(norm_first):
    model, ex = tiny(norm_first=norm_first)
    assert not ex.mask.all()                       # the padding mask is in the computation

    def loss():
        return model.loss_and_gradients(ex.features, ex.mask, ex.answer)[0]

    grads = model.loss_and_gradients(ex.features, ex.mask, ex.answer)[1]
    assert list(grads) == list(model.params)
    rng = np.random.default_rng(1)
    for name, p in model.params.items():   # every array, at most 8 of its entries
        assert grads[name].shape == p.shape, name
        flat = rng.permutation(p.size)[:8]
        indices = [np.unravel_index(k, p.shape) for k in flat]
        if name == "E":                    # the rows of the features that occur
            indices = [(f, c) for f in np.nonzero(ex.features.any((0, 1)))[0][:4]
                       for c in (0, 5)]
        np.testing.assert_allclose([grads[name][i] for i in indices],
                                   central_difference(loss, p, indices), rtol=1e-5,
                                   atol=1e-9, err_msg=name)


def test_parameters_are_counted_and_named():
    model = SequenceClassifier(np.random.default_rng(0), N_FEATURES, N_CLASSES)
    block = 4 * 64 * 64 + (2 * 64 * 128 + 128 + 64) + 4 * 64
    assert model.n_params == 34 * 64 + block + 2 * 64 + 64 * 100 + 100 == 42_020
    post = SequenceClassifier(np.random.default_rng(0), N_FEATURES, N_CLASSES, h=1,
                              norm_first=False)
    assert post.n_params == model.n_params - 2 * 64           # no final layer norm
    assert "block 1 W_Q^(1)" in model.params and "gamma_f" in model.params
    assert "h = 4" in repr(model) and "pre-norm" in repr(model)


@settings(max_examples=15, deadline=None)
@given(seeds, st.booleans())
def test_padding_and_the_order_of_the_pairs_change_nothing(seed, norm_first):
    model, _ = tiny(seed % 1000, norm_first=norm_first)
    rng = np.random.default_rng(seed)
    ex = make_examples(4, rng, 3, 6)
    logits = model.logits(ex.features, ex.mask)
    noisy, shuffled = ex.features.copy(), ex.features.copy()
    for k, m in enumerate(ex.lengths):
        noisy[k, m + 1:] = rng.normal(size=noisy[k, m + 1:].shape)   # garbage in the padding
        shuffled[k, 1:m + 1] = ex.features[k, 1 + rng.permutation(m)]
    np.testing.assert_allclose(model.logits(noisy, ex.mask), logits, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(model.logits(shuffled, ex.mask), logits, rtol=1e-10, atol=1e-12)


def test_attention_weights_are_the_heads_of_the_package():
    model, ex = tiny(norm_first=False)
    A = model.attention_weights(ex.features, ex.mask)
    assert A.shape == (3, 2, 7, 7)
    np.testing.assert_allclose(A.sum(-1), 1.0, rtol=1e-12)
    assert np.all(A[~np.broadcast_to(ex.mask[:, None], A.shape)] == 0.0)   # exactly 0
    X_0 = ex.features @ model.E
    for s in range(3):
        for r, (W_Q, W_K, _) in enumerate(model.blocks[0].heads):
            expected = ac.self_attention_weights(X_0[s], W_Q, W_K, mask=ex.mask[s, 0])
            np.testing.assert_allclose(A[s, r], expected, rtol=1e-12, atol=1e-15)
    pre, _ = tiny(norm_first=True)
    X_1 = ac.transformer_block(ex.features @ pre.E, pre.blocks[0], mask=ex.mask)
    p = pre.blocks[1]
    W_Q, W_K, _ = p.heads[1]
    expected = ac.self_attention_weights(ac.layer_norm(X_1[0], p.gamma_1, p.beta_1), W_Q, W_K,
                                         mask=ex.mask[0, 0])
    np.testing.assert_allclose(pre.attention_weights(ex.features, ex.mask, block=2)[0, 1],
                               expected, rtol=1e-12, atol=1e-15)


def test_a_head_switched_off_adds_nothing_and_the_original_is_untouched():
    model, ex = tiny(norm_first=True)
    before = {name: p.copy() for name, p in model.params.items()}
    off = model.without_head(2, block=1)
    for name, p in model.params.items():
        np.testing.assert_array_equal(p, before[name])
    W_O, W_O_off = model.blocks[0].W_O, off.blocks[0].W_O
    assert np.all(W_O_off[4:] == 0) and np.all(W_O_off[:4] == W_O[:4])
    assert not np.allclose(off.logits(ex.features, ex.mask), model.logits(ex.features, ex.mask))
    # one block, one head: with it switched off the output cannot depend on the pairs
    single, _ = tiny(n_blocks=1, h=1)
    silent = single.without_head(1)
    changed = ex.features.copy()
    changed[:, 1:] = np.roll(ex.features[:, 1:], 1, axis=0)   # other examples' pairs
    np.testing.assert_allclose(silent.logits(changed, ex.mask), silent.logits(ex.features,
                                                                              ex.mask))


def test_several_heads_switched_off_at_once():
    model, ex = tiny(norm_first=False)
    both = model.without_head([1, 2])
    assert np.all(both.blocks[0].W_O == 0)
    np.testing.assert_array_equal(model.without_head((2,)).blocks[0].W_O,
                                  model.without_head(2).blocks[0].W_O)
    with pytest.raises(ValueError, match="without_head: the model has heads 1 ... 2"):
        model.without_head([1, 3])
    with pytest.raises(ValueError, match="without_head: the model has heads"):
        model.without_head([])


@pytest.mark.parametrize("norm_first", [True, False])
def test_the_gradient_trace_is_the_chain_rule_through_the_stream(norm_first):
    model, ex = tiny(norm_first=norm_first)
    trace = model.gradient_trace(ex.features, ex.mask, ex.answer)
    loss, grads = model.loss_and_gradients(ex.features, ex.mask, ex.answer)
    assert trace.loss == pytest.approx(loss, rel=1e-13)
    assert len(trace.streams) == len(trace.stream_grads) == len(model.blocks) + 1
    np.testing.assert_allclose(trace.streams[0], ex.features @ model.E)
    X = trace.streams[0]
    for k, block in enumerate(model.blocks, start=1):
        X = ac.transformer_block(X, block, mask=ex.mask)
        np.testing.assert_allclose(trace.streams[k], X, rtol=1e-13, atol=1e-13)
        for name, g in trace.block_grads[k - 1].params.items():
            np.testing.assert_allclose(g, grads[f"block {k} {name}"], rtol=1e-10,
                                       atol=1e-14)
    # dL/dX_0 gives dE, and dL/dX_k is the derivative of the loss by the stream there
    np.testing.assert_allclose(ex.features.reshape(-1, 34).T
                               @ trace.stream_grads[0].reshape(-1, 8), grads["E"],
                               rtol=1e-10, atol=1e-14)
    rng = np.random.default_rng(3)
    D = rng.normal(size=trace.streams[1].shape)
    rest = model.blocks[1:]

    def loss_from_stream(X_1):
        if rest:
            X_1 = ac.transformer_stack(X_1, rest, mask=ex.mask)
        if model.norm_first:
            X_1 = ac.layer_norm(X_1, model.gamma_f, model.beta_f)
        logits = X_1[:, 0] @ model.W_out + model.b_out
        log_y = logits - np.log(np.exp(logits - logits.max(1, keepdims=True)).sum(
            1, keepdims=True)) - logits.max(1, keepdims=True)
        return -log_y[np.arange(len(ex.answer)), ex.answer].mean()

    h = 1e-6
    numeric = (loss_from_stream(trace.streams[1] + h * D)
               - loss_from_stream(trace.streams[1] - h * D)) / (2 * h)
    assert np.sum(trace.stream_grads[1] * D) == pytest.approx(numeric, rel=1e-6)


def test_training_is_reproducible_and_learns():
    def run():
        rng = np.random.default_rng(4)
        model = SequenceClassifier(rng, N_FEATURES, N_CLASSES, d_model=16, h=2, d_ff=32)
        return model, train(model, lambda g: make_examples(32, g), 150, rng,
                            learning_rate=1e-2)

    (model, first), (_, second) = run(), run()
    np.testing.assert_array_equal(first.losses, second.losses)
    assert first.losses.shape == first.accuracies.shape == (150,)
    assert first.losses[-10:].mean() < first.losses[:10].mean() - 1.0
    loss, accuracy = evaluate(model, make_examples(500, np.random.default_rng(1)))
    assert 0 <= accuracy <= 1 and loss < first.losses[0]


def test_training_stops_when_the_running_accuracy_is_reached():
    def run(until, steps=400):
        rng = np.random.default_rng(2)
        model = SequenceClassifier(rng, N_FEATURES, N_CLASSES, d_model=16, h=2, d_ff=32)
        return train(model, lambda g: make_examples(32, g), steps, rng, 1e-2, until,
                     window=10)

    full, stopped = run(None, 200), run(0.2)
    assert full.reached is None and full.steps == 200
    k = stopped.reached
    assert k is not None and stopped.steps == k and stopped.accuracies[k - 10:].mean() >= 0.2
    assert all(stopped.accuracies[j - 10:j].mean() < 0.2 for j in range(10, k))
    np.testing.assert_array_equal(stopped.losses, full.losses[:k])    # the same run
    assert full.first_reaching(0.2, window=10) == k                   # the same rule
    assert full.first_reaching(0.2, window=500) is None
    assert run(1.0, 30).reached is None


def test_huge_parameters_give_no_nan_and_no_warning():
    model, ex = tiny()
    for p in model.params.values():
        p *= 1e4
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        loss, grads = model.loss_and_gradients(ex.features, ex.mask, ex.answer)
    assert np.isfinite(loss) and all(np.isfinite(g).all() for g in grads.values())


def test_bad_input_is_a_clear_error():
    model, ex = tiny()
    with pytest.raises(ValueError, match="E has 34 rows"):
        model.logits(ex.features[:, :, :30], ex.mask)
    with pytest.raises(ValueError, match="answer must be 3 whole numbers in 0 ... 99"):
        model.loss_and_gradients(ex.features, ex.mask, ex.answer + 100)
    with pytest.raises(ValueError, match="answer must be"):
        model.loss_and_gradients(ex.features, ex.mask, ex.answer.astype(float))
    with pytest.raises(ValueError, match="mask of shape"):
        model.logits(ex.features, ex.mask[:, :, :5])
    with pytest.raises(ValueError, match="features must be an array"):
        model.logits(ex.features[0], ex.mask)
    with pytest.raises(ValueError, match="heads 1 ... 2 and blocks 1 ... 2; got head 3"):
        model.without_head(3)
    with pytest.raises(ValueError, match="block must be 1 ... 2"):
        model.attention_weights(ex.features, ex.mask, block=3)
    with pytest.raises(ValueError, match="rng must be"):
        SequenceClassifier(0, N_FEATURES, N_CLASSES)
    with pytest.raises(ValueError, match="not divisible by h"):
        SequenceClassifier(np.random.default_rng(0), N_FEATURES, N_CLASSES, d_model=6, h=4)
    with pytest.raises(ValueError, match="steps must be at least 1"):
        train(model, lambda g: make_examples(4, g), 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="until must be an accuracy"):
        train(model, lambda g: make_examples(4, g), 5, np.random.default_rng(0), until=2)
    with pytest.raises(ValueError, match="make_batch must be a function"):
        train(model, ex, 5, np.random.default_rng(0))
    with pytest.raises(ValueError, match="model must be a SequenceClassifier"):
        evaluate("model", ex)
