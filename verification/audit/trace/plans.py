"""The project's own deployment paths, traced release by release against their plan.

:func:`trace_plan` traces the server's view of one batch of the protocol of paper 000
(randomizer → secure aggregation → analyzer; :func:`privtools.protocol.view_mechanism`, or
any view with the same contract) on the worst-case pair of rewards (one user's reward moved
across [0, 1]: Σ x̂ moves by g) and checks, each as a certified verdict:

1. **shares** — every noise draw is the plan's share law with the plan's parameters (the
   ``plan.share`` of Theorems 1–4 and 6, the analyzer's ``plan.central_noise`` of Theorem 5),
   one per user: a privtools law call compared exactly, or numpy's own Pólya samplers read as
   the law they draw (``negative_binomial(r, 1 − β)``; ``poisson(gamma(r, θ))`` is Pólya(r,
   θ/(1 + θ)) — the seed implementation's Gamma scale inverted shows here);
2. **view** — the view is the planned sum: one release, the n shares summed (mod m where the
   view wraps);
3. **loss** — the view's certified loss for the pair (:func:`~.api.trace_mechanism`) is at most
   what the plan claims: ε for a pure-DP plan, the plan's own certified ε(δ)
   (:func:`privtools.planning.plan_certificate`) for an RDP or CDP plan.

:func:`trace_run` traces a whole batch-successive-elimination run
(:func:`privtools.bandits.se.simulate`): every noise call of every batch is checked against
the plan of its batch size (law, parameters, one draw per user and arm), and the per-user
loss of the run — each user is in one batch of one arm — is the per-batch certificate of
:func:`trace_plan` for every batch size the run used.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privtools.bandits.se import batch_plan, simulate
from privtools.errors import ParameterError
from privtools.planning import plan_certificate, privacy_kind
from privtools.protocol import neighbours, view_mechanism

from ...verdicts import FAILS, HOLDS, INCONCLUSIVE, combine
from ..draws import root_seed
from .api import trace_mechanism
from .record.recorder import Session, TracingGenerator

__all__ = ["PlanTrace", "RunTrace", "trace_plan", "trace_run"]

_REL = 1e-9


@dataclass(frozen=True)
class PlanTrace:
    """Outcome of :func:`trace_plan`: ``checks`` as ``(name, status, detail)`` with status
    ``"holds"``/``"fails"``/``"inconclusive"``; ``verdict`` their combination; ``trace`` the
    view's :class:`~.result.TraceResult`."""

    plan: str
    checks: tuple
    verdict: str
    trace: object

    def describe(self) -> str:
        """The verdict and each check, one per line."""
        lines = [f"{self.verdict.upper()}: {self.plan}"]
        lines += [f"  {status:12s} {name}: {detail}" for name, status, detail in self.checks]
        return "\n".join(lines)

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"plan": self.plan, "verdict": self.verdict,
                "checks": [{"name": n, "status": s, "detail": d} for n, s, d in self.checks],
                "trace": None if self.trace is None else self.trace.to_dict()}


@dataclass(frozen=True)
class RunTrace:
    """Outcome of :func:`trace_run`: the run's ``checks``, the per-batch-size
    :class:`PlanTrace` values (``batches``: n → PlanTrace) and the ``verdict``."""

    checks: tuple
    batches: dict
    verdict: str

    def describe(self) -> str:
        """The run's verdict, its checks and each batch size's verdict."""
        lines = [f"{self.verdict.upper()}: the run, release by release"]
        lines += [f"  {status:12s} {name}: {detail}" for name, status, detail in self.checks]
        for n, pt in sorted(self.batches.items()):
            lines.append(f"  batches of {n} users: {pt.verdict}")
        return "\n".join(lines)


# ------------------------------------------------------------------ reading the draws
def _close(a, b) -> bool:
    a, b = float(a), float(b)
    return a == b or abs(a - b) <= _REL * max(abs(a), abs(b))


def _scalar(v):
    arr = np.asarray(v, dtype=float).reshape(-1)
    if arr.size == 0 or not np.all(arr == arr[0]):
        return None
    return float(arr[0])


def _polya_draws(primitives) -> list[tuple[float, float, int, str]]:
    """numpy draws of Pólya(r, β): ``(r, β, elements, how)`` per call."""
    out = []
    prev = None
    for method, _family, shape, params in primitives:
        size = int(np.prod(shape)) if shape else 1
        if method == "negative_binomial":
            r, p = _scalar(params.get("n")), _scalar(params.get("p"))
            if r is not None and p is not None:
                out.append((r, 1 - p, size, f"negative_binomial(n={r:g}, p={p:g})"))
        elif method == "poisson" and prev is not None and prev[0] == "gamma":
            r, theta = _scalar(prev[3].get("shape")), _scalar(prev[3].get("scale"))
            if r is not None and theta is not None:
                out.append((r, theta / (1 + theta), size,
                            f"poisson(gamma(shape={r:g}, scale={theta:g}))"))
        prev = (method, _family, shape, params)
    return out


