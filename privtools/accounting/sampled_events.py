"""Events of sampled and approximate releases (describe, then interpret).

    PoissonSampledEvent(event, q)          ``event`` run on a Poisson subsample: each record
                                           in independently with probability q (add/remove)
    TruncatedPoissonSampledEvent(event, q, max_batch, population)
                                           the same, with any batch above ``max_batch``
                                           records cut down to it (add/remove)
    SampledWithoutReplacementEvent(event, batch, population)
                                           ``event`` run on ``batch`` records drawn without
                                           replacement from ``population`` (replace-one)
    SampledWithReplacementEvent(event, batch, population)
                                           ``event`` run on ``batch`` independent uniform
                                           draws from ``population`` (replace-one)
    ShuffledBatchesEvent(event, steps)     one epoch of ``steps`` fixed-size batches cut
                                           from one random permutation (replace-one)
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

from dataclasses import dataclass, replace
from fractions import Fraction

from privtools.errors import ParameterError
from privtools.neighbours import ADD_REMOVE, REPLACE_ONE
from privtools.validation import check_int, to_fraction

from .base import check_relation
from .events import (
    ComposedEvent,
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    DpEvent,
    GaussianEvent,
    LaplaceEvent,
    NoiseEvent,
    PureDPEvent,
    RepeatedEvent,
    SkellamEvent,
    _set,
)

__all__ = ["PoissonSampledEvent", "TruncatedPoissonSampledEvent",
           "SampledWithoutReplacementEvent", "SampledWithReplacementEvent",
           "RandomAllocationEvent", "ShuffledBatchesEvent", "ShuffledEvent", "ApproxDPEvent",
           "GROUPED"]


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


#: Inner events whose release on a batch holding the differing record ℓ times is known:
#: additive noise (sensitivity ℓΔ) and ε-DP guarantees (group privacy: ℓε).
GROUPED = (GaussianEvent, LaplaceEvent, DiscreteLaplaceEvent, NoiseEvent, SkellamEvent,
           DiscreteGaussianSumEvent, PureDPEvent)


@dataclass(frozen=True)
class SampledWithReplacementEvent(DpEvent):
    """``event`` run on a batch of ``batch`` records drawn uniformly *with* replacement from
    a dataset of ``population`` records (replace-one).

    The differing record is drawn ℓ ~ Bin(batch, 1/population) times, the same ℓ under
    both datasets (the draws are coupled), and the batches then differ in ℓ places. The
    pair accounted reveals ℓ: the mixture over ℓ of the inner release at group distance ℓ
    (:meth:`copies`: sensitivity ℓΔ for additive noise, ℓε for an ε-DP guarantee; Balle,
    Barthe and Gaboardi 2018 §5 take the same route). Revealing ℓ only adds information, so
    the pair dominates the run; its lower end bounds that pair, not the run."""

    event: DpEvent
    batch: int
    population: int
    neighbouring: str = REPLACE_ONE

    def __post_init__(self):
        _set(self, "event", _single("event", self.event))
        if not isinstance(self.event, GROUPED):
            names = ", ".join(t.__name__ for t in GROUPED)
            raise ParameterError(
                f"event must be additive noise or an ε-DP guarantee ({names}) for sampling "
                f"with replacement, got {type(self.event).__name__}: its release on a batch "
                "holding a record several times is not known here")
        _set(self, "batch", check_int("batch", self.batch, minimum=1))
        _set(self, "population", check_int("population", self.population, minimum=1))
        _relation(self.neighbouring, REPLACE_ONE, "sampling with replacement")

    def copies(self, ell: int) -> DpEvent:
        """The inner event on two batches that differ in ``ell`` >= 1 places."""
        e = self.event
        if isinstance(e, PureDPEvent):
            return replace(e, eps=ell * e.eps)
        return replace(e, sensitivity=ell * e.sensitivity)


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
class ShuffledBatchesEvent(DpEvent):
    """One epoch of DP-SGD's shuffled batches: the dataset is permuted uniformly and cut into
    ``steps`` batches of a fixed size, each run through ``event`` (replace-one).

    No amplification by this shuffle is certified: none is known to hold in general (Chua
    et al. 2024 show shuffled epochs may leak far more than the Poisson accounting often
    reported for them). Accounted as what is sound — with the permutation revealed, the
    differing record sits in exactly one batch, so the epoch is one run of ``event``. For
    amplification, batch by random allocation (:class:`RandomAllocationEvent`, balls in
    bins) or Poisson sampling, and account that."""

    event: DpEvent
    steps: int
    neighbouring: str = REPLACE_ONE

    def __post_init__(self):
        _set(self, "event", _single("event", self.event))
        _set(self, "steps", check_int("steps", self.steps, minimum=1))
        _relation(self.neighbouring, REPLACE_ONE, "shuffled fixed-size batches")


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
                  SampledWithoutReplacementEvent, SampledWithReplacementEvent,
                  RandomAllocationEvent, ShuffledBatchesEvent, ShuffledEvent)
