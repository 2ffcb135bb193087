"""Directed rounding of mpmath numbers: the only place outside Arb where a certified end is
rounded. ``up`` rounds toward +∞ and ``down`` toward −∞ whatever the sign (mpmath's "u"/"d"
round away from / toward zero, which moves a negative end the wrong way).

Precision: ``prec`` bits when given, else the current mpmath precision plus 64 guard bits.
"""

from __future__ import annotations

import mpmath

__all__ = ["add_up", "add_down", "sub_up", "sub_down", "div_up", "div_down"]


def _prec(prec: int | None) -> int:
    return int(prec) if prec is not None else max(mpmath.mp.prec, 53) + 64


def add_up(a, b, prec: int | None = None) -> mpmath.mpf:
    """a + b rounded toward +∞."""
    return mpmath.fadd(a, b, prec=_prec(prec), rounding="c")


def add_down(a, b, prec: int | None = None) -> mpmath.mpf:
    """a + b rounded toward −∞."""
    return mpmath.fadd(a, b, prec=_prec(prec), rounding="f")


def sub_up(a, b, prec: int | None = None) -> mpmath.mpf:
    """a − b rounded toward +∞."""
    return mpmath.fsub(a, b, prec=_prec(prec), rounding="c")


def sub_down(a, b, prec: int | None = None) -> mpmath.mpf:
    """a − b rounded toward −∞."""
    return mpmath.fsub(a, b, prec=_prec(prec), rounding="f")


def div_up(a, b, prec: int | None = None) -> mpmath.mpf:
    """a / b rounded toward +∞."""
    return mpmath.fdiv(a, b, prec=_prec(prec), rounding="c")


def div_down(a, b, prec: int | None = None) -> mpmath.mpf:
    """a / b rounded toward −∞."""
    return mpmath.fdiv(a, b, prec=_prec(prec), rounding="f")
