"""Random allocation, read as a certified privacy-loss distribution: the Gaussian (below),
and laws of bounded likelihood ratio (:func:`cells_allocation`: listed atom by atom for a
few atoms, split onto a lattice of X otherwise).

A record takes part in exactly one of ``t`` steps, chosen uniformly; each step releases a
Gaussian-noised sum (inner loss ℓ ~ N(μ, 2μ) under the step's P₁, N(−μ, 2μ) under Q₁,
μ = Δ²/(2σ²)). With X_i = e^{ℓ_i} the likelihood ratio of step i (ℓ_i computed under
Q₁, so E_Q[X] = 1), the run's pair for removing the record is

    P/Q = S/t,   S = X₁ + … + X_t,   X_i i.i.d. under Q,

and adding the record is the reverse pair (Q, P). Both directions are read off the law of S
under Q: P-mass (s/t)·Q-mass at loss log(s/t) forward, Q-mass at −log(s/t) in reverse.

**Upper end (a dominating pair).** Each X is split onto the lattice h·N keeping its mean:
the cell [jh, (j+1)h] of X with Q-mass m and Q-mean x̄ (E_Q[X; cell] = P₁(cell)) goes to jh
and (j+1)h with weights m((j+1)h − x̄)/h and m(x̄ − jh)/h. With X̃_i the split values and
S̃ = ΣX̃_i, the pair (P̃, Q̃), P̃/Q̃ = S̃/t, dominates (P, Q): merging each X̃_i back (drawing X_i
given X̃_i) maps Q̃ to Q and, because E[X̃_i | X_i] = X_i, maps P̃ to P. The law of S̃ is the
t-fold convolution of the split law (exact integers), and the PLD of (P̃, Q̃) is read with the
cells of :mod:`~privtools.accounting.pld.cells` — the error is second order in h.

**Lower end.** The X-law merged onto the lattice by exact merges of neighbouring cells (a
post-processing of the release), one law per direction: each merged group's mean is known
as a ball, so it is placed on the lattice point just below it for the removing direction
(S only falls, and with it that direction's δ) and just above it for the adding direction
(S only rises, and the adding δ falls); masses kept at their lower ends. Second order in h.

**Tails.** X above X_max (where P₁ has at most 1e-13 and t·Q at most 1e-16 left) is cut: the
event that some X is cut has P-mass at most P₁(X > X_max) + (t − 1)·Q(X > X_max), sent to
+∞ forward; in reverse its loss is at most −log(X_max/t). Each convolution trims at most
2⁻⁷⁰ of mass from each end of the split law; that mass (S <= t·X_max, so P-mass at most
X_max times it) goes to +∞ in both directions, and the lower ends drop what they trim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from fractions import Fraction
from functools import cached_property

from flint import arb, fmpz_poly

from privtools.certified import balls as _arb
from privtools.certified import fixedpoint as _fixedpoint
from privtools.errors import ParameterError, UnsupportedEventError

from ..events import (
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    GaussianEvent,
    LaplaceEvent,
    NoiseEvent,
    PureDPEvent,
    SkellamEvent,
)
from . import DEFAULT_PREC, FIXED_BITS, PrivacyLossDistribution, _threads, _trimmed, fixed
from .cells import Cells, loss_moments, lower_grid, upper_grid
from .events import Release, _Cells, _default_step, _Lattice, gaussian_release
from .repeated import MAX_ATOMS, _compositions

__all__ = ["allocation_release", "allocation_blocks", "ALLOCATION_POINTS"]

ALLOCATION_POINTS = 2**16         # lattice points of one X (its range [0, X_max] over h)
MAX_ALLOCATION_POINTS = 2**19     # … when a small t needs a finer lattice near 0
_P_TAIL_SDS = 7.5                 # P₁(ℓ > μ + 7.5·√(2μ)) < 4e-14
_Q_TAIL = 1e-16                   # t·Q(X > X_max) at most this
_SCALE = 2**FIXED_BITS


def _phi_tail(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def _x_max(mu: float, t: int) -> float:
    s = math.sqrt(2 * mu)
    z = 1.0
    while t * _phi_tail(z) > _Q_TAIL:
        z += 0.05
    return math.exp(max(mu + _P_TAIL_SDS * s, -mu + z * s))


@dataclass(frozen=True)
class _Allocated(Release):
    """One record in 1 of ``steps`` Gaussian steps (module docstring)."""

    mu: Fraction
    steps: int
    symmetric: bool = False

    def moments(self):
        mu, t = float(self.mu), self.steps
        var = math.expm1(2 * mu) / t               # delta method: L ≈ (S − t)/t
        sd = math.sqrt(var)
        return var / 2, sd, -12 * sd, math.log((_x_max(mu, t) + t) / t)

    def _lattice(self) -> tuple[Fraction, int, float]:
        """(h, n, X_max): n points of step h cover [0, X_max]; h small enough that the split
        law's atom at 0 (S̃ = 0 needs all t of them) keeps t-fold mass below 1e-14."""
        mu, t = float(self.mu), self.steps
        x_max = _x_max(mu, t)
        s = math.sqrt(2 * mu)
        target = 10 ** (-14 / t)                     # Q(X <= h) at most this
        z = 0.0
        while _phi_tail(-z) > target:                # Φ(z) > target: go lower
            z -= 0.05
        h_small = math.exp(-mu + z * s)
        n = min(max(ALLOCATION_POINTS, math.ceil(x_max / h_small)), MAX_ALLOCATION_POINTS)
        h = Fraction(x_max / n).limit_denominator(2**50)
        return h, math.ceil(Fraction(x_max) / h), x_max

    def _laws(self, prec: int):
        """Integer masses (units 2^-FIXED_BITS) on the lattice h·j: the split law of X under
        Q (rounded up: the upper end) and the merged law (swept onto the lattice, rounded
        down: the lower end); the tails beyond X_max; h and X_max."""
        h, n, x_max = self._lattice()
        with _arb.precision(prec + 64):
            m = _arb.to_arb(self.mu)
            s = (4 * m).sqrt()                      # √2 · sd of ℓ, for erfc

            def cdf(x: arb, mean: arb) -> arb:      # P(ℓ <= log x), ℓ ~ N(mean, 2μ)
                return ((mean - x.log()) / s).erfc() / 2

            hh = _arb.to_arb(h)
            fq = [arb(0)] + [cdf(j * hh, -m) for j in range(1, n + 1)]
            fp = [arb(0)] + [cdf(j * hh, m) for j in range(1, n + 1)]
            tail_q, tail_p = 1 - fq[n], 1 - fp[n]
            cells = [((fq[j + 1] - fq[j]).nonnegative_part(),       # Q(X in cell j)
                      (fp[j + 1] - fp[j]).nonnegative_part())       # E_Q[X; cell] = P₁(cell)
                     for j in range(n)]
            split = [arb(0)] * (n + 1)
            for j, (mq, mp) in enumerate(cells):
                split[j] += ((j + 1) * hh * mq - mp) / hh
                split[j + 1] += (mp - j * hh * mq) / hh
            merged = tuple([fixed(b, "lower") for b in _sweep(cells, hh, way)]
                           for way in ("fwd", "rev"))
        return ([fixed(b, "upper") for b in split], merged,
                h, tail_q, tail_p, x_max)

    def build(self, step, prec=DEFAULT_PREC):
        if step is None:
            raise ParameterError("random allocation needs a grid step")
        split, merged, h, tail_q, tail_p, x_max = self._laws(prec)
        return _allocation_pld(split, merged, h, tail_q, tail_p, x_max, self.steps, step,
                               prec)

    def cells(self, step, prec=DEFAULT_PREC, mixed=False):
        raise UnsupportedEventError("a random allocation cannot be sampled again",
                                    event="RandomAllocationEvent", accountant="PldAccountant")


