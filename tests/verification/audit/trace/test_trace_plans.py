"""The deployment paths traced against their plans (verification.audit.trace.plans), the
candidate events' confirmation, the traced search, and assert_private(mode="trace").

Exact properties: every plan kind of paper 000 holds release by release (shares of the
planned law, one per user; one release, the planned sum; the certified loss equal to the
plan's); the seed's inverted-Gamma Pólya shares and one noise draw shared by every arm are
flagged in one run each; the traced search finds the pair of largest certified loss."""

from __future__ import annotations

from fractions import Fraction

import numpy as np
import pytest
from hypothesis import strategies as st

from privtools.bandits.envs import BernoulliEnv
from privtools.bandits.se import policy
from privtools.certified import decide_le, ends
from privtools.noise import DiscreteLaplace
from privtools.planning import plan
from privtools.testing import PrivacyAssertionError, assert_private
from verification.audit import confirm, search_traced, trace_mechanism
from verification.audit.trace import trace_plan, trace_run
from verification.zoo.deployments import (
    gamma_poisson_view,
    inverted_gamma_view,
    per_arm_batch,
    shared_noise_batch,
)

PLANS = [dict(privacy="pure-dp"), dict(privacy="pure-dp", secure="shuffle"),
         dict(privacy="rdp"), dict(privacy="cdp"), dict(privacy="pure-dp", trust="central"),
         dict(privacy="pure-dp", trust="local", tail="exact")]


@pytest.mark.parametrize("kw", PLANS, ids=lambda kw: "-".join(kw.values()))
@pytest.mark.parametrize("n", [4, 32])
def test_every_plan_kind_holds_release_by_release(kw, n):
    p = plan(epsilon=1, n=n, horizon=1000, **kw)
    res = trace_plan(p, rng=0)
    assert res.verdict == "holds", res.describe()
    assert [name for name, _, _ in res.checks] == ["shares", "view", "loss"]
    r = res.trace.releases[0]
    law = p.central_noise if p.trust == "central" else p.share
    assert r.source == law and r.count == (n if p.trust == "distributed" else 1)
    assert r.shift in (p.g, p.g - p.m, -p.g)             # one reward moved: Σ x̂ moves by g
    if p.privacy == "pure-dp":     # at most the plan's ε; the wrap mod m takes off a little
        lo, hi = ends(res.trace.epsilon_interval)
        eps = Fraction(p.epsilon_view if p.epsilon_view is not None else p.epsilon)
        assert decide_le((hi, hi), eps * (1 + Fraction(1, 2**40)))
        assert not decide_le((lo, lo), eps * (1 - Fraction(1, 10**6)))


def test_the_seed_bug_inverted_gamma_scale_is_flagged_and_its_control_is_not():
    p = plan(privacy="pure-dp", epsilon=1, n=16, horizon=1000)
    bad = trace_plan(p, view=inverted_gamma_view(p), rng=0)
    shares = dict((n, (s, d)) for n, s, d in bad.checks)["shares"]
    assert bad.verdict == "fails" and shares[0] == "fails"
    assert "Gamma scale" in shares[1] and f"{p.share.beta:.10g}"[:8] in shares[1]
    good = trace_plan(p, view=gamma_poisson_view(p), rng=0)
    assert dict((n, s) for n, s, _ in good.checks)["shares"] == "holds"
    assert good.verdict != "fails"


def test_one_noise_draw_shared_by_every_arm_is_an_unnoised_output():
    p = plan(privacy="pure-dp", trust="central", epsilon=1, n=4, horizon=1000)
    x = np.zeros((3, 4))
    xp = x.copy()
    xp[1, 0] = 1
    bad = trace_mechanism(shared_noise_batch(p), x, xp, 1.0, rng=0)
    assert bad.verdict == "fail" and "unnoised-output" in bad.kinds()
    good = trace_mechanism(per_arm_batch(p), x, xp, 1.0, rng=0)
    assert good.verdict == "holds" and good.epsilon_bounds == (1.0, 1.0)


@pytest.mark.parametrize("name", ["dist-dp-se", "central-dp-se"])
def test_a_whole_bandit_run_holds_against_its_plans(name):
    res = trace_run(policy(name, epsilon=1.0), BernoulliEnv([0.9, 0.5, 0.4]), 5000, rng=1)
    assert res.verdict == "holds", res.describe()
    assert all(pt.verdict == "holds" for pt in res.batches.values())


