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

from privtools.errors import ParameterError

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

    Exit code 0 on pass, 1 on fail or inconclusive, 2 on bad input (options that the chosen
    mode ignores are refused; --samples is limited to keep an audit within minutes)."""
    from verification.audit import audit_mechanism, audit_sampler

    _check_options(mechanism, sampler, n, samples, alpha, seed, delta, exact)
    from privtools.cli import checks

    with checks.naming():
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

            dist = build_law(sampler, scale, var, sigma2, r, beta,
                             mu if checks.given("mu") else None, kind_option="--sampler")
            _check_sampler_width(dist)
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

    if as_json:
        print(json.dumps(info, indent=2, default=str))
    else:
        from rich.markup import escape

        out = Console()
        out.print(escape(head))
        if info["mode"] == "mechanism":
            out.print(f"{samples} draws per dataset; events chosen on one half, tested on "
                      "the other (Clopper–Pearson)")
        else:
            for name, t in res.tests.items():
                out.print(f"  {name:8s} p = {t['p_value']:.3g}")
        out.print(_verdict_line(res.verdict, escape(res.summary().split(": ", 1)[1])))
    raise typer.Exit(0 if res.passed else 1)


# Limits that keep an audit within minutes (2 cores): a mechanism audit simulates
# 2·samples batches of n users (2e4 x 1e6 users: ~70 s); dist-cdp's claim is the exact RDP
# curve of the n-fold discrete Gaussian sum (n = 1e5: ~40 s); the integer-only samplers draw
# ~3e6 values/s; a sampler audit's G-test has one bin per integer of the law's bulk.
MAX_SAMPLES = 10**8
MAX_EXACT_SAMPLES = 10**7
MAX_USER_DRAWS = 2 * 10**10
MAX_CDP_N = 10**5
MAX_SAMPLER_SD = 10**6
MODE_OPTIONS = {
    "mechanism": ("epsilon", "n", "horizon", "s", "delta"),
    "sampler": ("scale", "var", "sigma2", "r", "beta", "mu", "exact"),
}
EXACT_SAMPLERS = ("laplace", "gaussian")


def _check_options(mechanism, sampler, n, samples, alpha, seed, delta, exact) -> None:
    """Before any work: one mode, no option of the other mode, no option the mechanism
    ignores, values in range, and the work within the limits (ParameterError naming the
    option)."""
    from privtools.cli import checks

    if (mechanism is None) == (sampler is None):
        raise ParameterError("give exactly one of --mechanism or --sampler")
    mode, other = ("mechanism", "sampler") if mechanism is not None else ("sampler", "mechanism")
    checks.refuse(checks.given(*MODE_OPTIONS[other]), f"applies to --{other} audits only, "
                  f"not to --{mode}")
    if mechanism in ("dist-dp", "dist-shuffle", "central", "local"):
        checks.refuse(checks.given("s", "delta"), f"applies to the rdp/cdp mechanisms "
                      f"(dist-rdp, dist-cdp) only; {mechanism} is pure ε-DP")
    if sampler is not None and exact and sampler not in EXACT_SAMPLERS:
        raise ParameterError(f"--exact: there is no integer-only sampler for {sampler} "
                             f"(there is for {', '.join(EXACT_SAMPLERS)})")
    checks.int_range("samples", samples, 1, MAX_EXACT_SAMPLES if exact else MAX_SAMPLES,
                     " with --exact" if exact else "")
    checks.real_range("alpha", alpha, 0.0, 1.0)
    checks.real_range("delta", delta, 0.0, 1.0)
    checks.seed("seed", seed)
    if mechanism is not None:
        checks.int_range("n", n, 1, MAX_CDP_N if mechanism == "dist-cdp" else None,
                         " for dist-cdp (its claim is the exact RDP curve of the n-fold sum)")
        if 2 * samples * n > MAX_USER_DRAWS:
            raise ParameterError(f"--samples {samples:,} with --n {n:,}: the audit would "
                                 f"simulate {2 * samples * n:.3g} user draws, beyond the limit "
                                 f"{MAX_USER_DRAWS:.0e} (hours of work); use fewer --samples "
                                 "or a smaller --n")


def _check_sampler_width(dist) -> None:
    """The G-test bins every integer of the law's bulk: refuse laws wider than
    MAX_SAMPLER_SD, naming the option(s) that set the width."""
    import math

    from privtools.cli import checks

    sd = math.sqrt(dist.var())
    if not sd <= MAX_SAMPLER_SD:
        law = checks.given("scale", "var", "sigma2", "r", "beta")
        raise ParameterError(f"{', '.join(checks.opt(n) for n in law)}: the law's standard "
                             f"deviation {sd:.3g} is beyond the limit {MAX_SAMPLER_SD:.0e} of "
                             "a sampler audit (its G-test has one bin per integer of the bulk)")
