"""Engine 2: divergences of a law and its shift (the mechanism X + Δ vs X) — closed forms
from the law's own facts, the wrapped (mod m) view, and dispatch to the tabulated engine."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.balls import exact_nonneg as _nonneg
from privtools.certified.balls import lower_end as _lo
from privtools.certified.balls import upper_end as _hi
from privtools.certified.balls import working_bits as _bits
from privtools.certified.intervals import ends as endpoints
from privtools.certified.intervals import infinite as _inf_interval
from privtools.certified.intervals import interval_max as _max_interval
from privtools.certified.intervals import outward as _interval
from privtools.certified.intervals import precision_of as _mpi_prec
from privtools.errors import ParameterError
from privtools.exact.pmf import ExactPMF, shift, wrap
from privtools.noise import DiscreteLaplace
from privtools.validation import check_dps, check_int, check_nonneg, check_order

from ._common import (
    _INF,
    _check_modulus,
    _check_noise,
)
from .pmfs import _nonempty_list, hockey_stick, renyi
from .tabulated import _shift_tabulated


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
    law = DiscreteLaplace(scale)
    d = abs(check_int("sensitivity", sensitivity))
    a = check_order("alpha", alpha, infinite=True)
    dps = check_dps(dps)
    if d == 0:
        return mpmath.mpi(0, 0)
    if a == math.inf:
        return _adaptive(lambda: law.shift_llr_ball(d), dps)
    return _adaptive(lambda: law.shift_renyi_ball(d, a), dps, nonneg=True)


def discrete_laplace_hockey_stick(scale, sensitivity: int, eps, dps: int = 30) -> mpmath.mpi:
    """``δ(ε)`` for ``Lap_Z(b) + Δ`` vs ``Lap_Z(b)`` in closed form (certified, any scale).

    The privacy loss ``L(x) = (|x| − |x − d|)/b`` is non-decreasing in x, so
    ``{L > ε} = {x >= x0}`` with ``x0 = ⌊(d + εb)/2⌋ + 1`` (for ε < d/b; δ = 0 otherwise) and
    ``δ(ε) = P(X >= x0 − d) − e^ε P(X >= x0)``, with Fact 2's tails:
    ``P(X >= k) = e^{−(k−1)/b}/(e^{1/b} + 1)`` (k >= 1), ``1 − e^{k/b}/(e^{1/b} + 1)`` (k <= 0).
    """
    law = DiscreteLaplace(scale)
    d = abs(check_int("sensitivity", sensitivity))
    e = check_nonneg("eps", eps)
    dps = check_dps(dps)
    if d == 0 or e >= Fraction(d) / law.scale:
        return mpmath.mpi(0, 0)
    return _adaptive(lambda: law.shift_hockey_stick_ball(d, e), dps, nonneg=True)


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
    orders = [check_order("alpha", a, infinite=True)
              for a in _nonempty_list(alphas, "alphas", "orders")]
    dps = check_dps(dps)
    m = _check_modulus(m)
    if method not in _METHODS:
        raise ParameterError(f"method must be one of {_METHODS}, got {method!r}")
    d = abs(delta)
    if d == 0:
        return [mpmath.mpi(0, 0) for _ in orders]
    if isinstance(noise, ExactPMF):
        return _shift_exact_pmf(noise, delta, orders, m)
    if m is not None:
        return _shift_wrapped(noise, d, orders, dps, m)
    if noise.support_lower is not None:
        return [_inf_interval() for _ in orders]
    return _shift_on_z(noise, d, orders, dps, method)


def _shift_on_z(noise, d: int, orders, dps: int, method: str) -> list[mpmath.mpi]:
    """A law on Z: the law's closed forms where it has them, else its tabulated PMF."""
    out: list[mpmath.mpi | None] = [None] * len(orders)
    finite = []
    closed = method == "auto" and noise.shift_renyi_ball(d, Fraction(2)) is not None
    for i, a in enumerate(orders):
        if a == math.inf:
            out[i] = _llr_shift_closed(noise, d, dps)
        elif closed:
            out[i] = _adaptive(lambda a=a: noise.shift_renyi_ball(d, a), dps, nonneg=True)
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
    """D_∞(noise + d ‖ noise) for symmetric laws on Z, from the law's own closed form."""
    if noise.shift_llr_ball(d) is None:
        return _inf_interval()
    return _adaptive(lambda: noise.shift_llr_ball(d), dps, nonneg=True)


# =========================================================================== shift: wrapped
def _shift_wrapped(noise, d: int, orders, dps: int, m: int) -> list[mpmath.mpi]:
    """Tabulate the noise, wrap mod m, compare both directions; shrink the tabulation's
    outside mass until every interval has about ``dps`` digits (at most 6 rounds)."""
    tail = mpmath.mpf(10) ** (-(dps + 6))
    # Every residue of Z_m must be tabulated, with the mass left outside far below the
    # smallest wrapped value: start from the float tail at half the modulus.
    cover = float(noise._logsf(np.array([noise.center + m // 2 + 1]))[0])
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
    e = check_nonneg("eps", eps)
    dps = check_dps(dps)
    m = _check_modulus(m)
    if delta == 0:
        return mpmath.mpi(0, 0)
    if isinstance(noise, ExactPMF):
        P = noise if m is None or noise.modulus == m else wrap(noise, m)
        Ps = shift(P, delta)
        return _max_interval([hockey_stick(Ps, P, e), hockey_stick(P, Ps, e)])
    if m is None and noise.shift_hockey_stick_ball(abs(delta), e) is not None:
        return _adaptive(lambda: noise.shift_hockey_stick_ball(abs(delta), e), dps, nonneg=True)
    symmetric = noise.symmetric
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


