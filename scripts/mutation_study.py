"""Mutation study of the test suite over ``privtools.noise`` and ``privtools.protocol``.

    python scripts/mutation_study.py [--modules PATH ...] [--tests PATH ...]
        [--sample N --seed S] [--workers W] [--markdown docs/mutation.md] [--json FILE]

Built on cosmic-ray (``pip install -e ".[mutation]"``). The live tree is never mutated: the
repository (without ``.venv``/``.git``/caches) is copied to a temporary directory and every
test run imports the copy (``PYTHONPATH`` first). Steps:

1. *Trace.* The test pool runs once on the unmutated copy (the baseline: every test must
   pass) with a call tracer that records, per test, the code objects of the mutated modules
   it executes (function granularity) and its duration; code run while a test file is
   collected is charged to every test of that file.
2. *Session.* ``cosmic-ray init`` over the modules, then ``cr-filter-operators`` keeps the
   privacy-relevant operators (:data:`OPERATORS`); mutants inside f-strings, ``raise``
   arguments and message/representation functions (:data:`MESSAGE_FUNCTIONS`) are skipped as
   message-only; ``--sample N`` keeps a uniform random sample of the rest (``--seed``).
   Sampled mutants whose AST equals the original's are equivalent by construction and
   those that do not compile are incompetent; neither is run.
3. *Pass 1.* ``cosmic-ray exec`` with a test command that identifies the applied mutant
   (hash of the mutated file) and runs ``pytest -x`` on the tests that executed the
   enclosing function, fastest first, under a per-mutant timeout (``--timeout-factor`` times
   their traced duration plus ``--timeout-grace``). A mutant in module-level code gets every
   test that executes code of its module or of a pool module importing it.
4. *Pass 2* (``--confirm users``, the default). Survivors of pass 1 run again, in a second
   cosmic-ray session, against every pool test that executes any code of their module.
5. *Report.* Killed / survived / timeout (a timeout counts as killed) / incompetent, per
   module and per operator, with the Clopper–Pearson 95 % interval of the kill fraction for
   a sample; survivors with the explanations of ``scripts/mutation_explanations.py``.

The sources of the live tree are hashed before and after; the copy is checked to be
restored after every ``cosmic-ray exec``; any difference aborts loudly.
"""

from __future__ import annotations

import argparse
import ast
import collections
import datetime
import hashlib
import json
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_MODULES = ("privtools/noise", "privtools/protocol")
DEFAULT_TESTS = (
    "tests/test_noise_exact.py",
    "tests/test_noise_float.py",
    "tests/test_noise_sampling.py",
    "tests/test_exact_sampling.py",
    "tests/test_fixed_sampling.py",
    "tests/test_law_contract.py",
    "tests/test_tails.py",
    "tests/test_exact_sum.py",
    "tests/test_divergence.py",
    "tests/test_gaussian_sum_divergence.py",
    "tests/test_plan.py",
    "tests/test_validation.py",
    "tests/test_protocol.py",
    "tests/test_secure.py",
    "tests/test_mutation_kills.py",
)
# Run after every other selected test (see ``Selector._ordered``).
LAST_FILES = ("tests/test_mutation_kills.py",)
COPY_IGNORE = (".venv", ".git", "__pycache__", ".pytest_cache", ".hypothesis", ".benchmarks",
               ".ruff_cache", ".grimp_cache", ".import_linter_cache", "*.egg-info", "*.pyc")

# ------------------------------------------------------------------------ operator set
# (from, to) pairs of cosmic-ray's binary-operator replacement that are kept.
BINARY_SWAPS = (
    ("Add", "Sub"), ("Sub", "Add"),          # sign and offset: t + 1, n·g + 2τ + 1, y − m
    ("Mul", "Div"), ("Div", "Mul"),          # a scale inverted: g/ε, σ²/n, 1/b
    ("Mul", "Add"),                          # a scale turned into a shift: n·g, 2τ
    ("Div", "FloorDiv"), ("FloorDiv", "Div"),  # exact vs floor division
    ("Mod", "FloorDiv"), ("FloorDiv", "Mod"),  # the wrap mod m vs the quotient
    ("Pow", "Mul"),                          # powers: 2**62 limits, squares
    ("LShift", "RShift"), ("RShift", "LShift"),  # powers of two: 2**64 words, bit budgets
)
COMPARISON_SWAPS = (
    ("Lt", "LtE"), ("LtE", "Lt"), ("Gt", "GtE"), ("GtE", "Gt"),  # boundary off by one
    ("Lt", "GtE"), ("LtE", "Gt"), ("Gt", "LtE"), ("GtE", "Lt"),  # comparison negated
    ("Eq", "NotEq"), ("NotEq", "Eq"),
)
UNARY = ("USub_UAdd", "Delete_Not", "Delete_Invert")  # −x → +x, not x → x, ~mask → mask
BOOLEAN = ("ReplaceAndWithOr", "ReplaceOrWithAnd", "ReplaceTrueWithFalse",
           "ReplaceFalseWithTrue", "AddNot")

OPERATORS: dict[str, str] = {"core/NumberReplacer": "number"}
OPERATORS.update({f"core/ReplaceBinaryOperator_{a}_{b}": "arithmetic" for a, b in BINARY_SWAPS})
OPERATORS.update({f"core/ReplaceComparisonOperator_{a}_{b}": "comparison"
                  for a, b in COMPARISON_SWAPS})
