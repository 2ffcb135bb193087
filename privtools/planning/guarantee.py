"""What a plan certifies, said in its user's terms ("a verdict answers the user's question").

A user who types ε = 1 reads "(1, δ)-DP". That is what a plan with a δ (``plan(...,
delta=)``, ``privtools plan --delta``) promises: its noise is calibrated so that the certified
ε(δ) of :class:`~privtools.accounting.PldAccountant` — per batch, or composed over a user's
participations — is at most ε. Without a δ an rdp or cdp plan's ε is the paper's parameter
(Theorem 2's RDP ε̂(α), Theorem 4's ½ε̂²-CDP), which is *not* (ε, δ)-DP; the statement says
so and gives the (ε, δ) it converts to. ::

    plan_certificate(plan, delta=None)     certified ε(δ) of the plan's view for one user, over
                                           its participation profile, from the plan's own g
                                           and noise (whatever g the caller put in)
    guarantee(plan, certificate=None)      the one-line statement of what the plan certifies

``verification.plan_check.verify_plan`` decides the statement: its verdict is exactly the
certified (ε, δ) against the target for a plan with a δ.
"""

from __future__ import annotations

import math
from decimal import ROUND_CEILING, Context, Decimal
from fractions import Fraction

import mpmath

from privtools.accounting import PldEpsilon, cdp_to_dp, discrete_gaussian_sum_cdp, rdp_to_dp
from privtools.accounting import theorem2_rdp as _theorem2_rdp
from privtools.certified.intervals import ends, exact_rational, fraction_bounds, interval
from privtools.errors import ParameterError
from privtools.validation import check_probability

from .kinds import APPROXIMATE_PLANS
from .participation import per_user_epsilon
from .plan import Plan
from .theorems import TheoremParams, theorem_params

__all__ = ["plan_certificate", "plan_view", "guarantee", "show_up"]

_RDP_ORDERS = tuple(range(2, 257))      # Theorem 2 is stated for α = 2, 3, ...
_NO_PURE_EPSILON = f"delta must be > 0 for {APPROXIMATE_PLANS}: their views have no finite pure ε"


def show_up(x, digits: int = 4) -> str:
    """``x`` (a number or mpf) rounded *up* to ``digits`` significant digits — the way a
    certified upper end may be printed (never a smaller value than certified)."""
    q = exact_rational(mpmath.mpf(x)) if not isinstance(x, (int, Fraction)) else Fraction(x)
    if q is None:
        return mpmath.nstr(mpmath.mpf(x), digits)
    if q == 0:
        return "0"
    d = Context(prec=digits, rounding=ROUND_CEILING).divide(Decimal(q.numerator),
                                                             Decimal(q.denominator))
    return f"{d.normalize():f}" if Decimal("1e-4") <= abs(d) < Decimal("1e6") else f"{d:g}"


def _num(q: Fraction) -> str:
    q = Fraction(q)
    return str(q) if q.denominator < 10**6 and abs(q.numerator) < 10**12 else \
        mpmath.nstr(mpmath.mpf(q.numerator) / q.denominator, 8)


def _delta(d) -> str:
    return f"{float(d):.3g}"


def plan_view(plan: Plan) -> TheoremParams:
    """The plan's own view (its g and noise, whatever they are) as theorem parameters."""
    noise = plan.total_noise if plan.deployment.total == "nominal" else plan.mechanism_noise
    return TheoremParams(theorem=plan.theorem, epsilon=plan.epsilon_view, n=plan.n, p=plan.p_noise,
                         s=plan.s, g=plan.g, tau=plan.tau, m=plan.m, share=plan.share, noise=noise)


def _profile(plan: Plan) -> tuple[tuple[int, int], ...]:
    return plan.participations or ((1, 1),)


def _returning(plan: Plan) -> bool:
    return (plan.pool is not None or _profile(plan) != ((1, 1),)
            or plan.sampling_rate is not None)


