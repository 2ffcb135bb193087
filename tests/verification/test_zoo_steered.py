"""The steered suite (``verification.zoo.steered``): the exponential mechanism, randomised
response, a clamp after the noise, a noisy binary search and a peeled top-2, each decided
by the trace's paths on its pairs as its truth says."""

from __future__ import annotations

import math

import numpy as np
import pytest

from privtools.certified import ends
from verification.audit import trace_mechanism
from verification.zoo.steered import steered_suite

SUITE = {m.name: m for m in steered_suite()}


def test_the_suite_is_well_formed():
    assert len(SUITE) >= 8
    for m in SUITE.values():
        assert m.private == (m.true_epsilon is None or m.true_epsilon <= m.epsilon)
        d, _ = m.pairs[0]
        out = m.mechanism(d, 3, np.random.default_rng(0))
        assert np.shape(out)[0] == 3


@pytest.mark.parametrize("name", sorted(SUITE))
def test_each_is_decided_as_its_truth_says(name):
    """No private mechanism fails on any pair; a leaky one fails on some pair, with a
    certified lower end never above its true ε."""
    m = SUITE[name]
    cache: dict = {}
    fails = 0
    for d, dp in m.pairs[:8]:
        r = trace_mechanism(m.mechanism, d, dp, m.epsilon, rng=0, arithmetic="real",
                            path_cache=cache)
        if m.private:
            assert r.verdict != "fail", r.describe()
        elif r.verdict == "fail":
            fails += 1
            lo, _ = ends(r.epsilon_interval)
            assert float(lo) <= m.true_epsilon * (1 + 1e-9), r.describe()
    assert m.private or fails > 0


def test_randomised_response_certifies_its_exact_epsilon():
    """k-ary randomised response: every pair's ε is exactly ε; with the true category
    among the "others" it is exactly ln(1 + 7p/(1 − p))."""
    for name in ("RandomizedResponse7", "RandomizedResponse7AnyOther"):
        m = SUITE[name]
        r = trace_mechanism(m.mechanism, *m.pairs[0], m.epsilon, rng=0, arithmetic="real")
        lo, hi = ends(r.epsilon_interval)
        assert abs(float(lo) - m.true_epsilon) <= 1e-12 * m.true_epsilon
        assert abs(float(hi) - m.true_epsilon) <= 1e-12 * m.true_epsilon


def test_the_exponential_mechanism_as_gumbel_noisy_max_is_proved():
    """Gumbel draws move up at a density cost of s/β: the winner's noise up by 2 costs
    2/(2/ε) = ε, for every pair whose utilities move by at most 1."""
    m = SUITE["GumbelNoisyMax"]
    r = trace_mechanism(m.mechanism, *m.pairs[0], m.epsilon, rng=0, arithmetic="real",
                        relation="query")
    assert r.verdict == "holds" and r.proof is not None
    assert math.isclose(float(r.proof.cost), m.epsilon)


def test_a_peeled_top_two_is_not_integrated():
    """The second argmax's conditions chain the draws: no proof, and the reason says so."""
    m = SUITE["PeeledTopTwo"]
    r = trace_mechanism(m.mechanism, *m.pairs[0], m.epsilon, rng=0, arithmetic="real",
                        relation="query")
    assert r.proof is None
    assert any("chain" in u for u in r.undecided), r.describe()
