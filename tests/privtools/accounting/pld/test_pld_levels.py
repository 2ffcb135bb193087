"""Grids held as coarse as the question allows: properties against exact oracles.

Properties: ``level_for(δ)`` keeps its stated margins (tail within [δ·2^-41, δ·2^-40], masses
at least 32 bits finer than the tail) and is monotone; coarsening a grid rounds outward (the
upper side's δ(ε) only grows, the lower side's only falls, and mass is never lost from the
upper side); floored remainders moved to +∞ keep the upper side dominating under
composition; ε(δ) read at the level for δ brackets the exact value of Poisson-sampled
randomized response (enumeration in mpmath); δ(ε) far below the first level's reach is
refined until the bracket is tight; DP-SGD's default bracket is within 1e-4 relative.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools import accounting as A
from privtools.accounting.calibration import _narrow
from privtools.accounting.pld import FIXED_BITS, FULL, LEVEL_MARGIN, Level, level_for
from privtools.certified.intervals import ends
from privtools.errors import ParameterError
from tests.oracles import mp, rr_delta, sampled_rr_pair, two_point_delta

_deltas = st.fractions(min_value=Fraction(1, 10**80), max_value=1).filter(lambda d: d > 0)


@given(d=_deltas)
def test_level_for_keeps_its_margins(d):
    lv = level_for(d)
    if lv == FULL:              # only far below: tail 2^-(⌊log2 1/δ⌋+41) would reach 1e-60
        assert d * Fraction(1, 2**LEVEL_MARGIN) < 2**10 * FULL.tail
        return
    assert d / 2**(LEVEL_MARGIN + 1) <= lv.tail <= d / 2**LEVEL_MARGIN
    t = lv.tail.denominator.bit_length() - 1                    # tail = 2^-t
    assert lv.tail == Fraction(1, 2**t)
    assert lv.bits % 32 == 0 and t + 32 <= lv.bits < FIXED_BITS
    assert lv.tail > FULL.tail


@given(a=_deltas, b=_deltas)
def test_level_for_is_monotone(a, b):
    small, big = sorted((a, b))
    assert level_for(small).covers(level_for(big))


def _rr_grid(eps0: Fraction, k: int) -> A.PldAccountant:
    return A.PldAccountant(step=eps0, tail=Fraction(1, 10**60)).compose(
        A.PureDPEvent(eps0), count=k)


@settings(max_examples=15, deadline=None)
@given(k=st.integers(1, 60), bits=st.sampled_from([64, 96, 128, 192]),
       eps=st.fractions(0, 30))
def test_coarsening_rounds_outward(k, bits, eps):
    pld = _rr_grid(Fraction(1, 2), k).pld()
    up, low = pld.forward
    cu, cl = up.coarsen(bits), low.coarsen(bits)
    assert cu.bits == cl.bits == bits
    assert cu.delta(eps) >= up.delta(eps)
    assert cl.delta(eps) <= low.delta(eps)
    # the upper side loses no mass: what the floor drops is held at +∞
    assert (cu.total() + cu.infinity) << (FIXED_BITS - bits) >= up.total() + up.infinity
    with pytest.raises(ParameterError, match="bits"):
        up.coarsen(FIXED_BITS + 32)


@settings(max_examples=10, deadline=None)
@given(k=st.integers(2, 200), bits=st.sampled_from([64, 96]),
       eps=st.fractions(0, 40))
def test_composition_at_coarse_bits_brackets_the_exact_delta(k, bits, eps):
    """Randomized response at ε₀ = 1/2 composed k times on 64- and 96-bit masses, each
    product's remainders moved to +∞: the bracket holds the binomial value."""
    one = A.PldAccountant(step=Fraction(1, 2)).compose(A.PureDPEvent(Fraction(1, 2))).pld()
    lv = Level(bits, Fraction(1, 2**(bits - 32)))
    composed = one.coarsen(lv).self_compose(k, lv.tail)
    with mpmath.workdps(60):
        exact = rr_delta(Fraction(1, 2), k, eps, dps=60)
        lo, hi = ends(composed.delta(eps))
        slack = mpmath.mpf(10) ** -50 * (1 + exact)
        assert lo - slack <= exact <= hi + slack


