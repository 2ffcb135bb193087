"""Certified privacy-loss distributions: exact oracles, both ends, cross-checks.

Properties: every certified interval contains the exact δ(ε) / ε(δ) where an exact oracle
exists (randomized response composed k times in closed form; brute-force products of small
PMF pairs); the public example beats the RDP route; dp_accounting's pessimistic value is
never below our lower end and our upper end never exceeds it; post-processing (mod m) never
increases ε; bad input is refused before any work.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
from flint import arb
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import (
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    GaussianEvent,
    LaplaceEvent,
    ModularEvent,
    PldAccountant,
    PmfPairEvent,
    PureDPEvent,
    RdpAccountant,
    SkellamEvent,
    ZCDPEvent,
)
from privtools.certified.intervals import ends
from privtools.errors import ParameterError
from privtools.exact import ExactPMF
from tests import oracles


def _contains(iv, x) -> bool:
    lo, hi = ends(iv)
    return lo <= x <= hi


# ------------------------------------------------------------------------ public example
def test_public_api_example_beats_the_rdp_route():
    acc = PldAccountant().compose(DiscreteLaplaceEvent(scale=320, sensitivity=32), count=100)
    r = acc.epsilon(1e-6)
    lo, hi = ends(r.interval)
    assert r.epsilon >= hi and r.epsilon <= 4.70
    assert hi - lo <= 1e-6 * hi
    rdp = RdpAccountant().compose(DiscreteLaplaceEvent(scale=320, sensitivity=32), count=100)
    assert r.epsilon < rdp.epsilon(1e-6).epsilon
    d = acc.delta(1.0)
    assert d.delta >= ends(d.interval)[1] and 0 < d.delta < 1


@pytest.mark.slow
def test_thousand_releases_meet_the_target():
    acc = PldAccountant().compose(DiscreteLaplaceEvent(scale=320, sensitivity=32), count=1000)
    r = acc.epsilon(1e-6)
    lo, hi = ends(r.interval)
    assert hi <= 18.96 and hi - lo <= 1e-6 * hi


# ------------------------------------------------------------------------ exact oracles
@settings(max_examples=25, deadline=None, derandomize=True)
@given(num=st.integers(1, 30), k=st.integers(1, 40), t=st.integers(0, 60))
def test_randomized_response_matches_closed_form(num, k, t):
    eps = Fraction(num, 20)
    target = Fraction(t, 10)
    acc = PldAccountant().compose(PureDPEvent(eps), count=k)
    exact = oracles.rr_delta(eps, k, target)
    assert _contains(acc.delta(target).interval, exact)


def _pmf(masses: list[Fraction], lo: int = 0) -> ExactPMF:
    balls = tuple(arb(m.numerator) / m.denominator for m in masses)
    return ExactPMF(lo, balls, mpmath.mpf(0), 30, label="table")


def _brute_delta(pairs, eps: Fraction) -> tuple[mpmath.mpf, mpmath.mpf]:
    """Exact δ(ε) of the product of the pairs, both directions (enumeration, 150 digits)."""
    with mpmath.workdps(150):
        e = mpmath.e ** (mpmath.mpf(eps.numerator) / eps.denominator)
        out = []
        for flip in (False, True):
            total = mpmath.mpf(0)
            for xs in itertools.product(*[range(len(p)) for p, _ in pairs]):
                a = b = mpmath.mpf(1)
                for (p, q), x in zip(pairs, xs):
                    pp, qq = (q, p) if flip else (p, q)
                    a *= mpmath.mpf(pp[x].numerator) / pp[x].denominator
                    b *= mpmath.mpf(qq[x].numerator) / qq[x].denominator
                total += max(mpmath.mpf(0), a - e * b)
            out.append(total)
        return max(out)


_mass = st.lists(st.integers(1, 20), min_size=2, max_size=4)


def _norm(ws):
    s = sum(ws)
    return [Fraction(w, s) for w in ws]


@settings(max_examples=20, deadline=None, derandomize=True)
@given(data=st.data())
def test_brute_force_products_of_small_pairs_are_enclosed(data):
    n_pairs = data.draw(st.integers(1, 3))
    pairs = []
    for _ in range(n_pairs):
        p = _norm(data.draw(_mass))
        q = _norm(data.draw(st.lists(st.integers(1, 20), min_size=len(p), max_size=len(p))))
        pairs.append((p, q))
    acc = PldAccountant(max_points=2**12)
    for p, q in pairs:
        acc.compose(PmfPairEvent(_pmf(p), _pmf(q)))
    for eps in (Fraction(0), Fraction(1, 10), Fraction(1, 2), Fraction(3, 2)):
        iv = acc.delta(eps).interval
        assert _contains(iv, _brute_delta(pairs, eps)), (pairs, eps, iv)


def test_infinite_loss_is_counted():
    # P puts 1/4 where Q has no mass: δ(ε) >= 1/4 for every ε
    acc = PldAccountant().compose(PmfPairEvent(_pmf([Fraction(1, 4), Fraction(3, 4)]),
                                               _pmf([Fraction(0), Fraction(1)])))
    lo, hi = ends(acc.delta(5).interval)
    assert lo <= mpmath.mpf(1) / 4 <= hi + mpmath.mpf(10) ** -40
    assert lo >= mpmath.mpf(1) / 4 - mpmath.mpf(10) ** -40
    assert acc.epsilon(Fraction(1, 5)).epsilon == math.inf


# ------------------------------------------------------------------------ monotonicity
@pytest.mark.parametrize("event", [
    DiscreteLaplaceEvent(scale=8, sensitivity=1),
    SkellamEvent(var=64, sensitivity=1),
    DiscreteGaussianSumEvent(1, Fraction(16), 1),
])
def test_epsilon_grows_with_the_count_and_delta_falls_with_epsilon(event):
    e = [PldAccountant().compose(event, count=k).epsilon(1e-5).epsilon for k in (1, 2, 8)]
    assert e[0] <= e[1] <= e[2]
    acc = PldAccountant().compose(event, count=4)
    uppers = [acc.delta(x).delta for x in (0, 0.25, 0.5, 1.0)]
    assert all(a >= b for a, b in zip(uppers, uppers[1:]))


def test_wrapped_view_is_never_less_private():
    ev = DiscreteLaplaceEvent(scale=4, sensitivity=1)
    plain = PldAccountant().compose(ev, count=3).epsilon(1e-4)
    wrapped = PldAccountant().compose(ModularEvent(ev, 8), count=3).epsilon(1e-4)
    # the wrapped upper end is certified and may be below the unwrapped lower end
    assert wrapped.epsilon <= plain.epsilon * (1 + 1e-9)


def test_heterogeneous_lattices_compose_exactly():
    a = DiscreteLaplaceEvent(scale=10, sensitivity=1)
    b = DiscreteLaplaceEvent(scale=4, sensitivity=1)
    acc = PldAccountant().compose(a, count=3).compose(b, count=2)
    lo, hi = ends(acc.epsilon(1e-6).interval)
    assert hi - lo <= 1e-9 * hi
    # pure-DP bound: 3/10 + 2/4
    assert hi <= Fraction(3, 10) + Fraction(2, 4) + mpmath.mpf(10) ** -12


# ------------------------------------------------------------------------ dp_accounting
dpa = pytest.importorskip("dp_accounting.pld.privacy_loss_distribution")


@pytest.mark.parametrize("name,exact,ours,theirs", [
    ("discrete laplace", True, DiscreteLaplaceEvent(scale=10, sensitivity=1),
     lambda pe: dpa.from_discrete_laplace_mechanism(0.1, 1, value_discretization_interval=1e-4,
                                                    pessimistic_estimate=pe)),
    ("discrete gaussian", True, DiscreteGaussianSumEvent(1, Fraction(100), 1),
     lambda pe: dpa.from_discrete_gaussian_mechanism(10.0, sensitivity=1,
                                                     value_discretization_interval=1e-4,
                                                     pessimistic_estimate=pe)),
    ("gaussian", False, GaussianEvent(sigma=10),
     lambda pe: dpa.from_gaussian_mechanism(10.0, value_discretization_interval=1e-4,
                                            pessimistic_estimate=pe)),
    ("laplace", False, LaplaceEvent(b=10),
     lambda pe: dpa.from_laplace_mechanism(10.0, value_discretization_interval=1e-4,
                                           pessimistic_estimate=pe)),
])
def test_consistent_with_dp_accounting(name, exact, ours, theirs):
    """Exact lattices (the project's laws): inside dp_accounting's [optimistic, pessimistic]
    bracket and tighter than its pessimistic value. Continuous laws (our grid is coarser
    than their 1e-4 at this count): the brackets overlap and our certified upper end is
    within 1e-6 of their (uncertified) pessimistic value."""
    k, delta = 50, 1e-6
    lo, hi = ends(PldAccountant().compose(ours, count=k).epsilon(delta).interval)
    pess = theirs(True).self_compose(k).get_epsilon_for_delta(delta)
    opt = theirs(False).self_compose(k).get_epsilon_for_delta(delta)
    assert lo <= pess and opt <= hi * (1 + 1e-9), name     # the true value lies in both
    if exact:
        # their optimistic value may exceed the exact one by float rounding (~1e-10 here)
        assert opt <= lo * (1 + 1e-9) and hi < pess, name
    else:
        assert hi <= pess * (1 + 1e-6), name


# ------------------------------------------------------------------------ bad input
def test_bad_input_is_refused_naming_the_parameter():
    with pytest.raises(ParameterError, match="ZCDPEvent"):
        PldAccountant().compose(ZCDPEvent(Fraction(1, 2)))
    acc = PldAccountant().compose(PureDPEvent(Fraction(1)))
    for bad in (-1, 2, float("nan")):     # (δ = 0: the pure ε, test_relation_and_limits.py)
        with pytest.raises(ParameterError, match="delta"):
            acc.epsilon(bad)
    assert acc.epsilon(0).epsilon == 1.0
    with pytest.raises(ParameterError, match="epsilon"):
        acc.delta(-0.5)
    with pytest.raises(ParameterError, match="count"):
        PldAccountant().compose(PureDPEvent(Fraction(1)), count=-1)
    with pytest.raises(ParameterError, match="step"):
        PldAccountant(step=0)
    with pytest.raises(ParameterError, match="max_points"):
        PldAccountant(max_points=3)
    with pytest.raises(ParameterError, match="nothing composed"):
        PldAccountant().epsilon(1e-6)
    with pytest.raises(ParameterError, match="modulus"):
        ModularEvent(DiscreteLaplaceEvent(scale=2), 1)
