"""What the demo computes: every check, apart from how the report shows it
(:mod:`privtools.demo.report`)."""

from __future__ import annotations

from fractions import Fraction

import numpy as np

from privtools.bandits import policy
from privtools.bandits.experiments.presets import EASY
from privtools.bandits.experiments.runner import make_tasks, run_tasks, summarize
from privtools.bandits.zcdp import simulate_ucb, zcdp_policy
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam
from privtools.planning import plan, theorem_params
from verification.audit import audit_mechanism, audit_sampler
from verification.mechanisms import protocol_mechanism
from verification.plan_check import verify_plan

# Pass threshold of every G-test here: p-value >= 1e-4 (false alarm 1e-4 per test under a
# correct sampler; seeds are fixed, so a run is deterministic).
P_THRESHOLD = 1e-4


def mechanisms(eps: Fraction, n: int, s: int):
    """The total noise of one batch under Theorems 1, 2 and 4.

    The parameters come from :func:`privtools.planning.theorem_params`, the one place they
    are computed (its failure probability, 1e-6 here, only affects τ).

    Parameters
    ----------
    eps : fractions.Fraction
        The privacy parameter ε.
    n : int
        Users per batch.
    s : int
        The scale of Theorems 2 and 4.

    Returns
    -------
    list of (str, distribution, bool)
        Per theorem: a label, the total noise of one batch (its ``shares`` method splits
        it among the users) and whether the summed shares equal it exactly.
    """

    return [
        ("Thm 1 pure DP (Pólya shares)", theorem_params(1, eps, n, "1e-6").noise, True),
        ("Thm 2 RDP (Skellam shares)", theorem_params(2, eps, n, "1e-6", s=s).noise, True),
        ("Thm 4 CDP (discrete-Gaussian shares)",
         theorem_params(4, eps, n, "1e-6", s=s).noise, False),
    ]


def mpf_pow10(e: int):
    """The mpmath number ``10**e`` (a tail bound or target of the exact engine).

    Parameters
    ----------
    e : int
        The exponent.

    Returns
    -------
    mpmath.mpf
        ``10**e`` at mpmath's working precision.
    """
    import mpmath

    return mpmath.mpf(10) ** e


AUDIT_ALPHA = 1e-3  # false-alarm rate of each audit in the demo


def audits(quick: bool, seq: np.random.SeedSequence) -> list[dict]:
    """Black-box audits of the shipped samplers and of the server's view of a batch.

    The samplers are audited against their laws; the server's view of one batch (n = 16)
    under Theorems 1, 2 and 4 against the privacy each plan claims. Each audit fails
    correct code with probability at most ``AUDIT_ALPHA``.

    Parameters
    ----------
    quick : bool
        Fewer draws.
    seq : numpy.random.SeedSequence
        The seed of the audits' randomness.

    Returns
    -------
    list of dict
        ``{"audit", "kind", "verdict", "passed", "detail"}`` per audit.
    """

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
    """Plan a deployment under Theorems 1, 2 and 4 and verify each plan exactly.

    The deployment: ε = 1, n = 2^16 users per batch, horizon T = 10^7, with the certified
    exact τ (``tail="exact"``).

    Returns
    -------
    list of dict
        Per theorem: the plan's parameters (``g``, ``tau``, ``tau_bound``, ``m``, ``bits``,
        ``bits_bound``), the verification's ``passed``, ``failure``, ``privacy_result``,
        ``reasons`` and ``guarantee`` (what the plan certifies, in words: ε = 1 is the
        theorem's RDP / CDP parameter for rdp and cdp, with the (ε, δ) it converts to).
    """

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
                     "reasons": list(chk.reasons), "guarantee": chk.guarantee})
    return rows


