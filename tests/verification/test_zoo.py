"""The zoo of DP-testing benchmark mechanisms: contract (shape, dtype, reproducibility),
well-formed SVT transcripts, exact laws where they exist, and a registry whose ground truth
is self-consistent."""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given
from hypothesis import strategies as hst

from privtools.errors import ParameterError
from verification import zoo
from verification.zoo.noisy_max import noisy_max_index_laplace, noisy_max_value_exponential
from verification.zoo.rappor import (
    bloom_bits,
    murmur3_32,
    rappor_bit_probabilities,
    rappor_epsilon,
)
from verification.zoo.simple import (
    laplace_noise,
    noisy_hist1,
    noisy_hist2,
    prefix_sum,
    truncated_geometric,
    truncated_geometric_epsilon,
    truncated_geometric_pmf,
)
from verification.zoo.svt import numerical_svt, svt1, svt2, svt3, svt4, svt5, svt6, svt34_parallel

DPSNIPER = ["Laplace", "TruncatedGeometric", "NoisyHist1", "NoisyHist2", "ReportNoisyMax1",
            "ReportNoisyMax2", "ReportNoisyMax3", "ReportNoisyMax4", "SVT1", "SVT2", "SVT3",
            "SVT4", "SVT5", "SVT6", "Rappor", "OneTimeRappor", "LaplaceParallel",
            "SVT34Parallel", "PrefixSum", "NumericalSVT"]
STATDP_BASES = ["NoisyMax-v1a", "NoisyMax-v1b", "NoisyMax-v2a", "NoisyMax-v2b", "Histogram",
                "Histogram-eps", "SVT", "iSVT1", "iSVT2", "iSVT3", "iSVT4"]
FLOATS = ["FloatLaplaceInversion", "FloatLaplaceLogUniform", "FloatLaplaceExpDiff",
          "FloatLaplaceFullUniform", "FloatGaussBoxMuller", "FloatGaussPolar",
          "FloatGaussZiggurat", "LaplaceNoiseTruncated", "LaplaceOutputRounded", "Snapping"]
PUBLISHED = dict(zip(DPSNIPER, [0.0968, 0.1156, 0.0978, 4.602, 0.0923, 0.0975, 0.2478, 0.3463,
                                0.0858, 0.0859, 0.1716, 0.1687, 1.761, 0.2720, 0.2930, 0.5978,
                                0.0350, 0.2610, 0.5040, 0.0343]))


def _kind(name: str) -> tuple[str, np.dtype]:
    """(output layout, dtype) the convention prescribes for the entry ``name``."""
    base = name.split("@")[0]
    if base in ("TruncatedGeometric", "ReportNoisyMax1", "ReportNoisyMax2", "NoisyMax-v1a",
                "NoisyMax-v2a"):
        return "scalar", np.dtype(np.int64)
    if base in ("Laplace", "ReportNoisyMax3", "ReportNoisyMax4", "NoisyMax-v1b",
                "NoisyMax-v2b") or base in FLOATS:
        return "scalar", np.dtype(np.float64)
    if base in ("Rappor", "OneTimeRappor"):
        return "bits", np.dtype(bool)
    if base in ("SVT1", "SVT2", "SVT4", "SVT5", "SVT6", "SVT", "iSVT1", "iSVT2", "iSVT3"):
        return "vector", np.dtype(np.int8)
    return "vector", np.dtype(np.float64)


def _width(entry, d) -> int:
    base = entry.name.split("@")[0]
    return {"LaplaceParallel": 20, "Rappor": 20, "OneTimeRappor": 20,
            "SVT34Parallel": 2 * len(d)}.get(base, len(d))


# ----------------------------------------------------------------------------- registry

