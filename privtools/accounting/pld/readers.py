"""Laws read exactly, without a loss grid: δ(ε) summed or in closed form, ε(δ) by certified
bisection. Same readers (``delta``, ``epsilon``) as
:class:`~privtools.accounting.pld.PrivacyLossDistribution`.

* :class:`AtomicLaw` — finitely many loss atoms (and masses at +∞ or of unknown loss):
  δ(ε) = Σ_{ℓ > ε} (P − e^ε Q) + P(ℓ = +∞), both directions; atoms whose loss ball holds ε
  count 0 on the lower end and their positive part on the upper end.
* :class:`SampledGaussianLaw` — one Gaussian release of μ = Δ²/(2σ²) inside a sampler of
  rate γ (Poisson under add/remove, Zhu, Dong and Wang 2022; without replacement under
  replace-one, Balle, Barthe and Gaboardi 2018): with the inner loss N(μ, 2μ) under P and
  N(−μ, 2μ) under Q, s = √(2μ),

      remove (γP + (1 − γ)Q against Q):  δ = γ(Φ((μ − t)/s) − e^t Φ((−μ − t)/s)),
                                          e^t = 1 + (e^ε − 1)/γ;
      add (Q against γP + (1 − γ)Q):     δ = c Φ((t′ + μ)/s) − γe^ε Φ((t′ − μ)/s),
                                          c = 1 − e^ε(1 − γ), e^{t′} = c/(γe^ε), when c > 0
                                          (else 0),

  in Arb balls: no grid, so a rate of 10⁻⁹ is read as exactly as one of 1/2.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified import intervals as _intervals

from . import DEFAULT_PREC
from .cells import Cells

__all__ = ["ATOM_WIDTH", "is_atom", "is_zero", "AtomicLaw", "SampledGaussianLaw"]

ATOM_WIDTH = Fraction(1, 2**100)   # a cell is an atom when its loss range is this narrow
_BITS = 64                         # bisection steps of ε(δ)


def is_zero(x: arb) -> bool:
    """Whether a mass ball is exactly 0 (not merely holding 0)."""
    return x.is_exact() and x == 0


def is_atom(lo, hi) -> bool:
    """Whether a cell's loss range ``[lo, hi]`` is one value (to ``ATOM_WIDTH``)."""
    if lo is None or hi is None:
        return False
    if lo is hi:
        return True
    if isinstance(lo, Fraction) and isinstance(hi, Fraction):
        return hi - lo <= ATOM_WIDTH
    w = _arb.to_arb(hi) - _arb.to_arb(lo)
    return bool(w.upper() <= _arb.to_arb(ATOM_WIDTH))


class _Reader:
    """δ(ε) from ``_bounds`` (certified lower and upper ends, Arb), ε(δ) by bisection."""

    prec: int = DEFAULT_PREC

    def directions(self) -> list:
        """Each direction's profile: exact ε (any sign) → certified (lower, upper) ends of
        that direction's δ(ε)."""
        raise NotImplementedError

    def _bounds(self, eps: Fraction) -> tuple[arb, arb]:
        """The larger of the directions' δ(ε), certified ends."""
        return _max_ends([h(eps) for h in self.directions()])

    def _right(self) -> Fraction:
        """An ε beyond which δ no longer falls (or falls below any δ asked)."""
        raise NotImplementedError

    def delta(self, epsilon) -> _intervals.Interval:
        lo, hi = self._bounds(Fraction(epsilon))
        return _intervals.interval(max(_arb.lower_mpf(lo), mpmath.mpf(0)),
                                   min(_arb.upper_mpf(hi), mpmath.mpf(1)))

    def epsilon(self, delta) -> _intervals.Interval:
        """Certified ε(δ) = inf{ε >= 0 : δ(ε) <= δ}: the upper end is an ε where the
        certified upper δ is <= δ, the lower end one where the certified lower δ is > δ
        (bisection to 2^-64 of the range searched)."""
        d = _arb.to_arb(Fraction(delta))
        right = self._right()

        def upper_ok(x):                            # certainly δ(x) <= δ
            return bool(self._bounds(x)[1] <= d)

        def lower_ok(x):                            # certainly δ(x) > δ
            return bool(self._bounds(x)[0] > d)

        zero = Fraction(0)
        if upper_ok(zero):
            up = zero
        elif upper_ok(right):
            up = _bisect(upper_ok, zero, right, keep="right")
        else:
            up = None                               # no ε in range certainly reaches δ
        if not lower_ok(zero):
            low = zero
        elif up is None and lower_ok(right):
            low = right                             # δ(ε) > δ up to ``right`` at least
        else:
            low = _bisect(lower_ok, zero, right if up is None else up, keep="left")
        lo_end = _intervals.fraction_bounds(low, self.prec)[0]
        hi_end = mpmath.inf if up is None else _intervals.fraction_bounds(up, self.prec)[1]
        return _intervals.interval(lo_end, hi_end)


def _bisect(ok, a: Fraction, b: Fraction, keep: str) -> Fraction:
    """``keep="right"``: ok(b) holds, ok(a) does not — the smallest dyadic point found with
    ok; ``keep="left"``: ok(a) holds, ok(b) does not — the largest found."""
    for _ in range(_BITS):
        m = (a + b) / 2
        if ok(m) == (keep == "right"):
            b = m
        else:
            a = m
    return b if keep == "right" else a


