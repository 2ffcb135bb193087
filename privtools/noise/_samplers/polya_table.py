"""The alias-table weights of a Pólya-difference share in vectorised integer arithmetic.

A share ``D = γ⁺ − γ⁻`` (γ± i.i.d. Pólya(r, β), ``0 < r <= 1``, Fact 1 (000)) has
``p(k) = Σ_j nb(|k| + j) nb(j)``. :func:`polya_difference_weights` returns integer weights
``w_k`` (``Σ w_k = 2^64``) on ``[−t, t]`` and a certified bound on the TV distance of
``w/2^64`` from the law, in four steps, each with its error bound:

1. **Support.** For ``r <= 1`` the Pólya ratios ``nb(i+1)/nb(i) = β(i + r)/(i + 1)`` are at
   most β, so ``P(γ > t) <= nb(t+1)/(1 − β)`` and ``P(|D| > t) <= 2 P(γ⁺ > t)`` (``D > t``
   needs ``γ⁺ > t``): ``t`` is the first point where this Arb bound is at most ``2^-73``.
2. **Pólya values.** ``nb(i)`` for ``0 <= i < 2t + 2`` in float64: an Arb anchor every
   ``32`` points, then running products of the float ratios ``β(i + r)/(i + 1)`` within each
   block. Every float operation is correctly rounded (relative error at most ``u = 2^-53``);
   a ratio carries six roundings (β and r rounded from Arb and Fraction, the sum, the product,
   the quotient, and r's error scaled by ``r/(i + r) <= 1``), the running product one more a
   step and the anchor one, so a value at most 31 points past its anchor has relative error
   at most ``(1 + e_a)(1 + u)^{7·32 + 2} − 1 <= e_a + 1.01·226u·(1 + e_a) =: δ``, ``e_a`` the
   anchor's (its Arb radius plus one rounding).
3. **Exact convolution.** ``X_i = round(2^62 nb_i)`` (error ``e_i <= ½ + 2^62 δ nb_i``) and
   ``D_k = Σ_{j<=t} X_{k+j} X_j`` for ``0 <= k <= t`` by one FLINT integer polynomial
   product (exact). Summed over ``k``,
   ``Σ_k |D_k − 2^124 Σ_{j<=t} nb_{k+j} nb_j| <= 2^124 (2E + E²)``, ``E = Σ_i e_i / 2^62``,
   since ``|X_a X_b − T_a T_b| <= e_a T_b + e_b T_a + e_a e_b`` and ``Σ T <= 2^62``; the
   terms ``j > t`` left out weigh at most ``P(γ > t)`` in all.
4. **Weights.** ``w_k = round(D_|k| / 2^60)``, the rounding residue of the sum (exactly
   computed) added at the mode. ``Σ_k |w_k − 2^64 p_k| <= ½(2t + 1) + |residue| +
   2·2^64 (2E + E² + P(γ > t))`` (each side once, the centre twice at most), and
   ``TV = ½ (Σ_k |w_k 2^-64 − p_k| + P(|D| > t))``.

Everything after the anchors is numpy or FLINT: about 0.15 s for the share of ``Lap_Z(1000)``
among 1024 users (53 107 points), against 1.7 s for Arb balls point by point.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.intervals import exact_rational
from privtools.errors import CertificationError

__all__ = ["polya_difference_weights"]

_BLOCK = 32
_U = Fraction(1, 2**53)
_ONE = 1 << 64
_SIDE = Fraction(1, 2**73)          # certified P(γ > t) aimed at (each side)
_PREC = 96


def _upper(ball) -> Fraction:
    """An exact dyadic upper bound of an Arb ball."""
    return exact_rational(_arb.upper_mpf(ball))


def _support(base, max_points: int) -> tuple[int, Fraction] | None:
    """``(t, P(γ > t) bound)`` with the bound at most ``_SIDE``, or None past ``max_points``."""
    log_q = math.log(base._one_minus_beta)
    target = math.log(float(_SIDE)) - 0.5

    def log_tail(t: int) -> float:     # log nb(t + 1)/(1 − β)
        return float(base._logpmf(np.array([t + 1]))[0]) - log_q

    hi = 16
    while log_tail(hi) > target:
        hi *= 2
        if 2 * (hi // 2) + 1 > max_points:
            return None
    lo = hi // 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if log_tail(mid) > target else (lo, mid)
    with _arb.precision(_PREC):
        for _ in range(64):
            if 2 * hi + 1 > max_points:
                return None
            bound = _upper(base._arb_pmf(hi + 1) / base._arb_one_minus_beta())
            if bound <= _SIDE:
                return hi, bound
            hi += max(1, hi >> 6)
    raise CertificationError("could not certify the Pólya-difference support")


def _polya_values(base, n: int) -> tuple[np.ndarray, Fraction]:
    """``nb(i)`` for ``0 <= i < n`` in float64 and a certified relative error bound δ."""
    starts = np.arange(0, n, _BLOCK)
    e_a = Fraction(0)
    anchors = np.empty(starts.size)
    with _arb.precision(_PREC):
        for idx, k in enumerate(starts):
            ball = base._arb_pmf(int(k))
            mid = float(ball.mid())
            if not mid > 0:
                raise CertificationError("a Pólya anchor underflowed")
            anchors[idx] = mid
            e_a = max(e_a, Fraction(101, 100) * (_upper(ball.rad()) / Fraction(mid) + _U))
        beta = float(base._arb_beta().mid())    # within u(1 + 1e-20) of β at this precision
    i = np.arange(starts.size * _BLOCK, dtype=np.float64)
    r = float(base.r)
    ratio = beta * (i + r) / (i + 1.0)
    steps = ratio.reshape(starts.size, _BLOCK)
    factors = np.ones_like(steps)
    factors[:, 1:] = steps[:, :-1]
    values = (anchors[:, None] * np.cumprod(factors, axis=1)).ravel()[:n]
    delta = e_a + (1 + e_a) * (7 * _BLOCK + 2) * _U * Fraction(101, 100)
    return values, delta


def polya_difference_weights(law, max_points: int):
    """``(t, weights, tv)``: uint64 weights on ``[−t, t]`` summing to ``2^64`` and the
    certified TV bound (module doc), or None when the support has more than ``max_points``
    points."""
    from flint import fmpz_poly

    base = law._base()
    found = _support(base, max_points)
    if found is None:
        return None
    t, side = found
    nb, delta = _polya_values(base, 2 * t + 2)
    X = np.rint(nb * 2.0**62).astype(np.int64)
    E = (Fraction(nb.size, 2) + delta * 2**62) / 2**62   # Σ e_i / 2^62
    a = fmpz_poly([int(x) for x in X[: 2 * t + 1]])
    b = fmpz_poly([int(x) for x in X[t::-1]])
    coeffs = (a * b).coeffs()
    D = [int(c) for c in coeffs[t: 2 * t + 1]]         # (FLINT drops the top zeros)
    half = [(d + (1 << 59)) >> 60 for d in D]          # w_k for k = 0..t
    while len(half) > 1 and half[-1] == 0:             # the same law on fewer points
        half.pop()
    residue = _ONE - (2 * sum(half) - half[0])
    if half[0] + residue < 0:
        raise CertificationError("Pólya-difference weights do not sum to one")
    half[0] += residue                                  # the mode is 0
    w = np.array(half[:0:-1] + half, dtype=np.uint64)
    conv = 2 * E + E * E + side
    err = Fraction(2 * t + 1, 2) + abs(residue) + 2 * _ONE * conv
    tv = (err / _ONE + 2 * side) / 2
    return len(half) - 1, w, tv
