"""Fewest bits per user message for a certified (ε, δ) target.

Paper 000 sends each user's ``(x̂_i + η_i) mod m`` to SecAgg (Algorithm 2) with
m = ng + 2τ + 1, i.e. ⌈log₂ m⌉ bits. Theorems 1, 2 and 4 fix the precision g = ⌈sε√n⌉, the
noise (total Lap_Z(g/ε), Sk(0, g²/ε²), or the n-fold sum of N_Z(0, g²/(nε²))) and the
threshold τ by a tail bound. None of the three is forced by privacy: the view is the
noisy sum on a query of sensitivity g (proof of Theorem 1, eq. (3)), so any g works once the
noise is calibrated to it, and any τ with P(|Σ η_i| > τ) <= p gives Algorithm 3's accuracy
event (eq. (6)). :func:`fewest_bits` searches those choices:

    fewest_bits("rdp", epsilon=1, delta=1e-6, n=1024, horizon=10**6)   -> FewestBits
    sd_heuristic(plan, k=4)     the "k standard deviations" modulus and its certified failure

Every returned plan is certified: privacy by :class:`~privtools.accounting.PldAccountant`
(upper end of ε(δ) <= ε; δ = 0 for pure DP: Lap_Z(g/ε) on sensitivity g is exactly ε-DP,
Fact 2) and failure by :func:`~privtools.exact.tails.exact_tau` (the certified smallest τ
with P(|total noise| > τ) <= p for the noise actually planned).

Accuracy. A smaller g shrinks m (m ≈ g·(n + 2τ/g), and τ/g is fixed by ε) but enlarges the
rounding error of Algorithm 2. The paper's proof of Theorem 1 (also used by Theorems 2 and 4)
bounds the error |A(ŷ) − Σ x_i| by Term (i) + Term (ii) <= τ/g + √(2n log(2/p))/g, each
w.p. >= 1 − p (eq. (6) and Lemma 6 on the n/g²-sub-Gaussian rounding error); call that the
error radius R(g, τ). ``accuracy="radius"`` (default) admits only plans whose R is at most
the paper's own plan's R (its g and its theorem's τ): the confidence radius of Algorithm 1,
hence the regret bound, is no worse than the paper's. ``accuracy="floor"`` drops that rule
(only g >= ⌈g_paper/2⌉ remains, at most doubling the rounding error's scale √n/g): it buys
bits with accuracy and is reported as such.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from privtools.certified.intervals import Interval, ends, fraction_bounds, interval
from privtools.errors import ParameterError
from privtools.exact.tails import exact_tau, total_noise_tail
from privtools.noise import NoiseSum
from privtools.validation import check_int, check_nonneg, check_positive_fraction

from .deployments import DEPLOYMENTS, by_theorem
from .participation import largest_true, per_user_epsilon
from .plan import Plan, plan
from .theorems import TheoremParams

__all__ = ["FewestBits", "Candidate", "SdHeuristic", "fewest_bits", "sd_heuristic",
           "error_radius", "ACCURACY_RULES", "THEOREM_OF"]

# distributed trust, SecAgg: privacy kind -> theorem (from privtools.planning.deployments)
THEOREM_OF = {d.privacy: d.theorem for d in DEPLOYMENTS
              if d.trust == "distributed" and d.secure == "secagg"}
ACCURACY_RULES = ("radius", "floor")
GRID_STEPS = 12            # noise grid: ε_b = ε·j/2^12 (the grid of participation.calibrate)
SEARCH_POINTS = 2**12      # loss-grid size of the certificates made during the search


# ============================================================================ results
@dataclass(frozen=True)
class Candidate:
    """One certified (g, noise, τ) of the search. ``epsilon_batch`` ε_b sets the noise:
    total Lap_Z(g/ε_b) (Theorem 1), Sk(0, g²/ε_b²) (Theorem 2), or n shares N_Z(0,
    g²/(nε_b²)) (Theorem 4); ``tau`` the certified exact τ of that noise; ``radius`` the
    error radius R(g, τ); ``feasible`` whether it meets the accuracy rule; ``certified_epsilon``
    the certified ε(δ) interval (upper end <= ε)."""

    g: int
    epsilon_batch: Fraction
    tau: int
    m: int
    radius: float
    feasible: bool
    certified_epsilon: Interval

    @property
    def bits(self) -> int:
        return (self.m - 1).bit_length()


@dataclass(frozen=True)
class SdHeuristic:
    """The KLS21 / AKL21-style modulus heuristic (**a heuristic, not a guarantee**): size
    the aggregate at ``k`` standard deviations of the total noise, τ_h = ⌈k·σ_total⌉ and
    m_h = ng + 2τ_h + 1, on a given plan's g and noise. ``failure`` is the certified
    P(|total noise| > τ_h) (exact tails), which may exceed the plan's p."""

    k: Fraction
    sigma: float
    tau: int
    m: int
    failure: Interval
    p: Fraction

    @property
    def bits(self) -> int:
        return (self.m - 1).bit_length()

    @property
    def meets_p(self) -> bool:
        """True iff the certified failure's upper end is <= p."""
        return ends(self.failure)[1] <= _mpf(self.p)


