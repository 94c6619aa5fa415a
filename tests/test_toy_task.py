"""The one-hot task of chapter 2: examples, gradients, training, counts, bad input."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import attention, toy_task
from attention_core.toy_task import (
    KINDS,
    LEARNING_RATES,
    Adam,
    evaluate,
    make_examples,
    make_model,
    query_blind_loss,
    train,
)

# The chapter's settings (book/02_uloha_one_hot.md): steps per model, batch 64, seed 0.
CHAPTER_STEPS = 3000


@settings(max_examples=30, deadline=None)
@given(count=st.integers(1, 40), n_pairs=st.integers(1, 8), seed=st.integers(0, 2**32 - 1))
def test_examples_are_built_as_the_source_defines_them(count, n_pairs, seed):
    ex = make_examples(count, np.random.default_rng(seed), n_pairs)
    assert ex.items.shape == (count, n_pairs, 18)
    assert ex.query.shape == (count, 8)
    assert ex.answer.shape == (count,)
    assert np.issubdtype(ex.answer.dtype, np.integer)
    letters, digits = ex.items[:, :, :8], ex.items[:, :, 8:]
    for part in (letters, digits, ex.query):  # one-hot: entries 0/1, exactly one 1
        assert set(np.unique(part)) <= {0.0, 1.0}
        assert (part.sum(axis=-1) == 1).all()
    letter = letters.argmax(axis=-1)
    digit = digits.argmax(axis=-1)
    for i in range(count):
        assert len(set(letter[i])) == n_pairs                   # distinct letters
        asked = ex.query[i].argmax()
        assert asked in letter[i]                               # the query is one of them
        position = list(letter[i]).index(asked)
        assert ex.answer[i] == digit[i, position]              # the answer is its digit
        assert position == ex.position[i]
    assert (letter == ex.letters).all() and (digit == ex.digits).all()


def test_examples_cover_letters_digits_and_positions_uniformly():
    ex = make_examples(20_000, np.random.default_rng(0))
    assert np.allclose(np.bincount(ex.letters.ravel(), minlength=8) / ex.letters.size, 1 / 8,
                       atol=0.01)
    assert np.allclose(np.bincount(ex.answer, minlength=10) / 20_000, 1 / 10, atol=0.01)
    assert np.allclose(np.bincount(ex.position, minlength=6) / 20_000, 1 / 6, atol=0.01)


VARIANTS = [(kind, {}) for kind in KINDS] + [
    ("attention", {"d": 5}),
    ("attention", {"scaled": False, "qk_init_scale": 0.5}),
    ("dense", {"hidden": 7}),
    ("attention", {"scaled": False}),
    ("attention", {"d": 7, "scaled": False}),
    ("averaging", {"d": 3}),
]


def central_difference(model, examples, p, index, h):
    """(L(p + h) - L(p - h)) / 2h for one entry of the parameter array ``p`` (restored)."""
    old = p[index]
    p[index] = old + h
    up = model.loss_and_gradients(examples)[0]
    p[index] = old - h
    down = model.loss_and_gradients(examples)[0]
    p[index] = old
    return (up - down) / (2 * h)


@pytest.mark.parametrize(("kind", "options"), VARIANTS,
                         ids=[f"{kind}-{options}" for kind, options in VARIANTS])
def test_gradients_of_every_parameter_match_central_differences(kind, options):
    model = make_model(kind, np.random.default_rng(1), **options)
    ex = make_examples(4, np.random.default_rng(2))
    _, grads = model.loss_and_gradients(ex)
    assert set(grads) == set(model.params)
    h = 1e-6
    for name, p in model.params.items():
        numeric = np.zeros_like(p)
        for index in np.ndindex(p.shape):
            numeric[index] = central_difference(model, ex, p, index, h)
        error = np.abs(numeric - grads[name]).max() / np.abs(numeric).max()
        assert error < 1e-6, f"{kind} {options} {name}: relative error {error:.2e}"


def test_gradients_through_a_saturated_softmax_match_central_differences():
    """Without the division at d = 64 the softmax is nearly saturated; the gradients hold."""
    model = make_model("attention", np.random.default_rng(5), d=64, scaled=False)
    ex = make_examples(3, np.random.default_rng(6))
    assert model.weights(ex).max(axis=1).min() > 0.9
    _, grads = model.loss_and_gradients(ex)
    h = 1e-6
    rng = np.random.default_rng(7)
    for name in ("W_Q", "W_K"):
        p = model.params[name]
        for index in zip(*(rng.integers(0, n, 40) for n in p.shape)):
            numeric = central_difference(model, ex, p, index, h)
            assert abs(numeric - grads[name][index]) <= 1e-6 * max(1.0, abs(numeric)), name


def test_step_two_is_the_packages_attention():
    model = make_model("attention", np.random.default_rng(3))
    ex = make_examples(5, np.random.default_rng(4))
    p = model.params
    ours = model.attend(ex)
    for i in range(5):
        q = p["W_Q"] @ ex.query[i]
        K = ex.items[i] @ p["W_K"].T
        V = ex.items[i] @ p["W_V"].T
        assert np.allclose(ours[i], attention(q, K, V), rtol=1e-12, atol=1e-12)
    assert np.allclose(model.weights(ex).sum(axis=1), 1)


def test_parameter_counts():
    rng = np.random.default_rng(0)
    attention_model = make_model("attention", rng)
    assert attention_model.n_params == 16 * 8 + 2 * 16 * 18 + 10 * 16 + 10 == 874
    assert make_model("averaging", rng).n_params == 16 * 18 + 10 * 16 + 10
    dense = make_model("dense", rng).n_params
    assert dense == 64 * 116 + 64 + 10 * 64 + 10 == 8138
    assert 8.5 <= dense / 874 <= 9.5


@pytest.fixture(scope="module")
def fresh():
    return make_examples(2000, np.random.default_rng(2026))


def test_attention_learns_the_task_with_the_chapters_settings(fresh):
    result = train("attention", CHAPTER_STEPS, batch_size=64, seed=0)
    assert result.losses.shape == (CHAPTER_STEPS,)
    loss, accuracy = evaluate(result.model, fresh)
    assert accuracy >= 0.99
    assert loss < 0.05
    assert result.losses[0] > 1.5  # it starts knowing nothing


def test_averaging_cannot_learn_it(fresh):
    result = train("averaging", CHAPTER_STEPS, seed=0)
    loss, _ = evaluate(result.model, fresh)
    assert loss > 1.3
    assert result.losses[-500:].mean() > query_blind_loss()


def test_query_blind_bound_matches_a_monte_carlo_estimate():
    ex = make_examples(50_000, np.random.default_rng(5))
    counts = (ex.digits == ex.answer[:, None]).sum(axis=1)
    assert query_blind_loss() == pytest.approx(np.log(6 / counts).mean(), abs=0.01)
    assert query_blind_loss(1) == 0.0


def test_trained_attention_works_with_other_numbers_of_pairs():
    model = train("attention", 600, seed=1).model
    for n_pairs in (1, 3, 8):
        loss, accuracy = evaluate(model, make_examples(500, np.random.default_rng(n_pairs),
                                                       n_pairs))
        assert accuracy >= 0.98, (n_pairs, loss, accuracy)
    averaging = make_model("averaging", np.random.default_rng(0))
    assert evaluate(averaging, make_examples(10, np.random.default_rng(0), 3))[1] >= 0


@pytest.mark.parametrize("kind", KINDS)
def test_fixed_seeds_give_identical_losses(kind):
    first = train(kind, 50, batch_size=16, seed=7).losses
    second = train(kind, 50, batch_size=16, seed=7).losses
    other = train(kind, 50, batch_size=16, seed=8).losses
    assert np.array_equal(first, second)
    assert not np.array_equal(first, other)


def test_defaults_are_the_sources_model_and_do_not_change_with_the_new_options():
    """d = 16 and the division by sqrt(d) are the defaults; spelling them out changes nothing."""
    default = train("attention", 40, seed=3)
    explicit = train("attention", 40, seed=3, d=16, scaled=True)
    assert np.array_equal(default.losses, explicit.losses)
    for name, p in default.model.params.items():
        assert np.array_equal(p, explicit.model.params[name])
    model = default.model
    assert model.d == 16 and model.scaled and model.n_params == 874
    for kind in ("averaging", "dense"):
        assert np.array_equal(train(kind, 20, seed=4).losses,
                              train(kind, 20, seed=4, callback=lambda step, m: None).losses)


def test_without_scaling_the_scores_are_sqrt_d_times_larger():
    ex = make_examples(6, np.random.default_rng(0))
    for d in (4, 16, 256):
        scaled = make_model("attention", np.random.default_rng(d), d=d)
        raw = make_model("attention", np.random.default_rng(d), d=d, scaled=False)
        for name, p in scaled.params.items():        # same draws: same initial parameters
            assert np.array_equal(p, raw.params[name])
        assert np.allclose(raw.scores(ex), np.sqrt(d) * scaled.scores(ex), rtol=1e-12)
        assert scaled.params["W_Q"].shape == (d, 8) and scaled.params["W_O"].shape == (10, d)
        assert scaled.n_params == d * 8 + 2 * d * 18 + 10 * d + 10


def test_dense_width_option_sets_the_hidden_layer_and_the_count():
    """Chapter 2's width sweep: 127 H + 10 parameters for a hidden layer of H units."""
    for hidden in (8, 64, 256):
        model = make_model("dense", np.random.default_rng(0), hidden=hidden)
        assert model.params["W_1"].shape == (hidden, 116)
        assert model.n_params == 127 * hidden + 10
        assert train("dense", 2, seed=1, hidden=hidden).model.n_params == 127 * hidden + 10
    assert np.array_equal(train("dense", 20, seed=4).losses,
                          train("dense", 20, seed=4, hidden=64).losses)


