"""Engine 1: certified divergences between two ExactPMFs (Rényi, LLR, hockey-stick,
δ(ε) curves and ε(δ)); see the package docstring for the bounds on unaccounted mass."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified.balls import exact_max as _amax
from privtools.certified.balls import exact_min as _amin
from privtools.certified.balls import exact_nonneg as _nonneg
from privtools.certified.balls import lower_end as _lo
from privtools.certified.balls import to_arb as _exact
from privtools.certified.balls import upper_end as _hi
from privtools.certified.intervals import infinite as _inf_interval
from privtools.certified.intervals import interval_max as _max_interval
from privtools.certified.intervals import outward as _interval
from privtools.errors import ParameterError
from privtools.exact.pmf import ExactPMF
from privtools.validation import check_nonneg, check_order, check_probability

from ._common import (
    _INF,
    _check_pair,
    _Pair,
    _pair,
    _pow_pair,
)


# =========================================================================== Rényi
def renyi(P: ExactPMF, Q: ExactPMF, alpha) -> mpmath.mpi:
    """Certified interval containing ``D_α(P‖Q)``.

    ``alpha``: int, Fraction or float > 1 (a float is taken at its exact binary value), or
    ``math.inf`` for ``D_∞(P‖Q) = max_k log P(k)/Q(k)``. The upper end is ``+inf`` for PMFs
    on Z whose P-side has unaccounted mass (nothing is known about P/Q outside the
    tabulated range; use :func:`renyi_shift`), and whenever Q may vanish where P does not.
    """
    _check_pair(P, Q)
    a = check_order("alpha", alpha, infinite=True)
    if a == math.inf:
        return _renyi_inf(_pair(P, Q))
    extra = int(math.log2(float(a) + 1)) + 8
    t = _pair(P, Q, extra_bits=extra)
    with _arb.precision(t.bits):
        s_lo, s_hi = _renyi_sum_bounds(t, a)
        return _renyi_from_sums(s_lo, s_hi, a, t.bits)


def _renyi_sum_bounds(t: _Pair, a: Fraction):
    """(lower, upper) exact bounds on S = Σ P^α Q^{1−α}; None means +inf."""
    aa = _exact(a)
    lower = _renyi_sum_lower(t, a, aa)
    if lower is None:
        return None, None
    if t.wrapped:
        return lower, _renyi_sum_upper_wrapped(t, a, aa)
    if t.uP > 0:
        return lower, None
    return lower, _renyi_sum_upper(t, a, aa)


def _renyi_sum_lower(t: _Pair, a: Fraction, aa: arb):
    """The exact lower bound on S (None: S may be +inf)."""
    lower = arb(0)
    only_p = arb(0)  # Σ a_k over points tabulated for P only (Z)
    for ip, iq, la, ub in zip(t.inP, t.inQ, t.la, t.ub):
        if ip and iq:
            qb = ub + t.uQ if t.wrapped else ub
            v = _pow_pair(la, qb, a, aa)
            if v is None:
                return None
            lower += v
        elif ip:
            only_p += la
    if only_p > 0:
        v = _pow_pair(only_p, t.uQ, a, aa)  # reverse Hölder over the P-only points
        if v is None:
            return None
        lower += v
    return _nonneg(_lo(lower))


def _renyi_sum_upper(t: _Pair, a: Fraction, aa: arb):
    """The exact upper bound on S on Z with no unaccounted P-mass (None: +inf)."""
    upper = arb(0)
    for ip, iq, ua, lb in zip(t.inP, t.inQ, t.ua, t.lb):
        if not ip or ua.is_zero():
            continue
        v = _pow_pair(ua, lb if iq else arb(0), a, aa)
        if v is None:
            return None
        upper += v
    return _hi(upper)


def _renyi_sum_upper_wrapped(t: _Pair, a: Fraction, aa: arb):
    """The exact upper bound on S for wrapped views: the tabulated sum plus the worst
    placement of the unaccounted P-mass (None: +inf)."""
    base = arb(0)
    worst = arb(0)
    for ua, lb in zip(t.ua, t.lb):
        v = _pow_pair(ua, lb, a, aa)
        if v is None:
            return None
        base += v
        if t.uP > 0:
            w = _pow_pair(ua + t.uP, lb, a, aa)
            if w is None:
                return None
            worst = _amax(worst, _hi(w - v))
    return _hi(base + worst)


def _renyi_from_sums(s_lo, s_hi, a: Fraction, bits: int) -> mpmath.mpi:
    if s_lo is None:
        return _inf_interval()
    am1 = _exact(a - 1)
    lo = _nonneg(_lo(s_lo.log() / am1)) if s_lo > 0 else arb(0)
    if s_hi is None:
        return _interval(lo, _INF, bits)
    hi = _hi(s_hi.log() / am1)
    hi = _amax(hi, lo)
    return _interval(lo, hi, bits)


def _renyi_inf(t: _Pair, swap: bool = False) -> mpmath.mpi:
    """D_∞(P‖Q) (or D_∞(Q‖P) with swap)."""
    la, ua, lb, ub = (t.lb, t.ub, t.la, t.ua) if swap else (t.la, t.ua, t.lb, t.ub)
    inP, inQ = (t.inQ, t.inP) if swap else (t.inP, t.inQ)
    uP, uQ = (t.uQ, t.uP) if swap else (t.uP, t.uQ)
    with _arb.precision(t.bits):
        lower = arb(0)
        for ip, iq, a_lo, b_hi in zip(inP, inQ, la, ub):
            if not ip or a_lo.is_zero():
                continue
            q = (b_hi + uQ if t.wrapped else b_hi) if iq else uQ
            if not q > 0:
                return _inf_interval()
            lower = _amax(lower, _nonneg(_lo((a_lo / q).log())))
        if not t.wrapped and uP > 0:
            return _interval(lower, _INF, t.bits)
        upper = arb(0)
        for ip, iq, a_hi, b_lo in zip(inP, inQ, ua, lb):
            pa = a_hi + uP if t.wrapped else (a_hi if ip else arb(0))
            if pa.is_zero():
                continue
            if not iq or not b_lo > 0:
                return _interval(lower, _INF, t.bits)
            upper = _amax(upper, _hi((pa / b_lo).log()))
        return _interval(lower, _amax(upper, lower), t.bits)


def llr(P: ExactPMF, Q: ExactPMF) -> mpmath.mpi:
    """Certified interval containing ``max_k |log P(k)/Q(k)|`` (both directions).

    ``+inf`` if the supports differ. On Z the upper end is ``+inf`` whenever either side
    has unaccounted mass (see the module docstring); for the wrapped views of Theorem 1
    it is finite: the upper end uses ``(a_k + u_P)/b_k^-`` and symmetrically.
    """
    _check_pair(P, Q)
    t = _pair(P, Q)
    return _max_interval([_renyi_inf(t), _renyi_inf(t, swap=True)])


# =========================================================================== hockey-stick
def _hockey_bounds(t: _Pair, e: arb) -> tuple[arb, arb]:
    """Exact (lower, upper) bounds on δ given the ball ``e`` ∋ e^ε."""
    lower = arb(0)
    only_p = arb(0)
    upper = arb(0)
    for ip, iq, la, ua, lb, ub in zip(t.inP, t.inQ, t.la, t.ua, t.lb, t.ub):
        if not ip:
            continue
        c = ua - e * lb
        if c > 0 or c.contains(0):
            upper += _nonneg(_hi(c))
        if iq:
            d = la - e * ub
            if d > 0 or d.contains(0):
                lower += _nonneg(_lo(d))
        else:
            only_p += la
    if t.wrapped:
        lower = _nonneg(_lo(lower - e * t.uQ))
    else:
        lower = _nonneg(_lo(lower + _nonneg(_lo(only_p - e * t.uQ))))
    upper = _amin(_hi(upper + t.uP), arb(1))
    return lower, _amax(upper, lower)


def _exp_ball(eps: Fraction) -> arb:
    return _exact(eps).exp()


def hockey_stick(P: ExactPMF, Q: ExactPMF, eps) -> mpmath.mpi:
    """Certified interval containing ``δ(ε) = Σ_k max(0, P(k) − e^ε Q(k))`` (ε >= 0).

    Finite on Z too: P's unaccounted mass can add at most its mass (upper end), Q's can
    remove at most e^ε times its mass (lower end)."""
    _check_pair(P, Q)
    e = check_nonneg("eps", eps)
    t = _pair(P, Q)
    with _arb.precision(t.bits):
        lo, hi = _hockey_bounds(t, _exp_ball(e))
    return _interval(lo, hi, t.bits)


def _nonempty_list(values, name: str, what: str) -> list:
    """``list(values)``; TypeError if not iterable, ValueError if empty (naming ``name``)."""
    try:
        out = list(values)
    except TypeError as exc:
        raise ParameterError(f"{name} must be an iterable of {what}") from exc
    if not out:
        raise ParameterError(f"{name} must be a non-empty list")
    return out


def delta_curve(P: ExactPMF, Q: ExactPMF, epsilons) -> list[mpmath.mpi]:
    """``[hockey_stick(P, Q, ε) for ε in epsilons]`` sharing one table."""
    _check_pair(P, Q)
    es = [check_nonneg("epsilons", x) for x in _nonempty_list(epsilons, "epsilons", "numbers")]
    t = _pair(P, Q)
    out = []
    with _arb.precision(t.bits):
        for e in es:
            lo, hi = _hockey_bounds(t, _exp_ball(e))
            out.append(_interval(lo, hi, t.bits))
    return out


def epsilon_for_delta(P: ExactPMF, Q: ExactPMF, delta, tol=Fraction(1, 2**40)) -> mpmath.mpi:
    """Certified bracket of ``ε* = min{ε >= 0 : δ(ε) <= delta}`` (δ(ε) = hockey stick).

    Two bisections on the certified δ(ε): the lower end is the largest ε found with
    ``δ(ε).lower > delta`` (so ε* > ε), the upper end the smallest found with
    ``δ(ε).upper <= delta`` (so ε* <= ε). ``tol``: absolute width of each bisection.
    The upper end is ``+inf`` when no ε up to 2^20 certifies ``δ(ε) <= delta`` (e.g. on Z
    when ``delta`` is below P's unaccounted mass).
    """
    _check_pair(P, Q)
    d = check_probability("delta", delta)
    tol = Fraction(tol)
    t = _pair(P, Q)
    with _arb.precision(t.bits):
        dd = _exact(d)

        def certified_le(e: Fraction) -> bool:  # δ(e).upper <= delta
            return not _hockey_bounds(t, _exp_ball(e))[1] > dd

        def certified_gt(e: Fraction) -> bool:  # δ(e).lower > delta
            return _hockey_bounds(t, _exp_ball(e))[0] > dd

        if certified_le(Fraction(0)):
            return _interval(arb(0), arb(0), t.bits)
        hi = Fraction(1)
        while not certified_le(hi):
            hi *= 2
            if hi > 2**20:
                lo = _bisect(certified_gt, Fraction(0), Fraction(2**20), tol) \
                    if certified_gt(Fraction(0)) else Fraction(0)
                return _interval(_exact(lo), _INF, t.bits)
        # upper end: smallest certified_le (predicate false at 0, true at hi)
        up = _bisect(lambda e: not certified_le(e), Fraction(0), hi, tol, return_upper=True)
        lo = _bisect(certified_gt, Fraction(0), up, tol) if certified_gt(Fraction(0)) \
            else Fraction(0)
        return _interval(_exact(lo), _exact(up), t.bits)


def _bisect(pred, a: Fraction, b: Fraction, tol: Fraction, return_upper: bool = False):
    """pred(a) true, pred(b) false: shrink [a, b] to width tol; return a (or b)."""
    while b - a > tol:
        mid = (a + b) / 2
        if pred(mid):
            a = mid
        else:
            b = mid
    return b if return_upper else a


