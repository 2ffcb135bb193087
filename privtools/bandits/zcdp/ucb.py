"""AdaC-UCB (001, finite arms): ρ-interactive-zCDP UCB with adaptive per-arm episodes.

The algorithm (001 §III / Alg. 4 and Appendix D; formulas as written out in
FORMULAS.md § "zCDP bandits (paper 001)"), for K arms with rewards in [0, 1], budget ρ:

1. play each arm once — K episodes of length n_a = 1, each releasing its one reward;
2. then, episode after episode: at round t (the 1-based round at which the episode starts)
   pick A = argmax_a I_a(t) (ties → the smallest index), play A for L = 2·n_A rounds
   (twice its last episode), *forget* A's older samples, and release the private mean of
   the L new rewards; n_A ← L.

Index of arm a, with n_a the length of a's last episode and μ̃_a its released mean:

    I_a(t) = μ̃_a + √(β log t / (2 n_a)) + √(β log t / ρ) / n_a,       β > 3.

The second term is Hoeffding's width for a mean of n_a rewards in [0, 1]; the third is the
Gaussian tail σ_a √(2β log t) with σ_a = 1/(n_a √(2ρ)). log t is evaluated once, at the
episode's first round: the index is only consulted there (an episode is never interrupted),
so this is the per-round algorithm exactly. The non-private twin ("ucb-twin") uses the
exact mean μ̂_a and drops the third term.

Privacy (001 Appendix D, Lemma 1 parallel composition; Gaussian mechanism, Bun & Steinke
2016 Prop. 1.6):

* one released statistic per episode; episodes of an arm use disjoint rounds and an arm
  forgets everything before its last episode, so each reward enters exactly one release;
* the release of an episode of length n is the mean of n rewards in [0, 1]: changing one
  reward moves it by at most Δ = 1/n (L2 = L1 sensitivity, scalar query);
* Gaussian noise N(0, σ²) with σ² = Δ²/(2ρ) = 1/(2ρ n²) makes it Δ²/(2σ²) = ρ-zCDP;
* each release depends on the data only through its own episode's rewards (the episode
  boundaries are a post-processing of earlier releases), so the whole interaction is
  ρ-zCDP (001 Theorem 1 via the adaptive parallel-composition argument of Appendix D).

The noise is drawn **once per episode**, when the episode ends: μ̃_a is stored and reused by
every later index computation until arm a's next episode replaces it. Drawing fresh noise on
the same rewards at every round would be a new release each time and would compose.

Discrete variant ("adac-ucb-discrete"): each reward x ∈ [0, 1] is encoded as the integer
q = ⌊2^k x⌋ + B, B ~ Bernoulli(2^k x − ⌊2^k x⌋) (randomized rounding; exact for rewards
on the grid 2^-k ℤ, e.g. Bernoulli rewards, and q ∈ {0, …, 2^k} always). The release is
S + Z with S = Σ q (an exact int64 sum) and Z ~ N_Z(0, σ_Z²) drawn by the integer-only
CKS sampler, σ_Z² = 4^k / (2ρ) as an exact Fraction. Changing one reward changes one q, so
S moves by at most Δ_Z = 2^k (an integer), and the discrete Gaussian mechanism is
Δ_Z²/(2σ_Z²) = ρ-zCDP (Canonne, Kamath & Steinke 2020, Theorem 4). The index uses
μ̃_a = (S + Z)/(2^k n_a), a post-processing; Var Z <= σ_Z² (CKS20 Cor. 9), so the noise on
the mean has variance <= 1/(2ρ n_a²) and is σ²-sub-Gaussian (CKS20 Cor. 9) — the same
index as the continuous variant.

Returning users (the analogue of 000 App. H's Assumption 2): with ``participations=k`` a
user's rewards enter up to k releases, at most one reward in each. zCDP composes additively
(Bun & Steinke 2016, Lemma 2.3), so the user is kρ-zCDP over the run, and
:func:`calibrate_rho` picks the per-release ρ whose kρ converts (:func:`zcdp_to_dp`,
Lemma 10 of 000 / CKS20) to a target (ε, δ). That is a *conversion* of a zCDP bound, not a
certified privacy-loss distribution as for the batch-SE plans of paper 000
(:class:`privtools.accounting.PldAccountant`): the (ε, δ) it reports is an upper bound that a
PLD account of the Gaussian releases would tighten.

Regret is the cumulative pseudo-regret Σ_{s<=t} (μ* − μ_{a_s}), exact given the episodes.
A final episode cut short by the horizon releases nothing (its statistic would never be
used), so its rewards are not drawn.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng, check_int, check_positive_fraction, to_fraction

from ...accounting import ZCDPEvent, zcdp_to_dp
from ...noise import DiscreteGaussian
from ..envs.finite import Environment
from ..runs import check_run

__all__ = [
    "ZCDP_POLICIES",
    "ZCDP_NON_PRIVATE",
    "ZcdpSpec",
    "zcdp_policy",
    "Release",
    "UcbResult",
    "PrivacyReport",
    "simulate_ucb",
    "privacy_report",
    "RhoCalibration",
    "calibrate_rho",
    "gaussian_sigma2",
    "discrete_sigma2",
    "gaussian_release",
    "discrete_release",
    "quantize",
    "episode_statistic",
]

ZCDP_POLICIES = ("adac-ucb", "adac-ucb-discrete", "ucb-twin")
#: policies without a privacy parameter
ZCDP_NON_PRIVATE = frozenset({"ucb-twin"})
_LABELS = {"adac-ucb": "AdaC-UCB", "adac-ucb-discrete": "AdaC-UCB (discrete)",
           "ucb-twin": "UCB twin"}
# Rewards drawn at once inside one episode (2**22 float64 = 32 MB).
CHUNK = 1 << 22


# ------------------------------------------------------------------------------ specs
@dataclass(frozen=True)
class ZcdpSpec:
    """A finite-arm zCDP policy: ``name`` in :data:`ZCDP_POLICIES`, ``epsilon`` holds ρ
    (None for the twin), ``s`` is unused (runner compatibility), ``beta`` the exploration
    constant β > 3, ``bits`` the reward precision k of the discrete variant,
    ``participations`` the most releases one user's rewards enter (one reward each; the
    user is then kρ-zCDP, see :func:`calibrate_rho`)."""

    name: str
    epsilon: float | None = None
    s: int = 1
    beta: float = 3.1
    bits: int = 16
    participations: int = 1

    @property
    def rho(self) -> float | None:
        """The zCDP parameter ρ (None for the non-private twin)."""
        return self.epsilon

    @property
    def rho_exact(self) -> Fraction | None:
        """ρ as an exact Fraction: the stored float's binary value, the one rule of
        :func:`privtools.validation.to_fraction` (0.1 → 3602879701896397/2**55)."""
        return None if self.epsilon is None else to_fraction("rho", self.epsilon)

    @property
    def private(self) -> bool:
        """Whether the policy adds noise."""
        return self.name not in ZCDP_NON_PRIVATE

    @property
    def label(self) -> str:
        """The policy's name in plots and tables."""
        base = _LABELS[self.name]
        if self.epsilon is None:
            return base
        k = f", k={self.participations}" if self.participations > 1 else ""
        return f"{base} (ρ={self.epsilon:g}{k})"


