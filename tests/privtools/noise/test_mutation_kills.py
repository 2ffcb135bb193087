"""Exact properties of the noise laws and the protocol that pin down their constants, scales,
signs and branches (see docs/tables/mutation.md).

Oracles are closed forms in rationals or in mpmath at 200 bits, compared with certified balls
by enclosure or with floats where the float result is exact; random draws use fixed seeds.
"""

from __future__ import annotations

import dataclasses
import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
import scipy.stats as stats
from hypothesis import given
from hypothesis import strategies as st

from privtools.certified import balls
from privtools.errors import ParameterError
from privtools.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    NoiseSum,
    Polya,
    PolyaDifference,
    Skellam,
)
from privtools.noise._samplers.fixed import (
    DigitLaplaceSampler,
    GaussianRejectionSampler,
    LogConcaveRejectionSampler,
    dyadic_weights,
)
from privtools.noise.exact_sampling import bernoulli_exp, discrete_laplace
from privtools.noise.polya import log_gamma_ratio
from privtools.protocol import (
    MaskedSecAgg,
    ProtocolParams,
    _shamir,
    analyze,
    analyze_many,
    check_messages,
    encode,
    randomize_parts,
    run_batch,
    run_batches,
)
from privtools.protocol._prg import LABEL, MaskSampler, masks_from_seeds, pair_info
from privtools.protocol.secure import message_bytes

PREC = 200


def _mp(x) -> mpmath.mpf:
    x = Fraction(x)
    return mpmath.mpf(x.numerator) / x.denominator


def _encloses(ball, value, bits: int = 150) -> bool:
    """``ball`` contains ``value`` and is narrow (relative width below 2^-bits)."""
    lo, hi = balls.lower_mpf(ball), balls.upper_mpf(ball)
    return lo <= value <= hi and hi - lo <= abs(value) * mpmath.mpf(2) ** -bits


# ------------------------------------------------------------------------------ NoiseSum
@given(n=st.integers(1, 64), num=st.integers(1, 1000), bits=st.integers(0, 8))
def test_noise_sum_variance_is_n_times_the_share_variance(n, num, bits):
    v = Fraction(num, 2**bits)  # dyadic: n·v is exact in float64
    assert NoiseSum(Skellam(v), n).var() == float(n * v)


@pytest.mark.parametrize(("var", "k", "n", "u"), [("1/2", 3, 1, 4), ("7", 2, 5, 40),
                                                  ("3/4", 1, 3, 9)])
def test_noise_sum_chernoff_bound_is_the_skellam_bound_of_all_shares(var, k, n, u):
    """Sk(0, v) summed over n·k shares is Sk(0, nkv), whose Chernoff bound at
    λ = asinh(u/w), w = nkv, is w(cosh λ − 1) − λu."""
    law = NoiseSum(Skellam(var), k)
    with mpmath.workprec(PREC + 20), balls.precision(PREC):
        w = n * k * _mp(var)
        lam = mpmath.asinh(u / w)
        exact = w * (mpmath.cosh(lam) - 1) - lam * u
        assert _encloses(law.log_chernoff_ball(u, n), exact)
        if n == 1:
            assert _encloses(law.log_chernoff_ball(u), exact)


@pytest.mark.parametrize("t", [0, 3, 17])
def test_noise_sum_closed_tail_only_for_one_share(t):
    """Fact 2 (000): P(|X| > t) = 2e^{−(t+1)/b}/(1 + e^{−1/b}) for Lap_Z(b)."""
    b = Fraction(5, 2)
    with mpmath.workprec(PREC + 20), balls.precision(PREC):
        exact = 2 * mpmath.exp(-(t + 1) / _mp(b)) / (1 + mpmath.exp(-1 / _mp(b)))
        assert _encloses(NoiseSum(DiscreteLaplace(b), 1).two_sided_tail_ball(t), exact)
    assert NoiseSum(DiscreteLaplace(b), 2).two_sided_tail_ball(t) is None


def test_noise_sum_needs_one_share():
    assert NoiseSum(DiscreteLaplace(2), 1).n == 1
    with pytest.raises(ParameterError):
        NoiseSum(DiscreteLaplace(2), 0)


