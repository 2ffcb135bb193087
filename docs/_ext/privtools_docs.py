"""Strictness checks of the privtools documentation build.

Under ``sphinx-build -W`` every warning emitted here fails the build:

* every public module (:data:`PUBLIC_MODULES`) has a module docstring and an API page
  (``docs/api/<name>.rst`` with its ``automodule``);
* every name a public module exports (``__all__``) has a docstring, and so does every public
  method and property of an exported class (inherited docstrings count, as in autodoc).
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import inspect
import re
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

from docutils import nodes
from public_modules import PUBLIC_MODULES  # the one list, readable without Sphinx
from sphinx.util import logging

logger = logging.getLogger(__name__)


def _documented(obj) -> bool:
    try:
        return bool(inspect.getdoc(obj))
    except Exception:  # noqa: BLE001 - objects without a docstring protocol
        return False


def _exported(module) -> list[str]:
    names = getattr(module, "__all__", None)
    if names is None:
        names = [n for n, v in vars(module).items() if not n.startswith("_")
                 and getattr(v, "__module__", "").startswith(module.__name__)
                 and (inspect.isclass(v) or inspect.isfunction(v))]
    return list(names)


def missing_docstrings(module_name: str) -> list[str]:
    """The public names of *module_name* without a docstring (dotted, relative to it)."""
    module = importlib.import_module(module_name)
    missing = [] if _documented(module) else ["(module docstring)"]
    for name in _exported(module):
        obj = getattr(module, name)
        if not (inspect.isclass(obj) or callable(obj) or inspect.ismodule(obj)):
            continue  # constants are documented by the module's text
        if not _documented(obj):
            missing.append(name)
        if not inspect.isclass(obj):
            continue
        for attr, raw in vars(obj).items():
            if attr.startswith("_") or not (callable(raw) or isinstance(
                    raw, (property, staticmethod, classmethod))):
                continue
            if not _documented(getattr(obj, attr, raw)) and not (
                    isinstance(raw, property) and _documented(raw)):
                missing.append(f"{name}.{attr}")
    return missing


def _claims_table() -> str:
    """Paper 000's claims checked on the reduced grid now, as a Markdown table."""
    from verification.claims import check_all

    rows = ["| claim | source | grid points | verdict | worst slack | statement |",
            "|---|---|---|---|---|---|"]
    for result in check_all("reduced"):
        slack = "–" if result.worst_slack is None else f"{result.worst_slack:.3g}"
        statement = " ".join(result.claim.statement.split()).replace("|", "\\|")
        rows.append(f"| {result.claim.name} | {result.claim.source} | {len(result.rows)} | "
                    f"**{result.status}** | {slack} | {statement} |")
    return "\n".join(rows) + "\n"


def _cli_reference() -> str:
    """``privtools --help`` and every command's ``--help``, as the terminal shows them."""
    from typer.main import get_command
    from typer.testing import CliRunner

    from privtools.cli import app as cli_app

    runner = CliRunner()
    env = {"COLUMNS": "100", "NO_COLOR": "1", "TERM": "dumb"}
    parts = []
    for name in ["", *sorted(get_command(cli_app).commands)]:
        args = [name, "--help"] if name else ["--help"]
        result = runner.invoke(cli_app, args, env=env, prog_name="privtools")
        if result.exit_code != 0:
            logger.warning("privtools %s --help failed: %s", name, result.output,
                           type="privtools", subtype="cli")
        title = f"privtools {name}".strip()
        parts.append(f"# `{title}`\n\n```text\n{result.output.rstrip()}\n```\n")
    return "\n".join(parts)


_STATEMENT = re.compile(
    r"\b(?P<kind>Fact|Lemma|Theorem|Proposition|Definition|Corollary|Remark|Algorithm|Alg\.)s?"
    r"\s+(?P<num>\d+)(?:\s*[–-]\s*\d+)?\s*\((?P<paper>00[0-3])\)"
    r"|\b(?P<paper2>00[0-3])\s+(?P<kind2>Alg\.|Algorithm|Theorem|Lemma|Definition|§)\s*"
    r"(?P<num2>[\dIVX]+)")
_PAPERS = {"000": "000", "001": "001", "002": "000 (conference)", "003": "000 (short)"}


