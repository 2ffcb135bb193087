"""Releases as cells of their output space: the one construction behind every off-lattice
loss grid, and behind sampling.

A release is described by a partition of its output space into *cells*. A cell carries Arb
balls around its P-mass and Q-mass and a certified range ``[lo, hi]`` of the pointwise
privacy loss log dP/dQ on it (``None`` for −∞ / +∞). Two masses stand apart: the P-mass
where Q = 0 (loss +∞) and the Q-mass where P = 0 (loss −∞).

Both sides of a :class:`~privtools.accounting.pld.LossGrid` are read from the cells, and
both are second order in the grid step h:

* **upper** — each cell's (P, Q) is split over the grid points ⌊lo/h⌋·h and ⌈hi/h⌉·h,
  keeping both masses ("connect the dots", Doroshenko et al. 2022). Every pointwise atom of
  the cell splits that way, so the split pair dominates the cell (merging the two atoms
  back is a post-processing).
* **lower** — merging outputs is a post-processing, so any merged description is dominated
  by the release and gives lower bounds on δ(ε), also under composition. Cells are merged
  per grid interval; then a sweep upward merges the pool, whose loss lies in
  [g_i, g_{i+1}], with the fraction α of the next bucket that puts the merged loss exactly
  on g_{i+1}: (P₀ + αP₁) = e^{g_{i+1}}(Q₀ + αQ₁). α is taken at the upper end of its ball,
  so the merged loss is at or above the grid point it is placed on. Every atom then sits
  on the grid with exact masses (their lower ends are kept), instead of being rounded down
  by up to h.

Sampling is a mixture on the same partition: the pair (γP + (1 − γ)Q, Q) has, on each cell,
masses γP + (1 − γ)Q and Q and pointwise loss log(1 − γ + γe^ℓ), a monotone image of the
cell's range (Zhu, Dong and Wang 2022: Poisson subsampling under add/remove; Balle,
Barthe and Gaboardi 2018: sampling without replacement).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from privtools.certified import balls as _arb
from privtools.certified import intervals as _intervals

from . import LossGrid, fixed, fixed_all

__all__ = ["Cells", "upper_grid", "lower_grid", "to_grid", "loss_moments"]


@dataclass(frozen=True)
class Cells:
    """A release's pair (P, Q) on a partition of its output space.

    ``cells``: tuples ``(p, q, lo, hi)`` — balls around the cell's P- and Q-mass and the
    certified range of the pointwise loss on it (``lo``/``hi`` exact Fractions, Arb values,
    or ``None`` for −∞ / +∞); ``p_inf``: P-mass where Q = 0; ``q_inf``: Q-mass where P = 0.
    """

    cells: tuple
    p_inf: arb = arb(0)
    q_inf: arb = arb(0)

    def reversed(self) -> Cells:
        """The pair (Q, P): masses swapped, loss ranges negated."""
        def neg(x):
            return None if x is None else -x

        out = []
        for p, q, lo, hi in self.cells:
            if lo is hi and lo is not None:             # an atom stays one value
                x = -lo
                out.append((q, p, x, x))
            else:
                out.append((q, p, neg(hi), neg(lo)))
        return Cells(tuple(out), self.q_inf, self.p_inf)

    def mixed(self, rate) -> Cells:
        """The pair (γP + (1 − γ)Q, Q) for γ = ``rate`` in (0, 1]: the release run on a
        subsample that holds the differing record with probability γ."""
        rate = Fraction(rate)
        if rate == 1:
            return self
        g = _arb.to_arb(rate)
        c = 1 - g
        floor = c.log()                       # the loss where P = 0 (ℓ = −∞)

        def image(x):
            return (c + g * _arb.to_arb(x).exp()).log()

        out = []
        for p, q, lo, hi in self.cells:
            if lo is hi and lo is not None:             # an atom stays one value
                x = image(lo)
                out.append((g * p + c * q, q, x, x))
                continue
            out.append((g * p + c * q, q, floor if lo is None else image(lo),
                        None if hi is None else image(hi)))
        if self.q_inf.upper() > 0:
            out.append((c * self.q_inf, self.q_inf, floor, floor))
        return Cells(tuple(out), g * self.p_inf, arb(0))

    def moments(self) -> tuple[float, float, float, float]:
        """(mean, sd, min, max) of the loss under P, in floats (grid planning only)."""
        out = loss_moments((p, q) for p, q, _, _ in self.cells)
        return (0.0, 0.0, 0.0, 0.0) if out is None else out


def loss_moments(pairs) -> tuple[float, float, float, float] | None:
    """(mean, sd, min, max) under P of the loss log(p/q) over ``(p, q)`` mass balls, in
    floats (grid planning only); None when no pair has both masses positive."""
    tot = mean = sq = 0.0
    lo, hi = math.inf, -math.inf
    for p, q in pairs:
        pf, qf = float(p.mid()), float(q.mid())
        if pf <= 0 or qf <= 0:
            # a mass below float's range (e^-1000) is still a point of the loss's range
            pm, qm = p.mid(), q.mid()
            if pf <= 0 or not qm > 0:
                continue
            ell = float((pm / qm).log())
            lo, hi = min(lo, ell), max(hi, ell)
            continue
        ell = math.log(pf) - math.log(qf)
        tot += pf
        mean += pf * ell
        sq += pf * ell * ell
        lo, hi = min(lo, ell), max(hi, ell)
    if tot <= 0:
        return None
    mean /= tot
    return mean, math.sqrt(max(sq / tot - mean * mean, 0.0)), lo, hi


def to_grid(side: str, masses: dict, step: Fraction, inf: arb, prec: int) -> LossGrid:
    """A :class:`LossGrid` side from ``{grid index: mass ball}`` (masses rounded outward)."""
    fixed_inf = fixed(inf, side)
    if not masses:
        return LossGrid(side, Fraction(0), step, 0, (0,), fixed_inf, prec)
    lo, hi = min(masses), max(masses)
    out = [0] * (hi - lo + 1)
    for j, v in zip(masses, fixed_all(masses.values(), side)):
        out[j - lo] = v
    return LossGrid(side, Fraction(0), step, lo, tuple(out), fixed_inf, prec)


def _add(d: dict, k: int, v: arb) -> None:
    d[k] = d[k] + v if k in d else v


class _Grid:
    """Index arithmetic on the lattice step·Z: exact for Fraction ends, through Arb (falling
    back to exact rationals when a ball straddles an integer) for Arb ends."""

    def __init__(self, step: Fraction):
        self.step = step
        self._num, self._den = step.numerator, step.denominator
        self.h = _arb.to_arb(step)
        self.inv = _arb.to_arb(1 / step)
        self._exp: dict[int, arb] = {}

    def floor(self, x) -> int:
        """⌊x/h⌋ of the lower end of ``x``."""
        if isinstance(x, Fraction):      # in integers: x/h = (a·d)/(b·c), no gcd taken
            return (x.numerator * self._den) // (x.denominator * self._num)
        lo = arb(x.lower())
        n = (lo * self.inv).floor().unique_fmpz()
        if n is not None:
            return int(n)
        return math.floor(_intervals.exact_rational(_arb.lower_mpf(lo)) / self.step)

    def ceil(self, x) -> int:
        """⌈x/h⌉ of the upper end of ``x``."""
        if isinstance(x, Fraction):
            return -((-x.numerator * self._den) // (x.denominator * self._num))
        hi = arb(x.upper())
        n = (hi * self.inv).ceil().unique_fmpz()
        if n is not None:
            return int(n)
        return math.ceil(_intervals.exact_rational(_arb.upper_mpf(hi)) / self.step)

    def exp_neg(self, i: int) -> arb:
        """e^{−i·h}."""
        e = self._exp.get(i)
        if e is None:
            e = self._exp[i] = (-(i * self.h)).exp()
        return e


def upper_grid(cells: Cells, step: Fraction, prec: int) -> LossGrid:
    """The pessimistic side: every cell split over the grid points around its loss range,
    keeping its P- and Q-mass (their outward ends)."""
    up: dict[int, arb] = {}
    with _arb.precision(prec + 32):
        g = _Grid(step)
        inf = arb(cells.p_inf.upper())
        for p, q, lo, hi in cells.cells:
            p, q = p.nonnegative_part(), q.nonnegative_part()
            if not p.upper() > 0:
                continue
            p_hi = arb(p.upper())
            if hi is None:
                inf += p_hi                                   # the loss may be +∞
                continue
            i_hi = g.ceil(hi)
            if lo is None:
                _add(up, i_hi, p_hi)                          # rounded up, P kept
                continue
            i_lo = g.floor(lo)
            if i_lo >= i_hi:                                  # exactly on a grid point
                _add(up, i_hi, p_hi)
                continue
            p_lo = arb(p.lower()) if p.lower() > 0 else arb(0)
            q_lo = arb(q.lower()) if q.lower() > 0 else arb(0)
            q_hi = arb(q.upper())
            e_a, e_b = g.exp_neg(i_lo), g.exp_neg(i_hi)
            den = e_a - e_b
            to_b = ((p_hi * e_a - q_lo) / den).nonnegative_part()
            to_a = ((q_hi - p_lo * e_b) / den).nonnegative_part()
            _add(up, i_lo, arb(to_a.upper()))
            _add(up, i_hi, arb(to_b.upper()))
    return to_grid("upper", up, step, inf, prec)


def lower_grid(cells: Cells, step: Fraction, prec: int) -> LossGrid:
    """The optimistic side: cells merged per grid interval, then swept onto the grid points
    by exact merges (a post-processing of the release), lower ends of the masses kept."""
    buckets: dict[int, list] = {}
    out: dict[int, arb] = {}
    with _arb.precision(prec + 32):
        g = _Grid(step)
        inf = arb(cells.p_inf.lower()) if cells.p_inf.lower() > 0 else arb(0)
        for p, q, lo, hi in cells.cells:
            p, q = p.nonnegative_part(), q.nonnegative_part()
            if not p.lower() > 0:
                continue                                      # dropped: δ only falls
            if q.is_exact() and q == 0:
                inf += arb(p.lower())                         # Q certainly 0 here
                continue
            if not q.lower() > 0:
                continue
            _place_lower(g, buckets, out, p, q, lo, hi)
        _sweep_lower(g, buckets, out)
    return to_grid("lower", out, step, inf, prec)


def _place_lower(g: _Grid, buckets: dict, out: dict, p: arb, q: arb, lo, hi) -> None:
    """One cell (P and Q > 0) onto the lower grid: an atom on its grid point, a cell within
    one interval (or whose merged loss is) into that interval's bucket, else rounded down."""
    if lo is not None and hi is not None:
        i, j = g.floor(lo), g.ceil(hi)
        if i == j:                                    # an atom on a grid point
            _add(out, i, p)
            return
        if j == i + 1:                                # within one interval
            _add_bucket(buckets, i, p, q)
            return
    lam = (p / q).log()                               # the merged cell's loss
    if not lam.is_finite():          # a ball too wide to bound the loss: the cell's bound
        if lo is not None:
            _add(out, g.floor(lo), p)                 # rounded down to its lower loss
        return                                        # (or dropped: δ only falls)
    i, j = g.floor(lam), g.ceil(lam)
    if lo is not None:
        i = max(i, g.floor(lo))
    if hi is not None:
        j = min(j, g.ceil(hi))
    if j <= i + 1:
        _add_bucket(buckets, i, p, q)
    else:
        _add(out, i, p)                               # straddles: rounded down


