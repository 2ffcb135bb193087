"""Certified exact PMFs and tails against independent mpmath oracles.

Tolerances are the requested digits: ``exact_pmf(k, dps)`` promises relative error below
10**-dps, so the oracles (run at a higher precision) must agree to that.
"""

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privtools.noise import DiscreteGaussian, DiscreteLaplace, Polya, PolyaDifference, Skellam
from tests import oracles

DPS = 40


def rel(a, b):
    return abs(a - b) / abs(b)


def fractions(lo_num, hi_num, den_max=12):
    return st.builds(Fraction, st.integers(lo_num, hi_num), st.integers(1, den_max)).filter(
        lambda f: f > 0)


@given(scale=fractions(1, 400), k=st.integers(-300, 300))
def test_discrete_laplace_exact(scale, k):
    with mpmath.workdps(DPS + 20):
        want = oracles.dlaplace(k, scale)
    assert rel(DiscreteLaplace(scale).exact_pmf(k, dps=DPS), want) < mpmath.mpf(10) ** -DPS


@given(var=fractions(1, 600, 7), mu=st.integers(-5, 5), k=st.integers(-120, 120))
def test_skellam_exact_matches_bessel_series(var, mu, k):
    with mpmath.workdps(DPS + 30):
        want = oracles.skellam_series(k, var, mu)
    assert rel(Skellam(var, mu).exact_pmf(k, dps=DPS), want) < mpmath.mpf(10) ** -DPS


@given(sigma2=fractions(1, 2000, 9), mu=st.integers(-3, 3), k=st.integers(-200, 200))
def test_discrete_gaussian_exact_matches_theta_normaliser(sigma2, mu, k):
    with mpmath.workdps(DPS + 20):
        want = oracles.dgauss(k, sigma2, mu)
    assert rel(DiscreteGaussian(sigma2=sigma2, mu=mu).exact_pmf(k, dps=DPS), want) < (
        mpmath.mpf(10) ** -DPS)


@given(r=fractions(1, 40, 16), scale=fractions(1, 60, 4), k=st.integers(0, 400))
def test_polya_exact(r, scale, k):
    with mpmath.workdps(DPS + 20):
        beta = mpmath.exp(-1 / oracles.mp(scale))
        want = oracles.polya(k, r, beta)
    assert rel(Polya(r, scale=scale).exact_pmf(k, dps=DPS), want) < mpmath.mpf(10) ** -DPS


@given(r=fractions(1, 12, 16), beta=fractions(1, 9, 10).filter(lambda b: b < 1),
       k=st.integers(-40, 40))
def test_polya_difference_convolution_matches_hypergeometric_closed_form(r, beta, k):
    with mpmath.workdps(DPS + 20):
        want = oracles.polya_difference_hyp(k, r, oracles.mp(beta))
    got = PolyaDifference(r, beta).exact_pmf(k, dps=DPS)
    assert rel(got, want) < mpmath.mpf(10) ** -DPS


