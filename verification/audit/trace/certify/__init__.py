"""The certified loss of a traced pair: each release's shift PLD, composed.

A release is a group of draws of one law that moves the output by ``s`` (in the draws'
units) between ``d`` and ``d'`` (:mod:`.model`). Its privacy loss is that of the law
against the law shifted by ``s`` — exactly:

* ``laplace(scale=b)``: :class:`~privtools.accounting.LaplaceEvent` (pure ε = |s|/b);
* ``normal(scale=σ)``, ``standard_normal``: :class:`~privtools.accounting.GaussianEvent`
  (a sum of k i.i.d. draws shifted by s is k draws shifted by s/k each: the same Gaussian
  loss);
* privtools laws: the discrete Laplace (pure ε = |s|/b; a sum of shares of it —
  ``PolyaDifference`` with k·r = 1 — is one), Skellam (sums add variances), discrete
  Gaussian sums, and any other integer law through its certified PMF
  (:class:`~privtools.accounting.PmfPairEvent`); integer laws need an integer shift (a
  fractional one moves the support: infinite loss), and under a modulus m their views are
  wrapped (:class:`~privtools.accounting.ModularEvent`).

δ > 0: the composed ε(δ) interval of :class:`~privtools.accounting.PldAccountant`. δ = 0:
the pure ε, a sum of the releases' exact worst-case losses (the Laplace laws' |s|/b, +∞ for
laws with unbounded loss ratio, the certified maximum log-ratio of wrapped views).

A sum of k Laplace draws is not a Laplace: it is accounted as k draws shifted by s/k each,
which bounds it above (post-processing) but not below; such a release is ``exact=False``
and the interval's lower end omits it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from privtools.accounting import (
    DiscreteLaplaceEvent,
    GaussianEvent,
    LaplaceEvent,
    ModularEvent,
    PldAccountant,
    PmfPairEvent,
    gaussian_epsilon,
)
from privtools.accounting.maps import named_event, summed_law
from privtools.certified import Interval, ends, fraction_bounds, interval
from privtools.certified import balls as _balls
from privtools.exact import ExactPMF, shift, sum_pmf, wrap
from privtools.exact.divergence import llr
from privtools.noise import NoiseSum

__all__ = ["Release", "release_of", "release_of_pmf", "compose", "alone",
           "gaussian_epsilon", "qtext", "integer_pmf"]

_PMF_DPS = 30


@dataclass(frozen=True)
class Release:
    """One certified release: ``where`` it is, its ``law`` (text), its ``shift`` between the
    datasets (draw units), the accountant ``events``, its pure-DP loss ``pure`` as exact
    ends ``(lo, hi)`` (mpf, ``+inf`` allowed), whether the loss is ``exact`` (or an upper
    bound only) and whether its law is ``continuous`` (real-arithmetic model)."""

    where: str
    law: str
    shift: Fraction
    events: tuple
    pure: tuple
    exact: bool
    continuous: bool
    scale: Fraction | None = None
    source: object = None          # the privtools law of the draws, or the numpy method
    count: int = 1                 # how many i.i.d. draws the release sums
    eps_delta: tuple | None = None  # certified ε(δ) ends where the laws are not a shift

    def describe(self) -> str:
        kind = "" if self.exact else " (an upper bound)"
        return f"{self.where}: {self.law} shifted by {qtext(self.shift)}{kind}"


def qtext(q: Fraction) -> str:
    """A rational as text: exact when its denominator is small, else 10 digits."""
    return str(q) if q.denominator <= 10**6 else f"{float(q):.10g}"


def _inf():
    return mpmath.inf


def _pure_point(q: Fraction) -> tuple:
    """Ends enclosing ``q`` (rounded outward to mpf)."""
    return fraction_bounds(q, 113)


def release_of(where: str, method: str, scale, law, k: int, s: Fraction,
               modulus: int | None) -> Release | None:
    """The certified release of ``k`` i.i.d. draws shifted by ``s`` in total (None when the
    accountant knows no privacy-loss distribution for the law)."""
    r = _release(where, method, scale, law, k, s, modulus)
    if r is None:
        return None
    from dataclasses import replace
    return replace(r, source=law if law is not None else method, count=k)


def _release(where, method, scale, law, k, s, modulus):
    a = abs(s)
    if method == "laplace":
        b = scale
        evs = (LaplaceEvent(b=b, sensitivity=a / k),) * k
        pure = _pure_point(a / b)
        return Release(where, f"Laplace(0, {qtext(b)})" + (f" ×{k} summed" if k > 1 else ""),
                       s, evs, pure, k == 1, True, b)
    if method in ("normal", "standard_normal"):
        sigma = scale
        evs = (GaussianEvent(sigma=sigma, sensitivity=a / k),) * k
        text = f"N(0, {qtext(sigma)}²)" + (f" ×{k} summed" if k > 1 else "")
        return Release(where, text, s, evs, (_inf(), _inf()), True, True, sigma)
    if law is None:
        return None
    text = repr(law) + (f" ×{k} summed" if k > 1 else "")
    if s.denominator != 1:
        return Release(where, text, s, (), (_inf(), _inf()), True, False)
    n = int(a)
    inner, dl_scale = _integer_event(law, k, n)
    if inner is not None:
        ev = inner if modulus is None else ModularEvent(inner, modulus)
        if modulus is None:
            pure = _pure_point(Fraction(n) / dl_scale) if dl_scale is not None else \
                (_inf(), _inf())
        else:
            pure = _wrapped_pure(law, k, n, modulus)
            if dl_scale is not None:        # a post-processing of the unwrapped Lap_Z
                pure = (pure[0], min(pure[1], _pure_point(Fraction(n) / dl_scale)[1]))
        return Release(where, text, s, (ev,), pure, True, False, dl_scale)
    P = integer_pmf(law, k)
    if P is None:
        return None
    Q = shift(P, n)
    if modulus is not None:
        P, Q = wrap(P, modulus), wrap(Q, modulus)
        pure = _wrapped_pure_pq(P, Q)
    else:
        pure = _pure_pq(P, Q)
    return Release(where, text, s, (PmfPairEvent(P, Q),), pure, True, False)


def release_of_pmf(where: str, text: str, P: ExactPMF, s: Fraction,
                   modulus: int | None, ratio: Fraction | None = None,
                   floating: bool = False) -> Release:
    """The certified release of an integer law given by its PMF ``P`` (a row's signed sum
    of draws, :mod:`.discrete`) shifted by ``s``. ``ratio``: the law is the two-sided
    geometric P(k) ∝ ratio^|k| (Ghosh, Roughgarden and Sundararajan 2009), whose pure loss
    for a shift n is exactly |n|·ln(1/ratio)."""
    if s.denominator != 1:
        return Release(where, text, s, (), (_inf(), _inf()), True, floating, source=text)
    Q = shift(P, int(s))
    if modulus is not None:
        P, Q = wrap(P, modulus), wrap(Q, modulus)
        pure = _wrapped_pure_pq(P, Q)
    elif ratio is not None:
        lo, hi = fraction_bounds(ratio, 113)
        ln = -mpmath.iv.log(mpmath.iv.mpf([lo, hi])) * abs(int(s))
        pure = (mpmath.mpf(ln.a), mpmath.mpf(ln.b))
    else:
        pure = _pure_pq(P, Q)
    return Release(where, text, s, (PmfPairEvent(P, Q),), pure, True, floating, source=text)


def _integer_event(law, k: int, n: int):
    """(accountant event of k summed draws of ``law`` shifted by n, its discrete-Laplace
    scale or None), or (None, None) when only the PMF route applies. Both read the law's
    privacy map (:mod:`privtools.accounting.maps`): the law of the k-fold sum, then its named
    event (``exact=True``: a discrete Gaussian of σ² < 1/4 is read by its certified D_α)."""
    total = summed_law(law, k)
    event = None if total is None else named_event(total, n, exact=True)
    if event is None:
        return None, None
    return event, (event.scale if isinstance(event, DiscreteLaplaceEvent) else None)


def integer_pmf(law, k: int, digits: int = _PMF_DPS) -> ExactPMF | None:
    """Certified PMF of k summed draws, tail mass below 10^-digits (None if not built)."""
    tail = Fraction(1, 10**digits)
    dps = digits + 10
    try:
        total = summed_law(law, k)
        if isinstance(total, NoiseSum):
            return sum_pmf(total.share, total.n, dps=dps, tail=tail)
        if total is not None:
            return ExactPMF.from_distribution(total, dps=dps, tail=tail)
        return sum_pmf(law, k, dps=dps, tail=tail)
    except Exception:
        return None


def _wrapped_pure(law, k: int, n: int, m: int) -> tuple:
    """Certified ends of the pure ε of the wrapped views: the PMF tabulated on a range that
    covers Z_m where the tail allows (mass left untabulated leaves the upper end open)."""
    best = (mpmath.mpf(0), _inf())
    for digits in (30, 100, 300):
        P = integer_pmf(law, k, digits)
        if P is None:
            return best
        best = _wrapped_pure_pq(wrap(P, m), wrap(shift(P, n), m))
        if len(P.balls) >= m or mpmath.isfinite(best[1]):
            return best
    return best


def _wrapped_pure_pq(P, Q) -> tuple:
    return ends(llr(P, Q))


def _pure_pq(P: ExactPMF, Q: ExactPMF) -> tuple:
    """Certified ends of ``sup_k |log P(k)/Q(k)|`` for PMFs on Z. Complete tables (nothing
    unaccounted: a finite support) are exact (:func:`llr`). Otherwise a point outside a
    window is not a point outside the support: the lower end is the largest certified
    ratio where both balls are positive, and the upper end is open (+∞)."""
    if P.unaccounted == 0 and Q.unaccounted == 0:
        return ends(llr(P, Q))
    best = mpmath.mpf(0)
    up, uq = _balls.from_mpf(P.unaccounted), _balls.from_mpf(Q.unaccounted)
    for k in range(max(P.lo, Q.lo), min(P.hi, Q.hi) + 1):
        # a window's ball may miss mass beyond the window (a truncated convolution): the
        # true P(k) lies in [lower(a), upper(a) + unaccounted]
        a, b = P.ball(k), Q.ball(k)
        a_lo, b_lo = _balls.lower_end(a), _balls.lower_end(b)
        a_hi, b_hi = _balls.upper_end(a) + up, _balls.upper_end(b) + uq
        for num, den in ((a_lo, b_hi), (b_lo, a_hi)):
            if num > 0 and den > 0:
                best = max(best, _balls.lower_mpf((num / den).log()))
    return (best, _inf())


# ------------------------------------------------------------------ composition
def _total(ends_list, side: int):
    """An end of the sum of intervals, in mpmath's outward-rounded interval arithmetic."""
    acc = mpmath.mpi(0, 0)
    for e in ends_list:
        acc = acc + mpmath.mpi(e[side], e[side])
    lo, hi = ends(acc)
    return hi if side else lo


