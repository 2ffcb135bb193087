"""Certified privacy-loss distributions: two-sided δ(ε) and ε(δ) under composition.

For a pair of output laws (P, Q) the privacy loss is L(x) = log P(x)/Q(x), x ~ P, and the
hockey-stick divergence is

    δ(ε) = H_{e^ε}(P‖Q) = E_P[(1 − e^{ε−L})_+]   (+ P(Q = 0)),

so the k-fold (adaptive) composition of releases is read off the distribution of the sum of
k independent losses (Dwork–Rothblum 2016; Koskela et al. 2020; Meiser–Mohammadi 2018).

A :class:`LossGrid` is one certified *side* of such a distribution: Arb balls of P-mass on
the lattice ``offset + step·i`` (exact Fractions), plus, on the upper side, a mass at +∞.

* ``side="upper"`` (pessimistic): every mass is an upper bound and every atom sits at or
  above its true loss. Since (1 − e^{ε−s})_+ is non-decreasing in s and non-negative, any
  such dominating description gives an upper bound on δ(ε) — also after composition,
  because the sum of losses only moves up and every product of masses only grows. An atom
  between two grid points is *split* over them so that both its P- and Q-mass are kept
  ("connect the dots", Doroshenko et al. 2022): the split pair dominates the atom (merging
  the two is a post-processing), so the error is second order in the step.
* ``side="lower"`` (optimistic): masses are lower bounds and atoms sit at or below their
  true loss (rounded down); dropped mass only lowers δ.

Every arithmetic step is done in Arb balls; the ends read from them are certified. Exact
lattices (the discrete Laplace and discrete Gaussian laws of paper 000, randomized
response) keep ``upper`` and ``lower`` equal up to Arb's radius.
"""

from __future__ import annotations

import itertools
import math
import os
from contextlib import contextmanager
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

import flint
import mpmath
from flint import arb, fmpz_poly

from privtools.certified import balls as _arb
from privtools.certified import fixedpoint as _fixedpoint
from privtools.certified import intervals as _intervals
from privtools.certified.search import last_true
from privtools.errors import ParameterError
from privtools.validation import to_fraction

__all__ = ["LossGrid", "PrivacyLossDistribution", "DEFAULT_PREC", "DEFAULT_TAIL", "FIXED_BITS",
           "fixed", "fixed_all", "Level", "FULL", "level_for"]

DEFAULT_PREC = 192                      # Arb working precision (bits)
DEFAULT_TAIL = Fraction(1, 10**60)      # mass allowed to move per truncation
SIDES = ("upper", "lower")


FIXED_BITS = 256                         # masses are integers in units of 2^-256 (the
                                         # default; a grid may be held coarser: ``bits``)
_SCALE = arb(2) ** FIXED_BITS


@dataclass(frozen=True, order=True)
class Level:
    """How finely a composition is held: masses in units of 2^-``bits``, at most ``tail`` of
    mass moved per truncation. Both only loosen a certified end (rounding is outward,
    truncated mass moves up to +∞ or is dropped); a grid read at δ needs them far below δ,
    not at 2^-256."""

    bits: int
    tail: Fraction

    def covers(self, other: Level) -> bool:
        """Whether this level is at least as fine as ``other`` in both respects."""
        return self.bits >= other.bits and self.tail <= other.tail


FULL = Level(FIXED_BITS, DEFAULT_TAIL)
#: margin, in powers of two, between the δ read and the mass a level may move: a truncation
#: moves at most δ·2^-40 and a product at most 2^-32 of that per grid point
LEVEL_MARGIN = 40