OPERATORS.update({f"core/ReplaceUnaryOperator_{u}": "unary" for u in UNARY})
OPERATORS.update({f"core/{b}": "boolean" for b in BOOLEAN})

FAMILIES = {
    "number": "numeric constant c → c + 1 and c − 1 (off-by-one in a sensitivity, modulus, "
              "precision, scale or limit)",
    "arithmetic": "+ ↔ −; × → ÷, ÷ → ×, × → +; ÷ ↔ //; % ↔ //; ** → ×; << ↔ >> "
                  "(signs, inverted scales, rounding, the wrap mod m, powers)",
    "comparison": "< ↔ <=, > ↔ >= (boundary off by one); < → >=, <= → >, > → <=, >= → < "
                  "(negated); == ↔ !=",
    "unary": "−x → +x; `not` and `~` deleted",
    "boolean": "and ↔ or; True ↔ False; `not` added to if/while/assert/ternary conditions",
}
EXCLUDED_OPERATORS = (
    ("other binary pairs (e.g. + → **, × → %, any → & | ^)",
     "mostly type errors or overflows that any test hits; they add volume, not test gaps"),
    ("bitwise & | ^ as sources", "masks and type unions (`int | None`), not arithmetic"),
    ("is / is not", "identity tests against None; not numeric"),
    ("ReplaceUnaryOperator_Delete_USub", "the same program as −x → +x"),
    ("other unary replacements (−x → ~x, not → −, …)", "type errors, not plausible slips"),
    ("ExceptionReplacer", "changes only which exception class is caught"),
    ("RemoveDecorator", "removes @dataclass/@property: every use crashes"),
    ("ZeroIterationForLoop, break ↔ continue", "control flow, not constants or operators"),
    ("VariableReplacer, VariableInserter", "random identifiers; need parameters"),
)
# Functions whose code only formats text (representations and error messages).
MESSAGE_FUNCTIONS = frozenset({
    "__str__", "__repr__", "describe", "_beta_str", "_too_wide", "_too_long", "_missing",
    "_idx",
})
_FUNCTION_NODES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ListComp,
                   ast.SetComp, ast.DictComp, ast.GeneratorExp)
_CODE_NAMES = {ast.Lambda: "<lambda>", ast.ListComp: "<listcomp>", ast.SetComp: "<setcomp>",
               ast.DictComp: "<dictcomp>", ast.GeneratorExp: "<genexpr>"}

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


# ------------------------------------------------------------------ static structure
def _char_to_byte(line: str, col: int) -> int:
    return len(line[:col].encode("utf-8"))


class ModuleIndex:
    """Function-like scopes of one module, to map a mutant's position to a code object."""

    def __init__(self, source: str):
        self.lines = source.splitlines()
        self.tree = ast.parse(source)
        self.scopes = []  # (start, end, key, depth, name)
        self._walk(self.tree, 0, None)
        self.imports = set()
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom):
                mod = node.module or ""
                names = [a.name for a in node.names]
                self.imports.add((node.level, mod, tuple(names)))

    def _walk(self, node, depth, func_name):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, _FUNCTION_NODES):
                first = child.lineno
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                    first = min([child.lineno] + [d.lineno for d in child.decorator_list])
                    name = child.name
                else:
                    name = _CODE_NAMES[type(child)]
                self.scopes.append(((child.lineno, child.col_offset),
                                    (child.end_lineno, child.end_col_offset),
                                    (first, name), depth + 1, name))
                self._walk(child, depth + 1, name)
            else:
                self._walk(child, depth, func_name)

    def scope_chain(self, pos: tuple[int, int]) -> list:
        """Scopes containing ``pos`` (line, character column), innermost first."""
        line, col = pos
        bpos = (line, _char_to_byte(self.lines[line - 1], col))
        inside = [s for s in self.scopes if s[0] <= bpos < s[1]]
        return sorted(inside, key=lambda s: -s[3])


def _message_only(tree, pos: tuple[int, int]) -> bool:
    """True when the parso leaf at ``pos`` lies in an f-string, a raise statement's
    expression or a message/representation function."""
    node = tree.get_leaf_for_position(pos, include_prefixes=True)
    while node is not None:
        if node.type in ("fstring", "raise_stmt"):
            return True
        if node.type == "funcdef" and node.name.value in MESSAGE_FUNCTIONS:
            return True
        node = node.parent
    return False