def _expected(plan):
    """(the law each draw must follow, draws per view, the view's modulus)."""
    trust = plan.trust
    if trust == "central":
        return plan.central_noise, 1, None
    return plan.share, (1 if trust == "local" else plan.n), plan.m


def check_shares(primitives, plan) -> tuple[str, str]:
    """(status, detail) of the shares: every draw of the plan's law, one per user."""
    law, per_view, _ = _expected(plan)
    drawn = 0
    for _method, family, shape, params in primitives:
        if family != "law":
            continue
        got = params.get("law")
        if got != law:
            return FAILS, f"a share is drawn from {got!r}; the plan's is {law!r}"
        drawn += int(np.prod(shape)) if shape else 1
    polya = _polya_draws(primitives)
    if polya:
        r_plan = float(getattr(law, "r", math.nan))
        b_plan = float(getattr(law, "beta", math.nan))
        for r, beta, _size, how in polya:
            if not (_close(r, r_plan) and _close(beta, b_plan)):
                return FAILS, (f"a share is drawn as {how}, which is Pólya(r = {r:.10g}, "
                               f"β = {beta:.10g}); the plan's share {law!r} needs Pólya(r = "
                               f"{r_plan:.10g}, β = {b_plan:.10g})" + (
                                   f", i.e. Gamma scale {b_plan / (1 - b_plan):.10g}"
                                   if "gamma" in how else ""))
        drawn += sum(size for *_, size, _how in polya) // 2
    if drawn == 0:
        return INCONCLUSIVE, "no draw of a law the trace recognises as the share"
    if drawn != per_view:
        return FAILS, f"{drawn} share(s) drawn for a view of {per_view} user(s)"
    return HOLDS, f"{drawn} draw(s) of {law!r}, one per user"


def _claim(plan, delta):
    """(ε, δ, rtol, what): the plan's claim for its view."""
    if privacy_kind(plan.privacy).pure:
        eps = plan.epsilon_view if getattr(plan, "epsilon_view", None) is not None else \
            plan.epsilon
        return Fraction(eps), 0.0, 2.0 ** -40, f"ε = {float(eps):g} (Theorem {plan.theorem})"
    d = delta if delta is not None else (plan.delta if plan.delta is not None else 1e-6)
    cert = plan_certificate(plan, d)
    return (Fraction(cert.epsilon), float(d), 1e-6,
            f"the plan's certified ε({d:g}) = {cert.epsilon:.6g}")


def trace_plan(plan, *, view=None, rewards=None, user: int = 0, delta=None,
               rng=None) -> PlanTrace:
    """Trace one batch's server view under ``plan`` (module doc). ``view``: a mechanism
    ``view(rewards, size, rng)`` (default: the protocol's own,
    :func:`privtools.protocol.view_mechanism`); ``rewards``: the batch (default all 0, whose
    worst-case neighbour moves ``user`` to 1); ``delta``: the δ an RDP/CDP plan is read at
    (default the plan's, else 1e-6)."""
    view = view_mechanism(plan, user=user) if view is None else view
    x = np.zeros(plan.n) if rewards is None else np.asarray(rewards, dtype=float)
    xp = neighbours(x, user)
    eps, dlt, rtol, what = _claim(plan, delta)
    _, _, modulus = _expected(plan)
    tr = trace_mechanism(view, x, xp, float(eps), dlt, rng=rng, modulus=modulus, rtol=rtol)
    checks = [("shares",) + check_shares(tr.primitives, plan)]
    checks.append(("view",) + _check_view(tr, plan))
    status = {"holds": HOLDS, "fail": FAILS}.get(tr.verdict, INCONCLUSIVE)
    b = tr.epsilon_bounds
    shown = "not certified" if b is None else f"certified in [{b[0]:.6g}, {b[1]:.6g}]"
    checks.append(("loss", status, f"the view's ε{'(δ)' if dlt else ''} {shown}; the plan "
                   f"claims {what}"))
    name = (f"Theorem {plan.theorem} plan, n = {plan.n}, g = {plan.g}, m = {plan.m}, "
            f"share {plan.share!r}" if plan.share is not None else
            f"Theorem {plan.theorem} plan, n = {plan.n}, central noise {plan.central_noise!r}")
    return PlanTrace(name, tuple(checks), combine(s for _, s, _ in checks), tr)


