"""Experiment runner: many (policy, instance, run) simulations, in parallel, reproducibly.

A :class:`Task` is a small immutable description of one simulation (policy spec,
environment factory, instance index, run index, horizon); :func:`run_tasks` interprets a
list of them on any ``concurrent.futures``-style executor (in-process, local processes or a
Dask cluster) and returns one long-format :class:`pandas.DataFrame`.

Seeds (numpy ``SeedSequence`` discipline): with ``root = SeedSequence(seed)``,

* instance ``i`` is drawn from ``root.spawn(2)[0].spawn(...)[i]``, i.e.
  ``SeedSequence(seed, spawn_key=(0, i))`` — the same instance for every policy;
* task ``j`` (its position in the task list) simulates with
  ``root.spawn(2)[1].spawn(...)[j]`` = ``SeedSequence(seed, spawn_key=(1, j))``.

Both depend only on ``(seed, i)`` or ``(seed, j)``, never on the worker that runs the task
or on the order in which tasks finish, so the DataFrame is bit-identical on one process,
many processes or a cluster. :func:`make_tasks` orders tasks run-major (all policies of run
0, then run 1, ...), so the tasks of a run with ``runs=R`` are a prefix of those with more
runs and reproduce the same numbers.
"""

from __future__ import annotations

import json
import math
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from privtools.errors import ParameterError

from ..runs import default_checkpoints as _run_checkpoints
from ..se import simulate

#: the default simulator: paper 000's batch successive elimination
SIMULATOR = simulate
COLUMNS = ("policy", "algorithm", "epsilon", "s", "env", "instance", "run", "t", "regret",
           "avg_regret")


def callable_name(fn: Callable) -> str:
    """``"module.qualname"`` of a factory or simulator, for display and JSON."""
    return f"{fn.__module__}.{fn.__qualname__}"


def _check_callable(name: str, fn) -> Callable:
    """``fn`` itself when it is callable; ``TypeError`` otherwise. Factories and simulators
    are passed as the functions themselves (module-level functions pickle by reference, so
    process pools and Dask ship them), never as ``"module:attr"`` strings."""
    if not callable(fn):
        raise ParameterError(f"{name} must be a callable (a module-level function), got "
                             f"{type(fn).__name__} {fn!r}")
    return fn


@dataclass(frozen=True)
class EnvSpec:
    """Description of a family of bandit instances: ``factory`` (a module-level function,
    called as ``factory(K, rng)``) draws one instance with ``K`` arms. ``random=False``
    marks a fixed instance (the factory ignores ``rng``), so every run uses instance 0."""

    name: str
    factory: Callable
    K: int = 10
    random: bool = True

    def __post_init__(self):
        _check_callable("EnvSpec.factory", self.factory)

    @property
    def factory_name(self) -> str:
        """The environment factory's importable name (how tasks travel to workers)."""
        return callable_name(self.factory)

    def build(self, rng: np.random.Generator):
        """A fresh environment of ``K`` arms drawn with ``rng``."""
        return self.factory(self.K, rng)


@dataclass(frozen=True)
class Task:
    """One simulation: ``policy`` (a frozen ``PolicySpec``) on instance ``instance`` of
    ``env`` for ``horizon`` rounds; ``index`` is the task's position, which selects its
    random stream; ``simulator`` is the simulate function (a module-level function called as
    ``simulator(policy, env, horizon, rng, checkpoints=...)``)."""

    index: int
    policy: Any
    env: EnvSpec
    instance: int
    run: int
    horizon: int
    simulator: Callable = SIMULATOR

    def __post_init__(self):
        _check_callable("Task.simulator", self.simulator)

    @property
    def simulator_name(self) -> str:
        """The simulator's importable name (how tasks travel to workers)."""
        return callable_name(self.simulator)


def instance_seed(seed: int, instance: int) -> np.random.SeedSequence:
    """Seed of random instance ``instance``: child ``instance`` of ``SeedSequence(seed)``'s
    first child."""
    return np.random.SeedSequence(seed, spawn_key=(0, instance))


def task_seed(seed: int, index: int) -> np.random.SeedSequence:
    """Seed of task ``index``: child ``index`` of ``SeedSequence(seed)``'s second child."""
    return np.random.SeedSequence(seed, spawn_key=(1, index))


