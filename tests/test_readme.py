"""The README's API tour runs as written."""

import re
from pathlib import Path


def test_readme_api_tour_runs():
    text = (Path(__file__).parent.parent / "README.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    assert blocks, "README has no python block"
    namespace: dict = {}
    for block in blocks:
        exec(compile(block, "README.md", "exec"), namespace)  # noqa: S102 - our own docs
    assert namespace["P"].unaccounted < 1e-40


def test_readme_front_door_runs(tmp_path, monkeypatch):
    """The first screen says what the tool is for and gives one command per job — audit
    your mechanism, test it with pytest, check a deployment's parameters — plus the venv
    line; each runs as written (my_dp.py is the README's own) and passes."""
    import shlex

    from typer.testing import CliRunner

    from privtools.cli import app

    text = (Path(__file__).parent.parent / "README.md").read_text()
    head = "\n".join(text.splitlines()[:45])  # the first screen
    assert 'python -m venv .venv && . .venv/bin/activate && python -m pip install -e ".[dev]"' \
        in head
    assert 'python -m pip install -e ".[dev]" && python -m pytest' in text  # (CI greps it)
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