def zcdp_policy(name: str, epsilon=None, s: int = 1, beta: float = 3.1,
                bits: int = 16, participations: int = 1) -> ZcdpSpec:
    """Validated :class:`ZcdpSpec` (``epsilon`` is ρ per release). :class:`ParameterError`
    for an unknown name, ρ missing/<= 0/not finite for a private policy, ρ given for the
    twin, β <= 3 or not finite, ``bits`` outside 1..40, ``participations`` not an int >= 1
    (or > 1 for the twin). For returning users take ρ from :func:`calibrate_rho`:
    ``zcdp_policy("adac-ucb", epsilon=calibrate_rho(1, 1e-6, 4).rho, participations=4)``."""
    if name not in ZCDP_POLICIES:
        raise ParameterError(f"unknown zCDP policy {name!r}; choose one of "
                             f"{', '.join(ZCDP_POLICIES)}")
    s = check_int("s", s, minimum=1)
    if isinstance(beta, bool) or not isinstance(beta, (int, float)) or \
            not math.isfinite(beta) or beta <= 3:
        raise ParameterError(f"beta must be a finite number > 3, got {beta!r}")
    bits = check_int("bits", bits, minimum=1)
    if bits > 40:  # a chunk's sum, <= 2^22 · 2^40, must fit int64
        raise ParameterError(f"bits must be <= 40, got {bits}")
    k = check_int("participations", participations, minimum=1)
    if name in ZCDP_NON_PRIVATE:
        if epsilon is not None:
            raise ParameterError(f"{name} is non-private: give no epsilon (ρ)")
        if k != 1:
            raise ParameterError(f"participations applies to private policies only, got "
                                 f"participations={participations!r} for {name}")
        return ZcdpSpec(name, None, s, float(beta), bits)
    if epsilon is None:
        raise ParameterError(f"{name} needs epsilon = ρ > 0")
    rho = to_fraction("epsilon (ρ)", epsilon)
    if rho <= 0:
        raise ParameterError(f"epsilon (ρ) must be > 0, got {epsilon!r}")
    return ZcdpSpec(name, float(epsilon), s, float(beta), bits, k)


