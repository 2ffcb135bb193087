"""Independent exact oracles in plain mpmath (no Arb, no code shared with privtools)."""

from fractions import Fraction

import mpmath


def mp(x: Fraction) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def dlaplace(k: int, scale: Fraction) -> mpmath.mpf:
    a = 1 / mp(scale)
    return (mpmath.exp(a) - 1) / (mpmath.exp(a) + 1) * mpmath.exp(-a * abs(k))


def skellam_series(k: int, var: Fraction, mu: int = 0) -> mpmath.mpf:
    """e^{-x} Σ_m (x/2)^{2m+ν}/(m! (m+ν)!), ν = |k − μ| (the Bessel I power series)."""
    x = mp(var)
    nu = abs(k - mu)
    half = x / 2
    term = half**nu / mpmath.factorial(nu)
    total = mpmath.mpf(0)
    m = 0
    while True:
        total += term
        m += 1
        term = term * half * half / (m * (m + nu))
        if term < total * mpmath.mpf(2) ** (-mpmath.mp.prec - 10) and m > x:
            break
    return mpmath.exp(-x) * total


def dgauss(k: int, sigma2: Fraction, mu: int = 0) -> mpmath.mpf:
    s2 = mp(sigma2)
    q = mpmath.exp(-1 / (2 * s2))
    z = mpmath.jtheta(3, 0, q)  # Σ_x q^{x²}
    return mpmath.exp(-mpmath.mpf((k - mu) ** 2) / (2 * s2)) / z


def polya(k: int, r: Fraction, beta) -> mpmath.mpf:
    if k < 0:
        return mpmath.mpf(0)
    r = mp(r)
    return mpmath.rf(r, k) / mpmath.factorial(k) * beta**k * (1 - beta) ** r


def polya_difference_hyp(k: int, r: Fraction, beta) -> mpmath.mpf:
    k = abs(k)
    r = mp(r)
    return ((1 - beta) ** (2 * r) * beta**k * mpmath.rf(r, k) / mpmath.factorial(k)
            * mpmath.hyp2f1(r, k + r, k + 1, beta**2))
