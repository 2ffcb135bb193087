"""The protocol P = (R, S, A) of paper 000 (Alg. 2–7): randomizer, analyzer, batches,
server views, bad input and the exact big-integer path.

Statistical tests use fixed seeds, so the suite is deterministic. Each binomial test or
G-test passes at p >= 1e-4: for a correct implementation and a seed drawn at random it would
fail with probability 1e-4 (a false alarm once per ten thousand seeds); there are fewer than
40 such tests here, so the chance that a correct implementation fails one of them for a
random choice of all seeds is below 0.4%.
"""

from __future__ import annotations

import math
from fractions import Fraction
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
import scipy.stats as st
from hypothesis import given
from hypothesis import strategies as hst

import privtools.protocol.views as views_module
from privtools.certified import ends
from privtools.certified import ends as interval_ends
from privtools.errors import ParameterError
from privtools.exact import exact_tail, sum_pmf
from privtools.noise import DiscreteLaplace
from privtools.planning import theorem_params
from privtools.protocol import (
    IdealSecAgg,
    MaskedSecAgg,
    SecureOutput,
    ShuffleSecAgg,
    add_central_noise,
    analyze,
    analyze_many,
    decode,
    decode_many,
    encode,
    exact_sum,
    modular_sum,
    neighbours,
    protocol_params,
    randomize,
    randomize_parts,
    run_batch,
    run_batches,
    server_view,
    view_mechanism,
)
from privtools.protocol.randomizer import add_mod
from verification.gof import g_test

P_MIN = 1e-4


# --------------------------------------------------------------------------- helpers
def make_plan(theorem, epsilon="1", n=16, p="1/2", s=1, c=None, secure="secagg"):
    """Plan-like value (the attributes the protocol reads) from ``theorem_params``."""
    tp = theorem_params(theorem, epsilon, n, p, s=s, c=c)
    dep = tp.deployment
    return SimpleNamespace(
        n=tp.n, g=tp.g, tau=tp.tau, m=tp.m, bits=tp.bits, epsilon=tp.epsilon,
        theorem=theorem, trust=dep.trust, secure=secure,
        share=tp.share, central_noise=tp.noise if dep.site == "analyzer" else None,
        total_noise=tp.noise,
    )


def total_noise_pmf(plan, dps=20):
    """Certified exact law of the total noise N of one batch."""
    if plan.trust == "central":
        return sum_pmf(plan.central_noise, 1, dps=dps)
    return sum_pmf(plan.share, plan.n, dps=dps)


def midpoint(iv) -> float:
    lo, hi = interval_ends(iv)
    return float((lo + hi) / 2)


class ConstantNoise:
    """A 'distribution' whose every draw is the integer ``value`` (deterministic tests)."""

    def __init__(self, value):
        self.value = value

    def sample(self, size=None, rng=None):
        shape = () if size is None else size
        return np.full(shape, self.value, dtype=np.int64)


class CyclingNoise:
    """Draws cycle through ``values`` (e.g. the int64 extremes)."""

    def __init__(self, values):
        self.values = np.asarray(values, dtype=np.int64)

    def sample(self, size=None, rng=None):
        shape = () if size is None else size
        k = int(np.prod(shape))
        return np.resize(self.values, k).reshape(shape)


def plain_plan(n, g, tau, m, share=None, central=None, trust="distributed"):
    return SimpleNamespace(n=n, g=g, tau=tau, m=m, share=share, central_noise=central,
                           trust=trust)


THEOREMS = [(1, {}), (2, {}), (4, {}), (5, {}), (6, {"c": 1})]
IDS = ["thm1", "thm2", "thm4", "thm5-central", "thm6-local"]