# ------------------------------------------------------------------------ atoms
class _Side:
    """One direction of an atomic law: atoms sorted by loss with suffix sums of their P- and
    Q-mass, the mass at +∞, and the P-mass of unknown loss."""

    def __init__(self, cells: Cells, prec: int):
        self.prec = prec
        with _arb.precision(prec + 32):
            atoms, unknown, p_inf = [], arb(0), cells.p_inf.nonnegative_part()
            for p, q, lo, hi in cells.cells:
                p, q = p.nonnegative_part(), q.nonnegative_part()
                if is_zero(q):
                    p_inf += p                      # Q = 0 here: loss +∞
                elif is_atom(lo, hi):
                    atoms.append((_arb.to_arb(lo), p, q))
                else:
                    unknown += p
            atoms.sort(key=lambda a: float(a[0].mid()))
            n = len(atoms)
            s1, s2 = [arb(0)] * (n + 1), [arb(0)] * (n + 1)
            for i in range(n - 1, -1, -1):
                s1[i], s2[i] = s1[i + 1] + atoms[i][1], s2[i + 1] + atoms[i][2]
        self.losses = [a[0] for a in atoms]
        self.atoms, self.s1, self.s2 = atoms, s1, s2
        self.p_inf, self.unknown = p_inf, unknown

    def _first_above(self, e: arb, certain: bool) -> int:
        """Index of the first atom whose loss is (certainly, or possibly) above ``e``."""
        lo, hi = 0, len(self.losses)
        while lo < hi:
            mid = (lo + hi) // 2
            x = self.losses[mid]
            if (x > e) if certain else not (x <= e):
                hi = mid
            else:
                lo = mid + 1
        return lo

    def bounds(self, eps: Fraction) -> tuple[arb, arb]:
        with _arb.precision(self.prec + 32):
            e = _arb.to_arb(eps)
            w = e.exp()
            sure = self._first_above(e, certain=True)
            maybe = self._first_above(e, certain=False)
            base = self.s1[sure] - w * self.s2[sure] + self.p_inf
            extra = arb(0)
            for i in range(maybe, sure):
                d = self.atoms[i][1] - w * self.atoms[i][2]
                if d.upper() > 0:
                    extra += arb(d.upper())
            low = arb(base.lower()) if base.lower() > 0 else arb(0)
            return low, arb((base + extra + self.unknown).upper())


class AtomicLaw(_Reader):
    """A law of finitely many loss atoms, read exactly (module docstring)."""

    def __init__(self, cells: Cells, symmetric: bool, prec: int = DEFAULT_PREC):
        self.prec = prec
        self.sides = [_Side(cells, prec)] if symmetric else \
            [_Side(cells, prec), _Side(cells.reversed(), prec)]

    def directions(self) -> list:
        return [side.bounds for side in self.sides]

    def _right(self):
        top = max((float(s.losses[-1].mid()) for s in self.sides if s.losses), default=0.0)
        return Fraction(max(top, 0.0)) + 1          # past every atom δ is constant


def _max_ends(ends):
    lo, hi = ends[0]
    for a, b in ends[1:]:
        lo, hi = _arb.exact_max(lo, a), _arb.exact_max(hi, b)
    return lo, hi


# ------------------------------------------------------------------------ sampled Gaussian
class SampledGaussianLaw(_Reader):
    """One Gaussian release (μ = Δ²/(2σ²)) sampled at rate γ, both directions, in closed
    form (module docstring)."""

    def __init__(self, mu: Fraction, rate: Fraction, prec: int = DEFAULT_PREC):
        self.mu, self.rate, self.prec = Fraction(mu), Fraction(rate), prec

    @staticmethod
    def _phi(x: arb) -> arb:
        return (-x / arb(2).sqrt()).erfc() / 2

    def _remove(self, e: arb, m: arb, s: arb, g: arb) -> arb:
        et = 1 + (e - 1) / g
        if et.upper() <= 0:                         # e^ε <= 1 − γ: the whole space counts
            return 1 - e
        if not et.lower() > 0:                      # undecided: between the two forms
            return arb(0).union(1 - e)
        t = et.log()
        return g * (self._phi((m - t) / s) - et * self._phi((-m - t) / s))

    def _add(self, e: arb, m: arb, s: arb, g: arb) -> arb:
        c = 1 - e * (1 - g)
        if c.upper() <= 0:
            return arb(0)
        if not c.lower() > 0:                       # undecided: 0 <= δ_add <= c
            return arb(0).union(arb(c.upper()))
        t2 = (c / (g * e)).log()
        return c * self._phi((t2 + m) / s) - g * e * self._phi((t2 - m) / s)

    def directions(self) -> list:
        """The two directions' profiles, ε → certified (lower, upper) ends of δ(ε)."""
        return [lambda eps: self._one(eps, self._remove), lambda eps: self._one(eps, self._add)]

    def _one(self, eps: Fraction, which) -> tuple[arb, arb]:
        with _arb.precision(self.prec + 64):
            m = _arb.to_arb(self.mu)
            d = which(_arb.to_arb(eps).exp(), m, (2 * m).sqrt(), _arb.to_arb(self.rate))
            lo = arb(d.lower()) if d.lower() > 0 else arb(0)
            return lo, arb(d.upper()) if d.upper() > 0 else arb(0)

    def _right(self):
        # the remove direction's δ at e^t = 1 + (e^ε − 1)/γ falls like Φ((μ − t)/s): t past
        # μ + 40 s leaves less than 1e-300; the add direction is 0 once e^ε >= 1/(1 − γ)
        x = float(self.mu) + 40 * (2 * float(self.mu)) ** 0.5
        eps = math.log1p(float(self.rate) * math.expm1(min(x, 700.0)))
        return Fraction(eps).limit_denominator(2**20) + 1
