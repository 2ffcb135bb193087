"""The processes of ``mutation_study.py``: the test command cosmic-ray runs per mutant
(runner mode), the tracer plugin of the baseline run, copies of the repository, child
processes and their clean-up, the cosmic-ray sessions and their execution passes."""

from __future__ import annotations

import collections
import hashlib
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

from _mutation_catalog import OPERATORS

REPO = Path(__file__).resolve().parents[1]
COPY_IGNORE = (".venv", ".git", "__pycache__", ".pytest_cache", ".hypothesis", ".benchmarks",
               ".ruff_cache", ".grimp_cache", ".import_linter_cache", "*.egg-info", "*.pyc")
MARK = "mutation-study:"
_RUNNING: list[subprocess.Popen] = []
_ACTIVE: list[Path] = []  # files naming the pytest process group a test command runs
_STOP: list[int] = []  # signals received (the polling loop checks them too)


class StudyError(RuntimeError):
    """A failure that stops the study (bad arguments, failing baseline, tree not restored)."""


def _say(msg: str) -> None:
    print(msg, flush=True)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


# ============================================================== test command (runner mode)
def _run_pytest(root: Path, ids: list[str], timeout: float, env: dict,
                active: Path) -> tuple[int | None, str]:
    """pytest -x on ``ids`` (in order); ``(returncode, output)``, returncode None on timeout.

    The process group of pytest is written to ``active`` while it runs, so that the driver
    can end it when it stops a pass."""
    cmd = [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-p",
           "no:nbmake", "-rfE", "--no-header", *ids]
    proc = subprocess.Popen(cmd, cwd=root, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, start_new_session=True)
    active.write_text(str(proc.pid))
    try:
        out, _ = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError:
            proc.kill()
        out, _ = proc.communicate()
        return None, out.decode("utf-8", "replace")
    finally:
        active.unlink(missing_ok=True)
    return proc.returncode, out.decode("utf-8", "replace")


def run_selected(map_path: Path, mode: str) -> int:
    """The test command of the cosmic-ray sessions: find the applied mutant, run its tests.

    Exit status 0 means the mutant survived, anything else that it was killed."""
    data = json.loads(map_path.read_text())
    root = Path(data["repo"])
    changed = []
    for rel, digest in data["pristine"].items():
        now = _sha((root / rel).read_bytes())
        if now != digest:
            changed.append((rel, now))
    entry = data["mutants"].get(changed[0][1]) if len(changed) == 1 else None
    if entry is not None:
        picks = entry[mode]
    else:  # unmutated tree or an unknown mutant: the whole pool
        picks = list(range(len(data["tests"])))
    ids = [data["tests"][i] for i in picks]
    budget = data["timeout_grace"] + data["timeout_factor"] * sum(
        data["durations"][i] for i in picks)
    env = dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1",
               PYTHONHASHSEED="0")
    t0 = time.monotonic()
    first_failure = ""
    if not ids:
        outcome, rc, out = "not-executed", 0, "no test of the pool executes this code"
    else:
        active = Path(data["active"])
        rc, out = _run_pytest(root, ids, budget, env, active)
        if rc == 4:  # parametrized ids changed under the mutant: run the files instead
            files = list(dict.fromkeys(i.split("::")[0] for i in ids))
            rc, out = _run_pytest(root, files, budget, env, active)
            out = "(test ids not found under this mutant; ran their files)\n" + out
        found = re.search(r"^(?:FAILED|ERROR) (\S+)", out, re.M)
        first_failure = found.group(1) if found else ""
        outcome = {None: "timeout", 0: "survived"}.get(rc, "killed")
        if outcome == "killed" and (rc != 1 or "::" not in first_failure):
            outcome = "killed-collection"  # an import or collection error
    seconds = time.monotonic() - t0
    record = {"mode": mode, "hash": changed[0][1] if len(changed) == 1 else None,
              "outcome": outcome, "rc": rc, "seconds": round(seconds, 2), "tests": len(ids),
              "budget": round(budget, 1), "first_failure": first_failure}
    with open(data["progress"], "a") as fh:
        fh.write(json.dumps(record) + "\n")
    tail = "\n".join(out.strip().splitlines()[-25:])
    print(f"{MARK} outcome={outcome} rc={rc} tests={len(ids)} seconds={seconds:.1f} "
          f"budget={budget:.0f} first_failure={first_failure}\n{tail}")
    return 0 if outcome in ("survived", "not-executed") else 1


