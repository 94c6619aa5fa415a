"""Chapter 4: saturation of the softmax (attention_core.saturation and softmax_jacobian)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from attention_core import softmax, softmax_backward, softmax_jacobian
from attention_core.saturation import (
    gradient_factor,
    largest_weight,
    random_scores,
    saturation,
    weight_entropy,
)

pytestmark = pytest.mark.filterwarnings("error")

score_vectors = arrays(np.float64, st.integers(1, 8),
                       elements=st.floats(-30, 30, allow_nan=False, allow_infinity=False))


def test_d_256_row_is_ordered_as_the_theory_says():
    raw, scaled = saturation(256, 10, 4000, np.random.default_rng(2))
    # without the division the softmax is far more confident and its gradient factor smaller
    assert raw.mean_largest > scaled.mean_largest + 5 * math.hypot(raw.largest_se,
                                                                   scaled.largest_se)
    assert raw.factor < scaled.factor and raw.mean_factor < scaled.mean_factor
    assert raw.mean_entropy < scaled.mean_entropy
    # the values the chapter states (n = 10): about 0,93 and 0,32
    assert abs(raw.mean_largest - 0.93) < 0.02 and abs(scaled.mean_largest - 0.32) < 0.02
    assert abs(raw.score_variance - 256) < 20 and abs(scaled.score_variance - 1) < 0.08


def test_without_scaling_the_largest_weight_grows_with_d_and_with_scaling_it_does_not():
    rng = np.random.default_rng(4)
    rows = [saturation(d, 10, 3000, rng, method="norm") for d in (4, 16, 64, 256, 1024)]
    unscaled = [raw.mean_largest for raw, _ in rows]
    scaled = [s.mean_largest for _, s in rows]
    assert all(np.diff(unscaled) > 0)
    assert max(scaled) - min(scaled) < 0.04


def test_direct_simulation_and_the_norm_shortcut_agree():
    direct = saturation(64, 10, 4000, np.random.default_rng(1), method="direct")
    short = saturation(64, 10, 4000, np.random.default_rng(2), method="norm")
    for a, b in zip(direct, short):
        assert abs(a.mean_largest - b.mean_largest) < 3 * math.hypot(a.largest_se, b.largest_se)


def test_random_scores_have_variance_d():
    s = random_scores(64, 5, 8000, np.random.default_rng(3))
    assert s.shape == (8000, 5)
    assert abs(s.var() - 64) < 3


@settings(max_examples=60, deadline=None)
@given(s=score_vectors)
def test_jacobian_matches_formula_and_central_differences(s):
    a = softmax(s)
    J = softmax_jacobian(a)
    n = s.size
    formula = np.array([[a[i] * ((i == j) - a[j]) for j in range(n)] for i in range(n)])
    assert np.allclose(J, formula, atol=1e-15)
    h = 1e-6
    numeric = np.column_stack([(softmax(s + h * e) - softmax(s - h * e)) / (2 * h)
                               for e in np.eye(n)])
    assert np.allclose(J, numeric, atol=1e-8)
    assert np.allclose(J.sum(axis=1), 0, atol=1e-15)
    g = np.arange(n, dtype=float)
    assert np.allclose(softmax_backward(a, g), J.T @ g)


@settings(max_examples=60, deadline=None)
@given(s=score_vectors)
def test_largest_weight_entropy_and_factor_agree_with_softmax(s):
    a = softmax(s)
    assert math.isclose(largest_weight(s), a.max(), rel_tol=1e-12)
    positive = a[a > 0]
    assert math.isclose(weight_entropy(s), -(positive * np.log(positive)).sum(), abs_tol=1e-9)
    assert -1e-12 <= weight_entropy(s) <= math.log(s.size) + 1e-12
    assert np.allclose(gradient_factor(a), np.diag(softmax_jacobian(a)))


def test_scores_of_1e4_give_no_nan_and_no_warning():
    s = np.array([[1e4, 0.0, -1e4], [1e4, 1e4, -1e4]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        top = largest_weight(s)
        entropy = weight_entropy(s)
        factor = gradient_factor(top)
        J = softmax_jacobian(softmax(s[0]))
    assert np.array_equal(top, [1.0, 0.5])
    assert entropy[0] == 0.0 and math.isclose(entropy[1], math.log(2))
    assert np.array_equal(factor, [0.0, 0.25])
    assert (J == 0).all()   # a saturated softmax passes exactly no gradient


@pytest.mark.parametrize("method", ["direct", "norm"])
def test_d_4096_gives_no_nan_and_no_overflow_warning(method):
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        raw, scaled = saturation(4096, 10, 200, np.random.default_rng(0), method=method)
    for m in (raw, scaled):
        assert np.isfinite(m.largest).all() and np.isfinite(m.entropy).all()
        assert math.isfinite(m.mean_factor) and math.isfinite(m.score_variance)
    assert raw.mean_largest > 0.95 and scaled.mean_largest < 0.5


def test_one_key_takes_all_the_weight():
    raw, scaled = saturation(8, 1, 50, np.random.default_rng(0))
    assert (raw.largest == 1).all() and (scaled.entropy == 0).all() and raw.factor == 0


RNG = np.random.default_rng(0)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"d": 0}, "d must be at least 1; got 0"),
    ({"d": -1}, "d must be at least 1"),
    ({"d": 16.0}, "d must be a whole number; got 16.0"),
    ({"n": 0}, "n must be at least 1; got 0"),
    ({"n": 2.5}, "n must be a whole number"),
    ({"n": "10"}, "n must be a whole number"),
    ({"trials": 0}, "trials must be at least 1; got 0"),
    ({"trials": -100}, "trials must be at least 1"),
    ({"trials": 1e3}, "trials must be a whole number"),
    ({"rng": None}, "rng must be a numpy Generator"),
    ({"method": "exact"}, "method must be one of"),
])
@pytest.mark.parametrize("func", [random_scores, saturation])
def test_bad_input_is_a_clear_value_error(func, kwargs, message):
    args = {"d": 4, "n": 3, "trials": 10, "rng": RNG} | kwargs
    with pytest.raises(ValueError, match=f"random_scores: {message}"):
        func(**args)


def test_bad_scores_and_weights():
    with pytest.raises(ValueError, match="largest_weight: s contains NaN"):
        largest_weight([1.0, float("nan")])
    with pytest.raises(ValueError, match="weight_entropy: s is empty"):
        weight_entropy(np.zeros((2, 0)))
    with pytest.raises(ValueError, match="gradient_factor: a must hold weights between 0 and 1"):
        gradient_factor([0.5, 1.5])