# --------------------------------------------------------------- (a) failure probability
@pytest.mark.parametrize("theorem,kw", THEOREMS, ids=IDS)
def test_failure_frequency_matches_exact_tail(theorem, kw):
    """|N| > τ happens with the exact probability P(|N| > τ); whenever |N| <= τ the
    analyzer returns (S + N)/g exactly, so |z − Σx| <= τ/g + |S − gΣx|/g."""
    plan = make_plan(theorem, **kw)
    B = 100_000 if theorem == 2 else 30_000  # Theorem 2's τ makes failures rare (~0.2%)
    rng = np.random.default_rng(1000 + theorem)
    X = rng.random((B, plan.n))
    res = run_batches(X, plan, rng)
    q = midpoint(exact_tail(total_noise_pmf(plan), plan.tau))
    fails = np.abs(res.noise) > plan.tau
    assert st.binomtest(int(fails.sum()), B, q).pvalue >= P_MIN
    ok = ~fails
    assert np.array_equal(res.z_int[ok], (res.encoded_sum + res.noise)[ok])
    rounding = np.abs(res.encoded_sum - plan.g * res.true_sum) / plan.g
    err = np.abs(res.estimate - res.true_sum)
    assert np.all(err[ok] <= plan.tau / plan.g + rounding[ok] + 1e-9)


@pytest.mark.parametrize("theorem,kw", THEOREMS, ids=IDS)
@pytest.mark.parametrize("ones", [0, 4])
def test_misdecoding_frequency_matches_exact_wrap_probability(theorem, kw, ones):
    """With x ∈ {0,1}^n (S = g·k fixed) the analyzer misreads the wrap exactly when
    S + N leaves [−τ, ng + τ]: probability P(N > τ + S) + P(N > τ + ng − S) (N symmetric)."""
    plan = make_plan(theorem, **kw)
    x = np.zeros(plan.n)
    x[:ones] = 1.0
    S = plan.g * ones
    B = 30_000
    rng = np.random.default_rng(2000 + 10 * theorem + ones)
    res = run_batches(np.tile(x, (B, 1)), plan, rng)
    assert np.all(res.encoded_sum == S)
    P = total_noise_pmf(plan)
    q = (midpoint(exact_tail(P, plan.tau + S, two_sided=False))
         + midpoint(exact_tail(P, plan.tau + plan.n * plan.g - S, two_sided=False)))
    wrong = ~res.decoded_exactly
    assert st.binomtest(int(wrong.sum()), B, q).pvalue >= P_MIN
    # a misread wrap is off by exactly m
    assert np.all(np.abs(res.z_int - S - res.noise)[wrong] % plan.m == 0)


@pytest.mark.parametrize("theorem,kw", THEOREMS, ids=IDS)
def test_run_batch_error_is_exact(theorem, kw):
    """run_batch on fractional rewards: when decoded exactly, error = (S − gΣx + N)/g with
    Σx exact; the messages are consistent with S and N; all theorems run end to end (c)."""
    plan = make_plan(theorem, **kw)
    rng = np.random.default_rng(3000 + theorem)
    for _ in range(200):
        x = rng.random(plan.n)
        r = run_batch(x, plan, rng)  # default S: IdealSecAgg (local: the server's own sum)
        if plan.trust == "local":
            assert r.secure_output is None
        else:
            assert isinstance(r.secure_output, SecureOutput)
            assert r.secure_output.total == int(r.messages.sum()) % plan.m
        assert r.true_sum == sum(Fraction(float(v)) for v in x)
        assert 0 <= r.encoded_sum <= plan.n * plan.g
        assert r.messages.shape == (plan.n,) and r.messages.dtype == np.int64
        assert np.all((r.messages >= 0) & (r.messages < plan.m))
        if plan.trust == "central":
            assert int(r.messages.sum()) == r.encoded_sum  # users send x̂ (Alg. 4)
            assert r.y == (r.encoded_sum + r.noise) % plan.m
        else:
            assert int(r.messages.sum()) % plan.m == (r.encoded_sum + r.noise) % plan.m
            assert r.y == int(r.messages.sum()) % plan.m
        if abs(r.noise) <= plan.tau:
            assert r.decoded_exactly
            expected = Fraction(r.encoded_sum + r.noise, plan.g) - r.true_sum
            assert r.error == expected
            assert r.estimate == Fraction(r.encoded_sum + r.noise, plan.g)
        assert r.estimate == analyze(r.y, protocol_params(SimpleNamespace(
            **{**vars(plan), "trust": "distributed", "share": plan.share or plan.total_noise,
               "central_noise": None})))