def _allocation_pld(split, merged, h, tail_q, tail_p, x_max, t: int, step, prec,
                    lower: PrivacyLossDistribution | None = None, lost_q=None, cut_at=None
                    ) -> PrivacyLossDistribution:
    """Both directions of the allocation pair from the split (upper) and merged (lower: one
    law per direction, :func:`_sweep`) X-laws on the lattice h·j: their t-fold
    convolutions, the cut and trimmed masses to +∞ (module docstring), the cells of S/t
    put on the loss grid. ``lower``: the lower sides taken from that PLD instead
    (``merged`` then unused). ``x_max``: the lattice's end (no split X above it);
    ``cut_at`` (default ``x_max``): every cut X (Q₁-mass ``tail_q``) is at least this;
    ``lost_q``: Q₁-mass cut whose X is unknown (a tabulated law's missing mass)."""
    up = _power(split, t, "upper")
    with _arb.precision(prec + 64):
        unit = arb(1) / _SCALE
        trimmed = arb(up[2]) * unit
        xm = _arb.to_arb(Fraction(x_max))
        xc = xm if cut_at is None else _arb.to_arb(Fraction(cut_at))
        lost = arb(0) if lost_q is None else arb(lost_q.upper())
        # some X cut (P-mass at most P₁ + (t − 1)·Q of the cut), and the mass the
        # convolutions trimmed (S <= t·X_max there, so P-mass <= X_max·Q-mass): +∞
        cut_p = (arb(tail_p.upper()) + (t - 1) * (arb(tail_q.upper()) + lost)
                 + xm * trimmed)
        cut_q = t * arb(tail_q.upper())
        ht = _arb.to_arb(h) / t
        fwd, rev = _pairs(up, ht, unit)
        if cut_q.upper() > 0:      # reverse: the cut event's loss is <= −log(cut_at/t)
            cl = -(xc / t).log()
            rev.append((cut_q, arb(0), cl, cl))
        fwd_up = upper_grid(Cells(tuple(fwd), cut_p), step, prec)
        # an X of unknown value: S may be anything, the reverse loss too (+∞)
        rev_up = upper_grid(Cells(tuple(rev), trimmed + t * lost), step, prec)
        if lower is not None:
            return PrivacyLossDistribution((fwd_up, lower.forward[1]),
                                           (rev_up, lower.reverse[1]))
        fwd_l, _ = _pairs(_power(merged[0], t, "lower"), ht, unit)
        _, rev_l = _pairs(_power(merged[1], t, "lower"), ht, unit)
        fwd_low = lower_grid(Cells(tuple(fwd_l)), step, prec)
        rev_low = lower_grid(Cells(tuple(rev_l)), step, prec)
    return PrivacyLossDistribution((fwd_up, fwd_low), (rev_up, rev_low))


