"""Figures inside code blocks, where a page cannot mark them: the line of code with each
figure as a ``{field}``, located by a regular expression over the pages."""

from __future__ import annotations

import re
import string

# a field: the shortest text up to the literal that follows it, not ending inside a number
# (so "{x}." reads "0.00192." as 0.00192, not 0)
_FIELD = r"[^\n|]+?(?!\.?\d)"


def parts(template: str) -> list[tuple[str, str | None]]:
    """(literal text, field name or None) pairs of a template."""
    out = []
    for lit, name, spec, conv in string.Formatter().parse(template):
        if spec or conv:
            raise ValueError(f"template fields take no format spec: {template!r}")
        out.append((lit, name))
    return out


def validate(name: str, template: str) -> None:
    """Refuse a template whose fields cannot be located.

    Parameters
    ----------
    name : str
        The figure's name, for the message.
    template : str
        a line of code with ``{fields}``: each field is an identifier without format spec or
        conversion and sits between non-blank literal text.

    Raises
    ------
    ValueError
        When the template breaks one of these rules.
    """
    ps = parts(template)
    for i, (lit, field_name) in enumerate(ps):
        if field_name is None:
            continue
        if not field_name.isidentifier():
            raise ValueError(f"{name}: field {field_name!r} is not an identifier")
        after = ps[i + 1][0] if i + 1 < len(ps) else ""
        if not lit.strip() or not after.strip():
            raise ValueError(f"{name}: field {{{field_name}}} needs literal text on both sides")


def _literal(text: str) -> str:
    return r"\s+".join(re.escape(p) for p in re.split(r"\s+", text))


def pattern(template: str, values: dict[str, str] | None = None) -> re.Pattern:
    """A template as a regular expression over a page.

    Whitespace in the template matches any run of whitespace (a passage may be wrapped).

    Parameters
    ----------
    template : str
        A line of code with ``{fields}``.
    values : dict of str to str, optional
        The fields' values. Without them every field is a group matching the shortest text
        up to the literal that follows it (repeated fields: groups ``name``, ``name__1``,
        …); with them each field matches its value, except the wildcards (``_…``).

    Returns
    -------
    re.Pattern
        The compiled expression.
    """
    out, seen = [], {}
    for lit, name in parts(template):
        out.append(_literal(lit))
        if name is None:
            continue
        if values is not None and not name.startswith("_"):
            out.append(_literal(values[name]))
            continue
        k = seen.get(name, 0)
        seen[name] = k + 1
        out.append(f"(?P<{name if k == 0 else f'{name}__{k}'}>{_FIELD})")
    return re.compile("".join(out))


def render(template: str, values: dict[str, str]) -> str:
    return " ".join(template.format(**values).split())