# ------------------------------------------------------------------------ selection
class Selector:
    """Per-mutant test selection from the trace."""

    def __init__(self, trace: dict, tests_order: list[str], modules: list[str], root: Path):
        self.tests = tests_order
        self.index_of = {t: i for i, t in enumerate(tests_order)}
        self.duration = [trace["durations"].get(t, 0.0) for t in tests_order]
        self.by_key: dict[tuple, set[str]] = collections.defaultdict(set)
        self.by_file: dict[str, set[str]] = collections.defaultdict(set)
        for ctx, codes in trace["hits"].items():
            for rel, line, name in codes:
                self.by_key[(rel, line, name)].add(ctx)
                self.by_file[rel].add(ctx)
        self.test_file = collections.defaultdict(list)
        for t in tests_order:
            self.test_file[t.split("::")[0]].append(t)
        self.modules = modules
        self.index = {m: ModuleIndex((root / m).read_text(encoding="utf-8")) for m in modules}
        self.importers = {m: self._importers(m) for m in modules}

    def _importers(self, rel: str) -> set[str]:
        """Modules of the study that import ``rel`` (``from .x import``/``from . import x``
        or by dotted name)."""
        dotted = rel.removesuffix(".py").replace("/", ".")
        pkg, _, stem = dotted.rpartition(".")
        out = {rel}
        for other, idx in self.index.items():
            other_pkg = other.removesuffix(".py").replace("/", ".").rpartition(".")[0]
            for level, mod, names in idx.imports:
                if level == 0:
                    hit = mod == dotted or (mod == pkg and stem in names)
                else:
                    base = other_pkg.rsplit(".", level - 1)[0] if level > 1 else other_pkg
                    full = f"{base}.{mod}" if mod else base
                    hit = full == dotted or (full == pkg and stem in names)
                if hit:
                    out.add(other)
        return out

    def _expand(self, contexts: set[str]) -> set[str]:
        tests = set()
        for ctx in contexts:
            if ctx.startswith("<collect>"):
                tests.update(self.test_file.get(ctx[len("<collect>"):], ()))
            elif not ctx.startswith("<"):
                tests.add(ctx)
        return tests

    def _ordered(self, tests: set[str]) -> list[int]:
        """Fastest first; the tests of :data:`LAST_FILES` after all others, so that a mutant
        they kill first is one that no other selected test kills."""
        idx = [self.index_of[t] for t in tests if t in self.index_of]
        return sorted(idx, key=lambda i: (self.tests[i].split("::")[0] in LAST_FILES,
                                          self.duration[i], i))

    def users(self, rel: str) -> set[str]:
        tests = set()
        for mod in self.importers[rel]:
            tests |= self._expand(self.by_file.get(mod, set()))
        return tests

    def select(self, rel: str, pos: tuple[int, int]) -> tuple[list[int], list[int], str]:
        """(pass-1 tests, pass-2 tests, enclosing scope) for a mutant at ``pos``."""
        chain = self.index[rel].scope_chain(pos)
        users = self.users(rel)
        if not chain:
            return self._ordered(users), self._ordered(users), "<module>"
        first, name = chain[0][2]
        contexts = self.by_key.get((rel, first, name), set())
        tests = self._expand(contexts)
        if contexts & {"<startup>", "<session>"}:
            tests |= users
        return self._ordered(tests), self._ordered(users), name


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


# ------------------------------------------------------------------------- statistics
def clopper_pearson(k: int, n: int, level: float = 0.95) -> tuple[float, float]:
    """Exact two-sided binomial interval for k successes in n trials."""
    from scipy.stats import beta

    if n == 0:
        return 0.0, 1.0
    a = (1 - level) / 2
    lo = 0.0 if k == 0 else float(beta.ppf(a, k, n - k + 1))
    hi = 1.0 if k == n else float(beta.ppf(1 - a, k + 1, n - k))
    return lo, hi


def _explanations() -> dict:
    path = Path(__file__).with_name("mutation_explanations.py")
    if not path.exists():
        return {}
    scope: dict = {}
    exec(compile(path.read_text(encoding="utf-8"), str(path), "exec"), scope)  # noqa: S102
    return scope.get("EXPLANATIONS", {})


# ---------------------------------------------------------------------------- report
def _pct(x: float) -> str:
    return f"{100 * x:.1f} %"


def _fraction_line(k: int, n: int, sampled: bool) -> str:
    if n == 0:
        return "no mutant ran"
    if not sampled:
        return f"{k}/{n} = {_pct(k / n)} (every mutant of the population)"
    lo, hi = clopper_pearson(k, n)
    return f"{k}/{n} = {_pct(k / n)} (Clopper–Pearson 95 %: {_pct(lo)} – {_pct(hi)})"


def _md_code(text: str) -> str:
    text = text.strip().replace("|", "\\|")
    if len(text) > 90:
        text = text[:87] + "…"
    return f"`{text}`" if text else ""