ALLOCATION_CELLS = 2**17      # loss cells of a continuous inner law read for its X-law


def bounded_inner(inner: Release) -> bool:
    """Whether an inner release's likelihood ratio X is bounded and read from cells here:
    the Laplace release, and lattices whose listed atoms hold all their mass (randomized
    response, the discrete Laplace)."""
    if isinstance(inner, _Cells):
        return inner.kind == "laplace"
    return isinstance(inner, _Lattice) and (inner.complete or len(inner.masses) == 1)


@dataclass(frozen=True, eq=False)
class _AllocatedCells(Release):
    """One record in 1 of ``steps`` runs of a release whose likelihood ratio X = dP₁/dQ₁ is
    bounded (Laplace, randomized response, discrete Laplace), from the release's cells.

    Upper end: each cell (Q-mass q, P-mass p = E_Q[X; cell], X in [e^lo, e^hi]) is split
    onto the lattice points A = ⌊e^lo/h⌋h and B = ⌈e^hi/h⌉h keeping its mean — every X in
    the cell split to A and B keeping its value gives these weights in total, so E[X̃ | X]
    = X and the pair P̃/Q̃ = S̃/t dominates (the module docstring's argument). Lower end:
    each cell merged into one output (a post-processing) whose ratio is its mean p/q, put
    in the lattice interval that certainly holds it (a cell whose mean straddles a lattice
    point is dropped), then swept onto the lattice as for the Gaussian. No X exceeds the
    largest e^hi, so nothing is cut; the lattice covers it."""

    inner: Release
    steps: int
    symmetric: bool = False

    def _inner_cells(self, prec: int, points: int = 2**10) -> Cells:
        _, _, lo, hi = self.inner.moments()
        return self.inner.cells(_default_step(lo, hi, min(points, ALLOCATION_CELLS)), prec)

    def _lattice_points(self) -> int:
        """Points of the X-lattice on [0, X_max]: a step of sd(X)/2^10 (the split's error is
        second order in step/sd), at least twice finer than the smallest X, within
        [2^10, MAX_ALLOCATION_POINTS]."""
        x_min, x_max, var_x = self._x_stats
        n = math.ceil(x_max / (math.sqrt(var_x) / 2**10))
        if x_min > 0:
            n = max(n, math.ceil(2 * x_max / x_min))
        return min(max(n, 2**10), MAX_ALLOCATION_POINTS)

    @cached_property
    def _x_stats(self) -> tuple[float, float, float]:
        """(X_min, X_max, Var_Q X) in floats (planning; read once). A law of unbounded ratio
        (:func:`bounded_inner` false) is cut: X_max is the smallest cell end above which P₁
        holds at most 4e-14 and t·Q₁ at most 1e-16, as for the Gaussian."""
        c = self._inner_cells(64)
        xs = [(float(q.mid()), float(p.mid()), lo, hi) for p, q, lo, hi in c.cells
              if hi is not None]
        x_min = min((math.exp(float(lo)) if lo is not None else 0.0) for _, _, lo, _ in xs)
        x_max = max(math.exp(min(float(hi), 700.0)) for _, _, _, hi in xs)
        if not bounded_inner(self.inner):
            x_max = self._cut(xs, x_max)
        second = sum(p * p / q for q, p, _, hi in xs
                     if q > 0 and math.exp(min(float(hi), 700.0)) <= x_max)
        return x_min, x_max, max(second - 1, 1e-300)

    def _cut(self, xs: list, x_max: float) -> float:
        """The cut X_max of a law of unbounded ratio (see :attr:`_x_stats`)."""
        cum_p = cum_q = 0.0
        for q, p, lo, _ in sorted(xs, key=lambda c: -float(c[3])):
            if lo is None:
                break
            cum_p, cum_q = cum_p + p, cum_q + q
            if cum_p > math.exp(-_P_TAIL_SDS**2 / 2) or self.steps * cum_q > _Q_TAIL:
                break
            x_max = math.exp(min(float(lo), 700.0))
        return x_max

    def _far(self, lo, x_max: float) -> bool:
        """Whether a cell of loss at least ``lo`` is cut (X certainly above X_max)."""
        return (not bounded_inner(self.inner) and lo is not None
                and float(_arb.to_arb(lo).mid()) > math.log(x_max) * (1 + 2**-30) + 2**-30)

    def moments(self):
        x_min, x_max, var_x = self._x_stats
        t = self.steps
        sd = math.sqrt(var_x / t)
        return var_x / (2 * t), sd, -12 * sd, math.log((x_max + t) / t)

    def _laws(self, prec: int):
        """The split X-law (integer masses, rounded up), h, the lattice's end, and the cut
        masses: P₁ and Q₁ of the cut cells (X above X_max) and of the cells of unknown
        loss (the mass a tabulated law leaves off: X anywhere)."""
        _, x_max, _ = self._x_stats
        n = self._lattice_points()
        h = Fraction(x_max * (1 + 2**-40) / n).limit_denominator(2**50)
        cells = self._inner_cells(prec, 4 * n)          # cells no wider than h in X
        with _arb.precision(prec + 64):
            hh = _arb.to_arb(h)
            npts = 0
            split: dict[int, arb] = {0: cells.q_inf.nonnegative_part()}
            pools: dict[int, list] = {}       # lattice interval -> [Q, P] merged in it
            cut_p, far_q, lost_q = cells.p_inf.nonnegative_part(), arb(0), arb(0)
            for p, q, lo, hi in cells.cells:
                if not (q.upper() > 0 or p.upper() > 0):
                    continue
                if hi is None or self._far(lo, x_max):
                    if bounded_inner(self.inner):
                        raise _refusal("of a law whose likelihood ratio is bounded")
                    cut_p += p.nonnegative_part()
                    if hi is None:
                        lost_q += q.nonnegative_part()
                    else:
                        far_q += q.nonnegative_part()
                    continue
                xa = arb(0) if lo is None else _arb.to_arb(lo).exp() / hh
                xb = _arb.to_arb(hi).exp() / hh
                a = max(int(xa.lower().floor().unique_fmpz()), 0)
                b = int(xb.upper().ceil().unique_fmpz())
                npts = max(npts, b)
                if q.lower() > 0 and p.lower() > 0:           # the cell merged: mean p/q
                    mean = p / q / hh
                    j = mean.lower().floor().unique_fmpz()
                    if j is not None and j == mean.upper().floor().unique_fmpz():
                        pool = pools.setdefault(int(j), [arb(0), arb(0)])
                        pool[0] += q
                        pool[1] += p
                qh, ph = q.nonnegative_part(), p.nonnegative_part() / hh
                if a == b:
                    split[a] = split.get(a, arb(0)) + qh
                else:
                    to_a = ((b * qh - ph) / (b - a)).nonnegative_part()
                    to_b = ((ph - a * qh) / (b - a)).nonnegative_part()
                    split[a] = split.get(a, arb(0)) + to_a
                    split[b] = split.get(b, arb(0)) + to_b
            up = [fixed(split.get(j, arb(0)), "upper") for j in range(npts + 1)]
            lattice = [tuple(pools.get(j, (arb(0), arb(0)))) for j in range(npts)]
            merged = tuple([fixed(b, "lower") for b in _sweep(lattice, hh, way)]
                           for way in ("fwd", "rev"))
        return up, h, h * npts, (cut_p, far_q, lost_q), merged

    def build(self, step, prec=DEFAULT_PREC):
        if step is None:
            raise ParameterError("random allocation needs a grid step")
        split, h, x_max, (cut_p, far_q, lost_q), merged = self._laws(prec)
        # bounded laws: the lower end from the release merged into a few outputs (a
        # post-processing), whose allocation is listed atom by atom: exact for the merged
        # release, so its lower sides bound the release's from below. Unbounded ones: each
        # cell merged into its lattice interval and swept, as for the Gaussian
        low = (_AllocatedAtoms(self._groups(prec), self.steps, prec).build(step, prec)
               if bounded_inner(self.inner) else None)
        return _allocation_pld(split, merged, h, far_q, cut_p, max(x_max, self._x_stats[1]),
                               self.steps, step, prec, lower=low, lost_q=lost_q,
                               cut_at=self._x_stats[1])

    def _groups(self, prec: int) -> tuple:
        """The inner release's outputs merged into m groups by loss (equal widths of the
        loss range; m the most, up to 16, whose t-fold allocation lists at most 2^13
        atoms): (Q-mass, loss of the group) each — a post-processing of the release."""
        t, m = self.steps, 16
        while m > 2 and math.comb(t + m - 1, m - 1) > 2**13:
            m -= 1
        cells = self._inner_cells(prec)
        _, x_max, _ = self._x_stats
        kept = [c for c in cells.cells if c[3] is not None]   # unknown loss: dropped
        ends = [(float(_arb.to_arb(lo).mid()) if lo is not None else -math.inf,
                 float(_arb.to_arb(hi).mid())) for _, _, lo, hi in kept]
        top = min(max(b for _, b in ends), math.log(x_max))   # beyond: the top group
        bottom = min(a for a, _ in ends if a > -math.inf) if any(
            a > -math.inf for a, _ in ends) else top - 1
        width = max(top - bottom, 1e-300)
        with _arb.precision(prec + 32):
            sums = [[arb(0), arb(0)] for _ in range(m)]
            for (p, q, _, _), (a, b) in zip(kept, ends):
                mid = (max(a, bottom) + min(b, top)) / 2
                g = min(m - 1, max(0, int((mid - bottom) / width * m)))
                sums[g][0] += p.nonnegative_part()
                sums[g][1] += q.nonnegative_part()
            return tuple((q, (p / q).log()) for p, q in sums if q.lower() > 0 and p.lower() > 0)

    def cells(self, step, prec=DEFAULT_PREC, mixed=False):
        raise UnsupportedEventError("a random allocation cannot be sampled again",
                                    event="RandomAllocationEvent", accountant="PldAccountant")


