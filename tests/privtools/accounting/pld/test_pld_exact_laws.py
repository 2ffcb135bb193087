"""Laws read without a grid: sampled sparse laws composed in closed form, and one sampled
Gaussian in closed form — exact to Arb's radius, checked against independent oracles.

Properties:

* Poisson-sampled randomized response (rates down to 10⁻⁹, k up to 2 000) and the sampled
  discrete Laplace of sensitivity 2 (three loss atoms): δ(ε) contains the enumerated exact
  value (mpmath, 80 digits, the product pair summed outcome by outcome) with a relative
  width ≤ 1e-12, and ε(δ) is ≤ 1e-10 wide with the exact δ at its ends bracketing δ — where
  the grid once gave lower ends 0.5–4.2 % wide at q = 0.001.
* One sampled Gaussian release at rates down to 10⁻⁹: δ(ε) contains the closed form
  written in the output space (x* where γe^{(x−1/2)/σ²} + 1 − γ = e^ε), 1e-12 wide — where
  the grid once gave [0, 6.9e-6] against 2.2e-9.
* A ledger of a sampled sparse law repeated and another release (the grid composes them,
  the repeated law first in closed form) still contains the enumerated value.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import (
    DiscreteLaplaceEvent,
    GaussianEvent,
    PldAccountant,
    PureDPEvent,
)
from privtools.accounting.sampled_events import PoissonSampledEvent
from privtools.certified.intervals import ends

RATES = (Fraction(1, 10**9), Fraction(1, 1000), Fraction(1, 10), Fraction(1, 2))


@pytest.fixture(autouse=True)
def _eighty_digits():
    with mpmath.workdps(80):
        yield


def _m(x) -> mpmath.mpf:
    if isinstance(x, mpmath.mpf):
        return x
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _mixture(p, q, rate):
    g = _m(rate)
    return [g * a + (1 - g) * b for a, b in zip(p, q)], list(q)


def _product_delta(m, q, k, eps) -> mpmath.mpf:
    """Exact δ(ε) of k copies of the pair (m, q) on finitely many outputs, both directions,
    by enumerating the output counts."""
    e = mpmath.e ** _m(eps)
    best = mpmath.mpf(0)
    for a, b in ((m, q), (q, m)):
        total = mpmath.mpf(0)
        for ns in itertools.product(range(k + 1), repeat=len(a) - 1):
            last = k - sum(ns)
            if last < 0:
                continue
            counts = ns + (last,)
            coef = mpmath.factorial(k)
            pa = pb = mpmath.mpf(1)
            for n, x, y in zip(counts, a, b):
                coef /= mpmath.factorial(n)
                pa *= x ** n
                pb *= y ** n
            total += max(coef * (pa - e * pb), 0)
        best = max(best, total)
    return best


def _rr(eps0):
    e = mpmath.e ** _m(eps0)
    return [e / (1 + e), 1 / (1 + e)], [1 / (1 + e), e / (1 + e)]


def _dlap2(scale):
    """Lap_Z(scale) against its shift by 2, as the law of the loss's three values: x <= 0,
    x = 1, x >= 2 (the loss is +2/t, 0, −2/t there)."""
    r = mpmath.e ** (-1 / _m(scale))
    z = (1 + r) / (1 - r)
    low = (1 / (1 - r)) / z                 # P(x <= 0)
    one = r / z                             # P(x = 1)
    high = 1 - low - one                    # P(x >= 2)
    return [low, one, high], [high, one, low]


def _close(iv, x, rel):
    lo, hi = ends(iv)
    slack = mpmath.mpf(10) ** -60 * abs(x)
    return lo - slack <= x <= hi + slack and hi - lo <= rel * abs(x) + mpmath.mpf(10) ** -60


@settings(max_examples=25, deadline=None, derandomize=True)
@given(eps0=st.sampled_from((Fraction(1, 2), Fraction(1), Fraction(2))),
       rate=st.sampled_from(RATES), k=st.integers(1, 2000), where=st.integers(0, 10))
def test_sampled_randomized_response_is_exact(eps0, rate, k, where):
    m, q = _mixture(*_rr(eps0), rate)
    acc = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(PureDPEvent(eps0), rate), count=k)
    top = float(k * mpmath.log(1 + _m(rate) * (mpmath.e ** _m(eps0) - 1)))
    eps = Fraction(top * where / 10).limit_denominator(10**6)
    exact = _product_delta(m, q, k, eps)
    assert _close(acc.delta(eps).interval, exact, 1e-12), (eps0, rate, k, eps)


@settings(max_examples=12, deadline=None, derandomize=True)
@given(eps0=st.sampled_from((Fraction(1, 2), Fraction(2))),
       rate=st.sampled_from(RATES[1:]), k=st.integers(2, 1000),
       target=st.sampled_from((Fraction(1, 10**5), Fraction(1, 10**9))))
def test_sampled_randomized_response_epsilon_is_exact(eps0, rate, k, target):
    m, q = _mixture(*_rr(eps0), rate)
    acc = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(PureDPEvent(eps0), rate), count=k)
    lo, hi = ends(acc.epsilon(target).interval)
    assert hi - lo <= 1e-10 * hi
    if hi > 0:
        assert _product_delta(m, q, k, lo) >= _m(target) >= _product_delta(m, q, k, hi)


@settings(max_examples=8, deadline=None, derandomize=True)
@given(rate=st.sampled_from(RATES[1:]), k=st.integers(1, 60), where=st.integers(0, 8))
def test_sampled_discrete_laplace_of_three_atoms_is_exact(rate, k, where):
    m, q = _mixture(*_dlap2(3), rate)
    acc = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(DiscreteLaplaceEvent(scale=3, sensitivity=2), rate), count=k)
    eps = Fraction(where, 8) * k * Fraction(2, 3) * rate
    exact = _product_delta(m, q, k, eps)
    assert _close(acc.delta(eps).interval, exact, 1e-12)


def _sampled_gaussian_delta(sigma, rate, eps) -> mpmath.mpf:
    """δ(ε) of γN(1, σ²) + (1 − γ)N(0, σ²) against N(0, σ²) and back, in the output space:
    the likelihood ratio γe^{(x − 1/2)/σ²} + 1 − γ is increasing in x."""
    s, g, e = _m(sigma), _m(rate), mpmath.e ** _m(eps)
    phi = mpmath.ncdf
    x = s**2 * mpmath.log((e - 1 + g) / g) + mpmath.mpf(1) / 2       # M/Q = e^ε at x
    remove = g * phi((1 - x) / s) + (1 - g - e) * phi(-x / s)     # upper tails, no 1 − Φ
    add = mpmath.mpf(0)
    c = 1 - e * (1 - g)                                               # Q − e^ε M > 0 ...
    if c > 0:
        y = s**2 * mpmath.log(c / (g * e)) + mpmath.mpf(1) / 2        # ... below y
        add = phi(y / s) - e * (g * phi((y - 1) / s) + (1 - g) * phi(y / s))
    return max(remove, add, mpmath.mpf(0))


@pytest.mark.parametrize("rate", RATES)
@pytest.mark.parametrize("eps", (Fraction(0), Fraction(1, 10**8), Fraction(1, 100), Fraction(1)))
def test_one_sampled_gaussian_is_exact_at_any_rate(rate, eps):
    acc = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(GaussianEvent(sigma=1, sensitivity=1), rate))
    exact = _sampled_gaussian_delta(1, rate, eps)
    assert _close(acc.delta(eps).interval, exact, 1e-12), (rate, eps)


def test_a_repeated_sparse_law_beside_another_release_is_enclosed():
    rate, k = Fraction(1, 100), 60
    m, q = _mixture(*_rr(1), rate)
    acc = PldAccountant(neighbouring="add-remove").compose(
        PoissonSampledEvent(PureDPEvent(1), rate), count=k)
    acc.compose(PoissonSampledEvent(PureDPEvent(Fraction(1, 2)), rate))
    m2, q2 = _mixture(*_rr(Fraction(1, 2)), rate)
    # the product of the two: outputs (count of 1s among the k, the last output)
    for eps in (Fraction(0), Fraction(1, 10), Fraction(1, 4)):
        e = mpmath.e ** _m(eps)
        best = mpmath.mpf(0)
        for a, b, a2, b2 in ((m, q, m2, q2), (q, m, q2, m2)):
            total = mpmath.mpf(0)
            for j in range(k + 1):
                c = mpmath.binomial(k, j)
                for x in range(2):
                    pa = c * a[0] ** j * a[1] ** (k - j) * a2[x]
                    pb = c * b[0] ** j * b[1] ** (k - j) * b2[x]
                    total += max(pa - e * pb, 0)
            best = max(best, total)
        lo, hi = ends(acc.delta(eps).interval)
        assert lo <= best <= hi