# ------------------------------------------------------------------------ immutability
LAWS = [DiscreteLaplace("3/2"), Skellam(7), DiscreteGaussian(sigma2=5),
        Polya(2, "1/2"), PolyaDifference("1/4", scale=8), NoiseSum(DiscreteLaplace(2), 3)]


@pytest.mark.parametrize("law", LAWS, ids=[type(x).__name__ for x in LAWS])
def test_laws_are_immutable_values(law):
    """A law's parameters cannot change once a plan has certified them."""
    field = dataclasses.fields(law)[0].name
    with pytest.raises(dataclasses.FrozenInstanceError):
        setattr(law, field, getattr(law, field))
    assert {law: 1}[law] == 1  # hashable, as frozen dataclasses are


# ------------------------------------------------------------------------- float tails
def test_exact_support_needs_a_mass_strictly_between_0_and_1():
    law = DiscreteLaplace(2)
    for mass in (0, 1, 1.5, -0.25):
        with pytest.raises(ParameterError):
            law.exact_support(mass)


def test_vectorized_tail_sum_is_as_deep_as_the_scalar_one():
    """Points of one summation group: the far point's tail must not stop at the near one's
    accuracy (N_Z(0, 10^6): P(X > 10100) is about e^{-46} of p(0))."""
    law = DiscreteGaussian(sigma2=10**6)
    ks = np.array([0, 10_100])
    both = law.logsf(ks)
    for k, got in zip(ks.tolist(), both.tolist()):
        alone = law.logsf(k)
        assert abs(got - alone) <= 1e-12 * abs(alone)


# ------------------------------------------------------------------ fixed-budget samplers
@pytest.mark.parametrize(("p", "tail"), [
    ([Fraction(1, 4) - Fraction(1, 2**20), Fraction(1, 2), Fraction(1, 4)], Fraction(1, 2**20)),
    ([Fraction(1, 3)] * 3, Fraction(0)),  # not floats: the float bounds must be widened
    ([Fraction(1, 10)] * 10, Fraction(0)),  # float(1/10) > 1/10
    ([Fraction(1, 5), Fraction(1, 10), Fraction(7, 10)], Fraction(0)),
])
def test_dyadic_weights_certify_the_total_variation(p, tail):
    """Weights sum to 2^64 and their TV bound lies between the exact TV of w/2^64 from the
    law (half the outside mass included) and that TV plus 2^-40."""
    with balls.precision(PREC):
        w, tv = dyadic_weights([balls.to_arb(x) for x in p], tail)
    assert sum(w) == 2**64 and min(w) >= 0
    exact = (sum(abs(Fraction(wk, 2**64) - pk) for wk, pk in zip(w, p)) + tail) / 2
    assert exact <= tv <= exact + Fraction(1, 2**40)


def test_digit_laplace_sampler_adds_its_shift():
    """All-zero words give both geometrics 0, so the draw is the shift itself."""
    for mu in (7, -3, 0):
        s = DigitLaplaceSampler(Fraction(5), mu=mu)
        out = s.from_words(np.zeros((s.words, 4), dtype=np.uint64))
        assert out.tolist() == [mu] * 4


# ------------------------------------------------------------------------ exact samplers
def test_exact_laplace_with_a_denominator_beyond_int64():
    """scale = 3/(2^64 + 1): Y = ⌊(U + 3V)/s⌋ = 0 unless V >= 2^62, so every draw is 0."""
    x = discrete_laplace(Fraction(3, 2**64 + 1), size=64, rng=3)
    assert x.dtype == np.int64 and not x.any()


def test_bernoulli_exp_with_big_numerators_over_a_small_denominator():
    """γ = 3·2^62 / 2^62 = 3 through the Python-int path with an int64 denominator:
    a two-sided binomial test at fixed seed (false-alarm rate 1e-6)."""
    n = 20_000
    out = bernoulli_exp(np.full(n, 3 * 2**62, dtype=object), 2**62, rng=11)
    assert out.dtype == bool and out.shape == (n,)
    assert stats.binomtest(int(out.sum()), n, math.exp(-3)).pvalue > 1e-6


