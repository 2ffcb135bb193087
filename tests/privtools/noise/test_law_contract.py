"""The contract every noise law keeps (after scipy.stats' ``test_discrete_basic``).

The families are :data:`privtools.noise.LAWS` and their parameters the laws' tables
(``Law.parameters``): a new law gets every check below by joining ``LAWS`` with arguments in
``EXAMPLES`` that between them give every parameter of its table. Oracles are exact where an
exact value exists: certified Arb balls and intervals, not loose tolerances; statistical
checks use fixed seeds and state their false-alarm rate.

* the parameter table is the constructor's check: every argument the strategy
  :func:`privtools.testing.strategies.law_arguments` draws from the table passes it and
  builds the law, and a value just outside a parameter's domain (or beyond what the float
  methods represent) is refused with an error naming the parameter;
* the PMF sums to 1 (certified: Σ balls over a window + certified outside mass ∋ 1);
* cdf + sf = 1 and float pmf/logsf match the certified values (relative 1e-12);
* the sampler passes a G-test against the float law (false-alarm rate 1e-4 per law);
* ``shares(n)`` sums to the law (certified TV <= 1e-30) — except the discrete Gaussian, whose
  shares only come close (Lemma 4 (000)): there the TV interval is small and excludes 0;
* the certified tail bound is >= the exact tail and at most twice it;
* the per-law facts the exact engine reads hold: characteristic function against a direct
  certified sum, Chernoff bounds above the exact tail, the shift ratio bound above the
  actual ratios, closed-form sums and tails against the engine's own computations.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from flint import arb
from hypothesis import given
from hypothesis import strategies as st

import privtools.noise as noise
from privtools.certified import balls, ends, exact_rational
from privtools.errors import ParameterError
from privtools.exact import exact_tail, sum_pmf, total_variation
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Polya, PolyaDifference, Skellam
from privtools.testing import strategies as pst
from verification.gof import g_test

#: Arguments of each family, small enough for the certified engines; between them they give
#: every parameter of the family's table.
EXAMPLES = {
    DiscreteLaplace: [dict(scale="3/2"), dict(scale=40)],
    Polya: [dict(r="1/3", scale=5), dict(r=2, beta="1/2")],
    PolyaDifference: [dict(r="1/4", scale=8), dict(r=3, scale=2), dict(r=3, beta="3/5")],
    Skellam: [dict(var=7), dict(var="1/2", mu=3)],
    DiscreteGaussian: [dict(sigma2=5), dict(sigma2="1/3", mu=-2)],
}
LAWS = [law(**kw) for law in noise.LAWS for kw in EXAMPLES[law]]
IDS = [str(law) for law in LAWS]
PREC = 200


# ----------------------------------------------------------------- the parameter tables
def test_examples_cover_every_family_and_every_parameter():
    assert set(EXAMPLES) == set(noise.LAWS)
    for law in noise.LAWS:
        names = [p.name for p in law.parameters]
        assert len(names) == len(set(names)) and names
        given_names = {name for kw in EXAMPLES[law] for name in kw}
        assert given_names == set(names), law.__name__


@given(data=st.data())
def test_drawn_arguments_pass_the_table_and_build_the_law(data):
    law = data.draw(st.sampled_from(noise.LAWS))
    kwargs = data.draw(pst.law_arguments(law))
    table = {p.name: p for p in law.parameters}
    for name, value in kwargs.items():
        p = table[name]
        assert p.check(value) == value and p.domain.contains(value) and p.within_limit(value)
    assert isinstance(law(**kwargs), law)


TABLE = [(law, p) for law in noise.LAWS for p in law.parameters]


@pytest.mark.parametrize(("law", "p"), TABLE, ids=[f"{law.__name__}.{p.name}" for law, p in TABLE])
@given(data=st.data())
def test_values_just_outside_a_domain_are_refused_naming_the_parameter(law, p, data):
    kwargs = data.draw(pst.law_arguments(law))
    for q in law.parameters:  # of alternatives (Pólya's beta or scale), give this one alone
        if p.choice is not None and q.choice == p.choice:
            kwargs.pop(q.name, None)
    assert p.outside()
    for bad in p.outside():
        with pytest.raises(ParameterError) as err:
            p.check(bad)
        assert p.name in str(err.value)
        with pytest.raises(ParameterError) as err:
            law(**{**kwargs, p.name: bad})
        assert p.name in str(err.value)


def test_the_command_line_reads_the_tables():
    from privtools.cli import laws as cli_laws

    assert {cli_laws.law_class(k) for k in cli_laws.KINDS} == set(noise.LAWS)
    for kind in cli_laws.KINDS:
        assert cli_laws.takes(kind) == tuple(p.name for p in cli_laws.law_class(kind).parameters)
    assert cli_laws.MAX_POLYA_DIFFERENCE_SCALE == noise.PolyaDifference.parameter("scale").limit


def _window(law, mass="1e-40"):
    lo, hi, bound = law.exact_support(mpmath.mpf(mass), dps=30)
    return lo, hi, bound


@pytest.mark.parametrize("law", LAWS, ids=IDS)
def test_pmf_sums_to_one(law):
    lo, hi, outside = _window(law)
    with balls.precision(PREC):
        total = sum(law.pmf_balls(lo, hi, PREC), arb(0))
        low, high = balls.lower_mpf(total), balls.upper_mpf(total) + outside
    assert low <= 1 <= high
    assert high - low < mpmath.mpf(10) ** -35


@pytest.mark.parametrize("law", LAWS, ids=IDS)
def test_float_methods_match_certified_values(law):
    c = law.center
    s = max(1, int(math.ceil(law.std())))
    ks = np.array(sorted({c + j * s for j in range(-12, 13)} | {c, c + 1, c - 1}), dtype=np.int64)
    if law.support_lower is not None:
        ks = ks[ks >= law.support_lower]
    cdf, sf = law.cdf(ks), law.sf(ks)
    np.testing.assert_allclose(cdf + sf, 1.0, rtol=0, atol=4e-16)
    for k, p in zip(ks.tolist(), law.pmf(ks).tolist()):
        exact = law.exact_pmf(k, dps=30)
        assert abs(p - float(exact)) <= 1e-12 * float(exact)
    for k in ks.tolist():  # the one-sided upper tail P(X > k), deep into it
        if k < c:
            continue
        iv = exact_tail(law, k - c, two_sided=False, dps=25)
        lo, hi = ends(iv)
        mid = (lo + hi) / 2
        if mid == 0:
            continue
        got = float(law.logsf(k))
        assert abs(got - float(mpmath.log(mid))) <= 1e-12 * max(1.0, abs(got))


@pytest.mark.parametrize("law", LAWS, ids=IDS)
def test_sampler_follows_its_law(law):
    """G-test, 10^5 draws, fixed seed: a correct sampler fails with probability 1e-4."""
    x = law.sample(100_000, rng=20261124)
    assert x.dtype == np.int64
    assert g_test(x, law).p_value >= 1e-4


@pytest.mark.parametrize("law", LAWS, ids=IDS)
def test_shares_sum_to_the_law(law):
    n = 4
    if law.center != 0 and not isinstance(law, Polya):
        return  # shares(n) is defined for centred noise only (and says so)
    total = sum_pmf(law.shares(n), n, dps=40, method="convolve")
    exact = type(total).from_distribution(law, dps=40, tail=mpmath.mpf(10) ** -45)
    lo, hi = ends(total_variation(total, exact))
    if isinstance(law, DiscreteGaussian):  # Lemma 4 (000): close, not equal
        assert 0 < lo and hi < 1e-2
    else:
        assert hi <= mpmath.mpf(10) ** -30


@pytest.mark.parametrize("law", LAWS, ids=IDS)
@pytest.mark.parametrize("k_sd", [1, 4, 10])
def test_certified_tail_bound_encloses_the_exact_tail(law, k_sd):
    """tail_bound(lo, hi) >= P(X < lo) + P(X > hi) >= tail_bound(lo, hi) / 2, the exact
    outside mass taken at its certified lower end (window balls; the window misses < 1e-40)."""
    t = int(k_sd * max(1.0, law.std()))
    c = law.center
    lo_k, hi_k = c - t, c + t
    if law.support_lower is not None:
        lo_k = max(lo_k, law.support_lower)
    bound = law.tail_bound(lo_k, hi_k, dps=30)
    lo_w, hi_w, _ = _window(law)
    with balls.precision(PREC):
        ps = law.pmf_balls(lo_w, hi_w, PREC)
        outside = sum((b for k, b in zip(range(lo_w, hi_w + 1), ps) if k < lo_k or k > hi_k),
                      arb(0))
        exact_lower = balls.lower_mpf(outside)
    assert bound >= exact_lower
    assert bound <= 2 * exact_lower + mpmath.mpf(10) ** -39


# ----------------------------------------------------------------------- per-law facts
FOURIER_LAWS = [law for law in LAWS if law.center == 0 and law.symmetric
                and not isinstance(law, PolyaDifference)]


@pytest.mark.parametrize("law", FOURIER_LAWS, ids=[str(x) for x in FOURIER_LAWS])
@pytest.mark.parametrize("theta", ["0", "1/7", "1", "3"])
def test_characteristic_function_matches_the_pmf(law, theta):
    """log φ(θ) from the law's fact against Σ_k p(k) cos(θk) summed from certified balls."""
    lo, hi, outside = _window(law)
    with balls.precision(PREC):
        th = balls.to_arb(Fraction(theta))
        direct = sum((p * (th * k).cos() for p, k in zip(law.pmf_balls(lo, hi, PREC),
                                                          range(lo, hi + 1))), arb(0))
        fact = law.log_cf_ball(th).exp()
        gap = balls.upper_mpf(abs(direct - fact))
    assert gap <= outside + mpmath.mpf(10) ** -40


