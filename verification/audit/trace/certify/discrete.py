"""numpy's discrete draws as exact laws, and the law of a signed sum of integer draws.

A mechanism that adds ``rng.geometric(p) - rng.geometric(p)`` (the two-sided geometric of
Ghosh, Roughgarden and Sundararajan, STOC 2009: a discrete Laplace), ``rng.binomial(n, 1/2)``
or ``rng.integers(-k, k + 1)`` releases an integer law the exact engine can hold:

* ``integers(low, high)``, ``binomial(n, p)``, ``hypergeometric(ngood, nbad, nsample)`` —
  finite supports, every mass an exact rational (p read at its binary value);
* ``geometric(p)`` = 1 + Pólya(1, 1 − p) and ``negative_binomial(n, p)`` = Pólya(n, 1 − p)
  (numpy's definitions: trials to the first success; failures before the n-th), tabulated
  by the Pólya law's certified PMF;
* a privtools law by its own certified PMF.

:func:`row_pmf` convolves the laws of a row ``Σ ±z_i`` of distinct draws (a coefficient −1
reverses a PMF). Laws with other parameters (array parameters, Poisson) are not held:
the caller leaves such a release undecided.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
from flint import arb

from privtools.certified import balls as _arb
from privtools.exact import ExactPMF, convolve, shift
from privtools.noise import Polya

from . import integer_pmf

__all__ = ["draw_pmf", "row_pmf", "NUMPY_DISCRETE", "MAX_POINTS"]

#: numpy Generator methods whose draws are held as exact laws.
NUMPY_DISCRETE = ("integers", "binomial", "hypergeometric", "geometric", "negative_binomial")
#: Largest finite support tabulated point by point.
MAX_POINTS = 1 << 14
_DPS = 30


def _scalar(v):
    if isinstance(v, np.ndarray):
        if v.ndim:
            return None
        v = v.item()
    if isinstance(v, np.generic):
        v = v.item()
    return v


def _exact(masses: list[Fraction], lo: int) -> ExactPMF:
    """An ExactPMF of exact rational masses (balls of the rationals at the working
    precision; nothing unaccounted)."""
    prec = _arb.bits_for_dps(_DPS) + 2 * _arb.GUARD_BITS
    with _arb.precision(prec):
        balls = tuple(arb(q.numerator) / arb(q.denominator) for q in masses)
    return ExactPMF(lo, balls, mpmath.mpf(0), _DPS)


def _polya(r, beta: Fraction) -> ExactPMF | None:
    if not (0 < beta < 1) or r <= 0:
        return None
    try:
        return ExactPMF.from_distribution(Polya(r, beta), dps=_DPS + 10,
                                          tail=Fraction(1, 10**_DPS))
    except Exception:
        return None


def _integers(p: dict) -> ExactPMF | None:
    """``integers(low, high, endpoint)``: uniform on its range."""
    low, high = p.get("low"), p.get("high")
    if high is None:
        low, high = 0, low
    if not all(isinstance(v, (int, np.integer)) for v in (low, high)):
        return None
    hi = int(high) + (1 if p.get("endpoint") else 0)
    n = hi - int(low)
    if not 0 < n <= MAX_POINTS:
        return None
    return _exact([Fraction(1, n)] * n, int(low))


def _binomial(p: dict) -> ExactPMF | None:
    """``binomial(n, p)``, p read as its binary value."""
    n, q = p.get("n"), p.get("p")
    if not isinstance(n, (int, np.integer)) or not 0 <= int(n) <= MAX_POINTS:
        return None
    q = Fraction(float(q))
    if not 0 <= q <= 1:
        return None
    n = int(n)
    return _exact([math.comb(n, k) * q**k * (1 - q) ** (n - k) for k in range(n + 1)], 0)


def _hypergeometric(p: dict) -> ExactPMF | None:
    """``hypergeometric(ngood, nbad, nsample)``."""
    good, bad, m = (p.get(k) for k in ("ngood", "nbad", "nsample"))
    if not all(isinstance(v, (int, np.integer)) for v in (good, bad, m)):
        return None
    good, bad, m = int(good), int(bad), int(m)
    if not 0 <= m <= good + bad or good + bad > MAX_POINTS:
        return None
    lo, hi = max(0, m - bad), min(good, m)
    total = math.comb(good + bad, m)
    return _exact([Fraction(math.comb(good, k) * math.comb(bad, m - k), total)
                   for k in range(lo, hi + 1)], lo)


def _geometric(p: dict) -> ExactPMF | None:
    """``geometric(p)`` on {1, 2, …}: a Pólya law with r = 1, shifted by one."""
    q = Fraction(float(p.get("p")))
    if q == 1:
        return _exact([Fraction(1)], 1)
    P = _polya(1, 1 - q)
    return None if P is None else shift(P, 1)


def _negative_binomial(p: dict) -> ExactPMF | None:
    """``negative_binomial(n, p)``: the Pólya law with r = n, β = 1 − p."""
    n, q = p.get("n"), Fraction(float(p.get("p")))
    if q == 1:
        return _exact([Fraction(1)], 0)
    return _polya(Fraction(float(n)), 1 - q)


#: numpy's discrete draws the trace holds, by method name.
_DISCRETE = {"integers": _integers, "binomial": _binomial, "hypergeometric": _hypergeometric,
             "geometric": _geometric, "negative_binomial": _negative_binomial}


def draw_pmf(method: str, params: dict, law=None) -> ExactPMF | None:
    """The certified PMF of one draw of ``method`` with the call's ``params`` (None when
    it is not held)."""
    if law is not None:
        return integer_pmf(law, 1)
    p = {k: _scalar(v) for k, v in params.items() if k != "size"}
    if any(v is None and k not in ("high",) for k, v in p.items()):
        return None
    pmf = _DISCRETE.get(method)
    return None if pmf is None else pmf(p)


def _negated(P: ExactPMF) -> ExactPMF:
    return ExactPMF(-P.hi, tuple(reversed(P.balls)), P.unaccounted, P.dps,
                    label=f"-({P.label})")


def row_pmf(terms) -> ExactPMF | None:
    """The law of ``Σ sign·z`` for ``terms`` = [(ExactPMF of z, sign ±1)], independent."""
    out = None
    for P, sign in terms:
        if P is None or sign not in (1, -1):
            return None
        P = P if sign == 1 else _negated(P)
        out = P if out is None else convolve(out, P)
        if len(out) > 8 * MAX_POINTS:
            return None
    return out
