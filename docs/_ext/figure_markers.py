"""The figure markers: a figure a page quotes, marked for ``scripts/quoted_figures.py``.

In a page, ``<!--fig bench.pld.ratio-->3.2<!--/fig-->`` is the figure 3.2 with the name
under which the figure check's registry knows where it comes from (a recomputation or a
generated table). The marker is a pair of HTML comments, so the page reads the same in the
repository as on the site; this extension drops the comments from each page's source before
it is parsed, so the site shows the figure alone, as plain text, and no raw HTML node is left.
"""

from __future__ import annotations

import re

OPEN = re.compile(r"<!--fig [^<>\s]+-->")
CLOSE = "<!--/fig-->"


def drop_markers(app, docname, source):
    """Remove the markers' comments from a page's source, keeping the figures."""
    source[0] = OPEN.sub("", source[0]).replace(CLOSE, "")


def setup(app):
    """Register the source filter."""
    app.connect("source-read", drop_markers)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
