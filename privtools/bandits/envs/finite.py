"""Stochastic K-armed bandit environments with rewards in [0, 1] (000 §2, §7; 001 §VII).

An environment is an immutable description: arm means, a reward law per arm, a name.
``sample(arm, size, rng)`` draws ``size`` rewards of one arm; ``sample_many(arms, size,
rng)`` draws a (len(arms), size) matrix — one row per arm, all users of a batch at once.
Rewards are float64 in [0, 1]; every environment's output is in [0, 1] by construction,
and a user-supplied sampler's output (:class:`CustomEnv`) is checked on every call.

    GaussianEnv(means, sd=0.1)        N(μ_a, sd²) projected (clipped) to [0, 1] (000 §7)
    BernoulliEnv(means)               Ber(μ_a)
    BetaEnv(means, concentration=c)   Beta(cμ_a, c(1 − μ_a)), mean μ_a
    EmpiricalEnv(values, probs)       arm a draws values[j] with probability probs[a][j]
    CustomEnv(means, sampler)         sampler(arm, size, rng) -> rewards (checked)
    easy_instance(K, rng)             GaussianEnv with means ~ U[0.25, 0.75] (000 §7)
    hard_instance(K, rng)             GaussianEnv with means ~ U[0.45, 0.55] (000 §7)
    bernoulli_instance(K)             fixed Bernoulli, means 0.1, …, 0.9 and 0.95 (001 §VII)
    five_arm_instance()               fixed Bernoulli, means 0.75, 0.625, …, 0.25 (001 §VII)

Note on :class:`GaussianEnv`: the mean of the clipped reward differs from μ_a when μ_a is
within a few sd of 0 or 1 (by less than 1e-6 for μ_a in [0.25, 0.75] and sd = 0.1);
``means`` holds the nominal μ_a as in 000 §7, and ``clipped_means`` the exact means of the
projected rewards.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
from scipy.special import ndtr

from privtools.errors import ParameterError
from privtools.validation import as_rng, check_int

__all__ = [
    "Environment",
    "GaussianEnv",
    "BernoulliEnv",
    "BetaEnv",
    "EmpiricalEnv",
    "CustomEnv",
    "easy_instance",
    "hard_instance",
    "bernoulli_instance",
    "five_arm_instance",
    "FIVE_ARM_MEANS",
    "check_reward_array",
]


def _means_array(means, name: str = "means") -> np.ndarray:
    try:
        arr = np.array(means, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise ParameterError(f"{name} must be a sequence of numbers in [0, 1]") from exc
    if arr.ndim != 1:
        raise ParameterError(f"{name} must be one-dimensional, got shape {arr.shape}")
    if arr.size < 2:
        raise ParameterError(f"{name} must hold K >= 2 arms, got K = {arr.size}")
    if not np.all(np.isfinite(arr)) or np.any((arr < 0) | (arr > 1)):
        raise ParameterError(f"{name} must lie in [0, 1], got {arr.tolist()}")
    arr.setflags(write=False)
    return arr


def check_reward_array(x, shape: tuple[int, ...], what: str) -> np.ndarray:
    """``x`` as float64 of exactly ``shape``, every entry finite and in [0, 1]; otherwise a
    :class:`ParameterError` naming ``what`` (nothing is clipped)."""
    arr = np.asarray(x)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise ParameterError(f"{what} must return real numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if arr.shape != shape:
        raise ParameterError(f"{what} must return shape {shape}, got {arr.shape}")
    bad = ~np.isfinite(arr) | (arr < 0) | (arr > 1)
    if bad.any():
        i = int(np.flatnonzero(bad.ravel())[0])
        raise ParameterError(f"{what} returned {arr.ravel()[i]!r} at index {i}: rewards must "
                             "be finite and in [0, 1]")
    return arr


class Environment:
    """Base class: ``means`` (read-only float64 array of the K arm means), ``name``.

    Subclasses are frozen dataclasses; equality and hashing compare the type and the
    defining parameters. Subclasses implement ``_rows(arms, size, gen)`` returning a
    (len(arms), size) float64 array in [0, 1].
    """

    means: np.ndarray
    name: str

    # -------------------------------------------------------------- derived
    @property
    def K(self) -> int:
        """Number of arms."""
        return int(self.means.size)

    @property
    def best_mean(self) -> float:
        """μ* = max_a μ_a."""
        return float(self.means.max())

    @property
    def best_arm(self) -> int:
        """The index of the arm with the largest mean."""
        return int(np.argmax(self.means))

    @property
    def gaps(self) -> np.ndarray:
        """Δ_a = μ* − μ_a."""
        return self.best_mean - self.means

    # -------------------------------------------------------------- sampling
    def _rows(self, arms: np.ndarray, size: int, gen: np.random.Generator) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover

    def _check_arms(self, arms) -> np.ndarray:
        a = np.asarray(arms)
        if a.dtype == bool or a.dtype.kind not in "iu" or a.ndim != 1:
            raise ParameterError(f"arms must be a 1-D integer array, got {a!r}")
        if a.size and (a.min() < 0 or a.max() >= self.K):
            raise ParameterError(f"arms must lie in 0..{self.K - 1}, got {a.tolist()}")
        return a.astype(np.intp, copy=False)

    def sample(self, arm: int, size: int, rng=None) -> np.ndarray:
        """``size`` rewards of ``arm`` (float64 in [0, 1])."""
        arm = check_int("arm", arm, minimum=0)
        if arm >= self.K:
            raise ParameterError(f"arm must be < K = {self.K}, got {arm}")
        return self.sample_many(np.array([arm]), size, rng)[0]

    def sample_many(self, arms, size: int, rng=None) -> np.ndarray:
        """(len(arms), size) rewards: row i holds ``size`` rewards of ``arms[i]``."""
        a = self._check_arms(arms)
        size = check_int("size", size, minimum=0)
        return self._rows(a, size, as_rng(rng))

    # -------------------------------------------------------------- value semantics
    def _key(self) -> tuple:
        return (tuple(self.means.tolist()), self.name)

    def __eq__(self, other):
        return type(other) is type(self) and other._key() == self._key()

    def __hash__(self):
        return hash((type(self).__name__, self._key()))

    def __repr__(self):
        return f"{type(self).__name__}(name={self.name!r}, K={self.K}, " \
               f"means={np.round(self.means, 4).tolist()})"


@dataclass(frozen=True, eq=False, repr=False)
class GaussianEnv(Environment):
    """Rewards N(μ_a, sd²) projected to [0, 1] (000 §7: "sampled from Gaussian
    distribution ... and projected to [0, 1]")."""

    means: np.ndarray
    sd: float = 0.1
    name: str = "gaussian"

    def __post_init__(self):
        object.__setattr__(self, "means", _means_array(self.means))
        sd = float(self.sd)
        if not math.isfinite(sd) or sd < 0:
            raise ParameterError(f"sd must be a finite number >= 0, got {self.sd!r}")
        object.__setattr__(self, "sd", sd)

    def _key(self):
        return super()._key() + (self.sd,)

    @property
    def clipped_means(self) -> np.ndarray:
        """Exact means of the projected rewards: E[min(max(X, 0), 1)], X ~ N(μ, sd²)."""
        mu, s = self.means, self.sd
        if s == 0:
            return self.means.copy()

        def e_pos(m):  # E[max(X, 0)] for X ~ N(m, s²)
            z = m / s
            return m * ndtr(z) + s * np.exp(-z * z / 2) / math.sqrt(2 * math.pi)

        return e_pos(mu) - e_pos(mu - 1.0)

    def _rows(self, arms, size, gen):
        out = gen.standard_normal((arms.size, size))
        out *= self.sd
        out += self.means[arms][:, None]
        np.clip(out, 0.0, 1.0, out=out)
        return out


@dataclass(frozen=True, eq=False, repr=False)
class BernoulliEnv(Environment):
    """Rewards Ber(μ_a) in {0, 1}."""

    means: np.ndarray
    name: str = "bernoulli"

    def __post_init__(self):
        object.__setattr__(self, "means", _means_array(self.means))

    def _rows(self, arms, size, gen):
        u = gen.random((arms.size, size))
        return (u < self.means[arms][:, None]).astype(np.float64)


@dataclass(frozen=True, eq=False, repr=False)
class BetaEnv(Environment):
    """Rewards Beta(cμ_a, c(1 − μ_a)) with concentration c > 0 (mean μ_a, variance
    μ_a(1 − μ_a)/(c + 1)); means must lie strictly inside (0, 1)."""

    means: np.ndarray
    concentration: float = 10.0
    name: str = "beta"

    def __post_init__(self):
        m = _means_array(self.means)
        if np.any((m <= 0) | (m >= 1)):
            raise ParameterError(f"means of a BetaEnv must lie in (0, 1), got {m.tolist()}")
        object.__setattr__(self, "means", m)
        c = float(self.concentration)
        if not math.isfinite(c) or c <= 0:
            raise ParameterError(f"concentration must be a finite number > 0, got "
                                 f"{self.concentration!r}")
        object.__setattr__(self, "concentration", c)

    def _key(self):
        return super()._key() + (self.concentration,)

    def _rows(self, arms, size, gen):
        mu = self.means[arms][:, None]
        c = self.concentration
        return gen.beta(c * mu, c * (1.0 - mu), size=(arms.size, size))


@dataclass(frozen=True, eq=False, repr=False)
class EmpiricalEnv(Environment):
    """Arm a draws ``values[j]`` with probability ``probs_per_arm[a][j]`` (e.g. MovieLens
    ratings rescaled to values (0, .25, .5, .75, 1)). Rows of ``probs_per_arm`` must be
    non-negative and sum to 1 (within 1e-9; they are renormalized). Sampling: inverse CDF,
    one uniform per reward, one vectorized comparison per support value."""

    values: tuple
    probs_per_arm: tuple
    name: str = "empirical"
    means: np.ndarray = field(init=False)

    def __post_init__(self):
        v = np.array(self.values, dtype=np.float64)
        if v.ndim != 1 or v.size < 1 or not np.all(np.isfinite(v)) \
                or np.any((v < 0) | (v > 1)):
            raise ParameterError(f"values must be a non-empty 1-D sequence in [0, 1], got "
                                 f"{self.values!r}")
        P = np.array(self.probs_per_arm, dtype=np.float64)
        if P.ndim != 2 or P.shape[1] != v.size:
            raise ParameterError(f"probs_per_arm must have shape (K, {v.size}), got {P.shape}")
        if P.shape[0] < 2:
            raise ParameterError(f"probs_per_arm must hold K >= 2 arms, got K = {P.shape[0]}")
        if not np.all(np.isfinite(P)) or np.any(P < 0) \
                or np.any(np.abs(P.sum(axis=1) - 1) > 1e-9):
            raise ParameterError("probs_per_arm rows must be non-negative and sum to 1")
        P = P / P.sum(axis=1, keepdims=True)
        object.__setattr__(self, "values", tuple(v.tolist()))
        object.__setattr__(self, "probs_per_arm", tuple(tuple(r) for r in P.tolist()))
        cdf = np.cumsum(P, axis=1)
        cdf[:, -1] = 1.0
        cdf.setflags(write=False)
        object.__setattr__(self, "_cdf", cdf)
        object.__setattr__(self, "_v", v)
        means = np.clip(P @ v, 0.0, 1.0)
        means.setflags(write=False)
        object.__setattr__(self, "means", means)

    def _key(self):
        return (self.values, self.probs_per_arm, self.name)

    def _rows(self, arms, size, gen):
        u = gen.random((arms.size, size))
        cdf = self._cdf[arms]
        idx = np.zeros(u.shape, dtype=np.intp)
        for j in range(cdf.shape[1] - 1):  # one pass per support value, not per user
            idx += u >= cdf[:, j:j + 1]
        return self._v[idx]


@dataclass(frozen=True, eq=False, repr=False)
class CustomEnv(Environment):
    """A user-supplied reward law: ``sampler(arm, size, rng)`` must return ``size``
    rewards in [0, 1] for ``arm`` whose mean is ``means[arm]``. Every output is checked
    (shape, finite, in [0, 1]) before it is used; a bad one raises :class:`ParameterError`.
    Equality compares the sampler by identity."""

    means: np.ndarray
    sampler: Callable = None
    name: str = "custom"

    def __post_init__(self):
        object.__setattr__(self, "means", _means_array(self.means))
        if not callable(self.sampler):
            raise ParameterError(f"sampler must be callable sampler(arm, size, rng), got "
                                 f"{self.sampler!r}")

    def _key(self):
        return super()._key() + (id(self.sampler),)

    def _rows(self, arms, size, gen):
        out = np.empty((arms.size, size), dtype=np.float64)
        for i, a in enumerate(arms.tolist()):  # one call per arm, not per user
            out[i] = check_reward_array(self.sampler(a, size, gen), (size,),
                                        f"sampler (arm {a})")
        return out


def _instance(K, rng, lo: float, hi: float, name: str, sd: float) -> GaussianEnv:
    K = check_int("K", K, minimum=2)
    means = as_rng(rng).uniform(lo, hi, size=K)
    return GaussianEnv(tuple(means.tolist()), sd=sd, name=name)


def easy_instance(K: int, rng=None, sd: float = 0.1) -> GaussianEnv:
    """Easy instance of 000 §7: K means ~ U[0.25, 0.75], rewards N(μ, 0.1²) clipped."""
    return _instance(K, rng, 0.25, 0.75, "easy", sd)


def hard_instance(K: int, rng=None, sd: float = 0.1) -> GaussianEnv:
    """Hard instance of 000 §7: K means ~ U[0.45, 0.55], rewards N(μ, 0.1²) clipped."""
    return _instance(K, rng, 0.45, 0.55, "hard", sd)


# 001 §VII (finite arms). Paper 001 takes its Bernoulli means from Sajed & Sheffet 2019,
# but the numbers did not survive the extraction of 001 and that paper is not in this
# project, so neither instance is claimed to be theirs: the 10-arm instance is an evenly
# spaced choice of ours, the 5-arm one an evenly spaced instance on [0.25, 0.75]. Both are
# fixed: runs on them differ only in their reward and noise streams.
FIVE_ARM_MEANS = (0.75, 0.625, 0.5, 0.375, 0.25)


def bernoulli_instance(K: int, rng=None) -> BernoulliEnv:
    """Fixed Bernoulli instance (001 §VII): K − 1 means evenly spaced on [0.1, 0.9] and one
    best arm at 0.95 (K = 10: 0.1, 0.2, …, 0.9, 0.95). ``rng`` is ignored."""
    K = check_int("K", K, minimum=2)
    means = np.append(np.linspace(0.1, 0.9, K - 1), 0.95)
    return BernoulliEnv(means, name=f"bernoulli-{K}")


def five_arm_instance(K: int = 5, rng=None) -> BernoulliEnv:
    """Fixed 5-arm Bernoulli instance (001 §VII) with means :data:`FIVE_ARM_MEANS`; ``K``
    must be 5. ``rng`` is ignored."""
    if check_int("K", K, minimum=2) != 5:
        raise ParameterError(f"five_arm_instance has K = 5 arms, got K = {K}")
    return BernoulliEnv(FIVE_ARM_MEANS, name="bernoulli-5")