@given(n=hst.integers(1, 40), g=hst.integers(1, 10**6), tau=hst.integers(0, 10**6),
       extra=hst.integers(0, 5), data=hst.data())
def test_decode_inverts_the_wrap_within_the_window(n, g, tau, extra, data):
    """000 Alg. 3: for every S ∈ [0, ng] and |N| <= τ, decode((S + N) mod m) = S + N, for
    m = ng + 2τ + 1 + extra."""
    m = n * g + 2 * tau + 1 + extra
    plan = plain_plan(n, g, tau, m, share=ConstantNoise(0))
    S = data.draw(hst.integers(0, n * g))
    N = data.draw(hst.integers(-tau, tau))
    assert decode((S + N) % m, plan) == S + N
    assert analyze((S + N) % m, plan) == Fraction(S + N, g)


@given(n=hst.integers(1, 12), g=hst.integers(1, 50), tau=hst.integers(0, 200),
       c=hst.integers(-30, 30), data=hst.data())
def test_constant_noise_batches_are_exact(n, g, tau, c, data):
    """With a deterministic share c and x ∈ {0,1}^n the whole pipeline is predictable:
    z = (g·k + n·c)/g exactly whenever |n·c| <= τ."""
    m = n * g + 2 * tau + 1
    k = data.draw(hst.integers(0, n))
    x = np.array([1.0] * k + [0.0] * (n - k))
    plan = plain_plan(n, g, tau, m, share=ConstantNoise(c))
    r = run_batch(x, plan, 0, secure=IdealSecAgg())
    assert r.encoded_sum == g * k and r.noise == n * c
    assert r.decoded_exactly == (-tau <= g * k + n * c <= n * g + tau)
    if abs(n * c) <= tau:
        assert r.estimate == Fraction(g * k + n * c, g)
        assert r.error == Fraction(n * c, g)
    rb = run_batches(x[None, :], plan, 0)
    assert rb.z_int[0] == r.z_int and rb.y[0] == r.y


# --------------------------------------------------------------- (b) randomized rounding
@pytest.mark.parametrize("x,g", [
    (0.0, 10), (1.0, 10), (0.125, 10), (0.375, 10), (0.5, 7), (0.7, 10), (0.03125, 3),
    (0.5, 2**60 + 1), (0.75, 2**60 + 1), (2.0**-40, 2**62 + 3),
])
def test_randomized_rounding_is_unbiased(x, g):
    """x̂ ∈ {⌊xg⌋, ⌊xg⌋ + 1} and P(x̂ = ⌊xg⌋ + 1) = xg − ⌊xg⌋ exactly (binomial test
    against the exact fraction; g > 2**53 exercises the exact rational path)."""
    N = 20_000 if g < 2**53 else 4_000
    xg = Fraction(x) * g
    fl = xg.numerator // xg.denominator
    frac = xg - fl
    xhat = encode(np.full(N, x), g, np.random.default_rng(hash((x, g)) % 2**32))
    vals = np.asarray([int(v) for v in xhat]) if xhat.dtype == object else xhat
    ups = vals - fl if xhat.dtype != object else np.array([int(v) - fl for v in xhat])
    assert set(np.unique(ups).tolist()) <= ({0, 1} if frac else {0})
    if frac:
        assert st.binomtest(int(ups.sum()), N, float(frac)).pvalue >= P_MIN


@given(x=hst.floats(0, 1), g=hst.one_of(hst.integers(1, 10**6), hst.just(2**53),
                                        hst.integers(2**53 + 1, 2**70)))
def test_encode_stays_in_range(x, g):
    xhat = encode(np.array([x, x]), g, 0)
    fl = math.floor(Fraction(x) * g)
    for v in xhat:
        assert 0 <= int(v) <= g
        if g > 2**53:
            assert int(v) in (fl, fl + 1)