def test_registry_is_complete():
    assert [m.name for m in zoo.dpsniper_suite()] == DPSNIPER
    assert [m.name for m in zoo.statdp_suite()] == [
        f"{b}@{e}" for e in zoo.STATDP_EPSILONS for b in STATDP_BASES]
    assert [m.name for m in zoo.float_suite()] == FLOATS
    assert len(zoo.ZOO) == 20 + 11 * 3 + 10
    assert all(zoo.get(n) is zoo.ZOO[n] for n in zoo.ZOO)


@pytest.mark.parametrize("name", list(zoo.ZOO))
def test_entry_is_well_formed_and_consistent(name):
    m = zoo.get(name)
    assert m.name == name and m.source and m.relation in zoo.RELATIONS
    assert m.suite == ("statdp" if "@" in name else "floats" if name in FLOATS else "dpsniper")
    if m.true_epsilon is not None:
        assert m.private == (m.true_epsilon <= m.epsilon + 1e-12)
    else:
        assert not m.private
    assert m.dpsniper == PUBLISHED.get(name)
    if m.suite == "floats":
        assert 0.5 <= m.epsilon < 0.5 + 1e-9 and m.witness == ((0,), (1,))
        assert m.delta == (1e-5 if "Gauss" in name else 0.0)
    else:
        assert m.epsilon == (0.1 if m.suite == "dpsniper" else float(name.split("@")[1]))
        assert m.delta == 0.0 and m.witness is None
    assert m.pairs and all(isinstance(d, tuple) for d in m.datasets)
    for d, d2 in m.pairs:
        assert len(d) == len(d2) and (d2, d) in m.pairs
        gap = np.abs(np.subtract(d, d2))
        assert gap.max() == 1
        if m.relation != "query":
            assert np.count_nonzero(gap) == 1
    assert pickle.loads(pickle.dumps(m.mechanism)) is not None


def test_known_true_privacy():
    t = {n: zoo.get(n).true_epsilon for n in DPSNIPER}
    for n in ("Laplace", "NoisyHist1", "ReportNoisyMax1", "ReportNoisyMax2", "SVT1", "SVT2",
              "NumericalSVT"):
        assert t[n] == pytest.approx(0.1, abs=1e-15)
    assert t["LaplaceParallel"] == pytest.approx(0.1, abs=1e-15)
    assert t["NoisyHist2"] == pytest.approx(10.0)
    assert t["SVT4"] == pytest.approx((1 + 6 * 1) / 4 * 0.1)
    assert t["SVT3"] == pytest.approx(0.5) and t["SVT6"] == pytest.approx(0.5)
    assert t["ReportNoisyMax3"] == pytest.approx(0.25)
    assert t["SVT34Parallel"] == pytest.approx(0.25 + 13 / 4 * 0.1)
    assert t["PrefixSum"] == pytest.approx(1.0)
    assert t["ReportNoisyMax4"] == t["SVT5"] == math.inf
    assert t["TruncatedGeometric"] == pytest.approx(math.log(9 / 8), abs=1e-15)
    assert t["Rappor"] == pytest.approx(8 * math.log(0.5125 / 0.4875), abs=1e-12)
    assert t["OneTimeRappor"] == pytest.approx(8 * math.log(0.525 / 0.475), abs=1e-12)
    assert zoo.get("NoisyHist2").statdp == 9.72
    assert [zoo.get(f"Histogram-eps@{e}").private for e in zoo.STATDP_EPSILONS] == \
        [False, False, True]
    # every DP-Sniper lower bound sits below the truth (a sound tester never exceeds it)
    assert all(PUBLISHED[n] < t[n] for n in DPSNIPER)


def test_get_unknown_name_names_the_parameter():
    with pytest.raises(ParameterError, match=r"name 'SVT9'.*SVT1"):
        zoo.get("SVT9")


# ----------------------------------------------------------------------------- contract

