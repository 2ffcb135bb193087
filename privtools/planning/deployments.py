"""Paper 000's six deployments, each declared once as a value.

A :class:`Deployment` holds every per-deployment fact the rest of privtools reads: the privacy
kind, trust model and secure computation that select it (the planner's key), the noise law
and where it is added, the τ bound with its text, the closed form of the total noise, the
failure terms of a relaxed SecAgg, the paper's (σ, h) of Assumption 1, and the names the
planner, the protocol views (``verification.mechanisms``) and the bandit policies use. The
planner, the guarantee statements, the returning-users accountant, the fewest-bits search,
the bandit policies and widths, and the judge's checks read fields; none switches on a
theorem number or a policy name. A seventh deployment is one more entry of
:data:`DEPLOYMENTS` (and its tests).

======  ============  ==============  ======================  ===================================
 Thm.   view name     policy          selected by             noise
======  ============  ==============  ======================  ===================================
 1      dist-dp       dist-dp-se      pure-dp, distributed,   Pólya-difference shares, total
                                      secagg                  Lap_Z(g/ε) (Fact 1)
 3      dist-shuffle  dist-dp-se      pure-dp, distributed,   shares summing to Lap_Z(g/ε'),
                      (shuffle)       shuffle                 ε' = ε/2, relaxed SecAgg (ε̂, q̂)
 2      dist-rdp      dist-rdp-se     rdp, distributed,       Skellam shares, total Sk(0, g²/ε²)
                                      secagg
 4      dist-cdp      dist-cdp-se     cdp, distributed,       discrete-Gaussian shares; the
                                      secagg                  total is their n-fold sum
 5      central       central-dp-se   pure-dp, central,       Lap_Z(g/ε) added by the analyzer
                                      secagg
 6      local         ldp-se          pure-dp, local,         each user adds Lap_Z(g/ε)
                                      secagg
======  ============  ==============  ======================  ===================================

Names. "cdp" is *concentrated* DP (Theorem 4: ½ε²-concentrated DP, the discrete Gaussian)
wherever privtools spells it: ``plan(privacy="cdp")``, the view ``dist-cdp`` and the
policy ``dist-cdp-se``. The central-model policy of Theorem 5 is ``central-dp-se``; the
spelling ``cdp-se`` of paper 000's figure legends is accepted as an alias
(:data:`POLICY_ALIASES`), and the legends themselves (``label``) keep the paper's text.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from fractions import Fraction

import mpmath

from privtools.accounting.maps import noise_event
from privtools.errors import ParameterError
from privtools.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    IntegerDistribution,
    NoiseSum,
    Skellam,
)

from .kinds import PrivacyKind, privacy_kind

__all__ = ["Deployment", "DEPLOYMENTS", "POLICY_ALIASES", "deployment", "by_theorem",
           "by_key", "by_view", "by_policy", "policy_name"]


# ----------------------------------------------------------------------------- the laws
def _lap_z(g: int, eps: Fraction) -> IntegerDistribution:
    return DiscreteLaplace(Fraction(g) / eps)


def _skellam(g: int, eps: Fraction) -> IntegerDistribution:
    return Skellam(Fraction(g * g) / (eps * eps))


def _gauss(g: int, eps: Fraction) -> IntegerDistribution:
    return DiscreteGaussian(sigma2=Fraction(g * g) / (eps * eps))


# ------------------------------------------ the view as a privacy-loss event (sensitivity g)
# The event of a law is its privacy map's (privtools.accounting.maps): one table read by the
# planner, the accountants and the trace.
def _event_lap_z(params, g: int):
    """Lap_Z(g/ε) on Σx̂ (Theorems 1, 5) or on one user's report (Theorem 6)."""
    return noise_event(params.noise, g)


def _event_skellam(params, g: int):
    """Sk(0, g²/ε²) on Σx̂ (Theorem 2)."""
    return noise_event(params.noise, g)


def _event_gauss_sum(params, g: int):
    """The n-fold sum of the discrete-Gaussian shares on Σx̂ (Theorem 4, Lemma 4)."""
    return noise_event(NoiseSum(params.share, params.n), g)


def _event_none(params, g: int):
    raise ParameterError(f"Theorem {params.theorem} (shuffle) has no loss distribution of its "
                         "view: its relaxed SecAgg is an (ε̂, q̂) assumption; returning users "
                         "are certified for secagg, central and local plans")


