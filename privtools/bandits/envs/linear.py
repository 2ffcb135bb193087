"""Linear and linear-contextual bandit environments of 001 §VII.

``LinearEnv``       fixed finite action set A ⊂ R^d (rows of ``actions``), mean reward
                    ⟨θ, a⟩, observed reward ⟨θ, a⟩ + N(0, noise_sd²) clipped to [−1, 1].
``sphere_instance`` 001 §VII linear experiment: actions and θ uniform on the unit sphere.
``ContextualEnv``   a fresh action set of K vectors ~ N(0, I/d) every round, each scaled to
                    norm ≤ 1 (x ← x / max(1, ‖x‖)); θ uniform on the unit sphere.

Clipping. Every observed reward is clipped to [−1, 1], because the mechanisms' sensitivities
(2 per reward, see ``gope`` and ``oful``) need bounded rewards. With μ = ⟨θ, a⟩ ∈ [−1, 1]
the clipped reward has mean f(μ) = E[clip(μ + ξ, −1, 1)], not μ: f is odd and strictly
increasing, f'(μ) = Φ((1 − μ)/sd) − Φ((−1 − μ)/sd) (0.68 at μ = 0, 0.48 at μ = 1 for
sd = 1), so the ranking of actions is preserved but the linear model is misspecified by
the nonlinearity of f. Clipped rewards lie in [−1, 1], hence are 1-sub-Gaussian about
their mean. Pseudo-regret is measured with the linear means ⟨θ, a⟩.

Bounds (ParameterError otherwise): d >= 1, at least one action, every action and θ of
norm <= ``bound`` (1 by default; then |⟨θ, a⟩| <= 1), finite entries.
"""

from __future__ import annotations

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng, check_int

#: slack on norm checks (float rounding of vectors normalised to norm 1)
NORM_SLACK = 1e-9


def _unit_sphere(n: int, d: int, rng: np.random.Generator) -> np.ndarray:
    """``n`` points uniform on the unit sphere of R^d (normalised Gaussians)."""
    x = rng.standard_normal((n, d))
    nrm = np.linalg.norm(x, axis=1, keepdims=True)
    while np.any(nrm == 0):  # probability zero; keeps the output free of NaN
        bad = nrm[:, 0] == 0
        x[bad] = rng.standard_normal((int(bad.sum()), d))
        nrm = np.linalg.norm(x, axis=1, keepdims=True)
    return x / nrm


def check_actions(actions, bound: float = 1.0, name: str = "actions") -> np.ndarray:
    """``actions`` as a float (..., n, d) array with n >= 1, d >= 1, finite entries and every
    row of norm <= ``bound``; ``ParameterError`` naming the first violation otherwise."""
    a = np.asarray(actions, dtype=np.float64)
    if a.ndim < 2:
        raise ParameterError(f"{name} must have shape (n, d), got shape {a.shape}")
    if a.shape[-1] < 1:
        raise ParameterError(f"{name}: dimension d must be >= 1, got {a.shape[-1]}")
    if a.shape[-2] < 1:
        raise ParameterError(f"{name}: the action set is empty")
    if not np.all(np.isfinite(a)):
        raise ParameterError(f"{name} must be finite")
    nrm = np.linalg.norm(a, axis=-1)
    if nrm.max() > bound + NORM_SLACK:
        raise ParameterError(f"{name}: an action has norm {nrm.max():.6g} > bound {bound}")
    return a


def _check_theta(theta, d: int, bound: float) -> np.ndarray:
    th = np.asarray(theta, dtype=np.float64)
    if th.shape != (d,):
        raise ParameterError(f"theta must have shape ({d},), got {th.shape}")
    if not np.all(np.isfinite(th)):
        raise ParameterError("theta must be finite")
    if np.linalg.norm(th) > bound + NORM_SLACK:
        raise ParameterError(f"theta has norm {np.linalg.norm(th):.6g} > bound {bound}")
    return th


def _check_sd(noise_sd) -> float:
    sd = float(noise_sd)
    if not np.isfinite(sd) or sd < 0:
        raise ParameterError(f"noise_sd must be finite and >= 0, got {noise_sd!r}")
    return sd


