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


def gaussian_hockey(eps, m1, s1, m2, s2) -> mpmath.mpf:
    """δ_{P‖Q}(ε) for P = N(m1, s1²), Q = N(m2, s2²): the loss's crossings of ε found by
    scanning a grid and bisecting (no quadratic formula), then (p − e^ε q) integrated by
    quadrature between consecutive crossings where it is positive."""
    m1, s1, m2, s2, eps = (mp(Fraction(v)) if not isinstance(v, mpmath.mpf) else v
                           for v in (m1, s1, m2, s2, eps))

    def loss(x):
        return (-(x - m1) ** 2 / (2 * s1 * s1) + (x - m2) ** 2 / (2 * s2 * s2)
                + mpmath.log(s2 / s1) - eps)

    width = 60 * max(s1, s2) + abs(m1) + abs(m2)
    grid = [-width + 2 * width * i / 4000 for i in range(4001)]
    crossings = [mpmath.findroot(loss, (a, b), solver="bisect")
                 for a, b in zip(grid, grid[1:]) if (loss(a) > 0) != (loss(b) > 0)]
    ends = [-mpmath.inf] + crossings + [mpmath.inf]
    total = mpmath.mpf(0)
    for a, b in zip(ends, ends[1:]):
        inside = (a + b) / 2 if mpmath.isfinite(a) and mpmath.isfinite(b) else (
            b - 1 if mpmath.isfinite(b) else a + 1 if mpmath.isfinite(a) else m1)
        if loss(inside) > 0:
            total += mpmath.quad(lambda x: mpmath.npdf(x, m1, s1)
                                 - mpmath.exp(eps) * mpmath.npdf(x, m2, s2), [a, b])
    return total


def gaussian_pair_epsilon(m1, s1, m2, s2, delta, tol=Fraction(1, 10**9)) -> mpmath.mpf:
    """ε(δ) between N(m1, s1²) and N(m2, s2²), both directions, by bisection on
    :func:`gaussian_hockey`."""
    d = mp(Fraction(delta))

    def over(e):
        return max(gaussian_hockey(e, m1, s1, m2, s2), gaussian_hockey(e, m2, s2, m1, s1)) > d
    if not over(mpmath.mpf(0)):
        return mpmath.mpf(0)
    lo, hi = mpmath.mpf(0), mpmath.mpf(1)
    while over(hi):
        lo, hi = hi, 2 * hi
    while hi - lo > mp(tol):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if over(mid) else (lo, mid)
    return (lo + hi) / 2


def rr_delta(eps: Fraction, k: int, target, dps: int = 150) -> mpmath.mpf:
    """Exact δ(target) of k-fold ε-randomized response: loss (k − 2i)ε with binomial masses
    (``target`` a Fraction or an mpf; ``dps`` digits resolve values down to 10^-dps)."""
    with mpmath.workdps(dps):
        e = mp(eps)
        t = target if isinstance(target, mpmath.mpf) else mp(target)
        p = mpmath.e ** e / (1 + mpmath.e ** e)
        total = mpmath.mpf(0)
        for i in range(k + 1):
            loss = (k - 2 * i) * e
            if loss <= t:
                break
            total += mpmath.binomial(k, i) * p ** (k - i) * (1 - p) ** i \
                * (1 - mpmath.e ** (t - loss))
        return total


def two_point_delta(p, q, k: int, eps) -> mpmath.mpf:
    """Exact δ(ε) of the k-fold product of a pair (p, q) on two points, by enumeration of
    the binomial counts (masses as mpfs; ``eps`` a Fraction or an mpf)."""
    e = mpmath.e ** (eps if isinstance(eps, mpmath.mpf) else mp(eps))
    total = mpmath.mpf(0)
    for j in range(k + 1):
        c = mpmath.binomial(k, j)
        pj = c * p[0] ** j * p[1] ** (k - j)
        qj = c * q[0] ** j * q[1] ** (k - j)
        total += max(pj - e * qj, 0)
    return total


def sampled_rr_pair(eps0, rate):
    """The pair (γP + (1 − γ)Q, Q) of randomized response at ε₀ sampled at rate γ, as two
    two-point laws of mpfs."""
    e = mpmath.e ** mp(eps0)
    p = (e / (1 + e), 1 / (1 + e))
    q = (p[1], p[0])
    g = mp(rate)
    mix = (g * p[0] + (1 - g) * q[0], g * p[1] + (1 - g) * q[1])
    return mix, q
