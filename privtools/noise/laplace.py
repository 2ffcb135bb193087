"""Discrete Laplace distribution Lap_Z(b) (000 §4, Fact 2).

P(X = x) = (e^{1/b} - 1)/(e^{1/b} + 1) · e^{-|x|/b} = tanh(1/(2b)) · e^{-|x|/b},  x ∈ Z.

Fact 2 (000): adding Lap_Z(Δ/ε) to an integer query of sensitivity Δ is ε-DP, and
P(Y > k) = P(Y < -k) = e^{-εk/Δ}/(e^{ε/Δ} + 1) for integers k >= 0.
Fact 1 (000): Lap_Z(b) is the sum of n i.i.d. Pólya-difference shares with r = 1/n and
β = e^{-1/b} (:meth:`DiscreteLaplace.shares`).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .._validation import check_positive_fraction
from . import _arb
from ._arb import arb
from ._base import SymmetricIntegerDistribution, check_n

# Beyond this scale a float geometric draw could exceed int64 with non-negligible odds.
_MAX_FLOAT_SAMPLING_SCALE = 2**50


@dataclass(frozen=True)
class DiscreteLaplace(SymmetricIntegerDistribution):
    """Lap_Z(scale): ``P(x) ∝ exp(-|x|/scale)`` on the integers, centred at 0.

    ``scale`` is held exactly as a Fraction (a float is taken at its exact binary value).
    """

    scale: Fraction

    def __post_init__(self):
        object.__setattr__(self, "scale", check_positive_fraction("scale", self.scale))

    def __str__(self) -> str:
        return f"Lap_Z({self.scale})"

    # ---------------------------------------------------------------- float
    @property
    def _a(self) -> float:
        return float(1 / self.scale)

    def _center(self) -> int:
        return 0

    def _logpmf(self, k):
        a = self._a
        return math.log(math.tanh(a / 2)) - a * np.abs(k).astype(float)

    def _log_upper_tail(self, k):
        # Fact 2: P(X > k) = e^{-a(k+1)}/(1 + e^{-a}) for k >= 0.
        a = self._a
        return -a * (k.astype(float) + 1.0) - math.log1p(math.exp(-a))

    def _log_upper_ratio(self, j):
        return np.full(np.shape(j), -self._a)

    def mean(self) -> float:
        return 0.0

    def var(self) -> float:
        a = self._a
        return 2.0 * math.exp(-a) / math.expm1(-a) ** 2

    def _sample_exact(self, size, rng):
        from .exact_sampling import discrete_laplace

        return discrete_laplace(self.scale, size=size, rng=rng)

    def _check_sampling(self) -> None:
        if self.scale > _MAX_FLOAT_SAMPLING_SCALE:
            raise ValueError(
                f"scale={float(self.scale):.3g} is beyond the float sampler's range "
                f"(<= 2**50); use exact=True"
            )

    def _sample_direct(self, size, rng):
        p = -math.expm1(-self._a)
        shape = () if size is None else size
        return rng.geometric(p, shape) - rng.geometric(p, shape)

    # ---------------------------------------------------------------- exact
    def _arb_inv_scale(self) -> arb:
        return _arb.to_arb(1 / self.scale)

    def _arb_pmf(self, k: int) -> arb:
        a = self._arb_inv_scale()
        return (a / 2).tanh() * (-a * abs(k)).exp()

    def _arb_upper_tail(self, t: int) -> arb | None:
        if t < 0:
            return None
        a = self._arb_inv_scale()
        return (-a * (t + 1)).exp() / (1 + (-a).exp())

    # ---------------------------------------------------------------- shares
    def shares(self, n: int):
        """Fact 1 (000): one user's share, Pólya(1/n, e^{-1/b}) − Pólya(1/n, e^{-1/b});
        n i.i.d. shares sum to exactly Lap_Z(b)."""
        from .polya import PolyaDifference

        n = check_n(n)
        return PolyaDifference(Fraction(1, n), scale=self.scale)
