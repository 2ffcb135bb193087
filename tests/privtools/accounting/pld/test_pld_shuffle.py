"""Amplification by shuffling: the certified interval contains the clones pair's δ(ε)
enumerated exactly (mpmath, 80 digits), and that pair bounds the true shuffled binary
randomized response, computed exactly on its count of ones."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools import accounting as A
from privtools.certified.intervals import ends

SLACK = mpmath.mpf(10) ** -60


@pytest.fixture(autouse=True)
def _eighty_digits():
    with mpmath.workdps(80):
        yield


def _m(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _hockey(P: dict, Q: dict, eps) -> mpmath.mpf:
    e = mpmath.e ** _m(eps)
    return sum((max(p - e * Q.get(k, 0), 0) for k, p in P.items()), mpmath.mpf(0))


def _clones(eps0, n):
    """P₀, P₁ of Feldman–McMillan–Talwar on (c, a), enumerated."""
    e = mpmath.e ** _m(eps0)
    p, r = 1 / e, e / (1 + e)
    P0, P1 = {}, {}
    for c in range(n):
        bc = mpmath.binomial(n - 1, c) * p ** c * (1 - p) ** (n - 1 - c)
        for a in range(c + 2):
            prev = mpmath.binomial(c, a - 1) / 2 ** c if a >= 1 else 0
            cur = mpmath.binomial(c, a) / 2 ** c if a <= c else 0
            P0[(c, a)] = bc * (r * prev + (1 - r) * cur)
            P1[(c, a)] = bc * ((1 - r) * prev + r * cur)
    return P0, P1


def _shuffled_rr(eps0, n):
    """The count of ones among n binary RR reports: user 1 holds 0 (P) or 1 (Q), the
    others 0."""
    e = mpmath.e ** _m(eps0)
    keep = e / (1 + e)
    flip = 1 - keep
    others = {k: mpmath.binomial(n - 1, k) * flip ** k * keep ** (n - 1 - k) for k in range(n)}
    P = {k + b: 0 for k in range(n) for b in (0, 1)}
    Q = dict(P)
    for k, w in others.items():
        P[k] += w * keep
        P[k + 1] += w * flip
        Q[k] += w * flip
        Q[k + 1] += w * keep
    return P, Q


@settings(max_examples=12, deadline=None)
@given(eps0=st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(2), Fraction(4)]),
       n=st.integers(1, 12), eps=st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1)]))
def test_the_interval_contains_the_clones_pair_and_bounds_shuffled_rr(eps0, n, eps):
    P0, P1 = _clones(eps0, n)
    exact = max(_hockey(P0, P1, eps), _hockey(P1, P0, eps))
    lo, hi = ends(A.PldAccountant(max_points=2**12).compose(
        A.ShuffledEvent(A.PureDPEvent(eps0), n)).delta(eps).interval)
    assert lo * (1 - SLACK) <= exact <= hi * (1 + SLACK) + SLACK
    P, Q = _shuffled_rr(eps0, n)
    assert max(_hockey(P, Q, eps), _hockey(Q, P, eps)) <= exact * (1 + SLACK) + SLACK


def test_shuffling_amplifies_and_one_user_is_randomized_response():
    one = A.PldAccountant().compose(A.ShuffledEvent(A.PureDPEvent(1), 1)).delta(Fraction(1, 2))
    rr = A.PldAccountant().compose(A.PureDPEvent(1)).delta(Fraction(1, 2))
    assert abs(ends(one.interval)[1] - ends(rr.interval)[1]) < 1e-6
    many = A.PldAccountant().compose(A.ShuffledEvent(A.PureDPEvent(1), 1000)).epsilon(1e-6)
    assert many.epsilon < 0.2
