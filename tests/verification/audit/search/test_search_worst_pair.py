"""The searches find the worst pair, and count what they confirm.

* StatDP's input patterns are enumerated for every length, inside the relation;
* ``search_counterexample`` confirms the pair its held-out statistics rank first, keeps the
  stated pairs in its space, and — confirming several — tests each at ``alpha / count``,
  which keeps the false-alarm rate at most ``alpha`` on a mechanism exactly at its claim;
* on a mechanism whose worst pair is known exactly (a noisy sum: all answers up), and on
  ReportNoisyMax3, the search ranks and confirms the worst pair at a fixed seed;
* ``find_counterexample`` screens the patterns first and confirms only pairs that truly
  violate the claim, and passes a private mechanism.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import scipy.stats as sst
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.errors import ParameterError
from privtools.neighbours import PATTERN_NAMES, distance, pattern_moves, pattern_neighbours
from privtools.testing import find_counterexample
from verification import zoo
from verification.audit import search_counterexample
from verification.audit.search.candidates import pattern_bases


def noisy_sum(d, size, rng):
    """The sum of the answers plus Laplace(10): ε = |Σ(d' − d)| / 10 for a pair."""
    return float(np.sum(d)) + rng.laplace(0.0, 10.0, size)


def true_epsilon_of_sum(d, d_prime) -> float:
    return abs(float(np.sum(d_prime)) - float(np.sum(d))) / 10.0


def randomized_response(d, size, rng):
    """One bit, P(1) = e^ε/(1 + e^ε) when d[0] > 0 else 1/(1 + e^ε), ε = 0.5: exactly
    0.5-DP, with the bound reached by the output 1 (the claim holds with equality)."""
    p = 1.0 / (1.0 + math.exp(-0.5)) if d[0] > 0 else 1.0 / (1.0 + math.exp(0.5))
    return (rng.random(size) < p).astype(np.int64)


# ---------------------------------------------------------------- the patterns
@settings(max_examples=60, deadline=None)
@given(n=st.integers(1, 24), value=st.integers(-3, 3))
def test_patterns_are_statdps_for_every_length(n, value):
    base = [value] * n
    got = pattern_neighbours(base, "linf")
    moves = pattern_moves(n)
    # every pattern, in StatDP's order, each a neighbour under ‖·‖∞ ≤ 1; duplicates once
    expected = []
    for name in PATTERN_NAMES:
        moved = [value + s for s in moves[name]]
        if moved not in [m for _, m in expected]:
            expected.append((name, moved))
    assert got == expected
    for _, moved in got:
        assert distance(base, moved, "linf")[0] and moved != base
    if n >= 4:      # then the eight shapes are eight different vectors
        assert [name for name, _ in got] == list(PATTERN_NAMES)
    one = pattern_neighbours(base, "l1")
    assert [name for name, _ in one] == ["one below", "one above"]
    assert all(distance(base, moved, "l1")[0] for _, moved in one)


def test_patterns_keep_the_container_and_skip_what_is_not_a_vector():
    arr = np.array([1, 2, 3])
    got = dict(pattern_neighbours(arr, "query"))
    assert isinstance(got["all above"], np.ndarray) and got["all above"].tolist() == [2, 3, 4]
    assert dict(pattern_neighbours((1.5, 0.5), "linf"))["one above rest below"] == (2.5, -0.5)
    for d in ([(1, 2)], ["a"], np.zeros((2, 2)), [], [True]):
        assert pattern_neighbours(d, "linf") == []
    assert pattern_neighbours([1, 1], "replace-one") == []


def test_pattern_bases_are_the_users_datasets_longest_first():
    bases = pattern_bases(st.lists(st.integers(0, 3), min_size=1, max_size=12), seed=3)
    lengths = [len(b) for b in bases]
    assert lengths == sorted(set(lengths), reverse=True) and lengths[0] == 12
    assert all(set(b) <= {0, 1, 2, 3} for b in bases)
    assert pattern_bases([[1, 1], ["x"], [2, 2, 2]], seed=0) == [[2, 2, 2], [1, 1]]


# ---------------------------------------------------------------- the halving search
def test_search_ranks_and_confirms_the_worst_pair_of_a_noisy_sum():
    # patterns of (1, 1, 1, 1): all above / all below move the sum by 4 (ε = 0.4), one above
    # rest below by 2 (0.2), one answer by 1 (0.1), half-half and X-shape by 0: claim 0.25
    cx = search_counterexample(noisy_sum, 0.25, [[1, 1, 1, 1]], neighbours="query",
                               budget=200_000, n_confirm=100_000, rng=7, learners=())
    assert cx.verdict == "fail" and cx.epsilon_lower > 0.25
    assert true_epsilon_of_sum(cx.d, cx.d_prime) == pytest.approx(0.4)
    first = cx.ranking[0]
    assert (first["d"], first["d_prime"]) == (list(cx.d), list(cx.d_prime))
    assert cx.comparisons == 1 and cx.alpha_per_comparison == cx.alpha


def test_search_finds_report_noisy_max3s_worst_pair():
    e = zoo.get("ReportNoisyMax3")          # worst pair: all five answers move together
    cx = search_counterexample(e.mechanism, e.epsilon, list(e.datasets), neighbours="query",
                               pairs=e.pairs, budget=10**6, max_draws=10**6, rng=2021)
    assert cx.verdict == "fail" and cx.epsilon_lower > e.epsilon
    move = np.asarray(cx.d_prime) - np.asarray(cx.d)
    assert np.all(move == move[0]) and abs(move[0]) == 1


def test_stated_pairs_are_always_searched():
    stated = [((0, 0, 0), (1, 1, 1))]
    cx = search_counterexample(noisy_sum, 1.0, [[5, 5, 5], [2, 2, 2]], neighbours="query",
                               pairs=stated, budget=8000, n_confirm=1000, max_pairs=2,
                               rng=1, learners=(), search_learners=())
    searched = [(tuple(r["d"]), tuple(r["d_prime"])) for r in cx.ranking]
    assert stated[0] in searched and cx.pairs <= 2
    only = search_counterexample(noisy_sum, 1.0, None, pairs=stated, budget=4000,
                                 n_confirm=1000, rng=1, learners=())
    assert only.pairs == 1 and (tuple(only.d), tuple(only.d_prime)) == stated[0]
    with pytest.raises(ParameterError, match="pairs"):
        search_counterexample(noisy_sum, 1.0, None, pairs=[(1, 2, 3)])
    with pytest.raises(ParameterError, match="confirm"):
        search_counterexample(noisy_sum, 1.0, [[1]], confirm=0)


def test_several_confirmations_are_each_tested_at_alpha_over_their_count():
    cx = search_counterexample(noisy_sum, 1.0, [[1, 1, 1], [0, 2, 1]], neighbours="query",
                               budget=20_000, n_confirm=2000, rng=3, alpha=0.03, confirm=3,
                               learners=(), search_learners=())
    assert cx.comparisons == 3 and cx.alpha == 0.03
    assert cx.alpha_per_comparison == pytest.approx(0.01)
    assert [c["alpha"] for c in cx.confirmations] == [pytest.approx(0.01)] * 3
    assert cx.verdict == "pass" and cx.audit.alpha == pytest.approx(0.01)
    # the confirmed pairs are the three the ranking put first
    top = [(r["d"], r["d_prime"]) for r in cx.ranking[:3]]
    assert [(c["d"], c["d_prime"]) for c in cx.confirmations] == top


def test_false_alarms_stay_below_alpha_with_several_confirmations():
    # the claim holds with equality on two of the three pairs: each confirmation alone
    # would fail at rate up to alpha, three of them unadjusted at up to 1 − (1 − alpha)^3;
    # at alpha / 3 each the search fails at rate at most alpha
    alpha, runs = 0.3, 40
    alarms = 0
    for seed in range(runs):
        cx = search_counterexample(randomized_response, 0.5, [[0], [1], [2]],
                                   neighbours="replace-one", budget=12_000, n_confirm=3000,
                                   rng=seed, alpha=alpha, confirm=3, learners=(),
                                   search_learners=())
        assert cx.comparisons == 3
        alarms += cx.verdict == "fail"
    # P(Bin(40, 0.3) > 21) < 1e-3; without the correction the rate could reach 0.66
    assert alarms <= sst.binom.ppf(0.999, runs, alpha)


# ---------------------------------------------------------------- the shrinking search
def test_find_counterexample_confirms_only_pairs_that_violate():
    vectors = st.lists(st.integers(0, 3), min_size=1, max_size=8)
    cx = find_counterexample(noisy_sum, 0.25, vectors, "linf", max_examples=14,
                             screen_samples=4000, max_samples=60_000, rng=5, learners=())
    assert cx is not None and cx.verdict == "fail" and cx.epsilon_lower > 0.25
    assert true_epsilon_of_sum(cx.d, cx.d_prime) > 0.25          # truly a violation
    assert 1 <= cx.comparisons <= 2
    assert cx.alpha_per_comparison == pytest.approx(cx.alpha / cx.comparisons)
    assert cx.examples <= 14


def test_find_counterexample_passes_a_private_mechanism():
    vectors = st.lists(st.integers(0, 3), min_size=1, max_size=4)
    # every linf pair of at most 4 answers moves the sum by at most 4: ε ≤ 0.4
    assert find_counterexample(noisy_sum, 0.4, vectors, "linf", max_examples=12,
                               screen_samples=4000, max_samples=40_000, rng=11,
                               learners=()) is None
