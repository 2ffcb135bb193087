"""The law of each draw a path conditions on, as certified functions for the integrator.

An atom ``(call, element)`` of a tracked run is a draw minus its location (a location
family) or the draw itself; its law is read from the call:

* continuous — ``laplace(scale=b)``, ``normal(scale=σ)``/``standard_normal``,
  ``gumbel(scale=β)``, ``logistic(scale=s)``, ``exponential(scale=β)``/
  ``standard_exponential``, ``random`` and ``uniform`` (the atom is uniform on
  ``[0, width)``): density and distribution function as Arb balls, analytic between the
  law's breakpoints (the Laplace's 0, a support's ends), which the integrator splits at;
* discrete — a privtools law, numpy's ``integers``/``binomial``/``geometric``/… and
  ``choice`` (weights read at their binary values, normalised): a certified PMF
  (:class:`privtools.exact.ExactPMF`) with its unaccounted mass.

The continuous laws are those of the real-arithmetic model; their floating-point samplers
are not certified by this (Mironov, CCS 2012).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from flint import arb

from privtools.exact import ExactPMF

from ..certify.discrete import draw_pmf
from ..record.recorder import Call, as_fraction

__all__ = ["AtomLaw", "law_of", "finite_support", "CONTINUOUS"]

#: numpy methods whose atoms are continuous laws the integrator knows.
CONTINUOUS = ("laplace", "normal", "standard_normal", "gumbel", "logistic", "exponential",
              "standard_exponential", "random", "uniform")
_MAX_SUPPORT = 1 << 14


@dataclass(frozen=True)
class AtomLaw:
    """One draw's law: ``family`` (a name of :data:`CONTINUOUS`, or ``"discrete"``),
    ``scale`` (continuous), ``lo``/``hi`` the support's ends (None: unbounded) and, for a
    discrete law, ``pmf`` (an ExactPMF) with its prefix sums."""

    family: str
    scale: Fraction = Fraction(1)
    lo: Fraction | None = None
    hi: Fraction | None = None
    pmf: object = None
    text: str = ""

    @property
    def discrete(self) -> bool:
        return self.family in ("discrete", "uniform-integer")

    @property
    def finite(self) -> bool:
        """Whether every value of the law is in its table (no unaccounted mass)."""
        return self.family == "uniform-integer" or (
            self.family == "discrete" and self.pmf[0].unaccounted == 0)

    def values(self) -> range:
        """The integers a discrete law's table covers."""
        return range(int(self.lo), int(self.hi) + 1)

    def mass(self, a: int, b: int):
        """The certified mass of ``a..b`` inside the table (an Arb ball; 0 when a > b)."""
        if self.family == "uniform-integer":
            n = int(self.hi) - int(self.lo) + 1
            lo, hi = max(a, int(self.lo)), min(b, int(self.hi))
            return arb(0) if lo > hi else arb(hi - lo + 1) / n
        pmf, prefix = self.pmf
        lo, hi = max(a, pmf.lo), min(b, pmf.hi)
        return arb(0) if lo > hi else prefix[hi - pmf.lo + 1] - prefix[lo - pmf.lo]

    def point(self, k: int):
        """The certified mass of one value."""
        return self.mass(k, k)

    def breakpoints(self) -> tuple:
        """Where the continuous law's analytic formulas change."""
        if self.family == "laplace":
            return (Fraction(0),)
        return tuple(x for x in (self.lo, self.hi) if x is not None)

    # ------------------------------------------------------------ continuous, in balls
    def pdf(self, z, side: int):
        """The density at ``z`` (acb or arb) on the analytic piece ``side`` (the sign of
        the argument for the Laplace; inside the support otherwise)."""
        b = arb(self.scale.numerator) / self.scale.denominator
        f = self.family
        if f == "laplace":
            return (-abs_piece(z, side) / b).exp() / (2 * b)
        if f in ("normal", "standard_normal"):
            return (-(z * z) / (2 * b * b)).exp() / (b * (2 * arb.pi()).sqrt())
        if f == "gumbel":
            y = z / b
            return (-y - (-y).exp()).exp() / b
        if f == "logistic":
            e = (-z / b).exp()
            return e / (b * (1 + e) ** 2)
        if side != 0:                       # outside the support
            return z * 0
        if f in ("exponential", "standard_exponential"):
            return (-z / b).exp() / b
        return z * 0 + 1 / b                # uniform on [0, width)

    def cdf(self, z, side: int):
        """The distribution function at ``z`` on the analytic piece ``side`` (-1 below a
        support's low end or the Laplace's 0, 1 above the high end, 0 inside)."""
        b = arb(self.scale.numerator) / self.scale.denominator
        f = self.family
        if f == "laplace":
            if side < 0:
                return (z / b).exp() / 2
            return 1 - (-z / b).exp() / 2
        if f in ("normal", "standard_normal"):
            return (-z / (b * arb(2).sqrt())).erfc() / 2
        if f == "gumbel":
            return (-(-z / b).exp()).exp()
        if f == "logistic":
            return 1 / (1 + (-z / b).exp())
        if side < 0:
            return z * 0
        if side > 0:
            return z * 0 + 1
        if f in ("exponential", "standard_exponential"):
            return 1 - (-z / b).exp()
        return z / b

    def side(self, x: Fraction) -> int:
        """The analytic piece ``x`` lies on (see :meth:`cdf`)."""
        if self.family == "laplace":
            return -1 if x < 0 else 1
        if self.lo is not None and x < self.lo:
            return -1
        if self.hi is not None and x > self.hi:
            return 1
        return 0

    def tail_bound(self, bits: int = 96) -> Fraction:
        """A radius outside which the law's mass is below 2⁻ᵇⁱᵗˢ (continuous laws)."""
        b = self.scale
        t = bits * math.log(2) + 2
        if self.family in ("normal", "standard_normal"):
            return b * Fraction(math.ceil(math.sqrt(2 * t)) + 1)
        if self.family == "gumbel":
            return b * Fraction(math.ceil(t) + 4)
        return b * Fraction(math.ceil(t) + 1)

    def tail_mass(self, lo: Fraction, hi: Fraction) -> arb:
        """An upper bound of the mass outside ``[lo, hi]`` (continuous laws)."""
        out = arb(0)
        if self.lo is None or lo > self.lo:
            out += self.cdf(_arb(lo), self.side(lo)).upper()
        if self.hi is None or hi < self.hi:
            out += (1 - self.cdf(_arb(hi), self.side(hi))).upper()
        return arb(0).union(out)