@pytest.mark.parametrize("dist,lo,hi", [
    (Skellam(Fraction(10**4)), -600, 600),
    (Skellam(Fraction(7, 3), mu=4), -30, 40),
    (DiscreteGaussian(sigma2=Fraction(50)), -80, 80),
    (Polya(Fraction(3, 2), scale=Fraction(9)), 0, 300),
    (PolyaDifference(Fraction(1, 64), scale=Fraction(8)), -200, 200),
    (DiscreteLaplace(Fraction(5, 2)), -100, 100),
])
def test_range_method_matches_pointwise(dist, lo, hi):
    """Fast range methods (backward Bessel recurrence, Pólya product recurrence,
    convolution) agree with point evaluation to the requested digits."""
    rng = dist.exact_pmf_range(lo, hi, dps=DPS)
    for k in range(lo, hi + 1, max(1, (hi - lo) // 25)):
        assert rel(rng[k - lo], dist.exact_pmf(k, dps=DPS)) < mpmath.mpf(10) ** -DPS


def test_more_digits_refine_fewer():
    d = Skellam(Fraction(12345, 7))
    a, b = d.exact_pmf(900, dps=30), d.exact_pmf(900, dps=80)
    assert rel(a, b) < mpmath.mpf(10) ** -30
    assert 0 < b < mpmath.mpf(10) ** -90  # a far-tail value, still exact


def test_huge_variance_skellam_far_tail_is_exact():
    """Total variance 10^6 at 20σ: scipy's pmf is still right there (an independent check
    to float precision) but its survival function returns 0 for a tail of ~1e-89; at 40σ
    scipy's pmf underflows while the certified value is ~1e-348."""
    import scipy.stats

    d = Skellam(10**6)
    k = 20_000
    v = d.exact_pmf(k, dps=40)
    assert abs(scipy.stats.skellam.pmf(k, 5e5, 5e5) / float(v) - 1) < 1e-12
    assert rel(v, d.exact_pmf_range(k - 2, k, dps=40)[-1]) < mpmath.mpf(10) ** -40
    assert scipy.stats.skellam.sf(k, 5e5, 5e5) == 0.0
    assert d.tail_bound(-k, k) > mpmath.mpf(10) ** -90
    far = d.exact_pmf(2 * k, dps=40)
    assert scipy.stats.skellam.pmf(2 * k, 5e5, 5e5) == 0.0
    assert mpmath.mpf(10) ** -360 < far < mpmath.mpf(10) ** -340


@pytest.mark.parametrize("dist", [
    DiscreteLaplace(Fraction(7, 2)),
    Skellam(Fraction(40)),
    Skellam(Fraction(1, 3), mu=2),
    DiscreteGaussian(sigma2=Fraction(9), mu=-1),
    DiscreteGaussian(sigma2=Fraction(1, 5)),
    Polya(Fraction(1, 2), scale=Fraction(3)),
    Polya(Fraction(5), Fraction(1, 2)),
    PolyaDifference(Fraction(1, 16), scale=Fraction(6)),
])
@pytest.mark.parametrize("mass", ["1e-6", "1e-30"])
def test_certified_tail_bound_holds_and_is_tight(dist, mass):
    """tail_bound >= the exact outside mass (summed far out), and within 2x of it."""
    lo, hi, bound = dist.exact_support(mass, dps=30)
    assert bound <= mpmath.mpf(mass)
    width = hi - lo + 1
    with mpmath.workdps(40):  # mpmath sums at the context precision
        outside = mpmath.fsum(dist.exact_pmf_range(hi + 1, hi + 8 * width, dps=30))
        outside += mpmath.fsum(dist.exact_pmf_range(lo - 8 * width, lo - 1, dps=30))
    assert outside <= bound
    assert bound <= 2 * outside + mpmath.mpf(10) ** -60


def test_polya_below_zero_is_exact_zero():
    d = Polya(Fraction(1, 3), Fraction(1, 2))
    assert d.exact_pmf(-1) == 0
    assert d.exact_pmf_range(-3, 1)[:3] == [0, 0, 0]


@given(num=st.integers(-10**30, 10**30), den=st.integers(1, 10**12),
       rad_exp=st.integers(-400, -10))
def test_upper_mpf_is_an_upper_bound_for_either_sign(num, den, rad_exp):
    """upper_mpf rounds toward +inf and lower_mpf toward −inf, for either sign (mpmath's
    "u" rounds away from zero and a negation rounds to nearest: neither is safe)."""
    from fractions import Fraction

    from flint import arb

    from privtools.certified.balls import lower_mpf, upper_mpf

    mid = arb(num) / den
    x = arb(mid.mid(), arb(2) ** rad_exp)  # mid + rad needs more bits than mpmath's prec
    up, low = upper_mpf(x), lower_mpf(x)

    def as_fraction(v):
        sign, man, exp, _ = v._mpf_
        return (-1) ** sign * Fraction(int(man)) * Fraction(2) ** int(exp)

    m = as_fraction(upper_mpf(arb(mid.mid())))
    r = Fraction(2) ** rad_exp
    assert as_fraction(low) <= m - r and m + r <= as_fraction(up)
