"""The secure computation S: IdealSecAgg, MaskedSecAgg (Bonawitz et al. 2017), ShuffleSecAgg
(split-and-mix, IKOS 2006 / Balle et al. 2020).

Statistical tests use fixed seeds and pass at p >= 1e-4: under a correct implementation a
test fails with probability 1e-4 (once per ten thousand seeds); with the seeds fixed the
outcome is reproducible. MaskedSecAgg draws its keys, seeds and Shamir coefficients from
the OS CSPRNG; the statistical tests replace that source by a seeded generator (fixture
``seeded_crypto``) so that they are deterministic, and leave everything else real.
"""

import itertools
import math
import os
from collections import Counter
from fractions import Fraction

import numpy as np
import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey
from cryptography.hazmat.primitives.kdf.hkdf import HKDF
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats

from privtools.errors import ParameterError, ProtocolError
from privtools.protocol import _prg, _shamir, _zm, secure
from privtools.protocol.secure import (
    IdealSecAgg,
    MaskedSecAgg,
    SecureAggregator,
    SecureOutput,
    ShuffleSecAgg,
)

P_MIN = 1e-4

ALL = [IdealSecAgg(), MaskedSecAgg(threshold=2), ShuffleSecAgg(k=3)]
IDS = ["ideal", "masked", "shuffle"]


@pytest.fixture
def seeded_crypto(monkeypatch):
    """Replace the OS CSPRNG of MaskedSecAgg by a seeded generator (keys via
    X25519PrivateKey.from_private_bytes of 32 random bytes, as generate() does)."""

    def install(seed):
        gen = np.random.default_rng(seed)
        monkeypatch.setattr(secure, "_csprng_bytes", lambda n: gen.bytes(n))
        monkeypatch.setattr(secure, "_generate_private_key",
                            lambda: X25519PrivateKey.from_private_bytes(gen.bytes(32)))

    return install


def moduli():
    return st.one_of(st.integers(2, 50), st.integers(2, 2**62 - 1),
                     st.integers(2**62, 2**130), st.sampled_from([2, 2**62 - 1, 2**62,
                                                                 2**64, 2**64 + 1]))


@st.composite
def batches(draw, min_n=1, max_n=8):
    m = draw(moduli())
    n = draw(st.integers(min_n, max_n))
    y = draw(st.lists(st.integers(0, m - 1), min_size=n, max_size=n))
    return y, m


# ------------------------------------------------------------------ input validation
@pytest.mark.parametrize("agg", ALL, ids=IDS)
@pytest.mark.parametrize("messages, m, match", [
    ([1, 2, 10], 10, r"messages\[2\] = 10 is outside Z_10"),
    ([1, -1, 3], 10, r"messages\[1\] = -1 is outside"),
    (np.array([1, 2, 2**62], dtype=np.int64), 2**62, r"messages\[2\]"),
    ([2**70, 1], 2**70, r"messages\[0\]"),
    ([1.0, 2.0], 10, "integers"),
    (np.array([1.0, np.nan]), 10, "integers"),
    ([1, float("nan")], 10, "integers"),
    ([1, None], 10, "integers"),
    (np.array([True, False]), 10, "integers"),
    (["1", "2"], 10, "integers"),
    (np.zeros((2, 2), dtype=np.int64), 10, "1-D"),
    (5, 10, "1-D"),
    ([], 10, "at least one"),
    ([0, 1], 1, "m must be >= 2"),
    ([0, 1], 2.0, "m must be an integer"),
    ([0, 1], True, "m must be an integer"),
    ("01", 10, "1-D sequence"),
])
def test_bad_batches_are_rejected_naming_the_problem(agg, messages, m, match):
    with pytest.raises(ParameterError, match=match):
        agg.run(messages, m, 0)


