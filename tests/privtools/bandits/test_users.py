"""The users of a batch in one loop (privtools.bandits.se.users): the counter-based stream,
the ziggurat's layers and law, and the compiled loop against the numpy path and against the
per-user definition."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from privtools.bandits import BernoulliEnv, GaussianEnv, easy_instance, policy, simulate
from privtools.bandits.se import simulation, users
from privtools.bandits.se.simulation import batch_plan
from privtools.protocol import protocol_params

KEYS = users.batch_keys(np.random.default_rng(20261203))


def _tables():
    out = [None]
    for name, kw, n in (("dist-dp-se", {}, 64), ("dist-dp-se", {}, 4096),
                        ("dist-rdp-se", {"s": 10}, 256)):
        P = protocol_params(batch_plan(policy(name, epsilon=0.5, **kw), n, 10**6))
        out.append(P.share.sampler.table)
    return out


TABLES = _tables()


@pytest.fixture
def no_numba(monkeypatch):
    monkeypatch.setattr(users, "_KERNEL", False)


def _compiled_or_skip():
    users._KERNEL = None
    if not users.compiled():
        pytest.skip("optional dependency: numba (the `fast` extra)")


def test_ziggurat_layers_have_equal_area():
    """Every layer i >= 1 is the rectangle [0, X_i] x [F_i, F_{i+1}] of area v; the base is
    r f(r) plus the tail beyond r, also v; the top reaches f = 1 at 0; together they cover
    the area √(π/2) under f."""
    r, X, F = users.ziggurat()
    v = r * math.exp(-r * r / 2) + math.sqrt(math.pi / 2) * math.erfc(r / math.sqrt(2))
    assert X[0] * F[1] == pytest.approx(v, rel=1e-13)
    areas = X[1:users.LAYERS] * (F[2:] - F[1:users.LAYERS])
    assert np.allclose(areas, v, rtol=1e-9, atol=0)
    assert X[users.LAYERS] == 0 and F[users.LAYERS] == 1
    assert np.all(np.diff(X[1:]) < 0)
    # the layers cover the area under f with little overhang: 99 % of each draw's area
    assert math.sqrt(math.pi / 2) < users.LAYERS * v < math.sqrt(math.pi / 2) / 0.99


def test_words_are_the_splitmix_output_of_key_plus_counter():
    """Word q of key k is SplitMix64's finaliser of k + q·γ (exact integer oracle)."""
    M = (1 << 64) - 1

    def mix(z):
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & M
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & M
        return z ^ (z >> 31)
    q = np.array([0, 1, 2, 12345, 2**40 + 7], dtype=np.uint64)
    got = users.words(KEYS[1], q)
    want = [mix((int(KEYS[1]) + int(c) * 0x9E3779B97F4A7C15) & M) for c in q]
    assert [int(x) for x in got] == want


def test_normals_follow_the_standard_normal():
    """2·10^5 draws at fixed keys: Kolmogorov–Smirnov against N(0, 1) (p > 10^-3), and the
    draws beyond the base point r — the tail sampler's — against the normal's tail."""
    z = users.normals(KEYS[0], KEYS[3], np.arange(200_000, dtype=np.uint64))
    assert stats.kstest(z, "norm").pvalue > 1e-3
    r = users.ziggurat()[0]
    far = np.abs(z[np.abs(z) > r])
    assert far.size > 20
    tail = stats.truncnorm(r, np.inf)
    assert stats.kstest(far, tail.cdf).pvalue > 1e-3
    # how many: Binomial(n, 2·Φ̄(r)), within 4.5 standard deviations
    p = 2 * stats.norm.sf(r)
    assert abs(far.size - z.size * p) < 4.5 * math.sqrt(z.size * p * (1 - p))


@settings(max_examples=25, deadline=None)
@given(n=st.integers(1, 3000), arms=st.integers(1, 4), g=st.sampled_from([1, 4, 32, 1000]),
       table=st.sampled_from(range(len(TABLES))), bern=st.booleans(),
       key=st.integers(0, 2**32))
