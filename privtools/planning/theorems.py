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
from privtools.noise import IntegerDistribution
from privtools.proven import proven
from privtools.validation import POINT_LIMIT, check_int, check_positive_fraction

from .deployments import DEPLOYMENTS, Deployment, by_theorem

__all__ = ["TheoremParams", "theorem_params", "view_params", "ceil_sqrt", "THEOREMS"]

THEOREMS = tuple(d.theorem for d in DEPLOYMENTS)


@dataclass(frozen=True, kw_only=True)
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

    @property
    def deployment(self) -> Deployment:
        """The deployment of paper 000 these parameters instantiate."""
        return by_theorem(self.theorem)


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
    dep = by_theorem(theorem)
    eps = check_positive_fraction("epsilon", epsilon)
    n = check_int("n", n, minimum=1)
    pf = check_positive_fraction("p", p, upper=1)
    sf = check_positive_fraction("s", s)
    if sf < 1:
        raise ParameterError(f"s must be >= 1, got {s!r}")
    cf = None
    if dep.needs_c:
        if c is None:
            raise ParameterError(f"c (the constant of Lemma 5) is required for theorem {theorem}")
        cf = check_positive_fraction("c", c)
    ev, g = _precision(dep, eps, n, sf)
    with mpmath.workdps(60):
        log2p = mpmath.log(2 / (mpmath.mpf(pf.numerator) / pf.denominator))
        evm = mpmath.mpf(ev.numerator) / ev.denominator
        cm = None if cf is None else mpmath.mpf(cf.numerator) / cf.denominator
        tau = _tau(dep.tau(g, evm, n, log2p, cm), eps, n, pf, g, cf)
    noise, share = _laws(dep, g, ev, n)   # after τ: an ε beyond the range is named first
    m = n * g + 2 * tau + 1
    return TheoremParams(theorem=theorem, epsilon=eps, n=n, p=pf, s=sf if dep.scaled else None,
                         g=g, tau=tau, m=m, share=share, noise=noise)


def _precision(dep: Deployment, eps: Fraction, n: int, s: Fraction) -> tuple[Fraction, int]:
    """(ε of the view, the precision g) of a deployment."""
    ev = eps * dep.view_fraction          # ε' = ε/2 of Theorem 3, else ε
    scale = s if dep.scaled else 1
    return ev, ceil_sqrt(scale * scale * ev * ev * n)


def _laws(dep: Deployment, g: int, ev: Fraction, n: int):
    """(the calibrated law, one user's share) of a deployment at precision g."""
    noise = dep.law(g, ev)
    share = noise.shares(n) if dep.site == "shares" else noise if dep.site == "user" else None
    return noise, share


def view_params(theorem: int, epsilon, n: int, p, s=1) -> TheoremParams:
    """The view a batch releases under ``theorem``: :func:`theorem_params`, except that a
    theorem whose τ bound needs Lemma 5's constant c (Theorem 6) gets its g and noise — which
    do not depend on c — with τ = m = 0 (an exact tail sets them)."""
    dep = by_theorem(theorem)
    if not dep.needs_c:
        return theorem_params(theorem, epsilon, n, p, s=s)
    eps = check_positive_fraction("epsilon", epsilon)
    pf = check_positive_fraction("p", p, upper=1)
    n = check_int("n", n, minimum=1)
    ev, g = _precision(dep, eps, n, Fraction(1))
    noise, share = _laws(dep, g, ev, n)
    return TheoremParams(
        theorem=theorem, epsilon=eps, n=n, p=pf, s=None, g=g, tau=0, m=0, share=share, noise=noise
    )
