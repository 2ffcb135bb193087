# %% [markdown]
# # 07 — Scaling out on a Dask cluster
#
# The experiment runner sends (policy × instance × run) tasks to any
# `concurrent.futures`-style executor. Seeds come from `SeedSequence` keyed by the task, so
# the results are bit-identical whether the tasks run in this process, in local processes or
# on a Dask cluster. Here a local cluster of 2 worker processes stands in for a real one;
# `privtools simulate --scheduler tcp://HOST:8786` does the same from the command line.

# %%
import time

from distributed import Client, LocalCluster

from privtools.bandits.experiments.presets import get_preset
from privtools.bandits.experiments.runner import run_tasks

preset = get_preset("fig1-easy").with_overrides(runs=2, horizon=50_000)
tasks = preset.tasks()

t0 = time.perf_counter()
serial = run_tasks(tasks, seed=0, workers=1, progress=False)
t_serial = time.perf_counter() - t0

with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                  dashboard_address=None) as cluster, Client(cluster) as client:
    t0 = time.perf_counter()
    on_dask = run_tasks(tasks, seed=0, scheduler=cluster.scheduler_address, progress=False)
    t_dask = time.perf_counter() - t0

print(f"{len(tasks)} tasks: in-process {t_serial:.1f} s, Dask (2 workers) {t_dask:.1f} s")
print("bit-identical results:", serial.equals(on_dask))
assert serial.equals(on_dask)
