"""Chapter 8's task that needs order: sequences, the model, its gradients, the order-blind
bound, training, bad input and extreme values (attention_core.order_task)."""

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import attention_core as ac
from attention_core.order_task import (
    ENCODINGS,
    evaluate,
    make_model,
    make_sequences,
    order_blind_expectation,
    order_blind_loss,
    train,
)

seeds = st.integers(0, 2**32 - 1)

# The chapter's settings (book/08_masky_a_pozice.md).
CHAPTER = {"steps": 800, "batch_size": 32, "seed": 0, "learning_rate": 0.01}


def central_difference(f, x, h=1e-6):
    """The gradient of the scalar function f at the array x, entry by entry."""
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        old = x[index]
        x[index] = old + h
        up = f()
        x[index] = old - h
        down = f()
        x[index] = old
        grad[index] = (up - down) / (2 * h)
    return grad


@settings(max_examples=30, deadline=None)
@given(count=st.integers(1, 30), n=st.integers(2, 8), seed=seeds)
def test_sequences_are_orders_of_all_the_letters(count, n, seed):
    letters = make_sequences(count, np.random.default_rng(seed), n)
    assert letters.shape == (count, n) and np.issubdtype(letters.dtype, np.integer)
    assert (np.sort(letters, axis=1) == np.arange(n)).all()


def test_every_order_is_equally_likely():
    letters = make_sequences(24_000, np.random.default_rng(0), 4)
    codes = letters @ (4 ** np.arange(4))
    counts = np.unique(codes, return_counts=True)[1]
    assert len(counts) == 24 and np.abs(counts / 24_000 - 1 / 24).max() < 0.006


VARIANTS = [(encoding, {}) for encoding in ENCODINGS] + [
    ("learned", {"n_max": 11}),
    ("rope", {"d_k": 6, "back": 2}),
    ("sinusoidal", {"d_model": 6, "d_k": 3, "n": 5}),
    ("none", {"back": 0, "n": 3}),
]


@pytest.mark.parametrize("encoding, options", VARIANTS)
def test_gradients_match_central_differences(encoding, options):
    rng = np.random.default_rng(3)
    model = make_model(encoding, rng, **options)
    letters = make_sequences(4, rng, model.n)
    _, grads = model.loss_and_gradients(letters)
    assert set(grads) == set(model.params)
    for name, param in model.params.items():
        numeric = central_difference(lambda: model.loss_and_gradients(letters)[0], param)
        np.testing.assert_allclose(grads[name], numeric, rtol=1e-5, atol=1e-8, err_msg=name)


def test_rows_of_the_learned_table_beyond_the_sequences_get_no_gradient():
    model = make_model("learned", np.random.default_rng(0), n_max=12)
    _, grads = model.loss_and_gradients(make_sequences(16, np.random.default_rng(1)))
    assert np.all(grads["PE"][8:] == 0.0) and np.all(grads["PE"][:8] != 0.0)


@pytest.mark.parametrize("encoding", ENCODINGS)
def test_the_model_is_the_package_s_attention_with_the_letters_as_values(encoding):
    rng = np.random.default_rng(5)
    model = make_model(encoding, rng)
    letters = make_sequences(3, rng)
    p = model.params
    for b in range(3):
        X = p["W_E"].T[letters[b]]
        if encoding == "sinusoidal":
            X = X + ac.sinusoidal_positions(8, 16)
        elif encoding == "learned":
            X = X + p["PE"]
        if encoding == "rope":
            A = ac.attention_weights(ac.rope(X @ p["W_Q"]), ac.rope(X @ p["W_K"]))
        else:
            A = ac.self_attention_weights(X, p["W_Q"], p["W_K"])
        V = np.eye(8)[letters[b]]                     # row i: the one-hot letter at i
        np.testing.assert_allclose(model.weights(letters)[b], A, atol=1e-12)
        np.testing.assert_allclose(model.probabilities(letters)[b], A @ V, atol=1e-12)
        np.testing.assert_allclose(model.inputs(letters)[b], X, atol=1e-15)


@settings(max_examples=20, deadline=None)
@given(seed=seeds)
def test_without_positions_the_prediction_depends_on_the_position_s_letter_alone(seed):
    rng = np.random.default_rng(seed)
    model = make_model("none", rng)
    letters = make_sequences(5, rng)
    y = model.probabilities(letters)
    alphabetical = model.probabilities(np.arange(8)[None, :])[0]     # row x: y(x)
    np.testing.assert_allclose(y, alphabetical[letters], atol=1e-12)


@settings(max_examples=20, deadline=None)
@given(seed=seeds, steps=st.integers(0, 30))
def test_no_model_without_positions_beats_the_order_blind_loss(seed, steps):
    if steps:
        model = train("none", steps, batch_size=8, seed=seed, learning_rate=0.1).model
    else:
        model = make_model("none", np.random.default_rng(seed))
    loss, accuracy = order_blind_expectation(model)
    assert loss >= order_blind_loss() - 1e-12
    assert accuracy <= 1 / 7 + 1e-12


