"""The limits of a deployment plan, declared once, each with its reason.

:func:`privtools.planning.plan` (the API), ``privtools plan`` and ``privtools audit
--mechanism`` (the command line) read this one table, for every privacy kind (pure-dp, rdp,
cdp) alike, so the same nonsense is refused everywhere — before any work, with a
:class:`~privtools.errors.ParameterError` that names the parameter (``epsilon = 1e+308 is
above the limit 1000: ...``; the command line names the option, ``--epsilon``).

==============  ==================  =========================================================
parameter       accepted            why
==============  ==================  =========================================================
``epsilon``     0 < ε <= 1000       :data:`EPSILON`: at ε = 1000 a view's likelihood ratio
                                    may reach e^1000 ≈ 10^434 — no privacy is left, for every
                                    kind alike
``delta``       2^-128 <= δ < 1     :data:`DELTA` (δ = 0 where pure ε-DP is meant): below the
                                    cryptographic security level 2^-128 of the secure
                                    computation, a smaller δ certifies nothing more
``p``           2^-128 <= p < 1     :data:`P`: the failure probability per batch, same floor
``n``           1 <= n <= 10^12     :data:`N`: users per batch, over a hundred times the
                                    world's population
``horizon``     1 <= T <= 10^18     :data:`HORIZON`: rounds, counted in int64; p = 1/T stays
                                    above the floor of p
``tau``         0 <= τ <= 2^62      :data:`TAU`: a point of the noise laws
                                    (:data:`privtools.validation.POINT_LIMIT`)
``bits``        1 <= bits <= 64     :data:`BITS`: one user's message, an element of Z_m, fits
                                    a 64-bit word
``m``           2 <= m <= 2^64      :data:`M`: the modulus, ⌈log₂ m⌉ = bits per user
==============  ==================  =========================================================

Each limit is a :class:`Limit` value — ``Limit.check(value)`` returns the value or raises
naming the parameter; :data:`LIMITS` lists them all. Work limits of single commands (how
long an exact verification may run) stay with those commands: they are not properties of a
plan.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from privtools.errors import ParameterError
from privtools.validation import POINT_LIMIT
from privtools.validation import show_number as show

__all__ = ["Limit", "EPSILON", "DELTA", "P", "N", "HORIZON", "TAU", "BITS", "M", "LIMITS"]


@dataclass(frozen=True)
class Limit:
    """The accepted range of one plan parameter, and the reason for it.

    ``low <= value <= high`` (an end is open when ``low_open`` / ``high_open``);
    ``shown_low`` / ``shown_high`` spell the ends for messages (``"2**-128"`` rather than a
    39-digit fraction); ``low_reason`` is the reason given below ``low`` (default
    ``reason``)."""

    name: str
    low: Fraction | int
    high: Fraction | int
    reason: str
    low_open: bool = False
    high_open: bool = False
    shown_low: str | None = None
    shown_high: str | None = None
    low_reason: str | None = None

    def contains(self, value) -> bool:
        """Whether the exact number ``value`` lies within the limit."""
        try:
            self.check(value)
        except ParameterError:
            return False
        return True

    def check(self, value, name: str | None = None):
        """``value`` (an exact number: int or Fraction) when it lies within the limit; else a
        ParameterError that starts with ``name`` (default: the limit's own ``name``) and
        gives the limit and its reason."""
        name = self.name if name is None else name
        too_low = value <= self.low if self.low_open else value < self.low
        too_high = value >= self.high if self.high_open else value > self.high
        if not (too_low or too_high):
            return value
        if too_low:
            bound, rel = self.shown_low or show(self.low), "at or below" if self.low_open \
                else "below"
        else:
            bound, rel = self.shown_high or show(self.high), "at or above" if self.high_open \
                else "above"
        why = self.low_reason if too_low and self.low_reason else self.reason
        raise ParameterError(f"{name} = {show(value)} is {rel} the limit {bound}: {why}")

    def describe(self) -> str:
        """The range as text, e.g. ``0 < epsilon <= 1000``."""
        lo = self.shown_low or show(self.low)
        hi = self.shown_high or show(self.high)
        return (f"{lo} {'<' if self.low_open else '<='} {self.name} "
                f"{'<' if self.high_open else '<='} {hi}")


#: ε of every privacy kind (pure ε, the RDP ε of Theorem 2, the CDP ε of Theorem 4, and the
#: per-user ε of returning users).
EPSILON = Limit(
    "epsilon", 0, 1000, low_open=True, low_reason="privacy is measured by an epsilon > 0",
    reason="at epsilon = 1000 the likelihood ratio of a view may reach e^1000 (about 10^434): "
           "no privacy is left, for pure-dp, rdp and cdp plans alike (and every certified "
           "(epsilon, delta) conversion works far below it)")

_PROBABILITY_FLOOR = Fraction(1, 2**128)

#: δ of an (ε, δ) guarantee (0 stands for pure ε-DP where a plan allows it).
DELTA = Limit(
    "delta", _PROBABILITY_FLOOR, 1, high_open=True, shown_low="2**-128 (2.94e-39)",
    reason="delta is a probability below 1, and 2**-128 is the cryptographic security level "
           "of the secure computation the plan runs on: a smaller delta certifies nothing "
           "more (and its certified accounting takes minutes)")

#: The failure probability p per batch (default 1/T).
P = Limit(
    "p", _PROBABILITY_FLOOR, 1, high_open=True, shown_low="2**-128 (2.94e-39)",
    reason="p is a probability below 1, and 2**-128 is the cryptographic security level of "
           "the secure computation the plan runs on: a smaller failure probability buys "
           "nothing (and the float paths of the exact tails read p)")

#: Users per batch.
N = Limit(
    "n", 1, 10**12, shown_high="10**12",
    reason="users per batch; 10**12 is over a hundred times the world's population "
           "(beyond it the precision g = ⌈sε√n⌉ and the exact tails grow without purpose)")

#: The horizon T (rounds).
HORIZON = Limit(
    "horizon", 1, 10**18, shown_high="10**18",
    reason="rounds are counted in int64 (10**18 rounds is one per nanosecond for 30 "
           "years), and the default failure probability p = 1/T stays above the limit of p")

#: The analyzer's threshold τ, a point of the noise laws.
TAU = Limit(
    "tau", 0, POINT_LIMIT, shown_high="2**62",
    reason="tau is a point of the noise laws, whose integer points are limited to ±2**62 so "
           "that int64 arithmetic never wraps around (privtools.validation.POINT_LIMIT)")

#: Bits per user message, ⌈log₂ m⌉.
BITS = Limit(
    "bits", 1, 64,
    reason="one user's message, an element of Z_m, fits a 64-bit word (realistic plans need "
           "20 to 45 bits; wider moduli come only from nonsense inputs)")

#: The modulus m of the secure sum (m <= 2**BITS.high, i.e. at most BITS.high bits).
M = Limit("m", 2, 2**BITS.high, shown_high=f"2**{BITS.high} ({BITS.high} bits per user)",
          reason=BITS.reason)

#: Every limit of the table, in the order of the module's table.
LIMITS = (EPSILON, DELTA, P, N, HORIZON, TAU, BITS, M)
