"""Random allocation (each record in one of t steps): the certified interval contains the
exact curve where it is known — one step is the inner release itself; two Gaussian steps by
quadrature of the lognormal convolution (the inner expectation in closed form, as a call
price); randomized response and the discrete Laplace at any t by enumerating the binomial
counts of X = e^ℓ (and two epochs by enumerating pairs); two Laplace steps by quadrature
over one step with the other in closed form — and the bad cases are refused by name."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

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
    A.RandomAllocationEvent(A.ApproxDPEvent(Fraction(1, 2), Fraction(1, 10**6)), steps=10),
    A.RandomAllocationEvent(A.ModularEvent(A.DiscreteLaplaceEvent(scale=2), 16), steps=10,
                            allocations=2),
], ids=["approx-dp", "modular-two-allocations"])
def test_what_is_not_read_is_refused_with_the_sound_fallback(event):
    with pytest.raises(UnsupportedEventError, match="composed `allocations` times"):
        A.PldAccountant(neighbouring="add-remove").compose(event)


def _atoms_delta(xs, qs, t: int, eps, epochs: int = 1) -> mpmath.mpf:
    """Exact δ(ε) of random allocation of a law whose ratio X takes the values ``xs`` with
    Q-masses ``qs`` over t steps, both directions, ``epochs`` runs: S = Σ n_a x_a over the
    binomial counts (two values), P = (S/t)·Q; the epochs' product by enumeration."""
    e = mpmath.e ** (eps if isinstance(eps, mpmath.mpf) else
                     mpmath.mpf(eps.numerator) / eps.denominator)
    law = []
    for n in range(t + 1):
        q = mpmath.binomial(t, n) * qs[0] ** n * qs[1] ** (t - n)
        law.append(((n * xs[0] + (t - n) * xs[1]) / t * q, q))
    if epochs == 2:
        law = [(p1 * p2, q1 * q2) for p1, q1 in law for p2, q2 in law]
    fwd = sum(max(p - e * q, 0) for p, q in law)
    rev = sum(max(q - e * p, 0) for p, q in law)
    return max(fwd, rev)


def _rr_x(eps0: Fraction):
    """Randomized response at ε₀ (and the discrete Laplace at Δ = 1, loss ±1/b): X = e^{±ε₀}
    with Q-masses 1/(1 + e^ε₀) and e^ε₀/(1 + e^ε₀)."""
    e = mpmath.e ** (mpmath.mpf(eps0.numerator) / eps0.denominator)
    return (e, 1 / e), (1 / (1 + e), e / (1 + e))


@settings(max_examples=20, deadline=None)
@given(eps0=st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(2)]),
       t=st.integers(1, 60), epochs=st.sampled_from([1, 2]),
       eps=st.sampled_from([Fraction(0), Fraction(1, 8), Fraction(1, 2), Fraction(1)]))
def test_randomized_response_allocation_is_exact(eps0, t, epochs, eps):
    t = min(t, 12) if epochs == 2 else t
    acc = A.PldAccountant(neighbouring="add-remove").compose(
        A.RandomAllocationEvent(A.PureDPEvent(eps0), steps=t), count=epochs)
    xs, qs = _rr_x(eps0)
    exact = _atoms_delta(xs, qs, t, eps, epochs)
    lo, hi = ends(acc.delta(eps).interval)
    slack = mpmath.mpf(10) ** -30
    assert lo - slack <= exact <= hi + slack
    if epochs == 1:                              # read without a grid: both ends agree
        assert hi - lo <= slack + mpmath.mpf(10) ** -30 * exact


@settings(max_examples=8, deadline=None)
@given(b=st.sampled_from([Fraction(1, 2), Fraction(2)]), t=st.integers(2, 200))
def test_discrete_laplace_allocation_is_exact(b, t):
    acc = A.PldAccountant(neighbouring="add-remove").compose(
        A.RandomAllocationEvent(A.DiscreteLaplaceEvent(scale=b, sensitivity=1), steps=t))
    xs, qs = _rr_x(1 / b)
    eps = Fraction(1, 4)
    exact = _atoms_delta(xs, qs, t, eps)
    lo, hi = ends(acc.delta(eps).interval)
    assert lo - mpmath.mpf(10) ** -30 <= exact <= hi + mpmath.mpf(10) ** -30