@dataclass(frozen=True, eq=False)
class _AllocatedAtoms(Release):
    """One record in 1 of ``steps`` runs of a release of a few loss atoms (randomized
    response, the discrete Laplace), in closed form: X takes the values x_a = e^{ℓ_a} with
    Q-masses q_a, so S = Σ n_a x_a over the multinomial counts (n_a) of the t steps, with
    Q-mass t!/Π n_a! · Π q_a^{n_a} and P-mass (S/t) times it — every atom of the run's pair
    listed, read without a grid (:class:`~privtools.accounting.pld.readers.AtomicLaw`) or
    put on the accountant's grid once."""

    atoms: tuple              # (q_a, ℓ_a): Q-mass ball and exact loss
    steps: int
    prec: int = DEFAULT_PREC
    symmetric: bool = False
    atomic: bool = True       # read exactly when alone in the ledger (``repeated.exact_law``)

    def cells(self, step=None, prec=DEFAULT_PREC, mixed=False) -> Cells:
        if mixed:
            raise UnsupportedEventError("a random allocation cannot be sampled again",
                                        event="RandomAllocationEvent",
                                        accountant="PldAccountant")
        return self._cells

    @cached_property
    def _cells(self) -> Cells:
        t = self.steps
        with _arb.precision(self.prec + 32):
            xs = [_arb.to_arb(ell).exp() for _, ell in self.atoms]
            pw = [[arb(1)] for _ in self.atoms]
            for k, (q, _) in enumerate(self.atoms):
                for _ in range(t):
                    pw[k].append(pw[k][-1] * q)
            out = []
            for ns in _compositions(t, len(self.atoms)):
                coef, left = arb(1), t
                for n in ns[:-1]:
                    coef, left = coef * arb.bin_uiui(left, n), left - n
                qm = coef
                s_val = arb(0)
                for k, n in enumerate(ns):
                    qm = qm * pw[k][n]
                    s_val += n * xs[k]
                ratio = s_val / t
                loss = ratio.log()
                out.append((ratio * qm, qm, loss, loss))
        return Cells(tuple(out))

    def moments(self):
        out = loss_moments((p, q) for p, q, _, _ in self._cells.cells)
        return (0.0, 0.0, 0.0, 0.0) if out is None else out


