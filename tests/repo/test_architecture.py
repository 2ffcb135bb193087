"""The house keeps its shape: properties of the import graph that CI checks on every commit.

The layer order itself is an import-linter contract (``[tool.importlinter]`` in
pyproject.toml, run as ``lint-imports``); these tests add what a layers contract cannot say:

* no import cycle between modules (a package importing its own submodules to re-export them
  is not a cycle);
* the judge (``verification``) imports no private (``_``-prefixed) privtools module or name;
* no module of the project is loaded through ``importlib`` (an import no static tool sees);
* every module is at most ~700 lines, except the engines listed in ``COHESIVE`` (each one
  algorithm that reads best whole).
"""

from __future__ import annotations

import ast
from pathlib import Path

import grimp
import pytest

from privtools.accounting.maps import PRIVACY_MAPS
from privtools.noise import LAWS
from privtools.planning.kinds import KINDS

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("privtools", "verification")
MAX_LINES = 700
COHESIVE: dict[str, str] = {}


def _sources():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py"))


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


@pytest.fixture(scope="module")
def graph():
    return grimp.build_graph(*PACKAGES)


def _cycles(edges: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index, low, on, stack, out, counter = {}, {}, set(), [], [], [0]
    for root in edges:
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    x = stack.pop()
                    on.discard(x)
                    comp.append(x)
                    if x == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def test_cycle_finder_finds_a_cycle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycles_between_modules(graph):
    edges = {}
    for m in graph.modules:
        edges[m] = {t for t in graph.find_modules_directly_imported_by(m)
                    if not t.startswith(m + ".")}
    assert _cycles(edges) == []


def _imports(path: Path):
    tree = ast.parse(path.read_text(), str(path))
    here = _module_name(path)
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                yield node.lineno, a.name, None
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = here.split(".")
                if not is_pkg:
                    parts = parts[:-1]
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join(parts + ([base] if base else []))
            for a in node.names:
                yield node.lineno, base, a.name


def test_the_judge_reads_only_public_privtools_names():
    bad = []
    for path in (ROOT / "verification").rglob("*.py"):
        for line, module, name in _imports(path):
            if not module.startswith("privtools"):
                continue
            private_module = any(p.startswith("_") for p in module.split("."))
            private_name = name is not None and name.startswith("_")
            if private_module or private_name:
                bad.append(f"{path.relative_to(ROOT)}:{line}: {module} {name or ''}")
    assert bad == []


def test_no_importlib_for_project_modules():
    bad = []
    for path in _sources():
        text = path.read_text()
        tree = ast.parse(text, str(path))
        for node in ast.walk(tree):
            if isinstance(node, ast.Call):
                fn = node.func
                called = fn.attr if isinstance(fn, ast.Attribute) else getattr(fn, "id", "")
                if called in ("import_module", "__import__"):
                    arg = node.args[0] if node.args else None
                    literal = arg.value if isinstance(arg, ast.Constant) else None
                    if literal is None or str(literal).split(".")[0] in PACKAGES:
                        bad.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert bad == []


def _repository_python():
    """Every Python file of the repository, tooling and tests included (not the virtual
    environment, builds or caches)."""
    skip = {".venv", "venv", "build", "dist", "_build", ".git", "__pycache__", ".hypothesis"}
    for path in sorted(ROOT.rglob("*.py")):
        if not skip & set(path.relative_to(ROOT).parts):
            yield path


def test_modules_are_small_unless_one_cohesive_engine():
    big = {}
    for path in _repository_python():
        n = len(path.read_text().splitlines())
        name = _module_name(path)
        if n > MAX_LINES and name not in COHESIVE:
            big[name] = n
    assert big == {}


def test_no_wall_clock_in_the_unit_suite():
    """Timing belongs in benchmarks/ (ratios against a baseline measured in the same run); a
    wall-clock assert in a test flakes under load."""
    clocks = ("perf_counter(", "time.time(", "monotonic(", "process_time(")
    bad = [f"{p.relative_to(ROOT)}:{i}" for p in sorted((ROOT / "tests").rglob("*.py"))
           for i, line in enumerate(p.read_text().splitlines(), 1)
           if any(c in line for c in clocks) and "clocks = (" not in line]
    assert bad == []


def test_every_noise_law_has_a_privacy_map_row_and_a_documented_page():
    """Adding a noise law (docs/architecture.md): its module (``privtools.noise.LAWS``), its
    row in the privacy-map table every accountant, the planner and the trace read
    (``privtools.accounting.maps.PRIVACY_MAPS``), and its page (the row's ``docs``)."""
    missing = [law.__name__ for law in LAWS if law not in PRIVACY_MAPS]
    assert missing == [], f"laws without a privacy-map row: {missing}"
    undocumented = []
    for law, row in PRIVACY_MAPS.items():
        assert row.law is law and row.statement
        page = ROOT / row.docs
        if not page.is_file() or law.__name__ not in page.read_text():
            undocumented.append(f"{law.__name__} ({row.docs})")
    assert undocumented == [], f"rows whose law is not documented: {undocumented}"


# ------------------------------------------------------------------ values, not walls
MAX_POSITIONAL = 9


def _positional_walls(tree) -> list[int]:
    return [n.lineno for n in ast.walk(tree)
            if isinstance(n, ast.Call) and len(n.args) > MAX_POSITIONAL
            and not any(isinstance(a, ast.Starred) for a in n.args)]


def test_no_call_passes_ten_or_more_positional_arguments():
    """A call of ten or more positional arguments makes its reader count commas to learn
    which value is which: name them (keywords) or pass a small value."""
    bad = []
    for path in _sources():
        rel = path.relative_to(ROOT).as_posix()
        lines = _positional_walls(ast.parse(path.read_text(), str(path)))
        bad += [f"{rel}:{line}" for line in lines]
    assert bad == []


def test_the_positional_scan_sees_a_wall():
    tree = ast.parse("f(1, 2, 3, 4, 5, 6, 7, 8, 9, 10)\ng(*xs, 1, 2, 3, 4, 5, 6, 7, 8, 9)\n"
                     "h(a=1, b=2, c=3, d=4, e=5, f=6, g=7, h=8, i=9, j=10)")
    assert _positional_walls(tree) == [1]


def _kind_comparisons(tree, kinds) -> list[int]:
    out = []
    for n in ast.walk(tree):
        if not isinstance(n, ast.Compare):
            continue
        sides = [n.left, *n.comparators]
        sides += [e for c in n.comparators if isinstance(c, (ast.Tuple, ast.Set, ast.List))
                  for e in c.elts]
        if any(isinstance(c, ast.Constant) and c.value in kinds for c in sides):
            out.append(n.lineno)
    return out


def test_the_privacy_kind_is_read_from_its_table_not_compared():
    """Every fact of a privacy kind ("pure-dp", "rdp", "cdp") is a field of its PrivacyKind
    (privtools/planning/kinds.py); a comparison with a kind's name elsewhere is a fact of the
    kind said a second time."""
    table = ROOT / "privtools" / "planning" / "kinds.py"
    bad = [f"{path.relative_to(ROOT)}:{line}" for path in _sources() if path != table
           for line in _kind_comparisons(ast.parse(path.read_text(), str(path)), set(KINDS))]
    assert bad == []


def test_the_kind_scan_sees_a_comparison():
    tree = ast.parse('a == "rdp"\nb in ("x", "pure-dp")\nc != "cdp"\nd == "dp-se"\n')
    assert _kind_comparisons(tree, {"pure-dp", "rdp", "cdp"}) == [1, 2, 3]
