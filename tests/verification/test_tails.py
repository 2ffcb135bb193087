"""Certified tails and quantiles; the paper's tail bounds (000 Fact 2, Proposition 1,
Lemma 5) checked exactly, and deliberately false variants caught with counterexamples."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.certified import ends as interval_ends
from privtools.exact import ExactPMF, exact_quantile, exact_tail, sum_pmf
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Polya, PolyaDifference, Skellam
from tests import oracles
from verification.tails import (
    check_tail_bound,
    fact2_exact_check,
    fact2_tail,
    lemma5_laplace_sum,
    prop1_skellam,
    prop1_without_log,
    smallest_constant_lemma5,
    subgaussian_tail,
    theorem1_tau,
)
from verification.verdicts import FAILS, HOLDS

PS = [mpmath.mpf(10) ** -e for e in range(1, 31)]            # 1e-1 .. 1e-30
PS_SHORT = [Fraction(1, 10**e) for e in (1, 3, 10, 20, 30)]  # exact decimals

FAMILIES = [
    DiscreteLaplace(1),
    DiscreteLaplace(Fraction(7, 2)),
    Skellam(1),
    Skellam(10),
    Skellam(1000),
    DiscreteGaussian(sigma2=4),
    DiscreteGaussian(sigma2=Fraction(1, 3), mu=5),
    Polya(2, Fraction(1, 2)),
    PolyaDifference(Fraction(1, 3), Fraction(1, 2)),
]


def _mp(q: Fraction) -> mpmath.mpf:
    return mpmath.mpf(q.numerator) / q.denominator


# ------------------------------------------------------------------ independent oracles
def _oracle_tail(dist, t: int, two_sided: bool = True) -> mpmath.mpf | None:
    """P(|X − c| > t) in plain mpmath at 60 digits (no privtools code), or None."""
    with mpmath.workdps(60):
        if isinstance(dist, DiscreteLaplace):
            a = 1 / oracles.mp(dist.scale)
            up = oracles.dlaplace(t + 1, dist.scale) / (1 - mpmath.exp(-a))  # geometric
            return 2 * up if two_sided else up
        if isinstance(dist, Skellam) and dist.variance > 100:
            return None  # the Bessel power series is too slow there
        if isinstance(dist, Skellam | DiscreteGaussian | Polya):
            c = dist.center
            if isinstance(dist, Skellam):
                pmf = lambda k: oracles.skellam_series(k, dist.variance, dist.mu)  # noqa: E731
            elif isinstance(dist, DiscreteGaussian):
                pmf = lambda k: oracles.dgauss(k, dist.sigma2, dist.mu)  # noqa: E731
            else:
                pmf = lambda k: oracles.polya(k, dist.r, oracles.mp(dist.beta))  # noqa: E731
            total, k = mpmath.mpf(0), c + t + 1
            while True:  # upper tail: terms decrease (past the mode) faster than geometric
                term = pmf(k)
                total += term
                if term < total * mpmath.mpf(10) ** -70 or term == 0:
                    break
                k += 1
            if two_sided:
                k = c - t - 1
                while k >= c - t - 100000:
                    term = pmf(k)
                    total += term
                    if term == 0 or term < total * mpmath.mpf(10) ** -70:
                        break
                    k -= 1
            return total
    return None


# ------------------------------------------------------------------ tail_quantile
@pytest.mark.parametrize("dist", FAMILIES, ids=str)
def test_tail_quantile_certified(dist):
    for p in PS_SHORT:
        for two_sided in (True, False):
            t = dist.tail_quantile(p, two_sided=two_sided)
            assert t >= 0
            # re-checked at twice the digits
            lo, hi = interval_ends(exact_tail(dist, t, two_sided=two_sided, dps=60))
            assert hi <= _mp(p) and lo <= hi
            if t > 0:
                lo1, _ = interval_ends(exact_tail(dist, t - 1, two_sided=two_sided, dps=60))
                assert lo1 > _mp(p)
            # and against plain-mpmath sums
            o = _oracle_tail(dist, t, two_sided)
            if o is not None:
                with mpmath.workdps(60):
                    slack = mpmath.mpf(10) ** -25
                    assert lo * (1 - slack) <= o <= hi * (1 + slack)
                assert o <= _mp(p)
                if t > 0:
                    assert _oracle_tail(dist, t - 1, two_sided) > _mp(p)


def _float_quantile(dist, p: float) -> int | None:
    """Float quantile, or None when p is within 1e-9 (relative) of a float tail."""
    c = dist.center

    def log_tail(t):
        return np.logaddexp(dist.logsf(c + t), dist.logcdf(c - t - 1))

    t = 0
    while log_tail(t) > math.log(p):
        t += 1
    near = [abs(log_tail(s) - math.log(p)) < 1e-9 for s in (t, t - 1) if s >= 0]
    return None if any(near) else t


@pytest.mark.parametrize("dist", [FAMILIES[i] for i in (0, 1, 2, 3, 5, 7)], ids=str)
def test_tail_quantile_matches_float(dist):
    for e in (1, 2, 5, 9, 15, 25):
        p = 10.0**-e
        q = _float_quantile(dist, p)
        if q is not None:
            assert dist.tail_quantile(p) == q


@settings(max_examples=12)
@given(num=st.integers(1, 40), den=st.integers(1, 8), e=st.integers(1, 30))
def test_tail_quantile_is_fact2_ceiling(num, den, e):
    """Discrete Laplace: the certified quantile equals ⌈b log(2/(p(e^{1/b}+1)))⌉ (Fact 2)."""
    b = Fraction(num, den)
    p = Fraction(1, 10**e)
    with mpmath.workdps(60):
        x = _mp(b) * mpmath.log(2 / (_mp(p) * (mpmath.exp(1 / _mp(b)) + 1)))
        expected = max(0, int(mpmath.ceil(x)))
    assert DiscreteLaplace(b).tail_quantile(p) == expected
    assert fact2_tail(b)(p) == expected


@settings(max_examples=10)
@given(var=st.integers(1, 60), e=st.integers(1, 30))
def test_tail_quantile_skellam_property(var, e):
    X = Skellam(var)
    p = Fraction(1, 10**e)
    t = X.tail_quantile(p)
    assert _oracle_tail(X, t) <= _mp(p)
    if t > 0:
        assert _oracle_tail(X, t - 1) > _mp(p)
    assert X.tail_quantile(p, two_sided=False) <= t


def test_tail_quantile_p_exactness_and_inputs():
    X = DiscreteLaplace(1)
    # P(|Y| > 2) = 2e^{-2}/(e+1): p just above and below it (as exact rationals)
    with mpmath.workdps(50):
        tail2 = 2 * mpmath.exp(-2) / (mpmath.e + 1)
        above = Fraction(mpmath.nstr(tail2 * (1 + mpmath.mpf(10) ** -35), 45))
        below = Fraction(mpmath.nstr(tail2 * (1 - mpmath.mpf(10) ** -35), 45))
    assert X.tail_quantile(above) == 2
    assert X.tail_quantile(below) == 3  # resolved by raising the precision past 30 digits
    for bad in (0, 1, -0.5, 1.5, float("nan"), mpmath.inf, "x"):
        with pytest.raises(ValueError, match="p"):
            X.tail_quantile(bad)
    with pytest.raises(ValueError, match="dps"):
        X.tail_quantile(0.1, dps=0)
    with pytest.raises(ValueError, match="two_sided"):
        X.tail_quantile(0.1, two_sided="yes")


# ------------------------------------------------------------------ exact_tail
def test_exact_tail_exactpmf_and_distribution_agree():
    X = Skellam(5)
    P = ExactPMF.from_distribution(X, dps=40, tail=mpmath.mpf(10) ** -45)
    for t in (0, 3, 20):
        for two in (True, False):
            a, b = interval_ends(exact_tail(X, t, two_sided=two))
            c, d = interval_ends(exact_tail(P, t, two_sided=two))
            assert a <= d and c <= b  # overlap
            assert d - c >= P.unaccounted  # unaccounted widens the upper end
    # centre= shifts the PMF's reference point
    Q = ExactPMF.from_distribution(Skellam(5, mu=7), dps=40, tail=mpmath.mpf(10) ** -45)
    a, b = interval_ends(exact_tail(Q, 3, center=7))
    c, d = interval_ends(exact_tail(X, 3))
    assert a <= d and c <= b
    assert exact_quantile(Q, Fraction(1, 10**6), center=7) == X.tail_quantile(Fraction(1, 10**6))


def test_exact_tail_far_beyond_table_is_unaccounted_only():
    P = ExactPMF.from_distribution(DiscreteLaplace(1), dps=30, tail=mpmath.mpf(10) ** -3)
    lo, hi = interval_ends(exact_tail(P, 10**6))
    assert lo == 0 and hi == P.unaccounted
    assert exact_quantile(P, Fraction(1, 10**4)) is None  # unaccounted 1e-3 > p: undecidable


def test_exact_tail_inputs():
    with pytest.raises(ValueError, match="t"):
        exact_tail(Skellam(1), -1)
    with pytest.raises(ValueError, match="dist"):
        exact_tail([0.5, 0.5], 1)
    from privtools.exact import wrap

    P = ExactPMF.from_distribution(DiscreteLaplace(1), dps=20)
    with pytest.raises(ValueError, match="wrapped"):
        exact_tail(wrap(P, 5), 1)


# ------------------------------------------------------------------ Fact 2
def test_fact2_formula_is_exact():
    for b in (Fraction(1, 3), 1, Fraction(7, 2), 40):
        res = fact2_exact_check(b, [0, 1, 2, 5, 50, 200])
        assert res["consistent"]
        assert res["max_rel_error"] < mpmath.mpf(10) ** -25
        assert len(res["rows"]) == 6


def test_fact2_threshold_is_the_exact_quantile():
    chk = check_tail_bound(DiscreteLaplace(3), fact2_tail(3), PS)
    assert chk.status == HOLDS and chk.holds
    assert all(r.slack == 1.0 for r in chk.rows)  # threshold == exact quantile everywhere
    assert chk.worst_ratio <= 1
    # Theorem 1's τ = ⌈b log(2/p)⌉ is sufficient (b log(2/p) >= the Fact 2 root)
    assert check_tail_bound(DiscreteLaplace(3), theorem1_tau(3), PS).holds


# ------------------------------------------------------------------ Proposition 1
@pytest.mark.parametrize("var", [1, 10, 1000, 10**6])
def test_prop1_holds_on_grid(var):
    chk = check_tail_bound(Skellam(var), prop1_skellam(var), PS)
    assert chk.status == HOLDS, chk.counterexample
    assert chk.counterexample is None
    assert chk.worst_ratio < 1
    assert chk.slack > 1  # the claimed threshold exceeds the exact quantile everywhere
    lo, hi = chk.slack_range
    # Observed slack t/q(p) on this grid: σ²=1: 3.85..5.08, 10: 2.56..3.29,
    # 1e3: 1.66..2.19, 1e6: 1.46..2.11 (→ √2 as σ → ∞: 2σ vs the Gaussian √2 σ).
    assert 1.3 < lo <= hi < 6


def test_prop1_without_log_term_is_caught():
    """2σ√log(2/p) alone fails for small σ² and tiny p (Skellam tails are heavier than
    Gaussian far out): σ² = 1 from p = 1e-10 down, σ² = 10 only below ~1e-89."""
    chk = check_tail_bound(Skellam(1), prop1_without_log(1), PS)
    assert not chk.holds and chk.status == FAILS
    p, t, tail = chk.counterexample
    assert interval_ends(tail)[0] > p  # certified: the exact tail exceeds p
    failing = {mpmath.nstr(r.p, 3) for r in chk.failing()}
    assert "1.0e-10" in failing and "1.0e-9" not in failing
    first = chk.failing()[0]
    assert first.threshold == 9 and first.quantile == 10
    assert interval_ends(first.tail)[0] > mpmath.mpf("2.12e-10")
    # σ² = 10: holds down to 1e-30 but not at 1e-100
    assert check_tail_bound(Skellam(10), prop1_without_log(10), PS).holds
    far = check_tail_bound(Skellam(10), prop1_without_log(10), [mpmath.mpf(10) ** -100])
    assert far.status == FAILS and interval_ends(far.counterexample[2])[0] > mpmath.mpf(10) ** -100


def test_subgaussian_claim_for_skellam_is_caught():
    """σ√(2 log(2/p)) is not a valid Skellam threshold (MGF exp(σ²(cosh λ − 1)))."""
    for var, first_p in ((1, "0.001"), (10, "1.0e-8")):
        chk = check_tail_bound(Skellam(var), subgaussian_tail(var), PS)
        assert chk.status == FAILS
        assert interval_ends(chk.counterexample[2])[0] > chk.counterexample[0]
        assert mpmath.nstr(chk.failing()[0].p, 3) == first_p
        assert chk.slack < 1
    # ... while for the discrete Gaussian (Theorem 4's τ) it holds
    assert check_tail_bound(DiscreteGaussian(sigma2=10), subgaussian_tail(10), PS).holds


# ------------------------------------------------------------------ Lemma 5
@pytest.mark.parametrize("eps,n", [(1, 10), (Fraction(1, 2), 4)])
def test_lemma5_smallest_constant(eps, n):
    res = smallest_constant_lemma5(eps, n, PS, details=True)
    c = res.c
    assert 0.3 < c < 3
    P = res.pmf
    assert P.unaccounted < mpmath.mpf(10) ** -55
    ok = check_tail_bound(P, lemma5_laplace_sum(eps, n, c), PS)
    assert ok.status == HOLDS and ok.slack == 1.0  # tight at p_star
    bad = check_tail_bound(P, lemma5_laplace_sum(eps, n, c * mpmath.mpf("0.9")), PS)
    assert bad.status == FAILS
    p, t, tail = bad.counterexample
    assert interval_ends(tail)[0] > p
    # the returned float c matches the plain return form
    assert smallest_constant_lemma5(eps, n, PS, pmf=P) == c


def test_lemma5_values():
    # eps = 1, n = 10: c* = 12 / (2 log 200) ≈ 1.1324 attained at p = 0.01
    res = smallest_constant_lemma5(1, 10, PS, details=True)
    assert mpmath.nstr(res.p_star, 3) == "0.01"
    with mpmath.workdps(40):  # p_star is the binary mpf nearest 0.01
        assert abs(res.c - 12 / (2 * mpmath.log(2 / res.p_star))) < mpmath.mpf(10) ** -30


def test_check_tail_bound_on_convolved_sum_matches_closed_form():
    """The n-fold sum as an ExactPMF: Skellam shares convolved vs Sk(0, n·var)."""
    P = sum_pmf(Skellam(Fraction(1, 2)), 4, dps=40, method="convolve")
    ps = PS[:20]
    a = check_tail_bound(P, prop1_skellam(2), ps)
    b = check_tail_bound(Skellam(2), prop1_skellam(2), ps)
    assert a.status == b.status == HOLDS
    assert [r.quantile for r in a.rows] == [r.quantile for r in b.rows]
    assert [r.threshold for r in a.rows] == [r.threshold for r in b.rows]


# ------------------------------------------------------------------ result shape
def test_tail_check_result_fields():
    chk = check_tail_bound(Skellam(3), prop1_skellam(3), [Fraction(1, 10), 0.001, "1e-12"])
    assert len(chk.rows) == 3 and chk.two_sided
    r = chk.rows[2]
    assert r["slack"] == r.slack and r.threshold == int(mpmath.floor(r.t))
    assert r.p == "1e-12"
    assert interval_ends(r.ratio)[1] <= chk.worst_ratio
    assert interval_ends(chk.worst_ratio_interval)[0] <= chk.worst_ratio
    with pytest.raises(AttributeError):
        chk.status = "x"  # frozen
    # real thresholds are floored: P(|X| > 2.9) = P(|X| > 2)
    half = check_tail_bound(Skellam(3), lambda p: 2.9, [0.5])
    two = check_tail_bound(Skellam(3), lambda p: 2, [0.5])
    assert half.rows[0].threshold == 2
    assert interval_ends(half.rows[0].tail)[0] == interval_ends(two.rows[0].tail)[0]


# ------------------------------------------------------------------ bad input
@pytest.mark.parametrize("ps", [[], [0], [1], [0.5, 1.5], [float("nan")], ["abc"], 0.1, "0.1",
                                None])
def test_bad_ps(ps):
    with pytest.raises(ValueError, match="ps"):
        check_tail_bound(Skellam(1), prop1_skellam(1), ps)


@pytest.mark.parametrize("value", [float("nan"), float("inf"), -1, "3", None, True,
                                   mpmath.inf, complex(1, 1)])
def test_bad_bound_values(value):
    with pytest.raises(ValueError, match="bound"):
        check_tail_bound(Skellam(1), lambda p: value, [0.1])


def test_bad_bound_and_other_inputs():
    with pytest.raises(ValueError, match="bound"):
        check_tail_bound(Skellam(1), 3.0, [0.1])
    with pytest.raises(ValueError, match="ks"):
        fact2_exact_check(1, [-1])
    with pytest.raises(ValueError, match="ks"):
        fact2_exact_check(1, [])
    with pytest.raises(ValueError, match="var"):
        prop1_skellam(-1)
    with pytest.raises(ValueError, match="c must"):
        lemma5_laplace_sum(1, 10, 0)
    with pytest.raises(ValueError, match="ps"):
        smallest_constant_lemma5(1, 10, [])
    with pytest.raises(ValueError, match="eps"):
        smallest_constant_lemma5(0, 10, [0.1])
