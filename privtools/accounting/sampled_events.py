"""Events of sampled and approximate releases (describe, then interpret).

    PoissonSampledEvent(event, q)          ``event`` run on a Poisson subsample: each record
                                           in independently with probability q (add/remove)
    TruncatedPoissonSampledEvent(event, q, max_batch, population)
                                           the same, with any batch above ``max_batch``
                                           records cut down to it (add/remove)
    SampledWithoutReplacementEvent(event, batch, population)
                                           ``event`` run on ``batch`` records drawn without
                                           replacement from ``population`` (replace-one)
    RandomAllocationEvent(event, steps, allocations=1)
                                           ``steps`` runs of ``event``; each record takes part
                                           in ``allocations`` of them, chosen uniformly
    ShuffledEvent(local_event, n)          n users each apply an ε₀-LDP randomizer; the server
                                           sees the shuffled multiset
    ApproxDPEvent(epsilon, delta)          any (ε, δ)-DP mechanism

The inner ``event`` of a sampled event is one release of a single record's contribution:
its ``sensitivity`` bounds how far one record moves the query under the event's
``neighbouring`` relation (the DP-SGD clipping norm for add/remove). Accountants never
convert between relations: a Poisson-sampled event is accounted under add/remove (the
relation its amplification holds for), a fixed-size sample under replace-one.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from privtools.errors import ParameterError
from privtools.neighbours import ADD_REMOVE, REPLACE_ONE
from privtools.validation import check_int, to_fraction

from .base import check_relation
from .events import ComposedEvent, DpEvent, PureDPEvent, RepeatedEvent, _set

__all__ = ["PoissonSampledEvent", "TruncatedPoissonSampledEvent",
           "SampledWithoutReplacementEvent", "RandomAllocationEvent", "ShuffledEvent",
           "ApproxDPEvent"]


def _single(name: str, event) -> DpEvent:
    if not isinstance(event, DpEvent):
        raise ParameterError(f"{name} must be a DpEvent, got {type(event).__name__}")
    if isinstance(event, (ComposedEvent, RepeatedEvent)):
        raise ParameterError(f"{name} must be one release, not a {type(event).__name__}: "
                             "sample each release (compose the sampled events instead)")
    if isinstance(event, _SAMPLED_TYPES):
        raise ParameterError(f"{name} is already a sampled event "
                             f"({type(event).__name__}); sampling twice is not supported")
    return event


def _rate(name: str, value) -> Fraction:
    q = to_fraction(name, value)
    if not (0 < q <= 1):
        raise ParameterError(f"{name} must be in (0, 1], got {value!r}")
    return q


def _relation(value, allowed: str, kind: str) -> str:
    check_relation(value)
    if value != allowed:
        raise ParameterError(f"neighbouring={value!r} is not supported for {kind}: its "
                             f"amplification is accounted under {allowed!r}")
    return value


@dataclass(frozen=True)
class PoissonSampledEvent(DpEvent):
    """``event`` run on a Poisson subsample: every record is in the batch independently
    with probability ``q`` (DP-SGD's sampler; a federated round's client sampling).

    Accounted under add/remove in both directions (Zhu, Dong and Wang 2022): removing a
    record gives the pair (qP + (1 − q)Q, Q), adding one (Q, qP + (1 − q)Q), where (P, Q) is
    the inner release's pair — the larger of the two composed curves is reported."""

    event: DpEvent
    q: Fraction
    neighbouring: str = ADD_REMOVE

    def __post_init__(self):
        _set(self, "event", _single("event", self.event))
        _set(self, "q", _rate("q", self.q))
        _relation(self.neighbouring, ADD_REMOVE, "Poisson subsampling")


