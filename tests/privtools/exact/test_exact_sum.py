"""privtools.exact: certified sums of shares, shift, wrap, total variation."""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privtools.exact import ExactPMF, closed_form_sum, shift, sum_pmf, total_variation, wrap
from privtools.noise import DiscreteGaussian, DiscreteLaplace, PolyaDifference, Skellam

TEN = mpmath.mpf(10)


def max_abs_diff(P: ExactPMF, Q: ExactPMF) -> mpmath.mpf:
    with mpmath.workdps(60):
        lo, hi = min(P.lo, Q.lo), max(P.hi, Q.hi)
        return max(abs(P.pmf(k) - Q.pmf(k)) for k in range(lo, hi + 1))


@given(b=st.integers(1, 24), n=st.sampled_from([2, 3, 8, 16, 33]))
def test_fact1_by_convolution_matches_discrete_laplace(b, n):
    """Fact 1 (000), checked independently of its closed form: the Arb convolution of n
    Pólya-difference shares equals Lap_Z(b) to 1e-40 at 50 digits."""
    share = DiscreteLaplace(b).shares(n)
    summed = sum_pmf(share, n, dps=50, method="convolve")
    law = ExactPMF.from_distribution(DiscreteLaplace(b), dps=50)
    assert max_abs_diff(summed, law) < TEN**-40
    assert total_variation(summed, law).b < TEN**-40


def test_fact1_closed_form_is_used_automatically():
    share = DiscreteLaplace(Fraction(7, 2)).shares(12)
    assert closed_form_sum(share, 12) == DiscreteLaplace(Fraction(7, 2))
    assert closed_form_sum(share, 6) == PolyaDifference(Fraction(1, 2), scale=Fraction(7, 2))
    assert closed_form_sum(DiscreteGaussian(sigma2=2), 4) is None


@given(var=st.integers(1, 300), n=st.integers(2, 12))
def test_skellam_closure_by_convolution(var, n):
    """Skellam closure (000 §5) checked by convolution against the closed form."""
    share = Skellam(Fraction(var, n))
    conv = sum_pmf(share, n, dps=40, method="convolve")
    closed = sum_pmf(share, n, dps=40)
    assert max_abs_diff(conv, closed) < TEN**-38
    assert closed.label.endswith(repr(Skellam(var)))


def test_sum_of_discrete_gaussians_is_not_discrete_gaussian():
    """Theorem 4 / Lemma 4 (000): the sum of n discrete Gaussians is only close to a
    discrete Gaussian. With tiny shares (σ² = 1/2) the certified TV interval excludes 0;
    with σ² = 25 shares the gap (~e^{-2π²σ²}) is far below 40 digits."""
    small = sum_pmf(DiscreteGaussian(sigma2=Fraction(1, 2)), 4, dps=40)
    tv = total_variation(small, ExactPMF.from_distribution(DiscreteGaussian(sigma2=2), dps=40))
    assert tv.a > TEN**-4
    big = sum_pmf(DiscreteGaussian(sigma2=25), 4, dps=40)
    tv_big = total_variation(big, ExactPMF.from_distribution(DiscreteGaussian(sigma2=100),
                                                             dps=40))
    assert tv_big.b < TEN**-35


@pytest.mark.parametrize("share,n", [
    (DiscreteGaussian(sigma2=Fraction(3, 2)), 5),
    (DiscreteLaplace(Fraction(2)), 6),      # local model (Theorem 6): sum of n Lap_Z
    (Skellam(Fraction(5)), 7),
])
def test_moments_of_sums_are_exact(share, n):
    """Mean and variance of the convolved sum equal n times the share's, up to the
    certified unaccounted mass (variance is additive for independent shares)."""
    P = sum_pmf(share, n, dps=40, method="convolve")
    S = ExactPMF.from_distribution(share, dps=40)
    with mpmath.workdps(50):
        var_share = mpmath.mpf(S.moment(2).mid().str(45, radius=False))
        var_sum = mpmath.mpf(P.moment(2).mid().str(45, radius=False))
        assert abs(var_sum - n * var_share) < TEN**-30 * n * var_share
        assert abs(mpmath.mpf(P.moment(1).mid().str(45, radius=False))) < TEN**-30


