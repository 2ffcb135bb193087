"""The releases of ``PldAccountant``: certified privacy-loss distributions of single events.

Each event becomes a :class:`Release`: how to draw its loss on a lattice of a given step.
This module builds the releases; which event (and which noise law:
:mod:`privtools.accounting.maps`) gets which is the accountant's dispatch table
(:mod:`~privtools.accounting.pld.interpret`).

    DiscreteLaplaceEvent(b, Δ)     exact lattice: L ∈ (Δ − 2·{0..Δ})/b, P-masses in closed form
                                   (Fact 2 (000)); Pólya sums are Lap_Z exactly (Fact 1 (000))
    DiscreteGaussianSumEvent(1,..) exact lattice: L(x) = (Δ² − 2xΔ)/(2σ²), masses from the
                                   certified PMF, its unaccounted tail sent to +∞ (upper)
    PureDPEvent(ε)                 randomized response, the dominating pair of every ε-DP
                                   mechanism (Kairouz–Oh–Viswanath 2015): L = ±ε
    SkellamEvent, DiscreteGaussianSumEvent(n >= 2), ModularEvent, PmfPairEvent
                                   atoms of two certified PMFs (``privtools.exact``), losses as
                                   Arb intervals, split over the grid ("connect the dots")
    GaussianEvent(σ, Δ)            L ~ N(μ, 2μ) under P, μ = Δ²/(2σ²): cells of the grid with
                                   certified normal CDFs
    LaplaceEvent(b, Δ)             atoms ±Δ/b and cells in between (certified exponentials)
    ZCDPEvent                      refused: a ρ-zCDP guarantee has no dominating pair of
                                   distributions, only a Rényi curve — use ``RdpAccountant``

Symmetric noise shifted by Δ has the same loss distribution in both directions, so those
releases carry one direction only.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from privtools.certified import balls as _arb
from privtools.errors import ParameterError
from privtools.exact import ExactPMF, shift, wrap
from privtools.noise import DiscreteGaussian
from privtools.proven import proven

from ..events import (
    ComposedEvent,
    DpEvent,
    PureDPEvent,
    RepeatedEvent,
)
from . import DEFAULT_PREC, LossGrid, PrivacyLossDistribution
from .cells import Cells, loss_moments, lower_grid, upper_grid

__all__ = ["Release", "cell_sds", "releases", "gaussian_release", "from_cells",
           "discrete_laplace_release", "discrete_gaussian_release", "pure_release",
           "pmf_release", "modular_release", "pair_release", "laplace_release", "PMF_DPS",
           "PMF_TAIL"]

PMF_DPS = 40                      # digits of the tabulated PMFs
PMF_TAIL = Fraction(1, 10**50)    # mass left outside the tabulated window
CELL_SDS = 20                     # continuous laws: cells cover mean ± 20 sd of the loss
                                  # (outside mass < 1e-88, sent to +∞ / rounded up)


def cell_sds(prec: int) -> float:
    """How many loss standard deviations the cells of a Gaussian loss cover on each side of
    its mean when built at working precision ``prec``: :data:`CELL_SDS` at
    :data:`DEFAULT_PREC` and above; below it the z with e^{−z²/2} = 2^−prec, beyond which
    the normal tail (< 2^−prec) is under what a grid built at that precision resolves. The
    mass outside goes to the half-open end cells as before (+∞ on the upper side)."""
    if prec >= DEFAULT_PREC:
        return CELL_SDS
    return min(CELL_SDS, math.sqrt(2 * prec * math.log(2)))


# ------------------------------------------------------------------------------ releases
class Release:
    """One release's loss, ready to be put on a lattice."""

    symmetric: bool = True
    native_step: Fraction | None = None

    def moments(self) -> tuple[float, float, float, float]:
        """(mean, sd, min, max) of the forward loss, as floats (grid planning only)."""
        raise NotImplementedError

    def cells(self, step: Fraction, prec: int = DEFAULT_PREC, mixed: bool = False) -> Cells:
        """The release's pair on a partition of its output space (cells no wider in loss
        than ``step`` where the loss is continuous). ``mixed``: the cells will be mixed
        (sampling), so resolve the bulk of Q as finely as that of P."""
        raise NotImplementedError

    def build(self, step: Fraction | None, prec: int = DEFAULT_PREC) -> PrivacyLossDistribution:
        """Both sides of each direction on the lattice ``step·Z`` (second order in the
        step: :mod:`~privtools.accounting.pld.cells`)."""
        if step is None:
            mean, sd, lo, hi = self.moments()
            step = _default_step(lo, hi)
        return from_cells(self.cells(step, prec), step, prec, self.symmetric)