@dataclass(frozen=True)
class TruncatedPoissonSampledEvent(DpEvent):
    """``event`` run on a Poisson subsample at rate ``q`` whose size is capped: a batch of
    more than ``max_batch`` records is cut down to ``max_batch`` (by any rule: the first
    ones, a random subset) — the fixed-shape batches of compiled DP-SGD. ``population``:
    the most records a dataset it runs on may hold (add/remove neighbours differ by one, so
    the larger of the two).

    Accounted as Poisson sampling plus a coupling term: the capped and uncapped runs differ
    only when a batch is cut, with probability at most η = P(Bin(population, q) >
    max_batch) per step, so over k steps (adaptive: a union bound) δ(ε) grows by at most
    (1 + e^ε)·kη (:mod:`~privtools.accounting.pld.coupling`)."""

    event: DpEvent
    q: Fraction
    max_batch: int
    population: int
    neighbouring: str = ADD_REMOVE

    def __post_init__(self):
        _set(self, "event", _single("event", self.event))
        _set(self, "q", _rate("q", self.q))
        _set(self, "max_batch", check_int("max_batch", self.max_batch, minimum=1))
        _set(self, "population", check_int("population", self.population, minimum=1))
        _relation(self.neighbouring, ADD_REMOVE, "Poisson subsampling")


@dataclass(frozen=True)
class SampledWithoutReplacementEvent(DpEvent):
    """``event`` run on ``batch`` records drawn uniformly without replacement from a dataset
    of ``population`` records, accounted under replace-one at rate γ = batch/population:
    the pair (γP + (1 − γ)Q, Q) and its reverse (Balle, Barthe and Gaboardi 2018, Thm 9)."""

    event: DpEvent
    batch: int
    population: int
    neighbouring: str = REPLACE_ONE

    def __post_init__(self):
        _set(self, "event", _single("event", self.event))
        _set(self, "population", check_int("population", self.population, minimum=1))
        _set(self, "batch", check_int("batch", self.batch, minimum=1))
        if self.batch > self.population:
            raise ParameterError(f"batch must be <= population ({self.population}), got "
                                 f"{self.batch}")
        _relation(self.neighbouring, REPLACE_ONE, "sampling without replacement")

    @property
    def rate(self) -> Fraction:
        """γ = batch / population."""
        return Fraction(self.batch, self.population)


@dataclass(frozen=True)
class RandomAllocationEvent(DpEvent):
    """``steps`` runs of ``event`` in which each record takes part in exactly
    ``allocations`` runs, chosen uniformly (balls-in-bins batching; Feldman and Shenfeld).
    The event describes the whole run (compose it once per epoch)."""

    event: DpEvent
    steps: int
    allocations: int = 1
    neighbouring: str = ADD_REMOVE

    def __post_init__(self):
        _set(self, "event", _single("event", self.event))
        _set(self, "steps", check_int("steps", self.steps, minimum=1))
        _set(self, "allocations", check_int("allocations", self.allocations, minimum=1))
        if self.allocations > self.steps:
            raise ParameterError(f"allocations must be <= steps ({self.steps}), got "
                                 f"{self.allocations}")
        _relation(self.neighbouring, ADD_REMOVE, "random allocation")


@dataclass(frozen=True)
class ShuffledEvent(DpEvent):
    """``n`` users each apply an ε₀-LDP randomizer (``local_event``, a ``PureDPEvent``) and
    a shuffler hands the server the multiset of reports (replace-one)."""

    local_event: DpEvent
    n: int
    neighbouring: str = REPLACE_ONE

    def __post_init__(self):
        if not isinstance(self.local_event, PureDPEvent):
            raise ParameterError("local_event must be a PureDPEvent (an ε₀-LDP randomizer), "
                                 f"got {type(self.local_event).__name__}")
        _set(self, "n", check_int("n", self.n, minimum=1))
        _relation(self.neighbouring, REPLACE_ONE, "shuffling")


@dataclass(frozen=True)
class ApproxDPEvent(DpEvent):
    """Any (ε, δ)-DP mechanism. Interpreted by its dominating pair (Kairouz, Oh and
    Viswanath 2015): mass δ seen only under one dataset, the rest randomized response at ε."""

    epsilon: Fraction
    delta: Fraction

    def __post_init__(self):
        eps = to_fraction("epsilon", self.epsilon)
        if eps < 0:
            raise ParameterError(f"epsilon must be >= 0, got {self.epsilon!r}")
        d = to_fraction("delta", self.delta)
        if not (0 <= d <= 1):
            raise ParameterError(f"delta must be in [0, 1], got {self.delta!r}")
        _set(self, "epsilon", eps)
        _set(self, "delta", d)


_SAMPLED_TYPES = (PoissonSampledEvent, TruncatedPoissonSampledEvent,
                  SampledWithoutReplacementEvent, RandomAllocationEvent,
                  ShuffledEvent)
