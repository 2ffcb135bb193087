"""Noise laws from command-line options (shared by `noise` and `audit --sampler`), checked
before any work: options that the kind does not take are refused, values are parsed exactly,
and laws too wide for the float tail searches to finish in about a minute are refused with
the option and its limit.

The options of each kind, their domains and their limits are the law's parameter table
(``Law.parameters``, :class:`privtools.noise.Parameter`); this module only names the kinds.
"""

from __future__ import annotations

import math

from privtools.errors import ParameterError

from . import checks

KINDS = ("laplace", "polya", "polya-difference", "skellam", "gaussian")

#: the law class of each kind, by name in :mod:`privtools.noise` (imported on first use)
LAW_NAMES = {
    "laplace": "DiscreteLaplace",
    "polya": "Polya",
    "polya-difference": "PolyaDifference",
    "skellam": "Skellam",
    "gaussian": "DiscreteGaussian",
}

# Names read from the parameter tables on first use (the noise laws load on demand).
_LIMIT_ALIASES = {
    "MAX_LAPLACE_SCALE": ("laplace", "scale"),
    "MAX_VARIANCE": ("skellam", "var"),           # and the discrete Gaussian's sigma2
    "MAX_POLYA_SCALE": ("polya", "scale"),
    "MAX_POLYA_DIFFERENCE_SCALE": ("polya-difference", "scale"),
    "MAX_POLYA_R": ("polya", "r"),
}


def law_class(kind: str):
    """The law class of ``kind`` (one of :data:`KINDS`)."""
    import privtools.noise as noise

    return getattr(noise, LAW_NAMES[kind])


def takes(kind: str) -> tuple[str, ...]:
    """The options ``kind`` takes: the names of its law's parameters."""
    return tuple(p.name for p in law_class(kind).parameters)


def law_options() -> tuple[str, ...]:
    """Every option of every kind, each once, in the order the kinds list them."""
    return tuple(dict.fromkeys(n for kind in KINDS for n in takes(kind)))


def __getattr__(name: str):
    if name == "TAKES":
        return {kind: takes(kind) for kind in KINDS}
    if name == "LAW_OPTIONS":
        return law_options()
    if name in _LIMIT_ALIASES:
        kind, parameter = _LIMIT_ALIASES[name]
        return law_class(kind).parameter(parameter).limit
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def build_law(kind: str, scale, var, sigma2, r, beta, mu, *, kind_option: str = "kind"):
    """The law of ``kind`` with the given options (None = not given); ParameterError naming
    the option for a bad value, an option the kind does not take, or a law beyond the size
    limits of its parameter table."""
    if kind not in KINDS:
        raise ParameterError(f"{kind_option} must be one of {', '.join(KINDS)}; got {kind!r}")
    cls = law_class(kind)
    table = cls.parameters
    values = dict(scale=scale, var=var, sigma2=sigma2, r=r, beta=beta, mu=mu)
    names = tuple(p.name for p in table)
    checks.refuse([n for n in values if values[n] is not None and n not in names],
                  f"does not apply to {kind} (it takes {', '.join(checks.opt(n) for n in names)})")
    groups: dict[str, list[str]] = {}
    for p in table:
        if p.choice is not None:
            groups.setdefault(p.choice, []).append(p.name)
    for relation, group in groups.items():
        given = [n for n in group if values[n] is not None]
        if len(given) > 1:
            checks.refuse(given, f"contradict each other: give one of them ({relation})")

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
            value = text  # (integers come parsed; the constructor checks them)
            if isinstance(text, str):
                value = checks.number(p.name, text, positive=p.domain.below(0),
                                      integer=p.domain.integer)
                _check(p, text)
            if p.name == "beta":
                _beta_within(cls, value)
            elif p.limit is not None:
                checks.at_most(p.name, value, p.limit, p.reason)
            kwargs[p.name] = value
        return cls(**kwargs)


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