@pytest.mark.parametrize("name", list(zoo.ZOO))
def test_shape_dtype_and_reproducibility(name):
    m = zoo.get(name)
    layout, dtype = _kind(name)
    for d in (m.datasets[0], m.datasets[-1]):
        for size in (0, 1, 1000):
            out = m.mechanism(d, size, np.random.default_rng(7))
            want = (size,) if layout == "scalar" else (size, _width(m, d))
            assert out.shape == want and out.dtype == dtype
        again = m.mechanism(d, 1000, np.random.default_rng(7))
        assert np.array_equal(out, again, equal_nan=dtype.kind == "f")
        other = m.mechanism(d, 1000, np.random.default_rng(8))
        assert not np.array_equal(out, other, equal_nan=dtype.kind == "f")


def test_bad_arguments_raise_parameter_errors():
    rng = np.random.default_rng(0)
    with pytest.raises(ParameterError, match="dataset"):
        svt1([], 10, rng)
    with pytest.raises(ParameterError, match="size"):
        svt1([1, 2], -1, rng)
    with pytest.raises(ParameterError, match="rng"):
        svt1([1, 2], 10, np.random.RandomState(0))
    with pytest.raises(ParameterError, match="dataset"):
        truncated_geometric([6], 10, rng)
    with pytest.raises(ParameterError, match="dataset"):
        zoo.get("Laplace").mechanism([1, 2], 10, rng)
    with pytest.raises(ParameterError, match="c must"):
        svt1([1, 2], 10, rng, c=0)


# ----------------------------------------------------------------------------- SVT

def _as_answers(out: np.ndarray) -> np.ndarray:
    """A release transcript (value / -inf / nan) read as int8 answers (1 / 0 / -1)."""
    ans = np.where(np.isnan(out), -1, np.where(np.isneginf(out), 0, 1)).astype(np.int8)
    assert np.all(np.isfinite(out[ans == 1]))
    return ans


def _check_cutoff(ans: np.ndarray, c: int):
    assert set(np.unique(ans)) <= {-1, 0, 1}
    top = (ans == 1).astype(np.int32)
    stopped = (np.cumsum(top, axis=1) - top) >= c       # c tops strictly before
    assert np.array_equal(ans == -1, stopped)            # -1 exactly after the c-th top
    assert np.all(top.sum(axis=1) <= c)


queries = hst.lists(hst.integers(-3, 3), min_size=1, max_size=12)


@given(q=queries, c=hst.integers(1, 3), eps=hst.sampled_from([0.1, 1.0, 5.0]),
       seed=hst.integers(0, 2**16))
def test_svt_transcripts_are_well_formed(q, c, eps, seed):
    for alg in (svt1, svt2, svt4):
        _check_cutoff(alg(q, 300, np.random.default_rng(seed), epsilon=eps, c=c), c)
    for alg in (svt3, numerical_svt):
        _check_cutoff(_as_answers(alg(q, 300, np.random.default_rng(seed), epsilon=eps, c=c)),
                      c)
    both = svt34_parallel(q, 300, np.random.default_rng(seed), epsilon=eps, c=c)
    _check_cutoff(_as_answers(both[:, : len(q)]), c)
    right = both[:, len(q):]
    _check_cutoff(np.where(np.isnan(right), -1, right).astype(np.int8), c)
    for alg in (svt5, svt6):
        assert set(np.unique(alg(q, 300, np.random.default_rng(seed), epsilon=eps))) <= {0, 1}


@given(q=queries, seed=hst.integers(0, 2**16))
def test_svt5_is_a_threshold_on_the_true_answers(q, seed):
    """No query noise: each draw answers ⊤ exactly on the answers above its one threshold."""
    ans = svt5(q, 500, np.random.default_rng(seed))
    q = np.asarray(q)
    for i in range(q.size):
        for j in range(q.size):
            if q[i] == q[j]:
                assert np.array_equal(ans[:, i], ans[:, j])
            elif q[i] < q[j]:
                assert np.all(ans[:, i] <= ans[:, j])