@dataclass(frozen=True, kw_only=True)
class FewestBits:
    """The certified plan with the smallest modulus found (see :func:`fewest_bits`).

    ``g``, ``epsilon_batch`` (the noise parameter ε_b, see :class:`Candidate`), ``tau``,
    ``m = ng + 2τ + 1``; ``share`` one user's noise and ``total_noise`` the exact law of the
    sum (a :class:`NoiseSum` for Theorem 4); ``certified_epsilon`` the certified ε(δ)
    interval (pure DP with δ = 0: the exact ε); ``tail`` / ``tail_below`` the certified
    P(|N| > τ) (<= p) and P(|N| > τ − 1) (> p); ``radius`` / ``radius_paper`` the error
    radius of this plan and of the paper's; ``paper`` the paper's plan for the same target
    (``plan(..., delta=δ, tail="exact")``: its ``bits_bound`` is the theorem's τ, its ``bits``
    the exact τ); ``heuristic`` the 4-sd modulus on the paper's g and noise; ``candidates``
    every certified candidate (the paper's exact plan first); ``screened`` how many g were
    screened; ``g_range`` the g searched; ``plan`` the result as a deployable
    :class:`~privtools.planning.Plan`."""

    privacy: str
    theorem: int
    epsilon: Fraction
    delta: Fraction
    n: int
    horizon: int
    p: Fraction
    accuracy: str
    g: int
    epsilon_batch: Fraction
    tau: int
    m: int
    share: object
    total_noise: object
    certified_epsilon: Interval
    tail: Interval
    tail_below: Interval | None
    radius: float
    radius_paper: float
    paper: Plan
    heuristic: SdHeuristic
    candidates: tuple[Candidate, ...]
    screened: int
    g_range: tuple[int, int]
    plan: Plan

    @property
    def bits(self) -> int:
        """Bits per user message, ⌈log2 m⌉."""
        return (self.m - 1).bit_length()

    @property
    def bits_paper(self) -> int:
        """Bits of the paper's plan (its g, its theorem's τ)."""
        return self.paper.bits_bound

    @property
    def bits_exact(self) -> int:
        """Bits of the paper's g and noise with the certified exact τ."""
        return self.paper.bits

    @property
    def bits_saved(self) -> int:
        """Bits saved against the paper's parameters (``bits_paper − bits``)."""
        return self.bits_paper - self.bits

    @property
    def s_effective(self) -> float:
        """g/(ε_b√n): the scale s of Theorems 2 and 4 this g corresponds to (may be < 1:
        outside the theorems' hypothesis s >= 1; privacy is certified directly)."""
        return self.g / (float(self.epsilon_batch) * math.sqrt(self.n))

    @property
    def error_sd(self) -> float:
        """Standard deviation bound of the error in reward units: √(Var N + n/4)/g (the
        rounding error of each user has variance <= 1/4 in units of 1/g)."""
        return math.sqrt(self.total_noise.var() + self.n / 4) / self.g

    def to_dict(self) -> dict:
        """The result as JSON-ready values (intervals as ``[lo, hi]`` strings)."""
        def iv(x):
            return None if x is None else [mpmath.nstr(e, 12) for e in ends(x)]

        h = self.heuristic
        return {
            "privacy": self.privacy, "theorem": self.theorem, "epsilon": str(self.epsilon),
            "delta": str(self.delta), "n": self.n, "horizon": self.horizon, "p": str(self.p),
            "accuracy": self.accuracy, "g": self.g, "epsilon_batch": str(self.epsilon_batch),
            "s_effective": self.s_effective, "tau": self.tau, "m": self.m, "bits": self.bits,
            "share": str(self.share), "total_noise": str(self.total_noise),
            "certified_epsilon": iv(self.certified_epsilon), "tail": iv(self.tail),
            "tail_below": iv(self.tail_below), "radius": self.radius,
            "radius_paper": self.radius_paper, "error_sd": self.error_sd,
            "paper": {"g": self.paper.g, "epsilon_batch": str(self.paper.epsilon_view),
                      "tau_bound": self.paper.tau_bound, "tau_exact": self.paper.tau,
                      "m_bound": self.paper.m_bound, "m_exact": self.paper.m,
                      "bits_bound": self.bits_paper, "bits_exact": self.bits_exact,
                      "certified_epsilon": iv(self.paper.certified_epsilon)},
            "heuristic": {"k": str(h.k), "sigma": h.sigma, "tau": h.tau, "m": h.m,
                          "bits": h.bits, "failure": iv(h.failure), "meets_p": h.meets_p},
            "bits_saved": self.bits_saved, "screened": self.screened,
            "g_range": list(self.g_range),
            "candidates": [{"g": c.g, "epsilon_batch": str(c.epsilon_batch), "tau": c.tau,
                            "m": c.m, "bits": c.bits, "radius": c.radius,
                            "feasible": c.feasible,
                            "certified_epsilon": iv(c.certified_epsilon)}
                           for c in self.candidates],
        }

    def __str__(self) -> str:
        lo, hi = ends(self.certified_epsilon)
        return "\n".join([
            f"Fewest bits: Theorem {self.theorem} (000) — {self.privacy}, ε = {self.epsilon}, "
            f"δ = {float(self.delta):.3g}, n = {self.n}, p = {self.p}, accuracy = "
            f"{self.accuracy}",
            f"  g = {self.g} (paper {self.paper.g}), ε_b = {self.epsilon_batch}, "
            f"τ = {self.tau}, m = {self.m}: {self.bits} bits (paper {self.bits_paper}, "
            f"exact τ {self.bits_exact}, 4-sd heuristic {self.heuristic.bits})",
            f"  certified ε(δ) in [{mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}]; "
            f"P(|N| > τ) <= {mpmath.nstr(ends(self.tail)[1], 6)}; error radius "
            f"{self.radius:.4g} (paper {self.radius_paper:.4g})",
        ])