def regret_runs(quick: bool):
    """Run the trust models' bandit policies on the easy instances (see :func:`regret`).

    Parameters
    ----------
    quick : bool
        A shorter horizon and fewer runs.

    Returns
    -------
    (pandas.DataFrame, int, int)
        The runs, the horizon T and the number of runs per policy.
    """
    import pandas as pd


    T, runs = (20_000, 2) if quick else (200_000, 6)
    batch = [policy("dist-dp-se", epsilon=1), policy("central-dp-se", epsilon=1),
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
    """The trust models' final time-average regret Reg(T)/T on easy instances at ε = 1.

    AdaC-UCB runs at ρ = ε²/2 = 1/2, the zCDP level that pure ε-DP implies. Summarized by
    the experiment runner.

    Parameters
    ----------
    df : pandas.DataFrame
        The runs, from :func:`regret_runs`.
    T : int
        The horizon.
    runs : int
        Runs per policy.

    Returns
    -------
    list of dict
        ``{"policy", "mean", "se", "horizon", "runs"}`` per policy.
    """

    return [{"policy": r["policy"], "mean": r["mean"], "se": r["se"], "horizon": T,
             "runs": runs} for r in summarize(df)["final_time_average_regret"]]


def toolkit_checks(r: dict) -> list[tuple[str, bool]]:
    """Every check of the toolkit itself in a demo result, with whether it passed.

    These are the checks whose failure means privtools is broken: the summed noise shares
    (exact law and G-test), the integer-only samplers, the symbolic proofs, the black-box
    audits and the exact verification of the deployment plans. Paper 000's claims are not
    among them (see :func:`paper_findings`), nor is the regret comparison (information).

    Parameters
    ----------
    r : dict
        The result of :func:`privtools.demo.run_demo` (keys ``mechanisms``,
        ``exact_samplers``, ``symbolic`` and optionally ``audits``, ``plans``).

    Returns
    -------
    list of (str, bool)
        One ``(name, passed)`` pair per check, in report order.
    """
    return ([(m["mechanism"], bool(m["passed"])) for m in r["mechanisms"]]
            + [(f"integer-only sampler {e['distribution']}", bool(e["passed"]))
               for e in r["exact_samplers"]]
            + [(f"symbolic proof {c['name']}", bool(c["holds"])) for c in r["symbolic"]]
            + [(f"audit: {a['audit']}", bool(a["passed"])) for a in r.get("audits", [])]
            + [(f"plan {p['privacy']} (Theorem {p['theorem']})", bool(p["passed"]))
               for p in r.get("plans", [])])


def paper_findings(r: dict) -> list[dict]:
    """Paper 000's claims that do not hold in a demo result: findings about the paper.

    A claim that fails (a certified counterexample) or is inconclusive is reported, never
    counted as a failure of the toolkit.

    Parameters
    ----------
    r : dict
        The result of :func:`privtools.demo.run_demo` (key ``claims``, optional).

    Returns
    -------
    list of dict
        ``{"claim", "source", "status"}`` for each claim whose status is not ``holds``.
    """
    return [{"claim": c["name"], "source": c["source"], "status": c["status"]}
            for c in r.get("claims", []) if c["status"] != "holds"]


def verdict(r: dict) -> dict:
    """The demo's verdict, with the toolkit's checks apart from the findings about papers.

    Parameters
    ----------
    r : dict
        The result of :func:`privtools.demo.run_demo` (see :func:`toolkit_checks`).

    Returns
    -------
    dict
        ``toolkit_checks``: ``{"passed": int, "total": int, "failed": [names]}``;
        ``paper_claims``: how many of paper 000's claims were checked;
        ``paper_findings``: :func:`paper_findings`; ``all_passed``: every toolkit check
        passed (the exit status of ``privtools demo`` depends on this alone).
    """
    done = toolkit_checks(r)
    failed = [name for name, ok in done if not ok]
    return {"toolkit_checks": {"passed": len(done) - len(failed), "total": len(done),
                               "failed": failed},
            "paper_claims": len(r.get("claims", [])),
            "paper_findings": paper_findings(r),
            "all_passed": not failed}
