"""Engine 3: certified D_α of a shifted law on Z by a tabulated window and ratio-bounded
remainders (the law's log-concavity and ratio facts bound the far tails)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import numpy as np
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified.balls import exact_min as _amin
from privtools.certified.balls import exact_nonneg as _nonneg
from privtools.certified.balls import lower_end as _lo
from privtools.certified.balls import to_arb as _exact
from privtools.certified.balls import upper_end as _hi
from privtools.certified.balls import working_bits as _bits
from privtools.certified.intervals import ends as endpoints
from privtools.certified.intervals import precision_of as _mpi_prec
from privtools.errors import CertificationError, ParameterError
from privtools.noise import IntegerDistribution

from ._common import _LN10
from .pmfs import _renyi_from_sums


# =========================================================================== shift: tabulated
@dataclass
class _Model:
    """What the tabulated engine reads about a unimodal noise law beyond its PMF values: its
    centre, log-concavity and ratio bounds (facts each law states, see privtools.noise)."""

    dist: IntegerDistribution
    c: int
    log_concave: bool

    def ub_ratio(self, Y: int, d: int) -> arb:
        """Certified upper bound on sup_{y >= Y} R(y)/R(y+d), R(y) = p(y+1)/p(y) (Y >= c)."""
        return self.dist.shift_ratio_bound(Y, d)

    def q_override(self) -> arb | None:
        """For a log-convex law: a cap on R(y) beyond the centre."""
        return self.dist.ratio_cap_ball()


def _model_for(noise) -> _Model:
    if not noise.symmetric:
        raise ParameterError(
            f"renyi_shift has no certified tail model for {type(noise).__name__} on Z; "
            "pass m (wrapped view) or use renyi() on ExactPMFs")
    noise.shift_ratio_bound(noise.center, 1)  # raises ParameterError when the law lacks it
    return _Model(noise, noise.center, bool(noise.log_concave))


@dataclass
class _Plan:
    alpha: Fraction
    lo: int            # window [lo, hi] summed exactly
    hi: int
    segments: list     # left pieces (lo or None, hi)
    log_s: float       # float estimate of log S


def _float_grid(noise, lo: int, hi: int) -> np.ndarray:
    return np.asarray(noise.logpmf(np.arange(lo, hi + 1, dtype=np.int64)), dtype=float)


class _Grid:
    """Float view of the noise on [g_lo, g_hi] used to plan windows and tail pieces."""

    def __init__(self, noise, model: _Model, d: int, g_lo: int, g_hi: int):
        self.g_lo, self.g_hi, self.c, self.d = g_lo, g_hi, model.c, d
        self.lp = _float_grid(noise, g_lo, g_hi)
        self.n = self.lp.size - d - 2  # y in [g_lo, g_lo + n - 1] has p(y + d + 1)
        n = self.n
        self.lrho = self.lp[:n] - self.lp[d:d + n]
        # log of the certified-tail formula p(j)/(1 − ρ_j) at every grid point
        step = np.minimum(self.lp[1:n + 1] - self.lp[:n], -1e-300)
        q_fixed = model.q_override()
        if q_fixed is not None:
            step = np.full(n, math.log(float(q_fixed.mid())))
        with np.errstate(divide="ignore", invalid="ignore"):
            self.tail = self.lp[:n] - np.log(-np.expm1(step))
        self.neg_tail_right = -self.tail[max(self.c + 1 - g_lo, 0):]
        self.log_concave = model.log_concave

    def log_rho_sup(self, top: int) -> float:
        if self.log_concave:
            return float(self.lrho[top - self.g_lo])
        if top <= -self.d:
            return 0.0
        return float(self.lrho[-self.g_lo])

    def log_mass(self, lo, hi: int) -> float:
        """Float twin of :func:`_mass_bound` (lo None = -inf)."""
        c, g = self.c, self.g_lo
        if lo is not None and lo > c:
            tail, peak = float(self.tail[lo - g]), lo
        elif hi < c:
            j = 2 * c - hi
            tail = float(self.tail[j - g]) if j - g < self.n else 0.0
            peak = hi
        else:
            tail, peak = 0.0, c
        if lo is None:
            return min(tail, 0.0)
        return min(tail, 0.0, math.log(hi - lo + 1) + float(self.lp[peak - g]))


def _plan_windows(noise, model: _Model, d: int, orders, lam: float):
    """Float planning: the grid and a plan per order (sorted)."""
    c = model.c
    sd = max(float(noise.std()), 1.0)
    amax = float(max(orders))
    k_left = int(math.ceil(math.sqrt(2 * lam) * sd * 1.3)) + d + 16
    k_right = k_left
    for _ in range(40):
        g_lo = c - d - k_left
        g_hi = c + int(math.ceil((amax - 1) * d)) + k_right + d + 2
        grid = _Grid(noise, model, d, g_lo, g_hi)
        plans, grow_left, grow_right = [], False, False
        guess = None
        for a in orders:
            r = _plan_one(grid, float(a), lam, guess)
            if r == "left":
                grow_left = True
                break
            elif r == "right":
                grow_right = True
                break
            else:
                plans.append(_Plan(a, *r))
                guess = (float(a), r[0], r[1])
        if not (grow_left or grow_right):
            return grid, plans
        if grow_left:
            k_left *= 2
        if grow_right:
            k_right *= 2
    raise CertificationError("could not find a summation window for renyi_shift")


def _window(grid: _Grid, a: float, lam: float, s0: int, s1: int):
    """Window on grid indices [s0, s1): (i0, i1, log_s), or None if it touches the slice."""
    lt = grid.lp[s0:s1] + (a - 1) * grid.lrho[s0:s1]
    top = float(lt.max())
    log_s = top + math.log(float(np.exp(lt - top).sum()))
    above = np.flatnonzero(lt >= log_s - lam - 4.0)
    i0, i1 = int(above[0]), int(above[-1])
    if i0 == 0 or i1 == lt.size - 1:
        return None
    return s0 + i0, s0 + i1, log_s


def _plan_one(grid: _Grid, a: float, lam: float, guess):
    w = _locate(grid, a, lam, guess)
    if isinstance(w, str):
        return w
    i0, i1, log_s = w
    lo, hi = grid.g_lo + i0, max(grid.g_lo + i1, grid.c)
    if hi >= grid.g_lo + grid.n - 1:
        return "right"
    segs = _left_pieces(grid, a, lo, log_s - lam)
    if segs is None:
        return "left"
    return lo, hi, segs, log_s


def _locate(grid: _Grid, a: float, lam: float, guess):
    """The window at order ``a`` (:func:`_window`), searched first near the previous order's
    window ``guess``; else the side ("left", "right") on which the grid must grow."""
    n, g_lo = grid.n, grid.g_lo
    w = None
    if guess is not None:  # the window moves by about (a − a_prev)·d
        a0, lo0, hi0 = guess
        width = hi0 - lo0
        shift_by = int((a - a0) * grid.d)
        s0 = max(0, lo0 + shift_by - width - g_lo)
        s1 = min(n, hi0 + shift_by + width - g_lo + 1)
        if s1 - s0 > 8:
            w = _window(grid, a, lam, s0, s1)
    if w is None:
        w = _window(grid, a, lam, 0, n)
        if w is None:
            lt = grid.lp[:n] + (a - 1) * grid.lrho[:n]
            return "left" if lt[0] >= lt[-1] else "right"
    return w


def _left_pieces(grid: _Grid, a: float, lo: int, budget: float):
    """The pieces left of the window, from top = lo - 1 down, each bounded by
    ρ(top)^{α−1}·M(start, top) within ``budget``; None when they reach the grid's left end."""
    c, g_lo, lp = grid.c, grid.g_lo, grid.lp
    segs = []
    top = lo - 1
    while True:
        allow = budget - (a - 1) * grid.log_rho_sup(top)
        if grid.log_mass(None, top) <= allow:
            segs.append((None, top))
            return segs
        if grid.log_mass(top, top) > allow:
            return None  # pragma: no cover - the window threshold keeps points small
        if top > c:
            start = _start_right_of_centre(grid, top, allow)
        else:
            # left of the centre the piece is bounded by (count) x p(top)
            count = math.exp(min(allow - float(lp[top - g_lo]), 700.0))
            start = top - max(int(count), 1) + 1
        if start <= g_lo + 1:
            return None
        segs.append((start, top))
        top = start - 1
        if len(segs) > 5000:
            return None  # pragma: no cover


