"""Sampled and (ε, δ) releases in the certified PLD accountant: the interval contains the
exact value wherever one is known (enumeration of small compositions in mpmath at 60
digits; the subsampled Gaussian's closed forms), and bad input is refused by name."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools import accounting as A
from privtools.certified.intervals import ends
from privtools.errors import ParameterError
from tests.oracles import sampled_rr_pair, two_point_delta


@pytest.fixture(autouse=True)
def _eighty_digits():
    with mpmath.workdps(80):
        yield


SLACK = mpmath.mpf(10) ** -60     # the oracle's own rounding (80 digits), relative


def SMALL(neighbouring: str = "add-remove") -> A.PldAccountant:
    """A coarse grid: containment holds at any grid, and enumeration checks need no width
    (add/remove, Poisson sampling's relation, unless told)."""
    return A.PldAccountant(max_points=2**12, neighbouring=neighbouring)


def _m(x) -> mpmath.mpf:
    """An exact rational as an mpf at the working precision."""
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _contains(iv, x) -> bool:
    lo, hi = ends(iv)
    return lo - SLACK * abs(x) <= x <= hi + SLACK * abs(x)


@settings(max_examples=12, deadline=None)
@given(eps0=st.sampled_from([Fraction(1, 2), Fraction(1), Fraction(2)]),
       rate=st.sampled_from([Fraction(1, 100), Fraction(1, 10), Fraction(1, 2)]),
       k=st.integers(1, 25), eps=st.sampled_from([Fraction(0), Fraction(1, 4), Fraction(1)]))
def test_poisson_sampled_randomized_response_contains_the_enumerated_delta(eps0, rate, k, eps):
    mix, q = sampled_rr_pair(eps0, rate)
    exact = max(two_point_delta(mix, q, k, eps), two_point_delta(q, mix, k, eps))
    acc = SMALL().compose(A.PoissonSampledEvent(A.PureDPEvent(eps0), q=rate), k)
    assert _contains(acc.delta(eps).interval, exact)


@settings(max_examples=6, deadline=None)
@given(k=st.integers(1, 20), delta=st.sampled_from([Fraction(1, 10**3), Fraction(1, 10**6)]))
def test_sampling_without_replacement_uses_the_mixture_at_batch_over_population(k, delta):
    """γ = 10/100: the same two-point mixture as Poisson at q = 1/10; the ε(δ) interval
    brackets the exact ε found by bisection on the enumerated δ(ε)."""
    mix, q = sampled_rr_pair(1, Fraction(1, 10))

    def d(e):
        return max(two_point_delta(mix, q, k, e), two_point_delta(q, mix, k, e))
    acc = SMALL("replace-one").compose(
        A.SampledWithoutReplacementEvent(A.PureDPEvent(1), batch=10, population=100), k)
    lo, hi = ends(acc.epsilon(delta).interval)
    target = _m(delta)
    assert d(hi) <= target * (1 + SLACK)
    assert lo == 0 or d(lo) >= target * (1 - SLACK)


def _phi(x):
    return mpmath.ncdf(x)


def _gaussian_sampled_directions(sigma, rate, eps):
    """(remove, add) δ(ε) of the Poisson-subsampled Gaussian (Δ = 1), closed form: the
    inner loss ℓ is N(μ, 2μ) under P and N(−μ, 2μ) under Q, μ = 1/(2σ²)."""
    mu = 1 / (2 * _m(sigma) ** 2)
    s = mpmath.sqrt(2 * mu)
    g = _m(rate)
    e = mpmath.e ** _m(eps)
    # remove: q·H_{e^ε'}(P‖Q), e^ε' = 1 + (e^ε − 1)/q
    ep = 1 + (e - 1) / g
    t = mpmath.log(ep)
    remove = g * (_phi((mu - t) / s) - ep * _phi((-mu - t) / s))
    # add: E_Q[(1 − e^ε(1 − q + q e^ℓ))_+], positive for ℓ < t with
    # e^t = (e^{−ε} − 1 + q)/q (empty when e^{−ε} <= 1 − q)
    add = mpmath.mpf(0)
    if 1 / e > 1 - g:
        t2 = mpmath.log((1 / e - 1 + g) / g)
        add = (1 - e * (1 - g)) * _phi((t2 + mu) / s) - g * e * _phi((t2 - mu) / s)
    return remove, add


def _gaussian_sampled_delta(sigma, rate, eps):
    """δ(ε) of the Poisson-subsampled Gaussian: the larger direction."""
    return max(_gaussian_sampled_directions(sigma, rate, eps))


@pytest.mark.parametrize("sigma,rate", [(1, Fraction(1, 100)), (Fraction(1, 2), Fraction(1, 10)),
                                        (2, Fraction(1, 2))])
@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 10), Fraction(1)])
def test_poisson_sampled_gaussian_contains_the_closed_form(sigma, rate, eps):
    acc = SMALL().compose(A.PoissonSampledEvent(A.GaussianEvent(sigma=sigma), q=rate), 1)
    assert _contains(acc.delta(eps).interval, _gaussian_sampled_delta(sigma, rate, eps))


def test_the_default_grid_brackets_the_subsampled_gaussian_narrowly():
    """Both ends second order in the step: at the default grid the bracket of δ(1/10) is
    within 10⁻⁴ relative of the closed form."""
    acc = A.PldAccountant(neighbouring="add-remove").compose(
        A.PoissonSampledEvent(A.GaussianEvent(sigma=1), q=Fraction(1, 100)), 1)
    iv = acc.delta(Fraction(1, 10)).interval
    exact = _gaussian_sampled_delta(1, Fraction(1, 100), Fraction(1, 10))
    lo, hi = ends(iv)
    assert _contains(iv, exact)
    assert hi - lo <= mpmath.mpf(10) ** -4 * exact


