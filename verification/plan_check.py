"""Exact verification of a deployment plan: "check before deploying".

``verify_plan(plan)`` reads a :class:`privtools.planning.Plan` and checks, with certified
intervals, the two promises the plan makes (paper 000, Theorems 1–6). The privacy finding
that decides the verdict answers the question the plan's user asked
(:func:`privtools.planning.guarantee` states it; ``PlanCheck.guarantee`` and
``PlanCheck.verdict`` repeat it with the judge's figures):

* a plan **with a δ** (``plan(..., delta=)``: rdp / cdp plans calibrated to (ε, δ), and
  returning users): the certified ε(δ) of :class:`privtools.accounting.PldAccountant` for the
  plan's own view (its g and noise as they are) — composed over the plan's participation
  profile, at δ less the pool's failure probability — against ε (``privacy ((ε, δ)-DP)``, or
  ``privacy (per user, composed)`` over a run; pure DP at δ = 0: basic composition, exact).
  The per-batch rows below (LLR, Rényi curve at the calibrated per-batch ε, Lemma 10) are
  then reported as info;
* a plan **without a δ**: ε is the paper's parameter and the rows below decide; rdp / cdp
  plans also report the certified (ε, δ) of the view at δ (default p) by the PLD accountant
  where the noise's variance is at most ``PLD_CONVERSION_VAR``: ε is *not* (ε, δ)-DP.

* **privacy** of the view the plan protects, at sensitivity g —
  pure DP (Theorems 1, 3, 5, 6): the LLR of ``Σx̂ + Lap_Z(b)`` is exactly ``g/b`` (Fact 2),
  compared with the target as rationals; the mod-m view (what the server sees) is reported
  too, in closed form (below) and, for small m, tabulated by the claims engine
  (:func:`verification.claims.view_llr`) as a cross-check. Theorem 3 adds the relaxed
  SecAgg's ``2ε̂`` (a property of the shuffle protocol, assumed). Theorem 6 protects each
  user's own message ``x̂_i + Lap_Z(g/ε)``.
  RDP (Theorem 2): the exact Rényi curve ``D_α(Sk + g ‖ Sk)`` of the total Skellam noise
  (:func:`privtools.exact.divergence.renyi_shift_curve`) on a grid of integer orders, against
  Theorem 2's ``ε̂(α)``; for a total variance above ``exact_skellam_var`` (where tabulation
  takes longer than a 10 s budget) Lemma 3's bound, a theorem, stands in.
  CDP (Theorem 4): the exact Rényi curve of the mod-m view of the n-fold discrete-Gaussian
  sum (:func:`verification.claims.gaussian_sum_view_renyi`) where m is small enough to
  tabulate, else Lemma 4's ε̂ at the plan's (n, σ², g); target: Lemma 4's ε̂ at the
  theorem's own g. Both RDP and CDP curves are also converted to (ε, δ)-DP (Lemma 10) with
  δ = p unless a δ is given.
* **utility**: the worst-case probability that the analyzer's output is off by more than τ/g,
  ``P(|A(ŷ) − Σx̂/g| > τ/g)``, computed exactly (certified interval): the tail of the exact
  total noise (:func:`privtools.exact.total_noise_tail`: Fact 2 for Lap_Z, characteristic-
  function inversion for Skellam and for n-fold sums) plus the wrap. With ``x = Σx̂ ∈ [0, ng]``
  the analyzer decodes ``x + N`` correctly iff ``ng + τ + 1 − m <= x + N <= ng + τ``, so the
  output is within τ/g iff ``−min(τ, x + L) <= N <= τ`` with ``L = m − ng − τ − 1``; the worst
  input is x = 0 and the failure probability is ``P(N > τ) + P(N > min(τ, L))`` (= ``P(|N| > τ)``
  when m >= ng + 2τ + 1, as planned). Shuffle plans add q̂. Where it is cheap, the tail is
  recomputed by an independent engine (PMF balls summed by :mod:`verification.tails`, or the
  n-fold convolution of :mod:`privtools.exact`) and the two intervals must overlap.

Mod-m view of Lap_Z(b) in closed form (a = 1/b): for 0 <= r < m,
``P(N ≡ r) ∝ e^{−ar} + e^{−a(m−r)} ∝ cosh(a(m/2 − d(r)))`` with d(r) = min(r, m − r) the
circular distance to 0. ``L(d) = log cosh(a(m/2 − d))`` is convex and decreasing on
[0, m/2], and a shift by g moves d by at most g, so the largest log-ratio is
``L(0) − L(g) = log cosh(am/2) − log cosh(a(m/2 − g))`` (attained at r = 0), just below
``ag`` = the unwrapped LLR (for g <= m/2).

Status of each finding: ``holds`` (certified), ``fails`` (certified violation) or
``inconclusive`` (an interval straddles the target); ``info`` rows are reported only.
``PlanCheck.passed`` is True iff no finding fails or is inconclusive; ``PlanCheck.verdict``
is the command line's verdict line, the same decision in words.
"""

