"""Experiment runner, presets, plots, MovieLens instance and the `simulate` command.

Properties: results are bit-identical on one process, two processes and a local Dask
cluster; seeds follow SeedSequence.spawn; the shipped MovieLens table is the documented
derivation of the sha-checked ratings file; the CLI validates before working and stays fast
on the command CI runs."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privtools.bandits.envs import movielens as ml
from privtools.bandits.experiments.presets import PRESETS, get_preset
from privtools.bandits.experiments.runner import (
    COLUMNS,
    EnvSpec,
    default_checkpoints,
    instance_seed,
    make_tasks,
    run_tasks,
    save_results,
    summarize,
    task_seed,
)

ROOT = Path(__file__).resolve().parents[3]


# --- a tiny stand-in policy / environment / simulate (module level: picklable) -----------

@dataclass(frozen=True)
class FakeSpec:
    name: str
    epsilon: float | None = None
    s: int = 1

    @property
    def label(self) -> str:
        return f"{self.name} (s={self.s})" if self.s != 1 else self.name


@dataclass(frozen=True)
class FakeEnv:
    means: tuple
    name: str = "fake"


@dataclass(frozen=True)
class FakeResult:
    checkpoints: np.ndarray
    regret: np.ndarray
    env_name: str


def fake_instance(K, rng):
    return FakeEnv(tuple(rng.uniform(0.25, 0.75, K)))


def fake_simulate(spec, env, horizon, rng=None, *, checkpoints=None):
    """Noisy explore-then-commit: the noise depends on ε, the draws on ``rng`` only."""
    mu = np.asarray(env.means)
    gaps = mu.max() - mu
    explore = min(horizon, 50 * len(mu))
    est = mu + rng.normal(0, 0.1 / (spec.epsilon or 10.0), len(mu))
    a = int(np.argmax(est))
    t = np.asarray(checkpoints, dtype=np.int64)
    reg = np.minimum(t, explore) * gaps.mean() + np.maximum(t - explore, 0) * gaps[a]
    return FakeResult(t, reg, env.name)


FAKE_ENV = EnvSpec("fake", fake_instance, K=5)
FAKE_SPECS = [FakeSpec("a", 0.1), FakeSpec("a", 1.0), FakeSpec("b", 1.0, s=10),
              FakeSpec("np")]


def _fake_tasks(runs=3):
    return make_tasks(FAKE_SPECS, FAKE_ENV, runs, 1000, simulator=fake_simulate)


# --- seeds and tasks -----------------------------------------------------------------------

def test_seeds_are_spawned_children():
    root = np.random.SeedSequence(1234)
    inst_root, task_root = root.spawn(2)
    for i, child in enumerate(inst_root.spawn(4)):
        assert np.array_equal(child.generate_state(4), instance_seed(1234, i).generate_state(4))
    for j, child in enumerate(task_root.spawn(4)):
        assert np.array_equal(child.generate_state(4), task_seed(1234, j).generate_state(4))


def test_make_tasks_run_major_prefix_and_instances():
    t3, t5 = _fake_tasks(3), _fake_tasks(5)
    assert t5[: len(t3)] == t3
    assert [t.index for t in t5] == list(range(len(t5)))
    assert {t.instance for t in t5 if t.run == 4} == {4}
    fixed = EnvSpec("fixed", fake_instance, K=5, random=False)
    assert {t.instance for t in make_tasks(FAKE_SPECS, fixed, 3, 100)} == {0}
    assert FAKE_ENV.factory_name == f"{__name__}.fake_instance"
    assert t3[0].simulator_name == f"{__name__}.fake_simulate"
    # factories and simulators are the functions themselves, never "module:attr" strings
    with pytest.raises(TypeError, match="factory"):
        EnvSpec("fake", f"{__name__}:fake_instance", K=5)
    with pytest.raises(TypeError, match="simulator"):
        make_tasks(FAKE_SPECS, FAKE_ENV, 1, 100, simulator=f"{__name__}:fake_simulate")
    with pytest.raises(ValueError, match="runs"):
        make_tasks(FAKE_SPECS, FAKE_ENV, 0, 100)
    with pytest.raises(ValueError, match="horizon"):
        make_tasks(FAKE_SPECS, FAKE_ENV, 1, 4)


def test_checkpoints():
    c = default_checkpoints(10**6, 10)
    assert c[0] == 10 and c[-1] == 10**6 and np.all(np.diff(c) > 0) and c.dtype == np.int64
    assert default_checkpoints(10, 10).tolist() == [10]


def test_fake_runs_identical_serial_vs_processes_and_prefix():
    tasks = _fake_tasks(3)
    serial = run_tasks(tasks, 7, executor="serial", progress=False)
    with ProcessPoolExecutor(2) as ex:
        par = run_tasks(tasks, 7, executor=ex, progress=False)
    pd.testing.assert_frame_equal(serial, par, check_exact=True)
    assert tuple(serial.columns) == COLUMNS
    # same instance for every policy of a run, different across runs
    short = run_tasks(_fake_tasks(1), 7, executor="serial", progress=False)
    pd.testing.assert_frame_equal(short, serial.iloc[: len(short)], check_exact=True)
    other = run_tasks(tasks, 8, executor="serial", progress=False)
    assert not np.array_equal(other["regret"].to_numpy(), serial["regret"].to_numpy())


def test_summary_and_files(tmp_path):
    df = run_tasks(_fake_tasks(3), 0, executor="serial", progress=False)
    s = summarize(df, preset="fake")
    rows = {(r["policy"], r["epsilon"]): r for r in s["final_time_average_regret"]}
    assert set(rows) == {("a", 0.1), ("a", 1.0), ("b (s=10)", 1.0), ("np", None)}
    assert all(r["runs"] == 3 and r["horizon"] == 1000 for r in rows.values())
    fin = df[(df.t == 1000) & (df.policy == "a") & (df.epsilon == 0.1)]["avg_regret"]
    assert math.isclose(rows[("a", 0.1)]["mean"], fin.mean())
    assert math.isclose(rows[("a", 0.1)]["std"], fin.std(ddof=1))
    paths = save_results(df, s, tmp_path)
    back = pd.read_csv(paths["csv"])
    assert np.array_equal(back["regret"].to_numpy(), df["regret"].to_numpy())
    pd.testing.assert_frame_equal(pd.read_parquet(paths["parquet"]), df, check_exact=True)
    assert json.loads(paths["summary"].read_text())["preset"] == "fake"
    from privtools.bandits.experiments.plots import plot_regret

    png = plot_regret(df, tmp_path / "r.png", title="fake")
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


# --- determinism across executors with the real policies ------------------------------------

def test_identical_on_1_vs_2_processes_vs_dask():
    """Stand-in tasks and the smoke preset's real policies (T = 10^4).
    Dask is used both through ``Client.get_executor()`` and through ``scheduler=ADDRESS``."""
    distributed = pytest.importorskip("distributed",
                                      reason="optional dependency: dask[distributed]")
    p = get_preset("smoke").with_overrides(runs=2, horizon=10_000)
    task_lists = [_fake_tasks(2), make_tasks(p.specs(), p.env, p.runs, p.horizon)]
    ones = [run_tasks(tasks, 11, workers=1, progress=False) for tasks in task_lists]
    twos = [run_tasks(tasks, 11, workers=2, progress=False) for tasks in task_lists]
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        with distributed.Client(cluster) as client:
            dasks = [run_tasks(tasks, 11, executor=client.get_executor(), progress=False)
                     for tasks in task_lists]
        by_address = run_tasks(task_lists[-1], 11, scheduler=cluster.scheduler_address,
                               progress=False)
    for one, two, dask_df in zip(ones, twos, dasks):
        pd.testing.assert_frame_equal(one, two, check_exact=True)
        pd.testing.assert_frame_equal(one, dask_df, check_exact=True)
        assert (one["regret"] >= 0).all()
    pd.testing.assert_frame_equal(ones[-1], by_address, check_exact=True)


# --- presets -------------------------------------------------------------------------------

def test_presets_valid():
    assert {"fig1-easy", "fig1-hard", "fig4", "movielens", "smoke"} <= set(PRESETS)
    for p in PRESETS.values():
        p.validate()
        assert p.K == 10 or p.name.startswith("zcdp")
    assert PRESETS["fig1-easy"].horizon == 10**6 and PRESETS["fig1-hard"].horizon == 10**7
    assert PRESETS["fig1-hard"].env.name == "hard" and PRESETS["fig1-easy"].runs == 20
    assert ("dist-rdp-se", 100) in PRESETS["fig1-easy"].policies
    assert {n for n, _ in PRESETS["fig4"].policies} == {"central-dp-se", "ldp-se", "dist-dp-se",
                                                        "dist-rdp-se", "dist-cdp-se"}
    with pytest.raises(ValueError, match="fig1-easy"):
        get_preset("fig9")
    with pytest.raises(ValueError, match="runs"):
        PRESETS["smoke"].with_overrides(runs=0)
    with pytest.raises(ValueError, match="horizon"):
        PRESETS["smoke"].with_overrides(horizon=9)


def test_preset_specs_build():
    for p in PRESETS.values():
        specs = p.specs()
        labels = [s.label for s in specs]
        assert len(set(zip(labels, [s.epsilon for s in specs]))) == len(specs)


# --- MovieLens -----------------------------------------------------------------------------

def test_movielens_table_offline_and_checked():
    assert ml.table_sha256() == ml.TABLE_SHA256
    readme = (ROOT / "privtools" / "data" / "README.md").read_text()
    assert ml.INTER_SHA256 in readme and ml.TABLE_SHA256 in readme and "Harper" in readme
    for k in (10, 20):
        movies = ml.load_top_counts(k)
        assert len(movies) == k and [m.rank for m in movies] == list(range(1, k + 1))
        assert all(min(m.stars) > 0 for m in movies)
        n = [m.n_ratings for m in movies]
        assert n == sorted(n, reverse=True)
    values, probs = ml.movielens_arms(10)
    assert probs.shape == (10, 5) and np.allclose(probs.sum(axis=1), 1)
    assert values.min() == 0 and values.max() == 1
    assert ml.load_top_counts(1)[0].item_id == 50 and ml.load_top_counts(1)[0].n_ratings == 583
    with pytest.raises(ValueError):
        ml.load_top_counts(21)


def test_derive_top_counts_on_synthetic_inter():
    text = ("user_id:token\titem_id:token\trating:float\ttimestamp:float\n"
            "1\t7\t5\t0\n2\t7\t1\t0\n1\t3\t4\t0\n3\t3\t4\t0\n4\t9\t2\t0\n")
    movies = ml.derive_top_counts(text, 2)
    assert [(m.item_id, m.stars) for m in movies] == [(3, (0, 0, 0, 2, 0)), (7, (1, 0, 0, 0, 1))]
    assert ml.parse_table(ml.format_table(movies)) == movies


@pytest.fixture(scope="session")
def recbole_wheel(tmp_path_factory):
    """The recbole 1.2.1 wheel from PyPI (about 2 MB), which carries MovieLens-100K's ratings;
    the shipped table is derived from it."""
    cache = tmp_path_factory.mktemp("recbole")
    got = subprocess.run([sys.executable, "-m", "pip", "download", "-q", "--no-deps",
                          "recbole==1.2.1", "-d", str(cache)], capture_output=True, text=True)
    wheel = cache / "recbole-1.2.1-py3-none-any.whl"
    if got.returncode != 0 or not wheel.exists():
        pytest.skip("optional dependency: the recbole 1.2.1 wheel could not be downloaded from "
                    f"PyPI ({got.stderr.strip()[-200:]})")
    return wheel


def test_derivation_script_reproduces_shipped_table(recbole_wheel):
    res = subprocess.run([sys.executable, str(ROOT / "scripts" / "derive_movielens.py"),
                          "--wheel", str(recbole_wheel)], capture_output=True, text=True)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "equals the shipped one" in res.stdout


def test_movielens_instance_rewards():
    env = ml.movielens_instance(10)
    assert np.allclose(np.sort(np.asarray(env.means)), np.sort([m.mean_reward for m in
                                                                 ml.load_top_counts(10)]))


# --- CLI -----------------------------------------------------------------------------------

def _app():
    import typer

    from privtools.cli.boundary import BoundaryCommand
    from privtools.cli.simulate import simulate

    app = typer.Typer()
    app.command(cls=BoundaryCommand)(simulate)  # errors become exit codes at the boundary
    return app


def test_cli_bad_input_exits_2_before_work(tmp_path):
    from typer.testing import CliRunner

    runner = CliRunner()
    for args, word in ((["--preset", "nope"], "fig1-easy"), (["--preset", "smoke", "--runs",
                       "0"], "runs"), (["--preset", "smoke", "--horizon", "5"], "horizon")):
        res = runner.invoke(_app(), [*args, "--out", str(tmp_path / "x")])
        assert res.exit_code == 2, res.output
        assert word in res.output
    assert not (tmp_path / "x").exists()


def test_cli_smoke_json(tmp_path):
    from typer.testing import CliRunner

    out = tmp_path / "tmp"
    res = CliRunner().invoke(_app(), ["--preset", "smoke", "--runs", "2", "--horizon",
                                      "20000", "--out", str(out), "--json", "--workers", "2"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["preset"] == "smoke" and summary["runs"] == 2
    assert all(r["runs"] == 2 and r["horizon"] == 20000
               for r in summary["final_time_average_regret"])
    for name in ("results.csv", "results.parquet", "summary.json", "regret.png"):
        assert (out / name).stat().st_size > 0


def test_ci_command_fig1_easy(tmp_path):
    """The command CI runs: `privtools simulate --preset fig1-easy --runs 2 --horizon 100000`
    (its time is measured in benchmarks/bench_bandits.py and by CI itself, not asserted)."""
    from typer.testing import CliRunner

    res = CliRunner().invoke(_app(), ["--preset", "fig1-easy", "--runs", "2", "--horizon",
                                      "100000", "--out", str(tmp_path), "--json",
                                      "--workers", str(min(2, os.cpu_count() or 1))])
    assert res.exit_code == 0, res.output
    assert len(json.loads(res.stdout)["final_time_average_regret"]) == 12
