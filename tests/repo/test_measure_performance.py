"""benchmarks/measure_performance.py without running a benchmark: its command line, how it
reads what a benchmark prints, the key figures and the Markdown page it writes, and the
figure check's refusal of quick or failed entries."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "scripts"))

import measure_performance as mp  # noqa: E402 - the driver is imported from benchmarks/
from figures import performance as qf  # noqa: E402 - the figure check's package, in scripts/
from figures.tables import COMMANDS  # noqa: E402

MACHINE = {"platform": "Linux-x", "cpu": "Test CPU", "cores": 2, "python": "3.11.7",
           "numpy": "2.4.6", "scipy": "1.17.1"}


def _entry(figures: str, wall: float, date: str, **kw) -> dict:
    return {"command": "python benchmarks/bench_x.py --json", "figures": figures,
            "wall_s": wall, "machine": MACHINE, "date": date, "ok": True, **kw}


# ------------------------------------------------------------------ command line
def test_unknown_names_exit_2_and_name_the_known_ones(capsys):
    with pytest.raises(SystemExit) as exc:
        mp.parse_args(["--only", "protocol", "no-such-bench"])
    assert exc.value.code == 2
    err = capsys.readouterr().err
    assert "unknown benchmark 'no-such-bench'" in err and "bandits" in err
    with pytest.raises(SystemExit) as exc:
        mp.main(["--quick", "--only", "nope"])
    assert exc.value.code == 2


def test_only_runs_in_registry_order_and_quick_writes_nothing_by_default():
    args = mp.parse_args(["--only", "zcdp-ucb", "sampling", "--quick"])
    assert args.only == ["sampling", "zcdp-ucb"] and args.quick and args.out is None
    assert mp.parse_args([]).only is None


def test_every_benchmark_has_a_runnable_command_and_distinct_name():
    assert len(mp.BY_NAME) == len(mp.BENCHMARKS)
    for b in mp.BENCHMARKS:
        for argv in (b.argv, b.quick):
            assert argv[0] in ("python", "privtools"), b.name
            script = next((a for a in argv if a.endswith(".py") and "/" in a), None)
            assert script is None or (ROOT / script).is_file(), script
        assert b.output in ("json", "wall", "pytest")
        if b.output == "json":
            assert "--json" in b.argv and "--json" in b.quick, b.name


def test_commands_are_shown_from_the_project_root(tmp_path):
    argv = ("python", "benchmarks/bench_sampling.py", "--markdown", "{out}/sampling.md")
    assert mp.shown(argv, ROOT / "docs" / "tables") == (
        "python benchmarks/bench_sampling.py --markdown docs/tables/sampling.md")
    assert mp.shown(("privtools", "demo", "--out", "{tmp}"), ROOT / "docs") == \
        "privtools demo --out DIR"
    run = mp.resolve(argv, tmp_path, tmp_path)
    assert run[0] == sys.executable and run[-1] == f"{tmp_path}/sampling.md"
    assert mp.resolve(argv, ROOT / "docs" / "tables", tmp_path)[-1] == "docs/tables/sampling.md"


# ------------------------------------------------------------------ reading the output
def test_the_json_document_is_read_after_any_preamble():
    assert mp.parse_output("json", 'note: warming up\n{\n "a": 1\n}\n') == {"a": 1}
    assert mp.parse_output("json", '[{"audit": "sampler"}]\n') == [{"audit": "sampler"}]
    with pytest.raises(ValueError, match="no JSON"):
        mp.parse_output("json", "Traceback (most recent call last):\n")
    assert mp.parse_output("pytest", "....\n===== 74 passed in 0.83s =====\n") == {
        "summary": "74 passed in 0.83s"}
    assert mp.parse_output("wall", "anything") == {}


def test_key_figures_keep_the_ratios_against_the_same_run_baseline():
    protocol = {"rows": [
        {"theorem": 1, "n": 10**6, "batch_s": 0.068, "ratio_vs_loop": 256.2},
        {"theorem": 2, "n": 10**6, "batch_s": 0.127, "ratio_vs_loop": 33.4}]}
    assert mp.BY_NAME["protocol"].figures(protocol) == (
        "batch of 10^6 users: 68 ms (Thm 1), 127 ms (Thm 2); 33–256× a per-user loop")
    ucb = {"T": 10**7, "runs": {"adac-ucb": {"seconds": 0.0861}}, "ratio": 126.4}
    assert mp.BY_NAME["zcdp-ucb"].figures(ucb) == (
        "AdaC-UCB, T = 10^7: 0.086 s, 126× a per-round loop")
    assert mp.BY_NAME["demo"].figures({"wall_s": 19.04}) == "wall time 19.0 s"


# ------------------------------------------------------------------ the Markdown page
def test_markdown_names_the_machine_the_command_and_every_benchmark():
    data = {"benchmarks": {
        "zcdp-ucb": _entry("AdaC-UCB: 0.086 s, 126× a per-round loop", 3.21,
                           "2026-01-02T10:00:00+00:00"),
        "protocol": _entry("68 ms | 127 ms", 41.0, "2026-01-01T09:00:00+00:00", quick=True),
        "retired": _entry("old", 1.0, "2026-01-01T08:00:00+00:00")}}
    text = mp.render_markdown(data)
    lines = text.splitlines()
    assert lines[0] == "# Measured performance"
    assert "Test CPU, 2 cores" in text and "`python benchmarks/measure_performance.py`" in text
    assert "2026-01-01 to 2026-01-02" in text
    rows = [ln for ln in lines if ln.startswith("| ") and not ln.startswith("| benchmark")]
    assert [r.split("|")[1].strip() for r in rows] == ["protocol (--quick)", "zcdp-ucb",
                                                       "retired"]
    assert "68 ms \\| 127 ms" in rows[0] and rows[1].endswith("| 3.2 |")
    with pytest.raises(ValueError):
        mp.render_markdown({"benchmarks": {}})


def test_the_markdown_agrees_with_the_registry_command():
    assert COMMANDS["docs/tables/performance.json"] == mp.COMMAND
    assert COMMANDS["docs/tables/performance.md"] == mp.COMMAND


# ------------------------------------------------------------------ the figure check
def test_quick_or_failed_entries_are_refused_by_the_figure_check(monkeypatch):
    good = {"ok": True, "quick": False, "result": {"wall_s": 30.0}, "machine": MACHINE}
    for bad in ({**good, "quick": True}, {**good, "ok": False}):
        monkeypatch.setattr(qf, "doc_json", lambda path, b=bad: {"benchmarks": {"demo": b}})
        with pytest.raises(qf.FigureError, match="--quick or failed"):
            qf.perf("demo")
    monkeypatch.setattr(qf, "doc_json", lambda path: {"benchmarks": {"demo": good}})
    assert qf.perf("demo")["result"]["wall_s"] == 30.0
    with pytest.raises(qf.FigureError, match="--only nope"):
        qf.perf("nope")