def statements() -> dict[tuple[str, str, str], set[str]]:
    """Which documented names cite which paper statement: ``(paper, kind, number)`` to the
    dotted names whose docstring cites it (as "Theorem 2 (000)" or "000 Alg. 1")."""
    found: dict[tuple[str, str, str], set[str]] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for export in _exported(module):
            obj = getattr(module, export)
            if owner(export, obj) not in (module_name, None):
                continue
            docs = [(f"{module_name}.{export}", inspect.getdoc(obj) or "")]
            if inspect.isclass(obj):
                docs += [(f"{module_name}.{export}.{attr}", inspect.getdoc(getattr(obj, attr))
                          or "") for attr, raw in vars(obj).items()
                         if not attr.startswith("_") and (callable(raw) or isinstance(
                             raw, property))]
            for full, doc in docs:
                for hit in _STATEMENT.finditer(doc):
                    paper = hit.group("paper") or hit.group("paper2")
                    kind = hit.group("kind") or hit.group("kind2")
                    kind = {"Alg.": "Algorithm", "§": "Section"}.get(kind, kind)
                    number = hit.group("num") or hit.group("num2")
                    found.setdefault((paper, kind, number), set()).add(full)
    return found


def _statements_table() -> str:
    order = ["Definition", "Fact", "Lemma", "Proposition", "Theorem", "Corollary", "Remark",
             "Algorithm", "Section"]

    def key(item):
        (paper, kind, number), _ = item
        return (paper, order.index(kind), int(number) if number.isdigit() else 99, number)

    rows = ["| paper | statement | implemented or checked by |", "|---|---|---|"]
    for (paper, kind, number), names in sorted(statements().items(), key=key):
        label = f"§{number}" if kind == "Section" else f"{kind} {number}"
        links = ", ".join(f"{{py:obj}}`~{n}`" for n in sorted(names))
        rows.append(f"| {_PAPERS[paper]} | {label} | {links} |")
    return "\n".join(rows) + "\n"


def proof_links() -> dict[str, list[str]]:
    """Each sympy proof of ``verification.proofs`` (in the order of ``PROOFS``) to the dotted
    names of the code linked to it with ``@proven`` (``privtools.proven``), once every public
    module is imported."""
    from privtools.proven import links
    from verification.proofs import PROOFS

    for module_name in PUBLIC_MODULES:
        importlib.import_module(module_name)
    found: dict[str, list[str]] = {proof.__name__: [] for proof in PROOFS}
    for name, proofs in sorted(links().items()):
        for proof in proofs:
            found.setdefault(proof, []).append(name)
    return found


def _proofs_table() -> str:
    from verification import proofs as module

    def code(name: str) -> str:
        qualname = _lookup(name, None)[1]
        module = name.split(".")[: -len(qualname)]
        if any(part.startswith("_") for part in name.split(".")):  # internal: named, not linked
            return "``" + ".".join([module[-1], *qualname]) + "``"
        return f"{{py:obj}}`{'.'.join(qualname)} <{name}>`"

    rows = ["| proof | what it proves | code that relies on it |", "|---|---|---|"]
    for proof, names in proof_links().items():
        doc = (inspect.getdoc(getattr(module, proof)) or "").split("\n\n")[0]
        doc = " ".join(doc.split()).replace("|", "\\|")
        rows.append(f"| {{py:func}}`~verification.proofs.{proof}` | {doc} | "
                    f"{', '.join(code(n) for n in names) or '–'} |")
    return "\n".join(rows) + "\n"


def _generate(app) -> None:
    """Pages computed from the code at every build, so they cannot drift from it."""
    out = Path(app.srcdir) / "_generated"
    out.mkdir(exist_ok=True)
    for name, make in (("claims.md", _claims_table), ("cli.md", _cli_reference),
                       ("statements.md", _statements_table), ("proofs.md", _proofs_table)):
        text = make()
        path = out / name
        if not path.exists() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")


def _check(app) -> None:
    api = Path(app.srcdir) / "api"
    for name in PUBLIC_MODULES:
        page = api / f"{name}.rst"
        if not page.exists() or f"automodule:: {name}\n" not in page.read_text() + "\n":
            logger.warning("public module %s has no API page (docs/api/%s.rst with its "
                           "automodule)", name, name, type="privtools", subtype="api")
        for missing in missing_docstrings(name):
            logger.warning("public name %s.%s has no docstring", name, missing,
                           type="privtools", subtype="docstring")


_CODE = re.compile(r"(``.*?``|`[^`]*`)")
_BAR = re.compile(r"(?<![\\|])\|(?!\|)")


def _plain_bars(app, what, name, obj, options, lines) -> None:
    """Docstrings write absolute values as ``|x|``; reST would read a substitution."""
    for i, line in enumerate(lines):
        if "|" in line and not line.lstrip().startswith(("..", ">>>", "...")):
            parts = _CODE.split(line)  # odd items are literals and roles: left alone
            lines[i] = "".join(part if k % 2 else _BAR.sub(r"\\|", part)
                               for k, part in enumerate(parts))


