"""The parameters of the noise laws, declared once per law (``Law.parameters``).

Each :class:`Parameter` states its exact :class:`Domain` (the set of numbers the law is
defined for in paper 000: ``real > 0``, ``0 < beta < 1``, an integer location), what the
float methods need to represent it (float64's normal range; ``|mu| < 2**61`` so that int64
arithmetic on points never wraps around), the statement of the paper that defines it, and a
practical limit with its reason. The constructor of every law checks its arguments through
its table (:meth:`Parameter.check`: the error names the parameter); ``privtools noise`` and
``privtools audit --sampler`` refuse laws beyond the limits (:attr:`Parameter.limit`) before
any work; :func:`privtools.testing.strategies.noise_laws` draws laws from the domains.

The limits were measured on 2 cores: describing a law at the limit — moments and certified
ranges down to 1e-30 — takes at most about 40 s; beyond them the float tail searches take
minutes to hours, or leave the int64 range. They are limits of the work, not of the law: a
law beyond them can still be built (and sampled), but no command describes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from privtools.errors import ParameterError
from privtools.validation import (
    FLOAT_MAX,
    FLOAT_MIN,
    LOCATION_LIMIT,
    check_float_range,
    check_int,
    show_number,
    to_fraction,
)

__all__ = ["Domain", "Parameter", "REAL_POSITIVE", "OPEN_UNIT", "INTEGER", "location"]

#: The reason given when the float methods read a parameter as a float64.
FLOAT_READ = "the float methods read it as a float64"


@dataclass(frozen=True)
class Domain:
    """An exact set of numbers: the integers or the reals between ``low`` and ``high``
    (None: unbounded on that side; an end is excluded when ``low_open`` / ``high_open``).
    :meth:`contains` decides membership exactly on ints and Fractions; the ends and the
    ``integer`` flag are what a strategy draws from."""

    integer: bool = False
    low: Fraction | int | None = None
    high: Fraction | int | None = None
    low_open: bool = False
    high_open: bool = False

    def below(self, x) -> bool:
        """``x`` lies below the low end (at it, when the end is open)."""
        if self.low is None:
            return False
        return x <= self.low if self.low_open else x < self.low

    def above(self, x) -> bool:
        """``x`` lies above the high end (at it, when the end is open)."""
        if self.high is None:
            return False
        return x >= self.high if self.high_open else x > self.high

    def contains(self, x) -> bool:
        """Whether the exact number ``x`` (int or Fraction) lies in the domain."""
        if self.integer and Fraction(x).denominator != 1:
            return False
        return not (self.below(x) or self.above(x))

    def describe(self, name: str) -> str:
        """The domain as text: ``real scale > 0``, ``real 0 < beta < 1``, ``integer mu``."""
        kind = "integer" if self.integer else "real"
        if self.low is not None and self.high is None:
            return f"{kind} {name} {'>' if self.low_open else '≥'} {show_number(self.low)}"
        lo = "" if self.low is None else \
            f"{show_number(self.low)} {'<' if self.low_open else '≤'} "
        hi = "" if self.high is None else \
            f" {'<' if self.high_open else '≤'} {show_number(self.high)}"
        return f"{kind} {lo}{name}{hi}"

    def outside(self) -> tuple:
        """Exact numbers just outside the domain: an open end itself, one integer (or 2**-64)
        beyond a closed end, and 1/2 for the integers."""
        step = 1 if self.integer else Fraction(1, 2**64)
        out = []
        if self.low is not None:
            out.append(self.low if self.low_open else self.low - step)
        if self.high is not None:
            out.append(self.high if self.high_open else self.high + step)
        if self.integer:
            out.append(Fraction(1, 2))
        return tuple(out)


#: ``real > 0``: scales, variances, Pólya's r.
REAL_POSITIVE = Domain(low=0, low_open=True)
#: ``0 < x < 1``: Pólya's beta.
OPEN_UNIT = Domain(low=0, high=1, low_open=True, high_open=True)
#: The integers: locations.
INTEGER = Domain(integer=True)


@dataclass(frozen=True)
class Parameter:
    """One parameter of a noise law.

    * ``name`` — the constructor's argument (and the command-line option ``--name``);
    * ``domain`` — the exact :class:`Domain` of the paper's ``statement``;
    * ``reads`` — what the float methods read as a float64 (``"x"``, ``"1/x"``, ``"1-x"``):
      each must lie in float64's normal range, else the error gives ``why``;
    * ``bound`` — integers only: ``|x| <= bound`` (int64 arithmetic on points);
    * ``limit`` / ``reason`` — the practical limit of the work on a law (None: none);
    * ``default`` — the value when the argument is not given (None: the argument is
      required, unless ``choice`` names a group of alternatives, exactly one of which is
      given: Pólya's ``beta`` or ``scale``, related by ``choice``);
    * ``width_power`` — strategies draw the parameter up to ``max_scale ** width_power``
      (1: a scale, a shape or a location; 2: a variance)."""

    name: str
    domain: Domain
    statement: str
    limit: Fraction | int | None = None
    reason: str = ""
    reads: tuple[str, ...] = ()
    why: str = FLOAT_READ
    bound: int | None = None
    default: int | None = None
    choice: str | None = None
    width_power: int = 1

    def check(self, value, name: str | None = None):
        """``value`` as an exact number (int for integer domains, else Fraction) when it lies
        in the domain and the float methods can represent it; else a ParameterError that
        starts with ``name`` (default: the parameter's own name)."""
        name = self.name if name is None else name
        d = self.domain
        if d.integer:
            lo = -self.bound if self.bound is not None else None
            hi = self.bound
            if d.low is not None:
                lo = d.low if lo is None else max(lo, d.low + (1 if d.low_open else 0))
            if d.high is not None:
                hi = d.high if hi is None else min(hi, d.high - (1 if d.high_open else 0))
            return check_int(name, value, minimum=lo, maximum=hi)
        x = to_fraction(name, value)
        if d.below(x):
            raise ParameterError(f"{name} must be {'>' if d.low_open else '>='} "
                                 f"{show_number(d.low)}, got {value!r}")
        if d.above(x):
            raise ParameterError(f"{name} must be {'<' if d.high_open else '<='} "
                                 f"{show_number(d.high)}, got {value!r}")
        if "x" in self.reads:
            check_float_range(name, x, reciprocal="1/x" in self.reads, why=self.why)
        if "1-x" in self.reads:
            check_float_range(f"1 - {name}", 1 - x, why=self.why)
        return x

    def within_limit(self, x) -> bool:
        """Whether the exact value ``x`` lies within the practical limit."""
        return self.limit is None or x <= self.limit

    def outside(self) -> tuple:
        """Exact numbers just outside what :meth:`check` accepts: just outside the domain,
        just beyond ``bound``, and just beyond float64's normal range where it is read."""
        out = list(self.domain.outside())
        if self.bound is not None:
            out += [self.bound + 1, -self.bound - 1]
        tiny, huge = FLOAT_MIN / 2, FLOAT_MAX * 2
        if "x" in self.reads:
            if self.domain.contains(tiny):
                out.append(tiny)
            if self.domain.contains(huge):
                out.append(huge)
        if "1/x" in self.reads and self.domain.contains(1 / tiny):
            out.append(1 / tiny)
        if "1-x" in self.reads and self.domain.contains(1 - tiny):
            out.append(1 - tiny)
        return tuple(out)

    def describe(self) -> str:
        """The domain, and the limit with its reason, as one line of text."""
        text = self.domain.describe(self.name)
        if self.bound is not None:
            text += f", |{self.name}| ≤ {show_number(self.bound)}"
        if self.limit is not None:
            text += f"; at most {show_number(self.limit)} ({self.reason})"
        return text


def location(statement: str) -> Parameter:
    """The integer location ``mu`` of a symmetric law (default 0), with |mu| at most
    :data:`~privtools.validation.LOCATION_LIMIT` so that mirrored points 2·mu − k − 1 stay in
    int64."""
    return Parameter("mu", INTEGER, statement, bound=LOCATION_LIMIT, default=0)
