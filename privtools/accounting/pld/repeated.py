"""k-fold composition in closed form for releases of a few loss atoms.

A release whose output space splits into m atoms — cells of one certain loss (randomized
response, the discrete Laplace at Δ = 1, and their Poisson-subsampled or
without-replacement mixtures, whose losses log(1 − γ + γe^{±ε}) lie off every binary grid)
— composed k times has the multinomial law over how many coordinates fall in each atom:

    P(n₁, …, n_m) = k!/(n₁!⋯n_m!) · Π p_j^{n_j},   Q likewise,   loss Σ n_j ℓ_j,

and tuples touching a cell of unknown loss, or where Q = 0 (P = 0), collect in one cell of
unknown loss (at +∞, at −∞). Putting the *composed* atoms on the grid once, instead of
each release's atoms before the convolution, keeps both ends second order in the step: the
upper side splits each composed atom over its two grid points, and the lower side sweeps
them onto the grid by exact merges — k + 1 atoms close together, where a lone atom per
release would be rounded down by up to a step, k times over (:mod:`.cells`).

Composed atoms are listed while their number stays at most ``MAX_ATOMS``; P- and Q-mass
beyond ``tail`` at either end of the loss range move into the cell of unknown loss.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property

from flint import arb

from privtools.certified import balls as _arb

from . import DEFAULT_PREC, DEFAULT_TAIL
from .cells import Cells, loss_moments
from .events import Release
from .readers import AtomicLaw, SampledGaussianLaw, is_atom, is_zero

__all__ = ["MAX_ATOMS", "exact_law", "repeated_release"]

MAX_ATOMS = 2**17             # composed atoms listed at most (else the grid composes)
MAX_PARTS = 16                # atoms of the release at most (a sparse law)
_PLAN_STEP = Fraction(1)      # the step handed to an atomic release's cells (unused by it)


@dataclass
class _Parts:
    """An atomic release's cells sorted out: atoms ``(p, q, loss)``, the (P, Q) mass of
    cells of unknown loss, and the P-mass where Q = 0 (+∞), Q-mass where P = 0 (−∞)."""

    atoms: list
    rest_p: arb
    rest_q: arb
    p_inf: arb
    q_inf: arb


def _split(cells: Cells) -> _Parts | None:
    """The parts of ``cells``; None when some cell of positive mass has a loss range wider
    than an atom's (a continuous law: its composed cells would widen k-fold), or there are
    more than ``MAX_PARTS`` atoms."""
    out = _Parts([], arb(0), arb(0), cells.p_inf.nonnegative_part(),
                 cells.q_inf.nonnegative_part())
    for p, q, lo, hi in cells.cells:
        p, q = p.nonnegative_part(), q.nonnegative_part()
        if not (p.upper() > 0 or q.upper() > 0):
            continue
        if is_zero(q):
            out.p_inf += p
        elif is_zero(p):
            out.q_inf += q
        elif is_atom(lo, hi):
            out.atoms.append((p, q, lo))
            if len(out.atoms) > MAX_PARTS:
                return None
        elif lo is not None and hi is not None:
            return None
        else:
            out.rest_p, out.rest_q = out.rest_p + p, out.rest_q + q
    return out


def _compositions(k: int, m: int):
    """Every (n₁, …, n_m) of non-negative integers summing to ``k`` (n₁ first, falling)."""
    if m == 1:
        yield (k,)
        return
    ns = [0] * m
    ns[0] = k
    while True:
        yield tuple(ns)
        # the next composition in reverse-lexicographic order
        j = m - 2
        while j >= 0 and ns[j] == 0:
            j -= 1
        if j < 0:
            return
        ns[j] -= 1
        rest = ns[m - 1] + 1
        ns[m - 1] = 0
        ns[j + 1] = rest


def _loss(atoms, ns):
    parts = [n * a[2] for n, a in zip(ns, atoms) if n]
    if all(isinstance(x, Fraction) for x in parts):
        return sum(parts, Fraction(0))
    total = arb(0)
    for x in parts:
        total += _arb.to_arb(x) if isinstance(x, Fraction) else x
    return total


def _powers(x: arb, k: int) -> list[arb]:
    out = [arb(1)]
    for _ in range(k):
        out.append(out[-1] * x)
    return out


def _rest(total: arb, extra: arb, k: int) -> arb:
    """total^k − (total − extra)^k: the mass of the k-tuples with a coordinate in a part of
    mass ``extra`` (exactly 0 when that part is exactly empty)."""
    if is_zero(extra):
        return arb(0)
    return (total ** k - (total - extra) ** k).nonnegative_part()


@dataclass(frozen=True, eq=False)
class _Repeated(Release):
    """``count`` independent copies of an atomic release, composed in closed form."""

    inner: Release
    count: int
    parts: _Parts = field(repr=False)
    tail: Fraction = DEFAULT_TAIL
    prec: int = DEFAULT_PREC

    @property
    def symmetric(self) -> bool:               # type: ignore[override]
        return self.inner.symmetric

    @cached_property
    def _cells(self) -> Cells:
        with _arb.precision(self.prec + 32):
            parts = self.parts
            atoms, k = parts.atoms, self.count
            pw_p = [_powers(a[0], k) for a in atoms]
            pw_q = [_powers(a[1], k) for a in atoms]
            out = []
            for ns in _compositions(k, len(atoms)):
                coef, left = arb(1), k
                for n in ns[:-1]:
                    coef, left = coef * arb.bin_uiui(left, n), left - n
                p, q = coef, coef
                for j, n in enumerate(ns):
                    p, q = p * pw_p[j][n], q * pw_q[j][n]
                loss = _loss(atoms, ns)
                out.append((p, q, loss, loss))
            out.sort(key=lambda c: float(_arb.to_arb(c[2]).mid()))
            out, cut_p, cut_q = _trim(out, self.tail)
            sp = sum((a[0] for a in atoms), arb(0))
            sq = sum((a[1] for a in atoms), arb(0))
            # tuples with a coordinate of unknown loss (and none where Q or P is 0)
            u_p = _rest(sp + parts.rest_p, parts.rest_p, k) + cut_p
            u_q = _rest(sq + parts.rest_q, parts.rest_q, k) + cut_q
            if u_p.upper() > 0 or u_q.upper() > 0:
                out.append((u_p, u_q, None, None))
            # tuples with a coordinate where Q = 0 (P-mass at +∞), or where P = 0
            tot_p = sp + parts.rest_p + parts.p_inf
            tot_q = sq + parts.rest_q + parts.q_inf
            p_inf = _rest(tot_p, parts.p_inf, k)
            q_inf = _rest(tot_q, parts.q_inf, k)
            return Cells(tuple(out), p_inf, q_inf)

    def cells(self, step, prec=DEFAULT_PREC, mixed=False) -> Cells:
        return self._cells

    def moments(self):
        cells = self._cells
        out = loss_moments((p, q) for p, q, _, _ in cells.cells)
        return (0.0, 0.0, 0.0, 0.0) if out is None else out


def _trim(out: list, tail: Fraction) -> tuple[list, arb, arb]:
    """Atoms sorted by loss with at most ``tail``/4 of P- and of Q-mass taken from each end
    (returned as the masses moved to the cell of unknown loss)."""
    budget = _arb.to_arb(tail / 4)
    cut_p = cut_q = arb(0)
    lo, hi = 0, len(out)
    while hi - lo > 1:
        p, q = out[lo][0], out[lo][1]
        if not ((cut_p + p).upper() <= budget and (cut_q + q).upper() <= budget):
            break
        cut_p, cut_q, lo = cut_p + p, cut_q + q, lo + 1
    top_p = top_q = arb(0)
    while hi - lo > 1:
        p, q = out[hi - 1][0], out[hi - 1][1]
        if not ((top_p + p).upper() <= budget and (top_q + q).upper() <= budget):
            break
        top_p, top_q, hi = top_p + p, top_q + q, hi - 1
    return out[lo:hi], cut_p + top_p, cut_q + top_q


def _atomic(release: Release, count: int, tail, prec: int) -> _Repeated | None:
    if release.native_step is not None:
        return None                       # an exact lattice composes exactly on its grid
    if getattr(getattr(release, "inner", None), "kind", None) == "gaussian" \
            or getattr(release, "kind", None) == "gaussian":
        return None
    try:
        with _arb.precision(prec + 32):
            parts = _split(release.cells(_PLAN_STEP, prec))
    except (NotImplementedError, ValueError, ZeroDivisionError):
        return None
    if parts is None or not parts.atoms:
        return None
    m = len(parts.atoms)
    if math.comb(count + m - 1, m - 1) > MAX_ATOMS:
        return None
    return _Repeated(release, count, parts, Fraction(tail), prec)


def repeated_release(release: Release, count: int, tail: Fraction = DEFAULT_TAIL,
                     prec: int = DEFAULT_PREC) -> Release | None:
    """``count`` (>= 2) copies of ``release`` composed in closed form, or None when the
    release is an exact lattice or not atomic, or its composed atoms would number more than
    ``MAX_ATOMS``."""
    return _atomic(release, count, tail, prec) if count >= 2 else None


def atomic_law(release: Release, count: int, prec: int = DEFAULT_PREC) -> AtomicLaw | None:
    """The ``count``-fold composition of an atomic release as an :class:`AtomicLaw`, read
    without a grid; None where :func:`repeated_release` would refuse."""
    rep = _atomic(release, count, Fraction(0), prec)     # read exactly: nothing trimmed
    return None if rep is None else AtomicLaw(rep.cells(None, prec), rep.symmetric, prec)


def exact_law(release: Release, count: int, prec: int = DEFAULT_PREC):
    """``count`` copies of ``release`` as a law read without a grid
    (:mod:`~privtools.accounting.pld.readers`): one sampled Gaussian in closed form, or
    the atomic composition; None otherwise."""
    inner = getattr(release, "inner", None)
    if count == 1 and getattr(release, "atomic", False):      # atoms listed by the release
        return AtomicLaw(release.cells(None, prec), release.symmetric, prec)
    if count == 1 and getattr(inner, "kind", None) == "gaussian" \
            and getattr(release, "rate", None) is not None:
        return SampledGaussianLaw(inner.a, release.rate, prec)
    return atomic_law(release, count, prec)