def test_encode_extremes_and_shapes():
    g = 2**53
    assert encode(np.array([1.0]), g, 0)[0] == g
    assert encode(np.array([np.nextafter(1.0, 0)]), 1000, 0)[0] in (999, 1000)
    assert encode(np.zeros((3, 4)), 5, 0).shape == (3, 4)
    assert encode([0, 1], 5, 0).tolist() == [0, 5]  # integer rewards 0/1 are accepted


def test_exact_sum_is_exact():
    rng = np.random.default_rng(5)
    x = np.concatenate([rng.random(1000), [0.0, 1.0, 5e-324, 2.0**-1000, 0.1]])
    assert exact_sum(x) == sum(Fraction(float(v)) for v in x)
    assert exact_sum(np.zeros(0)) == 0


# --------------------------------------------------------------- (d) batch vs batches
def test_run_batches_and_run_batch_agree_in_distribution():
    plan = make_plan(1, "1", 16, "1e-6")
    # x ∈ {0,1}: z_int − S is the total noise, tested against its exact law (Lap_Z(g/ε)).
    x01 = np.array([1.0] * 5 + [0.0] * 11)
    S = 5 * plan.g
    B = 4000
    rng = np.random.default_rng(77)
    sec = IdealSecAgg()
    single = np.array([run_batch(x01, plan, rng, secure=sec).z_int for _ in range(B)])
    many = run_batches(np.tile(x01, (B, 1)), plan, rng).z_int
    P = total_noise_pmf(plan)
    assert g_test(single - S, P).p_value >= P_MIN
    assert g_test(many - S, P).p_value >= P_MIN
    # fractional rewards: two-sample chi-square test of z_int (randomized rounding included)
    x = np.linspace(0.05, 0.95, 16)
    single = np.array([run_batch(x, plan, rng, secure=sec).z_int for _ in range(B)])
    many = run_batches(np.tile(x, (B, 1)), plan, rng).z_int
    assert two_sample_pvalue(single, many) >= P_MIN


def two_sample_pvalue(a, b, min_count=20):
    """Chi-square test of homogeneity on integer values, rare values pooled into bins."""
    lo, hi = int(min(a.min(), b.min())), int(max(a.max(), b.max()))
    ca = np.bincount(a - lo, minlength=hi - lo + 1)
    cb = np.bincount(b - lo, minlength=hi - lo + 1)
    bins_a, bins_b, acc_a, acc_b = [], [], 0, 0
    for u, v in zip(ca, cb):
        acc_a += u
        acc_b += v
        if acc_a + acc_b >= min_count:
            bins_a.append(acc_a)
            bins_b.append(acc_b)
            acc_a = acc_b = 0
    bins_a[-1] += acc_a
    bins_b[-1] += acc_b
    return st.chi2_contingency(np.array([bins_a, bins_b])).pvalue


def test_run_batches_chunks_rows(monkeypatch):
    import privtools.protocol.batch as batch_module

    plan = make_plan(1, "1", 16, "1e-6")
    monkeypatch.setattr(batch_module, "_CHUNK_ENTRIES", 40)  # 2 rows per chunk
    res = run_batches(np.zeros((7, 16)), plan, 3)
    assert res.z_int.shape == (7,)
    assert np.array_equal(res.z_int, res.noise)  # S = 0, |N| small: decoded exactly
    with pytest.raises(ParameterError, match="rewards"):
        run_batches(np.zeros(16), plan, 0)


def test_analyze_many_matches_analyze():
    plan = make_plan(2, "1", 16, "1/4")
    ys = np.arange(plan.m)
    z = analyze_many(ys, plan)
    assert np.array_equal(z, np.array([float(analyze(int(v), plan)) for v in ys]))
    assert np.array_equal(decode_many(ys, plan), [decode(int(v), plan) for v in ys])
    assert analyze_many(ys.reshape(1, -1), plan).shape == (1, plan.m)


def test_central_analyzer_adds_noise():
    """Alg. 5: the analyzer adds Lap_Z(g/ε) to the secure sum before decoding."""
    plan = make_plan(5, "1", 16, "1e-6")
    S = 3 * plan.g
    z = analyze_many(np.full(50_000, S), plan, np.random.default_rng(9))
    noise = np.rint(z * plan.g).astype(np.int64) - S
    assert g_test(noise, plan.central_noise).p_value >= P_MIN


