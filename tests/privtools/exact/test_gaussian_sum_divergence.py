"""privtools.exact.divergence.gaussian_sum: certified two-sided D_α and hockey-stick
divergences of Z_n (n i.i.d. N_Z(0, σ²)) against Z_n + Δ on Z (Lemma 4 (000)).

Oracles: the exact rational αΔ²/(2σ²) at n = 1 (CKS20, completing the square); the exact
identity D_2(Z_2 ‖ Z_2 + 1) = 1/(2σ²) for every σ² (p_2(x) = e^{−x²/(4σ²)} c_{x mod 2}/Z²
with c_0 = Σ_k e^{−k²/σ²}, c_1 = Σ_k e^{−(k+½)²/σ²}, and the even/odd sums of e^{−x²/(4σ²)}
are c_0 and c_1 again, so S = e^{1/(2σ²)}(c_0² + c_1²)/Z² = e^{1/(2σ²)}); and plain-mpmath
direct convolutions (tests/oracles.py) on windows far wider than the mass."""

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privtools.certified.intervals import ends, exact_rational
from privtools.errors import ParameterError
from privtools.exact.divergence import (
    discrete_gaussian_shift_renyi,
    gaussian_sum_hockey_stick,
    gaussian_sum_renyi,
    gaussian_sum_renyi_curve,
)
from privtools.exact.divergence.gaussian_sum import _renyi_window
from tests.oracles import dgauss

SIGMA2 = st.sampled_from([Fraction(1, 4), Fraction(1, 3), Fraction(1, 2), Fraction(1),
                          Fraction(5, 2), Fraction(9)])


def _contains_rational(iv, q: Fraction) -> bool:
    lo, hi = ends(iv)
    return exact_rational(lo) <= q <= exact_rational(hi)


def _rel_width(iv) -> mpmath.mpf:
    lo, hi = ends(iv)
    with mpmath.workprec(400):
        return (hi - lo) / hi


def _contains(iv, x) -> bool:
    lo, hi = ends(iv)
    return lo <= x <= hi


# ------------------------------------------------------------------ independent oracle
def _sum_pmf_mp(n: int, sigma2: Fraction, K: int) -> tuple[int, list]:
    """PMF of Z_n on [−nK, nK] by direct convolution of shares tabulated on [−K, K]
    (plain mpmath; the shares' mass outside [−K, K] is far below the working precision)."""
    base = [dgauss(k, sigma2) for k in range(-K, K + 1)]
    out = base
    for _ in range(n - 1):
        new = [mpmath.mpf(0)] * (len(out) + len(base) - 1)
        for i, a in enumerate(out):
            for j, b in enumerate(base):
                new[i + j] += a * b
        out = new
    return -n * K, out


def _oracle(n, sigma2, d, K=40):
    lo, p = _sum_pmf_mp(n, sigma2, K)

    def pmf(x):
        return p[x - lo] if lo <= x < lo + len(p) else mpmath.mpf(0)

    xs = range(lo + d, lo + len(p))  # q(x) = p(x − d) is tabulated
    return pmf, xs


def _renyi_oracle(n, sigma2, d, alpha, K=40):
    pmf, xs = _oracle(n, sigma2, d, K)
    s = mpmath.fsum(pmf(x) ** alpha * pmf(x - d) ** (1 - alpha) for x in xs)
    return mpmath.log(s) / (alpha - 1)


def _hockey_oracle(n, sigma2, d, eps, K=40):
    pmf, xs = _oracle(n, sigma2, d, K)
    e = mpmath.exp(mpmath.mpf(eps.numerator) / eps.denominator)
    return mpmath.fsum(max(mpmath.mpf(0), pmf(x) - e * pmf(x - d)) for x in xs)


# ------------------------------------------------------------------ n = 1: exact rational
@given(SIGMA2, st.integers(1, 4), st.integers(2, 12))
def test_n1_is_the_exact_rational(sigma2, d, alpha):
    exact = Fraction(alpha * d * d, 2) / sigma2
    assert discrete_gaussian_shift_renyi(alpha, sigma2, d) == exact
    iv = gaussian_sum_renyi(1, sigma2, d, alpha)
    assert _contains_rational(iv, exact)
    assert _rel_width(iv) < mpmath.mpf(10) ** -30


