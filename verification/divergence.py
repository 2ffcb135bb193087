"""Certified divergences between the two views of a mechanism (issue 3, part 1).

Every public function returns an ``mpmath.mpi`` interval that provably contains the true
value (Arb ball arithmetic from python-flint; endpoints rounded outward). The lower end
may be the value of the tabulated part alone; the upper end accounts for everything the
tabulation leaves out, and is ``+inf`` where no finite certified bound exists.

Definitions (P, Q probability measures on Z or on Z_m)
------------------------------------------------------
* Rényi divergence of order α > 1:
  ``D_α(P‖Q) = 1/(α−1) · log Σ_k P(k)^α Q(k)^{1−α}``;
  ``D_∞(P‖Q) = max_k log P(k)/Q(k)`` (the privacy-loss bound one way).
* LLR (max log-likelihood ratio, both directions): ``max_k |log P(k)/Q(k)|`` =
  ``max(D_∞(P‖Q), D_∞(Q‖P))``; ``+inf`` when the supports differ.
* Hockey-stick divergence: ``δ(ε) = Σ_k max(0, P(k) − e^ε Q(k))``, ε >= 0; the mechanism
  is (ε, δ)-DP for this pair iff δ(ε) <= δ; ``δ(0)`` is the total variation distance.

Where they are used (paper 000)
-------------------------------
* Theorem 1 (pure DP, Pólya shares summing to Lap_Z(g/ε)): the analyzer sees the sum
  mod m, so the guarantee is ``llr(wrap(P, m), wrap(shift(P, g), m)) <= ε``.
* Theorems 2 and 4 (RDP/CDP with Skellam or discrete-Gaussian shares): ``renyi_shift`` of
  the total noise with sensitivity g is the exact ε(α) that Lemma 3 / Lemma 4 bound
  (000 §5; ε(α) <= αΔ²/(2σ²) + … for Skellam, ½ε²α-type bounds for the discrete Gaussian).
* (ε, δ) statements: ``hockey_stick`` / ``delta_curve`` / ``epsilon_for_delta``.

Data processing
---------------
Wrapping mod m is a deterministic post-processing of the output, so it can only decrease
every f-divergence, every Rényi divergence (all α, including ∞, hence the LLR) and every
hockey-stick divergence: ``D(wrap(P)‖wrap(Q)) <= D(P‖Q)``. The certified intervals obey
``wrapped.lower <= unwrapped.upper`` (tested).

What the unaccounted mass does to the bounds
--------------------------------------------
An :class:`~verification.exact.ExactPMF` is ``P = A + R``: A(k) in the Arb balls, R >= 0
unknown with total mass ``u_P`` (for PMFs on Z outside the tabulated range, for wrapped
PMFs anywhere in Z_m). ``u_P`` is tightened to ``min(u_P, 1 − Σ A)`` (the total mass is 1).

* Rényi, wrapped: the upper end maximizes ``Σ (a_k + r_k)^α b_k^{1−α}`` over r >= 0,
  Σ r <= u_P; this is convex in r, so the maximum is at a vertex: all of u_P on one point
  (max over k), with b_k at its lower end. The lower end takes a_k at its lower and
  b_k + u_Q at its upper end (each s_k <= u_Q).
* Rényi / D_∞ / LLR on Z: outside the tabulated range nothing is known about P/Q, so the
  upper end is ``+inf`` unless the P-side has no unaccounted mass. ``renyi_shift`` is the
  tool for finite certified answers on Z: it knows the noise law and bounds the remainder.
  The lower end on Z also uses the reverse-Hölder bound
  ``Σ_T P^α Q^{1−α} >= (Σ_T a)^α u_Q^{1−α}`` over the points T tabulated for P only.
* Hockey-stick: ``max(0, A + R − e^ε(B + S)) <= max(0, A − e^ε B) + R`` gives
  ``upper = Σ max(0, a⁺ − e^ε b⁻) + u_P``; each unit of S lowers the sum by at most e^ε,
  so ``lower = Σ max(0, a⁻ − e^ε b⁺) − e^ε u_Q`` (on Z the −e^ε u_Q correction only
  applies to the points tabulated for P but not for Q, where S can live).

Float versions
--------------
``renyi_float`` / ``hockey_stick_float`` sum the float ``logpmf`` in log space (scipy's
``logsumexp``) over a grid that is widened until its ends are negligible: fast, no
certificate, used as a cross-check (they agree with the certified values to ~1e-9
relative wherever the quantity is not itself tiny).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import flint
import mpmath
import numpy as np
from flint import arb
from scipy.special import logsumexp

from privtools._validation import check_dps, check_int
from privtools.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    Polya,
    PolyaDifference,
    Skellam,
    _arb,
)
from privtools.noise._base import IntegerDistribution

from .exact.pmf import ExactPMF, shift, wrap

__all__ = [
    "renyi",
    "llr",
    "hockey_stick",
    "delta_curve",
    "epsilon_for_delta",
    "renyi_shift",
    "renyi_shift_curve",
    "hockey_stick_shift",
    "renyi_float",
    "hockey_stick_float",
    "discrete_laplace_renyi",
    "discrete_laplace_hockey_stick",
    "endpoints",
]

_LN10 = math.log(10.0)
_INF = mpmath.inf


# =========================================================================== validation
def _check_pmf(name: str, P) -> None:
    if not isinstance(P, ExactPMF):
        raise TypeError(f"{name} must be an ExactPMF, got {type(P).__name__}")


def _check_pair(P, Q) -> None:
    _check_pmf("P", P)
    _check_pmf("Q", Q)
    if P.modulus != Q.modulus:
        raise ValueError(
            f"P and Q must live on the same space: P.modulus={P.modulus}, Q.modulus={Q.modulus}"
        )


def _real_to_fraction(name: str, value):
    """Exact value of a real number as a Fraction, or ``math.inf``; NaN -> ValueError."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be a real number, got bool")
    if isinstance(value, Fraction):
        return value
    if isinstance(value, numbers.Integral):
        return Fraction(int(value))
    if isinstance(value, mpmath.mpf):
        if mpmath.isnan(value):
            raise ValueError(f"{name} must not be NaN")
        if mpmath.isinf(value):
            return math.inf if value > 0 else -math.inf
        man, exp = value.man_exp
        return Fraction(int(man)) * Fraction(2) ** int(exp)
    if isinstance(value, numbers.Real):
        f = float(value)
        if math.isnan(f):
            raise ValueError(f"{name} must not be NaN")
        if math.isinf(f):
            return f
        return Fraction(f)
    raise TypeError(f"{name} must be a real number, got {type(value).__name__}")


def _check_alpha(alpha):
    """Fraction > 1, or math.inf."""
    a = _real_to_fraction("alpha", alpha)
    if a == math.inf:
        return math.inf
    if a == -math.inf or a <= 1:
        raise ValueError(f"alpha must be > 1 (or math.inf), got {alpha!r}")
    return a


def _check_eps(eps, name: str = "eps") -> Fraction:
    e = _real_to_fraction(name, eps)
    if e in (math.inf, -math.inf):
        raise ValueError(f"{name} must be finite, got {eps!r}")
    if e < 0:
        raise ValueError(f"{name} must be >= 0, got {eps!r}")
    return e


def _check_delta(delta) -> Fraction:
    d = _real_to_fraction("delta", delta)
    if d in (math.inf, -math.inf) or not (0 < d < 1):
        raise ValueError(f"delta must be in (0, 1), got {delta!r}")
    return d