def _laplace_two_step_delta(a: Fraction, eps: Fraction) -> mpmath.mpf:
    """δ(ε) of random allocation of Laplace (loss scale a = Δ/b) over two steps, both
    directions. Under Q the loss ℓ has atoms at −a (mass 1/2) and +a (mass e^{−a}/2) and
    density e^{−(a+ℓ)/2}/4 between; X = e^ℓ. The second step is integrated in closed form
    (∫ (c₁e^ℓ + c₀)_+ e^{−ℓ/2} dℓ over an interval), the first by quadrature."""
    a = mpmath.mpf(a.numerator) / a.denominator
    e = mpmath.e ** (mpmath.mpf(eps.numerator) / eps.denominator)

    def inner(c1, c0):                   # E over ℓ₂ of (c1·X₂ + c0)_+
        def lin(x):
            return max(c1 * x + c0, 0)
        total = lin(mpmath.e ** -a) / 2 + lin(mpmath.e ** a) * mpmath.e ** -a / 2
        # continuous part: ∫_{−a}^{a} (c1 e^ℓ + c0)_+ e^{−(a+ℓ)/2}/4 dℓ, cut where it is 0
        lo, hi = -a, a
        if c1 != 0:
            root = -c0 / c1
            if root > 0:
                cut = mpmath.log(root)
                if c1 > 0:
                    lo = max(lo, cut)
                else:
                    hi = min(hi, cut)
            elif c1 < 0:
                return total
        elif c0 <= 0:
            return total
        if lo >= hi:
            return total
        k = mpmath.e ** (-a / 2) / 4
        part = k * (2 * c1 * (mpmath.e ** (hi / 2) - mpmath.e ** (lo / 2))
                    - 2 * c0 * (mpmath.e ** (-hi / 2) - mpmath.e ** (-lo / 2)))
        return total + part

    def both(x1):
        # removing: E[(S/2 − e^ε)_+]; adding: E[(1 − e^ε S/2)_+], S = x1 + X₂
        return (inner(mpmath.mpf(1) / 2, x1 / 2 - e), inner(-e / 2, 1 - e * x1 / 2))

    def expect(which):
        atoms = both(mpmath.e ** -a)[which] / 2 + \
            both(mpmath.e ** a)[which] * mpmath.e ** -a / 2
        dens = mpmath.quad(lambda ell: both(mpmath.e ** ell)[which]
                           * mpmath.e ** (-(a + ell) / 2) / 4,
                           mpmath.linspace(-a, a, 9))
        return atoms + dens
    return max(expect(0), expect(1))


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 8), Fraction(1, 4)])
def test_two_laplace_steps_contain_the_quadrature(eps):
    acc = A.PldAccountant(neighbouring="add-remove").compose(
        A.RandomAllocationEvent(A.LaplaceEvent(b=2), steps=2))
    exact = _laplace_two_step_delta(Fraction(1, 2), eps)
    lo, hi = ends(acc.delta(eps).interval)
    slack = mpmath.mpf(10) ** -20
    assert lo - slack <= exact <= hi + slack
    assert hi - lo <= mpmath.mpf(10) ** -2 * exact


def test_allocation_never_certifies_less_than_one_release_can_leak():
    """The allocated record takes part in one step: ε is at most the inner release's own,
    so a certified lower end above that would be false."""
    for inner in (A.LaplaceEvent(b=1), A.PureDPEvent(1),
                  A.DiscreteLaplaceEvent(scale=2, sensitivity=1)):
        once = A.PldAccountant().compose(inner).epsilon(1e-6)
        for t in (2, 30):
            ra = A.PldAccountant(neighbouring="add-remove").compose(
                A.RandomAllocationEvent(inner, steps=t)).epsilon(1e-6)
            assert ends(ra.interval)[0] <= once.epsilon