def _atoms_of(inner: Release) -> tuple | None:
    """(Q-mass, loss) of each atom of a lattice release that lists all its mass, or None."""
    if not isinstance(inner, _Lattice):
        return None
    out = []
    with _arb.precision(DEFAULT_PREC + 32):
        for _, q, lo, hi in inner.cells(None, DEFAULT_PREC).cells:
            if lo is None or hi is None or lo != hi:
                return None
            out.append((q, lo))
    return tuple(out)


def cells_allocation(inner: Release, steps: int) -> Release:
    """Random allocation (1 of ``steps``) of a release read from its cells: in closed form
    for a few atoms of bounded ratio (at most ``MAX_ATOMS`` composed atoms), else on the
    X-lattice — a law of unbounded ratio (the discrete Gaussian, Skellam, other tabulated
    laws) cut at X_max as the Gaussian is (:class:`_AllocatedCells`)."""
    atoms = _atoms_of(inner) if bounded_inner(inner) else None
    if atoms is not None and math.comb(steps + len(atoms) - 1, len(atoms) - 1) <= MAX_ATOMS:
        return _AllocatedAtoms(atoms, steps)
    return _AllocatedCells(inner, steps)


def _pairs(law: tuple, ht: arb, unit: arb) -> tuple[list, list]:
    """Cells of both directions from the Q-law of S on the lattice: forward (P = (s/t)·Q,
    loss log(s/t)), reverse (the masses swapped, loss −log(s/t)); S = 0 has Q-mass only."""
    fwd, rev = [], []
    start, masses = law[0], law[1]
    for i, c in enumerate(masses.coeffs() if isinstance(masses, fmpz_poly) else masses):
        if not c:
            continue
        j = start + i
        qm = arb(c) * unit
        if j == 0:
            rev.append((qm, arb(0), None, None))       # loss +∞ in reverse
            continue
        ratio = j * ht
        loss = ratio.log()
        fwd.append((ratio * qm, qm, loss, loss))
        rev.append((qm, ratio * qm, -loss, -loss))
    return fwd, rev


