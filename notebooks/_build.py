"""Build the notebooks from their percent-format sources (``notebooks/src/*.py``).

    python notebooks/_build.py            # write notebooks/*.ipynb (no outputs)
    python notebooks/_build.py --execute  # and execute them in place (outputs stored)

Cells are separated by ``# %%`` lines; ``# %% [markdown]`` cells hold Markdown as ``# ``
comment lines. CI executes the .ipynb files with nbmake at reduced sizes; set
``PRIVTOOLS_FULL=1`` for the full sizes.
"""

from __future__ import annotations

import sys
from pathlib import Path

import nbformat

HERE = Path(__file__).parent


def _cells(text: str):
    blocks, kind, lines = [], None, []
    for line in text.splitlines():
        if line.startswith("# %%"):
            if kind is not None:
                blocks.append((kind, lines))
            kind = "markdown" if "[markdown]" in line else "code"
            lines = []
        elif kind is not None:
            lines.append(line)
    if kind is not None:
        blocks.append((kind, lines))
    for kind, body in blocks:
        while body and not body[-1].strip():
            body.pop()
        if kind == "markdown":
            yield nbformat.v4.new_markdown_cell("\n".join(l[2:] if l.startswith("# ") else
                                                          l.lstrip("#") for l in body))
        else:
            yield nbformat.v4.new_code_cell("\n".join(body))


def build(execute: bool = False) -> list[Path]:
    out = []
    for src in sorted((HERE / "src").glob("*.py")):
        nb = nbformat.v4.new_notebook()
        nb.cells = list(_cells(src.read_text()))
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        path = HERE / (src.stem + ".ipynb")
        if execute:
            from nbclient import NotebookClient

            NotebookClient(nb, timeout=1200, kernel_name="python3",
                           resources={"metadata": {"path": str(HERE)}}).execute()
        nbformat.write(nb, path)
        out.append(path)
    return out


if __name__ == "__main__":
    for p in build(execute="--execute" in sys.argv):
        print(p)
