"""Sampled and approximate releases read as certified privacy-loss distributions.

    PoissonSampledEvent(e, q)            the pair (qP + (1 − q)Q, Q) (removing a record) and
                                         its reverse (adding one), (P, Q) the pair of ``e``
                                         (Zhu, Dong and Wang 2022, Poisson subsampling)
    SampledWithoutReplacementEvent(e, b, n)
                                         the same mixture at γ = b/n under replace-one
                                         (Balle, Barthe and Gaboardi 2018, Thm 9)
    SampledWithReplacementEvent(e, b, n) the same mixture at γ = P(ℓ >= 1), ℓ ~ Bin(b, 1/n)
                                         the record's multiplicity, of the pair of ``e`` at
                                         group distance ℓ mixed over ℓ >= 1 (ℓ revealed)
    ShuffledEvent(R_ε₀, n)               the clones pair of n shuffled ε₀-DP reports
                                         (:mod:`~privtools.accounting.pld.shuffle`)
    RandomAllocationEvent(Gauss, t)      one of t Gaussian steps: the law of the sum of the
                                         steps' likelihood ratios
                                         (:mod:`~privtools.accounting.pld.allocation`)
    ApproxDPEvent(ε, δ)                  the dominating pair of every (ε, δ)-DP mechanism
                                         (Kairouz, Oh and Viswanath 2015): mass δ at loss
                                         +∞, the rest randomized response at ε

The mixture is taken cell by cell on the inner release's partition of its output space
(:meth:`~privtools.accounting.pld.cells.Cells.mixed`), so the inner event may be any single
release the accountant reads: Gaussian, Laplace, randomized response, discrete Laplace and
Gaussian, Skellam, the n-fold sums and their mod-m views, or a pair of certified PMFs.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb

from privtools.certified import balls as _arb
from privtools.certified.balls import binomial_tail

from . import DEFAULT_PREC
from .cells import Cells
from .events import Release, _default_step, cell_sds

__all__ = ["mixed_release", "approx_release", "drawn_release"]

_PLAN_POINTS = 2**10        # cells used to plan the grid of a mixture


@dataclass(frozen=True, eq=False)
class _Mixed(Release):
    """The pair (γP + (1 − γ)Q, Q) and its reverse, (P, Q) the inner release's pair."""

    inner: Release
    rate: Fraction
    symmetric: bool = False

    def cells(self, step, prec=DEFAULT_PREC, mixed=False) -> Cells:
        if getattr(self.inner, "kind", None) == "gaussian":
            return _gaussian_mixture(self.inner.a, self.rate, step, prec)
        inner = self.inner.cells(step, prec, mixed=True)
        with _arb.precision(prec + 32):
            return inner.mixed(self.rate)

    def moments(self):
        mean, sd, lo, hi = self.inner.moments()
        width = max(abs(lo), abs(hi), 1e-9)
        c = self.cells(_default_step(-width, width, _PLAN_POINTS), DEFAULT_PREC)
        f, r = c.moments(), c.reversed().moments()
        # planning reads the spread and the width: the larger of the two directions'. The
        # width reaches down to the floor log(1 − γ) (the loss where P = 0), where the cells
        # of the lowest tail start: a grid step planned on the bulk alone may put an
        # unbounded number of points between the floor and the bulk
        # (taken when the gap is wider than the bulk itself; else the bulk's planning stands)
        floor = math.log1p(-float(self.rate)) if self.rate < 1 else f[2]
        lo = floor if f[2] - floor > f[3] - f[2] else f[2]
        return f[0], max(f[1], r[1]), lo, f[2] + max(f[3] - f[2], r[3] - r[2])