@pytest.mark.parametrize("P", [
    sum_pmf(DiscreteGaussian(sigma2=Fraction(9, 4)), 8, dps=30),
    sum_pmf(DiscreteLaplace(Fraction(5)).shares(4), 4, dps=30, method="convolve"),
    ExactPMF.from_distribution(Skellam(Fraction(50)), dps=30),
], ids=["dgauss-sum", "polya-sum", "skellam"])
def test_unaccounted_mass_is_certified(P):
    mass = P.mass()
    assert mass.upper() <= 1 or mass.contains(1)
    assert 1 - mpmath.mpf(mass.upper().str(40, radius=False)) <= P.unaccounted + TEN**-35
    assert P.unaccounted <= TEN**-29


def test_shift_and_wrap_commute_and_preserve_mass():
    P = ExactPMF.from_distribution(DiscreteLaplace(Fraction(4)), dps=30)
    m = 37
    a = wrap(shift(P, 11), m)
    b = shift(wrap(P, m), 11)
    assert a.modulus == b.modulus == m
    assert all(x.overlaps(y) for x, y in zip(a.balls, b.balls))
    assert wrap(P, m).mass().overlaps(P.mass())


@given(k=st.integers(1, 12), m=st.integers(3, 60), scale=st.integers(1, 9))
def test_wrap_never_increases_total_variation(k, m, scale):
    """Data processing: the server's mod-m view is a post-processing of the sum, so the
    distance between the two neighbouring outputs can only shrink."""
    P = ExactPMF.from_distribution(DiscreteLaplace(scale), dps=30)
    Q = shift(P, k)
    tv = total_variation(P, Q)
    tv_wrapped = total_variation(wrap(P, m), wrap(Q, m))
    with mpmath.workdps(40):
        assert tv_wrapped.a <= tv.b


@given(k=st.integers(-30, 30))
def test_total_variation_is_shift_invariant_and_matches_closed_form(k):
    """TV(Lap_Z(b), Lap_Z(b) + k) against an independent mpmath sum of
    max(0, p(x) − p(x − k)) with the closed-form PMF (the set {P > Q} is a half-line)."""
    b = Fraction(3)
    P = ExactPMF.from_distribution(DiscreteLaplace(b), dps=40)
    tv = total_variation(P, shift(P, k))
    tv2 = total_variation(shift(P, 5), shift(P, 5 + k))
    with mpmath.workdps(60):
        q = mpmath.exp(-1 / mpmath.mpf(3))
        c = (1 - q) / (1 + q)
        want = mpmath.fsum(max(0, c * q ** abs(x) - c * q ** abs(x - k))
                           for x in range(-400, 401))  # the rest < e^{-130}
        assert tv.a <= want <= tv.b
        assert tv.b - tv.a < TEN**-38
        assert abs(tv2.a - tv.a) < TEN**-38


def test_bad_input():
    share = DiscreteLaplace(2).shares(4)
    with pytest.raises(ValueError, match="n"):
        sum_pmf(share, 0)
    with pytest.raises(ValueError, match="dps"):
        sum_pmf(share, 4, dps=0)
    with pytest.raises(ValueError, match="tail"):
        sum_pmf(share, 4, tail=2)
    with pytest.raises(ValueError, match="method"):
        sum_pmf(share, 4, method="fft")
    with pytest.raises(ValueError, match="closed form"):
        sum_pmf(DiscreteGaussian(sigma2=2), 4, method="closed-form")
    with pytest.raises(TypeError, match="share"):
        sum_pmf([0.5, 0.5], 2)
    P = ExactPMF.from_distribution(DiscreteLaplace(2), dps=20)
    with pytest.raises(ValueError, match="m"):
        wrap(P, 0)
    with pytest.raises(ValueError, match="modulus"):
        total_variation(P, wrap(P, 5))
    with pytest.raises(ValueError, match="k"):
        shift(P, 1.5)
