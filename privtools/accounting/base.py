"""The one accountant contract (as Google's ``dp_accounting.PrivacyAccountant``).

Every accountant of this package subclasses :class:`Accountant` and so answers the same
questions in the same shapes::

    acc.supports(event)            # True iff acc.compose(event) would succeed
    acc.compose(event, count=1)    # records count adaptive runs; returns acc (chainable)
    acc.events                     # ((event, count), ...) in the order composed
    acc.epsilon(delta)             # ε(δ) of everything composed (an upper bound)
    acc.delta(epsilon)             # δ(ε) of everything composed (an upper bound)
    type(acc).neighbouring         # the neighbouring relation the guarantees are for

Which events an accountant interprets is declared once, as data: the tuple
``supported_events`` of atomic event types. The composites (``ComposedEvent``,
``RepeatedEvent``) are supported iff every part is. :meth:`Accountant.compose` checks the
event against it before any work and raises :class:`~privtools.errors.UnsupportedEventError`
naming the event, the accountant and what it supports.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from privtools.errors import ParameterError, UnsupportedEventError
from privtools.neighbours import REPLACE_ONE
from privtools.validation import check_int

from .events import ComposedEvent, DpEvent, RepeatedEvent

__all__ = ["Accountant"]


def _parts(event: DpEvent):
    """The atomic events inside ``event`` (composites unfolded, every count included)."""
    if isinstance(event, ComposedEvent):
        for e in event.events:
            yield from _parts(e)
    elif isinstance(event, RepeatedEvent):
        yield from _parts(event.event)
    else:
        yield event


class Accountant(ABC):
    """Base class of the accountants: one contract, one ledger shape.

    Subclasses declare ``supported_events`` (the atomic :class:`~privtools.accounting.DpEvent`
    types they interpret) and implement :meth:`_record`, :meth:`epsilon` and :meth:`delta`.

    ``neighbouring`` names the neighbouring relation the guarantees are stated for. An
    accountant does not choose it: it compares the output laws on two datasets whose query
    differs by the event's ``sensitivity`` (or the two laws of a ``PmfPairEvent``, or an
    ε-DP / ρ-zCDP guarantee as given), so its answer holds for the relation under which each
    event's sensitivity or guarantee is stated. In paper 000 (§2, Preliminaries) that relation
    is *replace-one*: datasets in 𝒟ⁿ differing in one user's reward (Δ = g after encoding). An
    event stated under add-remove gives an add-remove guarantee instead; accountants never
    convert between relations.
    """

    #: The atomic event types this accountant interprets (composites: iff every part is).
    supported_events: tuple[type[DpEvent], ...] = ()

    #: The neighbouring relation the guarantees are stated for (see the class docstring).
    neighbouring: str = REPLACE_ONE

    def __init__(self) -> None:
        self._events: list[tuple[DpEvent, int]] = []

    # ------------------------------------------------------------------ describe
    def supports(self, event) -> bool:
        """True iff :meth:`compose` accepts ``event``: a :class:`~privtools.accounting.DpEvent`
        each of whose atomic parts (all parts of a ``ComposedEvent`` or ``RepeatedEvent``,
        whatever their counts) is an instance of one of ``supported_events``. Cheap: it
        inspects types only."""
        if not isinstance(event, DpEvent):
            return False
        return all(isinstance(e, self.supported_events) for e in _parts(event))

    def _unsupported(self, event: DpEvent) -> UnsupportedEventError:
        bad = next(e for e in _parts(event) if not isinstance(e, self.supported_events))
        name = type(bad).__name__
        within = "" if bad is event else f" (inside {type(event).__name__})"
        supported = tuple(t.__name__ for t in self.supported_events)
        return UnsupportedEventError(
            f"{type(self).__name__} cannot interpret {name}{within}; it supports "
            f"{', '.join(supported)}, and ComposedEvent / RepeatedEvent of those"
            f"{self._hint(bad)}",
            event=name, accountant=type(self).__name__, supported=supported)

    def _hint(self, event: DpEvent) -> str:
        """Extra advice appended to the unsupported-event message (default: none)."""
        return ""

    def compose(self, event: DpEvent, count: int = 1) -> Accountant:
        """Record ``count`` adaptive runs of ``event``; returns ``self`` (chainable).

        Raises :class:`~privtools.errors.ParameterError` for a non-event or a bad ``count``
        and :class:`~privtools.errors.UnsupportedEventError` for an event this accountant
        cannot interpret — both before any work."""
        if not isinstance(event, DpEvent):
            raise ParameterError(f"event must be a DpEvent, got {type(event).__name__}")
        count = check_int("count", count, minimum=0)
        if not self.supports(event):
            raise self._unsupported(event)
        self._record(event, count)
        self._events.append((event, count))
        return self

    @abstractmethod
    def _record(self, event: DpEvent, count: int) -> None:
        """Take in a supported event (validated); the base then appends it to ``events``."""

    @property
    def events(self) -> tuple[tuple[DpEvent, int], ...]:
        """Everything composed, as ``(event, count)`` pairs in the order given to
        :meth:`compose` (composites kept whole, zero counts kept) — the one ledger shape
        of every accountant."""
        return tuple(self._events)

    # ------------------------------------------------------------------ interpret
    @abstractmethod
    def epsilon(self, delta):
        """ε(δ) of everything composed; the result's ``epsilon`` is an upper bound."""

    @abstractmethod
    def delta(self, epsilon):
        """δ(ε) of everything composed; the result's ``delta`` is an upper bound."""
