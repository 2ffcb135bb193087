"""Amplification by shuffling, read as a certified privacy-loss distribution.

n users each apply an ε₀-DP local randomizer R and a shuffler hands the server the multiset
of reports. Replacing user 1's input x₁⁰ by x₁¹ (replace-one):

* every other user's report R(x_j) is, pointwise, at least e^{−ε₀}·(R(x₁⁰) + R(x₁¹))/2 (each
  of R(x₁⁰), R(x₁¹) is at most e^{ε₀}·R(x_j)), so it is a *clone* with probability
  p = e^{−ε₀} — a draw of R(x₁⁰) or of R(x₁¹), each with probability 1/2 — and otherwise a
  draw that does not depend on x₁;
* user 1's own pair (R(x₁⁰), R(x₁¹)) is a post-processing of randomized response at ε₀
  (Kairouz, Oh and Viswanath 2015).

So the shuffled view is a post-processing of the counts (clones labelled 0 plus user 1 if
its response says 0, clones labelled 1 plus user 1 otherwise): with C ~ Bin(n − 1, p),
A ~ Bin(C, 1/2) and Δ ~ Bern(r), r = e^{ε₀}/(1 + e^{ε₀}),

    P₀ = (A + Δ, C − A + 1 − Δ)        P₁ = (A + 1 − Δ, C − A + Δ)

— the reduction of Feldman, McMillan and Talwar (2021, "Hiding among the clones",
Thm 3.2). The pair is symmetric (P₁ is P₀ with the coordinates swapped), and on the atom
(c, a) its loss is log[(r·a + (1 − r)(c − a + 1)) / ((1 − r)·a + r(c − a + 1))].

The atoms are tabulated where C and A have their mass (``SHUFFLE_SDS`` standard deviations
each side); the mass left outside is certified as one minus the tabulated mass and taken as
a cell of unknown loss (+∞ on the upper side).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from flint import arb

from privtools.certified import balls as _arb

from . import DEFAULT_PREC
from .cells import Cells
from .events import Release

__all__ = ["shuffled_release", "SHUFFLE_SDS"]

SHUFFLE_SDS = 12          # tabulated window of C and of A | C (mass outside < 1e-30)


def _window(mean: float, sd: float, lo: int, hi: int) -> tuple[int, int]:
    w = SHUFFLE_SDS * sd + 2
    return max(lo, math.floor(mean - w)), min(hi, math.ceil(mean + w))


@dataclass(frozen=True)
class _Shuffled(Release):
    """The clones pair of :mod:`privtools.accounting.pld.shuffle` for n users at ε₀."""

    eps0: Fraction
    n: int
    prec: int = DEFAULT_PREC

    symmetric = True

    @cached_property
    def _cells(self) -> Cells:
        if self.eps0 == 0:                             # nothing to hide: loss 0
            return Cells(((arb(1), arb(1), Fraction(0), Fraction(0)),))
        out = []
        with _arb.precision(self.prec + 64):
            e = _arb.to_arb(self.eps0).exp()
            p = 1 / e                                  # a clone
            r = e / (1 + e)                            # user 1 reports its own side
            s = 1 - r
            m = self.n - 1
            pf = math.exp(-float(self.eps0))
            c_lo, c_hi = _window(m * pf, math.sqrt(m * pf * (1 - pf)), 0, m)
            # Bin(c; m, p) at c_lo, then up by the ratio (m − c)/(c + 1) · p/(1 − p)
            bc = _binomial(m, c_lo, p)
            odds = p / (1 - p)
            total_p = arb(0)
            for c in range(c_lo, c_hi + 1):
                if c > c_lo:
                    bc = bc * (m - c + 1) / c * odds
                a_lo, a_hi = _window(c / 2, math.sqrt(c) / 2, 0, c)
                half = _binomial(c, a_lo, arb(1) / 2)          # Bin(a_lo; c, 1/2)
                prev = _binomial(c, a_lo - 1, arb(1) / 2) if a_lo > 0 else arb(0)
                cur = half
                for a in range(a_lo, a_hi + 2):            # the count a = A + Δ <= c + 1
                    if a > a_lo:
                        prev, cur = cur, (cur * (c - a + 1) / a if a <= c else arb(0))
                    p0 = bc * (r * prev + s * cur)
                    p1 = bc * (s * prev + r * cur)
                    num = r * a + s * (c - a + 1)
                    den = s * a + r * (c - a + 1)
                    loss = (num / den).log()
                    out.append((p0, p1, arb(loss.lower()), arb(loss.upper())))
                    total_p += p0
            rest = (1 - total_p).nonnegative_part()
            rest = arb(0).union(arb(rest.upper())) if rest.upper() > 0 else arb(0)
            out.append((rest, rest, None, None))
        return Cells(tuple(out))

    def cells(self, step, prec=DEFAULT_PREC, mixed=False) -> Cells:
        return self._cells

    def moments(self):
        return self._cells.moments()


def _binomial(trials: int, k: int, prob: arb) -> arb:
    """Ball around P(Bin(trials, prob) = k) (0 outside 0..trials)."""
    if k < 0 or k > trials:
        return arb(0)
    log_c = (arb(trials + 1).lgamma() - arb(k + 1).lgamma() - arb(trials - k + 1).lgamma())
    return (log_c + k * prob.log() + (trials - k) * (1 - prob).log()).exp()


def shuffled_release(eps0: Fraction, n: int) -> Release:
    """The release of ``n`` shuffled ε₀-DP reports (for :class:`ShuffledEvent`)."""
    return _Shuffled(Fraction(eps0), int(n))
