"""Chapter 9's task of two look-ups: the examples, the exact reference numbers, bad input."""

from itertools import product
from math import log

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core import padding_mask
from attention_core.lookup_task import (
    FIRST_LETTER,
    MAX_PAIRS,
    N_CLASSES,
    N_FEATURES,
    PAIR_DIGIT,
    SECOND_LETTER,
    LookupExamples,
    make_examples,
    one_digit_loss,
    order_blind_accuracy,
    order_blind_loss,
    with_swapped_digits,
)


@settings(max_examples=40, deadline=None)
@given(count=st.integers(1, 30), low=st.integers(2, 6), extra=st.integers(0, 4),
       seed=st.integers(0, 2**32 - 1))
def test_examples_are_built_as_the_chapter_says(count, low, extra, seed):
    high = min(low + extra, MAX_PAIRS)
    ex = make_examples(count, np.random.default_rng(seed), low, high)
    n = 1 + MAX_PAIRS
    assert ex.features.shape == (count, n, N_FEATURES) and N_FEATURES == 34
    assert ex.mask.shape == (count, 1, n) and ex.mask.dtype == bool
    assert set(np.unique(ex.features)) <= {0.0, 1.0}
    assert np.all((low <= ex.lengths) & (ex.lengths <= high))
    for k in range(count):
        m = ex.lengths[k]
        np.testing.assert_array_equal(ex.mask[k, 0], padding_mask(int(m) + 1, n))
        pairs, query = ex.features[k, 1:m + 1], ex.features[k, 0]
        # pairs: one letter and one digit each, nothing in the query's columns
        assert (pairs[:, :PAIR_DIGIT].sum(1) == 1).all()
        assert (pairs[:, PAIR_DIGIT:FIRST_LETTER].sum(1) == 1).all()
        assert not pairs[:, FIRST_LETTER:].any() and not query[:FIRST_LETTER].any()
        assert not ex.features[k, m + 1:].any()                   # padding is all zeros
        letters = pairs[:, :PAIR_DIGIT].argmax(1)
        digits = pairs[:, PAIR_DIGIT:FIRST_LETTER].argmax(1)
        assert len(set(letters)) == m                             # distinct letters
        np.testing.assert_array_equal(letters, ex.letters[k, :m])
        np.testing.assert_array_equal(digits, ex.digits[k, :m])
        assert (ex.letters[k, m:] == -1).all() and (ex.digits[k, m:] == -1).all()
        first, second = ex.first[k], ex.second[k]
        assert first != second and 0 <= min(first, second) and max(first, second) < m
        assert query[FIRST_LETTER:SECOND_LETTER].argmax() == letters[first]
        assert query[SECOND_LETTER:].argmax() == letters[second]
        assert query.sum() == 2
        assert ex.answer[k] == 10 * digits[first] + digits[second]


def test_every_ordered_pair_of_pairs_and_every_answer_occurs():
    ex = make_examples(20_000, np.random.default_rng(0), 3, 3)
    pairs = set(zip(ex.first.tolist(), ex.second.tolist()))
    assert pairs == {(i, j) for i, j in product(range(3), repeat=2) if i != j}
    assert set(ex.answer.tolist()) == set(range(N_CLASSES))
    assert set(make_examples(5000, np.random.default_rng(1)).lengths.tolist()) == set(range(3, 7))


def test_describe_and_slicing():
    ex = make_examples(5, np.random.default_rng(3))
    text = ex.describe(2)
    pairs, query, answer = text.split(" ? ")[0], text.split(" ? ")[1][:2], text[-2:]
    assert len(pairs.split()) == ex.lengths[2] and int(answer) == ex.answer[2]
    assert query[0] + str(ex.digits[2][ex.first[2]]) in pairs.split()
    assert query[1] + str(ex.digits[2][ex.second[2]]) in pairs.split()
    one = ex[2]
    assert isinstance(one, LookupExamples) and one.count == 1 and one.describe() == text
    assert ex[1:4].count == 3 and len(ex[np.array([0, 4])]) == 2


def test_same_seed_same_examples():
    a, b = (make_examples(50, np.random.default_rng(9)) for _ in range(2))
    np.testing.assert_array_equal(a.features, b.features)
    np.testing.assert_array_equal(a.answer, b.answer)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_swapped_digits_are_the_twin_examples(seed):
    ex = make_examples(40, np.random.default_rng(seed))
    twin = with_swapped_digits(ex)
    rows = np.arange(ex.count)
    c_1, c_2 = ex.digits[rows, ex.first], ex.digits[rows, ex.second]
    np.testing.assert_array_equal(twin.answer, 10 * c_2 + c_1)
    np.testing.assert_array_equal(twin.digits[rows, twin.first], c_2)
    np.testing.assert_array_equal(twin.letters, ex.letters)
    np.testing.assert_array_equal(twin.mask, ex.mask)
    # the features are those make_examples would build from the swapped digits
    for k in range(ex.count):
        for i in range(MAX_PAIRS):
            token = twin.features[k, i + 1]
            if i < ex.lengths[k]:
                assert token[PAIR_DIGIT + twin.digits[k, i]] == 1 and token.sum() == 2
            else:
                assert not token.any()
    np.testing.assert_array_equal(twin.features[:, 0], ex.features[:, 0])
    np.testing.assert_array_equal(twin.features.sum(axis=(1, 2)), ex.features.sum(axis=(1, 2)))
    back = with_swapped_digits(twin)                    # twice is the original
    np.testing.assert_array_equal(back.features, ex.features)
    np.testing.assert_array_equal(back.answer, ex.answer)
    assert ex.describe(0) != twin.describe(0) or c_1[0] == c_2[0]
    with pytest.raises(ValueError, match="with_swapped_digits: examples must be LookupExamples"):
        with_swapped_digits(ex.features)


def test_reference_numbers_are_exact():
    # knowing both digits but not their order: right when they are equal, else a coin toss
    equal = sum(a == b for a, b in product(range(10), repeat=2)) / 100
    assert equal == 0.1 and order_blind_accuracy() == pytest.approx(0.55, abs=1e-15)
    assert order_blind_loss() == pytest.approx(0.9 * log(2), abs=1e-15)
    assert one_digit_loss() == pytest.approx(log(10), abs=1e-15)


@pytest.mark.parametrize("args, message", [
    ((0,), "count must be at least 1"),
    ((3, None), "rng must be a numpy.random.Generator"),
    ((3, "rng", 5, 4), "need 2 <= min_pairs <= max_pairs <= 6"),
    ((3, "rng", 1, 4), "min_pairs must be at least 2"),
    ((3, "rng", 3, 9), "need 2 <= min_pairs <= max_pairs <= 6"),
    ((2.5,), "count must be a whole number"),
])
def test_bad_input_is_a_clear_error(args, message):
    args = list(args) + ["rng"] * (2 - len(args))
    args = [np.random.default_rng(0) if a == "rng" else a for a in args]
    with pytest.raises(ValueError, match=message) as error:
        make_examples(*args)
    assert str(error.value).startswith("make_examples:")
