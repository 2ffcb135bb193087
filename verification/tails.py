"""Certified tail probabilities and checks of the paper's tail bounds (000 Fact 2,
Proposition 1, Lemma 5; the τ of Theorems 1, 2, 4 and 6 are built on them).

    exact_tail(X, t)                  certified interval for P(|X − c| > t)
    exact_quantile(X, p)              smallest integer t >= 0 with P(|X − c| > t) <= p (proved)
    check_tail_bound(X, bound, ps)    does P(|X − c| > bound(p)) <= p hold for every p in ps?

``X`` is a privtools distribution (centre ``c = X.center``: 0 for the centred laws,
``mu`` for shifted ones, ⌊mean⌋ for Pólya) or an :class:`~privtools.exact.ExactPMF`
(centre 0 unless ``center=`` is given) — e.g. the exact law of a sum of n shares from
:func:`privtools.exact.sum_pmf`.

How the tail is certified. For a distribution the tail is summed from the tail itself —
never as 1 − (central mass), which keeps no relative accuracy once the tail is below
``10**-dps`` — as ``[Σ lower ends, Σ upper ends + R]`` of the Arb balls of ``P(X = k)``
over a window beyond ``c ± t``, where ``R`` is the certified remainder beyond the window
from ``tail_bound`` (the window is widened until ``R`` is below ``10**-(dps+2)`` of the
tail). For an ExactPMF the tabulated balls beyond ``c ± t`` are summed and the PMF's
certified ``unaccounted`` mass widens the upper end (it may sit anywhere outside the
table). Interval ends are converted with directed rounding, and every comparison with a
probability ``p`` is made against ``p``'s exact rational value (a float is taken at its
binary value: pass ``"1e-30"``, a ``Fraction`` or an mpf to mean something else).

Thresholds. A claimed threshold ``t`` may be real: for integer-valued X and integer centre,
``|X − c| > t  ⟺  |X − c| > ⌊t⌋``, so the check reads the exact tail at ``⌊t⌋``. The
claim holds at ``p`` iff ``⌊t(p)⌋ >= q(p)``, the exact quantile — equivalently
``t(p) / q(p) >= 1`` (the reported slack).

Statuses: ``holds`` (certified upper end <= p), ``fails`` (certified lower end > p, a
counterexample) or ``inconclusive`` (the interval straddles p even after raising the
precision; only possible for an ExactPMF whose unaccounted mass is comparable to p or
when p equals a tail value).
"""

from __future__ import annotations

import functools
import math
import numbers
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified import intervals as _intervals
from privtools.certified.intervals import fraction_bounds
from privtools.certified.rounding import div_down, div_up, sub_up
from privtools.errors import CertificationError, ParameterError
from privtools.exact import ExactPMF, sum_pmf
from privtools.exact.tails import (
    exact_tail,
    tail_points,
)
from privtools.noise import DiscreteLaplace
from privtools.validation import (
    check_dps,
    check_int,
    check_positive_fraction,
    check_probability,
    to_fraction,
)

from .verdicts import FAILS, HOLDS, INCONCLUSIVE, status_le

__all__ = [   # the verdicts are verification.verdicts' (read there)
    "TailRow",
    "TailCheck",
    "Lemma5Constant",
    "check_tail_bound",
    "fact2_tail",
    "fact2_exact_check",
    "theorem1_tau",
    "prop1_skellam",
    "prop1_without_log",
    "subgaussian_tail",
    "lemma5_laplace_sum",
    "smallest_constant_lemma5",
]


# Working precision (bits) of the closed-form threshold functions; their value is returned
# as the certified upper end of an Arb ball, so a threshold is never rounded down.
_BOUND_BITS = 256


# ============================================================================ helpers
def _check_ps(ps) -> list:
    if isinstance(ps, (str, bytes)) or not isinstance(ps, Iterable):
        raise ParameterError(f"ps must be a non-empty sequence of probabilities, got {ps!r}")
    out = list(ps)
    if not out:
        raise ParameterError("ps must be non-empty")
    for p in out:
        check_probability("ps", p)
    return out


_fraction_bounds = fraction_bounds
interval_ends = _intervals.ends
_mpi = _intervals.interval


