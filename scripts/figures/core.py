"""The registry's entries, the pages' markers, and the check and rewrite of marked figures.

A page marks each figure it quotes where it quotes it, between two HTML comments:
``<!--fig bench.pld.ratio-->3.2<!--/fig-->`` is the figure 3.2 under the name
``bench.pld.ratio``. The comments are invisible wherever Markdown is rendered — in the
repository as on the documentation site (whose ``figure_markers`` extension drops them) — so
a page reads as plain prose with 3.2 in it. An entry of the registry with one figure
owns the marker of its own name; an entry with several owns ``NAME.FIELD`` for each field.
A figure inside a code block, where no role can stand, is located by its line of code
instead (:mod:`figures.templates`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from figures.formats import FigureError
from figures.tables import COMMANDS, ROOT
from figures.templates import parts, pattern, render, validate

COMPUTED, MEASURED = "computed", "measured"

# the pages whose figures are checked: the README and the documentation's own pages (the
# generated tables under docs/tables/ are sources, not pages that quote them)
PAGE_GLOBS = ("README.md", "docs/*.md", "docs/guides/*.md")

MARKER = re.compile(r"<!--fig (?P<name>[^<>\s]+)-->(?P<value>.*?)<!--/fig-->")


def default_pages() -> list[Path]:
    """Every page of the project that may quote a figure."""
    return sorted(p for g in PAGE_GLOBS for p in ROOT.glob(g))


@dataclass(frozen=True)
class Figure:
    """One registry entry: figures a page quotes and where they come from.

    Attributes
    ----------
    name : str
        Unique, dotted by topic (``plans.reading.skellam-tau``).
    kind : str
        ``"computed"`` (recomputed from the code) or ``"measured"`` (read from ``table``).
    fields : tuple of str
        The figures' names; each is marked in the pages as ``name`` (one field) or
        ``name.field``.
    source : str
        Where the figures come from, for people (the call, or the column of the table).
    value : callable
        Returns the fields as the pages print them: from the code (computed) or from
        ``table`` (measured).
    table : str or None
        The generated table or summary (path from the project root) the figures quote.
    table_value : callable or None
        For a computed figure that also quotes ``table``: the fields read from it.
    full : bool
        The computation is slow: only with ``--full`` (the table is still checked).
    template : str or None
        For figures in a code block: the line of code with each figure as ``{field}``
        (``{_field}``: a wildcard, never checked).
    """

    name: str
    kind: str
    fields: tuple[str, ...]
    source: str
    value: Callable[[], dict[str, str]] = field(repr=False)
    table: str | None = None
    table_value: Callable[[], dict[str, str]] | None = field(default=None, repr=False)
    full: bool = False
    template: str | None = None

    @property
    def command(self) -> str | None:
        return COMMANDS.get(self.table) if self.table else None

    def markers(self) -> dict[str, str]:
        """Field -> the marker name the pages use for it (none for a code line)."""
        if self.template is not None:
            return {}
        if len(self.fields) == 1:
            return {self.fields[0]: self.name}
        return {f: f"{self.name}.{f}" for f in self.fields}

    def sources(self, full: bool) -> list[tuple[str, Callable[[], dict[str, str]]]]:
        """(label, value function) pairs the figure is checked against in this mode."""
        out = []
        if self.kind == MEASURED:
            out.append((self.table, self.value))
        elif full or not self.full:
            out.append(("code", self.value))
        if self.table_value is not None:
            out.append((self.table, self.table_value))
        return out


class Registry(list):
    def add(self, name: str, kind: str, where: tuple[str, ...] | str, source: str, value,
            **kw) -> None:
        """Add an entry: ``where`` is its fields (marked in the pages) or a line of code."""
        if kind not in (COMPUTED, MEASURED):
            raise ValueError(f"{name}: kind must be {COMPUTED!r} or {MEASURED!r}")
        if kind == MEASURED and not kw.get("table"):
            raise ValueError(f"{name}: a measured figure names its table")
        if isinstance(where, str):
            validate(name, where)
            fields = tuple(dict.fromkeys(n for _, n in parts(where)
                                         if n is not None and not n.startswith("_")))
            kw["template"] = where
        else:
            fields = tuple(where)
            if not fields or len(set(fields)) != len(fields):
                raise ValueError(f"{name}: fields must be distinct and at least one")
        self.append(Figure(name, kind, fields, source, value, **kw))


# ============================================================================ the pages
@dataclass(frozen=True)
class Spot:
    """Where a page quotes one figure: the page and the span of the figure's text."""

    page: str
    start: int
    end: int


