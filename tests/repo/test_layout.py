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

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
MAX_FILES = 12
COMPLEXITY = 10
MAX_COMPLEX = 20


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
