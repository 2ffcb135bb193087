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
from typing import ClassVar

import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.balls import arb
from privtools.errors import ParameterError
from privtools.proven import proven

from ._base import SymmetricIntegerDistribution, check_n
from ._parameters import REAL_POSITIVE, Parameter
from ._samplers.fixed import TAIL_MASS, DigitLaplaceSampler
from ._samplers.weights import symmetric_table
from .exact_sampling import discrete_laplace
from .polya import PolyaDifference

# Beyond this scale a float geometric draw could exceed int64 with non-negligible odds.
_MAX_FLOAT_SAMPLING_SCALE = 2**50


@dataclass(frozen=True)
class DiscreteLaplace(SymmetricIntegerDistribution):
    """Lap_Z(scale): ``P(x) ∝ exp(-|x|/scale)`` on the integers, centred at 0.

    ``scale`` is held exactly as a Fraction (a float is taken at its exact binary value).
    """

    #: the law's name, as scipy.stats names its distributions (the command line's
    #: kind of law)
    name: ClassVar[str] = "laplace"

    scale: Fraction

    #: Fact 2 (000): Lap_Z(b) for a real scale b > 0.
    parameters = (
        Parameter("scale", REAL_POSITIVE, "Fact 2 (000): Lap_Z(b), scale b > 0; "
                  "Lap_Z(Δ/ε) added to a query of sensitivity Δ is ε-DP",
                  limit=10**15, reason="wider Lap_Z laws leave the int64 range in their far "
                  "tails", reads=("x", "1/x"), why="the float methods work with a = 1/scale"),
    )

    def __post_init__(self):
        object.__setattr__(self, "scale", self.parameters[0].check(self.scale))

    _width_parameters = "scale"

    def __str__(self) -> str:
        return f"Lap_Z({self.scale})"

    # ---------------------------------------------------------------- float
    @property
    def _a(self) -> float:
        return float(1 / self.scale)

    log_concave = True  # (log-concave PMF: ratio bounds in the exact engine)

    @property
    def center(self) -> int:
        return 0

    @proven("fact2_tail")  # the normalising constant tanh(a/2)
    def _logpmf(self, k):
        a = self._a
        return math.log(math.tanh(a / 2)) - a * np.abs(k).astype(float)

    @proven("fact2_tail")
    def _log_upper_tail(self, k):
        # Fact 2: P(X > k) = e^{-a(k+1)}/(1 + e^{-a}) for k >= 0.
        a = self._a
        return -a * (k.astype(float) + 1.0) - math.log1p(math.exp(-a))

    def _log_upper_ratio(self, j):
        return np.full(np.shape(j), -self._a)

    def mean(self) -> float:
        """0: the discrete Laplace is symmetric about 0."""
        return 0.0

    def var(self) -> float:
        """The variance 2e^{−1/b}/(1 − e^{−1/b})² (about 2b² for large b)."""
        a = self._a
        if a > 1e-4:
            return 2.0 * math.exp(-a) / math.expm1(-a) ** 2
        # 2e^{-a}/(1 − e^{-a})² = 1/(2 sinh²(a/2)) = 2b² − 1/6 + O(1/b²): no 0/0 for huge b
        try:
            return float(2 * self.scale**2) - 1.0 / 6.0
        except OverflowError:  # beyond the float range
            return math.inf

    def _sample_exact(self, size, rng):

        return discrete_laplace(self.scale, size=size, rng=rng)

    def _check_sampling(self) -> None:
        if self.scale > _MAX_FLOAT_SAMPLING_SCALE:
            raise ParameterError(
                f"scale={float(self.scale):.3g} is beyond the default sampler's range "
                f"(<= 2**50); use exact=True"
            )

    def _wide_sampler(self):
        """Wide laws: the difference of two geometrics sampled by their base-2^16 digits
        (``_fixed.DigitLaplaceSampler``), a fixed number of words per draw."""

        return DigitLaplaceSampler(self.scale)

    def _table_weights(self, max_points: int):
        """The table by anchored running products of the ratio e^{−1/b}
        (``_weights.symmetric_table``: vectorised, certified TV)."""

        a = self._arb_inv_scale
        return symmetric_table(self, max_points, self._arb_pmf, lambda k: (-a()).exp(),
                               _arb.to_arb(1), TAIL_MASS)

    def _sample_direct(self, size, rng):
        p = -math.expm1(-self._a)
        shape = () if size is None else size
        return rng.geometric(p, shape) - rng.geometric(p, shape)

    # ---------------------------------------------------------------- exact
    def _arb_inv_scale(self) -> arb:
        return _arb.to_arb(1 / self.scale)

    @proven("fact2_tail")  # the normalising constant tanh(a/2)
    def _arb_pmf(self, k: int) -> arb:
        a = self._arb_inv_scale()
        return (a / 2).tanh() * (-a * abs(k)).exp()

    def _arb_pmf_range(self, lo: int, hi: int) -> list[arb]:
        """``p(k) = tanh(a/2) e^{−a|k|}`` on lo..hi by the ratio e^{−a} (two exponentials
        per range, then one multiplication per point)."""
        a = self._arb_inv_scale()
        r, rinv = (-a).exp(), a.exp()
        start = self._arb_pmf(lo)
        out, cur = [], start
        for k in range(lo, hi + 1):
            out.append(cur)
            cur = cur * (r if k >= 0 else rinv)
        return out

    @proven("fact2_tail")
    def _arb_upper_tail(self, t: int) -> arb | None:
        if t < 0:
            return None
        a = self._arb_inv_scale()
        return (-a * (t + 1)).exp() / (1 + (-a).exp())

    # ---------------------------------------------------------------- facts
    @proven("fact1_infinite_divisibility")  # the closed-form Laurent series (PGF) of Lap_Z
    def log_cf_ball(self, theta: arb) -> arb:
        """log φ(θ), φ(θ) = E e^{iθX} = (1 − r)²/(1 − 2r cos θ + r²)
        = 1/(1 + 4r sin²(θ/2)/(1 − r)²), r = e^{−1/b}: real, positive and decreasing on
        [0, π]."""
        a = self._arb_inv_scale()
        r, one_m_r = (-a).exp(), -((-a).expm1())
        return -(1 + 4 * r * (theta / 2).sin() ** 2 / (one_m_r * one_m_r)).log()

    @proven("fact1_infinite_divisibility")  # the closed-form Laurent series (PGF) of Lap_Z
    def log_chernoff_ball(self, u: int, n: int = 1) -> arb:
        """Certified upper bound on log P(S_n >= u), S_n a sum of n i.i.d. copies:
        MGF (1 − r)²/((1 − re^λ)(1 − re^{−λ})) for 0 < λ < 1/b, so
        P(S_n >= u) <= MGF(λ)^n e^{−λu}; λ is chosen numerically (any λ is valid) and the
        bound is evaluated in Arb at that λ."""
        a = 1.0 / float(self.scale)
        r = math.exp(-a)
        target = u / n

        def slope(lam):  # d/dλ log MGF
            return r * math.exp(lam) / (1 - r * math.exp(lam)) - r * math.exp(-lam) / (
                1 - r * math.exp(-lam))

        lo, hi = 0.0, a
        for _ in range(200):
            mid = (lo + hi) / 2
            if mid in (lo, hi):
                break
            if slope(mid) < target:
                lo = mid
            else:
                hi = mid
        lam = arb(lo)  # exact binary value of the float
        ai = self._arb_inv_scale()
        ra, one_m_r = (-ai).exp(), -((-ai).expm1())
        lead = 1 - ra * lam.exp()
        if not lead > 0:
            return arb(0)  # trivial bound log 1
        log_mgf = 2 * one_m_r.log() - lead.log() - (1 - ra * (-lam).exp()).log()
        return n * log_mgf - lam * u

    @proven("fact2_tail")
    def two_sided_tail_ball(self, t: int) -> arb:
        """Fact 2 (000): P(|X| > t) = 2e^{−(t+1)/b}/(1 + e^{−1/b}) for t >= 0, in closed
        form."""
        return 2 * self._arb_upper_tail(t)

    def shift_ratio_bound(self, Y: int, d: int) -> arb:
        """sup_{y >= Y} R(y)/R(y + d) with R(y) = p(y + 1)/p(y): R is constant (e^{−1/b})
        beyond the centre, so 1."""
        return arb(1)

    def shift_llr_ball(self, d: int) -> arb:
        """D_∞(Lap_Z(b) + d ‖ Lap_Z(b)) = d/b exactly (Theorem 5 (000): ε = Δ/b)."""
        return _arb.to_arb(Fraction(d) / self.scale)

    def shift_renyi_ball(self, d: int, alpha) -> arb:
        """``D_α(Lap_Z(b) + d ‖ Lap_Z(b))`` in closed form: with a = 1/b and three geometric
        series (y >= 0, y <= −d, −d < y < 0 in ``Σ_y p(y)^α p(y+d)^{1−α}``),

            S = (e^{(α−1)da} + e^{−αda}) / (1 + e^{−a})
                + tanh(a/2) e^{(α−1)da} e^{−(2α−1)a} (1 − e^{−(2α−1)(d−1)a}) / (1 − e^{−(2α−1)a}),

        ``D_α = log(S)/(α−1)``; for d = 1 the second line vanishes."""
        inv = self._arb_inv_scale()
        aa = _arb.to_arb(alpha)
        first = (((aa - 1) * d * inv).exp() + (-aa * d * inv).exp()) / (1 + (-inv).exp())
        if d > 1:
            k = (2 * aa - 1) * inv
            second = ((inv / 2).tanh() * ((aa - 1) * d * inv - k).exp()
                      * (-((-(d - 1) * k).expm1())) / (-((-k).expm1())))
            first = first + second
        return first.log() / (aa - 1)

    @proven("fact2_tail")
    def shift_hockey_stick_ball(self, d: int, eps) -> arb:
        """``δ(ε)`` for ``Lap_Z(b) + d`` vs ``Lap_Z(b)``: the privacy loss
        ``L(x) = (|x| − |x − d|)/b`` is non-decreasing in x, so ``{L > ε} = {x >= x0}`` with
        ``x0 = ⌊(d + εb)/2⌋ + 1`` (for ε < d/b; δ = 0 otherwise) and
        ``δ(ε) = P(X >= x0 − d) − e^ε P(X >= x0)`` with Fact 2's tails:
        ``P(X >= k) = e^{−(k−1)/b}/(e^{1/b} + 1)`` (k >= 1), ``1 − e^{k/b}/(e^{1/b} + 1)``
        (k <= 0)."""
        b = self.scale
        if eps >= Fraction(d) / b:
            return arb(0)
        x0 = math.floor((d + eps * b) / 2) + 1
        inv = self._arb_inv_scale()
        den = inv.exp() + 1

        def ge(k: int) -> arb:
            if k >= 1:
                return (-(k - 1) * inv).exp() / den
            return 1 - (k * inv).exp() / den

        return ge(x0 - d) - _arb.to_arb(eps).exp() * ge(x0)

    # ---------------------------------------------------------------- shares
    @proven("fact1_infinite_divisibility")
    def shares(self, n: int):
        """Fact 1 (000): one user's share, Pólya(1/n, e^{-1/b}) − Pólya(1/n, e^{-1/b});
        n i.i.d. shares sum to exactly Lap_Z(b)."""

        n = check_n(n)
        return PolyaDifference(Fraction(1, n), scale=self.scale)
