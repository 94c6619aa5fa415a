"""Chapter 3: the variance of q . k by simulation (attention_core.variance)."""

import math
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from attention_core.variance import (
    DISTRIBUTIONS,
    components,
    dot_product_moments,
    dot_products,
    sample_moments,
)

pytestmark = pytest.mark.filterwarnings("error")


@pytest.mark.parametrize("d", [1, 4, 64, 256, 1024])
def test_variance_is_d_and_one_after_scaling_within_three_standard_errors(d):
    raw, scaled = dot_product_moments(d, 20_000, np.random.default_rng(d))
    assert abs(raw.mean) < 3 * raw.mean_se
    assert abs(raw.variance - d) < 3 * raw.variance_se
    assert abs(scaled.mean) < 3 * scaled.mean_se
    assert abs(scaled.variance - 1) < 3 * scaled.variance_se
    # relative standard error of the variance for normal components: sqrt((2 + 6 / d) / N)
    assert abs(scaled.variance_se - math.sqrt((2 + 6 / d) / 20_000)) < 0.15 * scaled.variance_se


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_normality_does_not_matter(distribution):
    _, scaled = dot_product_moments(16, 20_000, np.random.default_rng(7), distribution)
    assert abs(scaled.variance - 1) < 3 * scaled.variance_se


@pytest.mark.parametrize("sigma", [0.5, 1.5, 2.0])
def test_component_variance_sigma_squared_gives_sigma_to_the_fourth(sigma):
    _, scaled = dot_product_moments(64, 20_000, np.random.default_rng(3), sigma=sigma)
    assert abs(scaled.variance - sigma**4) < 3 * scaled.variance_se


@pytest.mark.parametrize("distribution", DISTRIBUTIONS)
def test_components_have_mean_zero_and_variance_one(distribution):
    x = components(200_000, np.random.default_rng(1), distribution)
    m = sample_moments(x)
    assert abs(m.mean) < 4 * m.mean_se
    assert abs(m.variance - 1) < 4 * m.variance_se
    if distribution == "sign":
        assert set(np.unique(x)) == {-1.0, 1.0}
    if distribution == "uniform":
        assert np.abs(x).max() <= math.sqrt(3)


@settings(max_examples=40, deadline=None)
@given(d=st.integers(1, 64), seed=st.integers(0, 2**32 - 1))
def test_sign_components_give_integer_dot_products_of_the_parity_of_d(d, seed):
    x = dot_products(d, 50, np.random.default_rng(seed), "sign")
    assert np.all(np.abs(x) <= d)
    assert np.all(np.mod(x - d, 2) == 0)


@settings(max_examples=40, deadline=None)
@given(c=st.floats(-100, 100).filter(lambda c: abs(c) > 1e-3), seed=st.integers(0, 2**32 - 1))
def test_sample_moments_scale_like_mean_and_variance(c, seed):
    x = np.random.default_rng(seed).normal(size=100)
    m, mc = sample_moments(x), sample_moments(c * x)
    assert math.isclose(mc.mean, c * m.mean, rel_tol=1e-9, abs_tol=1e-9)
    assert math.isclose(mc.variance, c * c * m.variance, rel_tol=1e-9)
    assert math.isclose(mc.variance_se, c * c * m.variance_se, rel_tol=1e-7)


def test_sample_moments_of_known_numbers():
    m = sample_moments([1.0, 2.0, 3.0, 4.0])
    assert m.samples == 4 and m.mean == 2.5
    assert math.isclose(m.variance, 5 / 3)
    assert math.isclose(m.mean_se, math.sqrt(5 / 3 / 4))


def test_simulation_is_reproducible_and_chunked():
    a = dot_products(3000, 1000, np.random.default_rng(5))   # several chunks
    b = dot_products(3000, 1000, np.random.default_rng(5))
    assert a.shape == (1000,) and np.array_equal(a, b)


def test_no_nan_and_no_warning_at_d_4096():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        raw, scaled = dot_product_moments(4096, 2000, np.random.default_rng(0))
    assert all(math.isfinite(v) for v in (raw.mean, raw.variance, scaled.mean, scaled.variance))
    assert abs(scaled.variance - 1) < 3 * scaled.variance_se


RNG = np.random.default_rng(0)


@pytest.mark.parametrize(("kwargs", "message"), [
    ({"d": 0}, "dot_products: d must be at least 1; got 0"),
    ({"d": -3}, "d must be at least 1"),
    ({"d": 2.0}, "d must be a whole number; got 2.0"),
    ({"d": True}, "d must be a whole number"),
    ({"d": "8"}, "d must be a whole number"),
    ({"samples": 0}, "samples must be at least 1; got 0"),
    ({"samples": -10}, "samples must be at least 1"),
    ({"samples": 100.5}, "samples must be a whole number"),
    ({"rng": 42}, "rng must be a numpy Generator"),
    ({"distribution": "cauchy"}, "distribution must be one of"),
    ({"sigma": 0.0}, "sigma must be a positive finite number; got 0.0"),
    ({"sigma": -1.0}, "sigma must be a positive"),
    ({"sigma": float("nan")}, "sigma must be a positive finite number"),
    ({"sigma": "1"}, "sigma must be a positive number"),
])
def test_bad_input_is_a_clear_value_error(kwargs, message):
    args = {"d": 4, "samples": 10, "rng": RNG} | kwargs
    with pytest.raises(ValueError, match=message):
        dot_products(**args)
    with pytest.raises(ValueError, match=message):
        dot_product_moments(**args)


def test_bad_input_to_components_and_moments():
    with pytest.raises(ValueError, match="components: distribution must be one of"):
        components(3, RNG, "laplace")
    with pytest.raises(ValueError, match="components: rng must be a numpy Generator"):
        components(3, np.random)
    with pytest.raises(ValueError, match="at least 2 finite numbers"):
        sample_moments([1.0])
    with pytest.raises(ValueError, match="at least 2 finite numbers"):
        sample_moments([1.0, float("nan")])
