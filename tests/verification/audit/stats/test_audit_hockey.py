"""The hockey-stick test of (ε, δ) claims: exact e-values, validity under every null law,
an inversion that only reports rejected values, and power on mis-calibrated Gaussians."""

import itertools
import math
from functools import partial

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given, settings
from hypothesis import strategies as hst

from verification.audit import audit_mechanism
from verification.audit.stats import hockey


def _brute_log_e(kp, kq, n, lams, eps, delta):
    """The average over all pairings (every arrangement of the other side's hits) and
    over the bets of ∏(1 + λ Z_i), by enumeration."""
    x = [1] * kp + [0] * (n - kp)
    total, count = 0.0, 0
    for pos in itertools.combinations(range(n), kq):
        y = [0] * n
        for i in pos:
            y[i] = 1
        for lam in lams:
            total += math.prod(1 + lam * (xi - math.exp(eps) * yi - delta)
                               for xi, yi in zip(x, y))
        count += len(lams)
    return math.log(total / count)


@given(n=hst.integers(1, 7), data=hst.data(), eps=hst.floats(0, 2),
       delta=hst.sampled_from([0.0, 1e-3, 0.2]))
@settings(max_examples=60, deadline=None)
def test_e_value_is_the_average_over_pairings_and_bets(n, data, eps, delta):
    kp = data.draw(hst.integers(0, n))
    kq = data.draw(hst.integers(0, n))
    cap = hockey.LAMBDA_CAP / (math.exp(eps) + delta)
    lams = [cap, cap / 3]
    got = hockey.log_e_value(kp, kq, n, lams, eps, delta)
    assert got == pytest.approx(_brute_log_e(kp, kq, n, lams, eps, delta), abs=1e-9)


@given(eps=hst.floats(0, 2), delta=hst.floats(0, 0.3), q=hst.floats(0, 1),
       frac=hst.floats(0, 1), n=hst.integers(1, 40))
@settings(max_examples=80, deadline=None)
def test_e_value_has_expectation_at_most_one_under_every_null_law(eps, delta, q, frac, n):
    # any (p, q) with p ≤ e^ε q + δ; E[K] summed exactly over both binomials
    p = frac * min(1.0, math.exp(eps) * q + delta)
    lams = hockey.bets(3, 1, 10, eps, delta)
    k = np.arange(n + 1)
    wp, wq = st.binom.pmf(k, n, p), st.binom.pmf(k, n, q)
    mean = sum(wp[a] * wq[b] * math.exp(hockey.log_e_value(a, b, n, lams, eps, delta))
               for a in range(n + 1) for b in range(n + 1) if wp[a] * wq[b] > 0)
    assert mean <= 1 + 1e-9


@given(kp=hst.integers(0, 3000), kq=hst.integers(0, 3000), eps=hst.floats(0.05, 2),
       delta=hst.sampled_from([1e-6, 1e-3, 0.05]))
@settings(max_examples=40, deadline=None)
def test_the_bound_only_reports_rejected_values(kp, kq, eps, delta):
    n = 3000
    alpha = 0.01
    lams = hockey.bets(kp, kq, n, eps, delta)
    bound = hockey.hockey_stick_bound(kp, kq, n, lams, eps, delta, alpha)
    threshold = math.log(1 / alpha)
    at_claim = hockey.log_e_value(kp, kq, n, lams, eps, delta) >= threshold
    assert (bound >= eps) == at_claim or (bound == eps == 0)
    e = math.exp(eps)
    for t in np.linspace(0, bound, 7)[1:-1] if bound > 0 else ():
        lam_t = lams if t <= eps else lams * (e + delta) / (math.exp(t) + delta)
        assert hockey.log_e_value(kp, kq, n, lam_t, t, delta) >= threshold - 1e-9


@given(p=hst.floats(1e-4, 0.5), ratio=hst.floats(1.0, 20.0), n=hst.integers(100, 10**7),
       delta=hst.sampled_from([1e-8, 1e-5, 1e-3]))
def test_the_projection_solves_its_quadratic(p, ratio, n, delta):
    q = p / ratio
    alpha = 0.01
    got = float(hockey.projected_hockey_stick(p, q, n, alpha, delta))
    if got == -math.inf:
        # even ε' = 0 is out of reach: n H(0)² < 2 log(1/α) Var Z(0)
        h0 = p - q - delta
        assert h0 <= 0 or n * h0 ** 2 <= 2 * math.log(1 / alpha) * (p * (1 - p) + q * (1 - q)) \
            * (1 + 1e-9)
        return
    x = math.exp(got)
    h = p - delta - x * q
    var = p * (1 - p) + x * x * q * (1 - q)
    assert h >= -1e-12
    assert n * h * h == pytest.approx(2 * math.log(1 / alpha) * var, rel=1e-6, abs=1e-12)


