"""privtools.exact.divergence: certified Rényi / LLR / hockey-stick divergences."""

import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privtools.errors import ParameterError
from privtools.exact import ExactPMF, shift, sum_pmf, total_variation, wrap
from privtools.exact import divergence as dv
from privtools.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    Polya,
    PolyaDifference,
    Skellam,
)

TEN = mpmath.mpf(10)


def ends(x):
    return dv.endpoints(x)


def contains(x, value, slack=0):
    lo, hi = ends(x)
    with mpmath.workdps(60):
        return lo - slack <= value <= hi + slack


def width(x):
    lo, hi = ends(x)
    with mpmath.workdps(60):
        return hi - lo


def lap_pmf(b, k):
    a = 1 / mpmath.mpf(b)
    return mpmath.tanh(a / 2) * mpmath.exp(-a * abs(k))


# ------------------------------------------------------------------ closed forms
@pytest.mark.parametrize("b,k", [(3, 2), (Fraction(7, 2), 5), (40, 1)])
def test_llr_of_discrete_laplace_shift_is_k_over_b(b, k):
    """Fact 2 (000): the privacy loss of Lap_Z(b) + k is bounded by k/b, attained."""
    with mpmath.workdps(50):
        exact = mpmath.mpf(k) / (mpmath.mpf(Fraction(b).numerator) / Fraction(b).denominator)
        r = dv.renyi_shift(DiscreteLaplace(b), k, math.inf, dps=40)
        assert contains(r, exact, TEN**-45) and width(r) < TEN**-25
        P = ExactPMF.from_distribution(DiscreteLaplace(b), dps=40)
        generic = dv.llr(shift(P, k), P)
        lo, hi = ends(generic)
        assert abs(lo - exact) < TEN**-25 and hi == mpmath.inf  # unknown tails on Z
        wrapped = dv.llr(wrap(shift(P, k), 97), wrap(P, 97))  # finite, and <= k/b
        assert ends(wrapped)[1] < mpmath.inf and ends(wrapped)[0] <= exact


@pytest.mark.parametrize("b,d", [(Fraction(3, 2), 1), (3, 2), (2, 5)])
@pytest.mark.parametrize("alpha", [2, Fraction(5, 2), 9])
def test_discrete_laplace_renyi_closed_form(b, d, alpha):
    """The derived closed form (three geometric series) against a brute-force mpmath sum,
    the certified tabulation and the generic renyi() on ExactPMFs; and it differs from the
    continuous-Laplace formula α/(2α−1)e^{(α−1)/b} + (α−1)/(2α−1)e^{−α/b} (d = 1)."""
    with mpmath.workdps(50):
        a = mpmath.mpf(Fraction(alpha).numerator) / Fraction(alpha).denominator
        bb = mpmath.mpf(Fraction(b).numerator) / Fraction(b).denominator
        s = mpmath.nsum(lambda y: lap_pmf(bb, y) ** a * lap_pmf(bb, y + d) ** (1 - a),
                        [-mpmath.inf, mpmath.inf])
        brute = mpmath.log(s) / (a - 1)
        closed = dv.discrete_laplace_renyi(b, d, alpha, dps=40)
        assert contains(closed, brute, TEN**-35) and width(closed) < TEN**-35
        tab = dv.renyi_shift(DiscreteLaplace(b), d, alpha, dps=40, method="tabulate")
        assert contains(tab, brute, TEN**-35) and width(tab) < TEN**-30
        P = ExactPMF.from_distribution(DiscreteLaplace(b), dps=40)
        generic = dv.renyi(shift(P, d), P, alpha)
        assert abs(ends(generic)[0] - brute) < TEN**-25  # tabulated part; upper is +inf
        if d == 1:
            cont = mpmath.log(a / (2 * a - 1) * mpmath.exp((a - 1) / bb)
                              + (a - 1) / (2 * a - 1) * mpmath.exp(-a / bb)) / (a - 1)
            assert abs(cont - brute) > TEN**-6


