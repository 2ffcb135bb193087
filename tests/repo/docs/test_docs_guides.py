r"""The guides' examples run as written.

* Python: each guide's ```` ```python ```` blocks in one namespace, in order.
* Shell: every ``privtools ...`` command line of a guide's ```` ```bash ```` blocks (``\``
  continuations joined) runs through the app's error boundary in a fresh directory holding
  the guide's files (```` ```{code-block} python ```` blocks with ``:caption: NAME.py``); it
  must not exit 2 (bad input) or 3 (internal error), and a line annotated ``# exit N``
  exits N, any other 0. Guides use modest sizes in these commands so that they run here.

Blocks that need something outside the test machine (a cluster's address) are written as
``{code-block} python`` / ``{code-block} bash`` and are not run here."""

import re
import shlex
from pathlib import Path

import pytest

GUIDES = sorted((Path(__file__).resolve().parents[3] / "docs" / "guides").glob("*.md"))
SHELL_BLOCK = re.compile(r"^```(?:bash|sh|shell)\n(.*?)^```", flags=re.S | re.M)
FILE_BLOCK = re.compile(r"^```\{code-block\} python\n:caption: (\S+\.py)\n\n(.*?)^```",
                        flags=re.S | re.M)


def _commands(guide: Path) -> list[str]:
    """The ``privtools`` command lines of the guide's bash blocks."""
    out = []
    for block in SHELL_BLOCK.findall(guide.read_text()):
        out += [line for line in block.replace("\\\n", " ").splitlines()
                if line.startswith("privtools ")]
    return out


COMMANDS = [(g, line) for g in GUIDES for line in _commands(g)]


def test_every_guide_is_found():
    assert {g.stem for g in GUIDES} >= {"auditing", "testing", "planning", "reproducing-000",
                                         "reproducing-001", "dask"}


@pytest.mark.parametrize("guide", GUIDES, ids=[g.stem for g in GUIDES])
def test_guide_examples_run(guide, capsys):
    blocks = re.findall(r"^```python\n(.*?)^```", guide.read_text(), flags=re.S | re.M)
    if guide.stem == "dask":
        pytest.importorskip("distributed", reason="the dask extra is not installed")
    namespace: dict = {"__name__": f"guide_{guide.stem.replace('-', '_')}"}
    # (functions defined by exec carry the namespace's __name__ as their __module__)
    for block in blocks:
        exec(compile(block, str(guide), "exec"), namespace)  # noqa: S102 - our own docs
    tests = [f for name, f in namespace.items() if name.startswith("test_") and callable(f)
             and getattr(f, "__module__", None) == namespace["__name__"]]
    for test in tests:   # the pytest tests a guide shows are run too
        test()
    assert blocks


def test_the_guides_show_commands():
    assert len(COMMANDS) >= 15
    assert {g.stem for g, _ in COMMANDS} >= {"auditing", "planning", "reproducing-000",
                                            "reproducing-001"}


@pytest.mark.slow
@pytest.mark.parametrize(("guide", "line"), COMMANDS,
                         ids=[f"{g.stem}: {' '.join(shlex.split(line, comments=True)[1:])}"
                              for g, line in COMMANDS])
def test_guide_commands_run(guide, line, tmp_path, monkeypatch):
    from typer.testing import CliRunner

    from privtools.cli import app

    for name, text in FILE_BLOCK.findall(guide.read_text()):
        (tmp_path / name).write_text(text)
    monkeypatch.chdir(tmp_path)
    args = shlex.split(line, comments=True)
    assert args[0] == "privtools"
    res = CliRunner().invoke(app, args[1:])
    shown = f"{line}\n--- exit {res.exit_code}; stderr:\n{res.stderr[-2000:]}"
    assert res.exit_code not in (2, 3), shown
    annotated = re.search(r"#.*\bexit (\d+)", line)
    assert res.exit_code == (int(annotated.group(1)) if annotated else 0), shown