def plan_certificate(plan: Plan, delta=None, max_points: int | None = None) -> PldEpsilon:
    """Certified ε(δ) of the view ``plan`` releases about one user — one batch, or the
    composition over the plan's participation profile — by :class:`PldAccountant`, from the
    plan's *own* g and noise (a plan changed by ``with_parameters`` is certified as it is).

    ``delta`` defaults to the plan's δ less its pool's failure probability (the δ its
    calibration certified), or to p for a plan without a δ. δ = 0 (pure-DP plans): basic
    composition, exact — ε = Σ multiplicity·count·g/b. Shuffle plans (Theorem 3) have no loss
    distribution: ParameterError."""
    if not isinstance(plan, Plan):
        raise ParameterError(f"plan must be a privtools.planning.Plan, got "
                             f"{type(plan).__name__}")
    if not plan.deployment.loss_distribution:
        raise ParameterError(f"plan: Theorem {plan.theorem} (shuffle) has no loss distribution "
                             "of its view (its relaxed SecAgg is an assumption); no certificate")
    if delta is None:
        dq = plan.p if plan.delta is None else plan.delta - (plan.participation_failure or 0)
    else:
        dq = check_probability("delta", delta, zero=True)
    profile = _profile(plan)
    if dq == 0:
        if plan.kind.needs_delta:
            raise ParameterError(_NO_PURE_EPSILON)
        scale = plan.mechanism_noise.scale
        eps = sum(j * c for j, c in profile) * Fraction(plan.g) / scale
        lo, hi = fraction_bounds(eps)
        up = float(hi)
        if mpmath.mpf(up) < hi:
            up = math.nextafter(up, math.inf)
        return PldEpsilon(up, interval(lo, hi), 0.0)
    return per_user_epsilon(plan_view(plan), profile, dq, max_points=max_points,
                            rate=plan.sampling_rate)


# ----------------------------------------------------------------------------- statements
def _subject(plan: Plan) -> str:
    if _returning(plan):
        return "the whole run"
    return plan.deployment.subject


def _who(plan: Plan) -> str:
    if plan.pool is not None:
        return f"every member of a pool of {plan.pool} (each round's user drawn from it)"
    if plan.sampling_rate is not None:
        k = sum(c for _, c in _profile(plan))
        return (f"every client, sampled with probability {plan.sampling_rate} in each of "
                f"{k} rounds (Poisson, add/remove)")
    if _returning(plan):
        k = sum(c for _, c in _profile(plan))
        return f"every user who joins up to {k} batches"
    return "every user"


def _rdp_parameter(plan: Plan, delta) -> tuple[str, str]:
    """(what ε is for an rdp plan without a δ, Theorem 2's own (ε, δ) by Lemma 10)."""
    eps, s = plan.epsilon, plan.s
    curve = {a: _theorem2_rdp(a, eps, s) for a in _RDP_ORDERS}
    at2 = show_up(curve[2])
    what = (f"ε = {_num(eps)} is Theorem 2's RDP parameter, not ({_num(eps)}, δ)-DP: "
            f"each batch's view is (α, ε̂(α))-RDP for every user, ε̂(α) = αε²/2 + "
            f"min{{(2α−1)ε²/(4s²) + 3ε/(2s³), 3ε²/(2s)}} (ε̂(2) = {at2})")
    conv = rdp_to_dp(curve, delta).epsilon
    return what, (f"as (ε, δ)-DP, Theorem 2's curve gives ({show_up(conv)}, "
                  f"{_delta(delta)})-DP (Lemma 10)")


def _cdp_parameter(plan: Plan, delta) -> tuple[str, str]:
    """(what ε is for a cdp plan without a δ, Theorem 4's own (ε, δ) by Lemma 10)."""
    eps, s = plan.epsilon, plan.s
    g_theorem = theorem_params(plan.theorem, eps, plan.n, plan.p_noise, s=s).g
    eps_hat = discrete_gaussian_sum_cdp(plan.n, plan.share.sigma2, g_theorem)
    what = (f"ε = {_num(eps)} is Theorem 4's CDP parameter, not ({_num(eps)}, δ)-DP: each "
            f"batch's view is ½ε̂²-CDP for every user, ε̂ <= {show_up(eps_hat)} (Lemma 4 at "
            f"the theorem's g = {g_theorem})")
    conv = cdp_to_dp(eps_hat, delta).epsilon
    return what, (f"as (ε, δ)-DP, Theorem 4's ε̂ gives ({show_up(conv)}, {_delta(delta)})-DP "
                  "(Lemma 10)")