@pytest.mark.parametrize("theorem,kw", THEOREMS, ids=IDS)
def test_public_stages_compose_to_run_batches(theorem, kw):
    """R (randomize_parts), the ideal modular sum, A's noise step (add_central_noise) and
    A's wrap correction (decode_many) draw the same numbers as run_batches, in order."""
    plan = make_plan(theorem, "1", 16, "1/4", **kw)
    X = np.random.default_rng(0).random((5, plan.n))
    gen = np.random.default_rng(7)
    xhat, eta, y = randomize_parts(X, plan, gen)
    assert xhat.shape == y.shape == X.shape and (eta is None) == (plan.trust == "central")
    released, eta_c = add_central_noise(modular_sum(y, plan.m, axis=1), plan, gen)
    assert (eta_c is None) == (plan.trust != "central")
    res = run_batches(X, plan, 7)
    assert np.array_equal(decode_many(released, plan), res.z_int)
    assert np.array_equal(eta_c if eta is None else eta.sum(axis=1), res.noise)
    assert np.array_equal(randomize_parts(X[0], plan, 3)[2], randomize(X[0], plan, 3))
    with pytest.raises(ParameterError, match="outside"):
        add_central_noise(np.array([plan.m]), plan, 0)
    with pytest.raises(ParameterError, match="rewards"):
        randomize_parts(X + 1, plan, 0)


# --------------------------------------------------------------- (e) secure implementations
def test_secure_implementations_agree_on_totals():
    plan = make_plan(1, "1", 16, "1/4")
    rng = np.random.default_rng(11)
    impls = [IdealSecAgg(), MaskedSecAgg(threshold=9), ShuffleSecAgg(k=3)]
    for _ in range(5):
        msgs = randomize(rng.random(plan.n), plan, rng)
        totals = {int(s.run(msgs, plan.m, rng=rng).total) for s in impls}
        assert totals == {int(msgs.sum()) % plan.m}
        results = [run_batch(np.full(plan.n, 0.5), plan, 5, secure=s) for s in impls]
        assert len({r.estimate for r in results}) == 1


# --------------------------------------------------------------- (f) overflow / big ints
def huge_plan(trust="distributed"):
    n, g, m = 5, 4, 2**70 + 1
    tau = (m - 1 - n * g) // 2
    assert m == n * g + 2 * tau + 1
    lap = DiscreteLaplace(Fraction(3))
    if trust == "central":
        return plain_plan(n, g, tau, m, central=lap, trust="central")
    return plain_plan(n, g, tau, m, share=lap, trust=trust)


@pytest.mark.parametrize("trust", ["distributed", "central", "local"])
def test_huge_modulus_uses_exact_python_ints(trust):
    plan = huge_plan(trust)
    rng = np.random.default_rng(12)
    x = np.array([0.0, 1.0, 0.5, 0.25, 1.0])
    msgs = randomize(x, plan, rng)
    assert msgs.dtype == object and all(isinstance(v, int) and 0 <= v < plan.m for v in msgs)
    assert randomize(x, plan, rng, size=3).shape == (3, 5)
    for _ in range(20):
        r = run_batch(x, plan, rng)
        assert r.decoded_exactly
        assert r.estimate == Fraction(r.encoded_sum + r.noise, plan.g)
        assert r.error == Fraction(r.encoded_sum + r.noise, plan.g) - Fraction(11, 4)
    res = run_batches(np.tile(x, (10, 1)), plan, rng)
    assert res.z_int.dtype == object
    assert all(int(z) == int(s) + int(e) for z, s, e in zip(res.z_int, res.encoded_sum,
                                                             res.noise))
    v = server_view(plan, x, 10, rng)
    assert v.dtype == object and len(v) == 10


