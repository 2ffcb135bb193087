"""f-DP and μ-GDP of a ledger: certified bands against exact trade-off functions.

Properties:

* a composed Gaussian ledger's μ-GDP interval contains √(Σ Δ²/σ²) exactly, and its β(α)
  band contains G_μ(α) = Φ(Φ⁻¹(1 − α) − μ) and is at most 2e-6 wide;
* randomized response at ε: the band contains f(α) = max(0, 1 − e^ε α, e^{−ε}(1 − α)), and
  the μ-GDP interval contains −2Φ⁻¹(1/(1 + e^ε)) (Dong, Roth and Su 2022: ε-DP ⇒ μ-GDP,
  tight for randomized response);
* generated pairs of small PMFs composed up to three times: the band contains the exact
  trade-off (Neyman–Pearson, the smaller of both orders, enumerated in mpmath) — a verifier
  tested against enumerated truth;
* α outside [0, 1] is refused by name.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import GaussianEvent, PldAccountant, PmfPairEvent, PureDPEvent
from privtools.certified.intervals import ends
from privtools.errors import ParameterError
from privtools.exact import ExactPMF

ALPHAS = st.sampled_from((Fraction(1, 10**4), Fraction(1, 100), Fraction(1, 10),
                          Fraction(1, 3), Fraction(1, 2), Fraction(9, 10)))


def _m(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _inside(iv, x) -> bool:
    lo, hi = ends(iv)
    return lo <= x <= hi


@settings(max_examples=10, deadline=None, derandomize=True)
@given(sigma=st.sampled_from((Fraction(1, 2), Fraction(1), Fraction(3))), k=st.integers(1, 50),
       alpha=ALPHAS)
def test_a_gaussian_ledger_is_mu_gdp_exactly(sigma, k, alpha):
    acc = PldAccountant().compose(GaussianEvent(sigma=sigma, sensitivity=1), count=k)
    lo, hi = ends(acc.gdp_mu().interval)
    mu2 = Fraction(k) / sigma**2
    with mpmath.workdps(60):
        assert lo**2 <= _m(mu2) <= hi**2 and hi - lo <= mpmath.mpf(10) ** -30
        mu = mpmath.sqrt(_m(mu2))
        exact = mpmath.ncdf(mpmath.sqrt(2) * mpmath.erfinv(1 - 2 * _m(alpha)) - mu)
    r = acc.tradeoff(alpha)
    a, b = ends(r.interval)
    assert a <= exact <= b and b - a <= 2e-6
    assert r.beta <= exact


@settings(max_examples=10, deadline=None, derandomize=True)
@given(eps=st.sampled_from((Fraction(1, 4), Fraction(1), Fraction(3))), alpha=ALPHAS)
def test_randomized_response_band_and_gdp(eps, alpha):
    acc = PldAccountant().compose(PureDPEvent(eps))
    with mpmath.workdps(40):
        e = mpmath.e ** _m(eps)
        exact = max(mpmath.mpf(0), 1 - e * _m(alpha), (1 - _m(alpha)) / e)
        assert _inside(acc.tradeoff(alpha).interval, exact)


@pytest.mark.parametrize("eps", (Fraction(1, 2), Fraction(1)))
def test_randomized_response_gdp_is_the_known_mu(eps):
    acc = PldAccountant().compose(PureDPEvent(eps))
    iv = acc.gdp_mu().interval
    with mpmath.workdps(40):
        e = mpmath.e ** _m(eps)
        mu = -2 * mpmath.sqrt(2) * mpmath.erfinv(2 / (1 + e) - 1)
    lo, hi = ends(iv)
    assert lo <= mu <= hi and hi - lo <= 1e-5 * hi


def _pmf(masses):
    balls = tuple(arb(m.numerator) / m.denominator for m in masses)
    return ExactPMF(0, balls, mpmath.mpf(0), 30, label="table")


def _np_tradeoff(p, q, alpha) -> mpmath.mpf:
    """T(P, Q)(α): the smallest 1 − E_Q φ over tests with E_P φ <= α, by Neyman–Pearson
    (outcomes in falling order of Q/P, the last one randomized)."""
    order = sorted(range(len(p)), key=lambda i: -(q[i] / p[i]) if p[i] > 0 else -mpmath.inf)
    budget, power = _m(alpha), mpmath.mpf(0)
    for i in order:
        if p[i] <= budget:
            budget -= p[i]
            power += q[i]
        else:
            power += q[i] * budget / p[i]
            break
    return max(mpmath.mpf(0), 1 - power)


def _norm(ws):
    s = sum(ws)
    return [Fraction(w, s) for w in ws]


@settings(max_examples=15, deadline=None, derandomize=True)
@given(data=st.data(), alpha=ALPHAS)
def test_generated_pairs_band_contains_the_exact_tradeoff(data, alpha):
    n_pairs = data.draw(st.integers(1, 3))
    pairs = []
    for _ in range(n_pairs):
        ws = data.draw(st.lists(st.integers(1, 20), min_size=2, max_size=3))
        p = _norm(ws)
        q = _norm(data.draw(st.lists(st.integers(1, 20), min_size=len(p), max_size=len(p))))
        pairs.append((p, q))
    acc = PldAccountant(max_points=2**12)
    for p, q in pairs:
        acc.compose(PmfPairEvent(_pmf(p), _pmf(q)))
    with mpmath.workdps(60):
        prod_p, prod_q = [], []
        for xs in itertools.product(*[range(len(p)) for p, _ in pairs]):
            a = b = mpmath.mpf(1)
            for (p, q), x in zip(pairs, xs):
                a, b = a * _m(p[x]), b * _m(q[x])
            prod_p.append(a)
            prod_q.append(b)
        exact = min(_np_tradeoff(prod_p, prod_q, alpha), _np_tradeoff(prod_q, prod_p, alpha))
        lo, hi = ends(acc.tradeoff(alpha).interval)
        slack = mpmath.mpf(10) ** -50          # the oracle's own rounding (60 digits)
        assert lo - slack <= exact <= hi + slack, (pairs, alpha)


def test_alpha_outside_the_unit_interval_is_refused_by_name():
    acc = PldAccountant().compose(PureDPEvent(1))
    for bad in (-0.1, 1.5):
        with pytest.raises(ParameterError, match="alpha"):
            acc.tradeoff(bad)
    with pytest.raises(ParameterError, match="nothing composed"):
        PldAccountant().gdp_mu()


@settings(max_examples=15, deadline=None, derandomize=True)
@given(mu=st.sampled_from((Fraction(0), Fraction(1, 3), Fraction(2), Fraction(7))),
       alpha=st.sampled_from((Fraction(0), Fraction(1, 10**9), Fraction(1, 10), Fraction(1, 2),
                              Fraction(1))))
def test_gdp_tradeoff_is_the_gaussian_curve(mu, alpha):
    from privtools.accounting import gdp_tradeoff
    with mpmath.workdps(80):
        if alpha in (0, 1):
            exact = mpmath.mpf(int(1 - alpha))
        else:
            z = -mpmath.sqrt(2) * mpmath.erfinv(2 * _m(alpha) - 1)     # Φ⁻¹(1 − α)
            exact = mpmath.ncdf(z - _m(mu))
        iv = gdp_tradeoff(mu, alpha)
        lo, hi = ends(iv)
        slack = mpmath.mpf(10) ** -60          # the oracle's own rounding
        assert lo - slack <= exact <= hi + slack and hi - lo <= mpmath.mpf(10) ** -30


@settings(max_examples=12, deadline=None, derandomize=True)
@given(eps=st.sampled_from((Fraction(1, 10), Fraction(1), Fraction(2))),
       delta=st.sampled_from((Fraction(0), Fraction(1, 10**6), Fraction(1, 100))),
       alpha=ALPHAS)
def test_an_approx_dp_ledger_has_the_approx_dp_tradeoff(eps, delta, alpha):
    from privtools.accounting import approx_dp_tradeoff
    from privtools.accounting.sampled_events import ApproxDPEvent
    f = approx_dp_tradeoff(eps, delta, alpha)
    with mpmath.workdps(50):
        e, d, a = mpmath.e ** _m(eps), _m(delta), _m(alpha)
        exact = max(mpmath.mpf(0), 1 - d - e * a, (1 - d - a) / e)
        lo, hi = ends(f)
        slack = mpmath.mpf(10) ** -45          # the oracle's own rounding (50 digits)
        assert lo - slack <= exact <= hi + slack and hi - lo <= mpmath.mpf(10) ** -30
    # the dominating pair of (ε, δ)-DP has exactly that trade-off (Kairouz, Oh, Viswanath)
    band = PldAccountant().compose(ApproxDPEvent(eps, delta)).tradeoff(alpha).interval
    lo, hi = ends(band)
    assert lo - slack <= exact <= hi + slack


def _delta_exact(pp, qq, eps) -> mpmath.mpf:
    e = mpmath.e ** eps
    return max(sum(max(a - e * b, 0) for a, b in zip(pp, qq)),
               sum(max(b - e * a, 0) for a, b in zip(pp, qq)))


def _gdp_delta(mu, eps) -> mpmath.mpf:
    return mpmath.ncdf(-eps / mu + mu / 2) - mpmath.e ** eps * mpmath.ncdf(-eps / mu - mu / 2)


@settings(max_examples=6, deadline=None, derandomize=True)
@given(data=st.data())
def test_generated_pairs_gdp_certificate_is_never_beaten(data):
    ws = data.draw(st.lists(st.integers(1, 20), min_size=2, max_size=3))
    p = _norm(ws)
    q = _norm(data.draw(st.lists(st.integers(1, 20), min_size=len(p), max_size=len(p))))
    acc = PldAccountant(max_points=2**12).compose(PmfPairEvent(_pmf(p), _pmf(q)))
    lo, hi = ends(acc.gdp_mu().interval)
    with mpmath.workdps(40):
        pp, qq = [_m(x) for x in p], [_m(x) for x in q]
        top = max(abs(mpmath.log(a / b)) for a, b in zip(pp, qq))
        grid = [top * i / 400 for i in range(401)]
        if mpmath.isfinite(hi):
            # the certified μ: no ε of a dense grid has δ(ε) above δ_μ(ε)
            assert all(_delta_exact(pp, qq, x) <= _gdp_delta(hi, x) + mpmath.mpf(10) ** -30
                       for x in grid)
        if lo > 0:
            # below the refuted end μ-GDP fails: some ε has δ(ε) above δ_{lo}(ε)
            below = lo * (1 - mpmath.mpf(10) ** -6)
            assert any(_delta_exact(pp, qq, x) > _gdp_delta(below, x) for x in grid + [top])
