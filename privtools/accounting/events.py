"""Privacy events: small immutable descriptions of mechanisms (describe, then interpret).

Following Google's ``dp_accounting`` ``DpEvent``: an event says *what* was released —
which noise, at which scale, on a query of which sensitivity — and nothing about how to
account for it. Accountants (``accountant.RdpAccountant``) interpret events. Parameters
are validated and stored exactly (Fractions / ints) at construction.

    DiscreteLaplaceEvent(scale, sensitivity=1)        Lap_Z(b) on an integer query (Thm 1, 5)
    SkellamEvent(var, sensitivity, bound="lemma3", exact=False)   Sk(0, σ²) (Thm 2, Lemma 3)
    DiscreteGaussianSumEvent(n, sigma2, sensitivity, exact=False) Σ of n N_Z(0, σ²) (Lemma 4)
    GaussianEvent(sigma, sensitivity=1)               continuous N(0, σ²)
    LaplaceEvent(b, sensitivity=1)                    continuous Laplace(b)
    ZCDPEvent(rho)                                    any ρ-zCDP mechanism
    PureDPEvent(eps, tight=False)                     any ε-DP mechanism
    ComposedEvent(events)                             all of them, adaptively composed
    RepeatedEvent(event, count)                       ``count`` runs of ``event``
                                                      (e.g. a returning user's B batches, App. H)
    ModularEvent(event, modulus)                      the server's mod-m view of an
                                                      integer-noise event (000 Alg. 2/3)
    PmfPairEvent(p, q)                                any two certified output laws
                                                      (``privtools.exact.ExactPMF``)
    NoiseEvent(law, sensitivity=1, exact=False)       any law of ``privtools.noise`` (or a
                                                      ``NoiseSum`` of one) on an integer query

``NoiseEvent`` is the one form of a noise law on a query: the accountants read it through
the law's row of :mod:`privtools.accounting.maps` (its privacy map). The three named noise
events are its thin constructors: ``DiscreteLaplaceEvent(b, Δ).noise`` is
``NoiseEvent(DiscreteLaplace(b), Δ)``, ``SkellamEvent(v, Δ).noise`` is
``NoiseEvent(Skellam(v), Δ)``, ``DiscreteGaussianSumEvent(n, σ², Δ).noise`` is the
``NoiseEvent`` of the n-fold sum ``NoiseSum(DiscreteGaussian(σ²), n)`` (the discrete
Gaussian itself for n = 1), and every accountant interprets them through the same row.

``exact=True`` (Skellam, discrete-Gaussian sum) asks the RDP accountant for the exact
numeric Rényi divergence of the shifted noise (the upper end of a certified interval:
``privtools.exact.divergence.renyi_shift``, and ``gaussian_sum_renyi`` for the n-fold
discrete-Gaussian sum on Z), capped by the paper's bound (the minimum of two valid upper
bounds).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import cached_property

from privtools.errors import ParameterError
from privtools.exact import ExactPMF
from privtools.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    IntegerDistribution,
    NoiseSum,
    Skellam,
)
from privtools.validation import check_int, check_nonneg, check_positive_fraction

from ._numeric import check_sensitivity

__all__ = [
    "DpEvent",
    "DiscreteLaplaceEvent",
    "SkellamEvent",
    "DiscreteGaussianSumEvent",
    "GaussianEvent",
    "LaplaceEvent",
    "ZCDPEvent",
    "PureDPEvent",
    "ComposedEvent",
    "RepeatedEvent",
    "ModularEvent",
    "PmfPairEvent",
    "NoiseEvent",
]


class DpEvent:
    """Base class of the events (a marker: events carry data only)."""

    __slots__ = ()


def _set(obj, name, value):
    object.__setattr__(obj, name, value)


def _check_bool(name: str, value) -> bool:
    if not isinstance(value, bool):
        raise ParameterError(f"{name} must be True or False, got {value!r}")
    return value


@dataclass(frozen=True)
class NoiseEvent(DpEvent):
    """A noise law of :mod:`privtools.noise` (an integer law, or a ``NoiseSum`` of n i.i.d.
    shares) added to an integer query of sensitivity Δ = ``sensitivity``: the release
    M(D) = q(D) + X, whose privacy loss is that of the law against the law shifted by Δ.

    How each accountant reads it is the law's privacy map, declared once per law type in
    :data:`privtools.accounting.maps.PRIVACY_MAPS` (Fact 2 (000) for Lap_Z, Lemma 3 for
    Skellam, Lemma 4 for discrete-Gaussian sums; the certified PMF otherwise).
    ``exact=True`` asks the RDP accountant for the certified numeric Rényi divergence where
    the row has one, capped by the paper's bound (as ``SkellamEvent(exact=True)``)."""

    law: object
    sensitivity: int = 1
    exact: bool = False

    def __post_init__(self):
        if not isinstance(self.law, (IntegerDistribution, NoiseSum)):
            raise ParameterError("law must be a privtools.noise law (or a NoiseSum of one), "
                                 f"got {type(self.law).__name__}")
        _set(self, "sensitivity", int(check_sensitivity(self.sensitivity, integer=True)))
        _check_bool("exact", self.exact)

    @property
    def noise(self) -> NoiseEvent:
        """The event itself (the form every named noise event has as ``.noise``)."""
        return self