def _check_noise(noise) -> None:
    if not isinstance(noise, (IntegerDistribution, ExactPMF)):
        raise TypeError(
            "noise must be a privtools.noise distribution or an ExactPMF, got "
            f"{type(noise).__name__}"
        )


def _check_modulus(m):
    if m is None:
        return None
    return check_int("m", m, minimum=2)


# =========================================================================== arb helpers
def _exact(x) -> arb:
    """Arb ball for an int or Fraction (exact for ints and dyadic Fractions)."""
    return _arb.to_arb(x)


def _mpf_to_arb(x) -> arb:
    """Exact Arb value of an mpmath number (finite)."""
    x = mpmath.mpf(x)
    if x == 0:
        return arb(0)
    man, exp = x.man_exp
    man, exp = int(man), int(exp)
    with _arb.precision(max(int(flint.ctx.prec), man.bit_length() + 8)):
        return arb(man) * arb(2) ** exp


def _lo(x: arb) -> arb:
    """Exact lower end of a ball, rounded down to the working precision (call inside a
    precision context at least as fine as the ball's)."""
    return x.lower()


def _hi(x: arb) -> arb:
    return x.upper()


def _nonneg(x: arb) -> arb:
    """max(0, x) for an exact Arb value."""
    return x if x > 0 else arb(0)


def _amax(a: arb, b: arb) -> arb:
    return a if a > b else b


def _amin(a: arb, b: arb) -> arb:
    return a if a < b else b


def _to_mpf(x: arb) -> mpmath.mpf:
    return _arb.to_mpf(x)


def _interval(lo, hi, bits: int) -> mpmath.mpi:
    """mpi from exact Arb endpoints (or mpf / inf); rounding is outward."""
    with mpmath.workprec(max(bits, 53)):
        a = lo if isinstance(lo, mpmath.mpf) else _to_mpf(lo)
        b = hi if isinstance(hi, mpmath.mpf) else _to_mpf(hi)
        return mpmath.mpi(a, b)


def _inf_interval() -> mpmath.mpi:
    return mpmath.mpi(_INF, _INF)


def endpoints(x: mpmath.mpi) -> tuple[mpmath.mpf, mpmath.mpf]:
    """The exact endpoints of an ``mpmath.mpi`` as mpf numbers (``x.a``/``x.b`` are
    interval objects; these keep every bit)."""
    a, b = x._mpi_
    return mpmath.mp.make_mpf(a), mpmath.mp.make_mpf(b)


def _max_interval(xs: list[mpmath.mpi]) -> mpmath.mpi:
    """Interval containing max of the quantities each interval contains."""
    ends = [endpoints(x) for x in xs]
    a = max(e[0] for e in ends)
    b = max(e[1] for e in ends)
    prec = max(_mpf_prec(v) for e in ends for v in e)
    with mpmath.workprec(prec):
        return mpmath.mpi(a, b)


def _mpf_prec(v: mpmath.mpf) -> int:
    if not mpmath.isfinite(v) or v == 0:
        return 53
    return max(53, int(v.man_exp[0]).bit_length() + 2)


def _mpi_prec(x: mpmath.mpi) -> int:
    return max(_mpf_prec(v) for v in endpoints(x))


def _bits(dps: int, extra: int = 0) -> int:
    return _arb.bits_for_dps(dps) + 2 * _arb.GUARD_BITS + extra


def _pow_pair(x: arb, y: arb, alpha: Fraction, alpha_arb: arb):
    """x^α y^{1−α} for x, y >= 0 (exact or balls); None when it is +inf (y = 0 < x)."""
    if x.is_zero():
        return arb(0)
    if not y > 0:
        return None
    if alpha.denominator == 1:
        n = int(alpha)
        return x**n / y ** (n - 1)
    return (alpha_arb * x.log() - (alpha_arb - 1) * y.log()).exp()


# =========================================================================== pair tables
def _effective_unaccounted(P: ExactPMF) -> arb:
    """Exact upper bound on the unaccounted mass: min(u_P, 1 − Σ A)."""
    u = _hi(_mpf_to_arb(P.unaccounted))
    alt = _hi(1 - P.mass())
    return _nonneg(_amin(u, alt))


@dataclass
class _Pair:
    """Exact endpoints of the accounted masses of P and Q on the union of their ranges."""

    wrapped: bool
    ks: range
    inP: list[bool]
    inQ: list[bool]
    la: list[arb]
    ua: list[arb]
    lb: list[arb]
    ub: list[arb]
    uP: arb
    uQ: arb
    bits: int


def _pair(P: ExactPMF, Q: ExactPMF, extra_bits: int = 0) -> _Pair:
    lo, hi = min(P.lo, Q.lo), max(P.hi, Q.hi)
    n = hi - lo + 1
    bits = _bits(max(P.dps, Q.dps), extra_bits + max(1, n).bit_length())
    zero = arb(0)

    def ends(R: ExactPMF) -> tuple[list[bool], list[arb], list[arb]]:
        """For k = lo..hi: tabulated?, and the non-negative lower/upper ends of R's ball."""
        inside, lower, upper = [], [], []
        for k in range(lo, hi + 1):
            tab = R.lo <= k <= R.hi
            inside.append(tab)
            b = R.balls[k - R.lo] if tab else None
            lower.append(_nonneg(_lo(b)) if tab else zero)
            upper.append(_nonneg(_hi(b)) if tab else zero)
        return inside, lower, upper

    with _arb.precision(bits):
        inP, la, ua = ends(P)
        inQ, lb, ub = ends(Q)
        uP = _effective_unaccounted(P)
        uQ = _effective_unaccounted(Q)
    return _Pair(P.modulus is not None, range(lo, hi + 1), inP, inQ, la, ua, lb, ub, uP, uQ,
                 bits)


# =========================================================================== Rényi
def renyi(P: ExactPMF, Q: ExactPMF, alpha) -> mpmath.mpi:
    """Certified interval containing ``D_α(P‖Q)``.

    ``alpha``: int, Fraction or float > 1 (a float is taken at its exact binary value), or
    ``math.inf`` for ``D_∞(P‖Q) = max_k log P(k)/Q(k)``. The upper end is ``+inf`` for PMFs
    on Z whose P-side has unaccounted mass (nothing is known about P/Q outside the
    tabulated range; use :func:`renyi_shift`), and whenever Q may vanish where P does not.
    """
    _check_pair(P, Q)
    a = _check_alpha(alpha)
    if a == math.inf:
        return _renyi_inf(_pair(P, Q))
    extra = int(math.log2(float(a) + 1)) + 8
    t = _pair(P, Q, extra_bits=extra)
    with _arb.precision(t.bits):
        s_lo, s_hi = _renyi_sum_bounds(t, a)
        return _renyi_from_sums(s_lo, s_hi, a, t.bits)


def _renyi_sum_bounds(t: _Pair, a: Fraction):
    """(lower, upper) exact bounds on S = Σ P^α Q^{1−α}; None means +inf."""
    aa = _exact(a)
    lower = arb(0)
    only_p = arb(0)  # Σ a_k over points tabulated for P only (Z)
    for ip, iq, la, ub in zip(t.inP, t.inQ, t.la, t.ub):
        if ip and iq:
            qb = ub + t.uQ if t.wrapped else ub
            v = _pow_pair(la, qb, a, aa)
            if v is None:
                return None, None
            lower += v
        elif ip:
            only_p += la
    if only_p > 0:
        v = _pow_pair(only_p, t.uQ, a, aa)  # reverse Hölder over the P-only points
        if v is None:
            return None, None
        lower += v
    lower = _nonneg(_lo(lower))

    if not t.wrapped:
        if t.uP > 0:
            return lower, None
        upper = arb(0)
        for ip, iq, ua, lb in zip(t.inP, t.inQ, t.ua, t.lb):
            if not ip or ua.is_zero():
                continue
            v = _pow_pair(ua, lb if iq else arb(0), a, aa)
            if v is None:
                return lower, None
            upper += v
        return lower, _hi(upper)

    base = arb(0)
    worst = arb(0)
    for ua, lb in zip(t.ua, t.lb):
        v = _pow_pair(ua, lb, a, aa)
        if v is None:
            return lower, None
        base += v
        if t.uP > 0:
            w = _pow_pair(ua + t.uP, lb, a, aa)
            if w is None:
                return lower, None
            worst = _amax(worst, _hi(w - v))
    return lower, _hi(base + worst)