# ============================================================================ checking a bound
@dataclass(frozen=True)
class TailRow:
    """One grid point of :func:`check_tail_bound`. Also readable as a mapping
    (``row["slack"]``)."""

    p: object                    # as given
    t: object                    # the claimed threshold bound(p), as returned
    threshold: int               # ⌊t⌋, the integer threshold actually checked
    tail: mpmath.mpi             # certified P(|X − c| > threshold)
    quantile: int | None         # exact quantile q(p) (None: undecidable from an ExactPMF)
    ratio: mpmath.mpi            # tail / p (certified)
    slack: float | None          # t / q(p): >= 1 iff the claim holds at p (inf if q = 0 < t)
    status: str

    def __getitem__(self, key: str):
        return getattr(self, key)


@dataclass(frozen=True)
class TailCheck:
    """Result of :func:`check_tail_bound`.

    ``status``: ``holds`` iff every row is certified to hold, ``fails`` if any row is a
    certified counterexample, else ``inconclusive``. ``worst_ratio``: certified upper end
    of max_p tail(⌊t(p)⌋)/p (< 1: the bound holds with room); ``worst_ratio_interval`` the
    enclosure of that maximum. ``slack``: min_p t(p)/q(p) (< 1 exactly when it fails;
    None if no quantile could be decided). ``counterexample``: ``(p, ⌊t⌋, tail interval)``
    of the failing row with the largest certified ratio, or None.
    """

    status: str
    worst_ratio: mpmath.mpf
    worst_ratio_interval: mpmath.mpi
    slack: float | None
    counterexample: tuple | None
    rows: tuple[TailRow, ...]
    two_sided: bool = True
    label: str = field(default="", compare=False)

    @property
    def holds(self) -> bool:
        """Whether the bound holds at every checked point."""
        return self.status == HOLDS

    @property
    def slack_range(self) -> tuple[float, float] | None:
        """The smallest and largest slack over the checked points, or None."""
        vals = [r.slack for r in self.rows if r.slack is not None]
        return (min(vals), max(vals)) if vals else None

    def failing(self) -> tuple[TailRow, ...]:
        """The points where the bound fails."""
        return tuple(r for r in self.rows if r.status == FAILS)


@functools.lru_cache(maxsize=4096)
def _check_threshold(value, p) -> Fraction:
    """Exact value of bound(p): a finite non-negative real."""
    if isinstance(value, bool) or not isinstance(value, (numbers.Real, mpmath.mpf)):
        raise ParameterError(f"bound(p) must return a real number, got {value!r} at p={p!r}")
    try:
        out = to_fraction("bound", value)
    except ParameterError as exc:
        raise ParameterError(f"bound(p) must return a finite number, got {value!r} at "
                             f"p={p!r}") from exc
    if out < 0:
        raise ParameterError(f"bound(p) must be non-negative, got {value!r} at p={p!r}")
    return out


def check_tail_bound(dist, bound: Callable, ps, two_sided: bool = True, dps: int = 30,
                     center: int | None = None) -> TailCheck:
    """Check the claim ``P(|X − c| > bound(p)) <= p`` for every ``p`` in ``ps``.

    ``dist``: a privtools distribution or an ExactPMF (see :func:`exact_tail`). ``bound``:
    callable ``p -> t`` (a finite non-negative real; it receives ``p`` exactly as given in
    ``ps``). The tail is evaluated at ``⌊t⌋`` (``P(|X| > t) = P(|X| > ⌊t⌋)`` for integer X).
    A row straddling ``p`` is re-evaluated at 2× and 4× ``dps`` (distributions only).
    """
    tail_points(dist, (), two_sided, dps, center)   # the law and options, before any work
    if not callable(bound):
        raise ParameterError(f"bound must be a callable p -> threshold, got {bound!r}")
    ps = _check_ps(ps)
    dps = check_dps(dps)
    is_pmf = isinstance(dist, ExactPMF)
    bits = _arb.bits_for_dps(dps) + 2 * _arb.GUARD_BITS
    claimed = []
    for p in ps:
        t_raw = bound(p)
        t_exact = _check_threshold(t_raw, p)
        claimed.append((p, t_raw, t_exact))
    points = tail_points(dist, [(math.floor(t), p) for p, _, t in claimed], two_sided, dps,
                         center)

    rows = []
    for (p, t_raw, t_exact), pt in zip(claimed, points):
        tail, quantile, pf = pt.tail, pt.quantile, pt.p
        status = status_le(tail, pf)
        p_lo, p_hi = _fraction_bounds(pf, bits)
        with mpmath.workprec(bits):
            t_lo, t_hi = interval_ends(tail)
            ratio = _mpi(div_down(t_lo, p_hi), div_up(t_hi, p_lo))
        if quantile is None:
            slack = None
        elif quantile == 0:
            slack = math.inf if t_exact > 0 else 1.0
        else:
            slack = float(t_exact / quantile)
        rows.append(TailRow(p, t_raw, pt.t, tail, quantile, ratio, slack, status))

    statuses = {r.status for r in rows}
    status = FAILS if FAILS in statuses else (INCONCLUSIVE if INCONCLUSIVE in statuses
                                               else HOLDS)
    worst_lo = max(interval_ends(r.ratio)[0] for r in rows)
    worst_hi = max(interval_ends(r.ratio)[1] for r in rows)
    failing = [r for r in rows if r.status == FAILS]
    counterexample = None
    if failing:
        w = max(failing, key=lambda r: interval_ends(r.ratio)[0])
        counterexample = (w.p, w.threshold, w.tail)
    slacks = [r.slack for r in rows if r.slack is not None]
    label = getattr(bound, "__name__", "") + " on " + (dist.label if is_pmf else repr(dist))
    return TailCheck(status, worst_hi, _mpi(worst_lo, worst_hi),
                     min(slacks) if slacks else None, counterexample, tuple(rows),
                     two_sided, label)