@given(SIGMA2, st.integers(1, 3), st.integers(2, 8))
def test_window_engine_recovers_the_n1_identity(sigma2, d, alpha):
    """The window + Cauchy–Schwarz engine, run at n = 1, against CKS20's identity."""
    iv = _renyi_window(1, sigma2, d, [alpha], 30)[0]
    assert _contains_rational(iv, Fraction(alpha * d * d, 2) / sigma2)
    assert _rel_width(iv) < mpmath.mpf(10) ** -28


# ------------------------------------------------------------------ n >= 2
@given(st.integers(2, 4), SIGMA2, st.integers(1, 3), st.integers(2, 8))
def test_interval_is_narrow_and_below_data_processing(n, sigma2, d, alpha):
    iv = gaussian_sum_renyi(n, sigma2, d, alpha)
    lo, hi = ends(iv)
    assert lo >= 0
    assert exact_rational(hi) <= Fraction(alpha * d * d, 2) / sigma2
    assert _rel_width(iv) < mpmath.mpf(10) ** -28
    if d % n == 0:  # shifting each share by Δ/n: D_α <= αΔ²/(2nσ²)
        assert exact_rational(lo) <= Fraction(alpha * d * d, 2 * n) / sigma2


@pytest.mark.parametrize("sigma2", [Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(7, 3)])
def test_exact_identity_d2_of_two_shares(sigma2):
    assert _contains_rational(gaussian_sum_renyi(2, sigma2, 1, 2, dps=40), 1 / (2 * sigma2))


def test_the_xi_term_of_lemma4_is_needed():
    """Without ξ, Lemma 4 would say D_α <= αΔ²/(2nσ²) (the continuous-Gaussian value); the
    certified lower end refutes that at n = 2, σ² = 1/4, Δ = 1, α = 8 (D_8 ≈ 8.236 > 8)."""
    lo, _ = ends(gaussian_sum_renyi(2, Fraction(1, 4), 1, 8))
    assert exact_rational(lo) > Fraction(8 * 1, 2 * 2) / Fraction(1, 4)


@pytest.mark.parametrize("n,sigma2,d,alphas", [
    (2, Fraction(1, 2), 1, [2, 3, 5]),
    (2, Fraction(1, 2), 2, [2, 4]),
    (3, Fraction(1, 3), 1, [2, 3, 6]),
    (2, Fraction(1, 4), 1, [8]),
])
def test_contains_direct_mpmath_convolution(n, sigma2, d, alphas):
    vals = gaussian_sum_renyi_curve(n, sigma2, d, alphas)
    with mpmath.workdps(60):
        for a, iv in zip(alphas, vals):
            ref = _renyi_oracle(n, sigma2, d, a)
            assert _contains(iv, ref), (a, iv, ref)


def test_monotone_in_alpha_and_curve_order():
    orders = list(range(2, 13))
    vals = gaussian_sum_renyi_curve(3, Fraction(1, 2), 1, orders)
    for a, b in zip(vals, vals[1:]):
        assert ends(b)[0] > ends(a)[1]  # strictly increasing here, and the intervals separate
    # any order of the orders, repeats allowed; same values as one at a time
    mixed = gaussian_sum_renyi_curve(3, Fraction(1, 2), 1, [5, 2, 5])
    single = gaussian_sum_renyi(3, Fraction(1, 2), 1, 5)
    assert _contains(mixed[0], ends(single)[0]) and _contains(mixed[2], ends(single)[1])
    assert ends(mixed[1])[1] < ends(mixed[0])[0]