# ------------------------------------------------------------------------------- Pólya
@pytest.mark.parametrize("r", ["1/1024", "1/3", "5/2"])
def test_log_gamma_ratio_is_accurate_beyond_the_stirling_switch(r):
    """log Γ(k + r) − log Γ(k + 1) against mpmath at 200 bits, within 1e-14 (the docstring
    measures <= 4e-15), on both sides of the switch to Stirling's series at k = 30."""
    ks = np.array([29, 30, 31, 37, 64, 1000, 10**5])
    got = log_gamma_ratio(ks, float(Fraction(r)))
    with mpmath.workprec(PREC):
        rr = _mp(Fraction(float(Fraction(r))))
        for k, g in zip(ks.tolist(), got.tolist()):
            exact = mpmath.loggamma(k + rr) - mpmath.loggamma(k + 1)
            assert abs(g - exact) <= 1e-14 * max(1, abs(exact))


@pytest.mark.parametrize("r", ["1/2", "1", "5/4", "3/2", "2", "3"])
def test_polya_difference_shift_ratio_bound_is_the_closed_form(r):
    """sup_{y >= Y} R(y)/R(y + d) <= (r + Y)/(Y + 1) for r > 1, and 1 for r <= 1."""
    law = PolyaDifference(r, scale=4)
    rf = Fraction(r)
    with mpmath.workprec(PREC), balls.precision(PREC):
        for y in (0, 3, 10):
            for d in (1, 4):
                want = (rf + y) / (y + 1) if rf > 1 else Fraction(1)
                got = law.shift_ratio_bound(y, d)
                assert balls.lower_mpf(got) <= _mp(want) <= balls.upper_mpf(got)
                assert balls.upper_mpf(got) - balls.lower_mpf(got) <= mpmath.mpf(2) ** -150


@pytest.mark.parametrize(("lo", "hi"), [(0, 400), (-300, 250), (5, 300)])
def test_polya_difference_table_recurrence_matches_the_closed_form(lo, hi):
    """The backward recurrence of ``_table_logpmf`` against the pointwise ₂F₁ closed form,
    within its documented relative error (hi − lo)·eps/(1 − β²)."""
    law = PolyaDifference("1/4", scale=8)
    table = law._table_logpmf(lo, hi)
    points = law._logpmf(np.arange(lo, hi + 1))
    beta = math.exp(-1 / 8)
    bound = 4 * (hi - lo + 1) * 2.0**-52 / (1 - beta * beta)
    assert table.shape == points.shape
    assert np.max(np.abs(table - points)) <= bound


# ---------------------------------------------------------------------------- protocol
class _NoNoise:
    """A share law that adds nothing (its draws are 0)."""

    def sample(self, size, rng):
        return np.zeros(size, dtype=np.int64)


def test_run_batches_rounds_the_estimate_once_for_large_precision():
    """g = 2^53 + 1 (not a float), m < 2^62 (int64 messages): z = 3g/g = 3 exactly, which
    float(3g)/float(g) = 3 + 2^-51 misses."""
    g = 2**53 + 1
    plan = ProtocolParams(n=3, g=g, tau=0, m=3 * g + 1, share=_NoNoise(), central_noise=None,
                          trust="distributed")
    res = run_batches(np.ones((2, 3)), plan, rng=1)
    assert res.z_int.tolist() == [3 * g] * 2
    assert res.estimate.tolist() == [3.0] * 2


def test_encode_switches_to_python_ints_at_2_62():
    out = encode(np.array([0.0, 0.5, 1.0]), 2**62, rng=1)
    assert out.dtype == object
    assert out[0] == 0 and out[2] == 2**62 and out[1] == 2**61


def test_pair_info_names_the_unordered_pair():
    want = LABEL + b"pair" + b"sid" + (1).to_bytes(4, "big") + (2).to_bytes(4, "big")
    assert pair_info(b"sid", 1, 2) == want
    assert pair_info(b"sid", 2, 1) == want


