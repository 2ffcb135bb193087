"""Support for ``privtools simulate``: its help lists the presets of the registry (read when
the help is shown, never hard-coded), its options are checked before any simulation starts,
and a Dask scheduler is reached with a short connect timeout."""

from __future__ import annotations

import logging

from rich.markup import escape
from typer.core import TyperCommand

from privtools.cli import checks
from privtools.errors import ParameterError

__all__ = ["SimulateCommand", "check_options", "connect_scheduler", "MAX_RUNS", "MAX_HORIZON",
           "MAX_STEPS", "MAX_WORKERS", "SCHEDULER_TIMEOUT"]

MAX_RUNS = 10_000
MAX_HORIZON = 10**9
#: tasks x horizon: fig1-hard (240 tasks, T = 1e7) is 2.4e9 steps, about 25 s on 2 cores;
#: the limit is ten times that (minutes on a laptop, less on a cluster)
MAX_STEPS = 25 * 10**9
MAX_WORKERS = 1024
#: seconds to wait for a Dask scheduler before reporting that it cannot be reached
SCHEDULER_TIMEOUT = 5.0


def _presets() -> dict:
    from privtools.bandits.experiments import PRESETS

    return PRESETS


class SimulateCommand(TyperCommand):
    """``simulate``'s click command: ``--help`` lists every preset with its description."""

    def format_help(self, ctx, formatter):
        base = getattr(self, "_base_help", None)
        if base is None:
            base = self._base_help = self.help or ""
        lines = [f"  {escape(name)}: {escape(p.description)}" for name, p in _presets().items()]
        self.help = base + "\n\nPresets:\n\n" + "\n".join(lines)
        for param in self.params:
            if param.name == "preset":
                param.help = "experiment: one of the presets listed above"
        return super().format_help(ctx, formatter)


def check_options(preset: str, runs, horizon, out, scheduler, workers, seed):
    """The preset with --runs/--horizon applied, after checking every option (ParameterError
    naming the option): known preset, ranges, --workers not with --scheduler, the output
    directory, and the total work within :data:`MAX_STEPS`."""
    presets = _presets()
    if preset not in presets:
        raise ParameterError(f"--preset: unknown preset {preset!r}; choose one of: "
                             f"{', '.join(presets)}")
    checks.int_range("runs", runs, 1, MAX_RUNS)
    checks.int_range("horizon", horizon, 1, MAX_HORIZON)
    checks.int_range("workers", workers, 1, MAX_WORKERS)
    checks.seed("seed", seed)
    if scheduler is not None and workers is not None:
        checks.refuse(["workers"], "does not apply with --scheduler (the cluster's workers run "
                      "the tasks)")
    if scheduler is not None and not scheduler.strip():
        raise ParameterError("--scheduler must be an address such as tcp://host:8786, got an "
                             "empty value")
    checks.out_dir("out", out if out is not None else f"privtools-sim/{preset}")
    with checks.naming():
        p = presets[preset].with_overrides(runs=runs, horizon=horizon)
    steps = len(p.specs()) * p.runs * p.horizon
    if steps > MAX_STEPS:
        names = [checks.opt(n) for n in checks.given("runs", "horizon")] or ["--preset"]
        raise ParameterError(f"{', '.join(names)}: {len(p.specs())} policies x {p.runs} runs x "
                             f"T = {p.horizon:,} is {steps:.3g} simulated steps, beyond the "
                             f"limit {MAX_STEPS:.3g} (hours of work); use fewer --runs or a "
                             "smaller --horizon")
    return p


def connect_scheduler(address: str):
    """A ``distributed.Client`` for ``address``, or ParameterError naming --scheduler when it
    is not an address or cannot be reached within :data:`SCHEDULER_TIMEOUT` seconds."""
    try:
        from distributed import Client
    except ImportError:
        raise ParameterError("--scheduler needs dask.distributed: pip install "
                             "'privtools[dask]'") from None
    quiet = [logging.getLogger(n) for n in ("distributed", "distributed.client")]
    levels = [q.level for q in quiet]
    for q in quiet:
        q.setLevel(logging.CRITICAL)
    try:
        return Client(address, timeout=SCHEDULER_TIMEOUT)
    except ValueError as exc:
        raise ParameterError(f"--scheduler: {address!r} is not a scheduler address ({exc}); "
                             "e.g. tcp://host:8786") from None
    except (OSError, TimeoutError) as exc:
        raise ParameterError(f"--scheduler: cannot connect to {address} within "
                             f"{SCHEDULER_TIMEOUT:g} s ({exc})") from None
    finally:
        for q, lv in zip(quiet, levels):
            q.setLevel(lv)
