"""``identify_scheme``: every sampler of the DP-SGD zoo and the reference samplers is named
by the family its batches' exact structure admits, with the mean rate's exact interval."""

from __future__ import annotations

import numpy as np
import pytest

from privtools.errors import ParameterError, UserCodeError
from verification.audit import (
    AllocationScheme,
    FixedSizeScheme,
    PoissonScheme,
    ShuffleScheme,
    audit_sampling,
    identify_scheme,
    reference_sampler,
)
from verification.zoo.training import make_sampler

N = 200


def _with_replacement(n_batches, rng):
    return [rng.integers(0, N, 20) for _ in range(n_batches)]


@pytest.mark.parametrize("sampler, kind, scheme", [
    (make_sampler("poisson", N, q=0.1), "independent inclusions", None),
    (make_sampler("weighted", N, q=0.1, weights=np.arange(N) + 1.0),
     "independent inclusions", None),
    (make_sampler("blocks", N, q=0.1), "independent inclusions", None),
    (make_sampler("fixed_size", N, batch=20), "fixed size", FixedSizeScheme(20)),
    (make_sampler("shuffle", N, batch=20), "shuffle", ShuffleScheme(20)),
    (make_sampler("shuffle", N, batch=30), "shuffle", ShuffleScheme(30)),
    (make_sampler("sequential", N, batch=20), "sequential", None),
    (reference_sampler(AllocationScheme(8, 3), N), "allocation", AllocationScheme(8, 3)),
    (reference_sampler(AllocationScheme(5), N), "allocation", AllocationScheme(5)),
    (_with_replacement, "with replacement", None),
])
def test_each_sampler_is_named_by_its_family(sampler, kind, scheme):
    out = identify_scheme(sampler, N, n_batches=120, rng=5)
    assert out.kind == kind, out.describe()
    if scheme is not None:
        assert out.scheme == scheme
    if kind == "independent inclusions":
        assert isinstance(out.scheme, PoissonScheme)
        lo, hi = out.rate_interval
        assert lo <= out.rate <= hi
        if sampler.__name__ == "poisson_sampler":      # exact under independence only
            assert lo <= 0.1 <= hi
    assert kind in out.describe()


def test_the_rate_interval_keeps_its_confidence():
    """Over 200 seeds the exact 90 % interval of a Poisson sampler's rate misses q in at
    most 10 % of them, up to binomial noise (at most 32 of 200: P < 0.002 under 10 %)."""
    sampler = make_sampler("poisson", 50, q=0.07)
    misses = 0
    for seed in range(200):
        lo, hi = identify_scheme(sampler, 50, n_batches=20, rng=seed,
                                 confidence=0.9).rate_interval
        misses += not (lo <= 0.07 <= hi)
    assert misses <= 32


def test_bad_input_is_named_and_user_code_is_contained():
    with pytest.raises(ParameterError, match="population"):
        identify_scheme(make_sampler("poisson", N, q=0.1), 1)
    with pytest.raises(ParameterError, match="confidence"):
        identify_scheme(make_sampler("poisson", N, q=0.1), N, confidence=1.5)
    with pytest.raises(ParameterError, match="outside"):
        identify_scheme(lambda k, rng: [np.array([N])] * k, N, n_batches=10)

    def exits(k, rng):
        raise SystemExit(3)
    with pytest.raises(UserCodeError):
        identify_scheme(exits, N, n_batches=10)


def _kept_bins(n_batches, rng):
    """Balls in bins with the bin kept: each record one of 10 places, drawn once, the same
    in every round (jax_privacy's BallsInBinsSampling)."""
    place = rng.integers(0, 10, N)
    return [np.flatnonzero(place == t % 10) for t in range(n_batches)]


def test_a_kept_allocation_is_named_and_fails_the_allocation_test():
    r = identify_scheme(_kept_bins, N, 200, rng=0)
    assert r.kind == "allocation, kept" and r.scheme == AllocationScheme(10)
    assert "same places" in r.reason
    assert audit_sampling(_kept_bins, AllocationScheme(10), N, 200, rng=1).verdict == "fail"