@pytest.mark.parametrize("sigma2,d,alpha", [
    (Fraction(1, 2), 1, 2), (Fraction(1, 2), 1, Fraction(3, 2)),
    (Fraction(1, 4), 1, Fraction(5, 2)),
    (9, 2, 4), (100, 7, Fraction(7, 3)), (10**4, 30, 16),
])
def test_discrete_gaussian_renyi_vs_continuous(sigma2, d, alpha):
    """Completing the square: Σ p(y)^α p(y+Δ)^{1−α} = e^{α(α−1)Δ²/2σ²}·θ(c)/θ(0) with
    c = (α−1)Δ, so D_α = αΔ²/(2σ²) exactly for integer α and strictly less otherwise
    (CKS20); for large σ the gap θ(c)/θ(0) − 1 ~ e^{−2π²σ²} vanishes."""
    with mpmath.workdps(50):
        a = mpmath.mpf(Fraction(alpha).numerator) / Fraction(alpha).denominator
        s2 = mpmath.mpf(Fraction(sigma2).numerator) / Fraction(sigma2).denominator
        cont = a * d * d / (2 * s2)
        r = dv.renyi_shift(DiscreteGaussian(sigma2=sigma2), d, alpha, dps=40)
        lo, hi = ends(r)
        assert hi <= cont + TEN**-35
        if Fraction(alpha).denominator == 1 or sigma2 >= 9:
            assert cont - lo < TEN**-30
        else:
            c = (a - 1) * d

            def theta(shift_):
                return mpmath.nsum(lambda y: mpmath.exp(-(y - shift_) ** 2 / (2 * s2)),
                                   [-mpmath.inf, mpmath.inf])

            brute = cont + mpmath.log(theta(c) / theta(0)) / (a - 1)
            assert contains(r, brute, TEN**-35)
            assert cont - hi > TEN**-4


@pytest.mark.parametrize("var,d,alpha", [(20, 3, 4), (Fraction(101, 2), 1, Fraction(7, 2)),
                                         (1000, 40, 32)])
def test_skellam_renyi_vs_bruteforce_and_lemma3(var, d, alpha):
    """Skellam shift: against a direct mpmath sum of e^{-x}I_ν(x) values, and below the
    AKL21 bound of Lemma 3 (000): αΔ²/(2σ²) + min(((2α−1)Δ² + 6Δ)/(4σ⁴), 3Δ/(2σ²))."""
    with mpmath.workdps(45):
        a = mpmath.mpf(Fraction(alpha).numerator) / Fraction(alpha).denominator
        x = mpmath.mpf(Fraction(var).numerator) / Fraction(var).denominator
        r = dv.renyi_shift(Skellam(var), d, alpha, dps=35)
        assert width(r) * (a - 1) < TEN**-33
        bound = a * d * d / (2 * x) + min(((2 * a - 1) * d * d + 6 * d) / (4 * x * x),
                                          3 * d / (2 * x))
        assert ends(r)[1] <= bound
        if var <= 100:
            def p(k):
                return mpmath.exp(-x) * mpmath.besseli(abs(k), x)

            s = mpmath.fsum(p(y) ** a * p(y + d) ** (1 - a) for y in range(-400, 600))
            assert contains(r, mpmath.log(s) / (a - 1), TEN**-30)


def test_polya_difference_and_polya():
    """Pólya difference (r < 1: log-convex tails; r > 1: log-concave): certified vs float;
    one-sided Pólya: D(noise ‖ noise + Δ) = +inf."""
    for r in (Fraction(1, 3), Fraction(3)):
        noise = PolyaDifference(r, scale=5)
        for alpha in (2, 5):
            c = dv.renyi_shift(noise, 2, alpha)
            f = dv.renyi_float(noise, 2, alpha)
            assert abs(ends(c)[0] - f) < 1e-9 * f
        inf_c = dv.renyi_shift(noise, 2, math.inf)
        assert abs(ends(inf_c)[0] - dv.renyi_float(noise, 2, math.inf)) < 1e-9
    assert ends(dv.renyi_shift(Polya(2, scale=3), 1, 2))[0] == mpmath.inf
    assert dv.renyi_float(Polya(2, scale=3), 1, 2) == math.inf