def _check_view(tr, plan) -> tuple[str, str]:
    law, per_view, modulus = _expected(plan)
    rel = tr.releases
    if not rel:
        return INCONCLUSIVE, "the trace decided no release (" + (
            "; ".join(tr.undecided[:1]) or tr.verdict) + ")"
    if len(rel) != 1:
        return FAILS, f"{len(rel)} releases where the plan has one sum"
    r = rel[0]
    where = f"(mod {modulus})" if modulus else "(unwrapped)"
    if r.source == law and r.count == per_view:
        return HOLDS, f"one release {where}: {r.count} draw(s) of {law!r} summed, shifted by " \
            f"{r.shift}"
    return FAILS, f"the release sums {r.count} draw(s) of {r.source!r}; the plan sums " \
        f"{per_view} of {law!r}"


# ------------------------------------------------------------------ a whole run
def _schedule(spec, horizon: int) -> list[int]:
    """The batch sizes of a run: base, base², … up to the horizon."""
    schedule = []
    n = spec.base
    while n <= horizon:
        schedule.append(n)
        n *= spec.base
    return schedule


def _match_laws(spec, law_calls, schedule, planner) -> tuple[dict, list]:
    """Each law call matched to the batch size whose plan draws that law: how many calls
    per size, and the calls no plan of the schedule explains."""
    def wanted(n):
        p = planner(n)
        return p.central_noise if p.trust == "central" else (
            p.total_noise if spec.mode == "aggregate" else p.share)
    per_user = spec.mode != "aggregate" and spec.deployment.trust != "central"
    sizes: dict[int, int] = {}
    bad = []
    for c in law_calls:
        # shares are drawn per user (the last axis is the batch's users); a total or
        # central noise per arm: its batch size is the schedule's that plans this law
        sizes_ok = [c.shape[-1]] if per_user and c.shape else schedule
        match = next((n for n in sizes_ok if n in schedule and wanted(n) == c.law), None)
        if match is None:
            n = sizes_ok[0] if per_user and sizes_ok else None
            want = wanted(n) if n in schedule else "a law of the schedule's plans"
            bad.append(f"call {c.index}: {c.law!r} of shape {c.shape}, where the plan"
                       + (f" for n = {n} has {want!r}" if n is not None else
                          f" has {want}"))
            continue
        sizes[match] = sizes.get(match, 0) + 1
    return sizes, bad


def _check_run_spec(spec) -> None:
    """A run ``trace_run`` covers: a deployment of paper 000, users in one batch."""
    if spec.deployment is None:
        raise ParameterError(f"spec must be a policy of paper 000's deployments, got "
                             f"{spec.label}")
    if spec.returning:
        raise ParameterError("spec: a policy with returning users composes a user's "
                             "batches; trace_run covers users who join one batch (check "
                             "returning users with privtools.planning.plan_certificate)")


def trace_run(spec, env, horizon: int, rng=None, *, planner=None) -> RunTrace:
    """Trace a batch-successive-elimination run (module doc): ``spec`` a policy of
    :func:`privtools.bandits.se.policy` with a distributed or central deployment, ``env``
    its environment. ``planner(n)``: the plan the batches of n users are checked against
    (default: the run's own, ``batch_plan(spec, n, horizon)``)."""
    _check_run_spec(spec)
    session = Session("record")
    gen = TracingGenerator(root_seed(rng) % 2**62, session)
    simulate(spec, env, horizon, rng=gen)
    law_calls = [c for c in session.calls if c.family == "law"]
    if planner is None:
        def planner(n):
            return batch_plan(spec, n, horizon)
    sizes, bad = _match_laws(spec, law_calls, _schedule(spec, horizon), planner)
    checks = []
    if not law_calls:
        checks.append(("draws", INCONCLUSIVE, "the run drew no privtools law"))
    elif bad:
        checks.append(("draws", FAILS, bad[0]))
    else:
        checks.append(("draws", HOLDS, f"{len(law_calls)} noise call(s) over batch sizes "
                       f"{sorted(sizes)}, each the law of its batch's plan"))
    if session.untraced:
        checks.append(("traceable", INCONCLUSIVE, session.untraced[0]))
    batches = {}
    if spec.mode != "aggregate":
        for n in sorted(sizes):
            batches[n] = trace_plan(planner(n), rng=rng)
        if batches:
            worst = combine(pt.verdict for pt in batches.values())
            checks.append(("per-user loss", worst, "each user is in one batch of one arm: "
                           "its loss is its batch's view, certified for every batch size "
                           f"{sorted(batches)}"))
    return RunTrace(tuple(checks), batches, combine(s for _, s, _ in checks))
