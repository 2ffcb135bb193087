"""Conversions between privacy notions: RDP / zCDP / CDP / pure DP → (ε, δ)-DP.

    rdp_to_dp(rdp, delta, orders=None, method="lemma10")   -> EpsilonResult(epsilon, order)
    rdp_to_delta(rdp, epsilon, orders=None, method=...)     -> DeltaResult(delta, order)
    zcdp_to_dp(rho, delta, method="lemma10" | "standard")   -> EpsilonResult
    cdp_to_dp(epsilon, delta, method="lemma10" | "lemma10_closed")  (½ε²-CDP, 000's notation)
    pure_to_rdp(eps, tight=False) -> curve;  pure_to_zcdp(eps) -> ρ = ε²/2

Methods (all valid upper bounds; ``lemma10`` is never worse than ``mironov``):
    "lemma10"  Lemma 10 (000) = Canonne, Kamath & Steinke 2020 Prop. 12 / Asoodeh et al.
               2020: ε = inf_α ε(α) + log(1/(αδ))/(α−1) + log(1 − 1/α)
    "mironov"  Mironov 2017 Prop. 3: ε = inf_α ε(α) + log(1/δ)/(α−1)
Both also use, as ``dp_accounting`` does, the total-variation shortcut: KL <= D_α = ε(α)
and Bretagnolle–Huber give TV <= √(1 − e^{−ε(α)}), and δ(ε) <= δ(0) = TV, so an order
with √(1 − e^{−ε(α)}) <= δ yields (0, δ)-DP, and δ(ε) <= √(1 − e^{−ε(α)}) always
(``tv_bound=False`` switches this off, leaving the conversion formula alone).
The infimum is taken over a finite set of orders (``DEFAULT_ORDERS``: 1.01…10⁴ log-spaced
and the integers 2..256, or the keys of a mapping); every order gives a valid ε, so the
grid only affects tightness. ε is clipped below at 0 and rounded up; δ is capped at 1 and
rounded up. All arithmetic is in mpmath (``log(1 − 1/α)`` is evaluated as
``log((α−1)/α)`` from the exact order, δ may be far below float range).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from privtools.errors import ParameterError
from privtools.validation import check_nonneg, check_order, check_probability

from .._numeric import (
    BASE_DPS,
    DEFAULT_ORDERS,
    FunctionCurve,
    as_value,
    eval_rdp,
    guard_dps,
    is_sequence,
    mpf,
    order_value,
    up,
)
from .curves import _pure_min, _pure_rr_mp

__all__ = [
    "EpsilonResult",
    "DeltaResult",
    "rdp_to_dp",
    "rdp_to_delta",
    "zcdp_to_dp",
    "cdp_to_dp",
    "pure_to_rdp",
    "pure_to_zcdp",
    "METHODS",
]

METHODS = ("lemma10", "mironov")


@dataclass(frozen=True)
class EpsilonResult:
    """(ε, δ)-DP from a conversion: ``epsilon`` (rounded up), the ``order`` α attaining
    it (None if no order gave a finite ε), the ``delta`` used and the ``method``.
    Unpacks as ``eps, order = result``."""

    epsilon: float
    order: int | float | None
    delta: float
    method: str

    def __iter__(self):
        return iter((self.epsilon, self.order))


@dataclass(frozen=True)
class DeltaResult:
    """δ(ε) from a conversion: ``delta`` (rounded up, <= 1), the ``order`` attaining it,
    the ``epsilon`` used and the ``method``. Unpacks as ``delta, order = result``."""

    delta: float
    order: int | float | None
    epsilon: float
    method: str

    def __iter__(self):
        return iter((self.delta, self.order))


# ----------------------------------------------------------------------------- helpers
def _check_method(method: str, allowed=METHODS) -> str:
    if method not in allowed:
        raise ParameterError(f"method must be one of {allowed}, got {method!r}")
    return method


def _orders_and_values(rdp, orders) -> list[tuple[Fraction, mpmath.mpf]]:
    """Validated (order, ε(order)) pairs from a callable or a mapping {α: ε}."""
    if isinstance(rdp, Mapping):
        items = {check_order("orders", k): k for k in rdp}
        if orders is None:
            chosen = sorted(items)
        else:
            if not is_sequence(orders):
                raise ParameterError("orders must be a sequence of numbers > 1")
            chosen = [check_order("orders", o) for o in orders]
            missing = [order_value(o) for o in chosen if o not in items]
            if missing:
                raise ParameterError(f"orders {missing} are not keys of the rdp mapping")
        if not chosen:
            raise ParameterError("rdp mapping is empty")
        return [(a, as_value("rdp", rdp[items[a]])) for a in chosen]
    if not callable(rdp):
        raise ParameterError(f"rdp must be callable or a mapping, got {type(rdp).__name__}")
    if orders is None:
        orders = DEFAULT_ORDERS
    if not is_sequence(orders) or len(orders) == 0:
        raise ParameterError("orders must be a non-empty sequence of numbers > 1")
    chosen = sorted({check_order("orders", o) for o in orders})
    return [(a, eval_rdp(rdp, a)) for a in chosen]


def _eps_at(a: Fraction, r, log_delta: mpmath.mpf, method: str) -> mpmath.mpf:
    """ε at one order (without the clip at 0)."""
    r = mpf(r)
    if mpmath.isinf(r):
        return mpmath.inf
    am1 = mpf(a - 1)
    if method == "mironov":
        return r - log_delta / am1
    return r + (-mpmath.log(mpf(a)) - log_delta) / am1 + mpmath.log(mpf((a - 1) / a))


def _log_delta_at(a: Fraction, r, eps: mpmath.mpf, method: str) -> mpmath.mpf:
    """log δ at one order: the inversion of ``_eps_at`` in δ."""
    r = mpf(r)
    if mpmath.isinf(r):
        return mpmath.inf
    am1 = mpf(a - 1)
    if method == "mironov":
        return am1 * (r - eps)
    return am1 * (r - eps + mpmath.log(mpf((a - 1) / a))) - mpmath.log(mpf(a))


def _tv_log(r) -> mpmath.mpf:
    """log √(1 − e^{−r}): log of the Bretagnolle–Huber bound on TV from KL <= r."""
    r = mpf(r)
    if r == 0:
        return mpmath.ninf
    if mpmath.isinf(r):
        return mpmath.mpf(0)
    return mpmath.log(-mpmath.expm1(-r)) / 2


def _dps_for(pairs) -> int:
    smallest = min(a - 1 for a, _ in pairs)
    return guard_dps(smallest) + 10


# ----------------------------------------------------------------------------- RDP → DP
def rdp_to_dp(rdp: Callable | Mapping, delta, orders=None, method: str = "lemma10",
              *, tv_bound: bool = True) -> EpsilonResult:
    """(ε, δ)-DP from an RDP curve: Lemma 10 (000) (``method="lemma10"``, the
    Canonne–Kamath–Steinke 2020 / Asoodeh et al. 2020 conversion) ::

        ε = inf_α ε(α) + log(1/(αδ))/(α−1) + log(1 − 1/α),

    or Mironov 2017 (``method="mironov"``): ε = inf_α ε(α) + log(1/δ)/(α−1).

    ``rdp``: a callable α ↦ ε(α) (curves from this package, or any function of a float /
    int order) or a mapping {α: ε(α)}. ``orders``: where to take the infimum (default
    ``DEFAULT_ORDERS``; for a mapping, its keys). ``tv_bound``: also return ε = 0 when
    √(1 − e^{−ε(α)}) <= δ at some order (see the module docstring). Returns an
    :class:`EpsilonResult` (``eps, order = rdp_to_dp(...)``); ε is max(0, ·), rounded up.
    """
    _check_method(method)
    d = check_probability("delta", delta)
    pairs = _orders_and_values(rdp, orders)
    with mpmath.workdps(_dps_for(pairs)):
        log_delta = mpmath.log(mpf(d))
        best, best_a = mpmath.inf, None
        for a, r in pairs:
            e = _eps_at(a, r, log_delta, method)
            if e < best:
                best, best_a = e, a
        if tv_bound and best > 0:
            # √(1 − e^{−r}) <= δ  ⇔  r <= −log(1 − δ²); the smallest ε(α) decides
            a_min, r_min = min(pairs, key=lambda p: mpf(p[1]))
            if mpf(r_min) <= -mpmath.log1p(-mpf(d) ** 2):
                best, best_a = mpmath.mpf(0), a_min
        eps = up(max(best, mpmath.mpf(0)))
    return EpsilonResult(eps, None if best_a is None else order_value(best_a), up(d), method)


def rdp_to_delta(rdp: Callable | Mapping, epsilon, orders=None, method: str = "lemma10",
                 *, tv_bound: bool = True) -> DeltaResult:
    """δ(ε) from an RDP curve, inverting the same conversion in δ and minimising over
    the orders::

        lemma10:  log δ = min_α (α−1)(ε(α) − ε + log(1 − 1/α)) − log α
        mironov:  log δ = min_α (α−1)(ε(α) − ε),

    and (``tv_bound``) δ <= √(1 − e^{−ε(α)}). Returns a :class:`DeltaResult` (δ capped
    at 1, rounded up)."""
    _check_method(method)
    e = check_nonneg("epsilon", epsilon)
    pairs = _orders_and_values(rdp, orders)
    with mpmath.workdps(_dps_for(pairs)):
        eps = mpf(e)
        best, best_a = mpmath.inf, None
        for a, r in pairs:
            ld = _log_delta_at(a, r, eps, method)
            if ld < best:
                best, best_a = ld, a
        if tv_bound:  # √(1 − e^{−r}) is increasing in r: only the smallest ε(α) matters
            a_min, r_min = min(pairs, key=lambda p: mpf(p[1]))
            tv = _tv_log(r_min)
            if tv < best:
                best, best_a = tv, a_min
        delta = mpmath.mpf(1) if best >= 0 else mpmath.exp(best)
        out = up(delta)
    return DeltaResult(out, None if best_a is None else order_value(best_a), up(e), method)


# ----------------------------------------------------------------------------- zCDP / CDP
_ZCDP_METHODS = ("lemma10", "standard")
_CDP_METHODS = ("lemma10", "lemma10_closed")


def _golden_min(f, lo: mpmath.mpf, hi: mpmath.mpf, iters: int = 120):
    """Golden-section search for a minimum of f on [lo, hi] (unimodal there)."""
    invphi = (mpmath.sqrt(5) - 1) / 2
    a, b = lo, hi
    c, d = b - invphi * (b - a), a + invphi * (b - a)
    fc, fd = f(c), f(d)
    for _ in range(iters):
        if fc <= fd:
            b, d, fd = d, c, fc
            c = b - invphi * (b - a)
            fc = f(c)
        else:
            a, c, fc = c, d, fd
            d = a + invphi * (b - a)
            fd = f(d)
    return (c, fc) if fc <= fd else (d, fd)


def zcdp_to_dp(rho, delta, method: str = "lemma10", *, tv_bound: bool = True
               ) -> EpsilonResult:
    """(ε, δ)-DP from ρ-zCDP (RDP curve ε(α) = ρα).

    ``method="standard"``: Bun & Steinke 2016 Prop. 1.3, ε = ρ + 2√(ρ log(1/δ)) — which
    is Mironov's conversion minimised exactly (at α = 1 + √(log(1/δ)/ρ)), and equals the
    closed form of Lemma 10 (000) with ρ = ½ε².
    ``method="lemma10"``: Lemma 10 (000) / CKS20, ε = inf_{α>1} ρα + log(1/(αδ))/(α−1) +
    log(1 − 1/α), minimised over α continuously (a grid around the standard optimum, then
    golden-section refinement; any α gives a valid bound). Never larger than "standard".
    With ``tv_bound`` (lemma10 only), ε = 0 when √(1 − e^{−ρ}) <= δ (KL <= ρ, then
    Bretagnolle–Huber, as in :func:`rdp_to_dp`).
    """
    _check_method(method, _ZCDP_METHODS)
    r = check_nonneg("rho", rho)
    d = check_probability("delta", delta)
    if r == 0:
        return EpsilonResult(0.0, None, up(d), method)
    # α − 1 ~ √(log(1/δ)/ρ) · 2^k must stay distinct from 0 at the working precision
    extra = max(0, (r.numerator.bit_length() - r.denominator.bit_length()) * 3 // 20) + 12
    with mpmath.workdps(BASE_DPS + 10 + extra):
        rv, log_inv = mpf(r), -mpmath.log(mpf(d))
        a_std = 1 + mpmath.sqrt(log_inv / rv)
        if method == "standard":
            eps = rv + 2 * mpmath.sqrt(rv * log_inv)
            return EpsilonResult(up(eps), float(a_std), up(d), method)
        if tv_bound and _tv_log(rv) <= -log_inv:
            return EpsilonResult(0.0, 1.0, up(d), method)

        def f(a):
            return rv * a + (log_inv - mpmath.log(a)) / (a - 1) + mpmath.log((a - 1) / a)

        # candidates: a_std · 2^k and DEFAULT_ORDERS; bracket the best and refine
        cands = sorted({mpf(Fraction(o)) for o in DEFAULT_ORDERS}
                       | {1 + (a_std - 1) * mpmath.mpf(2) ** k for k in range(-30, 31)})
        vals = [f(a) for a in cands]
        i = min(range(len(cands)), key=vals.__getitem__)
        lo = cands[i - 1] if i > 0 else 1 + (cands[0] - 1) / 2
        hi = cands[i + 1] if i + 1 < len(cands) else cands[i] * 2
        a_ref, v_ref = _golden_min(f, lo, hi)
        a_best, v_best = (a_ref, v_ref) if v_ref < vals[i] else (cands[i], vals[i])
        return EpsilonResult(up(max(v_best, 0)), float(a_best), up(d), method)


def cdp_to_dp(epsilon, delta, method: str = "lemma10") -> EpsilonResult:
    """(ε', δ)-DP from ½ε²-CDP (Definition 10 (000)), second half of Lemma 10 (000)::

        ε' = inf_{α>1} ½ε²α + log(1/(αδ))/(α−1) + log(1 − 1/α)   (``"lemma10"``)
           <= ε(√(2 log(1/δ)) + ε/2)                               (``"lemma10_closed"``).

    The closed form equals ``zcdp_to_dp(ε²/2, δ, "standard")``."""
    _check_method(method, _CDP_METHODS)
    e = check_nonneg("epsilon", epsilon)
    d = check_probability("delta", delta)
    if method == "lemma10":
        res = zcdp_to_dp(e * e / 2, d, "lemma10", tv_bound=False)
        return EpsilonResult(res.epsilon, res.order, res.delta, method)
    with mpmath.workdps(BASE_DPS + 10):
        ev = mpf(e)
        eps = ev * (mpmath.sqrt(2 * -mpmath.log(mpf(d))) + ev / 2)
        order = None if e == 0 else float(1 + mpmath.sqrt(2 * -mpmath.log(mpf(d))) / ev)
        return EpsilonResult(up(eps), order, up(d), method)


# ----------------------------------------------------------------------------- pure DP
def pure_to_zcdp(eps) -> float:
    """ε-DP ⇒ ½ε²-zCDP (Bun & Steinke 2016, Prop. 3.3; Lemma 10 (000), last sentence).
    Returns ρ = ε²/2, rounded up."""
    e = check_nonneg("eps", eps)
    return up(e * e / 2)


def pure_to_rdp(eps, *, tight: bool = False) -> FunctionCurve:
    """The RDP curve implied by ε-DP, as a callable α ↦ ε(α): min{ε, ½ε²α} by default,
    the exact randomized-response curve with ``tight=True`` (see
    :func:`privtools.accounting.pure_dp_rdp`)."""
    e = check_nonneg("eps", eps)
    if tight:
        return FunctionCurve(lambda a: _pure_rr_mp(a, e), f"pure-DP (tight) eps={e}")
    return FunctionCurve(lambda a: _pure_min(a, e), f"pure-DP eps={e}")
