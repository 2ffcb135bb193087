"""The guides' Python examples run as written (each guide's blocks in one namespace, in
order). Blocks that need something outside the test machine (a cluster's address, the
reader's own mechanism) are written as ``{code-block} python`` and are not run here."""

import re
from pathlib import Path

import pytest

GUIDES = sorted((Path(__file__).parent.parent / "docs" / "guides").glob("*.md"))


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
