"""Certified intervals (mpmath ``mpi``) read and built without losing their guarantee.

``mpmath.mpf(iv.a)`` converts at the current mpmath precision (53 bits by default) with
round-to-nearest, which can move a certified end inward, and ``mpmath.mpi(a, b)`` rounds its
ends outward to the current precision. These helpers read the exact ends and build
intervals at a precision that holds the ends exactly.
"""

from __future__ import annotations

import mpmath

IntervalType = type(mpmath.mpi(0, 1))


def ends(iv) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The exact endpoints of an interval as mpf values."""
    lo, hi = iv._mpi_
    return mpmath.mp.make_mpf(lo), mpmath.mp.make_mpf(hi)


def make(lo: mpmath.mpf, hi: mpmath.mpf):
    """An interval with exactly these endpoints."""
    bits = 53
    for x in (lo, hi):
        if mpmath.isfinite(x) and x != 0:
            bits = max(bits, int(x.man_exp[0]).bit_length() + 8)
    with mpmath.workprec(bits):
        return mpmath.mpi(lo, hi)


def upper(value) -> mpmath.mpf:
    """A certified upper end of an interval, an Arb ball, or a plain number."""
    if isinstance(value, IntervalType):
        return ends(value)[1]
    if hasattr(value, "upper") and hasattr(value, "mid") and callable(value.upper):
        from .noise._arb import upper_mpf

        return upper_mpf(value)
    return mpmath.mpf(value)


def lower(value) -> mpmath.mpf:
    """A certified lower end (see :func:`upper`)."""
    if isinstance(value, IntervalType):
        return ends(value)[0]
    if hasattr(value, "upper") and hasattr(value, "mid") and callable(value.upper):
        from .noise._arb import lower_mpf

        return lower_mpf(value)
    return mpmath.mpf(value)
