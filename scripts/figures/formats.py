"""How the pages print figures: fixed decimals, significant digits, scientific notation,
words; and the error a figure's source raises when it no longer supports a page."""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, ROUND_HALF_UP, Decimal
from fractions import Fraction


class FigureError(Exception):
    """The data no longer supports a page's statement, or cannot be read."""


def _dec(x) -> Decimal:
    """Exact decimal of an int, str, Fraction, float (its shortest repr) or mpf."""
    if isinstance(x, Decimal):
        return x
    if isinstance(x, Fraction):
        return Decimal(x.numerator) / Decimal(x.denominator)
    if isinstance(x, str):
        return Decimal(x.replace(",", "").replace(" ", ""))
    return Decimal(str(x))


def fixed(x, places: int) -> str:
    """A number with a fixed number of decimals, rounded half up.

    Parameters
    ----------
    x : int, float, str, Fraction, Decimal or mpmath.mpf
        The value (a str as a generated table prints it: ``fixed("0.2955", 3)`` is "0.296").
    places : int
        Decimals to keep (0: an integer).

    Returns
    -------
    str
        The rounded value in fixed notation.
    """
    return format(_dec(x).quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP), "f")


def sig(x, digits: int) -> str:
    """A number to a number of significant digits, trailing zeros kept.

    Parameters
    ----------
    x : int, float, str, Fraction, Decimal or mpmath.mpf
        The value.
    digits : int
        Significant digits (``sig(18.95067, 8)`` is "18.950670").

    Returns
    -------
    str
        The value rounded half up, in fixed notation.
    """
    d = _dec(x)
    if d == 0:
        return "0"
    places = digits - 1 - d.adjusted()
    r = d.quantize(Decimal(1).scaleb(-places), rounding=ROUND_HALF_UP)
    if r.adjusted() != d.adjusted():                   # 9.96 -> 10.0: one digit fewer
        r = d.quantize(Decimal(1).scaleb(-(places - 1)), rounding=ROUND_HALF_UP)
    return format(r, "f")


def short(x, digits: int) -> str:
    """Like :func:`sig` without trailing zeros (0.90 -> "0.9")."""
    s = sig(x, digits)
    return s.rstrip("0").rstrip(".") if "." in s else s


def _mantissa(x, digits: int, up: bool) -> tuple[Decimal, int]:
    d = _dec(x)
    if d <= 0:
        raise FigureError(f"expected a positive value, got {x}")
    e = d.adjusted()
    q = Decimal(1).scaleb(-(digits - 1))
    m = d.scaleb(-e).quantize(q, rounding=ROUND_CEILING if up else ROUND_HALF_UP)
    if m >= 10:
        m, e = (m / 10).quantize(q, rounding=ROUND_CEILING if up else ROUND_HALF_UP), e + 1
    return m, e


def sci(x, digits: int, up: bool = False) -> str:
    """A positive number in the pages' scientific notation (``9.87e-7``).

    Parameters
    ----------
    x : int, float, str, Fraction, Decimal or mpmath.mpf
        The value, > 0.
    digits : int
        Significant digits of the mantissa.
    up : bool
        Round the mantissa up instead of half up (for quoted upper bounds).

    Returns
    -------
    str
        Mantissa, ``e``, exponent without sign padding.
    """
    m, e = _mantissa(x, digits, up)
    return f"{format(m, 'f')}e{e}"


_SUP = str.maketrans("-0123456789", "⁻⁰¹²³⁴⁵⁶⁷⁸⁹")


def sci_dot(x, digits: int) -> str:
    """``3.5·10⁻³`` style."""
    m, e = _mantissa(x, digits, False)
    return f"{format(m, 'f')}·10{str(e).translate(_SUP)}"


def pow10(x, how: str = "nearest") -> str:
    """The power of ten nearest to / below / above ``x``, as ``1e-14``."""
    lg = math.log10(float(x))
    e = {"nearest": round(lg), "floor": math.floor(lg), "ceil": math.ceil(lg)}[how]
    return f"1e{e}"


def grouped(n) -> str:
    """Integer with a space between groups of three digits (``1 295``)."""
    return f"{int(_dec(n)):,}".replace(",", " ")


def pct_above(a, b) -> str:
    """How many percent ``a`` is above ``b``, to the nearest integer."""
    return fixed((_dec(a) / _dec(b) - 1) * 100, 0)


WORDS = ("zero one two three four five six seven eight nine ten eleven twelve thirteen "
         "fourteen fifteen sixteen seventeen eighteen nineteen twenty").split()


def word(n: int, capital: bool = False) -> str:
    w = WORDS[n] if 0 <= n < len(WORDS) else str(n)
    return w.capitalize() if capital else w


def span(lo: str, hi: str) -> str:
    """``lo–hi``, or one value when both ends agree."""
    return lo if lo == hi else f"{lo}–{hi}"