# ============================================================================ the paper's bounds
def _arb_p(p) -> arb:
    """Ball around the exact rational p (call inside an Arb precision context)."""
    return _arb.to_arb(check_probability("p", p))


def _upper(compute: Callable[[], arb]) -> mpmath.mpf:
    with _arb.precision(_BOUND_BITS), mpmath.workprec(_BOUND_BITS):
        return _arb.upper_mpf(compute())


def _named(fn: Callable, name: str) -> Callable:
    fn.__name__ = fn.__qualname__ = name
    return fn


def fact2_tail(scale) -> Callable:
    """Fact 2 (000) as a two-sided threshold: ``p -> k``, the smallest integer ``k >= 0``
    with ``P(|Y| > k) = 2 e^{-k/b} / (e^{1/b} + 1) <= p`` for ``Y ~ Lap_Z(b)``, i.e.
    ``k = max(0, ⌈b log(2 / (p (e^{1/b} + 1)))⌉)``.

    The ceiling matters: the real root ``t`` of ``2e^{-t/b}/(e^{1/b}+1) = p`` is not a valid
    threshold for integer noise (``P(|Y| > ⌊t⌋) >= p``). If Fact 2 is exact, this is the
    exact quantile, so ``check_tail_bound`` reports slack exactly 1 everywhere.
    """
    bq = check_positive_fraction("scale", scale)

    def threshold(p) -> int:
        check_probability("p", p)
        bits = _BOUND_BITS
        for _ in range(6):
            with _arb.precision(bits):
                pa, bb = _arb_p(p), _arb.to_arb(bq)  # exact rationals, rounded at `bits`
                x = bb * (2 / (pa * ((1 / bb).exp() + 1))).log()
                if not x.contains_integer():
                    return max(0, int(x.ceil().unique_fmpz()))
            bits *= 2
        raise CertificationError(f"b log(2/(p(e^(1/b)+1))) is (within 2^-{bits}) an integer "
                              f"at p={p!r}; its ceiling is ambiguous")

    return _named(threshold, f"fact2_tail(b={bq})")


def theorem1_tau(scale) -> Callable:
    """Theorem 1's τ for total noise Lap_Z(b), b = g/ε: ``p -> ⌈b log(2/p)⌉`` (a sufficient
    threshold by Fact 2, since e^{1/b} + 1 > 2)."""
    bq = check_positive_fraction("scale", scale)

    def threshold(p) -> int:
        # ceiling of the certified upper end: never below the paper's τ
        return int(mpmath.ceil(_upper(lambda: _arb.to_arb(bq) * (2 / _arb_p(p)).log())))

    return _named(threshold, f"theorem1_tau(b={bq})")


def _sigma_and_log(var, p) -> tuple[arb, arb]:
    v = check_positive_fraction("var", var)
    return _arb.to_arb(v).sqrt(), (2 / _arb_p(p)).log()


