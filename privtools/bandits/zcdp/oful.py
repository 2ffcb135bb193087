"""AdaC-OFUL (001) and its non-private twin RS-OFUL (rarely-switching OFUL, Abbasi-Yadkori,
Pál & Szepesvári 2011, §5) for linear contextual bandits with ‖x‖ <= 1, ‖θ‖ <= S = 1 and
rewards clipped to [−1, 1] (1-sub-Gaussian, R = 1; see
:mod:`privtools.bandits.envs.linear`).

State: V_t = λI + Σ_{s<=t} x_s x_sᵀ. A switch happens after round t when
det V_t > 2 det V_τ (τ the last switch); only then are the estimate, the confidence radius
and the frozen matrix V_τ^{-1} recomputed. Between switches round t plays
argmax_x ⟨θ̃_τ, x⟩ + β_τ ‖x‖_{V_τ^{-1}} over its K actions. Because nothing the policy uses
changes between switches, the choices of all rounds up to the next switch are computed in
one vectorized step (O(K d²) per round): choices for the rest of a chunk of pre-drawn
action sets, V_t for each of those rounds by a cumulative sum of x xᵀ, log det V_t by a
batched ``slogdet``, and the first round that passes the determinant test ends the step
(the choices after it are discarded and recomputed with the new estimate). This gives the
same actions as a per-round loop with Sherman–Morrison updates and the matrix determinant
lemma, up to float rounding in the determinant test. Before the first switch θ̃ = 0 and
V_τ = λI.

Privacy (AdaC-OFUL). Episode e = the rounds between two switches. At the switch ending
episode e the statistic s_e = Σ_{t ∈ e} x_t r_t is released as s̃_e = s_e + η_e,
η_e ~ N(0, σ² I). Changing one reward r_t ∈ [−1, 1] changes s_e by x_t (r_t − r_t'), of
norm <= 2‖x_t‖ <= 2, so Δ = 2 and σ² = Δ²/(2ρ) = 2/ρ (ρ = Δ²/(2σ²)). Episodes are
disjoint and the last (unfinished) episode is never released, so each reward enters
exactly one release and the run is ρ-zCDP in each reward (the actions, V_t and the switch
times depend only on public contexts and earlier releases). The estimate is
θ̃_τ = V_τ^{-1} Σ_{e <= m} s̃_e = θ̂_τ + V_τ^{-1} H_m, H_m = Σ_{e<=m} η_e ~ N(0, m σ² I).

Confidence radius (Abbasi-Yadkori et al. Thm 2, R = 1, S = 1, failure δ/2):
  β_τ^stat = √(2 log(2/δ) + log det V_τ − d log λ) + √λ S.
RS-OFUL uses δ (not δ/2) and λ = 1. AdaC-OFUL widens by the accumulated noise:
  ‖θ̃_τ − θ̂_τ‖_{V_τ} = ‖H_m‖_{V_τ^{-1}} <= ‖H_m‖ / √λ_min(V_τ), and
  ‖H_m‖ <= σ √m (√d + √(2 log(2 M/δ))) for all m <= M w.p. >= 1 − δ/2 (Gaussian norm
  concentration, ‖Z‖ <= √d + √(2 log(1/δ')) for Z ~ N(0, I_d), union over m <= M), so
  β_τ = β_τ^stat + σ √m (√d + √(2 log(2M/δ))) / √λ_min(V_τ)   (λ_min computed at switches).
  M = d log2(1 + T/d) + 1 bounds the number of switches for λ >= 1 (det V_T <=
  (λ + T/d)^d, det doubles at every switch).
Regulariser: RS-OFUL λ = 1; AdaC-OFUL λ = max(1, B_M/S) with B_M = σ √M (√d + √(2 log(2M/δ))),
the value that balances √λ S against the widening B_M/√λ; ``lam`` overrides either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng, check_int, check_probability

from ..envs.linear import ContextualEnv, check_actions
from ..runs import check_checkpoints
from .gope import LinearRunResult, PrivacyReport, _check_rho
from .gope import privacy_report as privacy_report

NAMES = ("adac-oful", "rs-oful")
NON_PRIVATE = frozenset({"rs-oful"})
#: L2 sensitivity of an episode sum Σ x_t r_t to one reward (‖x‖ <= 1, r ∈ [−1, 1])
SENSITIVITY = 2.0
#: norm bound S on θ
THETA_BOUND = 1.0
#: rounds of action sets drawn per call of ``ContextualEnv.action_sets``
CHUNK = 8192


@dataclass(frozen=True)
class OfulSpec:
    """AdaC-OFUL (``name="adac-oful"``, ``epsilon`` = ρ) or RS-OFUL (``"rs-oful"``,
    ``epsilon=None``); ``delta`` failure probability; ``lam`` regulariser (None = the
    module default); ``s`` unused (runner field)."""

    name: str
    epsilon: float | None = None
    s: int = 1
    delta: float = 0.1
    lam: float | None = None
    label: str = ""

    @property
    def private(self) -> bool:
        """Whether the policy adds noise (every variant except the non-private ``rs-oful``)."""
        return self.name != "rs-oful"

    @property
    def sigma(self) -> float:
        """σ = Δ/√(2ρ) = √(2/ρ) (0 for RS-OFUL)."""
        return SENSITIVITY / math.sqrt(2 * self.epsilon) if self.private else 0.0


def oful_policy(name: str, epsilon=None, s: int = 1, *, delta: float = 0.1,
                lam: float | None = None, label: str | None = None) -> OfulSpec:
    """Validated :class:`OfulSpec`; ``epsilon`` carries ρ (zCDP) for ``"adac-oful"``."""
    if name not in NAMES:
        raise ParameterError(f"unknown policy {name!r}; choose one of {NAMES}")
    rho = _check_rho(name, epsilon, name != "rs-oful")
    if lam is not None:
        lam = float(lam)
        if not math.isfinite(lam) or lam <= 0:
            raise ParameterError(f"lam must be finite and > 0, got {lam!r}")
    if label is None:
        label = f"AdaC-OFUL (ρ={rho:g})" if rho is not None else "RS-OFUL"
    return OfulSpec(name, rho, check_int("s", s, minimum=1),
                    float(check_probability("delta", delta)), lam, label)


def max_switches(d: int, horizon: int) -> int:
    """M = ⌊d log2(1 + T/d)⌋ + 1 >= the number of switches for λ >= 1."""
    return int(d * math.log2(1 + horizon / d)) + 1


def noise_bound(spec: OfulSpec, d: int, m: int, M: int) -> float:
    """σ √m (√d + √(2 log(2M/δ))): bound on ‖H_m‖ (module docstring); 0 for RS-OFUL."""
    if not spec.private or m == 0:
        return 0.0
    return spec.sigma * math.sqrt(m) * (math.sqrt(d) + math.sqrt(2 * math.log(2 * M / spec.delta)))


def regulariser(spec: OfulSpec, d: int, horizon: int) -> float:
    """λ (module docstring)."""
    if spec.lam is not None:
        return spec.lam
    if not spec.private:
        return 1.0
    M = max_switches(d, horizon)
    return max(1.0, noise_bound(spec, d, M, M) / THETA_BOUND)


def radius(spec: OfulSpec, logdet: float, lam: float, d: int, m: int, M: int,
           lam_min: float) -> float:
    """β_τ (module docstring)."""
    p = spec.delta / 2 if spec.private else spec.delta
    stat = math.sqrt(max(2 * math.log(1 / p) + logdet - d * math.log(lam), 0.0))
    return stat + math.sqrt(lam) * THETA_BOUND + noise_bound(spec, d, m, M) / math.sqrt(lam_min)


def episode_statistic(X, rewards) -> np.ndarray:
    """Σ_t x_t r_t (the released statistic before noise)."""
    return np.asarray(rewards, dtype=np.float64) @ np.asarray(X, dtype=np.float64)


@dataclass(frozen=True)
class EpisodeRelease:
    """Released episode sum: rounds [``start``, ``end``) (0-based), ``sensitivity`` Δ,
    ``sigma`` (0 for RS-OFUL), radius ``beta`` used afterwards, λ_min(V_τ)."""

    start: int
    end: int
    sensitivity: float
    sigma: float
    beta: float
    lam_min: float


def simulate_oful(spec: OfulSpec, env: ContextualEnv, horizon: int, rng=None, *,
                  checkpoints=None) -> LinearRunResult:
    """One run of ``spec`` on ``env`` for ``horizon`` rounds; pseudo-regret
    Σ_t max_x ⟨θ, x⟩ − ⟨θ, x_t⟩ at ``checkpoints``; ``releases`` the episode releases."""
    if not isinstance(spec, OfulSpec):
        raise ParameterError(f"spec must be an OfulSpec, got {type(spec).__name__}")
    if not isinstance(env, ContextualEnv):
        raise ParameterError(f"env must be a ContextualEnv, got {type(env).__name__}")
    T = check_int("horizon", horizon, minimum=1)
    cps = check_checkpoints(checkpoints, T)
    gen = as_rng(rng)
    d, theta = env.d, env.theta
    M = max_switches(d, T)
    lam = regulariser(spec, d, T)
    sigma = spec.sigma
    V = lam * np.eye(d)             # V_t (public: actions only)
    logdet_tau = d * math.log(lam)  # log det V_τ
    P = np.eye(d) / lam             # frozen V_τ^{-1}
    theta_tau = np.zeros(d)
    beta = radius(spec, logdet_tau, lam, d, 0, M, lam)
    b_priv = np.zeros(d)            # Σ of released (noisy) episode sums
    s_ep = np.zeros(d)              # current episode's sum (not yet released)
    ep_start, m = 0, 0
    releases: list[EpisodeRelease] = []
    inst = np.empty(T)
    log2 = math.log(2.0)
    for c0 in range(0, T, CHUNK):
        n = min(CHUNK, T - c0)
        sets = check_actions(env.action_sets(n, gen), env.bound, "action set")
        means = sets @ theta                      # (n, K)
        best = means.max(axis=1)
        noise = env.noise_sd * gen.standard_normal(n)
        i = 0
        while i < n:
            # θ̃_τ, β_τ, V_τ^{-1} are frozen until the next switch: choose for all rounds
            Xs = sets[i:]
            ucb = Xs @ theta_tau + beta * np.sqrt(np.einsum("nkd,nkd->nk", Xs @ P, Xs))
            j = np.argmax(ucb, axis=1)
            rows = np.arange(n - i)
            x = Xs[rows, j]                       # (n − i, d) chosen actions
            Vs = V + np.cumsum(x[:, :, None] * x[:, None, :], axis=0)   # V_t per round
            ld = np.linalg.slogdet(Vs)[1]
            hit = np.flatnonzero(ld > logdet_tau + log2)   # det V_t > 2 det V_τ
            stop = int(hit[0]) + 1 if hit.size else n - i
            mu = means[i + rows[:stop], j[:stop]]
            r = np.clip(mu + noise[i:i + stop], -1.0, 1.0)
            inst[c0 + i:c0 + i + stop] = best[i:i + stop] - mu
            s_ep += r @ x[:stop]
            V = Vs[stop - 1]
            i += stop
            if hit.size:  # switch after round c0 + i: release the episode sum
                b_priv += s_ep + (sigma * gen.standard_normal(d) if sigma else 0.0)
                m += 1
                V = (V + V.T) / 2
                P = np.linalg.inv(V)
                lam_min = float(np.linalg.eigvalsh(V)[0])
                theta_tau = P @ b_priv
                logdet_tau = float(ld[stop - 1])
                beta = radius(spec, logdet_tau, lam, d, m, M, lam_min)
                releases.append(EpisodeRelease(ep_start, c0 + i, SENSITIVITY, sigma, beta,
                                               lam_min))
                s_ep = np.zeros(d)
                ep_start = c0 + i
    regret = np.cumsum(inst)[cps - 1]
    return LinearRunResult(cps, regret, env.name, releases)


__all__ = ["EpisodeRelease", "OfulSpec", "PrivacyReport", "SENSITIVITY", "episode_statistic",
           "max_switches", "noise_bound", "oful_policy", "privacy_report", "radius",
           "regulariser", "simulate_oful"]
