"""Rényi-DP curves ε(α) of the mechanisms in paper 000 (and the continuous baselines).

A mechanism M is (α, ε)-RDP if D_α(M(D) ‖ M(D')) <= ε for all neighbours D, D', where
D_α(P‖Q) = 1/(α−1) · log Σ_x P(x)^α Q(x)^{1−α} (Mironov 2017). Every function here takes
the order ``alpha`` (a number > 1, or a sequence of them) and returns ε(α) as a float
rounded up (a sequence gives a numpy array); see ``_numeric`` for the precision policy.

Contents
    discrete_laplace_rdp   exact RDP of Lap_Z(b) on a Δ-sensitive integer query (closed form)
    pure_dp_rdp            ε-DP ⇒ (α, min{ε, ½ε²α})-RDP; ``tight=True``: the exact worst
                           case (randomized response)
    skellam_rdp_bound      Lemma 3 (000) = AKL21 Thm 3.5 (integer α only)
    theorem2_rdp           ε̂_n(α) and ε̂(α) from the proof of Theorem 2 (000)
    discrete_gaussian_sum_cdp / discrete_gaussian_sum_xi   Lemma 4 (000) = KLS21 Prop. 13
    gaussian_rdp, laplace_rdp, zcdp_rdp   continuous Gaussian / Laplace, ρ-zCDP
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import mpmath

from privtools.errors import ParameterError
from privtools.validation import check_int, check_nonneg, check_positive_fraction

from .._numeric import BASE_DPS, alphas, check_sensitivity, curve_output, guard_dps, mpf, up

__all__ = [
    "discrete_laplace_rdp",
    "pure_dp_rdp",
    "skellam_rdp_bound",
    "theorem2_rdp",
    "discrete_gaussian_sum_cdp",
    "discrete_gaussian_sum_xi",
    "gaussian_rdp",
    "laplace_rdp",
    "zcdp_rdp",
]


# ====================================================================== discrete Laplace
def _discrete_laplace_mp(order: Fraction, scale: Fraction, sens: int) -> mpmath.mpf:
    r"""Exact D_α(Lap_Z(b) + Δ ‖ Lap_Z(b)) at α = ``order``; below, a = 1/b.

    Derivation. p(x) = c·e^{−a|x|}, c = (1−r)/(1+r), r = e^{−a}; q(x) = p(x − Δ). Split
    Σ_x p^α q^{1−α} = c Σ_x e^{−a(α|x| + (1−α)|x−Δ|)} at 0 and Δ:
      x <= 0      : e^{a(α−1)Δ} Σ_{x<=0} e^{ax}            = e^{a(α−1)Δ} / (1−r)
      x >= Δ      : e^{−a(α−1)Δ} Σ_{x>=Δ} e^{−ax}          = e^{−aαΔ} / (1−r)
      0 < x < Δ   : e^{a(α−1)Δ} Σ_{x=1}^{Δ−1} u^x,  u = e^{−a(2α−1)}
    so Σ = e^{a(α−1)Δ} · T with
      T = (1 + u^Δ)/(1 + r) + (1−r)/(1+r) · u(1 − u^{Δ−1})/(1 − u)
    and D_α = aΔ + log(T)/(α − 1) (T < 1; D_α → aΔ = Δ/b as α → ∞, the pure-DP level).
    For Δ = 1 this is exactly the randomized-response curve of ε = 1/b (the privacy-loss
    variable of a unit shift takes only the values ±1/b).
    The reversed pair gives the same value (reflect x ↦ Δ − x), and shifts d < Δ give
    less (checked in the tests), so the shift by Δ is the worst case.
    """
    with mpmath.workdps(guard_dps(order - 1, sens / scale, sens / scale)):
        am1 = mpf(order - 1)
        av = mpf(1 / scale)
        k = mpf(2 * order - 1) * av  # a(2α − 1)
        one_minus_r = -mpmath.expm1(-av)
        one_plus_r = 1 + mpmath.exp(-av)
        t = (1 + mpmath.exp(-k * sens)) / one_plus_r
        if sens > 1:
            u = mpmath.exp(-k)
            g = u * (-mpmath.expm1(-k * (sens - 1))) / (-mpmath.expm1(-k))
            t += one_minus_r / one_plus_r * g
        return av * sens + mpmath.log(t) / am1


def discrete_laplace_rdp(alpha, scale, sensitivity=1):
    """Exact RDP of adding Lap_Z(``scale``) to an integer query of sensitivity Δ.

    Closed form (derived in ``_discrete_laplace_mp``; verified in the tests against direct
    summation of Σ p^α q^{1−α} at 50 digits): with a = 1/b, r = e^{−a}, u = e^{−a(2α−1)}, ::

        ε(α) = aΔ + log T / (α−1),
        T = (1 + u^Δ)/(1+r) + (1−r)/(1+r) · u(1 − u^{Δ−1})/(1 − u).

    Δ = 1: ε(α) = 1/b + [log(1 + e^{−(2α−1)/b}) − log(1 + e^{−1/b})]/(α−1), the
    randomized-response curve of ε = 1/b (Fact 2 (000): Lap_Z(b) is (Δ/b)-DP).
    """
    scale = check_positive_fraction("scale", scale)
    sens = int(check_sensitivity(sensitivity, integer=True))
    orders, scalar = alphas(alpha)
    return curve_output([_discrete_laplace_mp(a, scale, sens) for a in orders], scalar)


# ====================================================================== pure DP
def _pure_min(a: Fraction, eps: Fraction) -> Fraction:
    return min(eps, eps * eps * a / 2)


def _pure_rr_mp(a: Fraction, eps: Fraction) -> mpmath.mpf:
    """D_α of randomized response with ratio e^ε: the exact worst case among ε-DP pairs
    (every ε-DP pair is a post-processing of it — Kairouz, Oh & Viswanath 2015)."""
    if eps == 0:
        return mpmath.mpf(0)
    with mpmath.workdps(guard_dps(a - 1, eps, eps)):
        e = mpf(eps)
        num = mpmath.log1p(mpmath.exp(-mpf(2 * a - 1) * e)) - mpmath.log1p(mpmath.exp(-e))
        return e + num / mpf(a - 1)


def pure_dp_rdp(alpha, eps, *, tight=False):
    """RDP implied by ε-DP.

    Default: ε(α) = min{ε, ½ε²α} — the trivial bound D_α <= D_∞ <= ε (Mironov 2017,
    Prop. 3) and Bun & Steinke 2016 Prop. 3.3 (ε-DP ⇒ ½ε²-zCDP), the form Lemma 10 (000)
    states ("(ε,0)-DP ⇒ (α, ½ε²α)-RDP"); the minimum of the two, both valid, is returned.
    ``tight=True``: the exact worst case, randomized response, ::

        ε(α) = 1/(α−1) · log[(e^{αε} + e^{(1−α)ε}) / (1 + e^ε)]  <= min{ε, ½ε²α}.
    """
    eps = check_nonneg("eps", eps)
    orders, scalar = alphas(alpha)
    if tight:
        return curve_output([_pure_rr_mp(a, eps) for a in orders], scalar)
    return curve_output([_pure_min(a, eps) for a in orders], scalar)


# ====================================================================== Skellam (Lemma 3)
def _skellam_bound(a: Fraction, var: Fraction, sens: Fraction) -> Fraction:
    """Lemma 3 (000), exactly (a rational function of the exact inputs)."""
    first = a * sens**2 / (2 * var)
    second = min(((2 * a - 1) * sens**2 + 6 * sens) / (4 * var**2), 3 * sens / (2 * var))
    return first + second


def skellam_rdp_bound(alpha, var, sensitivity):
    """Lemma 3 (000) (= Agarwal, Kairouz & Liu 2021, Thm 3.5): adding X ~ Sk(0, σ²) to a
    Δ-sensitive integer query is (α, ε(α))-RDP for integer α > 1 with ::

        ε(α) <= αΔ²/(2σ²) + min{((2α−1)Δ² + 6Δ)/(4σ⁴), 3Δ/(2σ²)}.

    ``var`` = σ² (the Skellam variance: Sk(0, σ²) = N₁ − N₂, N_i ~ Poisson(σ²/2), pmf
    e^{−σ²} I_x(σ²), the parametrisation AKL21 use). The lemma is stated for integer α
    only, so a non-integer ``alpha`` raises (for an order in between, D_α is
    non-decreasing in α, so the value at ⌈α⌉ is a valid bound — the accountant does that;
    with ``rdp_to_dp`` pass ``orders=INTEGER_ORDERS``). Evaluated exactly in rationals,
    then rounded up.
    """
    var = check_positive_fraction("var", var)
    sens = check_sensitivity(sensitivity, integer=True)
    orders, scalar = alphas(alpha, integer=True)
    return curve_output([_skellam_bound(a, var, sens) for a in orders], scalar)


# ====================================================================== Theorem 2
_THEOREM2_FORMS = ("paper", "derived")


def _theorem2_mp(a: Fraction, eps: Fraction, s: Fraction, n: int, form: str) -> mpmath.mpf:
    with mpmath.workdps(BASE_DPS):  # all terms positive: no cancellation
        e, sv, a_ = mpf(eps), mpf(s), mpf(a)
        rn = mpmath.sqrt(n)
        first = a_ * e**2 / 2
        opt1 = (2 * a_ - 1) * e**2 / (4 * sv**2 * n) + 3 * e / (2 * sv**3 * n * rn)
        if form == "paper":
            opt2 = 3 * e**2 / (2 * sv * rn)
        else:
            opt2 = 3 * e / (2 * sv * rn)
        return first + min(opt1, opt2)


def theorem2_rdp(alpha, eps, s, n=None, *, form="paper"):
    """The RDP curve of Theorem 2 (000) (Skellam noise, g = ⌈sε√n⌉, σ² = g²/ε²).

    ``n`` given: the per-batch curve ε̂_n(α) from the proof of Theorem 2, ::

        ε̂_n(α) = αε²/2 + min{(2α−1)ε²/(4s²n) + 3ε/(2s³n^{3/2}), 3ε²/(2s√n)};

    ``n=None``: the batch-free curve of the statement, ε̂(α) = ε̂_1(α) (the paper bounds
    ε̂_n <= ε̂ using n >= 1).

    ``form="paper"`` (default) is the formula as printed. ``form="derived"`` is what
    Lemma 3 with Δ = g, σ² = g²/ε² and g >= sε√n actually gives: the second term of the
    min is 3Δ/(2σ²) = 3ε²/(2g) <= 3ε/(2s√n), not 3ε²/(2s√n) — the printed form drops a
    factor 1/ε, so for ε < 1 it is smaller than the derivation supports (the tests exhibit
    a point where Lemma 3's value exceeds the printed ε̂_n; whether the *exact* RDP ever
    does is for ``verification.claims``). The first term and the first option of the min
    are as derived: αΔ²/(2σ²) = αε²/2 exactly, and ((2α−1)g² + 6g)ε⁴/(4g⁴) is
    <= (2α−1)ε²/(4s²n) + 3ε/(2s³n^{3/2}).
    Integer α only, as in the theorem ("for all α = 2, 3, …").
    """
    if form not in _THEOREM2_FORMS:
        raise ParameterError(f"form must be one of {_THEOREM2_FORMS}, got {form!r}")
    eps = check_positive_fraction("eps", eps)
    s = check_positive_fraction("s", s)
    n = 1 if n is None else check_int("n", n, minimum=1)
    orders, scalar = alphas(alpha, integer=True)
    return curve_output([_theorem2_mp(a, eps, s, n, form) for a in orders], scalar)


# ====================================================================== Lemma 4
_XI_DIRECT_MAX = 20000  # direct terms at most; beyond, see discrete_gaussian_sum_xi


@lru_cache(maxsize=256)
def _xi_mp(n: int, sigma2: Fraction, dps: int) -> mpmath.mpf:
    """ξ = 10 Σ_{k=1}^{n−1} e^{−2π²σ² k/(k+1)} = 10 e^{−c} Σ_{j=2}^{n} e^{c/j}, c = 2π²σ²."""
    if n == 1:
        return mpmath.mpf(0)
    with mpmath.workdps(dps + 20):
        c = 2 * mpmath.pi**2 * mpf(sigma2)
        j_direct = min(n, max(64, int(mpmath.ceil(2 * c))), _XI_DIRECT_MAX)
        total = mpmath.fsum(mpmath.exp(c / j) for j in range(2, j_direct + 1))
        if n > j_direct:
            lo = j_direct  # tail: j = lo+1 .. n
            if c / (lo + 1) <= mpmath.mpf(1) / 2:
                # Σ e^{c/j} = (n − lo) + Σ_{m>=1} c^m/m! · Σ_j j^{−m}: all terms positive,
                # ratio of consecutive terms <= c/(m(lo+1)) <= 1/(2m).
                tail = mpmath.mpf(n - lo)
                tail += c * (mpmath.digamma(n + 1) - mpmath.digamma(lo + 1))
                coef = c
                m = 1
                tol = mpmath.mpf(2) ** (-mpmath.mp.prec - 8)
                while True:
                    m += 1
                    coef = coef * c / m
                    term = coef * (mpmath.zeta(m, lo + 1) - mpmath.zeta(m, n + 1))
                    tail += term
                    if term <= tol * tail:
                        break
            else:
                # c > _XI_DIRECT_MAX/2 (σ² > ~507): bound each remaining term by the first
                # one. The excess is < n·e^{c/(lo+1)} while the sum already holds
                # e^{c/2}: relative excess < n·e^{−0.4999c} < n·e^{−4999}, far below any
                # working precision, and on the safe (larger ξ, larger ε) side.
                tail = (n - lo) * mpmath.exp(c / (lo + 1))
            total += tail
        return 10 * mpmath.exp(-c) * total


def _check_lemma4(n, sigma2, sensitivity):
    n = check_int("n", n, minimum=1)
    sigma2 = check_positive_fraction("sigma2", sigma2)
    if sigma2 < Fraction(1, 4):
        raise ParameterError(f"sigma2 must be >= 1/4 (Lemma 4 (000) requires σ >= 1/2), "
                             f"got {sigma2}")
    sens = check_sensitivity(sensitivity, integer=True)
    return n, sigma2, sens


def discrete_gaussian_sum_xi(n, sigma2):
    """ξ of Lemma 4 (000): 10 Σ_{k=1}^{n−1} e^{−2π²σ² k/(k+1)}, rounded up.

    Computed in mpmath: the first min(n, max(64, ⌈4π²σ²⌉), 20000) terms directly, the rest
    through Σ_j e^{c/j} = Σ_m c^m/m! Σ_j j^{−m} (Hurwitz ζ / digamma; positive terms, no
    cancellation). Only when 2π²σ² > 10⁴ (σ² > ~507) is the remainder beyond j = 20000
    bounded above instead (relative excess < n·e^{−4999} — the result stays an upper
    bound).
    """
    n, sigma2, _ = _check_lemma4(n, sigma2, 1)
    return up(_xi_mp(n, sigma2, 30))


def _lemma4_eps_mp(n: int, sigma2: Fraction, sens: Fraction, dps: int = 30) -> mpmath.mpf:
    xi = _xi_mp(n, sigma2, dps)
    with mpmath.workdps(dps + 10):
        d2 = mpf(sens * sens / (n * sigma2))
        return min(mpmath.sqrt(d2 + xi / 2), mpmath.sqrt(d2) + xi)


def discrete_gaussian_sum_cdp(n, sigma2, sensitivity):
    """Lemma 4 (000) (= Kairouz, Liu & Steinke 2021, Prop. 13): adding Z_n = Σ_{i<=n} X_i,
    X_i ~ N_Z(0, σ²) i.i.d., to a Δ-sensitive integer query is ½ε²-CDP with ::

        ε = min{ √(Δ²/(nσ²) + ξ/2),  Δ/(√n σ) + ξ },  ξ = 10 Σ_{k=1}^{n−1} e^{−2π²σ² k/(k+1)},

    for σ >= 1/2 (``sigma2`` = σ² >= 1/4, else ParameterError). Returns ε (rounded up);
    the RDP curve is ½ε²α (Remark 5 (000)).
    """
    n, sigma2, sens = _check_lemma4(n, sigma2, sensitivity)
    return up(_lemma4_eps_mp(n, sigma2, sens))


# ====================================================================== continuous / zCDP
def gaussian_rdp(alpha, sigma, sensitivity=1):
    """Gaussian mechanism N(0, σ²) on a Δ-sensitive (L2) query: ε(α) = αΔ²/(2σ²)
    (Mironov 2017, Prop. 7) — exact, computed in rationals."""
    sigma = check_positive_fraction("sigma", sigma)
    sens = check_sensitivity(sensitivity, integer=False)
    orders, scalar = alphas(alpha)
    return curve_output([a * sens**2 / (2 * sigma**2) for a in orders], scalar)


def _laplace_mp(a: Fraction, b: Fraction, sens: Fraction) -> mpmath.mpf:
    eps = sens / b
    with mpmath.workdps(guard_dps(a - 1, eps, eps)):
        e = mpf(eps)
        inner = mpf((a - 1) / (2 * a - 1)) * mpmath.expm1(-mpf(2 * a - 1) * e)
        return e + mpmath.log1p(inner) / mpf(a - 1)


def laplace_rdp(alpha, b, sensitivity=1):
    """Continuous Laplace(b) on a Δ-sensitive query (Mironov 2017, Prop. 6), exact::

        ε(α) = 1/(α−1) · log[ α/(2α−1) e^{(α−1)Δ/b} + (α−1)/(2α−1) e^{−αΔ/b} ]
             = Δ/b + log1p[ (α−1)/(2α−1) · (e^{−(2α−1)Δ/b} − 1) ] / (α−1)

    (the second, cancellation-free form is the one evaluated)."""
    b = check_positive_fraction("b", b)
    sens = check_sensitivity(sensitivity, integer=False)
    orders, scalar = alphas(alpha)
    return curve_output([_laplace_mp(a, b, sens) for a in orders], scalar)


def zcdp_rdp(alpha, rho):
    """ρ-zCDP ⇔ (α, ρα)-RDP for all α > 1 (Bun & Steinke 2016; Remark 5 (000) with
    ρ = ½ε²)."""
    rho = check_nonneg("rho", rho)
    orders, scalar = alphas(alpha)
    return curve_output([rho * a for a in orders], scalar)