def from_cells(cells: Cells, step: Fraction, prec: int, symmetric: bool
               ) -> PrivacyLossDistribution:
    """The two-sided PLD of a pair given by its cells (the reverse direction too unless the
    pair is ``symmetric``)."""
    fwd = (upper_grid(cells, step, prec), lower_grid(cells, step, prec))
    if symmetric:
        return PrivacyLossDistribution(fwd)
    rev = cells.reversed()
    return PrivacyLossDistribution(fwd, (upper_grid(rev, step, prec),
                                         lower_grid(rev, step, prec)))


def _span(b: arb, extra: arb) -> arb:
    """A ball holding every value in [max(b, 0), b + extra] (a mass that may gain
    ``extra``)."""
    b = b.nonnegative_part()
    return b.union(b + extra) if extra.upper() > 0 else b


def _up_to(x: arb) -> arb:
    """A ball holding [0, upper end of x]."""
    return arb(0).union(arb(x.upper())) if x.upper() > 0 else arb(0)


@dataclass(frozen=True)
class _Lattice(Release):
    """Loss exactly on ``offset + step·(start + i)``; ``masses`` enclose the P-masses,
    ``low_tail``/``high_tail`` bound mass left off below/above the listed atoms."""

    offset: Fraction
    step: Fraction
    start: int
    masses: tuple
    low_tail: arb = arb(0)
    high_tail: arb = arb(0)
    complete: bool = False        # the masses sum to 1 by construction (closed forms)

    @property
    def native_step(self) -> Fraction:           # type: ignore[override]
        return self.step

    def moments(self):
        g = LossGrid.from_balls("upper", self.offset, self.step, self.start, self.masses)
        mean, sd = g.moments()
        lo, hi = g.support
        return mean, sd, float(lo), float(hi)

    def build(self, step, prec=DEFAULT_PREC):
        if step is not None and (self.step / step).denominator != 1:
            # a grid the atoms do not all sit on (a coarser step): cells, both ends second
            # order (the lower end swept onto the grid rather than rounded down)
            return from_cells(self.cells(step, prec), step, prec, self.symmetric)
        with _arb.precision(prec):
            up = list(self.masses)
            up[0] = up[0] + self.low_tail                   # rounded up onto the first atom
        upper = LossGrid.from_balls("upper", self.offset, self.step, self.start, up,
                                    self.high_tail, prec)
        lower = LossGrid.from_balls("lower", self.offset, self.step, self.start, self.masses,
                                    None, prec)
        if step is not None and step != self.step:
            upper = upper.regrid(step, self.offset)
            lower = lower.regrid(step, self.offset)
        return PrivacyLossDistribution((upper, lower))

    def cells(self, step, prec=DEFAULT_PREC, mixed=False):
        """Each atom a cell at its exact loss (Q-mass P·e^{−ℓ}); whatever mass the listed
        atoms may miss, of P or of Q, in one cell of unknown loss."""
        out = []
        with _arb.precision(prec + 32):
            sp = sq = arb(0)
            for i, m in enumerate(self.masses):
                loss = self.offset + (self.start + i) * self.step
                q = m * (-_arb.to_arb(loss)).exp()
                out.append((m, q, loss, loss))
                sp += m
                sq += q
            rest_p, rest_q = _up_to(1 - sp), _up_to(1 - sq)
            if not self.complete and (rest_p.upper() > 0 or rest_q.upper() > 0):
                out.append((rest_p, rest_q, None, None))
        return Cells(tuple(out))


