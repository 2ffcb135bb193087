"""Skellam distribution Sk(μ, σ²) (000 §5, Definition 5).

P(X = x) = e^{-σ²} I_{x-μ}(σ²), x ∈ Z, with I the modified Bessel function of the first
kind. Sk(0, σ²) = N₁ − N₂ with N_i i.i.d. Poisson(σ²/2), so Skellam is closed under sums:
Sk(μ₁, σ₁²) + Sk(μ₂, σ₂²) ~ Sk(μ₁ + μ₂, σ₁² + σ₂²) (000 §5). Theorem 2 (000) gives each of
n users the share Sk(0, g²/(nε²)), so the total noise is Sk(0, g²/ε²).

Numerics:
* float PMF: ``scipy.special.ive`` (= e^{-x} I_ν(x)), with Arb for points where it
  underflows; float tails by log-space summation — ``scipy.stats.skellam.sf`` computes
  ``1 - cdf`` and is wrong below ~1e-14 (a test records this);
* exact PMF ranges: Arb's I_ν at the two largest orders, then the backward recurrence
  I_{ν-1}(x) = I_{ν+1}(x) + (2ν/x) I_ν(x), whose terms are all positive, so ball radii stay
  relative (the minimal solution is computed in its stable direction);
* certified tails: Skellam is log-concave (a convolution of log-concave Poisson laws), so
  p(j+1)/p(j) is non-increasing and P(X ≥ j) <= p(j)/(1 − p(j+1)/p(j)) beyond the mode.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import ClassVar

import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.balls import arb
from privtools.errors import ParameterError
from privtools.proven import proven

from ._base import SymmetricIntegerDistribution, check_n
from ._parameters import REAL_POSITIVE, Parameter, location
from ._samplers.fixed import LogConcaveRejectionSampler
from ._special import special as sc

_MAX_FLOAT_SAMPLING_VAR = 2**60
# Orders from which the Debye expansion (4 terms) beats scipy's ive (measured against Arb:
# <= 6e-14 relative for nu >= 300; scipy's ive drifts to ~5e-12 at nu ~ 3e4).
_DEBYE_MIN_ORDER = 300


def _log_ive(nu: np.ndarray, x: float) -> np.ndarray:
    """log(e^{-x} I_nu(x)): scipy's ive for small orders, the Debye uniform asymptotic
    expansion (DLMF 10.41.3, terms u_1..u_4) for nu >= 300, written without cancellation:
    nu·eta - x = nu²/(sqrt(nu² + x²) + x) - nu·asinh(nu/x)."""
    nu = np.asarray(nu)
    if nu.size == 1 and int(nu.flat[0]) >= _DEBYE_MIN_ORDER:   # one draw's acceptance
        return np.full(nu.shape, _debye(float(nu.flat[0]), x))
    out = np.empty(nu.shape, dtype=float)
    small = nu < _DEBYE_MIN_ORDER
    if small.any():
        with np.errstate(divide="ignore"):
            out[small] = np.log(sc.ive(nu[small].astype(float), x))
    big = ~small
    if big.any():
        out[big] = _debye(nu[big].astype(float), x)
    return out


def _debye(v, x: float):
    """The Debye branch of :func:`_log_ive` at orders ``v >= 300`` (an array or one float)."""
    root = np.sqrt(v * v + x * x)
    t = v / root  # t = 1/sqrt(1 + z²), z = x/nu
    t2 = t * t
    u1 = t * (3 - 5 * t2) / 24
    u2 = t2 * (81 - 462 * t2 + 385 * t2**2) / 1152
    u3 = t * t2 * (30375 - 369603 * t2 + 765765 * t2**2 - 425425 * t2**3) / 414720
    u4 = t2 * t2 * (4465125 - 94121676 * t2 + 349922430 * t2**2 - 446185740 * t2**3
                    + 185910725 * t2**4) / 39813120
    series = 1 + u1 / v + u2 / v**2 + u3 / v**3 + u4 / v**4
    lead = v * v / (root + x) - v * np.arcsinh(v / x)
    return lead - 0.5 * np.log(2 * np.pi * v) + 0.5 * np.log(t) + np.log(series)


@dataclass(frozen=True, init=False)
class Skellam(SymmetricIntegerDistribution):
    """Sk(mu, var): ``mu + N₁ − N₂`` with N_i i.i.d. Poisson(var/2); ``mu`` an integer.

    The exact variance is the field ``variance`` (a Fraction); ``var()`` is its float.
    """

    #: the law's name, as scipy.stats names its distributions (the command line's
    #: kind of law)
    name: ClassVar[str] = "skellam"

    variance: Fraction
    mu: int = 0

    #: Theorem 2 (000): Sk(0, σ²) for a real variance σ² > 0, shifted by an integer μ.
    parameters = (
        Parameter("var", REAL_POSITIVE, "Theorem 2 (000): Sk(0, σ²), variance σ² > 0",
                  limit=10**10, reason="its certified ranges would take minutes to hours",
                  reads=("x",), width_power=2),
        location("000 §5: Sk(μ, σ²) = μ + Sk(0, σ²) for an integer μ"),
    )

    def __init__(self, var, mu=0):
        var_p, mu_p = self.parameters
        object.__setattr__(self, "variance", var_p.check(var))
        object.__setattr__(self, "mu", mu_p.check(mu))

    def __str__(self) -> str:
        return f"Sk({self.mu}, {self.variance})"

    _width_parameters = "var"
    _location_parameter = "mu"

    # ---------------------------------------------------------------- float
    log_concave = True  # (log-concave PMF: ratio bounds in the exact engine)

    @property
    def center(self) -> int:
        return self.mu

    def _logpmf(self, k):
        nu = np.abs(np.asarray(k, dtype=np.int64) - self.mu)
        x = float(self.variance)
        out = _log_ive(nu, x)
        bad = ~np.isfinite(out)
        if bad.any():  # far tail below float range: Arb in log space
            out = np.array(out, dtype=float)
            with _arb.precision(80):
                xa = _arb.to_arb(self.variance)
                out[bad] = [float(xa.bessel_i(int(v), scaled=True).log()) for v in nu[bad]]
        return out

    def _log_upper_ratio(self, j):
        j = np.asarray(j, dtype=np.int64)
        return self._logpmf(j + 1) - self._logpmf(j)

    def mean(self) -> float:
        """The mean μ (the location)."""
        return float(self.mu)

    def var(self) -> float:
        """The variance σ² (the sum of the two Poisson means)."""
        return float(self.variance)

    def _check_sampling(self) -> None:
        v = self.variance
        if v > _MAX_FLOAT_SAMPLING_VAR:
            raise ParameterError(f"var={float(v):.3g} is beyond the default sampler's range "
                                 "(2**60); use exact methods")

    def _wide_sampler(self):
        """Wide laws: rejection from a digit discrete Laplace with a certified constant
        (``_fixed.LogConcaveRejectionSampler``; Skellam is log-concave)."""

        return LogConcaveRejectionSampler(self)

    def _sample_direct(self, size, rng):
        lam = float(self.variance) / 2.0
        shape = () if size is None else size
        return rng.poisson(lam, shape) - rng.poisson(lam, shape) + self.mu

    # ---------------------------------------------------------------- exact
    def _arb_x(self) -> arb:
        return _arb.to_arb(self.variance)

    def _arb_pmf(self, k: int) -> arb:
        return self._arb_x().bessel_i(abs(k - self.mu), scaled=True)

    @proven("skellam_bessel_recurrence")
    def _arb_pmf_range(self, lo: int, hi: int) -> list[arb]:
        a, b = lo - self.mu, hi - self.mu
        top = max(abs(a), abs(b))
        bottom = 0 if a <= 0 <= b else min(abs(a), abs(b))
        x = self._arb_x()
        w = {top + 1: x.bessel_i(top + 1, scaled=True), top: x.bessel_i(top, scaled=True)}
        nxt, cur = w[top + 1], w[top]
        for nu in range(top, bottom, -1):  # I_{nu-1} = I_{nu+1} + (2 nu / x) I_nu
            prev = nxt + (2 * nu) * cur / x
            w[nu - 1] = prev
            nxt, cur = cur, prev
        return [w[abs(k - self.mu)] for k in range(lo, hi + 1)]

    def _arb_upper_tail(self, t: int) -> arb | None:
        if t < self.mu:
            return None
        j = t + 1 - self.mu
        x = self._arb_x()
        pj, pj1 = x.bessel_i(j, scaled=True), x.bessel_i(j + 1, scaled=True)
        return pj * pj / (pj - pj1)

    # ---------------------------------------------------------------- facts
    @proven("skellam_closure")  # the Skellam PGF
    def log_cf_ball(self, theta: arb) -> arb:
        """log φ(θ) for the centred law: φ(θ) = exp(v(cos θ − 1)) = exp(−2v sin²(θ/2)) (real,
        positive, non-increasing on [0, π])."""
        if self.mu != 0:
            raise ParameterError("the characteristic function is real only for mu = 0")
        return -2 * self._arb_x() * (theta / 2).sin() ** 2

    @proven("skellam_closure")  # the Skellam PGF and closure under sums
    def log_chernoff_ball(self, u: int, n: int = 1) -> arb:
        """Certified upper bound on log P(S_n − nμ >= u) for a sum of n copies (Sk(0, nv)):
        MGF exp(nv(cosh λ − 1)), so P <= exp(nv(cosh λ − 1) − λu) at λ = asinh(u/(nv))
        (any λ > 0 is valid)."""
        v = n * self._arb_x()
        lam = (arb(u) / v).asinh()
        return v * (lam.cosh() - 1) - lam * u

    def shift_ratio_bound(self, Y: int, d: int) -> arb:
        """Certified upper bound on sup_{y >= Y} R(y)/R(y + d), R(y) = p(y + 1)/p(y) (Y >= μ),
        from the Bessel-ratio bounds x/(ν + √((ν + 2)² + x²)) <= I_{ν+1}(x)/I_ν(x)
        <= x/(ν + 1 + √((ν + 1)² + x²)) read the other way round (Amos 1974)."""
        x = self._arb_x()
        nu = Y - self.mu

        def big_c(v):  # upper bound on R(v)
            return x / (v + ((v + 2) ** 2 + x * x).sqrt())

        def small_c(v):  # lower bound on R(v)
            return x / (v + 1 + ((v + 1) ** 2 + x * x).sqrt())

        return big_c(nu) / small_c(nu + d)

    def shift_llr_ball(self, d: int) -> None:
        """D_∞ of a shift is +∞: the log-ratio log p(y)/p(y + d) grows without bound in y."""
        return None

    @proven("skellam_closure")
    def sum_of(self, n: int) -> Skellam:
        """Skellam closure (000 §5): n i.i.d. Sk(μ, v) sum to Sk(nμ, nv)."""
        return Skellam(self.variance * n, self.mu * n)

    # ---------------------------------------------------------------- shares
    @proven("skellam_closure")
    def shares(self, n: int) -> Skellam:
        """Theorem 2 (000): each of n users adds Sk(0, var/n); the shares sum to Sk(0, var)."""
        n = check_n(n)
        if self.mu != 0:
            raise ParameterError("shares(n) is defined for centred noise (mu=0)")
        return Skellam(self.variance / n)
