"""Argument checking shared by every public entry point (public: apps and ``verification``
use the same checks).

Rules (privacy-critical parameters):

- errors are ``ParameterError`` (both a ValueError and a TypeError) that name the
  offending parameter, raised before any work is done;
- nothing is clipped, wrapped or rounded silently;
- exact parameters are held as :class:`fractions.Fraction`. A float argument is converted
  to the exact rational value of that binary float (``Fraction(0.1)`` is not 1/10); pass a
  ``Fraction``, an ``int`` or a decimal string such as ``"0.1"`` to mean 1/10 exactly.
"""

from __future__ import annotations

import math
import numbers
import re
import sys
from fractions import Fraction

import mpmath
import numpy as np

from privtools.certified.intervals import exact_rational
from privtools.errors import ParameterError
from privtools.randomness import secure_rng

INT64_MAX = np.iinfo(np.int64).max
# Integer points and locations are limited to |k| <= 2**62 so that k ± mu, k + 1 and the
# like can never wrap around in int64 arithmetic.
POINT_LIMIT = 2**62
# Locations are limited to |mu| < 2**61 so that mirrored points 2·mu − k − 1 (the lower tail
# of a symmetric law read from its upper tail) stay in int64 for every point |k| <= 2**62.
LOCATION_LIMIT = 2**61 - 1
# Decimal strings: at most this many digits, and exponents of at most 4 digits with the
# value's numerator and denominator within this many decimal digits (Python prints no int
# beyond 4300 digits; "1e999999999" would take minutes to expand).
MAX_DIGITS = 4000
_MAX_BITS = int(MAX_DIGITS * 3.3219280948873626)  # log2(10)
_EXPONENT = re.compile(r"[eE][+-]?(\d+)$")
# float64's normal range: the float methods of the noise laws read their parameters as floats
FLOAT_MIN = Fraction(2) ** -1022
FLOAT_MAX = Fraction(sys.float_info.max)


__all__ = [
    "as_rng",
    "check_dps",
    "check_int",
    "check_int_array",
    "check_size",
    "to_fraction",
    "check_positive_fraction",
    "check_nonneg",
    "check_location",
    "check_probability",
    "check_order",
    "check_level",
    "check_float_range",
    "show_number",
    "POINT_LIMIT",
    "LOCATION_LIMIT",
    "MAX_DIGITS",
    "FLOAT_MIN",
    "FLOAT_MAX",
]


def as_rng(rng: np.random.Generator | int | np.random.SeedSequence | None, *,
           secure: bool = False) -> np.random.Generator:
    """Return a ``numpy.random.Generator``; never touches numpy's global RNG state.

    ``rng=None`` gives a generator over ChaCha20 keyed from the OS
    (:func:`privtools.randomness.secure_rng`) when ``secure`` — the deployment paths — and
    a PCG64 seeded from the OS otherwise (simulations). A seed or a SeedSequence gives a
    reproducible PCG64; a Generator is used as given."""
    if isinstance(rng, np.random.Generator):
        return rng
    if rng is None and secure:
        return secure_rng()
    if rng is None or isinstance(rng, (numbers.Integral, np.random.SeedSequence)):
        if isinstance(rng, bool):
            raise ParameterError(
                "rng must be a numpy Generator, an int seed, a SeedSequence or None"
            )
        return np.random.default_rng(rng)
    raise ParameterError(
        f"rng must be a numpy Generator, an int seed, a SeedSequence or None, got {type(rng)!r}"
    )


def to_fraction(name: str, value) -> Fraction:
    """Exact rational value of ``value`` (an mpf or a float at its binary value); rejects NaN,
    infinities, bools and non-numbers."""
    if isinstance(value, bool):
        raise ParameterError(f"{name} must be a number, got bool")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, str):
        return _text_fraction(name, value)
    if isinstance(value, mpmath.mpf):
        out = exact_rational(value)
        if out is None:
            raise ParameterError(f"{name} must be finite, got {value!r}")
        return out
    if isinstance(value, numbers.Real):
        f = float(value)
        if not math.isfinite(f):
            raise ParameterError(f"{name} must be finite, got {value!r}")
        return Fraction(f)
    if hasattr(value, "numerator") and hasattr(value, "denominator"):  # e.g. sympy Rational
        return Fraction(int(value.numerator), int(value.denominator))
    raise ParameterError(f"{name} must be a real number, got {type(value).__name__}")


