"""The small values the audits pass between their steps: what is claimed and what an audit
may spend. Public functions keep their keyword parameters and build these once."""

from __future__ import annotations

import math
from dataclasses import dataclass

from privtools.errors import ParameterError
from privtools.validation import check_nonneg

__all__ = ["Claim", "AuditBudget", "check_claim"]


@dataclass(frozen=True)
class Claim:
    """The (ε, δ) a mechanism claims: ε finite and >= 0, 0 <= δ < 1 (floats)."""

    epsilon: float
    delta: float = 0.0


@dataclass(frozen=True, kw_only=True)
class AuditBudget:
    """What one audit of a pair spends and risks: ``n_samples`` draws per dataset, the
    first ``n_train`` of them choosing the event, and the false-alarm level ``alpha``."""

    n_samples: int
    n_train: int
    alpha: float


def check_claim(epsilon, delta) -> Claim:
    """The :class:`Claim` (``epsilon``, ``delta``), checked (ParameterError naming the
    parameter)."""
    eps = float(check_nonneg("epsilon", epsilon))
    if math.isinf(eps):
        raise ParameterError(f"epsilon must be finite, got {epsilon!r}")
    d = float(check_nonneg("delta", delta))
    if d >= 1:
        raise ParameterError(f"delta must be < 1, got {delta!r}")
    return Claim(eps, d)
