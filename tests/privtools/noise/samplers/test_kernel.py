"""The alias table's compiled bulk path reads the same words and returns the same values as
the numpy path, for every kind of bit generator; without numba (or with
``PRIVTOOLS_KERNEL=numpy``) the numpy path answers; single draws' scalar shortcuts compute
the batch formulas."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam
from privtools.noise._samplers import kernel as _kernel
from privtools.noise._samplers.fixed import AliasTable, _words
from privtools.randomness import counting_rng, words_used

GENERATORS = [lambda: np.random.default_rng(5), lambda: np.random.Generator(np.random.Philox(9)),
              lambda: np.random.Generator(np.random.SFC64(3)), lambda: counting_rng(4)]


@pytest.mark.parametrize("make", GENERATORS, ids=["PCG64", "Philox", "SFC64", "ChaCha"])
@pytest.mark.parametrize("law", [DiscreteLaplace(40), Skellam(900),
                                 DiscreteLaplace(60).shares(1024)], ids=str)
def test_bulk_path_returns_the_numpy_values_and_consumes_the_same_words(make, law):
    pytest.importorskip("numba")
    table = law.sampler.table
    n = _kernel.BULK + 12345
    a_rng, b_rng = make(), make()
    a = table.sample(n, a_rng)
    b = table.from_words(_words(b_rng, n))
    assert _kernel.kernel_name() == "numba"
    assert np.array_equal(a, b)
    assert a_rng.bit_generator.random_raw() == b_rng.bit_generator.random_raw()


def test_bulk_path_counts_its_words():
    pytest.importorskip("numba")
    rng = counting_rng(1)
    before = words_used(rng)
    DiscreteLaplace(40).sample(_kernel.BULK, rng)
    assert words_used(rng) - before == 2 * _kernel.BULK        # one 64-bit word a draw


def test_without_the_kernel_the_numpy_path_answers(monkeypatch):
    monkeypatch.setattr(_kernel, "_KERNEL", False)
    assert _kernel.kernel_name() == "numpy"
    table = DiscreteLaplace(40).sampler.table
    n = _kernel.BULK + 1
    a = table.sample(n, np.random.default_rng(2))
    assert np.array_equal(a, table.from_words(_words(np.random.default_rng(2), n)))


def test_full_columns_and_point_masses_map_every_word():
    pytest.importorskip("numba")
    # two full columns (weights 2^63 each) and a point mass
    for weights, lo in (([2**63, 2**63], -1), ([0, 2**64, 0], 5)):
        table = AliasTable(weights, lo)
        out = table.sample(_kernel.BULK, np.random.default_rng(0))
        ref = table.from_words(_words(np.random.default_rng(0), _kernel.BULK))
        assert np.array_equal(out, ref)


def test_once_loaded_the_kernel_serves_small_batches_with_the_same_values():
    pytest.importorskip("numba")
    table = DiscreteLaplace(40).sampler.table
    table.sample(_kernel.BULK, np.random.default_rng(0))          # loads it
    assert _kernel.wanted(_kernel.SMALL) and not _kernel.wanted(_kernel.SMALL - 1)
    a = table.sample(_kernel.SMALL + 3, np.random.default_rng(8))
    assert np.array_equal(a, table.from_words(_words(np.random.default_rng(8),
                                                     _kernel.SMALL + 3)))


@settings(max_examples=60, deadline=None)
@given(hs.integers(300, 10**12), hs.floats(1.0, 1e15))
def test_skellam_single_draw_acceptance_is_the_batch_formula(nu, x):
    from privtools.noise.skellam import _log_ive

    one = _log_ive(np.array([nu]), x)[0]
    batch = _log_ive(np.array([nu, 5]), x)[0]       # the vectorised branch
    assert one == pytest.approx(batch, rel=1e-14, abs=1e-12)


@pytest.mark.parametrize("law", [Skellam(10**12), Skellam(10**12).shares(1024),
                                 DiscreteGaussian(10**6)], ids=str)
def test_rejection_single_draws_match_the_batch_loop(law):
    sampler = law.sampler
    assert sampler.kind == "rejection"
    singles = [int(law.sample(None, np.random.default_rng(i))) for i in range(150)]
    batch = [int(sampler._sample_many(1, np.random.default_rng(i))[0]) for i in range(150)]
    assert singles == batch
    words = [list(range(7)), [2**64 - 1] * 6 + [0]]
    for w in words:                         # the digit proposal in scalar arithmetic
        u = np.array(w[:6], dtype=np.uint64).reshape(6, 1)
        assert sampler.proposal.one(w[:6]) == int(sampler.proposal.from_words(u)[0])
