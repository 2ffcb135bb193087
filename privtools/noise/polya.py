"""Pólya (negative binomial) noise and the Pólya-difference share of discrete Laplace.

Pólya(r, β), x ∈ N:  P(x) = Γ(x + r)/(x! Γ(r)) · β^x (1 − β)^r   (000 §4, Definition 4).
Sampling (000, footnote to Fact 1): λ ~ Gamma(r, β/(1 − β)), X ~ Poisson(λ); numpy's
``negative_binomial`` implements exactly this mixture.

Fact 1 (000): for 2n i.i.d. γ⁺_i, γ⁻_i ~ Pólya(1/n, e^{-1/b}), Σ_i (γ⁺_i − γ⁻_i) ~ Lap_Z(b).
The share η_i = γ⁺_i − γ⁻_i is :class:`PolyaDifference`; its PMF in closed form is

    p(k) = (1 − β)^{2r} β^{|k|} (r)_{|k|}/|k|! · ₂F₁(r, |k| + r; |k| + 1; β²).

β is given either exactly as a rational ``beta`` or through ``scale`` b with β = e^{-1/b}
(the form Theorems 1 and 5 use: β = e^{-ε/g}, i.e. b = g/ε); in the second case exact
computations use e^{-1/b} to full precision and ``beta`` holds only its float value.

Tail ratio bound used by the certified tails: Pólya ratios satisfy
p(i+1)/p(i) = β(i + r)/(i + 1) <= ρ_j := β · max(1, (j + r)/(j + 1)) for all i >= j, and the
same ρ_j bounds the ratios of the difference for k >= j >= 0 (each term of
p(k+1) = Σ_i nb(k+1+i) nb(i) is at most ρ_k times the matching term of p(k)).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.balls import arb
from privtools.errors import CertificationError, ParameterError
from privtools.proven import proven

from ._base import IntegerDistribution, SymmetricIntegerDistribution, check_n
from ._parameters import OPEN_UNIT, REAL_POSITIVE, Parameter
from ._samplers.cells import PolyaCellSampler, PolyaDifferenceCellSampler
from ._samplers.polya_table import polya_difference_weights
from ._special import log_gamma_ratio
from ._special import special as sc

# Longest float tail sum (terms) before a law counts as too wide for the float path (as in
# ``_base._log_upper_tail_sum``).
_MAX_TAIL_TERMS = 1 << 27


def _arb_prec() -> int:
    import flint

    return int(flint.ctx.prec)


#: β = e^{-1/b}: Pólya's beta and scale are two spellings of one number.
_BETA_SCALE = "beta = exp(-1/scale)"
#: Definition 4 (000): Pólya(r, β) for a real r > 0 (Fact 1 takes r = 1/n).
_R = Parameter("r", REAL_POSITIVE, "Definition 4 (000): Pólya(r, β), r > 0; Fact 1 takes "
               "r = 1/n", limit=10**6, reason="its tail searches would take minutes to hours",
               reads=("x",))
#: Definition 4 (000): 0 < β < 1; limited through its scale b = −1/log β.
_BETA = Parameter("beta", OPEN_UNIT, "Definition 4 (000): Pólya(r, β), 0 < β < 1",
                  reads=("x", "1-x"), choice=_BETA_SCALE)


def _polya_scale(limit: int) -> Parameter:
    """The scale b of β = e^{-1/b} (Theorems 1 and 5 (000): b = g/ε), at most ``limit``."""
    return Parameter("scale", REAL_POSITIVE, "Theorems 1 and 5 (000): β = e^{-ε/g}, i.e. "
                     "scale b = g/ε > 0", limit=limit, reason="the tail sums would take "
                     "minutes to hours", reads=("x", "1/x"),
                     why="the float methods read 1/scale", choice=_BETA_SCALE)


def _init_polya_params(obj, r, beta, scale) -> None:
    r_p, scale_p, beta_p = obj.parameters
    r = r_p.check(r)
    if (beta is None) == (scale is None):
        raise ParameterError("give exactly one of beta (0 < beta < 1) or scale "
                             "(beta = exp(-1/scale))")
    if scale is not None:
        scale = scale_p.check(scale)
        beta_value = math.exp(-float(1 / scale))
    else:
        beta_value = beta_p.check(beta)
    object.__setattr__(obj, "r", r)
    object.__setattr__(obj, "beta", beta_value)
    object.__setattr__(obj, "scale", scale)


class _PolyaParams:
    """Float and Arb views of (r, β) shared by Pólya and its difference."""

    r: Fraction
    beta: Fraction | float
    scale: Fraction | None

    @property
    def _r(self) -> float:
        return float(self.r)

    @property
    def _beta(self) -> float:
        return float(self.beta)

    @property
    def _one_minus_beta(self) -> float:
        """1 − β without cancellation (β is close to 1 for large batches)."""
        if self.scale is not None:
            return -math.expm1(-float(1 / self.scale))
        return float(1 - self.beta)

    @property
    def _log_beta(self) -> float:
        if self.scale is not None:
            return -float(1 / self.scale)
        return math.log(float(self.beta))

    def _beta_str(self) -> str:
        return f"e^(-1/{self.scale})" if self.scale is not None else str(self.beta)

    def _arb_beta(self) -> arb:
        if self.scale is not None:
            return (-_arb.to_arb(1 / self.scale)).exp()
        return _arb.to_arb(self.beta)

    def _arb_one_minus_beta(self) -> arb:
        if self.scale is not None:
            return -((-_arb.to_arb(1 / self.scale)).expm1())
        return _arb.to_arb(1 - self.beta)

    def _ratio_bound(self, j):
        """ρ_j = β·max(1, (j + r)/(j + 1)) as a float array."""
        j = np.asarray(j, dtype=float)
        return self._beta * np.maximum(1.0, (j + self._r) / (j + 1.0))

    def _arb_ratio_bound(self, j: int) -> arb:
        r = _arb.to_arb(self.r)
        factor = (r + j) / (j + 1)
        if self.r <= 1:
            factor = arb(1)
        return self._arb_beta() * factor

    #: named in "too wide" errors (β = e^{-1/scale} close to 1, or a large r)
    _width_parameters = "scale (beta) or r"

    def _too_long(self) -> ParameterError:
        return ParameterError(f"{self._width_parameters} too large for the float tail sums: "
                              f"they would need more than 2**27 terms for this "
                              f"{type(self).__name__} (beta = {self._beta!r})")

    def _check_sampling(self) -> None:
        if self._one_minus_beta < 1e-12:
            raise ParameterError(
                "beta is within 1e-12 of 1: float Pólya sampling would lose the parameter; "
                "increase epsilon/g or use a smaller batch"
            )


@dataclass(frozen=True, init=False)
class Polya(_PolyaParams, IntegerDistribution):
    """Pólya(r, β) = negative binomial with ``r`` successes and failure probability β.

    ``Polya(r, beta)`` or ``Polya(r, scale=b)`` (β = e^{-1/b}).
    """

    #: the law's name, as scipy.stats names its distributions (the command line's
    #: kind of law)
    name: ClassVar[str] = "polya"

    r: Fraction
    beta: Fraction | float
    scale: Fraction | None = field(default=None)

    support_lower = 0  # (support N: every shifted pair has D_α = +∞)

    #: Definition 4 (000): r > 0 and β (or its scale b, β = e^{-1/b}).
    parameters = (_R, _polya_scale(10**15), _BETA)

    def __init__(self, r, beta=None, *, scale=None):
        _init_polya_params(self, r, beta, scale)

    def __str__(self) -> str:
        return f"Pólya({self.r}, {self._beta_str()})"

    # ---------------------------------------------------------------- float
    def _nbinom(self):
        from scipy.stats import nbinom  # here: scipy.stats costs ~0.5 s of every start-up

        return nbinom(self._r, self._one_minus_beta)

    @property
    def center(self) -> int:
        return int(math.floor(self.mean()))

    def _logpmf(self, k):
        k = np.asarray(k, dtype=np.int64)
        kk = np.maximum(k, 0)
        out = (log_gamma_ratio(kk, self._r) - sc.gammaln(self._r)
               + kk * self._log_beta + self._r * math.log(self._one_minus_beta))
        return np.where(k < 0, -np.inf, out)

    def _log_upper_ratio(self, j):
        return np.log(self._ratio_bound(np.maximum(j, 0)))

    def _logsf(self, k):
        k = np.asarray(k, dtype=np.int64)
        out = np.asarray(self._nbinom().logsf(k), dtype=float)
        # scipy's survival function underflows (or loses relative accuracy) near 1e-300:
        # sum the far tail in log space instead.
        far = (out < -650.0) & (k >= self.center)
        if far.any():
            out[far] = self._log_upper_tail_sum(k[far])
        return out

    def _logcdf(self, k):
        k = np.asarray(k, dtype=np.int64)
        out = np.asarray(self._nbinom().logcdf(k), dtype=float)
        out = np.where(k < 0, -np.inf, out)
        far = (out < -650.0) & (k >= 0)
        if far.any():
            top = int(k[far].max())
            if top > _MAX_TAIL_TERMS:
                raise self._too_long()
            grid = np.arange(0, top + 1, dtype=np.int64)
            cum = np.logaddexp.accumulate(self._logpmf(grid))
            out[far] = cum[k[far]]
        return out

    def mean(self) -> float:
        """The mean rβ/(1 − β)."""
        return self._r * self._beta / self._one_minus_beta

    def var(self) -> float:
        """The variance rβ/(1 − β)² (inf past the float range)."""
        q = self._one_minus_beta  # (q² may underflow: divide twice, inf past the float range)
        return self._r * self._beta / q / q

    def _sample_direct(self, size, rng):
        shape = () if size is None else size
        return rng.negative_binomial(self._r, self._one_minus_beta, shape)

    def _wide_sampler(self):
        """Too wide for one table: for r <= 1 the fixed-budget cell sampler with a certified
        TV (``_cells.PolyaCellSampler``); for r > 1 (no deployment path) the float one."""
        if self.r > 1:
            return super()._wide_sampler()

        return PolyaCellSampler(self)

    # ---------------------------------------------------------------- exact
    def _arb_pmf(self, k: int) -> arb:
        if k < 0:
            return arb(0)
        r = _arb.to_arb(self.r)
        log_p = (
            (r + k).lgamma() - r.lgamma() - arb(k + 1).lgamma()
            + k * self._arb_beta().log() + r * self._arb_one_minus_beta().log()
        )
        return log_p.exp()

    @proven("polya_pgf")  # the ratio p(k+1)/p(k) = β(k + r)/(k + 1), part (b)
    def _arb_pmf_range(self, lo: int, hi: int) -> list[arb]:
        out = [arb(0)] * max(0, min(hi, -1) - lo + 1)
        start = max(lo, 0)
        if start > hi:
            return out
        beta = self._arb_beta()
        r = _arb.to_arb(self.r)
        cur = self._arb_pmf(start)
        vals = [cur]
        for k in range(start, hi):  # p(k+1) = p(k) β (k + r)/(k + 1): positive products
            cur = cur * beta * (r + k) / (k + 1)
            vals.append(cur)
        return out + vals

    def _arb_upper_tail(self, t: int) -> arb | None:
        j = max(t + 1, 0)
        rho = self._arb_ratio_bound(j)
        if not rho < 1:
            return None
        return self._arb_pmf(j) / (1 - rho)

    def _arb_lower_tail(self, t: int) -> arb | None:
        if t <= 0:
            return arb(0)
        if t > 10**6:
            return None
        return sum(self._arb_pmf_range(0, t - 1), arb(0))

    @proven("polya_pgf")
    def sum_of(self, n: int) -> Polya:
        """n i.i.d. Pólya(r, β) sum to Pólya(nr, β) (negative binomials add their r)."""
        if self.scale is not None:
            return Polya(self.r * n, scale=self.scale)
        return Polya(self.r * n, self.beta)

    @proven("polya_pgf")
    def shares(self, n: int) -> Polya:
        """n i.i.d. Pólya(r/n, β) sum to Pólya(r, β) (negative binomial closure)."""
        n = check_n(n)
        if self.scale is not None:
            return Polya(self.r / n, scale=self.scale)
        return Polya(self.r / n, self.beta)


@dataclass(frozen=True, init=False)
class PolyaDifference(_PolyaParams, SymmetricIntegerDistribution):
    """γ⁺ − γ⁻ with γ± i.i.d. Pólya(r, β): one user's noise share in Theorem 1 (000).

    With r = 1/n, n i.i.d. copies sum to Lap_Z(b), β = e^{-1/b} (Fact 1).
    """

    #: the law's name, as scipy.stats names its distributions (the command line's
    #: kind of law)
    name: ClassVar[str] = "polya-difference"

    r: Fraction
    beta: Fraction | float
    scale: Fraction | None = field(default=None)

    #: Fact 1 (000): r = 1/n and β = e^{-1/b} (or its scale b); the float tail sums of the
    #: difference take about 48·b terms, hence a lower limit on b than Pólya's.
    parameters = (_R, _polya_scale(10**4), _BETA)

    def __init__(self, r, beta=None, *, scale=None):
        _init_polya_params(self, r, beta, scale)

    def __str__(self) -> str:
        return f"Pólya({self.r}, {self._beta_str()}) − Pólya({self.r}, {self._beta_str()})"

    # ---------------------------------------------------------------- float
    @property
    def center(self) -> int:
        return 0

    @property
    def log_concave(self) -> bool:
        """Log-concave for r >= 1 (the Pólya PMF is, and differences of independent
        log-concave laws are); log-convex on each side for r < 1."""
        return self.r >= 1

    def shift_ratio_bound(self, Y: int, d: int) -> arb:
        """sup_{y >= Y} R(y)/R(y + d) <= (r + Y)/(Y + 1) for r > 1 (the Pólya ratio
        (k + r)β/(k + 1) bounds the difference's ratio from both sides), 1 otherwise."""
        return (_arb.to_arb(self.r) + Y) / (Y + 1) if self.r > 1 else arb(1)

    def ratio_cap_ball(self) -> arb | None:
        """For the log-convex case (r < 1): T(y) <= R(y) <= β for y >= 0."""
        return self._arb_beta() if self.r < 1 else None

    def shift_llr_ball(self, d: int) -> arb:
        """D_∞(D + d ‖ D): log p(0)/p(d) for r <= 1 (log-convex on each side, the ratio
        p(y)/p(y + d) peaks at y = 0), d·log(1/β) for r >= 1 (log-concave: the ratio tends
        to β^{−d} from below)."""
        if self.r <= 1:
            prec = _arb_prec()
            return (self.pmf_balls(0, 0, prec)[0] / self.pmf_balls(d, d, prec)[0]).log()
        return -d * self._arb_beta().log()

    @proven("fact1_infinite_divisibility")  # r = 1: exactly Lap_Z (Fact 1 with n = 1)
    def _logpmf(self, k):
        k = np.abs(np.asarray(k, dtype=np.int64))
        if self.r == 1:  # Theorem 5's central noise: exactly Lap_Z, p(k) = (1-β)/(1+β) β^|k|
            return math.log(self._one_minus_beta / (1 + self._beta)) + k * self._log_beta
        return self._logpmf_points(k)

    def _table_logpmf(self, lo: int, hi: int) -> np.ndarray:
        """log p on lo..hi for the sampler's table: the recurrence (fast; relative error
        about (hi − lo)·eps/(1 − β²), e.g. 1.3e-10 over 4000 points at β = e^{-1/1024} —
        invisible to any sample and a change below 3e-10 in any privacy loss)."""
        if self.r == 1 or hi - lo < 256:
            return self._logpmf(np.arange(lo, hi + 1))
        if lo >= 0:
            return self._logpmf_range(lo, hi)
        top = max(-lo, hi)
        half = self._logpmf_range(0, top)
        return half[np.abs(np.arange(lo, hi + 1))]

    def _table_weights(self, max_points: int):
        """For r <= 1: the weights in vectorised integer arithmetic with their certified TV
        (``_polya_table.polya_difference_weights``)."""
        if self.r > 1:
            return NotImplemented

        found = polya_difference_weights(self, max_points)
        if found is None:
            return None
        t, weights, tv = found
        return -t, weights, tv

    def _log_pmf_floor(self, k):
        """log nb(|k|) + log nb(0): the first term of p(k) = Σ_j nb(|k| + j) nb(j)."""
        base = self._base()
        return base._logpmf(np.abs(np.asarray(k, dtype=np.int64))) + base._logpmf(np.array(0))

    def _log_upper_tail(self, k):
        """log P(D > k) for k >= 0 from P(D > k) = Σ_j nb(j) P(γ > k + j), a sum of
        positive terms (scipy's regularized incomplete beta for the Pólya tail). The
        remainder after J terms is at most P(γ > k + J + 1) P(γ > J), below 1e-20 of the
        first term at the J used."""
        k = np.asarray(k, dtype=np.int64)
        base = self._base()
        log_rho = float(self._log_upper_ratio(np.array([0]))[0])
        if -48.0 / _MAX_TAIL_TERMS < log_rho <= 0:  # β too close to 1 for a float sum
            raise self._too_long()
        terms = max(64, int(math.ceil(-48.0 / log_rho)))
        j = np.arange(terms, dtype=np.int64)
        log_nb = base._logpmf(j)
        out = np.empty(k.shape, dtype=float)
        flat_k, flat_out = k.ravel(), out.ravel()
        chunk = max(1, (1 << 22) // terms)
        for s in range(0, flat_k.size, chunk):
            kk = flat_k[s:s + chunk]
            grid = kk[:, None] + j[None, :]
            vals = log_nb[None, :] + base._logsf(grid.ravel()).reshape(grid.shape)
            flat_out[s:s + chunk] = sc.logsumexp(vals, axis=1)
        return out

    def _base(self) -> Polya:
        if self.scale is not None:
            return Polya(self.r, scale=self.scale)
        return Polya(self.r, self.beta)

    @proven("polya_difference_recurrence")  # the ₂F₁ closed form, part (c)
    def _logpmf_points(self, k):
        """Closed form through scipy's ₂F₁, Arb where scipy fails."""
        k = np.asarray(k, dtype=np.int64)
        kf = k.astype(float)
        r, b = self._r, self._beta
        hyp = sc.hyp2f1(r, kf + r, kf + 1.0, b * b)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = (
                2.0 * r * math.log(self._one_minus_beta) + kf * self._log_beta
                + log_gamma_ratio(kf, r) - sc.gammaln(r) + np.log(hyp)
            )
        bad = ~np.isfinite(out)
        if bad.any():
            # scipy's 2F1 overflows for r near 1/2 and beta near 1 (the function itself is
            # bounded by (1 - beta²)^-r): certified values for those points.
            out = np.array(out, dtype=float)
            with _arb.precision(96):
                out[bad] = [float(self._arb_pmf(int(x)).log()) for x in k[bad]]
        return out

    @proven("polya_difference_recurrence")
    def _logpmf_range(self, lo: int, hi: int) -> np.ndarray:
        """log p(k) for k = lo..hi (0 <= lo <= hi) by the three-term recurrence

            β(n + 1 − r) p_{n+1} = (1 + β²) n p_n − β(n − 1 + r) p_{n−1}

        (proved from the PGF by ``verification.proofs.polya_difference_recurrence``), run
        backward in ratio form R_n = p_n/p_{n+1} — the stable direction, p being the minimal
        solution — from two closed-form anchors at hi and hi + 1. The numerator never cancels
        badly:
        (1 + β²)n − β(n + 1 − r)/R_n ≈ n(1 + β²) − β²n = n.
        """
        anchors = self._logpmf_points(np.array([hi, hi + 1]))
        beta, r = self._beta, self._r
        one_b2 = 1.0 + beta * beta
        n_steps = hi - lo
        log_ratio = np.empty(n_steps + 1)  # log R_n for n = lo..hi
        ratio = math.exp(anchors[0] - anchors[1])
        log_ratio[n_steps] = anchors[0] - anchors[1]
        for i in range(n_steps, 0, -1):
            n = lo + i
            ratio = (one_b2 * n - beta * (n + 1 - r) / ratio) / (beta * (n - 1 + r))
            log_ratio[i - 1] = math.log(ratio)
        # log p_n = log p_{hi+1} + Σ_{j=n}^{hi} log R_j
        return anchors[1] + np.cumsum(log_ratio[::-1])[::-1]

    def _log_upper_ratio(self, j):
        return np.log(self._ratio_bound(np.maximum(j, 0)))

    def mean(self) -> float:
        """0: the difference of two i.i.d. Pólya variables is symmetric."""
        return 0.0

    def var(self) -> float:
        """The variance 2rβ/(1 − β)²."""
        q = self._one_minus_beta  # (q² may underflow: divide twice, inf past the float range)
        return 2.0 * self._r * self._beta / q / q

    def _sample_direct(self, size, rng):
        shape = () if size is None else size
        p = self._one_minus_beta
        return rng.negative_binomial(self._r, p, shape) - rng.negative_binomial(self._r, p, shape)

    def _wide_sampler(self):
        """Too wide for one table: for r <= 1 (every share of Fact 1) both terms by the
        fixed-budget cell sampler (``_cells.PolyaDifferenceCellSampler``, certified TV);
        for r > 1 (no deployment path) the float one."""
        if self.r > 1:
            return super()._wide_sampler()

        return PolyaDifferenceCellSampler(self)

    # ---------------------------------------------------------------- exact
    def _arb_pmf(self, k: int) -> arb:
        # ₂F₁ closed form when Arb evaluates it tightly; else its positive-term series;
        # else (series too long) the convolution.
        prec = _arb_prec()
        ball = self._arb_pmf_hypergeometric(k)
        if ball.is_finite() and not ball.is_zero() and ball.rel_accuracy_bits() >= prec - 40:
            return ball
        if (prec + 10) * math.log(2) / max(-2 * self._log_beta, 1e-300) < 200_000:
            return self._arb_pmf_hypergeometric(k, series=True)
        return self._arb_pmf_range(k, k)[0]

    @proven("polya_difference_recurrence")  # the ₂F₁ closed form, part (c)
    def _arb_pmf_hypergeometric(self, k: int, series: bool = False) -> arb:
        """Closed form through ₂F₁ (an independent check of the convolution). Arb's ₂F₁
        loses accuracy for large |k|; ``series=True`` sums the defining series instead:
        its terms t_j are positive with t_{j+1}/t_j <= q_j = z·((r + j)/(j + 1))^{[r>1]·2},
        non-increasing in j, so the remainder after t_J is at most t_J q_J/(1 − q_J)."""
        k = abs(k)
        r = _arb.to_arb(self.r)
        beta = self._arb_beta()
        log_front = (
            2 * r * self._arb_one_minus_beta().log() + k * beta.log()
            + (r + k).lgamma() - r.lgamma() - arb(k + 1).lgamma()
        )
        z = beta * beta
        if not series:
            return log_front.exp() * z.hypgeom_2f1(r, r + k, arb(k + 1))
        eps = arb(2) ** (-_arb_prec() - 8)
        term, total, j = arb(1), arb(1), 0
        while True:
            term = term * (r + j) * (r + k + j) / ((k + 1 + j) * (j + 1)) * z
            total += term
            j += 1
            q = z if self.r <= 1 else z * ((r + j) / (j + 1)) ** 2
            if q < 1:
                rest = term * q / (1 - q)
                if rest < eps * total:
                    break
        return log_front.exp() * (total + arb(0, rest.upper()))

    def _arb_pmf_range(self, lo: int, hi: int) -> list[arb]:
        """p(k) = Σ_{j>=0} nb(k+j) nb(j) for |k| <= K by one Arb polynomial product.

        The sum is cut at j = J; for j > J, nb(k+j) <= nb(k+J+1) ρ^{j-J-1}, so the cut-off
        part is at most nb(k+J+1)·P(Pólya > J), which is added to every ball. J is chosen so
        this is below 2^-(prec+10) of the smallest p(k) (p(k) >= nb(k) nb(0)).
        """
        from flint import arb_poly

        top = max(abs(lo), abs(hi))
        base = self._base()
        prec = _arb_prec()
        # float search for the cut J: log(ρ)(J+1) + log P(NB > J) - log nb(0) <= -(prec+10) ln 2
        log_rho = float(np.log(self._ratio_bound(top + 1)))
        log_nb0 = float(base.logpmf(0))
        target = -(prec + 10) * math.log(2)
        cut = max(16, top)
        while log_rho * (cut + 1) + float(base.logsf(cut)) - log_nb0 > target:
            cut *= 2
        nb = base._arb_pmf_range(0, top + cut + 1)
        tail = base._arb_upper_tail(cut)
        if tail is None:  # pragma: no cover - cut is far beyond the mode
            raise CertificationError("no certified Pólya tail at the convolution cut")
        prod = arb_poly(nb[: top + cut + 1]) * arb_poly(nb[cut::-1])
        coeffs = prod.coeffs()
        half = []
        for k in range(top + 1):
            err = (nb[k + cut + 1] * tail).upper()
            half.append(coeffs[cut + k] + arb(0, err))
        return [half[abs(k)] for k in range(lo, hi + 1)]

    def _arb_upper_tail(self, t: int) -> arb | None:
        if t < 0:
            return None
        rho = self._arb_ratio_bound(t + 1)
        if not rho < 1:
            return None
        return self._arb_pmf(t + 1) / (1 - rho)

    @proven("polya_pgf", "fact1_infinite_divisibility")
    def sum_of(self, n: int) -> PolyaDifference:
        """n i.i.d. Pólya(r, β) differences sum to the Pólya(nr, β) difference (at nr = 1 that
        is Lap_Z(b), Fact 1 (000): :func:`privtools.exact.closed_form_sum` names it so)."""
        if self.scale is not None:
            return PolyaDifference(self.r * n, scale=self.scale)
        return PolyaDifference(self.r * n, self.beta)

    @proven("polya_pgf")
    def shares(self, n: int) -> PolyaDifference:
        """n i.i.d. PolyaDifference(r/n, β) sum to PolyaDifference(r, β)."""
        n = check_n(n)
        if self.scale is not None:
            return PolyaDifference(self.r / n, scale=self.scale)
        return PolyaDifference(self.r / n, self.beta)