def default_checkpoints(horizon: int, K: int = 10, n: int = 40) -> np.ndarray:
    """About ``n`` log-spaced times from ``max(K, 10)`` to ``horizon`` (inclusive), int64."""
    return _run_checkpoints(horizon, count=n, start=max(K, 10))


def make_tasks(specs: Sequence[Any], env: EnvSpec, runs: int, horizon: int, *,
               instances: int | None = None, simulator: Callable = SIMULATOR) -> list[Task]:
    """Tasks for every policy spec × run, run-major. Run ``r`` uses instance
    ``r % instances``; ``instances`` defaults to ``runs`` for a random family (each run on
    its own random instance, as in 000 §7) and to 1 for a fixed instance."""
    if runs < 1:
        raise ParameterError(f"runs must be >= 1; got {runs}")
    if horizon < env.K:
        raise ParameterError(f"horizon must be >= K = {env.K}; got {horizon}")
    if instances is None:
        instances = runs if env.random else 1
    tasks = []
    for r in range(runs):
        for spec in specs:
            tasks.append(Task(len(tasks), spec, env, r % instances, r, int(horizon), simulator))
    return tasks


def _spec_fields(spec) -> dict:
    eps = getattr(spec, "epsilon", None)
    return {
        "policy": str(getattr(spec, "label", spec)),
        "algorithm": str(getattr(spec, "name", "")),
        "epsilon": float("nan") if eps is None else float(eps),
        "s": float(getattr(spec, "s", 1) or 1),
    }


def execute(task: Task, seed: int, checkpoints: np.ndarray | None = None) -> dict:
    """Run one task (in whatever process calls it) and return its regret curve."""
    env = task.env.build(np.random.default_rng(instance_seed(seed, task.instance)))
    rng = np.random.default_rng(task_seed(seed, task.index))
    if checkpoints is None:
        checkpoints = default_checkpoints(task.horizon, task.env.K)
    res = task.simulator(task.policy, env, task.horizon, rng, checkpoints=checkpoints)
    return {
        "index": task.index,
        "t": np.asarray(res.checkpoints, dtype=np.int64),
        "regret": np.asarray(res.regret, dtype=np.float64),
        "env": str(getattr(res, "env_name", getattr(env, "name", task.env.name))),
    }


def _execute_star(args):
    return execute(*args)


class _Serial:
    """In-process executor (``map`` only)."""

    def map(self, fn, *iterables):
        return map(fn, *iterables)


def _progress(total: int, enabled: bool):
    if not enabled:
        return None, lambda: None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )

    bar = Progress(TextColumn("[bold]simulating"), BarColumn(), MofNCompleteColumn(),
                   TimeElapsedColumn(), TimeRemainingColumn(),
                   console=Console(stderr=True), transient=True)
    tid = bar.add_task("tasks", total=total)
    return bar, lambda: bar.advance(tid)


def run_tasks(tasks: Sequence[Task], seed: int, executor=None, progress: bool = True, *,
              workers: int | None = None, scheduler: str | None = None,
              checkpoints: np.ndarray | None = None) -> pd.DataFrame:
    """Run ``tasks`` and return the long-format results (columns :data:`COLUMNS`, one row
    per task and checkpoint, in task order).

    ``executor``: any object with a ``concurrent.futures``-style ``map`` (a
    ``ProcessPoolExecutor``, ``distributed.Client.get_executor()``, ...), or ``"serial"``
    to run in this process. When it is None: a Dask ``Client(scheduler)`` if ``scheduler``
    is given (e.g. ``"tcp://host:8786"``), in-process if ``workers == 1``, else a
    ``ProcessPoolExecutor(max_workers=workers or os.cpu_count())``. Executors created here
    are shut down on return; a passed executor is left open."""
    tasks = list(tasks)
    owned = None
    if executor == "serial" or (executor is None and scheduler is None and workers == 1):
        executor = _Serial()
    elif executor is None and scheduler is not None:
        from distributed import Client

        owned = Client(scheduler)
        executor = owned.get_executor()
    elif executor is None:
        owned = executor = ProcessPoolExecutor(max_workers=workers or os.cpu_count())
    bar, tick = _progress(len(tasks), progress)
    results: list[dict] = []
    try:
        if bar is not None:
            bar.start()
        args = [(t, int(seed), checkpoints) for t in tasks]
        for out in executor.map(_execute_star, args):
            results.append(out)
            tick()
    finally:
        if bar is not None:
            bar.stop()
        if owned is not None:
            (owned.close if hasattr(owned, "get_executor") else owned.shutdown)()
    return _frame(tasks, results)