# ------------------------------------------------------------------ hockey-stick
@pytest.mark.parametrize("n,sigma2,d,eps", [
    (2, Fraction(1, 2), 1, Fraction(0)),
    (2, Fraction(1, 2), 1, Fraction(1, 2)),
    (2, Fraction(1, 2), 2, Fraction(2)),
    (3, Fraction(1, 3), 1, Fraction(1)),
    (1, Fraction(1), 1, Fraction(3, 2)),
])
def test_hockey_stick_contains_direct_mpmath_convolution(n, sigma2, d, eps):
    iv = gaussian_sum_hockey_stick(n, sigma2, d, eps)
    with mpmath.workdps(60):
        ref = _hockey_oracle(n, sigma2, d, eps)
    assert _contains(iv, ref), (iv, ref)
    assert _rel_width(iv) < mpmath.mpf(10) ** -28


def test_hockey_stick_decreases_in_eps_and_stays_in_unit_interval():
    vals = [gaussian_sum_hockey_stick(4, 1, 2, Fraction(k, 2)) for k in range(0, 12)]
    for a, b in zip(vals, vals[1:]):
        assert ends(b)[1] < ends(a)[0]
    assert 0 < ends(vals[-1])[0] and ends(vals[0])[1] <= 1


def test_hockey_stick_tiny_values_keep_relative_accuracy():
    iv = gaussian_sum_hockey_stick(8, 9, 1, 20)
    lo, _ = ends(iv)
    assert 0 < lo < mpmath.mpf(10) ** -1000
    assert _rel_width(iv) < mpmath.mpf(10) ** -28


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("call,name", [
    (lambda: gaussian_sum_renyi(2, 1, 1, 1), "alpha"),
    (lambda: gaussian_sum_renyi(2, 1, 1, Fraction(5, 2)), "alpha"),
    (lambda: gaussian_sum_renyi(2, 1, 1, 2.5), "alpha"),
    (lambda: gaussian_sum_renyi(2, 1, 1, math.inf), "alpha"),
    (lambda: gaussian_sum_renyi(2, 1, 1, "two"), "alpha"),
    (lambda: gaussian_sum_renyi_curve(2, 1, 1, []), "alphas"),
    (lambda: gaussian_sum_renyi(2, 0, 1, 2), "sigma2"),
    (lambda: gaussian_sum_renyi(2, -1, 1, 2), "sigma2"),
    (lambda: gaussian_sum_renyi(0, 1, 1, 2), "n"),
    (lambda: gaussian_sum_renyi(1.5, 1, 1, 2), "n"),
    (lambda: gaussian_sum_renyi(2, 1, 0, 2), "sensitivity"),
    (lambda: gaussian_sum_renyi(2, 1, -3, 2), "sensitivity"),
    (lambda: gaussian_sum_renyi(2, 1, 1, 2, dps=0), "dps"),
    (lambda: gaussian_sum_hockey_stick(2, 1, 1, -1), "eps"),
    (lambda: gaussian_sum_hockey_stick(2, 0, 1, 1), "sigma2"),
    (lambda: gaussian_sum_hockey_stick(0, 1, 1, 1), "n"),
    (lambda: gaussian_sum_hockey_stick(2, 1, 0, 1), "sensitivity"),
    (lambda: discrete_gaussian_shift_renyi(3, 1, 0), "sensitivity"),
])
def test_bad_input_names_the_parameter(call, name):
    with pytest.raises(ParameterError, match=name):
        call()


def test_integral_reals_are_accepted_as_orders():
    a = gaussian_sum_renyi(2, 1, 1, 3)
    assert ends(gaussian_sum_renyi(2, 1, 1, 3.0)) == ends(a)
    assert ends(gaussian_sum_renyi(2, 1, 1, Fraction(6, 2))) == ends(a)


# ------------------------------------------------------------------ the claim
def test_lemma4_claim_is_decided_on_the_full_grid():
    from verification import claims
    from verification.verdicts import FAILS, HOLDS

    res = claims.check("lemma4", "full")
    assert len(res.rows) == 18
    assert all(r.status in (HOLDS, FAILS) for r in res.rows), [
        (r.params, r.status, r.detail) for r in res.rows]
    for r in res.rows:
        if r.params["n"] == 1:  # ξ = 0: the bound is the exact divergence
            assert r.status == HOLDS and r.slack == 1.0 and "equality" in r.detail
        else:
            assert r.slack is not None and r.slack >= 1
