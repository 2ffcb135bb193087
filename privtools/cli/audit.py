"""``privtools audit``: black-box audits from the command line.

Two modes:

* ``--mechanism NAME`` audits the server's view of one protocol batch
  (``verification.mechanisms``) against the privacy its plan claims;
* ``--sampler KIND`` audits a shipped noise sampler against its own law (parameters as for
  ``privtools noise``).
"""

from __future__ import annotations

import json

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

from privtools.validation import ParameterError

console = Console(stderr=True)


def _progress_bar(total: int, quiet: bool):
    if quiet:
        return None, None
    bar = Progress(TextColumn("[bold]{task.description}"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), console=console, transient=True)
    task = bar.add_task("drawing", total=total)
    return bar, (lambda k: bar.advance(task, k))


def _verdict_line(verdict: str, text: str) -> str:
    colour = {"pass": "green", "fail": "red"}.get(verdict, "yellow")
    return f"[bold {colour}]{verdict.upper()}[/bold {colour}] {text}"


def audit(
    mechanism: str = typer.Option(None, help="protocol view to audit: dist-dp, dist-shuffle, "
                                  "dist-rdp, dist-cdp, central, local"),
    sampler: str = typer.Option(None, help="noise sampler to audit against its own law: "
                                "laplace, polya, polya-difference, skellam, gaussian"),
    epsilon: str = typer.Option("1", help="target ε of the plan (mechanism mode)"),
    n: int = typer.Option(16, help="users per batch (mechanism mode)"),
    horizon: int = typer.Option(10**6, help="horizon T; the plan uses p = 1/T"),
    s: str = typer.Option("1", help="Skellam / discrete Gaussian scale s >= 1"),
    delta: float = typer.Option(1e-6, help="δ of the (ε, δ) claim for rdp/cdp plans"),
    samples: int = typer.Option(200_000, help="draws per dataset (mechanism) or in total "
                                "(sampler)"),
    alpha: float = typer.Option(0.01, help="false-alarm level of the audit"),
    seed: int = typer.Option(0, help="seed of the audit's numpy Generator"),
    scale: str = typer.Option(None, help="sampler: Lap_Z or Pólya scale"),
    var: str = typer.Option(None, help="sampler: Skellam variance"),
    sigma2: str = typer.Option(None, help="sampler: discrete Gaussian σ²"),
    r: str = typer.Option(None, help="sampler: Pólya r"),
    beta: str = typer.Option(None, help="sampler: Pólya β"),
    mu: int = typer.Option(0, help="sampler: integer location"),
    exact: bool = typer.Option(False, help="sampler: use the integer-only sampler"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
):
    """Audit a protocol view (--mechanism) or a noise sampler (--sampler) by sampling.

    Exit code 0 on pass, 1 on fail or inconclusive, 2 on bad input."""
    from verification.audit import audit_mechanism, audit_sampler

    try:
        if (mechanism is None) == (sampler is None):
            raise ParameterError("give exactly one of --mechanism or --sampler")
        if mechanism is not None:
            from verification.mechanisms import protocol_mechanism

            pm = protocol_mechanism(mechanism, epsilon, n, horizon=horizon, s=s, delta=delta)
            bar, tick = _progress_bar(2 * samples, as_json)
            if bar:
                bar.start()
            try:
                res = audit_mechanism(pm.mechanism, pm.d, pm.d_prime, pm.epsilon, samples,
                                      rng=seed, delta=pm.delta, alpha=alpha, progress=tick)
            finally:
                if bar:
                    bar.stop()
            p = pm.plan
            info = {"mode": "mechanism", "mechanism": mechanism, "claim": pm.claim,
                    "plan": {"theorem": p.theorem, "n": p.n, "g": p.g, "tau": p.tau,
                             "m": p.m, "bits": p.bits},
                    "audit": res.to_dict()}
            head = (f"{mechanism}: Theorem {p.theorem} (000), n = {p.n}, g = {p.g}, "
                    f"τ = {p.tau}, m = {p.m}; claim {pm.claim}")
        else:
            from privtools.cli.laws import build_law

            dist = build_law(sampler, scale, var, sigma2, r, beta, mu)
            bar, tick = _progress_bar(samples, as_json)
            if bar:
                bar.start()
            try:
                res = audit_sampler(lambda size, rng: dist.sample(size, rng, exact=exact),
                                    dist, samples, rng=seed, alpha=alpha, progress=tick)
            finally:
                if bar:
                    bar.stop()
            info = {"mode": "sampler", "sampler": repr(dist), "exact": exact,
                    "audit": res.to_dict()}
            head = f"{dist} sampler ({'integer-only' if exact else 'float table'})"
    except (ParameterError, ValueError, ArithmeticError) as exc:
        console.print(f"[red]error:[/red] {exc}")
        raise typer.Exit(2) from exc

    if as_json:
        print(json.dumps(info, indent=2, default=str))
    else:
        out = Console()
        out.print(head)
        if info["mode"] == "mechanism":
            out.print(f"{samples} draws per dataset; events chosen on one half, tested on "
                      "the other (Clopper–Pearson)")
        else:
            for name, t in res.tests.items():
                out.print(f"  {name:8s} p = {t['p_value']:.3g}")
        out.print(_verdict_line(res.verdict, res.summary().split(": ", 1)[1]))
    raise typer.Exit(0 if res.passed else 1)