class LinearEnv:
    """Fixed action set ``actions`` (n × d), parameter ``theta`` (d,), Gaussian noise of
    standard deviation ``noise_sd``; observed rewards clipped to [−1, 1]."""

    def __init__(self, actions, theta, noise_sd: float = 1.0, *, bound: float = 1.0,
                 name: str = "linear"):
        self.actions = check_actions(actions, bound)
        self.n, self.d = self.actions.shape
        self.theta = _check_theta(theta, self.d, bound)
        self.noise_sd = _check_sd(noise_sd)
        self.bound = float(bound)
        self.name = str(name)
        self.means = self.actions @ self.theta
        self.best = int(np.argmax(self.means))
        self.gaps = self.means[self.best] - self.means

    @property
    def K(self) -> int:
        """The number of actions."""
        return self.n

    def rewards(self, index, rng) -> np.ndarray:
        """Clipped rewards of the actions ``index`` (int array), one draw each."""
        idx = np.asarray(index, dtype=np.int64)
        g = as_rng(rng)
        r = self.means[idx] + self.noise_sd * g.standard_normal(idx.shape)
        return np.clip(r, -1.0, 1.0)

    def reward_sums(self, counts, rng) -> np.ndarray:
        """Sum of ``counts[i]`` clipped rewards of action i, for every action (vectorized:
        one normal draw per reward)."""
        c = np.asarray(counts, dtype=np.int64)
        if c.shape != (self.n,) or np.any(c < 0):
            raise ParameterError(f"counts must be {self.n} non-negative integers")
        total = int(c.sum())
        out = np.zeros(self.n)
        if total == 0:
            return out
        idx = np.repeat(np.arange(self.n), c)
        r = self.rewards(idx, rng)
        nz = np.flatnonzero(c)
        out[nz] = np.add.reduceat(r, np.concatenate(([0], np.cumsum(c[nz])[:-1])))
        return out

    def __repr__(self) -> str:
        return f"LinearEnv(n={self.n}, d={self.d}, noise_sd={self.noise_sd})"


def sphere_instance(n_actions: int, rng=None, d: int = 3, noise_sd: float = 1.0
                    ) -> LinearEnv:
    """001 §VII linear instance: ``n_actions`` actions and θ i.i.d. uniform on the unit
    sphere of R^d."""
    n = check_int("n_actions", n_actions, minimum=1)
    d = check_int("d", d, minimum=1)
    g = as_rng(rng)
    acts = _unit_sphere(n, d, g)
    theta = _unit_sphere(1, d, g)[0]
    return LinearEnv(acts, theta, noise_sd, name=f"sphere-d{d}-n{n}")


class ContextualEnv:
    """Linear contextual bandit: per round K fresh actions ~ N(0, I/d), each scaled by
    1/max(1, ‖x‖) so that ‖x‖ <= 1; reward ⟨θ, x⟩ + N(0, noise_sd²) clipped to [−1, 1]."""

    def __init__(self, theta, K: int, d: int, noise_sd: float = 1.0, *, bound: float = 1.0,
                 name: str | None = None):
        self.d = check_int("d", d, minimum=1)
        self.K = check_int("K", K, minimum=1)
        self.bound = float(bound)
        self.theta = _check_theta(theta, self.d, self.bound)
        self.noise_sd = _check_sd(noise_sd)
        self.name = name or f"gauss-context-d{self.d}-K{self.K}"

    def action_sets(self, n_rounds: int, rng) -> np.ndarray:
        """Action sets of ``n_rounds`` rounds at once, shape (n_rounds, K, d)."""
        n = check_int("n_rounds", n_rounds, minimum=0)
        g = as_rng(rng)
        x = g.standard_normal((n, self.K, self.d)) / np.sqrt(self.d)
        nrm = np.linalg.norm(x, axis=-1, keepdims=True)
        return x * (self.bound / np.maximum(self.bound, nrm))

    def __repr__(self) -> str:
        return f"ContextualEnv(K={self.K}, d={self.d}, noise_sd={self.noise_sd})"


def contextual_instance(K: int, rng=None, d: int = 3, noise_sd: float = 1.0
                        ) -> ContextualEnv:
    """001 §VII contextual instance: θ uniform on the unit sphere of R^d, K actions per
    round."""
    d = check_int("d", d, minimum=1)
    theta = _unit_sphere(1, d, as_rng(rng))[0]
    return ContextualEnv(theta, K, d, noise_sd)


__all__ = ["ContextualEnv", "LinearEnv", "check_actions", "contextual_instance",
           "sphere_instance"]
