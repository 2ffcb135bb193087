"""Searches keep their promises whatever the seed: ``budget`` bounds the draws of
``search_counterexample``, ``max_examples`` bounds the pairs ``find_counterexample`` screens
(its shrinking included), so a search costs about the same at every seed."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.errors import ParameterError
from privtools.testing import PrivacyAssertionError, assert_private
from verification.audit import search_counterexample
from verification.audit.search import _MIN_DRAWS, _rounds, affordable_pairs


def laplace_sum(d, size, rng):
    return float(np.sum(d)) + rng.laplace(0.0, 10.0, size)      # records in [0, 3]: ε ≤ 0.3


def leaky_sum(d, size, rng):
    return float(np.sum(d)) + rng.laplace(0.0, 0.2, size)       # ε = 5 per unit


@settings(max_examples=300, deadline=None)
@given(budget=st.integers(4 * _MIN_DRAWS, 10**8), k=st.integers(1, 512))
def test_affordable_pairs_fit_the_budget(budget, k):
    """Successive halving over the affordable pairs never draws more than the budget, and
    gives every pair of the first round at least the minimum draws."""
    kept = affordable_pairs(budget, k)
    assert 1 <= kept <= k
    rounds = _rounds(kept)
    live, total = kept, 0
    for r in range(rounds):
        m = budget // (rounds * 2 * live)
        if r == 0 and kept > 1:
            assert m >= _MIN_DRAWS
        total += 2 * m * live
        live = max(1, -(-live // 2))
    assert total <= budget
    if kept < k:        # one more pair would not have fitted
        assert budget // (_rounds(kept + 1) * 2 * (kept + 1)) < _MIN_DRAWS


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("budget", [4000, 9000, 30_000])
def test_search_draws_stay_within_the_budget(seed, budget):
    datasets = [[0, 1, 2, 3], [3, 3, 0]]          # dozens of replace-one pairs
    cx = search_counterexample(laplace_sum, 1.0, datasets, budget=budget, rng=seed,
                               n_confirm=1000, learners=())
    assert cx.search_draws <= budget
    assert cx.pairs <= cx.pairs_found and cx.budget == budget
    # a dataset several pairs hold is drawn once, as far as the longest-lived of them
    drawn: dict = {}
    for r in cx.ranking:
        for d in (r["d"], r["d_prime"]):
            drawn[tuple(d)] = max(drawn.get(tuple(d), 0), r["draws_per_dataset"])
    assert sum(drawn.values()) == cx.search_draws


@pytest.mark.parametrize("seed", range(4))
def test_find_counterexample_screens_at_most_max_examples(seed):
    # a leaky mechanism: hypothesis flags a pair and shrinks it, and the shrinking counts
    datasets = st.lists(st.integers(0, 3), min_size=1, max_size=6)
    with pytest.raises(PrivacyAssertionError) as err:
        assert_private(leaky_sum, epsilon=1.0, datasets=datasets, max_examples=4,
                       screen_samples=512, max_samples=4096, rng=seed)
    assert err.value.counterexample.examples <= 4
    # a private one: every pair screened, none confirmed, the same cap
    res = assert_private(laplace_sum, epsilon=1.0, datasets=datasets, max_examples=4,
                         screen_samples=512, max_samples=4096, rng=seed)
    assert res.passed and res.examples <= 4


def test_max_examples_is_checked():
    with pytest.raises(ParameterError, match="max_examples"):
        assert_private(laplace_sum, epsilon=1.0, datasets=[[1, 2]], max_examples=0)