def owner(name: str, obj) -> str | None:
    """The public module that documents *obj* (exported as *name*): the one with the longest
    name that contains the object's defining module and lists *name* in ``__all__``."""
    home = getattr(obj, "__module__", None) or ""
    best = None
    for module_name in PUBLIC_MODULES:
        if (home == module_name or home.startswith(module_name + ".")) and name in getattr(
                importlib.import_module(module_name), "__all__", ()):
            if best is None or len(module_name) > len(best):
                best = module_name
    return best


_PAGE: dict[str, str] = {}


def _reexports(app, what, name, obj, options, lines) -> None:
    """A module page documents only what it owns and links what it re-exports."""
    if what != "module" or name not in PUBLIC_MODULES:
        return
    _PAGE["module"] = name
    links = []
    for export in getattr(obj, "__all__", ()):
        value = getattr(obj, export)
        home = owner(export, value)
        if home is not None and home != name:
            role = "class" if inspect.isclass(value) else "func" if callable(value) else "data"
            links.append(f":{role}:`~{home}.{export}`")
    if links:
        lines += ["", "Also exported here (documented where they live): "
                  + ", ".join(links) + ".", ""]


def _skip_reexports(app, what, name, obj, skip, options):
    page = _PAGE.get("module")
    if what == "module" and page is not None:
        home = owner(name, obj)
        if home is not None and home != page:
            return True
    return None


_DOTTED = re.compile(r"[A-Za-z_]\w*(\.[A-Za-z_]\w*)*")
_SOURCE = re.compile(r"docstring of ([\w.]+)")
_KEPT: dict[str, list[str]] = {}


def _keep_prose(app, what, name, obj, options, lines) -> None:
    """Properties' docstrings are prose ("The law's centre: ..."); napoleon would read the
    text before a colon as a type. Kept here, before napoleon, and put back after it."""
    if what in ("property", "attribute"):
        _KEPT[name] = list(lines)


def _restore_prose(app, what, name, obj, options, lines) -> None:
    if name in _KEPT:
        lines[:] = _KEPT.pop(name)


@functools.cache
def _canonical_names() -> dict[int, str]:
    names: dict[int, str] = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for export in getattr(module, "__all__", ()):
            value = getattr(module, export)
            if owner(export, value) == module_name:
                names.setdefault(id(value), f"{module_name}.{export}")
    return names


def _lookup(dotted: str, context: str | None):
    """The object a dotted name means, read as absolute or relative to *context*."""
    if not _DOTTED.fullmatch(dotted):
        return None, []
    candidates = [dotted]
    if context:
        candidates += [f"{context}.{dotted}", f"{context.rsplit('.', 1)[0]}.{dotted}"]
    for candidate in candidates:
        parts = candidate.split(".")
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:cut]))
            except Exception:  # noqa: BLE001 - not a module name
                continue
            try:
                for attr in parts[cut:]:
                    obj = getattr(obj, attr)
            except AttributeError:
                break
            return obj, parts[cut:]
    return None, []


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _resolve(app, env, node, contnode):
    """Resolve a Python reference by the object it names: a submodule path or a re-export
    of a documented name leads to the page that documents it (one page per object)."""
    if node.get("refdomain") != "py":
        return None
    target, kind = node["reftarget"], node["reftype"]
    domain = env.get_domain("py")
    context = node.get("py:module")
    if kind == "mod":
        if context and _module_exists(f"{context}.{target}"):
            target = f"{context}.{target}"  # a submodule named relative to its package
        parent = target
        while "." in parent and parent not in PUBLIC_MODULES:
            parent = parent.rsplit(".", 1)[0]
        if parent in PUBLIC_MODULES and parent != target:
            return domain.resolve_xref(env, node["refdoc"], app.builder, "mod", parent, node,
                                       contnode)
        return None
    obj, _ = _lookup(target, context)
    if obj is None and node.get("py:class"):
        obj, _ = _lookup(f"{node['py:class']}.{target}", context)
    where = _SOURCE.search(str(node.source or ""))
    if obj is None and where:  # a name relative to the module the docstring was written in
        scope = where.group(1)
        while obj is None and "." in scope:
            scope = scope.rsplit(".", 1)[0]
            obj, _ = _lookup(f"{scope}.{target}", None)
    canonical = _canonical_names()
    if obj is None:  # an unqualified name: the one documented object of that name
        tail = "." + target
        found = {v for v in canonical.values() if v.endswith(tail)}
        if len(found) == 1:
            return domain.resolve_xref(env, node["refdoc"], app.builder, kind, found.pop(),
                                       node, contnode)
        head = target.rsplit(".", 1)
        if len(head) == 2:
            found = {v for v in canonical.values() if v.endswith("." + head[0])}
            if len(found) == 1:
                return domain.resolve_xref(env, node["refdoc"], app.builder, kind,
                                           f"{found.pop()}.{head[1]}", node, contnode)
        return None  # a name that exists nowhere: the build fails on it
    name = canonical.get(id(obj))
    if name is None and "." in target:  # Class.method: the class's canonical name
        head, tail = target.rsplit(".", 1)
        cls, _ = _lookup(head, context)
        if cls is not None and id(cls) in canonical:
            name = f"{canonical[id(cls)]}.{tail}"
    if name is None:
        # It exists but is internal (a private helper, a type of an internal module): shown
        # as text, not linked. Names that exist nowhere still fail the build.
        return contnode
    if name == target:
        return None
    return domain.resolve_xref(env, node["refdoc"], app.builder, kind, name, node, contnode)