@pytest.mark.parametrize("eps", [Fraction(0), Fraction(1, 20), Fraction(1, 2)])
def test_each_direction_contains_its_closed_form(eps):
    """Removing a record (forward) and adding one (reverse) are accounted apart, each
    against its own closed form; the reported δ is the larger."""
    sigma, rate = Fraction(1, 2), Fraction(1, 2)
    remove, add = _gaussian_sampled_directions(sigma, rate, eps)
    pld = SMALL().compose(A.PoissonSampledEvent(A.GaussianEvent(sigma=sigma), q=rate)).pld()
    assert pld.reverse is not None
    for (up, low), exact in ((pld.forward, remove), (pld.reverse, add)):
        assert low.delta(eps) * (1 - SLACK) <= exact <= up.delta(eps) * (1 + SLACK) + SLACK
    assert _contains(pld.delta(eps), max(remove, add))


@pytest.mark.parametrize("inner", [A.GaussianEvent(sigma=2), A.DiscreteLaplaceEvent(scale=3),
                                   A.PureDPEvent(1)], ids=["gauss", "dlap", "rr"])
def test_rate_one_is_the_unsampled_release(inner):
    a = SMALL().compose(A.PoissonSampledEvent(inner, q=1), 5).epsilon(1e-6)
    b = SMALL().compose(inner, 5).epsilon(1e-6)
    assert a.interval == b.interval


@settings(max_examples=10, deadline=None)
@given(eps0=st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(2)]),
       d0=st.sampled_from([Fraction(0), Fraction(1, 10**6), Fraction(1, 100)]),
       k=st.integers(1, 20), eps=st.sampled_from([Fraction(0), Fraction(1, 2), Fraction(3)]))
def test_approx_dp_composes_as_kairouz_oh_viswanath(eps0, d0, k, eps):
    """k-fold (ε₀, δ₀)-DP: δ(ε) = 1 − (1 − δ₀)^k (1 − δ_RR,k(ε)) (KOV 2015, Thm 3.3)."""
    e = mpmath.e ** _m(eps0)
    p = (e / (1 + e), 1 / (1 + e))
    rr = two_point_delta(p, (p[1], p[0]), k, eps)
    exact = 1 - (1 - _m(d0)) ** k * (1 - rr)
    acc = SMALL().compose(A.ApproxDPEvent(eps0, d0), k)
    assert _contains(acc.delta(eps).interval, exact)


def test_sampled_events_refuse_bad_input_by_name():
    g = A.GaussianEvent(sigma=1)
    with pytest.raises(ParameterError, match="q must be in"):
        A.PoissonSampledEvent(g, q=0)
    with pytest.raises(ParameterError, match="q must be in"):
        A.PoissonSampledEvent(g, q=1.5)
    with pytest.raises(ParameterError, match="neighbouring='replace-one' is not supported"):
        A.PoissonSampledEvent(g, q=0.1, neighbouring="replace-one")
    with pytest.raises(ParameterError, match="batch must be <= population"):
        A.SampledWithoutReplacementEvent(g, batch=11, population=10)
    with pytest.raises(ParameterError, match="event must be one release"):
        A.PoissonSampledEvent(A.RepeatedEvent(g, 2), q=0.1)
    with pytest.raises(ParameterError, match="already a sampled event"):
        A.PoissonSampledEvent(A.PoissonSampledEvent(g, q=0.1), q=0.1)
    with pytest.raises(ParameterError, match="delta must be in"):
        A.ApproxDPEvent(1, 2)
    with pytest.raises(ParameterError, match="local_event must be a PureDPEvent"):
        A.ShuffledEvent(g, n=10)
    with pytest.raises(ParameterError, match="allocations must be <= steps"):
        A.RandomAllocationEvent(g, steps=3, allocations=4)


def test_calibrate_returns_a_certified_sigma_within_rtol_of_the_smallest():
    """One Gaussian release at (1, 1e-5): the analytic Gaussian mechanism (Balle and Wang
    2018) needs σ ≈ 3.73 — the calibrated σ is certified and at most rtol above the
    smallest σ the bisection could not certify."""
    def make(s):
        return A.GaussianEvent(sigma=s)
    sigma = A.calibrate(make, count=1, epsilon=1, delta=1e-5, rtol=1e-3)
    assert A.PldAccountant().compose(make(sigma)).epsilon(1e-5).epsilon <= 1
    below = sigma * (1 - 2e-3)
    assert A.PldAccountant().compose(make(below)).epsilon(1e-5).interval is not None
    lo, _ = ends(A.PldAccountant().compose(make(below)).epsilon(1e-5).interval)
    assert lo > 1


def test_calibrate_integer_parameters_and_refusals():
    scale = A.calibrate(lambda b: A.DiscreteLaplaceEvent(scale=b, sensitivity=1), count=10,
                        epsilon=1, delta=1e-6, integer=True)
    assert isinstance(scale, int)
    ok = A.PldAccountant().compose(A.DiscreteLaplaceEvent(scale=scale), 10).epsilon(1e-6)
    assert ok.epsilon <= 1
    worse = A.PldAccountant().compose(A.DiscreteLaplaceEvent(scale=scale - 1), 10)
    assert ends(worse.epsilon(1e-6).interval)[0] > 1
    with pytest.raises(ParameterError, match="delta must be in"):
        A.calibrate(lambda s: A.GaussianEvent(sigma=s), epsilon=1, delta=0)
    with pytest.raises(ParameterError, match="make must return a DpEvent"):
        A.calibrate(lambda s: s, epsilon=1, delta=1e-5)
