"""The float starting guesses of the certified searches keep their promises (see the *guess*
and *conservative* survivors of docs/tables/mutation.md).

* ``exact_support(mass)`` aims each side at mass/4 so that its first float guess certifies
  without widening: the range is the minimal one whose sides each hold at most mass/4;
  a sampler table is that range for mass 2^-72 (``TAIL_MASS``).
* ``tail_quantile`` starts from the float tails: they are accurate, so the certified search
  encloses only the exact quantile t and t − 1.
* ``certified_tail`` widens its window until the certified remainder is below 10^-(dps+2) of
  the tail's first term, for every t of the integer range, also where the float window guess
  has no room (t near 2^61); the window guess itself already has such a remainder.

Oracles: closed forms (Lap_Z, Pólya in rationals) and mpmath sums at 300 bits; exact tails
are compared with the targets only where they are at least 10^-6 (relative) away from them.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import pytest

from privtools.exact.tails import exact_tail
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Polya, Skellam
from privtools.noise._samplers.fixed import TableSampler

WP = 300  # bits of the mpmath oracles
MARGIN = Fraction(1, 10**6)  # exact tails this close to a target would be a float tie


def _mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _pmf(law, x: int) -> mpmath.mpf:
    """P(X = x) from the law's closed form, at the current mpmath precision."""
    if isinstance(law, DiscreteLaplace):
        a = 1 / _mp(law.scale)
        return mpmath.tanh(a / 2) * mpmath.exp(-a * abs(x))
    if isinstance(law, DiscreteGaussian):
        s2 = _mp(law.sigma2)  # Z = ϑ₃(0, e^{−1/(2σ²)}), by Jacobi's transformation for σ² >= 1
        if s2 < 1:
            z = mpmath.jtheta(3, 0, mpmath.exp(-1 / (2 * s2)))
        else:
            dual = mpmath.exp(-2 * mpmath.pi**2 * s2)
            z = mpmath.sqrt(2 * mpmath.pi * s2) * mpmath.jtheta(3, 0, dual)
        return mpmath.exp(-((x - law.mu) ** 2) / (2 * s2)) / z
    if isinstance(law, Skellam):
        v = _mp(law.variance)
        return mpmath.exp(-v) * mpmath.besseli(abs(x - law.mu), v)
    if isinstance(law, Polya):  # integer r, rational β: exact
        r, b = int(law.r), Fraction(law.beta)
        return _mp(math.comb(x + r - 1, x) * (1 - b) ** r * b**x) if x >= 0 else mpmath.mpf(0)
    raise TypeError(law)


class _Tails:
    """Exact P(X < k) and P(X > k) from the PMF summed over [c − R, c + R]; the PMF is below
    10^-45 at both ends (and log-concave), so the mass beyond is far below MARGIN·2^-74."""

    def __init__(self, law, radius: int):
        self.lo = law.center - radius
        with mpmath.workprec(WP):
            p = [_pmf(law, x) for x in range(self.lo, law.center + radius + 1)]
            assert max(p[0], p[-1]) <= mpmath.mpf(10) ** -45
            self.below = [mpmath.mpf(0)]  # below[i] = P(X < lo + i)
            for q in p:
                self.below.append(self.below[-1] + q)
            self.above = [mpmath.mpf(0)]  # built backwards: P(X > lo + i)
            for q in reversed(p[1:]):
                self.above.append(self.above[-1] + q)
            self.above.reverse()

    def lower(self, k: int) -> mpmath.mpf:  # P(X < k)
        return self.below[k - self.lo]

    def upper(self, k: int) -> mpmath.mpf:  # P(X > k)
        return self.above[k - self.lo]


def _side_quantiles(law, tails: _Tails, side) -> tuple[int, int]:
    """The largest lo <= c − 1 with P(X < lo) <= side and the smallest hi >= c + 1 with
    P(X > hi) <= side, each at least MARGIN away from ``side`` at lo, lo + 1, hi, hi − 1."""
    c = law.center
    with mpmath.workprec(WP):
        s, eps = _mp(side), _mp(MARGIN)
        hi = c + 1
        while tails.upper(hi) > s:
            hi += 1
        lo = c - 1
        while tails.lower(lo) > s:
            lo -= 1
        assert max(tails.upper(hi), tails.lower(lo)) <= s * (1 - eps)
        if hi - 1 >= c + 1:
            assert tails.upper(hi - 1) >= s * (1 + eps)
        if lo + 1 <= c - 1:
            assert tails.lower(lo + 1) >= s * (1 + eps)
    return lo, hi


