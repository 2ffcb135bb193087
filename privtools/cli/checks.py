"""Checks of command-line options, run before any long work. Every error is a
:class:`~privtools.errors.ParameterError` whose message names the *option* (``--scale``),
which the error boundary (:mod:`privtools.cli.boundary`) prints as one line with exit code 2.

* :func:`given` — which options were set on the command line (so that flags the chosen mode
  would ignore can be refused);
* :func:`refuse` — contradictory or ignored options;
* :func:`number`, :func:`int_range`, :func:`real_range`, :func:`seed` — values;
* :func:`out_dir` — an output directory that exists or can be created, checked first;
* :func:`at_most` — the size limits that keep every command within minutes;
* :func:`within` — the limits of a plan (:mod:`privtools.limits`), shared with the API;
* :func:`naming` — library errors name *parameters* (``scale``); inside ``with naming(...)``
  they are re-raised naming the options (``--scale``), and an error that names no option gets
  the options given appended.
"""

from __future__ import annotations

import math
import os
import re
import stat
import tempfile
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path

from privtools.cli.boundary import ParameterSource, get_current_context
from privtools.errors import CertificationError, ParameterError
from privtools.validation import FLOAT_MAX, FLOAT_MIN, show_number, to_fraction

__all__ = ["given", "opt", "refuse", "number", "int_range", "real_range", "seed", "out_dir",
           "at_most", "within", "naming", "SEED_MAX"]

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
    """An exact number from an option's text ("0.1" is 1/10): finite, of at most
    :data:`~privtools.validation.MAX_DIGITS` digits, 0 or within float64's normal range
    (1e-400 and 1e400 are refused: the float paths would read 0 or overflow), and > 0 / >= 0
    / integral when asked."""
    if isinstance(text, str) and not text.strip():
        raise ParameterError(f"{opt(name)} must be a number, got an empty value")
    try:
        value = to_fraction(name, text)
    except ParameterError as exc:
        msg = str(exc)
        why = msg[len(name):] if msg.startswith(name + " ") else " must be a finite number"
        raise ParameterError(f"{opt(name)}{why}" + ("" if "got" in why else f", got {text!r}")
                             ) from None
    if value != 0 and not FLOAT_MIN <= abs(value) <= FLOAT_MAX:
        raise ParameterError(f"{opt(name)} {show_number(value)} is out of float64's normal "
                             "range [2.2e-308, 1.8e308] (0 aside): the tool's float paths "
                             "read every number given to it")
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


def within(name: str, value, limit):
    """``value`` within a :class:`privtools.limits.Limit` (the table the API reads too), else
    its error naming the option: ``--epsilon 1e+308 is above the limit 1000: <why>``."""
    try:
        return limit.check(value, name=name)
    except ParameterError as exc:
        raise ParameterError(_rename(str(exc), {name: opt(name)}, ())) from None


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


def out_dir(name: str, path) -> Path | None:
    """An output directory, checked by trying before any work: an existing directory in
    which a directory can be made (and is removed again), or a path whose first missing
    component can be made (and removed) in its nearest existing ancestor, every missing
    component within the filesystem's name length (``PC_NAME_MAX``) and the whole within
    ``PC_PATH_MAX``. Refused, naming the option: an empty or blank value (``Path('')`` would
    be the current directory), an existing file or a path through one, and any path the
    system will not create (a read-only or virtual filesystem such as /proc, where
    ``os.access`` says yes to root)."""
    if path is None:
        return None
    text = path if isinstance(path, str) else os.fspath(path)
    if not text.strip():
        raise ParameterError(f"{opt(name)} must name a directory, got "
                             f"{'a blank' if text else 'an empty'} value {text!r} (use "
                             f"{opt(name)} . for the current directory)")
    shown = text if len(text) <= 60 else text[:40] + "…" + text[-15:]
    if "\0" in text:
        raise ParameterError(f"{opt(name)} {shown!r} contains a NUL character")
    p = Path(text)
    here = _stat(p)
    if here is not None:
        _check_existing(name, shown, p, here)
    else:
        _check_creatable(name, shown, text)
    return p


def _check_existing(name: str, shown: str, p: Path, here) -> None:
    """An existing output path: a directory in which a directory can be made."""
    if not stat.S_ISDIR(here.st_mode):
        raise ParameterError(f"{opt(name)} {shown!r} is an existing file, not a directory")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".privtools-check-", dir=p))
    except OSError as exc:
        raise ParameterError(f"{opt(name)} {shown!r} is not writable ({exc.strerror})"
                             ) from None


def _check_creatable(name: str, shown: str, text: str) -> None:
    """A missing output path: within the system's limits, its first missing component can be
    made (and is removed again) in its nearest existing ancestor."""
    full = os.path.abspath(text)
    missing, parent = [], full
    while (found := _stat(parent)) is None:
        parent, last = os.path.split(parent)
        missing.append(last)
    missing.reverse()
    if not stat.S_ISDIR(found.st_mode):
        raise ParameterError(f"{opt(name)} {shown!r} cannot be created: {parent!r} is a file")
    _check_lengths(name, shown, full, parent, missing)
    first = os.path.join(parent, missing[0])
    try:
        os.mkdir(first)
    except OSError as exc:
        raise ParameterError(f"{opt(name)} {shown!r} cannot be created in {parent!r} "
                             f"({exc.strerror})") from None
    try:
        os.rmdir(first)
    except OSError:  # pragma: no cover - someone filled it meanwhile: it exists, a directory
        pass


def _check_lengths(name: str, shown: str, full: str, parent: str, missing: list) -> None:
    """Every missing component within ``PC_NAME_MAX``, the whole path within
    ``PC_PATH_MAX``."""
    name_max = _pathconf(parent, "PC_NAME_MAX", 255)
    for part in missing:
        if len(os.fsencode(part)) > name_max:
            raise ParameterError(f"{opt(name)} {shown!r} cannot be created: a component of "
                                 f"{len(os.fsencode(part))} bytes is longer than the "
                                 f"filesystem's limit of {name_max}")
    path_max = _pathconf(parent, "PC_PATH_MAX", 4096)
    if len(os.fsencode(full)) >= path_max:
        raise ParameterError(f"{opt(name)} {shown!r} cannot be created: the path is "
                             f"{len(os.fsencode(full))} bytes long, beyond the system's limit "
                             f"of {path_max}")


def _stat(path):
    """``os.stat(path)``, or None when it does not exist or cannot be reached (a component
    that is a file, too long a name, no permission)."""
    try:
        return os.stat(path)
    except (OSError, ValueError):
        return None


def _pathconf(path: str, key: str, default: int) -> int:
    try:
        value = os.pathconf(path, key)
    except (OSError, ValueError, AttributeError):
        return default
    return value if value and value > 0 else default


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
