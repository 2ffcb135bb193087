"""Engine 4: certified divergences of the discrete-Gaussian *sum* mechanism on Z, two-sided.

The mechanism of Lemma 4 (000) (= KLS21 Prop. 13) and Theorem 4 (000) adds
``Z_n = X_1 + … + X_n``, ``X_i ~ N_Z(0, σ²)`` i.i.d., to a Δ-sensitive integer query. Its two
views are ``P`` = law of ``Z_n`` (pmf ``p``) and ``Q`` = law of ``Z_n + Δ``
(``q(x) = p(x − Δ)``); ``Z_n`` is symmetric, so both directions give the same numbers.
:func:`~privtools.exact.divergence.renyi_shift` on a truncated table of ``Z_n`` has no upper
end on Z (the table says nothing about the far tails); this engine has one.

Statements used (each a published theorem; the code below is their arithmetic)
------------------------------------------------------------------------------
(S1) *Shifted discrete Gaussians* (CKS20, Canonne–Kamath–Steinke 2020, "The discrete
     Gaussian for differential privacy", §2: N_Z(0, σ²) is ½(Δ/σ)²-CDP). For an integer
     α >= 2 and an integer Δ the bound is an identity: completing the square,
     ``αx² + (1−α)(x−Δ)² = (x − (1−α)Δ)² + α(1−α)Δ²`` and ``(1−α)Δ`` is an integer, so
     ``Σ_x p_1(x)^α p_1(x−Δ)^{1−α} = e^{α(α−1)Δ²/(2σ²)}`` and
     ``D_α(N_Z(0, σ²) ‖ N_Z(Δ, σ²)) = αΔ²/(2σ²)`` exactly
     (:func:`discrete_gaussian_shift_renyi`).
(S2) *Data processing* (van Erven & Harremoës 2014, Thm 9): ``Z_n + Δ = (X_1 + Δ) + X_2 + …
     + X_n`` adds noise independent of the first summand, so for every n and α
     ``D_α(Z_n ‖ Z_n + Δ) <= αΔ²/(2σ²)`` — a crude certified upper end, and the exact
     value at n = 1.
(S3) *Sub-Gaussian tails* (CKS20: ``E e^{tX} <= e^{t²σ²/2}`` for ``X ~ N_Z(0, σ²)``; stated
     as :meth:`privtools.noise.DiscreteGaussian.log_chernoff_ball`):
     ``P(Z_n >= u) <= exp(−u²/(2nσ²))`` for u >= 0, and the same for the lower tail.
(S4) *Cauchy–Schwarz* for the part of the Rényi sum outside a window ``W = [−T, T]``:
     ``Σ_{x∉W} q (p/q)^α <= √(E_q[(p/q)^{2α}]) · √Q(W^c)
     = √(exp((2α−1) D_{2α}(P‖Q))) · √Q(W^c) <= exp((2α−1)αΔ²/(2σ²)) · √Q(W^c)``
     with (S2) at order 2α and (S3) for ``Q(W^c) <= e^{−(T−Δ+1)²/(2nσ²)} +
     e^{−(T+Δ+1)²/(2nσ²)}``. For the hockey-stick divergence
     ``H_{e^ε}(P‖Q) = Σ_x (p(x) − e^ε q(x))_+`` the part outside W is at most
     ``P(W^c) <= 2 e^{−(T+1)²/(2nσ²)}``.

The window
----------
``p`` is tabulated by :func:`~privtools.exact.convolution.sum_pmf` (n-fold Arb convolution of
truncated shares): ``p = A + R`` with ``A(x)`` in a certified ball and ``R >= 0`` of total
mass at most ``u`` (the mass dropped by truncating the shares and trimming products; it may
sit at any x, so each point gets ``p(x) ∈ A(x) + [0, u]``). The truncation is made so wide
that ``u <= 10^{-(digits)}`` of the smallest ``p`` on the window, using the elementary lower
bound ``p_n(x) >= e^{−(x²/n + n/4)/(2σ²)} / Z_1^n`` (one balanced decomposition of x into n
integers; ``Z_1 = Σ_y e^{−y²/(2σ²)} <= 1 + √(2πσ²)``) — a planning estimate only: the
enclosure is rigorous whatever ``u`` is.

* Rényi (integer α >= 2): ``S_W = Σ_{x∈W} p(x)^α q(x)^{1−α}`` in ball arithmetic; the lower
  end of ``D_α = log(S)/(α−1)`` drops the (non-negative) outside terms, the upper end adds
  the (S4) bound. T is chosen so that the (S4) bound is below ``10^{-(dps+5)}``, i.e. far
  below the window sum (``S >= 1``). The interval is intersected with ``[0, αΔ²/(2σ²)]``
  (S2). For n = 1 the exact value (S1) is returned.
* Hockey-stick (ε >= 0): lower end ``Σ_W max(0, lower(p − e^ε q))``, upper end
  ``Σ_W max(0, upper(p − e^ε q)) + P(W^c)``; T is widened until ``P(W^c)`` is below
  ``10^{-dps}`` of the window sum.

Cost: T grows like ``2αΔ√n`` (the (S2) bound at order 2α is used for the remainder), so the
table has about ``4αΔ√n`` points; the grid of the lemma4 claim (n <= 8, Δ <= 4, α <= 32)
takes well under a second per point.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _arb
from privtools.certified.intervals import Interval, fraction_bounds, interval
from privtools.certified.rounding import add_up
from privtools.exact.convolution import sum_pmf
from privtools.exact.pmf import ExactPMF
from privtools.noise import DiscreteGaussian
from privtools.validation import (
    check_dps,
    check_int,
    check_nonneg,
    check_order,
    check_positive_fraction,
)

from .pmfs import _nonempty_list

__all__ = ["discrete_gaussian_shift_renyi", "gaussian_sum_renyi", "gaussian_sum_renyi_curve",
           "gaussian_sum_hockey_stick"]

_TAIL_DIGITS = 5     # the Rényi remainder is below 10^-(dps + 5) (the window sum is >= ~1)
_EXTRA_DIGITS = 10   # table values carry this many digits beyond what the answer needs
_MAX_ROUNDS = 8      # hockey-stick: widenings of the window before giving up on width


# =========================================================================== validation
def _check_common(n, sigma2, sensitivity, dps) -> tuple[int, Fraction, int, int]:
    return (check_int("n", n, minimum=1), check_positive_fraction("sigma2", sigma2),
            check_int("sensitivity", sensitivity, minimum=1), check_dps(dps))


def _check_order(alpha) -> int:
    """An integer order α >= 2 (an int, or a real whose exact value is an integer)."""
    return int(check_order("alpha", alpha, integer=True))


# =========================================================================== closed form
def discrete_gaussian_shift_renyi(alpha, sigma2, sensitivity) -> Fraction:
    """``D_α(N_Z(0, σ²) ‖ N_Z(Δ, σ²)) = αΔ²/(2σ²)`` exactly, for an integer α >= 2 and an
    integer Δ >= 1 — statement (S1) of this module (CKS20: the sum
    ``Σ_x e^{−(x − (1−α)Δ)²/(2σ²)}`` is the normaliser because ``(1−α)Δ`` is an integer).
    By data processing (S2) it is also an upper bound on ``D_α(Z_n ‖ Z_n + Δ)`` for every n.
    """
    a = _check_order(alpha)
    s2 = check_positive_fraction("sigma2", sigma2)
    d = check_int("sensitivity", sensitivity, minimum=1)
    return Fraction(a * d * d, 2) / s2


# =========================================================================== the table
def _log_min_pmf(n: int, sigma2: Fraction, radius: int) -> float:
    """Planning lower bound on ``min_{|x| <= radius} log p_n(x)`` (module docstring)."""
    s2 = float(sigma2)
    return (-(radius * radius / n + n / 4) / (2 * s2)
            - n * math.log1p(math.sqrt(2 * math.pi * s2)))


def _table(share: DiscreteGaussian, n: int, radius: int, digits: int
           ) -> tuple[ExactPMF, arb]:
    """Certified table of ``p_n`` whose unaccounted mass ``u`` is below ``10^-digits`` of every
    ``p_n(x)``, ``|x| <= radius``; returns it with the ball ``[0, u]``."""
    log_tau = _log_min_pmf(n, share.sigma2, radius) - digits * math.log(10)
    tail = mpmath.exp(mpmath.mpf(log_tau))
    P = sum_pmf(share, n, dps=digits, tail=tail, method="convolve")
    with _arb.precision(_arb.bits_for_dps(digits) + 2 * _arb.GUARD_BITS):
        unaccounted = arb(0).union(_arb.from_mpf(P.unaccounted))
    return P, unaccounted


def _point(P: ExactPMF, unaccounted: arb, x: int) -> arb:
    """A ball containing ``p(x)``: the accounted ball plus ``[0, u]`` (``R`` may sit at x)."""
    return P.ball(x) + unaccounted


def _bits(digits: int, points: int) -> int:
    return _arb.bits_for_dps(digits) + 2 * _arb.GUARD_BITS + max(1, points).bit_length()


# =========================================================================== Rényi
def _renyi_window_T(n: int, sigma2: Fraction, d: int, alpha: int, dps: int) -> int:
    """The smallest T >= Δ whose (S4) remainder bound is (in floats, with margin) below
    ``10^-(dps + TAIL_DIGITS)``: ``(T−Δ+1)² >= 2nσ²·[(2α−1)αΔ²/σ² + 2(dps+5) ln 10 + ln 4]``."""
    need = ((2 * alpha - 1) * alpha * d * d / float(sigma2)
            + 2 * (dps + _TAIL_DIGITS) * math.log(10) + math.log(4))
    return max(d, d - 1 + math.ceil(math.sqrt(2 * n * float(sigma2) * need)) + 1)


def _renyi_remainder(share: DiscreteGaussian, n: int, d: int, alpha: int, T: int) -> arb:
    """Ball around the (S4) bound on ``Σ_{|x| > T} p(x)^α q(x)^{1−α}``."""
    log_c = _arb.to_arb(Fraction((2 * alpha - 1) * alpha * d * d, 2) / share.sigma2)
    q_out = share.log_chernoff_ball(T - d + 1, n).exp() + share.log_chernoff_ball(
        T + d + 1, n).exp()
    return (log_c + q_out.log() / 2).exp()


def _renyi_window(n: int, sigma2: Fraction, d: int, orders: list[int], dps: int
                  ) -> list[Interval]:
    """Certified ``D_α(Z_n ‖ Z_n + Δ)`` at each integer order by the window + remainder split
    (any n >= 1; at n = 1 it is an independent check of (S1))."""
    share = DiscreteGaussian(sigma2=sigma2)
    top = max(orders)
    T = _renyi_window_T(n, sigma2, d, top, dps)
    digits = dps + _TAIL_DIGITS + _EXTRA_DIGITS + math.ceil(math.log10(2 * top))
    P, unaccounted = _table(share, n, T + d, digits)
    bits = _bits(digits, 2 * T + 1)
    out = []
    with _arb.precision(bits), mpmath.workprec(bits):
        sums = {a: arb(0) for a in orders}
        for x in range(-T, T + 1):
            px = _point(P, unaccounted, x)
            ratio = px / _point(P, unaccounted, x - d)
            for a in orders:
                sums[a] += px * ratio ** (a - 1)
        for a in orders:
            lo_sum = arb(sums[a].lower())
            hi_sum = arb(sums[a].upper()) + arb(_renyi_remainder(share, n, d, a, T).upper())
            lo = _arb.lower_mpf(lo_sum.log() / (a - 1)) if lo_sum > 0 else mpmath.mpf(0)
            hi = _arb.upper_mpf(hi_sum.log() / (a - 1))
            crude = fraction_bounds(discrete_gaussian_shift_renyi(a, sigma2, d), bits)[1]
            out.append(interval(max(mpmath.mpf(0), lo), min(hi, crude)))
    return out


def gaussian_sum_renyi_curve(n, sigma2, sensitivity, alphas, dps: int = 30
                             ) -> list[Interval]:
    """Certified ``D_α(Z_n ‖ Z_n + Δ)`` (= ``D_α(Z_n + Δ ‖ Z_n)``, Z_n symmetric) at each
    integer order α >= 2 in ``alphas``, with ``Z_n`` the sum of n i.i.d. ``N_Z(0, σ²)`` —
    the exact RDP curve of the mechanism that Lemma 4 (000) (= KLS21 Prop. 13) bounds by
    ``½ε²α``.

    Each interval is two-sided and rigorous (module docstring: window + Cauchy–Schwarz
    remainder, (S1)–(S4)), about ``10^-dps`` wide relative to its value, and lies in
    ``[0, αΔ²/(2σ²)]`` (data processing, (S2)). n = 1: the exact rational ``αΔ²/(2σ²)`` (S1)
    enclosed to ``dps`` digits. One table serves every order (sized for the largest).

    ``sigma2``: σ² > 0 (any positive rational; Lemma 4's σ >= 1/2 is not needed here);
    ``sensitivity``: the integer Δ >= 1. Bad input raises
    :class:`~privtools.errors.ParameterError` naming the parameter.
    """
    n, s2, d, dps = _check_common(n, sigma2, sensitivity, dps)
    orders = [_check_order(a) for a in _nonempty_list(alphas, "alphas", "orders")]
    if n == 1:
        bits = _arb.bits_for_dps(dps) + 2 * _arb.GUARD_BITS
        return [interval(*fraction_bounds(discrete_gaussian_shift_renyi(a, s2, d), bits))
                for a in orders]
    distinct = sorted(set(orders))
    values = dict(zip(distinct, _renyi_window(n, s2, d, distinct, dps)))
    return [values[a] for a in orders]


def gaussian_sum_renyi(n, sigma2, sensitivity, alpha, dps: int = 30) -> Interval:
    """Certified two-sided ``D_α(Z_n ‖ Z_n + Δ)`` at one integer order α >= 2
    (:func:`gaussian_sum_renyi_curve`)."""
    return gaussian_sum_renyi_curve(n, sigma2, sensitivity, [alpha], dps=dps)[0]


# =========================================================================== hockey-stick
def _hockey_window(share: DiscreteGaussian, n: int, d: int, e_ball_of, T: int, dps: int
                   ) -> tuple[mpmath.mpf, mpmath.mpf, mpmath.mpf, int]:
    """(lower end of the window sum, upper end of it, upper bound on P(W^c), bits)."""
    digits = dps + _EXTRA_DIGITS
    P, unaccounted = _table(share, n, T + d, digits)
    bits = _bits(digits, 2 * T + 1)
    with _arb.precision(bits), mpmath.workprec(bits):
        e_eps = e_ball_of()
        lo_sum, hi_sum = arb(0), arb(0)
        for x in range(-T, T + 1):
            diff = _point(P, unaccounted, x) - e_eps * _point(P, unaccounted, x - d)
            lo, hi = diff.lower(), diff.upper()
            if lo > 0:
                lo_sum += lo
            if hi > 0:
                hi_sum += hi
        outside = 2 * share.log_chernoff_ball(T + 1, n).exp()
        return (_arb.lower_mpf(lo_sum), _arb.upper_mpf(hi_sum), _arb.upper_mpf(outside), bits)


def gaussian_sum_hockey_stick(n, sigma2, sensitivity, eps, dps: int = 30) -> Interval:
    """Certified two-sided hockey-stick divergence
    ``H_{e^ε}(Z_n ‖ Z_n + Δ) = Σ_x (p(x) − e^ε p(x − Δ))_+`` (= the other direction, Z_n
    symmetric): the smallest δ for which adding ``Z_n`` (n i.i.d. ``N_Z(0, σ²)``) to a
    Δ-sensitive integer query is (ε, δ)-DP for this pair (Theorem 4 (000)'s mechanism on Z).

    Window ``[−T, T]`` in ball arithmetic plus ``P(|Z_n| > T) <= 2e^{−(T+1)²/(2nσ²)}``
    (sub-Gaussian tails, CKS20; (S3) in the module docstring); T starts from the Gaussian
    estimate of where the privacy loss exceeds ε and is widened until the outside bound is
    below ``10^-dps`` of the window sum. ``eps >= 0`` (ε = 0 gives the total variation
    distance). Bad input raises :class:`~privtools.errors.ParameterError` naming the
    parameter.
    """
    n, s2, d, dps = _check_common(n, sigma2, sensitivity, dps)
    e = check_nonneg("eps", eps)
    share = DiscreteGaussian(sigma2=s2)
    v = n * float(s2)
    # p(x) > e^ε q(x) roughly for x < x0 (continuous-Gaussian privacy loss); H ~ e^{−x0²/2v}
    x0 = d / 2 - float(e) * v / d
    log_h = 0.0 if x0 >= 0 else -x0 * x0 / (2 * v)
    T = max(d, math.ceil(abs(x0)) + d,
            math.ceil(math.sqrt(2 * v * (-log_h + (dps + 5) * math.log(10) + math.log(2)))))
    target = mpmath.mpf(10) ** (-dps)
    lo = hi = outside = None
    for _ in range(_MAX_ROUNDS):
        lo, hi, outside, bits = _hockey_window(share, n, d, lambda: _arb.to_arb(e).exp(), T,
                                               dps)
        if lo > 0 and outside <= target * lo:
            break
        if lo > 0:  # widen to what the measured window sum needs
            need = -float(mpmath.log(lo)) + (dps + 5) * math.log(10) + math.log(2)
            T = max(T + 1, math.ceil(math.sqrt(2 * v * need)))
        else:
            T *= 2
    upper = add_up(hi, outside, prec=bits + 64)
    return interval(max(mpmath.mpf(0), lo), min(mpmath.mpf(1), upper))
