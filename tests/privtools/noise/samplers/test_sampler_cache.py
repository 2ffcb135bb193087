"""Default samplers are shared by laws of equal type and exact parameters, in a cache bounded
in entries and in table points (``privtools.noise._samplers.cache``)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam
from privtools.noise._samplers import cache as _cache


@pytest.fixture(autouse=True)
def _fresh_cache():
    _cache.clear_sampler_cache()
    yield
    _cache.clear_sampler_cache()


def test_a_second_instance_of_a_law_gets_the_same_sampler_and_the_same_draws():
    a = DiscreteLaplace(scale=7).shares(16)
    b = DiscreteLaplace(scale=Fraction(7)).shares(16)
    assert a == b and a is not b
    assert a.sampler is b.sampler
    np.testing.assert_array_equal(a.sample(1000, rng=np.random.default_rng(3)),
                                  b.sample(1000, rng=np.random.default_rng(3)))


@given(s1=st.integers(1, 40), s2=st.integers(1, 40))
@settings(max_examples=20, deadline=None)
def test_laws_share_a_sampler_exactly_when_they_are_equal(s1, s2):
    a, b = DiscreteLaplace(scale=s1), DiscreteLaplace(scale=s2)
    assert (a.sampler is b.sampler) == (s1 == s2)


def test_laws_of_different_types_never_share():
    lap = DiscreteLaplace(scale=3)
    gauss = DiscreteGaussian(sigma2=9)
    sk = Skellam(var=18)
    samplers = {id(lap.sampler), id(gauss.sampler), id(sk.sampler)}
    assert len(samplers) == 3


def test_the_cache_keeps_its_entry_bound(monkeypatch):
    monkeypatch.setattr(_cache, "SAMPLER_CACHE_ENTRIES", 3)
    laws = [DiscreteLaplace(scale=s) for s in range(1, 8)]
    for law in laws:
        _ = law.sampler
        assert len(_cache._SAMPLER_CACHE) <= 3
    kept = [key[1] for key in _cache._SAMPLER_CACHE]
    assert kept == laws[-3:]            # least recently used go first


def test_the_cache_keeps_its_point_bound_and_refuses_a_table_larger_than_it(monkeypatch):
    small = DiscreteLaplace(scale=2)
    budget = 3 * small.sampler.points
    _cache.clear_sampler_cache()
    monkeypatch.setattr(_cache, "SAMPLER_CACHE_POINTS", budget)
    for s in (2, 3, 4, 5, 6, 7):
        _ = DiscreteLaplace(scale=s).sampler
        assert sum(v.points for v in _cache._SAMPLER_CACHE.values()) <= budget
    wide = DiscreteLaplace(scale=200)
    assert wide.sampler.points > budget
    assert (type(wide), wide) not in _cache._SAMPLER_CACHE


def test_a_cache_hit_refreshes_the_entry(monkeypatch):
    monkeypatch.setattr(_cache, "SAMPLER_CACHE_ENTRIES", 2)
    a, b, c = (DiscreteLaplace(scale=s) for s in (1, 2, 3))
    _ = a.sampler
    _ = b.sampler
    _ = DiscreteLaplace(scale=1).sampler          # a is used again: b is now the oldest
    _ = c.sampler
    assert [key[1] for key in _cache._SAMPLER_CACHE] == [a, c]


def test_clearing_the_cache_builds_afresh_with_the_same_certificate():
    first = DiscreteGaussian(sigma2=5).sampler
    _cache.clear_sampler_cache()
    again = DiscreteGaussian(sigma2=5).sampler
    assert again is not first and again.tv == first.tv