def test_qk_init_scale_multiplies_the_initial_w_q_and_w_k_only():
    """The same draws, W_Q and W_K times the number: d ** -0.25 without the division starts
    with exactly the scores of the division (chapter 4's control)."""
    ex = make_examples(6, np.random.default_rng(0))
    for d in (16, 256):
        plain = make_model("attention", np.random.default_rng(d), d=d)
        small = make_model("attention", np.random.default_rng(d), d=d, scaled=False,
                           qk_init_scale=d ** -0.25)
        for name, p in plain.params.items():
            factor = d ** -0.25 if name in ("W_Q", "W_K") else 1.0
            assert np.allclose(small.params[name], factor * p, rtol=1e-15, atol=0)
        assert np.allclose(small.scores(ex), plain.scores(ex), rtol=1e-12)


def test_without_division_and_smaller_init_is_the_division_with_a_larger_step_for_w_q_w_k(
        monkeypatch):
    """Adam's step does not depend on the gradient's scale, so training without the division
    from W_Q, W_K times d^(-1/4) is training with it whose W_Q, W_K take steps d^(1/4) times
    larger (chapter 4): the same losses, parameters d^(1/4) apart. Exactly so with Adam's
    epsilon negligible; with the default 1e-8 the losses differ by less than 0.1 %."""
    d, steps, eta = 64, 30, LEARNING_RATES["attention"]

    def with_division(adam):
        rng = np.random.default_rng(2)                 # train's draws, in train's order
        model = make_model("attention", rng, d=d)
        make_examples(1, rng)
        fast = adam({k: model.params[k] for k in ("W_Q", "W_K")}, eta * d ** 0.25)
        rest = adam({k: model.params[k] for k in ("W_V", "W_O", "b_O")}, eta)
        losses = []
        for _ in range(steps):
            loss, grads = model.loss_and_gradients(make_examples(64, rng))
            losses.append(loss)
            fast.step(grads)
            rest.step(grads)
        return np.array(losses), model

    def control():
        return train("attention", steps, seed=2, d=d, scaled=False, qk_init_scale=d ** -0.25)

    losses, _ = with_division(Adam)
    assert np.abs(losses / control().losses - 1).max() < 1e-3

    class NoEpsilon(Adam):
        def __init__(self, params, learning_rate):
            super().__init__(params, learning_rate, eps=1e-300)

    monkeypatch.setattr(toy_task, "Adam", NoEpsilon)
    losses, model = with_division(NoEpsilon)
    result = control()
    assert np.allclose(losses, result.losses, rtol=1e-12, atol=0)
    for name in ("W_Q", "W_K"):
        assert np.allclose(d ** 0.25 * result.model.params[name], model.params[name],
                           rtol=0, atol=1e-12)


