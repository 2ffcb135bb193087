"""The documentation reads cleanly where the README sends its readers: in the repository.

The pages are Markdown that a repository browser renders as it is, so they carry no MyST
role (``{func}`…```, ``{doc}`…```): API names are code spans (the site links them,
``docs/_ext/plain_refs.py``), pages are Markdown links, figures are marked by HTML comments
(``scripts/figures``). Every relative link of a page points at a file of the repository, not
at what the site build generates (the site maps notebook links to its own copies)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
PAGES = sorted([ROOT / "README.md", *(ROOT / "docs").glob("*.md"),
                *(ROOT / "docs" / "guides").glob("*.md")])
ROLE = re.compile(r"\{[a-z][a-z:-]*\}`")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.S | re.M)
LINK = re.compile(r"\]\((?P<target>[^)\s]+)\)")
# written at build time, absent from a clone: a link there is broken in the repository
GENERATED = ("docs/notebooks/", "docs/_build/", "docs/_generated/")


def _prose(page: Path) -> str:
    return FENCE.sub("", page.read_text(encoding="utf-8"))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_page_has_no_role_markup_outside_code_blocks(page):
    assert ROLE.findall(_prose(page)) == []


@pytest.mark.parametrize("page", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_a_pages_relative_links_point_at_files_of_the_repository(page):
    broken = []
    for m in LINK.finditer(_prose(page)):
        target = m["target"].split("#")[0]
        if not target or "://" in target or target.startswith(("mailto:", "#")):
            continue
        path = (page.parent / target).resolve()
        rel = path.relative_to(ROOT).as_posix() if path.is_relative_to(ROOT) else str(path)
        if not path.exists() or rel.startswith(GENERATED):
            broken.append(target)
    assert broken == []


def test_the_role_scan_sees_a_role():
    assert ROLE.findall("see {func}`x` and {doc}`y`, not {z} or `z`") == ["{func}`", "{doc}`"]