def _start_right_of_centre(grid: _Grid, top: int, allow: float) -> int:
    """The lowest start of a piece ending at ``top`` > c whose bound is within ``allow``."""
    c, g_lo, lp = grid.c, grid.g_lo, grid.lp
    # tail(lo) = log p(lo)/(1 − ρ_lo) decreases in lo beyond the centre
    seg = grid.neg_tail_right[: top - c]  # a view: -tail on c+1..top
    start = c + 1 + int(np.searchsorted(seg, -allow, side="left"))
    start = min(start, top)
    # or (count) x p(lo): p grows towards the centre; gallop then bisect
    good, step = top, 1
    while True:
        cand = top - step
        if cand <= c or math.log(top - cand + 1) + lp[cand - g_lo] > allow:
            bad = max(cand, c)
            break
        good, step = cand, 2 * step
    while good - bad > 1:
        mid = (good + bad) // 2
        if math.log(top - mid + 1) + lp[mid - g_lo] <= allow:
            good = mid
        else:
            bad = mid
    return min(start, good)


# Most certified PMF values one table may hold (Arb balls; ~1 GB at the sizes used).
MAX_TABLE = 4_000_000


class _Table:
    """PMF balls on [lo, hi] (Arb, at ``prec`` bits) as an object array, and
    ρ(y) = p(y)/p(y+d). Correctness never depends on the precision; it only sets how
    tight the final interval is (checked by the caller)."""

    def __init__(self, noise, lo: int, hi: int, d: int, prec: int):
        if hi - lo + 1 > MAX_TABLE:
            raise CertificationError(
                f"renyi_shift would tabulate {hi - lo + 1:,} certified PMF values of {noise} "
                f"(shift {d}), beyond the limit {MAX_TABLE:,}: use a closed-form bound (e.g. "
                "Lemma 3 for Skellam) or the wrapped view (m=...)")
        self.lo, self.hi, self.d = lo, hi, d
        balls = noise.pmf_balls(lo, hi, prec)
        self.p = np.empty(len(balls), dtype=object)
        self.p[:] = balls
        n = len(balls) - d
        self.rho = self.p[:n] / self.p[d:d + n]
        self._logp = None
        self._logrho = None

    def P(self, k: int) -> arb:
        return self.p[k - self.lo]

    def R(self, k: int) -> arb:
        return self.p[k + 1 - self.lo] / self.p[k - self.lo]

    def RHO(self, k: int) -> arb:
        return self.rho[k - self.lo]

    def logs(self):
        if self._logp is None:
            lg = np.frompyfunc(lambda x: x.log(), 1, 1)
            self._logp = lg(self.p)
            self._logrho = lg(self.rho)
        return self._logp, self._logrho


