"""Certified arithmetic for exact PMFs: Arb balls (python-flint) and conversions.

Every exact quantity is computed as an Arb ball ``[mid ± rad]`` that provably contains the
true value; a value is "correct to ``dps`` digits" when ``rad <= 10**-dps * |mid|``. The
public API hands out ``mpmath.mpf`` midpoints (DESIGN.md), the balls stay available for
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
    hold its mantissa)."""
    x = mpmath.mpf(x)
    if x == 0:
        return arb(0)
    man, exp = x.man_exp
    man, exp = int(man), int(exp)
    with precision(max(int(flint.ctx.prec), man.bit_length() + 8)):
        return arb(man) * arb(2) ** exp


def nonneg(x: arb) -> arb:
    """Intersect a ball with [0, inf): for quantities known to be non-negative."""
    return x.nonnegative_part()


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