# ------------------------------------------------------------------------ mechanisms
def gaussian_sigma2(rho, n: int) -> float:
    """σ² = Δ²/(2ρ) with Δ = 1/n: the variance that makes the mean of n rewards in [0, 1]
    ρ-zCDP."""
    return 1.0 / (2.0 * float(rho) * n * n)


def discrete_sigma2(rho, bits: int) -> Fraction:
    """σ_Z² = Δ_Z²/(2ρ) with Δ_Z = 2^bits, exact: the variance that makes the integer sum of
    rewards quantized to ``bits`` bits ρ-zCDP (CKS20 Thm 4)."""
    return Fraction(4**bits) / (2 * to_fraction("rho", rho))


def quantize(rewards, bits: int, rng) -> np.ndarray:
    """Randomized rounding of rewards in [0, 1] to int64 in {0, …, 2^bits}:
    ⌊2^k x⌋ + Bernoulli(frac); exact (no coin needed) on the grid 2^-k ℤ."""
    x = np.asarray(rewards, dtype=np.float64) * float(1 << bits)  # exact: power of 2
    lo = np.floor(x)
    frac = x - lo
    q = lo.astype(np.int64)
    if frac.any():
        q += as_rng(rng).random(frac.shape) < frac
    return q


def episode_statistic(rewards, name: str, bits: int = 16, rng=None):
    """(noiseless statistic, its sensitivity) of one episode's rewards: the mean and 1/n
    ("adac-ucb", "ucb-twin"), or the integer sum of the quantized rewards and 2^bits
    ("adac-ucb-discrete")."""
    r = np.asarray(rewards, dtype=np.float64)
    n = r.size
    if name == "adac-ucb-discrete":
        return int(quantize(r, bits, rng).sum()), 1 << bits
    return float(r.sum()) / n, 1.0 / n


def gaussian_release(mean: float, n: int, rho, rng, size=None):
    """``mean`` + N(0, 1/(2ρ n²)): ρ-zCDP release of the mean of n rewards in [0, 1]."""
    return mean + math.sqrt(gaussian_sigma2(rho, n)) * as_rng(rng).standard_normal(size)


def discrete_release(total: int, rho, bits: int, rng, size=None, *, _dg=None):
    """``total`` + N_Z(0, 4^bits/(2ρ)) (exact CKS sampler): ρ-zCDP release of the integer
    sum of rewards quantized to ``bits`` bits. A Python int when ``size`` is None, else an
    int64 array. ``_dg``: a prebuilt sampler of that law (then ``rho`` is not read)."""
    dg = _dg if _dg is not None else DiscreteGaussian(sigma2=discrete_sigma2(rho, bits))
    z = dg.sample(size, as_rng(rng), exact=True)
    if size is None:
        return int(total) + int(z)
    return np.int64(total) + z


# ----------------------------------------------------------------------- simulation
class Release(tuple):
    """One released statistic: ``(arm, n, sensitivity, sigma)`` — the episode's arm and
    length, the sensitivity Δ of the statistic and the noise scale σ it was calibrated with
    (mean scale 1/n and 1/(n√(2ρ)); discrete: sum scale 2^k and √(4^k/(2ρ)))."""

    __slots__ = ()

    def __new__(cls, arm, n, sensitivity, sigma):
        return super().__new__(cls, (arm, n, sensitivity, sigma))

    arm = property(lambda self: self[0], doc="The arm whose episode statistic is released.")
    n = property(lambda self: self[1], doc="The number of rewards in the episode.")
    sensitivity = property(lambda self: self[2],
                           doc="The L2 sensitivity the noise was calibrated to.")
    sigma = property(lambda self: self[3], doc="The Gaussian noise scale σ.")


@dataclass(frozen=True, eq=False)
class UcbResult:
    """One run: ``checkpoints`` (int64, ending at T), ``regret`` (float64 cumulative
    pseudo-regret there), ``env_name``, ``pulls`` per arm (int64, sum T), ``episodes``
    (int64 (E, 3): arm, first round (0-based), length — every episode including a final
    truncated one), ``releases`` (one :class:`Release` per released episode, in order)."""

    checkpoints: np.ndarray
    regret: np.ndarray
    env_name: str
    pulls: np.ndarray
    episodes: np.ndarray
    releases: list = field(repr=False)

    @property
    def final_regret(self) -> float:
        """The cumulative regret at the last checkpoint."""
        return float(self.regret[-1])