def _renyi_from_sums(s_lo, s_hi, a: Fraction, bits: int) -> mpmath.mpi:
    if s_lo is None:
        return _inf_interval()
    am1 = _exact(a - 1)
    lo = _nonneg(_lo(s_lo.log() / am1)) if s_lo > 0 else arb(0)
    if s_hi is None:
        return _interval(lo, _INF, bits)
    hi = _hi(s_hi.log() / am1)
    hi = _amax(hi, lo)
    return _interval(lo, hi, bits)


def _renyi_inf(t: _Pair, swap: bool = False) -> mpmath.mpi:
    """D_∞(P‖Q) (or D_∞(Q‖P) with swap)."""
    la, ua, lb, ub = (t.lb, t.ub, t.la, t.ua) if swap else (t.la, t.ua, t.lb, t.ub)
    inP, inQ = (t.inQ, t.inP) if swap else (t.inP, t.inQ)
    uP, uQ = (t.uQ, t.uP) if swap else (t.uP, t.uQ)
    with _arb.precision(t.bits):
        lower = arb(0)
        for ip, iq, a_lo, b_hi in zip(inP, inQ, la, ub):
            if not ip or a_lo.is_zero():
                continue
            q = (b_hi + uQ if t.wrapped else b_hi) if iq else uQ
            if not q > 0:
                return _inf_interval()
            lower = _amax(lower, _nonneg(_lo((a_lo / q).log())))
        if not t.wrapped and uP > 0:
            return _interval(lower, _INF, t.bits)
        upper = arb(0)
        for ip, iq, a_hi, b_lo in zip(inP, inQ, ua, lb):
            pa = a_hi + uP if t.wrapped else (a_hi if ip else arb(0))
            if pa.is_zero():
                continue
            if not iq or not b_lo > 0:
                return _interval(lower, _INF, t.bits)
            upper = _amax(upper, _hi((pa / b_lo).log()))
        return _interval(lower, _amax(upper, lower), t.bits)


def llr(P: ExactPMF, Q: ExactPMF) -> mpmath.mpi:
    """Certified interval containing ``max_k |log P(k)/Q(k)|`` (both directions).

    ``+inf`` if the supports differ. On Z the upper end is ``+inf`` whenever either side
    has unaccounted mass (see the module docstring); for the wrapped views of Theorem 1
    it is finite: the upper end uses ``(a_k + u_P)/b_k^-`` and symmetrically.
    """
    _check_pair(P, Q)
    t = _pair(P, Q)
    return _max_interval([_renyi_inf(t), _renyi_inf(t, swap=True)])


# =========================================================================== hockey-stick
def _hockey_bounds(t: _Pair, e: arb) -> tuple[arb, arb]:
    """Exact (lower, upper) bounds on δ given the ball ``e`` ∋ e^ε."""
    lower = arb(0)
    only_p = arb(0)
    upper = arb(0)
    for ip, iq, la, ua, lb, ub in zip(t.inP, t.inQ, t.la, t.ua, t.lb, t.ub):
        if not ip:
            continue
        c = ua - e * lb
        if c > 0 or c.contains(0):
            upper += _nonneg(_hi(c))
        if iq:
            d = la - e * ub
            if d > 0 or d.contains(0):
                lower += _nonneg(_lo(d))
        else:
            only_p += la
    if t.wrapped:
        lower = _nonneg(_lo(lower - e * t.uQ))
    else:
        lower = _nonneg(_lo(lower + _nonneg(_lo(only_p - e * t.uQ))))
    upper = _amin(_hi(upper + t.uP), arb(1))
    return lower, _amax(upper, lower)


def _exp_ball(eps: Fraction) -> arb:
    return _exact(eps).exp()


def hockey_stick(P: ExactPMF, Q: ExactPMF, eps) -> mpmath.mpi:
    """Certified interval containing ``δ(ε) = Σ_k max(0, P(k) − e^ε Q(k))`` (ε >= 0).

    Finite on Z too: P's unaccounted mass can add at most its mass (upper end), Q's can
    remove at most e^ε times its mass (lower end)."""
    _check_pair(P, Q)
    e = _check_eps(eps)
    t = _pair(P, Q)
    with _arb.precision(t.bits):
        lo, hi = _hockey_bounds(t, _exp_ball(e))
    return _interval(lo, hi, t.bits)


def _nonempty_list(values, name: str, what: str) -> list:
    """``list(values)``; TypeError if not iterable, ValueError if empty (naming ``name``)."""
    try:
        out = list(values)
    except TypeError as exc:
        raise TypeError(f"{name} must be an iterable of {what}") from exc
    if not out:
        raise ValueError(f"{name} must be a non-empty list")
    return out


def delta_curve(P: ExactPMF, Q: ExactPMF, epsilons) -> list[mpmath.mpi]:
    """``[hockey_stick(P, Q, ε) for ε in epsilons]`` sharing one table."""
    _check_pair(P, Q)
    es = [_check_eps(x, "epsilons") for x in _nonempty_list(epsilons, "epsilons", "numbers")]
    t = _pair(P, Q)
    out = []
    with _arb.precision(t.bits):
        for e in es:
            lo, hi = _hockey_bounds(t, _exp_ball(e))
            out.append(_interval(lo, hi, t.bits))
    return out


def epsilon_for_delta(P: ExactPMF, Q: ExactPMF, delta, tol=Fraction(1, 2**40)) -> mpmath.mpi:
    """Certified bracket of ``ε* = min{ε >= 0 : δ(ε) <= delta}`` (δ(ε) = hockey stick).

    Two bisections on the certified δ(ε): the lower end is the largest ε found with
    ``δ(ε).lower > delta`` (so ε* > ε), the upper end the smallest found with
    ``δ(ε).upper <= delta`` (so ε* <= ε). ``tol``: absolute width of each bisection.
    The upper end is ``+inf`` when no ε up to 2^20 certifies ``δ(ε) <= delta`` (e.g. on Z
    when ``delta`` is below P's unaccounted mass).
    """
    _check_pair(P, Q)
    d = _check_delta(delta)
    tol = Fraction(tol)
    t = _pair(P, Q)
    with _arb.precision(t.bits):
        dd = _exact(d)

        def certified_le(e: Fraction) -> bool:  # δ(e).upper <= delta
            return not _hockey_bounds(t, _exp_ball(e))[1] > dd

        def certified_gt(e: Fraction) -> bool:  # δ(e).lower > delta
            return _hockey_bounds(t, _exp_ball(e))[0] > dd

        if certified_le(Fraction(0)):
            return _interval(arb(0), arb(0), t.bits)
        hi = Fraction(1)
        while not certified_le(hi):
            hi *= 2
            if hi > 2**20:
                lo = _bisect(certified_gt, Fraction(0), Fraction(2**20), tol) \
                    if certified_gt(Fraction(0)) else Fraction(0)
                return _interval(_exact(lo), _INF, t.bits)
        # upper end: smallest certified_le (predicate false at 0, true at hi)
        up = _bisect(lambda e: not certified_le(e), Fraction(0), hi, tol, return_upper=True)
        lo = _bisect(certified_gt, Fraction(0), up, tol) if certified_gt(Fraction(0)) \
            else Fraction(0)
        return _interval(_exact(lo), _exact(up), t.bits)