def prop1_skellam(var) -> Callable:
    """Proposition 1 (000): ``p -> 2σ√log(2/p) + √2 log(2/p)`` for X ~ Sk(0, σ²) (also
    Theorem 2's τ before the ceiling, with σ = g/ε). Returned as a certified upper end."""
    v = check_positive_fraction("var", var)

    def threshold(p) -> mpmath.mpf:
        def compute():
            s, L = _sigma_and_log(v, p)
            return 2 * s * L.sqrt() + arb(2).sqrt() * L
        return _upper(compute)

    return _named(threshold, f"prop1_skellam(var={v})")


def prop1_without_log(var) -> Callable:
    """A FALSE variant of Proposition 1 without its sub-exponential term:
    ``p -> 2σ√log(2/p)`` (fails for small σ² and tiny p — a test fixture)."""
    v = check_positive_fraction("var", var)

    def threshold(p) -> mpmath.mpf:
        def compute():
            s, L = _sigma_and_log(v, p)
            return 2 * s * L.sqrt()
        return _upper(compute)

    return _named(threshold, f"prop1_without_log(var={v})")


def subgaussian_tail(sigma2) -> Callable:
    """The sub-Gaussian threshold ``p -> σ√(2 log(2/p))`` from ``P(|X| > t) <= 2e^{-t²/2σ²}``.

    Valid for the discrete Gaussian N_Z(0, σ²) (CKS20: it is σ²-sub-Gaussian) — Theorem 4's
    τ with σ = g/ε. *Not* valid for Skellam with variance σ² (its MGF exp(σ²(cosh λ − 1))
    exceeds exp(σ²λ²/2)): a false claim to catch.
    """
    v = check_positive_fraction("sigma2", sigma2)

    def threshold(p) -> mpmath.mpf:
        def compute():
            s, L = _sigma_and_log(v, p)
            return s * (2 * L).sqrt()
        return _upper(compute)

    return _named(threshold, f"subgaussian_tail(sigma2={v})")


def _lemma5_h(eps: Fraction, n: int, p) -> arb:
    """max{√(2n log(2/p)), 2 log(2/p)} / ε, so that v = c · h."""
    L = (2 / _arb_p(p)).log()
    return (2 * n * L).sqrt().max(2 * L) / _arb.to_arb(eps)


def lemma5_laplace_sum(eps, n, c) -> Callable:
    """Lemma 5 (000): for X_1..X_n i.i.d. Lap_Z(1/ε), |Σ X_i| <= v w.p. >= 1 − p with
    ``v = max{(c/ε)√(2n log(2/p)), 2(c/ε) log(2/p)}`` (c an unspecified absolute
    constant). Returned as a certified upper end (the lemma allows any v >= the max)."""
    e = check_positive_fraction("eps", eps)
    n = check_int("n", n, minimum=1)
    cc = to_fraction("c", c)
    if cc <= 0:
        raise ParameterError(f"c must be > 0, got {c!r}")

    def threshold(p) -> mpmath.mpf:
        return _upper(lambda: _arb.to_arb(cc) * _lemma5_h(e, n, p))

    return _named(threshold, f"lemma5_laplace_sum(eps={e}, n={n}, c={mpmath.nstr(c, 6)})")


@dataclass(frozen=True)
class Lemma5Constant:
    """Details of :func:`smallest_constant_lemma5`: ``c`` and, per p, the exact quantile
    q(p) of |Σ X_i|, the factor h(p) (v = c·h(p)) and q(p)/h(p); ``p_star`` attains the
    maximum."""

    c: mpmath.mpf
    p_star: object
    rows: tuple[tuple, ...]       # (p, q(p), h(p) as mpi, q(p)/h(p) upper end)
    pmf: ExactPMF = field(compare=False, repr=False)


