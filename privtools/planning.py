"""Parameter choices of paper 000's theorems, computed exactly in one place.

For a batch of n users, target ε and failure probability p (the paper uses p = 1/T):

* Theorem 1 (pure DP, distributed): g = ⌈ε√n⌉, τ = ⌈(g/ε) log(2/p)⌉, m = ng + 2τ + 1;
  user share Pólya(1/n, e^{-ε/g}) − Pólya(1/n, e^{-ε/g}); total noise Lap_Z(g/ε).
* Theorem 2 (RDP, Skellam, scale s >= 1): g = ⌈sε√n⌉,
  τ = ⌈(2g/ε)√log(2/p) + √2 log(2/p)⌉, m = ng + 2τ + 1; share Sk(0, g²/(nε²)),
  total Sk(0, g²/ε²).
* Theorem 3 (pure DP, shuffle = (ε̂, q̂)-relaxed SecAgg): ε̂ = ε/4, ε' = ε/2; g = ⌈ε'√n⌉,
  τ = ⌈(g/ε') log(2/p')⌉ with p' the noise's failure probability (the paper takes
  p' = q̂ = 1/(2T)), m = ng + 2τ + 1; shares summing to Lap_Z(g/ε').
* Theorem 4 (CDP, discrete Gaussian): g = ⌈sε√n⌉, τ = ⌈(g/ε)√(2 log(2/p))⌉; share
  N_Z(0, g²/(nε²)); the total is the n-fold sum (close to N_Z(0, g²/ε²), Lemma 4).
* Theorem 5 (central): g, τ, m as Theorem 1; the analyzer adds Lap_Z(g/ε).
* Theorem 6 (local): g, m as Theorem 1 with τ = ⌈(c g/ε)√(2n log(2/p))⌉, c the constant of
  Lemma 5 (unspecified in the paper: the caller supplies it); each user adds Lap_Z(g/ε).

g is an exact integer (ceiling of a square root of a rational, by integer square roots).
τ involves logarithms: it is computed at 60 digits and rejected as ambiguous if the real
value lies within 1e-40 of an integer.

Deployment plans ("check before deploying"): :func:`plan` maps (privacy, trust, secure) to
the theorem and returns a :class:`Plan` — g, τ, m, bits, the noise laws and the planned
failure probability. With ``tail="exact"`` τ is the certified smallest integer with
P(|total noise| > τ) <= p (:func:`exact_tau`): Fact 2 in closed form for a Lap_Z total, and
for Skellam and the n-fold sums of discrete Gaussians or of the users' Lap_Z an exact
inversion of the characteristic function on Z_M whose aliasing and truncation are bounded
(:func:`total_noise_tail`). :func:`with_parameters` puts the caller's own g, τ, m into a plan;
``verification.plan_check.verify_plan`` checks any plan exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath
from flint import arb

from ._validation import ParameterError, check_int, check_positive_fraction
from .noise import DiscreteGaussian, DiscreteLaplace, Skellam, _arb, _search
from .noise._base import IntegerDistribution

__all__ = [
    "TheoremParams", "theorem_params", "ceil_sqrt", "Plan", "plan", "with_parameters",
    "NoiseSum", "ExactTau", "exact_tau", "total_noise_tail", "SUPPORTED",
]

THEOREMS = (1, 2, 3, 4, 5, 6)


@dataclass(frozen=True)
class TheoremParams:
    """Exact parameters of one batch under a theorem of paper 000."""

    theorem: int
    epsilon: Fraction
    n: int
    p: Fraction
    s: Fraction | None
    g: int            # fixed-point precision = sensitivity of Σ x̂
    tau: int          # underflow threshold of the analyzer
    m: int            # modulus of the secure sum
    share: IntegerDistribution | None   # one user's noise share (None: central noise)
    noise: IntegerDistribution          # the law added to Σ x̂ per user (local) or in total

    @property
    def bits(self) -> int:
        """Bits per user message: ⌈log₂ m⌉."""
        return (self.m - 1).bit_length()


def ceil_sqrt(q: Fraction) -> int:
    """⌈√q⌉ for a rational q >= 0, exactly."""
    q = Fraction(q)
    if q < 0:
        raise ParameterError("ceil_sqrt needs q >= 0")
    a = math.isqrt(q.numerator // q.denominator)
    while a * a < q:
        a += 1
    while a > 0 and (a - 1) * (a - 1) >= q:
        a -= 1
    return a


def _ceil_real(x: mpmath.mpf, what: str) -> int:
    c = int(mpmath.ceil(x))
    if abs(x - mpmath.nint(x)) < mpmath.mpf(10) ** -40:
        raise ArithmeticError(f"{what} = {mpmath.nstr(x, 50)} is too close to an integer to "
                              "round reliably")
    return c


def theorem_params(theorem: int, epsilon, n: int, p, s=1, c=None) -> TheoremParams:
    """Parameters of ``theorem`` (1 to 6) for a batch of ``n`` users.

    ``epsilon``, ``p``, ``s`` and ``c`` are exact rationals (decimal strings welcome).
    ``p`` is the failure probability in the theorem's τ formula; for Theorem 3 that is p'
    (the noise's share of the failure probability: :func:`plan` passes p' = p/2, the
    paper's p' = q̂ = 1/(2T)). ``epsilon`` is always the end-to-end target; Theorem 3 calibrates
    its noise to ε' = ε/2 (the relaxed SecAgg's 2ε̂ = ε/2 is the rest).
    """
    if theorem not in THEOREMS:
        raise ParameterError(f"theorem must be one of {THEOREMS}, got {theorem!r}")
    eps = check_positive_fraction("epsilon", epsilon)
    n = check_int("n", n, minimum=1)
    pf = check_positive_fraction("p", p, upper=1)
    sf = check_positive_fraction("s", s)
    if sf < 1:
        raise ParameterError(f"s must be >= 1, got {s!r}")
    with mpmath.workdps(60):
        e = mpmath.mpf(eps.numerator) / eps.denominator
        log2p = mpmath.log(2 / (mpmath.mpf(pf.numerator) / pf.denominator))
        if theorem == 3:
            ep = eps / 2  # ε' of Theorem 3
            g = ceil_sqrt(ep * ep * n)
            epm = mpmath.mpf(ep.numerator) / ep.denominator
            tau = _ceil_real(g / epm * log2p, "tau")
            noise = DiscreteLaplace(Fraction(g) / ep)
            share = noise.shares(n)
            s_used = None
        elif theorem in (1, 5, 6):
            g = ceil_sqrt(eps * eps * n)
            if theorem == 6:
                if c is None:
                    raise ParameterError("c (the constant of Lemma 5) is required for theorem 6")
                cf = check_positive_fraction("c", c)
                cm = mpmath.mpf(cf.numerator) / cf.denominator
                tau = _ceil_real(cm * g / e * mpmath.sqrt(2 * n * log2p), "tau")
            else:
                tau = _ceil_real(g / e * log2p, "tau")
            noise = DiscreteLaplace(Fraction(g) / eps)
            share = noise.shares(n) if theorem == 1 else None
            s_used = None
        else:
            g = ceil_sqrt(sf * sf * eps * eps * n)
            var = Fraction(g * g) / (eps * eps)
            if theorem == 2:
                tau = _ceil_real(2 * g / e * mpmath.sqrt(log2p) + mpmath.sqrt(2) * log2p, "tau")
                noise = Skellam(var)
            else:
                tau = _ceil_real(g / e * mpmath.sqrt(2 * log2p), "tau")
                noise = DiscreteGaussian(sigma2=var)
            share = noise.shares(n)
            s_used = sf
    if theorem == 6:
        share = noise  # each user adds the full Lap_Z(g/ε) to their own value
    m = n * g + 2 * tau + 1
    return TheoremParams(theorem, eps, n, pf, s_used, g, tau, m, share, noise)


# =============================================================================== tails
# Certified tails of the total noise Σ η_i that the analyzer's τ must cover.


@dataclass(frozen=True)
class NoiseSum:
    """The law of the sum of ``n`` i.i.d. copies of ``share`` where no closed form exists
    (discrete-Gaussian shares, Theorem 4; each user's Lap_Z in the local model, Theorem 6).
    A description only: :func:`total_noise_tail` reads it."""

    share: IntegerDistribution
    n: int

    def __post_init__(self):
        if not isinstance(self.share, (DiscreteGaussian, DiscreteLaplace)):
            raise ParameterError("NoiseSum share must be a DiscreteGaussian or DiscreteLaplace, "
                                 f"got {type(self.share).__name__}")
        object.__setattr__(self, "n", check_int("n", self.n, minimum=1))

    def __str__(self) -> str:
        return f"sum of {self.n} x {self.share}"

    def var(self) -> float:
        return self.n * self.share.var()


class _Family:
    """A symmetric total-noise law S through its characteristic function φ(θ) = E e^{iθS}
    (real, > 0 and non-increasing on [0, π] for every law here) and a Chernoff bound."""

    sd: float

    def log_phi(self, theta: arb) -> arb:  # pragma: no cover - abstract
        raise NotImplementedError

    def log_upper_tail(self, u: int) -> arb:  # pragma: no cover - abstract
        """Certified upper bound on log P(S >= u), u >= 1."""
        raise NotImplementedError


class _SkellamFamily(_Family):
    """Sk(0, v): φ(θ) = exp(v(cos θ − 1)) = exp(−2v sin²(θ/2)); MGF exp(v(cosh λ − 1)), so
    P(S >= u) <= exp(v(cosh λ − 1) − λu) at λ = asinh(u/v) (any λ > 0 is valid)."""

    def __init__(self, law: Skellam):
        if law.mu != 0:
            raise ParameterError("the total noise must be centred (mu = 0)")
        self.v = law.variance
        self.sd = math.sqrt(float(law.variance))

    def log_phi(self, theta):
        return -2 * _arb.to_arb(self.v) * (theta / 2).sin() ** 2

    def log_upper_tail(self, u):
        v = _arb.to_arb(self.v)
        lam = (arb(u) / v).asinh()
        return v * (lam.cosh() - 1) - lam * u


class _GaussSumFamily(_Family):
    """Sum of n i.i.d. N_Z(0, σ²). φ₁(θ) = Θ(θ)/Θ(0), Θ(θ) = Σ_x e^{−x²/(2σ²)} cos(θx), a Jacobi
    theta function: by its product formula Π(1 − q^{2k})(1 + 2q^{2k−1} cos θ + q^{4k−2}),
    q = e^{−1/(2σ²)}, it is positive and non-increasing on [0, π]. Evaluated by Poisson
    summation for σ² >= 1, Θ(θ) ∝ Σ_k e^{−σ²(θ + 2πk)²/2}, directly for σ² < 1; truncation
    remainders bounded as in :mod:`privtools.noise.gaussian`. Chernoff: N_Z(0, σ²) is
    σ²-sub-Gaussian (CKS20; Poisson summation shows Σ_x e^{−(x−μ)²/(2σ²)} <= Σ_x e^{−x²/(2σ²)}),
    so P(S >= u) <= exp(−u²/(2nσ²))."""

    def __init__(self, share: DiscreteGaussian, n: int):
        if share.mu != 0:
            raise ParameterError("the shares must be centred (mu = 0)")
        self.s2, self.n = share.sigma2, n
        self.sd = math.sqrt(n * float(share.sigma2))

    def _log_theta(self, theta: arb) -> arb:
        from .noise.gaussian import _arb_gauss_sum_remainder

        s2 = _arb.to_arb(self.s2)
        if self.s2 >= 1:
            # Θ(θ) ∝ e^{−σ²θ²/2} (1 + Σ_{k≠0} e^{−2πσ²k(θ + πk)}); for |k| >= 2 and
            # θ ∈ [0, π] each term is <= e^{−σ²π²k²}
            pi = arb.pi()
            total = arb(1)
            for k in (-3, -2, -1, 1, 2, 3):
                total += (-2 * pi * s2 * k * (theta + pi * k)).exp()
            total += 2 * _arb_gauss_sum_remainder(s2 * pi * pi, 4)
            return -s2 * theta * theta / 2 + total.log()
        c = 1 / (2 * s2)
        xmax = 4 + int(math.sqrt(2 * float(self.s2) * (flint.ctx.prec + 64) * math.log(2)))
        total = arb(1)
        for x in range(1, xmax + 1):
            total += 2 * (-c * x * x).exp() * (theta * x).cos()
        total += 2 * _arb_gauss_sum_remainder(c, xmax + 1) * arb(0, 1)
        return total.log()

    def log_phi(self, theta):
        return self.n * (self._log_theta(theta) - self._log_theta(arb(0)))

    def log_upper_tail(self, u):
        return -_arb.to_arb(Fraction(u * u) / (2 * self.n * self.s2))


class _LaplaceSumFamily(_Family):
    """Sum of n i.i.d. Lap_Z(b), r = e^{−1/b}: φ₁(θ) = (1 − r)²/(1 − 2r cos θ + r²)
    = 1/(1 + 4r sin²(θ/2)/(1 − r)²), positive and decreasing on [0, π]; MGF
    (1 − r)²/((1 − re^λ)(1 − re^{−λ})) for 0 < λ < 1/b, so P(S >= u) <= MGF(λ)^n e^{−λu}
    (λ chosen numerically; the bound is evaluated in Arb at that λ)."""

    def __init__(self, share: DiscreteLaplace, n: int):
        self.b, self.n = share.scale, n
        self.sd = math.sqrt(n * share.var())

    def _r(self):
        a = 1 / _arb.to_arb(self.b)
        return (-a).exp(), -((-a).expm1())  # r, 1 − r

    def log_phi(self, theta):
        r, one_m_r = self._r()
        return -self.n * (1 + 4 * r * (theta / 2).sin() ** 2 / (one_m_r * one_m_r)).log()

    def log_upper_tail(self, u):
        a = 1.0 / float(self.b)
        r = math.exp(-a)
        target = u / self.n

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
        ra, one_m_r = self._r()
        lead = 1 - ra * lam.exp()
        if not lead > 0:
            return arb(0)  # trivial bound log 1
        log_mgf = 2 * one_m_r.log() - lead.log() - (1 - ra * (-lam).exp()).log()
        return self.n * log_mgf - lam * u


def _family(law) -> _Family | None:
    if isinstance(law, Skellam):
        return _SkellamFamily(law)
    if isinstance(law, DiscreteGaussian):
        return _GaussSumFamily(law, 1)
    if isinstance(law, NoiseSum):
        if isinstance(law.share, DiscreteGaussian):
            return _GaussSumFamily(law.share, law.n)
        return _LaplaceSumFamily(law.share, law.n)
    return None


def _ball_ends(x: arb) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified ``[lower, upper]`` of a finite ball, rounded outward (floor / ceiling)."""
    if not x.is_finite():
        return mpmath.ninf, mpmath.inf
    mid = _arb._arf_to_mpf(x.mid())
    rad = _arb._arf_to_mpf(x.rad())
    prec = max(mpmath.mp.prec, 53) + 128
    return (mpmath.fsub(mid, rad, prec=prec, rounding="f"),
            mpmath.fadd(mid, rad, prec=prec, rounding="c"))


class _FourierTail:
    """P(|S| > t) for every integer t, certified, from the characteristic function.

    With M = 2K + 1 the law of S mod M is exactly the inverse DFT of φ on the M-th roots of
    unity, so W = Σ_{t<|r|<=K} P(S ≡ r mod M) = (1/M)[2(K − t) + 2 Σ_{j=1}^{K} φ(θ_j) D_j],
    θ_j = 2πj/M, D_j = Σ_{t<|r|<=K} e^{−iθ_j r} = −sin((2t + 1)πj/M)/sin(πj/M) (Dirichlet
    kernel; sin((K + ½)θ_j) = 0). Then P(|S| > t) = W − A + P(|S| > K) with the aliased mass
    0 <= A <= P(|S| >= M − K) = P(|S| > K) <= C (Chernoff), so P(|S| > t) ∈ [W − C, W + C].
    The j-sum stops at J where φ(θ_{J+1}) is negligible; as φ is non-increasing on [0, π] the
    rest is at most (2/M)(K − J) φ(θ_{J+1}) min{2(K − t), M/(2(J + 1))}. K is chosen so that
    C <= p·10^-dps, and the whole sum is evaluated in Arb balls.
    """

    def __init__(self, fam: _Family, p: Fraction, dps: int):
        self.fam, self.dps = fam, dps
        with mpmath.workprec(64 + p.denominator.bit_length()):
            logp = float(mpmath.log(mpmath.mpf(p.numerator) / p.denominator))
        self.log_eta = logp - dps * math.log(10)
        self.bits = (_arb.bits_for_dps(dps) + int(-logp / math.log(2)) + 96
                     + int(math.log2(max(2.0, fam.sd))) * 2)
        self.K = self._choose_k()

    def _log_two_sided(self, k: int) -> arb:
        """Certified upper bound on log P(|S| > k) (both tails, Chernoff)."""
        return math.log(2) + self.fam.log_upper_tail(k + 1)

    def _choose_k(self) -> int:
        sd = max(self.fam.sd, 1.0)
        k = int(sd * math.sqrt(2 * (math.log(2) - self.log_eta))) + 1
        with _arb.precision(self.bits):
            for _ in range(200):
                if _ball_ends(self._log_two_sided(k))[1] <= self.log_eta:
                    return k
                k = int(k * 1.25) + 1
        raise ArithmeticError("no Chernoff cut-off found for the total noise")  # pragma: no cover

    def interval(self, t: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        t = int(t)
        if t < 0:
            raise ParameterError(f"t must be >= 0, got {t}")
        K = max(self.K, t + 1)
        M = 2 * K + 1
        with _arb.precision(self.bits):
            C = self._log_two_sided(K).exp()
            pi = arb.pi()
            eta = arb(self.log_eta).exp() / 4

            def phi(j: int) -> arb:
                return self.fam.log_phi(2 * pi * j / M).exp()

            def rem(J: int) -> arb:
                if J >= K:
                    return arb(0)
                width = min(2 * (K - t), M // (2 * (J + 1)) + 1)
                return 2 * (K - J) * phi(J + 1) * width / M

            J = 16
            while J < K and not rem(J) < eta:
                J *= 2
            J = min(J, K)
            if J > 1_000_000:
                raise ArithmeticError(f"the characteristic function of {self.fam!r} decays too "
                                      "slowly for the Fourier tail (more than 10^6 terms)")
            acc = arb(0)
            for j in range(1, J + 1):
                x = pi * j / M
                acc += (self.fam.log_phi(2 * x)).exp() * (-(x * (2 * t + 1)).sin() / x.sin())
            W = (2 * (K - t) + 2 * acc) / M
            lo, hi = _ball_ends(W - C - rem(J))[0], _ball_ends(W + C + rem(J))[1]
        return max(mpmath.mpf(0), lo), min(mpmath.mpf(1), hi)


class _LaplaceTail:
    """Fact 2 (000): Y ~ Lap_Z(b), P(|Y| > t) = 2e^{−(t+1)/b}/(1 + e^{−1/b}) for t >= 0."""

    def __init__(self, law: DiscreteLaplace, dps: int, p: Fraction):
        self.b, self.dps = law.scale, dps
        self.bits = _arb.bits_for_dps(dps) + p.denominator.bit_length() + 64

    def interval(self, t: int) -> tuple[mpmath.mpf, mpmath.mpf]:
        with _arb.precision(self.bits):
            a = 1 / _arb.to_arb(self.b)
            v = 2 * (-(t + 1) * a).exp() / (1 + (-a).exp())
            return _ball_ends(v)


FOURIER_METHOD = ("exact: inversion of the characteristic function on Z_M with Chernoff-bounded "
                  "aliasing (certified interval)")
FACT2_METHOD = "exact: Fact 2 closed form 2e^{-(t+1)/b}/(1 + e^{-1/b}) in Arb (certified interval)"


def _tail_engine(law, p: Fraction, dps: int):
    if isinstance(law, DiscreteLaplace):
        return _LaplaceTail(law, dps, p), FACT2_METHOD
    if isinstance(law, NoiseSum) and law.n == 1:
        law = law.share
        if isinstance(law, DiscreteLaplace):
            return _LaplaceTail(law, dps, p), FACT2_METHOD
    fam = _family(law)
    if fam is None:
        raise ParameterError(f"no certified tail for a total noise of type {type(law).__name__}")
    return _FourierTail(fam, p, dps), FOURIER_METHOD


def total_noise_tail(law, t: int, dps: int = 20, p=None) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Certified ``[lower, upper]`` for ``P(|N| > t)``, N the total noise ``law``:
    :class:`DiscreteLaplace` (Fact 2, closed form), :class:`Skellam` (centred) or a
    :class:`NoiseSum` of discrete-Gaussian / discrete-Laplace shares (characteristic-function
    inversion, see ``_FourierTail``). The interval is about ``10**-dps`` wide relative to ``p``
    (default ``10**-6``); it is always a valid enclosure."""
    t = check_int("t", t, minimum=0)
    pf = Fraction(1, 10**6) if p is None else check_positive_fraction("p", p, upper=1)
    engine, _ = _tail_engine(law, pf, dps)
    return engine.interval(t)


def _mpf_fraction(x: mpmath.mpf) -> Fraction:
    man, exp = x.man_exp
    return Fraction(int(man)) * Fraction(2) ** int(exp)


@dataclass(frozen=True)
class ExactTau:
    """The smallest τ >= 0 with ``P(|N| > τ) <= p``, proved: ``tail`` encloses
    ``P(|N| > τ)`` (upper end <= p) and ``tail_below`` encloses ``P(|N| > τ − 1)``
    (lower end > p; None when τ = 0)."""

    tau: int
    tail: tuple[mpmath.mpf, mpmath.mpf]
    tail_below: tuple[mpmath.mpf, mpmath.mpf] | None
    method: str


def exact_tau(law, p, dps: int = 20) -> ExactTau:
    """Certified smallest integer τ with ``P(|N| > τ) <= p`` for the total noise ``law`` (see
    :func:`total_noise_tail`). Each comparison with ``p`` uses the exact rational value of
    the interval ends; an interval that straddles p is recomputed with twice the digits
    (up to 8·dps), then ``ArithmeticError``."""
    from scipy.stats import norm

    pf = check_positive_fraction("p", p, upper=1)
    d = check_int("dps", dps, minimum=5)
    for _ in range(4):
        engine, method = _tail_engine(law, pf, d)
        cache: dict[int, tuple] = {}

        class _Undecided(Exception):
            pass

        def above(t: int, engine=engine, cache=cache) -> bool:
            if t < 0:
                return True
            if t not in cache:
                cache[t] = engine.interval(t)
            lo, hi = cache[t]
            if _mpf_fraction(lo) > pf:
                return True
            if _mpf_fraction(hi) <= pf:
                return False
            raise _Undecided

        if isinstance(law, DiscreteLaplace) or (isinstance(law, NoiseSum) and law.n == 1
                                                and isinstance(law.share, DiscreteLaplace)):
            b = float(law.scale if isinstance(law, DiscreteLaplace) else law.share.scale)
            guess = max(0, int(b * (math.log(2 / float(pf)) - math.log1p(math.exp(-1 / b)))))
            step = max(1, int(b / 4))
        else:
            sd = math.sqrt(max(law.var(), 1e-12))
            guess = max(0, int(sd * norm.isf(float(pf) / 2)))
            step = max(1, int(sd / 8))
        try:
            if above(guess - 1):
                tau = guess if not above(guess) else _search.last_true(above, guess, step, +1) + 1
            else:
                tau = _search.last_true(lambda t: not above(t), guess - 1, step, -1)
            above(tau)
            if tau > 0:
                above(tau - 1)
            return ExactTau(tau, cache[tau], cache.get(tau - 1) if tau > 0 else None, method)
        except _Undecided:
            d *= 2
    raise ArithmeticError(f"could not separate p={p!r} from a tail value of {law}")


# =============================================================================== plans
PRIVACY = ("pure-dp", "rdp", "cdp")
TRUST = ("distributed", "central", "local")
SECURE = ("secagg", "shuffle")
TAIL_MODES = ("bound", "exact")
# (privacy, trust, secure) -> theorem of paper 000
SUPPORTED = {
    ("pure-dp", "distributed", "secagg"): 1,
    ("pure-dp", "distributed", "shuffle"): 3,
    ("rdp", "distributed", "secagg"): 2,
    ("cdp", "distributed", "secagg"): 4,
    ("pure-dp", "central", "secagg"): 5,
    ("pure-dp", "local", "secagg"): 6,
}
_BOUND_METHOD = {
    1: "bound: Fact 2 tail of Lap_Z(g/ε), τ = ⌈(g/ε) log(2/p)⌉ (Theorem 1)",
    2: "bound: Proposition 1, τ = ⌈(2g/ε)√log(2/p) + √2 log(2/p)⌉ (Theorem 2)",
    3: "bound: Fact 2 tail of Lap_Z(g/ε'), τ = ⌈(g/ε') log(2/p')⌉ (Theorem 3)",
    4: "bound: sub-Gaussian tail, τ = ⌈(g/ε)√(2 log(2/p))⌉ (Theorem 4)",
    5: "bound: Fact 2 tail of Lap_Z(g/ε), τ = ⌈(g/ε) log(2/p)⌉ (Theorem 5)",
    6: "bound: Lemma 5 with the caller's c, τ = ⌈(cg/ε)√(2n log(2/p))⌉ (Theorem 6)",
}


def _choice(name: str, value, allowed: tuple[str, ...]) -> str:
    if not isinstance(value, str) or value not in allowed:
        raise ParameterError(f"{name} must be one of {', '.join(allowed)}; got {value!r}")
    return value


def _bits(m: int | None) -> int | None:
    return None if m is None else (m - 1).bit_length()


@dataclass(frozen=True)
class Plan:
    """Parameters of one batch of the private-bandit protocol of paper 000, ready to deploy.

    A value (describe, then interpret): the protocol reads ``n, g, tau, m, share,
    central_noise, trust, secure``; :func:`verification.plan_check.verify_plan` checks it.

    Fields: ``theorem`` of paper 000 that the plan instantiates; ``epsilon`` the end-to-end
    target (pure ε, RDP ε of Theorem 2's ε̂(α), or CDP ε of Theorem 4); ``p`` the failure
    probability per batch (default 1/horizon); ``g`` the precision (sensitivity of Σx̂),
    ``tau`` the analyzer's underflow threshold, ``m = ng + 2τ + 1`` the modulus (a plan built
    with :func:`with_parameters` may hold other values); ``share`` each user's noise (None
    under central trust), ``central_noise`` the analyzer's noise (central trust only);
    ``total_noise`` the law added to Σx̂ — exact where closed (Lap_Z, Sk, the
    :class:`NoiseSum` of the local model), the nominal N_Z(0, g²/ε²) for cdp (see
    ``total_noise_note``); ``failure_probability`` the planned bound on
    P(|output − Σx̂/g| > τ/g): ``p_noise`` for the noise (p; p' = p/2 for shuffle) plus
    ``q_hat`` (shuffle: the relaxed SecAgg's failure probability, a property of the shuffle
    protocol that is assumed); ``tail`` "bound" (the theorem's τ) or "exact" (the smallest τ
    with P(|total noise| > τ) <= p_noise, certified — ``tail_interval`` encloses that
    probability at τ, ``tail_interval_below`` at τ − 1); ``tau_bound`` the theorem's τ
    (None for the local model without c). ``epsilon_view`` is the ε the noise is calibrated
    to (ε' = ε/2 for shuffle, whose relaxed SecAgg costs ``epsilon_secure`` = ε̂ = ε/4 twice).
    """

    privacy: str
    trust: str
    secure: str
    theorem: int
    epsilon: Fraction
    n: int
    horizon: int
    p: Fraction
    s: Fraction | None
    c: Fraction | None
    g: int
    tau: int
    m: int
    share: IntegerDistribution | None
    central_noise: IntegerDistribution | None
    total_noise: IntegerDistribution | NoiseSum
    total_noise_note: str
    failure_probability: Fraction
    p_noise: Fraction
    q_hat: Fraction | None
    epsilon_view: Fraction
    epsilon_secure: Fraction | None
    tail: str
    tail_method: str
    tau_bound: int | None
    tail_interval: tuple[mpmath.mpf, mpmath.mpf] | None = None
    tail_interval_below: tuple[mpmath.mpf, mpmath.mpf] | None = None
    user_parameters: tuple[str, ...] = ()

    # ------------------------------------------------------------------ derived
    @property
    def bits(self) -> int:
        """Bits per user message: ⌈log₂ m⌉."""
        return (self.m - 1).bit_length()

    @property
    def m_bound(self) -> int | None:
        """The modulus with the theorem's τ: ng + 2τ_bound + 1."""
        return None if self.tau_bound is None else self.n * self.g + 2 * self.tau_bound + 1

    @property
    def bits_bound(self) -> int | None:
        return _bits(self.m_bound)

    @property
    def bits_saved(self) -> int | None:
        """Bits per user message saved against the theorem's τ."""
        return None if self.bits_bound is None else self.bits_bound - self.bits

    @property
    def exact_total_noise(self) -> IntegerDistribution | NoiseSum:
        """The true law of the total noise (the n-fold sum for discrete-Gaussian shares)."""
        if self.theorem == 4:
            return NoiseSum(self.share, self.n)
        return self.total_noise

    @property
    def mechanism_noise(self) -> IntegerDistribution | NoiseSum:
        """The noise in the view whose privacy is planned: the total noise, except in the
        local model, where each user's message carries its own Lap_Z(g/ε)."""
        return self.share if self.theorem == 6 else self.exact_total_noise

    # ------------------------------------------------------------------ display
    def to_dict(self) -> dict:
        def iv(x):
            return None if x is None else [mpmath.nstr(x[0], 12), mpmath.nstr(x[1], 12)]

        return {
            "privacy": self.privacy, "trust": self.trust, "secure": self.secure,
            "theorem": self.theorem, "epsilon": str(self.epsilon), "n": self.n,
            "horizon": self.horizon, "p": str(self.p),
            "s": None if self.s is None else str(self.s),
            "c": None if self.c is None else str(self.c),
            "g": self.g, "tau": self.tau, "m": self.m, "bits": self.bits,
            "share": None if self.share is None else str(self.share),
            "central_noise": None if self.central_noise is None else str(self.central_noise),
            "total_noise": str(self.total_noise), "total_noise_note": self.total_noise_note,
            "failure_probability": str(self.failure_probability),
            "p_noise": str(self.p_noise),
            "q_hat": None if self.q_hat is None else str(self.q_hat),
            "epsilon_view": str(self.epsilon_view),
            "epsilon_secure": None if self.epsilon_secure is None else str(self.epsilon_secure),
            "tail": self.tail, "tail_method": self.tail_method,
            "tau_bound": self.tau_bound, "m_bound": self.m_bound, "bits_bound": self.bits_bound,
            "bits_saved": self.bits_saved,
            "tail_interval": iv(self.tail_interval),
            "tail_interval_below": iv(self.tail_interval_below),
            "user_parameters": list(self.user_parameters),
        }

    def __str__(self) -> str:
        lines = [
            f"Plan: Theorem {self.theorem} (000) — {self.privacy}, {self.trust} trust, "
            f"{self.secure}; ε = {self.epsilon}, n = {self.n}, T = {self.horizon}, p = {self.p}"
            + (f", s = {self.s}" if self.s is not None else "")
            + (f", c = {self.c}" if self.c is not None else ""),
            f"  g = {self.g}, τ = {self.tau}, m = {self.m} ({self.bits} bits per user)",
        ]
        if self.tau_bound is not None and self.tail == "exact":
            lines.append(f"  theorem's bound: τ = {self.tau_bound}, m = {self.m_bound} "
                         f"({self.bits_bound} bits) — saves {self.tau_bound - self.tau} in τ, "
                         f"{self.bits_saved} bit(s)")
        lines += [
            f"  share: {self.share}; central noise: {self.central_noise}",
            f"  total noise: {self.total_noise} ({self.total_noise_note})",
            f"  failure probability <= {self.failure_probability}; τ: {self.tail_method}",
        ]
        if self.user_parameters:
            lines.append(f"  user-chosen: {', '.join(self.user_parameters)}")
        return "\n".join(lines)


def _check_horizon(horizon) -> int:
    if isinstance(horizon, float) and math.isnan(horizon):
        raise ParameterError("horizon must be an integer >= 1, got nan")
    return check_int("horizon", horizon, minimum=1)


def plan(privacy: str = "pure-dp", epsilon=None, n: int | None = None,
         horizon: int | None = None, s=1, trust: str = "distributed",
         secure: str = "secagg", tail: str = "bound", p=None, c=None,
         dps: int = 20) -> Plan:
    """Plan one batch of ``n`` users for a target ``epsilon`` over ``horizon`` rounds T.

    Picks the theorem of paper 000 from (privacy, trust, secure) — see ``SUPPORTED``:
    pure-dp+distributed+secagg → Theorem 1; pure-dp+distributed+shuffle → Theorem 3
    (ε̂ = ε/4, ε' = ε/2, q̂ = p' = p/2, i.e. 1/(2T) with the default p); rdp → Theorem 2
    (Skellam, scale ``s`` >= 1); cdp → Theorem 4 (discrete Gaussian, ``s`` >= 1);
    pure-dp+central → Theorem 5; pure-dp+local → Theorem 6. ``p`` defaults to 1/horizon
    (the paper's p = 1/T).

    ``tail="bound"``: the theorem's τ. ``tail="exact"``: the smallest τ with
    P(|total noise| > τ) <= p (p' for shuffle), certified (:func:`exact_tau`): Fact 2 in closed
    form for Lap_Z totals, characteristic-function inversion for Skellam and for the n-fold
    sums of discrete Gaussians (Theorem 4) and of the users' Lap_Z (Theorem 6). Same g, same
    privacy; smaller τ and m. Theorem 6 needs ``c`` (the unspecified constant of Lemma 5)
    for ``tail="bound"`` only.
    """
    privacy = _choice("privacy", privacy, PRIVACY)
    trust = _choice("trust", trust, TRUST)
    secure = _choice("secure", secure, SECURE)
    tail = _choice("tail", tail, TAIL_MODES)
    if epsilon is None:
        raise ParameterError("epsilon is required")
    eps = check_positive_fraction("epsilon", epsilon)
    if n is None:
        raise ParameterError("n is required")
    n = check_int("n", n, minimum=1)
    if horizon is None:
        raise ParameterError("horizon is required")
    horizon = _check_horizon(horizon)
    sf = check_positive_fraction("s", s)
    if sf < 1:
        raise ParameterError(f"s must be >= 1, got {s!r}")
    if p is None:
        if horizon < 2:
            raise ParameterError("horizon must be >= 2 for the default p = 1/horizon "
                                 "(p must be < 1); or pass p")
        pf = Fraction(1, horizon)
    else:
        pf = check_positive_fraction("p", p, upper=1)
    cf = None if c is None else check_positive_fraction("c", c)
    dps = check_int("dps", dps, minimum=5)
    key = (privacy, trust, secure)
    if key not in SUPPORTED:
        options = "; ".join(f"{a}+{b}+{d} (Theorem {t})" for (a, b, d), t in SUPPORTED.items())
        raise ParameterError(f"unsupported combination privacy={privacy!r}, trust={trust!r}, "
                             f"secure={secure!r}; supported: {options}")
    theorem = SUPPORTED[key]
    if privacy == "pure-dp" and sf != 1:
        raise ParameterError(f"s applies to rdp and cdp plans only, got s={s!r} for pure-dp")
    if cf is not None and theorem != 6:
        raise ParameterError("c (Lemma 5's constant) applies to trust='local' only")
    if theorem == 6 and cf is None and tail == "bound":
        raise ParameterError("c (the constant of Lemma 5, unspecified in paper 000) is "
                             "required for trust='local' with tail='bound'; tail='exact' "
                             "needs no c")

    q_hat = eps_secure = None
    p_noise = pf
    if theorem == 3:
        p_noise = q_hat = pf / 2
        eps_secure = eps / 4
    if theorem == 6 and cf is None:
        # g does not depend on c: take it from Theorem 1's choice (Theorem 6 shares it)
        base = theorem_params(1, eps, n, p_noise)
        prm = TheoremParams(6, eps, n, p_noise, None, base.g, 0, 0, base.noise, base.noise)
        tau_bound = None
    else:
        prm = theorem_params(theorem, eps, n, p_noise, s=sf, c=cf)
        tau_bound = prm.tau
    g = prm.g
    eps_view = eps / 2 if theorem == 3 else eps

    share, central = prm.share, None
    note = "exact law of the sum of the n shares"
    total: IntegerDistribution | NoiseSum = prm.noise
    if theorem == 5:
        share, central = None, prm.noise
        note = "added once by the analyzer"
    elif theorem == 4:
        note = ("nominal: the true total is the n-fold sum of the shares, close to it "
                "(Lemma 4); exact tails and privacy are computed on that sum")
    elif theorem == 6:
        total = NoiseSum(prm.noise, n)
        note = "exact law: each user adds Lap_Z(g/ε); no closed form for the sum"

    tail_iv = tail_below = None
    if tail == "exact":
        law = NoiseSum(prm.share, n) if theorem == 4 else total
        res = exact_tau(law, p_noise, dps=dps)
        tau, method = res.tau, res.method
        tail_iv, tail_below = res.tail, res.tail_below
    else:
        tau, method = tau_bound, _BOUND_METHOD[theorem]
    m = n * g + 2 * tau + 1
    return Plan(privacy, trust, secure, theorem, eps, n, horizon, pf,
                sf if privacy != "pure-dp" else None, cf, g, tau, m, share, central, total,
                note, p_noise + (q_hat or 0), p_noise, q_hat, eps_view, eps_secure, tail,
                method, tau_bound, tail_iv, tail_below)


def with_parameters(base: Plan, *, g: int | None = None, tau: int | None = None,
                    m: int | None = None) -> Plan:
    """``base`` with the caller's own ``g``, ``tau`` and/or ``m`` ("check your own
    parameters"). The noise laws stay those of ``base`` (calibrated to ε at the planned g):
    a g above the planned one exceeds the privacy target. ``m`` defaults to ng + 2τ + 1
    with the new values. The result records which values were supplied."""
    if not isinstance(base, Plan):
        raise ParameterError(f"base must be a Plan, got {type(base).__name__}")
    changed = []
    new_g, new_tau = base.g, base.tau
    if g is not None:
        new_g = check_int("g", g, minimum=1)
        changed.append("g")
    if tau is not None:
        new_tau = check_int("tau", tau, minimum=0)
        changed.append("tau")
    new_m = base.n * new_g + 2 * new_tau + 1
    if m is not None:
        new_m = check_int("m", m, minimum=2)
        changed.append("m")
    if not changed:
        return base
    import dataclasses

    method = base.tail_method if tau is None else "user-chosen τ"
    return dataclasses.replace(
        base, g=new_g, tau=new_tau, m=new_m, tail_method=method,
        tail_interval=base.tail_interval if tau is None else None,
        tail_interval_below=base.tail_interval_below if tau is None else None,
        user_parameters=tuple(changed))
