"""fewest_bits: every returned plan is certified — privacy against exact
oracles (Fact 2 for Lap_Z; the hockey-stick divergence summed from the Skellam and
discrete-Gaussian PMFs of tests/oracles.py) and the tail against exact tail sums — uses no
more bits than the paper's plan, and has m = ng + 2τ + 1."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import DiscreteLaplaceEvent, PldAccountant
from privtools.certified.intervals import ends
from privtools.errors import ParameterError
from privtools.planning import fewest_bits
from privtools.planning.bits import error_radius, sd_heuristic
from tests.oracles import dgauss, dlaplace, mp, skellam_series
from verification.plan_check import verify_plan

DELTA = Fraction(1, 10**6)


# ------------------------------------------------------------------ exact oracles
def lap_tail(scale: Fraction, tau: int) -> mpmath.mpf:
    """P(|N| > τ) for N ~ Lap_Z(b): 2·P(0)·e^{-(τ+1)/b}/(1 − e^{-1/b}) (geometric sums)."""
    with mpmath.workdps(50):
        a = 1 / mp(scale)
        return 2 * dlaplace(0, scale) * mpmath.exp(-a * (tau + 1)) / (1 - mpmath.exp(-a))


def pmf_tail(pmf: dict[int, mpmath.mpf], tau: int) -> mpmath.mpf:
    """P(|N| > τ) from a windowed PMF: 1 − Σ_{|k| <= τ} P(k) (mass beyond the window counts
    as tail, so this is the exact tail up to the working precision)."""
    return 1 - sum(v for k, v in pmf.items() if abs(k) <= tau)


def hockey_delta(pmf: dict[int, mpmath.mpf], g: int, eps: Fraction) -> mpmath.mpf:
    """An upper bound on δ(ε) of adding N to a query of sensitivity g: the exact hockey
    stick Σ_k max(0, P(k) − e^ε P(k − g)) over the window, plus the mass beyond it."""
    e = mpmath.exp(mp(eps))
    inside = sum(pmf.values())
    hs = sum(max(mpmath.mpf(0), v - e * pmf.get(k - g, mpmath.mpf(0))) for k, v in pmf.items())
    return hs + (1 - inside)


def check_common(r):
    assert r.m == r.n * r.g + 2 * r.tau + 1
    assert r.bits == (r.m - 1).bit_length()
    assert r.bits <= r.bits_exact <= r.bits_paper
    assert r.bits_saved == r.bits_paper - r.bits >= 0
    assert ends(r.certified_epsilon)[1] <= mp(r.epsilon)
    assert ends(r.tail)[1] <= mp(r.p)
    assert r.plan.g == r.g and r.plan.tau == r.tau and r.plan.m == r.m
    g0 = r.paper.g
    assert (g0 + 1) // 2 <= r.g <= 2 * g0
    if r.accuracy == "radius":
        assert r.radius <= r.radius_paper
        assert r.radius_paper == pytest.approx(error_radius(g0, r.paper.tau_bound, r.n, r.p))


# ------------------------------------------------------------------ Theorem 1
@pytest.mark.parametrize("n, eps", [(1024, 1), (1024, Fraction(1, 2)), (16, 1)])
def test_pure_dp_plan_is_certified_by_exact_oracles(n, eps):
    r = fewest_bits("pure-dp", eps, DELTA, n, 10**6)
    check_common(r)
    b = r.total_noise.scale
    assert b == Fraction(r.g) / r.epsilon_batch and r.epsilon_batch <= eps  # Fact 2: ε_b-DP
    with mpmath.workdps(50):
        assert lap_tail(b, r.tau) <= mp(r.p) < lap_tail(b, r.tau - 1)
    again = PldAccountant().compose(DiscreteLaplaceEvent(scale=b, sensitivity=r.g))
    assert again.epsilon(DELTA).epsilon <= eps
    assert verify_plan(r.plan).passed      # the judge: exact LLR of the mod-m view, tails


def test_theorem1_n1024_saves_a_bit_at_the_papers_radius():
    """The target setting: fewer bits than the paper's plan, at no loss of the
    paper's error radius (g = 32 → 29, 16 → 15 bits)."""
    r = fewest_bits("pure-dp", 1, DELTA, 1024, 10**6)
    assert (r.bits_paper, r.bits_exact, r.bits) == (16, 16, 15)
    assert r.g < r.paper.g and r.radius <= r.radius_paper


def test_pure_dp_at_delta_zero_is_exactly_pure():
    r = fewest_bits("pure-dp", 1, 0, 1024, 10**6)
    check_common(r)
    assert r.epsilon_batch == 1 and r.paper.certified_epsilon is None


# ------------------------------------------------------------------ Theorems 2 and 4
def test_rdp_plan_is_certified_by_the_skellam_pmf():
    r = fewest_bits("rdp", 1, DELTA, 16, 10**6)
    check_common(r)
    var = Fraction(r.g * r.g) / (r.epsilon_batch ** 2)
    assert r.total_noise.variance == var
    with mpmath.workdps(50):
        w = r.tau + 40 * int(var ** 0.5 + 1)
        pmf = {k: skellam_series(k, var) for k in range(-w, w + 1)}
        assert pmf_tail(pmf, r.tau) <= mp(r.p) < pmf_tail(pmf, r.tau - 1)
        assert hockey_delta(pmf, r.g, r.epsilon) <= mp(DELTA)


