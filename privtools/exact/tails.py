"""Certified tails and quantiles: the one tail engine of privtools.

    exact_tail(X, t)              certified Interval for P(|X − c| > t)
    exact_quantile(X, p)          smallest integer t >= 0 with P(|X − c| > t) <= p (proved)
    total_noise_tail(N, t)        P(|N| > t) for a total noise N, also an n-fold NoiseSum
    exact_tau(N, p)               the analyzer's certified minimal τ (ExactTau)
    tail_points(X, [(t, p), ...])  the tail at t and the quantile at p for each claimed
                                  point of a bound t(p) (what a check of a bound needs)

Three ways to enclose a tail, chosen by what the law states (privtools.noise):

* **PMF window** (a law or an :class:`~privtools.exact.ExactPMF`): the tail is summed from the
  tail itself — never as 1 − (central mass), which keeps no relative accuracy once the tail
  is below ``10**-dps`` — as ``[Σ lower ends, Σ upper ends + R]`` of the Arb balls of
  ``P(X = k)`` over a window beyond ``c ± t``; ``R`` is the certified remainder beyond the
  window (the law's ``tail_bound``), or an ExactPMF's certified ``unaccounted`` mass.
* **Closed form**: a law's ``two_sided_tail_ball`` (Fact 2 (000) for Lap_Z).
* **Fourier n-fold** (a law or NoiseSum stating ``log_cf_ball`` and ``log_chernoff_ball``):
  exact inversion of the characteristic function on Z_M with a certified aliasing bound
  (:class:`_FourierTail`); no PMF of the sum is ever tabulated.

Every comparison with a probability ``p`` uses ``p``'s exact rational value (a float is
taken at its binary value: pass ``"1e-30"``, a ``Fraction`` or an mpf for a decimal), and
the quantile searches all go through :func:`privtools.certified.certified_threshold`.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified.intervals import Interval, decide_le, interval
from privtools.certified.rounding import add_up
from privtools.certified.search import certified_threshold
from privtools.errors import CertificationError, ParameterError
from privtools.noise import IntegerDistribution, NoiseSum
from privtools.validation import (
    check_dps,
    check_int,
    check_positive_fraction,
    check_probability,
)

from .pmf import ExactPMF

__all__ = ["exact_tail", "exact_quantile", "total_noise_tail", "exact_tau", "ExactTau",
           "tail_points", "TailPoint", "FOURIER_METHOD", "CLOSED_FORM_METHOD"]


def _resolve_center(X, center) -> int:
    """The centre tails are measured from: ``center``, else the law's own (0 for a PMF)."""
    if center is None:
        return X.center if isinstance(X, IntegerDistribution) else 0
    return check_int("center", center)


def _check_tail_law(X) -> None:
    """A law or an ExactPMF on Z (a wrapped PMF has no tails)."""
    if isinstance(X, ExactPMF):
        if X.modulus is not None:
            raise ParameterError("the tail of a wrapped (mod m) PMF is not defined; pass the "
                                 "PMF on Z")
        return
    if not isinstance(X, IntegerDistribution):
        raise ParameterError("dist must be a privtools.noise distribution or an ExactPMF, got "
                             f"{type(X).__name__}")



