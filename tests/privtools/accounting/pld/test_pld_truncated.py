"""Capped Poisson batches (TruncatedPoissonSampledEvent): the coupling term, against exact
enumeration.

The mechanism enumerated: N − 1 records of value 0, the added record of value 1 placed last;
a Poisson batch at rate q is cut to its first ``max_batch`` records; the release is ε₀
randomized response of the batch's largest value (sensitivity 1 under add/remove). The
added record survives the cut with probability q·P(Bin(N − 1, q) <= B − 1), so its exact
pair is randomized response mixed at that rate, composed k times by enumeration (mpmath at
60 digits). A second mechanism also releases whether the batch was cut — a leak Poisson
sampling alone does not have, which only the coupling term covers. Properties: the
truncation mass is the exact binomial tail (rounded up); the
accountant's δ(ε) interval holds the exact δ of the capped mechanism, and its ε(δ) upper
end is certified against it; no cap (max_batch >= population) answers exactly as
PoissonSampledEvent; μ-GDP is refused by name; bad input is refused by name.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools import accounting as A
from privtools.accounting.pld.coupling import truncation_mass
from privtools.certified.intervals import ends
from privtools.errors import ParameterError, UnsupportedEventError
from tests.oracles import mp, two_point_delta


def _binomial_above(n: int, q: Fraction, b: int) -> Fraction:
    return sum((math.comb(n, j) * q**j * (1 - q)**(n - j) for j in range(b + 1, n + 1)),
               Fraction(0))


@settings(max_examples=40, deadline=None)
@given(n=st.integers(1, 60), q=st.sampled_from([Fraction(1, 100), Fraction(1, 3),
                                                Fraction(1, 2), Fraction(9, 10)]),
       b=st.integers(1, 70))
def test_truncation_mass_is_the_binomial_tail_rounded_up(n, q, b):
    e = A.TruncatedPoissonSampledEvent(A.GaussianEvent(sigma=1), q=q, max_batch=b,
                                       population=n)
    exact = _binomial_above(n, q, b)
    got = truncation_mass(e)
    assert exact <= got <= exact * (1 + Fraction(1, 10**30)) + Fraction(1, 10**55)


def _capped_pair(eps0: Fraction, q: Fraction, n: int, b: int):
    """The exact pair of the enumerated mechanism (module docstring), as mpfs."""
    keep = sum((math.comb(n - 1, j) * q**j * (1 - q)**(n - 1 - j) for j in range(b)),
               Fraction(0))
    rate = mp(q * keep)
    e = mpmath.e ** mp(eps0)
    one, zero = (e / (1 + e), 1 / (1 + e)), (1 / (1 + e), e / (1 + e))
    mix = tuple(rate * a + (1 - rate) * z for a, z in zip(one, zero))
    return mix, zero


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 12), b=st.integers(1, 12),
       q=st.sampled_from([Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]),
       eps0=st.sampled_from([Fraction(1, 2), Fraction(1)]), k=st.integers(1, 4),
       eps=st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1)]))
def test_delta_holds_the_capped_mechanism(n, b, q, eps0, k, eps):
    acc = A.PldAccountant(neighbouring="add-remove", max_points=2**12).compose(
        A.TruncatedPoissonSampledEvent(A.PureDPEvent(eps0), q=q, max_batch=b,
                                       population=n), count=k)
    with mpmath.workdps(60):
        mix, zero = _capped_pair(eps0, q, n, b)
        exact = max(two_point_delta(mix, zero, k, eps), two_point_delta(zero, mix, k, eps))
        lo, hi = ends(acc.delta(eps).interval)
        slack = mpmath.mpf(10) ** -40
        assert lo - slack <= exact <= hi + slack


@settings(max_examples=15, deadline=None)
@given(n=st.integers(20, 40), q=st.sampled_from([Fraction(1, 10), Fraction(1, 20)]),
       k=st.integers(1, 6),
       delta=st.sampled_from([Fraction(1, 10), Fraction(1, 100), Fraction(1, 1000)]))
def test_epsilon_upper_end_is_certified_for_the_capped_mechanism(n, q, k, delta):
    b = n // 2                               # a cut that is rare but not negligible
    acc = A.PldAccountant(neighbouring="add-remove", max_points=2**12).compose(
        A.TruncatedPoissonSampledEvent(A.PureDPEvent(1), q=q, max_batch=b, population=n),
        count=k)
    lo, hi = ends(acc.epsilon(delta).interval)
    assert lo <= hi
    if mpmath.isfinite(hi):
        with mpmath.workdps(60):
            mix, zero = _capped_pair(Fraction(1), q, n, b)
            exact = max(two_point_delta(mix, zero, k, hi), two_point_delta(zero, mix, k, hi))
            assert exact <= mp(delta) * (1 + mpmath.mpf(10) ** -30)


def test_no_cap_is_poisson_sampling():
    inner = A.GaussianEvent(sigma=Fraction(3, 2))
    capped = A.PldAccountant(neighbouring="add-remove").compose(
        A.TruncatedPoissonSampledEvent(inner, q=Fraction(1, 20), max_batch=50,
                                       population=50), count=30)
    plain = A.PldAccountant(neighbouring="add-remove").compose(
        A.PoissonSampledEvent(inner, q=Fraction(1, 20)), count=30)
    assert capped.epsilon(1e-6).interval == plain.epsilon(1e-6).interval
    assert capped.delta(1).interval == plain.delta(1).interval


def test_a_cut_that_swamps_delta_certifies_nothing():
    acc = A.PldAccountant(neighbouring="add-remove").compose(
        A.TruncatedPoissonSampledEvent(A.GaussianEvent(sigma=1), q=Fraction(1, 2),
                                       max_batch=1, population=10), count=3)
    lo, hi = ends(acc.epsilon(1e-6).interval)
    assert lo == 0 and hi == mpmath.inf


def test_gdp_mu_and_bad_input_are_refused_by_name():
    e = A.TruncatedPoissonSampledEvent(A.GaussianEvent(sigma=2), q=Fraction(1, 10),
                                       max_batch=30, population=100)
    with pytest.raises(ParameterError, match="gdp_mu"):
        A.PldAccountant(neighbouring="add-remove").compose(e, count=2).gdp_mu()
    with pytest.raises(ParameterError, match="max_batch"):
        A.TruncatedPoissonSampledEvent(A.GaussianEvent(sigma=2), q=0.1, max_batch=0,
                                       population=100)
    with pytest.raises(ParameterError, match="population"):
        A.TruncatedPoissonSampledEvent(A.GaussianEvent(sigma=2), q=0.1, max_batch=3,
                                       population="")
    with pytest.raises(ParameterError, match="q"):
        A.TruncatedPoissonSampledEvent(A.GaussianEvent(sigma=2), q=0, max_batch=3,
                                       population=10)
    with pytest.raises(UnsupportedEventError, match="SampledWithoutReplacementEvent"):
        A.PldAccountant().compose(e)
    with pytest.raises(ParameterError, match="delta = 0 is not certified"):
        A.PldAccountant(neighbouring="add-remove").compose(
            A.TruncatedPoissonSampledEvent(A.PureDPEvent(1), q=0.5, max_batch=3,
                                           population=10)).epsilon(0)


def _flagged_pair(eps0: Fraction, q: Fraction, n: int, b: int):
    """The exact four-point pair of the mechanism that releases (randomized response of the
    largest value, whether the batch was cut): under D′ the added record (last) is in the
    batch with probability q and survives the cut iff at most b − 1 others are in."""
    def cdf(m):                                   # P(Bin(n − 1, q) <= m)
        return sum((math.comb(n - 1, j) * q**j * (1 - q)**(n - 1 - j)
                    for j in range(0, min(m, n - 1) + 1)), Fraction(0)) if m >= 0 else 0
    e = mpmath.e ** mp(eps0)
    rr1, rr0 = (e / (1 + e), 1 / (1 + e)), (1 / (1 + e), e / (1 + e))
    cut_d = 1 - cdf(b)
    p_cut = mp((1 - q) * (1 - cdf(b)) + q * (1 - cdf(b - 1)))       # cut: record dropped
    p_one = mp(q * cdf(b - 1))                                       # kept: RR of 1
    p_zero = mp((1 - q) * cdf(b))                                    # not in, not cut
    other = [p_cut * rr0[0], p_cut * rr0[1], p_one * rr1[0] + p_zero * rr0[0],
             p_one * rr1[1] + p_zero * rr0[1]]
    base = [mp(cut_d) * rr0[0], mp(cut_d) * rr0[1], mp(1 - cut_d) * rr0[0],
            mp(1 - cut_d) * rr0[1]]
    return other, base


def _product_delta(p, q, k: int, eps) -> mpmath.mpf:
    e = mpmath.e ** (eps if isinstance(eps, mpmath.mpf) else mp(eps))
    total = mpmath.mpf(0)
    for xs in itertools.product(range(len(p)), repeat=k):
        pp = mpmath.fprod(p[x] for x in xs)
        qq = mpmath.fprod(q[x] for x in xs)
        total += max(pp - e * qq, 0)
    return total


@settings(max_examples=25, deadline=None)
@given(n=st.integers(2, 10), b=st.integers(1, 10),
       q=st.sampled_from([Fraction(1, 2), Fraction(1, 4), Fraction(1, 10)]),
       k=st.integers(1, 3), eps=st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1)]))
def test_delta_covers_a_mechanism_that_releases_the_cut(n, b, q, k, eps):
    acc = A.PldAccountant(neighbouring="add-remove", max_points=2**12).compose(
        A.TruncatedPoissonSampledEvent(A.PureDPEvent(1), q=q, max_batch=b, population=n),
        count=k)
    with mpmath.workdps(60):
        other, base = _flagged_pair(Fraction(1), q, n, b)
        exact = max(_product_delta(other, base, k, eps), _product_delta(base, other, k, eps))
        _, hi = ends(acc.delta(eps).interval)
        assert exact <= hi + mpmath.mpf(10) ** -40