def test_larger_d_without_scaling_saturates_at_initialisation():
    """Chapter 4: initial scores have variance about d without the division and 1 with it."""
    ex = make_examples(2000, np.random.default_rng(1))
    raw = make_model("attention", np.random.default_rng(2), d=256, scaled=False)
    scaled = make_model("attention", np.random.default_rng(2), d=256)
    assert 150 < raw.scores(ex).var() < 400 and 0.6 < scaled.scores(ex).var() < 1.6
    assert raw.weights(ex).max(axis=1).mean() > 0.85 > 0.5 > scaled.weights(ex).max(axis=1).mean()


def test_callback_sees_every_step_and_does_not_change_training():
    seen = []

    def record(step, model):
        seen.append((step, model.params["W_Q"].copy()))

    result = train("attention", 12, batch_size=8, seed=5, d=8, scaled=False, callback=record)
    assert [step for step, _ in seen] == list(range(13))
    assert np.array_equal(seen[-1][1], result.model.params["W_Q"])
    assert not np.array_equal(seen[0][1], seen[-1][1])
    plain = train("attention", 12, batch_size=8, seed=5, d=8, scaled=False)
    assert np.array_equal(plain.losses, result.losses)


def test_learning_rate_option_is_used():
    default = train("attention", 20, seed=0).losses
    same = train("attention", 20, seed=0, learning_rate=LEARNING_RATES["attention"]).losses
    slower = train("attention", 20, seed=0, learning_rate=1e-4).losses
    assert np.array_equal(default, same)
    assert not np.array_equal(default, slower)