def compose(releases: list[Release], delta: Fraction, *, bound_only: bool = False
            ) -> Interval:
    """The certified ε(δ) interval of the releases together (δ = 0: pure ε). Releases that
    are upper bounds only — and every release when ``bound_only`` (a shift that is not
    unique) — leave the lower end."""
    exact = [r for r in releases if r.exact and not bound_only]
    fixed = [r for r in releases if r.eps_delta is not None]
    if fixed and delta > 0:       # two laws of different scales: alone, or bounded by ∞
        return interval(*fixed[0].eps_delta) if len(releases) == 1 else \
            interval(mpmath.mpf(0), _inf())
    if delta == 0:
        return interval(_total([r.pure for r in exact], 0),
                        _total([r.pure for r in releases], 1))
    hi = _pld(releases, delta)
    if not releases:
        return interval(mpmath.mpf(0), mpmath.mpf(0))
    lo = hi[0] if len(exact) == len(releases) else (_pld(exact, delta)[0] if exact else
                                                     mpmath.mpf(0))
    return interval(lo, hi[1])


def _pld(releases: list[Release], delta: Fraction) -> tuple:
    events = [e for r in releases for e in r.events]
    if events and all(isinstance(e, GaussianEvent) for e in events):
        return gaussian_epsilon(sum((e.sensitivity / e.sigma) ** 2 for e in events), delta)
    if any(not r.events for r in releases):       # a support shift: infinite loss
        return (_inf(), _inf())
    if not events:
        return (mpmath.mpf(0), mpmath.mpf(0))
    acc = PldAccountant()
    for e in events:
        acc = acc.compose(e)
    lo, hi = ends(acc.epsilon(float(delta)).interval)
    return (max(lo, mpmath.mpf(0)), hi)


def alone(r: Release, delta: Fraction) -> Interval:
    """The certified ε(δ) of one release by itself."""
    return compose([r], delta)
