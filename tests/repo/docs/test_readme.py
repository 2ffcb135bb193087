"""The README is a front door whose examples run as written and whose links lead somewhere;
the documentation pages' python examples run as written too."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[3]
README = (ROOT / "README.md").read_text(encoding="utf-8")


PAGES = sorted(p for p in (ROOT / "docs").glob("*.md")
               if "```python" in p.read_text(encoding="utf-8"))


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES, ids=[p.stem for p in PAGES])
def test_the_pages_python_blocks_run(page):
    """Each page's python blocks run as written, in order, in one namespace (the guides'
    are run by tests/repo/docs/test_docs_guides.py)."""
    blocks = re.findall(r"```python\n(.*?)```", page.read_text(encoding="utf-8"), flags=re.S)
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, str(page), "exec"), namespace)  # noqa: S102 - our own docs
    if page.stem == "api-tour":
        assert namespace["P"].unaccounted < 1e-40


def test_the_readme_points_to_the_pages_with_code():
    assert {p.stem for p in PAGES} >= {"api-tour", "accounting", "assertions"}
    assert all(f"docs/{p.name}" in README for p in PAGES)


def test_readme_is_short_and_its_links_lead_to_files_of_the_repository():
    assert len(README.splitlines()) <= 250
    links = [t for t in re.findall(r"\]\(([^)\s]+)\)", README) if "://" not in t]
    assert len(links) >= 15
    for target in links:
        assert (ROOT / target.split("#")[0]).is_file(), target


def test_readme_front_door_runs(tmp_path, monkeypatch):
    """The first screen says what the tool is for and gives one command per job — audit
    your mechanism, test it with pytest, check a deployment's parameters — plus the venv
    line; each runs as written (my_dp.py is the README's own) and passes."""
    import shlex

    from typer.testing import CliRunner

    from privtools.cli import app

    head = "\n".join(README.splitlines()[:45])  # the first screen
    assert 'python -m venv .venv && . .venv/bin/activate && python -m pip install -e ".[dev]"' \
        in head
    assert 'python -m pip install -e ".[dev]" && python -m pytest' in README  # (CI greps it)
    (block,) = re.findall(r"```python\n(.*?)```", head, flags=re.S)
    mechanism = block.split("# test_my_dp.py")[0]
    (tmp_path / "my_dp.py").write_text(mechanism)
    namespace: dict = {}
    exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - our own docs
    namespace["test_release_is_private"]()
    commands = [line for b in re.findall(r"```bash\n(.*?)```", head, flags=re.S)
                for line in b.splitlines() if line.startswith("privtools ")]
    assert [c.split()[1] for c in commands] == ["audit", "plan"]
    monkeypatch.chdir(tmp_path)
    for line in commands:
        res = CliRunner().invoke(app, shlex.split(line)[1:])
        assert res.exit_code == 0, f"{line}\n{res.output[-2000:]}"