@pytest.mark.parametrize("n_pairs", [0, -1, 9])
def test_make_examples_rejects_impossible_numbers_of_pairs(n_pairs):
    with pytest.raises(ValueError, match="make_examples: n_pairs must be"):
        make_examples(3, np.random.default_rng(0), n_pairs)


@pytest.mark.parametrize("count", [0, -5, 2.5])
def test_make_examples_rejects_bad_counts(count):
    with pytest.raises(ValueError, match="make_examples: count must be"):
        make_examples(count, np.random.default_rng(0))


def test_make_examples_wants_a_generator():
    with pytest.raises(ValueError, match="rng must be a numpy.random.Generator"):
        make_examples(3, 42)


def test_train_rejects_unknown_kinds_listing_the_three():
    with pytest.raises(ValueError, match="'attention', 'averaging', 'dense'; got 'lstm'"):
        train("lstm", 10)


@pytest.mark.parametrize("steps", [0, -3])
def test_train_rejects_non_positive_steps(steps):
    with pytest.raises(ValueError, match="train: steps must be at least 1"):
        train("attention", steps)


@pytest.mark.parametrize("batch_size", [0, -64])
def test_train_rejects_non_positive_batch_size(batch_size):
    with pytest.raises(ValueError, match="train: batch_size must be at least 1"):
        train("dense", 10, batch_size=batch_size)


def test_train_rejects_unknown_options_and_bad_learning_rates():
    with pytest.raises(ValueError, match="unknown option"):
        train("attention", 10, momentum=0.9)
    with pytest.raises(ValueError, match="learning_rate must be a positive number"):
        train("attention", 10, learning_rate=-0.1)


