"""Numeric conventions shared by the accounting modules.

* Parameters are validated and held exactly (:class:`fractions.Fraction`, via
  ``privtools.validation``) before any work is done; errors name the parameter.
* Every privacy quantity is computed in mpmath at a working precision chosen for the
  cancellation it faces (e.g. ``log(1 - 1/α)`` near α = 1, ``log T / (α − 1)`` with
  T ≈ 1), then returned as a Python float **rounded up** (:func:`up`) — a float that is
  never below the value it stands for, so rounding can only make a bound more
  conservative, never less.
* Curves accept a scalar order α or a sequence of orders (list, tuple, numpy array);
  a sequence gives a numpy float array.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable, Sequence
from fractions import Fraction

import mpmath
import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int, check_order, check_positive_fraction

# Working precision (decimal digits) before cancellation guards are added.
BASE_DPS = 30

# Default orders: 1.01 … 10000 log-spaced (200 points) plus every integer 2..256.
DEFAULT_ORDERS: tuple[float, ...] = tuple(
    sorted({float(x) for x in np.geomspace(1.01, 10000.0, 200)} | {float(k) for k in
                                                                    range(2, 257)})
)
# Integer orders only (for bounds stated at integer α, e.g. Lemma 3 (000)).
INTEGER_ORDERS: tuple[int, ...] = tuple(
    sorted({int(k) for k in range(2, 257)} | {int(math.ceil(x)) for x in DEFAULT_ORDERS})
)


def mpf(x) -> mpmath.mpf:
    """mpmath value of an exact Fraction / int (rounded once, at the current precision)."""
    if isinstance(x, Fraction):
        return mpmath.mpf(x.numerator) / x.denominator
    if isinstance(x, mpmath.mpf):
        return x
    return mpmath.mpf(x)


def up(x) -> float:
    """``x`` as a float, rounded towards +∞ (``inf`` stays ``inf``)."""
    if isinstance(x, Fraction):
        f = x.numerator / x.denominator  # correctly rounded (Python int true division)
        if Fraction(f) < x:
            f = math.nextafter(f, math.inf)
        return f
    if not isinstance(x, mpmath.mpf):
        x = mpmath.mpf(x)  # (an mpf is not re-rounded: that could round it down)
    if mpmath.isinf(x) or mpmath.isnan(x):
        return float(x)
    f = float(x)
    if mpmath.mpf(f) < x:
        f = math.nextafter(f, math.inf)
    return f


def guard_dps(*small) -> int:
    """BASE_DPS plus one digit per decade of each small positive quantity in ``small``
    (α − 1, a privacy parameter, …) — the digits a cancellation can eat."""
    extra = 0
    for s in small:
        s = Fraction(s)
        if 0 < s < 1:
            extra += math.ceil(math.log10(s.denominator) - math.log10(max(s.numerator, 1))) + 1
    return BASE_DPS + extra


# ------------------------------------------------------------------ validation
def check_sensitivity(value, *, integer: bool) -> Fraction:
    """Sensitivity Δ > 0; an integer for mechanisms on integer-valued queries."""
    if integer:
        return Fraction(check_int("sensitivity", value, minimum=1))
    return check_positive_fraction("sensitivity", value)


def is_sequence(x) -> bool:
    return isinstance(x, (list, tuple, np.ndarray)) and not isinstance(x, str)


def alphas(alpha, *, integer: bool = False) -> tuple[list[Fraction], bool]:
    """Validate a scalar or sequence of orders; returns (orders, was_scalar)."""
    if is_sequence(alpha):
        seq = np.asarray(alpha, dtype=object).ravel().tolist()
        return [check_order("alpha", a, integer=integer) for a in seq], False
    return [check_order("alpha", alpha, integer=integer)], True


def curve_output(values: Sequence, scalar: bool):
    """Round each value up to a float; a scalar for scalar input, else an array."""
    out = [up(v) for v in values]
    return out[0] if scalar else np.array(out, dtype=float)


def order_value(a: Fraction) -> int | float:
    """An order for display / for user callables: an int if integral, else a float."""
    return int(a) if a.denominator == 1 else a.numerator / a.denominator


# ------------------------------------------------------------------ curve evaluation
def eval_rdp(curve, a: Fraction):
    """ε(α) of a curve as a Fraction (exact) or an mpf. Curves built here expose
    ``rdp_mp(Fraction) -> Fraction | mpf``; any other callable gets the order as an int
    (integral α) or a float and may return a float, an mpf, a Fraction or an int.
    Convert with :func:`mpf` inside the caller's working precision."""
    rdp_mp = getattr(curve, "rdp_mp", None)
    if rdp_mp is not None:
        return rdp_mp(a)
    if not callable(curve):
        raise ParameterError(f"rdp must be callable or a mapping, got {type(curve).__name__}")
    return as_value("rdp", curve(order_value(a)))


def as_value(name: str, value):
    """An RDP value as a Fraction (exact inputs) or mpf (floats, mpf; +inf allowed);
    NaN and negative values are rejected."""
    if isinstance(value, np.ndarray) and value.shape == ():
        value = value.item()
    if isinstance(value, np.generic):
        value = value.item()
    if isinstance(value, bool):
        raise ParameterError(f"{name} must give real numbers, got bool")
    if isinstance(value, mpmath.mpf):
        v = value
    elif isinstance(value, (Fraction, numbers.Integral)):
        v = Fraction(value)
    elif isinstance(value, numbers.Real):
        v = mpmath.mpf(float(value))  # exact: an mpf holds any double
    else:
        raise ParameterError(f"{name} must give real numbers, got {type(value).__name__}")
    if isinstance(v, mpmath.mpf) and mpmath.isnan(v):
        raise ParameterError(f"{name} gave NaN")
    if v < 0:
        raise ParameterError(f"{name} gave a negative value {value!r}")
    return v


class Curve:
    """Base for RDP curves built here: ``curve(alpha)`` -> float(s) rounded up,
    ``curve.rdp_mp(Fraction)`` -> Fraction | mpf (full precision, used when composing)."""

    def rdp_mp(self, a: Fraction):  # pragma: no cover - abstract
        raise NotImplementedError

    def __call__(self, alpha):
        orders, scalar = alphas(alpha)
        return curve_output([self.rdp_mp(a) for a in orders], scalar)


class FunctionCurve(Curve):
    """Wrap ``fn(Fraction) -> Fraction | mpf`` (orders already validated) as a Curve."""

    def __init__(self, fn: Callable[[Fraction], object], label: str):
        self._fn = fn
        self._label = label

    def rdp_mp(self, a: Fraction):
        return self._fn(a)

    def __repr__(self) -> str:
        return f"<RDP curve {self._label}>"