def _mathml(latex: str, display: str) -> str:
    from latex2mathml.converter import convert

    try:
        return convert(latex, display=display)
    except Exception as exc:  # noqa: BLE001 - any parse error is a broken formula
        logger.warning("cannot render the formula %r: %s", latex, exc,
                       type="privtools", subtype="math")
        return f"<code>{latex}</code>"


def _visit_math(self, node) -> None:
    self.body.append(_mathml(node.astext(), "inline"))
    raise nodes.SkipNode


def _visit_displaymath(self, node) -> None:
    body = _mathml(node.astext(), "block")
    if node.get("number"):
        number = f"({node['number']})"
        body = (f'<div class="math-numbered" id="{node["ids"][0] if node["ids"] else ""}">'
                f'{body}<span class="eqno">{number}</span></div>')
    self.body.append(f'<div class="math-block">{body}</div>')
    raise nodes.SkipNode


class _Links(HTMLParser):
    def __init__(self):
        super().__init__()
        self.ids: set[str] = set()
        self.links: list[str] = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id"):
            self.ids.add(attrs["id"])
        if tag == "a" and attrs.get("name"):
            self.ids.add(attrs["name"])
        for key in ("href", "src"):
            value = attrs.get(key)
            if value and not (tag == "link" and key == "href" and "stylesheet" not in (
                    attrs.get("rel") or "")):
                self.links.append(value)


def dead_links(outdir: Path) -> list[tuple[str, str]]:
    """Every internal link or resource of the built HTML that leads nowhere: a missing page
    or file, or a missing anchor. Returns ``(page, link)`` pairs."""
    pages: dict[Path, _Links] = {}
    for page in outdir.rglob("*.html"):
        parser = _Links()
        parser.feed(page.read_text(encoding="utf-8", errors="replace"))
        pages[page.resolve()] = parser
    dead = []
    for page, parser in pages.items():
        for link in parser.links:
            split = urlsplit(link)
            if split.scheme or split.netloc or link.startswith(("mailto:", "javascript:")):
                continue  # external: the build has no network to check it
            target = (page.parent / unquote(split.path)).resolve() if split.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                dead.append((str(page.relative_to(outdir.resolve())), link))
            elif split.fragment and target.suffix == ".html" and target in pages and (
                    unquote(split.fragment) not in pages[target].ids):
                dead.append((str(page.relative_to(outdir.resolve())), link))
    return sorted(dead)


def _check_links(app, exception) -> None:
    if exception is not None or app.builder.format != "html":
        return
    for page, link in dead_links(Path(app.outdir)):
        logger.warning("dead internal link in %s: %s", page, link,
                       type="privtools", subtype="link")


def setup(app):
    """Register the checks (run once the builder is ready, before reading sources)."""
    app.connect("builder-inited", _check)
    app.connect("builder-inited", _generate)
    app.connect("autodoc-process-docstring", _plain_bars, priority=950)
    app.connect("autodoc-process-docstring", _reexports)
    app.connect("autodoc-skip-member", _skip_reexports)
    app.connect("autodoc-process-docstring", _keep_prose, priority=100)
    app.connect("autodoc-process-docstring", _restore_prose, priority=900)
    app.connect("missing-reference", _resolve)
    app.connect("build-finished", _check_links)
    # Math is rendered to MathML when the page is written: no script, no network, and the
    # browser's own MathML engine draws it (a broken formula fails the build).
    app.add_html_math_renderer("mathml", (_visit_math, None), (_visit_displaymath, None))
    return {"parallel_read_safe": True, "parallel_write_safe": True}
