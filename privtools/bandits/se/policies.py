"""Batch successive-elimination policies as immutable descriptions (000 Alg. 1, §7, App. J).

A :class:`PolicySpec` says *which* algorithm runs — the trust model and noise of the
protocol, the batch schedule, the confidence widths, the secure computation, and whether
every user is simulated — and :func:`privtools.bandits.se.simulation.simulate` interprets it.

    name             protocol per batch (plan of n = l(b) users, p = 1/T)
    "dist-dp-se"     Theorem 1 (000): Pólya shares, total Lap_Z(g/ε), SecAgg — pure DP
                     (Theorem 3 with secure="shuffle")
    "dist-rdp-se"    Theorem 2: Skellam shares, total Sk(0, g²/ε²) — RDP (scale s)
    "dist-cdp-se"    Theorem 4: discrete-Gaussian shares — concentrated DP (scale s)
    "central-dp-se"  Theorem 5: central Lap_Z(g/ε) added by the analyzer (alias "cdp-se",
                     the legend of paper 000's figures)
    "ldp-se"         Theorem 6: each user adds Lap_Z(g/ε) (τ from the exact tail: c
                     unspecified)
    "se"             non-private batch SE: exact batch sums, no encoding
    "dp-se"          DP-SE of Sajed & Sheffet 2019 (central, continuous Laplace(1/ε) on each
                     batch sum; its own schedule and width) — a float-noise baseline

The first five are paper 000's deployments: every fact about them (the plan's key, the
secure computations, whether one draw per batch is exact, the paper's widths) is read from
:data:`privtools.planning.DEPLOYMENTS`; the last two are :data:`BASELINES`.

Returning users (App. H of 000; ``privtools.planning.participation``): ``participations=k``
says each user joins up to k batches of a run, ``pool=U`` that each round's user is drawn
uniformly with replacement from U people (the simulator draws the ids). Either makes
``epsilon`` (with ``delta``) the certified per-user (ε, δ) target over the whole run, and
every batch's plan is ``plan(..., delta=, participations=k)`` or ``plan(..., pool=U)``,
whose noise is calibrated by the PLD accountant to a per-batch ``plan.epsilon_view``.
Giving ``delta`` alone (k = 1) calibrates a single view to (ε, δ)-DP. Certified for
dist-dp-se, dist-rdp-se, dist-cdp-se (Theorems 1, 2, 4), central-dp-se (5) and ldp-se (6) with
the ideal or masked SecAgg; refused for the shuffle (Theorem 3: its relaxed SecAgg has no
loss distribution), for dp-se (no discrete plan) and for se (nothing to account).

``mode="aggregate"`` draws each batch's total noise once instead of one share per user:
exact in law for dist-dp-se (Fact 1: n Pólya-difference shares sum to Lap_Z(g/ε)),
dist-rdp-se (Skellam is closed under sums), central-dp-se and dp-se (one central draw anyway) and
se (no noise). It is refused for dist-cdp-se (a sum of discrete Gaussians is not a discrete
Gaussian, Lemma 4) and ldp-se (no closed form for the sum of n Lap_Z).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from privtools.errors import ParameterError
from privtools.planning import DEPLOYMENTS, Deployment, by_policy, policy_name
from privtools.validation import check_int, check_positive_fraction, to_fraction

__all__ = ["PolicySpec", "policy", "POLICIES", "PRIVATE", "SCALED", "AGGREGATE_OK",
           "SECURE_OPTIONS", "WIDTHS", "MODES", "Baseline", "BASELINES"]


@dataclass(frozen=True)
class Baseline:
    """A policy that is not one of paper 000's deployments: ``private`` whether it adds
    continuous Laplace(1/ε) to each batch sum (else it releases exact sums), ``own_schedule``
    whether it has the batch sizes and width of DP-SE (Sajed & Sheffet 2019) instead of
    l(b) = base**b and eq. (2)."""

    name: str
    label: str
    private: bool
    own_schedule: bool


BASELINES = (Baseline("se", "SE", private=False, own_schedule=False),
             Baseline("dp-se", "DP-SE", private=True, own_schedule=True))
_BASELINE = {b.name: b for b in BASELINES}
_DEPLOYED = tuple(dict.fromkeys(d.policy for d in DEPLOYMENTS))   # paper 000's, in order

POLICIES = _DEPLOYED + tuple(_BASELINE)
PRIVATE = tuple(n for n in POLICIES if n not in _BASELINE or _BASELINE[n].private)
SCALED = tuple(n for n in _DEPLOYED if by_policy(n).scaled)  # the scale s (Theorems 2, 4)
AGGREGATE_OK = tuple(n for n in _DEPLOYED if by_policy(n).aggregate) + tuple(_BASELINE)
SECURE_OPTIONS = ("ideal", "masked", "shuffle")
WIDTHS = ("paper", "exact")
MODES = ("faithful", "aggregate")


def _secure_ok(name: str) -> tuple[str, ...]:
    """Secure computations a policy may use besides the ideal modular sum."""
    d = by_policy(name)
    if d is None:
        return ()
    return (("masked",) if d.masked else ()) + (
        ("shuffle",) if by_policy(name, "shuffle") is not None else ())


def _choice(name: str, value, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ParameterError(f"{name} must be one of {allowed}, got {value!r}")
    return value


@dataclass(frozen=True)
class PolicySpec:
    """One batch-SE policy (000 Alg. 1), checked on construction.

    ``epsilon``: privacy level (> 0; required for every policy but "se", where it must be
    None). Kept as given; the plans read it as an exact rational (a float means its exact
    binary value, as everywhere in privtools). ``s``: Skellam / discrete-Gaussian scale
    (>= 1; only dist-rdp-se and dist-cdp-se accept s != 1). ``base``: batch sizes
    l(b) = base**b (>= 2; 000 Alg. 1 uses 2, the experiments 4 — Remark 4 allows any);
    ignored by dp-se, which has its own schedule. ``widths``: "paper" (eq. (2) with the
    (σ, h) of :mod:`privtools.bandits.se.widths`) or "exact" (certified quantiles of the
    plan's noise); dp-se has only its own width. ``p``: confidence parameter of the widths,
    in (0, 1). ``secure``: "ideal" (modular sum), "masked" (Bonawitz et al. SecAgg, small
    runs only) or "shuffle" (split-and-mix; dist-dp-se only, planned by Theorem 3).
    ``mode``: "faithful" or "aggregate" (module docstring).

    Returning users (module docstring; App. H of 000): ``participations`` (int >= 1, the
    most batches one user joins), ``pool`` (int >= 1 people, each round's user drawn
    uniformly with replacement; exclusive with ``participations`` > 1) and ``delta`` (in
    [0, 1); required for rdp/cdp policies and for ``pool``, where it must be > 0). When any
    is set, ``epsilon`` is the certified per-user ε over the run, not the per-batch ε.

    Client sampling: ``sampling`` (a rate q in (0, 1]; needs ``delta`` > 0, exclusive with
    ``participations`` > 1 and ``pool``) — every batch takes each client independently
    with probability q, so each batch's plan is
    ``plan(..., sampling="poisson", q=, steps=)`` with ``steps`` the most batches a run of
    the horizon can release, and the run reports its certified per-client ε
    (``RunResult.certified_epsilon``, PLD accountant over the batches it released).
    """

    name: str
    epsilon: float | None = None
    s: float = 1
    base: int = 4
    widths: str = "paper"
    p: float = 0.1
    secure: str = "ideal"
    mode: str = "faithful"
    delta: float | None = None
    participations: int = 1
    pool: int | None = None
    sampling: float | None = None

    def __post_init__(self):
        object.__setattr__(self, "name", policy_name(self.name))
        _choice("name", self.name, POLICIES)
        self._check_epsilon()
        s = check_positive_fraction("s", self.s)
        if s < 1:
            raise ParameterError(f"s must be >= 1, got {self.s!r}")
        if s != 1 and self.name not in SCALED:
            raise ParameterError(f"s applies to {SCALED} only, got s={self.s!r} for "
                                 f"{self.name!r}")
        check_int("base", self.base, minimum=2)
        _choice("widths", self.widths, WIDTHS)
        if self.own_schedule and self.widths != "paper":
            raise ParameterError("dp-se has its own width (Sajed & Sheffet 2019): "
                                 "widths must be 'paper'")
        pf = to_fraction("p", self.p)
        if not 0 < pf < 1:
            raise ParameterError(f"p must lie in (0, 1), got {self.p!r}")
        _choice("secure", self.secure, SECURE_OPTIONS)
        if self.secure != "ideal" and self.secure not in _secure_ok(self.name):
            raise ParameterError(f"secure={self.secure!r} is not available for "
                                 f"{self.name!r} (allowed: ideal"
                                 + "".join(f", {x}" for x in _secure_ok(self.name)) + ")")
        _choice("mode", self.mode, MODES)
        self._check_returning()
        if self.mode == "aggregate":
            self._check_aggregate()

    def _check_epsilon(self) -> None:
        """``epsilon``: None for the non-private policy, a positive number otherwise."""
        if not self.private:
            if self.epsilon is not None:
                raise ParameterError("epsilon must be None for the non-private policy 'se'")
        else:
            if self.epsilon is None:
                raise ParameterError(f"epsilon is required for policy {self.name!r}")
            check_positive_fraction("epsilon", self.epsilon)

    def _check_aggregate(self) -> None:
        """``mode='aggregate'``: a policy whose noise sum has a closed form, ideal SecAgg."""
        if self.name not in AGGREGATE_OK:
            raise ParameterError(
                f"mode='aggregate' is refused for {self.name!r}: the sum of its users' "
                "noise has no closed form (discrete-Gaussian shares: Lemma 4; local "
                "Lap_Z: no closed form); use mode='faithful'")
        if self.secure != "ideal":
            raise ParameterError("mode='aggregate' runs the ideal modular sum only; "
                                 f"got secure={self.secure!r}")

    def _check_returning(self) -> None:
        k = check_int("participations", self.participations, minimum=1)
        if self.sampling is not None:
            self._check_sampling(k)
        if self.pool is not None:
            check_int("pool", self.pool, minimum=1, maximum=2**40)
            if k > 1:
                raise ParameterError("pool and participations are exclusive: pool=U derives "
                                     "each user's participations from the draw; got "
                                     f"participations={self.participations!r}")
        if self.delta is not None:
            d = to_fraction("delta", self.delta)
            if not 0 <= d < 1:
                raise ParameterError(f"delta must be in [0, 1), got {self.delta!r}")
        if self.returning:
            self._check_returning_plan(k)

    def _check_sampling(self, k: int) -> None:
        """``sampling``: a rate in (0, 1], alone (no participations, no pool), with delta > 0."""
        q = to_fraction("sampling", self.sampling)
        if not 0 < q <= 1:
            raise ParameterError(f"sampling must be a rate in (0, 1], got "
                                 f"{self.sampling!r}")
        if k > 1 or self.pool is not None:
            raise ParameterError("sampling is exclusive with participations > 1 and pool: "
                                 "a sampled client may join every batch")
        if self.delta is None or to_fraction("delta", self.delta) == 0:
            raise ParameterError("sampling needs delta > 0 (amplification by sampling is "
                                 "an (ε, δ) statement)")

    def _check_returning_plan(self, k: int) -> None:
        """Returning users: a deployed policy, SecAgg, and the delta its plans need."""
        what = ("pool" if self.pool is not None else
                "participations" if k > 1 else "delta")
        if self.deployment is None:
            raise ParameterError(
                f"{what} is refused for {self.name!r}: returning users are certified through "
                f"the discrete plans of privtools.planning ({', '.join(_DEPLOYED)})"
                + (f" and {self.name} releases nothing private" if not self.private else ""))
        if self.secure == "shuffle":
            raise ParameterError(f"{what} is refused with secure='shuffle': Theorem 3's "
                                 "relaxed SecAgg has no privacy-loss distribution")
        if self.delta is None and (self.name in SCALED or self.pool is not None):
            raise ParameterError(
                "delta is required " + ("with pool (the participation profile fails with a "
                                        "small probability that delta covers)"
                                        if self.pool is not None else
                                        f"for {self.name!r} with participations > 1 (its "
                                        "views have no finite pure ε)"))
        if self.delta is not None and to_fraction("delta", self.delta) == 0 and (
                self.name in SCALED or self.pool is not None):
            raise ParameterError("delta must be > 0 for " + (
                "pool" if self.pool is not None else f"{self.name!r} (no finite pure ε)"))

    # ------------------------------------------------------------------ derived
    @property
    def returning(self) -> bool:
        """True when the plans are calibrated per user over the run (``delta``,
        ``participations`` > 1 or ``pool`` set)."""
        return (self.delta is not None or self.participations > 1 or self.pool is not None
                or self.sampling is not None)

    @property
    def deployment(self) -> Deployment | None:
        """The deployment of paper 000 the policy runs (with its ``secure``), or None for a
        ``BASELINES`` policy."""
        return by_policy(self.name, self.secure)

    @property
    def own_schedule(self) -> bool:
        """Whether the policy has DP-SE's own batch sizes and width (a baseline's field)."""
        return self.name in _BASELINE and _BASELINE[self.name].own_schedule

    @property
    def private(self) -> bool:
        """Whether the policy adds noise (every policy except the non-private ``se``)."""
        return self.name not in _BASELINE or _BASELINE[self.name].private

    @property
    def epsilon_exact(self) -> Fraction | None:
        """ε as an exact rational (None for "se")."""
        return None if self.epsilon is None else check_positive_fraction("epsilon",
                                                                         self.epsilon)

    @property
    def s_exact(self) -> Fraction:
        """The scale ``s`` as an exact Fraction."""
        return check_positive_fraction("s", self.s)

    @property
    def label(self) -> str:
        """Legend text, e.g. "Dist-RDP-SE (s=10)"; non-default widths, secure computation
        and mode are appended in brackets."""
        out = (_BASELINE[self.name].label if self.name in _BASELINE
               else by_policy(self.name).label)
        if self.name in SCALED:
            out += f" (s={_num(self.s)})"
        extras = [x for x, default in ((self.widths, "paper"), (self.secure, "ideal"),
                                       (self.mode, "faithful")) if x != default]
        if self.participations > 1:
            extras.append(f"k={self.participations}")
        if self.pool is not None:
            extras.append(f"pool={self.pool}")
        if self.delta is not None:
            extras.append(f"δ={float(to_fraction('delta', self.delta)):g}")
        if self.sampling is not None:
            extras.append(f"q={_num(self.sampling)}")
        if extras:
            out += " [" + ", ".join(extras) + "]"
        return out

    def plan_kwargs(self) -> dict | None:
        """Keyword arguments of :func:`privtools.planning.plan` for this policy's batches
        (None for "se" and "dp-se", which use no discrete protocol)."""
        d = self.deployment
        if d is None:
            return None
        secure = d.secure
        kw = dict(privacy=d.privacy, trust=d.trust)
        if d.scaled:
            kw["s"] = self.s_exact
        if d.needs_c:
            kw["tail"] = "exact"      # Lemma 5's c is unspecified: the certified tail
        kw["secure"] = secure
        if self.returning:
            kw["delta"] = self.delta
            kw["participations"] = self.participations
            if self.pool is not None:
                kw["pool"] = self.pool
            if self.sampling is not None:
                kw.update(sampling="poisson", q=to_fraction("sampling", self.sampling))
        return kw


def _num(x) -> str:
    f = to_fraction("x", x)
    return str(f.numerator) if f.denominator == 1 else f"{float(f):g}"


def policy(name: str, **kw) -> PolicySpec:
    """A checked :class:`PolicySpec`: ``policy("dist-rdp-se", epsilon=0.5, s=10)``;
    returning users: ``policy("dist-rdp-se", epsilon=1, s=10, delta=1e-6,
    participations=4)`` or ``policy("dist-dp-se", epsilon=1, delta=1e-6, pool=10**4)``;
    client sampling: ``policy("dist-cdp-se", epsilon=1, delta=1e-6, sampling=0.01)``.
    Unknown names, unknown keywords and bad values raise :class:`ParameterError`."""
    allowed = {"epsilon", "s", "base", "widths", "p", "secure", "mode", "delta",
               "participations", "pool", "sampling"}
    unknown = sorted(set(kw) - allowed)
    if unknown:
        raise ParameterError(f"unknown policy parameter(s) {unknown}; allowed: "
                             f"{sorted(allowed)}")
    return PolicySpec(name, **kw)