@settings(max_examples=10, deadline=None)
@given(eps0=st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(2)]),
       rate=st.sampled_from([Fraction(1, 100), Fraction(1, 10), Fraction(1, 2)]),
       k=st.integers(1, 20),
       delta=st.sampled_from([Fraction(1, 10**3), Fraction(1, 10**6), Fraction(1, 10**12)]))
def test_epsilon_at_the_level_for_delta_brackets_the_exact_value(eps0, rate, k, delta):
    """Poisson-sampled randomized response on a forced grid (no exact reader): the ends of
    ε(δ) straddle δ under the exact δ(ε) of both directions (enumeration)."""
    acc = A.PldAccountant(step=Fraction(1, 256), neighbouring="add-remove").compose(
        A.PoissonSampledEvent(A.PureDPEvent(eps0), q=rate), k)
    lo, hi = ends(acc.epsilon(delta).interval)
    with mpmath.workdps(60):
        mix, q = sampled_rr_pair(eps0, rate)

        def exact(e):
            return max(two_point_delta(mix, q, k, e), two_point_delta(q, mix, k, e))
        slack = mpmath.mpf(10) ** -40
        if mpmath.isfinite(hi):
            assert exact(hi) <= mp(delta) * (1 + slack)
        if lo > 0:
            assert exact(lo) >= mp(delta) * (1 - slack)


def test_delta_far_below_the_first_level_is_refined():
    """200-fold randomized response at ε₀ = 1: δ(199.5) ≈ 6e-28 is far below what the
    first level (δ = 2^-30: tail 2^-70) resolves; the reading refines until its bracket
    holds the exact value to 1e-6 relative."""
    acc = A.PldAccountant(step=Fraction(1)).compose(A.PureDPEvent(Fraction(1)), count=200)
    eps = Fraction(399, 2)
    with mpmath.workdps(80):
        exact = rr_delta(Fraction(1), 200, eps, dps=80)
        lo, hi = ends(acc.delta(eps).interval)
        assert 1e-29 < exact < 1e-26
        assert lo <= exact * (1 + mpmath.mpf(10) ** -30) and exact <= hi
        assert hi <= exact * (1 + mpmath.mpf(10) ** -6)


def test_a_given_tail_reads_every_question_at_full_bits():
    acc = A.PldAccountant(tail=Fraction(1, 10**40), neighbouring="add-remove").compose(
        A.PoissonSampledEvent(A.GaussianEvent(sigma=2), q=Fraction(1, 10)), count=3)
    acc.epsilon(1e-3)
    (level,) = acc._cache
    assert level == Level(FIXED_BITS, Fraction(1, 10**40))


def test_dp_sgd_is_bracketed_to_1e_4_relative_at_the_defaults():
    """DP-SGD (q = 0.01, σ = 1, 10^4 steps, δ = 1e-5) at the accountant's defaults."""
    acc = A.PldAccountant(neighbouring="add-remove").compose(
        A.PoissonSampledEvent(A.GaussianEvent(sigma=1), q=Fraction(1, 100)), count=10_000)
    r = acc.epsilon(Fraction(1, 10**5))
    assert 0 < r.relative_width <= 1e-4
    lo, hi = ends(r.interval)
    assert 6.18 < lo <= hi < 6.19


@settings(max_examples=60, deadline=None)
@given(theta=st.fractions(Fraction(1, 8), 64),
       skew=st.sampled_from([None, Fraction(1), Fraction(1, 2), Fraction(3), Fraction(-1)]),
       rtol=st.sampled_from([1e-1, 1e-3, 1e-6]))
def test_narrowing_keeps_the_bracket_whatever_the_guess(theta, skew, rtol):
    """calibrate's narrowing against a threshold θ: every end moved is a decision, so the
    answer b is certified (b >= θ) and within rtol of it, however wrong the guess (exact,
    off by a factor, negative, none)."""
    calls = []

    def ok(x):
        calls.append(x)
        return x >= theta

    def snap(x):
        return Fraction(float(x))

    def guess(a, b):
        return None if skew is None else theta * skew
    a, b = Fraction(1, 16), Fraction(128)
    got = _narrow(ok, snap, a, b, False, rtol, guess)
    assert got >= theta
    assert got - theta <= Fraction(rtol) * got or snap(theta) == got
    if skew == 1:
        assert len(calls) <= 4                  # a right guess closes in two or so
