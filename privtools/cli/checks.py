"""Checks of command-line options, run before any long work. Every error is a
:class:`~privtools.errors.ParameterError` whose message names the *option* (``--scale``),
which the error boundary (:mod:`privtools.cli.boundary`) prints as one line with exit code 2.

* :func:`given` — which options were set on the command line (so that flags the chosen mode
  would ignore can be refused);
* :func:`refuse` — contradictory or ignored options;
* :func:`number`, :func:`int_range`, :func:`real_range`, :func:`seed` — values;
* :func:`out_dir` — an output directory that exists or can be created, checked first;
* :func:`at_most` — the size limits that keep every command within minutes;
* :func:`naming` — library errors name *parameters* (``scale``); inside ``with naming(...)``
  they are re-raised naming the options (``--scale``), and an error that names no option gets
  the options given appended.
"""

from __future__ import annotations

import math
import os
import re
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

from privtools.cli.boundary import ParameterSource, get_current_context
from privtools.errors import CertificationError, ParameterError
from privtools.validation import to_fraction

__all__ = ["given", "opt", "refuse", "number", "int_range", "real_range", "seed", "out_dir",
           "at_most", "naming", "SEED_MAX"]

#: Seeds are non-negative and fit in int64 (numpy SeedSequence entropy; JSON summaries).
SEED_MAX = 2**63 - 1


def _ctx():
    return get_current_context(silent=True)


def _is_option(p) -> bool:
    return getattr(p, "param_type_name", "") == "option"


def opt(name: str) -> str:
    """The command-line spelling of parameter ``name`` of the running command (``--scale``;
    the metavar, e.g. ``KIND``, for an argument)."""
    ctx = _ctx()
    if ctx is not None:
        for p in ctx.command.params:
            if p.name == name:
                if _is_option(p):
                    return max(p.opts, key=len)
                return p.human_readable_name
    return "--" + name.replace("_", "-")


def given(*names: str) -> list[str]:
    """The parameters among ``names`` that were set on the command line (or by environment),
    not left at their defaults."""
    ctx = _ctx()
    if ctx is None:
        return []
    out = []
    for n in names:
        src = ctx.get_parameter_source(n)
        if src is not None and src not in (ParameterSource.DEFAULT, ParameterSource.DEFAULT_MAP):
            out.append(n)
    return out


def refuse(names, why: str) -> None:
    """Raise naming the options ``names`` (if any was given): ``--x, --y <why>``."""
    names = [n for n in names if n]
    if names:
        raise ParameterError(f"{', '.join(opt(n) for n in names)} {why}")


def number(name: str, text, *, positive: bool = False, nonnegative: bool = False,
           integer: bool = False) -> Fraction:
    """An exact number from an option's text ("0.1" is 1/10): finite, and > 0 / >= 0 /
    integral when asked."""
    if isinstance(text, str) and not text.strip():
        raise ParameterError(f"{opt(name)} must be a number, got an empty value")
    try:
        value = to_fraction(name, text)
    except ParameterError:
        raise ParameterError(f"{opt(name)} must be a finite number, got {text!r}") from None
    if positive and value <= 0:
        raise ParameterError(f"{opt(name)} must be > 0, got {text!r}")
    if nonnegative and value < 0:
        raise ParameterError(f"{opt(name)} must be >= 0, got {text!r}")
    if integer and value.denominator != 1:
        raise ParameterError(f"{opt(name)} must be an integer, got {text!r}")
    return value


def int_range(name: str, value: int | None, lo: int | None = None,
              hi: int | None = None, why: str = "") -> int | None:
    """``lo <= value <= hi`` (None passes: the option was not given)."""
    if value is None:
        return None
    if lo is not None and value < lo:
        raise ParameterError(f"{opt(name)} must be >= {lo}, got {value}")
    if hi is not None and value > hi:
        raise ParameterError(f"{opt(name)} must be <= {hi:,}{why}, got {value:,}")
    return value


def real_range(name: str, value: float | None, lo: float, hi: float, *,
               open_lo: bool = True, open_hi: bool = True) -> float | None:
    """A finite float in the interval (lo, hi) (ends open unless told)."""
    if value is None:
        return None
    ok = math.isfinite(value) and (value > lo if open_lo else value >= lo) and (
        value < hi if open_hi else value <= hi)
    if not ok:
        a, b = "(" if open_lo else "[", ")" if open_hi else "]"
        raise ParameterError(f"{opt(name)} must be in {a}{lo:g}, {hi:g}{b}, got {value!r}")
    return value


def seed(name: str, value: int | None) -> int | None:
    return int_range(name, value, 0, SEED_MAX)


def at_most(name: str, value, limit, what: str) -> None:
    """Refuse work beyond a size limit: ``--shares 1e+08 is beyond the limit 1e+07 of
    <what>``."""
    if value > limit:
        raise ParameterError(f"{opt(name)} {_g(value)} is beyond the limit {_g(limit)}: {what}")


def _g(x) -> str:
    if isinstance(x, int) and abs(x) < 10**6:
        return str(x)
    try:
        return f"{float(x):.3g}"
    except OverflowError:
        return f"~1e{len(str(int(abs(x)))) - 1}"


def out_dir(name: str, path: Path | None) -> Path | None:
    """An output directory: an existing directory, or a path whose nearest existing ancestor
    is a writable directory (it is created later). An existing *file* is refused."""
    if path is None:
        return None
    p = Path(path)
    if p.exists():
        if not p.is_dir():
            raise ParameterError(f"{opt(name)} {str(p)!r} is an existing file, not a directory")
        if not os.access(p, os.W_OK | os.X_OK):
            raise ParameterError(f"{opt(name)} {str(p)!r} is not writable")
        return p
    parent = p.absolute().parent
    while not parent.exists():
        parent = parent.parent
    if not parent.is_dir():
        raise ParameterError(f"{opt(name)} {str(p)!r} cannot be created: {str(parent)!r} is a "
                             "file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise ParameterError(f"{opt(name)} {str(p)!r} cannot be created: {str(parent)!r} is "
                             "not writable")
    return p


_SUBJECT = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*)\b")


@contextmanager
def naming(extra: dict[str, str] | None = None, *, hint=()):
    """Re-raise library errors (ParameterError, CertificationError) naming options: the
    message's leading parameter name becomes its option (the running command's options,
    plus ``extra`` such as ``{"n": "--shares"}``); a message that then names no option gets
    ``(with --a A, --b B)`` appended — the options given, or ``hint`` (parameter names)."""
    try:
        yield
    except (ParameterError, CertificationError) as exc:
        raise type(exc)(_rename(str(exc), extra or {}, hint)) from exc


def _rename(msg: str, extra: dict[str, str], hint) -> str:
    ctx = _ctx()
    names = {}
    if ctx is not None:
        for p in ctx.command.params:
            if _is_option(p):
                names[p.name] = max(p.opts, key=len)
    names.update(extra)
    m = _SUBJECT.match(msg)
    if m and m.group(1) in names and not msg.startswith("--"):
        rest = msg[m.end():]
        msg = names[m.group(1)] + (rest[2:] if rest.startswith(" = ") else rest)
    if re.search(r"(^|[\s(])--[a-z]", msg) or ctx is None:
        return msg
    shown = list(hint) or [n for n in given(*names) if n not in ("as_json",)]
    parts = []
    for n in shown:
        value = ctx.params.get(n)
        parts.append(opt(n) if isinstance(value, bool) else f"{opt(n)} {value}")
    return f"{msg} (with {', '.join(parts)})" if parts else msg
