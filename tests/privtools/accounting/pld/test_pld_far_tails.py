"""The accountant at every ``tail`` down to 1e-300: certified intervals against exact
enumeration where the exact δ is far below the fixed-point unit (2^-256 ≈ 8.6e-78).

Property: k-fold ε₀-DP randomized response (``PureDPEvent``) and the discrete Laplace of
sensitivity 1 (a lattice release whose loss is ±1/t with the same two masses as randomized
response at ε₀ = 1/t) composed k times, read at ε near the top of the loss range where δ is
a sum of a few binomial terms, computed exactly at 700 digits: the interval always contains
the exact value — a positive δ is never reported as [0, 0] (the kept regression:
``PureDPEvent(2)`` composed 1 500 times at ``tail=1e-300`` once gave δ(2999) = [0, 0]
against the exact 1.30e-83).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import DiscreteLaplaceEvent, PldAccountant, PureDPEvent
from privtools.certified.intervals import ends
from tests import oracles

TAILS = (Fraction(1, 10**10), Fraction(1, 10**60), Fraction(1, 10**120),
         Fraction(1, 10**200), Fraction(1, 10**300))


def _rr_delta(eps: Fraction, k: int, target: Fraction) -> mpmath.mpf:
    """Exact δ(target) of k-fold ε-randomized response at 700 digits (values down to
    1e-600 are resolved)."""
    return oracles.rr_delta(eps, k, target, dps=700)


def _contains(iv, x) -> bool:
    lo, hi = ends(iv)
    return lo <= x <= hi


def test_the_far_tail_regression_is_not_zero():
    acc = PldAccountant(tail=1e-300).compose(PureDPEvent(2), count=1500)
    iv = acc.delta(2999).interval
    exact = _rr_delta(Fraction(2), 1500, Fraction(2999))
    assert mpmath.mpf("1.2e-83") < exact < mpmath.mpf("1.4e-83")
    assert _contains(iv, exact) and ends(iv)[1] > 0


@settings(max_examples=30, deadline=None, derandomize=True)
@given(tail=st.sampled_from(TAILS), eps=st.sampled_from((Fraction(1, 2), Fraction(1), Fraction(2))),
       k=st.integers(1, 4000), down=st.integers(0, 6), lattice=st.booleans())
def test_every_tail_contains_the_exact_delta(tail, eps, k, down, lattice):
    event = DiscreteLaplaceEvent(scale=1 / eps, sensitivity=1) if lattice else PureDPEvent(eps)
    acc = PldAccountant(tail=tail).compose(event, count=k)
    target = max(Fraction(0), k * eps - Fraction(1, 2) - down * 2 * eps)
    exact = _rr_delta(eps, k, target)
    assert _contains(acc.delta(target).interval, exact), (tail, eps, k, target)


@pytest.mark.parametrize("tail", TAILS)
def test_three_thousand_releases_at_every_tail(tail):
    acc = PldAccountant(tail=tail).compose(PureDPEvent(2), count=3000)
    exact = _rr_delta(Fraction(2), 3000, Fraction(5999))
    assert exact > 0 and _contains(acc.delta(5999).interval, exact)
