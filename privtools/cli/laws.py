"""Noise laws from command-line options (shared by `noise` and `audit --sampler`), checked
before any work: options that the kind does not take are refused, values are parsed exactly,
and laws too wide for the float tail searches to finish in about a minute are refused with
the option and its limit.

The command line reads the laws: the kinds are the laws' names (``Law.name``, as scipy.stats
names its distributions, over :data:`privtools.noise.LAWS`), and the options of each kind,
their help, domains, alternatives and limits are the law's parameter table
(``Law.parameters``, :class:`privtools.noise.Parameter`). A new law in ``LAWS`` is a new kind
of ``privtools noise`` and ``privtools audit --sampler`` with no edit here.
"""

from __future__ import annotations

import functools
import inspect
import math

import typer

from privtools.errors import ParameterError
from privtools.noise import LAWS

from . import checks

#: The kinds of law, by name (one per law of :data:`privtools.noise.LAWS`).
KINDS = tuple(law.name for law in LAWS)
_BY_NAME = {law.name: law for law in LAWS}

# The limits the tests and the docs name, read from the parameter tables.
_LIMIT_ALIASES = {
    "MAX_LAPLACE_SCALE": ("laplace", "scale"),
    "MAX_VARIANCE": ("skellam", "var"),           # and the discrete Gaussian's sigma2
    "MAX_POLYA_SCALE": ("polya", "scale"),
    "MAX_POLYA_DIFFERENCE_SCALE": ("polya-difference", "scale"),
    "MAX_POLYA_R": ("polya", "r"),
}


def law_class(kind: str):
    """The law class of ``kind`` (one of :data:`KINDS`)."""
    return _BY_NAME[kind]


def takes(kind: str) -> tuple[str, ...]:
    """The options ``kind`` takes: the names of its law's parameters."""
    return tuple(p.name for p in law_class(kind).parameters)


def law_options() -> tuple[str, ...]:
    """Every option of every kind, each once, in the order the kinds list them."""
    return tuple(dict.fromkeys(n for kind in KINDS for n in takes(kind)))


def width_options() -> tuple[str, ...]:
    """The options that set a law's width (every option but the locations, which have a
    default)."""
    return tuple(n for n in law_options()
                 if all(law_class(k).parameter(n).default is None for k in KINDS
                        if n in takes(k)))


def __getattr__(name: str):
    if name == "TAKES":
        return {kind: takes(kind) for kind in KINDS}
    if name == "LAW_OPTIONS":
        return law_options()
    if name in _LIMIT_ALIASES:
        kind, parameter = _LIMIT_ALIASES[name]
        return law_class(kind).parameter(parameter).limit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _first_parameter(name: str):
    """The kinds that take option ``--name``, and its parameter in the first of them."""
    kinds = [kind for kind in KINDS if name in takes(kind)]
    return kinds, law_class(kinds[0]).parameter(name)


def option_help(name: str) -> str:
    """The help of option ``--name``, from the tables: the kinds that take it, its domain,
    its alternative and its default."""
    kinds, p = _first_parameter(name)
    text = f"{', '.join(kinds)}: {p.domain.describe(name)}"
    if p.choice is not None:
        text += f" (or its alternative, {p.choice})"
    if p.default is not None:
        text += f"; default {p.default}"
    return text


def with_law_options(help_prefix: str = ""):
    """Give a command one option per law parameter (:func:`law_options`, help from the
    tables): the command declares ``law_args: dict`` last and receives the options' values
    there (None: not given)."""
    def wrap(command):
        sig = inspect.signature(command)
        kept = [p for p in sig.parameters.values() if p.name != "law_args"]
        names = law_options()
        extra = []
        for name in names:
            p = _first_parameter(name)[1]
            extra.append(inspect.Parameter(
                name, inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=int if p.domain.integer
                else str, default=typer.Option(None, help=help_prefix + option_help(name))))
        at = next((i for i, p in enumerate(kept) if p.name == "as_json"), len(kept))

        @functools.wraps(command)
        def run(*args, **kwargs):
            law_args = {n: kwargs.pop(n, None) for n in names}
            return command(*args, law_args=law_args, **kwargs)
        run.__signature__ = sig.replace(parameters=kept[:at] + extra + kept[at:])
        run.__annotations__ = {k: v for k, v in command.__annotations__.items()
                               if k != "law_args"}
        return run
    return wrap


def build_law(kind: str, values: dict, *, kind_option: str = "kind"):
    """The law of ``kind`` with the options' ``values`` (by parameter name; None or absent =
    not given); ParameterError naming the option for a bad value, an option the kind does
    not take, or a law beyond the size limits of its parameter table."""
    if kind not in KINDS:
        raise ParameterError(f"{kind_option} must be one of {', '.join(KINDS)}; got {kind!r}")
    cls = law_class(kind)
    table = cls.parameters
    values = {n: values.get(n) for n in law_options()}
    names = tuple(p.name for p in table)
    checks.refuse([n for n in values if values[n] is not None and n not in names],
                  f"does not apply to {kind} (it takes {', '.join(checks.opt(n) for n in names)})")
    groups = _alternatives(table, values)
    kwargs = {}
    with checks.naming():
        for p in table:
            text = values[p.name]
            if text is None:
                alternatives = groups.get(p.choice, [p.name])
                required = p.default is None and alternatives[0] == p.name
                if required and all(values[n] is None for n in alternatives):
                    raise ParameterError(f"{checks.opt(p.name)} is required for {kind}")
                continue
            kwargs[p.name] = _value(cls, p, text)
        return cls(**kwargs)


def _alternatives(table, values) -> dict[str, list[str]]:
    """The groups of alternative parameters (Pólya's beta or scale), refusing two given."""
    groups: dict[str, list[str]] = {}
    for p in table:
        if p.choice is not None:
            groups.setdefault(p.choice, []).append(p.name)
    for relation, group in groups.items():
        given = [n for n in group if values[n] is not None]
        if len(given) > 1:
            checks.refuse(given, f"contradict each other: give one of them ({relation})")
    return groups


def _value(cls, p, text):
    """One option's value, parsed exactly and checked against its domain and limit."""
    value = text  # (integers come parsed; the constructor checks them)
    if isinstance(text, str):
        value = checks.number(p.name, text, positive=p.domain.below(0),
                              integer=p.domain.integer)
        _check(p, text)
    if p.name == "beta":
        _beta_within(cls, value)
    elif p.limit is not None:
        checks.at_most(p.name, value, p.limit, p.reason)
    return value


def _check(p, text) -> None:
    """The table's check of ``text`` (the law's own domain), its error naming the option."""
    try:
        p.check(text)
    except ParameterError as exc:
        msg = str(exc)
        if not msg.startswith(p.name + " "):
            raise
        raise ParameterError(checks.opt(p.name) + msg[len(p.name):]) from None


def _beta_within(cls, beta) -> None:
    """Pólya's beta is limited through its scale b = −1/log β (the table's limit of
    ``scale``)."""
    most = cls.parameter("scale").limit
    fb = float(beta)
    b_eff = math.inf if fb == 1.0 else 0.0 if fb == 0.0 else -1.0 / math.log(fb)
    checks.at_most("beta", b_eff, most, f"beta = exp(-1/b) with b = {b_eff:.3g}; b "
                   f"at most {most:.0e} keeps the tail sums within about a minute")