@proven("fact2_tail")  # the masses of x <= 0 and x >= Δ
def discrete_laplace_release(b: Fraction, d: int) -> Release:
    """Lap_Z(b) against Lap_Z(b) shifted by Δ = ``d``: the loss lattice (Δ − 2·{0..Δ})/b with
    its P-masses in closed form (Fact 2 (000))."""
    with _arb.precision(DEFAULT_PREC + 32):
        r = _arb.to_arb(-1 / b).exp()
        masses = [arb(0)] * (d + 1)
        masses[d] = 1 / (1 + r)                 # x <= 0: loss +Δ/b
        masses[0] = r ** d / (1 + r)            # x >= Δ: loss −Δ/b
        c = (1 - r) / (1 + r)
        for x in range(1, d):
            masses[d - x] = c * r ** x          # 0 < x < Δ: loss (Δ − 2x)/b
    # the masses sum to 1 (Fact 2): no cell of unknown loss beside them
    return _Lattice(Fraction(-d) / b, Fraction(2) / b, 0, tuple(masses), complete=True)


def pure_release(ev: PureDPEvent) -> Release:
    """Randomized response at ε: the dominating pair of every ε-DP mechanism."""
    eps = ev.eps
    if eps == 0:
        return _Lattice(Fraction(0), Fraction(1), 0, (arb(1),))
    with _arb.precision(DEFAULT_PREC + 32):
        e = _arb.to_arb(eps).exp()
        masses = (1 / (1 + e), e / (1 + e))
    return _Lattice(-eps, 2 * eps, 0, masses, complete=True)      # 1/(1+e) + e/(1+e) = 1


def discrete_gaussian_release(sigma2: Fraction, d: int) -> Release:
    """N_Z(0, σ²) against its shift by Δ = ``d``: L(x) = (Δ² − 2xΔ)/(2σ²), exact lattice."""
    P = ExactPMF.from_distribution(DiscreteGaussian(sigma2=sigma2), dps=PMF_DPS, tail=PMF_TAIL)
    # L(x) = (Δ² − 2xΔ)/(2σ²) = Δ²/(2σ²) + (Δ/σ²)·(−x): index −x
    u = _arb.from_mpf(P.unaccounted)
    return _Lattice(Fraction(d * d) / (2 * sigma2), Fraction(d) / sigma2, -P.hi,
                    tuple(reversed(P.balls)), low_tail=u, high_tail=u)


@dataclass(frozen=True)
class _Atoms(Release):
    """Loss of two certified PMFs, atom by atom (intervals), split over the grid."""

    P: ExactPMF
    Q: ExactPMF
    symmetric: bool = False

    @staticmethod
    def _atoms(P, Q):
        """(p, q): balls of the accounted P- and Q-mass at each point of the common window.
        The unaccounted mass of either may sit at any point (after wrapping it may be
        anywhere, and the table of an n-fold sum built from truncated shares leaves its
        dropped mass inside the window too), so :meth:`cells` widens every mass by it."""
        lo, hi = min(P.lo, Q.lo), max(P.hi, Q.hi)
        for x in range(lo, hi + 1):
            yield P.ball(x), Q.ball(x)

    def moments(self):
        out = loss_moments(self._atoms(self.P, self.Q))
        if out is None:
            raise ParameterError("the two laws share no support: the loss is infinite")
        return out

    def cells(self, step, prec=DEFAULT_PREC, mixed=False):
        """One cell per point of the window. The unaccounted mass of either law may sit at
        any point, so it widens every point's mass upward, and (on Z) it may also lie
        outside the window: one more cell of unknown loss."""
        P, Q = self.P, self.Q
        out = []
        with _arb.precision(prec + 32):
            u_p, u_q = _arb.from_mpf(P.unaccounted), _arb.from_mpf(Q.unaccounted)
            for p, q in self._atoms(P, Q):
                p, q = _span(p, u_p), _span(q, u_q)
                if not (p.upper() > 0 or q.upper() > 0):
                    continue
                lo = hi = None
                if p.lower() > 0 and q.upper() > 0:
                    lo = arb((arb(p.lower()) / arb(q.upper())).log().lower())
                if q.lower() > 0:
                    hi = arb((arb(p.upper()) / arb(q.lower())).log().upper())
                out.append((p, q, lo, hi))
            if P.modulus is None:
                out.append((_up_to(u_p), _up_to(u_q), None, None))
        return Cells(tuple(out))