# ============================================================================ helpers
def _mpf(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


def error_radius(g: int, tau: int, n: int, p) -> float:
    """R(g, τ) = τ/g + √(2n log(2/p))/g: Term (i) + Term (ii) of the proof of Theorem 1
    (000), eq. (6) and the sub-Gaussian rounding bound (Lemma 6), each failing w.p. <= p."""
    g = check_int("g", g, minimum=1)
    tau = check_int("tau", tau, minimum=0)
    n = check_int("n", n, minimum=1)
    pf = check_positive_fraction("p", p, upper=1)
    with mpmath.workdps(30):
        return float((tau + mpmath.sqrt(2 * n * mpmath.log(2 / _mpf(pf)))) / g)


def _no_worse(g: int, tau: int, g0: int, tau0: int, n: int, p: Fraction) -> bool:
    """R(g, τ) <= R(g0, τ0), decided exactly: g0(τ + H) <= g(τ0 + H) with H = √(2n log(2/p))
    irrational unless g = g0 (then it is τ <= τ0)."""
    if g == g0:
        return tau <= tau0
    with mpmath.workdps(60):
        h = mpmath.sqrt(2 * n * mpmath.log(2 / _mpf(p)))
        return bool(g0 * (tau + h) <= g * (tau0 + h))


def _laws(theorem: int, g: int, eb: Fraction, n: int):
    """(share, total noise as planned, exact law of the total) at precision g and ε_b."""
    dep = by_theorem(theorem)
    total = dep.law(g, eb)          # Fact 1 / Skellam's sums: the shares sum to it, or nominal
    share = total.shares(n)
    return share, total, NoiseSum(share, n) if dep.total == "nominal" else total


def _certify(theorem: int, g: int, eb: Fraction, n: int, p: Fraction, delta: Fraction,
             points: int | None) -> Interval:
    """Certified ε(δ) interval of the batch's view at (g, ε_b) (δ = 0: pure DP, exact)."""
    if delta == 0:
        lo, hi = fraction_bounds(eb)       # Lap_Z(g/ε_b) on sensitivity g: exactly ε_b-DP
        return interval(lo, hi)
    share, total, _ = _laws(theorem, g, eb, n)
    prm = TheoremParams(
        theorem=theorem, epsilon=eb, n=n, p=p, s=None, g=g, tau=0, m=0, share=share, noise=total
    )
    return per_user_epsilon(prm, 1, delta, max_points=points).interval


def _largest_ok(ok, j0: int, jmax: int) -> int:
    """Largest j in [1, jmax] with ok(j), searched from j0 (ok is assumed monotone — more
    noise, more privacy; only the final certificate counts)."""
    j = largest_true(ok, j0, jmax)
    if j is None:
        raise ParameterError("no noise on the grid ε·j/2^12 (j >= 1) meets the target "
                             "at this g: epsilon or delta too small")
    return j


def sd_heuristic(base: Plan, k=4, dps: int = 20) -> SdHeuristic:
    """The "k standard deviations" modulus of KLS21 / AKL21 (a heuristic: the aggregate is
    sized at ±k·σ_total of the total noise around [0, ng]) on ``base``'s g and noise, with its
    certified failure probability P(|N| > ⌈kσ⌉) by exact tails. σ_total is the float standard
    deviation of the exact total noise (Lap_Z, Skellam, or the n-fold discrete-Gaussian sum)."""
    if not isinstance(base, Plan):
        raise ParameterError(f"base must be a Plan, got {type(base).__name__}")
    kf = check_positive_fraction("k", k)
    law = base.exact_total_noise
    sigma = math.sqrt(law.var())
    with mpmath.workdps(30):
        tau = int(mpmath.ceil(_mpf(kf) * mpmath.sqrt(mpmath.mpf(law.var()))))
    fail = total_noise_tail(law, tau, dps=dps, p=base.p_noise)
    return SdHeuristic(kf, sigma, tau, base.n * base.g + 2 * tau + 1, fail, base.p_noise)


@functools.lru_cache(maxsize=32)
def _reference(privacy: str, eps: Fraction, dq: Fraction, n: int, horizon: int, pf: Fraction,
               s: Fraction, dps: int) -> Plan:
    if dq == 0:
        return plan(privacy=privacy, epsilon=eps, n=n, horizon=horizon, p=pf, tail="exact",
                    dps=dps)
    return plan(privacy=privacy, epsilon=eps, n=n, horizon=horizon, p=pf, s=s, tail="exact",
                delta=dq, dps=dps)


# ============================================================================ search
def fewest_bits(privacy: str, epsilon, delta, n: int, horizon: int, failure=None, s=1, *,
                accuracy: str = "radius", max_certified: int = 8, dps: int = 20) -> FewestBits:
    """The smallest modulus m = ng + 2τ + 1 (and bits ⌈log₂ m⌉) found for one batch of ``n``
    users, certified (``epsilon``, ``delta``)-DP and failing w.p. <= ``failure`` (default
    p = 1/``horizon``, the paper's p = 1/T), under distributed trust with SecAgg:
    ``privacy`` "pure-dp" (Theorem 1, Pólya shares, total Lap_Z), "rdp" (Theorem 2, Skellam)
    or "cdp" (Theorem 4, discrete-Gaussian shares). ``delta`` may be 0 for pure-dp only.

    Reference: the paper's plan for the same target, ``plan(..., delta=delta, s=s,
    tail="exact")`` (δ = 0: the pure plan) — g0 = ⌈sε_b√n⌉ with its noise calibrated by the
    certified accountant (per-batch ε_b), τ the theorem's bound (``bits_paper``) or exact.

    Search space (bounded): g ∈ [⌈g0/2⌉, 2·g0]; for each g the noise on the grid
    ε_b = ε·j/2^12, 1 <= j <= 2^13 (total Lap_Z(g/ε_b), Sk(0, g²/ε_b²), or n shares
    N_Z(0, g²/(nε_b²))), the scale s of Theorems 2 and 4 being subsumed (s only enters
    through g, the noise through g/ε_b); τ the certified exact quantile of that noise
    (τ is not free: the smallest τ with P(|N| > τ) <= p is the best). Accuracy rule
    ``accuracy``: "radius" (R(g, τ) <= R(g0, τ_bound), see the module docstring) or
    "floor" (g >= ⌈g0/2⌉ only).

    Procedure: (1) screen every g of the range with the reference's ε_b (exact τ, cheap) and
    keep those meeting the accuracy rule; (2) in increasing order of screened m, calibrate
    the noise at that g (the largest certified ε_b on the grid, galloping from the reference
    j; PldAccountant on 2^12 grid points) and take its exact τ — at most ``max_certified``
    such g, stopping early once n·g + 1 (a sound lower bound on m) or the screened m reaches
    the best certified m; (3) re-certify the winner on the accountant's default grid. The
    paper's exact plan is a candidate from the start, so bits <= the paper's exact bits <=
    its bits. Minimality is over the certified candidates; the screen (step 1) is a
    prediction, and the noise's maximality on the grid assumes monotonicity.
    """
    if privacy not in THEOREM_OF:
        raise ParameterError(f"privacy must be one of {', '.join(THEOREM_OF)}; got {privacy!r}")
    theorem = THEOREM_OF[privacy]
    if accuracy not in ACCURACY_RULES:
        raise ParameterError(f"accuracy must be one of {', '.join(ACCURACY_RULES)}; "
                             f"got {accuracy!r}")
    eps = check_positive_fraction("epsilon", epsilon)
    if delta is None:
        raise ParameterError("delta is required (0 allowed for pure-dp)")
    dq = check_nonneg("delta", delta)
    if dq >= 1:
        raise ParameterError(f"delta must be in [0, 1), got {delta!r}")
    if dq == 0 and not by_theorem(theorem).pure:
        raise ParameterError("delta must be > 0 for rdp and cdp: their views have no finite "
                             "pure ε")
    n = check_int("n", n, minimum=1)
    horizon = check_int("horizon", horizon, minimum=1)
    if failure is None:
        if horizon < 2:
            raise ParameterError("horizon must be >= 2 for the default failure = 1/horizon")
        pf = Fraction(1, horizon)
    else:
        pf = check_positive_fraction("failure", failure, upper=1)
    sf = check_positive_fraction("s", s)
    if sf < 1:
        raise ParameterError(f"s must be >= 1 (the paper's scale of the reference), got {s!r}")
    if not by_theorem(theorem).scaled and sf != 1:
        raise ParameterError(f"s applies to rdp and cdp only, got s={s!r} for pure-dp")
    max_certified = check_int("max_certified", max_certified, minimum=0)
    dps = check_int("dps", dps, minimum=5)

    paper = _reference(privacy, eps, dq, n, horizon, pf, sf, dps)
    g0, eb0, tau_b = paper.g, paper.epsilon_view, paper.tau_bound
    scale = 2**GRID_STEPS
    j0 = eb0 * scale / eps
    if j0.denominator != 1:              # (not reached: plan's ε_b lies on this grid)
        raise ParameterError("the reference's per-batch epsilon is off the grid")
    j0 = int(j0)
    g_lo, g_hi = (g0 + 1) // 2, 2 * g0
    cert0 = paper.certified_epsilon if paper.certified_epsilon is not None else \
        _certify(theorem, g0, eb0, n, pf, dq, None)

    def feasible(g: int, tau: int) -> bool:
        return accuracy == "floor" or _no_worse(g, tau, g0, tau_b, n, pf)

    ref = Candidate(g0, eb0, paper.tau, paper.m, error_radius(g0, paper.tau, n, pf),
                    feasible(g0, paper.tau), cert0)
    taus = {(g0, eb0): (paper.tau, paper.tail_interval, paper.tail_interval_below)}

    def tau_of(g: int, eb: Fraction):
        if (g, eb) not in taus:
            res = exact_tau(_laws(theorem, g, eb, n)[2], pf, dps=dps)
            taus[(g, eb)] = (res.tau, res.tail, res.tail_below)
        return taus[(g, eb)][0]

    # (1) screen at the reference's ε_b
    screen = []
    for g in range(g_lo, g_hi + 1):
        t = tau_of(g, eb0)
        if feasible(g, t):
            screen.append((n * g + 2 * t + 1, -g, g))
    screen.sort()

    # (2) certify in order of screened m
    target = fraction_bounds(eps, 128)[0]
    best, cands = ref, [ref]
    done = {g0}
    for m_screen, _, g in screen:
        if len(done) - 1 >= max_certified:
            break
        if g in done:
            continue
        if m_screen >= best.m:          # sorted: no later screened m is smaller
            break
        if n * g + 1 >= best.m:         # sound: m >= ng + 1 whatever the noise
            continue
        done.add(g)
        certs: dict[int, Interval] = {}

        def ok(j: int, g=g, certs=certs) -> bool:
            certs[j] = _certify(theorem, g, eps * j / scale, n, pf, dq, SEARCH_POINTS)
            return ends(certs[j])[1] <= target

        j = scale if dq == 0 else _largest_ok(ok, j0, 2 * scale)
        eb = eps * j / scale
        cert = certs[j] if j in certs else _certify(theorem, g, eb, n, pf, dq, SEARCH_POINTS)
        t = tau_of(g, eb)
        m = n * g + 2 * t + 1
        c = Candidate(g, eb, t, m, error_radius(g, t, n, pf), feasible(g, t), cert)
        cands.append(c)
        if c.feasible and (c.m, -c.g) < (best.m, -best.g):
            best = c

    # (3) the winner's certificate on the default grid (both are valid; keep the tighter)
    cert = best.certified_epsilon
    if best is not ref and dq > 0:
        fine = _certify(theorem, best.g, best.epsilon_batch, n, pf, dq, None)
        if ends(fine)[1] <= target:
            cert = fine
    share, nominal, exact_law = _laws(theorem, best.g, best.epsilon_batch, n)
    _, tail, below = taus[(best.g, best.epsilon_batch)]
    deployable = paper if best is ref else dataclasses.replace(
        paper, g=best.g, tau=best.tau, m=best.m, share=share, total_noise=nominal,
        epsilon_view=best.epsilon_batch, tail="exact",
        tail_method="exact τ of the planned noise (fewest_bits)", tau_bound=None,
        tail_interval=tail, tail_interval_below=below, user_parameters=("g", "noise", "tau"),
        certified_epsilon=cert if dq > 0 else None)
    return FewestBits(privacy=privacy, theorem=theorem, epsilon=eps, delta=dq, n=n,
                      horizon=horizon, p=pf, accuracy=accuracy, g=best.g,
                      epsilon_batch=best.epsilon_batch, tau=best.tau, m=best.m, share=share,
                      total_noise=exact_law, certified_epsilon=cert, tail=tail, tail_below=below,
                      radius=best.radius, radius_paper=error_radius(g0, tau_b, n, pf), paper=paper,
                      heuristic=sd_heuristic(paper, 4, dps), candidates=tuple(cands),
                      screened=g_hi - g_lo + 1, g_range=(g_lo, g_hi), plan=deployable)
