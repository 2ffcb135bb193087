"""Certified PMFs on an integer range: the object every exact check reads.

An :class:`ExactPMF` describes a distribution P on Z (or on Z_m after :func:`wrap`) as

    P = A + R,

where ``A(k)`` lies in the Arb ball ``balls[k - lo]`` for ``k = lo..hi`` and ``R`` is an
unknown non-negative measure of total mass at most ``unaccounted`` (for a PMF on Z it
lives outside ``[lo, hi]``; after wrapping it may sit anywhere in Z_m). Every quantity
computed from it can therefore be given as a certified interval.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
import numpy as np
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified import intervals as _intervals
from privtools.certified.rounding import add_up, div_up, sub_down
from privtools.errors import CertificationError, ParameterError
from privtools.noise import IntegerDistribution
from privtools.validation import check_dps, check_int

__all__ = ["ExactPMF", "shift", "wrap", "total_variation"]


@dataclass(frozen=True)
class ExactPMF:
    """Certified PMF on ``lo..lo+len(balls)-1`` with certified unaccounted mass."""

    lo: int
    balls: tuple[arb, ...]
    unaccounted: mpmath.mpf
    dps: int
    modulus: int | None = None
    label: str = field(default="", compare=False)

    def __post_init__(self):
        if not self.balls:
            raise ParameterError("balls must be non-empty")
        if self.modulus is not None and (self.lo != 0 or len(self.balls) != self.modulus):
            raise ParameterError("a wrapped PMF must cover 0..modulus-1")

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_distribution(cls, dist: IntegerDistribution, dps: int = 50, tail=None,
                          label: str = "") -> ExactPMF:
        """Tabulate ``dist`` on a range whose outside mass is certified below ``tail``
        (default ``10**-dps``), each value correct to ``dps`` digits."""
        dps = check_dps(dps)
        tail = _check_tail(tail, dps)
        lo, hi, bound = dist.exact_support(tail, dps=min(dps, 30))
        balls = _certified_balls(lambda prec: dist.pmf_balls(lo, hi, prec), dps)
        return cls(lo, tuple(balls), bound, dps, label=label or repr(dist))

    # ---------------------------------------------------------------- reading
    @property
    def hi(self) -> int:
        """The largest point of the stored window."""
        return self.lo + len(self.balls) - 1

    @property
    def support(self) -> range:
        """The points of the stored window, ``range(lo, hi + 1)``."""
        return range(self.lo, self.hi + 1)

    def __len__(self) -> int:
        return len(self.balls)

    def ball(self, k: int) -> arb:
        """Ball for the accounted mass at ``k`` (exact 0 outside the range)."""
        k = check_int("k", k)
        if self.modulus is not None:
            k %= self.modulus
        if self.lo <= k <= self.hi:
            return self.balls[k - self.lo]
        return arb(0)

    def pmf(self, k) -> mpmath.mpf:
        """Midpoint of the accounted mass at ``k`` as mpmath (true value lies within
        ``10**-dps`` relative, plus at most ``unaccounted``)."""
        return _arb.to_mpf(self.ball(k))

    def values(self) -> list[mpmath.mpf]:
        """The certified values' midpoints as mpmath numbers, in window order."""
        return [_arb.to_mpf(b) for b in self.balls]

    def to_numpy(self) -> np.ndarray:
        """Float64 view (values below ~1e-308 underflow to 0)."""
        return np.array([float(b) for b in self.balls])

    def _bits(self) -> int:
        return _arb.bits_for_dps(self.dps) + 2 * _arb.GUARD_BITS

    def mass(self) -> arb:
        """Ball around the accounted mass (1 − mass <= unaccounted)."""
        with _arb.precision(self._bits()):
            return sum(self.balls, arb(0))

    def moment(self, order: int, about: int = 0) -> arb:
        """Ball around Σ (k − about)^order A(k) (the accounted part only)."""
        with _arb.precision(self._bits()):
            return sum(((k - about) ** order * b for k, b in zip(self.support, self.balls)),
                       arb(0))

    def __repr__(self) -> str:
        kind = f"Z_{self.modulus}" if self.modulus else f"[{self.lo}, {self.hi}]"
        return (f"ExactPMF({self.label or '?'} on {kind}, dps={self.dps}, "
                f"unaccounted<={mpmath.nstr(self.unaccounted, 3)})")