# ================================================================= tracer (pytest plugin)
TRACER_PLUGIN = r'''
"""Records, per test, the code objects of the mutated modules it executes.

Caches would hide code from the tests that reuse its results, so before each test the
``functools.lru_cache`` caches of privtools, verification and the tests are cleared, and
every ``cached_property`` of the mutated modules is replaced by a descriptor that computes
once per object as before but charges the code of that computation to every test that
reads the property."""
import functools
import json
import os
import sys
import threading
import time

import pytest

_TARGETS = frozenset(json.loads(os.environ["MUTATION_TRACE_TARGETS"]))
_HITS = {}
_STATE = {"cur": _HITS.setdefault("<startup>", set()), "patched": False}
_CAPTURE = []
_DUR = {}
_FAILED = []
_LRU = []


def _tracer(frame, event, arg):
    code = frame.f_code
    if code.co_filename in _TARGETS:
        _STATE["cur"].add(code)
        for box in _CAPTURE:
            box.add(code)


def _use(name):
    _STATE["cur"] = _HITS.setdefault(name, set())


class _Replayed:
    """A cached property that charges its computation to every reader."""

    def __init__(self, func, name):
        self.func, self.name, self.values = func, name, {}

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        hit = self.values.get(id(obj))
        if hit is None or hit[0] is not obj:
            box = set()
            _CAPTURE.append(box)
            try:
                value = self.func(obj)
            finally:
                _CAPTURE.remove(box)
            hit = self.values[id(obj)] = (obj, value, box)
        _STATE["cur"].update(hit[2])
        for box in _CAPTURE:
            box.update(hit[2])
        return hit[1]

    def __set__(self, obj, value):
        raise AttributeError(self.name)


def _patch():
    """Replace the cached properties of the mutated modules; collect the lru caches."""
    _STATE["patched"] = True
    for mod in list(sys.modules.values()):
        path = getattr(mod, "__file__", None) or ""
        name = getattr(mod, "__name__", "") or ""
        if path in _TARGETS:
            for cls in list(vars(mod).values()):
                if isinstance(cls, type) and cls.__module__ == name:
                    for attr, val in list(vars(cls).items()):
                        if isinstance(val, functools.cached_property):
                            setattr(cls, attr, _Replayed(val.func, attr))
        if name.split(".")[0] in ("privtools", "verification", "tests"):
            for val in list(vars(mod).values()):
                if callable(getattr(val, "cache_clear", None)):
                    _LRU.append(val)


def pytest_configure(config):
    sys.settrace(_tracer)
    threading.settrace(_tracer)


def pytest_collectstart(collector):
    if isinstance(collector, pytest.Module):
        _use("<collect>" + collector.nodeid)


def pytest_collectreport(report):
    if report.failed:
        _FAILED.append(report.nodeid)
    _use("<session>")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    if not _STATE["patched"]:
        _patch()
    for fn in _LRU:
        fn.cache_clear()
    _use(item.nodeid)
    t0 = time.perf_counter()
    yield
    _DUR[item.nodeid] = time.perf_counter() - t0
    _use("<session>")


def pytest_runtest_logreport(report):
    if report.failed:
        _FAILED.append(report.nodeid)


def pytest_sessionfinish(session, exitstatus):
    sys.settrace(None)
    threading.settrace(None)
    hits = {ctx: sorted({(c.co_filename, c.co_firstlineno, c.co_name) for c in codes})
            for ctx, codes in _HITS.items()}
    with open(os.environ["MUTATION_TRACE_OUT"], "w") as fh:
        json.dump({"durations": _DUR, "hits": hits, "failed": _FAILED,
                   "exitstatus": int(exitstatus)}, fh)
'''


# ================================================================================ driver
def _copy_repo(dest: Path) -> None:
    shutil.copytree(REPO, dest, ignore=shutil.ignore_patterns(*COPY_IGNORE), symlinks=True)
    # checked-hash bytecode: unchanged modules load fast, a mutated source never matches
    subprocess.run([sys.executable, "-m", "compileall", "-q", "--invalidation-mode",
                    "checked-hash", "privtools", "verification"], cwd=dest, check=True,
                   stdout=subprocess.DEVNULL)


def _resolve_modules(specs: list[str]) -> list[str]:
    out = []
    for spec in specs:
        path = (REPO / spec).resolve()
        if not path.exists():
            raise StudyError(f"--modules: {spec} does not exist under {REPO}")
        files = sorted(path.rglob("*.py")) if path.is_dir() else [path]
        for f in files:
            if f.suffix != ".py":
                raise StudyError(f"--modules: {spec} is not a Python file")
            out.append(f.relative_to(REPO).as_posix())
    if not out:
        raise StudyError("--modules: no Python files")
    return list(dict.fromkeys(out))


