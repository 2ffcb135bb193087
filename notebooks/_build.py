"""Build the notebooks from their percent-format sources (``notebooks/src/*.py``).

    python notebooks/_build.py            # write notebooks/*.ipynb (no outputs)
    python notebooks/_build.py --execute  # and execute them in place (outputs stored)
    python notebooks/_build.py --check    # exit 1 if a committed notebook's cells differ
                                          # from its source (CI runs this)
    python notebooks/_build.py --execute 08_auditing_your_own_mechanism
                                          # only the named sources (the others, and the
                                          # outputs stored in them, are left alone)

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


def build(execute: bool = False, only=()) -> list[Path]:
    out = []
    for src in sorted((HERE / "src").glob("*.py")):
        if only and src.stem not in only:
            continue
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


def check(here: Path = HERE) -> list[str]:
    """Names of the notebooks whose committed cells (kind and source; outputs ignored) differ
    from what their ``src`` file builds, or that are missing, or that have no source."""
    bad = []
    sources = {src.stem: src for src in sorted((here / "src").glob("*.py"))}
    for stem, src in sources.items():
        path = here / (stem + ".ipynb")
        if not path.exists():
            bad.append(f"{path.name}: missing (build it from {src.name})")
            continue
        want = [(c.cell_type, c.source) for c in _cells(src.read_text())]
        have = [(c.cell_type, c.source) for c in nbformat.read(path, as_version=4).cells]
        if want != have:
            first = next((i for i, (w, h) in enumerate(zip(want, have)) if w != h),
                         min(len(want), len(have)))
            bad.append(f"{path.name}: cell {first} differs from {src.name} "
                       f"({len(have)} cells committed, {len(want)} built)")
    for path in sorted(here.glob("*.ipynb")):
        if path.stem not in sources:
            bad.append(f"{path.name}: no source in notebooks/src")
    return bad


if __name__ == "__main__":
    if "--check" in sys.argv:
        problems = check()
        for line in problems:
            print(line)
        print(f"{len(problems)} notebook(s) out of date" if problems else
              "notebooks match their sources")
        sys.exit(1 if problems else 0)
    names = [a.removesuffix(".py").removesuffix(".ipynb").split("/")[-1] for a in sys.argv[1:]
             if not a.startswith("--")]
    unknown = [n for n in names if not (HERE / "src" / f"{n}.py").exists()]
    if unknown:
        sys.exit(f"no source notebooks/src/<name>.py for: {', '.join(unknown)}")
    for p in build(execute="--execute" in sys.argv, only=names):
        print(p)
