"""Experiments over both bandit families: the runner, the preset registry and the figures. ::

    runner    EnvSpec, Task, make_tasks, run_tasks (serial, processes or Dask; SeedSequence
              seeds), summarize, save_results — factories and simulators are passed as the
              functions themselves
    presets   Preset, PRESETS (every preset of papers 000 and 001, built at import),
              get_preset
    plots     plot_regret: Reg(T)/T against T, one panel per privacy level

This room may import :mod:`~privtools.bandits.se` and :mod:`~privtools.bandits.zcdp`;
they never import it.
"""

from .plots import plot_regret
from .presets import PRESETS, Preset, get_preset
from .runner import (
    COLUMNS,
    EnvSpec,
    Task,
    callable_name,
    make_tasks,
    run_tasks,
    save_results,
    summarize,
)

__all__ = ["COLUMNS", "EnvSpec", "Task", "callable_name", "make_tasks", "run_tasks",
           "save_results", "summarize", "PRESETS", "Preset", "get_preset", "plot_regret"]