def level_for(delta) -> Level:
    """The coarsest level whose rounding and truncation stay below δ·2^-40 in all (δ > 0):
    tail 2^-t with t = ⌈log2(1/δ)⌉ + 40, masses in units of 2^-bits with bits the multiple
    of 32 at or above t + 32 — every product then moves at most 2^-32 of the tail per grid
    point, and a composition holds at most 2^22 points and a few hundred products.
    :data:`FULL` once that reaches it (δ below about 1e-48)."""
    d = Fraction(delta)
    if d <= 0:
        return FULL
    t = (d.denominator // d.numerator).bit_length() + LEVEL_MARGIN   # >= log2(1/δ) + 40
    tail = Fraction(1, 1 << t)
    bits = max(64, -(-(t + 32) // 32) * 32)
    if tail <= DEFAULT_TAIL or bits >= FIXED_BITS:
        return FULL
    return Level(bits, tail)


def _ceil_ball(x: arb) -> int:
    """Ceiling of a ball's upper end (already in units of 2^-FIXED_BITS)."""
    return max(int(x.upper().ceil().unique_fmpz()), 0)


def _exp(x: Fraction) -> arb:
    return _arb.to_arb(x).exp()


def _floor_div(x: Fraction, step: Fraction) -> int:
    return math.floor(x / step)


def fixed(ball: arb, side: str, bits: int = FIXED_BITS) -> int:
    """A ball's mass in units of 2^-bits, rounded outward for the side: up (upper end,
    ceiling) for ``upper``, down (lower end, floor, at least 0) for ``lower``."""
    return fixed_all([ball], side, bits)[0]


def fixed_all(balls, side: str, bits: int = FIXED_BITS) -> list[int]:
    """:func:`fixed` of each ball, at one working precision (bits + 64, so that the
    product by 2^bits and its integer part are exact)."""
    scale = _SCALE if bits == FIXED_BITS else arb(2) ** bits
    out = []
    with _arb.precision(bits + 64):
        if side == "upper":
            for b in balls:
                out.append(max(int((b.upper() * scale).ceil().unique_fmpz()), 0))
        else:
            for b in balls:
                out.append(max(int((b.lower() * scale).floor().unique_fmpz()), 0))
    return out


@contextmanager
def _threads():
    """Let FLINT multiply on every core this process may use (at most 8)."""
    old = flint.ctx.threads
    try:
        flint.ctx.threads = max(1, min(8, len(os.sched_getaffinity(0))
                                       if hasattr(os, "sched_getaffinity") else
                                       (os.cpu_count() or 1)))
        yield
    finally:
        flint.ctx.threads = old


@dataclass(frozen=True)
class LossGrid:
    """One certified side of a privacy-loss distribution.

    ``masses[i]`` is the P-mass at loss ``offset + (start + i)·step`` in units of 2^-bits
    (exact non-negative integers: composition is exact integer convolution, each product
    rounded outward for the side); ``infinity`` the P-mass where Q = 0 (loss +∞), in the
    same units. Masses need not sum to one: upper-side masses are upper bounds, lower-side
    masses lower bounds. ``bits`` (default :data:`FIXED_BITS`) is the fixed-point
    precision: every product costs at most one unit of 2^-bits per grid point, so a grid
    read only at δ far above 2^-bits may be held coarser (:meth:`coarsen`), and its
    convolutions are cheaper.
    """

    side: str
    offset: Fraction
    step: Fraction
    start: int
    masses: tuple = field(repr=False, compare=False)
    infinity: int = field(default=0, repr=False, compare=False)
    prec: int = DEFAULT_PREC
    bits: int = FIXED_BITS

    def __post_init__(self):
        if self.side not in SIDES:
            raise ParameterError(f"side must be one of {SIDES}, got {self.side!r}")
        if not isinstance(self.masses, fmpz_poly) and not self.masses:
            raise ParameterError("masses must be non-empty")
        if self.step <= 0:
            raise ParameterError(f"step must be > 0, got {self.step}")
        if not (isinstance(self.bits, int) and 64 <= self.bits <= FIXED_BITS):
            raise ParameterError(f"bits must be an int in [64, {FIXED_BITS}], got "
                                 f"{self.bits!r}")

    @cached_property
    def _scale(self) -> arb:
        """2^bits as an exact ball."""
        return _SCALE if self.bits == FIXED_BITS else arb(2) ** self.bits

    @classmethod
    def from_balls(cls, side: str, offset: Fraction, step: Fraction, start: int, balls,
                   infinity: arb = None, prec: int = DEFAULT_PREC) -> LossGrid:
        """A side from Arb balls of mass (each rounded outward for the side)."""
        masses = tuple(fixed(b, side) for b in balls)
        inf = 0 if infinity is None else fixed(infinity, side)
        return cls(side, offset, step, start, masses, inf, prec)

    # ------------------------------------------------------------------ reading
    @cached_property
    def _seq(self) -> tuple:
        """The masses as a tuple of ints (they may be held as an integer polynomial, the
        form composition works in)."""
        if isinstance(self.masses, fmpz_poly):
            return tuple(int(c) for c in self.masses.coeffs()) or (0,)
        return tuple(self.masses)

    @cached_property
    def _poly(self) -> fmpz_poly:
        if isinstance(self.masses, fmpz_poly):
            return self.masses
        return fmpz_poly(list(self.masses))

    def __len__(self) -> int:
        return len(self._seq)

    def loss(self, i: int) -> Fraction:
        """Exact loss of the ``i``-th mass."""
        return self.offset + (self.start + i) * self.step

    @property
    def support(self) -> tuple[Fraction, Fraction]:
        """The smallest and largest loss on the grid."""
        return self.loss(0), self.loss(len(self) - 1)

    def total(self) -> int:
        """Finite mass, in units of 2^-bits."""
        if isinstance(self.masses, fmpz_poly):
            return int(self.masses(1))
        return sum(self.masses)

    def moments(self) -> tuple[float, float]:
        """Float mean and standard deviation of the finite part (for grid planning)."""
        w = [float(m) for m in self._seq]
        tot = sum(w)
        if tot <= 0:
            return float(self.loss(0)), 0.0
        base = float(self.loss(0))
        h = float(self.step)
        mean = sum(wi * i for i, wi in enumerate(w)) / tot
        var = sum(wi * (i - mean) ** 2 for i, wi in enumerate(w)) / tot
        return base + h * mean, h * math.sqrt(max(var, 0.0))

    # ------------------------------------------------------------------ composition
    def compose(self, other: LossGrid, tail=DEFAULT_TAIL) -> LossGrid:
        """Side of the composition (sum of independent losses); steps must agree."""
        if self.side != other.side:
            raise ParameterError("cannot compose an upper side with a lower side")
        if self.step != other.step:
            raise ParameterError(f"steps differ ({self.step} vs {other.step}); regrid first")
        if self.bits != other.bits:
            raise ParameterError(f"fixed-point bits differ ({self.bits} vs {other.bits}); "
                                 "coarsen first")
        with _threads():
            prod = self._poly * other._poly
        # tuples with at least one +∞ coordinate, under the product of the measures
        fa, fb = self.total(), other.total()
        wa, wb = self.infinity, other.infinity
        inf = wa * fb + wb * fa + wa * wb
        prod, inf = self._rounded(prod, inf, self.bits)
        if prod.length() == 0:
            prod = fmpz_poly([0])
        out = LossGrid(self.side, self.offset + other.offset, self.step,
                       self.start + other.start, prod, inf, max(self.prec, other.prec),
                       self.bits)
        return out.truncate(tail)

    def _rounded(self, masses: fmpz_poly, inf: int, shift: int) -> tuple[fmpz_poly, int]:
        """Masses and the +∞ mass divided by 2^shift, rounded outward for the side, each
        at its own loss: up (ceiling) on the upper side, down (floor) on the lower — inside
        FLINT (:mod:`privtools.certified.fixedpoint`)."""
        if self.side == "upper":
            return (_fixedpoint.ceil_masses(masses, shift),
                    _fixedpoint.shift(inf, shift, "up"))
        return (_fixedpoint.floor_masses(masses, shift)[0],
                _fixedpoint.shift(inf, shift, "down"))

    def coarsen(self, bits: int) -> LossGrid:
        """The same side held in units of 2^-bits (``bits`` at most this grid's): every
        mass rounded outward for the side (up on the upper side, down on the lower)."""
        if not (isinstance(bits, int) and 64 <= bits <= self.bits):
            raise ParameterError(f"bits must be an int in [64, {self.bits}], got {bits!r}")
        if bits == self.bits:
            return self
        masses, inf = self._rounded(self._poly, self.infinity, self.bits - bits)
        if masses.length() == 0:
            masses = fmpz_poly([0])
        return LossGrid(self.side, self.offset, self.step, self.start, masses, inf,
                        self.prec, bits)

    def power(self, k: int, tail=DEFAULT_TAIL) -> LossGrid:
        """k-fold composition with itself (binary powering, truncating as it goes)."""
        if k < 1:
            raise ParameterError(f"count must be >= 1, got {k}")
        result, base = None, self
        while True:
            if k & 1:
                result = base if result is None else result.compose(base, tail)
            k >>= 1
            if not k:
                return result
            base = base.compose(base, tail)

    def truncate(self, tail=DEFAULT_TAIL) -> LossGrid:
        """Move at most ``tail`` of mass out of each end, keeping the side's direction:
        upper — the low end is rounded up onto the first kept atom, the high end goes to
        +∞; lower — the low end is dropped, the high end rounded down onto the last kept."""
        ms = self.masses
        n = len(ms)
        budget = int(Fraction(tail) / 2 * (1 << self.bits))
        if isinstance(ms, fmpz_poly):
            def low(k):                 # the sum of the k lowest masses, in FLINT
                return int(ms.truncate(k)(1)) if k else 0

            def high(k):                # the sum of the k highest
                return int(ms.right_shift(n - k)(1)) if k else 0
        else:
            lows = [0, *itertools.accumulate(ms)]

            def low(k):
                return lows[k]

            def high(k):
                return lows[n] - lows[n - k]
        lo = _trimmed(low, n - 1, budget)
        low_mass = low(lo)
        hi = _trimmed(high, n - 1 - lo, budget)
        high_mass = high(hi)
        hi = n - 1 - hi
        while hi > lo and ms[hi] == 0:
            hi -= 1
        while lo < hi and ms[lo] == 0:
            lo += 1
        if lo == 0 and hi == n - 1:
            return self
        low_mass, high_mass = int(low_mass), int(high_mass)
        if isinstance(ms, fmpz_poly):
            kept = ms.truncate(hi + 1).right_shift(lo)
        else:
            kept = list(ms[lo:hi + 1])
        inf = self.infinity
        if self.side == "upper":
            kept[0] = kept[0] + low_mass
            inf += high_mass
        else:
            kept[hi - lo] = kept[hi - lo] + high_mass
        if not isinstance(kept, fmpz_poly):
            kept = tuple(kept)
        return LossGrid(self.side, self.offset, self.step, self.start + lo, kept, inf,
                        self.prec, self.bits)

    def regrid(self, step: Fraction, offset: Fraction = Fraction(0)) -> LossGrid:
        """The same side on the lattice ``offset + step·Z``: exact atoms stay, others are
        split over their two neighbours (upper, keeping P- and Q-mass) or rounded down
        (lower)."""
        step = Fraction(step)
        if step <= 0:
            raise ParameterError(f"step must be > 0, got {step}")
        if step == self.step and (self.offset - offset) % step == 0:
            shift = (self.offset - offset) // step
            return LossGrid(self.side, offset, step, self.start + int(shift), self._seq,
                            self.infinity, self.prec, self.bits)
        base = self.offset + self.start * self.step - offset      # loss of masses[0] − offset
        ratio = self.step / step
        pos0 = base / step
        if self.side == "lower":
            new_int: dict[int, int] = {}
            for i, m in enumerate(self._seq):
                if m:
                    j = math.floor(pos0 + i * ratio)
                    new_int[j] = new_int.get(j, 0) + m
            lo, hi = min(new_int), max(new_int)
            masses = tuple(new_int.get(j, 0) for j in range(lo, hi + 1))
            return LossGrid(self.side, offset, step, lo, masses, self.infinity, self.prec,
                            self.bits)
        new: dict[int, arb] = {}
        exact: dict[int, int] = {}
        with _arb.precision(self.prec):
            weights: dict[Fraction, tuple[arb, arb]] = {}
            denom = 1 - _exp(-step)
            for i, m in enumerate(self._seq):
                if not m:
                    continue
                pos = pos0 + i * ratio
                j = math.floor(pos)
                theta = pos - j
                if theta == 0:
                    exact[j] = exact.get(j, 0) + m
                    continue
                wt = weights.get(theta)
                if wt is None:
                    e = _exp(-theta * step)
                    # Doroshenko et al. (2022): keep P-mass m and Q-mass m·e^{−l}
                    wt = ((e - (1 - denom)) / denom, (1 - e) / denom)
                    weights[theta] = wt
                mm = arb(m)
                new[j] = new.get(j, arb(0)) + mm * wt[0]
                new[j + 1] = new.get(j + 1, arb(0)) + mm * wt[1]
            keys = set(new) | set(exact)
            lo, hi = min(keys), max(keys)
            masses = tuple(exact.get(j, 0) + (_ceil_ball(new[j]) if j in new else 0)
                           for j in range(lo, hi + 1))
        return LossGrid(self.side, offset, step, lo, masses, self.infinity, self.prec,
                        self.bits)

    # ------------------------------------------------------------------ δ(ε) and ε(δ)
    @cached_property
    def _suffix(self) -> tuple[list[int], list[arb]]:
        """S1[i] = Σ_{j>=i} m_j (exact ints) and S2[i] = Σ_{j>=i} m_j e^{−l_j} (balls), both
        in units of 2^-bits (length n + 1; :meth:`_sums` scales one index)."""
        n = len(self._seq)
        s1 = list(itertools.accumulate(reversed(self._seq), initial=0))[::-1]
        with _arb.precision(self.prec + 32):
            r = _exp(-self.step)
            e = _exp(-self.loss(n - 1))
            s2 = [arb(0)] * (n + 1)
            for i in range(n - 1, -1, -1):
                m = self._seq[i]
                s2[i] = s2[i + 1] + m * e if m else s2[i + 1]
                e = e / r
        return s1, s2

    def _sums(self, first: int) -> tuple[arb, arb]:
        """(S1[first], S2[first]) as masses (balls; call at the working precision)."""
        s1, s2 = self._suffix
        unit = arb(1) / self._scale
        return arb(s1[first]) * unit, s2[first] * unit

    def _delta_ball(self, eps: Fraction) -> arb:
        """Ball around this side's δ(ε) (atoms strictly above ε count)."""
        first = _floor_div(eps - self.offset, self.step) - self.start + 1
        first = min(max(first, 0), len(self._seq))
        with _arb.precision(self.prec + 32):
            s1, s2 = self._sums(first)
            d = s1 - _exp(eps) * s2 + arb(self.infinity) / self._scale
        return d

    def delta(self, eps) -> mpmath.mpf:
        """Certified bound on δ(ε) on this side's direction (upper or lower end)."""
        d = self._delta_ball(to_fraction("eps", eps))
        if self.side == "upper":
            return min(mpmath.mpf(1), max(mpmath.mpf(0), _arb.upper_mpf(d)))
        return max(mpmath.mpf(0), _arb.lower_mpf(d))

    def _segment_solution(self, first: int, delta: arb) -> mpmath.mpf | tuple:
        """Certified ends ``(lo, hi)`` of the solution ε of S1[first] + ∞-mass − e^ε
        S2[first] = δ (δ on the segment just below atom ``first``): ``(−inf, −inf)`` when the
        left side is <= δ for every ε, ``(−inf, +inf)`` when undecided."""
        with _arb.precision(self.prec + 32):
            s1, s2 = self._sums(first)
            num = s1 + arb(self.infinity) / self._scale - delta
            if num <= 0 or s2 == 0:
                return mpmath.ninf, mpmath.ninf
            if not (num > 0 and s2 > 0):
                return mpmath.ninf, mpmath.inf
            sol = (num / s2).log()
            return _arb.lower_mpf(sol), _arb.upper_mpf(sol)

    def epsilon(self, delta) -> mpmath.mpf:
        """Certified bound on ε(δ) = inf{ε >= 0 : δ(ε) <= δ} on this side's direction
        (+inf on the upper side when no finite ε reaches δ)."""
        dq = to_fraction("delta", delta)
        n = len(self._seq)
        d_arb = _arb.to_arb(dq)
        d_lo, d_hi = _intervals.fraction_bounds(dq, self.prec)
        upper = self.side == "upper"

        def ok(j: int) -> bool:
            # upper: certified δ_up(l_j) <= δ; lower: certified δ_low(l_j) >= δ
            d = self._delta_ball(self.loss(j))
            return _arb.upper_mpf(d) <= d_lo if upper else _arb.lower_mpf(d) >= d_hi

        with mpmath.workprec(self.prec + 64):
            if upper:
                if not ok(n - 1):
                    return mpmath.inf
                # smallest j with ok(j): ok holds from there up to n − 1
                j = last_true(lambda i: i >= 0 and ok(i), n - 1, 1, -1)
                top = self._segment_solution(j, d_arb)[1]
                val = min(_fraction_mpf_up(self.loss(j)), top)
                if j > 0:
                    val = max(val, _fraction_mpf_down(self.loss(j - 1)))
                return max(mpmath.mpf(0), val)
            if not ok(0):
                # δ_low(l_0) < δ: only the segment below l_0 can still carry δ
                low = self._segment_solution(0, d_arb)[0]
                return max(mpmath.mpf(0), min(low, _fraction_mpf_down(self.loss(0))))
            j = last_true(lambda i: i < n and ok(i), 0, 1, 1)    # largest j with ok(j)
            if j == n - 1:
                return max(mpmath.mpf(0), _fraction_mpf_down(self.loss(j)))
            low = self._segment_solution(j + 1, d_arb)[0]
            val = max(_fraction_mpf_down(self.loss(j)),
                      min(low, _fraction_mpf_down(self.loss(j + 1))))
            return max(mpmath.mpf(0), val)


def _trimmed(prefix, most: int, budget: int) -> int:
    """The largest k <= ``most`` with ``prefix(k)`` <= ``budget``, for a non-decreasing
    ``prefix`` (the sum of the k masses nearest one end): a doubling search, then
    bisection, so the work follows what is trimmed rather than the grid's length."""
    good, k = 0, 1
    while k <= most and prefix(k) <= budget:
        good, k = k, 2 * k
    bad = min(k, most + 1)
    while bad - good > 1:
        mid = (good + bad) // 2
        if prefix(mid) <= budget:
            good = mid
        else:
            bad = mid
    return good


def _fraction_mpf_up(q: Fraction) -> mpmath.mpf:
    return _intervals.fraction_bounds(q, 128)[1]


def _fraction_mpf_down(q: Fraction) -> mpmath.mpf:
    return _intervals.fraction_bounds(q, 128)[0]


@dataclass(frozen=True)
class PrivacyLossDistribution:
    """Certified two-sided PLD of a release (or of a composition of releases).

    ``forward = (upper, lower)`` describes the loss of P against Q, ``reverse`` that of Q
    against P (``None`` when the pair is symmetric, e.g. symmetric noise shifted by Δ, where
    both directions have the same distribution). δ(ε) is the larger of the two directions.
    """

    forward: tuple[LossGrid, LossGrid]
    reverse: tuple[LossGrid, LossGrid] | None = None

    def __post_init__(self):
        for pair in (self.forward,) + ((self.reverse,) if self.reverse else ()):
            if len(pair) != 2 or pair[0].side != "upper" or pair[1].side != "lower":
                raise ParameterError("each direction must be an (upper, lower) pair of "
                                     "LossGrids")

    @property
    def directions(self) -> tuple[tuple[LossGrid, LossGrid], ...]:
        """The loss grids measured: ``(forward,)``, or ``(forward, reverse)`` when both
        directions of the pair are kept."""
        return (self.forward,) if self.reverse is None else (self.forward, self.reverse)

    @property
    def step(self) -> Fraction:
        """The spacing of the loss grid."""
        return self.forward[0].step

    def compose(self, other: PrivacyLossDistribution, tail=DEFAULT_TAIL
                ) -> PrivacyLossDistribution:
        """Composition with ``other`` (its steps must agree: build both on one step)."""
        def comp(a, b):
            return (a[0].compose(b[0], tail), a[1].compose(b[1], tail))
        fwd = comp(self.forward, other.forward)
        if self.reverse is None and other.reverse is None:
            return PrivacyLossDistribution(fwd, None)
        rev = comp(self.reverse or self.forward, other.reverse or other.forward)
        return PrivacyLossDistribution(fwd, rev)

    def coarsen(self, level: Level) -> PrivacyLossDistribution:
        """Every grid held at ``level``: masses in units of 2^-bits (rounded outward), then
        truncated at its tail."""
        def at(pair):
            return tuple(g.coarsen(min(level.bits, g.bits)).truncate(level.tail) for g in pair)
        return PrivacyLossDistribution(at(self.forward),
                                       None if self.reverse is None else at(self.reverse))

    def self_compose(self, count: int, tail=DEFAULT_TAIL) -> PrivacyLossDistribution:
        """``count``-fold composition with itself."""
        def pw(pair):
            return (pair[0].power(count, tail), pair[1].power(count, tail))
        return PrivacyLossDistribution(pw(self.forward),
                                       None if self.reverse is None else pw(self.reverse))

    def delta(self, epsilon) -> _intervals.Interval:
        """Certified interval for δ(ε) = max over directions of H_{e^ε}."""
        eps = to_fraction("epsilon", epsilon)
        ups = [d[0].delta(eps) for d in self.directions]
        lows = [d[1].delta(eps) for d in self.directions]
        return _intervals.interval(max(lows), max(ups))

    def epsilon(self, delta) -> _intervals.Interval:
        """Certified interval for ε(δ) = inf{ε >= 0 : δ(ε) <= δ}."""
        dq = to_fraction("delta", delta)
        if not (0 < dq <= 1):
            raise ParameterError(f"delta must be in (0, 1], got {delta!r}")
        ups = [d[0].epsilon(dq) for d in self.directions]
        lows = [d[1].epsilon(dq) for d in self.directions]
        return _intervals.interval(max(lows), max(ups))
