"""Fixed-budget samplers on the default path: exact integer alias tables, certified TV bounds,
digit geometrics, exact acceptance in the rejection samplers, word counts that reveal nothing,
and the secure generator on the deployment paths."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

import privtools
from privtools.certified import balls as _arb
from privtools.errors import ParameterError
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam
from privtools.noise._samplers.fixed import (
    AliasTable,
    DigitGeometric,
    DigitLaplaceSampler,
    GaussianRejectionSampler,
    LogConcaveRejectionSampler,
    dyadic_weights,
)
from privtools.randomness import counting_rng, is_secure, words_used
from privtools.validation import as_rng
from verification.audit import audit_sampler
from verification.timing import audit_words, unary_rejection_gaussian

ONE = 1 << 64


# ------------------------------------------------------------------ alias table
@settings(max_examples=60, deadline=None)
@given(hs.lists(hs.integers(0, 2**60), min_size=1, max_size=40))
def test_alias_table_samples_exactly_its_integer_weights(raw):
    if sum(raw) == 0:
        raw = [1] + raw[1:]
    w = [x * ONE // sum(raw) for x in raw]
    w[0] += ONE - sum(w)
    t = AliasTable(w, lo=-3)
    assert t.weights() == w
    # every word maps as the columns say: the probability of k is its share of words
    m, C = t.m, ONE >> t.m
    if m:
        counts = [0] * len(w)
        for j in range(1 << m):
            thr, alias = t._thr_int[j], t._alias_int[j]
            base = j * C
            u = np.array([base, base + thr - 1, base + thr, base + C - 1], dtype=object)
            out = t.from_words(np.array([int(x) % ONE for x in u], dtype=np.uint64))
            if thr > 0:
                assert out[0] == j - 3 and out[1] == j - 3
            if thr < C:
                assert out[2] == alias - 3 and out[3] == alias - 3
            if j < len(w):
                counts[j] += thr
            if alias < len(w):
                counts[alias] += C - thr
        assert counts == w


def test_alias_table_rejects_bad_weights():
    with pytest.raises(ParameterError, match="2\\*\\*64"):
        AliasTable([1, 2, 3])
    with pytest.raises(ParameterError):
        AliasTable([ONE + 1, -1])


def test_dyadic_weights_certify_the_true_tv():
    law = DiscreteLaplace(Fraction(7, 3))
    lo, hi = -120, 120
    with _arb.precision(96):
        balls = law.pmf_balls(lo, hi, 96)
    outside = 2 * law.exact_pmf(hi + 1, dps=40) / (1 - mpmath.exp(-mpmath.mpf(3) / 7))
    tail = Fraction(math.ceil(outside * 2**200), 2**200)
    w, tv = dyadic_weights(balls, tail)
    assert sum(w) == ONE and min(w) >= 0
    with mpmath.workdps(60):
        p = law.exact_pmf_range(lo, hi, dps=60)
        true_tv = (sum(abs(mpmath.mpf(wk) / ONE - pk) for wk, pk in zip(w, p))
                   + 1 - sum(p)) / 2
        assert true_tv <= mpmath.mpf(tv.numerator) / tv.denominator
    assert tv < Fraction(1, 10**14)


@pytest.mark.parametrize("law", [DiscreteGaussian(sigma=Fraction(5, 2)), DiscreteLaplace(3),
                                 Skellam(6)])
def test_default_table_tv_is_certified_against_the_exact_law(law):
    s = law.sampler
    assert s.kind == "table" and s.tv < Fraction(1, 10**14)
    with mpmath.workdps(60):
        p = law.exact_pmf_range(s.lo, s.hi, dps=60)
        q = s.table.weights()
        true_tv = (sum(abs(mpmath.mpf(qk) / ONE - pk) for qk, pk in zip(q, p))
                   + 1 - sum(p)) / 2
        assert true_tv <= mpmath.mpf(s.tv.numerator) / s.tv.denominator


# ------------------------------------------------------------------ digits
@pytest.mark.parametrize("a", [Fraction(1, 3), Fraction(2, 7), Fraction(1, 50)])
def test_geometric_digits_factorise_the_geometric_law(a):
    """P(G = g) = (1 − r) r^g equals the product of the digit laws (base 4)."""
    g = DigitGeometric(a, bits=2)
    B, L = g.base, g.levels
    with mpmath.workdps(50):
        r = mpmath.exp(-mpmath.mpf(a.numerator) / a.denominator)
        for value in range(0, 200, 7):
            digits, v = [], value
            for _ in range(L):
                digits.append(v % B)
                v //= B
            digits.append(v)
            prob = mpmath.mpf(1)
            for i, d in enumerate(digits):
                rho = r ** (B**i)
                if i < L:
                    prob *= rho**d * (1 - rho) / (1 - rho**B)
                else:
                    prob *= rho**d * (1 - rho)
            assert abs(prob - (1 - r) * r**value) < mpmath.mpf(10) ** -45


def test_digit_laplace_follows_its_law_with_a_fixed_word_count():
    law = DiscreteLaplace(4000)
    s = DigitLaplaceSampler(law.scale)
    res = audit_sampler(lambda size, rng: s.sample(size, rng), law, 200_000, rng=11)
    assert res.verdict == "pass", res.summary()
    rng = counting_rng(5)
    before = words_used(rng)
    s.sample(None, rng)
    assert words_used(rng) - before == 2 * s.words


# ------------------------------------------------------------------ rejection samplers
def test_gaussian_rejection_follows_the_discrete_gaussian():
    law = DiscreteGaussian(sigma=60)
    s = GaussianRejectionSampler(law.sigma2)
    res = audit_sampler(lambda size, rng: s.sample(size, rng), law, 200_000, rng=12)
    assert res.verdict == "pass", res.summary()
    assert s.tv < Fraction(1, 10**12)


@pytest.mark.parametrize("y", [0, 37, 61, 200])
def test_gaussian_acceptance_resolves_words_inside_the_bracket_exactly(y):
    s = GaussianRejectionSampler(Fraction(3600))
    num = Fraction(abs(y)) - s.sigma2 / s.t
    gamma = num * num / (2 * s.sigma2)
    with mpmath.workdps(60):
        a = mpmath.exp(-mpmath.mpf(gamma.numerator) / gamma.denominator)
        u_mid = int(mpmath.floor(a * 2**64))
    rng = np.random.default_rng(0)
    assert s._resolve(y, u_mid - 1, rng) is True          # V < (u_mid)/2^64 <= a
    assert s._resolve(y, u_mid + 1, rng) is False         # V >= (u_mid + 1)/2^64 > a
    acc, und = s._accept(np.array([y]), np.array([u_mid - 10**6], dtype=np.uint64))
    assert acc[0] or und[0]


def test_log_concave_rejection_follows_skellam_with_a_certified_constant():
    law = Skellam(2500)
    s = LogConcaveRejectionSampler(law)
    xs = np.arange(-400, 401)
    ratio = np.exp(law.logpmf(xs) - s._log_q(xs))
    assert ratio.max() <= float(s.M)
    assert ratio.max() >= float(s.M) * (1 - 1e-6)
    res = audit_sampler(lambda size, rng: s.sample(size, rng), law, 200_000, rng=13)
    assert res.verdict == "pass", res.summary()


# ------------------------------------------------------------------ wide laws
@pytest.mark.parametrize("law", [DiscreteGaussian(10**9), DiscreteLaplace(10**9),
                                 Skellam(10**18), DiscreteGaussian(10**9).shares(1024)])
def test_wide_laws_are_samplable_with_a_certified_tv(law):
    x = law.sample(2000, 1)
    assert x.dtype == np.int64 and x.shape == (2000,)
    assert isinstance(law.sample(None, 2), np.int64)
    assert law.sampling_tv is not None and law.sampling_tv < Fraction(1, 10**12)
    assert 0.85 < float(np.std(x)) / law.std() < 1.15


def test_unsamplable_scale_is_named_before_any_work():
    with pytest.raises(ParameterError, match="scale"):
        DiscreteLaplace(2**60).sample(3, 0)


# ------------------------------------------------------------------ word counts
@pytest.mark.parametrize("law,expect", [
    (DiscreteGaussian(sigma=30), "pass"),
    (DiscreteLaplace(10**6), "pass"),
    (DiscreteGaussian(10**6), "pass"),
])
def test_default_samplers_reveal_nothing_through_their_word_count(law, expect):
    r = audit_words(lambda rng: law.sample(None, rng), 5000, center=law.center, seed=3)
    assert r.verdict == expect, r.summary()


def test_exact_sampler_and_unary_control_fail_the_word_audit():
    law = DiscreteLaplace(30)
    r = audit_words(lambda rng: law.sample(None, rng, exact=True), 5000, seed=3)
    assert r.verdict == "fail" and r.words["distinct"] > 1
    r = audit_words(lambda rng: unary_rejection_gaussian(30, rng), 3000, seed=3)
    assert r.verdict == "fail"


def test_word_audit_checks_the_law_when_given():
    law = DiscreteGaussian(sigma=3)
    r = audit_words(lambda rng: law.sample(None, rng), 4000, reference=law, seed=2)
    assert r.verdict == "pass" and "law" in r.tests


def test_word_audit_bad_input_is_named():
    with pytest.raises(ParameterError, match="n_draws"):
        audit_words(lambda rng: 0, 10)
    with pytest.raises(ParameterError, match="draw"):
        audit_words(3, 1000)
    with pytest.raises(ParameterError, match="alpha"):
        audit_words(lambda rng: 0, 1000, alpha=2.0)


# ------------------------------------------------------------------ secure generator
def test_secure_rng_is_chacha20_and_unpredictable():
    a, b = privtools.secure_rng(), privtools.secure_rng()
    assert is_secure(a) and is_secure(b)
    assert not np.array_equal(a.integers(0, 2**62, 8), b.integers(0, 2**62, 8))
    assert not is_secure(np.random.default_rng(0))


def test_deployment_paths_default_to_the_secure_generator(monkeypatch):
    import privtools.validation as v
    from privtools.planning import plan
    from privtools.protocol import run_batch

    calls = []

    def spy():
        calls.append(1)
        return counting_rng(9)

    monkeypatch.setattr(v, "secure_rng", spy)
    assert is_secure(as_rng(None, secure=True))
    DiscreteLaplace(5).sample(3)
    run_batch(np.zeros(16), plan("cdp", epsilon=1, n=16, horizon=100))
    assert len(calls) >= 3
    assert not is_secure(as_rng(None))       # simulations: PCG64 from the OS
    assert not is_secure(as_rng(7))          # seeded: reproducible PCG64