def _draw_sum(env: Environment, arm: int, n: int, gen, bits: int | None):
    """Sum of n fresh rewards of ``arm`` (float, or int64 sum of quantized rewards when
    ``bits`` is given), drawn in chunks of at most :data:`CHUNK`."""
    total = 0 if bits is not None else 0.0
    left = n
    while left:
        m = min(left, CHUNK)
        x = env.sample(arm, m, gen)
        if bits is None:
            total += float(x.sum())
        else:
            total += int(quantize(x, bits, gen).sum())
        left -= m
    return total


def simulate_ucb(spec: ZcdpSpec, env: Environment, horizon: int, rng=None, *,
                 checkpoints=None) -> UcbResult:
    """One run of ``spec`` on ``env`` for ``horizon`` T rounds (see the module docstring).

    The Python loop runs once per episode — O(K log T) iterations; an episode's rewards are
    drawn by one ``env.sample`` call (chunked above 2^22). :class:`ParameterError` if
    ``spec`` is not a :class:`ZcdpSpec`, K < 2 or T < K."""
    if not isinstance(spec, ZcdpSpec):
        raise ParameterError(f"spec must be a ZcdpSpec (see zcdp_policy), got {spec!r}")
    K, T, cps = check_run(env, horizon, checkpoints)
    gen = as_rng(rng)
    name, beta, bits = spec.name, spec.beta, spec.bits
    private = spec.private
    discrete = name == "adac-ucb-discrete"
    rho = float(spec.epsilon) if private else math.inf
    if discrete:
        dg = DiscreteGaussian(sigma2=discrete_sigma2(spec.rho_exact, bits))
        sig_z = math.sqrt(float(dg.sigma2))
        scale = float(1 << bits)
    n = np.ones(K, dtype=np.int64)            # length of each arm's last episode
    est = np.empty(K, dtype=np.float64)        # released (or exact) mean of that episode
    releases: list[Release] = []
    episodes: list[tuple[int, int, int]] = []

    def finish(a: int, length: int) -> None:
        """Draw the episode's rewards and release its statistic (noise drawn here, once)."""
        if discrete:
            s = _draw_sum(env, a, length, gen, bits)
            noisy = int(discrete_release(s, None, bits, gen, _dg=dg))
            est[a] = noisy / (scale * length)
            releases.append(Release(a, length, 1 << bits, sig_z))
        else:
            mean = _draw_sum(env, a, length, gen, None) / length
            if private:
                sd = math.sqrt(gaussian_sigma2(rho, length))
                est[a] = mean + sd * gen.standard_normal()
                releases.append(Release(a, length, 1.0 / length, sd))
            else:
                est[a] = mean
                releases.append(Release(a, length, 1.0 / length, 0.0))

    for a in range(K):                          # initialisation: each arm once
        episodes.append((a, a, 1))
        finish(a, 1)
    t = K                                       # rounds played
    c_priv = math.sqrt(beta / rho) if private else 0.0
    while t < T:
        log_t = math.log(t + 1)                 # t + 1: the episode's first round (1-based)
        nf = n.astype(np.float64)
        index = est + np.sqrt(beta * log_t / (2.0 * nf)) + c_priv * math.sqrt(log_t) / nf
        a = int(np.argmax(index))
        length = int(2 * n[a])
        if t + length > T:                      # truncated: no release, rewards not drawn
            episodes.append((a, t, T - t))
            t = T
            break
        episodes.append((a, t, length))
        finish(a, length)
        n[a] = length
        t += length

    ep = np.array(episodes, dtype=np.int64)
    gaps = env.best_mean - np.asarray(env.means, dtype=np.float64)
    g = gaps[ep[:, 0]]
    ends = ep[:, 1] + ep[:, 2]
    cum_end = np.cumsum(g * ep[:, 2])
    j = np.searchsorted(ends, cps, side="left")          # episode containing round cps
    before = np.where(j > 0, cum_end[np.maximum(j - 1, 0)], 0.0)
    regret = before + g[j] * (cps - ep[j, 1])
    pulls = np.bincount(ep[:, 0], weights=ep[:, 2], minlength=K).astype(np.int64)
    return UcbResult(cps, regret.astype(np.float64), str(getattr(env, "name", "env")),
                     pulls, ep, releases)


