"""Returning users in the bandit simulators (000 App. H): a fixed number of
participations k per user and a pool of U users drawn uniformly each round, for batch SE
(paper 000, plans certified by the PLD accountant) and AdaC-UCB (paper 001, kρ-zCDP and the
Lemma 10 conversion)."""

from __future__ import annotations

import json
import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from privtools.accounting import zcdp_to_dp
from privtools.bandits import policy, simulate
from privtools.bandits.envs import five_arm_instance
from privtools.bandits.se import batch_plan, draw_users
from privtools.bandits.se.returning import UserLedger, user_stream
from privtools.bandits.zcdp import calibrate_rho, privacy_report, simulate_ucb, zcdp_policy
from privtools.errors import ParameterError
from privtools.planning import plan

ROOT = Path(__file__).resolve().parents[3]
ENV = five_arm_instance()
DELTA = 1e-6


# ------------------------------------------------------------------------- the pool draw
@settings(max_examples=30, deadline=None)
@given(pool=st.integers(1, 10**9), seed=st.integers(0, 2**32 - 1),
       rows=st.integers(1, 4), n=st.integers(1, 64))
def test_pool_draw_is_reproducible_from_the_seed(pool, seed, rows, n):
    a = draw_users(pool, (rows, n), seed)
    b = draw_users(pool, (rows, n), np.random.default_rng(seed))
    assert a.dtype == np.int64 and a.shape == (rows, n)
    assert np.array_equal(a, b)
    assert a.min() >= 0 and a.max() < pool


def test_user_stream_leaves_the_run_stream_alone():
    gen = np.random.default_rng(7)
    ids = draw_users(1000, 50, user_stream(gen))
    assert np.array_equal(gen.random(5), np.random.default_rng(7).random(5))
    again = draw_users(1000, 50, user_stream(np.random.default_rng(7)))
    assert np.array_equal(ids, again)


def test_ledger_counts_batches_and_multiplicities():
    led = UserLedger(3, 0)
    ids = led.draw(2, 5, ((1, 10), (5, 10)))      # generous profile: always within
    rec = led.record()
    per_row = [np.unique(r) for r in ids]
    counts = np.bincount(np.concatenate(per_row), minlength=3)
    assert rec.users == int((counts > 0).sum())
    assert rec.max_batches == int(counts.max())
    assert rec.max_multiplicity == max(int(np.bincount(r).max()) for r in ids)
    assert rec.within_profile
    tight = UserLedger(3, 0)
    tight.draw(2, 5, ((1, 1),))                    # 5 users among 3 people: some repeat
    assert not tight.record().within_profile


def test_pool_simulation_is_reproducible_and_records_participation():
    spec = policy("dist-dp-se", epsilon=1, delta=DELTA, pool=5000, mode="aggregate")
    r1 = simulate(spec, ENV, 2000, rng=3)
    r2 = simulate(spec, ENV, 2000, rng=np.random.default_rng(3))
    assert r1 == r2
    rec = r1.participation
    assert rec is not None and rec.pool == 5000
    assert 1 <= rec.max_batches and 1 <= rec.max_multiplicity
    assert rec.users <= min(5000, r1.simulated_users)
    assert rec.within_profile            # fails w.p. <= the plan's participation_failure
    n = spec.base
    p = batch_plan(spec, n, 2000)
    assert p.pool == 5000 and p.participation_failure <= Fraction(DELTA)
    # the same seed without a pool draws the same rewards; no ids are drawn
    assert simulate(policy("dist-dp-se", epsilon=1, mode="aggregate"), ENV, 2000,
                    rng=3).participation is None


# ---------------------------------------------------------- per-batch noise of the plans
@pytest.mark.parametrize("name,kw", [("dist-dp-se", {"mode": "aggregate"}),
                                     ("central-dp-se", {"mode": "aggregate"}),
                                     ("ldp-se", {})])
def test_batch_noise_is_the_plans_calibrated_noise(name, kw):
    k, T = 4, 1000
    spec = policy(name, epsilon=1, delta=DELTA, participations=k, **kw)
    res = simulate(spec, ENV, T, rng=0, record_noise=True)
    assert res.noise_log
    trust = {"dist-dp-se": "distributed", "central-dp-se": "central", "ldp-se": "local"}[name]
    for rec in res.noise_log:
        direct = plan(privacy="pure-dp", trust=trust, epsilon=1, n=rec.n, horizon=T,
                      delta=DELTA, participations=k,
                      **({"tail": "exact"} if name == "ldp-se" else {}))
        used = batch_plan(spec, rec.n, T)
        assert used.epsilon_view == direct.epsilon_view < 1
        assert used.g == rec.g == direct.g
        assert rec.variance == float(direct.exact_total_noise.var())
        # that noise is the noise of a plain plan at the per-batch ε
        plain = plan(privacy="pure-dp", trust=trust, epsilon=direct.epsilon_view, n=rec.n,
                     horizon=T, **({"tail": "exact"} if name == "ldp-se" else {}))
        assert float(plain.exact_total_noise.var()) == rec.variance
        assert direct.certified_epsilon is not None