def _shift_tabulated(noise, d: int, orders, dps: int) -> list[mpmath.mpi]:
    """Certified D_α on Z for the symmetric laws with a tail model (see renyi_shift)."""
    model = _model_for(noise)
    amax = max(orders)
    dps_t = dps + len(str(int(math.ceil(amax)))) + 3
    lam = (dps + 2) * _LN10 + 6.0
    order_sorted = sorted(set(orders))
    grid, plans = _plan_windows(noise, model, d, order_sorted, lam)
    extra = 0
    for _attempt in range(4):
        bits = _bits(dps_t, extra + (grid.g_hi - grid.g_lo + 1).bit_length())
        results: dict[Fraction, mpmath.mpi] = {}
        with _arb.precision(bits):
            table = _Table(noise, grid.g_lo, grid.g_hi, d, bits)
            ok = _sum_plans(table, model, plans, d, bits, results)
        if not ok:  # a right remainder did not decay: widen every window
            lam *= 1.5
            grid, plans = _plan_windows(noise, model, d, order_sorted, lam)
            continue
        if all(_tight(results[a], a, dps) for a in order_sorted):
            break
        extra = 2 * extra + 64  # ball radii too wide for dps digits: more precision
    else:
        if not ok:
            raise CertificationError("renyi_shift: could not certify the remainder (q >= 1)")
    return [results[a] for a in orders]


def _tight(r: mpmath.mpi, a: Fraction, dps: int) -> bool:
    """S = e^{(α−1)D} known to about dps digits: (α−1)·width(D) <= 10^-(dps-1)."""
    lo, hi = endpoints(r)
    if not mpmath.isfinite(hi):
        return False
    with mpmath.workprec(_mpi_prec(r)):
        return (hi - lo) * (mpmath.mpf(a.numerator) / a.denominator - 1) \
            <= mpmath.mpf(10) ** (1 - dps)