def _gaussian_mixture(mu: Fraction, rate: Fraction, step: Fraction, prec: int) -> Cells:
    """The mixed Gaussian pair on cells aligned with the grid of its own loss.

    The inner loss ℓ is N(μ, 2μ) under P and N(−μ, 2μ) under Q; the mixed loss
    L = log(1 − γ + γe^ℓ) is increasing in ℓ, so the cell (i·h, (i+1)·h] of L is the interval
    (b_i, b_{i+1}] of ℓ with b_i = log((e^{ih} − 1 + γ)/γ). Its masses are γP + (1 − γ)Q
    and Q of that interval (certified normal CDFs, each from the tail on its own side of the
    mean); the two ends are cells of half-open range."""
    h = step
    sd = math.sqrt(2 * float(mu))
    gf = float(rate)

    def loss(ell: float) -> float:                # L(ℓ) in floats (planning the range)
        return math.log1p(-gf) + math.log1p(gf / (1 - gf) * math.exp(min(ell, 700.0))) \
            if gf < 1 else ell

    out = []
    with _arb.precision(prec + 32):
        g = _arb.to_arb(rate)
        c = 1 - g
        m = _arb.to_arb(mu)
        s = (4 * m).sqrt()
        floor_loss = c.log()
        hh = _arb.to_arb(h)
        sds = cell_sds(prec)
        i_min = max(math.floor(loss(-float(mu) - sds * sd) / h),
                    math.floor(math.log1p(-gf) / h) + 1)
        while not (((i_min * hh).exp() - c) > 0):
            i_min += 1
        i_max = max(math.ceil(loss(float(mu) + sds * sd) / h), i_min + 1)

        def sides(b: arb, mean: arb) -> tuple[arb, arb]:
            # S(b), F(b): the tail on b's own side of the mean from erfc (relative
            # accuracy), the other as its complement (read only where it is the larger)
            if b.mid() >= mean.mid():
                sv = ((b - mean) / s).erfc() / 2
                return sv, 1 - sv
            fv = ((mean - b) / s).erfc() / 2
            return 1 - fv, fv

        bounds = [(((i * hh).exp() - c) / g).log() for i in range(i_min, i_max + 1)]
        sp = [sides(b, m) for b in bounds]
        sq = [sides(b, -m) for b in bounds]

        def cell(k: int, side: list, mean: arb) -> arb:
            b0, b1 = bounds[k], bounds[k + 1]
            if b0.mid() >= mean.mid():
                return side[k][0] - side[k + 1][0]
            if b1.mid() <= mean.mid():
                return side[k + 1][1] - side[k][1]
            return 1 - side[k + 1][0] - side[k][1]

        pq, qq = sp[0][1], sq[0][1]                                  # ℓ <= b_min
        out.append((g * pq + c * qq, qq, floor_loss, i_min * h))
        pt, qt = sp[-1][0], sq[-1][0]                                # ℓ > b_max
        out.append((g * pt + c * qt, qt, i_max * h, None))
        for k in range(len(bounds) - 1):
            p_k = cell(k, sp, m).nonnegative_part()
            q_k = cell(k, sq, -m).nonnegative_part()
            out.append((g * p_k + c * q_k, q_k, (i_min + k) * h, (i_min + k + 1) * h))
    return Cells(tuple(out))


@dataclass(frozen=True)
class _ApproxDP(Release):
    """(ε, δ)-DP's dominating pair: P = (δ, (1−δ)e^ε/(1+e^ε), (1−δ)/(1+e^ε), 0) against
    Q = (0, (1−δ)/(1+e^ε), (1−δ)e^ε/(1+e^ε), δ): losses +∞, ε, −ε, −∞."""

    epsilon: Fraction
    delta: Fraction

    @property
    def native_step(self):                      # type: ignore[override]
        return self.epsilon if self.epsilon > 0 else None

    def moments(self):
        e = float(self.epsilon)
        w = 1 / (1 + math.exp(-e))
        mean = e * (2 * w - 1)
        return mean, e * math.sqrt(max(1 - (2 * w - 1) ** 2, 0.0)), -e, e

    def cells(self, step, prec=DEFAULT_PREC, mixed=False) -> Cells:
        with _arb.precision(prec + 32):
            eps = _arb.to_arb(self.epsilon)
            d = _arb.to_arb(self.delta)
            e = eps.exp()
            big, small = (1 - d) * e / (1 + e), (1 - d) / (1 + e)
            x = self.epsilon                    # the losses ±ε as exact rationals: a ball
            out = ((big, small, x, x), (small, big, -x, -x))   # would straddle the grid
            return Cells(out, d, d)


