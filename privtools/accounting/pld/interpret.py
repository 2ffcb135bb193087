"""``PldAccountant``'s dispatch table: each atomic event type → its certified release.

    NoiseEvent, DiscreteLaplaceEvent, SkellamEvent, DiscreteGaussianSumEvent
                                   the release of the law's row of
                                   :data:`privtools.accounting.maps.PRIVACY_MAPS` (Lap_Z: the
                                   exact lattice of Fact 2 (000); one discrete Gaussian: its
                                   exact lattice; Skellam, n-fold sums and other laws: atoms
                                   of the certified PMF against its shift)
    GaussianEvent(σ, Δ)            L ~ N(μ, 2μ) under P, μ = Δ²/(2σ²)
    LaplaceEvent(b, Δ)             atoms ±Δ/b and certified cells in between
    PureDPEvent(ε)                 randomized response (Kairouz–Oh–Viswanath 2015)
    ModularEvent(e, m)             the mod-m views of the law's certified PMF and its shift
    PmfPairEvent(p, q)             the two certified laws, both directions
    PoissonSampledEvent, SampledWithoutReplacementEvent
                                   the mixture of the inner event's release
                                   (:mod:`~privtools.accounting.pld.sampled`)
    TruncatedPoissonSampledEvent   the Poisson mixture; the accountant adds the capped
                                   batches' coupling term
                                   (:mod:`~privtools.accounting.pld.coupling`)
    SampledWithReplacementEvent    the mixture over the multiplicity ℓ >= 1 of the inner
                                   event at group distance ℓ (ℓ revealed), subsampled at
                                   γ = P(ℓ >= 1) (:func:`~.sampled.drawn_release`)
    ShuffledBatchesEvent           the inner event once (no amplification certified)
    ShuffledEvent, RandomAllocationEvent, ApproxDPEvent
                                   :mod:`~privtools.accounting.pld.shuffle`,
                                   :mod:`~privtools.accounting.pld.allocation`, the (ε, δ)
                                   dominating pair

``ZCDPEvent`` is absent: a ρ-zCDP guarantee has no dominating pair, only a Rényi curve.
``PldAccountant.supported_events`` is the keys of :data:`PLD_INTERPRETERS`.
"""

from __future__ import annotations

from privtools.errors import UnsupportedEventError

from ..events import (
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    DpEvent,
    GaussianEvent,
    LaplaceEvent,
    ModularEvent,
    NoiseEvent,
    PmfPairEvent,
    PureDPEvent,
    SkellamEvent,
)
from ..maps import noise_pmf, noise_release
from ..sampled_events import (
    ApproxDPEvent,
    PoissonSampledEvent,
    RandomAllocationEvent,
    SampledWithoutReplacementEvent,
    SampledWithReplacementEvent,
    ShuffledBatchesEvent,
    ShuffledEvent,
    TruncatedPoissonSampledEvent,
)
from .allocation import allocation_release
from .events import (
    Release,
    gaussian_release,
    laplace_release,
    modular_release,
    pair_release,
    pure_release,
)
from .sampled import approx_release, drawn_release, mixed_release
from .shuffle import shuffled_release

__all__ = ["PLD_INTERPRETERS", "release"]


def _noise(event) -> Release:
    return noise_release(event.noise)


def _modular(event: ModularEvent) -> Release:
    P, d = noise_pmf(event.event.noise)
    return modular_release(P, d, event.modulus)


def _with_replacement(event: SampledWithReplacementEvent) -> Release:
    made: dict[int, Release] = {}

    def part(ell: int) -> Release:
        if ell not in made:
            made[ell] = release(event.copies(ell))
        return made[ell]

    return drawn_release(part, event.batch, event.population)


#: Each atomic event type → its release (the one declaration of what ``PldAccountant``
#: reads; :meth:`~privtools.accounting.PldAccountant._check` adds what an atom holds inside).
PLD_INTERPRETERS = {
    DiscreteLaplaceEvent: _noise,
    SkellamEvent: _noise,
    DiscreteGaussianSumEvent: _noise,
    GaussianEvent: lambda e: gaussian_release(e.sensitivity ** 2 / (2 * e.sigma ** 2)),
    LaplaceEvent: lambda e: laplace_release(e.sensitivity / e.b),
    PureDPEvent: pure_release,
    ModularEvent: _modular,
    PmfPairEvent: lambda e: pair_release(e.p, e.q),
    PoissonSampledEvent: lambda e: mixed_release(release(e.event), e.q),
    TruncatedPoissonSampledEvent: lambda e: mixed_release(release(e.event), e.q),
    SampledWithoutReplacementEvent: lambda e: mixed_release(release(e.event), e.rate),
    SampledWithReplacementEvent: _with_replacement,
    ShuffledBatchesEvent: lambda e: release(e.event),
    ApproxDPEvent: lambda e: approx_release(e.epsilon, e.delta),
    ShuffledEvent: lambda e: shuffled_release(e.local_event.eps, e.n),
    RandomAllocationEvent: lambda e: allocation_release(
        e, None if isinstance(e.event, GaussianEvent) else release(e.event)),
    NoiseEvent: _noise,
}


def release(event: DpEvent) -> Release:
    """The :class:`~privtools.accounting.pld.events.Release` of one (non-composite) event."""
    for cls in type(event).__mro__:
        fn = PLD_INTERPRETERS.get(cls)
        if fn is not None:
            return fn(event)
    raise UnsupportedEventError(f"PldAccountant cannot interpret {type(event).__name__}",
                                event=type(event).__name__, accountant="PldAccountant")
