"""The statistics every audit verdict rests on: one-sided Clopper–Pearson bounds, the ε
lower confidence bound of an event, and the p-value of a claim.

For an event E with counts ``kp`` of ``n`` draws on the favoured dataset and ``kq`` of
``n`` on the other, (ε, δ)-DP implies P(E | d) ≤ e^ε P(E | d') + δ; with probability at
least 1 − α, P(E | d) ≥ p_lo and P(E | d') ≤ q_hi (each one-sided Clopper–Pearson bound at
level α/2), hence the honest lower confidence bound

    ε_lower = log((p_lo − δ) / q_hi)        (−∞ when p_lo ≤ δ).

For pure DP (δ = 0) the audits draw *Poisson* numbers of test draws, N ~ Poisson(λ) on each
dataset. The counts are then independent Poisson(λp) and Poisson(λq), so given their total
K the favoured count is exactly Binomial(K, p/(p + q)) — one exact one-sided
Clopper–Pearson bound π_lo at level α on that binomial gives

    ε_lower = log(π_lo / (1 − π_lo)) ≤ log(p / q)   with probability ≥ 1 − α,

which spends all of α on one interval instead of α/2 on each of two (for rare events it is
about 1.5 times tighter than the pair of intervals).
"""

from __future__ import annotations

import math

import numpy as np
import scipy.stats as st
from scipy import special

from privtools.errors import ParameterError

from .hockey import projected_hockey_stick

__all__ = ["clopper_pearson", "log_ratio_bound", "poisson_ratio_bound",
           "projected_bound", "claim_p_value", "poisson_p_value", "candidate_prefixes"]


SHRINK = 0.05        # the Clopper–Pearson level the projection shrinks selection rates to
DELTA_SHRINK = 0.2   # ... and with δ > 0


def clopper_pearson(k, n, alpha: float, side: str):
    """One-sided Clopper–Pearson bound at confidence 1 − ``alpha`` on a binomial rate from
    ``k`` successes in ``n`` trials (vectorized): ``side="lower"`` or ``"upper"``. Real
    ``k`` (a projected count) is read through the same beta quantiles. The quantiles are
    ``scipy.special.betaincinv`` / ``betainccinv`` — the values of ``scipy.stats.beta.ppf``
    / ``isf`` bit for bit, without their per-call argument handling (event ranking calls
    this ~10⁵ times per search)."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if side == "lower":
        with np.errstate(invalid="ignore"):
            out = special.betaincinv(k, n - k + 1, alpha)
        return np.where(k <= 0, 0.0, out)
    if side == "upper":
        with np.errstate(invalid="ignore"):
            out = special.betainccinv(k + 1, n - k, alpha)  # keeps tiny alpha accurate
        return np.where(k >= n, 1.0, out)
    raise ParameterError(f"side must be 'lower' or 'upper', got {side!r}")


def log_ratio_bound(kp, kq, n, alpha, delta):
    """ε lower bound log((p_lo − δ)/q_hi) from counts, each bound at level alpha/2."""
    p_lo = clopper_pearson(kp, n, alpha / 2, "lower") - delta
    q_hi = clopper_pearson(kq, n, alpha / 2, "upper")
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(p_lo / q_hi)
    return np.where(p_lo > 0, eps, -np.inf)


def poisson_ratio_bound(kp, kq, alpha):
    """ε lower bound log(π_lo/(1 − π_lo)) from Poissonised counts (vectorized; real counts
    are read through the same beta quantile)."""
    kp = np.asarray(kp, dtype=float)
    kq = np.asarray(kq, dtype=float)
    with np.errstate(invalid="ignore", divide="ignore"):
        lo = special.betaincinv(kp, kq + 1, alpha)
        eps = np.log(lo) - np.log1p(-lo)
    return np.where(kp > 0, eps, -np.inf)


def poisson_p_value(kp: int, kq: int, epsilon: float) -> float:
    """Exact p-value of P(E|d) ≤ e^ε P(E|d') from Poissonised counts: the binomial tail
    P(Bin(kp + kq, e^ε/(1 + e^ε)) ≥ kp)."""
    if kp <= 0:
        return 1.0
    pi0 = 1.0 / (1.0 + math.exp(-epsilon)) if epsilon < 700 else 1.0
    return float(st.binom.sf(kp - 1, kp + kq, pi0))


def projected_bound(kp, kq, n_seen: int, n_test: int, alpha: float, delta: float,
                    shrink: float = SHRINK):
    """The ε lower bound the audit's test is expected to give on ``n_test`` fresh draws for
    events seen ``kp`` / ``kq`` times in ``n_seen`` draws (:func:`poisson_ratio_bound` for
    pure DP, the hockey-stick test of :mod:`verification.audit.stats.hockey` with δ > 0, which
    ranks events by that statistic — at a given ε its best events are the likelihood
    ratio's superlevel sets, the ratio-ranked prefixes): the rates are first shrunk to their
    Clopper–Pearson bounds at level ``shrink`` (so rare events whose ratio is large by
    chance rank low; ``DELTA_SHRINK`` with δ > 0, whose best events are rarer and would be
    shrunk out of reach at ``SHRINK``), then projected to counts at ``n_test``. Used only
    to *choose* events; the verdict never reads it."""
    if delta > 0:
        shrink = max(shrink, DELTA_SHRINK)
    p = clopper_pearson(kp, n_seen, shrink, "lower")
    q = clopper_pearson(kq, n_seen, shrink, "upper")
    if delta == 0:
        return poisson_ratio_bound(p * n_test, q * n_test, alpha)
    return projected_hockey_stick(p, q, n_test, alpha, delta)


def claim_p_value(kp: int, kq: int, n: int, delta: float, epsilon: float) -> float:
    """Smallest level a at which log((p_lo − δ)/q_hi) > ε, by bisection on log a."""
    def rejects(a):
        return float(log_ratio_bound(kp, kq, n, a, delta)) > epsilon

    if not rejects(1.0 - 1e-12):
        return 1.0
    lo, hi = -745.0, 0.0  # log of the level
    if rejects(math.exp(lo)):
        return 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if rejects(math.exp(mid)):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def candidate_prefixes(length: int, limit: int = 4000) -> np.ndarray:
    """Prefix lengths to score: all of the first ``limit/2``, then geometrically spaced."""
    if length <= limit:
        return np.arange(1, length + 1)
    head = np.arange(1, limit // 2 + 1)
    tail = np.unique(np.geomspace(limit // 2 + 1, length, limit // 2).astype(np.int64))
    return np.unique(np.concatenate([head, tail, [length]]))