SUPPORT_LAWS = [
    (DiscreteLaplace(10), 1100), (DiscreteLaplace("7/3"), 260),
    (DiscreteGaussian(sigma2=50), 120), (Skellam(30), 100),
    (Polya(50, "1/2"), 250), (Polya(2, "1/2"), 170),
]


@pytest.mark.parametrize(("law", "radius"), SUPPORT_LAWS, ids=[str(x[0]) for x in SUPPORT_LAWS])
@pytest.mark.parametrize("mass", ["1e-6", "0.05", "3e-15"])
def test_exact_support_is_the_minimal_range_of_mass_over_4_per_side(law, radius, mass):
    """The first guess certifies (documented: each side aimed at mass/4): the range is the
    largest lo and smallest hi whose sides hold at most mass/4, exactly; bound is a certified
    upper bound on the outside mass and at most mass."""
    lo, hi, bound = law.exact_support(mass)
    tails = _Tails(law, radius)
    assert (lo, hi) == _side_quantiles(law, tails, Fraction(mass) / 4)
    with mpmath.workprec(WP):
        assert tails.lower(lo) + tails.upper(hi) <= bound <= mpmath.mpf(mass)


TABLE_LAWS = [(DiscreteLaplace(10), 1100), (DiscreteGaussian(sigma2="201/2"), 160),
              (Skellam(30), 100)]


@pytest.mark.parametrize(("law", "radius"), TABLE_LAWS, ids=[str(x[0]) for x in TABLE_LAWS])
def test_a_table_leaves_at_most_2_to_minus_72_outside_its_range(law, radius):
    """The module doc's design constant: a table covers its law's certified support
    P(outside) <= 2^-72, i.e. exact_support(2^-72): each side holds at most 2^-74 and the
    range is the minimal such one (exact tails)."""
    table = TableSampler.build(law)
    tails = _Tails(law, radius)
    assert (table.lo, table.hi) == _side_quantiles(law, tails, Fraction(1, 2**74))
    with mpmath.workprec(WP):
        assert tails.lower(table.lo) + tails.upper(table.hi) <= mpmath.mpf(2) ** -72


# ----------------------------------------------------------------------- tail_quantile
def _exact_quantile(law, tails: _Tails, p: Fraction) -> int:
    """Smallest t >= 0 with P(|X − c| > t) <= p, at least MARGIN away from p."""
    c, pm = law.center, _mp(p)
    with mpmath.workprec(WP):
        def tail(t):
            return tails.upper(c + t) + tails.lower(c - t)

        t = 0
        while tail(t) > pm:
            t += 1
        assert tail(t) <= pm * (1 - _mp(MARGIN))
        assert t == 0 or tail(t - 1) >= pm * (1 + _mp(MARGIN))
    return t


QUANTILE_LAWS = [(Polya(50, "1/2"), 250), (Polya(2, "1/2"), 170), (DiscreteLaplace(10), 1100),
                 (DiscreteGaussian(sigma2=50), 120)]


@pytest.mark.parametrize(("law", "radius"), QUANTILE_LAWS,
                         ids=[str(x[0]) for x in QUANTILE_LAWS])
@pytest.mark.parametrize("p", ["1e-3", "1e-9", "0.3", "0.5"])
def test_tail_quantile_float_guess_is_the_exact_quantile(law, radius, p, monkeypatch):
    """The result is the exact quantile (brute force over exact tails), and the float
    starting guess already lands on it: only t and t − 1 are enclosed (asymmetric Pólya
    laws included, whose float guess adds the lower tail P(X < c − t))."""
    seen = []
    original = type(law).certified_tail

    def spy(self, t, *args, **kwargs):
        seen.append(t)
        return original(self, t, *args, **kwargs)

    monkeypatch.setattr(type(law), "certified_tail", spy)
    t = law.tail_quantile(Fraction(p))
    assert t == _exact_quantile(law, _Tails(law, radius), Fraction(p))
    assert set(seen) <= {t, t - 1}


# ------------------------------------------------------------------------ certified_tail
def _laplace_tail(b, c: int, t: int, two_sided: bool) -> mpmath.mpf:
    """P(X − c > t) (+ P(X − c < −t)) for Lap_Z(b): P(X > k) = e^{−(k+1)/b}/(1 + e^{−1/b})
    for k >= 0 (Fact 2 (000)) and P(X < −k) = P(X > k)."""
    a = 1 / _mp(b)

    def sf(k):
        assert k >= 0
        return mpmath.exp(-a * (k + 1)) / (1 + mpmath.exp(-a))

    return sf(c + t) + (sf(t - c) if two_sided else 0)


