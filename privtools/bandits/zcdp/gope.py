"""AdaC-GOPE (001) and its non-private twin GOPE (Lattimore & Szepesvári, *Bandit
Algorithms*, Alg. 12): phased elimination with G-optimal designs on a fixed finite action
set, rewards clipped to [−1, 1] (see :mod:`privtools.bandits.envs.linear`).

Phase ℓ = 1, 2, … with ε_ℓ = 2^{−ℓ} and active set A_ℓ (A_1 = A, k = |A|):

1. Coordinates. If A_ℓ spans only a d'-dimensional subspace (d' < d), work in an
   orthonormal basis of that span (SVD, rank tolerance 1e-10·max singular value); all
   quantities below are in those coordinates and "d" means d'.
2. Design. π_ℓ = :func:`g_optimal_design` on A_ℓ (Frank–Wolfe from the uniform design,
   stopped when g(π) = max_a ‖a‖²_{V(π)^{-1}} <= (1 + ``tol``)·d, tol = 0.01; by
   Kiefer–Wolfowitz the optimum is exactly d). Support T_ℓ(a) = ⌈π_ℓ(a)·N_ℓ⌉ plays of
   each a with π_ℓ(a) > 0, so V_ℓ = Σ_a T_ℓ(a) a aᵀ ⪰ N_ℓ V(π_ℓ) and
   ‖a‖²_{V_ℓ^{-1}} <= g_ℓ / N_ℓ for all a ∈ A_ℓ, g_ℓ := g(π_ℓ).
3. Phase length, with L_ℓ = log(4 k ℓ(ℓ+1)/δ):

   * GOPE (width ε_ℓ):    N_ℓ = ⌈2 g_ℓ log(2kℓ(ℓ+1)/δ) / ε_ℓ²⌉. Sub-Gaussian tail:
     |⟨θ̂ − θ, a⟩| <= √(2 ‖a‖²_{V^{-1}} log(2kℓ(ℓ+1)/δ)) <= ε_ℓ for all a, w.p. >= 1 − δ/(ℓ(ℓ+1)).
   * AdaC-GOPE (ε_ℓ/2 statistical + ε_ℓ/2 privacy):
     N_ℓ = ⌈max(8 g_ℓ L_ℓ / ε_ℓ², 4 g_ℓ √(L_ℓ/ρ) / ε_ℓ)⌉.
     Statistical: √(2 (g_ℓ/N_ℓ) L_ℓ) <= ε_ℓ/2 ⟺ N_ℓ >= 8 g_ℓ L_ℓ/ε_ℓ².
     Privacy: ⟨V^{-1/2}Z, a⟩ ~ N(0, σ_ℓ² ‖a‖²_{V^{-1}}) with σ_ℓ² <= (4 g_ℓ/N_ℓ)/(2ρ), so its
     variance is <= 2 g_ℓ²/(ρ N_ℓ²) and its tail √(2·var·L_ℓ) = (2 g_ℓ/N_ℓ)√(L_ℓ/ρ) <= ε_ℓ/2
     ⟺ N_ℓ >= 4 g_ℓ √(L_ℓ/ρ)/ε_ℓ. Each of the 2k two-sided events fails w.p.
     <= 2e^{−L_ℓ} = δ/(2kℓ(ℓ+1)); summed over events and phases, <= δ.
   * AdaC-GOPE with ``allocation="sum"`` (not in 001; an option): the smallest N_ℓ with
     statistical + privacy width <= ε_ℓ, i.e. √(2 g L/N) + (2 g/N)√(L/ρ) <= ε_ℓ; with
     u = 1/√N this is a u² + b u − ε_ℓ <= 0, a = 2g√(L/ρ), b = √(2gL), so
     N_ℓ = ⌈1/u*²⌉, u* = (−b + √(b² + 4 a ε_ℓ))/(2a). As ρ → ∞, N_ℓ → 2 g L/ε_ℓ², GOPE's
     length up to L_ℓ's extra factor 2 inside the log (the "halves" rule tends to 4× that).
4. Release (AdaC-GOPE): S_ℓ = Σ_s a_s r_s over the phase's plays and
   θ̃_ℓ = V_ℓ^{-1} S_ℓ + V_ℓ^{-1/2} Z, Z ~ N(0, σ_ℓ² I) (drawn as C Z with C Cᵀ = V_ℓ^{-1},
   the same distribution N(V_ℓ^{-1}S_ℓ, σ_ℓ² V_ℓ^{-1})). This is post-processing
   (multiplication by V_ℓ^{-1/2}, V_ℓ public: it depends on earlier releases only) of the
   Gaussian mechanism on q_ℓ = V_ℓ^{-1/2} S_ℓ. Changing one clipped reward r_s ∈ [−1, 1]
   changes q_ℓ by V_ℓ^{-1/2} a_s (r_s − r_s'), of L2 norm <= 2‖a_s‖_{V_ℓ^{-1}}, so
   Δ_ℓ = 2 max_{a ∈ supp π_ℓ} ‖a‖_{V_ℓ^{-1}} (:func:`phase_sensitivity`, computed from the
   realised V_ℓ; <= 2√(g_ℓ/N_ℓ), and <= 2√(d/N_ℓ) only at an exact optimum — the code
   uses the realised value, never the bound) and σ_ℓ = Δ_ℓ/√(2ρ) (ρ = Δ²/(2σ²)).
   Each reward enters exactly one S_ℓ (phases are disjoint; the plays of a phase cut short
   by the horizon are never released), so the whole run is ρ-zCDP with respect to one
   reward (adaptive parallel composition; the designs are post-processing).
   GOPE releases θ̂_ℓ = V_ℓ^{-1} S_ℓ.
5. Elimination: drop a when max_{b ∈ A_ℓ} ⟨θ̃_ℓ, b − a⟩ > 2 ε_ℓ. On the good event every
   |⟨θ̃_ℓ − θ, a⟩| <= ε_ℓ, so the best action is never dropped.
   When one action is left it is played to the horizon.

Within a phase all plays are drawn at once (``LinearEnv.reward_sums``); the plays of a phase
are ordered action by action, which fixes the regret curve inside the phase.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng, check_int, check_probability, to_fraction

from ...accounting import ZCDPEvent, zcdp_to_dp
from ..envs.linear import LinearEnv
from ..runs import check_checkpoints
from .ucb import PrivacyReport

NAMES = ("adac-gope", "gope")
NON_PRIVATE = frozenset({"gope"})
#: Frank–Wolfe stopping tolerance: stop when g(π) <= (1 + FW_TOL)·d
FW_TOL = 0.01
FW_MAX_ITER = 100_000
RANK_TOL = 1e-10


def _check_rho(name: str, epsilon, private: bool):
    if not private:
        if epsilon is not None:
            raise ParameterError(f"{name} is non-private and takes no epsilon/rho")
        return None
    if epsilon is None or isinstance(epsilon, bool):
        raise ParameterError(f"{name} needs rho (passed as epsilon)")
    r = float(epsilon)
    if not math.isfinite(r) or r <= 0:
        raise ParameterError(f"rho must be finite and > 0, got {epsilon!r}")
    return r


@dataclass(frozen=True)
class GopeSpec:
    """AdaC-GOPE (``name="adac-gope"``, ``epsilon`` = ρ of ρ-zCDP) or GOPE
    (``name="gope"``, ``epsilon=None``); ``delta`` the failure probability of the
    confidence widths; ``tol`` the Frank–Wolfe tolerance; ``allocation`` how AdaC-GOPE splits
    ε_ℓ between the statistical and privacy widths ("halves": ε_ℓ/2 each, as in 001;
    "sum": any split with total ε_ℓ); ``s`` unused (runner field)."""

    name: str
    epsilon: float | None = None
    s: int = 1
    delta: float = 0.1
    tol: float = FW_TOL
    label: str = ""
    allocation: str = "halves"

    @property
    def private(self) -> bool:
        """Whether the policy adds noise (every variant except the non-private ``gope``)."""
        return self.name != "gope"

    @property
    def rho(self) -> float | None:
        """The zCDP parameter ρ (None for the non-private twin)."""
        return self.epsilon


def gope_policy(name: str, epsilon=None, s: int = 1, *, delta: float = 0.1,
                tol: float = FW_TOL, allocation: str = "halves", label: str | None = None
                ) -> GopeSpec:
    """Validated :class:`GopeSpec`; ``epsilon`` carries ρ (zCDP) for ``"adac-gope"``.
    ``"adac-gope-sum"`` is AdaC-GOPE with ``allocation="sum"`` (for presets, which build
    specs by name)."""
    if name == "adac-gope-sum":
        name, allocation = "adac-gope", "sum"
    if name not in NAMES:
        raise ParameterError(f"unknown policy {name!r}; choose one of {NAMES}")
    rho = _check_rho(name, epsilon, name != "gope")
    tol = float(tol)
    if not 0 < tol <= 1:
        raise ParameterError(f"tol must lie in (0, 1], got {tol!r}")
    if allocation not in ("halves", "sum"):
        raise ParameterError(f"allocation must be 'halves' or 'sum', got {allocation!r}")
    if label is None:
        label = f"AdaC-GOPE (ρ={rho:g})" if rho is not None else "GOPE"
        if rho is not None and allocation == "sum":
            label = f"AdaC-GOPE-sum (ρ={rho:g})"
    return GopeSpec(name, rho, check_int("s", s, minimum=1),
                    float(check_probability("delta", delta)), tol, label, allocation)


# ------------------------------------------------------------------------- design
@dataclass(frozen=True)
class Design:
    """G-optimal design ``weights`` on the rows of X, its value ``g`` = max_a ‖a‖²_{V(π)^{-1}}
    (recomputed exactly at the end), and Frank–Wolfe ``iterations``."""

    weights: np.ndarray
    g: float
    iterations: int


def g_optimal_design(X, tol: float = FW_TOL, max_iter: int = FW_MAX_ITER) -> Design:
    """Frank–Wolfe (Todd 2016, Lattimore & Szepesvári §21.2) for the G-optimal design on
    the rows of ``X`` (k × d, spanning R^d): from the uniform design, step to the action
    j = argmax g_π(a) with γ = (g_j/d − 1)/(g_j − 1) (the exact line search for log det),
    updating V(π)^{-1} and all g_π(a) by Sherman–Morrison (O(kd) per step); stop when
    max g <= (1 + tol)·d (for d = 1: all mass on the longest action, g = 1).
    ``ParameterError`` when X does not span R^d."""
    X = np.asarray(X, dtype=np.float64)
    if X.ndim != 2 or X.shape[0] < 1 or X.shape[1] < 1:
        raise ParameterError(f"design needs a non-empty (k, d) action matrix, got {X.shape}")
    k, d = X.shape
    sv = np.linalg.svd(X, compute_uv=False)
    if sv.size < d or sv[-1] <= RANK_TOL * max(sv[0], 1e-300):
        raise ParameterError("singular design: the actions do not span R^d "
                             "(project them onto their span first)")
    if d == 1:  # the optimum is all mass on the longest action (FW would take γ = 1)
        pi = np.zeros(k)
        pi[int(np.argmax(np.abs(X[:, 0])))] = 1.0
        return Design(pi, 1.0, 0)
    pi = np.full(k, 1.0 / k)
    Vinv = np.linalg.inv(X.T @ (X * pi[:, None]))
    g = np.einsum("ij,jk,ik->i", X, Vinv, X)
    it = 0
    while it < max_iter:
        j = int(np.argmax(g))
        gj = g[j]
        if gj <= (1 + tol) * d:
            break
        gamma = (gj / d - 1) / (gj - 1)
        # V' = (1−γ)V + γ x xᵀ;  V'^{-1} = [V^{-1} − c u uᵀ]/(1−γ), u = V^{-1}x
        c = (gamma / (1 - gamma)) / (1 + gamma / (1 - gamma) * gj)
        u = Vinv @ X[j]
        w = X @ u
        Vinv = (Vinv - c * np.outer(u, u)) / (1 - gamma)
        g = (g - c * w * w) / (1 - gamma)
        pi *= 1 - gamma
        pi[j] += gamma
        it += 1
    Vinv = np.linalg.inv(X.T @ (X * pi[:, None]))
    g_final = float(np.einsum("ij,jk,ik->i", X, Vinv, X).max())
    return Design(pi, g_final, it)


# ----------------------------------------------------------------------- mechanism
def phase_sensitivity(X, counts) -> float:
    """Δ = 2 max_{a: counts(a) > 0} ‖a‖_{V^{-1}}, V = Σ counts(a) a aᵀ: the L2 sensitivity
    of q = V^{-1/2} Σ_s a_s r_s to one reward in [−1, 1] (module docstring, step 4)."""
    X = np.asarray(X, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    V = X.T @ (X * c[:, None])
    Vinv = np.linalg.inv(V)
    sup = c > 0
    q = np.einsum("ij,jk,ik->i", X[sup], Vinv, X[sup])
    return 2.0 * math.sqrt(float(q.max()))


def phase_statistic(X, counts, reward_sums) -> np.ndarray:
    """The noiseless statistic q = V^{-1/2} S (symmetric square root), S = Σ_a a·sum_a —
    the query whose sensitivity :func:`phase_sensitivity` bounds (tests only)."""
    X = np.asarray(X, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    V = X.T @ (X * c[:, None])
    w, U = np.linalg.eigh(V)
    return (U / np.sqrt(w)) @ U.T @ (X.T @ np.asarray(reward_sums, dtype=np.float64))


def release(X, counts, reward_sums, sigma: float, rng, size: int | None = None
            ) -> np.ndarray:
    """θ̃ = V^{-1} S + C Z, C Cᵀ = V^{-1}, Z ~ N(0, σ² I) (``size`` draws → (size, d));
    with σ = 0 the non-private θ̂ = V^{-1} S."""
    X = np.asarray(X, dtype=np.float64)
    c = np.asarray(counts, dtype=np.float64)
    V = X.T @ (X * c[:, None])
    Vinv = np.linalg.inv(V)
    Vinv = (Vinv + Vinv.T) / 2
    mean = Vinv @ (X.T @ np.asarray(reward_sums, dtype=np.float64))
    if sigma == 0:
        return mean if size is None else np.broadcast_to(mean, (size, X.shape[1])).copy()
    C = np.linalg.cholesky(Vinv)
    g = as_rng(rng)
    z = g.standard_normal(X.shape[1] if size is None else (size, X.shape[1]))
    return mean + sigma * (z @ C.T)


def phase_length(spec: GopeSpec, g: float, ell: int, k: int) -> int:
    """N_ℓ (module docstring, step 3)."""
    eps = 2.0 ** -ell
    calls = ell * (ell + 1)
    if not spec.private:
        return math.ceil(2 * g * math.log(2 * k * calls / spec.delta) / eps**2)
    L = math.log(4 * k * calls / spec.delta)
    if spec.allocation == "sum":
        a, b = 2 * g * math.sqrt(L / spec.epsilon), math.sqrt(2 * g * L)
        u = 2 * eps / (b + math.sqrt(b * b + 4 * a * eps))  # stable form of the root
        return math.ceil(1 / (u * u))
    return math.ceil(max(8 * g * L / eps**2, 4 * g * math.sqrt(L / spec.epsilon) / eps))


# ------------------------------------------------------------------------ simulate
@dataclass(frozen=True)
class PhaseRelease:
    """One released statistic: phase ``ell``, its plays ``n_plays`` (= Σ T_ℓ(a)), ``N``
    (N_ℓ), design value ``g``, sensitivity ``sensitivity`` (Δ_ℓ, realised),
    ``bound`` = 2√(g/N) and ``sigma`` (σ_ℓ = Δ_ℓ/√(2ρ); 0 for GOPE), ``active`` count."""

    ell: int
    n_plays: int
    N: int
    g: float
    sensitivity: float
    bound: float
    sigma: float
    active: int


@dataclass
class LinearRunResult:
    """Regret curve (``checkpoints``, cumulative pseudo-regret ``regret``) of one run and
    the released statistics ``releases``."""

    checkpoints: np.ndarray
    regret: np.ndarray
    env_name: str
    releases: list = field(default_factory=list)

    @property
    def final_regret(self) -> float:
        return float(self.regret[-1])


def _span_basis(X: np.ndarray) -> np.ndarray:
    """Orthonormal basis (d × d') of the row span of X (d' = numerical rank)."""
    _, s, Vt = np.linalg.svd(X, full_matrices=False)
    r = int((s > RANK_TOL * max(s[0], 1e-300)).sum()) if s.size else 0
    return Vt[:r].T


def simulate_gope(spec: GopeSpec, env: LinearEnv, horizon: int, rng=None, *,
                  checkpoints=None) -> LinearRunResult:
    """One run of ``spec`` on ``env`` for ``horizon`` rounds; pseudo-regret at
    ``checkpoints`` (default: ~100 log-spaced times ending at T)."""
    if not isinstance(spec, GopeSpec):
        raise ParameterError(f"spec must be a GopeSpec, got {type(spec).__name__}")
    if not isinstance(env, LinearEnv):
        raise ParameterError(f"env must be a LinearEnv, got {type(env).__name__}")
    T = check_int("horizon", horizon, minimum=1)
    cps = check_checkpoints(checkpoints, T)
    gen = as_rng(rng)
    k = env.n
    active = np.arange(k)
    seg_len: list[int] = []
    seg_gap: list[float] = []
    releases: list[PhaseRelease] = []
    t, ell = 0, 0
    while t < T:
        if len(active) == 1:
            seg_len.append(T - t)
            seg_gap.append(float(env.gaps[active[0]]))
            break
        ell += 1
        A = env.actions[active]
        B = _span_basis(A)
        if B.shape[1] == 0:  # all active actions are 0: identical means, nothing to learn
            active = active[:1]
            continue
        X = A @ B
        des = g_optimal_design(X, spec.tol)
        N = phase_length(spec, des.g, ell, k)
        counts = np.where(des.weights > 0, np.ceil(des.weights * N), 0).astype(np.int64)
        n_plays = int(counts.sum())
        budget = min(n_plays, T - t)
        if budget < n_plays:  # horizon cuts the phase: play in order, release nothing
            played = np.minimum(counts, np.maximum(budget - (np.cumsum(counts) - counts), 0))
        else:
            played = counts
        nz = np.flatnonzero(played)
        seg_len.extend(played[nz].tolist())
        seg_gap.extend(env.gaps[active[nz]].tolist())
        t += int(played.sum())
        if budget < n_plays:
            break
        sums = env.reward_sums(np.bincount(active, weights=counts, minlength=k)
                               .astype(np.int64), gen)[active]
        if spec.private:
            delta_l = phase_sensitivity(X, counts)
            sigma = delta_l / math.sqrt(2 * spec.epsilon)
        else:
            delta_l, sigma = phase_sensitivity(X, counts), 0.0
        theta = release(X, counts, sums, sigma, gen)
        releases.append(PhaseRelease(ell, n_plays, N, des.g, delta_l,
                                     2 * math.sqrt(des.g / N), sigma, len(active)))
        est = X @ theta
        active = active[est.max() - est <= 2 * 2.0 ** -ell]
    ends = np.concatenate(([0], np.cumsum(seg_len, dtype=np.float64)))
    reg = np.concatenate(([0.0], np.cumsum(np.asarray(seg_len, float) * np.asarray(seg_gap))))
    regret = np.interp(cps.astype(np.float64), ends, reg)
    return LinearRunResult(cps, regret, env.name, releases)


# ------------------------------------------------------------------------ accounting
def privacy_report(spec, delta) -> PrivacyReport:
    """ρ-zCDP of a :class:`GopeSpec` or ``OfulSpec`` (``spec.epsilon`` holds ρ; as every
    reward enters exactly one release, ρ is also the whole run's) and its (ε, δ) by
    :func:`privtools.accounting.zcdp_to_dp`, as the one :class:`PrivacyReport` of the zCDP
    bandits; ``ParameterError`` for the non-private twins."""
    rho = getattr(spec, "epsilon", None)
    if not getattr(spec, "private", False) or rho is None:
        raise ParameterError(f"{getattr(spec, 'name', spec)!r} is not private")
    rho = to_fraction("rho", rho)
    lem = zcdp_to_dp(rho, delta)
    std = zcdp_to_dp(rho, delta, method="standard")
    return PrivacyReport(spec.name, rho, ZCDPEvent(rho), float(delta), lem.epsilon,
                         std.epsilon, 1, rho)


__all__ = ["Design", "GopeSpec", "LinearRunResult", "PhaseRelease", "PrivacyReport",
           "g_optimal_design", "gope_policy", "phase_length", "phase_sensitivity",
           "phase_statistic", "privacy_report", "release", "simulate_gope"]
