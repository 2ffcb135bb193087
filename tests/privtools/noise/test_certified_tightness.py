"""Certified bounds are valid *and* tight (the *conservative* and *tolerance* survivors of
docs/tables/mutation.md): each bound is checked against the exact quantity, computed
independently (mpmath at 200+ bits, exact rationals), from both sides.

* tail bounds of N_Z: within 2 % of the exact tail beyond 4σ², where the geometric
  majorant's ratio e^{−(2d+1)/(2σ²)} is at most e^{−4};
* the Skellam shift-ratio bound (Amos's Bessel-ratio bounds): within 10 % of the exact
  supremum of R(y)/R(y + d);
* the Pólya-difference convolution balls: radius at most 2^-(prec−8) of p(k) at every
  working precision (their cut-off remainder is below 2^-(prec+10));
* the Lap_Z sampler table (PolyaDifference with r = 1): the closed form, to float accuracy;
* the wide discrete-Gaussian sampler: its certified acceptance probability is within a factor
  2 of the exact one, and its TV certificate is the module doc's 1.5η/(A − η) with that A,
  above the exact TV of the law it samples;
* the Skellam rejection constant M: within 2^-38 of the exact maximum of p/q.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest

from privtools.certified import balls
from privtools.noise import DiscreteGaussian, PolyaDifference, Skellam
from privtools.noise._samplers.fixed import GaussianRejectionSampler, LogConcaveRejectionSampler

WP = 300


def _mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


# ------------------------------------------------------------------ N_Z tail bounds
def _gauss_two_sided_tail(sigma2, t: int) -> mpmath.mpf:
    """P(|X − μ| > t) for N_Z(μ, σ²): 2 Σ_{x>t} e^{−x²/(2σ²)} / ϑ₃(0, e^{−1/(2σ²)})."""
    s2 = _mp(sigma2)
    q = mpmath.exp(-1 / (2 * s2))
    total, x = mpmath.mpf(0), t + 1
    while True:
        term = mpmath.exp(-mpmath.mpf(x * x) / (2 * s2))
        total += term
        if term < total * mpmath.mpf(2) ** -(WP + 10):
            break
        x += 1
    return 2 * total / mpmath.jtheta(3, 0, q)


@pytest.mark.parametrize("sigma2", ["1/2", 3, "50", "7/4"])
@pytest.mark.parametrize("mu", [0, 5])
def test_gaussian_tail_bound_is_an_upper_bound_and_tight_beyond_4_sigma2(sigma2, mu):
    """tail_bound(μ − t, μ + t) >= P(|X − μ| > t) for every t >= 0, and beyond t = 4σ² it is
    at most 1.02 times it (ratio bound e^{−(2d+1)/(2σ²)} <= e^{−4}: 1/(1 − e^{−4}) < 1.02)."""
    law = DiscreteGaussian(sigma2=sigma2, mu=mu)
    far = int(4 * Fraction(sigma2)) + 1
    for t in (0, 1, 3, far, far + 2, far + 9):
        bound = law.tail_bound(mu - t, mu + t, dps=30)
        with mpmath.workprec(WP):
            exact = _gauss_two_sided_tail(sigma2, t)
            assert exact <= bound
            if t >= far:
                assert bound <= exact * mpmath.mpf("1.02")


# ------------------------------------------------------------ Skellam shift ratio bound
@pytest.mark.parametrize("var", ["1/2", 3, 10, 50])
def test_skellam_shift_ratio_bound_is_within_10_percent_of_the_exact_supremum(var):
    """sup_{y >= Y} R(y)/R(y + d), R(y) = I_{ν+1}(v)/I_ν(v) (ν = y − μ) from mpmath's
    Bessel functions, lies in the ball and its upper end is at most 1.1 times it, for
    ν = Y − μ >= 1 (the supremum is taken over y <= Y + 100 and the limit 1)."""
    mu = 2
    law = Skellam(var, mu)
    with mpmath.workprec(200):
        x = _mp(var)
        bessel = [mpmath.besseli(nu, x) for nu in range(0, 132)]
        ratio = [bessel[nu + 1] / bessel[nu] for nu in range(0, 131)]
        for nu in (1, 2, 5, 20):
            for d in (1, 3):
                sup = max([mpmath.mpf(1)] + [ratio[y] / ratio[y + d]
                                             for y in range(nu, nu + 101)])
                with balls.precision(200):
                    ball = law.shift_ratio_bound(mu + nu, d)
                assert balls.lower_mpf(ball) >= sup
                assert balls.upper_mpf(ball) <= sup * mpmath.mpf("1.1"), (nu, d)


# -------------------------------------------------------- Pólya-difference convolution
@pytest.mark.parametrize(("r", "beta"), [("1/2", Fraction(1, 2**40)), (2, Fraction(1, 2**40)),
                                         (1, Fraction(1, 2**40)), ("1/2", Fraction(1, 3))])
def test_polya_difference_convolution_balls_are_tight_at_every_precision(r, beta):
    """pmf_balls (the convolution Σ_j nb(k + j) nb(j) cut at J, remainder added) contain
    the ₂F₁ closed form (1 − β)^{2r} β^k (r)_k/k! ₂F₁(r, k + r; k + 1; β²) at 2·prec bits,
    with radius at most 2^-(prec−8) of p(k). Small β: the cut J is then tuned to the
    precision, so the remainder is near its 2^-(prec+10) target at some precisions."""
    law = PolyaDifference(r, beta)
    for prec in range(1290, 1380, 10):
        got = law.pmf_balls(-3, 3, prec)
        with mpmath.workprec(2 * prec):
            b, rr = _mp(beta), _mp(r)
            for k, ball in zip(range(-3, 4), got):
                k = abs(k)
                exact = ((1 - b) ** (2 * rr) * b**k * mpmath.rf(rr, k) / mpmath.factorial(k)
                         * mpmath.hyp2f1(rr, k + rr, k + 1, b * b))
                lo, hi = balls.lower_mpf(ball), balls.upper_mpf(ball)
                assert lo <= exact <= hi
                assert (hi - lo) / 2 <= exact * mpmath.mpf(2) ** -(prec - 8), (prec, k)


@pytest.mark.parametrize("scale", [100, 1000])
@pytest.mark.parametrize(("lo", "hi"), [(-300, 2500), (5, 4000)])
def test_laplace_table_of_polya_difference_r_1_is_the_closed_form(scale, lo, hi):
    """PolyaDifference(1, e^{−1/b}) is exactly Lap_Z(b) (Theorem 5's central noise): its
    sampler table is log((1 − β)/(1 + β)) + |k| log β to float accuracy (1e-14 relative),
    not a long recurrence (whose error grows like (hi − lo)·eps/(1 − β²))."""
    law = PolyaDifference(1, scale=scale)
    got = law._table_logpmf(lo, hi)
    with mpmath.workprec(200):
        beta = mpmath.exp(-1 / _mp(scale))
        head, step = mpmath.log((1 - beta) / (1 + beta)), mpmath.log(beta)
        exact = np.array([float(head + abs(k) * step) for k in range(lo, hi + 1)])
    assert np.max(np.abs(got - exact) / np.abs(exact)) <= 1e-14


# ------------------------------------------------------- wide discrete-Gaussian sampler
def _exact_acceptance(sampler, sigma2) -> mpmath.mpf:
    """A = Σ_y Lap_Z(t)(y) e^{−(|y| − σ²/t)²/(2σ²)} (CKS20 Algorithm 3), |y| <= 400t."""
    t, s2 = sampler.t, _mp(sigma2)
    c = s2 / t
    lap = mpmath.tanh(mpmath.mpf(1) / (2 * t))
    total = mpmath.mpf(0)
    for y in range(0, 400 * t + 1):
        term = lap * mpmath.exp(-mpmath.mpf(y) / t - (y - c) ** 2 / (2 * s2))
        total += term if y == 0 else 2 * term
    return total


@pytest.mark.parametrize("sigma2", [10, 17, 50, 100])
def test_gaussian_rejection_acceptance_bound_is_within_a_factor_2(sigma2):
    """The certified lower bound on the acceptance probability lies in [A/2, A] (A exact),
    and the TV certificate is at most the module doc's 1.5η/(A − η) with A replaced by A/2
    (η the proposal's certified TV)."""
    s = GaussianRejectionSampler(Fraction(sigma2))
    a_lo = s._acceptance_lower()
    eta = s.proposal.tv
    with mpmath.workprec(200):
        A = _exact_acceptance(s, sigma2)
        assert A / 2 <= _mp(a_lo) <= A
        assert _mp(s.tv) <= _mp(Fraction(3, 2) * eta) / (A / 2 - _mp(eta))


def test_gaussian_rejection_tv_certificate_bounds_the_exact_tv():
    """The law the sampler draws: proposal Y = G₁ − G₂ with G from its digit tables (exact
    integer weights / 2^64; the top digit is 0 with probability 1 here), accepted with the
    exact a(y); its TV from N_Z(0, 10) (computed at 200 bits) is at most the certificate."""
    sigma2 = 10
    s = GaussianRejectionSampler(Fraction(sigma2))
    geo = s.proposal.geometric
    assert [tb.weights() for tb in geo.tables[1:]] == [[2**64, 0]] * geo.levels
    w = geo.tables[0].weights()
    n = len(w)
    with mpmath.workprec(200):
        s2, c = _mp(sigma2), _mp(Fraction(sigma2, s.t))
        out = {}
        for y in range(-(n - 1), n):
            q = sum(w[g + y] * w[g] for g in range(max(0, -y), min(n, n - y)))
            out[y] = q * mpmath.exp(-(abs(y) - c) ** 2 / (2 * s2))
        norm = mpmath.fsum(out.values())
        z = mpmath.jtheta(3, 0, mpmath.exp(-1 / (2 * s2)))
        diff = mpmath.fsum(abs(v / norm - mpmath.exp(-y * y / (2 * s2)) / z)
                           for y, v in out.items())
        beyond = 2 * mpmath.fsum(mpmath.exp(-mpmath.mpf(y * y) / (2 * s2)) / z
                                 for y in range(n, n + 100))
        tv = (diff + beyond) / 2
        assert 0 < tv <= _mp(s.tv)


# ------------------------------------------------------------- Skellam rejection constant
@pytest.mark.parametrize("var", [5000, 16641])
def test_skellam_rejection_constant_is_the_maximum_of_p_over_q(var):
    """M >= max_x p(c + x)/q(x) (p Skellam, q the Lap_Z(t) proposal) and M <= that maximum
    times 1 + 2^-38 (M rounds it up by 2^-40 relative and to a multiple of 2^-40)."""
    law = Skellam(var)
    s = LogConcaveRejectionSampler(law)
    t = s.t
    with mpmath.workprec(200):
        v = _mp(var)
        lap = mpmath.tanh(mpmath.mpf(1) / (2 * t))

        def g(x):
            return mpmath.besseli(x, v) * mpmath.exp(-v + mpmath.mpf(x) / t) / lap

        x0 = int(var // t)  # g is log-concave with its maximum near v/t
        while g(x0 + 1) > g(x0):
            x0 += 1
        while x0 > 0 and g(x0 - 1) > g(x0):
            x0 -= 1
        top = g(x0)
        assert top <= _mp(s.M) <= top * (1 + mpmath.mpf(2) ** -38)