from __future__ import annotations

import dataclasses
import math
import time
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from privtools.accounting import (
    cdp_to_dp,
    discrete_gaussian_sum_cdp,
    rdp_to_dp,
    skellam_rdp_bound,
    theorem2_rdp,
)
from privtools.certified import balls as _arb
from privtools.certified import intervals as _intervals
from privtools.certified.intervals import Interval, ends, from_ball, interval
from privtools.certified.rounding import add_down, add_up, div_down, div_up, sub_down, sub_up
from privtools.errors import CertificationError, ParameterError
from privtools.exact import exact_tail, sum_pmf
from privtools.exact.divergence import renyi_shift_curve
from privtools.noise import (
    IntegerDistribution,
    NoiseSum,
)
from privtools.planning import (
    Plan,
    guarantee,
    plan_certificate,
    privacy_kind,
    show_up,
    theorem_params,
    total_noise_tail,
)
from privtools.validation import check_int, check_positive_fraction

from .claims import gaussian_sum_view_renyi, view_llr
from .verdicts import FAILS, HOLDS, INCONCLUSIVE, INFO, status_le

__all__ = ["Finding", "PlanCheck", "verify_plan", "laplace_wrapped_llr", "RDP_ORDERS",
           "CDP_ORDERS", "PLD_CONVERSION_VAR"]

RDP_ORDERS = privacy_kind("rdp").orders
CDP_ORDERS = privacy_kind("cdp").orders
# Largest total Skellam variance whose Rényi curve is tabulated (about 2 s for RDP_ORDERS).
EXACT_SKELLAM_VAR = 2 * 10**6
# Largest modulus whose mod-m view is tabulated (claims engine) for cross-checks / CDP.
TABULATE_M = 2048
# Largest variance of a plan's noise (Skellam, or the n-fold discrete-Gaussian sum) whose
# certified (ε, δ) is also computed for a plan without a δ (PldAccountant: ~2 s at 10^5,
# ~4 s at 10^6 — the info row; a plan with a δ is always certified, its verdict needs it).
PLD_CONVERSION_VAR = 2 * 10**5


@dataclass(frozen=True)
class Finding:
    """One checked statement: ``name``, ``status`` (holds / fails / inconclusive / info), the
    certified ``value``, the ``target`` and a one-line ``detail``."""

    name: str
    status: str
    value: str
    target: str
    detail: str = ""

    def to_dict(self) -> dict:
        """The finding as JSON-ready values."""
        return {"name": self.name, "status": self.status, "value": self.value,
                "target": self.target, "detail": self.detail}