# ============================================================================ PMF window
class _PMFTails:
    """All tails of an ExactPMF about ``c`` at once (suffix sums of certified balls)."""

    def __init__(self, P: ExactPMF, c: int, two_sided: bool):
        bits = P._bits()
        dmax = max(abs(P.lo - c), abs(P.hi - c))
        by_dist = [arb(0)] * (dmax + 2)
        with _arb.precision(bits):
            for k, b in zip(P.support, P.balls):
                d = k - c
                if d > 0 or (two_sided and d < 0):
                    by_dist[abs(d)] += _arb.nonneg(b)  # a probability is >= 0
            # suffix[t] = Σ_{d > t} by_dist[d]
            suffix = [arb(0)] * (dmax + 1)
            acc = arb(0)
            for d in range(dmax, -1, -1):
                suffix[d] = acc
                acc += by_dist[d]
        with mpmath.workprec(bits):
            self.lower = [max(mpmath.mpf(0), _arb.lower_mpf(s)) for s in suffix]
            self.upper = [min(mpmath.mpf(1), add_up(_arb.upper_mpf(s), P.unaccounted))
                          for s in suffix]
        self.dmax = dmax
        self.unaccounted = P.unaccounted  # (re-wrapping with mpf() would round it)

    def interval(self, t: int) -> mpmath.mpi:
        if t >= self.dmax:
            return interval(mpmath.mpf(0), min(mpmath.mpf(1), self.unaccounted))
        return interval(self.lower[t], self.upper[t])

    def quantile(self, p: Fraction) -> int | None:
        """Smallest t >= 0 with certified tail(t) <= p and certified tail(t − 1) > p, or
        None when the table cannot decide (unaccounted mass comparable to p)."""
        try:
            t, _ = certified_threshold(lambda i, _dps: self.interval(i), p, 0, 1, 1,
                                       refinements=1, what="the PMF's tail")
        except CertificationError:  # the table's precision is what it is: undecided
            return None
        return t


def exact_tail(dist_or_pmf, t: int, two_sided: bool = True, dps: int = 30,
               center: int | None = None) -> mpmath.mpi:
    """Certified interval containing ``P(|X − c| > t)`` (``two_sided=False``:
    ``P(X − c > t)``) for an integer ``t >= 0``.

    ``dist_or_pmf``: a privtools distribution (``c`` defaults to its centre; the interval
    is about ``10**-dps`` wide relative to the tail) or an :class:`ExactPMF` (``c``
    defaults to 0; the PMF's ``unaccounted`` mass widens the upper end, ``dps`` is unused).
    """
    _check_tail_law(dist_or_pmf)
    t = check_int("t", t, minimum=0)
    dps = check_dps(dps)
    if not isinstance(two_sided, bool):
        raise ParameterError(f"two_sided must be a bool, got {two_sided!r}")
    c = _resolve_center(dist_or_pmf, center)
    if isinstance(dist_or_pmf, ExactPMF):
        return _PMFTails(dist_or_pmf, c, two_sided).interval(t)
    return dist_or_pmf.certified_tail(t, two_sided, dps, c)


def exact_quantile(dist_or_pmf, p, two_sided: bool = True, dps: int = 30,
                   center: int | None = None) -> int | None:
    """Smallest integer ``t >= 0`` with ``P(|X − c| > t) <= p``, certified at ``t`` and
    ``t − 1`` — the one quantile of privtools, whatever ``X`` is:

    * a distribution: its own :meth:`~privtools.noise.IntegerDistribution.tail_quantile`
      (PMF window; its own centre only);
    * a :class:`~privtools.noise.NoiseSum`: the Fourier n-fold engine
      (:func:`exact_tau`, which also returns the enclosures that prove τ; two-sided, centre 0);
    * an ExactPMF: its certified table; None when the unaccounted mass prevents a certified
      decision.

    All three searches are :func:`privtools.certified.certified_threshold`."""
    if isinstance(dist_or_pmf, NoiseSum):
        if two_sided is not True or center not in (None, 0):
            raise ParameterError("the quantile of a NoiseSum is two-sided about 0")
        return exact_tau(dist_or_pmf, check_probability("p", p), dps=dps).tau
    _check_tail_law(dist_or_pmf)
    q = check_probability("p", p)
    c = _resolve_center(dist_or_pmf, center)
    if isinstance(dist_or_pmf, ExactPMF):
        if not isinstance(two_sided, bool):
            raise ParameterError(f"two_sided must be a bool, got {two_sided!r}")
        return _PMFTails(dist_or_pmf, c, two_sided).quantile(q)
    if c != dist_or_pmf.center:
        raise ParameterError(f"center={c}: quantiles of a distribution are about its own "
                             f"centre {dist_or_pmf.center}")
    return dist_or_pmf.tail_quantile(q, dps=dps, two_sided=two_sided)


