"""Certified arithmetic for exact PMFs: Arb balls (python-flint) and conversions.

Every exact quantity is computed as an Arb ball ``[mid ± rad]`` that provably contains the
true value; a value is "correct to ``dps`` digits" when ``rad <= 10**-dps * |mid|``. The
public API hands out ``mpmath.mpf`` midpoints, the balls stay available for
the verification engine.

Arb's working precision is a global of python-flint; :func:`precision` sets and restores it.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction

import flint
import mpmath
from flint import arb, fmpq

from ..errors import ParameterError

LOG2_10 = math.log2(10.0)
GUARD_BITS = 32

__all__ = [
    "arb",
    "bits_for_dps",
    "precision",
    "to_arb",
    "from_mpf",
    "to_mpf",
    "upper_mpf",
    "has_digits",
    "nonneg",
    "working_bits",
    "lower_end",
    "upper_end",
    "exact_nonneg",
    "exact_max",
    "exact_min",
    "binomial_tail",
]


def bits_for_dps(dps: int) -> int:
    """Bits of relative accuracy that correspond to ``dps`` decimal digits."""
    return int(math.ceil(dps * LOG2_10)) + 1


@contextmanager
def precision(bits: int) -> Iterator[None]:
    """Run a block at Arb working precision ``bits`` (restored afterwards)."""
    old = flint.ctx.prec
    flint.ctx.prec = int(bits)
    try:
        yield
    finally:
        flint.ctx.prec = old


def to_arb(x) -> arb:
    """Exact Arb value of an int or Fraction (no rounding beyond the working precision)."""
    if isinstance(x, arb):
        return x
    if isinstance(x, Fraction):
        if x.denominator == 1:
            return arb(int(x.numerator))
        return arb(fmpq(int(x.numerator), int(x.denominator)))
    if isinstance(x, int):
        return arb(x)
    raise ParameterError(f"cannot convert {type(x).__name__} to an exact Arb value")


def from_mpf(x) -> arb:
    """The exact Arb value of a finite mpmath number (the working precision is raised to
    hold its mantissa; an mpf is read as it is — ``mpmath.mpf(x)`` would round it to the
    current mpmath precision, to nearest)."""
    x = x if isinstance(x, mpmath.mpf) else mpmath.mpf(x)
    if x == 0:
        return arb(0)
    man, exp = x.man_exp            # mpmath's man_exp drops the sign: take it from x
    man, exp = abs(int(man)), int(exp)
    man = -man if x < 0 else man
    with precision(max(int(flint.ctx.prec), man.bit_length() + 8)):
        return arb(man) * arb(2) ** exp


def nonneg(x: arb) -> arb:
    """Intersect a ball with [0, inf): for quantities known to be non-negative."""
    return x.nonnegative_part()


def working_bits(dps: int, extra: int = 0) -> int:
    """Arb precision for an engine that certifies ``dps`` digits: the digits' bits, two
    guard words and ``extra`` bits (e.g. the bit length of a number of summands)."""
    return bits_for_dps(dps) + 2 * GUARD_BITS + extra


def lower_end(x: arb) -> arb:
    """The lower end ``mid − rad`` of a ball as an exact Arb value, rounded down to the
    working precision (call inside a precision context at least as fine as the ball's)."""
    return x.lower()


def upper_end(x: arb) -> arb:
    """The upper end ``mid + rad`` of a ball as an exact Arb value, rounded up (see
    :func:`lower_end`)."""
    return x.upper()


def exact_nonneg(x: arb) -> arb:
    """max(0, x) for an exact Arb value (an end from :func:`lower_end` / :func:`upper_end`)."""
    return x if x > 0 else arb(0)


def exact_max(a: arb, b: arb) -> arb:
    """max(a, b) for exact Arb values."""
    return a if a > b else b


def exact_min(a: arb, b: arb) -> arb:
    """min(a, b) for exact Arb values."""
    return a if a < b else b


def _arf_to_mpf(x: arb) -> mpmath.mpf:
    man, exp = x.man_exp()
    man, exp = int(man), int(exp)
    with mpmath.workprec(max(man.bit_length(), 53) + 2):
        return mpmath.mpf((man, exp))


def to_mpf(x: arb) -> mpmath.mpf:
    """Midpoint of a ball as an mpmath number carrying all of the midpoint's bits."""
    return _arf_to_mpf(x.mid())


def upper_mpf(x: arb) -> mpmath.mpf:
    """A certified upper bound of the ball as an mpmath number (mid + rad, rounded up);
    +inf for a ball that is not finite."""
    if not x.is_finite():
        return mpmath.inf
    mid = _arf_to_mpf(x.mid())
    rad = _arf_to_mpf(x.rad())
    # Rounding toward +inf ("c"; mpmath's "u" rounds away from zero, which would lower a
    # negative value) keeps it an upper bound at any precision.
    return mpmath.fadd(mid, rad, prec=max(mpmath.mp.prec, 53) + 64, rounding="c")


def lower_mpf(x: arb) -> mpmath.mpf:
    """A certified lower bound of the ball (mid − rad, rounded toward −inf); −inf for a ball
    that is not finite. (``-upper_mpf(-x)`` would not do: mpmath rounds a negation to the
    working precision, to nearest.)"""
    if not x.is_finite():
        return mpmath.ninf
    mid = _arf_to_mpf(x.mid())
    rad = _arf_to_mpf(x.rad())
    return mpmath.fsub(mid, rad, prec=max(mpmath.mp.prec, 53) + 64, rounding="f")


def has_digits(x: arb, dps: int) -> bool:
    """True when the ball pins the value to ``dps`` significant digits (relative)."""
    if x.is_exact():
        return True
    if x.is_zero() or not x.is_finite():
        return False
    return x.rel_accuracy_bits() >= bits_for_dps(dps)


def binomial_tail(trials: int, prob: arb, j: int) -> arb:
    """Ball around P(Bin(trials, prob) >= j), summed upward from the pmf at ``j`` with a
    geometric bound on the remainder once the term ratio is below 1/2 and the terms below
    2^-200 of the sum (at the caller's working precision)."""
    if j <= 0:
        return arb(1)
    if j > trials:
        return arb(0)
    lp = (-prob).log1p()
    # pmf(j) = C(trials, j) prob^j (1 − prob)^(trials − j)
    term = arb(math.comb(trials, j)) * prob ** j * ((trials - j) * lp).exp()
    total = arb(0)
    i = j
    while True:
        total += term
        if i == trials:
            return total
        r = arb(trials - i) / (i + 1) * prob / (1 - prob)
        if r < arb(1) / 2 and term < total * arb(2) ** -200:
            return total + term * r / (1 - r) * arb("0 +/- 1")
        term = term * r
        i += 1
