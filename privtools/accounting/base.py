"""The one accountant contract (as Google's ``dp_accounting.PrivacyAccountant``).

Every accountant of this package subclasses :class:`Accountant` and so answers the same
questions in the same shapes::

    acc.supports(event)            # True iff acc.compose(event) would succeed
    acc.compose(event, count=1)    # records count adaptive runs; returns acc (chainable)
    acc.events                     # ((event, count), ...) in the order composed
    acc.epsilon(delta)             # ε(δ) of everything composed (an upper bound)
    acc.delta(epsilon)             # δ(ε) of everything composed (an upper bound)
    acc.neighbouring               # the neighbouring relation the guarantees are for
                                   # (built with it: Accountant(neighbouring="add-remove"))

Which events an accountant interprets is declared once, as data: its dispatch table
``interpreters`` (atomic event type → interpreter), from which the tuple
``supported_events`` is derived. The composites (``ComposedEvent``, ``RepeatedEvent``) are
supported iff every part is. :meth:`Accountant.supports` and :meth:`Accountant.compose` run
one traversal of the event (as dp_accounting's ``_maybe_compose``, with and without
recording), so ``supports(e)`` is False exactly where ``compose(e)`` raises
:class:`~privtools.errors.UnsupportedEventError` naming the event, the accountant and what it
supports — before any work.

The neighbouring relation is a value each accountant is built with (``neighbouring=``,
``"replace-one"`` by default; the anchor is dp_accounting's ``NeighboringRelation``) and
checks per event: an atomic event whose analysis holds under one relation only (it carries
a ``neighbouring`` field: ``PoissonSampledEvent`` and ``RandomAllocationEvent`` add/remove,
``SampledWithoutReplacementEvent`` and ``ShuffledEvent`` replace-one) is refused by
:meth:`Accountant.compose` under the other, naming the accountant that composes it. Every
other event (noise on a query, an ε-DP / (ε, δ)-DP / ρ-zCDP guarantee, a pair of laws)
holds under whichever relation its sensitivity or guarantee is stated for, so it is read as
stated for the accountant's relation. No ε therefore carries a relation its events do not
share: a ledger mixing an add/remove-only event with a replace-one-only event cannot be
built.
"""

from __future__ import annotations

from abc import ABC, abstractmethod

from privtools.errors import ParameterError, UnsupportedEventError
from privtools.neighbours import ADD_REMOVE, REPLACE_ONE
from privtools.validation import check_int

from .events import ComposedEvent, DpEvent, RepeatedEvent

__all__ = ["Accountant", "ACCOUNTANT_RELATIONS", "event_relation", "required_relation"]

#: The relations an accountant may be built with (dp_accounting's ``NeighboringRelation``:
#: ``ADD_OR_REMOVE_ONE`` and ``REPLACE_ONE``).
ACCOUNTANT_RELATIONS = (ADD_REMOVE, REPLACE_ONE)


def _parts(event: DpEvent):
    """The atomic events inside ``event`` (composites unfolded, every count included)."""
    if isinstance(event, ComposedEvent):
        for e in event.events:
            yield from _parts(e)
    elif isinstance(event, RepeatedEvent):
        yield from _parts(event.event)
    else:
        yield event


def event_relation(event: DpEvent) -> str | None:
    """The one relation an atomic event's analysis holds under (its ``neighbouring`` field:
    sampled, allocated and shuffled releases), or None when it holds under either relation
    for a sensitivity or guarantee stated for that relation."""
    rel = getattr(event, "neighbouring", None)
    return rel if isinstance(rel, str) else None


def required_relation(event: DpEvent) -> str | None:
    """The one relation every part of ``event`` (composites unfolded) holds under: the
    relation an accountant composing it must be built with; None when every part holds
    under either. A ParameterError when two parts need different relations (no accountant
    may compose them into one ε)."""
    rels = sorted({r for r in map(event_relation, _parts(event)) if r is not None})
    if len(rels) > 1:
        raise ParameterError(f"event mixes parts accounted under {rels[0]!r} and {rels[1]!r}: "
                             "no ε holds for both relations; account them separately")
    return rels[0] if rels else None


def check_relation(value) -> str:
    """``value`` when it is one of :data:`ACCOUNTANT_RELATIONS`, else a ParameterError."""
    if not isinstance(value, str) or value not in ACCOUNTANT_RELATIONS:
        raise ParameterError(f"neighbouring must be {ADD_REMOVE!r} or {REPLACE_ONE!r}, got "
                             f"{value!r}")
    return value


