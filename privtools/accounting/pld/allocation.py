"""Random allocation of a Gaussian release, read as a certified privacy-loss distribution.

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

**Lower end.** Each X rounded down to the lattice: S_dn <= S, so the forward loss is at or
below the truth; the P-law of S_dn is the tilted X′ (ℓ ~ N(μ, 2μ)) convolved with t − 1
rounded X, and every mass rounded down. First order in h. (The reverse lower end uses the
law of S rounded up under Q.)

**Tails.** X above X_max (where P₁ has at most 1e-13 and t·Q at most 1e-16 left) is cut: the
event that some X is cut has P-mass at most P₁(X > X_max) + (t − 1)·Q(X > X_max), sent to
+∞ forward; in reverse its loss is at most −log(X_max/t). Each convolution trims at most
2⁻⁷⁰ of mass from each end of the split law; that mass (S <= t·X_max, so P-mass at most
X_max times it) goes to +∞ in both directions, and the lower ends drop what they trim.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from flint import arb, fmpz_poly

from privtools.certified import balls as _arb
from privtools.certified import fixedpoint as _fixedpoint
from privtools.errors import ParameterError, UnsupportedEventError

from ..events import GaussianEvent
from . import DEFAULT_PREC, FIXED_BITS, PrivacyLossDistribution, fixed
from .cells import Cells, lower_grid, upper_grid
from .events import Release, gaussian_release

__all__ = ["allocation_release", "ALLOCATION_POINTS"]

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
            merged = _sweep(cells, hh)
        return ([fixed(b, "upper") for b in split], [fixed(b, "lower") for b in merged],
                h, tail_q, tail_p, x_max)

    def build(self, step, prec=DEFAULT_PREC):
        if step is None:
            raise ParameterError("random allocation needs a grid step")
        split, merged, h, tail_q, tail_p, x_max = self._laws(prec)
        t = self.steps
        up = _power(split, t, "upper")
        low = _power(merged, t, "lower")
        with _arb.precision(prec + 64):
            unit = arb(1) / _SCALE
            trimmed = arb(up[2]) * unit
            xm = _arb.to_arb(Fraction(x_max))
            # some X above X_max (P-mass at most P₁ + (t − 1)·Q of the cut), and the mass the
            # convolutions trimmed (S <= t·X_max there, so P-mass <= X_max·Q-mass): +∞
            cut_p = arb(tail_p.upper()) + (t - 1) * arb(tail_q.upper()) + xm * trimmed
            cut_q = t * arb(tail_q.upper())
            ht = _arb.to_arb(h) / t
            fwd, rev = _pairs(up, ht, unit)
            if cut_q.upper() > 0:      # reverse: the cut event's loss is <= −log(X_max/t)
                cl = -(xm / t).log()
                rev.append((cut_q, arb(0), cl, cl))
            fwd_up = upper_grid(Cells(tuple(fwd), cut_p), step, prec)
            rev_up = upper_grid(Cells(tuple(rev), trimmed), step, prec)
            fwd_l, rev_l = _pairs(low, ht, unit)
            fwd_low = lower_grid(Cells(tuple(fwd_l)), step, prec)
            rev_low = lower_grid(Cells(tuple(rev_l)), step, prec)
        return PrivacyLossDistribution((fwd_up, fwd_low), (rev_up, rev_low))

    def cells(self, step, prec=DEFAULT_PREC, mixed=False):
        raise UnsupportedEventError("a random allocation cannot be sampled again",
                                    event="RandomAllocationEvent", accountant="PldAccountant")


def _pairs(law: tuple, ht: arb, unit: arb) -> tuple[list, list]:
    """Cells of both directions from the Q-law of S on the lattice: forward (P = (s/t)·Q,
    loss log(s/t)), reverse (the masses swapped, loss −log(s/t)); S = 0 has Q-mass only."""
    fwd, rev = [], []
    start, masses = law[0], law[1]
    for i, c in enumerate(masses):
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


def _sweep(cells: list, hh: arb) -> list:
    """The X-law merged onto the lattice (a post-processing of X): the pool, whose Q-mean
    lies in [jh, (j+1)h], is merged with the fraction α of the next cell that puts the mean
    on (j+1)h, α taken at the upper end of its ball (the mean then at or above the lattice
    point it is placed on, and the Q-mass kept is its lower end); a pool that cannot be
    placed is dropped (the lower end may lose mass)."""
    out = [arb(0)] * (len(cells) + 1)
    pool = None
    for k, (q1, p1) in enumerate(cells):
        if pool is None:
            pool = [k, q1, p1]
            continue
        j, q0, p0 = pool
        x = (j + 1) * hh
        num, den = x * q0 - p0, p1 - x * q1
        if den > 0:
            r = num / den
            if r.upper() < 1:
                a = arb(r.upper()) if r.upper() > 0 else arb(0)
                out[j + 1] += arb((q0 + a * q1).lower())
                pool = [k, (1 - a) * q1, (1 - a) * p1]
                continue
            if r.lower() >= 1:
                pool = [j, q0 + q1, p0 + p1]
                continue
        pool = [k, q1, p1]                            # the old pool is dropped
    return out


_TRIM = 2**(FIXED_BITS - 70)      # mass trimmed per end per product: 2^-70 ≈ 8.5e-22


def _mul(a: tuple, b: tuple, side: str) -> tuple:
    """(start, masses, trimmed) of the convolution of two such triples: each product rounded
    outward for ``side``, then at most 2^-70 of mass trimmed from each end (counted)."""
    prod = fmpz_poly(a[1]) * fmpz_poly(b[1])
    prod = _fixedpoint.shift_poly(prod, FIXED_BITS, "up" if side == "upper" else "down")
    ms = [int(c) for c in prod.coeffs()] or [0]
    lo, acc = 0, 0
    while lo < len(ms) - 1 and acc + ms[lo] <= _TRIM:
        acc += ms[lo]
        lo += 1
    hi, acc2 = len(ms) - 1, 0
    while hi > lo and acc2 + ms[hi] <= _TRIM:
        acc2 += ms[hi]
        hi -= 1
    trimmed = a[2] + b[2] + acc + acc2
    return a[0] + b[0] + lo, ms[lo:hi + 1], trimmed


def _power(base: list, k: int, side: str) -> tuple:
    """k-fold convolution of integer masses on 0, 1, 2, …: (start, masses, trimmed mass)."""
    result, cur = None, (0, list(base), 0)
    while True:
        if k & 1:
            result = cur if result is None else _mul(result, cur, side)
        k >>= 1
        if not k:
            return result
        cur = _mul(cur, cur, side)


def check_allocation(event) -> None:
    """UnsupportedEventError unless ``event`` allocates a GaussianEvent once (what
    :func:`allocation_release` reads)."""

    if not isinstance(event.event, GaussianEvent) or event.allocations != 1:
        raise UnsupportedEventError(
            "PldAccountant reads random allocation of a GaussianEvent with allocations=1 "
            "only; a sound bound without amplification is the inner event composed "
            "`allocations` times", event="RandomAllocationEvent", accountant="PldAccountant")


def allocation_release(event) -> Release:
    """The release of a :class:`RandomAllocationEvent` of a Gaussian, one allocation."""
    check_allocation(event)
    inner = event.event
    mu = inner.sensitivity ** 2 / (2 * inner.sigma ** 2)
    if event.steps == 1:                          # one step: the Gaussian release itself
        return gaussian_release(mu)
    return _Allocated(mu, event.steps)