def _resolve_tests(specs: list[str]) -> list[str]:
    out = []
    for spec in specs:
        if not (REPO / spec.split("::")[0]).exists():
            raise StudyError(f"--tests: {spec} does not exist under {REPO}")
        out.append(spec)
    return out


def _checksums(root: Path, modules: list[str]) -> dict[str, str]:
    return {rel: _sha((root / rel).read_bytes()) for rel in modules}


def _tool(name: str) -> str:
    exe = Path(sys.executable).parent / name
    found = str(exe) if exe.exists() else shutil.which(name)
    if not found:
        raise StudyError(f"{name} not found: install cosmic-ray (pip install -e \".[mutation]\")")
    return found


def _spawn(cmd: list[str], cwd: Path, env: dict, log: Path) -> subprocess.Popen:
    fh = open(log, "ab")  # noqa: SIM115 - closed with the process
    proc = subprocess.Popen(cmd, cwd=cwd, env=env, stdout=fh, stderr=subprocess.STDOUT,
                            start_new_session=True)
    proc._log = fh  # type: ignore[attr-defined]
    _RUNNING.append(proc)
    return proc


def _reap(proc: subprocess.Popen) -> int:
    rc = proc.wait()
    proc._log.close()  # type: ignore[attr-defined]
    _RUNNING.remove(proc)
    return rc


def _stop_children() -> None:
    """End the processes this study started: cosmic-ray (and its test command) first, then
    any pytest a test command left behind (recorded in the workers' ``active`` files)."""
    for proc in list(_RUNNING):
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except OSError:
                break
            try:
                proc.wait(timeout=5)
                break
            except subprocess.TimeoutExpired:
                continue
        _RUNNING.remove(proc)
        proc._log.close()  # type: ignore[attr-defined]
    for active in _ACTIVE:
        try:
            pgid = int(active.read_text())
        except (OSError, ValueError):
            continue
        try:
            os.killpg(pgid, signal.SIGKILL)
        except OSError:
            pass
        active.unlink(missing_ok=True)


def _env(root: Path) -> dict:
    return dict(os.environ, PYTHONPATH=str(root), PYTHONDONTWRITEBYTECODE="1",
                PYTHONHASHSEED="0", PYTHONUTF8="1")


# ---------------------------------------------------------------------------- trace
def trace_pool(root: Path, modules: list[str], tests: list[str], work: Path) -> dict:
    """Run the pool once, unmutated, under the tracer; abort if any test fails."""
    (work / "_mutation_trace.py").write_text(TRACER_PLUGIN)
    out = work / "trace.json"
    env = _env(root)
    env["PYTHONPATH"] = f"{root}{os.pathsep}{work}"
    env["MUTATION_TRACE_TARGETS"] = json.dumps([str(root / m) for m in modules])
    env["MUTATION_TRACE_OUT"] = str(out)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:nbmake",
           "-p", "_mutation_trace", "--no-header", *tests]
    proc = _spawn(cmd, root, env, work / "trace.log")
    rc = _reap(proc)
    if rc != 0 or not out.exists():
        tail = "\n".join((work / "trace.log").read_text().splitlines()[-30:])
        raise StudyError(f"the unmutated test pool does not pass (pytest exit {rc}):\n{tail}")
    data = json.loads(out.read_text())
    if data["failed"]:
        raise StudyError(f"the unmutated test pool has failures: {data['failed'][:5]}")
    prefix = str(root) + os.sep
    hits: dict[str, set] = {}
    for ctx, codes in data["hits"].items():
        hits[ctx] = {(f.removeprefix(prefix), line, name) for f, line, name in codes}
    return {"durations": data["durations"], "hits": hits}


# --------------------------------------------------------------------------- session
def _write_config(path: Path, modules: list[str], command: str, timeout: float,
                  exclude_regex: str) -> None:
    import toml

    cfg = {"cosmic-ray": {
        "module-path": modules,
        "timeout": timeout,
        "excluded-modules": [],
        "test-command": command,
        "distributor": {"name": "local"},
        "filters": {"operators-filter": {"exclude-operators": [exclude_regex]}},
    }}
    path.write_text(toml.dumps(cfg))


def _allow_regex() -> str:
    names = "|".join(re.escape(n) for n in sorted(OPERATORS))
    return f"^(?!(?:{names})$)"