#: The sampling that holds under the other relation, named in the refusal.
_ALTERNATIVE = {
    ("PoissonSampledEvent", REPLACE_ONE): ", or sample fixed-size batches "
    "(SampledWithoutReplacementEvent, replace-one) for a replace-one ε",
    ("TruncatedPoissonSampledEvent", REPLACE_ONE): ", or sample fixed-size batches "
    "(SampledWithoutReplacementEvent, replace-one) for a replace-one ε",
    ("RandomAllocationEvent", REPLACE_ONE): ", or sample fixed-size batches "
    "(SampledWithoutReplacementEvent, replace-one) for a replace-one ε",
    ("SampledWithoutReplacementEvent", ADD_REMOVE): ", or sample with PoissonSampledEvent "
    "(add-remove) for an add-remove ε",
    ("SampledWithReplacementEvent", ADD_REMOVE): ", or sample with PoissonSampledEvent "
    "(add-remove) for an add-remove ε",
    ("ShuffledBatchesEvent", ADD_REMOVE): ", or batch by random allocation "
    "(RandomAllocationEvent, balls in bins; add-remove) for an add-remove ε",
}


class _Relation:
    """``neighbouring``: on an accountant, the relation it was built with (read-only); on
    the class, the default (``"replace-one"``)."""

    def __get__(self, obj, owner=None) -> str:
        return REPLACE_ONE if obj is None else obj._neighbouring

    def __set__(self, obj, value) -> None:
        raise AttributeError("neighbouring is fixed when the accountant is built: "
                             f"{type(obj).__name__}(neighbouring=...)")