@pytest.mark.parametrize(("kind", "options", "message"), [
    ("attention", {"d": 0}, "train: d must be at least 1; got 0"),
    ("attention", {"d": -16}, "train: d must be at least 1; got -16"),
    ("attention", {"d": 16.0}, "train: d must be a whole number; got 16.0"),
    ("averaging", {"d": "16"}, "train: d must be a whole number; got '16'"),
    ("attention", {"scaled": "no"}, r"train: scaled must be True \(scores q . k_i / sqrt\(d\)\) or "
                                    r"False \(scores q . k_i\); got 'no'"),
    ("attention", {"scaled": 1}, "train: scaled must be True"),
    ("attention", {"scaled": None}, "train: scaled must be True"),
    ("averaging", {"scaled": False}, "train: the option scaled applies only to the attention "
                                     "model; the averaging model has no scores"),
    ("dense", {"scaled": True}, "train: the option scaled applies only to the attention model"),
    ("dense", {"d": 16}, "train: the option d applies only to the attention and averaging "
                         "models; the dense model has no d"),
    ("dense", {"qk_init_scale": 0.5}, "train: the option qk_init_scale applies only to the "
                                      "attention model; the dense model has no W_Q and W_K"),
    ("attention", {"hidden": 32}, "train: the option hidden applies only to the dense model; "
                                  "the attention model has no hidden layer"),
    ("attention", {"qk_init_scale": 0}, r"train: qk_init_scale must be a positive number \(it "
                                        r"multiplies the initial W_Q and W_K\); got 0"),
    ("attention", {"qk_init_scale": float("inf")}, "train: qk_init_scale must be a positive"),
    ("attention", {"qk_init_scale": True}, "train: qk_init_scale must be a positive"),
    ("dense", {"hidden": 0}, "train: hidden must be at least 1; got 0"),
    ("dense", {"hidden": 8.0}, "train: hidden must be a whole number; got 8.0"),
    ("attention", {"callback": "print"}, r"train: callback must be a function "
                                         r"callback\(step, model\); got str"),
])
def test_train_rejects_bad_d_scaled_and_callback(kind, options, message):
    with pytest.raises(ValueError, match=message):
        train(kind, 5, **options)


def test_make_model_takes_the_same_options_and_rejects_bad_ones():
    rng = np.random.default_rng(0)
    assert make_model("attention", rng, d=4, scaled=False).params["W_K"].shape == (4, 18)
    with pytest.raises(ValueError, match="make_model: unknown option.* learning_rate; the "
                                         "options are d, scaled, qk_init_scale, hidden"):
        make_model("attention", rng, learning_rate=0.1)
    with pytest.raises(ValueError, match="make_model: d must be at least 1; got 0"):
        make_model("averaging", rng, d=0)
    with pytest.raises(ValueError, match="make_model: the option scaled applies only"):
        make_model("dense", rng, scaled=False)
    with pytest.raises(ValueError, match="make_model: rng must be a numpy.random.Generator"):
        make_model("attention", 0)


def test_dense_model_rejects_other_numbers_of_pairs():
    dense = make_model("dense", np.random.default_rng(0))
    expected = r"dense model: the examples have 8 pairs \(items \(5, 8, 18\)\) but the dense model"
    with pytest.raises(ValueError, match=expected + " takes exactly 6 pairs"):
        evaluate(dense, make_examples(5, np.random.default_rng(0), 8))


def test_evaluate_rejects_examples_that_do_not_fit():
    model = make_model("attention", np.random.default_rng(0))
    ex = make_examples(4, np.random.default_rng(0))
    broken = type(ex)(ex.items[:, :, :10], ex.query, ex.answer, ex.letters, ex.digits,
                      ex.position)
    with pytest.raises(ValueError, match=r"items must have shape \(count, n_pairs, 18\); got "
                                         r"\(4, 6, 10\)"):
        evaluate(model, broken)
    short_query = type(ex)(ex.items, ex.query[:3], ex.answer, ex.letters, ex.digits, ex.position)
    with pytest.raises(ValueError, match=r"query must have shape \(4, 8\)"):
        evaluate(model, short_query)
    with pytest.raises(ValueError, match="examples must come from make_examples"):
        evaluate(model, (ex.items, ex.query))
    with pytest.raises(ValueError, match="model must be a model"):
        evaluate("attention", ex)