def test_the_exact_expectation_is_the_mean_over_all_orders():
    model = make_model("none", np.random.default_rng(2), n=4)
    orders = np.array(list(itertools.permutations(range(4))))
    loss, accuracy = evaluate(model, orders)
    expected = order_blind_expectation(model)
    assert expected == pytest.approx((loss, accuracy), abs=1e-12)


def test_the_uniform_prediction_over_the_other_letters_reaches_the_bound():
    model = make_model("none", np.random.default_rng(0))
    p = model.params
    p["W_E"][...] = np.eye(16, 8)                 # letter x: the unit vector e_x
    p["W_Q"][...] = -30.0 * np.eye(16)            # q_x . k_c = -900 [x = c] / 4
    p["W_K"][...] = 30.0 * np.eye(16)
    loss, accuracy = order_blind_expectation(model)
    assert loss == pytest.approx(np.log(7), abs=1e-12) and accuracy == pytest.approx(1 / 7)
    assert order_blind_loss() == np.log(7) and order_blind_loss(2) == 0.0


def test_training_is_reproducible_and_the_callback_sees_every_step():
    seen = []
    first = train("rope", 5, seed=7, callback=lambda step, model: seen.append(step))
    second = train("rope", 5, seed=7)
    np.testing.assert_array_equal(first.losses, second.losses)
    assert seen == list(range(6)) and first.seconds >= 0


def test_the_chapter_s_training():
    """Without positions the model stays above ln 7, close to it; with any of the three
    encodings it names the previous letter of every fresh sequence."""
    fresh = make_sequences(2000, np.random.default_rng(2026))
    results = {encoding: train(encoding, **CHAPTER) for encoding in ENCODINGS}
    blind, blind_accuracy = order_blind_expectation(results["none"].model)
    assert np.log(7) < blind < np.log(7) + 0.05 and blind_accuracy <= 1 / 7
    for encoding in ("sinusoidal", "learned", "rope"):
        loss, accuracy = evaluate(results[encoding].model, fresh)
        assert accuracy == 1.0 and loss < 0.01, encoding


def test_extreme_parameters_give_no_nan_and_no_warnings():
    for encoding in ENCODINGS:
        model = make_model(encoding, np.random.default_rng(1))
        for p in model.params.values():
            p *= 1e4
        letters = make_sequences(4, np.random.default_rng(2))
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            loss, grads = model.loss_and_gradients(letters)
            weights = model.weights(letters)
            evaluate(model, letters)
        assert np.isfinite(loss) and all(np.isfinite(g).all() for g in grads.values())
        assert np.isfinite(weights).all()
        np.testing.assert_allclose(weights.sum(axis=-1), 1.0)


@pytest.mark.parametrize("call, match", [
    (lambda: make_model("sinus", np.random.default_rng(0)), "encoding must be one of"),
    (lambda: make_model("none", 0), "rng must be a numpy.random.Generator"),
    (lambda: make_model("none", np.random.default_rng(0), d=4), "unknown option"),
    (lambda: make_model("none", np.random.default_rng(0), n=9), "n must be between 2 and 8"),
    (lambda: make_model("none", np.random.default_rng(0), n=1), "n must be at least 2"),
    (lambda: make_model("rope", np.random.default_rng(0), d_k=5), "d_k = 5 is odd"),
    (lambda: make_model("sinusoidal", np.random.default_rng(0), d_model=7),
     "d_model = 7 is odd"),
    (lambda: make_model("none", np.random.default_rng(0), back=8), "back = 8 leaves no"),
    (lambda: make_model("rope", np.random.default_rng(0), n_max=10), "has no table"),
    (lambda: make_model("learned", np.random.default_rng(0), n_max=5), "n_max = 5 is shorter"),
    (lambda: make_sequences(0, np.random.default_rng(0)), "count must be at least 1"),
    (lambda: make_sequences(3, None), "rng must be a numpy.random.Generator"),
    (lambda: train("none", 0), "steps must be at least 1"),
    (lambda: train("none", 3, learning_rate=-1), "learning_rate must be a positive number"),
    (lambda: train("none", 3, callback=3), "callback must be a function"),
    (lambda: evaluate("model", np.zeros((1, 8), int)), "model must be an OrderModel"),
    (lambda: order_blind_expectation(make_model("rope", np.random.default_rng(0))),
     "the model sees positions"),
    (lambda: order_blind_expectation(make_model("none", np.random.default_rng(0), back=0)),
     "has back = 0"),
])
def test_bad_input_is_a_clear_error(call, match):
    with pytest.raises(ValueError, match=match):
        call()


@pytest.mark.parametrize("letters, match", [
    (np.zeros((2, 7), int), r"int array \(count, n = 8\).*shape \(2, 7\)"),
    (np.zeros((2, 8)), "of dtype float64"),
    (np.zeros((0, 8), int), "letters is empty"),
    (np.zeros((1, 8), int), "each of the letters 0 ... 7 exactly once"),
])
def test_bad_letters_are_named(letters, match):
    model = make_model("none", np.random.default_rng(0))
    with pytest.raises(ValueError, match=match):
        model.loss_and_gradients(letters)