# ------------------------------------------------------------------ dp_accounting
def test_hockey_stick_agrees_with_dp_accounting_pld():
    """dp_accounting's PLD is pessimistic (docstring: "the resulting epsilon-hockey stick
    divergence computation gives an upper estimate"), rounding each privacy loss up to a
    multiple of h = value_discretization_interval = 1e-4. Hence
    δ_true(ε) <= δ_PLD(ε) <= δ_true(ε − h) (plus its truncated tail, 1e-30 for the
    discrete Gaussian, and float rounding)."""
    from dp_accounting.pld import privacy_loss_distribution as pld

    h, slack = 1e-4, 1e-12
    cases = [
        (DiscreteLaplace(3), pld.from_discrete_laplace_mechanism(1 / 3, sensitivity=2), 2),
        (DiscreteLaplace(20), pld.from_discrete_laplace_mechanism(1 / 20, sensitivity=5), 5),
        (DiscreteGaussian(3), pld.from_discrete_gaussian_mechanism(3.0, sensitivity=2), 2),
        (DiscreteGaussian(10), pld.from_discrete_gaussian_mechanism(10.0, sensitivity=3), 3),
    ]
    for noise, p, d in cases:
        for eps in (0.0, 0.05, 0.3, 0.9):
            theirs = float(p.get_delta_for_epsilon(eps))
            ours = dv.hockey_stick_shift(noise, d, eps, dps=25)
            ours_shifted = dv.hockey_stick_shift(noise, d, max(eps - h, 0), dps=25)
            # for ε < h: δ(ε − h) <= δ(0) + (1 − e^{ε−h}) <= δ(0) + (h − ε)
            assert float(ends(ours)[0]) <= theirs + slack
            assert theirs <= float(ends(ours_shifted)[1]) + max(h - eps, 0) + slack
            assert abs(theirs - float(ends(ours)[0])) < 2e-3 * max(theirs, 1e-12)


# ------------------------------------------------------------------ properties
pmf_cache: dict = {}


def lap_pmf_exact(b):
    if b not in pmf_cache:
        pmf_cache[b] = ExactPMF.from_distribution(DiscreteLaplace(b), dps=30)
    return pmf_cache[b]


@given(b=st.integers(1, 8), k=st.integers(1, 6), m=st.integers(5, 40),
       alphas=st.lists(st.sampled_from([Fraction(3, 2), 2, Fraction(5, 2), 4, 7, 16]),
                       min_size=2, max_size=4, unique=True))
def test_renyi_monotone_in_alpha_and_nonnegative(b, k, m, alphas):
    """D_α >= 0 and non-decreasing in α (compared as certified intervals, on the finite
    wrapped views where both ends are finite)."""
    P = wrap(lap_pmf_exact(b), m)
    Q = shift(P, k)
    vals = [dv.renyi(Q, P, a) for a in sorted(alphas)]
    with mpmath.workdps(40):
        for v in vals:
            assert ends(v)[0] >= 0 and ends(v)[1] < mpmath.inf
        for v, w in zip(vals, vals[1:]):
            assert ends(v)[0] <= ends(w)[1]


@given(b=st.integers(1, 8), k=st.integers(1, 8), m=st.integers(3, 60),
       alpha=st.sampled_from([Fraction(3, 2), 2, 5, math.inf]),
       eps=st.sampled_from([0, Fraction(1, 10), Fraction(1, 2), 1]))
def test_wrapping_never_increases_divergences(b, k, m, alpha, eps):
    """Data processing: the server's mod-m view can only shrink renyi / llr / hockey."""
    noise = DiscreteLaplace(b)
    with mpmath.workdps(40):
        wrapped = dv.renyi_shift(noise, k, alpha, dps=25, m=m)
        assert ends(wrapped)[0] <= ends(dv.renyi_shift(noise, k, alpha, dps=25))[1]
        P = lap_pmf_exact(b)
        hs = dv.hockey_stick(shift(P, k), P, eps)
        hs_w = dv.hockey_stick(wrap(shift(P, k), m), wrap(P, m), eps)
        assert ends(hs_w)[0] <= ends(hs)[1]


@given(var=st.integers(2, 60), k=st.integers(1, 6), m=st.integers(8, 50),
       alpha=st.sampled_from([Fraction(3, 2), 3, math.inf]))
def test_symmetric_noise_gives_symmetric_divergences(var, k, m, alpha):
    """For noise symmetric about 0: D(P+k ‖ P) = D(P−k ‖ P) = D(P ‖ P+k) (wrapped views,
    finite certified intervals must overlap)."""
    P = wrap(ExactPMF.from_distribution(Skellam(var), dps=30), m)
    a = dv.renyi(shift(P, k), P, alpha)
    b = dv.renyi(shift(P, -k), P, alpha)
    c = dv.renyi(P, shift(P, k), alpha)
    with mpmath.workdps(40):
        for x, y in ((a, b), (a, c)):
            assert ends(x)[0] <= ends(y)[1] and ends(y)[0] <= ends(x)[1]


@given(b=st.integers(1, 10), k=st.integers(1, 10),
       eps=st.lists(st.fractions(0, 3, max_denominator=50), min_size=2, max_size=5))