@pytest.mark.parametrize("agg", ALL, ids=IDS)
@pytest.mark.parametrize("dropouts, match", [
    ([5], r"dropouts\[0\] must be <= 4"),
    ([-1], r"dropouts\[0\] must be >= 0"),
    ([1, 2, 1], "user 1 more than once"),
    ([1.0], r"dropouts\[0\] must be an integer"),
    ([True], r"dropouts\[0\] must be an integer"),
    (3, "sequence of user indices"),
    ("1", "sequence of user indices"),
])
def test_bad_dropouts_are_rejected(agg, dropouts, match):
    with pytest.raises(ParameterError, match=match):
        agg.run([1, 2, 3, 4, 5], 7, 0, dropouts=dropouts)


def test_bad_protocol_parameters():
    for t in (1, 0, -3, 2.0, "3", True, None):
        with pytest.raises(ParameterError, match="threshold"):
            MaskedSecAgg(threshold=t)
    with pytest.raises(ParameterError, match="workers"):
        MaskedSecAgg(threshold=2, workers=0)
    with pytest.raises(ParameterError, match="threshold must be <= n = 3"):
        MaskedSecAgg(threshold=4).run([1, 2, 3], 7)
    with pytest.raises(ParameterError, match="at least 2 users"):
        MaskedSecAgg(threshold=2).run([1], 7)
    for k in (0, -1, 1.5, "2"):
        with pytest.raises(ParameterError, match="k"):
            ShuffleSecAgg(k=k)
    with pytest.raises(ParameterError, match="rng"):
        IdealSecAgg().run([1], 3, rng="seed")
    assert isinstance(IdealSecAgg(), SecureAggregator)
    with pytest.raises(TypeError):
        SecureAggregator()


# ------------------------------------------------------------------ ideal
def test_ideal_sum_of_a_million_values_near_2_62_is_exact():
    """Σ of 10^6 values near 2^62 overflows int64 ~10^6/2 times over; the result must be
    the exact Python-int sum mod m."""
    m = 2**62 - 57
    y = np.random.default_rng(1).integers(m - 1000, m, size=10**6, dtype=np.int64)
    assert int(y.sum()) != sum(y.tolist()) % m  # the naive int64 sum is wrong
    out = IdealSecAgg().run(y, m)
    assert out.total == sum(y.tolist()) % m
    assert out.view == out.total and out.n_users == 10**6 and out.n_counted == 10**6
    big = 2**100 + 277
    yb = [big - 1 - i for i in range(1000)]
    assert IdealSecAgg().run(yb, big).total == sum(yb) % big


@given(batches(max_n=30), st.data())
def test_ideal_equals_python_sum(batch, data):
    y, m = batch
    drop = data.draw(st.sets(st.integers(0, len(y) - 1)))
    out = IdealSecAgg().run(np.array(y, dtype=object), m, dropouts=sorted(drop))
    assert out.total == sum(v for i, v in enumerate(y) if i not in drop) % m
    assert type(out.total) is int
    assert out.dropped == tuple(sorted(drop))


# ------------------------------------------------------------------ masked: correctness
@given(batches(min_n=2, max_n=7), st.data())
def test_masked_total_equals_ideal(batch, data):
    y, m = batch
    n = len(y)
    t = data.draw(st.integers(2, n), label="threshold")
    drop = data.draw(st.lists(st.integers(0, n - 1), unique=True, max_size=n - t),
                     label="dropouts")
    out = MaskedSecAgg(threshold=t).run(y, m, data.draw(st.integers(0, 99)), dropouts=drop)
    assert out.total == IdealSecAgg().run(y, m, dropouts=drop).total
    assert type(out.total) is int and out.protocol == "masked"
    v = out.view
    survivors = [i for i in range(n) if i not in drop]
    assert v.senders.tolist() == survivors
    assert len(v.masked) == len(v.pairwise_masked) == len(survivors)
    assert all(0 <= int(x) < m for x in v.masked)
    assert sorted(v.self_mask_seeds) == survivors and sorted(v.dropped_private_keys) == \
        sorted(drop)
    if not drop:  # the pairwise masks cancel: Σ (y_i + Σ ±mask_ij) = Σ y_i
        assert sum(int(x) for x in v.pairwise_masked) % m == out.total


