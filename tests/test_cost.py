"""attention_cost: the n = 1 000 table of the original Transformer, and bad sizes; layer_cost:
the base transformer's encoder layer (chapter 9); layer_complexity: Table 1 of Vaswani et al.
2017 as numbers (chapter 10)."""

import pytest
from hypothesis import given
from hypothesis import strategies as st

from attention_core.cost import LAYER_TYPES, attention_cost, layer_complexity, layer_cost

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


# --- the encoder layer (chapter 9) -----------------------------------------------------------

def test_the_base_transformer_layer_has_the_known_parameters():
    c = layer_cost(1000, 512, 8, 2048)
    assert c.params_attention == 4 * 512 * 512 == 1_048_576
    assert c.params_ffn == 2 * 512 * 2048 + 2048 + 512 == 2_099_712
    assert c.params_norms == 2 * (512 + 512)
    assert c.params_total == 1_048_576 + 2_099_712 + 2048 == 3_150_336


def test_the_base_transformer_layer_multiply_adds_at_n_1000():
    c = layer_cost(1000, 512, 8, 2048)
    assert c.madds_projections == 1000 * 512 * 3 * 512
    assert c.madds_W_O == 1000 * 512 * 512
    assert c.madds_ffn == 2 * 1000 * 512 * 2048
    assert c.madds_scores == c.madds_weighted_sum == 8 * 1000**2 * 64
    assert c.madds_linear_attention == 4 * 1000 * 512**2
    assert c.madds_linear == 12 * 1000 * 512**2
    assert c.madds_quadratic == 2 * 1000**2 * 512
    assert c.madds_attention == c.madds_linear_attention + c.madds_quadratic
    assert c.madds_total == attention_cost(1000, 512, 8).madds_total + c.madds_ffn


def test_where_the_n_squared_part_starts_to_dominate():
    c = layer_cost(10, 512, 8, 2048)
    assert c.crossover_attention == 2 * 512 == 1024  # n = 2 d: attention sublayer with W_O
    assert c.crossover_layer == 6 * 512 == 3072     # n = 6 d: the whole layer, d_ff = 4 d
    at = layer_cost(1024, 512, 8, 2048)
    assert at.madds_quadratic == at.madds_linear_attention
    assert layer_cost(3072, 512, 8, 2048).madds_quadratic == layer_cost(3072, 512, 8,
                                                                          2048).madds_linear
    below, above = layer_cost(3071, 512, 8, 2048), layer_cost(3073, 512, 8, 2048)
    assert below.madds_quadratic < below.madds_linear and above.madds_quadratic > above.madds_linear


@given(n=sizes, d=st.integers(1, 512), h=st.integers(1, 8), d_ff=st.integers(1, 4096))
def test_layer_crossovers_hold_for_any_sizes(n, d, h, d_ff):
    c = layer_cost(n, d, h, d_ff, d_k=5, d_v=3)
    assert c.crossover_attention == pytest.approx(2 * d)
    assert c.crossover_layer == pytest.approx(2 * d + 2 * d * d_ff / (h * 8))
    assert layer_cost(2 * n, d, h, d_ff, d_k=5, d_v=3).madds_quadratic == 4 * c.madds_quadratic


def test_layer_cost_rejects_bad_sizes():
    with pytest.raises(ValueError, match="layer_cost: d_ff must be at least 1"):
        layer_cost(10, 512, 8, 0)
    with pytest.raises(ValueError, match="d = 512 is not divisible by h = 3"):
        layer_cost(10, 512, 3, 2048)


# --- Table 1 of Vaswani et al. 2017 (chapter 10) ---------------------------------------------

def test_table_1_rows_by_hand():
    n, d = 100, 512
    assert layer_complexity("self_attention", n, d) == (n * n * d, 1, 1)
    assert layer_complexity("recurrent", n, d) == (n * d * d, n, n)
    assert layer_complexity("convolutional", n, d, k=3) == (3 * n * d * d, 1, 5)  # 3^5 >= 100
    assert layer_complexity("restricted_self_attention", n, d, r=32) == (32 * n * d, 1, 4)
    assert tuple(layer_complexity("convolutional", 8, d, k=2))[2] == 3  # exact, not 2.999...


