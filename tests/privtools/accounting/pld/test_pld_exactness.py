"""Exact where the law is exact: releases whose losses sit off the binary grid.

Property: k-fold (ε, δ)-DP with non-dyadic ε (1/10, 1/3, 3/7, …) has the exact
δ_k(t) = 1 − (1 − δ)^k + (1 − δ)^k · δ_RR,k(t) (Kairouz, Oh & Viswanath 2015: the
product of dominating pairs; δ_RR,k is k-fold randomized response at ε), computed at 200
digits. Every certified δ(t) contains it, and every certified ε(δ) has a relative width
≤ 1e-4 with the exact δ on its two ends bracketing the target. The kept regression:
``ApproxDPEvent(1/10, 1e-6)`` composed 10 times once gave ε(1e-3) ∈ [0, 1.155] against
the exact 0.754 (the ±1/10 loss held as a ball straddling the grid point).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import PldAccountant
from privtools.accounting.sampled_events import ApproxDPEvent
from privtools.certified.intervals import ends
from tests import oracles


def _approx_delta(eps: Fraction, delta: Fraction, k: int, t) -> mpmath.mpf:
    """Exact δ(t) of k-fold (ε, δ)-DP's dominating pair (200 digits; ``t`` any real)."""
    with mpmath.workdps(200):
        t = mpmath.mpf(t) if not isinstance(t, Fraction) else oracles.mp(t)
        d = oracles.mp(delta)
        rr = oracles.rr_delta(eps, k, t, dps=200)
        return 1 - (1 - d) ** k + (1 - d) ** k * rr


_EPS = st.sampled_from((Fraction(1, 10), Fraction(1, 3), Fraction(3, 7), Fraction(7, 5)))
_DELTA = st.sampled_from((Fraction(1, 10**6), Fraction(1, 10**9), Fraction(0)))


def test_the_non_dyadic_regression_is_exact():
    acc = PldAccountant().compose(ApproxDPEvent(Fraction(1, 10), Fraction(1, 10**6)), count=10)
    lo, hi = ends(acc.epsilon(Fraction(1, 1000)).interval)
    assert 0.7542 < lo <= hi < 0.7543
    target = mpmath.mpf(1) / 1000
    assert _approx_delta(Fraction(1, 10), Fraction(1, 10**6), 10, lo) >= target
    assert _approx_delta(Fraction(1, 10), Fraction(1, 10**6), 10, hi) <= target


@settings(max_examples=20, deadline=None, derandomize=True)
@given(eps=_EPS, delta=_DELTA, k=st.integers(1, 300), where=st.integers(0, 20))
def test_composed_approx_dp_contains_the_exact_delta(eps, delta, k, where):
    acc = PldAccountant().compose(ApproxDPEvent(eps, delta), count=k)
    t = k * eps * Fraction(where, 20)
    lo, hi = ends(acc.delta(t).interval)
    exact = _approx_delta(eps, delta, k, t)
    assert lo <= exact <= hi, (eps, delta, k, t)
    assert hi - lo <= mpmath.mpf(10) ** -30 + 1e-12 * exact


@settings(max_examples=15, deadline=None, derandomize=True)
@given(eps=_EPS, delta=st.sampled_from((Fraction(1, 10**7), Fraction(0))),
       k=st.integers(2, 1000), target=st.sampled_from((Fraction(1, 10**3), Fraction(1, 10**5))))
def test_composed_approx_dp_epsilon_is_tight(eps, delta, k, target):
    if 1 - (1 - delta) ** k >= target:
        return                                   # the δ part alone exceeds the target
    acc = PldAccountant().compose(ApproxDPEvent(eps, delta), count=k)
    lo, hi = ends(acc.epsilon(target).interval)
    assert hi - lo <= 1e-4 * hi
    t = mpmath.mpf(target.numerator) / target.denominator
    assert _approx_delta(eps, delta, k, lo) >= t >= _approx_delta(eps, delta, k, hi)
