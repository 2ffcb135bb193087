"""Deployment plans ("check before deploying") for paper 000's protocol.

:func:`plan` maps (privacy, trust, secure) to the theorem and returns a :class:`Plan` — g, τ,
m, bits, the noise laws and the planned failure probability. With ``tail="exact"`` τ is the
certified smallest integer with P(|total noise| > τ) <= p (:func:`privtools.exact.exact_tau`):
Fact 2 in closed form for a Lap_Z total, and for Skellam and the n-fold sums of discrete
Gaussians or of the users' Lap_Z an exact inversion of the characteristic function on Z_M
whose aliasing and truncation are bounded. :func:`with_parameters` puts the caller's own g,
τ, m into a plan; ``verification.plan_check.verify_plan`` checks any plan exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from privtools.certified.intervals import Interval, ends
from privtools.errors import ParameterError
from privtools.exact.tails import exact_tau
from privtools.limits import DELTA, EPSILON, HORIZON, TAU, M, N, P
from privtools.noise import IntegerDistribution, NoiseSum
from privtools.validation import check_int, check_nonneg, check_positive_fraction
from privtools.validation import show_number as show

from .deployments import DEPLOYMENTS, Deployment, by_key, by_theorem
from .kinds import APPROXIMATE_PLANS, PRIVACY, PrivacyKind, privacy_kind
from .participation import calibrate, pool_participations
from .theorems import theorem_params, view_params

__all__ = ["Plan", "plan", "with_parameters", "SUPPORTED", "PRIVACY", "TRUST", "SECURE",
           "TAIL_MODES"]

TRUST = ("distributed", "central", "local")
SECURE = ("secagg", "shuffle")
TAIL_MODES = ("bound", "exact")
# (privacy, trust, secure) -> theorem of paper 000 (read from privtools.planning.deployments)
SUPPORTED = {d.key: d.theorem for d in DEPLOYMENTS}


def _choice(name: str, value, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ParameterError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _bits(m: int | None) -> int | None:
    return None if m is None else (m - 1).bit_length()


@dataclass(frozen=True, kw_only=True)
class Plan:
    """Parameters of one batch of the private-bandit protocol of paper 000, ready to deploy.

    A value (describe, then interpret): the protocol reads ``n, g, tau, m, share,
    central_noise, trust, secure``; :func:`verification.plan_check.verify_plan` checks it.

    Fields: ``theorem`` of paper 000 that the plan instantiates; ``epsilon`` the end-to-end
    target (pure ε, RDP ε of Theorem 2's ε̂(α), or CDP ε of Theorem 4 — the paper's
    parameters, not (ε, δ)-DP; with ``delta`` the (ε, δ) target that ``certified_epsilon``,
    the PLD accountant's certified ε(δ), meets: see :func:`~privtools.planning.guarantee`
    for what a plan certifies, in words); ``p`` the failure
    probability per batch (default 1/horizon); ``g`` the precision (sensitivity of Σx̂),
    ``tau`` the analyzer's underflow threshold, ``m = ng + 2τ + 1`` the modulus (a plan built
    with :func:`with_parameters` may hold other values); ``share`` each user's noise (None
    under central trust), ``central_noise`` the analyzer's noise (central trust only);
    ``total_noise`` the law added to Σx̂ — exact where closed (Lap_Z, Sk, the
    :class:`NoiseSum` of the local model), the nominal N_Z(0, g²/ε²) for cdp (see
    ``total_noise_note``); ``failure_probability`` the planned bound on
    P(|output − Σx̂/g| > τ/g): ``p_noise`` for the noise (p; p' = p/2 for shuffle) plus
    ``q_hat`` (shuffle: the relaxed SecAgg's failure probability, a property of the shuffle
    protocol that is assumed); ``tail`` "bound" (the theorem's τ) or "exact" (the smallest τ
    with P(|total noise| > τ) <= p_noise, certified — ``tail_interval`` encloses that
    probability at τ, ``tail_interval_below`` at τ − 1); ``tau_bound`` the theorem's τ
    (None for the local model without c). ``epsilon_view`` is the ε the noise is calibrated
    to (ε' = ε/2 for shuffle, whose relaxed SecAgg costs ``epsilon_secure`` = ε̂ = ε/4 twice).
    """

    privacy: str
    trust: str
    secure: str
    theorem: int
    epsilon: Fraction
    n: int
    horizon: int
    p: Fraction
    s: Fraction | None
    c: Fraction | None
    g: int
    tau: int
    m: int
    share: IntegerDistribution | None
    central_noise: IntegerDistribution | None
    total_noise: IntegerDistribution | NoiseSum
    total_noise_note: str
    failure_probability: Fraction
    p_noise: Fraction
    q_hat: Fraction | None
    epsilon_view: Fraction
    epsilon_secure: Fraction | None
    tail: str
    tail_method: str
    tau_bound: int | None
    tail_interval: Interval | None = None
    tail_interval_below: Interval | None = None
    user_parameters: tuple[str, ...] = ()
    delta: Fraction | None = None
    participations: tuple[tuple[int, int], ...] | None = None
    pool: int | None = None
    participation_failure: Fraction | None = None
    certified_epsilon: Interval | None = None
    sampling_rate: Fraction | None = None

    # ------------------------------------------------------------------ derived
    @property
    def bits(self) -> int:
        """Bits per user message: ⌈log₂ m⌉."""
        return (self.m - 1).bit_length()

    @property
    def m_bound(self) -> int | None:
        """The modulus with the theorem's τ: ng + 2τ_bound + 1."""
        return None if self.tau_bound is None else self.n * self.g + 2 * self.tau_bound + 1

    @property
    def bits_bound(self) -> int | None:
        """Bits per user message with the theorem's τ (⌈log2 m_bound⌉), or None."""
        return _bits(self.m_bound)

    @property
    def bits_saved(self) -> int | None:
        """Bits per user message saved against the theorem's τ."""
        return None if self.bits_bound is None else self.bits_bound - self.bits

    @property
    def deployment(self) -> Deployment:
        """The deployment of paper 000 the plan instantiates (its theorem's facts)."""
        return by_theorem(self.theorem)

    @property
    def kind(self) -> PrivacyKind:
        """The plan's privacy kind (:mod:`privtools.planning.kinds`): its facts, once."""
        return privacy_kind(self.privacy)

    @property
    def exact_total_noise(self) -> IntegerDistribution | NoiseSum:
        """The true law of the total noise (the n-fold sum for discrete-Gaussian shares)."""
        if self.deployment.total == "nominal":
            return NoiseSum(self.share, self.n)
        return self.total_noise

    @property
    def mechanism_noise(self) -> IntegerDistribution | NoiseSum:
        """The noise in the view whose privacy is planned: the total noise, except in the
        local model, where each user's message carries its own Lap_Z(g/ε)."""
        return self.share if self.deployment.per_user_view else self.exact_total_noise

    # ------------------------------------------------------------------ display
    def to_dict(self) -> dict:
        """The plan as JSON-ready values (intervals as ``[lo, hi]`` strings)."""
        def iv(x):
            return None if x is None else [mpmath.nstr(e, 12) for e in ends(x)]

        return {
            "privacy": self.privacy, "trust": self.trust, "secure": self.secure,
            "theorem": self.theorem, "epsilon": str(self.epsilon), "n": self.n,
            "horizon": self.horizon, "p": str(self.p),
            "s": None if self.s is None else str(self.s),
            "c": None if self.c is None else str(self.c),
            "g": self.g, "tau": self.tau, "m": self.m, "bits": self.bits,
            "share": None if self.share is None else str(self.share),
            "central_noise": None if self.central_noise is None else str(self.central_noise),
            "total_noise": str(self.total_noise), "total_noise_note": self.total_noise_note,
            "failure_probability": str(self.failure_probability),
            "p_noise": str(self.p_noise),
            "q_hat": None if self.q_hat is None else str(self.q_hat),
            "epsilon_view": str(self.epsilon_view),
            "epsilon_secure": None if self.epsilon_secure is None else str(self.epsilon_secure),
            "tail": self.tail, "tail_method": self.tail_method,
            "tau_bound": self.tau_bound, "m_bound": self.m_bound, "bits_bound": self.bits_bound,
            "bits_saved": self.bits_saved,
            "tail_interval": iv(self.tail_interval),
            "tail_interval_below": iv(self.tail_interval_below),
            "user_parameters": list(self.user_parameters),
            "delta": None if self.delta is None else str(self.delta),
            "participations": None if self.participations is None else
            [list(x) for x in self.participations],
            "pool": self.pool,
            "participation_failure": None if self.participation_failure is None else
            str(self.participation_failure),
            "certified_epsilon": iv(self.certified_epsilon),
            "sampling_rate": None if self.sampling_rate is None else str(self.sampling_rate),
        }

    def __str__(self) -> str:
        lines = [
            f"Plan: Theorem {self.theorem} (000) — {self.privacy}, {self.trust} trust, "
            f"{self.secure}; ε = {self.epsilon}, n = {self.n}, T = {self.horizon}, p = {self.p}"
            + (f", s = {self.s}" if self.s is not None else "")
            + (f", c = {self.c}" if self.c is not None else ""),
            f"  g = {self.g}, τ = {self.tau}, m = {self.m} ({self.bits} bits per user)",
        ]
        if self.tau_bound is not None and self.tail == "exact":
            lines.append(f"  theorem's bound: τ = {self.tau_bound}, m = {self.m_bound} "
                         f"({self.bits_bound} bits) — saves {self.tau_bound - self.tau} in τ, "
                         f"{self.bits_saved} bit(s)")
        lines += [
            f"  share: {self.share}; central noise: {self.central_noise}",
            f"  total noise: {self.total_noise} ({self.total_noise_note})",
            f"  failure probability <= {self.failure_probability}; τ: {self.tail_method}",
        ]
        if self.certified_epsilon is not None:
            lo, hi = ends(self.certified_epsilon)
            who = (f"a member of a pool of {self.pool}" if self.pool else "a user")
            prof = ", ".join(f"{c} batch(es) x{j}" if j > 1 else f"{c} batch(es)"
                             for j, c in self.participations)
            if self.sampling_rate is not None:
                who = f"a client sampled w.p. q = {self.sampling_rate} in each round"
                prof = f"{self.participations[0][1]} round(s)"
            once = (self.pool is None and self.participations == ((1, 1),)
                    and self.sampling_rate is None)
            lines.append((f"  (ε, δ) = ({self.epsilon}, {float(self.delta):.3g}): noise "
                          "calibrated to the theorem's ε = "
                          if once else f"  returning users: {who} in {prof}; per batch ε = ")
                         + f"{self.epsilon_view}; certified "
                         f"{'' if once else 'per-user '}ε({float(self.delta):.3g}"
                         f"{'' if not self.participation_failure else ' − pool failure'}) in "
                         f"[{mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}]")
        if self.user_parameters:
            lines.append(f"  user-chosen: {', '.join(self.user_parameters)}")
        return "\n".join(lines)


def _check_modulus(m: int, n: int, g: int, kind: PrivacyKind) -> int:
    """``m`` within :data:`privtools.limits.M` (bits per user within
    :data:`~privtools.limits.BITS`), else ParameterError giving the inputs it comes from."""
    if m > M.high:
        inputs, smaller = (("epsilon, n and s", "epsilon, n or s") if kind.scaled
                           else ("epsilon and n", "epsilon or n"))
        raise ParameterError(
            f"the plan's modulus m = ng + 2τ + 1 >= {show(m)} ({(m - 1).bit_length()} bits per "
            f"user, with the precision g = {show(g)} and n = {show(n)} from {inputs}) is above "
            f"the limit {M.shown_high}: {M.reason}; use a smaller {smaller}")
    return m


def _check_horizon(horizon) -> int:
    if isinstance(horizon, float) and math.isnan(horizon):
        raise ParameterError("horizon must be an integer >= 1, got nan")
    return check_int("horizon", horizon, minimum=1)


def plan(privacy: str = "pure-dp", epsilon=None, n: int | None = None,
         horizon: int | None = None, s=1, trust: str = "distributed",
         secure: str = "secagg", tail: str = "bound", p=None, c=None,
         dps: int = 20, delta=None, participations: int = 1, pool: int | None = None,
         sampling: str | None = None, q=None, steps: int | None = None) -> Plan:
    """Plan one batch of ``n`` users for a target ``epsilon`` over ``horizon`` rounds T.

    Picks the theorem of paper 000 from (privacy, trust, secure) — see ``SUPPORTED``:
    pure-dp+distributed+secagg → Theorem 1; pure-dp+distributed+shuffle → Theorem 3
    (ε̂ = ε/4, ε' = ε/2, q̂ = p' = p/2, i.e. 1/(2T) with the default p); rdp → Theorem 2
    (Skellam, scale ``s`` >= 1); cdp → Theorem 4 (discrete Gaussian, ``s`` >= 1);
    pure-dp+central → Theorem 5; pure-dp+local → Theorem 6. ``p`` defaults to 1/horizon
    (the paper's p = 1/T).

    ``tail="bound"``: the theorem's τ. ``tail="exact"``: the smallest τ with
    P(|total noise| > τ) <= p (p' for shuffle), certified (:func:`exact_tau`): Fact 2 in closed
    form for Lap_Z totals, characteristic-function inversion for Skellam and for the n-fold
    sums of discrete Gaussians (Theorem 4) and of the users' Lap_Z (Theorem 6). Same g, same
    privacy; smaller τ and m. Theorem 6 needs ``c`` (the unspecified constant of Lemma 5)
    for ``tail="bound"`` only.

    Client sampling (``sampling="poisson"``, ``q``, ``steps``): the deployment runs
    ``steps`` rounds and each round takes each client independently with probability ``q``
    (add/remove; needs ``delta`` > 0). The noise of a round is calibrated so that the
    ``steps``-fold composition of the Poisson-sampled view is certified (ε, δ)-DP per client
    (:class:`~privtools.accounting.PoissonSampledEvent` in the PLD accountant). ``n`` is the
    number of shares each round's aggregate holds: the plan assumes every round carries that
    noise however many clients its sample has (e.g. the round is held until n shares arrive).

    Limits (:mod:`privtools.limits`, the same for every privacy kind and for the command
    line): 0 < ε <= 1000, 1 <= n <= 10**12, T <= 10**18, p and δ >= 2**-128, and at most 64
    bits per user (m <= 2**64, checked on m >= ng + 1 before the exact tail). Beyond them a
    ParameterError names the parameter, before any work.
    """
    kind = privacy_kind(privacy)
    trust = _choice("trust", trust, TRUST)
    secure = _choice("secure", secure, SECURE)
    tail = _choice("tail", tail, TAIL_MODES)
    if epsilon is None:
        raise ParameterError("epsilon is required")
    eps = EPSILON.check(check_positive_fraction("epsilon", epsilon))
    if n is None:
        raise ParameterError("n is required")
    n = N.check(check_int("n", n, minimum=1))
    if horizon is None:
        raise ParameterError("horizon is required")
    horizon = HORIZON.check(_check_horizon(horizon))
    sf = check_positive_fraction("s", s)
    if sf < 1:
        raise ParameterError(f"s must be >= 1, got {s!r}")
    if p is None:
        if horizon < 2:
            raise ParameterError("horizon must be >= 2 for the default p = 1/horizon "
                                 "(p must be < 1); or pass p")
        pf = Fraction(1, horizon)
    else:
        pf = P.check(check_positive_fraction("p", p, upper=1))
    cf = None if c is None else check_positive_fraction("c", c)
    dps = check_int("dps", dps, minimum=5)
    k = check_int("participations", participations, minimum=1)
    dq = None
    if delta is not None:
        dq = check_nonneg("delta", delta)
        if not dq < 1:
            raise ParameterError(f"delta must be in [0, 1), got {delta!r}")
        if dq != 0:  # (0: pure ε-DP)
            DELTA.check(dq)
    pool_u = None if pool is None else check_int("pool", pool, minimum=1)
    rate = None
    if sampling is not None:
        if sampling != "poisson":
            raise ParameterError(f"sampling must be 'poisson' (or None), got {sampling!r}")
        if q is None or steps is None:
            raise ParameterError("sampling='poisson' needs q (the sampling rate) and steps "
                                 "(the number of rounds)")
        rate = check_positive_fraction("q", q, upper=1)
        steps = check_int("steps", steps, minimum=1)
        if k != 1 or pool_u is not None:
            raise ParameterError("sampling replaces participations / pool: a sampled client "
                                 "may join each of the steps rounds")
        if dq is None or dq == 0:
            raise ParameterError("sampling needs delta > 0 (amplification by sampling is an "
                                 "(ε, δ) statement)")
        k = steps
    elif q is not None or steps is not None:
        raise ParameterError("q and steps apply with sampling='poisson' only")
    dep = by_key(privacy, trust, secure)
    theorem = dep.theorem
    if not kind.scaled and sf != 1:
        raise ParameterError(f"s applies to {APPROXIMATE_PLANS} only, got s={s!r} for "
                             f"{privacy}")
    if cf is not None and not dep.needs_c:
        raise ParameterError("c (Lemma 5's constant) applies to trust='local' only")
    if dep.needs_c and cf is None and tail == "bound":
        raise ParameterError("c (the constant of Lemma 5, unspecified in paper 000) is "
                             "required for trust='local' with tail='bound'; tail='exact' "
                             "needs no c")

    returning = dq is not None or k > 1 or pool_u is not None or rate is not None
    if returning:
        if not dep.loss_distribution:
            raise ParameterError("delta / participations / pool are certified for secagg, "
                                 "central and local plans; shuffle's relaxed SecAgg has no "
                                 "loss distribution")
        if dq is None:
            if kind.needs_delta:
                raise ParameterError(f"delta is required for {APPROXIMATE_PLANS} with "
                                     "participations > 1")
            dq = Fraction(0)
        if pool_u is not None and dq == 0:
            raise ParameterError("pool needs delta > 0 (the participation profile fails with "
                                 "a small probability that delta must cover)")

    p_noise = pf * dep.noise_failure
    q_hat = None if dep.secure_fraction is None else pf - p_noise
    eps_secure = None if dep.secure_fraction is None else eps * dep.secure_fraction
    profile = cert = failure = None
    eps_target = eps
    if returning:
        profile, d_left = ((1, k),), dq
        if pool_u is not None:
            profile, failure = pool_participations(pool_u, n, horizon, dq / 10)
            d_left = dq - failure
        eps, cert = calibrate(theorem, eps_target, d_left, profile, n, p_noise, s=sf, rate=rate)
    if dep.needs_c and cf is None:
        prm = view_params(theorem, eps, n, p_noise)
        tau_bound = None
    else:
        prm = theorem_params(theorem, eps, n, p_noise, s=sf, c=cf)
        tau_bound = prm.tau
    g = prm.g
    _check_modulus(n * g + 1, n, g, kind)  # m >= ng + 1 whatever τ: before the exact tail
    eps_view = eps * dep.view_fraction

    share, central = prm.share, None
    if dep.site == "analyzer":
        central = prm.noise
    total: IntegerDistribution | NoiseSum = (NoiseSum(prm.noise, n) if dep.total == "sum"
                                             else prm.noise)
    note = dep.total_note

    tail_iv = tail_below = None
    if tail == "exact":
        law = NoiseSum(prm.share, n) if dep.total == "nominal" else total
        res = exact_tau(law, p_noise, dps=dps)
        tau, method = res.tau, res.method
        tail_iv, tail_below = res.tail, res.tail_below
    else:
        tau, method = tau_bound, dep.tau_text
    m = _check_modulus(n * g + 2 * tau + 1, n, g, kind)
    return Plan(privacy=privacy, trust=trust, secure=secure, theorem=theorem, epsilon=eps_target,
                n=n, horizon=horizon, p=pf, s=sf if kind.scaled else None, c=cf, g=g, tau=tau, m=m,
                share=share, central_noise=central, total_noise=total, total_noise_note=note,
                failure_probability=p_noise + (q_hat or 0), p_noise=p_noise, q_hat=q_hat,
                epsilon_view=eps_view, epsilon_secure=eps_secure, tail=tail, tail_method=method,
                tau_bound=tau_bound, tail_interval=tail_iv, tail_interval_below=tail_below,
                user_parameters=(), delta=dq if returning else None, participations=profile,
                pool=pool_u, participation_failure=failure,
                certified_epsilon=None if cert is None else cert.interval, sampling_rate=rate)


def with_parameters(base: Plan, *, g: int | None = None, tau: int | None = None,
                    m: int | None = None) -> Plan:
    """``base`` with the caller's own ``g``, ``tau`` and/or ``m`` ("check your own
    parameters"). The noise laws stay those of ``base`` (calibrated to ε at the planned g):
    a g above the planned one exceeds the privacy target. ``m`` defaults to ng + 2τ + 1
    with the new values. The result records which values were supplied."""
    if not isinstance(base, Plan):
        raise ParameterError(f"base must be a Plan, got {type(base).__name__}")
    changed = []
    new_g, new_tau = base.g, base.tau
    if g is not None:
        new_g = check_int("g", g, minimum=1)
        if base.n * new_g + 1 > M.high:  # Σx̂ in [0, ng] must fit Z_m
            raise ParameterError(f"g = {show(new_g)} needs a modulus m >= ng + 1 = "
                                 f"{show(base.n * new_g + 1)} (n = {base.n}), above the limit "
                                 f"{M.shown_high}: {M.reason}")
        changed.append("g")
    if tau is not None:
        new_tau = TAU.check(check_int("tau", tau, minimum=0))  # a point of the noise
        changed.append("tau")
    new_m = base.n * new_g + 2 * new_tau + 1
    if m is not None:
        new_m = M.check(check_int("m", m, minimum=2))
        changed.append("m")
    elif new_m > M.high:
        who = "tau" if g is None else "g"
        raise ParameterError(f"{who} = {show(new_g if who == 'g' else new_tau)} gives the "
                             f"modulus m = ng + 2τ + 1 = {show(new_m)}, above the limit "
                             f"{M.shown_high}: {M.reason}")
    if not changed:
        return base
    import dataclasses

    method = base.tail_method if tau is None else "user-chosen τ"
    return dataclasses.replace(
        base, g=new_g, tau=new_tau, m=new_m, tail_method=method,
        tail_interval=base.tail_interval if tau is None else None,
        tail_interval_below=base.tail_interval_below if tau is None else None,
        user_parameters=tuple(changed))