def test_path_lengths_at_the_edges():
    """One layer at least; a window of r reaches r positions forwards, so n = r + 1 is one
    layer and n = r + 2 two (not ceil(n / r), which gives 2 at n = 65, r = 64)."""
    for kind, options in (("self_attention", {}), ("recurrent", {}),
                          ("convolutional", {"k": 2}), ("restricted_self_attention", {"r": 3})):
        assert layer_complexity(kind, 1, 4, **options).path_length == 1
    window = [layer_complexity("restricted_self_attention", n, 4, r=64).path_length
              for n in (2, 64, 65, 66, 129, 130)]
    assert window == [1, 1, 1, 2, 2, 3]
    assert layer_complexity("convolutional", 3, 4, k=3).path_length == 1
    assert layer_complexity("convolutional", 4, 4, k=3).path_length == 2


def test_a_window_longer_than_the_text_costs_no_more_than_self_attention():
    for n in (1, 10, 63, 64, 65, 1000):
        window = layer_complexity("restricted_self_attention", n, 8, r=64).operations
        full = layer_complexity("self_attention", n, 8).operations
        assert window == min(64, n) * n * 8 <= full


def test_self_attention_is_cheaper_than_recurrence_while_n_is_below_d():
    def ops(kind, n):
        return layer_complexity(kind, n, 512).operations
    assert ops("self_attention", 511) < ops("recurrent", 511)
    assert ops("self_attention", 512) == ops("recurrent", 512)
    assert ops("self_attention", 513) > ops("recurrent", 513)


def layers_to_reach(n, sees):
    """Brute force: how many stacked layers carry position 0 to position n - 1, when the
    output of layer l at position j sees the inputs at positions ``sees(l, j)``."""
    reached, layers = {0}, 0
    while n - 1 not in reached or layers == 0:
        layers += 1
        reached = {j for j in range(n) if reached & set(sees(layers, j))}
    return layers


@given(n=st.integers(1, 200), r=st.integers(1, 40))
def test_window_path_is_the_exact_number_of_layers(n, r):
    expected = layers_to_reach(n, lambda layer, j: range(max(0, j - r), j + 1))
    assert layer_complexity("restricted_self_attention", n, 4, r=r).path_length == expected


@given(n=st.integers(1, 300), k=st.integers(2, 6))
def test_dilated_convolution_path_is_the_exact_number_of_layers(n, k):
    def sees(layer, j):
        dilation = k ** (layer - 1)
        return [j - m * dilation for m in range(k) if j - m * dilation >= 0]
    assert layer_complexity("convolutional", n, 4, k=k).path_length == layers_to_reach(n, sees)


@given(n=st.integers(1, 10**6), k=st.integers(2, 50), r=st.integers(1, 1000))
def test_path_lengths_are_the_ceilings(n, k, r):
    path = layer_complexity("convolutional", n, 4, k=k).path_length
    assert path >= 1 and k ** path >= n and (path == 1 or k ** (path - 1) < n)
    window = layer_complexity("restricted_self_attention", n, 4, r=r).path_length
    assert window == max(1, -(-(n - 1) // r))


@pytest.mark.parametrize("args, options, match", [
    (("lstm", 10, 4), {}, r"kind must be one of 'self_attention', 'recurrent'"),
    (("convolutional", 10, 4), {}, r"the convolutional layer needs k"),
    (("restricted_self_attention", 10, 4), {}, r"the restricted_self_attention layer needs r"),
    (("self_attention", 10, 4), {"k": 3}, r"k belongs to the convolutional layer, not to "
                                          r"self_attention"),
    (("convolutional", 10, 4), {"k": 3, "r": 2}, r"r belongs to the restricted_self_attention"),
    (("convolutional", 10, 4), {"k": 1}, r"k must be at least 2"),
    (("recurrent", 0, 4), {}, r"n must be at least 1"),
])
def test_layer_complexity_rejects(args, options, match):
    with pytest.raises(ValueError, match="layer_complexity: " + match):
        layer_complexity(*args, **options)


def test_the_four_layer_types():
    assert LAYER_TYPES == ("self_attention", "recurrent", "convolutional",
                           "restricted_self_attention")


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
