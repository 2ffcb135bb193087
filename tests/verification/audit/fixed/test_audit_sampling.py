"""verification.audit.audit_sampling: is the code's batch sampler the scheme claimed?

Exact checks fail with certainty (indices out of range, a record twice in a batch, a wrong
batch size, an epoch that is not a partition, a round where a record is not in k steps);
the Monte Carlo tests keep their level (false alarms counted over fixed seeds, with the
binomial bound the count must stay under) and catch the field's mismatches: a rate 2× the
claim, a weighted sampler of the claimed mean rate, fixed-size batches claimed as Poisson,
shuffled batches claimed as fixed size."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.stats as st

from privtools.errors import ParameterError, UserCodeError
from verification.audit import (
    AllocationScheme,
    FixedSizeScheme,
    PoissonScheme,
    ShuffleScheme,
    audit_sampling,
    from_batches,
    reference_sampler,
    scheme_of,
)

N = 60            # records
T = 300           # batches


def poisson(q, weights=None):
    """Poisson sampling at ``q``, or at per-record ``weights`` (a weighted sampler)."""
    if weights is None:
        return reference_sampler(PoissonScheme(q), N)

    def sampler(n_batches, rng):
        return [np.flatnonzero(rng.random(N) < weights) for _ in range(n_batches)]
    return sampler


def fixed(b):
    return reference_sampler(FixedSizeScheme(b), N)


def shuffled(b):
    return reference_sampler(ShuffleScheme(b), N)


def allocated(t, k=1):
    return reference_sampler(AllocationScheme(t, k), N)


CORRECT = [(poisson(0.1), PoissonScheme(0.1)), (fixed(6), FixedSizeScheme(6)),
           (shuffled(12), ShuffleScheme(12)), (allocated(5, 2), AllocationScheme(5, 2))]


@pytest.mark.parametrize("sampler, scheme", CORRECT, ids=lambda x: getattr(x, "describe",
                                                                           lambda: "")())
def test_correct_samplers_keep_the_false_alarm_rate(sampler, scheme):
    """At α = 0.1 over 30 seeds the false alarms are Binomial(30, ≤ 0.1): more than 9 has
    probability below 0.002 — the bound this asserts."""
    alarms = sum(audit_sampling(sampler, scheme, N, T, rng=s, alpha=0.1,
                                n_null=199).verdict == "fail" for s in range(30))
    assert st.binom.sf(alarms - 1, 30, 0.1) > 0.002, alarms


@pytest.mark.parametrize("sampler, scheme, test", [
    (poisson(0.2), PoissonScheme(0.1), "rate"),                       # 2× the claimed rate
    (poisson(0.1, np.where(np.arange(N) < N // 2, 0.18, 0.02)), PoissonScheme(0.1),
     "records"),                                                        # weighted, same mean
    (fixed(6), PoissonScheme(0.1), "batch sizes"),                     # fixed size as Poisson
], ids=["2x rate", "weighted", "fixed as Poisson"])
def test_the_fields_mismatches_are_caught(sampler, scheme, test):
    r = audit_sampling(sampler, scheme, N, 1000, rng=3)
    assert r.verdict == "fail" and not r.passed
    assert r.tests[test]["p_value"] <= r.tests[test]["level"]
    assert r.tests[test]["level"] == pytest.approx(0.01 / len(r.tests))


def test_shuffled_batches_are_not_independent_fixed_size_batches():
    r = audit_sampling(shuffled(12), FixedSizeScheme(12), N, 600, rng=4)
    assert r.verdict == "fail" and r.tests["records"]["p_value"] <= 0.01


@pytest.mark.parametrize("batches, scheme, words", [
    ([[0, 1, N]] * 10, PoissonScheme(0.1), "outside"),
    ([[0, 1, 1]] * 10, PoissonScheme(0.1), "twice"),
    ([[0, 1, 2]] * 9 + [[0, 1]], FixedSizeScheme(3), "has 2 records"),
    ([list(range(12))] * 10, ShuffleScheme(12), "not a partition"),
    ([list(range(N))] + [[]] * 4 + [list(range(N))] * 5, AllocationScheme(5, 1),
     "appears 5 times"),
])
def test_exact_violations_fail_with_certainty(batches, scheme, words):
    r = audit_sampling(lambda n, rng: batches, scheme, N, 10, rng=0)
    assert r.verdict == "fail" and words in r.violation and r.tests == {}


def test_from_batches_reads_an_iterable_like_a_batch_sampler():
    def loader(rng):                    # e.g. a torch BatchSampler over a shuffled order
        perm = rng.permutation(N)
        return (perm[i:i + 12].tolist() for i in range(0, N, 12))
    r = audit_sampling(from_batches(loader), ShuffleScheme(12), N, 300, rng=5)
    assert r.verdict == "pass"
    with pytest.raises(UserCodeError, match="no batch"):       # raised in the user's sampler
        audit_sampling(from_batches(lambda rng: []), PoissonScheme(0.1), N, 10)


def test_bad_input_is_refused_before_any_draw():
    with pytest.raises(ParameterError, match="q"):
        PoissonScheme(1.5)
    with pytest.raises(ParameterError, match="k"):
        AllocationScheme(3, 4)
    with pytest.raises(ParameterError, match="scheme"):
        audit_sampling(poisson(0.1), "poisson", N)
    with pytest.raises(ParameterError, match="epochs"):
        audit_sampling(shuffled(12), ShuffleScheme(12), N, 12)
    with pytest.raises(ParameterError, match="batches"):
        audit_sampling(lambda n, rng: [[0]] * (n - 1), PoissonScheme(0.1), N, 10)
    with pytest.raises(ParameterError, match="integers"):
        audit_sampling(lambda n, rng: [[0.5]] * n, PoissonScheme(0.1), N, 10)


def test_the_samplers_failures_are_its_own():
    def exits(n, rng):
        raise SystemExit(0)
    with pytest.raises(UserCodeError, match="sys.exit"):
        audit_sampling(exits, PoissonScheme(0.1), N, 10)


def test_the_accountants_event_is_the_scheme_it_assumes():
    """``audit_sampling`` takes the accountant's sampled event and tests the scheme that
    event assumes: a sampler at q = 0.1 passes for PoissonSampledEvent(…, q=0.1) and fails
    for the same event at q = 0.2."""
    from privtools.accounting import (
        GaussianEvent,
        PoissonSampledEvent,
        RandomAllocationEvent,
        SampledWithoutReplacementEvent,
        ShuffledBatchesEvent,
    )

    g = GaussianEvent(sigma=1)
    sampler = reference_sampler(PoissonScheme(0.1), 200)
    assert audit_sampling(sampler, PoissonSampledEvent(g, q=0.1), 200, n_batches=200,
                          rng=3).verdict == "pass"
    assert audit_sampling(sampler, PoissonSampledEvent(g, q=0.2), 200, n_batches=200,
                          rng=3).verdict == "fail"
    assert scheme_of(SampledWithoutReplacementEvent(g, batch=10, population=200), 200) == \
        FixedSizeScheme(10)
    assert scheme_of(RandomAllocationEvent(g, steps=5, allocations=2), 200) == \
        AllocationScheme(5, 2)
    with pytest.raises(ParameterError, match="differs from the event's population"):
        scheme_of(SampledWithoutReplacementEvent(g, batch=10, population=100), 200)
    with pytest.raises(ParameterError, match="assumes no batch sampling scheme"):
        audit_sampling(sampler, g, 200)
    assert scheme_of(ShuffledBatchesEvent(g, steps=20), 200) == ShuffleScheme(10)
    assert scheme_of(ShuffledBatchesEvent(g, steps=3), 200) == ShuffleScheme(67)
    with pytest.raises(ParameterError, match="cannot be cut into steps = 150"):
        scheme_of(ShuffledBatchesEvent(g, steps=150), 200)
    shuffled = reference_sampler(ShuffleScheme(10), 200)
    assert audit_sampling(shuffled, ShuffledBatchesEvent(g, steps=20), 200, n_batches=200,
                          rng=4).verdict == "pass"
    assert audit_sampling(shuffled, PoissonSampledEvent(g, q=0.05), 200, n_batches=200,
                          rng=4).verdict == "fail"


def _cyclic(cycle: int, q: float):
    """Cyclic Poisson sampling: the records split into ``cycle`` groups, group j eligible in
    the batches t ≡ j (mod cycle), each eligible record in at rate q — a mean rate of
    q/cycle with no record in two batches less than ``cycle`` apart."""
    def sampler(n_batches, rng):
        group = np.arange(N) % cycle
        return [np.flatnonzero((group == t % cycle) & (rng.random(N) < q))
                for t in range(n_batches)]
    return sampler


def test_cyclic_eligibility_told_as_poisson_fails_on_the_gaps():
    """A false pass kept as a regression case: cyclic Poisson sampling (4 groups at rate
    0.2) has the mean rate, the per-record spread and the batch sizes of Poisson sampling at
    0.05, and passed the three tests that read only those; its gaps show it."""
    r = audit_sampling(_cyclic(4, 0.2), PoissonScheme(0.05), N, 1000, rng=3)
    assert r.verdict == "fail"
    assert r.tests["gaps"]["p_value"] <= r.tests["gaps"]["level"]
    assert all(r.tests[k]["p_value"] > r.tests[k]["level"] for k in ("rate", "records"))
