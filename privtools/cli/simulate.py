"""``privtools simulate``: run a named experiment preset (000 Fig. 1–4, MovieLens) and write
results (CSV, Parquet), a summary (JSON) and the regret figure (PNG)."""

from __future__ import annotations

import json
import math
import os
import time
from pathlib import Path

import typer
from rich.console import Console
from rich.table import Table

console = Console(stderr=True)


def simulate(
    preset: str = typer.Option(..., help="experiment: fig1-easy, fig1-hard, fig4, movielens, "
                               "smoke"),
    runs: int = typer.Option(None, help="runs per policy and ε (default: the preset's, 20); "
                             "run r uses random instance r"),
    horizon: int = typer.Option(None, help="horizon T (default: the preset's)"),
    out: str = typer.Option(None, metavar="DIR",
                            help="output directory (default ./privtools-sim/PRESET)"),
    scheduler: str = typer.Option(None, help="Dask scheduler address, e.g. tcp://host:8786 "
                                  "(default: local processes)"),
    workers: int = typer.Option(None, help="local worker processes (default: all CPUs; "
                                "1 = in-process)"),
    seed: int = typer.Option(0, help="root seed; results depend only on it, not on workers"),
    as_json: bool = typer.Option(False, "--json", help="print the summary as JSON"),
):
    """Simulate a preset: time-average regret Reg(T)/T of private successive-elimination
    policies, averaged over random instances (results identical for any --workers or
    --scheduler)."""
    from privtools.bandits.experiments.presets import get_preset
    from privtools.bandits.experiments.runner import (
        instance_means,
        run_tasks,
        save_results,
        summarize,
    )

    # every option is checked (errors name it) before any work; a scheduler is reached with
    # a short timeout (privtools.cli.experiments)
    from privtools.cli.experiments import check_options, connect_scheduler

    check_options(preset, runs, horizon, out, scheduler, workers, seed)
    p = get_preset(preset).with_overrides(runs=runs, horizon=horizon)
    out = Path(out) if out is not None else Path("privtools-sim") / p.name
    client = connect_scheduler(scheduler) if scheduler is not None else None

    tasks = p.tasks()
    t0 = time.perf_counter()
    try:
        df = run_tasks(tasks, seed, executor=None if client is None else client.get_executor(),
                       workers=workers, progress=True)
    finally:
        if client is not None:
            client.close()
    elapsed = time.perf_counter() - t0
    summary = summarize(
        df, preset=p.name, description=p.description, env=p.env.name, K=p.K,
        horizon=p.horizon, runs=p.runs, epsilons=list(p.epsilons), seed=seed,
        tasks=len(tasks), workers=workers or (None if scheduler else os.cpu_count()),
        scheduler=scheduler, seconds=round(elapsed, 3),
        instance_means=instance_means(p.env, seed, p.runs))
    paths = save_results(df, summary, out)
    from privtools.bandits.experiments.plots import plot_regret

    paths["png"] = plot_regret(df, out / "regret.png", symbol=p.privacy_symbol,
                                title=f"{p.name}: {p.env.name} instances, K = {p.K}, "
                                f"T = {p.horizon:,}, {p.runs} runs")
    summary["files"] = {k: str(v) for k, v in paths.items()}
    (out / "summary.json").write_text(json.dumps(summary, indent=2) + "\n")

    if as_json:
        print(json.dumps(summary, indent=2))
        return
    _print_table(summary, p.privacy_symbol)


def _print_table(summary: dict, symbol: str = "ε") -> None:
    rows = summary["final_time_average_regret"]
    eps = sorted({r["epsilon"] for r in rows if r["epsilon"] is not None})
    has_np = any(r["epsilon"] is None for r in rows)
    table = Table(title=f"{summary['preset']}: final Reg(T)/T at T = {summary['horizon']:,} "
                  f"(mean ± s.e., {summary['runs']} runs)")
    table.add_column("policy")
    for e in eps:
        table.add_column(f"{symbol} = {e:g}", justify="right")
    if has_np:
        table.add_column(f"no {symbol}", justify="right")
    cells: dict[str, dict] = {}
    for r in rows:
        cells.setdefault(r["policy"], {})[r["epsilon"]] = f"{r['mean']:.4f}±{r['se']:.4f}"
    for pol, c in cells.items():
        table.add_row(pol, *[c.get(e, "") for e in eps], *([c.get(None, "")] if has_np else []))
    out = Console()
    out.print(table)
    secs = summary["seconds"]
    out.print(f"{summary['tasks']} simulations in {secs:.1f} s; files in "
              f"{Path(summary['files']['csv']).parent}")
    if any(math.isnan(r["mean"]) for r in rows):
        out.print("[yellow]some policies produced NaN regret[/yellow]")