# -------------------------------------------------------------------------- privacy
@dataclass(frozen=True)
class PrivacyReport:
    """Privacy of one run of a policy: ``rho`` (each release and, by parallel composition
    over disjoint episodes, the whole interaction for a user in one release), ``event``
    (a :class:`ZCDPEvent` of ``rho_user``), ``delta``, ``epsilon`` (Lemma 10 / CKS20
    conversion, the tighter) and ``epsilon_standard`` (ρ + 2√(ρ log(1/δ)), Bun & Steinke
    2016 Prop. 1.3), both of ``rho_user`` = ``participations``·ρ (additive composition over
    a returning user's releases; a conversion, not a PLD certificate)."""

    policy: str
    rho: Fraction
    event: ZCDPEvent
    delta: float
    epsilon: float
    epsilon_standard: float
    participations: int = 1
    rho_user: Fraction | None = None


def privacy_report(spec: ZcdpSpec, delta) -> PrivacyReport:
    """ρ-zCDP of ``spec`` and the implied (ε, δ)-DP (:func:`zcdp_to_dp`).
    :class:`ParameterError` for the non-private twin."""
    if not isinstance(spec, ZcdpSpec):
        raise ParameterError(f"spec must be a ZcdpSpec, got {spec!r}")
    if not spec.private:
        raise ParameterError(f"{spec.name} is not private")
    rho = spec.rho_exact
    k = spec.participations
    rho_user = k * rho
    lem = zcdp_to_dp(rho_user, delta)
    std = zcdp_to_dp(rho_user, delta, method="standard")
    return PrivacyReport(spec.name, rho, ZCDPEvent(rho_user), float(delta), lem.epsilon,
                         std.epsilon, k, rho_user)


@dataclass(frozen=True)
class RhoCalibration:
    """Per-release ρ of AdaC-UCB for a returning user (module docstring).

    ``rho`` the per-release ρ (a float: what :class:`ZcdpSpec` holds; its exact value is
    the float's binary value, as :attr:`ZcdpSpec.rho_exact` reads it), ``rho_user``
    = ``participations``·ρ exactly, ``epsilon``/``delta`` the target, ``epsilon_achieved``
    the Lemma 10 conversion of ``rho_user`` (<= ``epsilon``), ``method`` says what it is:
    a zCDP → (ε, δ) *conversion*, not a PLD certificate."""

    rho: float
    rho_user: Fraction
    participations: int
    epsilon: float
    delta: float
    epsilon_achieved: float
    method: str = ("zCDP additive composition (kρ) + Lemma 10 (000) / CKS20 conversion; "
                   "not a PLD certificate")


def calibrate_rho(epsilon, delta, participations: int = 1,
                  steps: int = 60) -> RhoCalibration:
    """The largest per-release ρ (to ``steps`` bisection steps) such that a user in
    ``participations`` = k releases, kρ-zCDP by additive composition (Bun & Steinke 2016,
    Lemma 2.3), is (``epsilon``, ``delta``)-DP by :func:`zcdp_to_dp` (Lemma 10 of 000 /
    CKS20). The target is checked on the exact value of the ρ a :class:`ZcdpSpec` stores
    (the float's binary value). A conversion, not a certified privacy-loss
    distribution. :class:`ParameterError` names a bad ``epsilon``, ``delta`` (must be in
    (0, 1)), ``participations`` or ``steps``."""
    eps = float(check_positive_fraction("epsilon", epsilon))
    d = to_fraction("delta", delta)
    if not 0 < d < 1:
        raise ParameterError(f"delta must be in (0, 1) for a zCDP conversion, got {delta!r}")
    k = check_int("participations", participations, minimum=1)
    steps = check_int("steps", steps, minimum=1)
    return _calibrate_rho(eps, float(delta), k, steps)


@lru_cache(maxsize=256)
def _calibrate_rho(eps: float, delta: float, k: int, steps: int) -> RhoCalibration:
    def conv(rho: float) -> float:
        return zcdp_to_dp(k * to_fraction("rho", rho), delta).epsilon

    lo, hi = 0.0, eps / k          # zcdp_to_dp(ρ_user) >= ρ_user, so ρ_user <= ε
    for _ in range(steps):
        mid = (lo + hi) / 2
        if mid in (lo, hi):
            break
        if conv(mid) <= eps:
            lo = mid
        else:
            hi = mid
    if lo == 0.0:
        raise ParameterError(f"epsilon: no ρ > 0 found for epsilon={eps:g} at delta={delta}")
    return RhoCalibration(lo, k * to_fraction("rho", lo), k, eps, delta, conv(lo))