def mixed_release(inner: Release, rate: Fraction) -> Release:
    """The pair (γP + (1 − γ)Q, Q) and its reverse at rate γ = ``rate`` (the inner release
    itself at γ = 1)."""
    return inner if rate == 1 else _Mixed(inner, rate)


def approx_release(epsilon: Fraction, delta: Fraction) -> Release:
    """The dominating pair of every (ε, δ)-DP mechanism."""
    return _ApproxDP(epsilon, delta)


_PLAN_WEIGHT = 2.0 ** -64   # parts lighter than this are left out of grid planning


def drawn_rate(draws: int, population: int) -> Fraction:
    """A rational at or above γ = 1 − (1 − 1/population)^draws, the chance that ``draws``
    uniform draws hit a given record (within 2^-320 of it; a larger rate only dominates)."""
    exact = 1 - Fraction(population - 1, population) ** draws if draws <= 4096 else None
    if exact is not None and exact.denominator.bit_length() <= 4096:
        return exact
    with _arb.precision(400):
        g = -(draws * (-arb(1) / population).log1p()).expm1()
        return min(Fraction(1), Fraction(math.ceil(Fraction(_arb.upper_mpf(g)) * 2**320),
                                         2**320))


@dataclass(frozen=True, eq=False)
class _Drawn(Release):
    """Sampling with replacement (see :func:`drawn_release`): given that the draws hit the
    differing record, the mixture over its multiplicity ℓ >= 1 (weights P(ℓ)/γ) of
    ``part(ℓ)``'s pair, ℓ revealed, subsampled at ``rate`` >= γ. Part by part on one
    partition: part ℓ's cells mixed at the rate (a Gaussian's aligned with the grid),
    masses times P(ℓ)/γ; a light part on a coarser lattice of the grid (2^j steps, 4^j <=
    1/weight: its error weighs in only through its weight). The parts beyond the last one
    kept (of mass below 2^-(prec+8)) are one cell of unknown loss (upper: +∞; lower:
    merged)."""

    part: object            # ℓ -> Release (the inner event at group distance ℓ)
    draws: int
    population: int
    rate: Fraction
    symmetric: bool = False

    def _weights(self, prec: int) -> tuple[list[tuple[int, arb]], arb]:
        """[(ℓ, P(ℓ)/γ)] of the parts kept and a ball around the mass of the others: ℓ
        stops at the first L whose tail P(ℓ > L)/γ is below 2^-(prec+8), and a part ℓ >= 2
        lighter than that joins the others (any part may: its cell is then of unknown
        loss)."""
        p = arb(1) / self.population
        lp = (-p).log1p()
        hit = -(self.draws * lp).expm1()
        small = arb(2) ** -(prec + 8)
        kept, rest = [], arb(0)
        for ell in range(1, self.draws + 1):
            w = (arb(math.comb(self.draws, ell)) * p ** ell
                 * ((self.draws - ell) * lp).exp()) / hit
            if ell >= 2 and w.upper() <= small:
                rest += w
            else:
                kept.append((ell, w))
            tail = binomial_tail(self.draws, p, ell + 1) / hit
            if tail.upper() <= small:
                return kept, rest + tail
        return kept, rest

    def _mixed_part(self, ell: int, w: arb, step: Fraction, prec: int, coarse: bool
                    ) -> Cells:
        j = min(_COARSEST, max(0, int(-math.log2(max(float(w.upper()), 1e-300)) / 2)))
        j = j if coarse else 0
        h = step * 2**j
        part = self.part(ell)
        if getattr(part, "kind", None) == "gaussian":
            return _gaussian_mixture(part.a, self.rate, h, prec)
        inner = part.cells(h, prec, mixed=True)
        with _arb.precision(prec + 32):
            return inner.mixed(self.rate)

    def cells(self, step, prec=DEFAULT_PREC, mixed=False, lightest=None) -> Cells:
        """``lightest``: parts ℓ >= 2 lighter than this join the cell of unknown loss too,
        and no part is coarsened (planning the grid on the parts that carry its mass)."""
        with _arb.precision(prec + 32):
            kept, rest = self._weights(prec)
            if lightest is not None:
                rest += sum((w for ell, w in kept if ell >= 2 and w.upper() < lightest),
                            arb(0))
                kept = [(ell, w) for ell, w in kept if ell < 2 or w.upper() >= lightest]
        parts = [(w, self._mixed_part(ell, w, step, prec, lightest is None))
                 for ell, w in kept]
        with _arb.precision(prec + 32):
            out, p_inf, q_inf = [], arb(0), arb(0)
            for w, c in parts:
                out.extend((w * p, w * q, lo, hi) for p, q, lo, hi in c.cells)
                p_inf += w * c.p_inf
                q_inf += w * c.q_inf
            if rest.upper() > 0:
                out.append((rest, rest, None, None))
            return Cells(tuple(out), p_inf, q_inf)

    def moments(self):
        widths = []
        p = 1 / self.population
        for ell in range(1, min(self.draws, 64) + 1):
            w = math.exp(math.lgamma(self.draws + 1) - math.lgamma(ell + 1)
                         - math.lgamma(self.draws - ell + 1) + ell * math.log(p)
                         + (self.draws - ell) * math.log1p(-p))
            if w < _PLAN_WEIGHT and ell > 1:
                break
            _, _, lo, hi = self.part(ell).moments()
            widths.append(max(abs(lo), abs(hi), 1e-9))
        width = max(widths)
        c = self.cells(_default_step(-width, width, _PLAN_POINTS), DEFAULT_PREC,
                       lightest=_PLAN_WEIGHT)
        f, r = c.moments(), c.reversed().moments()
        floor = math.log1p(-float(self.rate)) if self.rate < 1 else f[2]
        lo = floor if f[2] - floor > f[3] - f[2] else f[2]
        # the range that carries all but 2^-64 of the mass in each direction: the far
        # tails of the heavier multiplicities would otherwise set the grid step
        hi = max(_upper_quantile(c), -_lower_quantile(c))
        return f[0], max(f[1], r[1]), lo, max(hi, f[0] + 2 * max(f[1], r[1]), lo + 1e-9)