def _default_step(lo: float, hi: float, points: int = 2**12) -> Fraction:
    """A binary step putting about ``points`` grid points on [lo, hi]."""
    width = max(hi - lo, 1e-12)
    e = math.floor(math.log2(width / points))
    return Fraction(2) ** e


@dataclass(frozen=True)
class _Cells(Release):
    """A continuous loss: P- and Q-mass of each grid cell, certified (Gaussian or Laplace)."""

    kind: str                 # "gaussian" | "laplace"
    a: Fraction               # Gaussian: μ = Δ²/(2σ²); Laplace: Δ/b
    symmetric: bool = True

    def moments(self):
        if self.kind == "gaussian":
            mu = float(self.a)
            sd = math.sqrt(2 * mu)
            return mu, sd, mu - CELL_SDS * sd, mu + CELL_SDS * sd
        a = float(self.a)
        return a / 2, a / 2, -a, a      # rough: atoms at ±a and a spread between

    def _gaussian_cells(self, i0: int, i1: int, h: Fraction):
        """(P, Q)-mass of the cells (i·h, (i+1)·h], i0 <= i < i1: L ~ N(μ, 2μ) under P and
        N(−μ, 2μ) under Q. Each boundary gets one erfc per law — the tail on its own side of
        the mean, so differences never cancel."""
        mu = self.a
        s = (4 * _arb.to_arb(mu)).sqrt()

        def side(i: int, m: Fraction) -> arb:       # S(t) above the mean, F(t) below
            t = i * h
            z = _arb.to_arb(t - m) / s
            return z.erfc() / 2 if t >= m else (-z).erfc() / 2

        def masses(m: Fraction) -> list[arb]:
            v = [side(i, m) for i in range(i0, i1 + 1)]
            out = []
            for k in range(i1 - i0):
                t0, t1 = (i0 + k) * h, (i0 + k + 1) * h
                if t0 >= m:
                    out.append(v[k] - v[k + 1])
                elif t1 <= m:
                    out.append(v[k + 1] - v[k])
                else:
                    out.append(1 - v[k + 1] - v[k])
            return out
        return masses(mu), masses(-mu)

    def _laplace_cells(self, i0: int, i1: int, h: Fraction):
        """Laplace(b) against Laplace(Δ, b), a = Δ/b: for −a <= t < a,
        P(L <= t) = e^{−(a − t)/2}/2 and Q(L <= t) = 1 − e^{−(a + t)/2}/2 (continuous part
        of each cell, the atoms at ±a placed apart)."""
        a = _arb.to_arb(self.a)
        bounds = [-a] + [_arb.to_arb(i * h) for i in range(i0 + 1, i1)] + [a]
        ps, qs = [], []
        for t0, t1 in zip(bounds, bounds[1:]):
            ps.append(((-(a - t1) / 2).exp() - (-(a - t0) / 2).exp()) / 2)
            qs.append(((-(a + t0) / 2).exp() - (-(a + t1) / 2).exp()) / 2)
        return ps, qs

    def cells(self, step, prec=DEFAULT_PREC, mixed=False):
        """Gaussian: the cells (i·h, (i+1)·h] of the loss over the bulk of both laws (the
        loss is N(μ, 2μ) under P and N(−μ, 2μ) under Q), with the two tails as cells of
        half-open range. Laplace: the atoms ±a and the cells between."""
        h = step
        out = []
        with _arb.precision(prec + 32):
            if self.kind == "gaussian":
                mean, sd, lo, hi = self.moments()
                i0 = math.floor(Fraction(-mean - CELL_SDS * sd if mixed else lo) / h)
                i1 = math.ceil(Fraction(hi) / h)
                mu = _arb.to_arb(self.a)
                s = (4 * mu).sqrt()
                hh = _arb.to_arb(h)
                t0, t1 = i0 * hh, i1 * hh
                # tails: P(L <= t0), Q(L <= t0); P(L > t1), Q(L > t1)
                out.append((((mu - t0) / s).erfc() / 2, ((-mu - t0) / s).erfc() / 2,
                            None, i0 * h))
                out.append((((t1 - mu) / s).erfc() / 2, ((t1 + mu) / s).erfc() / 2,
                            i1 * h, None))
                ps, qs = self._gaussian_cells(i0, i1, h)
                for k, (p, q) in enumerate(zip(ps, qs)):
                    out.append((p.nonnegative_part(), q.nonnegative_part(),
                                (i0 + k) * h, (i0 + k + 1) * h))
            else:
                a = _arb.to_arb(self.a)
                half = arb(1) / 2
                tail = (-a).exp() / 2
                out.append((half, tail, self.a, self.a))   # x <= 0 … x >= Δ: loss ±a
                out.append((tail, half, -self.a, -self.a))
                i0, i1 = math.floor(-self.a / h), math.ceil(self.a / h)
                ps, qs = self._laplace_cells(i0, i1, h)
                bounds = ([-self.a] + [i * h for i in range(i0 + 1, i1)] + [self.a])
                for p, q, lo, hi in zip(ps, qs, bounds, bounds[1:]):
                    out.append((p.nonnegative_part(), q.nonnegative_part(), lo, hi))
        return Cells(tuple(out))