def _bisect(pred, a: Fraction, b: Fraction, tol: Fraction, return_upper: bool = False):
    """pred(a) true, pred(b) false: shrink [a, b] to width tol; return a (or b)."""
    while b - a > tol:
        mid = (a + b) / 2
        if pred(mid):
            a = mid
        else:
            b = mid
    return b if return_upper else a


# =========================================================================== closed forms
def discrete_laplace_renyi(scale, sensitivity: int, alpha, dps: int = 30) -> mpmath.mpi:
    """``D_α(Lap_Z(b) + Δ ‖ Lap_Z(b))`` in closed form (certified, any scale).

    With a = 1/b, d = |Δ| >= 1 and three geometric series (y >= 0, y <= −d, −d < y < 0 in
    ``Σ_y p(y)^α p(y+d)^{1−α}``):

        S = (e^{(α−1)da} + e^{−αda}) / (1 + e^{−a})
            + tanh(a/2) e^{(α−1)da} e^{−(2α−1)a} (1 − e^{−(2α−1)(d−1)a}) / (1 − e^{−(2α−1)a}),

    ``D_α = log(S)/(α−1)``; for d = 1 the second line vanishes:
    ``D_α = 1/(α−1) · log((e^{(α−1)/b} + e^{−α/b}) / (1 + e^{−1/b}))``.
    ``alpha = math.inf`` gives ``d/b`` exactly. Both directions coincide (symmetry).
    """
    b = DiscreteLaplace(scale).scale
    d = abs(check_int("sensitivity", sensitivity))
    a = _check_alpha(alpha)
    dps = check_dps(dps)
    if d == 0:
        return mpmath.mpi(0, 0)
    if a == math.inf:
        return _adaptive(lambda: _exact(Fraction(d) / b), dps)

    def compute():
        inv = _exact(1 / b)
        aa = _exact(a)
        first = (((aa - 1) * d * inv).exp() + (-aa * d * inv).exp()) / (1 + (-inv).exp())
        if d > 1:
            k = (2 * aa - 1) * inv
            second = ((inv / 2).tanh() * ((aa - 1) * d * inv - k).exp()
                      * (-((-(d - 1) * k).expm1())) / (-((-k).expm1())))
            first = first + second
        return first.log() / (aa - 1)

    return _adaptive(compute, dps, nonneg=True)


def discrete_laplace_hockey_stick(scale, sensitivity: int, eps, dps: int = 30) -> mpmath.mpi:
    """``δ(ε)`` for ``Lap_Z(b) + Δ`` vs ``Lap_Z(b)`` in closed form (certified, any scale).

    The privacy loss ``L(x) = (|x| − |x − d|)/b`` is non-decreasing in x, so
    ``{L > ε} = {x >= x0}`` with ``x0 = ⌊(d + εb)/2⌋ + 1`` (for ε < d/b; δ = 0 otherwise) and
    ``δ(ε) = P(X >= x0 − d) − e^ε P(X >= x0)``, with Fact 2's tails:
    ``P(X >= k) = e^{−(k−1)/b}/(e^{1/b} + 1)`` (k >= 1), ``1 − e^{k/b}/(e^{1/b} + 1)`` (k <= 0).
    """
    b = DiscreteLaplace(scale).scale
    d = abs(check_int("sensitivity", sensitivity))
    e = _check_eps(eps)
    dps = check_dps(dps)
    if d == 0 or e >= Fraction(d) / b:
        return mpmath.mpi(0, 0)
    z = (d + e * b) / 2
    x0 = math.floor(z) + 1

    def compute():
        inv = _exact(1 / b)
        den = inv.exp() + 1

        def ge(k: int) -> arb:
            if k >= 1:
                return (-(k - 1) * inv).exp() / den
            return 1 - (k * inv).exp() / den

        return ge(x0 - d) - _exact(e).exp() * ge(x0)

    return _adaptive(compute, dps, nonneg=True)


def _adaptive(compute, dps: int, nonneg: bool = False) -> mpmath.mpi:
    """Evaluate ``compute()`` (an Arb ball) at rising precision until it carries ``dps``
    significant digits (or is exactly zero); return it as an interval."""
    bits = _bits(dps)
    for _ in range(8):
        with _arb.precision(bits):
            v = compute()
            lo, hi = _lo(v), _hi(v)
        if v.is_exact() or (v.is_finite() and not v.contains(0) and _arb.has_digits(v, dps)):
            break
        bits *= 2
    if nonneg:
        lo = _nonneg(lo)
        hi = _nonneg(hi)
    return _interval(lo, hi, bits)


# =========================================================================== shift: dispatch
_METHODS = ("auto", "tabulate")


def renyi_shift(noise, sensitivity: int, alpha, dps: int = 30, m=None,
                method: str = "auto") -> mpmath.mpi:
    """Certified ``D_α(noise + Δ ‖ noise)`` — the exact RDP curve point of the mechanism.

    ``noise``: a privtools distribution or an :class:`ExactPMF` (e.g. ``sum_pmf(...)``).
    ``m``: compare the wrapped views ``(noise + Δ) mod m`` and ``noise mod m`` instead.

    Direction: all privtools laws except :class:`Polya` are symmetric about their centre,
    and then ``D_α(noise + Δ ‖ noise) = D_α(noise ‖ noise + Δ) = D_α(noise − Δ ‖ noise)``
    (substitute y -> 2c − y − Δ), so the one number is the max of both directions. For
    :class:`Polya` (support N) ``D_α(noise ‖ noise + Δ) = +inf`` and so is the max; for an
    ExactPMF both directions are computed and the interval of their max is returned.

    How (distributions on Z, ``method="tabulate"`` or no closed form):

    * the terms ``t(y) = p(y)^α p(y+Δ)^{1−α}`` peak near ``y ≈ (α−1)Δ`` (Gaussian-like
      noise); a float pass over ``logpmf`` finds a window holding all but ~10^-(dps+6) of
      the sum, which is then summed in Arb from a certified PMF table (for integer α
      along a curve, incrementally: ``t_{α+1} = t_α · p(y)/p(y+Δ)``);
    * right of the window: ``t(y+1)/t(y) = R(y)·(R(y)/R(y+Δ))^{α−1} <= q`` with
      ``R(y) = p(y+1)/p(y)`` non-increasing (log-concavity) and a certified bound on
      ``R(y)/R(y+Δ)`` (discrete Gaussian: e^{Δ/σ²}; Lap_Z: 1; Skellam: from the Bessel
      recurrence ``1/R(ν) = R(ν+1) + 2(ν+1)/x`` and ``R(ν+1) <= R(ν)``,
      ``x/(ν+1+√((ν+1)²+x²)) <= R(ν) <= x/(ν+√((ν+2)²+x²))``, whose ratio is monotone;
      Pólya difference with r <= 1, log-convex on N: q = β), so the rest is
      ``<= t(Y)/(1 − q)``;
    * left of the window: segments ``[lo, hi]`` bounded by ``ρ(hi)^{α−1} P(lo <= X <= hi)``
      with ``ρ(y) = p(y)/p(y+Δ)`` non-decreasing (log-concavity; for the log-convex Pólya
      difference ``ρ <= p(0)/p(Δ)``, and ``<= 1`` for y <= −Δ) and certified tail masses.

    Closed forms: ``DiscreteLaplace`` (``method="auto"``, see
    :func:`discrete_laplace_renyi`); ``alpha = math.inf``: Lap_Z ``Δ/b``; discrete Gaussian
    and Skellam ``+inf`` (their privacy loss is unbounded on Z); Pólya difference
    ``log p(0)/p(Δ)`` for r <= 1 and ``Δ·log(1/β)`` for r >= 1.

    An ExactPMF on Z carries no information beyond its table, so the upper end is +inf
    unless ``m`` is given (the protocol's view is the wrapped one anyway; by data
    processing it is the smaller divergence). With ``m``, distributions are tabulated
    until the wrapped interval has ~dps digits.
    """
    return renyi_shift_curve(noise, sensitivity, [alpha], dps=dps, m=m, method=method)[0]


