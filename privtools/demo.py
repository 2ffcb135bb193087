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
against the exact law. Then G-tests of the integer-only samplers and the symbolic proofs.
"""

from __future__ import annotations

import json
import time
from fractions import Fraction
from pathlib import Path

import numpy as np

# Pass threshold of every G-test here: p-value >= 1e-4 (false alarm 1e-4 per test under a
# correct sampler; seeds are fixed, so a run is deterministic).
P_THRESHOLD = 1e-4


def _mechanisms(eps: Fraction, n: int, s: int):
    """The total noise of one batch under Theorems 1, 2 and 4 (parameters from
    ``privtools.planning``, the one place they are computed; p = 1e-6 only affects τ)."""
    from .planning import theorem_params

    return [
        ("Thm 1 pure DP (Pólya shares)", theorem_params(1, eps, n, "1e-6").noise, True),
        ("Thm 2 RDP (Skellam shares)", theorem_params(2, eps, n, "1e-6", s=s).noise, True),
        ("Thm 4 CDP (discrete-Gaussian shares)",
         theorem_params(4, eps, n, "1e-6", s=s).noise, False),
    ]


def run_demo(out: Path, quick: bool = False, seed: int = 20261122, console=None) -> dict:
    """Run the checks, write ``out/report.md``, ``out/noise.png``, ``out/summary.json``."""
    from rich.progress import Progress

    from verification.exact import ExactPMF, sum_pmf, total_variation
    from verification.exact.symbolic import all_checks
    from verification.gof import g_test

    from .noise import DiscreteGaussian, DiscreteLaplace

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
    mechs = _mechanisms(eps, n, s)
    with Progress(console=console, disable=console is None, transient=True) as progress:
        task = progress.add_task("checking", total=len(mechs) + 4)
        for (name, total, closed), ss in zip(mechs, seeds):
            progress.update(task, description=name)
            share = total.shares(n)
            t0 = time.perf_counter()
            summed = sum_pmf(share, n, dps=40, tail=mpf_pow10(-40), method="convolve")
            law = ExactPMF.from_distribution(total, dps=40, tail=mpf_pow10(-40))
            tv = total_variation(summed, law)
            t_exact = time.perf_counter() - t0
            rng = np.random.default_rng(ss)
            sums = share.sample((batches, n), rng).sum(axis=1)
            gt = g_test(sums, summed)
            passed = gt.p_value >= P_THRESHOLD and (not closed or float(tv.b) < 1e-30)
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
                "passed": bool(gt.p_value >= P_THRESHOLD)})
        progress.advance(task)

        progress.update(task, description="symbolic proofs")
        for chk in all_checks():
            results["symbolic"].append({"name": chk.name, "source": chk.source,
                                        "statement": chk.statement, "holds": chk.holds})
        progress.advance(task)

        progress.update(task, description="paper 000's claims (reduced grid)")
        from verification import claims as registry

        results["claims"] = [
            {"name": r.claim.name, "source": r.claim.source, "status": r.status,
             "worst_slack": r.worst_slack, "statement": r.claim.statement,
             "example": ([row.detail for row in r.rows if row.status != "holds"]
                         or [r.rows[0].detail])[-1]}
            for r in registry.check_all("reduced")]
        progress.advance(task)

        progress.update(task, description="report")
        out.mkdir(parents=True, exist_ok=True)
        _plot(plots, out / "noise.png")
        progress.advance(task)

    results["all_passed"] = bool(
        all(m["passed"] for m in results["mechanisms"])
        and all(e["passed"] for e in results["exact_samplers"])
        and all(c["holds"] for c in results["symbolic"]))
    results["seconds"] = round(time.perf_counter() - t_start, 1)
    (out / "summary.json").write_text(json.dumps(results, indent=2, default=str))
    (out / "report.md").write_text(_markdown(results))
    if console is not None:
        _print_summary(results, out, console)
    return results


def mpf_pow10(e: int):
    import mpmath

    return mpmath.mpf(10) ** e


def _plot(plots, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(plots), figsize=(5 * len(plots), 3.8))
    for ax, (name, P, sums) in zip(np.atleast_1d(axes), plots):
        k = np.arange(P.lo, P.hi + 1)
        p = P.to_numpy()
        keep = p > 1e-300
        ax.semilogy(k[keep], p[keep], lw=1.2, label="exact (Arb convolution)")
        vals, counts = np.unique(sums, return_counts=True)
        ax.semilogy(vals, counts / sums.size, ".", ms=2, alpha=0.6, label="simulated batches")
        ax.set_title(name, fontsize=9)
        ax.set_xlabel("total noise of one batch")
        ax.set_ylim(1e-15, 1.5 * p.max())
        shown = k[p > 1e-15]
        ax.set_xlim(shown.min(), shown.max())
    np.atleast_1d(axes)[0].set_ylabel("probability")
    np.atleast_1d(axes)[0].legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


def _markdown(r: dict) -> str:
    lines = [
        "# privtools demo report",
        "",
        f"One batch of n = {r['n']} users at ε = {r['epsilon']} (s = {r['s']}); "
        f"{r['batches']} simulated batches per mechanism. Verdict: "
        f"**{'all checks passed' if r['all_passed'] else 'SOME CHECKS FAILED'}** "
        f"({r['seconds']} s).",
        "",
        "## Summed noise shares: exact law and simulation",
        "",
        "| mechanism | share | total (closed form) | TV(sum of shares, closed form) "
        "| G-test p | verdict |",
        "|---|---|---|---|---|---|",
    ]
    for m in r["mechanisms"]:
        tv = f"[{m['tv_sum_vs_closed_form'][0]:.2e}, {m['tv_sum_vs_closed_form'][1]:.2e}]"
        lines.append(f"| {m['mechanism']} | `{m['share']}` | `{m['total']}` | {tv} | "
                     f"{m['g_test_p']:.3g} | {'pass' if m['passed'] else 'FAIL'} |")
    lines += [
        "",
        "For Theorems 1 and 2 the sum of shares equals the closed form exactly (the TV "
        "interval contains 0 and is certified below 1e-30). For Theorem 4 the sum of "
        "discrete Gaussians is not a discrete Gaussian, but with shares of σ = 10 the gap is "
        "of order e^{-2π²σ²} — far below the 40 digits computed, so the interval shows no "
        "difference (Lemma 4 (000) bounds its privacy effect).",
        "",
        "![summed noise](noise.png)",
        "",
        "## Integer-only samplers (Canonne–Kamath–Steinke 2020)",
        "",
        "| distribution | draws | G-test p | verdict |",
        "|---|---|---|---|",
    ]
    for e in r["exact_samplers"]:
        lines.append(f"| `{e['distribution']}` | {e['draws']} | {e['g_test_p']:.3g} | "
                     f"{'pass' if e['passed'] else 'FAIL'} |")
    lines += ["", "## Symbolic proofs (sympy)", "", "| check | source | holds |", "|---|---|---|"]
    for c in r["symbolic"]:
        lines.append(f"| {c['name']} | {c['source']} | {c['holds']} |")
    lines += ["", "## Paper 000's claims (reduced grid; `privtools verify-claims --full` for all)",
              "", "| claim | source | verdict | worst slack |", "|---|---|---|---|"]
    for c in r.get("claims", []):
        slack = "–" if c["worst_slack"] is None else f"{c['worst_slack']:.4g}"
        lines.append(f"| {c['name']} | {c['source']} | **{c['status']}** | {slack} |")
    off = [c for c in r.get("claims", []) if c["status"] != "holds"]
    for c in off:
        lines += ["", f"- **{c['name']} {c['status']}** — {c['statement']}. "
                      f"Example: {c['example']}"]
    lines += ["", "A failing or inconclusive paper claim is a finding about the paper, not a "
              "failure of the toolkit: it does not change the verdict above.",
              "", f"G-tests pass at p >= {P_THRESHOLD} (false-alarm rate {P_THRESHOLD} per test)."]
    return "\n".join(lines) + "\n"


def _print_summary(r: dict, out: Path, console) -> None:
    from rich.table import Table

    t = Table(title=f"noise library, n = {r['n']}, ε = {r['epsilon']}")
    for c in ("check", "result", "verdict"):
        t.add_column(c)
    for m in r["mechanisms"]:
        t.add_row(m["mechanism"],
                  f"TV<= {m['tv_sum_vs_closed_form'][1]:.1e}, G-test p={m['g_test_p']:.3f}",
                  "[green]pass[/green]" if m["passed"] else "[red]FAIL[/red]")
    for e in r["exact_samplers"]:
        t.add_row(f"exact sampler {e['distribution']}", f"G-test p={e['g_test_p']:.3f}",
                  "[green]pass[/green]" if e["passed"] else "[red]FAIL[/red]")
    held = sum(c["holds"] for c in r["symbolic"])
    t.add_row("symbolic proofs", f"{held}/{len(r['symbolic'])} hold",
              "[green]pass[/green]" if held == len(r["symbolic"]) else "[red]FAIL[/red]")
    if r.get("claims"):
        held = sum(c["status"] == "holds" for c in r["claims"])
        off = ", ".join(f"{c['name']} {c['status']}" for c in r["claims"]
                        if c["status"] != "holds")
        t.add_row("paper 000's claims (reduced grid)", f"{held}/{len(r['claims'])} hold",
                  "[green]all hold[/green]" if not off else f"[yellow]{off}[/yellow]")
    console.print(t)
    verdict = "[green]all checks passed[/green]" if r["all_passed"] else "[red]checks failed[/red]"
    console.print(f"{verdict} in {r['seconds']} s — report: {out / 'report.md'}")
