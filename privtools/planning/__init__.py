"""Planning a deployment of paper 000's protocol: the theorems' exact parameters
(:mod:`~privtools.planning.theorems`) and plans built on them (:mod:`~privtools.planning.plan`). ::

    theorem_params(theorem, epsilon, n, p, s=1, c=None)   g, τ, m of Theorems 1–6, exact
    plan(privacy=..., epsilon=..., n=..., horizon=...)     a frozen Plan, τ bound or exact
    with_parameters(plan, g=, tau=, m=)                    your own g, τ, m in a plan
    fewest_bits(privacy, epsilon, delta, n, horizon)        the fewest bits per user a certified
                                                           plan needs (docs/tables/bits.md)
    plan(..., delta=, participations=k, pool=U)           calibrated so the certified (ε, δ)
                                                           (PldAccountant) meets the target —
                                                           per batch, or over the run
    guarantee(plan), plan_certificate(plan)                what a plan certifies, in its
                                                           user's terms, and its certified ε(δ)
    DEPLOYMENTS, deployment(name)                          paper 000's six deployments as data
                                                           (every per-deployment fact, once)
    KINDS, privacy_kind(name)                              the privacy kinds (pure-dp, rdp,
                                                           cdp) as data (every per-kind fact)

The certified tail engine (``exact_tau``, ``total_noise_tail``, ``ExactTau``) is
:mod:`privtools.exact`'s and ``NoiseSum`` is :mod:`privtools.noise`'s: import them from there
(each name has one import path; the planner's earlier re-exports still resolve).
"""

# earlier import paths of names whose home is privtools.exact / privtools.noise (not in __all__)
from privtools.exact.tails import ExactTau, exact_tau, total_noise_tail  # noqa: F401
from privtools.noise import NoiseSum  # noqa: F401

from .bits import FewestBits, fewest_bits
from .deployments import (
    DEPLOYMENTS,
    POLICY_ALIASES,
    Deployment,
    by_key,
    by_policy,
    by_theorem,
    by_view,
    deployment,
    policy_name,
)
from .guarantee import guarantee, plan_certificate, plan_view, show_up
from .kinds import APPROXIMATE_PLANS, KINDS, PrivacyKind, privacy_kind
from .participation import batch_event, calibrate, per_user_epsilon, pool_participations
from .plan import PRIVACY, SECURE, SUPPORTED, TAIL_MODES, TRUST, Plan, plan, with_parameters
from .theorems import THEOREMS, TheoremParams, ceil_sqrt, theorem_params, view_params

__all__ = [
    "plan_view",
    "TheoremParams", "theorem_params", "ceil_sqrt", "THEOREMS", "Plan", "plan",
    "with_parameters", "SUPPORTED",
    "PRIVACY", "TRUST", "SECURE", "TAIL_MODES", "batch_event", "calibrate",
    "per_user_epsilon", "pool_participations", "fewest_bits", "FewestBits", "guarantee",
    "plan_certificate", "show_up", "Deployment", "DEPLOYMENTS", "POLICY_ALIASES", "deployment",
    "by_theorem", "by_key", "by_view", "by_policy", "policy_name", "view_params",
    "PrivacyKind", "KINDS", "privacy_kind", "APPROXIMATE_PLANS",
]
