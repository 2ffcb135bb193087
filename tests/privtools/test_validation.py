"""Bad input raises a clear error naming the parameter, before any work; nothing is
clipped, wrapped or overflowed silently."""

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.errors import ParameterError
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Polya, PolyaDifference, Skellam
from privtools.validation import to_fraction

BAD_NUMBERS = [0, -1, math.nan, math.inf, -math.inf, "abc", True, None, [1]]


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_discrete_laplace_scale(value):
    with pytest.raises(ValueError, match="scale"):
        DiscreteLaplace(value)


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_skellam_var(value):
    with pytest.raises(ValueError, match="var"):
        Skellam(value)


@pytest.mark.parametrize("value", BAD_NUMBERS)
def test_discrete_gaussian_sigma(value):
    with pytest.raises(ValueError, match="sigma"):
        DiscreteGaussian(value)
    with pytest.raises(ValueError, match="sigma2"):
        DiscreteGaussian(sigma2=value)


@pytest.mark.parametrize("beta", [0, 1, 1.5, -0.2, math.nan, "x"])
def test_polya_beta(beta):
    with pytest.raises(ValueError, match="beta"):
        Polya(Fraction(1, 2), beta)
    with pytest.raises(ValueError, match="beta"):
        PolyaDifference(Fraction(1, 2), beta)


@pytest.mark.parametrize("r", [0, -1, math.nan, math.inf])
def test_polya_r(r):
    with pytest.raises(ValueError, match="r"):
        Polya(r, Fraction(1, 2))


def test_polya_needs_exactly_one_of_beta_and_scale():
    with pytest.raises(ValueError, match="exactly one"):
        Polya(1)
    with pytest.raises(ValueError, match="exactly one"):
        PolyaDifference(1, Fraction(1, 2), scale=3)


@pytest.mark.parametrize("mu", [0.5, 1.0, "1", math.nan, 2**63])
def test_integer_locations(mu):
    with pytest.raises(ValueError, match="mu"):
        Skellam(2, mu)
    with pytest.raises(ValueError, match="mu"):
        DiscreteGaussian(sigma2=2, mu=mu)


@pytest.mark.parametrize("n", [0, -3, 1.5, "4", None])
def test_shares_n(n):
    with pytest.raises(ValueError, match="n"):
        DiscreteLaplace(2).shares(n)


def test_shares_of_shifted_noise_rejected():
    with pytest.raises(ValueError, match="mu"):
        Skellam(4, mu=2).shares(2)


NON_INTEGERS = [1.5, np.array([0.0, 1.0]), "3", np.array([True]), None]


@pytest.mark.parametrize("k", [*NON_INTEGERS, 2**63, np.array([2**62 + 1])])
def test_float_methods_take_integers_within_2_62(k):
    """int64 arithmetic on k (k - mu, k + 1) cannot wrap for |k| <= 2**62."""
    with pytest.raises(ValueError, match="k"):
        Skellam(3).pmf(k)


@pytest.mark.parametrize("k", NON_INTEGERS)
def test_exact_methods_take_integers(k):
    with pytest.raises(ValueError, match="k"):
        Skellam(3).exact_pmf(k)


def test_exact_methods_use_python_ints_beyond_int64():
    v = DiscreteLaplace(2**62).exact_pmf(2**64, dps=20)  # no overflow: Python ints
    assert 0 < v < 1e-1


@pytest.mark.parametrize("dps", [0, -1, 2.5, None])
def test_dps(dps):
    with pytest.raises(ValueError, match="dps"):
        DiscreteLaplace(2).exact_pmf(0, dps=dps)


@pytest.mark.parametrize("size", [-1, 2.0, (3, -1), "5"])
def test_sample_size(size):
    with pytest.raises(ValueError, match="size"):
        Skellam(3).sample(size, rng=1)


def test_rng_type():
    with pytest.raises(ValueError, match="rng"):
        Skellam(3).sample(3, rng="seed")


def test_float_sampler_ranges_are_enforced_not_wrapped():
    with pytest.raises(ValueError, match="exact=True"):
        DiscreteLaplace(2**60).sample(3, rng=1)
    with pytest.raises(ValueError, match="var"):
        Skellam(2**61).sample(3, rng=1)
    with pytest.raises(ValueError, match="beta"):
        PolyaDifference(Fraction(1, 2), scale=10**14).sample(3, rng=1)


def test_exact_parameters():
    assert to_fraction("x", "0.1") == Fraction(1, 10)
    assert to_fraction("x", 0.1) == Fraction(0.1)  # the binary value, stated in the docs
    assert DiscreteLaplace("2.5").scale == Fraction(5, 2)
    assert DiscreteGaussian(sigma="1.5").sigma2 == Fraction(9, 4)
    assert isinstance(ParameterError("x"), ValueError)
    assert isinstance(ParameterError("x"), TypeError)


def test_values_are_immutable_and_hashable():
    d = Skellam(Fraction(7, 2), mu=1)
    with pytest.raises(AttributeError):
        d.mu = 3
    assert hash(d) == hash(Skellam("3.5", 1))
    assert d == Skellam("3.5", 1)


# ------------------------------------------------------------- one exact-fraction rule
@settings(max_examples=50, deadline=None)
@given(x=st.floats(min_value=1e-3, max_value=5, allow_nan=False, allow_infinity=False))
def test_a_float_means_its_binary_value_in_every_spec(x):
    """The one rule (privtools.validation.to_fraction): a float is read at its exact binary
    value by the plans, the batch-SE policies, the zCDP policies and their reports — never
    at its shortest decimal."""
    from privtools.bandits.se.policies import policy
    from privtools.bandits.zcdp import gope_policy, zcdp_policy
    from privtools.bandits.zcdp.gope import privacy_report as linear_report
    from privtools.bandits.zcdp.ucb import privacy_report
    from privtools.planning import plan

    exact = Fraction(x)
    assert to_fraction("x", x) == exact
    assert policy("dist-dp-se", epsilon=x).epsilon_exact == exact
    assert zcdp_policy("adac-ucb", epsilon=x).rho_exact == exact
    assert privacy_report(zcdp_policy("adac-ucb", epsilon=x), 1e-6).rho == exact
    assert linear_report(gope_policy("adac-gope", epsilon=x), 1e-6).rho == exact
    assert plan(epsilon=x, n=10, horizon=100).epsilon == exact