def test_cdp_plan_is_certified_by_the_discrete_gaussian_sum():
    n, horizon = 4, 10**4
    r = fewest_bits("cdp", 1, DELTA, n, horizon)
    check_common(r)
    s2 = r.share.sigma2
    assert s2 == Fraction(r.g * r.g) / (n * r.epsilon_batch ** 2)
    with mpmath.workdps(50):
        k1 = 30 * int(float(s2) ** 0.5 + 1)
        one = {k: dgauss(k, s2) for k in range(-k1, k1 + 1)}
        total = {0: mpmath.mpf(1)}
        for _ in range(n):
            nxt: dict[int, mpmath.mpf] = {}
            for a, pa in total.items():
                for b, pb in one.items():
                    nxt[a + b] = nxt.get(a + b, mpmath.mpf(0)) + pa * pb
            total = nxt
        assert pmf_tail(total, r.tau) <= mp(r.p) < pmf_tail(total, r.tau - 1)
        assert hockey_delta(total, r.g, r.epsilon) <= mp(DELTA)


def test_floor_rule_never_needs_more_bits_than_the_radius_rule():
    rad = fewest_bits("rdp", 1, DELTA, 1024, 10**6, accuracy="radius")
    flo = fewest_bits("rdp", 1, DELTA, 1024, 10**6, accuracy="floor")
    for r in (rad, flo):
        check_common(r)
    assert flo.bits <= rad.bits <= rad.bits_paper
    assert flo.g >= (flo.paper.g + 1) // 2


# ------------------------------------------------------------------ heuristic
def test_four_sd_heuristic_misses_p_for_lap_z():
    r = fewest_bits("pure-dp", 1, DELTA, 1024, 10**6)
    h = r.heuristic
    b = r.paper.total_noise.scale
    with mpmath.workdps(50):
        a = 1 / mp(b)
        var = 2 * mpmath.exp(-a) / (1 - mpmath.exp(-a)) ** 2
        assert h.tau == int(mpmath.ceil(4 * mpmath.sqrt(var)))
        exact = lap_tail(b, h.tau)
        lo, hi = ends(h.failure)
        assert lo <= exact * (1 + mpmath.mpf(10) ** -12) and exact <= hi * (1 + 1e-12)
        assert exact > mp(r.p) and not h.meets_p      # the finding: ~3e-3 per batch
    assert h.m == r.n * r.paper.g + 2 * h.tau + 1
    assert sd_heuristic(r.paper, k=40).meets_p


# ------------------------------------------------------------------ property test
@settings(max_examples=20, deadline=None, derandomize=True)
@given(n=st.integers(1, 400), eps=st.sampled_from([Fraction(1, 4), Fraction(1, 2), 1, 2]),
       horizon=st.integers(10, 10**6), pure=st.booleans())
def test_pure_dp_properties(n, eps, horizon, pure):
    r = fewest_bits("pure-dp", eps, 0 if pure else DELTA, n, horizon)
    check_common(r)
    b = r.total_noise.scale
    with mpmath.workdps(50):
        assert lap_tail(b, r.tau) <= mp(r.p)
        if r.tau > 0:
            assert lap_tail(b, r.tau - 1) > mp(r.p)


# ------------------------------------------------------------------ bad inputs
@pytest.mark.parametrize("kwargs, name", [
    (dict(privacy="shuffle"), "privacy"),
    (dict(epsilon=0), "epsilon"),
    (dict(epsilon="x"), "epsilon"),
    (dict(delta=None), "delta"),
    (dict(delta=1), "delta"),
    (dict(delta=-1e-6), "delta"),
    (dict(privacy="rdp", delta=0), "delta"),
    (dict(n=0), "n"),
    (dict(n=2.0), "n"),
    (dict(horizon=1), "horizon"),
    (dict(failure=2), "failure"),
    (dict(s=Fraction(1, 2), privacy="rdp"), "s"),
    (dict(s=2), "s"),
    (dict(accuracy="loose"), "accuracy"),
    (dict(max_certified=-1), "max_certified"),
])
def test_bad_inputs_name_the_parameter(kwargs, name):
    args = dict(privacy="pure-dp", epsilon=1, delta=DELTA, n=64, horizon=10**4)
    args.update(kwargs)
    with pytest.raises(ParameterError, match=name):
        fewest_bits(**args)


def test_helpers_reject_bad_inputs():
    r = fewest_bits("pure-dp", 1, DELTA, 16, 10**4)
    with pytest.raises(ParameterError, match="base"):
        sd_heuristic("plan")
    with pytest.raises(ParameterError, match="k"):
        sd_heuristic(r.paper, k=0)
    with pytest.raises(ParameterError, match="g"):
        error_radius(0, 1, 16, DELTA)