def marked(pages: dict[str, str]) -> dict[str, list[Spot]]:
    """Marker name -> every place the pages mark it (``pages``: path -> text)."""
    out: dict[str, list[Spot]] = {}
    for page, text in pages.items():
        for m in MARKER.finditer(text):
            out.setdefault(m.group("name").strip(), []).append(
                Spot(page, m.start("value"), m.end("value")))
    return out


def unknown_markers(pages: dict[str, str], figures) -> list[tuple[str, str]]:
    """(page, marker name) of every marker no entry of ``figures`` (the registry) owns."""
    owned = {m for f in figures for m in f.markers().values()}
    return sorted({(s.page, name) for name, spots in marked(pages).items() if name not in owned
                   for s in spots})


def _spots(fig: Figure, pages: dict[str, str],
           index: dict[str, list[Spot]]) -> dict[str, list[Spot]]:
    """Field -> its places in the pages (raises FigureError when one is missing)."""
    if fig.template is None:
        out = {f: index.get(m, []) for f, m in fig.markers().items()}
        missing = [fig.markers()[f] for f, spots in out.items() if not spots]
        if missing:
            raise FigureError(f"no page marks {missing} (a page's text changed, or the "
                              "registry names a figure no page quotes)")
        return out
    found = [(page, m) for page, text in pages.items()
             for m in pattern(fig.template).finditer(text)]
    if len(found) != 1:
        where = "nowhere" if not found else f"{len(found)} times"
        raise FigureError(f"its line of code is found {where} in the pages (the code "
                          "changed: update the registry)")
    page, m = found[0]
    out: dict[str, list[Spot]] = {}
    for group in m.groupdict():
        name = group.split("__")[0]
        if not name.startswith("_"):
            out.setdefault(name, []).append(Spot(page, m.start(group), m.end(group)))
    return out


def _plain(value: str) -> str:
    """A figure as a marker holds it: emphasis is the page's, outside the marker."""
    return value[2:-2] if len(value) > 4 and value[:2] == value[-2:] == "**" else value


def _says(fig: Figure, values: dict[str, str]) -> str:
    if fig.template is not None:
        return render(fig.template, values)
    return ", ".join(f"{f} = {values[f]}" for f in fig.fields)


# ============================================================================ checking
@dataclass
class Outcome:
    figure: Figure
    status: str                                   # ok, drift, error, skipped
    page: str | None = None                       # the figures as the pages have them
    expected: dict[str, str] = field(default_factory=dict)      # source -> rendered text
    values: dict[str, dict[str, str]] = field(default_factory=dict)
    spots: dict[str, list[Spot]] = field(default_factory=dict, repr=False)
    message: str = ""

    def to_dict(self) -> dict:
        f = self.figure
        return {"name": f.name, "kind": f.kind, "full_only": f.full, "source": f.source,
                "table": f.table, "command": f.command, "status": self.status,
                "pages": sorted({s.page for v in self.spots.values() for s in v}),
                "page": self.page, "expected": self.expected, "message": self.message}