def init_session(root: Path, work: Path, name: str, modules: list[str], command: str,
                 timeout: float) -> tuple[Path, Path]:
    config = work / f"{name}.toml"
    session = work / f"{name}.sqlite"
    _write_config(config, modules, command, timeout, _allow_regex())
    env = _env(root)
    for cmd in ([_tool("cosmic-ray"), "init", str(config), str(session)],
                [_tool("cr-filter-operators"), str(session), str(config)]):
        proc = _spawn(cmd, root, env, work / f"{name}.log")
        if _reap(proc) != 0:
            raise StudyError(f"{Path(cmd[0]).name} failed; see {work / name}.log")
    return config, session


def _items(session: Path) -> list:
    from cosmic_ray.work_db import WorkDB, use_db

    with use_db(str(session), WorkDB.Mode.open) as db:
        done = {job for job, _ in db.results}
        return [(item, item.job_id in done) for item in db.work_items]


def _skip(session: Path, reasons: dict[str, str]) -> None:
    from cosmic_ray.work_db import WorkDB, use_db
    from cosmic_ray.work_item import WorkerOutcome, WorkResult

    by_reason = collections.defaultdict(list)
    for job, why in reasons.items():
        by_reason[why].append(job)
    with use_db(str(session), WorkDB.Mode.open) as db:
        for why, jobs in by_reason.items():
            db.set_multiple_results(jobs, WorkResult(output=why,
                                                     worker_outcome=WorkerOutcome.SKIPPED))


def _results(session: Path) -> dict:
    from cosmic_ray.work_db import WorkDB, use_db

    with use_db(str(session), WorkDB.Mode.open) as db:
        return {item.job_id: result for item, result in db.completed_work_items}


def _key(mutation) -> tuple:
    return (str(mutation.module_path), mutation.operator_name, mutation.occurrence)


# ---------------------------------------------------------------------------- exec
def _progress(path: Path, mode: str) -> list[dict]:
    if not path.exists():
        return []
    rows = []
    for line in path.read_text().splitlines():
        try:
            row = json.loads(line)
        except json.JSONDecodeError:
            continue
        if row.get("mode") == mode:
            rows.append(row)
    return rows


def run_pass(label: str, mode: str, workers: list[dict], jobs: list[str], progress: Path,
             started: float, sources: dict[str, str], minutes: float | None = None) -> bool:
    """Run ``cosmic-ray exec`` on every worker's copy; print progress until all finish, or
    until ``minutes`` have passed (then stop, restore the copies and return False)."""
    total = len(jobs)
    if not total:
        _say(f"{label}: nothing to run")
        return True
    procs = []
    for w in workers:
        if not w["jobs"]:
            continue
        cmd = [_tool("cosmic-ray"), "exec", str(w["config"]), str(w["session"])]
        procs.append((w, _spawn(cmd, w["root"], _env(w["root"]), w["log"])))
    t0 = time.monotonic()
    shown = -1
    while any(p.poll() is None for _, p in procs):
        time.sleep(5)
        if _STOP:
            raise KeyboardInterrupt
        if minutes is not None and time.monotonic() - t0 > 60 * minutes:
            _stop_children()
            for w in workers:
                for rel, text in sources.items():
                    (w["root"] / rel).write_bytes(text.encode("utf-8"))
                _check_restored(w)
            rows = _progress(progress, mode)
            _say(f"{label}: stopped after {minutes:g} min with {len(rows)}/{total} mutants "
                 "done; copies restored")
            return False
        rows = _progress(progress, mode)
        if len(rows) != shown and (len(rows) - shown >= 10 or time.monotonic() - t0 > 60
                                   and len(rows) != shown):
            shown = len(rows)
            counts = collections.Counter(r["outcome"] for r in rows)
            elapsed = time.monotonic() - t0
            eta = elapsed / max(1, shown) * (total - shown)
            parts = ", ".join(f"{k} {v}" for k, v in sorted(counts.items()))
            _say(f"  {label}: {shown}/{total} ({parts}); {_clock(elapsed)} in this pass, "
                 f"~{_clock(eta)} left; {_clock(time.monotonic() - started)} total")
    for w, p in procs:
        if _reap(p) != 0:
            tail = "\n".join(w["log"].read_text().splitlines()[-20:])
            raise StudyError(f"cosmic-ray exec failed in {w['root']}:\n{tail}")
        _check_restored(w)
    rows = _progress(progress, mode)
    _say(f"{label}: {len(rows)}/{total} mutants in {_clock(time.monotonic() - t0)}")
    return True


def _check_restored(w: dict) -> None:
    now = _checksums(w["root"], w["modules"])
    if now != w["pristine"]:
        bad = [m for m in now if now[m] != w["pristine"][m]]
        raise StudyError(f"the copy at {w['root']} was NOT restored: {bad}")