# ------------------------------------------------------------------ τ of each theorem (real)
# (g, ε of the view as mpf, n, log(2/p), Lemma 5's c as mpf or None) -> the real τ
def _tau_fact2(g, e, n, log2p, c):
    return g / e * log2p


def _tau_prop1(g, e, n, log2p, c):
    return 2 * g / e * mpmath.sqrt(log2p) + mpmath.sqrt(2) * log2p


def _tau_subgauss(g, e, n, log2p, c):
    return g / e * mpmath.sqrt(2 * log2p)


def _tau_lemma5(g, e, n, log2p, c):
    return c * g / e * mpmath.sqrt(2 * n * log2p)


# ------------------------- (σ, h) of Assumption 1 (000), derived in privtools.bandits.se.widths
def _sh_lap(e: float, s: float, n):
    return math.sqrt(2.0) / e, 1.0 / e


def _sh_skellam(e: float, s: float, n):
    return 2.0 / e + math.sqrt(2.0) / (s * e), 1.0 / (s * e)


def _sh_gauss(e: float, s: float, n):
    return math.sqrt(2.0) / e + math.sqrt(2.0) / (s * e), 0.0


def _sh_local(e: float, s: float, n):
    if n is None:
        raise ParameterError("n (the batch size) is required for the widths of 'ldp-se'")
    return 2.0 * math.sqrt(2.0 * n) / e + math.sqrt(2.0) / e, 2.0 * math.sqrt(2.0) / e


@dataclass(frozen=True, kw_only=True)
class Deployment:
    """One deployment of paper 000 (module docstring), as data.

    Selection: ``privacy``, ``trust``, ``secure`` (the planner's key); ``view`` the protocol
    view's name (``verification.mechanisms``, ``privtools audit --mechanism``); ``policy``
    the bandit policy that runs it (with ``secure="shuffle"`` for Theorem 3); ``label`` the
    legend of paper 000's figures.

    Noise: ``law(g, ε_view)`` the law calibrated at precision g; ``site`` where it is added —
    "shares" (split over the n users, each adds one share), "analyzer" (once, by a trusted
    server) or "user" (each user adds the whole law to their own message); ``scaled`` whether
    g = ⌈sε√n⌉ takes the scale s; ``view_fraction`` ε_view/ε (ε' = ε/2 for the shuffle);
    ``secure_fraction`` ε̂/ε of a relaxed SecAgg (None: exact SecAgg); ``noise_failure``
    p_noise/p (the shuffle leaves q̂ = p − p_noise to the relaxed SecAgg).

    Total noise: ``total`` is "closed" (the law is the exact total), "nominal" (the law is a
    nominal name; the true total is the n-fold sum of the shares, Lemma 4) or "sum" (each
    user's message carries the whole law; the total is the n-fold sum, no closed form);
    ``total_note`` says it in words. ``tau`` the theorem's real τ (see the ``_tau_*``
    functions) and ``tau_text`` its statement; ``needs_c`` whether the bound needs Lemma 5's
    constant c; ``loss_distribution`` whether the view has one (the shuffle's relaxed SecAgg
    is an assumption, not a law); ``masked`` whether the simulator's masked SecAgg runs it;
    ``sigma_h(ε, s, n)`` the (σ, h) of Assumption 1 in reward units; ``event(params, g)``
    the view as a privacy-loss event of sensitivity g (:mod:`privtools.accounting`);
    ``claim`` what a pure-DP plan states, with ``{eps}``, ``{eps_view}`` and ``{secure2}``
    (2ε̂) to fill in (None for the Rényi and concentrated deployments, whose ε is the
    theorem's parameter: :func:`privtools.planning.guarantee`).
    """

    theorem: int
    view: str
    policy: str
    label: str
    privacy: str
    trust: str
    secure: str
    law: Callable[[int, Fraction], IntegerDistribution] = field(repr=False)
    site: str
    scaled: bool
    total: str
    total_note: str
    tau: Callable = field(repr=False)
    tau_text: str
    sigma_h: Callable = field(repr=False)
    event: Callable = field(repr=False)
    claim: str | None = None
    view_fraction: Fraction = Fraction(1)
    secure_fraction: Fraction | None = None
    noise_failure: Fraction = Fraction(1)
    needs_c: bool = False
    loss_distribution: bool = True
    masked: bool = True

    @property
    def key(self) -> tuple[str, str, str]:
        """(privacy, trust, secure): what :func:`privtools.planning.plan` is asked."""
        return self.privacy, self.trust, self.secure

    @property
    def pure(self) -> bool:
        """Whether the deployment's claim is pure ε-DP (a finite ε with δ = 0)."""
        return self.kind.pure

    @property
    def kind(self) -> PrivacyKind:
        """The privacy kind of the deployment's claim (:mod:`privtools.planning.kinds`)."""
        return privacy_kind(self.privacy)

    @property
    def per_user_view(self) -> bool:
        """Whether the view whose privacy is planned is each user's own message (local)."""
        return self.site == "user"

    @property
    def wraps(self) -> bool:
        """Whether the server sees Σx̂ + noise mod m (the wrap is part of the view)."""
        return self.site != "user"

    @property
    def aggregate(self) -> bool:
        """Whether one draw of the batch's total noise is exact in law (the simulator's
        ``mode="aggregate"``): a closed-form total."""
        return self.total == "closed"

    @property
    def subject(self) -> str:
        """What one batch releases about a user, in words."""
        return "each user's message" if self.per_user_view else "each batch"

    @property
    def view_text(self) -> str:
        """The view whose privacy loss is computed, in symbols."""
        return ("each user's message x̂_i + Lap_Z(g/ε)" if self.per_user_view
                else "Σx̂ + noise")


