"""Committed notebooks are built from ``notebooks/src`` (``python notebooks/_build.py``); CI
runs ``python notebooks/_build.py --check``, and this test checks that the check works."""

from __future__ import annotations

import shutil
from pathlib import Path

from tests.scripts import load_script

NOTEBOOKS = Path(__file__).resolve().parents[3] / "notebooks"


def _builder():
    return load_script("notebooks/_build.py", "nb_build")


def test_committed_notebooks_match_their_sources():
    assert _builder().check() == []


def test_the_check_sees_an_edited_source(tmp_path):
    build = _builder()
    here = tmp_path / "notebooks"
    shutil.copytree(NOTEBOOKS, here, ignore=shutil.ignore_patterns("*-output", "*.png"))
    src = sorted((here / "src").glob("*.py"))[0]
    src.write_text(src.read_text() + "\n# %%\nprint('a cell the notebook lacks')\n")
    (here / "src" / "99_orphan_source.py").write_text("# %%\nx = 1\n")
    problems = build.check(here)
    assert any(src.stem in p and "differs" in p for p in problems)
    assert any("99_orphan_source" in p and "missing" in p for p in problems)