# (scale, centre, t, dps, two_sided). Near t = 2^61 the float window guess has no room (its
# grid stops at 2^61), so the certified loop widens the window; b = 1024 keeps the float log
# PMF there accurate to 1/8 (|k| <= 2^61 is rounded by at most 128 = b/8).
FAR = [
    (1, 0, 5, 26, True),
    (1024, 0, 2**61 - 60_000, 18, True),
    (1024, 4096, 2**61 - 64_096, 14, False),  # off-centre, one-sided: the lower side is heavier
    (1024, 4096, 2**61 - 64_096, 14, True),
]


@pytest.mark.parametrize(("b", "c", "t", "dps", "two_sided"), FAR)
def test_certified_tail_remainder_is_below_the_documented_fraction_of_the_first_term(
        b, c, t, dps, two_sided):
    """exact_tail(Lap_Z(b), t, center=c) contains the exact tail; its width is the certified
    remainder beyond the window — at most 10^-(dps+2) of the tail's first term
    max p(c ± (t + 1)) (docstring) — plus the rounding of the summed balls (here below
    10^-(dps+3) of the tail), also near the end of the integer range."""
    law = DiscreteLaplace(b)
    iv = exact_tail(law, t, two_sided=two_sided, dps=dps, center=c)
    with mpmath.workprec(WP):
        exact = _laplace_tail(b, c, t, two_sided)
        ends = [c + t + 1, c - t - 1] if two_sided else [c + t + 1]
        first = max(_pmf(law, k) for k in ends)
        lo, hi = mpmath.mpf(iv.a), mpmath.mpf(iv.b)
        assert lo <= exact <= hi
        ten = mpmath.mpf(10)
        assert hi - lo <= ten ** -(dps + 2) * first + ten ** -(dps + 3) * exact


WINDOW_CASES = [(DiscreteLaplace(Fraction(k, 4)), t) for k in range(4, 161, 3) for t in (0, 7)]
WINDOW_CASES += [(DiscreteGaussian(sigma2=50), 3), (Skellam(30), 0)]
# only one window of the guess grid fits below 2^61 (w0 = σ = 10^5); at dps = 30 the balls
# of e^{-t²/(2σ²)} (exponent ~2^88) are still narrow
FAR_WINDOW = [(DiscreteGaussian(sigma2=10**10), 2**61 - 150_000, 30)]


def _check_window(law, t, dps):
    c = law.center
    w = law._tail_window(t, c, dps)
    rem = law.tail_bound(c - t - w, c + t + w, dps=dps)
    with mpmath.workprec(WP):
        assert rem <= mpmath.mpf(10) ** -(dps + 2) * _pmf(law, c + t + 1), (str(law), t, w)


@pytest.mark.parametrize("dps", [10, 30])
def test_tail_window_guess_already_has_a_negligible_remainder(dps):
    """The float window guess of certified_tail is a window whose certified remainder is
    below 10^-(dps+2) of the tail's first term (so the widening loop is not needed): Lap_Z
    scales 1 to 40 (remainder ≈ 2b·e^{−w/b} p(t + 1)) and other laws."""
    for law, t in WINDOW_CASES:
        _check_window(law, t, dps)


@pytest.mark.parametrize(("law", "t", "dps"), FAR_WINDOW)
def test_tail_window_guess_where_one_window_fits_below_2_to_61(law, t, dps):
    """The same promise in a far tail where the guess grid has a single window."""
    _check_window(law, t, dps)


# ------------------------------------------------ the lower quantile of a symmetric law
_SYMMETRIC = [DiscreteLaplace(scale=s) for s in (1, 7, 320)] \
    + [DiscreteGaussian(sigma2=v, mu=m) for v in (2, 100) for m in (0, -17)] \
    + [Skellam(var=v, mu=m) for v in (10, 10**5) for m in (0, 3)] \
    + [DiscreteLaplace(scale=b).shares(k) for b in (10, 1000) for k in (2, 1024)]


@pytest.mark.parametrize("law", _SYMMETRIC, ids=repr)
@pytest.mark.parametrize("mass", [2.0**-72, 1e-10, 1e-3])
def test_a_symmetric_laws_lower_float_quantile_is_the_mirror_of_its_upper_one(law, mass):
    """exact_support takes lo = 2c − hi for a symmetric law instead of a second search: the
    two searches agree exactly, and the support found is symmetric about the centre."""
    side = float(mpmath.log(mpmath.mpf(mass) / 4))
    hi = law._float_upper_quantile(side)
    assert law._float_lower_quantile(side) == 2 * law.center - hi
    lo, hi2, bound = law.exact_support(mpmath.mpf(mass))
    assert lo + hi2 == 2 * law.center and bound <= mass