@dataclass(frozen=True, kw_only=True)
class PlanCheck:
    """The exact verification of a :class:`Plan`.

    ``epsilon``: certified ε of the planned view (pure DP, including 2ε̂ for shuffle);
    ``llr_wrapped``: certified LLR of the server's mod-m view (pure DP, Σ-views);
    ``renyi``: ``(α, lower or None, upper, target)`` per order (RDP / CDP plans), ``lower``
    None where only a bound is known; ``privacy_method`` says which; ``dp_epsilon`` /
    ``dp_epsilon_target`` the (ε, δ)-DP conversion (Lemma 10) of the achieved / target curve at
    ``dp_delta``; ``tail`` the certified P(|N| > τ), ``failure`` the certified worst-case
    probability of an output off by more than τ/g (wrap and q̂ included), ``bits`` per user.
    ``certified_epsilon`` / ``certified_delta``: the PLD accountant's certified ε(δ) interval
    of the plan's view (over its participations) and its δ — the deciding privacy finding of
    a plan with a δ, info otherwise (None where not computed). ``guarantee``: what the plan
    certifies, in its user's terms (:func:`privtools.planning.guarantee` with the judge's
    certificate; "NOT CERTIFIED: …" when a privacy finding does not hold); ``question``:
    what the plan must certify, in words, and ``answer``: what it certifies when it passes
    (both read by :attr:`verdict`).
    """

    plan: Plan
    findings: tuple[Finding, ...]
    epsilon: mpmath.mpi | None
    llr_wrapped: mpmath.mpi | None
    renyi: tuple[tuple[int, mpmath.mpf | None, mpmath.mpf, mpmath.mpf], ...]
    privacy_method: str
    dp_epsilon: float | None
    dp_delta: float | None
    dp_epsilon_target: float | None
    tail: Interval
    failure: Interval
    tail_method: str
    bits: int
    seconds: float
    certified_epsilon: Interval | None = None
    certified_delta: float | None = None
    guarantee: str = ""
    answer: str = ""
    question: str = ""

    @property
    def passed(self) -> bool:
        """True when every finding holds (informational findings aside)."""
        return all(f.status in (HOLDS, INFO) for f in self.findings)

    @property
    def verdict(self) -> str:
        """The verdict line (the command line prints it): "PLAN PASSES: <what is certified>",
        or "PLAN FAILS: <findings that do not hold> — it does not certify that <…>"; the same
        decision as :attr:`passed`."""
        if self.passed:
            return f"PLAN PASSES: {self.answer}"
        bad = ", ".join(f"{f.name} {f.status}" for f in self.findings
                        if f.status not in (HOLDS, INFO))
        return f"PLAN FAILS ({bad}): it does not certify that {self.question}"

    @property
    def reasons(self) -> tuple[str, ...]:
        """Why the plan misses its target (empty when it passes)."""
        return tuple(f"{f.name}: {f.status} — {f.value} vs target {f.target}"
                     + (f" ({f.detail})" if f.detail else "")
                     for f in self.findings if f.status not in (HOLDS, INFO))

    def to_dict(self) -> dict:
        """The check as JSON-ready values (intervals as ``[lo, hi]`` strings)."""
        def iv(x):
            if x is None:
                return None
            lo, hi = _intervals.ends(x) if isinstance(x, _intervals.Interval) else x
            return [mpmath.nstr(lo, 12), mpmath.nstr(hi, 12)]

        return {
            "passed": self.passed,
            "guarantee": self.guarantee,
            "verdict": self.verdict,
            "reasons": list(self.reasons),
            "findings": [f.to_dict() for f in self.findings],
            "epsilon": iv(self.epsilon),
            "llr_wrapped": iv(self.llr_wrapped),
            "renyi": [{"alpha": a, "lower": None if lo is None else mpmath.nstr(lo, 12),
                       "upper": mpmath.nstr(hi, 12), "target": mpmath.nstr(t, 12)}
                      for a, lo, hi, t in self.renyi],
            "privacy_method": self.privacy_method,
            "dp_epsilon": self.dp_epsilon, "dp_delta": self.dp_delta,
            "dp_epsilon_target": self.dp_epsilon_target,
            "tail": iv(self.tail), "failure": iv(self.failure),
            "tail_method": self.tail_method, "bits": self.bits,
            "certified_epsilon": iv(self.certified_epsilon),
            "certified_delta": self.certified_delta,
            "seconds": round(self.seconds, 3),
        }


# ----------------------------------------------------------------------------- helpers
def _mpf(q: Fraction) -> mpmath.mpf:
    with mpmath.workprec(max(64, q.denominator.bit_length() + q.numerator.bit_length() + 64)):
        return mpmath.mpf(q.numerator) / q.denominator


def _fmt_iv(lo, hi) -> str:
    return f"[{mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}]"


def laplace_wrapped_llr(scale, g: int, m: int, dps: int = 30,
                        gap: bool = False) -> mpmath.mpi:
    """Certified LLR of the mod-m views of Lap_Z(b) + g and Lap_Z(b):
    ``log cosh(m/(2b)) − log cosh((m/2 − g)/b)`` (module docstring), for 1 <= g <= m/2.
    It equals ``g/b − γ`` with ``γ = log(1 + e^{−(m−2g)/b}) − log(1 + e^{−m/b}) > 0``;
    ``gap=True`` returns γ (certified, relatively accurate however small)."""
    b = check_positive_fraction("scale", scale)
    g = check_int("g", g, minimum=1)
    m = check_int("m", m, minimum=2 * g)
    bits = _arb.bits_for_dps(dps) + 64
    with _arb.precision(bits):
        a = 1 / _arb.to_arb(b)
        # log cosh x − log cosh y = x − y + log(1 + e^{−2x}) − log(1 + e^{−2y})
        gamma = (-(a * (m - 2 * g))).exp().log1p() - (-(a * m)).exp().log1p()
        v = gamma if gap else a * g - gamma
        return from_ball(v)


_PREC = 512  # precision of the directed sums of interval ends below


def _add(x, y, rounding: str) -> mpmath.mpf:
    return (add_up if rounding == "c" else add_down)(x, y, prec=_PREC)