def test_huge_modulus_wraps_exactly():
    """A noise total just below −τ·… : negative totals wrap to y close to m = 2**70 + 1 and
    are decoded exactly (Python ints, no float or int64 anywhere)."""
    n, g, m = 5, 4, 2**70 + 1
    tau = (m - 1 - n * g) // 2
    c = -(2**62)  # per-user share; total −5·2**62 is within τ ≈ 2**69
    plan = plain_plan(n, g, tau, m, share=ConstantNoise(c))
    r = run_batch(np.ones(n), plan, 0)
    assert r.y == (n * g + n * c) % m and r.y > plan.n * plan.g + plan.tau
    assert r.z_int == n * g + n * c and r.estimate == Fraction(n * g + n * c, g)


@pytest.mark.parametrize("g,dtype", [(2**60 + 1, np.int64), (2**61 + 1, object)])
def test_huge_precision_encodes_exactly(g, dtype):
    """g > 2**53: exact rational encoding; m = 2g + 21 is below 2**62 (int64 messages) for
    the first g and above it (Python ints) for the second."""
    n, tau = 2, 10
    plan = plain_plan(n, g, tau, n * g + 2 * tau + 1, share=ConstantNoise(3))
    x = np.array([0.5, 0.75])
    r = run_batch(x, plan, 4, secure=IdealSecAgg())
    assert r.messages.dtype == dtype
    lo = (g // 2) + (3 * g) // 4
    assert r.encoded_sum in (lo, lo + 1, lo + 2)
    assert r.estimate == Fraction(r.encoded_sum + 6, g)
    assert r.error == Fraction(r.encoded_sum + 6, g) - Fraction(5, 4)


def test_int64_sum_near_the_limit_does_not_overflow():
    """m just below 2**62 with n·m > 2**63: modular sums are reduced in blocks."""
    n, g = 8, 3
    m = 2**62 - 1
    tau = (m - 1 - n * g) // 2
    plan = plain_plan(n, g, tau, m, share=CyclingNoise([2**63 - 1, -(2**63), m - 1, -1]))
    msgs = randomize(np.ones(n), plan, 0)
    assert msgs.dtype == np.int64
    etas = [2**63 - 1, -(2**63), m - 1, -1] * 2
    assert msgs.tolist() == [(g + e) % m for e in etas]  # never wraps in int64
    assert int(modular_sum(msgs, m)) == sum(msgs.tolist()) % m
    r = run_batch(np.ones(n), plan, 0, secure=IdealSecAgg())
    assert r.noise == sum(etas)
    assert r.y == (n * g + sum(etas)) % m
    rb = run_batches(np.ones((3, n)), plan, 0)
    assert rb.y.tolist() == [r.y] * 3 and rb.noise.tolist() == [sum(etas)] * 3
    # noise totals beyond int64 are kept as Python ints, never wrapped
    top = plain_plan(n, g, tau, m, share=ConstantNoise(2**63 - 1))
    rb = run_batches(np.ones((2, n)), top, 0)
    assert rb.noise.tolist() == [n * (2**63 - 1)] * 2
    assert rb.y.tolist() == [(n * g + n * (2**63 - 1)) % m] * 2
    assert run_batch(np.ones(n), top, 0).noise == n * (2**63 - 1)


@given(m=hst.integers(2, 2**62 - 1), data=hst.data())
def test_modular_sum_and_add_mod_are_exact(m, data):
    vals = data.draw(hst.lists(hst.integers(0, m - 1), min_size=1, max_size=40))
    arr = np.array(vals, dtype=np.int64)
    assert int(modular_sum(arr, m)) == sum(vals) % m
    eta = data.draw(hst.lists(hst.integers(-(2**63), 2**63 - 1), min_size=len(vals),
                              max_size=len(vals)))
    out = add_mod(arr, np.array(eta, dtype=np.int64), m)
    assert out.tolist() == [(a + e) % m for a, e in zip(vals, eta)]
    two = np.stack([arr, arr[::-1]])
    assert modular_sum(two, m, axis=1).tolist() == [sum(vals) % m] * 2


@given(m=hst.integers(2, 2**62 - 1), seed=hst.integers(0, 2**32 - 1),
       shape=hst.sampled_from([(4096,), (2, 2048), (3, 1500)]),
       entries=hst.lists(hst.tuples(hst.integers(0, 4095), hst.integers(-(2**63), 2**63 - 1)),
                         max_size=60))
def test_add_mod_sparse_path_is_exact(m, seed, shape, entries):
    """>= 4096 shares with at most 1/8 non-zero take the sparse path of add_mod (only the
    non-zero entries are reduced); it must agree with exact integer arithmetic."""
    n = int(np.prod(shape))
    a = np.random.default_rng(seed).integers(0, m, n, dtype=np.int64)
    eta = np.zeros(n, dtype=np.int64)
    for pos, val in entries:
        eta[pos % n] = val
    out = add_mod(a.reshape(shape), eta.reshape(shape), m)
    assert out.shape == shape
    assert out.reshape(-1).tolist() == [(x + e) % m for x, e in zip(a.tolist(), eta.tolist())]

def test_central_view_rejects_noise_that_could_overflow():
    plan = plain_plan(4, 2, 1, 4 * 2 + 3, central=ConstantNoise(2**62 + 1), trust="central")
    with pytest.raises(OverflowError):
        server_view(plan, np.zeros(4), 3, 0)
    big = plain_plan(4, 2, 2**62, 4 * 2 + 2**63 + 1, central=ConstantNoise(2**62 + 1),
                     trust="central")
    assert server_view(big, np.ones(4), 2, 0).tolist() == [8 + 2**62 + 1] * 2


# --------------------------------------------------------------- server views
@pytest.mark.parametrize("theorem,kw", [(1, {}), (2, {}), (4, {})], ids=IDS[:3])
def test_distributed_view_is_the_modular_sum(theorem, kw):
    plan = make_plan(theorem, "1", 16, "1e-6", **kw)
    x = np.array([1.0] * 7 + [0.0] * 9)
    S = 7 * plan.g
    v = server_view(plan, x, 40_000, np.random.default_rng(21 + theorem))
    assert v.dtype == np.int64 and v.shape == (40_000,)
    assert np.all((v >= 0) & (v < plan.m))
    centred = np.where(v > plan.n * plan.g + plan.tau, v - plan.m, v) - S
    assert g_test(centred, total_noise_pmf(plan)).p_value >= P_MIN


def test_central_view_is_the_unwrapped_noisy_sum():
    plan = make_plan(5, "1", 16, "1/2")
    x = np.zeros(16)  # S = 0: S + η is negative half of the time (no wrap in the view)
    v = server_view(plan, x, 40_000, np.random.default_rng(31))
    assert (v < 0).any()
    assert g_test(v, plan.central_noise).p_value >= P_MIN
    v1 = server_view(plan, neighbours(x, 3), 40_000, np.random.default_rng(32))
    assert g_test(v1 - plan.g, plan.central_noise).p_value >= P_MIN


@pytest.mark.parametrize("theorem", [1, 5])
def test_views_with_randomized_rounding_match_the_exact_law(theorem):
    """n = 18, g = 5, x = (1/8 × 16, 1, 1): x̂_i = Ber(5/8) for the first 16 users, so
    S = 2g + Bin(16, 5/8); the view (the modular sum decoded, or the central S + η) is
    tested against the exact convolution of that law with the total noise."""
    from flint import arb

    from privtools.exact import ExactPMF, convolve

    plan = make_plan(theorem, "1", 18, "1e-6")
    assert plan.g == 5
    x = np.concatenate([np.full(16, 1 / 8), [1.0, 1.0]])
    a, b = 5, 8  # P(x̂_i = 1) = 5/8
    balls = tuple(arb(math.comb(16, k) * a**k * (b - a) ** (16 - k)) / arb(b**16)
                  for k in range(17))
    law = convolve(ExactPMF(2 * plan.g, balls, mpmath.mpf(0), 30),
                   total_noise_pmf(plan, dps=30))
    v = server_view(plan, x, 40_000, np.random.default_rng(61 + theorem))
    if plan.trust != "central":
        v = np.where(v > plan.n * plan.g + plan.tau, v - plan.m, v)
    assert g_test(v, law).p_value >= P_MIN


def test_local_view_is_the_users_message():
    plan = make_plan(6, "1", 16, "1/2", c=1)
    x = np.zeros(16)
    x[2] = 1.0
    for user, shift in ((2, plan.g), (0, 0)):
        v = server_view(plan, x, 40_000, np.random.default_rng(41 + user), user=user)
        assert np.all((v >= 0) & (v < plan.m))
        h = plan.m // 2
        centred = (v - shift + h) % plan.m - h
        assert g_test(centred, plan.share).p_value >= P_MIN


def test_shuffle_view_and_chunking(monkeypatch):
    plan = make_plan(1, "1", 16, "1e-6", secure="shuffle")
    monkeypatch.setattr(views_module, "_CHUNK_ENTRIES", 100)  # 6 draws per chunk
    x = np.zeros(16)
    v = server_view(plan, x, 20_003, np.random.default_rng(51))
    assert v.shape == (20_003,)
    centred = np.where(v > plan.n * plan.g + plan.tau, v - plan.m, v)
    assert g_test(centred, total_noise_pmf(plan)).p_value >= P_MIN
    assert server_view(plan, x, 0, 0).shape == (0,)


def test_neighbours_and_view_mechanism():
    x = np.array([0.0, 1.0, 0.3, 0.8])
    assert neighbours(x, 0).tolist() == [1.0, 1.0, 0.3, 0.8]
    assert neighbours(x, 1).tolist() == [0.0, 0.0, 0.3, 0.8]
    assert neighbours(x, 2)[2] == 1.0 and neighbours(x, 3)[3] == 0.0
    assert x.tolist() == [0.0, 1.0, 0.3, 0.8]  # not modified
    with pytest.raises(ParameterError, match="user"):
        neighbours(x, 4)
    plan = make_plan(1, "1", 4, "1/2")
    mech = view_mechanism(plan)
    assert mech(x, 5, 0).shape == (5,)
    with pytest.raises(ParameterError, match="user"):
        view_mechanism(plan, user=-1)


def test_views_are_reproducible_from_a_seed():
    plan = make_plan(4, "1", 16, "1/2")
    x = np.full(16, 0.4)
    assert np.array_equal(server_view(plan, x, 100, 7), server_view(plan, x, 100, 7))
    assert np.array_equal(randomize(x, plan, 7, size=3), randomize(x, plan, 7, size=3))
    assert randomize(x, plan, 7, size=3).shape == (3, 16)


# --------------------------------------------------------------- plans from planning.plan
PLAN_KINDS = [
    dict(privacy="pure-dp"),
    dict(privacy="pure-dp", secure="shuffle"),
    dict(privacy="rdp"),
    dict(privacy="cdp"),
    dict(privacy="pure-dp", trust="central"),
    dict(privacy="pure-dp", trust="local"),
]


@pytest.mark.parametrize("kind", PLAN_KINDS, ids=lambda k: "-".join(k.values()))
def test_plans_from_planning_run_and_fail_at_the_certified_rate(kind):
    """privtools.planning.plan(tail="exact") certifies P(|N| > τ) (``tail_interval``); the
    protocol's empirical frequency of |N| > τ agrees with it, every batch with |N| <= τ is
    decoded exactly, and run_batch / server_view accept the plan."""
    from privtools.planning import plan

    p = plan(epsilon=1, n=16, horizon=100, p="1/2", tail="exact", **kind)
    rng = np.random.default_rng(sum(map(ord, "".join(kind.values()))))
    B = 20_000
    res = run_batches(rng.random((B, p.n)), p, rng)
    q = float(sum(ends(p.tail_interval)) / 2)
    fails = np.abs(res.noise) > p.tau
    assert st.binomtest(int(fails.sum()), B, q).pvalue >= P_MIN
    assert np.all(res.decoded_exactly[~fails])
    r = run_batch(rng.random(p.n), p, rng,
                  secure=ShuffleSecAgg(k=3) if p.secure == "shuffle" else None)
    assert r.decoded_exactly == (r.z_int == r.encoded_sum + r.noise)
    v = server_view(p, neighbours(np.zeros(p.n)), 1000, rng)
    assert v.shape == (1000,) and v.dtype == np.int64