def test_hockey_stick_monotone_and_tv_at_zero(b, k, eps):
    P = lap_pmf_exact(b)
    Q = shift(P, k)
    curve = dv.delta_curve(Q, P, sorted(eps))
    with mpmath.workdps(40):
        for v, w in zip(curve, curve[1:]):
            assert ends(w)[0] <= ends(v)[1]
        tv, h0 = total_variation(Q, P), dv.hockey_stick(Q, P, 0)
        assert ends(h0)[0] <= tv.b and tv.a <= ends(h0)[1]
        closed = dv.discrete_laplace_hockey_stick(b, k, sorted(eps)[0], dps=30)
        assert ends(curve[0])[0] <= ends(closed)[1] and ends(closed)[0] <= ends(curve[0])[1]


def test_epsilon_for_delta_brackets():
    P = lap_pmf_exact(4)
    Q = shift(P, 3)
    for delta in (0.3, 0.05, 1e-3):
        e = dv.epsilon_for_delta(Q, P, delta)
        lo, hi = ends(e)
        assert 0 < lo <= hi < lo + 1e-9
        assert ends(dv.hockey_stick(Q, P, hi))[1] <= delta
        assert ends(dv.hockey_stick(Q, P, lo))[0] > delta
    # δ above the TV: ε* = 0 exactly
    assert ends(dv.epsilon_for_delta(Q, P, 0.99)) == (0, 0)
    # on Z a δ below P's unaccounted mass cannot be certified: upper end +inf
    assert ends(dv.epsilon_for_delta(Q, P, 1e-35))[1] == mpmath.inf


def test_unaccounted_mass_bounds_wrapped():
    """The wrapped upper bounds really account for the unaccounted mass: a coarse table
    (outside mass 1e-4) gives a wider interval that contains the fine one."""
    fine = wrap(ExactPMF.from_distribution(Skellam(30), dps=30), 23)
    coarse = wrap(ExactPMF.from_distribution(Skellam(30), dps=30, tail=Fraction(1, 10**4)), 23)
    for fn in (lambda P, Q: dv.renyi(P, Q, 3), dv.llr, lambda P, Q: dv.hockey_stick(P, Q, 0.2)):
        f, c = fn(shift(fine, 2), fine), fn(shift(coarse, 2), coarse)
        with mpmath.workdps(40):
            assert ends(c)[0] <= ends(f)[0] and ends(f)[1] <= ends(c)[1]
            assert width(c) > 1e-6 and width(f) < 1e-20


def test_exact_pmf_inputs_to_renyi_shift():
    """Theorem 4's total noise (a sum of discrete Gaussians, no closed form): on Z the
    certified upper end is +inf; the wrapped view gives a finite certified value, which
    for σ² = 4·25 shares is the discrete-Gaussian value αΔ²/(2σ²) up to ~e^{-2π²·25}."""
    total = sum_pmf(DiscreteGaussian(sigma2=25), 4, dps=30)
    on_z = dv.renyi_shift(total, 10, 3)
    assert ends(on_z)[1] == mpmath.inf
    wrapped = dv.renyi_shift(total, 10, 3, m=120)
    reference = dv.renyi_shift(DiscreteGaussian(sigma2=100), 10, 3, m=120)
    lo, hi = ends(wrapped)
    with mpmath.workdps(40):
        assert hi < mpmath.inf and width(wrapped) < 1e-20
        assert abs(lo - ends(reference)[0]) < 1e-20
        assert lo < mpmath.mpf(3 * 100) / 200  # wrapping lowers αΔ²/(2σ²) (data processing)


# ------------------------------------------------------------------ float agreement
@pytest.mark.parametrize("noise,d,alpha", [
    (Skellam(5000), 70, 6), (Skellam(Fraction(999, 2)), 3, Fraction(5, 2)),
    (DiscreteGaussian(sigma2=200), 17, 9), (DiscreteLaplace(7), 3, 12),
])
def test_float_versions_agree_with_certified(noise, d, alpha):
    c = dv.renyi_shift(noise, d, alpha)
    f = dv.renyi_float(noise, d, alpha)
    assert abs(float(ends(c)[0]) - f) <= 1e-9 * f
    for eps in (0.1, 1.0):
        hc = dv.hockey_stick_shift(noise, d, eps)
        hf = dv.hockey_stick_float(noise, d, eps)
        assert abs(float(ends(hc)[0]) - hf) <= 1e-9 * hf


