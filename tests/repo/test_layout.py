"""The house's rooms stay cut: rules on folders and functions that CI checks on every commit.

* a folder of ``privtools/``, ``verification/`` or ``tests/`` holds at most
  ``MAX_FILES`` Python files (a room that grows past it is cut into sub-rooms, as
  ``verification/audit/{fixed,events,stats,search,trace}`` and ``privtools/accounting/{pld,rdp}``
  were);
* the tests mirror the code: every test folder below ``tests/privtools`` and
  ``tests/verification`` names a package of the library (``noise/samplers`` tests
  ``privtools/noise/_samplers``);
* functions of McCabe complexity above ``COMPLEXITY`` are few (at most ``MAX_COMPLEX``),
  counted by ruff's ``C901`` so the number is the one a developer sees.
"""

from __future__ import annotations

import ast
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_FILES = 12
COMPLEXITY = 10
MAX_COMPLEX = 10


def _folders(top: str):
    skip = {"__pycache__", "_build", ".hypothesis"}
    for d in sorted([ROOT / top, *(ROOT / top).rglob("*")]):
        if d.is_dir() and not skip & set(d.relative_to(ROOT).parts):
            yield d


@pytest.mark.parametrize("top", ["privtools", "verification", "tests"])
def test_no_folder_holds_more_than_twelve_python_files(top):
    big = {str(d.relative_to(ROOT)): n for d in _folders(top)
           if (n := len(list(d.glob("*.py")))) > MAX_FILES}
    assert big == {}


def test_test_folders_mirror_the_packages():
    orphans = []
    for top in ("privtools", "verification"):
        for d in _folders(f"tests/{top}"):
            rel = d.relative_to(ROOT / "tests")
            code = ROOT / rel
            private = code.parent / f"_{code.name}"
            if not (code.is_dir() or private.is_dir()):
                orphans.append(str(rel))
    assert orphans == []


def _ruff() -> list[str]:
    exe = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    out = subprocess.run(
        [exe, "check", "--select", "C901", "--config",
         f"lint.mccabe.max-complexity={COMPLEXITY}", "--output-format", "json",
         "--no-cache", "privtools", "verification"],
        cwd=ROOT, capture_output=True, text=True, check=False)
    return [f"{Path(d['filename']).relative_to(ROOT)}:{d['location']['row']} {d['message']}"
            for d in json.loads(out.stdout)]


def test_few_functions_are_complex():
    complex_ = _ruff()
    assert len(complex_) <= MAX_COMPLEX, "\n".join(complex_)


# ------------------------------------------------------------------ imports at the top
#: Where a function may import the house's own modules, and why (start-up time only).
LATE_IMPORTS = {
    "privtools/cli/": "start-up time: `privtools --version` and each subcommand load only the "
                      "rooms they run",
    "privtools/testing/__init__.py": "start-up time: the pytest plugin (privtools.testing."
                                     "plugin) loads it in every pytest session, and the judge "
                                     "only when an assertion runs",
    "privtools/bandits/se/users.py": "an optional dependency: its compiled loop "
                                     "(`_users_kernel`) imports numba at its top, and is "
                                     "imported only where numba is installed",
}


def _late_imports(source: str) -> list[int]:
    out = []
    for n in ast.walk(ast.parse(source)):
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for m in ast.walk(n):
                if isinstance(m, ast.ImportFrom) and (m.level > 0 or (m.module or "").split(
                        ".")[0] in ("privtools", "verification")):
                    out.append(m.lineno)
                elif isinstance(m, ast.Import) and any(
                        a.name.split(".")[0] in ("privtools", "verification") for a in m.names):
                    out.append(m.lineno)
    return out


def test_the_house_imports_its_own_modules_at_the_top():
    """A dependency shows at the top of the file that has it; a function imports one of the
    house's modules only where start-up time needs it (``LATE_IMPORTS`` says where)."""
    bad = []
    for top in ("privtools", "verification"):
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if any(rel.startswith(k) for k in LATE_IMPORTS):
                continue
            bad += [f"{rel}:{line}" for line in _late_imports(path.read_text())]
    assert bad == []


def test_the_late_import_scan_sees_one():
    source = ("import privtools\n\ndef f():\n    import numpy\n    from . import x\n\n"
              "def g():\n    import verification.audit\n    from privtools.noise import y\n")
    assert _late_imports(source) == [5, 8, 9]
