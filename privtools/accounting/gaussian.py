"""The Gaussian mechanism's privacy curve in closed form, certified.

A shift of μ standard deviations of a Gaussian has (Balle and Wang, ICML 2018, Theorem 8)

    δ(ε) = Φ(μ/2 − ε/μ) − e^ε Φ(−μ/2 − ε/μ),

decreasing in ε, and a composition of Gaussian releases is one Gaussian shift with μ² the
sum of theirs (Dong, Roth and Su 2022, Corollary 3.3). Both functions below work in Arb
balls; ε(δ) is bisected keeping only ends whose side of δ is certain, so the interval
returned contains the exact value.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified.intervals import fraction_bounds, from_ball, interval
from privtools.errors import ParameterError

__all__ = ["gaussian_curve", "gaussian_delta", "gaussian_epsilon", "gdp_tradeoff"]

_PREC = 256


def gaussian_curve(mu2):
    """δ(·) of a Gaussian shift with μ² = ``mu2`` (a Fraction, or an Arb ball): a function
    from an exact ε (Fraction, any sign) to an Arb ball, at the working precision."""
    return _curve(mu2)


def _curve(mu2):
    mu = (mu2 if isinstance(mu2, arb) else _arb.to_arb(Fraction(mu2))).sqrt()
    root2 = arb(2).sqrt()

    def d_of(e: Fraction) -> arb:
        ea = _arb.to_arb(e)
        a = (mu / 2 - ea / mu) / root2
        b = (-mu / 2 - ea / mu) / root2
        return (-a).erfc() / 2 - ea.exp() * (-b).erfc() / 2
    return d_of


def gaussian_delta(mu2, epsilon, prec: int = _PREC) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified ends of δ(ε) of a Gaussian shift with μ² = ``mu2`` (Δ²/σ², summed over
    compositions)."""
    mu2, eps = Fraction(mu2), Fraction(epsilon)
    if mu2 <= 0:
        raise ParameterError(f"mu2 must be > 0, got {mu2}")
    with _arb.precision(prec):
        d = _curve(mu2)(eps)
        return max(mpmath.mpf(0), _arb.lower_mpf(d)), min(mpmath.mpf(1), _arb.upper_mpf(d))


def gaussian_epsilon(mu2, delta, prec: int = _PREC) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified ends of ε(δ) = inf{ε >= 0 : δ(ε) <= δ} of a Gaussian shift with
    μ² = ``mu2`` (``(0, inf)`` when no ε below 10⁶ reaches δ)."""
    mu2, dq = Fraction(mu2), Fraction(delta)
    if mu2 <= 0:
        raise ParameterError(f"mu2 must be > 0, got {mu2}")
    with _arb.precision(prec):
        d_of = _curve(mu2)
        target = _arb.to_arb(dq)
        if d_of(Fraction(0)) < target:               # certainly below δ at ε = 0
            return mpmath.mpf(0), mpmath.mpf(0)
        lo, hi = Fraction(0), Fraction(1)
        while not d_of(hi) < target:
            lo, hi = hi, hi * 2
            if hi > 10**6:
                return mpmath.mpf(0), mpmath.inf
        for _ in range(200):
            mid = (lo + hi) / 2
            v = d_of(mid)
            if v < target:
                hi = mid
            elif v > target:
                lo = mid
            else:
                break
            if hi - lo < Fraction(1, 2**70):
                break
    return fraction_bounds(lo, 128)[0], fraction_bounds(hi, 128)[1]


def gdp_tradeoff(mu, alpha, prec: int = _PREC):
    """Certified interval of G_μ(α) = Φ(Φ⁻¹(1 − α) − μ), the trade-off function of μ-GDP
    (Dong, Roth and Su 2022, Definition 2.6), for μ >= 0 and α in [0, 1]."""
    mu, alpha = Fraction(mu), Fraction(alpha)
    if mu < 0:
        raise ParameterError(f"mu must be >= 0, got {mu}")
    if not 0 <= alpha <= 1:
        raise ParameterError(f"alpha must be in [0, 1], got {alpha}")
    if alpha in (0, 1):
        x = mpmath.mpf(int(1 - alpha))
        return interval(x, x)
    with _arb.precision(prec):
        # Φ⁻¹(1 − α) = √2·erfcinv(2α), Φ(x) = erfc(−x/√2)/2
        g = (_arb.to_arb(mu) / arb(2).sqrt() - (2 * _arb.to_arb(alpha)).erfcinv()).erfc() / 2
        return from_ball(g, clip=(0, 1))
