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

import math
from fractions import Fraction

import mpmath

from ..errors import ParameterError
from . import balls

Interval = type(mpmath.mpi(0, 1))

__all__ = ["Interval", "ends", "interval", "from_ball", "outward", "infinite", "interval_max",
           "precision_of", "lower", "upper", "exact_rational", "fraction_bounds", "decide_le"]


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


def outward(lo, hi, bits: int) -> Interval:
    """An interval from ends that are mpf (or ±inf) or exact Arb values (their exact
    midpoints are taken), each end rounded outward to ``max(bits, 53)`` bits."""
    with mpmath.workprec(max(bits, 53)):
        a = lo if isinstance(lo, mpmath.mpf) else balls.to_mpf(lo)
        b = hi if isinstance(hi, mpmath.mpf) else balls.to_mpf(hi)
        return mpmath.mpi(a, b)


def infinite() -> Interval:
    """The interval ``[+inf, +inf]`` (a divergence that is infinite for certain)."""
    return mpmath.mpi(mpmath.inf, mpmath.inf)


def interval_max(xs) -> Interval:
    """An interval containing the max of the quantities each interval of ``xs`` contains:
    ``[max of the lower ends, max of the upper ends]``, held exactly."""
    pairs = [ends(x) for x in xs]
    a = max(e[0] for e in pairs)
    b = max(e[1] for e in pairs)
    prec = max(_mpf_prec(v) for e in pairs for v in e)
    with mpmath.workprec(prec):
        return mpmath.mpi(a, b)


def _mpf_prec(v: mpmath.mpf) -> int:
    if not mpmath.isfinite(v) or v == 0:
        return 53
    return max(53, int(v.man_exp[0]).bit_length() + 2)


def precision_of(x) -> int:
    """Bits (at least 53) that hold both ends of an interval exactly."""
    return max(_mpf_prec(v) for v in ends(x))


def upper(value) -> mpmath.mpf:
    """A certified upper end of an interval, an Arb ball, or a plain number."""
    if isinstance(value, Interval):
        return ends(value)[1]
    if hasattr(value, "upper") and hasattr(value, "mid") and callable(value.upper):
        return balls.upper_mpf(value)
    return _number_end(value, 1)


def lower(value) -> mpmath.mpf:
    """A certified lower end (see :func:`upper`)."""
    if isinstance(value, Interval):
        return ends(value)[0]
    if hasattr(value, "upper") and hasattr(value, "mid") and callable(value.upper):
        return balls.lower_mpf(value)
    return _number_end(value, 0)


def _number_end(value, side: int) -> mpmath.mpf:
    """A plain number as an mpf end: an mpf as it is, a Fraction rounded outward (``side``
    0: down, 1: up), an int or float exactly."""
    if isinstance(value, mpmath.mpf):
        return value
    if isinstance(value, Fraction):
        return fraction_bounds(value)[side]
    if isinstance(value, int):
        with mpmath.workprec(max(53, value.bit_length() + 2)):
            return mpmath.mpf(value)
    with mpmath.workprec(max(53, mpmath.mp.prec)):
        return mpmath.mpf(value)


def exact_rational(x) -> Fraction | None:
    """The exact rational value of a finite mpf (a binary float); None for ±inf and NaN."""
    x = mpmath.mpf(x) if not isinstance(x, mpmath.mpf) else x
    if not mpmath.isfinite(x):
        return None
    man, exp = x.man_exp            # mpmath's man_exp drops the sign: take it from x
    q = Fraction(abs(int(man))) * Fraction(2) ** int(exp)
    return -q if x < 0 else q


def fraction_bounds(q: Fraction, bits: int = 64) -> tuple[mpmath.mpf, mpmath.mpf]:
    """mpf values ``lo <= q <= hi`` at ``bits`` of precision (directed rounding)."""
    q = Fraction(q)
    prec = max(bits, q.numerator.bit_length(), q.denominator.bit_length()) + 8
    with mpmath.workprec(prec):
        num, den = mpmath.mpf(q.numerator), mpmath.mpf(q.denominator)  # exact at this prec
        return (mpmath.fdiv(num, den, prec=bits, rounding="f"),
                mpmath.fdiv(num, den, prec=bits, rounding="c"))


def _exact_value(name: str, x):
    """The exact value of a real number as a Fraction, or ``±math.inf``; NaN -> ParameterError.
    Fractions, ints, floats and mpf numbers are read exactly (an mpf or float at its binary
    value, whatever the current mpmath precision)."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, int):
        return Fraction(x)
    if isinstance(x, float):
        if math.isnan(x):
            raise ParameterError(f"{name} is NaN")
        return x if math.isinf(x) else Fraction(x)
    x = x if isinstance(x, mpmath.mpf) else mpmath.mpf(x)
    if mpmath.isnan(x):
        raise ParameterError(f"{name} is NaN")
    if mpmath.isinf(x):
        return math.inf if x > 0 else -math.inf
    return exact_rational(x)


def decide_le(value, bound) -> bool | None:
    """Is the enclosed value ``<= bound``? ``True`` when the upper end is, ``False`` when the
    lower end is above, ``None`` when the interval straddles ``bound`` (undecided). The
    comparisons are exact: both ends and the bound are read as exact rationals (or ±inf), so
    an end equal to the bound decides ``True`` for the upper end and not ``False`` for the
    lower one.

    ``value``: an :data:`Interval`, an Arb ball or a pair ``(lo, hi)`` (``lo`` may be None:
    only an upper bound is known; ends may be ±inf). ``bound``: a Fraction, int, float or
    mpf (a float or mpf at its binary value; pass ``Fraction(1, 10**30)`` for the decimal
    10⁻³⁰), or ±inf. A NaN end or bound raises ParameterError."""
    if isinstance(value, tuple):
        lo, hi = value
    else:
        lo, hi = lower(value), upper(value)
    b = _exact_value("bound", bound)
    if _exact_value("upper end", hi) <= b:
        return True
    if lo is not None and _exact_value("lower end", lo) > b:
        return False
    return None
