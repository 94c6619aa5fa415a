"""attention_cost: the n = 1 000 table of the original Transformer, and bad sizes."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core.cost import attention_cost

sizes = st.integers(min_value=1, max_value=10_000)


def test_the_lost_table_for_one_head():
    c = attention_cost(1000, 512, h=8)
    assert (c.d_k, c.d_v) == (64, 64)
    assert c.params_head == 3 * 512 * 64 == 98_304
    assert c.scores_head == 1_000_000
    assert c.madds_qkv_head == 98_304_000
    assert c.madds_scores_head == 64_000_000
    assert c.madds_weighted_sum_head == 64_000_000


def test_all_heads_and_the_output_matrix():
    c = attention_cost(1000, 512, h=8)
    assert c.params_heads == 8 * 98_304 == 786_432
    assert c.params_W_O == 512 * 512
    assert c.params_total == 786_432 + 262_144
    assert c.scores_heads == 8_000_000
    assert c.madds_qkv == 8 * 98_304_000
    assert c.madds_scores == c.madds_weighted_sum == 512_000_000
    assert c.madds_W_O == 1000 * 512 * 512
    assert c.madds_total == 8 * (98_304_000 + 128_000_000) + 262_144_000


def test_eight_heads_of_64_cost_as_many_parameters_as_one_head_of_512():
    eight, one = attention_cost(1000, 512, h=8), attention_cost(1000, 512, h=1)
    assert eight.params_heads == one.params_heads == 786_432


def test_explicit_d_k_and_d_v():
    c = attention_cost(10, 6, h=4, d_k=5, d_v=3)
    assert c.params_head == 6 * (5 + 5 + 3)
    assert c.madds_scores_head == 100 * 5
    assert c.madds_weighted_sum_head == 100 * 3
    assert c.params_W_O == 4 * 3 * 6


@given(n=sizes, d=st.integers(1, 2048), h=st.integers(1, 16))
def test_parameters_do_not_depend_on_n_and_scores_grow_as_n_squared(n, d, h):
    c1 = attention_cost(n, d, h, d_k=7, d_v=3)
    c2 = attention_cost(2 * n, d, h, d_k=7, d_v=3)
    assert c1.params_total == c2.params_total
    assert c2.scores_head == 4 * c1.scores_head
    assert c2.madds_scores == 4 * c1.madds_scores
    assert c2.madds_qkv == 2 * c1.madds_qkv


@pytest.mark.parametrize("name, args", [
    ("n", (0, 512)), ("n", (-5, 512)), ("d", (10, 0)), ("h", (10, 512, 0)),
])
def test_non_positive_sizes_are_rejected(name, args):
    with pytest.raises(ValueError, match=f"attention_cost: {name} must be at least 1"):
        attention_cost(*args)


def test_non_positive_d_k_and_d_v_are_rejected():
    with pytest.raises(ValueError, match="d_k must be at least 1"):
        attention_cost(10, 512, 8, d_k=0, d_v=64)
    with pytest.raises(ValueError, match="d_v must be at least 1"):
        attention_cost(10, 512, 8, d_k=64, d_v=-1)


def test_non_integer_sizes_are_rejected():
    with pytest.raises(ValueError, match="n must be a whole number"):
        attention_cost(10.5, 512)


def test_d_not_divisible_by_h_is_rejected_when_d_k_is_derived():
    with pytest.raises(ValueError, match="d = 512 is not divisible by h = 3"):
        attention_cost(10, 512, 3)
    assert attention_cost(10, 512, 3, d_k=64, d_v=64).params_head == 98_304


def test_linear_and_quadratic_parts_add_up_to_the_layer():
    c = attention_cost(1000, 512, h=8)
    assert c.madds_linear == 8 * 98_304_000 + 262_144_000
    assert c.madds_quadratic == 2 * 512_000_000
    assert c.madds_linear + c.madds_quadratic == c.madds_total


@given(d=st.integers(1, 2048), h=st.integers(1, 16), d_k=st.integers(1, 128),
       d_v=st.integers(1, 128))
def test_with_w_o_the_quadratic_part_overtakes_at_twice_d(d, h, d_k, d_v):
    at = attention_cost(2 * d, d, h, d_k=d_k, d_v=d_v)
    assert at.madds_quadratic == at.madds_linear
    before = attention_cost(2 * d - 1, d, h, d_k=d_k, d_v=d_v)
    assert before.madds_quadratic < before.madds_linear
    after = attention_cost(2 * d + 1, d, h, d_k=d_k, d_v=d_v)
    assert after.madds_quadratic > after.madds_linear