@pytest.mark.parametrize("law", FOURIER_LAWS, ids=[str(x) for x in FOURIER_LAWS])
@pytest.mark.parametrize("n", [1, 3])
def test_chernoff_bound_is_above_the_exact_tail(law, n):
    share_sum = sum_pmf(law, n, dps=30, method="convolve") if n > 1 else None
    for k_sd in (1, 3, 6):
        u = int(k_sd * math.sqrt(n) * max(1.0, law.std())) + 1
        with balls.precision(PREC):
            bound = balls.upper_mpf(law.log_chernoff_ball(u, n).exp())
        target = share_sum if share_sum is not None else law
        exact_lo = ends(exact_tail(target, u - 1, two_sided=False, dps=30, center=0))[0]
        assert bound >= exact_lo


RATIO_LAWS = [law for law in LAWS if law.symmetric]


@pytest.mark.parametrize("law", RATIO_LAWS, ids=[str(x) for x in RATIO_LAWS])
@pytest.mark.parametrize("d", [1, 5])
def test_shift_ratio_bound_holds(law, d):
    """sup_{y >= Y} R(y)/R(y + d) <= the law's bound, R(y) = p(y + 1)/p(y), on a grid."""
    c = law.center
    s = max(2, int(law.std()))
    with balls.precision(PREC):
        for Y in (c, c + s, c + 5 * s):
            bound = law.shift_ratio_bound(Y, d)
            ps = law.pmf_balls(Y, Y + 8 * s + d + 2, PREC)
            for j in range(0, 8 * s):
                r_y = ps[j + 1] / ps[j]
                r_yd = ps[j + d + 1] / ps[j + d]
                assert balls.lower_mpf(r_y / r_yd) <= balls.upper_mpf(bound)


@pytest.mark.parametrize("law", LAWS, ids=IDS)
def test_closed_form_sum_agrees_with_convolution(law):
    closed = law.sum_of(3)
    if closed is None:
        return
    conv = sum_pmf(law, 3, dps=40, method="convolve")
    exact = type(conv).from_distribution(closed, dps=40, tail=mpmath.mpf(10) ** -45)
    assert ends(total_variation(conv, exact))[1] <= mpmath.mpf(10) ** -30


@pytest.mark.parametrize("law", [x for x in LAWS if x.two_sided_tail_ball(0) is not None],
                         ids=lambda x: str(x))
@pytest.mark.parametrize("t", [0, 5, 200])
def test_closed_form_tail_agrees_with_the_pmf_window(law, t):
    with balls.precision(PREC):
        closed = law.two_sided_tail_ball(t)
        c_lo, c_hi = balls.lower_mpf(closed), balls.upper_mpf(closed)
    lo, hi = ends(exact_tail(law, t, dps=40))
    assert c_lo <= hi and lo <= c_hi
    assert exact_rational(c_hi) is not None
