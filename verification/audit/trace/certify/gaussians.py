"""The certified ε(δ) of two Gaussians of different scales: a data-dependent σ at δ > 0.

A release ``c + a·Z``, ``Z ~ N(0, σ²)``, whose scale ``|a|·σ`` differs between ``d`` and
``d'`` has unbounded privacy loss (pure ε = ∞) but a finite ε(δ) for δ > 0. For
``P = N(μ₁, s₁²)`` and ``Q = N(μ₂, s₂²)`` the loss ``log p/q`` is the quadratic
``A x² + B x + C`` with

    A = 1/(2s₂²) − 1/(2s₁²),  B = μ₁/s₁² − μ₂/s₂²,  C = μ₂²/(2s₂²) − μ₁²/(2s₁²) + log(s₂/s₁),

so the hockey-stick divergence δ_{P‖Q}(ε) = P(L > ε) − e^ε Q(L > ε) is a sum of normal CDF
differences at the roots of ``A x² + B x + C − ε`` (two tails when s₁ > s₂, the middle when
s₁ < s₂). Every quantity is an ``arb`` ball (python-flint's ``erfc`` and ``log`` are
rigorous), so the sign of δ(ε) − δ is decided or left open; δ(ε) decreases in ε, and a
bisection on decided points brackets ε(δ) = max over both directions.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _balls

__all__ = ["gaussian_pair_epsilon"]

_BITS = 160
_STEPS = 64
_CAP = 2.0**12


def _q(x: Fraction) -> arb:
    return arb(x.numerator) / arb(x.denominator)


def _cdf(x: arb, mu: arb, s: arb) -> arb:
    """P(N(mu, s²) < x)."""
    return (-(x - mu) / (s * arb(2).sqrt())).erfc() / 2


def _delta(eps: arb, m1, s1, m2, s2) -> arb | None:
    """δ_{P‖Q}(ε) as a ball, or None where the roots' existence is not decided."""
    A = 1 / (2 * s2 * s2) - 1 / (2 * s1 * s1)
    B = m1 / (s1 * s1) - m2 / (s2 * s2)
    C = m2 * m2 / (2 * s2 * s2) - m1 * m1 / (2 * s1 * s1) + (s2 / s1).log() - eps
    D = B * B - 4 * A * C
    e = eps.exp()
    if D < 0:                       # the loss never crosses ε: all or nothing
        return (1 - e) if A > 0 else arb(0)
    if not D > 0:
        return None
    if not (A > 0 or A < 0):
        return None                   # equal scales: the shift PLD's case, not this one
    r = D.sqrt()
    x1, x2 = (-B - r) / (2 * A), (-B + r) / (2 * A)
    # the roots' order is the sign of A: x1 < x2 when A > 0, x1 > x2 when A < 0
    lo, hi = (x1, x2) if A > 0 else (x2, x1)
    if A > 0:                         # the loss exceeds ε on both tails
        p = _cdf(lo, m1, s1) + 1 - _cdf(hi, m1, s1)
        q = _cdf(lo, m2, s2) + 1 - _cdf(hi, m2, s2)
    else:                             # … between the roots
        p = _cdf(hi, m1, s1) - _cdf(lo, m1, s1)
        q = _cdf(hi, m2, s2) - _cdf(lo, m2, s2)
    return p - e * q


def _below(eps: float, m1, s1, m2, s2, delta: arb):
    """True: δ(ε) ≤ δ certified; False: δ(ε) > δ certified; None: open."""
    d = _delta(arb(eps), m1, s1, m2, s2)
    if d is None:
        return None
    if d <= delta:
        return True
    if d > delta:
        return False
    return None


def _one_way(m1, s1, m2, s2, delta: arb):
    """Ends (mpf) of ε_{P‖Q}(δ): the least ε ≥ 0 with δ_{P‖Q}(ε) ≤ δ."""
    def below(eps: float):
        return _below(eps, m1, s1, m2, s2, delta)
    if below(0.0) is True:
        return mpmath.mpf(0), mpmath.mpf(0)
    lo, hi = 0.0, 1.0
    while below(hi) is not True:
        lo, hi = hi, 2 * hi
        if hi > _CAP:
            return mpmath.mpf(lo), mpmath.inf
    for _ in range(_STEPS):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        b = below(mid)
        if b is True:
            hi = mid
        elif b is False:
            lo = mid
        else:
            break                      # undecided near the crossing: keep the bracket
    return mpmath.mpf(lo), mpmath.mpf(hi)


def gaussian_pair_epsilon(mu1: Fraction, s1: Fraction, mu2: Fraction, s2: Fraction,
                          delta: Fraction) -> tuple:
    """Certified ends ``(lo, hi)`` of ε(δ) between ``N(mu1, s1²)`` and ``N(mu2, s2²)``,
    the larger of both directions (``s1``, ``s2`` > 0; exact rationals)."""
    with _balls.precision(_BITS):
        a = [_q(Fraction(v)) for v in (mu1, s1, mu2, s2)]
        dl = _q(Fraction(delta))
        one = _one_way(a[0], a[1], a[2], a[3], dl)
        two = _one_way(a[2], a[3], a[0], a[1], dl)
    return max(one[0], two[0]), max(one[1], two[1])
