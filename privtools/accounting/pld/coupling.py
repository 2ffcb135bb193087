"""A total-variation coupling term on top of a certified privacy profile.

If a mechanism M′ coincides with M except on an event of probability at most η under every
dataset (one coupling of the two runs), then for every set S of outputs and neighbours
D, D′

    P′(S) <= P(S) + η <= e^ε Q(S) + δ(ε) + η <= e^ε (Q′(S) + η) + δ(ε) + η,

so δ′(ε) <= δ(ε) + (1 + e^ε)·η, and likewise δ′(ε) >= δ(ε) − (1 + e^ε)·η. For the
trade-off curve a test's two errors each move by at most η:
β(α + η) − η <= β′(α) <= β(α − η) + η. Over k adaptive steps the runs differ only if some
step's event happens (a union bound: kη).

Truncated Poisson sampling (:class:`~privtools.accounting.TruncatedPoissonSampledEvent`):
the capped run and the uncapped Poisson run coincide unless a batch holds more than
``max_batch`` records, which has probability P(Bin(N, q) > max_batch) for a dataset of N
records, at most that at N = ``population``. The Poisson part is read from the certified
profile; this module adds the term and turns the answers around (ε(δ) by a fixed point, since
the term grows with ε).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from privtools.certified import balls as _arb
from privtools.certified import intervals as _intervals

from ..sampled_events import TruncatedPoissonSampledEvent

__all__ = ["truncation_mass", "coupled_delta", "coupled_epsilon", "coupled_tradeoff"]

_PREC = 192
_ROUNDS = 64          # fixed-point rounds of ε(δ) before giving up (never certified then)


def truncation_mass(event: TruncatedPoissonSampledEvent) -> Fraction:
    """Certified upper bound (an exact rational) on the probability that one step's Poisson
    batch exceeds ``max_batch``: P(Bin(population, q) >= max_batch + 1)."""
    with _arb.precision(_PREC):
        tail = _arb.binomial_tail(event.population, _arb.to_arb(event.q), event.max_batch + 1)
        up = _arb.upper_mpf(tail)
    return min(Fraction(1), _intervals.exact_rational(up))


def _spread(eps, eta: Fraction) -> mpmath.mpf:
    """Upper end of (1 + e^ε)·η."""
    with mpmath.workprec(_PREC):
        e = mpmath.mpf(eps) if not isinstance(eps, Fraction) else \
            mpmath.mpf(eps.numerator) / eps.denominator
        x = (1 + mpmath.exp(e)) * mpmath.mpf(eta.numerator) / eta.denominator
        return x * (1 + mpmath.mpf(2) ** -(_PREC - 8))


def coupled_delta(interval, eps: Fraction, eta: Fraction) -> _intervals.Interval:
    """δ′(ε) from the certified δ(ε) ``interval`` and the coupling mass ``eta``."""
    lo, hi = _intervals.ends(interval)
    if eta == 0:
        return interval
    s = _spread(eps, eta)
    return _intervals.interval(max(mpmath.mpf(0), lo - s), min(mpmath.mpf(1), hi + s))


def coupled_epsilon(epsilon_of, delta: Fraction, eta: Fraction) -> _intervals.Interval:
    """ε′(δ) given ``epsilon_of(d)`` (the certified ε(d) interval of the uncoupled ledger):
    the upper end is a fixed point — ε* read at d = δ − (1 + e^E)η with E >= ε* certifies
    δ′(ε*) <= δ — and the lower end is ε read at δ + (1 + e^E)η for that E (below it the
    uncoupled δ alone exceeds δ plus the term). Upper end +∞ when δ cannot absorb the
    term."""
    if eta == 0:
        return epsilon_of(delta)
    guess = _intervals.ends(epsilon_of(delta))[1]
    upper = None
    for _ in range(_ROUNDS):
        if not mpmath.isfinite(guess):
            break
        bound = guess * (1 + mpmath.mpf(10) ** -9) + mpmath.mpf(10) ** -12
        room = Fraction(delta) - _intervals.exact_rational(_spread(bound, eta))
        if room <= 0:
            break
        hi = _intervals.ends(epsilon_of(room))[1]
        if hi <= bound:
            upper = hi
            top = bound
            break
        guess = hi
    if upper is None:                   # nothing certified: the lower end stays 0
        return _intervals.interval(mpmath.mpf(0), mpmath.inf)
    return _intervals.interval(_lower_end(epsilon_of, delta, eta, upper, top), upper)


def _lower_end(epsilon_of, delta: Fraction, eta: Fraction, upper, top) -> mpmath.mpf:
    """A certified lower end of ε′(δ): ε read (lower end) at δ + (1 + e^E)η with E >= the
    certified upper end (below E, δ′(ε) >= δ(ε) − (1 + e^E)η, so wherever the uncoupled
    δ(ε) exceeds δ + (1 + e^E)η, δ′(ε) exceeds δ)."""
    more = Fraction(delta) + _intervals.exact_rational(_spread(top, eta))
    if more >= 1:
        return mpmath.mpf(0)
    return max(mpmath.mpf(0), min(upper, _intervals.ends(epsilon_of(more))[0]))


def coupled_tradeoff(band_of, alpha: Fraction, eta: Fraction) -> _intervals.Interval:
    """β′(α) from ``band_of(a)`` (the certified β(a) band of the uncoupled ledger):
    [β(α + η) − η, β(α − η) + η], clipped to [0, 1]."""
    if eta == 0:
        return band_of(alpha)
    lo = (_intervals.ends(band_of(alpha + eta))[0] - mpmath.mpf(eta.numerator) / eta.denominator
          if alpha + eta <= 1 else mpmath.mpf(0))
    hi = (_intervals.ends(band_of(alpha - eta))[1] + mpmath.mpf(eta.numerator) / eta.denominator
          if alpha - eta >= 0 else mpmath.mpf(1))
    return _intervals.interval(max(mpmath.mpf(0), lo), min(mpmath.mpf(1), hi))