@dataclass(frozen=True)
class DiscreteLaplaceEvent(DpEvent):
    """Lap_Z(``scale``) added to an integer query of sensitivity ``sensitivity`` —
    the total noise of Theorem 1 (000) (scale g/ε, Δ = g) or the central Theorem 5."""

    scale: Fraction
    sensitivity: int = 1

    def __post_init__(self):
        _set(self, "scale", check_positive_fraction("scale", self.scale))
        _set(self, "sensitivity", int(check_sensitivity(self.sensitivity, integer=True)))

    @cached_property
    def noise(self) -> NoiseEvent:
        """``NoiseEvent(DiscreteLaplace(scale), sensitivity)``: how the accountants read it."""
        return NoiseEvent(DiscreteLaplace(self.scale), self.sensitivity)


@dataclass(frozen=True)
class SkellamEvent(DpEvent):
    """Sk(0, ``var``) added to an integer query of sensitivity Δ (Theorem 2 (000): total
    noise Sk(0, g²/ε²), Δ = g).

    ``bound="lemma3"``: interpret with Lemma 3 (000) (integer orders; a non-integer α is
    bounded by the value at ⌈α⌉, valid because D_α is non-decreasing in α).
    ``exact=True``: the exact Rényi divergence from
    ``privtools.exact.divergence.renyi_shift(Skellam(var), sensitivity, alpha)`` (evaluated at
    ⌈α⌉ likewise; needs the verification package).
    """

    var: Fraction
    sensitivity: int
    bound: str = "lemma3"
    exact: bool = False

    def __post_init__(self):
        _set(self, "var", check_positive_fraction("var", self.var))
        _set(self, "sensitivity", int(check_sensitivity(self.sensitivity, integer=True)))
        if self.bound != "lemma3":
            raise ParameterError(f"bound must be 'lemma3', got {self.bound!r}")
        _check_bool("exact", self.exact)

    @cached_property
    def noise(self) -> NoiseEvent:
        """``NoiseEvent(Skellam(var), sensitivity, exact)``: how the accountants read it."""
        return NoiseEvent(Skellam(self.var), self.sensitivity, self.exact)


@dataclass(frozen=True)
class DiscreteGaussianSumEvent(DpEvent):
    """Z_n = Σ_{i<=n} X_i, X_i ~ N_Z(0, ``sigma2``) i.i.d., added to an integer query of
    sensitivity Δ (Theorem 4 (000): σ² = g²/(nε²), Δ = g).

    Default interpretation: Lemma 4 (000), ½ε²-CDP, i.e. ε(α) = ½ε²α (requires σ >= 1/2).
    ``exact=True``: ``privtools.exact.divergence.renyi_shift`` on the certified PMF of Z_n
    (``privtools.exact.sum_pmf``), at ⌈α⌉.
    """

    n: int
    sigma2: Fraction
    sensitivity: int
    exact: bool = False

    def __post_init__(self):
        _set(self, "n", check_int("n", self.n, minimum=1))
        s2 = check_positive_fraction("sigma2", self.sigma2)
        _check_bool("exact", self.exact)
        if s2 < Fraction(1, 4) and not self.exact:
            raise ParameterError(f"sigma2 must be >= 1/4 (Lemma 4 (000) requires σ >= 1/2), "
                                 f"got {s2}")
        _set(self, "sigma2", s2)
        _set(self, "sensitivity", int(check_sensitivity(self.sensitivity, integer=True)))

    @cached_property
    def noise(self) -> NoiseEvent:
        """The ``NoiseEvent`` of Z_n: ``NoiseSum(DiscreteGaussian(sigma2), n)`` (the discrete
        Gaussian itself for n = 1), read by the accountants."""
        share = DiscreteGaussian(sigma2=self.sigma2)
        law = share if self.n == 1 else NoiseSum(share, self.n)
        return NoiseEvent(law, self.sensitivity, self.exact)


