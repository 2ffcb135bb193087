"""Ready-made mechanisms for :func:`verification.audit.audit_mechanism`: the server's view
of one batch of the protocol of paper 000, under each trust model, with the privacy it
claims.

=============  ===========================  ===========  ===============================
name           protocol                     theorem      claim audited
=============  ===========================  ===========  ===============================
dist-dp        Pólya shares + SecAgg        Theorem 1    ε-DP
dist-shuffle   Pólya shares + shuffle       Theorem 3    ε-DP
dist-rdp       Skellam shares + SecAgg      Theorem 2    (ε_δ, δ) from the RDP curve
dist-cdp       discrete Gaussian + SecAgg   Theorem 4    (ε_δ, δ) from the RDP curve
central        trusted server + Lap_Z       Theorem 5    ε-DP
local          each user adds Lap_Z         Theorem 6    ε-DP
=============  ===========================  ===========  ===============================

For the Rényi/concentrated plans the (ε_δ, δ) claim is what the accountant derives from the
noise actually added: Sk(0, g²/ε²) by Lemma 3 (000) for Theorem 2, and the exact Rényi
curve of the n-fold discrete Gaussian sum for Theorem 4 — both converted by Lemma 10 (000).

The datasets are the worst case of the theorems: d = all rewards 0, d' = d with user 0's
reward set to 1, so Σ x̂ moves by exactly the sensitivity g. The view and its reduction
to one integer are :func:`privtools.protocol.server_view`'s.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privtools.accounting import (
    DiscreteGaussianSumEvent,
    RdpAccountant,
    SkellamEvent,
)
from privtools.errors import ParameterError
from privtools.planning import DEPLOYMENTS, by_view
from privtools.planning import plan as make_plan
from privtools.protocol import view_mechanism

__all__ = ["MECHANISMS", "ProtocolMechanism", "protocol_mechanism"]

# Views are read as int64 by the audit: moduli must stay below this.
_VIEW_LIMIT = 2**62

# view name -> the planner's key (privtools.planning.deployments, one entry per deployment)
MECHANISMS = {d.view: dict(privacy=d.privacy, trust=d.trust, secure=d.secure)
              for d in DEPLOYMENTS}


@dataclass(frozen=True)
class ProtocolMechanism:
    """A protocol view ready to audit: ``mechanism(dataset, size, rng)``, the two
    neighbouring datasets and the claim (``epsilon``, ``delta``)."""

    name: str
    plan: object
    mechanism: Callable
    d: np.ndarray
    d_prime: np.ndarray
    epsilon: float
    delta: float
    claim: str


def _approx_claim(plan, delta: float) -> tuple[float, str]:

    by_check = {   # the RDP curve of the view, by the check of the plan's kind
        "RDP": (lambda: SkellamEvent(var=plan.total_noise.variance, sensitivity=plan.g),
                "Lemma 3 (000) RDP curve of Sk(0, g²/ε²)"),
        "CDP": (lambda: DiscreteGaussianSumEvent(n=plan.n, sigma2=plan.share.sigma2,
                                                 sensitivity=plan.g, exact=True),
                "exact RDP curve of the n-fold N_Z sum"),
    }
    make, how = by_check[plan.kind.check]
    event = make()
    eps = float(RdpAccountant().compose(event).epsilon(delta).epsilon)
    return eps, f"{how}, Lemma 10 (000) at δ = {delta:g}"


def protocol_mechanism(name: str, epsilon, n: int, horizon: int = 10**6, s=1,
                       delta: float = 1e-6) -> ProtocolMechanism:
    """The server's view of one batch of ``n`` users under mechanism ``name`` (see
    :data:`MECHANISMS`), planned by :func:`privtools.planning.plan` for target
    ``epsilon`` and horizon ``horizon`` (p = 1/T), with the claim to audit.

    Theorem 6 (local) is planned with ``tail="exact"`` (its bound needs Lemma 5's
    unspecified constant); the others with the paper's bound-based τ.
    """

    if name not in MECHANISMS:
        raise ParameterError(f"mechanism must be one of {sorted(MECHANISMS)}, got {name!r}")
    kind = MECHANISMS[name]
    dep = by_view(name)
    tail = "exact" if dep.needs_c else "bound"
    s_arg = s if dep.scaled else 1
    p = make_plan(epsilon=epsilon, n=n, horizon=horizon, s=s_arg, tail=tail, **kind)
    if p.m >= _VIEW_LIMIT:  # the audit reads each view as one int64
        most = float(Fraction(p.epsilon) * _VIEW_LIMIT / p.m)
        raise ParameterError(f"epsilon = {float(Fraction(p.epsilon)):.3g} with n = {p.n} gives "
                             f"the modulus m = {float(p.m):.3g}, beyond 2**62: the audit reads "
                             f"the server's view as int64; supported here: epsilon <= "
                             f"~{most:.2g}")
    d = np.zeros(p.n)
    d_prime = d.copy()
    d_prime[0] = 1.0
    if dep.pure:
        eps, dl = float(Fraction(p.epsilon)), 0.0
        claim = f"ε = {eps:g} (Theorem {p.theorem} (000))"
    else:
        if not 0 < delta < 1:
            raise ParameterError(f"delta must be in (0, 1), got {delta!r}")
        eps, how = _approx_claim(p, delta)
        dl = float(delta)
        claim = f"(ε, δ) = ({eps:.4g}, {dl:g}) from the {how}"
    return ProtocolMechanism(name, p, view_mechanism(p), d, d_prime, eps, dl, claim)