def _upper_quantile(c: Cells) -> float:
    """A loss above which the P-mass of the cells is below 2^-64 (planning only)."""
    pts = sorted(((float(hi.mid()) if isinstance(hi, arb) else float(hi)), float(p.mid()))
                 for p, _, _, hi in c.cells if hi is not None)
    left = 0.0
    for x, p in reversed(pts):
        left += p
        if left > _PLAN_WEIGHT:
            return x
    return pts[0][0] if pts else 0.0


def _lower_quantile(c: Cells) -> float:
    """A loss below which the Q-mass of the cells is below 2^-64 (planning only)."""
    pts = sorted(((float(lo.mid()) if isinstance(lo, arb) else float(lo)), float(q.mid()))
                 for _, q, lo, _ in c.cells if lo is not None)
    left = 0.0
    for x, q in pts:
        left += q
        if left > _PLAN_WEIGHT:
            return x
    return pts[-1][0] if pts else 0.0


_COARSEST = 6       # a light part of sampling with replacement: at most 2^6 grid steps


def drawn_release(part, draws: int, population: int) -> Release:
    """Sampling with replacement under replace-one: ``draws`` uniform draws from
    ``population`` records. With γ = P(the differing record is drawn), the run is
    (1 − γ)M₀ + γP₁ against (1 − γ)M₀ + γQ₁, where M₀ is the run without the record and
    P₁, Q₁ mix over its multiplicity ℓ >= 1 the runs with ℓ copies of either value. Both
    (P₁, M₀) and (P₁, Q₁) are dominated by the mixture over ℓ of ``part(ℓ)`` (the inner
    release at group distance ℓ: the ℓ copies replaced by other draws give M₀), ℓ revealed;
    so, as for sampling without replacement (Balle, Barthe and Gaboardi 2018, Thm 9), the
    pair accounted is that mixture subsampled at γ, both orders."""
    return _Drawn(part, draws, population, drawn_rate(draws, population))