def test_statdp_entries_are_the_lyu_su_li_algorithms():
    same = {"SVT": (svt1, 1, 0.5), "iSVT1": (svt5, None, 1.0), "iSVT2": (svt6, None, 1.0),
            "iSVT3": (svt4, 1, 1.0), "iSVT4": (svt3, 1, 1.0)}
    for e in zoo.STATDP_EPSILONS:
        for base, (alg, c, t) in same.items():
            mech = zoo.get(f"{base}@{e}").mechanism
            assert mech.func is alg and mech.keywords["epsilon"] == e
            assert mech.keywords.get("c") == c and mech.keywords["threshold"] == t


def test_svt2_with_one_positive_answer_is_svt1():
    """With c = 1 Algorithm 2 never redraws its threshold: same draws, same transcript."""
    q = [1, 0, 2, 1, 1, 3, 0, 1, 2, 1]
    a = svt1(q, 5000, np.random.default_rng(3), epsilon=0.5, c=1, threshold=1.0)
    b = svt2(q, 5000, np.random.default_rng(3), epsilon=0.5, c=1, threshold=1.0)
    assert np.array_equal(a, b)


def test_svt3_releases_the_noisy_answer_above_the_threshold():
    out = svt3([0.0] * 10, 20000, np.random.default_rng(4), epsilon=1.0, c=1, threshold=1.0)
    released = out[np.isfinite(out)]
    assert released.size > 0 and np.unique(released).size == released.size


# ----------------------------------------------------------------------------- exact laws

def test_truncated_geometric_pmf_is_the_clamped_geometric():
    """count + two-sided geometric noise with ratio α = 8/9 (k = ⌈ln 20⌉ = 3), clamped to
    [0, 5]: interior mass (1-α)/(1+α)·α^|z-c|, each end the whole tail α^gap/(1+α)."""
    alpha = Fraction(8, 9)
    for c in range(6):
        pmf = truncated_geometric_pmf(c, epsilon=0.1, n=5)
        assert sum(pmf) == 1
        assert pmf[0] == alpha**c / (1 + alpha) and pmf[5] == alpha ** (5 - c) / (1 + alpha)
        for z in range(1, 5):
            assert pmf[z] == (1 - alpha) / (1 + alpha) * alpha ** abs(z - c)
    assert truncated_geometric_epsilon(epsilon=0.1, n=5) == pytest.approx(math.log(9 / 8),
                                                                            abs=1e-15)


@pytest.mark.parametrize("count", [0, 1, 5])
def test_truncated_geometric_frequencies_fit_the_exact_pmf(count):
    n = 100_000
    z = truncated_geometric([count], n, np.random.default_rng(11 + count))
    observed = np.bincount(z, minlength=6)
    expected = np.array([float(p) for p in truncated_geometric_pmf(count)]) * n
    assert observed.sum() == n and z.min() >= 0 and z.max() <= 5
    assert st.chisquare(observed, expected).pvalue > 1e-6


def test_noisy_histograms_are_centred_with_the_laplace_scale():
    counts, n, eps = np.array([0.0, 3.0, 10.0, 1.0, 7.0]), 200_000, 0.1
    out = noisy_hist1(counts, n, np.random.default_rng(5), epsilon=eps)
    sd_mean = math.sqrt(2 * (1 / eps) ** 2 / n)          # Var Lap(b) = 2b²
    assert np.all(np.abs(out.mean(axis=0) - counts) <= 6 * sd_mean)
    out2 = noisy_hist2(counts, n, np.random.default_rng(6), epsilon=eps)
    # E|Lap(b)| = b and sd|Lap(b)| = b: the wrong histogram's scale is ε itself
    assert np.all(np.abs(np.abs(out2 - counts).mean(axis=0) - eps) <= 6 * eps / math.sqrt(n))


def test_prefix_sum_is_the_running_sum_of_noisy_answers():
    q, n = np.arange(10.0), 100_000
    out = prefix_sum(q, n, np.random.default_rng(9), epsilon=0.5)
    steps = np.diff(out, axis=1, prepend=0.0)
    assert np.all(np.abs(steps.mean(axis=0) - q) <= 6 * math.sqrt(2 * 2.0**2 / n))


