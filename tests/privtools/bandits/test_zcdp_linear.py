"""AdaC-GOPE / GOPE and AdaC-OFUL / RS-OFUL (001): sensitivities, accounting, audit,
regret sanity, input errors, determinism and the presets through the runner."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import zcdp_to_dp
from privtools.bandits.envs.linear import (
    ContextualEnv,
    LinearEnv,
    contextual_instance,
    sphere_instance,
)
from privtools.bandits.experiments.presets import ZCDP_LINEAR_PRESETS
from privtools.bandits.experiments.runner import run_tasks
from privtools.bandits.zcdp.gope import (
    FW_TOL,
    g_optimal_design,
    gope_policy,
    phase_length,
    phase_sensitivity,
    phase_statistic,
    privacy_report,
    release,
    simulate_gope,
)
from privtools.bandits.zcdp.oful import (
    SENSITIVITY,
    episode_statistic,
    oful_policy,
    simulate_oful,
)
from privtools.errors import ParameterError
from verification.audit import audit_mechanism


# ------------------------------------------------------------------ sensitivity
@st.composite
def design_and_neighbours(draw):
    d = draw(st.integers(1, 4))
    k = draw(st.integers(d, 8))
    seed = draw(st.integers(0, 2**32 - 1))
    g = np.random.default_rng(seed)
    X = g.standard_normal((k, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True)) * draw(
        st.sampled_from([1.0, 1.5, 4.0]))
    counts = g.integers(1, 6, size=k)
    r = g.uniform(-1, 1, size=int(counts.sum()))
    i = draw(st.integers(0, len(r) - 1))
    r2 = r.copy()
    r2[i] = draw(st.floats(-1, 1))
    return X, counts, r, r2


def _sums(counts, r):
    return np.bincount(np.repeat(np.arange(len(counts)), counts), weights=r,
                       minlength=len(counts))


@settings(max_examples=200, deadline=None)
@given(design_and_neighbours())
def test_gope_release_sensitivity(case):
    X, counts, r, r2 = case
    if np.linalg.matrix_rank(X.T @ (X * counts[:, None])) < X.shape[1]:
        return
    q = phase_statistic(X, counts, _sums(counts, r))
    q2 = phase_statistic(X, counts, _sums(counts, r2))
    assert np.linalg.norm(q - q2) <= phase_sensitivity(X, counts) * (1 + 1e-9) + 1e-12


def test_gope_sensitivity_is_attained():
    X = np.array([[1, 0], [0.6, 0.8], [0, 1.0]])
    counts = np.array([3, 2, 3])
    Vinv = np.linalg.inv(X.T @ (X * counts[:, None]))
    j = int(np.argmax(np.einsum("ij,jk,ik->i", X, Vinv, X)))
    r = -np.ones(8)
    r2 = r.copy()
    r2[int(np.cumsum(counts)[j]) - 1] = 1.0
    diff = phase_statistic(X, counts, _sums(counts, r2)) - phase_statistic(
        X, counts, _sums(counts, r))
    assert np.linalg.norm(diff) == pytest.approx(phase_sensitivity(X, counts), rel=1e-12)


@settings(max_examples=200, deadline=None)
@given(st.integers(1, 5), st.integers(1, 30), st.integers(0, 2**32 - 1), st.floats(-1, 1))
def test_oful_episode_sensitivity(d, n, seed, new):
    g = np.random.default_rng(seed)
    X = g.standard_normal((n, d))
    X /= np.maximum(1.0, np.linalg.norm(X, axis=1, keepdims=True))
    r = g.uniform(-1, 1, n)
    r2 = r.copy()
    r2[seed % n] = new
    diff = episode_statistic(X, r) - episode_statistic(X, r2)
    assert np.linalg.norm(diff) <= SENSITIVITY + 1e-12


@pytest.mark.parametrize("rho", [0.1, 1.0, 10.0])
def test_gope_releases_calibrated(rho):
    env = sphere_instance(30, 3)
    spec = gope_policy("adac-gope", epsilon=rho)
    res = simulate_gope(spec, env, 200_000, rng=1)
    assert res.releases
    for rel in res.releases:
        assert rel.sigma == pytest.approx(rel.sensitivity / math.sqrt(2 * rho), rel=1e-12)
        assert rel.sensitivity <= rel.bound * (1 + 1e-9)
        assert rel.g <= (1 + FW_TOL) * 3 + 1e-9
        assert rel.n_plays >= rel.N
    # phase 1 (all actions, full rank): the calibration uses the realised design's Δ
    des = g_optimal_design(env.actions, FW_TOL)
    n1 = res.releases[0].N
    counts = np.where(des.weights > 0, np.ceil(des.weights * n1), 0).astype(np.int64)
    assert res.releases[0].sensitivity == pytest.approx(phase_sensitivity(env.actions, counts),
                                                        rel=1e-9)
    # each reward enters at most one release: released plays fit in the horizon
    assert sum(rel.n_plays for rel in res.releases) <= 200_000


def test_oful_episodes_disjoint():
    env = contextual_instance(10, 2)
    res = simulate_oful(oful_policy("adac-oful", epsilon=1.0), env, 5000, rng=3)
    starts = [r.start for r in res.releases]
    ends = [r.end for r in res.releases]
    assert starts[0] == 0 and starts[1:] == ends[:-1] and ends[-1] <= 5000
    assert all(r.sigma == pytest.approx(math.sqrt(2 / 1.0)) for r in res.releases)
    assert all(r.sensitivity == 2.0 for r in res.releases)


@pytest.mark.parametrize("rho", [0.01, 0.1, 1.0, 10.0, 1e6])
def test_phase_length_widths(rho):
    k, g, delta = 100, 3.03, 0.1
    for ell in (1, 4, 9):
        eps = 2.0 ** -ell
        L = math.log(4 * k * ell * (ell + 1) / delta)
        for alloc in ("halves", "sum"):
            N = phase_length(gope_policy("adac-gope", epsilon=rho, allocation=alloc), g, ell, k)
            stat, priv = math.sqrt(2 * g * L / N), 2 * g / N * math.sqrt(L / rho)
            if alloc == "halves":
                assert stat <= eps / 2 + 1e-12 and priv <= eps / 2 + 1e-12
            else:
                assert stat + priv <= eps * (1 + 1e-12)
                N1 = N - 1  # minimal
                assert math.sqrt(2 * g * L / N1) + 2 * g / N1 * math.sqrt(L / rho) > eps
    # ρ → ∞: "sum" tends to the non-private length 2 g L/ε²
    N_inf = phase_length(gope_policy("adac-gope", epsilon=1e12, allocation="sum"), g, 3, k)
    assert N_inf == math.ceil(2 * g * math.log(4 * k * 12 / delta) * 64)


# ------------------------------------------------------------------- design
def test_design_kiefer_wolfowitz():
    rng = np.random.default_rng(0)
    X = sphere_instance(50, rng, d=4).actions
    des = g_optimal_design(X, tol=0.01)
    assert des.weights.sum() == pytest.approx(1.0)
    assert 4 - 1e-9 <= des.g <= 4 * 1.01 + 1e-9   # g >= d for every design
    basis = np.eye(3)
    assert g_optimal_design(basis).g == pytest.approx(3.0)


# ---------------------------------------------------------------- accounting
def test_privacy_report():
    for spec in (gope_policy("adac-gope", epsilon=0.5), oful_policy("adac-oful", epsilon=0.5)):
        rep = privacy_report(spec, 1e-6)
        assert rep.rho == 0.5
        assert rep.epsilon == zcdp_to_dp(0.5, 1e-6).epsilon
        assert rep.epsilon_standard == pytest.approx(0.5 + 2 * math.sqrt(0.5 * math.log(1e6)))
        assert rep.epsilon <= rep.epsilon_standard
    with pytest.raises(ParameterError):
        privacy_report(gope_policy("gope"), 1e-6)
    with pytest.raises(ParameterError):
        privacy_report(oful_policy("rs-oful"), 1e-6)


def _gope_audit(scale):
    X = np.array([[1, 0], [0.6, 0.8], [0, 1.0]])
    counts = np.array([3, 2, 3])
    rho, delta = 0.05, 1e-3
    sens = phase_sensitivity(X, counts)
    sigma = sens / math.sqrt(2 * rho) * scale
    Vinv = np.linalg.inv(X.T @ (X * counts[:, None]))
    j = int(np.argmax(np.einsum("ij,jk,ik->i", X, Vinv, X)))
    u = X[j]  # the direction in which one reward moves the release the most

    def mechanism(dataset, size, rng):
        # release θ̃, project on u and quantize: post-processing, so (ε, δ) is kept
        v = release(X, counts, _sums(counts, np.asarray(dataset)), sigma, rng, size) @ u
        return np.floor(v * 2**6).astype(np.int64)

    d0 = (-1.0,) * 8
    d1 = list(d0)
    d1[int(np.cumsum(counts)[j]) - 1] = 1.0
    eps = privacy_report(gope_policy("adac-gope", epsilon=rho), delta).epsilon
    return audit_mechanism(mechanism, d0, tuple(d1), eps, 100_000, rng=7, delta=delta)


def test_gope_release_passes_audit():
    assert _gope_audit(1.0).verdict == "pass"


def test_undernoised_release_fails_audit():
    assert _gope_audit(0.2).verdict == "fail"


# ------------------------------------------------------------------- regret
def test_twins_no_worse():
    g_priv, g_np, o_priv, o_np = [], [], [], []
    for i in range(4):
        env = sphere_instance(50, 100 + i)
        g_priv.append(simulate_gope(gope_policy("adac-gope", epsilon=1.0), env, 100_000,
                                    rng=i).final_regret)
        g_np.append(simulate_gope(gope_policy("gope"), env, 100_000, rng=i).final_regret)
        cenv = contextual_instance(20, 200 + i)
        o_priv.append(simulate_oful(oful_policy("adac-oful", epsilon=1.0), cenv, 10_000,
                                    rng=i).final_regret)
        o_np.append(simulate_oful(oful_policy("rs-oful"), cenv, 10_000, rng=i).final_regret)
    assert np.mean(g_np) <= 1.05 * np.mean(g_priv)
    assert np.mean(o_np) <= 1.05 * np.mean(o_priv)
    # sublinear: far below the regret of uniform play
    assert np.mean(g_np) < 0.2 * 100_000


def test_determinism_and_finite():
    env = sphere_instance(20, 5)
    a = simulate_gope(gope_policy("adac-gope", epsilon=0.1), env, 50_000, rng=9)
    b = simulate_gope(gope_policy("adac-gope", epsilon=0.1), env, 50_000, rng=9)
    assert np.array_equal(a.regret, b.regret) and np.all(np.isfinite(a.regret))
    cenv = contextual_instance(5, 5)
    c = simulate_oful(oful_policy("adac-oful", epsilon=0.1), cenv, 3000, rng=9)
    e = simulate_oful(oful_policy("adac-oful", epsilon=0.1), cenv, 3000, rng=9)
    assert np.array_equal(c.regret, e.regret) and np.all(np.isfinite(c.regret))
    assert np.all(np.diff(c.regret) >= -1e-12)


@pytest.mark.parametrize("actions", [
    [[1.0, 0, 0], [0.5, 0, 0], [-1.0, 0, 0]],          # rank 1 in d = 3
    [[0.0, 0.0], [0.0, 0.0]],                          # all zero
    [[0.6, 0.8], [0.6, 0.8], [0.8, 0.6]],               # duplicates
    [[1.0]],                                           # a single action
])
def test_degenerate_action_sets(actions):
    env = LinearEnv(actions, np.eye(len(actions[0]))[0], noise_sd=0.0)
    for spec in (gope_policy("gope"), gope_policy("adac-gope", epsilon=1.0)):
        res = simulate_gope(spec, env, 20_000, rng=0)
        assert np.all(np.isfinite(res.regret))


# ---------------------------------------------------------------- bad input
def test_bad_input():
    with pytest.raises(ParameterError):
        LinearEnv(np.zeros((0, 3)), np.zeros(3))            # empty action set
    with pytest.raises(ParameterError):
        LinearEnv(np.zeros((3, 0)), np.zeros(0))            # d < 1
    with pytest.raises(ParameterError):
        LinearEnv([[2.0, 0.0]], [1.0, 0.0])                 # ‖a‖ > bound
    with pytest.raises(ParameterError):
        LinearEnv([[1.0, 0.0]], [1.0, 1.0])                 # ‖θ‖ > bound
    with pytest.raises(ParameterError):
        LinearEnv([[np.nan, 0.0]], [1.0, 0.0])
    with pytest.raises(ParameterError):
        sphere_instance(10, 0, d=0)
    with pytest.raises(ParameterError):
        ContextualEnv([1.0], K=0, d=1)
    with pytest.raises(ParameterError):
        ContextualEnv([1.0, 0.0], K=3, d=3)
    with pytest.raises(ParameterError):
        g_optimal_design([[1.0, 0.0], [2.0, 0.0]])          # singular design
    with pytest.raises(ParameterError):
        g_optimal_design(np.zeros((0, 2)))
    for bad in (0, -1.0, float("nan"), None, True):
        with pytest.raises(ParameterError):
            gope_policy("adac-gope", epsilon=bad)
        with pytest.raises(ParameterError):
            oful_policy("adac-oful", epsilon=bad)
    with pytest.raises(ParameterError):
        gope_policy("gope", epsilon=1.0)
    with pytest.raises(ParameterError):
        gope_policy("nope")
    with pytest.raises(ParameterError):
        gope_policy("adac-gope", epsilon=1.0, allocation="thirds")
    with pytest.raises(ParameterError):
        oful_policy("rs-oful", delta=1.5)
    with pytest.raises(ParameterError):
        simulate_gope(gope_policy("gope"), contextual_instance(3, 0), 100)
    with pytest.raises(ParameterError):
        simulate_oful(oful_policy("rs-oful"), sphere_instance(3, 0), 100)
    with pytest.raises(ParameterError):
        simulate_gope(gope_policy("gope"), sphere_instance(3, 0), 0)


def test_contextual_action_sets_bounded():
    env = contextual_instance(20, 0)
    sets = env.action_sets(1000, np.random.default_rng(1))
    assert sets.shape == (1000, 20, 3)
    assert np.linalg.norm(sets, axis=-1).max() <= 1 + 1e-12


# ------------------------------------------------------------------ presets
@pytest.mark.parametrize("name,horizon", [("zcdp-linear", 20_000), ("zcdp-contextual", 2_000)])
def test_presets_run(name, horizon):
    preset = ZCDP_LINEAR_PRESETS[name]
    assert preset.privacy_symbol == "ρ"
    df = run_tasks(preset.with_overrides(runs=2, horizon=horizon).tasks(), seed=0,
                   workers=1, progress=False)
    assert set(df["run"]) == {0, 1}
    assert df["regret"].notna().all() and np.isfinite(df["regret"]).all()
    # one private policy per ρ (two for zcdp-linear: both width splits) plus the twin
    assert df["policy"].nunique() == len(preset.specs()) == (7 if name == "zcdp-linear" else 4)
    assert df["t"].max() == horizon
