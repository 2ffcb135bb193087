"""Vectorised table builds: the Pólya-difference weights in integer arithmetic certify their TV
against the exact law, and the loop-free alias construction samples exactly its weights."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from privtools.noise import DiscreteGaussian, DiscreteLaplace, PolyaDifference
from privtools.noise._samplers.fixed import MAX_TABLE, AliasTable, dyadic_weights
from privtools.noise._samplers.polya_table import polya_difference_weights

ONE = 1 << 64


@pytest.mark.parametrize("law", [PolyaDifference(Fraction(1, 4), scale=30),
                                 PolyaDifference(Fraction(1, 2), scale=7),
                                 PolyaDifference(1, scale=5),
                                 DiscreteLaplace(40).shares(1024)])
def test_vectorised_weights_certify_the_exact_tv(law):
    t, w, tv = polya_difference_weights(law, MAX_TABLE)
    assert w.dtype == np.uint64 and w.size == 2 * t + 1
    assert sum(int(x) for x in w) == ONE
    assert np.array_equal(w, w[::-1]) and int(np.argmax(w)) == t       # symmetric, mode 0
    assert 0 < tv < Fraction(1, 10**12)
    with mpmath.workdps(60):
        p = law.exact_pmf_range(-t, t, dps=60)
        true_tv = (sum(abs(mpmath.mpf(int(q)) / ONE - pk) for q, pk in zip(w, p))
                   + 1 - sum(p)) / 2
        assert true_tv <= mpmath.mpf(tv.numerator) / tv.denominator


def test_vectorised_weights_agree_with_the_arb_ball_weights():
    law = PolyaDifference(Fraction(1, 3), scale=60)
    t, w, tv = polya_difference_weights(law, MAX_TABLE)
    balls = law.pmf_balls(-t, t, 96)
    ref, ref_tv = dyadic_weights(balls, Fraction(0))
    gap = sum(abs(int(a) - b) for a, b in zip(w, ref))
    assert Fraction(gap, ONE) <= 2 * (tv + ref_tv)


def test_too_wide_support_returns_none_before_the_convolution():
    assert polya_difference_weights(DiscreteLaplace(10**5).shares(4), MAX_TABLE) is None
    assert DiscreteLaplace(10**5).shares(4)._table_weights(MAX_TABLE) is None


@settings(max_examples=40, deadline=None)
@given(hs.integers(2, 5000), hs.floats(0.0, 6.0), hs.integers(0, 2**32 - 1))
def test_alias_construction_reconstructs_any_weights(n, skew, seed):
    rng = np.random.default_rng(seed)
    raw = rng.random(n) ** (1 + skew * 4)
    raw[rng.random(n) < 0.2] = 0.0
    raw[0] += 1e-3
    w = np.floor(raw / raw.sum() * 2.0**59).astype(np.uint64) << np.uint64(4)
    w[int(np.argmin(w))] += np.uint64(ONE - sum(int(x) for x in w))   # (no uint64 overflow)
    table = AliasTable(w, lo=-7)
    assert table.weights() == [int(x) for x in w]
    # every word maps to a column's own point or its alias, as the thresholds say
    u = rng.integers(0, 2**63, 2000, dtype=np.uint64) * np.uint64(2) + np.uint64(1)
    j = (u >> np.uint64(64 - table.m)).astype(np.int64) if table.m else np.zeros(2000, int)
    out = table.from_words(u) + 7
    assert np.all((out == j) | (out == table._alias[j]))


@pytest.mark.parametrize("law", [DiscreteLaplace(Fraction(7, 3)), DiscreteLaplace(25),
                                 DiscreteGaussian(sigma=30, mu=7),
                                 DiscreteGaussian(sigma2=Fraction(40, 3))], ids=str)
def test_anchored_tables_certify_the_exact_tv(law):
    lo, w, tv = law._table_weights(MAX_TABLE)
    hi = lo + w.size - 1
    assert sum(int(x) for x in w) == ONE and 0 < tv < Fraction(1, 10**14)
    assert np.array_equal(w, w[::-1]) and lo + int(np.argmax(w)) == law.center
    with mpmath.workdps(60):
        p = law.exact_pmf_range(lo, hi, dps=60)
        true_tv = (sum(abs(mpmath.mpf(int(q)) / ONE - pk) for q, pk in zip(w, p))
                   + 1 - sum(p)) / 2
        assert true_tv <= mpmath.mpf(tv.numerator) / tv.denominator


def test_near_point_masses_take_the_arb_ball_path():
    law = DiscreteGaussian(sigma2=Fraction(1, 2**20))
    assert law._table_weights(MAX_TABLE) is NotImplemented
    assert law.sampler.kind == "table" and law.sampler.table.weights()[1] > 2**63