@settings(max_examples=25, deadline=None)
@given(k=st.integers(1, 64), b=st.integers(1, 6),
       eps=st.fractions(Fraction(1, 10), Fraction(4)).filter(lambda e: e > 0))
def test_pure_dp_at_delta_zero_is_epsilon_over_k(k, b, eps):
    """Basic composition is exact for pure DP: the per-batch ε is ε/k on the nose, and a
    larger k never gives less noise."""
    n = 4**b
    spec = policy("dist-dp-se", epsilon=eps, delta=0, participations=k)
    p = batch_plan(spec, n, 10**6)
    assert p.epsilon_view == eps / k
    if k > 1:
        prev = batch_plan(policy("dist-dp-se", epsilon=eps, delta=0, participations=k - 1),
                          n, 10**6)
        assert p.exact_total_noise.var() >= prev.exact_total_noise.var()


def test_larger_k_never_gives_less_noise_at_positive_delta():
    n, T = 16, 10**6
    views, variances = [], []
    for k in (1, 2, 4, 8, 16):
        p = batch_plan(policy("dist-dp-se", epsilon=1, delta=DELTA, participations=k), n, T)
        views.append(p.epsilon_view)
        variances.append(float(p.exact_total_noise.var()))
        assert float(p.certified_epsilon.b) <= 1
    assert views == sorted(views, reverse=True)
    assert variances == sorted(variances)
    # δ > 0 buys more than basic composition for many participations
    assert views[-1] > Fraction(1, 16)


@pytest.mark.slow
def test_rdp_per_batch_epsilon_shrinks_with_k():
    n, T = 4, 10**4
    ps = [batch_plan(policy("dist-rdp-se", epsilon=1, s=10, delta=DELTA, participations=k,
                            mode="aggregate"), n, T) for k in (1, 4)]
    assert ps[1].epsilon_view < ps[0].epsilon_view
    assert ps[1].total_noise.variance > ps[0].total_noise.variance
    assert all(float(p.certified_epsilon.b) <= 1 for p in ps)


def test_widths_follow_the_per_batch_epsilon(monkeypatch):
    """The paper widths (eq. (2), Lemma 2 of 000) of a returning-user run are taken at the
    plan's per-batch ε, not at the per-user target."""
    import privtools.bandits.se.simulation as sim

    seen = []
    real = sim.paper_width

    def spy(name, epsilon, n, arms, b, p, s=1.0):
        seen.append((n, epsilon))
        return real(name, epsilon, n, arms, b, p, s)

    monkeypatch.setattr(sim, "paper_width", spy)
    spec = policy("dist-dp-se", epsilon=1, delta=0, participations=8, mode="aggregate")
    simulate(spec, ENV, 2000, rng=5)
    assert seen and all(e == 1 / 8 for _, e in seen)
    seen.clear()
    simulate(policy("dist-dp-se", epsilon=1, mode="aggregate"), ENV, 2000, rng=5)
    assert seen and all(e == 1.0 for _, e in seen)


# ------------------------------------------------------------------------------ AdaC-UCB
@pytest.mark.parametrize("k", [1, 3, 16])
def test_adac_ucb_calibration_composes_back_to_the_target(k):
    cal = calibrate_rho(1, DELTA, k)
    rho = Fraction(cal.rho)                        # the ρ a ZcdpSpec holds (binary value)
    assert cal.rho_user == k * rho
    assert zcdp_to_dp(k * rho, DELTA).epsilon <= 1
    assert cal.epsilon_achieved <= 1
    assert zcdp_to_dp(k * rho * Fraction(1001, 1000), DELTA).epsilon > 1   # tight
    assert "not a PLD certificate" in cal.method
    rep = privacy_report(zcdp_policy("adac-ucb", epsilon=cal.rho, participations=k), DELTA)
    assert rep.participations == k and rep.rho_user == k * rho and rep.epsilon <= 1
    assert rep.rho == rho


def test_adac_ucb_with_participations_runs():
    cal = calibrate_rho(1, DELTA, 2)
    spec = zcdp_policy("adac-ucb", epsilon=cal.rho, participations=2)
    assert "k=2" in spec.label
    res = simulate_ucb(spec, ENV, 3000, rng=1)
    assert res.pulls.sum() == 3000 and np.isfinite(res.final_regret)
    assert res.releases[-1].sigma > 0