def _sum_plans(table: _Table, model: _Model, plans, d: int, bits: int, results) -> bool:
    prev = None  # (alpha, lo, hi, terms)
    pw = np.frompyfunc(lambda x, n: x**n, 2, 1)
    ex = np.frompyfunc(lambda x: x.exp(), 1, 1)
    q_fixed = model.q_override()
    for plan in plans:
        a = plan.alpha
        aa = _exact(a)
        lo, hi = plan.lo, plan.hi
        i0, i1 = lo - table.lo, hi - table.lo + 1
        integer = a.denominator == 1
        if integer:
            n = int(a) - 1
            terms = None
            if prev is not None and prev[0].denominator == 1 and int(prev[0]) <= n + 1:
                step = n + 1 - int(prev[0])
                plo, phi, pterms = prev[1], prev[2], prev[3]
                olo, ohi = max(lo, plo), min(hi, phi)
                if olo <= ohi:
                    rho_o = table.rho[olo - table.lo: ohi - table.lo + 1]
                    fac = rho_o if step == 1 else pw(rho_o, step)
                    mid = pterms[olo - plo: ohi - plo + 1] * fac if step else \
                        pterms[olo - plo: ohi - plo + 1]
                    left = _fresh_int(table, lo, olo - 1, n, pw)
                    right = _fresh_int(table, ohi + 1, hi, n, pw)
                    terms = np.concatenate([left, mid, right])
            if terms is None:
                terms = _fresh_int(table, lo, hi, n, pw)
        else:
            logp, logrho = table.logs()
            terms = ex(logp[i0:i1] + (aa - 1) * logrho[i0:i1])
        total = terms.sum()
        prev = (a, lo, hi, terms)

        # right remainder: y >= Y = hi + 1
        Y = hi + 1
        rY = table.RHO(Y)
        tY = table.P(Y) * (rY ** int(a - 1) if integer else ((aa - 1) * rY.log()).exp())
        if q_fixed is not None:
            q = q_fixed
        else:
            ratio = model.ub_ratio(Y, d)
            q = table.R(Y) * (ratio ** int(a - 1) if integer else ((aa - 1) * ratio.log()).exp())
        if not q < 1:
            return False
        right_rem = _hi(tY / (1 - q))

        # left remainder: segments
        left_rem = arb(0)
        for seg_lo, seg_hi in plan.segments:
            rs = _rho_sup(table, model, seg_hi, d)
            rsp = rs ** int(a - 1) if integer else ((aa - 1) * rs.log()).exp()
            mass = _mass_bound(table, model, seg_lo, seg_hi)
            left_rem += _hi(rsp * mass)
        s_lo = _nonneg(_lo(total))
        s_hi = _hi(total + right_rem + _hi(left_rem))
        results[a] = _renyi_from_sums(s_lo, s_hi, a, bits)
    return True


def _fresh_int(table: _Table, lo: int, hi: int, n: int, pw) -> np.ndarray:
    if hi < lo:
        return np.empty(0, dtype=object)
    i0, i1 = lo - table.lo, hi - table.lo + 1
    return table.p[i0:i1] * pw(table.rho[i0:i1], n)


def _rho_sup(table: _Table, model: _Model, hi: int, d: int) -> arb:
    """Certified upper bound on sup_{y <= hi} ρ(y)."""
    if model.log_concave:
        return _hi(table.RHO(hi))
    if hi <= -d:
        return arb(1)
    return _hi(table.RHO(0))


def _mass_bound(table: _Table, model: _Model, lo, hi: int) -> arb:
    """Certified upper bound on P(lo <= X <= hi) (lo None = -inf) for a symmetric unimodal
    law: the tail ``P(X >= j) <= p(j)/(1 − ρ_j)`` for j > c, where ρ_j bounds every
    ratio R(k), k >= j (log-concave: R(j) itself; log-convex Pólya difference: β), the
    mirrored tail for hi < c; and (number of points) × (largest p on [lo, hi])."""
    c = model.c
    q_fixed = model.q_override()

    def upper_tail(j: int) -> arb:
        if j + 1 > table.hi:
            return arb(1)
        r = q_fixed if q_fixed is not None else table.R(j)
        if not r < 1:
            return arb(1)
        return _amin(_hi(table.P(j) / (1 - r)), arb(1))

    if lo is not None and lo > c:
        tail, peak = upper_tail(lo), lo
    elif hi < c:
        tail, peak = upper_tail(2 * c - hi), hi
    else:
        tail, peak = arb(1), c
    if lo is None:
        return tail
    return _amin(tail, _hi((hi - lo + 1) * table.P(peak)))