def _sweep(cells: list, hh: arb, way: str) -> list:
    """The X-law merged onto the lattice (a post-processing of X), for one direction's
    lower end: the pool, whose Q-mean lies in [jh, (j+1)h], is merged with the fraction α
    of the next nonempty cell (its mean at or above (j+1)h) that puts the mean on (j+1)h.
    α is known as a ball: ``way="fwd"`` takes its upper end (the merged mean at or above
    the point it is placed on: S only falls, and so does the removing direction's δ),
    ``way="rev"`` its lower end (the mean at or below: S only rises, and the adding
    direction's δ falls). The Q-mass kept is its lower end (a proportional drop); a pool
    that cannot be placed so is dropped (the lower end may lose mass), and the last pool is
    merged with part of the group below it (:func:`_place_last`)."""
    out = [arb(0)] * (len(cells) + 1)
    pool = None
    for k, (q1, p1) in enumerate(cells):
        if q1.is_exact() and p1.is_exact() and q1 == 0 and p1 == 0:
            continue                    # an empty cell: the pool waits for the next one
        if pool is None:
            pool = [k, q1, p1]
            continue
        j, q0, p0 = pool
        x = (j + 1) * hh
        num, den = x * q0 - p0, p1 - x * q1
        if den > 0:
            r = num / den
            a = _fraction(r, way)
            if r.upper() < 1 and a is not None:
                out[j + 1] += arb((q0 + a * q1).lower())
                pool = [k, (1 - a) * q1, (1 - a) * p1]
                continue
            if r.lower() >= 1:
                pool = [j, q0 + q1, p0 + p1]
                continue
        pool = [k, q1, p1]                            # the old pool is dropped
    if pool is not None:
        _place_last(out, pool, hh, way)
    return out


