"""Command line: ``privtools noise`` (describe and certify a noise law),
``privtools plan`` (parameters of a batch, verified exactly before deploying),
``privtools audit`` (black-box audits of samplers and protocol views),
``privtools simulate`` (the bandit experiments of paper 000, on any executor),
``privtools account`` (certified (ε, δ) of sampled Gaussian training runs, or the σ for a
target),
``privtools verify-claims`` and ``privtools demo`` (the main job, written as a report)."""

from __future__ import annotations

import json
import sys
import time

import mpmath
import typer
from rich.console import Console
from rich.markup import escape
from rich.table import Table
from typer.core import TyperCommand

from privtools import __version__
from privtools.cli import checks
from privtools.cli.account import account
from privtools.cli.audit import audit
from privtools.cli.boundary import EPILOG, BoundaryGroup
from privtools.cli.experiments import SimulateCommand
from privtools.cli.laws import KINDS as _KINDS
from privtools.cli.laws import build_law, with_law_options
from privtools.cli.simulate import simulate
from privtools.cli.training import audit_training_command
from privtools.errors import ParameterError
from privtools.validation import show_number

app = typer.Typer(cls=BoundaryGroup, add_completion=False, no_args_is_help=True,
                  help="privtools: discrete noise for distributed DP, checked exactly.",
                  epilog=EPILOG)
console = Console(stderr=True)

# `noise --shares`: the certified check of the n-fold sum tabulates the law to 10**-dps and
# convolves n shares by binary powering (2·bitlen(n) Arb products of that width). Beyond
# these limits it runs for many minutes (or loses its precision: n > 1e7).
MAX_SHARES = 10**7
MAX_TABLE = 200_000           # points of the law's table
MAX_TABLE_WORK = 3_000_000    # points x products (about 20 s on 2 cores)
MAX_DPS = 100


def _version(value: bool) -> None:
    if value:
        print(f"privtools {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                 help="print 'privtools <version>' and exit"),
    debug: bool = typer.Option(False, "--debug", help="show the full traceback of an error "
                               "(accepted anywhere on the command line)"),
):
    """privtools: discrete noise for distributed DP, checked exactly."""
    # --debug is read (and removed from the arguments) by the error boundary itself


def _fmt(x) -> str:
    import mpmath

    return mpmath.nstr(x, 6) if isinstance(x, mpmath.mpf) else f"{x:.6g}"