def test_masked_with_numpy_input_and_large_modulus():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2**62 - 1, size=40, dtype=np.int64)
    out = MaskedSecAgg(threshold=21).run(y, 2**62 - 1, rng, dropouts=range(0, 40, 3))
    assert out.total == IdealSecAgg().run(y, 2**62 - 1, dropouts=range(0, 40, 3)).total
    big = 3**90
    yb = [int(v) * 3**50 % big for v in y]
    out = MaskedSecAgg(threshold=30).run(yb, big, rng, dropouts=[0, 39])
    assert out.total == (sum(yb) - yb[0] - yb[39]) % big
    assert out.view.masked.dtype == object


def test_masked_dropout_recovery_up_to_n_minus_t_and_not_beyond():
    y = [3, 1, 4, 1, 5, 9]
    agg = MaskedSecAgg(threshold=4)
    for drop in ([], [0], [5, 2], [0, 1]):
        out = agg.run(y, 11, 0, dropouts=drop)
        assert out.total == sum(v for i, v in enumerate(y) if i not in drop) % 11
        # every reconstructed key is the dropped user's key: it matches the advertised one
        for j, sk in out.view.dropped_private_keys.items():
            pk = X25519PrivateKey.from_private_bytes(sk).public_key().public_bytes_raw()
            assert pk == out.view.public_keys[j]
        assert len(out.view.share_holders) == 4
        assert set(out.view.share_holders) <= set(out.view.senders.tolist())
    with pytest.raises(ProtocolError, match=r"3 of 6 users dropped out.*t = 4.*n - t = 2"):
        agg.run(y, 11, 0, dropouts=[0, 1, 2])
    with pytest.raises(ProtocolError):
        MaskedSecAgg(threshold=6).run(y, 11, 0, dropouts=[3])
    assert issubclass(ProtocolError, ValueError)


def test_masked_in_worker_processes():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 1000, size=60)
    out = MaskedSecAgg(threshold=31, workers=2).run(y, 1000, rng, dropouts=range(0, 60, 7))
    assert out.total == IdealSecAgg().run(y, 1000, dropouts=range(0, 60, 7)).total


def test_masked_session_is_fresh_each_run():
    agg = MaskedSecAgg(threshold=2)
    a, b = agg.run([1, 2, 3], 97, 0), agg.run([1, 2, 3], 97, 0)
    assert a.view.session_id != b.view.session_id
    assert a.view.public_keys != b.view.public_keys


# ------------------------------------------------------------------ masked: uniformity
def _sessions(seeded_crypto, seed, y, m, count):
    seeded_crypto(seed)
    agg = MaskedSecAgg(threshold=2)
    rng = np.random.default_rng(seed)
    views = [agg.run(y, m, rng).view for _ in range(count)]
    return (np.array([v.pairwise_masked for v in views], dtype=np.int64),
            np.array([v.masked for v in views], dtype=np.int64))


def _uniform_p(values, cells):
    counts = np.bincount(values, minlength=cells)
    return stats.chisquare(counts).pvalue


@pytest.mark.parametrize("m, sessions", [(7, 1400), (97, 3000), (1000, 4000)])
def test_each_masked_message_is_uniform(seeded_crypto, m, sessions):
    """One user's message as the server holds it after removing the self-mask,
    y_0 ± PRG(s_01) mod m, is uniform on Z_m whatever y_0 (Pearson chi-square over
    ``sessions`` independent sessions of n = 2 users, the case with a single pairwise mask;
    >= 4 expected per cell). The raw masked messages (self-mask included) too."""
    pw, raw = _sessions(seeded_crypto, 1000 + m, [m - 1, 1], m, sessions)
    assert _uniform_p(pw[:, 0], m) >= P_MIN
    assert _uniform_p(raw[:, 0], m) >= P_MIN
    assert _uniform_p(raw[:, 1], m) >= P_MIN