def renyi_shift_curve(noise, sensitivity: int, alphas, dps: int = 30, m=None,
                      method: str = "auto") -> list[mpmath.mpi]:
    """:func:`renyi_shift` for several orders, sharing one PMF table."""
    _check_noise(noise)
    delta = check_int("sensitivity", sensitivity)
    orders = [_check_alpha(a) for a in _nonempty_list(alphas, "alphas", "orders")]
    dps = check_dps(dps)
    m = _check_modulus(m)
    if method not in _METHODS:
        raise ValueError(f"method must be one of {_METHODS}, got {method!r}")
    d = abs(delta)
    if d == 0:
        return [mpmath.mpi(0, 0) for _ in orders]
    if isinstance(noise, ExactPMF):
        return _shift_exact_pmf(noise, delta, orders, m)
    if m is not None:
        return _shift_wrapped(noise, d, orders, dps, m)
    if isinstance(noise, Polya):
        return [_inf_interval() for _ in orders]
    out: list[mpmath.mpi | None] = [None] * len(orders)
    finite = []
    for i, a in enumerate(orders):
        if a == math.inf:
            out[i] = _llr_shift_closed(noise, d, dps)
        elif isinstance(noise, DiscreteLaplace) and method == "auto":
            out[i] = discrete_laplace_renyi(noise.scale, d, a, dps)
        else:
            finite.append(i)
    if finite:
        vals = _shift_tabulated(noise, d, [orders[i] for i in finite], dps)
        for i, v in zip(finite, vals):
            out[i] = v
    return out  # type: ignore[return-value]


def _shift_exact_pmf(P: ExactPMF, delta: int, orders, m) -> list[mpmath.mpi]:
    if m is not None:
        if P.modulus is None or P.modulus != m:
            P = wrap(P, m)
    Ps = shift(P, delta)
    out = []
    for a in orders:
        out.append(_max_interval([renyi(Ps, P, a), renyi(P, Ps, a)]))
    return out


def _llr_shift_closed(noise, d: int, dps: int) -> mpmath.mpi:
    """D_∞(noise + d ‖ noise) for symmetric laws on Z (closed forms)."""
    if isinstance(noise, DiscreteLaplace):
        return discrete_laplace_renyi(noise.scale, d, math.inf, dps)
    if isinstance(noise, (DiscreteGaussian, Skellam)):
        return _inf_interval()
    if isinstance(noise, PolyaDifference):
        if noise.r <= 1:
            def compute():
                p0, pd = noise.pmf_balls(0, 0, int(flint.ctx.prec))[0], \
                    noise.pmf_balls(d, d, int(flint.ctx.prec))[0]
                return (p0 / pd).log()
            return _adaptive(compute, dps, nonneg=True)
        return _adaptive(lambda: -d * noise._arb_beta().log(), dps, nonneg=True)
    raise ValueError(f"no certified D_inf for {type(noise).__name__}; pass m or an ExactPMF")


