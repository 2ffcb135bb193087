"""Batch-selection schemes against mechanisms enumerated exactly (mpmath, 50 digits):
sampling with replacement, k-of-t random allocation, shuffled fixed-size batches, random
allocation of the discrete Gaussian and Skellam.

The oracles build the true run's output law and read δ(ε) = E_P[(1 − e^{ε − L})₊] from it,
in both directions; the accountant's certified upper end must never be below it.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import (
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    GaussianEvent,
    PldAccountant,
    PureDPEvent,
    RandomAllocationEvent,
    SampledWithoutReplacementEvent,
    SampledWithReplacementEvent,
    ShuffledBatchesEvent,
    SkellamEvent,
    ZCDPEvent,
)
from privtools.certified.intervals import ends
from privtools.errors import ParameterError, UnsupportedEventError

SLACK = mpmath.mpf(10) ** -40      # the oracle's own rounding (50 digits)


@pytest.fixture(autouse=True)
def _fifty_digits():
    """The oracles at 50 digits (mpmath's precision is global: restored after each test)."""
    with mpmath.workdps(50):
        yield


def _mp(x: Fraction) -> mpmath.mpf:
    return mpmath.mpf(x.numerator) / x.denominator


def _delta(law: dict, eps) -> mpmath.mpf:
    """δ(ε) of a loss law {loss: P-mass} (loss may be +inf)."""
    out = mpmath.mpf(0)
    for loss, p in law.items():
        if loss == mpmath.inf:
            out += p
        elif loss > eps:
            out += p * (1 - mpmath.exp(eps - loss))
    return out


def _compose(law: dict, k: int) -> dict:
    out = {mpmath.mpf(0): mpmath.mpf(1)}
    for _ in range(k):
        nxt: dict = {}
        for a, pa in out.items():
            for b, pb in law.items():
                key = mpmath.nstr(a + b, 40)
                if key in nxt:
                    nxt[key][1] += pa * pb
                else:
                    nxt[key] = [a + b, pa * pb]
        out = {v[0]: v[1] for v in nxt.values()}
    return out


def _laws(P: dict, Q: dict) -> tuple[dict, dict]:
    """The loss laws of (P, Q) and (Q, P) from two pmfs on the same outputs."""
    fwd: dict = {}
    rev: dict = {}
    for y in set(P) | set(Q):
        p, q = P.get(y, 0), Q.get(y, 0)
        if p > 0:
            x = mpmath.log(p / q)
            fwd[x] = fwd.get(x, 0) + p
        if q > 0:
            x = mpmath.log(q / p)
            rev[x] = rev.get(x, 0) + q
    return fwd, rev


def _exact_delta(fwd: dict, rev: dict, k: int, eps) -> mpmath.mpf:
    return max(_delta(_compose(fwd, k), eps), _delta(_compose(rev, k), eps))


# ------------------------------------------------------------ sampling with replacement
def _with_replacement_pmfs(scale: Fraction, draws: int, population: int):
    """The run of Lap_Z(scale) added to the count of ones among ``draws`` uniform draws
    from a dataset holding one 1 (the differing record) against all zeros. Outputs y < 0
    and y > draws have constant likelihood ratios: each side's tail is one output."""
    a = mpmath.exp(-1 / _mp(scale))
    c = (1 - a) / (1 + a)
    pn = mpmath.mpf(1) / population
    b = [mpmath.binomial(draws, j) * pn**j * (1 - pn) ** (draws - j)
         for j in range(draws + 1)]
    P, Q = {}, {}
    for y in range(0, draws + 1):
        P[y] = sum(b[j] * c * a ** abs(y - j) for j in range(draws + 1))
        Q[y] = c * a ** abs(y)
    below = a / (1 - a)                      # Σ_{y<0} a^{|y - j|} = a^j · a/(1 − a)
    P["low"] = sum(b[j] * c * a**j * below for j in range(draws + 1))
    Q["low"] = c * below
    # y > draws: Σ_{y>draws} a^{y - j} = a^{draws + 1 - j}/(1 − a)
    P["high"] = sum(b[j] * c * a ** (draws + 1 - j) / (1 - a) for j in range(draws + 1))
    Q["high"] = c * a ** (draws + 1) / (1 - a)
    return P, Q


@pytest.mark.parametrize("scale, draws, population, k", [
    (Fraction(1), 2, 3, 1), (Fraction(1), 3, 4, 2), (Fraction(1, 2), 4, 5, 1),
    (Fraction(2), 3, 2, 3), (Fraction(1), 1, 4, 2)])
def test_with_replacement_upper_end_above_the_exact_run(scale, draws, population, k):
    """The certified δ(ε) of sampling with replacement holds the true run's δ below its
    upper end, and at one draw (no repeats) both ends hold it: the pair is then the
    fixed-size sample's."""
    P, Q = _with_replacement_pmfs(scale, draws, population)
    fwd, rev = _laws(P, Q)
    ev = SampledWithReplacementEvent(DiscreteLaplaceEvent(scale=scale), draws, population)
    acc = PldAccountant().compose(ev, count=k)
    for eps in (Fraction(0), Fraction(1, 4), Fraction(1), Fraction(2)):
        exact = _exact_delta(fwd, rev, k, _mp(eps))
        lo, hi = ends(acc.delta(eps).interval)
        assert hi >= exact - SLACK, (eps, hi, exact)
        if draws == 1:
            assert lo - SLACK <= exact <= hi + SLACK


@settings(max_examples=12, deadline=None)
@given(st.integers(1, 3), st.integers(2, 6), st.sampled_from([Fraction(1, 2), Fraction(1)]))
def test_with_replacement_never_below_the_exact_run(draws, population, eps0):
    """The same for the ε-DP guarantee (group privacy ℓε for ℓ copies) of the discrete
    Laplace count — any inner ε-DP mechanism: the run above is one."""
    P, Q = _with_replacement_pmfs(1 / eps0, draws, population)
    fwd, rev = _laws(P, Q)
    acc = PldAccountant().compose(
        SampledWithReplacementEvent(PureDPEvent(eps0), draws, population), count=2)
    for eps in (Fraction(0), Fraction(1, 2), Fraction(3, 2)):
        assert ends(acc.delta(eps).interval)[1] >= _exact_delta(fwd, rev, 2, _mp(eps)) - SLACK


def test_with_replacement_one_draw_is_the_fixed_size_sample():
    """One draw is a fixed-size batch of one: the two events give overlapping intervals."""
    g = GaussianEvent(sigma=2)
    a = PldAccountant().compose(SampledWithReplacementEvent(g, 1, 50), count=20)
    b = PldAccountant().compose(SampledWithoutReplacementEvent(g, 1, 50), count=20)
    (alo, ahi), (blo, bhi) = ends(a.epsilon(1e-6).interval), ends(b.epsilon(1e-6).interval)
    assert alo <= bhi and blo <= ahi


def test_with_replacement_refusals_name_the_parameter():
    with pytest.raises(ParameterError, match="event must be additive noise"):
        SampledWithReplacementEvent(ZCDPEvent(Fraction(1, 8)), 2, 10)
    with pytest.raises(ParameterError, match="batch"):
        SampledWithReplacementEvent(GaussianEvent(sigma=1), 0, 10)
    ev = SampledWithReplacementEvent(GaussianEvent(sigma=1), 2, 10)
    with pytest.raises(UnsupportedEventError, match="PoissonSampledEvent"):
        PldAccountant(neighbouring="add-remove").compose(ev)
    with pytest.raises(ParameterError, match="population"):
        PldAccountant().compose(SampledWithReplacementEvent(GaussianEvent(sigma=1), 2,
                                                            2**65))


def test_with_replacement_pure_epsilon_is_group_privacy():
    """ε(0) of a pure inner: every draw may hit the record, so batch·ε₀ per run."""
    acc = PldAccountant().compose(SampledWithReplacementEvent(PureDPEvent(1), 3, 4), count=2)
    lo, hi = ends(acc.epsilon(0).interval)
    assert lo == hi == 6


# ----------------------------------------------------------------- k-of-t allocation
def _rr(eps0):
    e = mpmath.exp(_mp(eps0))
    return {1: e / (1 + e), 0: 1 / (1 + e)}, {1: 1 / (1 + e), 0: e / (1 + e)}


def _allocation_pmfs(eps0, steps: int, allocations: int):
    """Randomized response at every step; the record in a uniform ``allocations``-subset
    of the steps (P) or absent (Q)."""
    p1, q1 = _rr(eps0)
    subsets = list(itertools.combinations(range(steps), allocations))
    P, Q = {}, {}
    for y in itertools.product((0, 1), repeat=steps):
        Q[y] = math.prod((q1[b] for b in y), start=mpmath.mpf(1))
        P[y] = sum(math.prod((p1[b] if i in s else q1[b] for i, b in enumerate(y)),
                             start=mpmath.mpf(1)) for s in subsets) / len(subsets)
    return P, Q


@pytest.mark.parametrize("steps, allocations", [(4, 2), (5, 2), (6, 3), (6, 2), (3, 3)])
def test_k_of_t_allocation_dominates_the_exact_run(steps, allocations):
    """k-of-t allocation of randomized response: the certified δ(ε) is at or above the
    true run's, and holds the δ of the blocks' composition it is built from (read exactly:
    both ends agree with it)."""
    eps0 = Fraction(1)
    ev = RandomAllocationEvent(PureDPEvent(eps0), steps, allocations)
    acc = PldAccountant(neighbouring="add-remove").compose(ev)
    P, Q = _allocation_pmfs(eps0, steps, allocations)
    fwd, rev = _laws(P, Q)
    s, big = divmod(steps, allocations)
    blocks = [s + 1] * big + [s] * (allocations - big)
    bf, br = {mpmath.mpf(0): mpmath.mpf(1)}, {mpmath.mpf(0): mpmath.mpf(1)}
    for size in blocks:
        f1, r1 = _laws(*_allocation_pmfs(eps0, size, 1))
        bf, br = _product(bf, f1), _product(br, r1)
    for eps in (Fraction(0), Fraction(1, 4), Fraction(1), Fraction(2)):
        lo, hi = ends(acc.delta(eps).interval)
        e = _mp(eps)
        assert hi >= _exact_delta(fwd, rev, 1, e) - SLACK
        composed = max(_delta(bf, e), _delta(br, e))
        assert lo - SLACK <= composed <= hi + SLACK, (eps, lo, composed, hi)


def _product(a: dict, b: dict) -> dict:
    out: dict = {}
    for x, px in a.items():
        for y, py in b.items():
            key = mpmath.nstr(x + y, 40)
            if key in out:
                out[key][1] += px * py
            else:
                out[key] = [x + y, px * py]
    return {v[0]: v[1] for v in out.values()}


def test_k_of_t_ledger_holds_the_blocks():
    """k-of-t is composed as its blocks: ⌈t/k⌉-step ones first, then ⌊t/k⌋-step ones."""
    g = GaussianEvent(sigma=3)
    acc = PldAccountant(neighbouring="add-remove").compose(RandomAllocationEvent(g, 7, 3),
                                                           count=2)
    assert [(e.steps, e.allocations, c) for e, c in acc.ledger] == [(3, 1, 2), (2, 1, 4)]
    assert acc.events == ((RandomAllocationEvent(g, 7, 3), 2),)


# ------------------------------------------------------------ shuffled fixed-size batches
def test_shuffled_batches_are_the_inner_event_once_per_epoch():
    """No amplification is certified for shuffled batches: an epoch is one run of the
    inner event (the record sits in one batch), so the ledgers agree exactly."""
    inner = DiscreteLaplaceEvent(scale=3)
    a = PldAccountant().compose(ShuffledBatchesEvent(inner, steps=100), count=5)
    b = PldAccountant().compose(inner, count=5)
    for eps in (Fraction(0), Fraction(1, 2), Fraction(1)):
        assert ends(a.delta(eps).interval) == ends(b.delta(eps).interval)


def test_shuffled_batches_refused_under_add_remove_naming_allocation():
    with pytest.raises(ParameterError, match="replace-one"):
        ShuffledBatchesEvent(GaussianEvent(sigma=1), steps=10, neighbouring="add-remove")
    ev = ShuffledBatchesEvent(GaussianEvent(sigma=1), steps=10)
    with pytest.raises(UnsupportedEventError, match="RandomAllocationEvent"):
        PldAccountant(neighbouring="add-remove").compose(ev)


# ------------------------------------------- random allocation of unbounded discrete laws
def _x_law(pmf, shift: int, window: int) -> list:
    """(X, Q-mass) of X = P₁/Q₁ for a law on Z against its shift, over |y| <= window."""
    return [(pmf(y - shift) / pmf(y), pmf(y)) for y in range(-window, window + 1)]


def _allocation_delta(xs: list, t: int, eps) -> mpmath.mpf:
    """Exact δ(ε) of one record in 1 of t steps, both directions, from the X-law under Q:
    P/Q = (X₁ + … + X_t)/t over every t-tuple of the window."""
    e = mpmath.exp(eps)
    fwd = rev = mpmath.mpf(0)
    for combo in itertools.product(xs, repeat=t):
        q = math.prod((m for _, m in combo), start=mpmath.mpf(1))
        r = sum(x for x, _ in combo) / t
        fwd += q * max(r - e, 0)
        rev += q * max(1 - e * r, 0)
    return max(fwd, rev)


def _discrete_gaussian(sigma2: int, window: int = 60):
    """N_Z(0, σ²), normalised at the working precision of the call (outside mass e^-400)."""
    def pmf(y: int) -> mpmath.mpf:
        z = mpmath.fsum(mpmath.exp(-mpmath.mpf(k * k) / (2 * sigma2))
                        for k in range(-window, window + 1))
        return mpmath.exp(-mpmath.mpf(y * y) / (2 * sigma2)) / z
    return pmf


def _skellam(var: int):
    mu = mpmath.mpf(var) / 2
    return lambda y: mpmath.exp(-2 * mu) * mpmath.besseli(abs(y), 2 * mu)


@pytest.mark.parametrize("name, event, pmf, steps", [
    ("discrete Gaussian", DiscreteGaussianSumEvent(n=1, sigma2=4, sensitivity=1),
     _discrete_gaussian(4), 2),
    ("discrete Gaussian", DiscreteGaussianSumEvent(n=1, sigma2=2, sensitivity=1),
     _discrete_gaussian(2), 3),
    ("Skellam", SkellamEvent(var=4, sensitivity=1), _skellam(4), 2),
])
def test_allocation_of_an_unbounded_discrete_law_holds_the_exact_run(name, event, pmf, steps):
    """Random allocation of the discrete Gaussian and Skellam (likelihood ratios unbounded:
    cut at X_max as the Gaussian's) against every output tuple of a window whose outside
    mass is below 1e-30: both ends hold the exact δ(ε), and the interval is narrow."""
    acc = PldAccountant(neighbouring="add-remove").compose(RandomAllocationEvent(event, steps))
    with mpmath.workdps(30):
        xs = _x_law(pmf, 1, 14 if steps == 3 else 24)
        for eps in (Fraction(0), Fraction(1, 4), Fraction(3, 4)):
            exact = _allocation_delta(xs, steps, _mp(eps))
            lo, hi = ends(acc.delta(eps).interval)
            assert lo - mpmath.mpf(10) ** -20 <= exact <= hi + mpmath.mpf(10) ** -20, (
                name, eps, lo, exact, hi)
            assert hi - lo <= 1e-2 * hi + 1e-12