def write_markdown(path: Path, rep: dict) -> None:
    s = rep["summary"]
    lines = [
        "# Mutation study: privtools.noise and privtools.protocol",
        "",
        "How many privacy-relevant mutants of the noise laws, samplers and protocol does the "
        "test suite kill? Generated by `scripts/mutation_study.py` (cosmic-ray "
        f"{rep['cosmic_ray']}); reproduce with",
        "",
        "```",
        rep["command"],
        "```",
        "",
        f"Machine: {rep['machine']['cpu']}, {rep['machine']['cores']} cores, "
        f"{rep['workers']} worker process(es); Python {rep['machine']['python']}, numpy "
        f"{rep['machine']['numpy']}, scipy {rep['machine']['scipy']}. Run of "
        f"{rep['date']}; wall time {_clock(rep['wall_seconds'])} (trace "
        f"{_clock(rep['phase_seconds']['trace'])}, session "
        f"{_clock(rep['phase_seconds']['session'])}, pass 1 "
        f"{_clock(rep['phase_seconds']['pass1'])}, pass 2 "
        f"{_clock(rep['phase_seconds']['pass2'])}).",
        "",
        "## Result",
        "",
        f"* Population: {s['population']} privacy-relevant mutants in "
        f"{len(rep['modules'])} modules ({s['message_only']} more sit in error-message or "
        "representation code and are not counted).",
        f"* Run: {s['sampled']} " + ("(a uniform random sample, seed "
                                     f"{rep['seed']})" if rep["sampled"] else "(all)") + ".",
        f"* Equivalent by construction (same AST as the original): {s['same_ast']}; "
        f"incompetent (do not compile, or cosmic-ray could not run them): "
        f"{s['incompetent']}. Neither enters the fraction.",
        f"* Killed: {s['killed']} (of which {s['timeout']} by timeout — a timeout counts as "
        f"killed — and {s['collection']} by an import or collection error); "
        f"survived: {s['survived']}.",
        f"* **Kill fraction: {_fraction_line(s['killed'], s['killed'] + s['survived'], rep['sampled'])}.**",  # noqa: E501
        f"* Survivors explained as leaving every privacy guarantee intact ({s['explained']}: "
        + (", ".join(f"{n} {c}" for c, n in rep["categories"].items()) or "none")
        + "; see the survivors table) left out: "
        f"{_fraction_line(s['killed'], s['killed'] + s['survived'] - s['explained'], rep['sampled'])}.",  # noqa: E501
        f"* Leaving out only the equivalent, performance, guess, tolerance and message "
        f"survivors (counting the {rep['categories'].get('conservative', 0)} conservative "
        "ones, looser but valid bounds, as survivors): "
        f"{_fraction_line(s['killed'], s['killed'] + s['survived'] - s['explained'] + rep['categories'].get('conservative', 0), rep['sampled'])}.",  # noqa: E501
        "",
        "### Per module",
        "",
        "| module | population | run | killed | survived | timeout | incompetent | kill fraction |",  # noqa: E501
        "|---|---:|---:|---:|---:|---:|---:|---:|",
    ]
    for mod, r in rep["per_module"].items():
        n = r["killed"] + r["survived"]
        frac = _pct(r["killed"] / n) if n else "–"
        lines.append(f"| `{mod}` | {r['population']} | {r['run']} | {r['killed']} | "
                     f"{r['survived']} | {r['timeout']} | {r['incompetent']} | {frac} |")
    lines += ["", "### Per operator family", "",
              "| family | run | killed | survived | timeout | kill fraction |",
              "|---|---:|---:|---:|---:|---:|"]
    for fam, r in rep["per_family"].items():
        n = r["killed"] + r["survived"]
        frac = _pct(r["killed"] / n) if n else "–"
        lines.append(f"| {fam} | {r['run']} | {r['killed']} | {r['survived']} | "
                     f"{r['timeout']} | {frac} |")
    lines += ["", "### Per operator", "", "| operator | run | killed | survived |",
              "|---|---:|---:|---:|"]
    for op, r in rep["per_operator"].items():
        lines.append(f"| `{op}` | {r['run']} | {r['killed']} | {r['survived']} |")
    lines += ["", "## Survivors", ""]
    if not rep["survivors"]:
        lines.append("None.")
    else:
        lines += ["Categories (`scripts/mutation_explanations.py`): *equivalent* — the same "
                  "results for every valid input; *performance* — only time, memory, batch "
                  "sizes or the path taken change; *guess* — only a float starting point or "
                  "window of a certified computation changes, and the certified step still "
                  "proves the result; *tolerance* — the change is below float64 or the "
                  "working precision of the balls; *conservative* — a certified bound gets "
                  "looser and stays valid; *message* — only an error's text changes.", "",
                  "Pass 2 column: whether the survivor also survived every pool test that "
                  "executes its module (no: pass 2 stopped before it).", "",
                  "| where | operator | original → mutated | pass 2 | explanation |",
                  "|---|---|---|---|---|"]
        for sv in rep["survivors"]:
            why = sv["explanation"] or "**not yet explained**"
            if sv["category"]:
                why = f"{sv['category']}: {why}"
            conf = "yes" if sv.get("confirmed") else "no"
            lines.append(f"| `{sv['module']}:{sv['line']}` | {sv['operator']} | "
                         f"{_md_code(sv['original'])} → {_md_code(sv['mutated'])} | {conf} | "
                         f"{why} |")
    new = [m for m in rep["mutants"] if m["first_failure"].startswith(
        "tests/test_mutation_kills.py")]
    if new:
        lines += ["", "## Killed only by tests/test_mutation_kills.py", "",
                  "Its tests run after every other selected test, so no other test of the "
                  "mutant's selection kills these.", "",
                  "| where | operator | original → mutated | test |", "|---|---|---|---|"]
        for m in new:
            lines.append(f"| `{m['module']}:{m['line']}` | {m['operator']} | "
                         f"{_md_code(m['original'])} → {_md_code(m['mutated'])} | "
                         f"`{m['first_failure'].partition('::')[2] or m['first_failure']}` |")
    lines += [
        "", "## Method", "",
        "* **Isolation.** The repository is copied (without `.venv`, `.git` and caches) to a "
        "temporary directory; cosmic-ray mutates the copy and the tests import it "
        "(`PYTHONPATH` first), so the working tree is never mutated. The working tree's "
        "sources are hashed before and after, and the copy is checked to be restored after "
        "every `cosmic-ray exec`.",
        f"* **Test pool** ({len(rep['tests'])} files, {rep['pool_tests']} tests, "
        f"{rep['pool_seconds']:.0f} s traced): " + ", ".join(f"`{t}`" for t in rep["tests"])
        + ".",
        "* **Trace.** The pool runs once unmutated (every test must pass) under a call tracer "
        "that records which functions of the mutated modules each test executes; code run "
        "while a test file is collected is charged to every test of that file, `lru_cache`s "
        "are cleared before each test, and a `cached_property` charges its computation to "
        "every test that reads it.",
        "* **Pass 1.** Each mutant runs `python -m pytest -x -q -p no:cacheprovider -p "
        "no:nbmake` on the "
        "tests that executed its enclosing function (fastest first; a mutant in module-level "
        "code gets every test that executes its module or a module importing it), with a "
        f"timeout of {rep['timeout_factor']:g} × their traced time + "
        f"{rep['timeout_grace']:g} s. Median tests per mutant: {rep['median_tests']}, median "
        f"time: {rep['median_seconds']:.1f} s.",
        "* **Pass 2.** " + (
            "Survivors of pass 1 run again against every pool test that executes any code of "
            f"their module: {rep['pass2']['rerun']} of {rep['pass2']['candidates']} re-run"
            + (f" within the {rep['pass2']['minutes']:g}-minute limit"
               if rep["pass2"]["minutes"] else "")
            + f", {rep['pass2']['killed']} of them killed there."
            if rep["confirm"] == "users" else "Skipped (`--confirm none`)."),
        "* **Message-only code** is not counted: f-strings, `raise` arguments and the "
        "functions " + ", ".join(f"`{f}`" for f in sorted(MESSAGE_FUNCTIONS)) + ".",
        "",
        "### Operators",
        "",
        "| family | mutations |",
        "|---|---|",
    ]
    for fam, text in FAMILIES.items():
        lines.append(f"| {fam} | {text} |")
    lines += ["", "Not used:", ""]
    for what, why in EXCLUDED_OPERATORS:
        lines.append(f"* {what}: {why}.")
    lines.append("")
    path.write_text("\n".join(lines), encoding="utf-8")