def test_pairs_of_masked_messages_are_jointly_uniform(seeded_crypto):
    """For n = 3 any two users' pairwise-masked messages are jointly uniform on Z_m², while
    all three sum to Σ y mod m (so n − 1 is the most that can be jointly uniform)."""
    m, y = 7, [6, 0, 3]
    pw, raw = _sessions(seeded_crypto, 77, y, m, 1400)
    for a, b in ((0, 1), (0, 2), (1, 2)):
        assert _uniform_p(pw[:, a] * m + pw[:, b], m * m) >= P_MIN
    assert _uniform_p(raw[:, 0] * m + raw[:, 1], m * m) >= P_MIN
    assert (pw.sum(axis=1) % m == sum(y) % m).all()
    # n = 4: a pair of the four, on m = 5
    seeded_crypto(78)
    agg = MaskedSecAgg(threshold=3)
    pw4 = np.array([agg.run([4, 4, 0, 1], 5, s).view.pairwise_masked for s in range(800)],
                   dtype=np.int64)
    assert _uniform_p(pw4[:, 1] * 5 + pw4[:, 3], 25) >= P_MIN


# ------------------------------------------------------------------ masks: PRG and bias
@pytest.mark.parametrize("word_bits", [8, 16])
def test_rejection_reduction_is_exactly_unbiased(word_bits):
    """Exhaustive over every word of W bits: the accepted words hit each residue mod m
    exactly limit/m times, the rejected ones are the 2^W mod m words above the limit.
    (Plain w mod m would be biased: residues below 2^W mod m get one extra preimage.)"""
    words = np.arange(2**word_bits, dtype=np.uint64).reshape(-1, 1)
    for m in list(range(2, 300)) + [2**word_bits - 1, 2**word_bits - 3]:
        s = _prg.MaskSampler(m, word_bits, 1)
        masks, ok = s.reduce(words)
        counts = np.bincount(masks[ok], minlength=m)
        assert (counts == s.limit // m).all()
        assert (~ok).sum() == 2**word_bits % m
        naive = np.bincount(np.arange(2**word_bits) % m, minlength=m)
        assert (naive.max() == naive.min()) == (2**word_bits % m == 0)


@pytest.mark.parametrize("m", [2, 7, 1000, 2**61 + 1, (2**64) // 5 + 1, 2**62 - 1, 2**62,
                               2**64, 2**80 + 13, 3**100])
def test_vectorized_masks_equal_the_word_by_word_reference(m):
    seeds = [os.urandom(32) for _ in range(300)]
    s = _prg.MaskSampler.for_modulus(m)
    got = _prg.masks_from_seeds(seeds, s)
    assert [int(v) for v in got] == [s.mask_reference(x) for x in seeds]
    assert s.small == (m < 2**62)
    # one candidate per seed forces the keystream continuation on rejected words
    # (m = 2^64/5 + 1 rejects ~20% of words)
    one = _prg.MaskSampler(s.m, s.word_bits, 1)
    assert [int(v) for v in _prg.masks_from_seeds(seeds, one)] == [int(v) for v in got]


def test_numpy_chacha20_and_hkdf_match_cryptography():
    seeds = [os.urandom(32) for _ in range(300)]  # >= 256: the numpy rounds
    for offset, nbytes in [(0, 8), (0, 64), (3, 130), (64, 64), (120, 17), (0, 200)]:
        got = _prg.chacha20_stream(seeds, offset, nbytes)
        ref = [_prg.keystream(s, offset + nbytes)[offset:] for s in seeds]
        assert [bytes(r) for r in got] == ref
        small = _prg.chacha20_stream(seeds[:5], offset, nbytes)
        assert [bytes(r) for r in small] == ref[:5]
    for s in seeds[:20]:
        info = _prg.pair_info(os.urandom(32), 3, 1)
        assert _prg.derive_seed(s, info) == HKDF(hashes.SHA256(), 32, None, info).derive(s)
    assert _prg.pair_info(b"s", 3, 1) == _prg.pair_info(b"s", 1, 3)


def test_keystream_words_are_uniform():
    """ChaCha20 keystream bytes (numpy rounds) are uniform bytes (G-test, 256 cells)."""
    gen = np.random.default_rng(9)
    seeds = [gen.bytes(32) for _ in range(2000)]
    b = _prg.chacha20_stream(seeds, 0, 64).ravel()
    counts = np.bincount(b, minlength=256)
    assert stats.power_divergence(counts, lambda_="log-likelihood").pvalue >= P_MIN


# ------------------------------------------------------------------ Shamir
def test_field_matmul_is_exact_at_the_worst_case():
    p = _shamir.PRIME
    k = 2 * _shamir._BLOCK + 5   # crosses the float64 block boundary twice
    a = np.full((2, k), p - 1, dtype=np.int64)
    b = np.full((k, 3), p - 1, dtype=np.int64)
    b[::7, 1] = 12345
    got = _shamir.matmul_mod(a, b)
    for c in range(3):
        assert got[0, c] == sum((p - 1) * int(x) for x in b[:, c]) % p
    rng = np.random.default_rng(2)
    a = rng.integers(0, p, (5, 300))
    b = rng.integers(0, p, (300, 7))
    ref = (a.astype(object) @ b.astype(object)) % p
    assert (_shamir.matmul_mod(a, b) == ref.astype(np.int64)).all()


def test_shamir_any_t_holders_recover_and_t_minus_1_do_not_determine():
    rng = np.random.default_rng(4)
    secrets = np.frombuffer(os.urandom(32 * 5), dtype=np.uint8).reshape(5, 32)
    chunks = _shamir.secrets_to_chunks(secrets)
    assert (_shamir.chunks_to_secrets(chunks, 32) == secrets).all()
    n, t = 9, 4
    shares = _shamir.share(chunks, t, n)
    for _ in range(10):
        holders = np.sort(rng.choice(n, t, replace=False))
        rec = _shamir.reconstruct(shares[holders], holders)
        assert (_shamir.chunks_to_secrets(rec, 32) == secrets).all()
    # t − 1 shares: every value of a chunk is consistent with them (the missing share is
    # free), so interpolating with a made-up t-th share yields a different chunk
    holders = np.arange(t)
    fake = shares[holders].astype(np.int64)
    fake[-1] = (fake[-1] + 1) % _shamir.PRIME
    assert (_shamir.reconstruct(fake, holders) != chunks).all()
    lam = _shamir.lagrange_at_zero([1, 2, 3])
    assert [int(v) for v in lam] == [3, _shamir.PRIME - 3, 1]  # 3, -3, 1


def test_shamir_shares_of_a_chunk_are_uniform():
    """One holder's share of a fixed chunk is uniform on F_p (G-test over 64 bins)."""
    gen = np.random.default_rng(6)
    chunks = np.full((4000, 1), 777, dtype=np.int64)
    sh = _shamir.share(chunks, 3, 3, lambda k: gen.bytes(k))[1, :, 0].astype(np.int64)
    counts = np.bincount(sh * 64 // _shamir.PRIME, minlength=64)
    expected = np.diff(np.ceil(np.arange(65) * _shamir.PRIME / 64)) / _shamir.PRIME * 4000
    assert stats.power_divergence(counts, expected, lambda_="log-likelihood").pvalue >= P_MIN


def test_grouped_sum_is_exact_near_2_62():
    m = 2**62 - 57
    rng = np.random.default_rng(8)
    idx = rng.integers(0, 5, 20000)
    vals = rng.integers(m - 10**6, m, 20000)
    got = _zm.grouped_sum(idx, vals, 5, m, small=True)
    for u in range(5):
        assert got[u] == sum(vals[idx == u].tolist()) % m


# ------------------------------------------------------------------ shuffle
@given(batches(max_n=10), st.integers(1, 5), st.data())
def test_shuffle_total_equals_ideal(batch, k, data):
    y, m = batch
    drop = data.draw(st.sets(st.integers(0, len(y) - 1)))
    out = ShuffleSecAgg(k).run(y, m, data.draw(st.integers(0, 99)), dropouts=drop)
    assert out.total == IdealSecAgg().run(y, m, dropouts=drop).total
    assert len(out.view) == k * (len(y) - len(drop))
    assert sum(int(v) for v in out.view) % m == out.total
    assert out.bytes_sent == len(out.view) * secure.message_bytes(m)


def test_shuffle_shares_are_uniform():
    """Each of the k shares of a fixed input is uniform on Z_m, and any k − 1 of them are
    jointly uniform (chi-square over many users with the same input)."""
    m, k, n = 7, 3, 20000
    sh = ShuffleSecAgg(k).split(np.full(n, 5), m, 11)
    assert (sh.sum(axis=1) % m == 5).all()
    for c in range(k):
        assert _uniform_p(sh[:, c], m) >= P_MIN
    for a, b in ((0, 1), (0, 2), (1, 2)):
        assert _uniform_p(sh[:, a] * m + sh[:, b], m * m) >= P_MIN
    big = 2**90 + 1
    shb = ShuffleSecAgg(2).split([big - 1] * 500, big, 1)
    assert all(sum(r) % big == big - 1 for r in shb.tolist())
    # each position of the shuffled view is a uniform element of Z_m
    agg = ShuffleSecAgg(2)
    rng = np.random.default_rng(12)
    first = np.array([agg.run([3, 3, 6], m, rng).view[0] for _ in range(1400)])
    assert _uniform_p(first, m) >= P_MIN


def _view_law_by_enumeration(y, m, k):
    """Exact law of the shuffled view, as the sorted multiset (the shuffle is a uniform
    permutation, so the view's law is fixed by the multiset's): enumerate every choice of
    every user's k − 1 free shares."""
    per_user = [[t + ((yi - sum(t)) % m,) for t in itertools.product(range(m), repeat=k - 1)]
                for yi in y]
    counts = Counter(tuple(sorted(x for shares in combo for x in shares))
                     for combo in itertools.product(*per_user))
    total = sum(counts.values())
    return {key: Fraction(c, total) for key, c in counts.items()}


def _view_law_by_counting(y, m, k):
    """The same law computed differently: a user's k shares are uniform over the m^(k−1)
    tuples summing to y_i, so the count vector c of its shares has probability
    multinomial(k; c)/m^(k−1) when Σ v·c_v ≡ y_i (mod m); the view's count vector is the
    sum of the users' ones."""
    vecs = [c for c in itertools.product(range(k + 1), repeat=m) if sum(c) == k]

    def user(yi):
        return {c: Fraction(math.factorial(k) // math.prod(math.factorial(x) for x in c),
                            m ** (k - 1))
                for c in vecs if sum(v * x for v, x in enumerate(c)) % m == yi % m}

    law = {tuple([0] * m): Fraction(1)}
    for yi in y:
        new = Counter()
        for c, p in law.items():
            for d, q in user(yi).items():
                new[tuple(a + b for a, b in zip(c, d))] += p * q
        law = new
    return {tuple(v for v in range(m) for _ in range(c[v])): p for c, p in law.items()}


def _tv(P, Q):
    return sum(abs(P.get(x, 0) - Q.get(x, 0)) for x in set(P) | set(Q)) / 2


@pytest.mark.parametrize("n, m, k", [(2, 2, 2), (2, 3, 2), (2, 3, 3), (3, 2, 3), (3, 3, 2),
                                     (2, 4, 3), (4, 2, 2), (2, 5, 2)])
def test_exact_view_law_depends_on_inputs_only_up_to_the_computed_distance(n, m, k):
    """Exact (Fraction) laws of the view for every input with sum 0 mod m, by two
    independent computations that must agree; permuted inputs have TV exactly 0, and the
    TV to the simulator's input (0, ..., 0) is the exact security level at this size."""
    inputs = [y for y in itertools.product(range(m), repeat=n) if sum(y) % m == 0]
    sim = _view_law_by_enumeration((0,) * n, m, k)
    for y in inputs:
        law = _view_law_by_enumeration(y, m, k)
        assert law == _view_law_by_counting(y, m, k)
        assert sum(law.values()) == 1
        assert _tv(law, _view_law_by_enumeration(tuple(reversed(y)), m, k)) == 0
        d = _tv(law, sim)
        assert 0 <= d < 1
        if sorted(y) == [0] * n:
            assert d == 0


@pytest.mark.parametrize("k", [2, 3, 4, 5, 6])
def test_exact_tv_matches_closed_form_for_two_users_mod_2(k):
    """n = 2, m = 2, inputs (0,0) and (1,1): the view is the number C of ones; P0 − P1 has
    generating function (1 − x)^k (1 + x)^k = (1 − x²)^k over 4^(k−1), so
    TV = ½ Σ_j C(k, j) / 4^(k−1) = 2^(1−k) exactly."""
    d = _tv(_view_law_by_enumeration((0, 0), 2, k), _view_law_by_enumeration((1, 1), 2, k))
    assert d == Fraction(1, 2 ** (k - 1))


def test_implementation_samples_the_exact_view_law():
    """Sorted views of ShuffleSecAgg.run against the exact law (G-test, p >= 1e-4)."""
    y, m, k = (1, 2), 3, 2
    law = _view_law_by_enumeration(y, m, k)
    keys = sorted(law)
    agg, rng = ShuffleSecAgg(k), np.random.default_rng(13)
    draws = Counter(tuple(sorted(agg.run(y, m, rng).view.tolist())) for _ in range(3000))
    assert set(draws) <= set(keys)
    obs = np.array([draws[x] for x in keys])
    exp = np.array([float(law[x]) for x in keys]) * 3000
    assert stats.power_divergence(obs, exp, lambda_="log-likelihood").pvalue >= P_MIN


def test_required_k_follows_the_cited_bound():
    # the example of Balle et al. (arXiv:1909.11225): n = 10^4, 32-bit inputs, σ = 40 -> 12
    assert ShuffleSecAgg.required_k(10**4, 2**32, 40) == 12
    assert ShuffleSecAgg.for_security(10**4, 2**32, 40) == ShuffleSecAgg(12)
    for n, m, s in [(19, 2, 1), (100, 10**6, 40), (10**6, 2**64, 80), (10**4, 2**32, "40.5")]:
        k = ShuffleSecAgg.required_k(n, m, s)
        x = 2 + (2 * float(Fraction(s)) + math.log2(m)) / (math.log2(n) - math.log2(math.e))
        assert k == math.ceil(x)
    assert ShuffleSecAgg.required_k(10**3, 2**32, 40) >= ShuffleSecAgg.required_k(10**5,
                                                                                   2**32, 40)
    assert ShuffleSecAgg.required_k(10**4, 2**32, 80) > ShuffleSecAgg.required_k(10**4,
                                                                                 2**32, 40)
    with pytest.raises(ParameterError, match="n must be >= 19"):
        ShuffleSecAgg.required_k(18, 2**32, 40)
    with pytest.raises(ParameterError, match="sigma"):
        ShuffleSecAgg.required_k(100, 2**32, 0)


def test_output_is_immutable():
    out = ShuffleSecAgg(2).run([1, 2], 5, 0)
    assert isinstance(out, SecureOutput)
    with pytest.raises(ValueError):
        out.view[0] = 0
    with pytest.raises(AttributeError):
        out.total = 3
    mv = MaskedSecAgg(threshold=2).run([1, 2], 5, 0).view
    with pytest.raises(TypeError):
        mv.self_mask_seeds[0] = b""