@dataclass(frozen=True)
class GaussianEvent(DpEvent):
    """Continuous N(0, σ²), σ = ``sigma``, on a query of L2 sensitivity Δ."""

    sigma: Fraction
    sensitivity: Fraction = Fraction(1)

    def __post_init__(self):
        _set(self, "sigma", check_positive_fraction("sigma", self.sigma))
        _set(self, "sensitivity", check_sensitivity(self.sensitivity, integer=False))


@dataclass(frozen=True)
class LaplaceEvent(DpEvent):
    """Continuous Laplace(``b``) on a query of L1 sensitivity Δ."""

    b: Fraction
    sensitivity: Fraction = Fraction(1)

    def __post_init__(self):
        _set(self, "b", check_positive_fraction("b", self.b))
        _set(self, "sensitivity", check_sensitivity(self.sensitivity, integer=False))


@dataclass(frozen=True)
class ZCDPEvent(DpEvent):
    """A ρ-zCDP mechanism (½ε²-CDP in 000's notation is ρ = ε²/2)."""

    rho: Fraction

    def __post_init__(self):
        _set(self, "rho", check_nonneg("rho", self.rho))


@dataclass(frozen=True)
class PureDPEvent(DpEvent):
    """An ε-DP mechanism; interpreted as min{ε, ½ε²α} (``tight=False``) or as the exact
    randomized-response curve (``tight=True``)."""

    eps: Fraction
    tight: bool = False

    def __post_init__(self):
        _set(self, "eps", check_nonneg("eps", self.eps))
        _check_bool("tight", self.tight)


@dataclass(frozen=True)
class ComposedEvent(DpEvent):
    """Adaptive composition of ``events`` (a tuple of events)."""

    events: tuple

    def __post_init__(self):
        evs = tuple(self.events) if not isinstance(self.events, DpEvent) else None
        if evs is None:
            raise ParameterError("events must be a sequence of DpEvents, not a single event")
        for e in evs:
            if not isinstance(e, DpEvent):
                raise ParameterError(f"events must contain DpEvents, got {type(e).__name__}")
        _set(self, "events", evs)


@dataclass(frozen=True)
class RepeatedEvent(DpEvent):
    """``count`` adaptive runs of ``event`` — e.g. Assumption 2 (000, App. H): a user
    returning in at most B batches is ``RepeatedEvent(batch_event, B)``."""

    event: DpEvent
    count: int

    def __post_init__(self):
        if not isinstance(self.event, DpEvent):
            raise ParameterError(f"event must be a DpEvent, got {type(self.event).__name__}")
        _set(self, "count", check_int("count", self.count, minimum=0))


_INTEGER_NOISE = (DiscreteLaplaceEvent, SkellamEvent, DiscreteGaussianSumEvent, NoiseEvent)


@dataclass(frozen=True)
class ModularEvent(DpEvent):
    """The server's view ``(query + noise) mod modulus`` of an integer-noise ``event``
    (DiscreteLaplaceEvent, SkellamEvent, DiscreteGaussianSumEvent or any NoiseEvent): what
    a modular secure sum reveals (000 Alg. 2/3). A post-processing of the unwrapped release,
    so never less private; the certified accountant measures by how much."""

    event: DpEvent
    modulus: int

    def __post_init__(self):
        if not isinstance(self.event, _INTEGER_NOISE):
            raise ParameterError("event must be a DiscreteLaplaceEvent, SkellamEvent, "
                                 "DiscreteGaussianSumEvent or NoiseEvent, got "
                                 f"{type(self.event).__name__}")
        _set(self, "modulus", check_int("modulus", self.modulus, minimum=2))


@dataclass(frozen=True)
class PmfPairEvent(DpEvent):
    """A release whose output law is ``p`` on one dataset and ``q`` on its neighbour, both
    certified (:class:`privtools.exact.ExactPMF`, on Z or on the same Z_m). The accountant
    measures both directions."""

    p: ExactPMF
    q: ExactPMF

    def __post_init__(self):
        for name in ("p", "q"):
            if not isinstance(getattr(self, name), ExactPMF):
                raise ParameterError(f"{name} must be a privtools.exact.ExactPMF, got "
                                     f"{type(getattr(self, name)).__name__}")
        if self.p.modulus != self.q.modulus:
            raise ParameterError(f"p and q live on different spaces (modulus "
                                 f"{self.p.modulus} vs {self.q.modulus})")
