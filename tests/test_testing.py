"""privtools.testing: the assertions, the hypothesis strategies and the pytest fixture."""

import numpy as np
import pytest
from hypothesis import given, settings

from privtools.noise import DiscreteLaplace
from privtools.testing import PrivacyAssertionError, assert_follows, assert_private
from privtools.testing import strategies as pst


def _laplace_sum(scale):
    lap = DiscreteLaplace(scale)
    return lambda d, size, rng: int(sum(d)) + lap.sample(size, rng)


def test_assert_private_passes_and_fails():
    # Lap_Z(4) on a sensitivity-1 sum is exactly (1/4)-DP; default alpha = 1e-3 is the
    # false-alarm rate of the first assertion (seed fixed, so deterministic).
    res = assert_private(_laplace_sum(4), [0, 1], [0, 0], epsilon=0.25, n_samples=100_000)
    assert res.passed
    with pytest.raises(PrivacyAssertionError, match="FAIL") as exc:
        assert_private(_laplace_sum(1), [0, 1], [0, 0], epsilon=0.25, n_samples=100_000)
    assert exc.value.result.epsilon_lower > 0.5
    with pytest.raises(PrivacyAssertionError, match="INCONCLUSIVE"):
        assert_private(_laplace_sum(4), [0, 1], [0, 0], epsilon=20, n_samples=500)


def test_assert_follows():
    lap = DiscreteLaplace(4)
    assert assert_follows(lap.sample, lap, n_samples=50_000).passed
    with pytest.raises(PrivacyAssertionError, match="sampler audit FAIL"):
        assert_follows(DiscreteLaplace(8).sample, lap, n_samples=50_000)


@settings(max_examples=15)
@given(plan=pst.plans())
def test_plans_strategy_gives_consistent_plans(plan):
    assert plan.m >= plan.n * plan.g + 2 * plan.tau + 1 and plan.g >= 1


@given(eps=pst.epsilons(), n=pst.batch_sizes(), p=pst.probabilities(), law=pst.noise_laws())
def test_parameter_strategies_stay_in_range(eps, n, p, law):
    assert 0 < eps <= 2 and n >= 1 and 0 < p < 1 and law.var() > 0


@given(pair=pst.neighbouring_rewards(5))
def test_neighbouring_rewards_differ_in_one_user(pair):
    x, y = pair
    assert ((x != y).sum() == 1) and np.all((0 <= x) & (x <= 1)) and np.all((0 <= y) & (y <= 1))


def test_privacy_audit_fixture(privacy_audit):
    assert privacy_audit.n_samples == 200_000
    privacy_audit.mechanism(_laplace_sum(4), [1], [0], epsilon=0.25, n_samples=50_000)
    with pytest.raises(PrivacyAssertionError):
        privacy_audit.sampler(DiscreteLaplace(2).sample, DiscreteLaplace(4), n_samples=20_000)