def _text_fraction(name: str, value: str) -> Fraction:
    """:func:`to_fraction` of a string: a number of at most ``MAX_DIGITS`` digits."""
    text = value.strip()
    exponent = _EXPONENT.search(text)
    if len(text) > MAX_DIGITS or (exponent and len(exponent.group(1).lstrip("0")) > 4):
        raise ParameterError(f"{name} must be a number of at most {MAX_DIGITS} digits "
                             f"and exponent, got {_short(value)}")
    try:
        out = Fraction(text)
    except (ValueError, ZeroDivisionError) as exc:
        raise ParameterError(f"{name} must be a finite number, got {_short(value)}") from exc
    if max(out.numerator.bit_length(), out.denominator.bit_length()) > _MAX_BITS:
        raise ParameterError(f"{name} must be a number of at most {MAX_DIGITS} digits "
                             f"and exponent, got {_short(value)}")
    return out


def _short(value, width: int = 40) -> str:
    text = repr(value)
    return text if len(text) <= width else text[:width - 6] + "…" + text[-5:]


def check_float_range(name: str, value: Fraction, *, reciprocal: bool = False,
                      why: str = "the float methods read it as a float64") -> Fraction:
    """``value`` (exact, != 0) when its magnitude — and that of ``1/value`` with
    ``reciprocal`` — lies in float64's normal range [2**-1022, ~1.8e308]; beyond it the float
    paths would silently read 0 or overflow, so it is refused naming ``name``."""
    mag = abs(value)
    for x, what in ((mag, name), (1 / mag if reciprocal and mag else None, f"1/{name}")):
        if x is None:
            continue
        if not FLOAT_MIN <= x <= FLOAT_MAX:
            side = "below 2**-1022 (2.2e-308)" if x < FLOAT_MIN else "above 1.8e308"
            raise ParameterError(f"{name} = {show_number(value)} is out of float64's normal range: "
                                 f"{what} is {side}, and {why}")
    return value


def show_number(x) -> str:
    """A number for messages: integers below 10**15 as they are, others as their shortest
    float (``1000.000001``, ``1e+308``) or to three significant digits (``2.94e-39``,
    ``1.21e+24``), and values beyond float64 as ``~1e-5000`` — exact values of any size are
    shown without a float that would overflow or underflow, and without thousands of
    digits."""
    if isinstance(x, bool) or not isinstance(x, (numbers.Rational, float)):
        return repr(x)
    q = Fraction(x)
    if q.denominator == 1 and abs(q) < 10**15:
        return str(q.numerator)
    try:
        f = float(q)
    except OverflowError:
        f = math.inf
    if f != 0 and math.isfinite(f):
        shortest = repr(f)
        return shortest if len(shortest) <= 12 else f"{f:.3g}"
    e = math.log10(abs(q.numerator)) - math.log10(q.denominator)
    return f"{'-' if q < 0 else ''}~1e{math.floor(e + 1e-9):+d}"


def check_positive_fraction(name: str, value, *, upper=None, upper_inclusive=False) -> Fraction:
    """``to_fraction`` plus ``value > 0`` (and ``value < upper`` / ``<= upper``)."""
    out = to_fraction(name, value)
    if out <= 0:
        raise ParameterError(f"{name} must be > 0, got {value!r}")
    if upper is not None:
        if upper_inclusive and out > upper:
            raise ParameterError(f"{name} must be <= {upper}, got {value!r}")
        if not upper_inclusive and out >= upper:
            raise ParameterError(f"{name} must be < {upper}, got {value!r}")
    return out


def check_nonneg(name: str, value) -> Fraction:
    """A finite number >= 0, exact."""
    out = to_fraction(name, value)
    if out < 0:
        raise ParameterError(f"{name} must be >= 0, got {value!r}")
    return out


