"""Discrete Gaussian N_Z(μ, σ²) (000 §5 and App. E; Canonne, Kamath & Steinke 2020).

P(X = x) = e^{-(x-μ)²/(2σ²)} / Z,  Z = Σ_{y∈Z} e^{-y²/(2σ²)}  (μ an integer).

Theorem 4 (000) gives each of n users the share N_Z(0, g²/(nε²)); unlike Skellam the sum
of discrete Gaussians is *not* a discrete Gaussian — Lemma 4 (000) bounds how far it is,
and ``privtools.exact.sum_pmf`` computes it exactly.

Numerics:
* the normaliser Z is computed in Arb, by Poisson summation for σ² >= 1,
  Z = √(2πσ²) (1 + 2 Σ_{j>=1} e^{-2π²σ² j²}), and by direct summation for σ² < 1; in both
  cases the truncated remainder is bounded with Σ_{j>J} e^{-c j²} <= e^{-c(J+1)²}/(1 − e^{-c(J+1)})
  and added to the ball;
* the variance is summed in Arb for σ <= 100; above, Poisson summation shows it equals σ²
  up to a relative error below e^{-2π²σ²}·4π²σ² < 1e-8000, far under float resolution;
* certified tails: p(x+1)/p(x) = e^{-(2(x-μ)+1)/(2σ²)} decreases in x, so
  P(X > t) <= p(t+1)/(1 − e^{-(2(t+1-μ)+1)/(2σ²)}) for t >= μ.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import cached_property
from typing import ClassVar

import flint
import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.balls import arb
from privtools.errors import ParameterError
from privtools.validation import check_positive_fraction, to_fraction

from ._base import SymmetricIntegerDistribution, check_n
from ._parameters import REAL_POSITIVE, Parameter, location
from ._samplers.fixed import TAIL_MASS, GaussianRejectionSampler
from ._samplers.fixed import floor_sqrt as _floor_sqrt
from ._samplers.weights import symmetric_table
from .exact_sampling import discrete_gaussian


def _arb_gauss_sum_remainder(c: arb, j0: int) -> arb:
    """Upper bound of Σ_{j >= j0} e^{-c j²} (for c > 0, j0 >= 1), as a ball [0, bound]."""
    bound = (-c * j0 * j0).exp() / (1 - (-c * j0).exp())
    return arb(0, bound.upper())


@dataclass(frozen=True, init=False)
class DiscreteGaussian(SymmetricIntegerDistribution):
    """N_Z(mu, sigma²) on the integers. Give ``sigma`` or (exactly) ``sigma2``.

    ``sigma2`` is held as a Fraction; ``DiscreteGaussian(sigma=s)`` uses ``Fraction(s)**2``.
    """

    #: the law's name, as scipy.stats names its distributions (the command line's
    #: kind of law)
    name: ClassVar[str] = "gaussian"

    sigma2: Fraction
    mu: int = field(default=0)

    #: Theorem 4 (000): N_Z(0, σ²) for a real σ² > 0 (``sigma`` spells σ² as σ·σ), shifted by
    #: an integer μ.
    parameters = (
        Parameter("sigma2", REAL_POSITIVE, "Theorem 4 (000): N_Z(0, σ²), σ² > 0",
                  limit=10**10, reason="its certified ranges would take minutes to hours",
                  reads=("x",), width_power=2),
        location("000 App. E: N_Z(μ, σ²) for an integer μ"),
    )

    def __init__(self, sigma=None, mu=0, *, sigma2=None):
        if (sigma is None) == (sigma2 is None):
            raise ParameterError("give exactly one of sigma or sigma2")
        sigma2_p, mu_p = self.parameters
        if sigma is not None:
            s = check_positive_fraction("sigma", sigma)
            s2 = sigma2_p.check(s * s, name="sigma**2")
        else:
            s2 = sigma2_p.check(sigma2)
        object.__setattr__(self, "sigma2", s2)
        object.__setattr__(self, "mu", mu_p.check(mu))

    def __str__(self) -> str:
        return f"N_Z({self.mu}, {self.sigma2})"

    _width_parameters = "sigma2"
    _location_parameter = "mu"

    @property
    def sigma(self) -> float:
        """σ = √``sigma2``, the scale parameter (not the standard deviation of N_Z)."""
        return math.sqrt(float(self.sigma2))

    # ---------------------------------------------------------------- normaliser
    def _arb_log_normalizer(self) -> arb:
        s2 = _arb.to_arb(self.sigma2)
        prec = _arb_prec()
        if self.sigma2 >= 1:
            c = 2 * arb.pi() ** 2 * s2
            jmax = 1 + int(math.sqrt(prec * math.log(2) / (2 * math.pi**2 * float(self.sigma2))))
            total = arb(1)
            for j in range(1, jmax + 1):
                total += 2 * (-c * j * j).exp()
            total += 2 * _arb_gauss_sum_remainder(c, jmax + 1)
            return (2 * arb.pi() * s2).sqrt().log() + total.log()
        c = 1 / (2 * s2)
        xmax = 1 + int(math.sqrt(2 * float(self.sigma2) * prec * math.log(2)))
        total = arb(1)
        for x in range(1, xmax + 1):
            total += 2 * (-c * x * x).exp()
        total += 2 * _arb_gauss_sum_remainder(c, xmax + 1)
        return total.log()

    @cached_property
    def _log_z(self) -> float:
        with _arb.precision(96):
            return float(self._arb_log_normalizer())

    # ---------------------------------------------------------------- float
    log_concave = True  # (log-concave PMF: ratio bounds in the exact engine)

    @property
    def center(self) -> int:
        return self.mu

    def _logpmf(self, k):
        d = np.asarray(k, dtype=np.int64).astype(float) - float(self.mu)
        return -(d * d) / (2.0 * float(self.sigma2)) - self._log_z

    def _log_upper_ratio(self, j):
        d = np.asarray(j, dtype=float) - float(self.mu)
        return -(2.0 * d + 1.0) / (2.0 * float(self.sigma2))

    def mean(self) -> float:
        """The mean μ (the law is symmetric about it)."""
        return float(self.mu)

    @cached_property
    def _variance(self) -> float:
        if self.sigma2 > 100**2:
            return float(self.sigma2)
        with _arb.precision(96):
            s2 = _arb.to_arb(self.sigma2)
            c = 1 / (2 * s2)
            xmax = 1 + int(math.sqrt(2 * float(self.sigma2) * 200 * math.log(2))) + 2
            num = arb(0)
            for x in range(1, xmax + 1):
                num += 2 * x * x * (-c * x * x).exp()
            # the remainder of Σ x² e^{-c x²} is below 2^-190 relative here
            return float(num / self._arb_log_normalizer().exp())

    def var(self) -> float:
        """The variance of N_Z(μ, σ²): below σ², computed from the exact series."""
        return self._variance

    def _sample_exact(self, size, rng):

        return discrete_gaussian(self.sigma2, self.mu, size=size, rng=rng)

    def _wide_sampler(self):
        """Wide laws: CKS20 Algorithm 3 from a digit ``Lap_Z(⌊σ⌋ + 1)`` proposal with an
        exact acceptance (``_fixed.GaussianRejectionSampler``)."""

        return GaussianRejectionSampler(self.sigma2, self.mu)

    def _sample_direct(self, size, rng):
        return _float_discrete_gaussian(self.sigma2, self.mu, size, rng)

    # ---------------------------------------------------------------- exact
    def _table_weights(self, max_points: int):
        """The table by anchored running products: p(μ+k+1)/p(μ+k) = e^{−(2k+1)/(2σ²)},
        a geometric progression of step e^{−1/σ²} (``_weights.symmetric_table``)."""

        s2 = self.sigma2
        log_z = []

        def p_anchor(k: int) -> arb:
            if not log_z:
                log_z.append(self._arb_log_normalizer())
            return (-_arb.to_arb(Fraction(k * k, 2) / s2) - log_z[0]).exp()

        def r_anchor(k: int) -> arb:
            return (-_arb.to_arb(Fraction(2 * k + 1, 2) / s2)).exp()

        with _arb.precision(96):
            step = (-_arb.to_arb(1 / s2)).exp()
        return symmetric_table(self, max_points, p_anchor, r_anchor, step, TAIL_MASS)

    def _arb_pmf(self, k: int) -> arb:
        d = k - self.mu
        return (-_arb.to_arb(Fraction(d * d, 2) / self.sigma2) - self._arb_log_normalizer()).exp()

    def _arb_pmf_range(self, lo: int, hi: int) -> list[arb]:
        log_z = self._arb_log_normalizer()
        return [
            (-_arb.to_arb(Fraction((k - self.mu) ** 2, 2) / self.sigma2) - log_z).exp()
            for k in range(lo, hi + 1)
        ]

    def _arb_upper_tail(self, t: int) -> arb | None:
        if t < self.mu:
            return None
        d = t + 1 - self.mu
        ratio = (-_arb.to_arb(Fraction(2 * d + 1, 2) / self.sigma2)).exp()
        return self._arb_pmf(t + 1) / (1 - ratio)

    # ---------------------------------------------------------------- facts
    def _log_theta_ball(self, theta: arb) -> arb:
        """log Θ(θ) up to a constant, Θ(θ) = Σ_x e^{−x²/(2σ²)} cos(θx), a Jacobi theta
        function: by its product formula Π(1 − q^{2k})(1 + 2q^{2k−1} cos θ + q^{4k−2}),
        q = e^{−1/(2σ²)}, positive and non-increasing on [0, π]. Poisson summation for
        σ² >= 1 (Θ(θ) ∝ Σ_k e^{−σ²(θ + 2πk)²/2}), directly for σ² < 1; truncation
        remainders bounded by :func:`_arb_gauss_sum_remainder`."""
        s2 = _arb.to_arb(self.sigma2)
        if self.sigma2 >= 1:
            # Θ(θ) ∝ e^{−σ²θ²/2} (1 + Σ_{k≠0} e^{−2πσ²k(θ + πk)}); for |k| >= 4 and
            # θ ∈ [0, π] each term is <= e^{−σ²π²k²}
            pi = arb.pi()
            total = arb(1)
            for k in (-3, -2, -1, 1, 2, 3):
                total += (-2 * pi * s2 * k * (theta + pi * k)).exp()
            total += 2 * _arb_gauss_sum_remainder(s2 * pi * pi, 4)
            return -s2 * theta * theta / 2 + total.log()
        c = 1 / (2 * s2)
        xmax = 4 + int(math.sqrt(2 * float(self.sigma2) * (flint.ctx.prec + 64) * math.log(2)))
        total = arb(1)
        for x in range(1, xmax + 1):
            total += 2 * (-c * x * x).exp() * (theta * x).cos()
        total += 2 * _arb_gauss_sum_remainder(c, xmax + 1) * arb(0, 1)
        return total.log()

    def log_cf_ball(self, theta: arb) -> arb:
        """log φ(θ) = log Θ(θ) − log Θ(0) for the centred law (see :meth:`_log_theta_ball`)."""
        if self.mu != 0:
            raise ParameterError("the characteristic function is real only for mu = 0")
        return self._log_theta_ball(theta) - self._log_theta_ball(arb(0))

    def log_chernoff_ball(self, u: int, n: int = 1) -> arb:
        """N_Z(0, σ²) is σ²-sub-Gaussian (CKS20; Poisson summation shows
        Σ_x e^{−(x−μ)²/(2σ²)} <= Σ_x e^{−x²/(2σ²)}), so a sum of n copies has
        P(S_n − nμ >= u) <= exp(−u²/(2nσ²))."""
        return -_arb.to_arb(Fraction(u * u) / (2 * n * self.sigma2))

    def shift_ratio_bound(self, Y: int, d: int) -> arb:
        """sup_{y >= Y} R(y)/R(y + d) with R(y) = p(y + 1)/p(y) = e^{−(2(y−μ)+1)/(2σ²)}:
        exactly e^{d/σ²}."""
        return (_arb.to_arb(Fraction(d) / self.sigma2)).exp()

    def shift_llr_ball(self, d: int) -> None:
        """D_∞ of a shift is +∞: the log-ratio log p(y)/p(y + d) grows without bound in y."""
        return None

    # ---------------------------------------------------------------- shares
    def shares(self, n: int) -> DiscreteGaussian:
        """Theorem 4 (000): each of n users adds N_Z(0, σ²/n). The n shares sum to a law
        close to, but not equal to, N_Z(0, σ²) (Lemma 4 (000) bounds the gap)."""
        n = check_n(n)
        if self.mu != 0:
            raise ParameterError("shares(n) is defined for centred noise (mu=0)")
        return DiscreteGaussian(sigma2=self.sigma2 / n)


def _arb_prec() -> int:
    import flint

    return int(flint.ctx.prec)


def _float_discrete_gaussian(sigma2: Fraction, mu: int, size, rng: np.random.Generator):
    """CKS20 Algorithm 3 with float acceptance tests (fast path; ``exact=True`` is the
    integer-only version). Proposal Y ~ Lap_Z(t), t = ⌊σ⌋ + 1, accepted with probability
    exp(-(|Y| − σ²/t)²/(2σ²)); vectorized over rounds of candidates."""
    s2 = float(to_fraction("sigma2", sigma2))
    t = _floor_sqrt(sigma2) + 1  # ⌊σ⌋ + 1 from the exact rational
    shape = () if size is None else size
    n = int(np.prod(shape)) if shape != () else 1
    p = -math.expm1(-1.0 / t)
    out = np.empty(n, dtype=np.int64)
    filled = 0
    while filled < n:
        need = n - filled
        m = int(need * 1.6) + 16
        y = rng.geometric(p, m) - rng.geometric(p, m)
        a = np.abs(y).astype(float) - s2 / t
        accept = rng.random(m) < np.exp(-(a * a) / (2.0 * s2))
        got = y[accept][:need]
        out[filled : filled + got.size] = got
        filled += got.size
    return (out + mu).reshape(shape)
