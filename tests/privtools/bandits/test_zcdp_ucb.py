"""AdaC-UCB (001, finite arms): sensitivity and calibration of every release, accounting,
black-box audits of one release, regret sanity, validation, presets through the runner."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.bandits.envs import BernoulliEnv, CustomEnv, bernoulli_instance, five_arm_instance
from privtools.bandits.experiments.presets import ZCDP_FINITE_PRESETS
from privtools.bandits.zcdp import (
    ZcdpSpec,
    discrete_release,
    discrete_sigma2,
    episode_statistic,
    gaussian_release,
    gaussian_sigma2,
    privacy_report,
    quantize,
    simulate_ucb,
    zcdp_policy,
)
from privtools.errors import ParameterError
from privtools.noise import DiscreteGaussian
from verification.audit import audit_mechanism

PRIVATE = ("adac-ucb", "adac-ucb-discrete")


# ----------------------------------------------------------------- reward-table model
def table_env(table: np.ndarray) -> CustomEnv:
    """The j-th pull of arm a receives table[a, j] (the interactive reward table of 001)."""
    pos = [0] * table.shape[0]

    def sampler(arm, size, rng):
        out = table[arm, pos[arm]:pos[arm] + size]
        pos[arm] += size
        return out

    return CustomEnv(table.mean(axis=1).clip(0, 1), sampler, name="table")


def released_slices(res):
    """(arm, first pull index of the arm, length) of every released episode."""
    pos, out = {}, []
    for arm, _, length in res.episodes[:len(res.releases)].tolist():
        out.append((arm, pos.get(arm, 0), length))
        pos[arm] = pos.get(arm, 0) + length
    return out


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), name=st.sampled_from(PRIVATE),
       K=st.integers(2, 5), T=st.integers(5, 400), rho=st.sampled_from([0.01, 0.5, 4.0]),
       grid=st.booleans(), data=st.data())
def test_neighbouring_tables_move_one_release_within_its_sensitivity(seed, name, K, T, rho,
                                                                    grid, data):
    T = max(T, K)
    rng = np.random.default_rng(seed)
    table = rng.random((K, T))
    if grid:
        table = (table < 0.5).astype(np.float64)
    spec = zcdp_policy(name, epsilon=rho, bits=8)
    res = simulate_ucb(spec, table_env(table), T, rng=seed)
    assert len(res.releases) in (len(res.episodes), len(res.episodes) - 1)
    a = data.draw(st.integers(0, K - 1))
    j = data.draw(st.integers(0, T - 1))
    other = table.copy()
    other[a, j] = data.draw(st.floats(0, 1))
    changed = 0
    for rel, (arm, off, n) in zip(res.releases, released_slices(res)):
        assert (rel.arm, rel.n) == (arm, n)
        # calibration: σ² = Δ²/(2ρ), i.e. each release is exactly ρ-zCDP
        if name == "adac-ucb":
            assert rel.sensitivity == 1.0 / n
            assert rel.sigma ** 2 == pytest.approx(rel.sensitivity ** 2 / (2 * rho), rel=1e-12)
        else:
            assert rel.sensitivity == 2 ** 8
            assert Fraction(rel.sensitivity) ** 2 / (2 * discrete_sigma2(rho, 8)) == \
                Fraction(rho)
        x, sx = episode_statistic(table[arm, off:off + n], name, 8, np.random.default_rng(1))
        y, sy = episode_statistic(other[arm, off:off + n], name, 8, np.random.default_rng(1))
        assert sx == sy == rel.sensitivity
        if x != y:
            changed += 1
            assert abs(x - y) <= rel.sensitivity * (1 + 1e-12)
    assert changed <= 1  # disjoint episodes: one reward enters at most one release


@settings(max_examples=60, deadline=None)
@given(r=st.lists(st.floats(0, 1), min_size=1, max_size=50), data=st.data(),
       bits=st.integers(1, 20))
def test_episode_statistic_sensitivity(r, data, bits):
    i = data.draw(st.integers(0, len(r) - 1))
    r2 = list(r)
    r2[i] = data.draw(st.floats(0, 1))
    for name in ("adac-ucb", "adac-ucb-discrete"):
        x, s = episode_statistic(r, name, bits, np.random.default_rng(7))
        y, _ = episode_statistic(r2, name, bits, np.random.default_rng(7))
        assert abs(x - y) <= s * (1 + 1e-12)
    q = quantize(r, bits, np.random.default_rng(0))
    assert q.dtype == np.int64 and q.min() >= 0 and q.max() <= 2**bits


def test_noise_drawn_once_per_episode():
    env = bernoulli_instance(10)
    res = simulate_ucb(zcdp_policy("adac-ucb", epsilon=0.1), env, 10**5, rng=3)
    # one release per completed episode, none per round
    assert len(res.releases) <= len(res.episodes) < 40 * 10
    assert res.pulls.sum() == 10**5


# ------------------------------------------------------------------------ accountant
@pytest.mark.parametrize("rho", [0.01, 0.1, 1.0])
def test_privacy_report(rho):
    delta = 1e-6
    rep = privacy_report(zcdp_policy("adac-ucb", epsilon=rho), delta)
    std = rho + 2 * math.sqrt(rho * math.log(1 / delta))
    assert rep.rho == Fraction(rho) and rep.event.rho == rep.rho  # the binary value
    assert rep.epsilon_standard == pytest.approx(std, rel=1e-12)
    assert rep.epsilon_standard >= std  # rounded up
    assert 0 < rep.epsilon <= rep.epsilon_standard
    assert rep.epsilon >= 0.8 * std  # Lemma 10 saves only the log(1 − 1/α) term
    rep2 = privacy_report(zcdp_policy("adac-ucb-discrete", epsilon=rho), delta)
    assert rep2.epsilon == rep.epsilon
    with pytest.raises(ParameterError):
        privacy_report(zcdp_policy("ucb-twin"), delta)


def test_sigma_formulas():
    assert gaussian_sigma2(0.5, 4) == 1 / 16
    assert discrete_sigma2(0.5, 3) == Fraction(64)
    assert discrete_sigma2("0.1", 1) == Fraction(20)


# ------------------------------------------------------------------- black-box audits
RHO_A, DELTA_A, N_A = 0.5, 1e-3, 200_000


def _eps_claim():
    return privacy_report(zcdp_policy("adac-ucb", epsilon=RHO_A), DELTA_A).epsilon


@pytest.mark.parametrize("shrink,expect", [(1.0, "pass"), (5.0, "fail")])
def test_audit_gaussian_release(shrink, expect):
    n = 2
    d, dp = np.array([1.0, 0.0]), np.array([0.0, 0.0])

    def mech(data, size, rng):
        # under-noised by `shrink` means noise sd / shrink, i.e. ρ·shrink² really
        mean = float(data.mean())
        out = mean + (gaussian_release(mean, n, RHO_A, rng, size) - mean) / shrink
        return np.floor(out * 2**10).astype(np.int64)  # post-processing to integers

    res = audit_mechanism(mech, d, dp, _eps_claim(), N_A, rng=11, delta=DELTA_A)
    assert res.verdict == expect, res


@pytest.mark.parametrize("shrink,expect", [(1, "pass"), (5, "fail")])
def test_audit_discrete_release(shrink, expect):
    bits = 2
    d, dp = np.array([1.0, 0.0]), np.array([0.0, 0.0])
    dg = DiscreteGaussian(sigma2=discrete_sigma2(RHO_A, bits) / shrink**2)

    def mech(data, size, rng):
        total, _ = episode_statistic(data, "adac-ucb-discrete", bits, rng)
        return discrete_release(total, RHO_A, bits, rng, size, _dg=dg)

    res = audit_mechanism(mech, d, dp, _eps_claim(), N_A, rng=12, delta=DELTA_A)
    assert res.verdict == expect, res


# ------------------------------------------------------------------------ behaviour
def test_twin_no_worse_than_private_on_average():
    env = bernoulli_instance(10)
    T = 2 * 10**5

    def mean_regret(name, eps):
        spec = zcdp_policy(name, epsilon=eps)
        return np.mean([simulate_ucb(spec, env, T, rng=s).final_regret for s in range(8)])

    twin = mean_regret("ucb-twin", None)
    for name in PRIVATE:
        assert twin <= mean_regret(name, 0.01) * 1.05


def test_determinism_and_finite():
    env = five_arm_instance(5)
    for name, eps in [("adac-ucb", 0.1), ("adac-ucb-discrete", 0.1), ("ucb-twin", None)]:
        spec = zcdp_policy(name, epsilon=eps)
        a = simulate_ucb(spec, env, 50_000, rng=5)
        b = simulate_ucb(spec, env, 50_000, rng=5)
        assert np.array_equal(a.regret, b.regret) and np.array_equal(a.episodes, b.episodes)
        assert np.all(np.isfinite(a.regret)) and np.all(np.diff(a.regret) >= -1e-9)
        assert a.checkpoints[-1] == 50_000 and a.pulls.sum() == 50_000
        # regret at T equals Σ pulls · gaps
        assert a.final_regret == pytest.approx(float(a.pulls @ env.gaps), rel=1e-12)


def test_tiny_horizon():
    env = BernoulliEnv([0.2, 0.8])
    res = simulate_ucb(zcdp_policy("adac-ucb", epsilon=1.0), env, 2, rng=0)
    assert res.pulls.tolist() == [1, 1] and res.final_regret == pytest.approx(0.6)


def test_bad_input():
    env = bernoulli_instance(3)
    spec = zcdp_policy("adac-ucb", epsilon=1.0)
    for kw in [dict(name="adac-ucb", epsilon=0), dict(name="adac-ucb", epsilon=-1.0),
               dict(name="adac-ucb"), dict(name="nope", epsilon=1.0),
               dict(name="ucb-twin", epsilon=1.0), dict(name="adac-ucb", epsilon=1.0, beta=3),
               dict(name="adac-ucb", epsilon=float("nan"))]:
        with pytest.raises(ParameterError):
            zcdp_policy(**kw)
    with pytest.raises(ParameterError):
        simulate_ucb(spec, env, 2)  # T < K
    with pytest.raises(ParameterError):
        bernoulli_instance(1)  # K < 2
    with pytest.raises(ParameterError):
        five_arm_instance(4)
    with pytest.raises(ParameterError):
        simulate_ucb("adac-ucb", env, 10)


def test_spec_label_and_pickle():
    import pickle

    s = zcdp_policy("adac-ucb", epsilon=0.1)
    assert s.label == "AdaC-UCB (ρ=0.1)" and s.epsilon == 0.1 and s.s == 1
    assert pickle.loads(pickle.dumps(s)) == s and isinstance(s, ZcdpSpec)
    assert zcdp_policy("ucb-twin").label == "UCB twin"


@pytest.mark.parametrize("name", sorted(ZCDP_FINITE_PRESETS))
def test_preset_through_runner(name):
    from privtools.bandits.experiments.runner import run_tasks

    preset = ZCDP_FINITE_PRESETS[name]
    assert preset.privacy_symbol == "ρ" and preset.epsilons == (0.01, 0.1, 1.0)
    tasks = preset.with_overrides(runs=2, horizon=10**4).tasks()
    assert len(tasks) == 2 * 7
    df = run_tasks(tasks, seed=0, workers=1, progress=False)
    assert df["regret"].notna().all() and (df["t"].max() == 10**4)
    assert set(df["algorithm"]) == {"adac-ucb", "adac-ucb-discrete", "ucb-twin"}
    again = run_tasks(tasks, seed=0, workers=1, progress=False)
    assert df.equals(again)
