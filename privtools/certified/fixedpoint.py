"""Directed rounding of fixed-point masses: integers in units of 2^-bits, divided by a power
of two toward +∞ (``up``) or −∞ (``down``).

Python's ``>>`` on an ``int`` is a floor for either sign, so ``-((-x) >> bits)`` is the
ceiling (:func:`shift`). Integer polynomials are rounded inside FLINT: python-flint's
``fmpz_poly // int`` does not floor a quotient that lies in (−1, 0) (it returns 0), so the
usual ``-((-p) // d)`` ceiling drops every positive coefficient below ``d``. Masses are
never negative, and for a non-negative numerator every quotient is >= 0, where ``//`` is a
true floor: :func:`floor_masses` floors (and returns the total remainder) and
:func:`ceil_masses` takes the floor of ``p + (d − 1)`` per coefficient — the signs being
the caller's invariant.
"""

from __future__ import annotations

import operator

from flint import fmpz_poly

from privtools.errors import ParameterError

__all__ = ["DIRECTIONS", "shift", "floor_masses", "ceil_masses"]

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


def floor_masses(poly: fmpz_poly, bits: int) -> tuple[fmpz_poly, int]:
    """Every coefficient of ``poly`` divided by 2^bits and floored, inside FLINT, with the
    total remainder Σ (c_i mod 2^bits) in the input's units — for coefficients that are all
    >= 0 (masses), where ``//`` is a true floor (every quotient is >= 0). The signs are the
    caller's invariant: a :class:`~privtools.accounting.pld.LossGrid`'s masses are built
    non-negative and stay so under products and sums. Rounding *up* may then move the
    remainder, rounded up, to one place (an upper side puts it at loss +∞), instead of one
    unit per coefficient."""
    b = _bits(bits)
    if poly.length() == 0 or b == 0:
        return poly, 0
    q = poly // (1 << b)
    return q, int(poly(1)) - (int(q(1)) << b)


_ONES: dict[int, fmpz_poly] = {}      # bits -> (2^bits − 1)·(1 + x + … + x^{n−1}), the longest


def _below(bits: int, n: int) -> fmpz_poly:
    """2^bits − 1 in each of the first ``n`` coefficients (one long polynomial kept per
    ``bits``, cut to length)."""
    have = _ONES.get(bits)
    if have is None or have.length() < n:
        size = max(n, 2 * (have.length() if have is not None else 0), 1024)
        have = _ONES[bits] = fmpz_poly([(1 << bits) - 1] * size)
    return have.truncate(n) if have.length() > n else have


def ceil_masses(poly: fmpz_poly, bits: int) -> fmpz_poly:
    """Every coefficient of ``poly`` divided by 2^bits and rounded up, inside FLINT, for
    coefficients that are all >= 0 (the floor of ``c + 2^bits − 1``; the signs are the
    caller's invariant, as for :func:`floor_masses`). A zero coefficient stays zero."""
    b = _bits(bits)
    n = poly.length()
    if n == 0 or b == 0:
        return poly
    return (poly + _below(b, n)) // (1 << b)