def check_figure(fig: Figure, pages: dict[str, str], full: bool,
                 known: dict[str, dict[str, str]] | None = None,
                 index: dict[str, list[Spot]] | None = None) -> Outcome:
    """Find a figure's places in the pages and compare them with each source's values.

    Parameters
    ----------
    fig : Figure
        The registry entry.
    pages : dict of str to str
        Page path -> its text.
    full : bool
        Also compute the slow figures (``--full``).
    known : dict, optional
        Source label -> field values from an earlier check (nothing is recomputed).
    index : dict, optional
        :func:`marked` of ``pages``, when the caller has it.

    Returns
    -------
    Outcome
        Status ``ok``, ``drift`` (a page's figure differs from a source's), ``error`` (a
        figure is not found in the pages, or a source failed) or ``skipped``.
    """
    try:
        spots = _spots(fig, pages, marked(pages) if index is None else index)
    except FigureError as exc:
        return Outcome(fig, "error", message=str(exc))
    now = {f: pages[s[0].page][s[0].start:s[0].end] for f, s in spots.items()}
    if fig.template is not None:
        wild = pattern(fig.template).search(pages[spots[fig.fields[0]][0].page])
        now |= {n: v for n, v in wild.groupdict().items() if n.startswith("_")
                and "__" not in n}
    out = Outcome(fig, "ok", page=_says(fig, now), spots=spots)
    sources = fig.sources(full)
    if known is not None:
        sources = [(label, lambda v=v: v) for label, v in known.items()]
    if not sources:
        out.status = "skipped"
        out.message = "computed with --full only"
        return out
    for label, fn in sources:
        try:
            vals = fn()
            missing = [n for n in fig.fields if n not in vals]
            if missing:
                raise FigureError(f"no value for {missing}")
        except Exception as exc:  # noqa: BLE001 - every failure is reported per figure
            out.status = "error"
            out.message += f"{label}: {type(exc).__name__}: {exc}\n"
            continue
        vals = {k: _plain(str(v)) if fig.template is None else str(v) for k, v in vals.items()}
        out.values[label] = vals
        out.expected[label] = _says(fig, {**now, **vals})
        drifted = any(pages[s.page][s.start:s.end] != vals[f]
                      for f, places in spots.items() for s in places)
        if drifted and out.status == "ok":
            out.status = "drift"
    if out.status == "drift" and len({json.dumps(v, sort_keys=True)
                                      for v in out.values.values()}) > 1:
        out.message = (f"the code and {fig.table} disagree: regenerate it with "
                       f"`{fig.command}`")
    return out


def run_check(pages: dict[str, str], full: bool, figures, only: list[str] | None = None
              ) -> list[Outcome]:
    """Check every figure of the registry (or those whose name starts with one of ``only``).

    Parameters
    ----------
    pages : dict of str to str
        Page path -> its text.
    full : bool
        Also compute the slow figures.
    only : list of str, optional
        Name prefixes.
    figures : sequence of Figure
        The entries to check (the registry, ``figures.registry.registry()``).

    Returns
    -------
    list of Outcome
        One per figure, in registry order.
    """
    index = marked(pages)
    figs = [f for f in figures if not only or any(f.name.startswith(o) for o in only)]
    return [check_figure(f, pages, full, index=index) for f in figs]


def write(pages: dict[str, str], outcomes: list[Outcome]) -> tuple[dict[str, str],
                                                                    list[Outcome]]:
    """Put the current figures into the pages' text.

    Parameters
    ----------
    pages : dict of str to str
        Page path -> its text, as checked.
    outcomes : list of Outcome
        Results of :func:`check_figure` on ``pages``. Only drifted figures whose sources
        agree are written (when the code and a table disagree, the table needs
        regenerating first); markers and wildcard fields are never written.

    Returns
    -------
    tuple of (dict, list of Outcome)
        The new pages and the outcomes that were written.

    Raises
    ------
    ValueError
        When two figures overlap in a page (a registry error).
    """
    edits: dict[str, list[tuple[int, int, str, str]]] = {}
    done = []
    for o in outcomes:
        if o.status != "drift" or len({json.dumps(v, sort_keys=True)
                                        for v in o.values.values()}) != 1:
            continue
        vals = next(iter(o.values.values()))
        for f, places in o.spots.items():
            for s in places:
                edits.setdefault(s.page, []).append((s.start, s.end, vals[f], o.figure.name))
        done.append(o)
    new = dict(pages)
    for page, es in edits.items():
        es.sort()
        for (_, e1, _, n1), (s2, _, _, n2) in zip(es, es[1:]):
            if s2 < e1:
                raise ValueError(f"figures {n1} and {n2} overlap in {page}")
        text = pages[page]
        for start, end, value, _ in reversed(es):
            text = text[:start] + value + text[end:]
        new[page] = text
    return new, done
