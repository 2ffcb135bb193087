"""The fixed-budget sampler of wide Pólya laws (``privtools.noise._samplers.cells``): each
round returns k with probability exactly p(k)/M, the envelope is certified and tight, the
acceptance is an exact Bernoulli, the law is the Pólya law, and the word count reveals nothing."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from privtools.certified import balls as _arb
from privtools.errors import ParameterError
from privtools.noise import DiscreteLaplace, Polya, PolyaDifference
from privtools.noise._samplers.cells import CELL_TAIL, PolyaCellSampler, PolyaDifferenceCellSampler
from privtools.randomness import counting_rng, words_used
from verification.audit import audit_sampler
from verification.timing import audit_words

ONE = 1 << 64
LAWS = [Polya(Fraction(1, 2), scale=3000), Polya(Fraction(1, 16), scale=5 * 10**5),
        Polya(Fraction(1, 2**20), scale=10**9), Polya(1, scale=4096)]


@pytest.fixture(scope="module", params=range(len(LAWS)), ids=[str(x) for x in LAWS])
def sampler(request):
    return PolyaCellSampler(LAWS[request.param])


def _q(s: PolyaCellSampler, k: int) -> Fraction:
    """The proposal's exact probability of k: W_c 2^-64 2^-w_c."""
    c = int(s.proposal.cell_of(np.array([k]))[0])
    W = s.proposal.table.weights()[c]
    return Fraction(W, ONE << int(s.proposal.widths[c]))


@settings(max_examples=25, deadline=None)
@given(hs.floats(0, 1))
def test_one_round_returns_k_with_probability_p_over_m(sampler, x):
    k = int(x * (sampler.K - 1))
    with _arb.precision(160):
        lhs = _arb.to_arb(_q(sampler, k)) * sampler._arb_acceptance(k)
        rhs = sampler.law._arb_pmf(k) / _arb.to_arb(sampler.M)
        assert (lhs - rhs).contains(0)
        assert sampler._arb_acceptance(k) <= 1


def test_envelope_is_certified_and_tight(sampler):
    assert all(f <= 1 for f in sampler._f_balls)
    assert 1 <= sampler.M < Fraction(11, 10)
    assert sampler.tv <= CELL_TAIL and sampler.tv > 0
    # the cells tile [0, K) in order
    st, w = sampler.proposal.starts, sampler.proposal.widths
    assert st[0] == 0 and np.all(st[1:] == st[:-1] + (1 << w[:-1]))


def test_words_map_to_the_cell_and_offset_they_name(sampler):
    t = sampler.proposal.table
    for c in (0, 20, sampler.points // 2, sampler.points - 1):
        if t._thr_int[c] == 0:
            continue
        w = int(sampler.proposal.widths[c])
        for off in {0, (1 << w) - 1, (1 << w) // 3}:
            u0 = (c << (64 - t.m)) if t.m else 0
            u1 = ((off << (64 - w)) | 12345) % ONE if w else 2**63 + 7
            k = sampler.proposal.from_words(np.array([[u0], [u1]], dtype=np.uint64))
            assert int(k[0]) == int(sampler.proposal.starts[c]) + off


@settings(max_examples=20, deadline=None)
@given(hs.floats(0, 1), hs.integers(-20_000, 20_000))
def test_float_bracket_agrees_with_the_exact_acceptance(sampler, x, d):
    k = int(x * min(sampler.K - 1, 60 * 4096))
    with _arb.precision(200):
        a = sampler._arb_acceptance(k)
        u = int(_arb.upper_mpf(a) * 2**64) + d * 2**20
    u = min(max(u, 0), ONE - 1)
    acc, und = sampler._accept(np.array([k]), np.array([u], dtype=np.uint64))
    exact = sampler._resolve(k, u, np.random.default_rng(0))
    assert und[0] or bool(acc[0]) == exact


@pytest.mark.parametrize("law,seed", [(Polya(Fraction(1, 4), scale=400), 3),
                                      (Polya(Fraction(1, 32), scale=2000), 5)])
def test_samples_follow_the_exact_law(law, seed):
    s = PolyaCellSampler(law)
    res = audit_sampler(lambda size, rng: s.sample(size, rng), law, 200_000, rng=seed)
    assert res.verdict == "pass", res.summary()


def test_difference_of_two_terms_follows_its_law():
    # r = 1: the difference is exactly Lap_Z(b) (Fact 1 with n = 1), whose PMF is closed
    s = PolyaDifferenceCellSampler(PolyaDifference(1, scale=300))
    res = audit_sampler(lambda size, rng: s.sample(size, rng), DiscreteLaplace(300),
                        200_000, rng=4)
    assert res.verdict == "pass", res.summary()


@pytest.mark.parametrize("b,n", [(10**6, 16), (10**9, 2**20), (10**4, 1024), (10**6, 2)])
def test_wide_shares_get_a_certified_fixed_budget_sampler(b, n):
    law = DiscreteLaplace(b).shares(n)
    assert law.sampler.kind == "rejection"
    assert law.sampling_tv is not None and law.sampling_tv < Fraction(1, 10**12)
    x = law.sample(5, 1)
    assert x.dtype == np.int64 and x.shape == (5,)


def test_a_round_consumes_three_words_per_term():
    s = PolyaCellSampler(Polya(Fraction(1, 2), scale=10**6))
    rng = counting_rng(2)
    before = words_used(rng)
    s.sample(None, rng)
    assert (words_used(rng) - before) % (2 * 3) == 0     # 32-bit words, 3 a round


def test_share_word_count_reveals_nothing():
    law = DiscreteLaplace(10**6).shares(16)
    r = audit_words(lambda rng: law.sample(None, rng), 5000, center=0, seed=3)
    assert r.verdict == "pass", r.summary()
    assert r.words["distinct"] > 1


def test_cell_sampler_needs_r_at_most_one():
    with pytest.raises(ParameterError, match="r <= 1"):
        PolyaCellSampler(Polya(3, scale=10**5))
    assert PolyaDifference(3, scale=10**5).sampler.tv is None   # no deployment path: float


def test_single_draws_take_the_scalar_path_with_the_same_words_and_values(sampler):
    singles = [int(sampler.sample(None, np.random.default_rng(i))) for i in range(200)]
    batch = [int(sampler._sample_many(1, np.random.default_rng(i))[0]) for i in range(200)]
    assert singles == batch            # scalar loop == the vectorised loop on one element
    t = sampler.proposal.table
    u = np.random.default_rng(1).integers(0, 2**63, 500, dtype=np.uint64) * np.uint64(2)
    assert [t.one(int(x)) for x in u] == t.from_words(u).tolist()