@dataclass(frozen=True)
class TailPoint:
    """One point of a claimed tail bound: the threshold ``t``, the probability ``p``, the
    certified ``tail`` P(|X − c| > t) and the exact ``quantile`` at p (the smallest t' with
    P(|X − c| > t') <= p; None when it cannot be decided or, for a distribution, when ``c``
    is not its own centre)."""

    t: int
    p: Fraction
    tail: Interval
    quantile: int | None


def tail_points(dist_or_pmf, points, two_sided: bool = True, dps: int = 30,
                center: int | None = None) -> tuple[TailPoint, ...]:
    """The certified tail at ``t`` and the exact quantile at ``p`` for every ``(t, p)`` of
    ``points`` — what a check of a claimed bound ``t(p)`` needs, from one tail table of an
    ExactPMF or from the law's own certified tails. For a distribution, a tail whose
    interval straddles ``p`` is enclosed again at 2× and 4× ``dps`` before it is returned
    (the verdict is the caller's: ``privtools.certified.decide_le``)."""
    _check_tail_law(dist_or_pmf)
    dps = check_dps(dps)
    if not isinstance(two_sided, bool):
        raise ParameterError(f"two_sided must be a bool, got {two_sided!r}")
    c = _resolve_center(dist_or_pmf, center)
    rows = [(check_int("t", t, minimum=0), check_probability("p", p)) for t, p in points]
    out = []
    if not rows:  # (the arguments are checked: a caller may validate before its own work)
        return ()
    if isinstance(dist_or_pmf, ExactPMF):
        table = _PMFTails(dist_or_pmf, c, two_sided)
        return tuple(TailPoint(t, p, table.interval(t), table.quantile(p)) for t, p in rows)
    for t, p in rows:
        for d in (dps, 2 * dps, 4 * dps):
            tail = dist_or_pmf.certified_tail(t, two_sided, d, c)
            if decide_le(tail, p) is not None:
                break
        quantile = None
        if c == dist_or_pmf.center:
            try:
                quantile = dist_or_pmf.tail_quantile(p, dps=dps, two_sided=two_sided)
            except ArithmeticError:  # undecided at this precision
                quantile = None
        out.append(TailPoint(t, p, tail, quantile))
    return tuple(out)



# ============================================================================ n-fold sums
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

    def __init__(self, law, p: Fraction, dps: int):
        self.law, self.dps = law, dps
        self.sd = law.std() if hasattr(law, "std") else math.sqrt(law.var())
        with mpmath.workprec(64 + p.denominator.bit_length()):
            logp = float(mpmath.log(mpmath.mpf(p.numerator) / p.denominator))
        self.log_eta = logp - dps * math.log(10)
        self.bits = (_arb.bits_for_dps(dps) + int(-logp / math.log(2)) + 96
                     + int(math.log2(max(2.0, self.sd))) * 2)
        self.K = self._choose_k()

    def _log_two_sided(self, k: int) -> arb:
        """Certified upper bound on log P(|S| > k) (both tails, Chernoff)."""
        return math.log(2) + self.law.log_chernoff_ball(k + 1)

    def _choose_k(self) -> int:
        sd = max(self.sd, 1.0)
        k = int(sd * math.sqrt(2 * (math.log(2) - self.log_eta))) + 1
        with _arb.precision(self.bits):
            for _ in range(200):
                if _arb.upper_mpf(self._log_two_sided(k)) <= self.log_eta:
                    return k
                k = int(k * 1.25) + 1
        raise CertificationError(  # pragma: no cover
            "no Chernoff cut-off found for the total noise")

    def interval(self, t: int) -> Interval:
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
                return self.law.log_cf_ball(2 * pi * j / M).exp()

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
                raise CertificationError(f"the characteristic function of {self.law} decays too "
                                      "slowly for the Fourier tail (more than 10^6 terms)")
            acc = arb(0)
            for j in range(1, J + 1):
                x = pi * j / M
                acc += (self.law.log_cf_ball(2 * x)).exp() * (-(x * (2 * t + 1)).sin() / x.sin())
            W = (2 * (K - t) + 2 * acc) / M
            lo, hi = _arb.lower_mpf(W - C - rem(J)), _arb.upper_mpf(W + C + rem(J))
        return interval(max(mpmath.mpf(0), lo), min(mpmath.mpf(1), hi))