_SUM = "exact law of the sum of the n shares"

#: Paper 000's deployments in the order of its theorems.
DEPLOYMENTS: tuple[Deployment, ...] = (
    Deployment(theorem=1, view="dist-dp", policy="dist-dp-se", label="Dist-DP-SE",
               privacy="pure-dp", trust="distributed", secure="secagg", law=_lap_z, site="shares",
               scaled=False, total="closed", total_note=_SUM, tau=_tau_fact2,
               tau_text="bound: Fact 2 tail of Lap_Z(g/ε), τ = ⌈(g/ε) log(2/p)⌉ (Theorem 1)",
               sigma_h=_sh_lap, event=_event_lap_z,
               claim="each batch's server view is {eps}-DP for every user (ε exact, Fact 2)"),
    Deployment(theorem=2, view="dist-rdp", policy="dist-rdp-se", label="Dist-RDP-SE",
               privacy="rdp", trust="distributed", secure="secagg", law=_skellam, site="shares",
               scaled=True, total="closed", total_note=_SUM, tau=_tau_prop1,
               tau_text="bound: Proposition 1, τ = ⌈(2g/ε)√log(2/p) + √2 log(2/p)⌉ (Theorem 2)",
               sigma_h=_sh_skellam, event=_event_skellam),
    Deployment(
        theorem=3,
        view="dist-shuffle",
        policy="dist-dp-se",
        label="Dist-DP-SE",
        privacy="pure-dp",
        trust="distributed",
        secure="shuffle",
        law=_lap_z,
        site="shares",
        scaled=False,
        total="closed",
        total_note=_SUM,
        tau=_tau_fact2,
        tau_text="bound: Fact 2 tail of Lap_Z(g/ε'), τ = ⌈(g/ε') log(2/p')⌉ (Theorem 3)",
        sigma_h=_sh_lap,
        event=_event_none,
        claim=("each batch's server view is {eps}-DP for every user (ε' = {eps_view} exact, "
               "plus 2ε̂ = {secure2} of the relaxed SecAgg, assumed; Theorem 3)"),
        view_fraction=Fraction(1, 2),
        secure_fraction=Fraction(1, 4),
        noise_failure=Fraction(1, 2),
        loss_distribution=False,
    ),
    Deployment(
        theorem=4,
        view="dist-cdp",
        policy="dist-cdp-se",
        label="Dist-CDP-SE",
        privacy="cdp",
        trust="distributed",
        secure="secagg",
        law=_gauss,
        site="shares",
        scaled=True,
        total="nominal",
        total_note=("nominal: the true total is the n-fold sum of the shares, close to it "
                    "(Lemma 4); exact tails and privacy are computed on that sum"),
        tau=_tau_subgauss,
        tau_text="bound: sub-Gaussian tail, τ = ⌈(g/ε)√(2 log(2/p))⌉ (Theorem 4)",
        sigma_h=_sh_gauss,
        event=_event_gauss_sum,
    ),
    Deployment(theorem=5, view="central", policy="central-dp-se", label="CDP-SE",
               privacy="pure-dp", trust="central", secure="secagg", law=_lap_z, site="analyzer",
               scaled=False, total="closed", total_note="added once by the analyzer",
               tau=_tau_fact2,
               tau_text="bound: Fact 2 tail of Lap_Z(g/ε), τ = ⌈(g/ε) log(2/p)⌉ (Theorem 5)",
               sigma_h=_sh_lap, event=_event_lap_z,
               claim="each batch's released sum is {eps}-DP for every user (ε exact, Fact 2)"),
    Deployment(
        theorem=6,
        view="local",
        policy="ldp-se",
        label="LDP-SE",
        privacy="pure-dp",
        trust="local",
        secure="secagg",
        law=_lap_z,
        site="user",
        scaled=False,
        total="sum",
        total_note="exact law: each user adds Lap_Z(g/ε); no closed form for the sum",
        tau=_tau_lemma5,
        tau_text="bound: Lemma 5 with the caller's c, τ = ⌈(cg/ε)√(2n log(2/p))⌉ (Theorem 6)",
        sigma_h=_sh_local,
        event=_event_lap_z,
        claim="each user's message is {eps}-DP (local trust; ε exact, Fact 2)",
        needs_c=True,
        masked=False,
    ),
)