# ---------------------------------------------------------------------------- bad inputs
@pytest.mark.parametrize("make,param", [
    (lambda: policy("dist-dp-se", epsilon=1, participations=0), "participations"),
    (lambda: policy("dist-dp-se", epsilon=1, participations=2.0), "participations"),
    (lambda: policy("dist-dp-se", epsilon=1, participations=True), "participations"),
    (lambda: policy("dist-dp-se", epsilon=1, delta=DELTA, pool=0), "pool"),
    (lambda: policy("dist-dp-se", epsilon=1, delta=DELTA, pool=10.5), "pool"),
    (lambda: policy("dist-dp-se", epsilon=1, delta=DELTA, pool=100, participations=2),
     "pool"),
    (lambda: policy("dist-dp-se", epsilon=1, delta=1.5), "delta"),
    (lambda: policy("dist-dp-se", epsilon=1, delta=-0.1), "delta"),
    (lambda: policy("dist-dp-se", epsilon=1, delta=float("nan")), "delta"),
    (lambda: policy("dist-dp-se", epsilon=1, pool=100), "delta"),
    (lambda: policy("dist-dp-se", epsilon=1, delta=0, pool=100), "delta"),
    (lambda: policy("dist-rdp-se", epsilon=1, s=10, participations=2), "delta"),
    (lambda: policy("dist-cdp-se", epsilon=1, delta=0), "delta"),
    (lambda: policy("dist-dp-se", epsilon=1, participations=2, secure="shuffle"),
     "participations"),
    (lambda: policy("se", participations=2), "participations"),
    (lambda: policy("dp-se", epsilon=1, delta=DELTA), "delta"),
    (lambda: zcdp_policy("adac-ucb", epsilon=0.1, participations=0), "participations"),
    (lambda: zcdp_policy("ucb-twin", participations=2), "participations"),
    (lambda: calibrate_rho(0, DELTA, 2), "epsilon"),
    (lambda: calibrate_rho(1, 0, 2), "delta"),
    (lambda: calibrate_rho(1, 1, 2), "delta"),
    (lambda: calibrate_rho(1, DELTA, 0), "participations"),
    (lambda: draw_users(0, 3, 0), "pool"),
    (lambda: draw_users(10, 3, "seed"), "rng"),
])
def test_bad_inputs_name_the_parameter(make, param):
    with pytest.raises(ParameterError, match=param):
        make()


def test_labels_and_plan_kwargs():
    spec = policy("dist-rdp-se", epsilon=1, s=10, delta=DELTA, participations=4)
    assert spec.returning and spec.label == "Dist-RDP-SE (s=10) [k=4, δ=1e-06]"
    kw = spec.plan_kwargs()
    assert kw["participations"] == 4 and kw["delta"] == DELTA and "pool" not in kw
    pool = policy("ldp-se", epsilon=1, delta=DELTA, pool=100)
    assert pool.plan_kwargs()["pool"] == 100 and "pool=100" in pool.label
    plain = policy("dist-dp-se", epsilon=1)
    assert not plain.returning and "delta" not in plain.plan_kwargs()


# ----------------------------------------------------------------------------- end to end
@pytest.mark.parametrize("name,kw", [("dist-dp-se", {}), ("central-dp-se", {"mode": "aggregate"}),
                                     ("ldp-se", {})])
def test_tiny_simulation_end_to_end(name, kw):
    spec = policy(name, epsilon=1, delta=DELTA, participations=2, **kw)
    res = simulate(spec, ENV, 600, rng=0)
    assert res.pulls.sum() == 600 and res.regret[-1] >= 0 and res.batches >= 1
    assert res == simulate(spec, ENV, 600, rng=0)


@pytest.mark.slow
def test_script_runs_end_to_end():
    out = subprocess.run(
        [sys.executable, str(ROOT / "studies" / "regret_vs_participations.py"),
         "--ks", "1,2", "--runs", "2", "--horizon", "200", "--json"],
        capture_output=True, text=True, check=True, timeout=600)
    res = json.loads(out.stdout)
    assert res["ks"] == [1, 2] and res["runs"] == 2
    keys = {(g["key"], g["k"]) for g in res["groups"]}
    for key in ("dist-dp", "dist-rdp", "dist-cdp", "central", "local", "adac-ucb"):
        assert {(key, 1), (key, 2)} <= keys
    for g in res["groups"]:
        assert len(g["regret"]) == 2
        for s in g.get("sizes", {}).values():
            assert s["certified"][1] <= 1
