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
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from privtools.errors import CertificationError, ParameterError
from privtools.noise import DiscreteGaussian, DiscreteLaplace, IntegerDistribution, Skellam
from privtools.proven import proven
from privtools.validation import POINT_LIMIT, check_int, check_positive_fraction

__all__ = ["TheoremParams", "theorem_params", "ceil_sqrt", "THEOREMS"]

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
    if 0 < x < 0.5:  # a product of positive factors, computed to 60 digits: ⌈x⌉ = 1 surely
        return 1
    if abs(x - mpmath.nint(x)) < mpmath.mpf(10) ** -40:
        raise CertificationError(f"{what} = {mpmath.nstr(x, 50)} is too close to an integer to "
                              "round reliably")
    return c


def _tau(x: mpmath.mpf, eps: Fraction, n: int, p: Fraction, g: int, c=None) -> int:
    """⌈x⌉ for a theorem's τ, which must lie in the integer range of privtools (±2**62,
    :data:`privtools.validation.POINT_LIMIT`): beyond it, ParameterError naming the cause —
    Lemma 5's c when given, else ε while g = 1 (τ ∝ 1/ε, so the message gives the smallest
    supported ε), else the precision g = ⌈sε√n⌉."""
    if x > POINT_LIMIT:
        where = f"for n = {n} and p = {p}: τ would be {mpmath.nstr(x, 3)}, beyond 2**62 " \
                "(the integer range of privtools)"
        if c is not None:
            raise ParameterError(f"c = {mpmath.nstr(mpmath.mpf(c.numerator) / c.denominator, 3)}"
                                 f" is too large {where}")
        if g == 1:
            e = mpmath.mpf(eps.numerator) / eps.denominator
            least = mpmath.nstr(e * x / POINT_LIMIT * mpmath.mpf("1.01"), 2)
            raise ParameterError(f"epsilon = {mpmath.nstr(e, 3)} is too small {where}; "
                                 f"supported: epsilon >= ~{least}")
        raise ParameterError(f"the precision g = {mpmath.nstr(mpmath.mpf(g), 3)} (from epsilon, "
                             f"n and s) is too large {where}")
    return _ceil_real(x, "tau")


@proven("fact2_tail")  # τ of Theorems 1, 3 and 5: the Lap_Z tail
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
            tau = _tau(g / epm * log2p, eps, n, pf, g)
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
                tau = _tau(cm * g / e * mpmath.sqrt(2 * n * log2p), eps, n, pf, g, cf)
            else:
                tau = _tau(g / e * log2p, eps, n, pf, g)
            noise = DiscreteLaplace(Fraction(g) / eps)
            share = noise.shares(n) if theorem == 1 else None
            s_used = None
        else:
            g = ceil_sqrt(sf * sf * eps * eps * n)
            var = Fraction(g * g) / (eps * eps)
            if theorem == 2:
                tau = _tau(2 * g / e * mpmath.sqrt(log2p) + mpmath.sqrt(2) * log2p,
                           eps, n, pf, g)
                noise = Skellam(var)
            else:
                tau = _tau(g / e * mpmath.sqrt(2 * log2p), eps, n, pf, g)
                noise = DiscreteGaussian(sigma2=var)
            share = noise.shares(n)
            s_used = sf
    if theorem == 6:
        share = noise  # each user adds the full Lap_Z(g/ε) to their own value
    m = n * g + 2 * tau + 1
    return TheoremParams(theorem, eps, n, pf, s_used, g, tau, m, share, noise)
