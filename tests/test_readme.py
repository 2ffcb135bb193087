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
