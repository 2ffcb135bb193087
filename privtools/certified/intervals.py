"""The one interval type of public results, read and built without losing its guarantee.

Every certified number privtools hands out is an :data:`Interval` — an ``mpmath.mpi`` whose
ends provably enclose the true value. Arb balls stay inside the engines; they become
intervals through :func:`interval` / :func:`from_ball`, and pairs ``(lo, hi)`` are never
returned.

``mpmath.mpf(iv.a)`` converts at the current mpmath precision (53 bits by default) with
round-to-nearest, which can move a certified end inward, and ``mpmath.mpi(a, b)`` rounds its
ends outward to the current precision. The readers here take the exact ends, and the
builders work at a precision that holds the ends exactly.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from . import balls

Interval = type(mpmath.mpi(0, 1))

__all__ = ["Interval", "ends", "interval", "from_ball", "lower", "upper", "exact_rational",
           "fraction_bounds", "decide_le"]


def ends(iv) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The exact endpoints of an interval as mpf values."""
    lo, hi = iv._mpi_
    return mpmath.mp.make_mpf(lo), mpmath.mp.make_mpf(hi)


def interval(lo, hi) -> Interval:
    """An interval with exactly these endpoints (mpf, or Arb values whose exact midpoints
    are taken)."""
    lo = lo if isinstance(lo, mpmath.mpf) else balls.to_mpf(lo)
    hi = hi if isinstance(hi, mpmath.mpf) else balls.to_mpf(hi)
    bits = 53
    for x in (lo, hi):
        if mpmath.isfinite(x) and x != 0:
            bits = max(bits, int(x.man_exp[0]).bit_length() + 8)
    with mpmath.workprec(bits):
        return mpmath.mpi(lo, hi)



def from_ball(x, clip=None) -> Interval:
    """The interval ``[mid − rad, mid + rad]`` of an Arb ball, ends rounded outward;
    ``clip=(a, b)`` intersects it with ``[a, b]`` (for quantities known to lie there, e.g.
    probabilities in [0, 1])."""
    lo, hi = balls.lower_mpf(x), balls.upper_mpf(x)
    if clip is not None:
        lo, hi = max(mpmath.mpf(clip[0]), lo), min(mpmath.mpf(clip[1]), hi)
    return interval(lo, hi)


def upper(value) -> mpmath.mpf:
    """A certified upper end of an interval, an Arb ball, or a plain number."""
    if isinstance(value, Interval):
        return ends(value)[1]
    if hasattr(value, "upper") and hasattr(value, "mid") and callable(value.upper):
        return balls.upper_mpf(value)
    return mpmath.mpf(value)


def lower(value) -> mpmath.mpf:
    """A certified lower end (see :func:`upper`)."""
    if isinstance(value, Interval):
        return ends(value)[0]
    if hasattr(value, "upper") and hasattr(value, "mid") and callable(value.upper):
        return balls.lower_mpf(value)
    return mpmath.mpf(value)


def exact_rational(x) -> Fraction | None:
    """The exact rational value of a finite mpf (a binary float); None for ±inf and NaN."""
    x = mpmath.mpf(x) if not isinstance(x, mpmath.mpf) else x
    if not mpmath.isfinite(x):
        return None
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def fraction_bounds(q: Fraction, bits: int = 64) -> tuple[mpmath.mpf, mpmath.mpf]:
    """mpf values ``lo <= q <= hi`` at ``bits`` of precision (directed rounding)."""
    q = Fraction(q)
    prec = max(bits, q.numerator.bit_length(), q.denominator.bit_length()) + 8
    with mpmath.workprec(prec):
        num, den = mpmath.mpf(q.numerator), mpmath.mpf(q.denominator)  # exact at this prec
        return (mpmath.fdiv(num, den, prec=bits, rounding="f"),
                mpmath.fdiv(num, den, prec=bits, rounding="c"))


def decide_le(value, bound) -> bool | None:
    """Is the enclosed value ``<= bound``? ``True`` when the upper end is, ``False`` when the
    lower end is above, ``None`` when the interval straddles ``bound`` (undecided).

    ``value``: an :data:`Interval`, an Arb ball or a pair ``(lo, hi)`` (``lo`` may be None:
    only an upper bound is known). ``bound``: compared as an exact rational (a float or mpf
    at its binary value)."""
    if isinstance(value, tuple):
        lo, hi = value
    else:
        lo, hi = lower(value), upper(value)
    b = bound if isinstance(bound, Fraction) else (
        Fraction(bound) if isinstance(bound, int) else exact_rational(mpmath.mpf(bound)))
    hi_q = exact_rational(hi)
    if hi_q is not None and hi_q <= b:
        return True
    lo_q = None if lo is None else exact_rational(lo)
    if lo_q is not None and lo_q > b:
        return False
    if lo is not None and mpmath.isinf(lo) and lo > 0:
        return False
    return None