def _frame(tasks: Sequence[Task], results: Sequence[dict]) -> pd.DataFrame:
    by_index = {r["index"]: r for r in results}
    parts = []
    for task in tasks:
        r = by_index[task.index]
        n = len(r["t"])
        f = _spec_fields(task.policy)
        parts.append(pd.DataFrame({
            "policy": [f["policy"]] * n,
            "algorithm": [f["algorithm"]] * n,
            "epsilon": np.full(n, f["epsilon"]),
            "s": np.full(n, f["s"]),
            "env": [r["env"]] * n,
            "instance": np.full(n, task.instance, dtype=np.int64),
            "run": np.full(n, task.run, dtype=np.int64),
            "t": r["t"],
            "regret": r["regret"],
            "avg_regret": r["regret"] / r["t"],
        }))
    if not parts:
        return pd.DataFrame({c: [] for c in COLUMNS})
    return pd.concat(parts, ignore_index=True)


def final_rows(df: pd.DataFrame) -> pd.DataFrame:
    """The last checkpoint of every (policy, ε, instance, run)."""
    last = df.groupby(["policy", "epsilon", "instance", "run"], dropna=False)["t"].transform("max")
    return df[df["t"] == last]


def summarize(df: pd.DataFrame, **meta) -> dict:
    """Final time-average regret Reg(T)/T per policy and ε: mean, std (ddof=1 when more than
    one run), standard error and number of runs. ``meta`` is stored alongside."""
    rows = []
    fin = final_rows(df)
    for (pol, eps), g in fin.groupby(["policy", "epsilon"], dropna=False, sort=False):
        v = g["avg_regret"].to_numpy()
        std = float(v.std(ddof=1)) if len(v) > 1 else 0.0
        rows.append({
            "policy": pol,
            "algorithm": str(g["algorithm"].iloc[0]),
            "epsilon": None if math.isnan(eps) else float(eps),
            "s": float(g["s"].iloc[0]),
            "horizon": int(g["t"].max()),
            "runs": int(len(v)),
            "mean": float(v.mean()),
            "std": std,
            "se": std / math.sqrt(len(v)),
        })
    return {**meta, "final_time_average_regret": rows}


def save_results(df: pd.DataFrame, summary: dict, out: str | os.PathLike) -> dict[str, Path]:
    """Write ``results.csv``, ``results.parquet`` (when pyarrow is installed) and
    ``summary.json`` into ``out``; return the written paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = {"csv": out / "results.csv", "summary": out / "summary.json"}
    df.to_csv(paths["csv"], index=False)
    try:
        import pyarrow  # noqa: F401
    except ImportError:
        pass
    else:
        paths["parquet"] = out / "results.parquet"
        df.to_parquet(paths["parquet"], index=False)
    paths["summary"].write_text(json.dumps(summary, indent=2, default=_json_default) + "\n")
    return paths


def _json_default(x):
    if isinstance(x, np.generic):
        return x.item()
    if isinstance(x, np.ndarray):
        return x.tolist()
    if isinstance(x, Path):
        return str(x)
    raise TypeError(f"not JSON serializable: {type(x).__name__}")


def instance_means(env: EnvSpec, seed: int, n: int) -> list[list[float]]:
    """Arm means of instances ``0..n-1`` (as :func:`execute` builds them)."""
    out = []
    for i in range(n if env.random else 1):
        e = env.build(np.random.default_rng(instance_seed(seed, i)))
        out.append([float(m) for m in np.asarray(getattr(e, "means", []))])
    return out


__all__ = [
    "COLUMNS",
    "EnvSpec",
    "SIMULATOR",
    "Task",
    "callable_name",
    "default_checkpoints",
    "execute",
    "final_rows",
    "instance_means",
    "instance_seed",
    "make_tasks",
    "run_tasks",
    "save_results",
    "summarize",
    "task_seed",
]