# =========================================================================== shift: wrapped
def _shift_wrapped(noise, d: int, orders, dps: int, m: int) -> list[mpmath.mpi]:
    """Tabulate the noise, wrap mod m, compare both directions; shrink the tabulation's
    outside mass until every interval has about ``dps`` digits (at most 6 rounds)."""
    tail = mpmath.mpf(10) ** (-(dps + 6))
    # Every residue of Z_m must be tabulated, with the mass left outside far below the
    # smallest wrapped value: start from the float tail at half the modulus.
    cover = float(noise._logsf(np.array([noise._center() + m // 2 + 1]))[0])
    if np.isfinite(cover):
        tail = min(tail, mpmath.exp(mpmath.mpf(cover)) * mpmath.mpf(10) ** (-(dps + 6)))
    finite = [a for a in orders if a != math.inf]
    extra = int(math.log10(float(max(finite)))) if finite else 0
    res: list[mpmath.mpi] = []
    for _ in range(6):
        P = ExactPMF.from_distribution(noise, dps=dps + extra + 4, tail=tail)
        W = wrap(P, m)
        Ws = shift(W, d)
        res = [_max_interval([renyi(Ws, W, a), renyi(W, Ws, a)]) for a in orders]
        worst = mpmath.mpf(0)
        for r in res:
            if not mpmath.isfinite(endpoints(r)[1]):
                worst = _INF
                break
            ra, rb = endpoints(r)
            with mpmath.workprec(_mpi_prec(r)):
                width = (rb - ra) / max(abs(rb), mpmath.mpf(10) ** (-dps))
            worst = max(worst, width)
        target = mpmath.mpf(10) ** (-dps)
        if worst <= target:
            return res
        # the excess is about linear (or better) in the unaccounted mass
        factor = target / worst if mpmath.isfinite(worst) else mpmath.mpf(10) ** (-dps)
        tail = tail * factor / 100
    return res


# =========================================================================== shift: tabulated
@dataclass
class _Model:
    """What is known about a symmetric unimodal noise law beyond its PMF values."""

    dist: IntegerDistribution
    c: int
    log_concave: bool

    def ub_ratio(self, Y: int, d: int) -> arb | None:
        """Certified upper bound on sup_{y >= Y} R(y)/R(y+d), R(y) = p(y+1)/p(y) (Y >= c)."""
        dist = self.dist
        if isinstance(dist, DiscreteGaussian):
            return (_exact(Fraction(d) / dist.sigma2)).exp()
        if isinstance(dist, DiscreteLaplace):
            return arb(1)
        if isinstance(dist, Skellam):
            x = _exact(dist.variance)
            nu = Y - dist.mu

            def big_c(v):  # upper bound on R(v)
                return x / (v + ((v + 2) ** 2 + x * x).sqrt())

            def small_c(v):  # lower bound on R(v)
                return x / (v + 1 + ((v + 1) ** 2 + x * x).sqrt())

            return big_c(nu) / small_c(nu + d)
        if isinstance(dist, PolyaDifference):
            r = _exact(dist.r)
            return (r + Y) / (Y + 1) if dist.r > 1 else arb(1)
        raise AssertionError  # pragma: no cover

    def q_override(self) -> arb | None:
        """For the log-convex Pólya difference (r < 1): T(y) <= R(y) <= β for y >= 0."""
        if isinstance(self.dist, PolyaDifference) and self.dist.r < 1:
            return self.dist._arb_beta()
        return None


def _model_for(noise) -> _Model:
    if isinstance(noise, DiscreteGaussian):
        return _Model(noise, noise.mu, True)
    if isinstance(noise, Skellam):
        return _Model(noise, noise.mu, True)
    if isinstance(noise, DiscreteLaplace):
        return _Model(noise, 0, True)
    if isinstance(noise, PolyaDifference):
        return _Model(noise, 0, noise.r >= 1)
    raise ValueError(
        f"renyi_shift has no certified tail model for {type(noise).__name__} on Z; "
        "pass m (wrapped view) or use renyi() on ExactPMFs"
    )


@dataclass
class _Plan:
    alpha: Fraction
    lo: int            # window [lo, hi] summed exactly
    hi: int
    segments: list     # left pieces (lo or None, hi)
    log_s: float       # float estimate of log S


def _float_grid(noise, lo: int, hi: int) -> np.ndarray:
    return np.asarray(noise.logpmf(np.arange(lo, hi + 1, dtype=np.int64)), dtype=float)


class _Grid:
    """Float view of the noise on [g_lo, g_hi] used to plan windows and tail pieces."""

    def __init__(self, noise, model: _Model, d: int, g_lo: int, g_hi: int):
        self.g_lo, self.g_hi, self.c, self.d = g_lo, g_hi, model.c, d
        self.lp = _float_grid(noise, g_lo, g_hi)
        self.n = self.lp.size - d - 2  # y in [g_lo, g_lo + n - 1] has p(y + d + 1)
        n = self.n
        self.lrho = self.lp[:n] - self.lp[d:d + n]
        # log of the certified-tail formula p(j)/(1 − ρ_j) at every grid point
        step = np.minimum(self.lp[1:n + 1] - self.lp[:n], -1e-300)
        q_fixed = model.q_override()
        if q_fixed is not None:
            step = np.full(n, math.log(float(q_fixed.mid())))
        with np.errstate(divide="ignore", invalid="ignore"):
            self.tail = self.lp[:n] - np.log(-np.expm1(step))
        self.neg_tail_right = -self.tail[max(self.c + 1 - g_lo, 0):]
        self.log_concave = model.log_concave

    def log_rho_sup(self, top: int) -> float:
        if self.log_concave:
            return float(self.lrho[top - self.g_lo])
        if top <= -self.d:
            return 0.0
        return float(self.lrho[-self.g_lo])

    def log_mass(self, lo, hi: int) -> float:
        """Float twin of :func:`_mass_bound` (lo None = -inf)."""
        c, g = self.c, self.g_lo
        if lo is not None and lo > c:
            tail, peak = float(self.tail[lo - g]), lo
        elif hi < c:
            j = 2 * c - hi
            tail = float(self.tail[j - g]) if j - g < self.n else 0.0
            peak = hi
        else:
            tail, peak = 0.0, c
        if lo is None:
            return min(tail, 0.0)
        return min(tail, 0.0, math.log(hi - lo + 1) + float(self.lp[peak - g]))


def _plan_windows(noise, model: _Model, d: int, orders, lam: float):
    """Float planning: the grid and a plan per order (sorted)."""
    c = model.c
    sd = max(float(noise.std()), 1.0)
    amax = float(max(orders))
    k_left = int(math.ceil(math.sqrt(2 * lam) * sd * 1.3)) + d + 16
    k_right = k_left
    for _ in range(40):
        g_lo = c - d - k_left
        g_hi = c + int(math.ceil((amax - 1) * d)) + k_right + d + 2
        grid = _Grid(noise, model, d, g_lo, g_hi)
        plans, grow_left, grow_right = [], False, False
        guess = None
        for a in orders:
            r = _plan_one(grid, float(a), lam, guess)
            if r == "left":
                grow_left = True
                break
            elif r == "right":
                grow_right = True
                break
            else:
                plans.append(_Plan(a, *r))
                guess = (float(a), r[0], r[1])
        if not (grow_left or grow_right):
            return grid, plans
        if grow_left:
            k_left *= 2
        if grow_right:
            k_right *= 2
    raise ArithmeticError("could not find a summation window for renyi_shift")


def _window(grid: _Grid, a: float, lam: float, s0: int, s1: int):
    """Window on grid indices [s0, s1): (i0, i1, log_s), or None if it touches the slice."""
    lt = grid.lp[s0:s1] + (a - 1) * grid.lrho[s0:s1]
    top = float(lt.max())
    log_s = top + math.log(float(np.exp(lt - top).sum()))
    above = np.flatnonzero(lt >= log_s - lam - 4.0)
    i0, i1 = int(above[0]), int(above[-1])
    if i0 == 0 or i1 == lt.size - 1:
        return None
    return s0 + i0, s0 + i1, log_s


def _plan_one(grid: _Grid, a: float, lam: float, guess):
    n, g_lo, c = grid.n, grid.g_lo, grid.c
    w = None
    if guess is not None:  # the window moves by about (a − a_prev)·d
        a0, lo0, hi0 = guess
        width = hi0 - lo0
        shift_by = int((a - a0) * grid.d)
        s0 = max(0, lo0 + shift_by - width - g_lo)
        s1 = min(n, hi0 + shift_by + width - g_lo + 1)
        if s1 - s0 > 8:
            w = _window(grid, a, lam, s0, s1)
    if w is None:
        w = _window(grid, a, lam, 0, n)
        if w is None:
            lt = grid.lp[:n] + (a - 1) * grid.lrho[:n]
            return "left" if lt[0] >= lt[-1] else "right"
    i0, i1, log_s = w
    lo, hi = g_lo + i0, max(g_lo + i1, c)
    if hi >= g_lo + n - 1:
        return "right"
    # left pieces, from top = lo - 1 down; each bounded by ρ(top)^{α−1}·M(lo, top)
    budget = log_s - lam
    segs = []
    top = lo - 1
    lp = grid.lp
    while True:
        allow = budget - (a - 1) * grid.log_rho_sup(top)
        if grid.log_mass(None, top) <= allow:
            segs.append((None, top))
            return lo, hi, segs, log_s
        if grid.log_mass(top, top) > allow:
            return "left"  # pragma: no cover - the window threshold keeps points small
        if top > c:
            # tail(lo) = log p(lo)/(1 − ρ_lo) decreases in lo beyond the centre
            seg = grid.neg_tail_right[: top - c]  # a view: -tail on c+1..top
            start = c + 1 + int(np.searchsorted(seg, -allow, side="left"))
            start = min(start, top)
            # or (count) x p(lo): p grows towards the centre; gallop then bisect
            good, step = top, 1
            while True:
                cand = top - step
                if cand <= c or math.log(top - cand + 1) + lp[cand - g_lo] > allow:
                    bad = max(cand, c)
                    break
                good, step = cand, 2 * step
            while good - bad > 1:
                mid = (good + bad) // 2
                if math.log(top - mid + 1) + lp[mid - g_lo] <= allow:
                    good = mid
                else:
                    bad = mid
            start = min(start, good)
        else:
            # left of the centre the piece is bounded by (count) x p(top)
            count = math.exp(min(allow - float(lp[top - g_lo]), 700.0))
            start = top - max(int(count), 1) + 1
        if start <= g_lo + 1:
            return "left"
        segs.append((start, top))
        top = start - 1
        if len(segs) > 5000:
            return "left"  # pragma: no cover


class _Table:
    """PMF balls on [lo, hi] (Arb, at ``prec`` bits) as an object array, and
    ρ(y) = p(y)/p(y+d). Correctness never depends on the precision; it only sets how
    tight the final interval is (checked by the caller)."""

    def __init__(self, noise, lo: int, hi: int, d: int, prec: int):
        self.lo, self.hi, self.d = lo, hi, d
        balls = noise.pmf_balls(lo, hi, prec)
        self.p = np.empty(len(balls), dtype=object)
        self.p[:] = balls
        n = len(balls) - d
        self.rho = self.p[:n] / self.p[d:d + n]
        self._logp = None
        self._logrho = None

    def P(self, k: int) -> arb:
        return self.p[k - self.lo]

    def R(self, k: int) -> arb:
        return self.p[k + 1 - self.lo] / self.p[k - self.lo]

    def RHO(self, k: int) -> arb:
        return self.rho[k - self.lo]

    def logs(self):
        if self._logp is None:
            lg = np.frompyfunc(lambda x: x.log(), 1, 1)
            self._logp = lg(self.p)
            self._logrho = lg(self.rho)
        return self._logp, self._logrho


def _shift_tabulated(noise, d: int, orders, dps: int) -> list[mpmath.mpi]:
    """Certified D_α on Z for the symmetric laws with a tail model (see renyi_shift)."""
    model = _model_for(noise)
    amax = max(orders)
    dps_t = dps + len(str(int(math.ceil(amax)))) + 3
    lam = (dps + 2) * _LN10 + 6.0
    order_sorted = sorted(set(orders))
    grid, plans = _plan_windows(noise, model, d, order_sorted, lam)
    extra = 0
    for _attempt in range(4):
        bits = _bits(dps_t, extra + (grid.g_hi - grid.g_lo + 1).bit_length())
        results: dict[Fraction, mpmath.mpi] = {}
        with _arb.precision(bits):
            table = _Table(noise, grid.g_lo, grid.g_hi, d, bits)
            ok = _sum_plans(table, model, plans, d, bits, results)
        if not ok:  # a right remainder did not decay: widen every window
            lam *= 1.5
            grid, plans = _plan_windows(noise, model, d, order_sorted, lam)
            continue
        if all(_tight(results[a], a, dps) for a in order_sorted):
            break
        extra = 2 * extra + 64  # ball radii too wide for dps digits: more precision
    else:
        if not ok:
            raise ArithmeticError("renyi_shift: could not certify the remainder (q >= 1)")
    return [results[a] for a in orders]


def _tight(r: mpmath.mpi, a: Fraction, dps: int) -> bool:
    """S = e^{(α−1)D} known to about dps digits: (α−1)·width(D) <= 10^-(dps-1)."""
    lo, hi = endpoints(r)
    if not mpmath.isfinite(hi):
        return False
    with mpmath.workprec(_mpi_prec(r)):
        return (hi - lo) * (mpmath.mpf(a.numerator) / a.denominator - 1) \
            <= mpmath.mpf(10) ** (1 - dps)


def _sum_plans(table: _Table, model: _Model, plans, d: int, bits: int, results) -> bool:
    prev = None  # (alpha, lo, hi, terms)
    pw = np.frompyfunc(lambda x, n: x**n, 2, 1)
    ex = np.frompyfunc(lambda x: x.exp(), 1, 1)
    q_fixed = model.q_override()
    for plan in plans:
        a = plan.alpha
        aa = _exact(a)
        lo, hi = plan.lo, plan.hi
        i0, i1 = lo - table.lo, hi - table.lo + 1
        integer = a.denominator == 1
        if integer:
            n = int(a) - 1
            terms = None
            if prev is not None and prev[0].denominator == 1 and int(prev[0]) <= n + 1:
                step = n + 1 - int(prev[0])
                plo, phi, pterms = prev[1], prev[2], prev[3]
                olo, ohi = max(lo, plo), min(hi, phi)
                if olo <= ohi:
                    rho_o = table.rho[olo - table.lo: ohi - table.lo + 1]
                    fac = rho_o if step == 1 else pw(rho_o, step)
                    mid = pterms[olo - plo: ohi - plo + 1] * fac if step else \
                        pterms[olo - plo: ohi - plo + 1]
                    left = _fresh_int(table, lo, olo - 1, n, pw)
                    right = _fresh_int(table, ohi + 1, hi, n, pw)
                    terms = np.concatenate([left, mid, right])
            if terms is None:
                terms = _fresh_int(table, lo, hi, n, pw)
        else:
            logp, logrho = table.logs()
            terms = ex(logp[i0:i1] + (aa - 1) * logrho[i0:i1])
        total = terms.sum()
        prev = (a, lo, hi, terms)

        # right remainder: y >= Y = hi + 1
        Y = hi + 1
        rY = table.RHO(Y)
        tY = table.P(Y) * (rY ** int(a - 1) if integer else ((aa - 1) * rY.log()).exp())
        if q_fixed is not None:
            q = q_fixed
        else:
            ratio = model.ub_ratio(Y, d)
            q = table.R(Y) * (ratio ** int(a - 1) if integer else ((aa - 1) * ratio.log()).exp())
        if not q < 1:
            return False
        right_rem = _hi(tY / (1 - q))

        # left remainder: segments
        left_rem = arb(0)
        for seg_lo, seg_hi in plan.segments:
            rs = _rho_sup(table, model, seg_hi, d)
            rsp = rs ** int(a - 1) if integer else ((aa - 1) * rs.log()).exp()
            mass = _mass_bound(table, model, seg_lo, seg_hi)
            left_rem += _hi(rsp * mass)
        s_lo = _nonneg(_lo(total))
        s_hi = _hi(total + right_rem + _hi(left_rem))
        results[a] = _renyi_from_sums(s_lo, s_hi, a, bits)
    return True


def _fresh_int(table: _Table, lo: int, hi: int, n: int, pw) -> np.ndarray:
    if hi < lo:
        return np.empty(0, dtype=object)
    i0, i1 = lo - table.lo, hi - table.lo + 1
    return table.p[i0:i1] * pw(table.rho[i0:i1], n)


def _rho_sup(table: _Table, model: _Model, hi: int, d: int) -> arb:
    """Certified upper bound on sup_{y <= hi} ρ(y)."""
    if model.log_concave:
        return _hi(table.RHO(hi))
    if hi <= -d:
        return arb(1)
    return _hi(table.RHO(0))


def _mass_bound(table: _Table, model: _Model, lo, hi: int) -> arb:
    """Certified upper bound on P(lo <= X <= hi) (lo None = -inf) for a symmetric unimodal
    law: the tail ``P(X >= j) <= p(j)/(1 − ρ_j)`` for j > c, where ρ_j bounds every
    ratio R(k), k >= j (log-concave: R(j) itself; log-convex Pólya difference: β), the
    mirrored tail for hi < c; and (number of points) × (largest p on [lo, hi])."""
    c = model.c
    q_fixed = model.q_override()

    def upper_tail(j: int) -> arb:
        if j + 1 > table.hi:
            return arb(1)
        r = q_fixed if q_fixed is not None else table.R(j)
        if not r < 1:
            return arb(1)
        return _amin(_hi(table.P(j) / (1 - r)), arb(1))

    if lo is not None and lo > c:
        tail, peak = upper_tail(lo), lo
    elif hi < c:
        tail, peak = upper_tail(2 * c - hi), hi
    else:
        tail, peak = arb(1), c
    if lo is None:
        return tail
    return _amin(tail, _hi((hi - lo + 1) * table.P(peak)))


# =========================================================================== hockey: shift
def hockey_stick_shift(noise, sensitivity: int, eps, dps: int = 30, m=None) -> mpmath.mpi:
    """Certified ``δ(ε)`` between ``noise + Δ`` and ``noise`` (max of both directions for
    asymmetric laws and ExactPMFs; equal for the symmetric privtools laws).

    Lap_Z on Z: closed form (:func:`discrete_laplace_hockey_stick`). Otherwise the noise is
    tabulated (:meth:`ExactPMF.from_distribution`) and :func:`hockey_stick` is applied, on
    Z or wrapped mod ``m``; the tabulation's outside mass is shrunk until the interval has
    about ``dps`` digits (at most 6 rounds).
    """
    _check_noise(noise)
    delta = check_int("sensitivity", sensitivity)
    e = _check_eps(eps)
    dps = check_dps(dps)
    m = _check_modulus(m)
    if delta == 0:
        return mpmath.mpi(0, 0)
    if isinstance(noise, ExactPMF):
        P = noise if m is None or noise.modulus == m else wrap(noise, m)
        Ps = shift(P, delta)
        return _max_interval([hockey_stick(Ps, P, e), hockey_stick(P, Ps, e)])
    if isinstance(noise, DiscreteLaplace) and m is None:
        return discrete_laplace_hockey_stick(noise.scale, delta, e, dps)
    symmetric = not isinstance(noise, Polya)
    tail = mpmath.mpf(10) ** (-(dps + 4))
    res = None
    for _ in range(6):
        P = ExactPMF.from_distribution(noise, dps=dps + 4, tail=tail)
        if m is not None:
            P = wrap(P, m)
        Ps = shift(P, abs(delta))
        parts = [hockey_stick(Ps, P, e)]
        if not symmetric:
            parts.append(hockey_stick(P, Ps, e))
        res = _max_interval(parts)
        ra, rb = endpoints(res)
        with mpmath.workprec(_mpi_prec(res)):
            if rb == 0 or rb - ra <= mpmath.mpf(10) ** (-dps) * rb:
                return res
            lower = ra
        # shrink the outside mass below 10^-dps of the value (or by 10^dps if it is 0)
        if lower > 0:
            tail = min(tail, lower * mpmath.mpf(10) ** (-(dps + 2)))
        else:
            tail = tail * mpmath.mpf(10) ** (-dps)
    return res


# =========================================================================== float versions
def _symmetric(noise) -> bool:
    return not isinstance(noise, Polya)


def _float_directions(noise, sensitivity: int) -> list[int]:
    d = abs(sensitivity)
    return [d] if _symmetric(noise) else [d, -d]


def _float_window(noise, d: int, weight, span: float = 45.0, mass=None,
                  mass_span: float = 800.0):
    """Grid [lo, hi] (in y) whose ends are ``span`` nats below the largest ``weight`` (log
    terms) — found by strided scans and doubling. Returns (lo, hi, flag) with flag
    "inf" (a term is +inf), "zero" (no finite term where ``mass`` is within ``mass_span``
    nats of its maximum) or "ok"."""
    c = int(round(noise.mean()))
    sd = max(float(noise.std()), 1.0)
    lo = c - abs(d) - int(12 * sd) - 8
    hi = c + abs(d) + int(12 * sd) + 8
    for _ in range(80):
        ys = np.unique(np.linspace(lo, hi, 4001).astype(np.int64))
        w = weight(ys)
        if np.isposinf(w).any():
            return lo, hi, "inf"
        finite = np.isfinite(w)
        width = hi - lo
        if not finite.any():
            if mass is None:
                return lo, hi, "zero"
            mm = mass(ys)
            top_m = np.max(mm)
            if mm[0] < top_m - mass_span and mm[-1] < top_m - mass_span:
                return lo, hi, "zero"
            lo, hi = lo - width, hi + width
            continue
        top = np.max(w[finite])
        grow_lo = bool(finite[0] and w[0] > top - span)
        grow_hi = bool(finite[-1] and w[-1] > top - span)
        if not (grow_lo or grow_hi):
            return lo, hi, "ok"
        if grow_lo:
            lo -= width
        if grow_hi:
            hi += width
    raise ArithmeticError("float window search did not converge")


def _chunked_logsumexp(weight, lo: int, hi: int, chunk: int = 1 << 20) -> float:
    parts = []
    for s in range(lo, hi + 1, chunk):
        ys = np.arange(s, min(hi, s + chunk - 1) + 1, dtype=np.int64)
        parts.append(float(logsumexp(weight(ys))))
    return float(logsumexp(parts))


def renyi_float(noise, sensitivity: int, alpha) -> float:
    """Float ``D_α(noise + Δ ‖ noise)`` (max of both directions for Pólya) from the float
    ``logpmf`` summed in log space; ``alpha = math.inf`` uses the closed forms of
    :func:`renyi_shift`. No certificate: a fast cross-check."""
    if not isinstance(noise, IntegerDistribution):
        raise TypeError(f"noise must be a privtools distribution, got {type(noise).__name__}")
    delta = check_int("sensitivity", sensitivity)
    a = _check_alpha(alpha)
    if delta == 0:
        return 0.0
    d = abs(delta)
    if a == math.inf:
        if isinstance(noise, Polya):
            return math.inf
        if isinstance(noise, DiscreteLaplace):
            return float(Fraction(d) / noise.scale)
        if isinstance(noise, (DiscreteGaussian, Skellam)):
            return math.inf
        if isinstance(noise, PolyaDifference):
            if noise.r <= 1:
                return float(noise.logpmf(0) - noise.logpmf(d))
            return -d * noise._log_beta
        raise ValueError(f"no D_inf for {type(noise).__name__}")
    af = float(a)
    out = 0.0
    for dd in _float_directions(noise, delta):
        def weight(ys, dd=dd):
            lp1 = noise.logpmf(ys)
            lp2 = noise.logpmf(ys + dd)
            with np.errstate(invalid="ignore"):
                w = af * lp1 + (1 - af) * lp2
            w = np.where(np.isneginf(lp1), -np.inf, w)
            return np.where(np.isfinite(lp1) & np.isneginf(lp2), np.inf, w)

        lo, hi, flag = _float_window(noise, dd, weight)
        if flag == "inf":
            return math.inf
        out = max(out, _chunked_logsumexp(weight, lo, hi) / (af - 1))
    return max(out, 0.0)


def hockey_stick_float(noise, sensitivity: int, eps) -> float:
    """Float ``δ(ε)`` between ``noise + Δ`` and ``noise`` (max of both directions for
    Pólya): ``Σ_{y: L(y) > ε} p(y)(1 − e^{ε − L(y)})``, ``L(y) = log p(y)/p(y+Δ)``, in log
    space. No certificate: a fast cross-check."""
    if not isinstance(noise, IntegerDistribution):
        raise TypeError(f"noise must be a privtools distribution, got {type(noise).__name__}")
    delta = check_int("sensitivity", sensitivity)
    e = float(_check_eps(eps))
    if delta == 0:
        return 0.0
    out = 0.0
    for dd in _float_directions(noise, delta):
        def weight(ys, dd=dd):
            lp1 = noise.logpmf(ys)
            lp2 = noise.logpmf(ys + dd)
            with np.errstate(invalid="ignore"):
                loss = lp1 - lp2
            loss = np.where(np.isneginf(lp2) & np.isfinite(lp1), np.inf, loss)
            w = np.full(ys.shape, -np.inf)
            pos = loss > e
            with np.errstate(divide="ignore"):
                w[pos] = lp1[pos] + np.log(-np.expm1(e - loss[pos]))
            return w

        def mass(ys, dd=dd):
            return np.asarray(noise.logpmf(ys), dtype=float)

        lo, hi, flag = _float_window(noise, dd, weight, mass=mass)
        if flag == "zero":
            continue
        val = _chunked_logsumexp(weight, lo, hi)
        out = max(out, math.exp(val) if val > -np.inf else 0.0)
    return out
