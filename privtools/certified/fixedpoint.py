"""Directed rounding of fixed-point masses: integers in units of 2^-bits, divided by a power
of two toward +∞ (``up``) or −∞ (``down``) in Python integers.

Python's ``>>`` on an ``int`` is a floor for either sign, so ``-((-x) >> bits)`` is the
ceiling. Integer polynomials are rounded coefficient by coefficient through Python
integers: python-flint's ``fmpz_poly // int`` does not floor a quotient that lies in
(−1, 0) (it returns 0), so the usual ``-((-p) // d)`` ceiling drops every positive
coefficient below ``d`` — the reason this helper exists.
"""

from __future__ import annotations

import operator

from flint import fmpz_poly

from privtools.errors import ParameterError

__all__ = ["DIRECTIONS", "shift", "shift_poly"]

DIRECTIONS = ("up", "down")


def _bits(bits) -> int:
    b = operator.index(bits)
    if b < 0:
        raise ParameterError(f"bits must be >= 0, got {bits!r}")
    return b


def _direction(direction: str) -> str:
    if direction not in DIRECTIONS:
        raise ParameterError(f"direction must be one of {DIRECTIONS}, got {direction!r}")
    return direction


def shift(x: int, bits: int, direction: str) -> int:
    """x / 2^bits rounded ``up`` (ceiling) or ``down`` (floor), any sign of ``x``."""
    b, d = _bits(bits), _direction(direction)
    x = operator.index(x)
    return -((-x) >> b) if d == "up" else x >> b


def shift_poly(poly: fmpz_poly, bits: int, direction: str) -> fmpz_poly:
    """Every coefficient of ``poly`` divided by 2^bits and rounded ``up`` or ``down``
    (any signs); the zero polynomial stays zero."""
    b, d = _bits(bits), _direction(direction)
    if d == "up":
        coeffs = [-((-int(c)) >> b) for c in poly.coeffs()]
    else:
        coeffs = [int(c) >> b for c in poly.coeffs()]
    return fmpz_poly(coeffs)