def _sweep_lower(g: _Grid, buckets: dict, out: dict) -> None:
    """The buckets swept onto the grid points in order by exact merges."""
    pool = None
    for j in sorted(buckets):
        P1, Q1 = buckets[j]
        if pool is None:
            pool = [j, P1, Q1]
            continue
        i, P0, Q0 = pool
        et = 1 / g.exp_neg(i + 1)
        num = et * Q0 - P0                 # >= 0: the pool's loss is <= g_{i+1}
        den = P1 - et * Q1                 # >= 0: the next bucket's loss is >= g_{i+1}
        if den > 0:
            r = num / den
            if r.upper() < 1:
                a = arb(r.upper()) if r.upper() > 0 else arb(0)
                _add(out, i + 1, P0 + a * P1)
                pool = [j, (1 - a) * P1, (1 - a) * Q1]
                continue
            if r.lower() >= 1:             # all of it still leaves the loss <= g_{i+1}
                pool = [i, P0 + P1, Q0 + Q1]
                continue
        _add(out, i, P0)                   # rounded down onto g_i
        pool = [j, P1, Q1]
    if pool is not None:
        _add(out, pool[0], pool[1])


def _add_bucket(buckets: dict, i: int, p: arb, q: arb) -> None:
    b = buckets.get(i)
    if b is None:
        buckets[i] = [p, q]
    else:
        b[0] += p
        b[1] += q