# ------------------------------------------------------------------ underflow regime
def test_underflow_regime_skellam_1e7_and_discrete_laplace_1e5():
    """Skellam with total variance 1e7: the Rényi sum of order 8 with Δ = 20000 peaks at
    y ≈ 7Δ = 44σ, where the float PMF underflows (log p ≈ −980); the certified value is
    finite and equals the float log-space version to 1e-9. Lap_Z(1e5): closed forms,
    also against the float versions."""
    sk = Skellam(10**7)
    assert sk.pmf(140000) == 0.0  # below float range
    r = dv.renyi_shift(sk, 20000, 8)
    lo, hi = ends(r)
    assert width(r) < TEN**-25 and lo > 100
    assert abs(float(lo) - dv.renyi_float(sk, 20000, 8)) <= 1e-9 * float(lo)

    lap = DiscreteLaplace(10**5)
    for d, alpha in ((3000, 64), (50000, 2)):
        c = dv.renyi_shift(lap, d, alpha)
        assert width(c) < TEN**-28 * ends(c)[1]
        assert abs(float(ends(c)[0]) - dv.renyi_float(lap, d, alpha)) <= 1e-9 * float(ends(c)[0])
    for eps in (0.001, 0.02):
        c = dv.hockey_stick_shift(lap, 3000, eps)
        assert abs(float(ends(c)[0]) - dv.hockey_stick_float(lap, 3000, eps)) \
            <= 1e-9 * float(ends(c)[0])
    # d = 1: D ≈ 2e-10; the float log-space sum loses ~1e-6 relative here (cancellation)
    tiny = dv.renyi_shift(lap, 1, 4)
    with mpmath.workdps(60):
        a = mpmath.mpf(10) ** -5
        exact = mpmath.log((mpmath.exp(3 * a) + mpmath.exp(-4 * a)) / (1 + mpmath.exp(-a))) / 3
        assert contains(tiny, exact, TEN**-45) and width(tiny) < TEN**-38


def test_underflow_regime_hockey_stick_skellam():
    """δ(ε) far below any float PMF value of the bulk, certified via a table whose outside
    mass is shrunk below 10^-dps of δ."""
    sk = Skellam(10**7)
    c = dv.hockey_stick_shift(sk, 3162, 6, dps=20)
    lo, hi = ends(c)
    assert 0 < lo and hi - lo < TEN**-18 * hi
    assert abs(float(lo) - dv.hockey_stick_float(sk, 3162, 6)) <= 1e-9 * float(lo)


# ------------------------------------------------------------------ bad input
def test_bad_inputs_name_the_parameter():
    P = lap_pmf_exact(3)
    Q = shift(P, 1)
    for bad in (1, 0.5, -2, float("nan")):
        with pytest.raises(ValueError, match="alpha"):
            dv.renyi(Q, P, bad)
    # a decimal string is an exact value, as everywhere in privtools ("0.1" is 1/10)
    assert dv.endpoints(dv.renyi(Q, P, "2")) == dv.endpoints(dv.renyi(Q, P, 2))
    with pytest.raises(ParameterError, match="alpha"):
        dv.renyi(Q, P, "two")
    for bad in (-0.1, float("nan"), math.inf):
        with pytest.raises(ValueError, match="eps"):
            dv.hockey_stick(Q, P, bad)
    with pytest.raises(ValueError, match="epsilons"):
        dv.delta_curve(Q, P, [])
    with pytest.raises(ValueError, match="epsilons"):
        dv.delta_curve(Q, P, [0.1, -1])
    for bad in (0, 1, 1.5, -0.1, float("nan")):
        with pytest.raises(ValueError, match="delta"):
            dv.epsilon_for_delta(Q, P, bad)
    with pytest.raises(ValueError, match="modulus"):
        dv.renyi(wrap(P, 7), wrap(P, 9), 2)
    with pytest.raises(ValueError, match="modulus"):
        dv.llr(wrap(P, 7), P)
    with pytest.raises(TypeError, match="P must be an ExactPMF"):
        dv.hockey_stick(DiscreteLaplace(3), P, 0.1)
    with pytest.raises(TypeError, match="Q must be an ExactPMF"):
        dv.renyi(P, [0.5, 0.5], 2)
    with pytest.raises(TypeError, match="noise"):
        dv.renyi_shift("laplace", 1, 2)
    with pytest.raises(ValueError, match="alphas"):
        dv.renyi_shift_curve(DiscreteLaplace(3), 1, [])
    with pytest.raises(ValueError, match="method"):
        dv.renyi_shift(DiscreteLaplace(3), 1, 2, method="fast")
    with pytest.raises(ValueError, match="sensitivity"):
        dv.renyi_shift(DiscreteLaplace(3), 1.5, 2)
    with pytest.raises(ValueError, match="m"):
        dv.renyi_shift(DiscreteLaplace(3), 1, 2, m=1)
    with pytest.raises(ValueError, match="alpha"):
        dv.renyi_float(Skellam(10), 1, 1)