@pytest.mark.parametrize("m", [2**62, 2**62 + 1, 3**40, 2**100 + 3])
def test_mask_words_of_big_moduli_are_rejected_below_2_to_minus_64(m):
    """Words of bitlen(m) + 64 bits rounded up to whole bytes: a word is rejected with
    probability (2^W mod m)/2^W < 2^-64, and the accepted range is a multiple of m."""
    s = MaskSampler.for_modulus(m)
    w = s.word_bits
    assert w % 8 == 0 and w == 8 * -(-(m.bit_length() + 64) // 8)
    assert ((1 << w) % m) * 2**64 < 2**w
    assert s.limit % m == 0 and s.limit > (1 << w) - m


def test_masked_view_is_immutable_and_bound_to_a_32_byte_session():
    out = MaskedSecAgg(threshold=2).run(np.array([1, 2, 3]), 97, rng=0)
    assert out.total == 6
    assert len(out.view.session_id) == 32
    with pytest.raises(dataclasses.FrozenInstanceError):
        out.view.session_id = b""


# ------------------------------------------------------------- characteristic functions
@pytest.mark.parametrize("sigma2", ["1/3", "1", "3/2", "5"])
@pytest.mark.parametrize("theta", ["1/2", "2", "311/99"])
def test_discrete_gaussian_characteristic_function_is_a_theta_quotient(sigma2, theta):
    """φ(θ) = ϑ₃(θ/2, q)/ϑ₃(0, q) with q = e^{−1/(2σ²)} (Jacobi's theta function)."""
    law = DiscreteGaussian(sigma2=sigma2)
    with mpmath.workprec(PREC + 20), balls.precision(PREC):
        q = mpmath.exp(-1 / (2 * _mp(sigma2)))
        th = _mp(theta)
        exact = mpmath.log(mpmath.jtheta(3, th / 2, q) / mpmath.jtheta(3, 0, q))
        assert _encloses(law.log_cf_ball(balls.to_arb(Fraction(theta))), exact, bits=180)


def test_discrete_laplace_variance_at_large_scales():
    """Var Lap_Z(b) = 2e^{−1/b}/(1 − e^{−1/b})² (= 1/(2 sinh²(1/(2b)))), also beyond b = 10^4
    where the float method switches to its series 2b² − 1/6."""
    for b in (Fraction(3, 2), 9999, 12345, 10**5, Fraction(10**7, 3)):
        with mpmath.workprec(PREC):
            exact = 1 / (2 * mpmath.sinh(1 / (2 * _mp(b))) ** 2)
        got = DiscreteLaplace(b).var()
        assert abs(got - exact) <= 1e-15 * exact


# ------------------------------------------------------------------------------ rejection
def _gaussian_rejection():
    return GaussianRejectionSampler(Fraction(50))


def _skellam_rejection():
    return LogConcaveRejectionSampler(Skellam(50))


@pytest.mark.parametrize("make", [_gaussian_rejection, _skellam_rejection],
                         ids=["gaussian", "skellam"])
def test_rejection_words_are_never_decided_against_the_exact_acceptance(make):
    """A word u accepts iff its dyadic interval [u, u + 1)/2^64 lies below the acceptance
    probability a(y): words just below a(y)·2^64 may be undecided (then resolved exactly)
    but never rejected, words just above never accepted."""
    s = make()
    for y in (0, 1, 3, 7, 12, 20, -5, -13):
        with balls.precision(PREC):
            a = s._arb_acceptance(y)
            lo, hi = balls.lower_mpf(a) * 2**64, balls.upper_mpf(a) * 2**64
        for rel in (2.0**-20, 2.0**-33):
            below = int(mpmath.floor(lo * (1 - mpmath.mpf(rel)))) - 1
            above = int(mpmath.ceil(hi * (1 + mpmath.mpf(rel)))) + 1
            words = [w for w in (below, above) if 0 <= w < 2**64]
            acc, und = s._accept(np.full(len(words), y, dtype=np.int64),
                                 np.array(words, dtype=np.uint64))
            for w, ok, undecided in zip(words, acc.tolist(), und.tolist()):
                if w == below:
                    assert ok or undecided
                else:
                    assert not ok


# ----------------------------------------------------------------------- Pólya tails
def test_polya_tails_deep_below_the_float_range_of_scipy():
    """Pólya(2, 1/2): p(x) = (x + 1)/2^{x+2}, so P(X > k) = (k + 3)/2^{k+2} exactly."""
    law = Polya(2, "1/2")
    ks = np.array([0, 10, 100, 900, 1100, 1500])
    got = law.logsf(ks)
    for k, g in zip(ks.tolist(), got.tolist()):
        exact = math.log(k + 3) - (k + 2) * math.log(2)
        assert abs(g - exact) <= 1e-12 * abs(exact)
    exact = math.log1p(-8 / 2**7)  # P(X <= 5) = 1 − 8/2^7
    assert abs(law.logcdf(5) - exact) <= 1e-12 * abs(exact)
    assert law.logcdf(10**9) == 0.0  # log(1 − 10^9·2^-10^9): far below the float resolution


def test_polya_lower_tail_below_e_minus_650():
    """Pólya(1000, 1/2): P(X <= k) = Σ_{x<=k} C(x + 999, x)/2^{x+1000} (cdf(0) = 2^-1000)."""
    law = Polya(1000, "1/2")
    ks = [0, 5, 20]
    got = law.logcdf(np.array(ks))
    for k, g in zip(ks, got.tolist()):
        exact = Fraction(sum(math.comb(x + 999, x) * 2**(k - x) for x in range(k + 1)),
                         2**(k + 1000))
        with mpmath.workprec(PREC):
            want = mpmath.log(_mp(exact))
        assert abs(g - want) <= 1e-12 * abs(want)


@pytest.mark.parametrize("b", [2, "11/2", 40])
def test_polya_difference_with_r_1_is_the_discrete_laplace(b):
    """Theorem 5's central noise: PolyaDifference(1, e^{-1/b}) = Lap_Z(b),
    p(k) = tanh(1/(2b)) e^{−|k|/b}."""
    law = PolyaDifference(1, scale=b)
    ks = np.arange(-30, 31)
    got = law.pmf(ks)
    with mpmath.workprec(PREC):
        bb = _mp(b)
        for k, g in zip(ks.tolist(), got.tolist()):
            exact = mpmath.tanh(1 / (2 * bb)) * mpmath.exp(-abs(k) / bb)
            assert abs(g - exact) <= 1e-14 * exact


@pytest.mark.parametrize("k", [0, 4, 11])
def test_polya_difference_series_for_r_above_1(k):
    """The positive-term series of ₂F₁ (r > 1, its ratio bound grows with j) against the
    closed form (1 − β)^{2r} β^k (r)_k/k! ₂F₁(r, k + r; k + 1; β²) in mpmath."""
    law = PolyaDifference(3, scale=2)
    with mpmath.workprec(PREC + 20), balls.precision(PREC):
        beta = mpmath.exp(-mpmath.mpf(1) / 2)
        exact = ((1 - beta) ** 6 * beta**k * mpmath.rf(3, k) / mpmath.factorial(k)
                 * mpmath.hyp2f1(3, k + 3, k + 1, beta**2))
        assert _encloses(law._arb_pmf_hypergeometric(k, series=True), exact)


def test_polya_difference_shares_with_an_exact_beta():
    law = PolyaDifference(2, "1/2")
    assert law.shares(4) == PolyaDifference(Fraction(1, 2), "1/2")
    assert law.sum_of(3) == PolyaDifference(6, "1/2")
    assert PolyaDifference(2, scale=3).shares(8) == PolyaDifference(Fraction(1, 4), scale=3)


# ------------------------------------------------------------------- Shamir and masks
def test_shamir_chunks_and_share_sizes():
    """32-byte secrets: ⌈256/20⌉ = 13 chunks of 20 bits, each share 3 bytes (p = 2^20 + 7)."""
    assert _shamir.n_chunks(32) == 13
    assert _shamir.share_bytes(32) == 39
    top = np.zeros((1, 13), dtype=np.int64)
    top[0, 0] = (1 << 20) - 1
    assert _shamir.chunks_to_secrets(top, 32) is not None
    top[0, 0] = 1 << 20  # not a 20-bit chunk
    assert _shamir.chunks_to_secrets(top, 32) is None


def test_shamir_field_elements_come_from_the_accepted_words_in_order():
    """Words w < 2^32 − (2^32 mod p) are accepted and reduced mod p, in stream order."""
    limit = 2**32 - (2**32 % _shamir.PRIME)
    words = [(i * 2654435761 + 12345) % 2**32 for i in range(200)]
    words[1] = words[4] = 2**32 - 1  # rejected
    stream = b"".join(w.to_bytes(4, "little") for w in words)
    pos = [0]

    def random_bytes(n):
        out = stream[pos[0]:pos[0] + n]
        pos[0] += n
        return out

    got = _shamir.uniform_field(10, random_bytes)
    want = [w % _shamir.PRIME for w in words if w < limit][:10]
    assert got.tolist() == want


def test_lagrange_needs_points():
    with pytest.raises(ParameterError):
        _shamir.lagrange_at_zero([])


def test_masks_of_no_seeds():
    assert masks_from_seeds([], MaskSampler.for_modulus(97)).dtype == np.int64
    assert masks_from_seeds([], MaskSampler.for_modulus(2**70)).size == 0


@pytest.mark.parametrize(("m", "nbytes"), [(2, 1), (255, 1), (256, 1), (257, 2), (2**16, 2),
                                           (2**16 + 1, 3), (2**64, 8), (2**64 + 1, 9)])
def test_message_bytes_are_ceil_log2_m_over_8(m, nbytes):
    assert message_bytes(m) == nbytes


def test_masked_aggregation_counts_its_bytes():
    """n·32 (public keys) + n(n − 1)·2·39 (shares of sk and b) + |S|·1 (masked messages,
    m = 97) + |S|·n·39 (unmasking shares)."""
    msgs = np.array([5, 9, 11])
    assert MaskedSecAgg(threshold=2).run(msgs, 97, rng=1).bytes_sent == 96 + 468 + 3 + 351
    assert MaskedSecAgg(threshold=2).run(msgs, 97, rng=1, dropouts=[1]).bytes_sent == \
        96 + 468 + 2 + 234


# ------------------------------------------------------------------- analyzer and types
def test_analyze_with_a_modulus_beyond_int64():
    g, m = 1, 2**64 + 13
    plan = ProtocolParams(n=1, g=g, tau=0, m=m, share=_NoNoise(), central_noise=None,
                          trust="distributed")
    y = 2**63 + 5  # above n·g + τ: read as the negative total y − m
    assert analyze(y, plan) == Fraction(y - m, g)
    assert analyze(1, plan) == 1


def test_analyze_many_rounds_once_for_large_precision():
    g = 2**53 + 1
    plan = ProtocolParams(n=3, g=g, tau=0, m=3 * g + 1, share=_NoNoise(), central_noise=None,
                          trust="distributed")
    assert analyze_many(np.array([3 * g, g]), plan).tolist() == [3.0, 1.0]


def test_batch_results_are_immutable():
    plan = ProtocolParams(n=2, g=4, tau=3, m=15, share=_NoNoise(), central_noise=None,
                          trust="distributed")
    many = run_batches(np.ones((2, 2)), plan, rng=1)
    one = run_batch(np.ones(2), plan, rng=1)
    with pytest.raises(dataclasses.FrozenInstanceError):
        many.estimate = None
    with pytest.raises(dataclasses.FrozenInstanceError):
        one.estimate = None


def test_messages_are_python_ints_from_2_62():
    obj = np.array([1, 2], dtype=object)
    assert check_messages(obj, 2**62).dtype == object
    assert check_messages(obj, 2**62 - 1).dtype == np.int64


def test_encode_a_scalar():
    out = encode(0.25, 8, rng=1)  # 0.25·8 = 2 exactly: no randomness
    assert out.shape == () and out.dtype == np.int64 and int(out) == 2


class _BigUnsignedNoise:
    """A share law whose draws are uint64 beyond int64."""

    def sample(self, size, rng):
        return np.full(size, 2**63 + 1, dtype=np.uint64)


def test_unsigned_noise_beyond_int64_is_kept_exact():
    plan = ProtocolParams(n=1, g=1, tau=0, m=2**65, share=_BigUnsignedNoise(),
                          central_noise=None, trust="distributed")
    xhat, eta, y = randomize_parts(np.array([0.0]), plan, rng=1)
    assert eta.tolist() == [2**63 + 1]
    assert y.tolist() == [2**63 + 1]


# ------------------------------------------------------------- error messages name the rule
@pytest.mark.parametrize("mass", [0, 1, "-1/4"])
def test_exact_support_error_names_mass_and_its_range(mass):
    """A mass outside (0, 1) — 0 included — is rejected up front by name and rule, not by a
    later search with an unrelated message."""
    with pytest.raises(ParameterError) as err:
        DiscreteLaplace(2).exact_support(mass)
    assert "mass" in str(err.value) and "(0, 1)" in str(err.value)


def test_neighbours_of_no_users_names_the_rewards():
    """An empty reward vector is rejected by name (rewards), not by the user-index check."""
    from privtools.protocol.views import neighbours

    with pytest.raises(ParameterError) as err:
        neighbours(np.array([]))
    assert "rewards" in str(err.value) and "at least one user" in str(err.value)