def shift(P: ExactPMF, k: int) -> ExactPMF:
    """Law of X + k: the mechanism's output when the true (integer) query value is ``k``."""
    k = check_int("k", k)
    if P.modulus is not None:
        m = P.modulus
        s = k % m
        balls = P.balls[m - s:] + P.balls[: m - s] if s else P.balls
        return ExactPMF(0, balls, P.unaccounted, P.dps, m, label=f"{P.label}+{k}")
    return ExactPMF(P.lo + k, P.balls, P.unaccounted, P.dps, label=f"{P.label}+{k}")


def wrap(P: ExactPMF, m: int) -> ExactPMF:
    """Law of X mod m — what the server sees after a modular secure sum (000 Alg. 2/3)."""
    m = check_int("m", m, minimum=1)
    if P.modulus is not None:
        if P.modulus % m:
            raise ParameterError(f"m={m} must divide the existing modulus {P.modulus}")
    out = [arb(0)] * m
    with _arb.precision(_arb.bits_for_dps(P.dps) + 2 * _arb.GUARD_BITS):
        for k, b in zip(P.support, P.balls):
            out[k % m] = out[k % m] + b
    return ExactPMF(0, tuple(out), P.unaccounted, P.dps, m, label=f"({P.label}) mod {m}")


def total_variation(P: ExactPMF, Q: ExactPMF) -> mpmath.mpi:
    """Certified interval containing TV(P, Q) = ½ Σ |P(k) − Q(k)|.

    With P = A + R and Q = B + S, |TV(P,Q) − ½Σ|A − B|| <= ½(|R| + |S|).
    """
    _check_same_space(P, Q)
    lo, hi = min(P.lo, Q.lo), max(P.hi, Q.hi)
    bits = _arb.bits_for_dps(max(P.dps, Q.dps)) + 2 * _arb.GUARD_BITS
    with _arb.precision(bits), mpmath.workprec(bits):
        acc = arb(0)
        for k in range(lo, hi + 1):
            acc += abs(P.ball(k) - Q.ball(k))
        core = acc / 2
        # directed rounding keeps the interval an enclosure
        slack = div_up(add_up(P.unaccounted, Q.unaccounted), 2)
        low = max(mpmath.mpf(0), sub_down(_arb.lower_mpf(core), slack))
        high = min(mpmath.mpf(1), add_up(_arb.upper_mpf(core), slack))
    return _intervals.interval(low, high)


# ------------------------------------------------------------------------ helpers
def _check_same_space(P: ExactPMF, Q: ExactPMF) -> None:
    if not isinstance(P, ExactPMF) or not isinstance(Q, ExactPMF):
        raise ParameterError("P and Q must be ExactPMF values")
    if P.modulus != Q.modulus:
        raise ParameterError(f"P and Q live on different spaces (modulus {P.modulus} vs "
                             f"{Q.modulus})")


def _check_tail(tail, dps: int) -> mpmath.mpf:
    if tail is None:
        return mpmath.mpf(10) ** (-dps)
    if isinstance(tail, Fraction):
        with mpmath.workprec(max(64, tail.denominator.bit_length() + 64)):
            t = mpmath.mpf(tail.numerator) / tail.denominator
    else:
        t = mpmath.mpf(tail)
    if not (t > 0 and t < 1):
        raise ParameterError(f"tail must be in (0, 1), got {tail!r}")
    return t


def _certified_balls(compute, dps: int, guard: int = _arb.GUARD_BITS) -> list[arb]:
    """Run ``compute(prec)`` with rising precision until every non-zero ball carries
    ``dps`` significant digits."""
    bits = _arb.bits_for_dps(dps) + guard
    for _ in range(6):
        balls = compute(bits)
        if all(b.is_zero() or _arb.has_digits(b, dps) for b in balls):
            return balls
        bits *= 2
    raise CertificationError(f"could not certify {dps} digits (precision reached {bits} bits)")