def _fraction(r: arb, way: str) -> arb | None:
    """The end of the ball ``r`` (a fraction in [0, 1]) the sweep takes for ``way``: the
    upper end (at least 0) for ``fwd``; the lower end for ``rev``, None when it is not
    certainly >= 0 (the pool alone might already sit above the point)."""
    if way == "fwd":
        return arb(r.upper()) if r.upper() > 0 else arb(0)
    return arb(r.lower()) if r.lower() >= 0 else None


def _place_last(out: list, pool: list, hh: arb, way: str) -> None:
    """The last pool (mean in [jh, (j+1)h], nothing above to merge with) merged with part of
    the nearest group placed below it, at the lattice point g·h, so that the merged mean
    comes down to jh: the Q-mass borrowed is (p₀ − jh·q₀)/((j − g)h), taken at the end of
    its ball that leaves the mean on the side ``way`` needs (as in :func:`_sweep`). Dropped
    when no group lies below, the group is too light, or the side is not certain."""
    j, q0, p0 = pool
    below = [g for g in range(min(j, len(out)) - 1, -1, -1) if out[g].upper() > 0]
    if not below:
        return
    g = below[0]
    x = j * hh
    need = (p0 - x * q0) / ((j - g) * hh)
    take = _fraction(need, "rev" if way == "fwd" else "fwd")   # less borrowed: mean higher
    if take is None or not take.upper() < out[g].lower():
        return
    out[g] = arb((out[g] - take).lower())
    out[j] += arb((q0 + take).lower())


_TRIM = 2**(FIXED_BITS - 70)      # mass trimmed per end per product: 2^-70 ≈ 8.5e-22


def _mul(a: tuple, b: tuple, side: str) -> tuple:
    """(start, masses, trimmed) of the convolution of two such triples (masses an integer
    polynomial): each product floored inside FLINT — on the upper side the remainders,
    summed and rounded up, join the trimmed mass (sent to +∞ in both directions, as every
    trimmed mass is: S <= t·X_max wherever it sat) — then at most 2^-70 of mass trimmed
    from each end (counted)."""
    with _threads():
        prod = a[1] * b[1]
    q, rem = _fixedpoint.floor_masses(prod, FIXED_BITS)
    extra = _fixedpoint.shift(rem, FIXED_BITS, "up") if side == "upper" else 0
    if q.length() == 0:
        q = fmpz_poly([0])
    n = q.length()

    def low(k):
        return int(q.truncate(k)(1)) if k else 0

    def high(k):
        return int(q.right_shift(n - k)(1)) if k else 0
    lo = _trimmed(low, n - 1, _TRIM)
    hi = _trimmed(high, n - 1 - lo, _TRIM)
    trimmed = a[2] + b[2] + low(lo) + high(hi) + extra
    return a[0] + b[0] + lo, q.truncate(n - hi).right_shift(lo), trimmed