@given(p=hst.floats(1e-4, 0.5), q=hst.floats(1e-5, 0.5), eps=hst.floats(0, 2))
def test_kelly_fraction_is_growth_optimal(p, q, eps):
    delta = 1e-5
    cap = hockey.LAMBDA_CAP / (math.exp(eps) + delta)
    lam = hockey.kelly_fraction(p, q, eps, delta, cap)
    e = math.exp(eps)
    z = np.array([1 - delta, -e - delta, 1 - e - delta, -delta])
    w = np.array([p * (1 - q), (1 - p) * q, p * q, (1 - p) * (1 - q)])

    def growth(x):
        return float(w @ np.log1p(x * z))

    assert 0 <= lam <= cap
    for other in np.linspace(0, cap, 9):
        assert growth(lam) >= growth(other) - 1e-12
    lam2, g = hockey.kelly_growth(p, q, eps, delta, cap)
    assert lam2 == lam and g == pytest.approx(growth(lam), abs=1e-15)
    assert g >= 0 and (g > 0) == (float(w @ z) > 0 and lam > 0)


# ----------------------------------------------------------------- the audit
def _gauss(dataset, size, rng, *, sigma):
    return float(sum(dataset)) + rng.normal(0.0, sigma, size)


SIGMA_1 = 3.730631634815945    # the analytic Gaussian's σ for (1, 1e-5) at sensitivity 1


def test_a_gaussian_with_half_the_sensitivity_fails_at_a_hundred_thousand_draws():
    # σ for sensitivity 1/2: true ε(1e-5) = 2.155 against the claim 1
    r = audit_mechanism(partial(_gauss, sigma=SIGMA_1 / 2), [1], [0], 1.0, 100_000, rng=3,
                        delta=1e-5, learners=())
    assert r.verdict == "fail"
    assert 1.0 <= r.epsilon_lower <= 2.155
    assert r.p_value <= 0.01
    assert r.counts["log_e_value"] >= math.log(100)


@pytest.mark.parametrize("seed", range(3))
def test_the_correct_gaussian_passes(seed):
    r = audit_mechanism(partial(_gauss, sigma=SIGMA_1), [1], [0], 1.0, 20_000, rng=seed,
                        delta=1e-5, learners=())
    assert r.verdict == "pass"
    assert r.epsilon_lower <= 1.0
    assert r.selection["bets"]


@given(kp=hst.integers(0, 5000), kq=hst.integers(0, 5000), n=hst.integers(5000, 10**5),
       n_test=hst.integers(100, 10**7), eps=hst.floats(0.01, 3),
       delta=hst.sampled_from([1e-8, 1e-5, 1e-3]))
@settings(max_examples=200, deadline=None)
def test_bets_sized_at_the_projected_truth_stay_valid_at_the_claim(kp, kq, n, n_test, eps,
                                                                   delta):
    """Every bet, the ones sized where the bound is projected to land included, is positive
    and keeps 1 + λZ > 0 up to the claim (λ < 1/(e^ε + δ)): the e-value stays a
    supermartingale under every null law, whatever the selection counts."""
    lams = hockey.bets(kp, kq, n, eps, delta, n_test, 0.01)
    assert np.all(lams > 0)
    assert np.all(lams <= hockey.LAMBDA_CAP / (math.exp(eps) + delta) * (1 + 1e-12))
    base = hockey.bets(kp, kq, n, eps, delta)
    assert np.array_equal(lams[:base.size], base) and lams.size in (base.size, base.size + 2)


@given(eps=hst.floats(0, 2), delta=hst.floats(0, 0.3), q=hst.floats(0, 1),
       frac=hst.floats(0, 1), n=hst.integers(1, 40), sel=hst.integers(0, 60))
@settings(max_examples=60, deadline=None)
def test_projected_bets_keep_the_e_value_below_one_under_every_null_law(eps, delta, q, frac,
                                                                        n, sel):
    p = frac * min(1.0, math.exp(eps) * q + delta)
    lams = hockey.bets(60, sel, 60, eps, delta, 10**6, 0.01)
    k = np.arange(n + 1)
    wp, wq = st.binom.pmf(k, n, p), st.binom.pmf(k, n, q)
    mean = sum(wp[a] * wq[b] * math.exp(hockey.log_e_value(a, b, n, lams, eps, delta))
               for a in range(n + 1) for b in range(n + 1) if wp[a] * wq[b] > 0)
    assert mean <= 1 + 1e-9


def test_bets_at_the_projected_truth_lift_the_bound_toward_it():
    """The same test counts give a larger ε_lower with the bets sized where the bound is
    projected to land than with the claim's bets alone: a tail event of ratio e^1.1 and
    rate 0.05 tested on 18 000 draws (claim (1, 1e-5)), and a rarer one of ratio e^1.6."""
    delta = 1e-5
    for p, ratio, gain in ((0.05, 1.1, 0.05), (0.002, 1.6, 0.2)):
        q = p * math.exp(-ratio)
        n_sel, n_test = 2000, 18_000
        sel = (round(p * n_sel), round(q * n_sel))
        kp, kq = round(p * n_test), round(q * n_test)
        old = hockey.hockey_stick_bound(kp, kq, n_test, hockey.bets(*sel, n_sel, 1.0, delta),
                                        1.0, delta, 0.01)
        lams = hockey.bets(*sel, n_sel, 1.0, delta, n_test, 0.01)
        new = hockey.hockey_stick_bound(kp, kq, n_test, lams, 1.0, delta, 0.01)
        assert old + gain < new < ratio
