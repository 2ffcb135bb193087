"""Arithmetic in Z_m (privtools.protocol._zm) against exact Python-int oracles.

Moduli: small ones, 2, around 2**31, 2**62 (the int64 / Python-int boundary), 2**63 and the
largest the project allows (privtools.limits.M: 2**64)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.limits import M
from privtools.protocol import _zm as zm

MODULI = [2, 3, 7, 1000, 2**31 - 1, 2**31, 2**31 + 1, 2**62 - 57, 2**62 - 1, 2**62,
          2**62 + 1, 2**63 - 1, 2**63, 2**63 + 1, M.high - 1, M.high]
moduli = st.sampled_from(MODULI)


def as_zm(values, m):
    """Values of Z_m in the protocol's representation: int64 below 2**62, else objects."""
    if zm.is_small(m):
        return np.array(values, dtype=np.int64)
    out = np.empty(len(values), dtype=object)
    out[:] = [int(v) for v in values]
    return out


def elements(m, min_size=0, max_size=50):
    # biased towards the top of Z_m, where overflow would show
    return st.lists(st.one_of(st.integers(0, m - 1), st.integers(max(0, m - 1000), m - 1)),
                    min_size=min_size, max_size=max_size)


def check_zm(out, m):
    vals = np.asarray(out).ravel().tolist()
    assert all(0 <= int(v) < m for v in vals)
    if zm.is_small(m):
        assert np.asarray(out).dtype == np.int64


def test_largest_modulus_is_the_project_limit():
    assert M.high == 2**64 and max(MODULI) == M.high


@given(moduli, st.data())
def test_reduce_add_sub_neg_agree_with_python(m, data):
    a = data.draw(elements(m, 1))
    b = data.draw(elements(m, len(a), len(a)))
    A, B = as_zm(a, m), as_zm(b, m)
    for out, want in [(zm.add(A, B, m), [(x + y) % m for x, y in zip(a, b)]),
                      (zm.sub(A, B, m), [(x - y) % m for x, y in zip(a, b)]),
                      (zm.neg(A, m), [(-x) % m for x in a])]:
        check_zm(out, m)
        assert [int(v) for v in out] == want
    # reduce: any integers (int64 when they fit)
    raw = data.draw(st.lists(st.integers(-2**63, 2**63 - 1), min_size=1, max_size=30))
    out = zm.reduce(np.array(raw, dtype=np.int64), m)
    check_zm(out, m)
    assert [int(v) for v in out] == [v % m for v in raw]


@given(moduli, st.data())
def test_add_noise_agrees_with_python(m, data):
    a = data.draw(elements(m, 1))
    eta = data.draw(st.lists(st.integers(-2**63, 2**63 - 1), min_size=len(a),
                             max_size=len(a)))
    out = zm.add_noise(as_zm(a, m), np.array(eta, dtype=np.int64), m)
    check_zm(out, m)
    assert [int(v) for v in out] == [(x + e) % m for x, e in zip(a, eta)]


@settings(max_examples=30)
@given(moduli, st.integers(0, 2**32), st.integers(4096, 6000), st.integers(0, 40))
def test_add_noise_sparse_path_agrees_with_python(m, seed, size, nonzero):
    rng = np.random.default_rng(seed)
    a = [int(v) % m for v in rng.integers(0, 2**62, size)]
    eta = np.zeros(size, dtype=np.int64)
    eta[rng.choice(size, nonzero, replace=False)] = rng.integers(-2**63, 2**63 - 1, nonzero)
    out = zm.add_noise(as_zm(a, m), eta, m)
    check_zm(out, m)
    assert [int(v) for v in out] == [(x + int(e)) % m for x, e in zip(a, eta)]


@given(moduli, st.data())
def test_modular_sum_of_many_values_does_not_overflow(m, data):
    """Many values near m − 1: their plain int64 sum would wrap around for large m."""
    count = data.draw(st.integers(0, 3000))
    top = data.draw(st.integers(0, min(m - 1, 1000)))
    a = [m - 1 - (k * 7919) % (top + 1) for k in range(count)]
    A = as_zm(a, m)
    assert int(zm.modular_sum(A, m)) == sum(a) % m
    assert zm.sum_int(A, m) == sum(a) % m
    assert isinstance(zm.sum_int(A, m), int)


@given(moduli, st.data())
def test_modular_sum_along_an_axis(m, data):
    rows = data.draw(st.integers(1, 4))
    a = data.draw(elements(m, rows * 3, rows * 3))
    A = as_zm(a, m).reshape(rows, 3)
    for axis in (0, 1, -1):
        got = zm.modular_sum(A, m, axis=axis)
        want = np.sum(np.array(a, dtype=object).reshape(rows, 3), axis=axis) % m
        check_zm(got, m)
        assert [int(v) for v in got] == [int(v) for v in want]


@given(moduli, st.data())
def test_grouped_sum_equals_per_group_python_sums(m, data):
    n = data.draw(st.integers(1, 6))
    a = data.draw(elements(m, 0, 200))
    idx = np.array(data.draw(st.lists(st.integers(0, n - 1), min_size=len(a),
                                      max_size=len(a))), dtype=np.int64)
    got = zm.grouped_sum(idx, as_zm(a, m), n, m, small=zm.is_small(m))
    check_zm(got, m)
    want = [sum(v for v, u in zip(a, idx.tolist()) if u == g) % m for g in range(n)]
    assert [int(v) for v in got] == want


@given(moduli, st.integers(0, 2**32), st.integers(0, 3), st.integers(0, 5))
def test_uniform_draws_lie_in_zm(m, seed, rows, cols):
    out = zm.uniform(np.random.default_rng(seed), m, (rows, cols))
    assert out.shape == (rows, cols)
    check_zm(out, m)
    if not zm.is_small(m):
        assert out.dtype == object


def test_uniform_large_modulus_hits_the_top_of_zm():
    """For m just above 2**63 the draws are not confined to [0, 2**63)."""
    m = 2**63 + 2**62
    out = zm.uniform(np.random.default_rng(0), m, (400,))
    assert max(out) >= 2**63 and min(out) >= 0 and max(out) < m


@given(moduli, st.sampled_from([64, 72, 136]))
def test_rejection_limit_is_the_largest_multiple_of_m(m, bits):
    limit = zm.rejection_limit(bits, m)
    assert limit % m == 0 and limit <= 2**bits < limit + m
    if not zm.is_small(m):
        w = zm.wide_word_bits(m)
        assert w % 8 == 0 and w >= m.bit_length() + 64