def smallest_constant_lemma5(eps, n, ps, dps: int = 30, pmf: ExactPMF | None = None,
                             details: bool = False):
    """The smallest c for which Lemma 5's bound holds at every p in ``ps``, from the exact
    law of Σ_{i<=n} X_i, X_i i.i.d. Lap_Z(1/ε) (``sum_pmf(DiscreteLaplace(1/ε), n)``,
    convolved; pass ``pmf`` to reuse one).

    The bound holds at p iff ⌊c·h(p)⌋ >= q(p) iff c >= q(p)/h(p), with q(p) the exact
    quantile and h(p) = max{√(2n log(2/p)), 2 log(2/p)}/ε, so the smallest constant is
    ``c* = max_p q(p)/h(p)``; it is returned as a certified upper end (so the bound
    provably holds with c*, and fails at ``p_star`` for any c < c*·(1 − 10^-60)).
    Returns the mpf c* (``details=True``: a :class:`Lemma5Constant`).
    """
    e = check_positive_fraction("eps", eps)
    n = check_int("n", n, minimum=1)
    ps = _check_ps(ps)
    dps = check_dps(dps)
    pfs = [check_probability("ps", p) for p in ps]
    if pmf is None:
        tail = mpmath.mpf(min(pfs).numerator) / min(pfs).denominator * mpmath.mpf(10) ** -dps
        pmf = sum_pmf(DiscreteLaplace(1 / e), n, dps=dps, tail=tail, method="convolve")
    elif not isinstance(pmf, ExactPMF):
        raise ParameterError(f"pmf must be an ExactPMF, got {type(pmf).__name__}")
    quantiles = [pt.quantile for pt in tail_points(pmf, [(0, pf) for pf in pfs])]
    rows, best, p_star = [], mpmath.mpf(0), None
    for p, q in zip(ps, quantiles):
        if q is None:
            raise CertificationError(f"the PMF cannot decide the quantile at p={p!r} "
                                  f"(unaccounted mass {mpmath.nstr(pmf.unaccounted, 3)})")
        with _arb.precision(_BOUND_BITS), mpmath.workprec(_BOUND_BITS):
            h = _lemma5_h(e, n, p)
            ratio = _arb.upper_mpf(q / h)
            h_iv = _mpi(_arb.lower_mpf(h), _arb.upper_mpf(h))
        rows.append((p, q, h_iv, ratio))
        if p_star is None or ratio > best:
            best, p_star = ratio, p
    if not details:
        return best
    return Lemma5Constant(best, p_star, tuple(rows), pmf)


# ============================================================================ Fact 2
def fact2_exact_check(scale, ks, dps: int = 40) -> dict:
    """Compare Fact 2's closed form ``P(Y > k) = e^{-k/b}/(e^{1/b} + 1)`` (Y ~ Lap_Z(b),
    k ∈ N) with the certified exact tails summed from the PMF, one-sided and two-sided
    (``2·formula``).

    Returns ``{"rows": [...], "max_rel_error": mpf, "consistent": bool}``; each row holds
    ``k``, the formula (mpf), the certified one- and two-sided tails (mpi) and a certified
    upper bound on the relative gap |exact − formula|/formula; ``consistent`` is True when
    every formula value lies in its certified interval.
    """
    b = check_positive_fraction("scale", scale)
    if isinstance(ks, (str, bytes)) or not isinstance(ks, Iterable):
        raise ParameterError(f"ks must be a non-empty sequence of integers >= 0, got {ks!r}")
    ks = [check_int("ks", k, minimum=0) for k in ks]
    if not ks:
        raise ParameterError("ks must be non-empty")
    dps = check_dps(dps)
    dist = DiscreteLaplace(b)
    bits = _arb.bits_for_dps(dps) + 2 * _arb.GUARD_BITS
    rows, worst, consistent = [], mpmath.mpf(0), True
    for k in ks:
        with _arb.precision(bits), mpmath.workprec(bits):
            ba = _arb.to_arb(b)
            f = (-k / ba).exp() / ((1 / ba).exp() + 1)
            f_lo, f_hi = _arb.lower_mpf(f), _arb.upper_mpf(f)
            one = exact_tail(dist, k, two_sided=False, dps=dps)
            two = exact_tail(dist, k, two_sided=True, dps=dps)
            gaps = []
            for iv, scale_f in ((one, 1), (two, 2)):
                lo, hi = interval_ends(iv)
                flo, fhi = scale_f * f_lo, scale_f * f_hi
                gap = max(sub_up(hi, flo), sub_up(fhi, lo))
                gaps.append(div_up(gap, flo))
                consistent &= bool(lo <= fhi and flo <= hi)
            rel = max(gaps)
        worst = max(worst, rel)
        rows.append({"k": k, "formula": _arb.to_mpf(f), "one_sided": one,
                     "two_sided": two, "rel_error": rel})
    return {"rows": rows, "max_rel_error": worst, "consistent": consistent}
