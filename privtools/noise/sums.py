"""Sums of users' noise shares that have no closed form as a law of their own."""

from __future__ import annotations

import math
from dataclasses import dataclass

from privtools.certified.balls import arb
from privtools.errors import ParameterError
from privtools.validation import check_int

from ._base import IntegerDistribution


@dataclass(frozen=True)
class NoiseSum:
    """The law of the sum of ``n`` i.i.d. copies of ``share`` where no closed form exists
    (discrete-Gaussian shares, Theorem 4 (000); each user's Lap_Z in the local model,
    Theorem 6 (000)). A description only: the exact engine reads its facts, which follow
    from the share's (φ_S = φⁿ; Chernoff bounds of the share's n-fold sum)."""

    share: IntegerDistribution
    n: int

    def __post_init__(self):
        if not isinstance(self.share, IntegerDistribution):
            raise ParameterError("NoiseSum share must be a privtools.noise distribution, got "
                                 f"{type(self.share).__name__}")
        if self.share.center != 0:
            raise ParameterError("NoiseSum share must be centred (mu = 0)")
        object.__setattr__(self, "n", check_int("n", self.n, minimum=1))

    def __str__(self) -> str:
        return f"sum of {self.n} x {self.share}"

    @property
    def center(self) -> int:
        """0: the sum of symmetric shares is symmetric about 0."""
        return 0

    def var(self) -> float:
        """n times the share's variance."""
        return self.n * self.share.var()

    def std(self) -> float:
        """The standard deviation, √var."""
        return math.sqrt(self.var())

    def log_cf_ball(self, theta: arb) -> arb:
        """log φ_S(θ) = n · log φ(θ)."""
        return self.n * self.share.log_cf_ball(theta)

    def log_chernoff_ball(self, u: int, n: int = 1) -> arb:
        """Chernoff bound of a sum of ``n`` copies of this sum (n·self.n shares)."""
        return self.share.log_chernoff_ball(u, n * self.n)

    def two_sided_tail_ball(self, t: int) -> arb | None:
        """Closed-form tail only for a single share."""
        return self.share.two_sided_tail_ball(t) if self.n == 1 else None