# ------------------------------------------------------------------------------- main
def _diff_lines(original: str, mutated: str) -> tuple[int, str, str]:
    a, b = original.splitlines(), mutated.splitlines()
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y:
            return i + 1, x, y
    return 0, "", ""


def study(args: argparse.Namespace) -> dict:
    import cosmic_ray
    import parso
    from _machine import describe  # sibling module
    from cosmic_ray.mutating import mutate_code
    from cosmic_ray.plugins import get_operator

    started = time.monotonic()
    phase = {}
    modules = _resolve_modules(args.modules)
    tests = _resolve_tests(args.tests)
    live_before = _checksums(REPO, modules)
    base = Path(tempfile.mkdtemp(prefix="mutation-study-", dir=args.workdir))
    _say(f"work directory: {base}")
    try:
        root = base / "repo0"
        _say(f"[1/5] copying {REPO} and tracing the test pool ({len(tests)} files)")
        t0 = time.monotonic()
        _copy_repo(root)
        pristine = _checksums(root, modules)
        if pristine != live_before:
            raise StudyError("the working tree changed while it was being copied; rerun")
        trace = trace_pool(root, modules, tests, base)
        order = sorted(trace["durations"])
        pool_seconds = sum(trace["durations"].values())
        phase["trace"] = time.monotonic() - t0
        _say(f"  {len(order)} tests pass unmutated in {pool_seconds:.1f} s (traced)")

        _say("[2/5] cosmic-ray session")
        t0 = time.monotonic()
        selector = Selector(trace, order, modules, root)
        map_path = base / "map0.json"
        command = shlex.join([sys.executable, str(base / "mutation_study.py"), "--_run",
                              str(map_path), "--_mode", "select"])
        shutil.copy2(__file__, base / "mutation_study.py")
        config, session = init_session(root, base, "pass1", modules, command,
                                       args.session_timeout)
        items = _items(session)
        trees = {m: parso.parse((root / m).read_text(encoding="utf-8")) for m in modules}
        population, skip = [], {}
        message_only = 0
        for item, done in items:
            mut = item.mutations[0]
            if done:
                continue
            rel = Path(mut.module_path).as_posix()
            if _message_only(trees[rel], mut.start_pos):
                skip[item.job_id] = "message-only position"
                message_only += 1
                continue
            population.append(item)
        population.sort(key=lambda it: (str(it.mutations[0].module_path),
                                        it.mutations[0].start_pos,
                                        it.mutations[0].operator_name,
                                        it.mutations[0].occurrence))
        if args.sample and args.sample < len(population):
            chosen = random.Random(args.seed).sample(population, args.sample)
        else:
            chosen = list(population)
        chosen_ids = {it.job_id for it in chosen}
        for it in population:
            if it.job_id not in chosen_ids:
                skip[it.job_id] = "not in the sample"
        sources = {m: (root / m).read_text(encoding="utf-8") for m in modules}
        asts = {m: ast.dump(ast.parse(src)) for m, src in sources.items()}
        mutants, entries = [], {}
        for it in sorted(chosen, key=lambda it: (str(it.mutations[0].module_path),
                                                 it.mutations[0].start_pos)):
            mut = it.mutations[0]
            rel = Path(mut.module_path).as_posix()
            op = get_operator(mut.operator_name)(**(mut.operator_args or {}))
            code = mutate_code(sources[rel], op, mut.occurrence)
            line, orig_line, new_line = _diff_lines(sources[rel], code or "")
            rec = {"job": it.job_id, "module": rel, "line": mut.start_pos[0],
                   "col": mut.start_pos[1], "operator": mut.operator_name,
                   "family": OPERATORS[mut.operator_name], "occurrence": mut.occurrence,
                   "original": orig_line, "mutated": new_line, "status": None,
                   "first_failure": "", "seconds": None, "tests": None, "scope": None}
            if code is None:
                rec["status"] = "incompetent"
                skip[it.job_id] = "no mutation applied"
            else:
                try:
                    same = ast.dump(ast.parse(code)) == asts[rel]
                    compile(code, rel, "exec")
                except (SyntaxError, ValueError):
                    rec["status"] = "incompetent"
                    skip[it.job_id] = "mutant does not compile"
                else:
                    if same:
                        rec["status"] = "same-ast"
                        skip[it.job_id] = "same AST as the original"
                    else:
                        sel, users, scope = selector.select(rel, mut.start_pos)
                        rec["scope"] = scope
                        rec["hash"] = _sha(code.encode("utf-8"))
                        entry = entries.setdefault(rec["hash"], {"select": set(),
                                                                 "users": set()})
                        entry["select"].update(sel)
                        entry["users"].update(users)
            mutants.append(rec)
        _skip(session, skip)
        progress = base / "progress.jsonl"
        mapping = {
            "tests": order,
            "durations": [trace["durations"][t] for t in order],
            "timeout_factor": args.timeout_factor,
            "timeout_grace": args.timeout_grace,
            "progress": str(progress),
            "pristine": pristine,
            "mutants": {h: {k: selector._ordered({order[i] for i in v})
                            for k, v in e.items()} for h, e in entries.items()},
        }
        runnable = [m for m in mutants if m["status"] is None]
        _say(f"  population {len(population)} (+{message_only} message-only); "
             f"running {len(runnable)} of {len(chosen)} chosen "
             f"({sum(m['status'] == 'same-ast' for m in mutants)} same-AST, "
             f"{sum(m['status'] == 'incompetent' for m in mutants)} incompetent)")

        n_workers = max(1, min(args.workers, len(runnable) or 1))
        workers = []
        for w in range(n_workers):
            wroot = base / f"repo{w}"
            if w:
                _copy_repo(wroot)
            wmap = base / f"map{w}.json"
            active = base / f"active{w}"
            _ACTIVE.append(active)
            wmap.write_text(json.dumps(dict(mapping, repo=str(wroot), active=str(active))))
            workers.append({"root": wroot, "map": wmap, "modules": modules,
                            "pristine": pristine, "log": base / f"exec{w}.log", "jobs": []})
        for i, m in enumerate(sorted(runnable, key=lambda m: m["job"])):
            workers[i % n_workers]["jobs"].append(m["job"])

        def prepare(name: str, mode: str, jobs_of: list[list[str]]) -> None:
            for w, jobs in zip(workers, jobs_of):
                w["jobs"] = jobs
                cmd = shlex.join([sys.executable, str(base / "mutation_study.py"), "--_run",
                                  str(w["map"]), "--_mode", mode])
                if name == "pass1" and w is workers[0]:
                    cfg, ses = config, session
                    _write_config(cfg, modules, cmd, args.session_timeout, _allow_regex())
                else:
                    cfg = base / f"{name}-{w['root'].name}.toml"
                    ses = base / f"{name}-{w['root'].name}.sqlite"
                    _write_config(cfg, modules, cmd, args.session_timeout, _allow_regex())
                    shutil.copy2(session, ses)
                keep = set(jobs)
                others = {m["job"]: "run in another pass or worker" for m in runnable
                          if m["job"] not in keep}
                if name != "pass1" or w is not workers[0]:
                    _reset(ses, keep)
                _skip(ses, others)
                w["config"], w["session"] = cfg, ses

        prepare("pass1", "select", [w["jobs"] for w in workers])
        phase["session"] = time.monotonic() - t0

        _say(f"[3/5] pass 1: {len(runnable)} mutants, {n_workers} worker(s)")
        t0 = time.monotonic()
        run_pass("pass 1", "select", workers, [m["job"] for m in runnable], progress, started,
                 sources)
        phase["pass1"] = time.monotonic() - t0
        results = {}
        for w in workers:
            results.update(_results(w["session"]))
        rows = {r["hash"]: r for r in _progress(progress, "select") if r["hash"]}
        survivors = []
        for m in runnable:
            _apply_result(m, results.get(m["job"]), rows.get(m.get("hash")))
            if m["status"] == "survived":
                m["pass2_candidate"] = args.confirm == "users"
                survivors.append(m)

        t0 = time.monotonic()
        if args.confirm == "users" and survivors:
            limit = args.confirm_minutes
            _say(f"[4/5] pass 2: {len(survivors)} survivors against every test that executes "
                 "their module" + (f" (at most {limit:g} min)" if limit else ""))
            split = [[] for _ in workers]
            for i, m in enumerate(survivors):
                split[i % n_workers].append(m["job"])
            prepare("pass2", "users", split)
            run_pass("pass 2", "users", workers, [m["job"] for m in survivors], progress,
                     started, sources, limit or None)
            results = {}
            for w in workers:
                results.update(_results(w["session"]))
            rows = {r["hash"]: r for r in _progress(progress, "users") if r["hash"]}
            for m in survivors:
                _apply_result(m, results.get(m["job"]), rows.get(m.get("hash")), confirm=True)
        else:
            _say("[4/5] pass 2: nothing to confirm" if args.confirm == "users"
                 else "[4/5] pass 2: skipped")
        phase["pass2"] = time.monotonic() - t0
    finally:
        _stop_children()
        if args.keep_workdir:
            _say(f"work directory kept: {base}")
        else:
            shutil.rmtree(base, ignore_errors=True)
    live_after = _checksums(REPO, modules)
    if live_after != live_before:
        bad = [m for m in modules if live_after[m] != live_before[m]]
        raise StudyError(f"sources of the working tree changed during the study: {bad} "
                         "(not by this study, which mutates only its copy; results may be "
                         "stale)")

    _say("[5/5] report")
    summary = collections.Counter()
    per_module = {mod: collections.Counter() for mod in modules}
    for it in population:
        per_module[Path(it.mutations[0].module_path).as_posix()]["population"] += 1
    per_family = {fam: collections.Counter() for fam in FAMILIES}
    per_operator = collections.defaultdict(collections.Counter)
    for m in mutants:
        st = m["status"]
        summary["sampled"] += 1
        for table in (per_module[m["module"]], per_family[m["family"]],
                      per_operator[m["operator"].removeprefix("core/")], summary):
            if st in ("killed", "survived"):
                table["run"] += 1
                table[st] += 1
                table["timeout"] += m["timeout"]
                table["collection"] += m["collection"]
            elif st == "incompetent":
                table["incompetent"] += 1
            elif st == "same-ast":
                table["same_ast"] += 1
    summary["population"] = len(population)
    summary["message_only"] = message_only
    ran = [m for m in mutants if m["status"] in ("killed", "survived") and m["seconds"]]
    seconds = sorted(m["seconds"] for m in ran)
    ntests = sorted(m["tests"] for m in ran)
    argv = [a for a in sys.argv[1:]]
    rep = {
        "command": "python scripts/mutation_study.py" + (" " + shlex.join(argv) if argv
                                                         else ""),
        "cosmic_ray": getattr(cosmic_ray, "__version__", _dist_version("cosmic-ray")),
        "machine": describe(),
        "date": datetime.date.today().isoformat(),
        "workers": n_workers,
        "wall_seconds": time.monotonic() - started,
        "phase_seconds": {k: phase.get(k, 0.0) for k in ("trace", "session", "pass1",
                                                         "pass2")},
        "modules": modules,
        "tests": tests,
        "pool_tests": len(order),
        "pool_seconds": pool_seconds,
        "sampled": bool(args.sample and args.sample < len(population)),
        "seed": args.seed,
        "confirm": args.confirm,
        "timeout_factor": args.timeout_factor,
        "timeout_grace": args.timeout_grace,
        "median_seconds": seconds[len(seconds) // 2] if seconds else 0.0,
        "median_tests": ntests[len(ntests) // 2] if ntests else 0,
        "summary": {k: summary[k] for k in ("population", "message_only", "sampled",
                                            "same_ast", "incompetent", "killed", "survived",
                                            "timeout", "collection")},
        "per_module": {k: {f: v[f] for f in ("population", "run", "killed", "survived",
                                             "timeout", "incompetent")}
                       for k, v in per_module.items()},
        "per_family": {k: {f: v[f] for f in ("run", "killed", "survived", "timeout")}
                       for k, v in per_family.items()},
        "per_operator": {k: {f: v[f] for f in ("run", "killed", "survived")}
                         for k, v in sorted(per_operator.items())},
        "pass2": {"candidates": sum(1 for m in mutants if m.get("pass2_candidate")),
                  "rerun": sum(1 for m in mutants if m.get("confirmed")),
                  "killed": sum(1 for m in mutants if m.get("pass") == 2
                                and m["status"] == "killed"),
                  "minutes": args.confirm_minutes},
        "mutants": mutants,
    }
    return rep


def annotate(rep: dict) -> dict:
    """Attach the explanations of ``scripts/mutation_explanations.py`` to the survivors and
    count them by category (also for a report read back with ``--from-json``)."""
    explain = _explanations()
    categories = collections.Counter()
    for m in rep["mutants"]:
        m["category"], m["explanation"] = "", ""
        if m["status"] == "survived":
            got = explain.get((m["module"], m["line"], m["operator"]))
            if got:
                m["category"], m["explanation"] = got
                if got[0] != "gap":
                    categories[got[0]] += 1
    rep["summary"]["explained"] = sum(categories.values())
    rep["categories"] = dict(sorted(categories.items()))
    rep["survivors"] = [m for m in rep["mutants"] if m["status"] == "survived"]
    return rep


def _dist_version(name: str) -> str:
    from importlib.metadata import version

    return version(name)


def _reset(session: Path, jobs: set[str]) -> None:
    """Drop the results of ``jobs`` so that ``cosmic-ray exec`` runs them again."""
    import sqlite3

    con = sqlite3.connect(session)
    try:
        con.executemany("DELETE FROM work_results WHERE job_id = ?", [(j,) for j in jobs])
        con.commit()
    finally:
        con.close()


def _apply_result(m: dict, result, row: dict | None, confirm: bool = False) -> None:
    """Set a mutant's status from its cosmic-ray result and the test command's record."""
    from cosmic_ray.work_item import TestOutcome, WorkerOutcome

    if confirm and (result is None or result.worker_outcome == WorkerOutcome.SKIPPED):
        m["confirmed"] = False  # pass 2 stopped before this mutant
        return
    m["confirmed"] = confirm
    if result is None or result.worker_outcome in (WorkerOutcome.EXCEPTION,
                                                   WorkerOutcome.ABNORMAL,
                                                   WorkerOutcome.NO_TEST) \
            or result.test_outcome == TestOutcome.INCOMPETENT:
        m["status"] = "incompetent"
        m["timeout"] = m["collection"] = 0
        return
    output = result.output or ""
    m["status"] = "killed" if result.test_outcome == TestOutcome.KILLED else "survived"
    m["timeout"] = int(output == "timeout" or f"{MARK} outcome=timeout" in output)
    m["collection"] = int(f"{MARK} outcome=killed-collection" in output)
    if row:
        m["first_failure"] = row["first_failure"]
        m["seconds"] = row["seconds"] if not confirm else m["seconds"]
        m["tests"] = row["tests"] if not confirm else m["tests"]
        if row["outcome"] == "not-executed":
            m["scope"] = f"{m['scope']} (not executed)"
    m["pass"] = 2 if confirm else 1


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        description="Mutation study (cosmic-ray) of the test suite over privtools.noise and "
                    "privtools.protocol.")
    p.add_argument("--modules", nargs="+", default=list(DEFAULT_MODULES), metavar="PATH",
                   help="files or packages to mutate, relative to the repository "
                        "(default: %(default)s)")
    p.add_argument("--tests", nargs="+", default=list(DEFAULT_TESTS), metavar="PATH",
                   help="the test pool (files or node ids)")
    p.add_argument("--sample", type=int, default=0, metavar="N",
                   help="run a uniform random sample of N mutants (0: all)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sample (default 0)")
    p.add_argument("--workers", type=int, default=1,
                   help="parallel cosmic-ray sessions, each on its own copy (default 1)")
    p.add_argument("--timeout-factor", type=float, default=3.0,
                   help="per-mutant timeout: this times the traced time of its tests ...")
    p.add_argument("--timeout-grace", type=float, default=30.0,
                   help="... plus this many seconds (default 30)")
    p.add_argument("--session-timeout", type=float, default=3600.0,
                   help="cosmic-ray's own timeout per mutant, a safety net (default 3600 s)")
    p.add_argument("--confirm", choices=("users", "none"), default="users",
                   help="pass 2 for survivors: every pool test that executes their module")
    p.add_argument("--confirm-minutes", type=float, default=0.0, metavar="M",
                   help="stop pass 2 after M minutes (0: no limit); survivors it did not "
                        "reach are reported as pass-1 survivors")
    p.add_argument("--markdown", type=Path, metavar="FILE", help="write the report here")
    p.add_argument("--json", type=Path, metavar="FILE", help="write every result here")
    p.add_argument("--workdir", type=Path, default=None,
                   help="parent of the temporary work directory (default: system temp)")
    p.add_argument("--keep-workdir", action="store_true",
                   help="keep the copies and cosmic-ray sessions")
    p.add_argument("--from-json", type=Path, metavar="FILE",
                   help="do not run: re-render the report of a previous --json with the "
                        "current explanations (with --markdown)")
    p.add_argument("--_run", type=Path, help=argparse.SUPPRESS)
    p.add_argument("--_mode", default="select", help=argparse.SUPPRESS)
    return p


def _on_term(signum, frame):
    _STOP.append(signum)
    raise KeyboardInterrupt


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if args._run:
        return run_selected(args._run, args._mode)
    if args.from_json:
        if not args.from_json.exists():
            raise SystemExit(f"--from-json: {args.from_json} does not exist")
        rep = annotate(json.loads(args.from_json.read_text()))
        return _finish(rep, args)
    if args.sample < 0:
        raise SystemExit("--sample must be >= 0")
    if args.workers < 1:
        raise SystemExit("--workers must be >= 1")
    if args.timeout_factor <= 0 or args.timeout_grace < 0:
        raise SystemExit("--timeout-factor must be > 0 and --timeout-grace >= 0")
    try:
        import cosmic_ray  # noqa: F401
    except ImportError:
        raise SystemExit("cosmic-ray is not installed: pip install -e \".[mutation]\"") from None
    sys.path.insert(0, str(Path(__file__).parent))
    signal.signal(signal.SIGTERM, _on_term)
    try:
        rep = study(args)
    except KeyboardInterrupt:
        _stop_children()
        print("interrupted; the working tree was never mutated (only a temporary copy)",
              file=sys.stderr)
        return 130
    except StudyError as exc:
        _stop_children()
        print(f"error: {exc}", file=sys.stderr)
        return 2
    return _finish(annotate(rep), args)


def _finish(rep: dict, args: argparse.Namespace) -> int:
    """Print the totals and survivors; write the JSON and Markdown reports."""
    s = rep["summary"]
    n = s["killed"] + s["survived"]
    _say(f"killed {s['killed']} (timeouts {s['timeout']}), survived {s['survived']}, "
         f"incompetent {s['incompetent']}, same-AST {s['same_ast']}: "
         f"{_fraction_line(s['killed'], n, rep['sampled'])}")
    for sv in rep["survivors"]:
        _say(f"  survivor {sv['module']}:{sv['line']} {sv['operator']}: "
             f"{sv['original'].strip()}  ->  {sv['mutated'].strip()}"
             f"{'  [' + sv['category'] + '] ' + sv['explanation'] if sv['category'] else ''}")
    if args.json:
        args.json.write_text(json.dumps(rep, indent=1, default=str))
        _say(f"wrote {args.json}")
    if args.markdown:
        write_markdown(args.markdown, rep)
        _say(f"wrote {args.markdown}")
    _say(f"wall time {_clock(rep['wall_seconds'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
