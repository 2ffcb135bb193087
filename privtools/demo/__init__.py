"""``privtools demo``: the noise library checked end to end, written as a report.

Scenario: one batch of n users at ε = 1 under the three distributed mechanisms of paper 000,
with the noise parameters those theorems prescribe:

* Theorem 1 (pure DP): g = ⌈ε√n⌉, each user adds Pólya(1/n, e^{-ε/g}) − Pólya(1/n, e^{-ε/g}),
  the sum is Lap_Z(g/ε) (Fact 1);
* Theorem 2 (RDP, scale s = 10): g = ⌈sε√n⌉, each user adds Sk(0, g²/(nε²)), the sum is
  Sk(0, g²/ε²);
* Theorem 4 (CDP, s = 10): g = ⌈sε√n⌉, each user adds N_Z(0, g²/(nε²)); the sum is close to,
  but not exactly, N_Z(0, g²/ε²) (Lemma 4).

For each: the exact law of the n summed shares by Arb convolution, compared with the
closed form (a certified total-variation interval); a G-test of simulated batch sums
against the exact law. Then G-tests of the integer-only samplers and the symbolic proofs,
paper 000's claims (reduced grid), black-box audits of the shipped samplers and of the
server's view under Theorems 1, 2 and 4, a plan for a realistic deployment (ε = 1,
n = 2^16, T = 10^7) verified exactly, and a short regret comparison of the trust models
(distributed, central, local, zCDP). The report is Markdown + PNG + a self-contained HTML
page (plots embedded, math rendered as MathML, no network).
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

from privtools.certified import decide_le
from privtools.exact import ExactPMF, sum_pmf, total_variation
from privtools.noise import DiscreteGaussian, DiscreteLaplace
from verification import claims as registry
from verification.gof import g_test
from verification.proofs import all_checks

from . import checks, report

__all__ = ["run_demo", "checks", "report"]


def run_demo(out: Path, quick: bool = False, seed: int = 20261122, console=None) -> dict:
    """Run the demo's checks and write its report to ``out``.

    Writes ``report.md``, ``report.html`` (self-contained: plots embedded, math as MathML),
    ``noise.png``, ``regret.png`` and ``summary.json``.

    Parameters
    ----------
    out : pathlib.Path
        The report directory (created if missing).
    quick : bool, optional
        Smaller sample sizes (about half the time).
    seed : int, optional
        Seed of all sampling; a run is deterministic given the seed.
    console : rich.console.Console, optional
        Where to show progress and print the summary; None for silence.

    Returns
    -------
    dict
        The results (also ``summary.json``). ``all_passed`` is true when every toolkit
        check passed (``checks.toolkit_checks``); ``toolkit_checks`` counts them and names
        any failure; ``paper_findings`` lists paper 000's claims that do not hold, which
        never make ``all_passed`` false; ``verdict`` is the verdict line.
    """
    from rich.progress import Progress


    t_start = time.perf_counter()
    eps, s = Fraction(1), 10
    n = 64 if quick else 1024
    batches = 20_000 if quick else 50_000
    exact_draws = 100_000 if quick else 300_000
    root = np.random.SeedSequence(seed)
    seeds = root.spawn(8)
    results: dict = {"epsilon": str(eps), "n": n, "s": s, "batches": batches,
                     "mechanisms": [], "exact_samplers": [], "symbolic": []}
    plots = []
    mechs = checks.mechanisms(eps, n, s)
    with Progress(console=console, disable=console is None, transient=True) as progress:
        task = progress.add_task("checking", total=len(mechs) + 7)
        for (name, total, closed), ss in zip(mechs, seeds):
            progress.update(task, description=name)
            share = total.shares(n)
            t0 = time.perf_counter()
            summed = sum_pmf(share, n, dps=40, tail=checks.mpf_pow10(-40), method="convolve")
            law = ExactPMF.from_distribution(total, dps=40, tail=checks.mpf_pow10(-40))
            tv = total_variation(summed, law)
            t_exact = time.perf_counter() - t0
            rng = np.random.default_rng(ss)
            sums = share.sample((batches, n), rng).sum(axis=1)
            gt = g_test(sums, summed)
            # the closed form is exact when the certified TV is <= 1e-30 (decided exactly)
            passed = gt.p_value >= checks.P_THRESHOLD and (
                not closed or decide_le(tv, Fraction(1, 10**30)) is True)
            results["mechanisms"].append({
                "mechanism": name, "share": str(share), "total": str(total),
                "tv_sum_vs_closed_form": [float(tv.a), float(tv.b)],
                "closed_form_exact": closed, "exact_seconds": round(t_exact, 3),
                "g_test_p": gt.p_value, "g_test_dof": gt.dof, "passed": bool(passed),
            })
            plots.append((name, summed, sums))
            progress.advance(task)

        progress.update(task, description="integer-only samplers")
        for dist, ss in ((DiscreteLaplace(Fraction(32)), seeds[5]),
                         (DiscreteGaussian(sigma2=Fraction(100)), seeds[6]),
                         (DiscreteGaussian(sigma2=Fraction(1, 3)), seeds[7])):
            x = dist.sample(exact_draws, np.random.default_rng(ss), exact=True)
            gt = g_test(x, dist)
            results["exact_samplers"].append({
                "distribution": str(dist), "draws": exact_draws, "g_test_p": gt.p_value,
                "passed": bool(gt.p_value >= checks.P_THRESHOLD)})
        progress.advance(task)

        progress.update(task, description="symbolic proofs")
        for chk in all_checks():
            results["symbolic"].append({"name": chk.name, "source": chk.source,
                                        "statement": chk.statement, "holds": chk.holds})
        progress.advance(task)

        progress.update(task, description="paper 000's claims (reduced grid)")

        results["claims"] = [
            {"name": r.claim.name, "source": r.claim.source, "status": r.status,
             "worst_slack": r.worst_slack, "statement": r.claim.statement,
             "example": ([row.detail for row in r.rows if row.status != "holds"]
                         or [r.rows[0].detail])[-1]}
            for r in registry.check_all("reduced")]
        progress.advance(task)

        progress.update(task, description="black-box audits")
        results["audits"] = checks.audits(quick, root.spawn(1)[0])
        progress.advance(task)

        progress.update(task, description="planning a deployment (n = 2^16, T = 10^7)")
        results["plans"] = checks.plans()
        progress.advance(task)

        out.mkdir(parents=True, exist_ok=True)
        progress.update(task, description="regret: distributed vs central vs local vs zCDP")
        df, T, runs = checks.regret_runs(quick)
        results["regret"] = checks.regret(df, T, runs)
        report.regret_plot(df, out / "regret.png", T, runs)
        progress.advance(task)

        progress.update(task, description="report")
        report.noise_plot(plots, out / "noise.png")
        progress.advance(task)

    # The toolkit's checks decide ``all_passed`` (and the exit status); paper 000's claims
    # that fail are findings about the paper, reported apart (``paper_findings``).
    results.update(checks.verdict(results))
    results["verdict"] = report.verdict_line(results)
    results["seconds"] = round(time.perf_counter() - t_start, 1)
    (out / "summary.json").write_text(json.dumps(results, indent=2, default=str))
    md = report.markdown(results)
    (out / "report.md").write_text(md, encoding="utf-8")
    (out / "report.html").write_text(report.html_page(md, out), encoding="utf-8")
    if console is not None:
        report.print_summary(results, out, console)
    return results
