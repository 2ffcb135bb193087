"""The canary bounds: the one-run bound of Steinke, Nasr and Jagielski (2023, Thm 5.2)
checked against an exact binomial tail, and both bounds kept at their level on runs whose ε
is known exactly (randomized response per canary)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from verification.training import one_run_bound, one_run_epsilon, runs_epsilon
from verification.training.canaries import guess_bound


def _tail(r: int, p, v: int):
    return mpmath.fsum(mpmath.binomial(r, k) * p**k * (1 - p)**(r - k) for k in range(v, r + 1))


@settings(max_examples=40, deadline=None)
@given(r=st.integers(1, 60), eps=st.floats(0, 5), frac=st.floats(0, 1))
def test_the_pure_bound_is_the_binomial_tail(r, eps, frac):
    v = int(round(frac * r))
    with mpmath.workdps(30):
        p = mpmath.e**eps / (1 + mpmath.e**eps)
        want = _tail(r, p, v)
    assert one_run_bound(eps, 0.0, 100, r, v) == pytest.approx(float(want), rel=1e-9, abs=1e-300)


@settings(max_examples=30, deadline=None)
@given(r=st.integers(2, 80), eps=st.floats(0, 4), delta=st.floats(1e-8, 1e-3))
def test_the_delta_term_only_adds(r, eps, delta):
    v = r // 2 + 1
    assert one_run_bound(eps, delta, 200, r, v) >= one_run_bound(eps, 0.0, 200, r, v)


def test_more_correct_guesses_give_a_larger_bound_and_chance_gives_none():
    got = [one_run_epsilon(v, 100, 1000, 1e-5, 0.01) for v in (50, 70, 85, 100)]
    assert got[0] == 0.0
    assert got == sorted(got) and got[-1] > 2


def _rr_scores(gen, included, eps):
    """Each canary's score: randomized response of its membership at ε (exactly ε-DP)."""
    keep = gen.random(len(included)) < math.exp(eps) / (1 + math.exp(eps))
    said = np.where(keep, included, ~included)
    return said + 1e-3 * gen.random(len(included))          # ties broken at random


@pytest.mark.parametrize("eps", [0.5, 2.0])
def test_the_one_run_bound_keeps_its_level_on_an_exactly_private_run(eps):
    """200 one-run audits of an exactly ε-DP run at 90 % confidence: the bound exceeds ε in
    at most as many as a Binomial(200, 0.1) reaches with probability 1 − 10⁻⁴."""
    gen = np.random.default_rng(7)
    over = 0
    for _ in range(200):
        included = gen.random(500) < 0.5
        b = guess_bound(_rr_scores(gen, included, eps), included, 0.0, 0.9)
        over += b.epsilon_lower > eps
    from scipy import stats
    assert over <= stats.binom(200, 0.1).ppf(1 - 1e-4)


def test_the_one_run_bound_sees_a_run_with_no_privacy():
    gen = np.random.default_rng(1)
    included = gen.random(1000) < 0.5
    b = guess_bound(included + 1e-3 * gen.random(1000), included, 1e-5, 0.95)
    assert b.epsilon_lower > 3 and b.correct == b.guesses


def test_the_runs_bound_is_zero_without_signal_and_large_with_it():
    gen = np.random.default_rng(2)
    same = runs_epsilon(gen.normal(size=300), gen.normal(size=300), 1e-5, 0.95)[0]
    apart = runs_epsilon(gen.normal(8, 1, size=300), gen.normal(size=300), 1e-5, 0.95)[0]
    assert same < 0.5 and apart > 2


def test_the_runs_bound_keeps_its_level_on_a_gaussian_pair():
    """Scores N(μ, 1) with the canary, N(0, 1) without: a μ-GDP pair whose ε(δ) is exact;
    100 audits at 90 % confidence exceed it at most as a Binomial(100, 0.1) allows."""
    mu, delta = 1.0, 1e-5
    with mpmath.workdps(30):
        def d(e):
            return (mpmath.ncdf(-e / mu + mu / 2) - mpmath.exp(e) * mpmath.ncdf(-e / mu - mu / 2)
                    - delta)
        truth = float(mpmath.findroot(d, (mpmath.mpf(0), mpmath.mpf(50)), solver="bisect"))
    gen = np.random.default_rng(3)
    over = sum(runs_epsilon(gen.normal(mu, 1, 200), gen.normal(0, 1, 200), delta, 0.9)[0] > truth
               for _ in range(100))
    from scipy import stats
    assert over <= stats.binom(100, 0.1).ppf(1 - 1e-4)