def test_compiled_loop_equals_numpy_path(n, arms, g, table, bern, key):
    _compiled_or_skip()
    keys = users.batch_keys(np.random.default_rng(key))
    means = np.linspace(0.05, 0.95, arms + 1)
    env = BernoulliEnv(means) if bern else GaussianEnv(means, sd=0.3)
    a = np.arange(arms + 1)[::-1][:arms]
    got = users.row_sums(keys, env, a, n, g, TABLES[table])
    users._KERNEL = False
    try:
        want = users.row_sums(keys, env, a, n, g, TABLES[table])
    finally:
        users._KERNEL = None
    assert np.array_equal(got[0], want[0])
    assert (got[1] is None) == (want[1] is None)
    if got[1] is not None:
        assert np.array_equal(got[1], want[1])


@pytest.mark.parametrize("compiled", [True, False])
def test_row_sums_follow_the_per_user_definition(compiled):
    """Σ x̂ and Σ η from the per-user definition: reward z·sd + μ clipped, x̂ = ⌊xg⌋ + [U <
    xg − ⌊xg⌋] on the coin word, η the share table's value of the share word (scalar
    Python, one user at a time)."""
    if compiled:
        _compiled_or_skip()
    else:
        users._KERNEL = False
    try:
        env = GaussianEnv((0.2, 0.9), sd=0.4)
        n, g, table = 2000, 32, TABLES[2]
        S, E = users.row_sums(KEYS, env, np.array([1, 0]), n, g, table)
    finally:
        users._KERNEL = None
    for row, arm in enumerate((1, 0)):
        c = np.arange(row * n, (row + 1) * n, dtype=np.uint64)
        z = users.normals(KEYS[0], KEYS[3], c)
        coin = users.words(KEYS[1], c)
        share = users.words(KEYS[2], c)
        sx = se = 0
        for zi, ci, si in zip(z.tolist(), coin.tolist(), share.tolist()):
            x = min(max(zi * 0.4 + env.means[arm], 0.0), 1.0)
            t = x * g
            sx += math.floor(t) + ((ci >> 11) * 2.0**-53 < t - math.floor(t))
            se += table.one(si)
        assert (int(S[row]), int(E[row])) == (sx, se)


def test_bernoulli_rewards_round_exactly(no_numba):
    """A reward in {0, 1} times g is an integer: Σ x̂ = g · (successes), the successes those
    of the reward words (U < μ)."""
    env = BernoulliEnv((0.3, 0.75))
    n, g = 5000, 7
    S, E = users.row_sums(KEYS, env, np.array([0, 1]), n, g, None)
    assert E is None
    for row, mu in enumerate((0.3, 0.75)):
        c = np.arange(row * n, (row + 1) * n, dtype=np.uint64)
        succ = int(np.sum((users.words(KEYS[0], c) >> np.uint64(11)).astype(float)
                          * 2.0**-53 < mu))
        assert int(S[row]) == g * succ


def test_simulate_is_the_same_with_and_without_numba(monkeypatch):
    """A seed gives the same run whether the users are drawn by the compiled loop or by
    numpy (faithful, aggregate, central and local policies)."""
    _compiled_or_skip()
    env = easy_instance(6, 2)
    specs = [policy("dist-dp-se", epsilon=0.5), policy("dist-dp-se", epsilon=0.5,
                                                       mode="aggregate"),
             policy("central-dp-se", epsilon=0.5), policy("dist-rdp-se", epsilon=0.5, s=10),
             policy("ldp-se", epsilon=1)]
    fast = [simulate(s, env, 200_000, rng=3, record_noise=True) for s in specs]
    monkeypatch.setattr(users, "_KERNEL", False)
    slow = [simulate(s, env, 200_000, rng=3, record_noise=True) for s in specs]
    for a, b in zip(fast, slow):
        assert a == b
        assert all(np.array_equal(x.noise, y.noise) for x, y in zip(a.noise_log, b.noise_log))


def test_faithful_batches_take_the_loop(monkeypatch):
    """Gaussian and Bernoulli environments under the ideal secure computation go through
    row_sums once per batch; a masked secure computation does not."""
    calls = []
    real = users.row_sums

    def spy(*args, **kw):
        calls.append(args[3])
        return real(*args, **kw)
    monkeypatch.setattr(simulation._users, "row_sums", spy)
    r = simulate(policy("dist-dp-se", epsilon=0.5), easy_instance(4, 1), 50_000, rng=1)
    assert len(calls) == r.batches and calls == [4 ** b for b in range(1, r.batches + 1)]
    calls.clear()
    simulate(policy("dist-dp-se", epsilon=8, secure="masked"), GaussianEnv((0.1, 0.9)), 400,
             rng=4)
    assert calls == []