class _ClosedFormTail:
    """A law's closed-form two-sided tail (e.g. Fact 2 (000) for Lap_Z), in Arb."""

    def __init__(self, law, dps: int, p: Fraction):
        self.law, self.dps = law, dps
        self.bits = _arb.bits_for_dps(dps) + p.denominator.bit_length() + 64

    def interval(self, t: int) -> Interval:
        with _arb.precision(self.bits):
            v = self.law.two_sided_tail_ball(t)
            return interval(_arb.lower_mpf(v), _arb.upper_mpf(v))


FOURIER_METHOD = ("exact: inversion of the characteristic function on Z_M with Chernoff-bounded "
                  "aliasing (certified interval)")
CLOSED_FORM_METHOD = ("exact: the law's closed-form tail in Arb (Fact 2 for Lap_Z; certified "
                      "interval)")


def _tail_engine(law, p: Fraction, dps: int):
    if not isinstance(law, (IntegerDistribution, NoiseSum)):
        raise ParameterError(f"law must be a privtools.noise distribution or a NoiseSum, got "
                             f"{type(law).__name__}")
    if law.center != 0:
        raise ParameterError("the total noise must be centred (mu = 0)")
    if law.two_sided_tail_ball(0) is not None:
        return _ClosedFormTail(law, dps, p), CLOSED_FORM_METHOD
    return _FourierTail(law, p, dps), FOURIER_METHOD


def total_noise_tail(law, t: int, dps: int = 20, p=None) -> Interval:
    """Certified Interval for ``P(|N| > t)``, N the total noise ``law``: a law with a closed-form
    tail (:class:`~privtools.noise.DiscreteLaplace`, Fact 2), or any centred law or
    :class:`~privtools.noise.NoiseSum` that states its characteristic function and Chernoff
    bound (Skellam, discrete-Gaussian and discrete-Laplace sums; see :class:`_FourierTail`).
    The interval is about ``10**-dps`` wide relative to ``p`` (default ``10**-6``); it is
    always a valid enclosure."""
    t = check_int("t", t, minimum=0)
    pf = Fraction(1, 10**6) if p is None else check_positive_fraction("p", p, upper=1)
    engine, _ = _tail_engine(law, pf, check_int("dps", dps, minimum=5))
    return engine.interval(t)


@dataclass(frozen=True)
class ExactTau:
    """The smallest τ >= 0 with ``P(|N| > τ) <= p``, proved: ``tail`` encloses
    ``P(|N| > τ)`` (upper end <= p) and ``tail_below`` encloses ``P(|N| > τ − 1)``
    (lower end > p; None when τ = 0)."""

    tau: int
    tail: Interval
    tail_below: Interval | None
    method: str


def exact_tau(law, p, dps: int = 20) -> ExactTau:
    """Certified smallest integer τ with ``P(|N| > τ) <= p`` for the total noise ``law`` (see
    :func:`total_noise_tail`). Each comparison with ``p`` uses the exact rational value of
    the interval ends; an interval that straddles p is recomputed with twice the digits
    (up to 8·dps), then :class:`~privtools.errors.CertificationError`."""
    from scipy.stats import norm

    pf = check_positive_fraction("p", p, upper=1)
    d = check_int("dps", dps, minimum=5)
    engines: dict[int, tuple] = {}

    def enclose(t: int, digits: int):
        if digits not in engines:
            engines[digits] = _tail_engine(law, pf, digits)
        return engines[digits][0].interval(t)

    if isinstance(law, IntegerDistribution):  # the law's own float tails
        guess = max(0, law._float_upper_quantile(math.log(float(pf) / 2)) - law.center)
    else:
        guess = max(0, int(law.std() * norm.isf(float(pf) / 2)))
    step = max(1, int(math.sqrt(max(law.var(), 1e-12)) / 8))
    tau, cache = certified_threshold(enclose, pf, guess, step, d, what=f"a tail value of {law}")
    method = next(iter(engines.values()))[1]
    return ExactTau(tau, cache[tau], cache.get(tau - 1) if tau > 0 else None, method)
