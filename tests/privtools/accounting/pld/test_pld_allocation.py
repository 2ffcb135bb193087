"""Random allocation (each record in one of t Gaussian steps): the certified interval contains
the exact curve where it is known — one step is the Gaussian itself; two steps by quadrature
of the lognormal convolution (the inner expectation in closed form, as a call price) — and
the bad cases are refused by name."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest

from privtools import accounting as A
from privtools.certified.intervals import ends
from privtools.errors import UnsupportedEventError


@pytest.fixture(autouse=True)
def _forty_digits():
    with mpmath.workdps(40):
        yield


def _two_step_delta(sigma, eps) -> mpmath.mpf:
    """δ(ε) of random allocation over two Gaussian steps, both directions: with S = X₁ + X₂,
    X = e^ℓ, ℓ ~ N(−μ, 2μ): removing is E[(S − 2e^ε)_+]/2, adding is
    E[(1 − e^ε S/2)_+] = (e^ε/2)(K − 2 + E[(S − K)_+]) with K = 2e^{−ε}."""
    mu = 1 / (2 * mpmath.mpf(sigma) ** 2)
    m, sv = -mu, mpmath.sqrt(2 * mu)

    def call_one(a):                        # E[(X − a)_+]
        if a <= 0:
            return 1 - a
        la = mpmath.log(a)
        return mpmath.ncdf((m + sv ** 2 - la) / sv) - a * mpmath.ncdf((m - la) / sv)

    def call_two(c):                        # E[(X₁ + X₂ − c)_+]
        f = lambda ell: mpmath.npdf(ell, m, sv) * call_one(c - mpmath.exp(ell))  # noqa: E731
        return mpmath.quad(f, [-60, mpmath.log(c), 60])

    e = mpmath.e ** (mpmath.mpf(eps.numerator) / eps.denominator)
    k = 2 / e
    return max(call_two(2 * e) / 2, e / 2 * (k - 2 + call_two(k)))


@pytest.fixture(scope="module")
def two_steps():
    return A.PldAccountant(neighbouring="add-remove").compose(
        A.RandomAllocationEvent(A.GaussianEvent(sigma=2), steps=2))


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 4), Fraction(1, 2), Fraction(1)])
def test_two_steps_contain_the_quadrature(two_steps, eps):
    lo, hi = ends(two_steps.delta(eps).interval)
    exact = _two_step_delta(2, eps)
    slack = mpmath.mpf(10) ** -25 * exact           # the quadrature's own error
    assert lo - slack <= exact <= hi + slack
    assert hi - lo <= mpmath.mpf(10) ** -4 * exact


def test_one_step_is_the_gaussian():
    ra = A.PldAccountant(neighbouring="add-remove").compose(
        A.RandomAllocationEvent(A.GaussianEvent(sigma=2), steps=1))
    g = A.PldAccountant().compose(A.GaussianEvent(sigma=2))
    assert ra.epsilon(1e-6).interval == g.epsilon(1e-6).interval


def test_more_steps_amplify_and_the_interval_is_narrow():
    """t = 10: below the Gaussian's own ε and below Poisson sampling at q = 1/t over the
    same steps (whose upper end is certified too), with a narrow interval."""
    g = A.GaussianEvent(sigma=1)
    ra = A.PldAccountant(neighbouring="add-remove").compose(
        A.RandomAllocationEvent(g, steps=10)).epsilon(1e-5)
    alone = A.PldAccountant().compose(g).epsilon(1e-5)
    poisson = A.PldAccountant(max_points=2**14, neighbouring="add-remove").compose(
        A.PoissonSampledEvent(g, Fraction(1, 10)), 10).epsilon(1e-5)
    assert ra.epsilon < ends(poisson.interval)[0] < alone.epsilon
    assert ra.relative_width <= 1e-4


@pytest.mark.parametrize("event", [
    A.RandomAllocationEvent(A.LaplaceEvent(b=1), steps=10),
    A.RandomAllocationEvent(A.GaussianEvent(sigma=1), steps=10, allocations=2),
], ids=["laplace", "two-allocations"])
def test_what_is_not_read_is_refused_with_the_sound_fallback(event):
    with pytest.raises(UnsupportedEventError, match="composed `allocations` times"):
        A.PldAccountant(neighbouring="add-remove").compose(event)