@app.command()
@with_law_options()
def noise(
    kind: str = typer.Argument(..., help=f"one of: {', '.join(_KINDS)}"),
    shares: int = typer.Option(None, help="also describe one of N users' shares and "
                               f"certify that N shares sum to this law (N <= {MAX_SHARES:,})"),
    dps: int = typer.Option(30, help=f"decimal digits for exact values (1 to {MAX_DPS})"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
    law_args: dict = None,
):
    """Describe a noise law: moments, float and certified tails, and (with --shares)
    the per-user share and an exact check of the n-fold sum.

    Decimal parameters are exact ("0.1" means 1/10). Options the law does not take are
    refused, and so are laws and share counts beyond the size limits (the message gives the
    limit)."""
    from privtools.exact import ExactPMF, sum_pmf, total_variation

    d = build_law(kind, law_args)
    checks.int_range("dps", dps, 1, MAX_DPS)
    checks.int_range("shares", shares, 1, MAX_SHARES,
                     " (beyond it the certified n-fold sum runs for hours and loses precision)")
    with checks.naming({"n": "--shares"}):
        if shares is not None:
            _check_share_work(d, shares, dps)
        info = {
            "distribution": repr(d),
            "mean": d.mean(),
            "var": d.var(),
            "tails": [],
        }
        for p in (1e-3, 1e-6, 1e-9, 1e-12, 1e-30):
            lo, hi, bound = d.exact_support(p, dps=min(dps, 30))
            info["tails"].append({"p": p, "lo": lo, "hi": hi,
                                  "certified_outside": float(bound)})
        if shares is not None:
            share = d.shares(shares)
            t0 = time.perf_counter()
            total = ExactPMF.from_distribution(d, dps=dps)
            summed = sum_pmf(share, shares, dps=dps, method="convolve")
            tv = total_variation(summed, total)
            info["shares"] = {
                "n": shares,
                "share": repr(share),
                "share_var": share.var(),
                "tv_sum_vs_law": [float(tv.a), float(tv.b)],
                "seconds": time.perf_counter() - t0,
            }

    if as_json:
        print(json.dumps(info, indent=2))
        return
    out = Console()
    out.print(f"[bold]{escape(info['distribution'])}[/bold]")
    out.print(f"mean {info['mean']:.6g}   var {info['var']:.6g}")
    t = Table(title=escape("certified ranges: P(X outside [lo, hi]) <= p"))
    for c in ("p", "lo", "hi", "certified outside mass"):
        t.add_column(c, justify="right")
    for row in info["tails"]:
        t.add_row(f"{row['p']:.0e}", str(row["lo"]), str(row["hi"]),
                  f"{row['certified_outside']:.3e}")
    out.print(t)
    if "shares" in info:
        s = info["shares"]
        out.print(escape(f"one of {s['n']} shares: {s['share']} (var {s['share_var']:.6g})"))
        out.print(escape(f"TV(sum of {s['n']} shares, law) in [{s['tv_sum_vs_law'][0]:.3e}, "
                         f"{s['tv_sum_vs_law'][1]:.3e}]  ({s['seconds']:.2f} s, convolution "
                         "in Arb)"))


def _check_share_work(d, shares: int, dps: int) -> None:
    """Refuse a --shares check that cannot finish in about a minute: the law's table to
    10**-dps (its width is cheap to find) times the 2·bitlen(n) products."""
    import mpmath

    lo, hi, _ = d.exact_support(mpmath.mpf(10) ** -dps, dps=min(dps, 30))
    width, steps = hi - lo + 1, 2 * shares.bit_length()
    law = [checks.opt(n) for n in checks.given("scale", "var", "sigma2", "r", "beta")]
    why = f"use a smaller {' or '.join(law + ['--dps'])}, or fewer --shares"
    if width > MAX_TABLE:
        raise ParameterError(f"{', '.join(law)} with --shares: the certified check would "
                             f"tabulate the law on {width:,} points (to 1e-{dps}), beyond the "
                             f"limit {MAX_TABLE:,}; {why}")
    if width * steps > MAX_TABLE_WORK:
        raise ParameterError(f"--shares {shares:,}: the certified check would take {steps} "
                             f"products of {width:,} points, beyond the limit of "
                             f"{MAX_TABLE_WORK:,} points x products; {why}")


@app.command()
def demo(
    out: str = typer.Option("privtools-report", metavar="DIR", help="report directory"),
    quick: bool = typer.Option(False, help="smaller sample sizes"),
    seed: int = typer.Option(20261122, help="seed for all sampling (0 to 2**63 - 1)"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
):
    """Check the noise library end to end and write a report (Markdown + PNG).

    For each distributed mechanism of paper 000 (Pólya shares -> discrete Laplace,
    Thm 1; Skellam shares, Thm 2; discrete-Gaussian shares, Thm 4) at n users: the exact
    law of the summed shares (Arb convolution) against the closed form, a G-test of
    simulated batch sums against the exact law, G-tests of the integer-only samplers, and
    the symbolic proofs of the closed forms."""
    out = checks.out_dir("out", out)
    checks.seed("seed", seed)
    from privtools.demo import run_demo

    summary = run_demo(out, quick=quick, seed=seed, console=None if as_json else Console())
    if as_json:
        print(json.dumps(summary, indent=2, default=str))
    if not summary["all_passed"]:
        raise typer.Exit(1)


@app.command("verify-claims")
def verify_claims(
    full: bool = typer.Option(False, "--full", help="the full grid (default: reduced)"),
    only: list[str] = typer.Option(None, "--only", help="check only these claims"),
    strict: bool = typer.Option(False, help="exit 1 if any claim fails or is inconclusive"),
    as_json: bool = typer.Option(False, "--json", help="machine-readable output"),
):
    """Check paper 000's quantitative claims exactly (certified intervals) on a grid, and
    report where each holds, fails, and with how much slack."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    from verification import claims as registry

    grid = "full" if full else "reduced"
    try:
        chosen = [registry.get(n) for n in only] if only else registry.all_claims()
    except ValueError as exc:
        raise ParameterError(f"--only: {exc}") from None
    total = sum(len(c.grid(grid)) for c in chosen)
    t0 = time.perf_counter()
    results = []
    with Progress(TextColumn("{task.description}"), BarColumn(), TimeElapsedColumn(),
                  console=console, transient=True, disable=as_json) as progress:
        task = progress.add_task("claims", total=total)
        for c in chosen:
            progress.update(task, description=c.name)
            results.append(registry.check(c.name, grid, lambda: progress.advance(task)))
    elapsed = time.perf_counter() - t0
    if as_json:
        print(json.dumps({"grid": grid, "seconds": round(elapsed, 2),
                          "claims": [r.to_dict() for r in results]}, indent=2, default=str))
    else:
        out = Console(width=None if sys.stdout.isatty() else 150)
        t = Table(title=f"paper 000 claims, {grid} grid ({elapsed:.1f} s)")
        for col in ("claim", "source", "points", "status", "worst slack", "slack means"):
            t.add_column(col)
        colour = {"holds": "green", "fails": "red", "inconclusive": "yellow"}
        for r in results:
            st = r.status
            worst = "-" if r.worst_slack is None else f"{r.worst_slack:.4g}"
            counts = {k: sum(row.status == k for row in r.rows) for k in colour}
            label = st if counts[st] == len(r.rows) else f"{st} ({counts[st]}/{len(r.rows)})"
            t.add_row(escape(r.claim.name), escape(r.claim.source), str(len(r.rows)),
                      f"[{colour[st]}]{label}[/{colour[st]}]", worst,
                      escape(r.claim.slack_meaning))
        out.print(t)
        for r in results:
            shown = [row for row in r.rows if row.status != "holds"][:3] or list(r.rows[:1])
            out.print(f"[bold]{escape(r.claim.name)}[/bold] [{colour[r.status]}]{r.status}[/]: "
                      f"{escape(r.claim.statement)}")
            for row in shown:
                params = ", ".join(f"{k}={v}" for k, v in row.params.items())
                out.print(escape(f"   {row.status} at {params}: {row.detail}"), soft_wrap=True)
    if strict and any(r.status != "holds" for r in results):
        raise typer.Exit(1)


_STATUS_COLOUR = {"holds": "green", "fails": "red", "inconclusive": "yellow", "info": "cyan"}


def _plan_table(pl, exact_pl) -> Table:
    t = Table(title=f"plan: Theorem {pl.theorem} (000) — {pl.privacy}, {pl.trust} trust, "
                    f"{pl.secure}")
    t.add_column("parameter")
    t.add_column("value")
    if pl.delta is not None:
        target = ("target (ε, δ)", f"({pl.epsilon}, {float(pl.delta):.3g})")
    else:
        target = (pl.kind.parameter_label, str(pl.epsilon))
    rows = [target, ("n", str(pl.n)), ("T (horizon)", str(pl.horizon)),
            ("p (failure per batch)", str(pl.p))]
    if pl.s is not None:
        rows.append(("s", str(pl.s)))
    if pl.c is not None:
        rows.append(("c (Lemma 5)", str(pl.c)))
    rows += [("g (precision)", str(pl.g)), ("τ (threshold)", str(pl.tau)),
             ("m (modulus)", str(pl.m)), ("bits per user", str(pl.bits)),
             ("share (per user)", str(pl.share)), ("central noise", str(pl.central_noise)),
             ("total noise", f"{pl.total_noise} — {pl.total_noise_note}"),
             ("failure probability", f"<= {pl.failure_probability}"),
             ("τ from", pl.tail_method)]
    if pl.certified_epsilon is not None:
        from privtools.certified.intervals import ends

        lo, hi = ends(pl.certified_epsilon)
        prof = ", ".join(f"{c} batch(es)" + (f" x{j}" if j > 1 else "")
                         for j, c in pl.participations)
        returning = (pl.pool is not None or pl.participations != ((1, 1),)
                     or pl.sampling_rate is not None)
        if pl.sampling_rate is not None:
            rows.append(("client sampling", f"Poisson, q = {pl.sampling_rate}, "
                         f"{pl.participations[0][1]} round(s) (add/remove)"))
        elif returning:
            rows.append(("returning users", (f"pool of {pl.pool}: " if pl.pool else "") + prof))
        d_cert = pl.delta - (pl.participation_failure or 0)
        rows += [("per-batch ε (noise calibrated to)", str(pl.epsilon_view)),
                 (f"{'per-user' if returning else 'per-batch'} ε(δ = {float(d_cert):.3g}), "
                  "certified", f"[{mpmath.nstr(lo, 8)}, {mpmath.nstr(hi, 8)}] (PldAccountant)")]
        if pl.participation_failure:
            rows.append(("profile fails w.p.", f"<= {float(pl.participation_failure):.3g} "
                         "(inside δ)"))
    if pl.user_parameters:
        rows.append(("user-chosen", ", ".join(pl.user_parameters)))
    for k, v in rows:
        t.add_row(escape(k), escape(v))
    return t


def _compare_rows(pl, exact_pl) -> dict | None:
    """τ, m and bits from the theorem's bound and from the exact tail, side by side."""
    if exact_pl is None or exact_pl.tau_bound is None:
        return None
    return {"tau_bound": exact_pl.tau_bound, "tau_exact": exact_pl.tau,
            "m_bound": exact_pl.m_bound, "m_exact": exact_pl.m,
            "bits_bound": exact_pl.bits_bound, "bits_exact": exact_pl.bits,
            "tau_saved": exact_pl.tau_bound - exact_pl.tau, "bits_saved": exact_pl.bits_saved}


# `plan`: the exact tail and verification of an rdp plan work on Sk(0, g²/ε²); their cost
# grows with its variance (1e10: ~5 s, 1e12: ~1 min on 2 cores) and, for the verification
# (Rényi divergences tabulated over the shift), with g (1e4: ~8 s, 3e4: ~25 s, 1e6: memory
# exhausted). Other plans are cheap.
MAX_PLAN_VARIANCE = 10**11
MAX_RDP_G = 50_000
MAX_PARTICIPATIONS = 10**4      # certified composition of up to 10^4 batch views
# Your own --tau beyond this factor of the planned τ has a failure probability ~ p^(τ/τ_plan)
# whose exact value needs billions of bits (τ = 1e11 for Lap_Z(4): memory exhausted).
MAX_TAU_FACTOR = 10**5
MAX_PLAN_DPS = 100
# ε, δ, p, n, horizon, τ and m: the limits of every plan, in privtools.limits (shared with
# the API, the same for every privacy kind)


def _plan_tail_default() -> str:
    """The default ``tail`` of :func:`privtools.planning.plan`, read from its signature (the
    command line and the API share it)."""
    import inspect

    from privtools.planning import plan

    return inspect.signature(plan).parameters["tail"].default


class _PlanCommand(TyperCommand):
    """``plan``'s click command: its help names the default ``--tail`` (the API's)."""

    def format_help(self, ctx, formatter):
        for prm in self.params:
            if prm.name == "tail" and "default:" not in (prm.help or ""):
                prm.help = f"{prm.help} (default: {_plan_tail_default()})"
        return super().format_help(ctx, formatter)


def _check_plan_limits(epsilon, n, horizon, s, c, p, delta, g, tau, m) -> None:
    """Every exact number parsed (:func:`checks.number`), and the limits of a plan
    (:mod:`privtools.limits`: the table :func:`privtools.planning.plan` reads, the same for
    every privacy kind) checked before any work, naming the option."""
    from privtools import limits

    checks.within("epsilon", checks.number("epsilon", epsilon, positive=True), limits.EPSILON)
    checks.within("n", checks.int_range("n", n, 1), limits.N)
    checks.within("horizon", checks.int_range("horizon", horizon, 1), limits.HORIZON)
    checks.number("s", s, positive=True)
    if c is not None:
        checks.number("c", c, positive=True)
    if p is not None:
        checks.within("p", checks.number("p", p, positive=True), limits.P)
    if delta is not None:
        checks.within("delta", checks.number("delta", delta, positive=True), limits.DELTA)
    if g is not None and n * checks.int_range("g", g, 1) + 1 > limits.M.high:
        raise ParameterError(f"--g {g} with --n {n}: the modulus m >= ng + 1 would be above "
                             f"the limit {limits.M.shown_high}: {limits.M.reason}")
    if tau is not None:
        checks.within("tau", checks.int_range("tau", tau, 0), limits.TAU)
    if m is not None:
        checks.within("m", checks.int_range("m", m, 2), limits.M)


def _check_rdp_cost(epsilon, n: int, s, g_user: int | None, verify: bool) -> None:
    """Refuse an rdp plan whose exact tail or verification cannot finish in about a
    minute: Sk(0, g²/ε²) beyond MAX_PLAN_VARIANCE, or (verification) g beyond MAX_RDP_G."""
    from privtools.planning import ceil_sqrt

    eps = checks.number("epsilon", epsilon, positive=True)
    sf = checks.number("s", s, positive=True)
    g = ceil_sqrt(sf * sf * eps * eps * n)
    var = g * g / (eps * eps)
    if g_user is not None:
        checks.at_most("g", g_user, MAX_RDP_G, "the exact Rényi verification of an rdp plan "
                       "tabulates over the shift g (memory and hours beyond it)")
    if verify and g > MAX_RDP_G:
        raise ParameterError(
            f"--epsilon {epsilon} (with --n {n}, --s {s}): the rdp plan's precision g = "
            f"⌈sε√n⌉ = {show_number(g)} is beyond the limit {MAX_RDP_G:,} of its exact Rényi "
            "verification (it tabulates over the shift g); use a smaller --epsilon, --n or "
            "--s, or --no-verify")
    if var > MAX_PLAN_VARIANCE:
        raise ParameterError(
            f"--epsilon {epsilon} (with --n {n}, --s {s}): the rdp plan's noise Sk(0, g²/ε²) "
            f"has variance {show_number(var)}, beyond the limit {MAX_PLAN_VARIANCE:.0e} of its "
            "exact tail and verification (hours of work); use a larger --epsilon, or "
            "--tail bound --no-compare --no-verify for the theorem's formulas only")


@app.command("plan", cls=_PlanCommand)
def plan_command(
    privacy: str = typer.Option("pure-dp", help="pure-dp | rdp | cdp"),
    epsilon: str = typer.Option(..., help="target ε (decimals are exact: 0.1 means 1/10)"),
    n: int = typer.Option(..., help="users per batch"),
    horizon: int = typer.Option(..., help="horizon T; the failure probability is p = 1/T"),
    s: str = typer.Option("1", help="scale s >= 1 of rdp/cdp plans (g = ⌈sε√n⌉)"),
    trust: str = typer.Option("distributed", help="distributed | central | local"),
    secure: str = typer.Option("secagg", help="secagg | shuffle"),
    tail: str = typer.Option(None, help="bound (the theorem's τ) | exact (certified smallest "
                             "τ); as in privtools.planning.plan"),
    c: str = typer.Option(None, help="Lemma 5's constant (local trust with --tail bound)"),
    p: str = typer.Option(None, help="failure probability per batch (default 1/T)"),
    delta: str = typer.Option(None, help="target δ: rdp/cdp plans are calibrated so the "
                              "certified (ε, δ) (PLD accountant) meets (--epsilon, --delta) and "
                              "the verdict decides exactly that; without it --epsilon is "
                              "Theorem 2's RDP / Theorem 4's CDP parameter (not (ε, δ)-DP; "
                              "converted at δ = p). Pure DP: with --participations / --pool"),
    g: int = typer.Option(None, help="check your own parameters: your precision g (the noise "
                          "stays the plan's, calibrated to ε at the planned g)"),
    tau: int = typer.Option(None, help="check your own parameters: your threshold τ"),
    m: int = typer.Option(None, help="check your own parameters: your modulus m (default "
                          "ng + 2τ + 1)"),
    compare: bool = typer.Option(True, "--compare/--no-compare",
                                 help="show the theorem's τ beside the exact τ"),
    verify: bool = typer.Option(True, "--verify/--no-verify",
                                help="verify the plan exactly (default) or only print it"),
    dps: int = typer.Option(20, help=f"decimal digits of the certified intervals (5 to "
                            f"{MAX_PLAN_DPS})"),
    as_json: bool = typer.Option(False, "--json", help="one JSON object: plan (+ check)"),
    participations: int = typer.Option(1, help="returning users: batches a user may join; "
                                       "the noise is calibrated so the whole run is certified "
                                       "(ε, --delta)-DP per user"),
    pool: int = typer.Option(None, help="returning users: each round's user is drawn from a "
                             "pool of this many people (needs --delta)"),
    sampling: str = typer.Option(None, help="client sampling: 'poisson' — each of --steps "
                                 "rounds takes each client w.p. --q; the noise is calibrated "
                                 "so the run is certified (ε, --delta)-DP per client"),
    q: str = typer.Option(None, help="with --sampling poisson: the sampling rate in (0, 1]"),
    steps: int = typer.Option(None, help="with --sampling poisson: the number of rounds"),
):
    """Plan a batch (g, τ, m, noise) for paper 000's theorems and check it before deploying:
    the exact privacy of the planned view and the exact probability that the analyzer's output
    is off by more than τ/g. A plan that misses its target is flagged in red and the command
    exits with status 1. With --g/--tau/--m it checks your own parameter choices."""
    from privtools.planning import APPROXIMATE_PLANS, KINDS, guarantee, with_parameters
    from privtools.planning import plan as make_plan
    from verification.plan_check import verify_plan

    tail = _plan_tail_default() if tail is None else tail
    if sampling is not None:
        if sampling != "poisson":
            raise ParameterError(f"--sampling must be 'poisson', got {sampling!r}")
        if q is None or steps is None or delta is None:
            raise ParameterError("--sampling poisson needs --q, --steps and --delta")
        checks.int_range("steps", steps, 1, MAX_PARTICIPATIONS)
        if participations != 1 or pool is not None:
            raise ParameterError("--sampling replaces --participations / --pool")
    elif q is not None or steps is not None:
        raise ParameterError("--q and --steps apply with --sampling poisson only")
    returning = participations != 1 or pool is not None or sampling is not None
    checks.int_range("participations", participations, 1, MAX_PARTICIPATIONS)
    if pool is not None:
        checks.int_range("pool", pool, 1, 2**62)
        if delta is None:
            raise ParameterError("--pool needs --delta (the participation profile fails with a "
                                 "small probability that δ must cover)")
    kind = KINDS.get(privacy)      # None for another name: plan() refuses it below
    if kind is not None and kind.pure and not returning:
        checks.refuse(checks.given("delta"), f"applies to {APPROXIMATE_PLANS} only (a {privacy} "
                      "plan has δ = 0), or with --participations / --pool")
    if tail == "bound" and not compare and not verify:
        checks.refuse(checks.given("dps"), "sets the digits of the exact tail and verification: "
                      "it does nothing with --tail bound --no-compare --no-verify")
    checks.int_range("dps", dps, 5, MAX_PLAN_DPS)
    _check_plan_limits(
        epsilon=epsilon, n=n, horizon=horizon, s=s, c=c, p=p, delta=delta, g=g, tau=tau, m=m
    )
    with checks.naming():
        if kind is not None and kind.costly and (tail == "exact" or compare or verify):
            _check_rdp_cost(epsilon, n, s, g if verify else None, verify)
        kwargs = dict(privacy=privacy, epsilon=epsilon, n=n, horizon=horizon, s=s,
                      trust=trust, secure=secure, p=p, c=c, dps=dps)
        if returning:
            if delta is None and (kind is None or kind.needs_delta):
                raise ParameterError(f"--participations needs --delta for {APPROXIMATE_PLANS}")
            kwargs.update(participations=participations, pool=pool,
                          delta=None if delta is None else checks.number("delta", delta,
                                                                         positive=True))
            if sampling is not None:
                kwargs.update(sampling=sampling, steps=steps,
                              q=checks.number("q", q, positive=True))
        elif delta is not None:        # rdp / cdp: calibrated to the certified (ε, δ)
            kwargs.update(delta=checks.number("delta", delta, positive=True))
        pl = make_plan(tail=tail, **kwargs)
        if verify and tau is not None and tau > MAX_TAU_FACTOR * max(pl.tau, 1):
            raise ParameterError(
                f"--tau {tau:,} is more than {MAX_TAU_FACTOR:.0e} times the planned τ = "
                f"{pl.tau:,}: its certified failure probability (about p^(τ/planned τ)) is too "
                "small to represent exactly; use a smaller --tau, or --no-verify")
        exact_pl = None
        if compare:
            exact_pl = pl if tail == "exact" else make_plan(tail="exact", **kwargs)
        pl = with_parameters(pl, g=g, tau=tau, m=m)
        check = verify_plan(pl, dps=dps) if verify else None
        statement = (check.guarantee if check is not None else
                     "(planned, not verified" + (f"; your {', '.join(pl.user_parameters)} are "
                                                 "checked only by the verification"
                                                 if pl.user_parameters else "")
                     + f") {guarantee(pl)}")

    cmp_rows = _compare_rows(pl, exact_pl)
    if as_json:
        print(json.dumps({"guarantee": statement, "plan": pl.to_dict(), "compare": cmp_rows,
                          "check": None if check is None else check.to_dict(),
                          "verdict": None if check is None else check.verdict},
                         indent=2, default=str))
    else:
        out = Console(width=None if sys.stdout.isatty() else 150)
        out.print(f"[bold]guarantee[/bold]: {escape(statement)}", soft_wrap=True)
        out.print(_plan_table(pl, exact_pl))
        if cmp_rows is not None:
            t = Table(title="theorem's bound vs exact tail (same g, same privacy)")
            for col in ("", "bound", "exact", "saving"):
                t.add_column(col, justify="right")
            t.add_row("τ", str(cmp_rows["tau_bound"]), str(cmp_rows["tau_exact"]),
                      str(cmp_rows["tau_saved"]))
            t.add_row("m", str(cmp_rows["m_bound"]), str(cmp_rows["m_exact"]),
                      str(cmp_rows["m_bound"] - cmp_rows["m_exact"]))
            t.add_row("bits per user", str(cmp_rows["bits_bound"]), str(cmp_rows["bits_exact"]),
                      str(cmp_rows["bits_saved"]))
            out.print(t)
        if check is not None:
            t = Table(title=f"exact verification ({check.seconds:.2f} s)")
            for col in ("check", "status", "value", "target", "how"):
                t.add_column(col)
            for f in check.findings:
                colour = _STATUS_COLOUR.get(f.status, "white")
                t.add_row(escape(str(f.name)), f"[{colour}]{f.status}[/{colour}]",
                          escape(str(f.value)), escape(str(f.target)), escape(str(f.detail)))
            out.print(t)
            verdict = escape(check.verdict)
            if check.passed:
                out.print(verdict.replace("PLAN PASSES", "[green]PLAN PASSES[/green]", 1),
                          soft_wrap=True)
            else:
                out.print(verdict.replace("PLAN FAILS", "[bold red]PLAN FAILS[/bold red]", 1),
                          soft_wrap=True)
                for reason in check.reasons:
                    out.print(f"  [red]{escape(reason)}[/red]", soft_wrap=True)
    if check is not None and not check.passed:
        raise typer.Exit(1)


app.command("audit")(audit)
app.command("simulate", cls=SimulateCommand)(simulate)
app.command("account")(account)
app.command("audit-training")(audit_training_command)


def main(argv: list[str] | None = None) -> None:
    """Console entry point (``privtools``, ``python -m privtools.cli``): runs the app through
    its error boundary (:mod:`privtools.cli.boundary`), which exits with 0 (ok), 1 (a check
    failed), 2 (bad input, one line naming the option) or 3 (internal error)."""
    app(args=argv if argv is not None else sys.argv[1:], prog_name="privtools")


if __name__ == "__main__":  # pragma: no cover
    main()
