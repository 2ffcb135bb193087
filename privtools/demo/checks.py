"""What the demo computes: every check, apart from how the report shows it
(:mod:`privtools.demo.report`)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

# Pass threshold of every G-test here: p-value >= 1e-4 (false alarm 1e-4 per test under a
# correct sampler; seeds are fixed, so a run is deterministic).
P_THRESHOLD = 1e-4


def mechanisms(eps: Fraction, n: int, s: int):
    """The total noise of one batch under Theorems 1, 2 and 4 (parameters from
    ``privtools.planning``, the one place they are computed; p = 1e-6 only affects τ)."""
    from privtools.planning import theorem_params

    return [
        ("Thm 1 pure DP (Pólya shares)", theorem_params(1, eps, n, "1e-6").noise, True),
        ("Thm 2 RDP (Skellam shares)", theorem_params(2, eps, n, "1e-6", s=s).noise, True),
        ("Thm 4 CDP (discrete-Gaussian shares)",
         theorem_params(4, eps, n, "1e-6", s=s).noise, False),
    ]


def mpf_pow10(e: int):
    import mpmath

    return mpmath.mpf(10) ** e


AUDIT_ALPHA = 1e-3  # false-alarm rate of each audit in the demo


def audits(quick: bool, seq: np.random.SeedSequence) -> list[dict]:
    """Black-box audits: shipped samplers against their laws, and the server's view of one
    batch (n = 16) under Theorems 1, 2 and 4 against the privacy each plan claims."""
    from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam
    from verification.audit import audit_mechanism, audit_sampler
    from verification.mechanisms import protocol_mechanism

    draws = 50_000 if quick else 200_000
    seeds = iter(seq.spawn(8))
    rows = []
    lap, sk, dg = DiscreteLaplace(32), Skellam(1024), DiscreteGaussian(sigma2=1024)
    for label, dist, exact in ((f"{lap} sampler", lap, False),
                               (f"{lap} integer-only sampler", lap, True),
                               (f"{sk} sampler", sk, False),
                               (f"{dg} integer-only sampler", dg, True)):
        res = audit_sampler(lambda size, rng, d=dist, e=exact: d.sample(size, rng, exact=e),
                            dist, draws, rng=next(seeds), alpha=AUDIT_ALPHA)
        rows.append({"audit": label, "kind": "sampler", "verdict": res.verdict,
                     "passed": res.passed, "detail": f"p = {res.p_value:.3g}"})
    for name in ("dist-dp", "dist-rdp", "dist-cdp"):
        pm = protocol_mechanism(name, 1, 16)
        res = audit_mechanism(pm.mechanism, pm.d, pm.d_prime, pm.epsilon, draws,
                              rng=next(seeds), delta=pm.delta, alpha=AUDIT_ALPHA)
        rows.append({"audit": f"server view, {name} (Theorem {pm.plan.theorem}), n = 16",
                     "kind": "mechanism", "verdict": res.verdict, "passed": res.passed,
                     "detail": f"claim {pm.claim}; ε lower bound {res.epsilon_lower:.3f}"})
    return rows


def plans() -> list[dict]:
    """Plan ε = 1, n = 2^16 users per batch, T = 10^7 under Theorems 1, 2, 4 with the exact
    τ, and verify each plan exactly."""
    from privtools.planning import plan
    from verification.plan_check import verify_plan

    rows = []
    for privacy, s in (("pure-dp", 1), ("rdp", 10), ("cdp", 10)):
        p = plan(privacy=privacy, epsilon=1, n=2**16, horizon=10**7, s=s, tail="exact")
        chk = verify_plan(p)
        rows.append({"privacy": privacy, "theorem": p.theorem, "s": s, "g": p.g,
                     "tau_bound": p.tau_bound, "tau": p.tau, "m": p.m, "bits": p.bits,
                     "bits_bound": p.bits_bound, "passed": bool(chk.passed),
                     "failure": f"{float(chk.failure.b):.3g}",
                     "privacy_result": next(f"{f.value} ({f.target})" for f in chk.findings
                                            if f.name.startswith("privacy")),
                     "reasons": list(chk.reasons)})
    return rows


def regret_runs(quick: bool):
    """The trust models' regret runs (DataFrame, horizon, runs); see :func:`regret`."""
    import pandas as pd

    from privtools.bandits import policy
    from privtools.bandits.experiments.presets import EASY
    from privtools.bandits.experiments.runner import make_tasks, run_tasks
    from privtools.bandits.zcdp import simulate_ucb, zcdp_policy

    T, runs = (20_000, 2) if quick else (200_000, 6)
    batch = [policy("dist-dp-se", epsilon=1), policy("cdp-se", epsilon=1),
             policy("ldp-se", epsilon=1), policy("dist-rdp-se", epsilon=1, s=10),
             policy("se")]
    df = pd.concat([
        run_tasks(make_tasks(batch, EASY, runs, T), seed=1, workers=1, progress=False),
        run_tasks(make_tasks([zcdp_policy("adac-ucb", epsilon=0.5), zcdp_policy("ucb-twin")],
                             EASY, runs, T, simulator=simulate_ucb),
                  seed=1, workers=1, progress=False)], ignore_index=True)
    df.loc[df["policy"].str.startswith("AdaC-UCB"), "epsilon"] = 1.0
    return df, T, runs


def regret(df, T: int, runs: int) -> list[dict]:
    """Final Reg(T)/T of the trust models on easy instances at ε = 1 (AdaC-UCB at
    ρ = ε²/2 = 1/2, the zCDP level that pure ε-DP implies), through the experiment runner."""
    from privtools.bandits.experiments.runner import summarize

    return [{"policy": r["policy"], "mean": r["mean"], "se": r["se"], "horizon": T,
             "runs": runs} for r in summarize(df)["final_time_average_regret"]]