def check_int(name: str, value, *, minimum: int | None = None,
              maximum: int | None = None) -> int:
    """A Python int (numpy integers accepted); floats, even integral ones, are rejected."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ParameterError(f"{name} must be an integer, got {value!r}")
    out = int(value)
    if minimum is not None and out < minimum:
        raise ParameterError(f"{name} must be >= {minimum}, got {out}")
    if maximum is not None and out > maximum:
        raise ParameterError(f"{name} must be <= {maximum}, got {out}")
    return out


def check_location(name: str, value) -> int:
    """An integer location (e.g. ``mu``) with |mu| < 2**61 (:data:`LOCATION_LIMIT`)."""
    return check_int(name, value, minimum=-LOCATION_LIMIT, maximum=LOCATION_LIMIT)


def check_dps(dps) -> int:
    """Decimal digits requested from an exact computation."""
    return check_int("dps", dps, minimum=1)


def check_int_array(name: str, k) -> np.ndarray:
    """Integer-valued points as an int64 array (same shape).

    Accepts Python/numpy integers and integer-valued float arrays would be a silent
    conversion, so they are rejected: pass integers.
    """
    arr = np.asarray(k)
    if arr.dtype == object:
        try:
            if not all(isinstance(x, numbers.Integral) and not isinstance(x, bool)
                       for x in arr.ravel()):
                raise TypeError
            arr = arr.astype(np.int64)
        except (TypeError, OverflowError) as exc:
            raise ParameterError(f"{name} must contain integers within ±2**62") from exc
        if arr.size and (arr.max() > POINT_LIMIT or arr.min() < -POINT_LIMIT):
            raise ParameterError(f"{name} must lie within ±2**62")
        return arr
    if arr.dtype == bool or not np.issubdtype(arr.dtype, np.integer):
        raise ParameterError(f"{name} must be integer-valued (got dtype {arr.dtype})")
    if arr.dtype == np.uint64 and arr.size and arr.max() > POINT_LIMIT:
        raise ParameterError(f"{name} has values beyond 2**62")
    arr = arr.astype(np.int64, copy=False)
    if arr.size and (arr.max() > POINT_LIMIT or arr.min() < -POINT_LIMIT):
        raise ParameterError(f"{name} must lie within ±2**62")
    return arr


def check_size(size) -> int | tuple[int, ...] | None:
    """``size`` argument of samplers: None, a non-negative int or a tuple of them."""
    if size is None:
        return None
    if isinstance(size, numbers.Integral) and not isinstance(size, bool):
        return check_int("size", size, minimum=0)
    if isinstance(size, tuple):
        return tuple(check_int("size", s, minimum=0) for s in size)
    raise ParameterError(f"size must be None, an int or a tuple of ints, got {size!r}")


def check_probability(name: str, value, *, zero: bool = False) -> Fraction:
    """A probability such as δ: in (0, 1), or [0, 1) with ``zero=True``; exact (a float at
    its binary value, a decimal string at its decimal value)."""
    out = to_fraction(name, value)
    if not (0 <= out if zero else 0 < out) or out >= 1:
        raise ParameterError(f"{name} must be in {'[' if zero else '('}0, 1), got {value!r}")
    return out


def check_order(name: str, value, *, integer: bool = False, infinite: bool = False):
    """A Rényi order α > 1, exact; ``integer=True`` also requires α ∈ Z, ``infinite=True``
    accepts ``math.inf`` (returned as it is)."""
    if infinite and isinstance(value, (float, mpmath.mpf)) and value == math.inf:
        return math.inf
    a = to_fraction(name, value)
    if a <= 1:
        raise ParameterError(f"{name} must be > 1, got {value!r}")
    if integer and a.denominator != 1:
        raise ParameterError(f"{name} must be an integer > 1, got {value!r}")
    return a


def check_level(name: str, value) -> float:
    """A statistical test's false-alarm level, a float in (0, 0.5]."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.floating)):
        raise ParameterError(f"{name} must be a float in (0, 0.5], got {value!r}")
    a = float(value)
    if not 0 < a <= 0.5:
        raise ParameterError(f"{name} must be in (0, 0.5], got {value!r}")
    return a