def _power(base: list, k: int, side: str) -> tuple:
    """k-fold convolution of integer masses on 0, 1, 2, …: (start, masses as an integer
    polynomial, trimmed mass)."""
    result, cur = None, (0, fmpz_poly(list(base)), 0)
    while True:
        if k & 1:
            result = cur if result is None else _mul(result, cur, side)
        k >>= 1
        if not k:
            return result
        cur = _mul(cur, cur, side)


def _refusal(why: str) -> UnsupportedEventError:
    return UnsupportedEventError(
        f"PldAccountant reads random allocation {why}; a sound bound without amplification "
        "is the inner event composed `allocations` times", event="RandomAllocationEvent",
        accountant="PldAccountant")


#: Inner events whose random allocation is read: the Gaussian, and laws of bounded ratio.
ALLOCATED = (GaussianEvent, LaplaceEvent, PureDPEvent, DiscreteLaplaceEvent,
             DiscreteGaussianSumEvent, SkellamEvent, NoiseEvent)


def check_allocation(event) -> None:
    """UnsupportedEventError unless ``event`` allocates an inner event of
    :data:`ALLOCATED` (a noise law's own privacy map is checked by the accountant): what
    :func:`allocation_release` reads."""
    inner = event.event
    if not isinstance(inner, ALLOCATED):
        names = ", ".join(t.__name__ for t in ALLOCATED)
        raise _refusal(f"of {names} only, got {type(inner).__name__} (no pair of "
                       "likelihood ratios is read for it here)")


def allocation_blocks(event) -> list[tuple[object, int]]:
    """k-of-t allocation as what is composed: k one-of-s allocations over the blocks of a
    partition of the t steps into k blocks of sizes s = ⌊t/k⌋ or ⌈t/k⌉, as ``(event,
    count)`` pairs (``event`` itself when k = 1).

    Why it dominates: cut a uniform random permutation of the steps into blocks of those
    sizes and allocate the record to one step of each block, uniformly and independently.
    The set of steps it lands in is then uniform over the k-subsets (its law is invariant
    under every permutation of the steps, and it always has k elements): this *is* k-of-t
    allocation. Revealing the permutation only adds information, and given it the run is k
    independent one-of-s allocations, one per block — composed. Feldman and Shenfeld (2025)
    bound k-of-t allocation by k-fold composition of one-of-⌊t/k⌋ allocation; blocks of the
    two sizes compose the ⌈t/k⌉ ones at their own (smaller) loss."""
    k, t = event.allocations, event.steps
    if k == 1:
        return [(event, 1)]
    s, big = divmod(t, k)
    out = []
    if big:
        out.append((replace(event, steps=s + 1, allocations=1), big))
    out.append((replace(event, steps=s, allocations=1), k - big))
    return out


def allocation_release(event, inner: Release | None = None) -> Release:
    """The release of a :class:`RandomAllocationEvent`, one allocation: the Gaussian in
    closed form (:class:`_Allocated`), any other inner release of bounded loss from its
    cells (:func:`cells_allocation`). ``inner``: the
    inner event's release (the caller's interpretation of ``event.event``). k-of-t
    allocation is composed from its blocks (:func:`allocation_blocks`) first."""
    check_allocation(event)
    if event.allocations != 1:
        raise ParameterError("allocation_release reads one allocation: expand "
                             f"allocations={event.allocations} with allocation_blocks")
    if isinstance(event.event, GaussianEvent):
        g = event.event
        mu = g.sensitivity ** 2 / (2 * g.sigma ** 2)
        if event.steps == 1:                      # one step: the Gaussian release itself
            return gaussian_release(mu)
        return _Allocated(mu, event.steps)
    if inner is None:
        raise ParameterError("allocation_release needs the inner event's release")
    if event.steps == 1:
        return inner
    return cells_allocation(inner, event.steps)