def test_a_run_checked_against_other_plans_fails_call_by_call():
    """The same run checked against the plans of another deployment (Skellam shares where
    the run drew Pólya differences): every noise call is off-plan."""
    from privtools.bandits.se import batch_plan

    spec, other = policy("dist-dp-se", epsilon=1.0), policy("dist-rdp-se", epsilon=1.0)
    env = BernoulliEnv([0.9, 0.5])
    assert trace_run(spec, env, 2000, rng=1).verdict == "holds"
    res = trace_run(spec, env, 2000, rng=1, planner=lambda n: batch_plan(other, n, 2000))
    assert res.verdict == "fails" and res.checks[0][:2] == ("draws", "fails")


# ------------------------------------------------------------------ candidates, search
def _signed_square_max(d, size, rng, epsilon=0.7):
    """The largest of ``y·|y|`` over the noisy answers ``y = q + Lap(2/ε)``: a maximum of
    non-linear functions of the noise, which the paths do not follow."""
    q = np.asarray(d, dtype=float)
    noisy = q + rng.laplace(0.0, 2.0 / epsilon, (size, q.size))
    return np.max(noisy * np.abs(noisy), axis=1)


def test_candidates_from_the_trace_are_confirmed_at_their_level():
    d, dp = (1, 1, 1, 1, 1), (0, 2, 2, 2, 2)
    r = trace_mechanism(_signed_square_max, d, dp, 0.7, rng=0)
    assert r.verdict == "inconclusive" and "noise-dependent-control-flow" in r.kinds()
    assert ends(r.epsilon_interval)[0] == 0          # post-processing: bounded above only
    assert r.paths.refused is not None and r.candidates
    c = confirm(_signed_square_max, d, dp, 0.7, r.candidates, n_samples=20_000, rng=1)
    assert c.selection["family"] == "trace candidates"
    assert c.selection["level"] == pytest.approx(0.01 / len(r.candidates))
    assert c.verdict == "fail" and c.epsilon_lower > 0.7


def _count(d, size, rng):
    return int(sum(d)) + DiscreteLaplace(scale=2).sample(size, rng)


def test_the_traced_search_finds_and_shrinks_the_worst_pair():
    pairs = st.tuples(st.lists(st.integers(0, 3), min_size=1, max_size=4),
                      st.lists(st.integers(0, 3), min_size=1, max_size=4)).filter(
        lambda p: len(p[0]) == len(p[1]) and sum(1 for a, b in zip(*p) if a != b) == 1)
    res = search_traced(_count, 0.5, pairs, rng=0, max_examples=60)
    # a count of records in {0..3} with Lap_Z(2): one record moves it by up to 3
    assert res.verdict == "fail" and res.shrunk
    assert abs(sum(res.d) - sum(res.d_prime)) == 2                 # the smallest failing shift
    assert res.trace.epsilon_bounds == (1.0, 1.0)


def test_assert_private_trace_mode_is_deterministic_and_never_passes_inconclusive():
    res = assert_private(_count, [1, 2], [1, 3], 0.5, mode="trace")
    assert res.verdict == "holds"
    with pytest.raises(PrivacyAssertionError, match="sensitivity"):
        assert_private(_count, [1, 2], [1, 4], 0.5, mode="trace")
    with pytest.raises(PrivacyAssertionError, match="INCONCLUSIVE"):       # float noise
        assert_private(lambda d, size, rng: sum(d) + rng.laplace(0, 2, size), [1, 2],
                       [1, 3], 0.5, mode="trace")
    assert assert_private(lambda d, size, rng: sum(d) + rng.laplace(0, 2, size), [1, 2],
                          [1, 3], 0.5, mode="trace", arithmetic="real").verdict == "holds"
    found = assert_private(_count, epsilon=0.5, mode="trace", max_examples=20,
                           datasets=st.lists(st.integers(0, 1), min_size=1, max_size=3))
    assert found.verdict == "holds"
    with pytest.raises(ValueError, match="mode"):
        assert_private(_count, [1, 2], [1, 3], 0.5, mode="exact-ish")


def _own_randomised_response(own):
    """Randomized response on the first record with a generator of its own (``own``, not
    rng; seeded by the test, so every run of the suite sees the same draws)."""
    def mechanism(d, size, rng):
        keep = own.random(size) < 0.75
        return np.where(keep, bool(d[0]), not d[0])
    return mechanism


@pytest.mark.parametrize("seed", range(12))
def test_randomness_of_its_own_is_untraceable_even_when_a_replay_matches_by_chance(seed):
    """A Boolean output often repeats by chance; the trace replays on four keys, and with no
    draw through rng it compares fresh runs, so it says untraceable — never holds, never
    an unnoised output."""
    own = _own_randomised_response(np.random.default_rng([seed, 1]))
    r = trace_mechanism(own, [True], [False], 1.0, rng=seed)
    assert r.verdict == "inconclusive" and r.kinds() == ("untraceable",)
