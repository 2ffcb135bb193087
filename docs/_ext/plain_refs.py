"""References written as plain Markdown, so a page reads the same in the repository as on the
site.

* **API names.** A code span that is a dotted name of the house (```privtools.planning.plan```,
  ```verification.audit```) links to its API entry on the site; in the repository it is
  plain code. A name the API pages do not document (a private module, a field) stays plain
  code on the site too — but it must exist: a name that cannot be imported is a build
  warning (an error under ``-W``), as a role's missing target was. The changelog, which
  names what was removed, is exempt.
* **Notebooks.** A link to a notebook is written as the repository has it
  (``../../notebooks/02_claims_and_their_slack.ipynb`` from a guide); the site's copy lives
  in ``docs/notebooks/``, and the link is rewritten to it before the page is parsed.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

from docutils import nodes
from sphinx import addnodes
from sphinx.transforms import SphinxTransform
from sphinx.util import logging

LOG = logging.getLogger(__name__)
NAME = re.compile(r"^(privtools|verification)(\.[A-Za-z_]\w*)+$")
NOTEBOOK_LINK = re.compile(r"\]\((?P<up>(?:\.\./)+)notebooks/(?P<nb>[\w-]+\.ipynb)\)")
EXEMPT = {"changelog"}


def resolves(name: str) -> bool:
    """Whether ``name`` is a module of the house or an attribute of one."""
    parts = name.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


class ApiNames(SphinxTransform):
    """Code spans naming the house's API become cross-references (plain code if undocumented)."""

    default_priority = 700

    def apply(self, **kwargs) -> None:
        for lit in list(self.document.findall(nodes.literal)):
            if isinstance(lit.parent, (nodes.reference, addnodes.pending_xref)) or \
                    "xref" in lit.get("classes", []):
                continue
            text = lit.astext()
            if not NAME.match(text):
                continue
            ref = addnodes.pending_xref("", refdomain="py", reftype="obj", reftarget=text,
                                        refexplicit=False, refwarn=False)
            ref["privtools_plain"] = True
            ref["refdoc"] = self.env.docname
            ref += nodes.literal(text, text, classes=["xref", "py", "py-obj"])
            lit.replace_self(ref)


def plain_when_undocumented(app, env, node, contnode):
    """A name the API pages do not document stays plain code, if it exists."""
    if not node.get("privtools_plain"):
        return None
    target = node["reftarget"]
    if node.get("refdoc") not in EXEMPT and not resolves(target):
        LOG.warning(f"{target} is not a name of privtools or verification", location=node)
    return contnode


def notebook_links(app, docname, source) -> None:
    """Links to ``notebooks/*.ipynb`` as the repository has them → the site's copies."""
    depth = len(Path(docname).parts) - 1          # folders below docs/

    def site(m):
        up = m["up"].count("../")
        if up != depth + 1:                        # not the repository's notebooks/
            return m.group(0)
        return f"]({'../' * depth}notebooks/{m['nb']})"
    source[0] = NOTEBOOK_LINK.sub(site, source[0])


def setup(app):
    """Register the transform, the missing-reference fallback and the link rewrite."""
    app.add_transform(ApiNames)
    app.connect("missing-reference", plain_when_undocumented)
    app.connect("source-read", notebook_links)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