#: What ε is without a δ, by the check of the plan's kind (PrivacyKind.check).
_PAPER_PARAMETER = {"RDP": _rdp_parameter, "CDP": _cdp_parameter}


def guarantee(plan: Plan, certificate: PldEpsilon | None = None, delta=None, *,
              conversion: tuple | None = None) -> str:
    """The guarantee ``plan`` states, in its user's terms, on one line.

    * a plan with a δ (rdp / cdp with ``delta=``, or returning users): "each batch is
      (ε, δ)-DP for every user, certified by the PLD accountant (ε(δ) <= …)" — over the
      whole run with participations or a pool; pure DP at δ = 0: ε by basic composition;
    * pure DP: "each batch's server view is ε-DP for every user (ε exact)" (Theorem 3 adds
      the relaxed SecAgg's 2ε̂, assumed; Theorem 5 the released sum, Theorem 6 each message);
    * rdp / cdp without a δ: ε is Theorem 2's RDP / Theorem 4's CDP parameter, *not*
      (ε, δ)-DP, and the (ε, δ) it converts to at ``delta`` (default p): the certified
      ``certificate`` of the plan's view when given (:func:`plan_certificate`), else the
      theorem's own curve by Lemma 10.

    ``certificate`` (a :class:`PldEpsilon`) replaces the plan's recorded one — the judge
    passes the certificate it recomputed; ``conversion`` ``(ε upper end, how)`` gives another
    certified conversion at ``delta`` instead (the judge's Lemma 10 of the plan's certified
    Rényi curve where the PLD is costly). The statement is what the plan *claims*; whether it
    holds is ``verify_plan``'s verdict."""
    if not isinstance(plan, Plan):
        raise ParameterError(f"plan must be a privtools.planning.Plan, got "
                             f"{type(plan).__name__}")
    eps = _num(plan.epsilon)
    if plan.delta is not None:
        cert = certificate.interval if certificate is not None else plan.certified_epsilon
        subject, who = _subject(plan), _who(plan)
        per_batch = (f"; per-batch ε = {_num(plan.epsilon_view)}" if _returning(plan) else "")
        if plan.delta == 0:
            k = sum(j * c for j, c in _profile(plan))
            return (f"{subject} is {eps}-DP for {who} (basic composition, exact: {k} × "
                    f"{_num(plan.epsilon_view)})")
        d_cert = plan.delta - (plan.participation_failure or 0)
        pool = ""
        if plan.participation_failure:
            pool = (f"; the participation profile fails w.p. <= "
                    f"{_delta(plan.participation_failure)}, inside δ")
        if cert is None:
            return f"{subject} is ({eps}, {_delta(plan.delta)})-DP for {who} (PLD accountant)"
        return (f"{subject} is ({eps}, {_delta(plan.delta)})-DP for {who}, certified by the "
                f"PLD accountant (ε({_delta(d_cert)}) <= {show_up(ends(cert)[1])}{per_batch}"
                f"{pool})")
    claim = plan.deployment.claim
    if claim is not None:
        return claim.format(eps=eps, eps_view=_num(plan.epsilon_view),
                            secure2=_num(2 * (plan.epsilon_secure or 0)))
    dl = plan.p if delta is None else check_probability("delta", delta, zero=True)
    if dl == 0:
        raise ParameterError(_NO_PURE_EPSILON)
    what, theorem_conv = _PAPER_PARAMETER[plan.kind.check](plan, dl)
    if certificate is not None:
        conv = (f"as (ε, δ)-DP the plan's view is ({show_up(ends(certificate.interval)[1])}, "
                f"{_delta(certificate.delta)})-DP, certified by the PLD accountant")
    elif conversion is not None:
        conv = (f"as (ε, δ)-DP the plan's view is ({show_up(conversion[0])}, {_delta(dl)})-DP "
                f"({conversion[1]})")
    else:
        conv = theorem_conv
    return f"{what}; {conv} (calibrate to (ε, δ) with a δ: --delta, delta=)"