#: Accepted spellings of policy names besides the canonical ones.
POLICY_ALIASES = {"cdp-se": "central-dp-se"}


def _index(attr: str) -> dict:
    out: dict = {}
    for d in DEPLOYMENTS:
        out.setdefault(getattr(d, attr), d)
    return out


_BY_THEOREM = _index("theorem")
_BY_KEY = _index("key")
_BY_VIEW = _index("view")
_BY_POLICY = _index("policy")   # dist-dp-se: Theorem 1 (secagg); the shuffle is by_key


def by_theorem(theorem: int) -> Deployment:
    """The deployment of Theorem ``theorem`` (1 to 6) of paper 000."""
    if theorem not in _BY_THEOREM:
        raise ParameterError(f"theorem must be one of {tuple(_BY_THEOREM)}, got {theorem!r}")
    return _BY_THEOREM[theorem]


def by_key(privacy: str, trust: str, secure: str) -> Deployment:
    """The deployment :func:`privtools.planning.plan` selects for (privacy, trust, secure)."""
    key = (privacy, trust, secure)
    if key not in _BY_KEY:
        options = "; ".join(f"{a}+{b}+{c} (Theorem {d.theorem})"
                            for (a, b, c), d in _BY_KEY.items())
        raise ParameterError(f"unsupported combination privacy={privacy!r}, trust={trust!r}, "
                             f"secure={secure!r}; supported: {options}")
    return _BY_KEY[key]


def by_view(name: str) -> Deployment:
    """The deployment whose protocol view is called ``name`` ("dist-dp", ...)."""
    if name not in _BY_VIEW:
        raise ParameterError(f"mechanism must be one of {sorted(_BY_VIEW)}, got {name!r}")
    return _BY_VIEW[name]


def policy_name(name: str) -> str:
    """The canonical spelling of a deployment's policy name (aliases resolved); other
    names are returned unchanged."""
    return POLICY_ALIASES.get(name, name) if isinstance(name, str) else name


def by_policy(name: str, secure: str = "secagg") -> Deployment | None:
    """The deployment a bandit policy runs with ``secure`` ("secagg"/"ideal"/"masked": the
    exact sum; "shuffle"), or None for a policy that is not one of paper 000's deployments
    (the non-private "se", the float baseline "dp-se")."""
    name = policy_name(name)
    if name not in _BY_POLICY:
        return None
    d = _BY_POLICY[name]
    if secure == "shuffle":
        return _BY_KEY.get((d.privacy, d.trust, "shuffle"))
    return d


def deployment(name) -> Deployment:
    """A deployment by any of its names: theorem number, view name or policy name."""
    if isinstance(name, int) and not isinstance(name, bool):
        return by_theorem(name)
    if isinstance(name, str):
        if name in _BY_VIEW:
            return _BY_VIEW[name]
        found = by_policy(name)
        if found is not None:
            return found
    raise ParameterError(f"no deployment of paper 000 is called {name!r}; known: theorems "
                         f"{tuple(_BY_THEOREM)}, views {tuple(_BY_VIEW)}, policies "
                         f"{tuple(_BY_POLICY)}")