def abs_piece(z, side: int):
    return z if side >= 0 else -z


def _arb(q: Fraction) -> arb:
    return arb(q.numerator) / q.denominator


def _scale(call: Call, e: int) -> Fraction | None:
    if call.scale is None:
        return Fraction(1)
    s = as_fraction(np.asarray(call.scale).reshape(-1)[e])
    return s if s > 0 else None


def _choice_pmf(call: Call):
    p = call.params.get("p")
    n = int(call.params["n"])
    if not call.params.get("replace", True) and call.size > 1:
        return None
    if p is None:
        w = [Fraction(1, n)] * n
    else:
        arr = np.asarray(p, dtype=float).reshape(-1)
        if arr.size != n or not np.all(np.isfinite(arr)) or np.any(arr < 0):
            return None
        raw = [Fraction(float(x)) for x in arr]
        total = sum(raw)
        if total <= 0:
            return None
        w = [x / total for x in raw]
    balls = tuple(arb(q.numerator) / q.denominator for q in w)
    return ExactPMF(0, balls, mpmath.mpf(0), 30)


def law_of(call: Call, e: int) -> AtomLaw | None:
    """The law of atom ``(call.index, e)`` (None when the integrator does not know it)."""
    m = call.method
    if m in CONTINUOUS:
        s = _scale(call, e)
        if s is None:
            return None
        if m in ("laplace", "normal", "standard_normal", "gumbel", "logistic"):
            return AtomLaw(m, s, text=f"{m}(scale={float(s):g})")
        if m in ("exponential", "standard_exponential"):
            return AtomLaw(m, s, lo=Fraction(0), text=f"exponential(scale={float(s):g})")
        return AtomLaw(m, s, lo=Fraction(0), hi=s, text=f"uniform[0, {float(s):g})")
    if m == "integers":                    # uniform on a range: counted, not tabulated
        values = finite_support(call, e, limit=1 << 62)
        if values is None:
            return None
        return AtomLaw("uniform-integer", lo=Fraction(values.start),
                       hi=Fraction(values.stop - 1), text=f"integers[{values.start}, "
                       f"{values.stop})")
    pmf = _choice_pmf(call) if m == "choice" else (
        draw_pmf(m, call.params, call.law) if call.family in ("value", "law") else None)
    if pmf is None or len(pmf.balls) > _MAX_SUPPORT:
        return None
    prefix = [arb(0)]
    for ball in pmf.balls:
        prefix.append(prefix[-1] + ball)
    return AtomLaw("discrete", lo=Fraction(pmf.lo), hi=Fraction(pmf.hi),
                   pmf=(pmf, tuple(prefix)), text=m)


def finite_support(call: Call, e: int, limit: int = _MAX_SUPPORT):
    """The values an index draw can take (``choice``, ``integers``; at most ``limit``), or
    None."""
    if call.method == "choice":
        return range(int(call.params["n"]))
    if call.method == "integers":
        lo, hi = call.params.get("low"), call.params.get("high")
        try:
            lo_i = int(np.asarray(lo).reshape(-1)[e if np.size(lo) > 1 else 0])
            if hi is None:
                lo_i, hi_i = 0, lo_i
            else:
                hi_i = int(np.asarray(hi).reshape(-1)[e if np.size(hi) > 1 else 0])
        except (TypeError, ValueError):
            return None
        hi_i += 1 if call.params.get("endpoint") else 0
        return range(lo_i, hi_i) if 0 < hi_i - lo_i <= limit else None
    return None

