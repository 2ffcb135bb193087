"""Samplers against exact laws (G-tests), sums of shares against the total noise, and RNG
discipline.

Every G-test uses a fixed seed and passes at p >= 1e-4: under a correct sampler a test
fails with probability 1e-4 (once per ten thousand seeds); the seeds are fixed, so the
suite is deterministic. ``test_g_test_detects_small_parameter_errors`` shows that these
tests do fail on slightly wrong samplers.
"""

from fractions import Fraction

import numpy as np
import pytest

from privtools.exact import sum_pmf
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Polya, PolyaDifference, Skellam
from verification.gof import g_test

P_MIN = 1e-4
N = 300_000

DISTS = [
    DiscreteLaplace(Fraction(3)),
    DiscreteLaplace(Fraction(1, 3)),
    Skellam(Fraction(5, 2)),
    Skellam(Fraction(10**6), mu=-17),
    DiscreteGaussian(sigma2=Fraction(1, 4)),
    DiscreteGaussian(sigma2=Fraction(400), mu=5),
    Polya(Fraction(1, 3), scale=Fraction(5)),
    Polya(Fraction(7), Fraction(9, 10)),
    # Theorem 1 shares: r = 1/n, beta = e^{-eps/g}
    PolyaDifference(Fraction(1, 16), scale=Fraction(4)),
    PolyaDifference(Fraction(1, 1024), scale=Fraction(32)),
    PolyaDifference(Fraction(1, 1024), scale=Fraction(1024)),
]


@pytest.mark.parametrize("d", DISTS, ids=repr)
def test_table_sampler_matches_exact_law(d):
    x = d.sample(N, rng=np.random.default_rng(101))
    assert x.dtype == np.int64 and x.shape == (N,)
    assert g_test(x, d).p_value >= P_MIN


@pytest.mark.parametrize("d", DISTS, ids=repr)
def test_direct_sampler_matches_exact_law(d):
    """The mixture / geometric / rejection samplers (used when a table is too large)."""
    x = np.asarray(d._sample_direct(N, np.random.default_rng(202)), dtype=np.int64)
    assert g_test(x, d).p_value >= P_MIN


@pytest.mark.parametrize("dist,exact", [
    (DiscreteLaplace(Fraction(32)), True),
    (DiscreteGaussian(sigma2=Fraction(100)), True),
    (DiscreteGaussian(sigma2=Fraction(1, 3), mu=-2), True),
])
def test_exact_samplers_through_the_distribution(dist, exact):
    x = dist.sample(N, rng=np.random.default_rng(404), exact=exact)
    assert g_test(x, dist).p_value >= P_MIN


@pytest.mark.parametrize("total,n", [
    (DiscreteLaplace(Fraction(8)), 16),        # Fact 1 (000): Pólya shares -> Lap_Z
    (Skellam(Fraction(400)), 16),              # Skellam closure (Theorem 2)
    (DiscreteGaussian(sigma2=Fraction(3)), 4),  # Theorem 4: compare with the exact sum
])
def test_sum_of_shares_follows_the_exact_total(total, n):
    share = total.shares(n)
    sums = share.sample((100_000, n), rng=np.random.default_rng(505)).sum(axis=1)
    law = sum_pmf(share, n, dps=20, method="convolve")
    assert g_test(sums, law).p_value >= P_MIN


def test_million_user_shares():
    """n = 2^20 (Theorem 1 at eps = 1: g = 1024): one share is non-zero with probability
    ~1.3e-5, too rare for a G-test of single draws. Check P(share = 0) with a binomial
    test, and the law of 1024 summed shares, which is exactly PolyaDifference(2^-10)."""
    import scipy.stats

    share = DiscreteLaplace(Fraction(1024)).shares(2**20)
    rng = np.random.default_rng(707)
    x = share.sample(2_000_000, rng)
    p0 = float(share.exact_pmf(0, dps=20))
    assert scipy.stats.binomtest(int((x == 0).sum()), x.size, p0).pvalue >= P_MIN
    sums = share.sample((60_000, 1024), rng).sum(axis=1)
    law = PolyaDifference(Fraction(1, 1024), scale=Fraction(1024))
    assert g_test(sums, law).p_value >= P_MIN


def test_g_test_detects_small_parameter_errors():
    """Power: 3e5 draws expose a 3% scale error and a share count off by one."""
    rng = np.random.default_rng(606)
    x = DiscreteLaplace(Fraction(3)).sample(N, rng)
    assert g_test(x, DiscreteLaplace(Fraction(309, 100))).p_value < 1e-6
    share = DiscreteLaplace(Fraction(4)).shares(8)
    sums = share.sample((N, 7), rng).sum(axis=1)  # one user's noise missing
    assert g_test(sums, DiscreteLaplace(Fraction(4))).p_value < 1e-6


def test_same_seed_same_draws_and_no_global_state():
    d = PolyaDifference(Fraction(1, 64), scale=Fraction(8))
    a = d.sample(1000, rng=7)
    np.random.seed(0)  # noqa: NPY002 - the global state must not matter
    b = d.sample(1000, rng=np.random.default_rng(7))
    np.random.seed(1)  # noqa: NPY002
    assert np.array_equal(a, b)
    ss = np.random.SeedSequence(99)
    c1, c2 = (d.sample(100, rng=s) for s in ss.spawn(2))
    assert not np.array_equal(c1, c2)
    assert np.array_equal(c1, d.sample(100, rng=np.random.SeedSequence(99).spawn(2)[0]))


def test_shapes_and_scalars():
    d = Skellam(10)
    assert isinstance(d.sample(rng=1), np.int64)
    assert d.sample((3, 4), rng=1).shape == (3, 4)
    assert d.sample(0, rng=1).shape == (0,)
    assert d.rvs(size=5, random_state=2).shape == (5,)


def test_exact_sampling_unavailable_is_an_error():
    with pytest.raises(ValueError, match="exact"):
        Skellam(10).sample(5, rng=1, exact=True)
    with pytest.raises(ValueError, match="exact"):
        PolyaDifference(Fraction(1, 2), Fraction(1, 2)).sample(5, rng=1, exact=True)