def gaussian_release(mu: Fraction) -> Release:
    """The Gaussian release whose loss is N(μ, 2μ) under P (μ = Δ²/(2σ²); μ-GDP with
    μ_GDP = √(2μ))."""
    return _Cells("gaussian", Fraction(mu))


def pmf_release(P: ExactPMF, d: int, symmetric: bool) -> Release:
    """A law given by its certified PMF ``P`` against its shift by Δ = ``d``, atom by atom
    (``symmetric``: the law is symmetric, so both directions have one loss law)."""
    return _Atoms(P, shift(P, d), symmetric=symmetric)


def modular_release(P: ExactPMF, d: int, m: int) -> Release:
    """The mod-``m`` views of a law with certified PMF ``P`` and of its shift by Δ = ``d``."""
    return _Atoms(wrap(P, m), wrap(shift(P, d), m), symmetric=True)


def pair_release(p: ExactPMF, q: ExactPMF) -> Release:
    """Any two certified output laws, both directions measured."""
    return _Atoms(p, q, symmetric=False)


def laplace_release(a: Fraction) -> Release:
    """Laplace(b) against Laplace(Δ, b), a = Δ/b: atoms ±a and certified cells between."""
    return _Cells("laplace", a)


# ------------------------------------------------------------------------------ flatten
def releases(event: DpEvent, count: int = 1) -> list[tuple[DpEvent, int]]:
    """Flatten ``event`` (composed / repeated) into ``(single event, count)`` pairs."""
    if isinstance(event, RepeatedEvent):
        return releases(event.event, count * event.count)
    if isinstance(event, ComposedEvent):
        out: list[tuple[DpEvent, int]] = []
        for e in event.events:
            out.extend(releases(e, count))
        return out
    if not isinstance(event, DpEvent):
        raise ParameterError(f"event must be a DpEvent, got {type(event).__name__}")
    return [(event, count)] if count else []

