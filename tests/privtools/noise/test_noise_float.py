"""Float pmf/logpmf/cdf/sf/logcdf/logsf/mean/var against certified exact values.

Claim under test: float results agree with the exact ones to 1e-12 relative wherever the
float result is finite and non-zero — including far tails (log-space paths) where scipy
underflows or, for Skellam's survival function, is simply wrong.
"""

from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.stats
from hypothesis import given
from hypothesis import strategies as st

from privtools.certified import balls as _arb
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Polya, PolyaDifference, Skellam

REL = 1e-12


def exact_sf(d, k: int) -> mpmath.mpf:  # k >= centre
    """P(X > k): certified PMF values summed until the certified remainder P(X > H) is
    below 1e-16 of the first term (so below 1e-16 of the sum)."""
    with mpmath.workdps(40), _arb.precision(120):
        first = d.exact_pmf(k + 1, dps=20)
        h, step = max(k + 1, d.center), 64
        while True:
            rest = d._arb_upper_tail(h)
            if rest is not None and _arb.upper_mpf(rest) <= first * mpmath.mpf("1e-16"):
                break
            h, step = h + step, 2 * step
        return mpmath.fsum(d.exact_pmf_range(k + 1, h, dps=20))


def exact_cdf(d, k: int) -> mpmath.mpf:
    """P(X <= k): by symmetry about the centre c, P(X > 2c - k - 1); for Pólya (on N), the
    finite sum from 0."""
    if isinstance(d, Polya):
        with mpmath.workdps(40):
            return mpmath.fsum(d.exact_pmf_range(0, k, dps=20))
    return exact_sf(d, 2 * d.center - k - 1)


def check_log(got_log: float, want: mpmath.mpf):
    """|exp(got_log)/want - 1| <= REL, computed in log space (no underflow).

    Where |log want| is so large that float64 cannot hold the log to 1e-12 absolute (below
    ~e^-1000, far beyond float range for the PMF itself), a few ulps of the log are allowed.
    """
    assert np.isfinite(got_log)
    target = float(mpmath.log(want))
    assert abs(got_log - target) <= max(REL, 8 * np.spacing(abs(target)))


DISTS = [
    DiscreteLaplace(Fraction(3)),  # scale up to 1e5: test_discrete_laplace_logsf_property
    Skellam(Fraction(5, 2)),
    Skellam(Fraction(10**6)),
    Skellam(Fraction(1, 3), mu=7),
    DiscreteGaussian(sigma2=Fraction(1, 4)),
    DiscreteGaussian(sigma2=Fraction(400), mu=-3),
    Polya(Fraction(1, 3), scale=Fraction(5)),
    Polya(Fraction(7), Fraction(9, 10)),
    PolyaDifference(Fraction(1, 1024), scale=Fraction(32)),
    PolyaDifference(Fraction(1, 2), Fraction(1, 3)),
]


def probe_points(d) -> list[int]:
    """Centre, ±1σ, ±5σ, and points far in both tails (down to ~1e-200 and beyond)."""
    c = d.center
    s = max(1.0, d.std())
    pts = {c, c + 1, c - 1}
    for m in (1, 5, 15):
        pts |= {int(c + m * s), int(c - m * s)}
    hi = d._float_upper_quantile(-460.0)   # sf ~ 1e-200
    lo = d._float_lower_quantile(-460.0)
    pts |= {hi, lo, hi + int(s), lo - int(s)}
    return sorted(pts)


@pytest.mark.parametrize("d", DISTS, ids=repr)
def test_logpmf_matches_exact(d):
    ks = np.array(probe_points(d))
    got = d.logpmf(ks)
    want = d.exact_pmf(ks, dps=30)
    for g, w, k in zip(got, want, ks):
        if w == 0:
            assert g == -np.inf, k
            continue
        check_log(g, w)
    pmf = d.pmf(ks)
    finite = pmf > 1e-300
    assert np.allclose(pmf[finite], np.exp(got[finite]), rtol=1e-15, atol=0)


@pytest.mark.parametrize("d", DISTS, ids=repr)
def test_tails_match_exact(d):
    ks = probe_points(d)
    for k in ks:
        if isinstance(d, Polya) and k < 0:
            continue
        # Sum only the small side; the other is its complement (near 1, no cancellation).
        if k >= d.center:
            small = exact_sf(d, k)
            check_log(float(d.logsf(k)), small)
            check_log(float(d.logcdf(k)), 1 - small)
        else:
            small = exact_cdf(d, k)
            check_log(float(d.logcdf(k)), small)
            check_log(float(d.logsf(k)), 1 - small)
    ks_arr = np.array(ks)
    np.testing.assert_allclose(d.cdf(ks_arr) + d.sf(ks_arr), 1.0, rtol=0, atol=1e-14)


@pytest.mark.parametrize("d", DISTS, ids=repr)
def test_mean_and_var_match_exact_moments(d):
    lo, hi, _ = d.exact_support("1e-40", dps=30)
    with mpmath.workdps(40):
        p = d.exact_pmf_range(lo, hi, dps=30)
        mean = mpmath.fsum(k * v for k, v in zip(range(lo, hi + 1), p))
        var = mpmath.fsum((k - mean) ** 2 * v for k, v in zip(range(lo, hi + 1), p))
    assert abs(d.mean() - float(mean)) <= 1e-12 * max(1.0, abs(float(mean)), float(var) ** 0.5)
    assert abs(d.var() / float(var) - 1) <= 1e-12


@given(var=st.integers(1, 10**7), q=st.floats(0.0, 40.0))
def test_skellam_logpmf_property(var, q):
    """Hypothesis: for any variance up to 1e7 and any point up to 40σ out, the float logpmf
    is finite and matches the certified value to 1e-12 relative."""
    d = Skellam(var)
    k = int(q * var**0.5)
    check_log(float(d.logpmf(k)), d.exact_pmf(k, dps=25))


@given(scale=st.integers(1, 10**5), q=st.floats(0.0, 200.0))
def test_discrete_laplace_logsf_property(scale, q):
    d = DiscreteLaplace(scale)
    k = int(q * scale)
    with mpmath.workdps(30):  # Fact 2 (000): P(X > k) = e^{-(k+1)/b}/(1 + e^{-1/b})
        b = mpmath.mpf(scale)
        want = mpmath.exp(-(k + 1) / b) / (1 + mpmath.exp(-1 / b))
    check_log(float(d.logsf(k)), want)


def test_scipy_skellam_sf_is_wrong_in_the_tail_and_ours_is_not():
    """Why the Skellam tails are not taken from scipy.stats: its sf is 1 - cdf, so it loses
    all accuracy below ~1e-14 (here: 8e-16 is reported as 0; 7.8e-15 as 7.5e-15)."""
    var = 1000
    d = Skellam(var)
    k = 252  # ~8σ: the true tail is 8.2e-16
    truth = exact_sf(d, k)
    assert scipy.stats.skellam.sf(k, var / 2, var / 2) == 0.0
    check_log(float(d.logsf(k)), truth)
    d2 = Skellam(50)
    truth2 = exact_sf(d2, 56)
    scipy_rel = abs(scipy.stats.skellam.sf(56, 25, 25) / float(truth2) - 1)
    assert scipy_rel > 1e-3
    check_log(float(d2.logsf(56)), truth2)


def test_scalar_in_scalar_out_and_shapes():
    d = Skellam(10)
    assert isinstance(d.pmf(3), float)
    assert d.pmf(np.arange(6).reshape(2, 3)).shape == (2, 3)
    assert d.logsf(np.array([], dtype=np.int64)).shape == (0,)
