"""f-DP and μ-GDP of a ledger, certified from its privacy profile.

A pair (P, Q) has the hockey-stick profile h(ε) = H_{e^ε}(P‖Q), non-increasing in ε, and
its trade-off function — the smallest type-II error β of a test of Q against P at type-I
error α — is the conjugate (Dong, Roth and Su 2022, Proposition 2.12):

    T(α) = sup_{ε ∈ R} (1 − h(ε) − e^ε α).

From certified ends h_lo ≤ h ≤ h_up, read at exact points ε_j:

* **lower** — any ε gives T(α) ≥ 1 − h_up(ε) − e^ε α (the largest over the points read);
* **upper** — on a segment [a, b], h(ε) ≥ h(b) and e^ε ≥ e^a, so the supremum over it is
  at most 1 − h_lo(b) − e^a α; below ε₀, h(ε) ≥ 1 − e^ε (test everything) bounds it by
  e^{ε₀}; above log(1/α) it is negative. Segments are split where the bound is loosest
  until the band is ``tol`` wide (or the budget of reads is spent).

A ledger's β(α) is the smaller over its directions (P against Q and Q against P), so the
band holds for every pair of neighbours in the accountant's relation.

μ-GDP (Dong, Roth and Su 2022, Corollary 2.13): the ledger is μ-GDP iff
δ(ε) <= δ_μ(ε) = Φ(−ε/μ + μ/2) − e^ε Φ(−ε/μ − μ/2) for every ε >= 0, δ the larger of
the two directions. δ_μ(ε) grows with μ and falls with ε, so

* **the lower end** is, over the points ε read, the largest μ with δ_μ(ε) < δ_lo(ε): below
  it μ-GDP fails for certain;
* **the upper end** is the smallest μ (bisected) for which every segment [a, b] of
  [0, ε_top] has δ_up(a) <= δ_μ(b) and δ_up(ε_top) = 0 — a ledger whose certified δ never
  reaches 0 (an unbounded loss, or mass moved to +∞ by truncation) has upper end +∞:
  μ-GDP is then not certified, only refuted below the lower end.

A ledger of Gaussian releases alone is one Gaussian shift: μ = √(Σ Δ²/σ²) exactly.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Callable
from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified import intervals as _intervals
from privtools.errors import ParameterError

from ..gaussian import gaussian_curve
from . import PrivacyLossDistribution

__all__ = ["Profile", "profiles", "gaussian_profile", "tradeoff_band", "gdp_interval",
           "approx_dp_tradeoff", "TRADEOFF_TOL", "MAX_READS"]

#: One direction's certified profile: exact ε (any sign) → (lower, upper) Arb ends of h(ε).
Profile = Callable[[Fraction], tuple[arb, arb]]

TRADEOFF_TOL = Fraction(1, 10**6)   # band width aimed at (absolute, in β)
MAX_READS = 4000                    # profile reads per direction and α, at most
_PREC = 256
_SEGMENTS = 64


def _ball(x: mpmath.mpf) -> arb:
    return _arb.from_mpf(x)


def _grid_profile(up, low) -> Profile:
    def h(eps: Fraction):
        return _ball(low.delta(eps)), _ball(up.delta(eps))
    return h


def profiles(reader) -> list[Profile]:
    """The directions' profiles of what an accountant reads: its grid
    (:class:`~privtools.accounting.pld.PrivacyLossDistribution`) or an exact law."""
    if isinstance(reader, PrivacyLossDistribution):
        return [_grid_profile(up, low) for up, low in reader.directions]
    return reader.directions()                  # an exact law (readers)


def gaussian_profile(mu2: Fraction) -> Profile:
    """The profile of one Gaussian shift with μ² = ``mu2`` (closed form, both directions)."""
    curve = gaussian_curve(Fraction(mu2))

    def h(eps: Fraction):
        with _arb.precision(_PREC):
            d = curve(eps)
        return _clip(d)
    return h


def _clip(d: arb) -> tuple[arb, arb]:
    lo = arb(d.lower()) if d.lower() > 0 else arb(0)
    hi = arb(d.upper()) if d.upper() < 1 else arb(1)
    return lo, hi


def _eps_points(a: Fraction, b: Fraction, n: int) -> list[Fraction]:
    return [a + (b - a) * Fraction(i, n) for i in range(n + 1)]


def _exp(x: Fraction) -> arb:
    return _arb.to_arb(x).exp()


def _direction_band(h: Profile, alpha: Fraction, tol: Fraction, reads: int
                    ) -> tuple[arb, arb]:
    """Certified (lower, upper) ends of T(α) for one direction (module docstring)."""
    with _arb.precision(_PREC):
        a = _arb.to_arb(alpha)
        top = Fraction(math.log(1 / float(alpha))).limit_denominator(2**16) + 1
        floor = Fraction(math.log(float(tol) / 8)).limit_denominator(2**16)
        best = arb(0)                                   # T >= 0
        cache: dict[Fraction, tuple[arb, arb]] = {}

        def read(x: Fraction):
            nonlocal best
            if x not in cache:
                lo, hi = h(x)
                cache[x] = (lo, hi)
                cand = 1 - hi - _exp(x) * a
                if cand.lower() > best:
                    best = arb(cand.lower())
            return cache[x]

        def bound(x0: Fraction, x1: Fraction) -> arb:
            return arb((1 - read(x1)[0] - _exp(x0) * a).upper())

        pts = _eps_points(floor, top, _SEGMENTS)
        heap = [(-float(bound(x0, x1).mid()), x0, x1, bound(x0, x1))
                for x0, x1 in zip(pts, pts[1:])]
        heapq.heapify(heap)
        while len(cache) < reads:
            _, x0, x1, u = heap[0]
            if not (u - best > _arb.to_arb(tol)):
                break
            heapq.heappop(heap)
            mid = (x0 + x1) / 2
            for s0, s1 in ((x0, mid), (mid, x1)):
                b = bound(s0, s1)
                heapq.heappush(heap, (-float(b.mid()), s0, s1, b))
        upper = max((item[3] for item in heap), key=lambda b: float(b.mid()))
        for item in heap:                               # the certified maximum
            upper = _arb.exact_max(upper, item[3])
        upper = _arb.exact_max(upper, _exp(floor))      # ε below the floor
        upper = _arb.exact_min(upper, 1 - a)            # T(α) <= 1 − α always
        return best, arb(upper.upper())


def tradeoff_band(hs: list[Profile], alpha, tol: Fraction = TRADEOFF_TOL,
                  reads: int = MAX_READS) -> _intervals.Interval:
    """Certified interval of β(α) = min over directions of T(α) (α in [0, 1])."""
    alpha = Fraction(alpha)
    if alpha >= 1:
        return _intervals.interval(mpmath.mpf(0), mpmath.mpf(0))
    ends = []
    for h in hs:
        if alpha == 0:
            # T(0) = 1 − h(+∞) >= 1 − h(ε) for every ε (h falls): a lower end, and 1 above
            ends.append((1 - h(Fraction(2**14))[1], arb(1)))
        else:
            ends.append(_direction_band(h, alpha, tol, reads))
    with _arb.precision(_PREC):
        lo = min((_arb.lower_mpf(a) for a, _ in ends))
        hi = min((_arb.upper_mpf(b) for _, b in ends))
    return _intervals.interval(max(lo, mpmath.mpf(0)), min(hi, mpmath.mpf(1)))


# ------------------------------------------------------------------------ μ-GDP
def _gdp_delta(mu: Fraction, eps: Fraction) -> arb:
    with _arb.precision(_PREC):
        return gaussian_curve(mu * mu)(eps)


def _mu_refuted(level: arb, eps: Fraction, hi: Fraction) -> Fraction:
    """The largest μ (bisected, dyadic) with δ_μ(ε) < ``level`` certainly: μ-GDP fails for
    every μ up to it (0 when none)."""
    lo = Fraction(0)
    if not level > 0:
        return lo
    if _gdp_delta(hi, eps) < level:
        return hi
    for _ in range(48):
        mid = (lo + hi) / 2
        if mid > 0 and _gdp_delta(mid, eps) < level:
            lo = mid
        else:
            hi = mid
    return lo


def _holds(mu: Fraction, delta_of, top: Fraction, reads: int) -> bool:
    """Certified: δ(ε) <= δ_μ(ε) on every ε >= 0 (segments of [0, top], and δ_up(top) = 0
    beyond it)."""
    if not (delta_of(top)[1] == 0):
        return False
    pts = _eps_points(Fraction(0), top, 32)
    stack = list(zip(pts, pts[1:]))
    used = 0
    while stack:
        x0, x1 = stack.pop()
        used += 1
        if used > reads:
            return False
        if delta_of(x0)[1] <= _gdp_delta(mu, x1):
            continue
        if x1 - x0 < Fraction(1, 2**40):
            return False
        mid = (x0 + x1) / 2
        stack += [(x0, mid), (mid, x1)]
    return True


def gdp_interval(hs: list[Profile], reads: int = MAX_READS, top_limit: int = 2**12
                 ) -> _intervals.Interval:
    """Certified interval of the smallest μ with μ-GDP (module docstring); its upper end
    is +∞ when no μ can be certified."""
    cache: dict[Fraction, tuple[arb, arb]] = {}

    def delta_of(eps: Fraction) -> tuple[arb, arb]:
        if eps not in cache:
            ends = [h(eps) for h in hs]
            lo, hi = ends[0]
            for a, b in ends[1:]:
                lo, hi = _arb.exact_max(lo, a), _arb.exact_max(hi, b)
            cache[eps] = (lo, hi)
        return cache[eps]

    # where the certified δ reaches 0 (past the largest finite loss), if it does
    top = Fraction(1)
    while not (delta_of(top)[1] == 0) and top < top_limit:
        top *= 2
    finite_top = delta_of(top)[1] == 0
    # the lower end: refuted μ over a spread of ε, refined around the best
    span = top if finite_top else Fraction(64)
    cap = Fraction(64)
    pts = _eps_points(Fraction(0), span, 64)
    scores = [(_mu_refuted(delta_of(x)[0], x, cap), x) for x in pts]
    mu_lo, x_best = max(scores)
    step = span / 64
    for _ in range(12):
        step /= 2
        for x in (x_best - step, x_best + step):
            if x >= 0:
                m = _mu_refuted(delta_of(x)[0], x, cap)
                if m > mu_lo:
                    mu_lo, x_best = m, x
    if not finite_top:
        return _intervals.interval(_lower(mu_lo), mpmath.inf)
    # the upper end: the smallest μ certified, bisected above the lower end
    hi = max(mu_lo, Fraction(1, 64)) * 2
    while not _holds(hi, delta_of, top, reads):
        hi *= 2
        if hi > cap:
            return _intervals.interval(_lower(mu_lo), mpmath.inf)
    lo = mu_lo
    for _ in range(30):
        mid = (lo + hi) / 2
        if _holds(mid, delta_of, top, reads):
            hi = mid
        else:
            lo = mid
        if hi - lo <= hi * Fraction(1, 10**7):
            break
    return _intervals.interval(_lower(mu_lo), _intervals.fraction_bounds(hi, 128)[1])


def _lower(x: Fraction) -> mpmath.mpf:
    return _intervals.fraction_bounds(x, 128)[0]


def approx_dp_tradeoff(epsilon, delta, alpha) -> _intervals.Interval:
    """Certified f_{ε,δ}(α) = max(0, 1 − δ − e^ε α, e^{−ε}(1 − δ − α)): the trade-off
    function of (ε, δ)-DP (Dong, Roth and Su 2022, Proposition 2.5) — (ε, δ) to f-DP."""
    e, d, a = Fraction(epsilon), Fraction(delta), Fraction(alpha)
    if e < 0:
        raise ParameterError(f"epsilon must be >= 0, got {epsilon!r}")
    if not 0 <= d <= 1:
        raise ParameterError(f"delta must be in [0, 1], got {delta!r}")
    if not 0 <= a <= 1:
        raise ParameterError(f"alpha must be in [0, 1], got {alpha!r}")
    with _arb.precision(_PREC):
        w = _exp(e)
        v = _arb.exact_max(arb(0), _arb.exact_max(1 - _arb.to_arb(d) - w * _arb.to_arb(a),
                                                  (1 - _arb.to_arb(d) - _arb.to_arb(a)) / w))
        return _intervals.from_ball(v, clip=(0, 1))
