"""The quantitative statements of paper 000 as checkable data.

Each :class:`Claim` is a value — name, source, statement, parameter grids — plus a checker
that evaluates one grid point exactly (certified intervals from ``privtools.exact``,
``privtools.exact.divergence`` and ``verification.tails``) and reports whether the statement
holds there and with how much slack. ``check(name)`` runs a claim over a grid;
``privtools verify-claims`` prints the table.

Status of a grid point: ``holds`` (certified), ``fails`` (certified counterexample) or
``inconclusive`` (the certified interval straddles the claimed value). Slack is reported
as claimed/exact (>= 1 when the claim holds: how loose the bound is), except where a row
says otherwise.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from privtools.accounting import (
    discrete_gaussian_sum_cdp,
    discrete_gaussian_sum_xi,
    discrete_laplace_rdp,
    rdp_to_dp,
    skellam_rdp_bound,
    theorem2_rdp,
)
from privtools.certified import decide_le
from privtools.certified.balls import arb, precision, to_arb
from privtools.certified.intervals import Interval, ends, exact_rational, from_ball
from privtools.errors import ParameterError
from privtools.exact import ExactPMF, shift, sum_pmf, total_variation
from privtools.exact.divergence import (
    discrete_gaussian_shift_renyi,
    gaussian_sum_renyi_curve,
    hockey_stick,
    renyi_shift,
)
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam
from privtools.planning import theorem_params

from .tails import check_tail_bound, fact2_exact_check, prop1_skellam, smallest_constant_lemma5
from .verdicts import FAILS, HOLDS, INCONCLUSIVE, combine, status_le

__all__ = ["Claim", "Row", "ClaimResult", "all_claims", "get", "check", "check_all", "view_llr",
           "gaussian_sum_view_renyi"]

_MPI = Interval


@dataclass(frozen=True)
class Row:
    params: dict
    status: str
    slack: float | None
    detail: str = ""


@dataclass(frozen=True)
class Claim:
    name: str
    source: str
    statement: str
    checker: Callable[[dict], Row] = field(repr=False, compare=False)
    reduced: tuple[dict, ...] = field(default=(), compare=False)
    full: tuple[dict, ...] = field(default=(), compare=False)
    slack_meaning: str = "claimed / exact (>= 1 means it holds)"

    def grid(self, which: str) -> tuple[dict, ...]:
        """The claim's parameter points on the ``"reduced"`` or ``"full"`` grid."""
        if which not in ("reduced", "full"):
            raise ParameterError(f"grid must be 'reduced' or 'full', got {which!r}")
        return self.reduced if which == "reduced" else self.full


@dataclass(frozen=True)
class ClaimResult:
    claim: Claim
    rows: tuple[Row, ...]
    seconds: float

    @property
    def status(self) -> str:
        """The verdict: fails if any point fails, else inconclusive if any is, else holds."""
        states = {r.status for r in self.rows}
        if FAILS in states:
            return FAILS
        if INCONCLUSIVE in states:
            return INCONCLUSIVE
        return HOLDS

    @property
    def worst_slack(self) -> float | None:
        """The smallest slack over the checked points, or None."""
        vals = [r.slack for r in self.rows if r.slack is not None]
        return min(vals) if vals else None

    def to_dict(self) -> dict:
        """The result as JSON-ready values."""
        return {
            "name": self.claim.name,
            "source": self.claim.source,
            "statement": self.claim.statement,
            "status": self.status,
            "worst_slack": self.worst_slack,
            "slack_meaning": self.claim.slack_meaning,
            "seconds": round(self.seconds, 3),
            "rows": [{"params": {k: str(v) for k, v in r.params.items()}, "status": r.status,
                      "slack": r.slack, "detail": r.detail} for r in self.rows],
        }


# ----------------------------------------------------------------------------- helpers
def _compare_orders(alphas, exact_of, bound_of) -> tuple[str, float | None, str]:
    """Certified D_α (``exact_of``) against a claimed bound (``bound_of``) at each order:
    (combined status, smallest slack, one-line detail)."""
    worst, parts, states = None, [], []
    for alpha in alphas:
        exact, bound = exact_of(alpha), mpmath.mpf(bound_of(alpha))
        states.append(status_le(exact, bound))
        r = _ratio(bound, exact)
        if r is not None:
            worst = r if worst is None else min(worst, r)
        parts.append(f"α={alpha}: {_fmt(exact)} <= {mpmath.nstr(bound, 6)}")
    return combine(states), worst, "; ".join(parts)


