"""Tests for privtools.noise.exact_sampling (CKS20 exact samplers, no floating point).

Statistical tests use fixed seeds, so every run is deterministic. Each statistical test
uses the threshold p < 1e-4: for a correct sampler and a "random" seed, a given test
would fail with probability 1e-4 (its false-alarm rate); with the fixed seeds below they
pass, and a change to the sampler that alters the stream re-rolls that 1e-4 chance.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from privtools.noise import exact_sampling as es
from privtools.noise.exact_sampling import bernoulli_exp, discrete_gaussian, discrete_laplace

P_THRESHOLD = 1e-4  # false-alarm rate per statistical test (for an arbitrary seed)

mpmath.mp.dps = 40


# --------------------------------------------------------------------------------------
# Independent exact PMFs (mpmath) and the G-test
# --------------------------------------------------------------------------------------


def _mpf(fr: Fraction):
    return mpmath.mpf(fr.numerator) / fr.denominator


def laplace_pmf(scale: Fraction) -> tuple[int, list[float]]:
    """PMF of exp(-|x|/scale) on [-L, L] (mass beyond L < e^-70), normaliser by summation."""
    sc = _mpf(scale)
    L = math.ceil(70 * scale) + 10
    w = [mpmath.exp(-abs(x) / sc) for x in range(-L, L + 1)]
    z = mpmath.fsum(w)
    return -L, [float(v / z) for v in w]


def gaussian_pmf(sigma2: Fraction, mu: int) -> tuple[int, list[float]]:
    """PMF of exp(-(x-mu)^2/(2 sigma2)) on mu +- L (mass beyond < e^-100)."""
    s2 = _mpf(sigma2)
    L = math.ceil(15 * math.sqrt(sigma2)) + 10
    w = [mpmath.exp(-mpmath.mpf(x) ** 2 / (2 * s2)) for x in range(-L, L + 1)]
    z = mpmath.fsum(w)
    return mu - L, [float(v / z) for v in w]


def g_test(samples: np.ndarray, lo: int, pmf: list[float]) -> float:
    """G-test p-value of integer samples against pmf on lo..lo+len(pmf)-1.

    Adjacent bins are merged left to right until each has expected count >= 5 (a
    leftover tail is merged into the last bin); samples outside the range are counted in
    the outermost bins, where their expected count is ~0, so they make G explode.
    """
    n = samples.size
    idx = np.clip(samples.astype(np.int64) - lo, 0, len(pmf) - 1)
    obs = np.bincount(idx, minlength=len(pmf)).astype(float)
    exp = np.asarray(pmf) * n
    o_bins, e_bins = [], []
    o_acc = e_acc = 0.0
    for o, e in zip(obs, exp, strict=True):
        o_acc += o
        e_acc += e
        if e_acc >= 5:
            o_bins.append(o_acc)
            e_bins.append(e_acc)
            o_acc = e_acc = 0.0
    o_bins[-1] += o_acc
    e_bins[-1] += e_acc
    o_arr, e_arr = np.array(o_bins), np.array(e_bins)
    assert len(o_arr) >= 2
    pos = o_arr > 0
    g = 2.0 * float(np.sum(o_arr[pos] * np.log(o_arr[pos] / e_arr[pos])))
    return float(stats.chi2.sf(g, len(o_arr) - 1))


# --------------------------------------------------------------------------------------
# Exact-distribution tests
# --------------------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.parametrize(
    ("scale", "n", "seed"),
    [
        (Fraction(1, 3), 1_000_000, 11),
        (Fraction(1), 1_000_000, 12),
        (Fraction(5, 2), 1_000_000, 13),
        (Fraction(40), 1_000_000, 14),
        # t = 2**64 + 1 > int64: big-integer uniform draws and K loop (scale ~ 4)
        (Fraction(2**64 + 1, 2**62), 200_000, 15),
    ],
)
def test_discrete_laplace_exact_distribution(scale, n, seed):
    x = discrete_laplace(scale, size=n, rng=np.random.default_rng(seed))
    lo, pmf = laplace_pmf(scale)
    p = g_test(x, lo, pmf)
    assert p > P_THRESHOLD, f"G-test p={p:.3g} for scale={scale}"


@pytest.mark.slow
@pytest.mark.parametrize(
    ("sigma2", "mu", "n", "seed"),
    [
        (Fraction(1, 4), 0, 1_000_000, 21),
        (Fraction(1), 0, 1_000_000, 22),
        (Fraction(7, 3), -5, 1_000_000, 23),
        (Fraction(100), 1000, 1_000_000, 24),
        # Fraction(1.7)**2 has a 2**104 denominator: Python-int acceptance step
        (Fraction(1.7) ** 2, 3, 400_000, 25),
    ],
)
def test_discrete_gaussian_exact_distribution(sigma2, mu, n, seed):
    x = discrete_gaussian(sigma2, mu=mu, size=n, rng=np.random.default_rng(seed))
    lo, pmf = gaussian_pmf(sigma2, mu)
    p = g_test(x, lo, pmf)
    assert p > P_THRESHOLD, f"G-test p={p:.3g} for sigma2={sigma2}, mu={mu}"


def test_decimal_strings_are_exact_rationals():
    """"0.5" is exactly 1/2: same stream as Fraction(1, 2) for the same seed."""
    a = discrete_laplace("0.5", size=1000, rng=np.random.default_rng(3))
    b = discrete_laplace(Fraction(1, 2), size=1000, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(a, b)
    c = discrete_gaussian("2.89", size=1000, rng=np.random.default_rng(3))
    d = discrete_gaussian(Fraction(289, 100), size=1000, rng=np.random.default_rng(3))
    np.testing.assert_array_equal(c, d)


# --------------------------------------------------------------------------------------
# Bernoulli(exp(-gamma)) frequencies
# --------------------------------------------------------------------------------------

BIG = 10**40


@pytest.mark.parametrize(
    ("num", "den", "n", "seed"),
    [
        (1, 2, 400_000, 31),
        (1, 1, 400_000, 32),
        (7, 3, 400_000, 33),
        (Fraction(0.3).numerator, Fraction(0.3).denominator, 400_000, 34),  # den 2**54
        (2**62 - 3, 2**62 - 1, 200_000, 35),  # den fits int64, den*2 does not (K loop switch)
        (3 * BIG + 7, BIG, 200_000, 36),  # Python-int path, gamma > 1
        ((Fraction(1.7) ** 2).numerator, (Fraction(1.7) ** 2).denominator, 200_000, 37),
        (5, 10**6, 200_000, 38),  # gamma near 0
    ],
)
def test_bernoulli_exp_frequency(num, den, n, seed):
    # Two-sided exact binomial test at level P_THRESHOLD against p = exp(-num/den).
    p_true = float(mpmath.exp(-mpmath.mpf(num) / den))
    out = bernoulli_exp(np.full(n, num, dtype=object) if num > 2**62 else np.full(n, num),
                        den, np.random.default_rng(seed))
    assert out.dtype == bool and out.shape == (n,)
    pval = stats.binomtest(int(out.sum()), n, p_true).pvalue
    assert pval > P_THRESHOLD, f"binomial p={pval:.3g} for gamma={num}/{den}"


def test_bernoulli_exp_gamma_zero_is_always_true():
    assert bernoulli_exp(np.zeros(10_000, dtype=np.int64), 7, 0).all()
    assert bernoulli_exp(0, 2**100, 0).all()


def test_bernoulli_exp_broadcast_and_scalar():
    rng = np.random.default_rng(0)
    out = bernoulli_exp(np.arange(6).reshape(2, 3), np.array([1, 2, 3]), rng)
    assert out.shape == (2, 3) and out.dtype == bool
    assert out[0, 0]  # gamma = 0
    s = bernoulli_exp(1, 2, rng)
    assert isinstance(s, np.bool_)
    # arrays of mixed huge ints
    out = bernoulli_exp([0, 2**70, 5], [1, 2**69, 2**80], rng)
    assert out.shape == (3,) and out[0]


def test_bernoulli_exp_int_and_bigint_paths_agree_in_law():
    """The same gamma = 7/3 written with 2**80-scaled integers (Python-int path)."""
    n = 200_000
    p_true = float(mpmath.exp(-mpmath.mpf(7) / 3))
    out = bernoulli_exp(np.full(n, 7 * 2**80, dtype=object), 3 * 2**80,
                        np.random.default_rng(41))
    assert stats.binomtest(int(out.sum()), n, p_true).pvalue > P_THRESHOLD


@pytest.mark.parametrize("bits", [1, 2, 3])
@pytest.mark.parametrize(("a", "b"), [(1, 3), (5, 7), (0, 5), (4, 4), (2, 2**70 + 1)])
def test_big_bernoulli_ratio_ties(bits, a, b):
    """The lazy binary-expansion Bernoulli(a/b), with tiny words so ties are frequent."""
    n = 40_000
    rng = np.random.default_rng(1000 * bits + a)
    out = es._bern_ratio_big(np.full(n, a, dtype=object), b, rng, bits=bits)
    k = int(out.sum())
    if a == 0:
        assert k == 0
    elif a == b:
        assert k == n
    else:
        assert stats.binomtest(k, n, a / b).pvalue > P_THRESHOLD


def test_uniform_below_big_range():
    t = 3 * 2**63 + 1
    n = 60_000
    u = es._uniform_below(t, n, np.random.default_rng(5))
    assert u.dtype == object and min(u) >= 0 and max(u) < t
    bins = np.array([int(v) * 6 // t for v in u])
    counts = np.bincount(bins, minlength=6)
    assert stats.chisquare(counts).pvalue > P_THRESHOLD


# --------------------------------------------------------------------------------------
# Paths: int64 fast path vs Python-int fallback
# --------------------------------------------------------------------------------------


def _count_big_calls(monkeypatch):
    calls = []
    orig = es._bern_ratio_big

    def wrapped(*args, **kwargs):
        calls.append(1)
        return orig(*args, **kwargs)

    monkeypatch.setattr(es, "_bern_ratio_big", wrapped)
    return calls


def test_small_parameters_stay_on_int64_path(monkeypatch):
    calls = _count_big_calls(monkeypatch)
    discrete_gaussian("2.89", size=20_000, rng=1)
    discrete_gaussian("10000", size=20_000, rng=1)
    discrete_laplace("2.5", size=20_000, rng=1)
    bernoulli_exp(np.arange(1000), 7, 1)
    assert not calls


def test_big_denominators_use_python_int_path(monkeypatch):
    calls = _count_big_calls(monkeypatch)
    discrete_gaussian(Fraction(1.7) ** 2, size=100, rng=1)
    assert calls


def test_overflow_is_never_silent():
    with pytest.raises(OverflowError):
        discrete_gaussian(100, mu=2**63 - 1, size=100, rng=0)
    with pytest.raises(OverflowError):
        discrete_laplace(2**70, size=100, rng=0)


# --------------------------------------------------------------------------------------
# No floating-point randomness
# --------------------------------------------------------------------------------------


class IntegersOnlyGenerator(np.random.Generator):
    """A Generator whose floating-point methods raise; counts ``integers`` calls."""

    def __init__(self, seed):
        super().__init__(np.random.PCG64(seed))
        self.n_integers = 0

    def integers(self, *args, **kwargs):
        self.n_integers += 1
        return super().integers(*args, **kwargs)

    def _forbidden(self, *args, **kwargs):
        raise AssertionError("floating-point randomness used")

    random = standard_normal = exponential = uniform = normal = _forbidden
    standard_exponential = laplace = geometric = binomial = poisson = _forbidden
    bytes = choice = permutation = shuffle = _forbidden


def test_only_integer_randomness_is_used():
    g = IntegersOnlyGenerator(7)
    assert discrete_laplace("2.5", size=500, rng=g).shape == (500,)
    assert discrete_laplace(Fraction(2**64 + 1, 2**62), size=50, rng=g).shape == (50,)
    assert discrete_gaussian("7/3", mu=2, size=500, rng=g).shape == (500,)
    assert discrete_gaussian(Fraction(1.7) ** 2, size=100, rng=g).shape == (100,)
    assert bernoulli_exp([0, 3, 2**90], [1, 2, 2**88], g).shape == (3,)
    assert g.n_integers > 0


# --------------------------------------------------------------------------------------
# Properties (hypothesis, few examples)
# --------------------------------------------------------------------------------------

positive_fractions = st.fractions(min_value=Fraction(1, 50), max_value=200)
sizes = st.one_of(
    st.integers(0, 300),
    st.tuples(st.integers(0, 20), st.integers(0, 20)),
)
seeds = st.integers(0, 2**32 - 1)


@settings(max_examples=25, deadline=None)
@given(scale=positive_fractions, size=sizes, seed=seeds)
def test_laplace_dtype_shape_determinism(scale, size, seed):
    a = discrete_laplace(scale, size=size, rng=np.random.default_rng(seed))
    b = discrete_laplace(scale, size=size, rng=np.random.default_rng(seed))
    expected_shape = (size,) if isinstance(size, int) else size
    assert a.dtype == np.int64 and a.shape == expected_shape
    np.testing.assert_array_equal(a, b)


@settings(max_examples=25, deadline=None)
@given(sigma2=positive_fractions, mu=st.integers(-10**6, 10**6), size=sizes, seed=seeds)
def test_gaussian_dtype_shape_determinism(sigma2, mu, size, seed):
    a = discrete_gaussian(sigma2, mu=mu, size=size, rng=np.random.default_rng(seed))
    b = discrete_gaussian(sigma2, mu=mu, size=size, rng=np.random.default_rng(seed))
    expected_shape = (size,) if isinstance(size, int) else size
    assert a.dtype == np.int64 and a.shape == expected_shape
    np.testing.assert_array_equal(a, b)


def test_size_none_returns_numpy_scalar():
    x = discrete_laplace(3, rng=0)
    y = discrete_gaussian(3, mu=4, rng=0)
    assert isinstance(x, np.int64) and isinstance(y, np.int64)
    assert discrete_laplace(3, size=0, rng=0).shape == (0,)
    assert discrete_gaussian(3, size=(0, 4), rng=0).shape == (0, 4)


@settings(max_examples=15, deadline=None)
@given(scale=positive_fractions, sigma2=positive_fractions, mu=st.integers(-50, 50),
       seed=seeds)
def test_symmetry_sanity(scale, sigma2, mu, seed):
    # Counts above/below the centre: |pos - neg| <= 6 sqrt(pos + neg) + 2 (a 6-sigma
    # bound, false-alarm rate < 1e-8 per example).
    rng = np.random.default_rng(seed)
    for x in (discrete_laplace(scale, size=4000, rng=rng),
              discrete_gaussian(sigma2, mu=mu, size=4000, rng=rng) - mu):
        pos, neg = int((x > 0).sum()), int((x < 0).sum())
        assert abs(pos - neg) <= 6 * math.sqrt(pos + neg) + 2


# --------------------------------------------------------------------------------------
# Bad input: errors name the parameter
# --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("scale", "exc"),
    [(0, ValueError), (-1, ValueError), ("-0.5", ValueError), (float("nan"), ValueError),
     ("nan", ValueError), (float("inf"), ValueError), (True, TypeError), ("abc", ValueError),
     (None, TypeError), ([1], TypeError)],
)
def test_laplace_bad_scale(scale, exc):
    with pytest.raises(exc, match="scale"):
        discrete_laplace(scale, size=3, rng=0)


@pytest.mark.parametrize(
    ("sigma2", "exc"),
    [(0, ValueError), (-2, ValueError), (float("nan"), ValueError), (False, TypeError)],
)
def test_gaussian_bad_sigma2(sigma2, exc):
    with pytest.raises(exc, match="sigma2"):
        discrete_gaussian(sigma2, size=3, rng=0)


@pytest.mark.parametrize(
    ("mu", "exc"), [(1.5, TypeError), (2.0, TypeError), (True, TypeError), ("1", TypeError),
                    (2**63, ValueError)],
)
def test_gaussian_bad_mu(mu, exc):
    with pytest.raises(exc, match="mu"):
        discrete_gaussian(1, mu=mu, size=3, rng=0)


@pytest.mark.parametrize(
    ("size", "exc"),
    [(-1, ValueError), ((2, -1), ValueError), (True, TypeError), (2.0, TypeError),
     ((2, 1.5), TypeError)],
)
def test_bad_size(size, exc):
    with pytest.raises(exc, match="size"):
        discrete_laplace(1, size=size, rng=0)
    with pytest.raises(exc, match="size"):
        discrete_gaussian(1, size=size, rng=0)


def test_bad_rng():
    with pytest.raises(TypeError, match="rng"):
        discrete_laplace(1, size=3, rng="seed")
    with pytest.raises(TypeError, match="rng"):
        discrete_gaussian(1, size=3, rng=1.5)


@pytest.mark.parametrize(
    ("num", "den", "exc", "name"),
    [(-1, 1, ValueError, "num"), (1, 0, ValueError, "den"), (1, -3, ValueError, "den"),
     (0.5, 1, TypeError, "num"), (True, 1, TypeError, "num"), (1, 2.0, TypeError, "den"),
     (np.array([1.0]), 1, TypeError, "num"), ([1, "a"], 1, TypeError, "num"),
     ([1, 2], [1, 2, 3], ValueError, "num and den")],
)
def test_bernoulli_exp_bad_input(num, den, exc, name):
    with pytest.raises(exc, match=name):
        bernoulli_exp(num, den, 0)


def test_validation_happens_before_any_randomness():
    g = IntegersOnlyGenerator(0)
    with pytest.raises(ValueError, match="scale"):
        discrete_laplace(0, size=10, rng=g)
    with pytest.raises(TypeError, match="mu"):
        discrete_gaussian(1, mu=0.5, size=10, rng=g)
    assert g.n_integers == 0