def _one_sided_above(law, t: int, dps: int, p: Fraction) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified P(N > t) for a symmetric total noise N, any integer t."""
    if t >= 0:
        lo, hi = ends(total_noise_tail(law, t, dps=dps, p=p))
        return mpmath.ldexp(lo, -1), mpmath.ldexp(hi, -1)
    # P(N > t) = 1 − P(N >= −t) = 1 − P(N > −t − 1)
    lo, hi = ends(total_noise_tail(law, -t - 1, dps=dps, p=p))
    return (sub_down(1, mpmath.ldexp(hi, -1), prec=_PREC),
            sub_up(1, mpmath.ldexp(lo, -1), prec=_PREC))


def _crosscheck_tail(law, tau: int, p: Fraction):
    """An independent enclosure of P(|N| > τ) where it is cheap, else None."""
    if isinstance(law, NoiseSum) and law.n == 1:
        law = law.share
    if isinstance(law, IntegerDistribution) and law.var() <= 10**6:
        return exact_tail(law, tau, dps=20), "PMF balls summed (privtools.exact.exact_tail)"
    if isinstance(law, NoiseSum) and law.n <= 256 and law.var() <= 10**4:
        pmf = sum_pmf(law.share, law.n, dps=20, tail=_mpf(p) * mpmath.mpf(10) ** -15,
                      method="convolve")
        return exact_tail(pmf, tau), f"{law.n}-fold convolution in Arb (privtools.exact)"
    return None


# ----------------------------------------------------------------------------- privacy
def _pure(plan: Plan, dps: int, deciding: bool = True):
    """Pure-DP rows; ``deciding=False`` (a plan with a δ, decided by its certificate): the
    per-batch LLR is reported as info, against the calibrated per-batch ε."""
    findings = []
    noise = plan.mechanism_noise
    if isinstance(noise, NoiseSum):
        noise = noise.share
    b = noise.scale
    llr = Fraction(plan.g) / b  # Fact 2: Lap_Z(b) on a g-sensitive query, LLR exactly g/b
    extra = 2 * plan.epsilon_secure if plan.epsilon_secure is not None else Fraction(0)
    achieved = llr + extra
    eps_iv = _intervals.interval(*_bounds_of(achieved))
    view = plan.deployment.view_text
    detail = f"LLR of {view} = g/b = {plan.g}/({b}) exactly (Fact 2)"
    if extra:
        detail += f", plus 2ε̂ = {extra} of the relaxed SecAgg (assumed, Theorem 3)"
    if deciding:
        findings.append(Finding("privacy (pure DP)",
                                HOLDS if achieved <= plan.epsilon else FAILS,
                                f"ε = {_short(achieved)}", f"ε <= {plan.epsilon}", detail))
    else:
        meets = "meets" if achieved <= plan.epsilon_view else "EXCEEDS"
        findings.append(Finding("per-batch ε (pure DP)", INFO, f"ε = {_short(achieved)}",
                                f"calibrated per-batch ε = {_short(plan.epsilon_view)}",
                                f"{detail}; {meets} it"))
    wrapped = None
    if plan.deployment.wraps and 2 * plan.g <= plan.m:
        wrapped = laplace_wrapped_llr(b, plan.g, plan.m, dps=max(dps, 30))
        lo, hi = _intervals.ends(wrapped)
        gap = _intervals.ends(laplace_wrapped_llr(b, plan.g, plan.m, gap=True))[0]
        detail = ("closed form log cosh(m/2b) − log cosh((m/2 − g)/b), below g/b by "
                  f"{mpmath.nstr(gap, 3)}; a post-processing of Σx̂ + noise")
        status = INFO
        if plan.m <= TABULATE_M:

            _, tab = view_llr(noise, plan.g, plan.m, dps=min(dps, 25))
            tlo, thi = _intervals.ends(tab)
            agree = tlo <= hi and lo <= thi
            detail += f"; tabulated over Z_m {_fmt_iv(tlo, thi)} " + (
                "agrees" if agree else "DISAGREES")
            status = INFO if agree else FAILS
        findings.append(Finding(f"mod-{plan.m} view LLR", status, _fmt_iv(lo, hi),
                                f"<= {plan.epsilon_view}", detail))
    return findings, eps_iv, wrapped, "exact LLR (Fact 2)"


def _bounds_of(q: Fraction) -> tuple[mpmath.mpf, mpmath.mpf]:
    """An mpf enclosure of a rational (exact when representable)."""
    bits = q.numerator.bit_length() + q.denominator.bit_length() + 64
    with mpmath.workprec(bits):
        lo = div_down(q.numerator, q.denominator)
        hi = div_up(q.numerator, q.denominator)
    return lo, hi


def _short(q: Fraction) -> str:
    return str(q) if q.denominator < 10**6 else mpmath.nstr(_mpf(q), 10)


def _dp_conversion(curve: dict, target: dict, delta: Fraction):

    got = rdp_to_dp(curve, delta)
    want = rdp_to_dp(target, delta)
    return got.epsilon, want.epsilon


def _secondary(findings: list[Finding], status: str, name: str, per_batch: Fraction):
    """The rows of a plan with a δ: info, against the calibrated per-batch ε (its
    certificate decides the verdict)."""
    word = {HOLDS: "meets", FAILS: "EXCEEDS", INCONCLUSIVE: "undecided against"}[status]
    first = findings[0]
    out = [Finding(name, INFO, first.value, first.target,
                   f"{first.detail}; {word} the curve at the calibrated per-batch ε = "
                   f"{_short(per_batch)} (info: the certified (ε, δ) decides)")]
    for f in findings[1:]:
        out.append(Finding(f"{f.name} per batch", f.status, f.value, f.target, f.detail))
    return out


def _rdp(plan: Plan, dps: int, orders, delta: Fraction, exact_var, deciding: bool = True):

    noise = plan.exact_total_noise
    eps = plan.epsilon if deciding else plan.epsilon_view
    targets = [mpmath.mpf(theorem2_rdp(a, eps, plan.s)) for a in orders]
    rows = []
    if noise.variance <= exact_var:
        vals = renyi_shift_curve(noise, plan.g, orders, dps=min(dps, 20))
        for a, v, t in zip(orders, vals, targets):
            lo, hi = _intervals.ends(v)
            rows.append((a, lo, hi, t))
        method = "exact Rényi curve of Σx̂ + Sk (renyi_shift_curve)"
    else:
        for a, t in zip(orders, targets):
            rows.append((a, None, mpmath.mpf(skellam_rdp_bound(a, noise.variance, plan.g)), t))
        method = (f"Lemma 3 bound (total variance {float(noise.variance):.3g} > "
                  f"{exact_var:.0e}: tabulation skipped)")
    states = [status_le((lo, hi), t) for _, lo, hi, t in rows]
    status = FAILS if FAILS in states else (INCONCLUSIVE if INCONCLUSIVE in states else HOLDS)
    worst = min(rows, key=lambda r: float(r[3] - r[2]))
    findings = [Finding("privacy (RDP)", status,
                        f"D_α <= {mpmath.nstr(worst[2], 8)} at α = {worst[0]}",
                        f"ε̂(α) = {mpmath.nstr(worst[3], 8)} (Theorem 2)",
                        f"{method}; orders {orders[0]}..{orders[-1]}")]
    eps_dp, eps_t = _dp_conversion({a: hi for a, _, hi, _ in rows},
                                   {a: t for a, _, _, t in rows}, delta)
    findings.append(Finding("(ε, δ)-DP", INFO, f"ε = {eps_dp:.6g} at δ = {float(delta):.3g}",
                            f"Theorem 2's curve gives ε = {eps_t:.6g}", "Lemma 10 conversion"))
    if not deciding:
        findings = _secondary(findings, status, "RDP curve (per batch)", eps)
    return findings, tuple(rows), method, eps_dp, eps_t


def _cdp(plan: Plan, dps: int, orders, delta: Fraction, exact_var=None, deciding: bool = True):
    """(``exact_var`` is the RDP check's: the CDP view is tabulated by its modulus.)"""


    share = plan.share
    eps = plan.epsilon if deciding else plan.epsilon_view
    g_theorem = theorem_params(plan.theorem, eps, plan.n, plan.p_noise, s=plan.s).g
    eps_t = mpmath.mpf(discrete_gaussian_sum_cdp(plan.n, share.sigma2, g_theorem))
    eps_plan = mpmath.mpf(discrete_gaussian_sum_cdp(plan.n, share.sigma2, plan.g))
    targets = [eps_t * eps_t * a / 2 for a in orders]
    sd = math.sqrt(plan.n * float(share.sigma2))
    cover_nats = (plan.m / 2 / sd) ** 2 / 2
    rows = []
    if plan.m <= TABULATE_M and plan.n <= 64 and cover_nats <= 3000:
        vals = gaussian_sum_view_renyi(share, plan.n, plan.g, plan.m, orders, dps=min(dps, 25))
        for a, v, t in zip(orders, vals, targets):
            lo, hi = _intervals.ends(v)
            rows.append((a, lo, hi, t))
        method = "exact Rényi curve of the mod-m view of the n-fold sum (claims engine)"
        states = [status_le((lo, hi), t) for _, lo, hi, t in rows]
        status = FAILS if FAILS in states else (INCONCLUSIVE if INCONCLUSIVE in states
                                                else HOLDS)
        eps_dp, eps_dp_t = _dp_conversion({a: hi for a, _, hi, _ in rows},
                                          {a: t for a, _, _, t in rows}, delta)
        worst = min(rows, key=lambda r: float(r[3] - r[2]))
        value = f"D_α <= {mpmath.nstr(worst[2], 8)} at α = {worst[0]}"
        target = f"ε̂²α/2 = {mpmath.nstr(worst[3], 8)} (Lemma 4, ε̂ = {mpmath.nstr(eps_t, 8)})"
    else:
        for a, t in zip(orders, targets):
            rows.append((a, None, eps_plan * eps_plan * a / 2, t))
        method = ("Lemma 4 bound at the plan's (n, σ², g) (the mod-m view is too large to "
                  "tabulate)")
        status = HOLDS if eps_plan <= eps_t else FAILS
        eps_dp = cdp_to_dp(eps_plan, delta).epsilon
        eps_dp_t = cdp_to_dp(eps_t, delta).epsilon
        value = f"ε̂ = {mpmath.nstr(eps_plan, 8)}"
        target = f"ε̂ = {mpmath.nstr(eps_t, 8)} (Lemma 4 at the theorem's g = {g_theorem})"
    findings = [Finding("privacy (CDP)", status, value, target, method),
                Finding("(ε, δ)-DP", INFO, f"ε = {eps_dp:.6g} at δ = {float(delta):.3g}",
                        f"Theorem 4's ε̂ gives ε = {eps_dp_t:.6g}", "Lemma 10 conversion")]
    if not deciding:
        findings = _secondary(findings, status, "CDP curve (per batch)", eps)
    return findings, tuple(rows), method, eps_dp, eps_dp_t


# ----------------------------------------------------------------------------- utility
def _failure(plan: Plan, dps: int):
    law = plan.exact_total_noise
    p = plan.p_noise
    tail = ends(total_noise_tail(law, plan.tau, dps=dps, p=p))
    L = plan.m - plan.n * plan.g - plan.tau - 1
    findings = []
    if L >= plan.tau:
        lo, hi = tail
        findings.append(Finding("wrap correction", INFO, f"m = {plan.m}",
                                f">= ng + 2τ + 1 = {plan.n * plan.g + 2 * plan.tau + 1}",
                                "the analyzer undoes the wrap whenever |N| <= τ"))
    else:
        a_lo, a_hi = _one_sided_above(law, plan.tau, dps, p)
        b_lo, b_hi = _one_sided_above(law, L, dps, p)
        # the quantity is min(1, P(N > τ) + P(N > L)): both ends clip at 1
        lo = min(mpmath.mpf(1), _add(a_lo, b_lo, "f"))
        hi = min(mpmath.mpf(1), _add(a_hi, b_hi, "c"))
        findings.append(Finding(
            "wrap correction", INFO, f"m = {plan.m}",
            f">= ng + 2τ + 1 = {plan.n * plan.g + 2 * plan.tau + 1}",
            f"m is short by {plan.tau - L}: with Σx̂ = 0 a noise below −{max(L, 0)} is "
            "mis-corrected (included in the failure probability)"))
    if plan.q_hat:
        q_lo, q_hi = _bounds_of(plan.q_hat)
        lo = min(mpmath.mpf(1), _add(lo, q_lo, "f"))
        hi = min(mpmath.mpf(1), _add(hi, q_hi, "c"))
    target = plan.failure_probability
    status = status_le((lo, hi), target)
    detail = "P(|N| > τ)" + (" with the wrap" if L < plan.tau else "") + (
        f" + q̂ = {plan.q_hat} (assumed)" if plan.q_hat else "")
    findings.append(Finding("failure probability", status, _fmt_iv(lo, hi), f"<= {target}",
                            f"{detail}; N = {law}"))
    cross = _crosscheck_tail(law, plan.tau, p)
    if cross is not None:
        civ, how = cross
        clo, chi = _intervals.ends(civ)
        agree = clo <= tail[1] and tail[0] <= chi
        findings.append(Finding("tail cross-check", INFO if agree else FAILS,
                                _fmt_iv(clo, chi), _fmt_iv(*tail),
                                f"P(|N| > τ) by {how}: " + ("agrees" if agree else
                                                             "DISAGREES")))
    return findings, interval(*tail), interval(lo, hi)


# ----------------------------------------------------------------------------- the question
def _returning(plan: Plan) -> bool:
    return (plan.pool is not None or (plan.participations or ((1, 1),)) != ((1, 1),)
            or plan.sampling_rate is not None)


def _profile_text(plan: Plan) -> str:
    profile = plan.participations or ((1, 1),)
    if plan.sampling_rate is not None:
        return (f"{profile[0][1]} round(s), each sampling the client w.p. "
                f"q = {plan.sampling_rate} (Poisson, add/remove)")
    if profile == ((1, 1),):
        return "one batch"
    return ", ".join(f"{c} batch(es)" + (f" x{j}" if j > 1 else "") for j, c in profile)


def _certified(plan: Plan):
    """The deciding privacy finding of a plan with a δ: the certified ε(δ) of its own view
    (composed over its participation profile) against ε; pure DP at δ = 0 exactly."""
    name = "privacy (per user, composed)" if _returning(plan) else "privacy ((ε, δ)-DP)"
    prof = _profile_text(plan)
    noise = plan.mechanism_noise
    if plan.delta == 0:            # pure DP, basic composition: Σ multiplicity·count·g/b
        k = sum(j * c for j, c in plan.participations or ((1, 1),))
        scale = noise.scale
        total = k * Fraction(plan.g) / scale
        cert = plan_certificate(plan)
        return Finding(name, HOLDS if total <= plan.epsilon else FAILS, f"ε = {_short(total)}",
                       f"ε <= {plan.epsilon}",
                       f"basic composition over {prof}: {k} × g/b = {k} × {plan.g}/({scale}), "
                       "exact (Fact 2)"), cert
    cert = plan_certificate(plan)
    lo, hi = _intervals.ends(cert.interval)
    d_cert = plan.delta - (plan.participation_failure or 0)
    target = f"ε <= {plan.epsilon} at δ = {float(plan.delta):.3g}"
    if plan.participation_failure:
        target += (f" (less the pool's failure {float(plan.participation_failure):.3g}: "
                   f"δ = {float(d_cert):.3g})")
    detail = (f"PldAccountant, two-sided certified: {prof} of the view of {noise} at "
              f"sensitivity g = {plan.g} (the plan's own g and noise)")
    return Finding(name, status_le(cert.interval, plan.epsilon),
                   f"ε({float(d_cert):.3g}) in {_fmt_iv(lo, hi)}", target, detail), cert


def _conversion(plan: Plan, delta: Fraction):
    """Info for an rdp / cdp plan without a δ: the certified (ε, δ) of its view at ``delta``
    (where the noise is small enough to be cheap), or (None, None)."""
    if plan.mechanism_noise.var() > PLD_CONVERSION_VAR:   # a cost threshold only
        return None, None
    try:
        cert = plan_certificate(plan, delta)
    except CertificationError:
        return None, None
    lo, hi = _intervals.ends(cert.interval)
    theorem = plan.kind.parameter
    return Finding("(ε, δ)-DP, certified", INFO, f"ε({float(delta):.3g}) in {_fmt_iv(lo, hi)}",
                   f"not ε = {plan.epsilon}: that is {theorem} parameter",
                   "PldAccountant on the plan's view (two-sided certified); plan with a δ "
                   "(--delta) to calibrate to (ε, δ)"), cert


def _question(plan: Plan) -> str:
    """What the plan must certify for "PLAN PASSES", in words (no figures)."""
    utility = (f"the analyzer's output is within τ/g of Σx̂/g except w.p. <= "
               f"{plan.failure_probability}")
    if plan.delta is not None or plan.kind.pure:
        return f"{guarantee(dataclasses.replace(plan, certified_epsilon=None))}; and {utility}"
    what = plan.kind.curve
    return f"the batch view {what} for ε = {plan.epsilon}; and {utility}"


def _answer(plan: Plan, claim: str, delta: Fraction, cert, eps_dp) -> str:
    """What "PLAN PASSES" certifies, in words."""
    utility = (f"the analyzer's output is within τ/g of Σx̂/g except w.p. <= "
               f"{plan.failure_probability}")
    if plan.delta is not None or plan.kind.pure:
        return f"{claim}; and {utility}"
    if cert is not None:
        conv, how = ends(cert.interval)[1], "PLD accountant"
    else:
        conv, how = eps_dp, "Lemma 10 of the certified curve"
    that = f"({show_up(conv)}, {float(delta):.3g})-DP by the {how}"
    what = plan.kind.curve
    return (f"the batch view {what} for ε = {plan.epsilon} (not ({plan.epsilon}, δ)-DP: that "
            f"is {that}; use --delta to calibrate to (ε, δ)); and {utility}")


# ----------------------------------------------------------------------------- entry point
def verify_plan(plan: Plan, dps: int = 20, delta=None, orders=None,
                exact_skellam_var=EXACT_SKELLAM_VAR) -> PlanCheck:
    """Verify ``plan`` exactly (module docstring): privacy of the planned view against the
    plan's target, the worst-case probability that the output is off by more than τ/g against
    ``plan.failure_probability``, and the bits per user. A plan with a δ is decided by its
    certified (ε, δ) (PldAccountant, over its participations) against its target. ``delta``
    (default ``plan.p``, or the plan's own δ): the δ of the reported (ε, δ)-DP conversions of
    RDP / CDP plans (not of a plan's certified target); ``orders``: the Rényi orders
    (integers > 1; default ``RDP_ORDERS`` / ``CDP_ORDERS``)."""
    if not isinstance(plan, Plan):
        raise ParameterError(f"plan must be a privtools.planning.Plan, got {type(plan).__name__}")
    dps = check_int("dps", dps, minimum=5)
    if delta is not None:
        dl = check_positive_fraction("delta", delta, upper=1)
    else:
        dl = plan.delta if plan.delta else plan.p
    if orders is not None:
        orders = tuple(check_int("orders", a, minimum=2) for a in orders)
        if not orders:
            raise ParameterError("orders must be non-empty")
    t0 = time.perf_counter()
    kind = plan.kind
    eps_iv = wrapped = None
    rows: tuple = ()
    eps_dp = eps_dp_t = None
    calibrated = plan.delta is not None      # the certified (ε, δ) decides
    first: list[Finding] = []
    cert = None
    claim = None
    if calibrated:
        try:
            finding, cert = _certified(plan)
            first = [finding]
            claim = guarantee(plan, cert)
        except CertificationError as exc:  # not decided: inconclusive, never a pass
            first = [Finding("privacy ((ε, δ)-DP)", INCONCLUSIVE, "not certified",
                             f"ε <= {plan.epsilon} at δ = {float(plan.delta):.3g}", str(exc))]
            claim = guarantee(dataclasses.replace(plan, certified_epsilon=None))
    try:
        if kind.pure:
            findings, eps_iv, wrapped, method = _pure(plan, dps, not calibrated)
        else:   # the Rényi check of the kind (PrivacyKind.check) decides
            renyi = {"RDP": _rdp, "CDP": _cdp}[kind.check]
            findings, rows, method, eps_dp, eps_dp_t = renyi(
                plan, dps, orders or kind.orders, dl, exact_skellam_var, not calibrated)
    except CertificationError as exc:
        method = "not certified"
        # without a δ these rows decide: inconclusive, never a pass; with one, info
        findings = [Finding(f"privacy ({plan.privacy})" if not calibrated else
                            f"per-batch {plan.privacy} rows",
                            INCONCLUSIVE if not calibrated else INFO, "not certified",
                            f"ε = {plan.epsilon}", str(exc))]
    findings = first + list(findings)
    if not calibrated and kind.needs_delta:
        extra, cert = _conversion(plan, dl)
        if extra is not None:
            findings.append(extra)
        claim = guarantee(plan, cert, dl,
                          conversion=None if cert is not None or eps_dp is None else
                          (eps_dp, "Lemma 10 of the certified curve"))
    elif claim is None:
        claim = guarantee(plan)
    not_held = [f for f in findings if f.status not in (HOLDS, INFO)]
    if not_held:
        f = not_held[0]
        why = f"{f.name} {f.status}: {f.value} vs target {f.target}"
        claim_line = (f"NOT CERTIFIED ({why}): the plan claims "
                      f"{guarantee(dataclasses.replace(plan, certified_epsilon=None))}"
                      if calibrated or kind.pure else
                      f"NOT CERTIFIED ({why}): {claim}")
    else:
        claim_line = claim
    util, tail, failure = _failure(plan, dps)
    findings = list(findings) + util
    findings.append(Finding("bits per user", INFO, str(plan.bits), "-",
                            f"⌈log₂ m⌉ with m = {plan.m}"))
    return PlanCheck(plan=plan, findings=tuple(findings), epsilon=eps_iv, llr_wrapped=wrapped,
                     renyi=rows, privacy_method=method, dp_epsilon=eps_dp,
                     dp_delta=None if eps_dp is None else float(dl), dp_epsilon_target=eps_dp_t,
                     tail=tail, failure=failure, tail_method=plan.tail_method, bits=plan.bits,
                     seconds=time.perf_counter() - t0,
                     certified_epsilon=None if cert is None else cert.interval,
                     certified_delta=None if cert is None else cert.delta, guarantee=claim_line,
                     answer=_answer(plan, claim, dl, cert, eps_dp), question=_question(plan))