def _ratio(claimed, exact: mpmath.mpi) -> float | None:
    lo, hi = ends(exact)
    mid = (lo + hi) / 2
    if mid == 0 or mpmath.isinf(mid):
        return None
    return float(mpmath.mpf(claimed) / mid)


def _fmt(x) -> str:
    if isinstance(x, _MPI):
        lo, hi = ends(x)
        return f"[{mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}]"
    return mpmath.nstr(x, 8) if isinstance(x, mpmath.mpf) else str(x)


# ----------------------------------------------------------------------------- shared views
def view_llr(noise, g: int, m: int | None = None, dps: int = 25
             ) -> tuple[mpmath.mpi, mpmath.mpi | None]:
    """Certified LLR (D_∞ both ways) of ``Σx̂ + noise`` for sensitivity g and, with ``m``,
    of its mod-m view (tabulated over Z_m; used by the pure-DP theorems and plan checks)."""

    llr = renyi_shift(noise, g, math.inf, dps=dps)
    wrapped = None if m is None else renyi_shift(noise, g, math.inf, dps=dps, m=m)
    return llr, wrapped


def gaussian_sum_view_renyi(share: DiscreteGaussian, n: int, g: int, m: int, orders,
                            dps: int = 25) -> list[mpmath.mpi]:
    """Certified D_α of the mod-m view of Σx̂ + (sum of n discrete-Gaussian shares) for
    sensitivity g, at each order (Theorem 4). The sum is tabulated over all of Z_m, leaving
    outside far less than its smallest value there (estimated with the discrete Gaussian of
    the same variance), then wrapped."""

    cover = DiscreteGaussian(sigma2=share.sigma2 * n).logsf(m // 2 + 1)
    tail = min(mpmath.mpf(10) ** -36, mpmath.exp(mpmath.mpf(cover)) * mpmath.mpf(10) ** -36)
    total = sum_pmf(share, n, dps=30, tail=tail)
    return [renyi_shift(total, g, a, dps=dps, m=m) for a in orders]


# ----------------------------------------------------------------------------- checkers
def _fact1(pt: dict) -> Row:

    b, n = Fraction(pt["b"]), int(pt["n"])
    law = DiscreteLaplace(b)
    conv = sum_pmf(law.shares(n), n, dps=40, method="convolve")
    tv = total_variation(conv, ExactPMF.from_distribution(law, dps=40))
    # exact (TV <= 1e-30, decided on the certified ends), fails on a certified TV > 0
    status = HOLDS if decide_le(tv, Fraction(1, 10**30)) is True else (
        FAILS if decide_le(tv, 0) is False else INCONCLUSIVE)
    return Row(pt, status, None, f"TV(sum of {n} shares, Lap_Z({b})) in {_fmt(tv)}")


def _fact2(pt: dict) -> Row:

    res = fact2_exact_check(Fraction(pt["scale"]), [0, 1, 5, 50, 500])
    worst = res["max_rel_error"]
    status = HOLDS if worst < mpmath.mpf(10) ** -25 else FAILS
    return Row(pt, status, None, f"max relative gap formula vs exact tail: {_fmt(worst)}")


def _prop1(pt: dict) -> Row:

    var = Fraction(pt["var"])
    ps = [mpmath.mpf(10) ** -e for e in (1, 3, 6, 12, 20, 30)]
    chk = check_tail_bound(Skellam(var), prop1_skellam(var), ps)
    slack = None if chk.worst_ratio == 0 else float(1 / chk.worst_ratio)
    return Row(pt, chk.status, slack,
               f"worst exact-tail/p = {mpmath.nstr(chk.worst_ratio, 4)}; "
               f"threshold/needed <= {mpmath.nstr(min(r['slack'] for r in chk.rows), 4)}")


def _rdp_row(pt: dict, exact: mpmath.mpi, bound) -> tuple[str, float | None, str]:
    return status_le(exact, bound), _ratio(bound, exact), f"exact {_fmt(exact)} vs {_fmt(bound)}"


def _lemma3(pt: dict) -> Row:

    var, delta, alpha = Fraction(pt["var"]), int(pt["delta"]), int(pt["alpha"])
    exact = renyi_shift(Skellam(var), delta, alpha, dps=25)
    bound = skellam_rdp_bound(alpha, var, delta)
    status, slack, detail = _rdp_row(pt, exact, bound)
    return Row(pt, status, slack, detail)


_LEMMA4_ORDERS = (2, 8, 32)


def _lemma4_eps2(n: int, sigma2: Fraction, delta: int, bits: int) -> Interval:
    """Certified ε² of Lemma 4 (000) (= KLS21 Prop. 13), evaluated in Arb from the statement:
    ε = min{√(Δ²/(nσ²) + ξ/2), Δ/(√n σ) + ξ}, ξ = 10 Σ_{k=1}^{n−1} e^{−2π²σ² k/(k+1)}.
    (The accountant's ``discrete_gaussian_sum_cdp`` rounds ε up to a float; a certified
    ``holds`` needs the lower end of the exact value.)"""

    with precision(bits), mpmath.workprec(bits):
        s2 = to_arb(sigma2)
        xi = arb(0)
        for k in range(1, n):
            xi += (-2 * arb.pi() ** 2 * s2 * to_arb(Fraction(k, k + 1))).exp()
        xi *= 10
        d2 = to_arb(Fraction(delta * delta, n) / sigma2)
        first = d2 + xi / 2
        second = (d2.sqrt() + xi) ** 2
        # a rigorous min of two balls: the min of the lower ends and of the upper ends
        lo = first.lower() if first.lower() < second.lower() else second.lower()
        hi = first.upper() if first.upper() < second.upper() else second.upper()
        return from_ball(arb(lo).union(arb(hi)))


def _status_le_iv(value: Interval, lo_b: Fraction, hi_b: Fraction) -> str:
    """Certified ``value <= bound`` for a bound known to lie in ``[lo_b, hi_b]`` (exact
    rationals): holds when value's upper end is <= lo_b, fails when value's lower end is
    above hi_b."""
    status = status_le(value, lo_b)
    if status == FAILS and status_le(value, hi_b) != FAILS:
        return INCONCLUSIVE
    return status


def _lemma4(pt: dict) -> Row:
    """Lemma 4 (000) on Z: the certified two-sided D_α(Z_n ‖ Z_n + Δ)
    (``gaussian_sum_renyi_curve``: window + sub-Gaussian/Cauchy–Schwarz remainder) against
    ½ε²α at α ∈ {2, 8, 32}. n = 1 is decided in exact rationals: ξ = 0 (an empty sum), so
    ½ε²α = αΔ²/(2σ²), which is D_α exactly (CKS20: completing the square). Where ε's excess
    over Δ/(√n σ) is below the computed digits (σ² = 9: ξ ~ 1e-37) the digits are raised.
    Slack: bound / certified upper end of D_α (smallest over the orders)."""

    n, sigma2, delta = int(pt["n"]), Fraction(pt["sigma2"]), int(pt["delta"])
    eps = discrete_gaussian_sum_cdp(n, sigma2, delta)
    head = f"ε = {eps:.6g} (accountant, rounded up); "
    if n == 1:
        xi = discrete_gaussian_sum_xi(1, sigma2)
        exact = [discrete_gaussian_shift_renyi(a, sigma2, delta) for a in _LEMMA4_ORDERS]
        # ξ = 0: ε² = min{Δ²/σ² + 0, (Δ/σ + 0)²} = Δ²/σ² exactly
        bounds = [a * Fraction(delta * delta) / sigma2 / 2 for a in _LEMMA4_ORDERS]
        states = [HOLDS if e <= b else FAILS for e, b in zip(exact, bounds)]
        equal = all(e == b for e, b in zip(exact, bounds))
        parts = [f"α={a}: D_α = αΔ²/(2σ²) = {e} exactly, ½ε²α = {b}"
                 for a, e, b in zip(_LEMMA4_ORDERS, exact, bounds)]
        note = (" — holds with equality: ξ = 0 at n = 1 (accountant: ξ = "
                f"{xi}), the lemma is tight" if equal else "")
        slack = min(float(b / e) for e, b in zip(exact, bounds))
        return Row(pt, combine(states), slack, head + "; ".join(parts) + note)
    for dps in (30, 60, 120):
        bits = int(dps * 3.33) + 64
        values = gaussian_sum_renyi_curve(n, sigma2, delta, _LEMMA4_ORDERS, dps=dps)
        eps2 = _lemma4_eps2(n, sigma2, delta, bits)
        lo_e, hi_e = (exact_rational(x) for x in ends(eps2))
        states, parts, worst = [], [], None
        with mpmath.workprec(bits):
            for a, val in zip(_LEMMA4_ORDERS, values):
                lo_b, hi_b = lo_e * a / 2, hi_e * a / 2  # exact rationals: ½ε²α's ends
                states.append(_status_le_iv(val, lo_b, hi_b))
                ratio = mpmath.mpf(lo_b.numerator) / lo_b.denominator / ends(val)[1]
                worst = ratio if worst is None else min(worst, ratio)
                excess = f" (bound/upper − 1 = {mpmath.nstr(ratio - 1, 3)})" if abs(
                    ratio - 1) < mpmath.mpf(10) ** -6 else ""
                parts.append(f"α={a}: D_α in {_fmt(val)} vs ½ε²α = "
                             f"{mpmath.nstr(mpmath.mpf(lo_b.numerator) / lo_b.denominator, 8)}"
                             f"{excess}")
        if INCONCLUSIVE not in states:
            break
    status = combine(states)
    detail = head + f"certified on Z at {dps} digits; " + "; ".join(parts)
    if status == FAILS:
        detail += " — a certified counterexample to the lemma"
    return Row(pt, status, None if worst is None else float(worst), detail)


def _lemma5(pt: dict) -> Row:

    eps, n = Fraction(pt["eps"]), int(pt["n"])
    ps = [mpmath.mpf(10) ** -e for e in (1, 3, 6, 10)]
    c = smallest_constant_lemma5(eps, n, ps)
    return Row(pt, HOLDS, None, f"holds with c >= {mpmath.nstr(c, 4)} on p in 1e-1..1e-10 "
               "(the paper leaves c unspecified)")


def _lemma10(pt: dict) -> Row:

    scale, delta = Fraction(pt["scale"]), mpmath.mpf(pt["delta"])
    conv = rdp_to_dp(lambda a: discrete_laplace_rdp(a, scale, 1), float(delta))
    P = ExactPMF.from_distribution(DiscreteLaplace(scale), dps=30)
    exact_delta = hockey_stick(shift(P, 1), P, conv.epsilon)
    status = status_le(exact_delta, delta)
    return Row(pt, status, _ratio(delta, exact_delta),
               f"ε(δ) by Lemma 10 = {conv.epsilon:.6g}; exact δ at that ε = {_fmt(exact_delta)}")


def _theorem_pure(theorem: int) -> Callable[[dict], Row]:
    """Pure DP of the batch view. Certified on the unwrapped mechanism (Σ x̂ + noise):
    the server's mod-m view is a post-processing of it, so by data processing its privacy
    loss can only be smaller; the wrapped view is also computed, as a consistency check
    (it attains ε exactly away from the wrap, so its interval cannot separate from ε)."""

    def checker(pt: dict) -> Row:

        prm = theorem_params(theorem, pt["eps"], int(pt["n"]), pt["p"], c=pt.get("c"))
        eps = mpmath.mpf(Fraction(pt["eps"]).numerator) / Fraction(pt["eps"]).denominator
        dep = prm.deployment
        llr, wrapped = view_llr(prm.noise, prm.g, prm.m if dep.wraps else None)
        status, slack, detail = _rdp_row(pt, llr, eps)
        extra = ""
        if wrapped is not None:
            if ends(wrapped)[0] > eps:
                status = FAILS
            extra = f"; mod-{prm.m} view {_fmt(wrapped)}"
        view = "Σx̂ + noise" if dep.wraps else "per-user"
        return Row(pt, status, slack,
                   f"g={prm.g}, τ={prm.tau}, m={prm.m}; LLR of the {view} view {detail}{extra}")

    return checker


def _theorem2(pt: dict) -> Row:

    prm = theorem_params(2, pt["eps"], int(pt["n"]), pt["p"], s=pt["s"])
    eps, s = float(Fraction(pt["eps"])), float(Fraction(pt["s"]))
    # certified on Σ x̂ + noise; the mod-m view can only be smaller (data processing)
    status, worst, detail = _compare_orders(
        (2, 4, 16, 64), lambda a: renyi_shift(prm.noise, prm.g, a, dps=25),
        lambda a: theorem2_rdp(a, eps, s))
    return Row(pt, status, worst, f"g={prm.g}, m={prm.m}; {detail}")


def _theorem2_algebra(pt: dict) -> Row:

    prm = theorem_params(2, pt["eps"], int(pt["n"]), pt["p"], s=pt["s"])
    eps, s = float(Fraction(pt["eps"])), float(Fraction(pt["s"]))
    worst, parts, states = None, [], []
    for alpha in (2, 16, 64):
        printed = mpmath.mpf(theorem2_rdp(alpha, eps, s, prm.n))
        lemma3 = mpmath.mpf(skellam_rdp_bound(alpha, prm.noise.variance, prm.g))
        st = HOLDS if lemma3 <= printed else FAILS
        states.append(st)
        r = float(printed / lemma3)
        worst = r if worst is None else min(worst, r)
        parts.append(f"α={alpha}: printed ε̂_n {mpmath.nstr(printed, 6)} vs Lemma 3 "
                     f"{mpmath.nstr(lemma3, 6)}")
    return Row(pt, combine(states), worst, f"g={prm.g}; " + "; ".join(parts))


def _theorem4(pt: dict) -> Row:

    prm = theorem_params(4, pt["eps"], int(pt["n"]), pt["p"], s=pt["s"])
    eps_hat = mpmath.mpf(discrete_gaussian_sum_cdp(prm.n, prm.share.sigma2, prm.g))
    orders = (2, 8, 32)
    exact = dict(zip(orders, gaussian_sum_view_renyi(prm.share, prm.n, prm.g, prm.m, orders)))
    status, worst, detail = _compare_orders(
        orders, exact.__getitem__, lambda a: eps_hat * eps_hat * a / 2)
    return Row(pt, status, worst, f"g={prm.g}, ε̂={mpmath.nstr(eps_hat, 6)}; {detail}")


def _pts(**axes: Iterable) -> tuple[dict, ...]:
    """Cartesian grid of parameter dicts."""
    out: list[dict] = [{}]
    for key, values in axes.items():
        out = [{**d, key: v} for d in out for v in values]
    return tuple(out)


def all_claims() -> list[Claim]:
    """The registry, in the paper's order."""
    return [
        Claim("fact1", "Fact 1 (000)",
              "n i.i.d. Pólya(1/n, e^{-1/b}) differences sum to Lap_Z(b)", _fact1,
              _pts(b=["4"], n=[8]), _pts(b=["1", "4", "32"], n=[2, 16, 64])),
        Claim("fact2", "Fact 2 (000)",
              "Y ~ Lap_Z(Δ/ε): P(Y > k) = e^{-εk/Δ}/(e^{ε/Δ} + 1) for k >= 0", _fact2,
              _pts(scale=["2"]), _pts(scale=["0.5", "2", "32", "1000"])),
        Claim("prop1", "Proposition 1 (000)",
              "X ~ Sk(0, σ²): w.p. >= 1 − p, |X| <= 2σ√log(2/p) + √2 log(2/p)", _prop1,
              _pts(var=["1", "1000"]), _pts(var=["0.5", "1", "10", "1000", "1000000"]),
              slack_meaning="p / exact tail at the claimed threshold (>= 1 means it holds)"),
        Claim("lemma3", "Lemma 3 (000) = AKL21 Thm 3.5",
              "Sk(0, σ²) added to a Δ-sensitive query is (α, αΔ²/(2σ²) + min{((2α−1)Δ² + 6Δ)"
              "/(4σ⁴), 3Δ/(2σ²)})-RDP", _lemma3,
              _pts(var=["100"], delta=[10], alpha=[2, 16]),
              _pts(var=["4", "100", "10000"], delta=[1, 10], alpha=[2, 8, 64])),
        Claim("lemma4", "Lemma 4 (000) = KLS21 Prop. 13",
              "the sum of n N_Z(0, σ²) added to a Δ-sensitive query is ½ε²-CDP, "
              "ε = min{√(Δ²/(nσ²) + ξ/2), Δ/(√n σ) + ξ}", _lemma4,
              _pts(n=[1, 4], sigma2=["1"], delta=[2]),
              _pts(n=[1, 2, 8], sigma2=["0.25", "1", "9"], delta=[1, 4]),
              slack_meaning="½ε²α / certified upper end of D_α, worst order (>= 1 means it "
                            "holds)"),
        Claim("lemma5", "Lemma 5 (000)",
              "the sum of n Lap_Z(1/ε) satisfies |Σ| <= max{(c/ε)√(2n log(2/p)), 2(c/ε) log(2/p)} "
              "w.p. >= 1 − p for an absolute constant c", _lemma5,
              _pts(eps=["1"], n=[4]), _pts(eps=["0.1", "1"], n=[1, 4, 16])),
        Claim("lemma10", "Lemma 10 (000)",
              "(α, ε(α))-RDP implies (ε, δ)-DP with ε = inf_α ε(α) + log(1/(αδ))/(α−1) + "
              "log(1 − 1/α)", _lemma10,
              _pts(scale=["4"], delta=["1e-6"]),
              _pts(scale=["1", "4", "32"], delta=["1e-3", "1e-6", "1e-9"]),
              slack_meaning="δ / exact δ at the converted ε (>= 1 means it holds)"),
        Claim("theorem1", "Theorem 1 (000), privacy",
              "Pólya shares with g = ⌈ε√n⌉, τ, m = ng + 2τ + 1: the server's mod-m view is ε-DP",
              _theorem_pure(1),
              _pts(eps=["1"], n=[16], p=["1e-6"]),
              _pts(eps=["0.1", "0.5", "1"], n=[16, 1024], p=["1e-6"])),
        Claim("theorem2", "Theorem 2 (000), privacy",
              "Skellam shares Sk(0, g²/(nε²)), g = ⌈sε√n⌉: (α, ε̂(α))-RDP with ε̂(α) = αε²/2 + "
              "min{(2α−1)ε²/(4s²) + 3ε/(2s³), 3ε²/(2s)} (certified on Σx̂ + noise; the mod-m "
              "view is a post-processing)", _theorem2,
              _pts(eps=["0.5", "1"], n=[1, 16], p=["1e-6"], s=["2"]),
              _pts(eps=["0.1", "0.5", "1"], n=[1, 16, 1024], p=["1e-6"], s=["1", "2", "10"])),
        Claim("theorem2-algebra", "proof of Theorem 2 (000)",
              "Lemma 3 with Δ = g, σ² = g²/ε² gives at most the printed ε̂_n(α) = αε²/2 + "
              "min{(2α−1)ε²/(4s²n) + 3ε/(2s³n^{3/2}), 3ε²/(2s√n)}", _theorem2_algebra,
              _pts(eps=["0.5", "1"], n=[1, 16], p=["1e-6"], s=["2"]),
              _pts(eps=["0.1", "0.5", "1"], n=[1, 16, 1024], p=["1e-6"], s=["1", "2", "10"]),
              slack_meaning="printed ε̂_n / Lemma 3 value (>= 1 means the step is valid)"),
        Claim("theorem4", "Theorem 4 (000), privacy",
              "discrete-Gaussian shares N_Z(0, g²/(nε²)): ½ε̂²-CDP with ε̂ from Lemma 4", _theorem4,
              _pts(eps=["1"], n=[4], p=["1e-6"], s=["1"]),
              _pts(eps=["0.5", "1"], n=[4, 16], p=["1e-6"], s=["1", "10"])),
        Claim("theorem5", "Theorem 5 (000), privacy",
              "central model: the analyzer adds Lap_Z(g/ε) to the mod-m sum: ε-DP",
              _theorem_pure(5),
              _pts(eps=["1"], n=[16], p=["1e-6"]),
              _pts(eps=["0.1", "1"], n=[16, 1024], p=["1e-6"])),
        Claim("theorem6", "Theorem 6 (000), privacy",
              "local model: each user adds Lap_Z(g/ε) to x̂_i ∈ [0, g]: ε-LDP per user",
              _theorem_pure(6),
              _pts(eps=["1"], n=[16], p=["1e-6"], c=["1"]),
              _pts(eps=["0.1", "1"], n=[16, 1024], p=["1e-6"], c=["1"])),
    ]


def get(name: str) -> Claim:
    """The claim named ``name`` (ParameterError naming the known claims otherwise)."""
    for c in all_claims():
        if c.name == name:
            return c
    names = ", ".join(c.name for c in all_claims())
    raise ParameterError(f"unknown claim {name!r}; known: {names}")


def check(name: str, grid: str = "reduced", progress: Callable[[], None] | None = None
          ) -> ClaimResult:
    """Evaluate claim ``name`` on its ``grid`` ("reduced" or "full")."""
    claim = get(name)
    t0 = time.perf_counter()
    rows = []
    for pt in claim.grid(grid):
        try:
            rows.append(claim.checker(pt))
        except (ArithmeticError, ValueError) as exc:
            rows.append(Row(pt, INCONCLUSIVE, None, f"could not evaluate: {exc}"))
        if progress is not None:
            progress()
    return ClaimResult(claim, tuple(rows), time.perf_counter() - t0)


def check_all(grid: str = "reduced", progress: Callable[[], None] | None = None
              ) -> list[ClaimResult]:
    """Every claim checked on ``grid`` (``"reduced"`` or ``"full"``)."""
    return [check(c.name, grid, progress) for c in all_claims()]
