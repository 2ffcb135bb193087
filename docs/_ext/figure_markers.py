"""The ``{fig}`` role: a figure a page quotes, marked for ``scripts/quoted_figures.py``.

In a page, ``{fig}`3.2 <bench.pld.ratio>``` is the figure 3.2 with the name under which the
figure check's registry knows where it comes from (a recomputation or a generated table).
The site shows the figure alone, as plain text; the name stays in the page's source.
"""

from __future__ import annotations

import re

from docutils import nodes

MARKED = re.compile(r"^(?P<value>.*?)\s*<(?P<name>[^<>]+)>$", flags=re.S)


def fig_role(name, rawtext, text, lineno, inliner, options=None, content=None):
    """Render ``VALUE <NAME>`` as VALUE; a marker without a name is an error."""
    m = MARKED.match(text)
    if m is None:
        msg = inliner.reporter.error(f"{{fig}} needs `VALUE <NAME>`, got {text!r}", line=lineno)
        return [inliner.problematic(rawtext, rawtext, msg)], [msg]
    return [nodes.Text(m.group("value"))], []


def setup(app):
    """Register the role."""
    app.add_role("fig", fig_role)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