class Accountant(ABC):
    """Base class of the accountants: one contract, one ledger shape.

    Subclasses declare ``interpreters`` (a dict: each atomic
    :class:`~privtools.accounting.DpEvent` type they interpret → its interpreter) and
    implement :meth:`_record`, :meth:`epsilon` and :meth:`delta`; ``supported_events`` is
    derived from ``interpreters`` (its keys, in order). :meth:`supports` and
    :meth:`compose` run the one traversal (:meth:`_walk`: composites unfolded, each atom
    looked up in ``interpreters``, its relation checked, then :meth:`_check` for what the
    atom holds inside — a sampled event's inner release, a noise law's privacy map), as
    dp_accounting's ``_maybe_compose(do_compose=False)``: supports is False exactly where
    compose raises :class:`~privtools.errors.UnsupportedEventError`.

    ``neighbouring`` (``"replace-one"`` or ``"add-remove"``, keyword of the constructor;
    default ``"replace-one"``) is the neighbouring relation the guarantees are stated for,
    and ``acc.neighbouring`` reads it back. The accountant compares the output laws on two
    datasets whose query differs by the event's ``sensitivity`` (or the two laws of a
    ``PmfPairEvent``, or an ε-DP / ρ-zCDP guarantee as given), so a plain event's answer holds
    for the relation under which its sensitivity or guarantee is stated — the caller states
    it for the accountant's relation. In paper 000 (§2, Preliminaries) that relation is
    *replace-one*: datasets in 𝒟ⁿ differing in one user's reward (Δ = g after encoding).
    Events whose analysis holds under one relation only (:func:`event_relation`: Poisson
    subsampling and random allocation add/remove, sampling without replacement and
    shuffling replace-one) are refused under the other with
    :class:`~privtools.errors.UnsupportedEventError` (a ParameterError) naming the sound
    alternative; accountants never convert between relations.
    """

    #: Each atomic event type this accountant interprets → its interpreter (the one
    #: declaration; composites: iff every part is).
    interpreters: dict = {}

    #: The atomic event types this accountant interprets: the keys of ``interpreters``.
    supported_events: tuple[type[DpEvent], ...] = ()

    #: The neighbouring relation the guarantees are stated for (see the class docstring):
    #: the instance's own; read on the class, the default ``"replace-one"``.
    neighbouring = _Relation()

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if "interpreters" in cls.__dict__:
            cls.supported_events = tuple(cls.interpreters)

    def __init__(self, *, neighbouring: str = REPLACE_ONE) -> None:
        self._neighbouring = check_relation(neighbouring)
        self._events: list[tuple[DpEvent, int]] = []

    # ------------------------------------------------------------------ describe
    def supports(self, event) -> bool:
        """True iff :meth:`compose` accepts ``event``: the traversal of :meth:`compose`
        (:meth:`_walk`) run without recording — every atomic part (all parts of a
        ``ComposedEvent`` or ``RepeatedEvent``, whatever their counts, and what a sampled
        event holds) has an interpreter here, and an event that holds under one relation
        only is under the accountant's :attr:`neighbouring`. Cheap: no law is computed."""
        if not isinstance(event, DpEvent):
            return False
        try:
            self._walk(event)
        except UnsupportedEventError:
            return False
        return True

    def _interpreter(self, event: DpEvent):
        """The interpreter of an atomic event's type (or of its nearest supported base), or
        None."""
        for cls in type(event).__mro__:
            fn = self.interpreters.get(cls)
            if fn is not None:
                return fn
        return None

    def _walk(self, event: DpEvent, top: DpEvent | None = None) -> list:
        """The one traversal: ``(atom, interpreter)`` of every atomic part of ``event``, or
        :class:`~privtools.errors.UnsupportedEventError` for the first part this accountant
        cannot interpret (``top``: the event composed, named in the message)."""
        top = event if top is None else top
        if isinstance(event, ComposedEvent):
            return [pair for e in event.events for pair in self._walk(e, top)]
        if isinstance(event, RepeatedEvent):
            return self._walk(event.event, top)
        return [(event, self._atom(event, top))]

    def _atom(self, event: DpEvent, top: DpEvent):
        """The interpreter of one atomic part, after its relation and :meth:`_check`."""
        fn = self._interpreter(event)
        if fn is None:
            raise self._refusal(event, top)
        rel = event_relation(event)
        if rel is not None and rel != self.neighbouring:
            raise self._relation_refusal(event, top)
        self._check(event, top)
        return fn

    def _check(self, event: DpEvent, top: DpEvent) -> None:
        """What an atom with an interpreter must further satisfy (default: nothing); raise
        :class:`~privtools.errors.UnsupportedEventError` (see :meth:`_refusal`)."""
        return None

    def _within(self, event: DpEvent, top: DpEvent) -> str:
        return "" if event is top else f" (inside {type(top).__name__})"

    def _refusal(self, event: DpEvent, top: DpEvent, why: str | None = None
                 ) -> UnsupportedEventError:
        """The refusal of an atom this accountant has no interpreter for (or, with ``why``,
        one whose content it cannot read)."""
        name = type(event).__name__
        supported = tuple(t.__name__ for t in self.supported_events)
        if why is not None:
            return UnsupportedEventError(
                f"{type(self).__name__} cannot interpret {name}{self._within(event, top)}: "
                f"{why}", event=name, accountant=type(self).__name__, supported=supported)
        return UnsupportedEventError(
            f"{type(self).__name__} cannot interpret {name}{self._within(event, top)}; it "
            f"supports {', '.join(supported)}, and ComposedEvent / RepeatedEvent of those"
            f"{self._hint(event)}",
            event=name, accountant=type(self).__name__, supported=supported)

    def _relation_refusal(self, event: DpEvent, top: DpEvent) -> UnsupportedEventError:
        name = type(event).__name__
        rel, acc = event_relation(event), type(self).__name__
        return UnsupportedEventError(
            f"{name}{self._within(event, top)} is accounted under {rel!r} (neighbouring="
            f"{rel!r}), but this {acc} certifies {self.neighbouring!r}: its ε would carry a "
            f"relation the event does not hold under. Compose it in {acc}(neighbouring="
            f"{rel!r}){_ALTERNATIVE.get((name, self.neighbouring), '')}; one accountant "
            "never mixes relations",
            event=name, accountant=acc,
            supported=tuple(t.__name__ for t in self.supported_events))

    def _hint(self, event: DpEvent) -> str:
        """Extra advice appended to the unsupported-event message (default: none)."""
        return ""

    def compose(self, event: DpEvent, count: int = 1) -> Accountant:
        """Record ``count`` adaptive runs of ``event``; returns ``self`` (chainable).

        Raises :class:`~privtools.errors.ParameterError` for a non-event or a bad ``count``
        and :class:`~privtools.errors.UnsupportedEventError` for an event this accountant
        cannot interpret — both before any work (the traversal of :meth:`supports`)."""
        if not isinstance(event, DpEvent):
            raise ParameterError(f"event must be a DpEvent, got {type(event).__name__}")
        count = check_int("count", count, minimum=0)
        self._walk(event)
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