def test_laplace_noise_has_the_laplace_law():
    x = laplace_noise(np.random.default_rng(12), 3.0, 50_000)
    assert st.kstest(x, st.laplace(scale=3.0).cdf).pvalue > 1e-6


def test_noisy_max_support_and_argmax():
    q = [1.0, 4.0, -2.0, 0.0, 3.0]
    assert np.all(noisy_max_value_exponential(q, 10_000, np.random.default_rng(1)) >= 4.0)
    far = [0.0, 0.0, 1e4, 0.0, 0.0]                      # a gap of 500 noise scales
    assert np.all(noisy_max_index_laplace(far, 10_000, np.random.default_rng(2)) == 2)


# ----------------------------------------------------------------------------- RAPPOR

def test_murmur3_matches_the_reference_vectors():
    for data, seed, want in [(b"", 0, 0), (b"", 1, 0x514E28B7), (b"", 0xFFFFFFFF, 0x81F16F39),
                             (b"\0\0\0\0", 0, 0x2362F9DE), (b"aaaa", 0x9747B28C, 0x5A97808A),
                             (b"Hello, world!", 0x9747B28C, 0x24884CBA),
                             (b"foo", 0, 2**32 - 156908512)]:
        assert murmur3_32(data, seed) == want


def test_rappor_bits_and_exact_privacy():
    assert np.flatnonzero(bloom_bits(1)).tolist() == [3, 10, 13]     # a collision: 3 bits
    assert np.array_equal(bloom_bits(1.0), bloom_bits(1))
    per_bit = math.log(0.5125 / 0.4875)
    differ = int(np.count_nonzero(bloom_bits(1) ^ bloom_bits(0)))
    assert rappor_epsilon(1, 0) == pytest.approx(differ * per_bit, abs=1e-12)
    assert rappor_epsilon(1, 1) == 0.0
    otr = rappor_epsilon(1, 0, f=0.95, p=None, q=None)
    assert otr == pytest.approx(differ * math.log(0.525 / 0.475), abs=1e-12)


@pytest.mark.parametrize("name", ["Rappor", "OneTimeRappor"])
def test_rappor_bit_frequencies_match_the_exact_probabilities(name):
    n = 100_000
    bits = zoo.get(name).mechanism([2], n, np.random.default_rng(13))
    kw = dict(f=0.75, p=0.45, q=0.55) if name == "Rappor" else dict(f=0.95, p=None, q=None)
    p = rappor_bit_probabilities(2, **kw)
    assert np.all(np.abs(bits.mean(axis=0) - p) <= 6 * np.sqrt(p * (1 - p) / n))


# ----------------------------------------------------------------------------- patterns

@given(d=hst.lists(hst.integers(-5, 5), min_size=1, max_size=12))
def test_query_patterns_are_neighbours(d):
    found = zoo.query_patterns(d)
    assert len(found) == len(set(found)) and tuple(d) not in found
    for other in found:
        assert len(other) == len(d) and max(abs(a - b) for a, b in zip(d, other)) == 1
    single = zoo.query_patterns(d, relation="histogram")
    assert single == found[:2]
    assert all(sum(a != b for a, b in zip(d, o)) == 1 for o in single)


def test_query_patterns_are_statdps_on_the_all_ones_vector():
    assert zoo.query_patterns((1, 1, 1, 1, 1))[:7] == [
        (0, 1, 1, 1, 1), (2, 1, 1, 1, 1), (2, 0, 0, 0, 0), (0, 2, 2, 2, 2), (2, 2, 0, 0, 0),
        (2, 2, 2, 2, 2), (0, 0, 0, 0, 0)]
    assert zoo.query_patterns((1, 1, 0, 0, 0))[-1] == (0, 0, 1, 1, 1)      # X-shape
    assert zoo.query_patterns((1,)) == [(0,), (2,)]
    with pytest.raises(ParameterError, match="relation"):
        zoo.query_patterns((1,), relation="nearby")
