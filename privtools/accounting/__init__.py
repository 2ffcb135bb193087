"""Privacy accounting for paper 000: RDP / zCDP / pure-DP curves, conversions to
(ε, δ)-DP, composition, and an RDP accountant over mechanism descriptions.

Describe, then interpret (as Google's ``dp_accounting``): ``events`` are immutable
descriptions of what was released; ``RdpAccountant`` interprets them. ::

    from privtools.accounting import RdpAccountant, SkellamEvent
    acc = RdpAccountant().compose(SkellamEvent(var=g**2 / eps**2, sensitivity=g), count=B)
    eps_dp, order = acc.epsilon(delta=1e-6)          # Lemma 10 (000)

Modules ::

    curves        ε(α) of discrete Laplace (exact), Skellam (Lemma 3), Theorem 2's ε̂,
                  summed discrete Gaussians (Lemma 4), Gaussian, Laplace, zCDP, pure DP
    conversions   RDP/zCDP/CDP → (ε, δ) (Lemma 10 / CKS20, Mironov, Bun–Steinke),
                  pure DP → RDP / zCDP
    composition   additive RDP composition, returning users (App. H), advanced composition
    events, accountant   DpEvent-style descriptions and the RDP accountant
    base          Accountant: the one contract both accountants follow (supports, compose,
                  events, epsilon, delta, neighbouring); each accountant's dispatch table
                  (``interpreters``) is its declaration
    maps          one privacy map per noise law (PRIVACY_MAPS): how NoiseEvent(law, Δ) — and
                  the named noise events — give their Rényi curve, PLD release, pure ε, PMF
    pld, pld_cells, pld_events, pld_accountant   certified privacy-loss distributions:
                  two-sided ε(δ) / δ(ε) intervals under composition (PldAccountant)
    pld.repeated, pld.readers   laws read without a grid: a sparse sampled law repeated k
                  times (its multinomial), one sampled Gaussian (closed form)
    pld.fdp       f-DP and μ-GDP from the certified privacy profile
                  (PldAccountant.tradeoff, PldAccountant.gdp_mu)
    sampled_events, pld_sampled, pld_shuffle, pld_allocation   Poisson and fixed-size
                  subsampling, shuffling, random allocation, (ε, δ)-DP releases
    calibration   calibrate: the smallest noise certified to meet (ε, δ); calibrate_grid:
                  the largest per-release ε on the grid ε·j/2^12 (planning, bandits)
    gaussian      the Gaussian mechanism's δ(ε) and ε(δ) in closed form, certified

Numbers: parameters are held exactly (Fractions); values are computed in mpmath at a
precision guarded against the cancellations involved and returned as floats rounded up.
"""

from ._numeric import DEFAULT_ORDERS, INTEGER_ORDERS
from .base import Accountant, required_relation
from .calibration import calibrate
from .events import (
    ComposedEvent,
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    DpEvent,
    GaussianEvent,
    LaplaceEvent,
    ModularEvent,
    NoiseEvent,
    PmfPairEvent,
    PureDPEvent,
    RepeatedEvent,
    SkellamEvent,
    ZCDPEvent,
)
from .gaussian import gaussian_delta, gaussian_epsilon, gdp_tradeoff
from .pld import LossGrid, PrivacyLossDistribution
from .pld.accountant import PldAccountant, PldDelta, PldEpsilon, PldGdp, PldTradeoff
from .pld.fdp import approx_dp_tradeoff
from .rdp.accountant import EventCurve, RdpAccountant, event_rdp, rdp_curve
from .rdp.composition import (
    ApproxDP,
    ComposedCurve,
    advanced_composition,
    compose_rdp,
    returning_users_rdp,
    theorem7_per_mechanism_epsilon,
)
from .rdp.conversions import (
    DeltaResult,
    EpsilonResult,
    cdp_to_dp,
    pure_to_rdp,
    pure_to_zcdp,
    rdp_to_delta,
    rdp_to_dp,
    zcdp_to_dp,
)
from .rdp.curves import (
    discrete_gaussian_sum_cdp,
    discrete_gaussian_sum_xi,
    discrete_laplace_rdp,
    gaussian_rdp,
    laplace_rdp,
    pure_dp_rdp,
    skellam_rdp_bound,
    theorem2_rdp,
    zcdp_rdp,
)
from .sampled_events import (
    ApproxDPEvent,
    PoissonSampledEvent,
    RandomAllocationEvent,
    SampledWithoutReplacementEvent,
    SampledWithReplacementEvent,
    ShuffledBatchesEvent,
    ShuffledEvent,
    TruncatedPoissonSampledEvent,
)

__all__ = [
    "DEFAULT_ORDERS",
    "INTEGER_ORDERS",
    # curves
    "discrete_laplace_rdp",
    "pure_dp_rdp",
    "skellam_rdp_bound",
    "theorem2_rdp",
    "discrete_gaussian_sum_cdp",
    "discrete_gaussian_sum_xi",
    "gaussian_rdp",
    "laplace_rdp",
    "zcdp_rdp",
    # conversions
    "EpsilonResult",
    "DeltaResult",
    "rdp_to_dp",
    "rdp_to_delta",
    "zcdp_to_dp",
    "cdp_to_dp",
    "pure_to_rdp",
    "pure_to_zcdp",
    # composition
    "ComposedCurve",
    "compose_rdp",
    "returning_users_rdp",
    "ApproxDP",
    "advanced_composition",
    "theorem7_per_mechanism_epsilon",
    # events and accountant
    "DpEvent",
    "DiscreteLaplaceEvent",
    "SkellamEvent",
    "DiscreteGaussianSumEvent",
    "GaussianEvent",
    "LaplaceEvent",
    "ZCDPEvent",
    "PureDPEvent",
    "ComposedEvent",
    "RepeatedEvent",
    "ModularEvent",
    "PmfPairEvent",
    "NoiseEvent",
    "PoissonSampledEvent",
    "TruncatedPoissonSampledEvent",
    "SampledWithoutReplacementEvent",
    "SampledWithReplacementEvent",
    "RandomAllocationEvent",
    "ShuffledBatchesEvent",
    "ShuffledEvent",
    "ApproxDPEvent",
    "calibrate",
    "gaussian_delta",
    "gaussian_epsilon",
    "gdp_tradeoff",
    "approx_dp_tradeoff",
    "Accountant",
    "required_relation",
    "RdpAccountant",
    "PldAccountant",
    "PldEpsilon",
    "PldDelta",
    "PldTradeoff",
    "PldGdp",
    "PrivacyLossDistribution",
    "LossGrid",
    "EventCurve",
    "event_rdp",
    "rdp_curve",
]
