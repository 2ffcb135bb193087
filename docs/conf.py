"""Sphinx configuration of the privtools documentation site.

Build it with ``python -m sphinx -W --keep-going -n -b html docs docs/_build/html``
(``-W``: every warning fails the build; ``-n``: every unresolved reference warns).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(HERE / "_ext"))

import privtools  # noqa: E402

project = "privtools"
author = "the privtools authors"
copyright = "2026, the privtools authors"  # noqa: A001 - Sphinx's name
release = privtools.__version__
version = release

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.napoleon",
    "sphinx.ext.viewcode",
    "myst_nb",
    "privtools_docs",
    "figure_markers",
    "plain_refs",
]

# The executed notebooks are rendered from their stored outputs (CI executes them with
# nbmake); they are copied here from ../notebooks at every build.
NOTEBOOKS = HERE / "notebooks"
if NOTEBOOKS.exists():
    shutil.rmtree(NOTEBOOKS)
NOTEBOOKS.mkdir()
for nb in sorted((ROOT / "notebooks").glob("[0-9]*.ipynb")):
    # Links into docs/ are written from notebooks/; here they are one level up.
    text = nb.read_text(encoding="utf-8").replace("](../docs/", "](../")
    (NOTEBOOKS / nb.name).write_text(text, encoding="utf-8")
nb_execution_mode = "off"
nb_output_stderr = "remove"

myst_enable_extensions = ["dollarmath", "amsmath", "colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".rst": "restructuredtext", ".md": "myst-nb", ".ipynb": "myst-nb"}
exclude_patterns = ["_build", "tables/figures/**", "**/.ipynb_checkpoints"]
suppress_warnings = ["mystnb.unknown_mime_type"]

autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_typehints_format = "short"
autodoc_default_options = {"members": True, "show-inheritance": True}
autodoc_inherit_docstrings = True
napoleon_numpy_docstring = True
napoleon_google_docstring = False
napoleon_use_rtype = False
# Parameter types in the docstrings are prose ("float in (0, 1), optional"), not names.
napoleon_use_param = False
napoleon_preprocess_types = False

nitpicky = True

html_math_renderer = "mathml"
html_theme = "furo"
html_title = f"privtools {release}"
html_static_path = ["_static"]
html_css_files = ["privtools.css"]
html_favicon = "_static/favicon.svg"
html_show_sourcelink = False

# Types of other libraries are named in signatures but not linked (the build has no network
# for intersphinx inventories); every unresolved name of privtools or verification still
# fails the build.
nitpick_ignore_regex = [
    ("py:(class|obj|data|exc|func|meth)",
     r"(numpy|np|scipy|mpmath|sympy|flint|fractions|collections|typing|hypothesis|pandas"
     r"|matplotlib|dask|distributed|cryptography|randomgen|pytest|typer|pathlib|decimal"
     r"|functools|dataclasses|concurrent|enum|numbers|types|abc|io|os|_io)(\..*)?"),
    ("py:class", r"(Fraction|Generator|SeedSequence|BitGenerator|ndarray|ArrayLike|arb|acb"
                 r"|mpf|mpi|Callable|Iterable|Iterator|Mapping|Sequence|Path|SearchStrategy"
                 r"|ivmpf|Expr|Rational|Integer|Client|DataFrame|Figure|Axes|TextIO)"),
]
