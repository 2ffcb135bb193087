"""privtools.accounting: closed forms against independent brute-force mpmath oracles,
cross-checks with Google's dp_accounting (test-only), properties, paper consistency
(Lemma 3 / Theorem 2 / Lemma 4 / Lemma 10 / App. H of 000) and input validation."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

import privtools.accounting as A
from privtools.accounting import maps as acc_mod
from tests import oracles

TIGHT = 1e-13  # relative agreement expected between a float result and a 50-digit oracle


def mp(x) -> mpmath.mpf:
    return oracles.mp(Fraction(x))


def close(value, exact, rel=TIGHT) -> bool:
    exact = mpmath.mpf(exact)
    return abs(mpmath.mpf(value) - exact) <= rel * abs(exact) + mpmath.mpf(10) ** -40


def up_of(value, exact) -> bool:
    """The float ``value`` is ``exact`` rounded up (not below it, within float rounding)."""
    return mpmath.mpf(value) >= exact and close(value, exact, 4e-16)


# ============================================================================ oracles
def renyi_sum(logp, logq, alpha, xs) -> mpmath.mpf:
    """D_α(P‖Q) by direct summation of exp(α log p + (1−α) log q) over xs."""
    a = mp(alpha)
    total = mpmath.fsum(mpmath.exp(a * logp(x) + (1 - a) * logq(x)) for x in xs)
    return mpmath.log(total) / (a - 1)


def dlap_renyi_brute(alpha, scale, shift) -> mpmath.mpf:
    """Σ_x p(x)^α p(x−Δ)^{1−α} for Lap_Z(b) with the pmf of tests/oracles.py; the range
    leaves out mass < 1e-55 of the sum."""
    b = Fraction(scale)
    span = int(math.ceil(float(b) * 130)) + 10
    cache = {}

    def logp(x):
        if x not in cache:
            cache[x] = mpmath.log(oracles.dlaplace(x, b))
        return cache[x]

    xs = range(-span + min(0, shift), span + max(0, shift) + 1)
    return renyi_sum(logp, lambda x: logp(x - shift), alpha, xs)


def skellam_renyi_brute(alpha, var, shift) -> mpmath.mpf:
    """Exact D_α(Sk(0,σ²) + Δ ‖ Sk(0,σ²)) by summation with mpmath's Bessel I, until the
    terms on both sides are below 1e-45 of the total."""
    v, a = mp(var), mp(alpha)

    def logp(x):
        return -v + mpmath.log(mpmath.besseli(abs(x), v))

    def term(x):
        return mpmath.exp(a * logp(x) + (1 - a) * logp(x - shift))

    total = mpmath.fsum(term(x) for x in range(-5, shift + 6))
    for direction, start in ((1, shift + 6), (-1, -6)):
        x = start
        while True:
            t = term(x)
            total += t
            if t < total * mpmath.mpf(10) ** -45 and abs(x) > 3 * v + 20:
                break
            x += direction
    return mpmath.log(total) / (a - 1)


def laplace_renyi_quad(alpha, b, sens) -> mpmath.mpf:
    a, bb, d = mp(alpha), mp(b), mp(sens)

    def f(x):
        return mpmath.exp(-(a * abs(x) + (1 - a) * abs(x - d)) / bb) / (2 * bb)

    total = mpmath.quad(f, [-mpmath.inf, 0, d, mpmath.inf])
    return mpmath.log(total) / (a - 1)


def gaussian_renyi_quad(alpha, sigma, sens) -> mpmath.mpf:
    a, s, d = mp(alpha), mp(sigma), mp(sens)

    def f(x):
        return mpmath.npdf(x, 0, s) ** a * mpmath.npdf(x, d, s) ** (1 - a)

    total = mpmath.quad(f, [-mpmath.inf, 0, d, mpmath.inf])
    return mpmath.log(total) / (a - 1)


def xi_direct(n, sigma2) -> mpmath.mpf:
    c = 2 * mpmath.pi**2 * mp(sigma2)
    return 10 * mpmath.fsum(mpmath.exp(-c * k / (k + 1)) for k in range(1, n))


@pytest.fixture(autouse=True)
def _precision():
    with mpmath.workdps(50):
        yield


# ============================================================================ discrete Laplace
@pytest.mark.parametrize("scale", [Fraction(1, 2), 1, Fraction(37, 10), 8])
@pytest.mark.parametrize("sens", [1, 2, 5])
@pytest.mark.parametrize("alpha", [Fraction(1001, 1000), Fraction(3, 2), 2, Fraction(15, 2), 60])
def test_discrete_laplace_closed_form_vs_summation(scale, sens, alpha):
    exact = dlap_renyi_brute(alpha, scale, sens)
    assert up_of(A.discrete_laplace_rdp(alpha, scale, sens), exact)
    if alpha == 2:  # the reversed pair (shift by −Δ) gives the same divergence
        assert close(dlap_renyi_brute(alpha, scale, -sens), exact, 1e-40)


def test_discrete_laplace_near_alpha_one_is_kl():
    # α = 1 + 1e-12: the value must approach KL(P‖Q) = Σ p log(p/q); a naive float
    # evaluation of log(T)/(α−1) would have lost every digit here.
    scale, sens = Fraction(3), 2
    b = Fraction(scale)
    span = 400
    kl = mpmath.fsum(oracles.dlaplace(x, b) * (mpmath.log(oracles.dlaplace(x, b))
                                               - mpmath.log(oracles.dlaplace(x - sens, b)))
                     for x in range(-span, span))
    got = A.discrete_laplace_rdp(1 + Fraction(1, 10**12), scale, sens)
    assert close(got, kl, 1e-9)
    assert got >= kl  # D_α >= KL for α > 1


@pytest.mark.parametrize("alpha,scale,sens", [(Fraction(10001, 10000), 10**6, 1),
                                               (1 + Fraction(1, 10**9), 10**4, 3),
                                               (2, 10**8, 7), (10**4, Fraction(1, 100), 5)])
def test_discrete_laplace_extreme_parameters_rounded_up(alpha, scale, sens):
    # far outside brute-force range: the summed form Σ = e^{a(α−1)Δ}T evaluated at 150
    # digits without the cancellation-aware rewriting; the float must not be below it
    a, b = Fraction(alpha), Fraction(scale)
    with mpmath.workdps(150):
        av, al = 1 / mp(b), mp(a)
        r, u = mpmath.exp(-av), mpmath.exp(-av * (2 * al - 1))
        big = mpmath.exp(av * (al - 1) * sens)
        total = ((big + mpmath.exp(-av * al * sens)) / (1 + r)
                 + (1 - r) / (1 + r) * big * mpmath.fsum(u**x for x in range(1, sens)))
        ref = mpmath.log(total) / (al - 1)
        assert up_of(A.discrete_laplace_rdp(alpha, scale, sens), ref)


@given(st.integers(1, 10**40), st.integers(-400, 400))
def test_rounding_up_never_rounds_down(mantissa, exponent):
    from privtools.accounting._numeric import up

    x = mpmath.mpf(mantissa) * mpmath.mpf(2) ** exponent  # up to 133 bits
    f = up(x)
    assert mpmath.mpf(f) >= x and mpmath.mpf(math.nextafter(f, -math.inf)) < x
    q = Fraction(mantissa, 3) * Fraction(2) ** exponent
    g = up(q)
    assert Fraction(g) >= q and Fraction(math.nextafter(g, -math.inf)) < q


def test_discrete_laplace_unit_shift_is_randomized_response():
    alphas = [1.001, 1.5, 2, 10, 1000]
    for scale in (0.3, 1, 7):
        dl = A.discrete_laplace_rdp(alphas, scale, 1)
        rr = A.pure_dp_rdp(alphas, Fraction(1) / Fraction(scale), tight=True)
        np.testing.assert_allclose(dl, rr, rtol=1e-14)


@given(scale=st.fractions(min_value=Fraction(1, 4), max_value=6),
       sens=st.integers(2, 6), alpha=st.fractions(min_value=Fraction(11, 10), max_value=40))
def test_discrete_laplace_full_shift_is_worst(scale, sens, alpha):
    # any |d| <= Δ gives at most the value at d = Δ (so Δ is the worst-case neighbour)
    worst = A.discrete_laplace_rdp(alpha, scale, sens)
    for d in range(1, sens):
        assert A.discrete_laplace_rdp(alpha, scale, d) <= worst


@given(scale=st.floats(0.2, 50), sens=st.integers(1, 8),
       alpha=st.floats(1.0001, 500))
def test_pure_dp_bounds_hold_for_discrete_laplace(scale, sens, alpha):
    eps = Fraction(sens) / Fraction(scale)  # Fact 2 (000): Lap_Z(b) is Δ/b-DP
    exact = A.discrete_laplace_rdp(alpha, scale, sens)
    rr = A.pure_dp_rdp(alpha, eps, tight=True)
    loose = A.pure_dp_rdp(alpha, eps)
    assert exact <= rr * (1 + 1e-14)
    assert rr <= loose * (1 + 1e-14)
    assert exact <= float(eps) * (1 + 1e-15)
    assert exact <= float(eps * eps * Fraction(alpha) / 2) * (1 + 1e-15)
    assert loose == A.pure_dp_rdp(alpha, eps, tight=False)
    assert Fraction(loose) >= min(eps, eps * eps * Fraction(alpha) / 2)


# ============================================================================ Skellam / Lemma 3
def test_lemma3_is_evaluated_exactly():
    # 1·1/(2·4) + min{(3 + 6)/64, 3/8} = 1/4 + 9/64
    assert A.skellam_rdp_bound(2, 4, 1) == 0.390625
    assert A.skellam_rdp_bound(20, 4, 1) == 2.5 + 0.375
    v = A.skellam_rdp_bound(3, Fraction(7, 3), 2)
    exact = Fraction(3 * 4, 2) / Fraction(7, 3) + min(Fraction(5 * 4 + 12, 4) / Fraction(49, 9),
                                                      Fraction(6, 2) / Fraction(7, 3))
    assert Fraction(v) >= exact and float(exact) == pytest.approx(v, rel=1e-16)


@pytest.mark.parametrize("var,sens", [(1, 1), (4, 1), (Fraction(25, 2), 3), (100, 10)])
@pytest.mark.parametrize("alpha", [2, 3, 8, 30])
def test_lemma3_bounds_exact_skellam_divergence(var, sens, alpha):
    with mpmath.workdps(30):
        exact = skellam_renyi_brute(alpha, var, sens)
    assert A.skellam_rdp_bound(alpha, var, sens) >= exact


def test_skellam_bound_requires_integer_order():
    with pytest.raises(ValueError, match="alpha"):
        A.skellam_rdp_bound(2.5, 4, 1)
    assert A.skellam_rdp_bound(2.0, 4, 1) == A.skellam_rdp_bound(2, 4, 1)


# ============================================================================ Theorem 2
def _ceil_g(eps: Fraction, s: Fraction, n: int) -> int:
    """g = ⌈sε√n⌉ exactly: the least integer with g² >= s²ε²n."""
    x = s * s * eps * eps * n
    g = math.isqrt(x.numerator // x.denominator)
    while g * g < x:
        g += 1
    return max(g, 1)


@pytest.mark.parametrize("eps,s,n", [(Fraction(1, 2), 4, 4), (Fraction(1, 4), 2, 16),
                                     (Fraction(3, 2), 2, 1), (1, 3, 9)])
@pytest.mark.parametrize("alpha", [2, 5, 40])
def test_theorem2_derived_equals_lemma3_when_g_is_exact(eps, s, n, alpha):
    # sε√n an integer: g = sε√n, σ² = g²/ε², and the derived curve is Lemma 3 verbatim
    g = Fraction(s) * Fraction(eps) * math.isqrt(n)
    assert g.denominator == 1
    lemma3 = A.skellam_rdp_bound(alpha, g * g / Fraction(eps) ** 2, int(g))
    derived = A.theorem2_rdp(alpha, eps, s, n, form="derived")
    assert derived == pytest.approx(lemma3, rel=1e-14)


@given(eps=st.fractions(min_value=Fraction(1, 20), max_value=4),
       s=st.fractions(min_value=1, max_value=50), n=st.integers(1, 5000),
       alpha=st.integers(2, 300))
def test_theorem2_derived_bounds_lemma3_with_ceiling(eps, s, n, alpha):
    g = _ceil_g(eps, s, n)
    lemma3 = A.skellam_rdp_bound(alpha, Fraction(g * g) / eps**2, g)
    derived_n = A.theorem2_rdp(alpha, eps, s, n, form="derived")
    assert lemma3 <= derived_n * (1 + 1e-14)
    assert derived_n <= A.theorem2_rdp(alpha, eps, s, form="derived") * (1 + 1e-14)
    paper_n = A.theorem2_rdp(alpha, eps, s, n)
    assert paper_n <= A.theorem2_rdp(alpha, eps, s) * (1 + 1e-14)  # ε̂_n <= ε̂ (n >= 1)
    if eps >= 1:  # ε² >= ε: the printed form is then at least the derived one
        assert lemma3 <= paper_n * (1 + 1e-14)


def test_theorem2_printed_form_is_below_lemma3_somewhere():
    # ε = 1/2, s = 2, n = 1: g = 1 = sε√n, σ² = 4. Lemma 3 at α = 20 gives
    # 20/8 + min{45/64, 3/8} = 2.875, the printed ε̂_n gives 2.5 + min{45/64, 3/16} = 2.6875:
    # the second term of the min should be 3ε/(2s√n) = 3/8, not 3ε²/(2s√n) = 3/16.
    lemma3 = A.skellam_rdp_bound(20, 4, 1)
    assert lemma3 == 2.875
    assert A.theorem2_rdp(20, 0.5, 2, 1) == 2.6875
    assert A.theorem2_rdp(20, 0.5, 2, 1, form="derived") == 2.875
    # ... while the exact Rényi divergence stays below both here
    with mpmath.workdps(30):
        assert skellam_renyi_brute(20, 4, 1) < 2.6875


# ============================================================================ Lemma 4
@pytest.mark.parametrize("n,sigma2", [(1, 1), (2, Fraction(1, 4)), (10, 1), (1000, Fraction(1, 4)),
                                      (5000, Fraction(3, 2)), (3000, 600), (70, 600)])
def test_lemma4_xi_vs_direct_sum(n, sigma2):
    with mpmath.workdps(35):
        direct = xi_direct(n, sigma2)
    got = A.discrete_gaussian_sum_xi(n, sigma2)
    if direct == 0:
        assert got == 0
    else:
        assert mpmath.mpf(got) >= direct * (1 - mpmath.mpf(10) ** -25)
        assert close(got, direct, 1e-14)


def test_lemma4_xi_tail_series_for_large_n():
    # n far beyond the direct-summation limit: compare with Euler–Maclaurin (mpmath.nsum
    # is unsuitable; use sumem on the smooth summand) — independent of the Hurwitz series.
    n, sigma2 = 10**7, Fraction(1, 4)
    c = 2 * mpmath.pi**2 * mp(sigma2)
    with mpmath.workdps(30):
        head = mpmath.fsum(mpmath.exp(-c * k / (k + 1)) for k in range(1, 1000))
        tail = mpmath.sumem(lambda k: mpmath.exp(-c * k / (k + 1)), [1000, n - 1])
        ref = 10 * (head + tail)
    assert close(A.discrete_gaussian_sum_xi(n, sigma2), ref, 1e-12)


@pytest.mark.parametrize("n,sigma2,sens", [(1, 1, 1), (4, Fraction(1, 4), 1), (16, 25, 10),
                                           (100, 2, 3)])
def test_lemma4_epsilon_formula(n, sigma2, sens):
    xi = xi_direct(n, sigma2)
    d2 = mp(Fraction(sens * sens) / (n * Fraction(sigma2)))
    expected = min(mpmath.sqrt(d2 + xi / 2), mpmath.sqrt(d2) + xi)
    got = A.discrete_gaussian_sum_cdp(n, sigma2, sens)
    assert up_of(got, expected) or close(got, expected, 1e-15)
    assert mpmath.mpf(got) >= expected * (1 - mpmath.mpf(10) ** -30)


def test_lemma4_requires_sigma_at_least_half():
    with pytest.raises(ValueError, match="sigma2"):
        A.discrete_gaussian_sum_cdp(3, Fraction(1, 5), 1)
    with pytest.raises(ValueError, match="sigma2"):
        A.DiscreteGaussianSumEvent(3, 0.2, 1)


# ============================================================================ continuous
@pytest.mark.parametrize("b,sens", [(Fraction(1, 2), 1), (1, 1), (3, 2), (20, 1)])
@pytest.mark.parametrize("alpha", [Fraction(101, 100), 2, Fraction(13, 2), 40])
def test_laplace_closed_form_vs_quadrature(b, sens, alpha):
    assert close(A.laplace_rdp(alpha, b, sens), laplace_renyi_quad(alpha, b, sens), 1e-13)


@pytest.mark.parametrize("sigma,sens", [(Fraction(1, 2), 1), (3, 2), (10, 1)])
@pytest.mark.parametrize("alpha", [Fraction(11, 10), 4, 25])
def test_gaussian_closed_form_vs_quadrature(sigma, sens, alpha):
    got = A.gaussian_rdp(alpha, sigma, sens)
    assert close(got, gaussian_renyi_quad(alpha, sigma, sens), 1e-13)
    assert Fraction(got) >= Fraction(alpha) * sens**2 / (2 * Fraction(sigma) ** 2)


def test_zcdp_and_pure_to_zcdp():
    assert A.zcdp_rdp(3, 0.25) == 0.75
    assert A.pure_to_zcdp(0.5) == 0.125
    curve = A.pure_to_rdp(1)
    assert curve(2) == 1.0 and curve(1.5) == 0.75
    tight = A.pure_to_rdp(1, tight=True)
    assert tight(2) == A.pure_dp_rdp(2, 1, tight=True) < 1.0


# ============================================================================ dp_accounting
import dp_accounting as dpa  # noqa: E402 - test-only dependency (the dev extra)
from dp_accounting.rdp import rdp_privacy_accountant as dpa_rdp  # noqa: E402

DPA_ORDERS = list(dpa_rdp.DEFAULT_RDP_ORDERS)  # all > 1.01, as its conversion requires


@pytest.mark.parametrize("sigma,count", [(0.8, 1), (1.0, 1), (3.0, 10), (0.7, 100), (20.0, 1),
                                         (3000.0, 1)])
def test_gaussian_rdp_and_conversion_match_dp_accounting(sigma, count):
    ref_rdp = count * dpa_rdp._compute_rdp_poisson_subsampled_gaussian(1.0, sigma, DPA_ORDERS)
    ours = A.RdpAccountant(DPA_ORDERS).compose(A.GaussianEvent(sigma), count)
    np.testing.assert_allclose(ours.rdp(DPA_ORDERS), ref_rdp, rtol=1e-12)
    ref = dpa_rdp.RdpAccountant(DPA_ORDERS)
    ref.compose(dpa.GaussianDpEvent(sigma), count)
    for delta in (1e-3, 1e-6, 1e-10):
        e_ref, o_ref = ref.get_epsilon_and_optimal_order(delta)
        eps, order = ours.epsilon(delta)
        assert eps == pytest.approx(e_ref, rel=1e-9) and order == o_ref
        d_ref, _ = ref.get_delta_and_optimal_order(e_ref)
        assert ours.delta(e_ref).delta == pytest.approx(d_ref, rel=1e-9)


@pytest.mark.parametrize("b", [0.3, 1.0, 10.0])
def test_laplace_rdp_matches_dp_accounting(b):
    ref = [dpa_rdp._laplace_rdp(1 / b, a) for a in DPA_ORDERS]
    np.testing.assert_allclose(A.laplace_rdp(DPA_ORDERS, b), ref, rtol=1e-12)
    acc = dpa_rdp.RdpAccountant(DPA_ORDERS)
    acc.compose(dpa.LaplaceDpEvent(b), 3)
    e_ref, _ = acc.get_epsilon_and_optimal_order(1e-6)
    eps, _ = A.RdpAccountant(DPA_ORDERS).compose(A.LaplaceEvent(b), 3).epsilon(1e-6)
    assert eps == pytest.approx(e_ref, rel=1e-9)


def test_conversion_of_a_table_matches_dp_accounting_compute_epsilon():
    # same formula (CKS20 Prop. 12), same orders, arbitrary curve values
    rdp = {a: 0.3 * a + 0.05 * math.sqrt(a) for a in DPA_ORDERS}
    for delta in (1e-2, 1e-5, 1e-12):
        e_ref, o_ref = dpa_rdp.compute_epsilon(DPA_ORDERS, list(rdp.values()), delta)
        res = A.rdp_to_dp(rdp, delta)
        assert res.epsilon == pytest.approx(e_ref, rel=1e-9) and res.order == o_ref


# ============================================================================ conversions
def test_lemma10_by_hand_on_a_mapping():
    rdp = {2: 0.5, 4: 1.25}
    delta = Fraction(1, 10**5)
    vals = {a: mp(r) + mpmath.log(1 / (a * mp(delta))) / (a - 1) + mpmath.log(1 - mpmath.mpf(1) / a)
            for a, r in rdp.items()}
    best = min(vals, key=vals.get)
    res = A.rdp_to_dp(rdp, delta)
    assert res.order == best and up_of(res.epsilon, vals[best])
    mir = A.rdp_to_dp(rdp, delta, method="mironov")
    mvals = {a: mp(r) + mpmath.log(1 / mp(delta)) / (a - 1) for a, r in rdp.items()}
    assert up_of(mir.epsilon, min(mvals.values()))
    eps, order = res  # unpacks
    assert (eps, order) == (res.epsilon, res.order)


def test_lemma10_survives_orders_near_one_and_tiny_delta():
    res = A.rdp_to_dp(lambda a: A.gaussian_rdp(a, 1000), Fraction(1, 10**300),
                      orders=[1 + 1e-9, 1.5, 2, 1e6])
    assert math.isfinite(res.epsilon) and res.epsilon > 0
    # log(1 − 1/α) at α = 1 + 2^-30 is about −20.8: evaluated from the exact order
    a = Fraction(1) + Fraction(1, 2**30)
    ref = (mpmath.mpf("0.25") + mpmath.log(1 / (mp(a) * mpmath.mpf("0.5"))) / mp(a - 1)
           + mpmath.log(mp((a - 1) / a)))
    assert up_of(A.rdp_to_dp({a: 0.25}, 0.5, tv_bound=False).epsilon, ref)
    # a formula value below zero is clipped at zero
    assert A.rdp_to_dp({10**6: 0.0}, 0.5).epsilon == 0.0


@given(sigma=st.floats(0.3, 30), d1=st.floats(1e-12, 0.5), d2=st.floats(1e-12, 0.5))
def test_conversions_monotone_in_delta_and_lemma10_beats_mironov(sigma, d1, d2):
    assume(d1 < d2)
    curve = A.rdp_curve(A.GaussianEvent(sigma))
    e1, e2 = A.rdp_to_dp(curve, d1).epsilon, A.rdp_to_dp(curve, d2).epsilon
    assert e1 >= e2
    m1, m2 = (A.rdp_to_dp(curve, d, method="mironov").epsilon for d in (d1, d2))
    assert m1 >= m2 and e1 <= m1 and e2 <= m2


@given(sigma=st.floats(0.3, 30), delta=st.floats(1e-12, 0.5),
       method=st.sampled_from(["lemma10", "mironov"]))
def test_delta_inverts_epsilon(sigma, delta, method):
    acc = A.RdpAccountant().compose(A.GaussianEvent(sigma))
    eps, order = acc.epsilon(delta, method=method)
    assume(eps > 0)
    back = acc.delta(eps, method=method)
    assert back.delta <= delta * (1 + 1e-9)
    assert acc.delta(eps * 1.1, method=method).delta <= back.delta


@given(rho=st.floats(1e-6, 20), delta=st.floats(1e-15, 0.5))
def test_zcdp_conversions_ordered(rho, delta):
    tight = A.zcdp_to_dp(rho, delta).epsilon
    standard = A.zcdp_to_dp(rho, delta, method="standard").epsilon
    assert tight <= standard
    # "standard" is Mironov's conversion minimised exactly
    grid = A.rdp_to_dp(lambda a: A.zcdp_rdp(a, rho), delta, method="mironov",
                       tv_bound=False).epsilon
    assert standard <= grid * (1 + 1e-12)
    # the continuous optimum is at least as good as the grid one
    assert tight <= A.rdp_to_dp(lambda a: A.zcdp_rdp(a, rho), delta).epsilon * (1 + 1e-12)
    if math.sqrt(-math.expm1(-rho)) <= delta * (1 - 1e-12):  # TV shortcut (KL <= ρ)
        assert tight == 0.0


@given(eps=st.floats(1e-3, 5), delta=st.floats(1e-15, 0.5))
def test_lemma10_second_half(eps, delta):
    # ½ε²-CDP: inf_α … <= ε(√(2 log(1/δ)) + ε/2), and the closed form is Bun–Steinke's
    inf_ = A.cdp_to_dp(eps, delta).epsilon
    closed = A.cdp_to_dp(eps, delta, method="lemma10_closed").epsilon
    assert inf_ <= closed
    e = Fraction(eps)
    rho = e * e / 2
    assert closed == pytest.approx(A.zcdp_to_dp(rho, delta, method="standard").epsilon,
                                   rel=1e-14)


def test_zcdp_lemma10_known_value():
    # ρ = 0.1, δ = 1e-5, minimised with mpmath.findroot on the derivative
    rho, delta = mpmath.mpf("0.1"), mpmath.mpf("1e-5")

    def f(a):
        return rho * a + mpmath.log(1 / (a * delta)) / (a - 1) + mpmath.log(1 - 1 / a)

    a_star = mpmath.findroot(lambda a: mpmath.diff(f, a), 10)
    got = A.zcdp_to_dp(Fraction(1, 10), Fraction(1, 10**5))
    assert close(got.epsilon, f(a_star), 1e-12)
    assert got.order == pytest.approx(float(a_star), rel=1e-6)


# ============================================================================ composition
CURVES = {
    "dlap": lambda: A.DiscreteLaplaceEvent(Fraction(5, 2), 2),
    "skellam": lambda: A.SkellamEvent(50, 3),
    "dgsum": lambda: A.DiscreteGaussianSumEvent(8, Fraction(9, 4), 2),
    "gauss": lambda: A.GaussianEvent(2),
    "laplace": lambda: A.LaplaceEvent(3),
    "zcdp": lambda: A.ZCDPEvent(Fraction(1, 8)),
    "pure": lambda: A.PureDPEvent(Fraction(1, 2)),
    "pure_tight": lambda: A.PureDPEvent(Fraction(1, 2), tight=True),
}


@given(name=st.sampled_from(sorted(CURVES)), a1=st.floats(1.001, 300),
       a2=st.floats(1.001, 300))
def test_rdp_curves_non_decreasing_in_alpha(name, a1, a2):
    assume(a1 < a2)
    curve = A.rdp_curve(CURVES[name]())
    assert curve(a1) <= curve(a2)


@given(names=st.lists(st.sampled_from(sorted(CURVES)), min_size=1, max_size=4),
       counts=st.lists(st.integers(0, 50), min_size=4, max_size=4),
       alpha=st.floats(1.01, 100))
def test_composition_is_additive(names, counts, alpha):
    events = [CURVES[n]() for n in names]
    counts = counts[: len(events)]
    composed = A.compose_rdp(events, counts)(alpha)
    parts = sum(k * mpmath.mpf(A.event_rdp(e, alpha)) for e, k in zip(events, counts))
    assert composed == pytest.approx(float(parts), rel=1e-14, abs=1e-300)
    acc = A.RdpAccountant()
    for e, k in zip(events, counts):
        acc.compose(e, count=k)
    assert acc.rdp(alpha) == composed
    assert A.event_rdp(A.ComposedEvent([A.RepeatedEvent(e, k) for e, k in zip(events, counts)]),
                       alpha) == composed


def test_callables_compose_with_events():
    c = A.compose_rdp([lambda a: A.gaussian_rdp(a, 2), A.GaussianEvent(2)], [2, 1])
    assert c(4) == pytest.approx(3 * 4 / 8, rel=1e-15)
    assert A.rdp_to_dp(c, 1e-5).epsilon == A.RdpAccountant().compose(
        A.GaussianEvent(2), 3).epsilon(1e-5).epsilon


def test_returning_users_app_h():
    # Assumption 2 (000): B participations ⇒ B·ε(α) (App. H)
    batch = A.DiscreteGaussianSumEvent(16, Fraction(25, 16), 5)  # Theorem 4 shape
    for B in (1, 4, 30):
        ret = A.returning_users_rdp(batch, B)
        for alpha in (2, 7.5, 100):
            assert ret(alpha) == pytest.approx(B * A.event_rdp(batch, alpha), rel=1e-14)
        acc = A.RdpAccountant().compose(batch, count=B)
        assert acc.epsilon(1e-6).epsilon == A.rdp_to_dp(ret, 1e-6).epsilon


def test_rdp_composition_beats_advanced_composition():
    # k ε-DP mechanisms: RDP accounting (Lemma 10) vs Dwork–Rothblum–Vadhan
    eps, k, delta = 0.1, 200, 1e-6
    rdp_eps = A.RdpAccountant().compose(A.PureDPEvent(eps, tight=True), k).epsilon(delta).epsilon
    adv = A.advanced_composition(eps, 0, k, delta)
    assert rdp_eps < adv.epsilon
    e = mpmath.mpf(eps)
    expected = mpmath.sqrt(2 * k * mpmath.log(1 / mpmath.mpf(delta))) * e + k * e * mpmath.expm1(e)
    assert up_of(adv.epsilon, expected) or close(adv.epsilon, expected, 1e-15)
    assert adv.delta == pytest.approx(delta)
    assert A.advanced_composition(eps, 1e-8, k, delta).delta == pytest.approx(k * 1e-8 + delta)


@given(eps_total=st.floats(0.01, 0.99), k=st.integers(1, 10**6),
       delta_prime=st.floats(1e-12, 0.6))
def test_theorem7_per_mechanism_epsilon_suffices(eps_total, k, delta_prime):
    # Theorem 7 (000): ε = ε'/(2√(2k log(1/δ'))) per mechanism ⇒ total ε' (δ' <= e^{-1/2})
    eps = A.theorem7_per_mechanism_epsilon(eps_total, k, delta_prime)
    assert A.advanced_composition(eps, 0, k, delta_prime).epsilon <= eps_total


# ============================================================================ accountant
def test_accountant_chain_ledger_and_unpacking():
    acc = A.RdpAccountant()
    assert acc.compose(A.GaussianEvent(4)).compose(A.ZCDPEvent(0.01), count=3) is acc
    assert acc.ledger == A.ComposedEvent(
        (A.GaussianEvent(4), A.RepeatedEvent(A.ZCDPEvent(0.01), 3)))
    assert acc.rdp(2) == pytest.approx(2 / 32 + 3 * 0.01 * 2, rel=1e-15)
    eps, order = acc.epsilon(1e-5)
    delta, order2 = acc.delta(eps)
    assert delta <= 1e-5 * (1 + 1e-9)
    assert A.RdpAccountant().epsilon(1e-5).epsilon == 0.0  # via the TV shortcut
    assert A.RdpAccountant().delta(0).delta == 0.0
    # without it, Lemma 10 alone only reaches ~log(1/(αδ))/α at the largest order
    assert 0 < A.rdp_to_dp({10**4: 0}, 1e-5, tv_bound=False).epsilon < 2e-3


def test_skellam_event_uses_ceiling_order():
    ev = A.SkellamEvent(100, 10)
    assert A.event_rdp(ev, 2.5) == A.skellam_rdp_bound(3, 100, 10)
    assert A.event_rdp(ev, 3) == A.skellam_rdp_bound(3, 100, 10)


def test_discrete_gaussian_sum_event_is_lemma4_cdp():
    ev = A.DiscreteGaussianSumEvent(10, 4, 5)
    eps = mpmath.mpf(A.discrete_gaussian_sum_cdp(10, 4, 5))
    assert A.event_rdp(ev, 3) == pytest.approx(float(eps**2 * 3 / 2), rel=1e-14)
    # Theorem 4 (000) algebra: σ² = g²/(nε²) ⇒ Δ²/(nσ²) = ε²
    g, n, e = 6, 9, Fraction(1, 2)
    got = A.discrete_gaussian_sum_cdp(n, Fraction(g * g) / (n * e * e), g)
    assert got >= 0.5 and got == pytest.approx(0.5, rel=1e-6)


def test_theorem2_accounting_end_to_end():
    # Theorem 2 (000): one batch of n users, g = ⌈sε√n⌉, total noise Sk(0, g²/ε²)
    eps, s, n = Fraction(1, 2), Fraction(10), 64
    g = _ceil_g(eps, s, n)
    ev = A.SkellamEvent(Fraction(g * g) / eps**2, g)
    for alpha in (2, 5, 33):
        assert A.event_rdp(ev, alpha) <= A.theorem2_rdp(alpha, eps, s, n, form="derived") * (
            1 + 1e-14)
    res = A.RdpAccountant(A.INTEGER_ORDERS).compose(ev, count=4).epsilon(1e-6)
    assert float(res.order).is_integer() and res.epsilon > 0


# ============================================================================ exact hook
@pytest.fixture
def fake_divergence(monkeypatch):
    calls = []

    def renyi_shift(noise, sensitivity, alpha, dps=25, m=None):
        calls.append((noise, sensitivity, alpha, dps))
        return mpmath.mpi(mpmath.mpf(alpha) / 100, mpmath.mpf(alpha) / 100 + mpmath.mpf("1e-20"))

    monkeypatch.setattr(acc_mod, "renyi_shift", renyi_shift)
    acc_mod._skellam_exact.cache_clear()
    acc_mod._dgauss_sum_exact.cache_clear()
    yield calls
    acc_mod._skellam_exact.cache_clear()
    acc_mod._dgauss_sum_exact.cache_clear()


def test_exact_hook_plumbing(fake_divergence):
    from privtools.noise import Skellam

    ev = A.SkellamEvent(Fraction(123, 7), 2, exact=True)
    value = A.event_rdp(ev, 2.5)
    noise, sens, alpha, _ = fake_divergence[-1]
    assert noise == Skellam(Fraction(123, 7)) and sens == 2 and alpha == 3
    assert mpmath.mpf(value) >= mpmath.mpf(3) / 100 + mpmath.mpf("1e-20")  # the upper end


def _real_divergence():
    import privtools.exact.divergence

    return privtools.exact.divergence


@pytest.mark.slow
def test_exact_hook_skellam_below_lemma3():
    _real_divergence()
    acc_mod._skellam_exact.cache_clear()
    ev_exact = A.SkellamEvent(16, 2, exact=True)
    ev_bound = A.SkellamEvent(16, 2)
    for alpha in (2, 5, 20):
        ex = A.event_rdp(ev_exact, alpha)
        assert ex <= A.event_rdp(ev_bound, alpha)
        with mpmath.workdps(30):
            assert close(ex, skellam_renyi_brute(alpha, 16, 2), 1e-12)
    orders = [2, 3, 4, 6, 8, 12, 16, 24, 32]
    e_exact = A.RdpAccountant(orders).compose(ev_exact, 3).epsilon(1e-6).epsilon
    e_bound = A.RdpAccountant(orders).compose(ev_bound, 3).epsilon(1e-6).epsilon
    assert e_exact <= e_bound


@pytest.mark.slow
def test_exact_hook_discrete_gaussian_sum_below_lemma4():
    divergence = _real_divergence()
    from privtools.exact import sum_pmf
    from privtools.noise import DiscreteGaussian

    ev_exact = A.DiscreteGaussianSumEvent(4, 1, 2, exact=True)
    ev_bound = A.DiscreteGaussianSumEvent(4, 1, 2)
    total = sum_pmf(DiscreteGaussian(sigma2=1), 4, dps=30)
    for alpha in (2, 8):
        value = A.event_rdp(ev_exact, alpha)
        assert value <= A.event_rdp(ev_bound, alpha)  # capped by Lemma 4
        # ... and never below the certified lower end of the exact divergence
        assert mpmath.mpf(value) >= divergence.renyi_shift(total, 2, alpha, dps=25).a
