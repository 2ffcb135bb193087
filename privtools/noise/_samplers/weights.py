"""Table weights of a symmetric unimodal law from anchored running products, in numpy.

For a law symmetric about its centre ``c`` whose ratios ``r_k = p(c+k+1)/p(c+k)`` form a
geometric progression (``r_{k+1} = s·r_k``: the discrete Laplace has ``s = 1``, the discrete
Gaussian ``s = e^{−1/σ²}``), :func:`symmetric_table` returns integer weights ``w_k``
(``Σ w_k = 2^64``) over the law's certified support and a certified bound on their TV
distance from the law:

1. **Values.** Every ``B`` points an Arb anchor of ``p(c + k₀)`` and of ``r_{k₀}``;
   inside the block, ``r_{k₀+j} = r_{k₀} s^j`` and ``p(c + k₀ + i) = p(c + k₀) Π_{j<i}
   r_{k₀+j}`` by running float products. Each float operation is correctly rounded
   (relative error at most ``u = 2^-53``) and each anchor or ``s`` carries its Arb radius
   ``e`` plus one rounding, so ``r_{k₀+j}`` has at most ``2j + 2`` such errors and the value
   ``i`` points past its anchor at most ``(i + 1)²``: relative error at most
   ``δ = 1.02 (B + 1)² (u + e)`` (``B = 8``). With ``s = 1`` exactly (the discrete Laplace)
   the ratio is one float and the value has at most ``2i + 1`` errors:
   ``δ = 1.02 (2B + 1)(u + e)`` (``B = 32``). Both hold while the products stay normal
   floats. Past the centre the
   ratios are at most 1, so a value whose products leave the normal range (below 2^-1022)
   is below it in truth too, and both round to the weight 0.
2. **Weights.** ``w = round(2^64 p)`` (an exact float-to-integer conversion), the rounding
   residue of the sum, computed exactly, added at the mode ``c``. Then
   ``Σ_k |w_k − 2^64 p_k| <= ½·points + 2^64 δ + |residue|`` and
   ``TV = ½ (Σ_k |w_k 2^-64 − p_k| + P(outside))``, the outside mass certified by the law's
   support search (:meth:`~privtools.noise.IntegerDistribution.exact_support`).

This replaces one Arb ball and one Python-level rounding per point (0.3–0.6 s for the widest
tables) by a few thousand Arb anchors and numpy.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.intervals import exact_rational
from privtools.errors import CertificationError

__all__ = ["symmetric_table"]

_U = Fraction(1, 2**53)
_ONE = 1 << 64
_PREC = 96


def _rel(ball) -> float:
    """An upper bound of the relative radius of a positive Arb ball (the float quotient,
    raised by 1 %, far above its two roundings); 0 for a ball below 2^-1000, whose block is
    below it too (the ratios are at most 1 past the centre): its weights round to 0,
    within the ½ a point the bound allows, whatever the float error."""
    mid = float(ball.mid())
    if mid < 2.0**-1000:          # (an exponential: positive, maybe below the float range)
        return 0.0
    return float(ball.rad()) / mid * 1.01


def _values(half: int, p_anchor, r_anchor, step) -> tuple[np.ndarray, Fraction]:
    """``p(c + k)`` for ``0 <= k <= half`` and a certified relative error bound."""
    flat = step == 1                               # an exact 1: the ratio is constant
    block = 32 if flat else 8
    starts = np.arange(0, half + 1, block)
    with _arb.precision(_PREC):
        ps = [p_anchor(int(k)) for k in starts]
        rs = [r_anchor(int(k)) for k in starts]
        s = step
        e = Fraction(max([_rel(b) for b in ps] + [_rel(b) for b in rs] + [_rel(s)]))
        P = np.array([float(b.mid()) for b in ps])
        R = np.array([float(b.mid()) for b in rs])
        S = float(s.mid())
    steps = np.full((starts.size, block - 1), S)
    steps[:, 0] = R
    ratios = np.cumprod(steps, axis=1)                      # r_{k0+j}, j = 0..B-2
    factors = np.ones((starts.size, block))
    factors[:, 0] = P
    factors[:, 1:] = ratios
    values = np.cumprod(factors, axis=1).ravel()[: half + 1]
    count = 2 * block + 1 if flat else (block + 1) ** 2
    return values, Fraction(102, 100) * count * (_U + e)


def symmetric_table(law, max_points: int, p_anchor, r_anchor, step, tail_mass: Fraction):
    """``(lo, weights, tv)`` over the law's certified support (outside mass at most
    ``tail_mass``), None when it has more than ``max_points`` points, NotImplemented for a
    law with ``p(c) >= 1/2`` (the Arb-ball path builds those small tables; module doc).

    ``p_anchor(k)``, ``r_anchor(k)``: Arb balls of ``p(c + k)`` and ``p(c+k+1)/p(c+k)``;
    ``step``: the Arb ball of ``r_{k+1}/r_k``."""
    c = law.center
    lo, hi, outside = law.exact_support(mpmath.mpf(tail_mass.numerator) / tail_mass.denominator)
    half = max(hi - c, c - lo)
    if 2 * half + 1 > max_points:
        return None
    values, delta = _values(half, p_anchor, r_anchor, step)
    if not values[0] < 0.5:       # near a point mass: 2^64 p(c) may round to 2^64
        return NotImplemented
    side = np.rint(values * 2.0**64).astype(np.uint64)
    total = 2 * _exact_sum(side) - int(side[0])
    residue = _ONE - total
    if int(side[0]) + residue < 0 or int(side[0]) + residue >= _ONE:
        raise CertificationError("table weights do not sum to one")
    side[0] = np.uint64(int(side[0]) + residue)
    weights = np.concatenate((side[:0:-1], side))
    err = Fraction(2 * half + 1, 2) + _ONE * delta + abs(residue)
    tv = (err / _ONE + exact_rational(outside)) / 2
    return c - half, weights, tv


def _exact_sum(w: np.ndarray) -> int:
    """Σ w exactly (uint64 in two 32-bit halves)."""
    return (int((w >> np.uint64(32)).sum(dtype=np.uint64)) << 32) + int(
        (w & np.uint64(0xFFFFFFFF)).sum(dtype=np.uint64))
