"""The whole run certified under the batch-selection scheme its sampler was found to run.

One step is read as a Gaussian release whose L2 sensitivity, in units of the noise's
standard deviation, is μ — the largest normalised move of one record the step's trace
measured (:mod:`.step`). The run is then the accountant's sampled event for the scheme
identified (:func:`verification.audit.identify_scheme`), composed over the steps:

=========================  ==================================================  ==========
scheme                     event (per step, or per epoch / round)              relation
=========================  ==================================================  ==========
independent inclusions     ``PoissonSampledEvent(G(μ), q)`` × steps             add/remove
fixed size b of n          ``SampledWithoutReplacementEvent(G(2μ), b, n)``      replace-one
shuffle (t batches)        ``ShuffledBatchesEvent(G(2μ), t)`` × epochs          replace-one
sequential                 ``G(2μ)`` × epochs (the same batches: no sampling)   replace-one
allocation (k of t)        ``RandomAllocationEvent(G(μ), t, k)`` × rounds       add/remove
allocation, kept (E)       ``RandomAllocationEvent(G(μ√E), t, k)`` once         add/remove
with replacement           ``SampledWithReplacementEvent(G(2μ), b, n)``         replace-one
=========================  ==================================================  ==========

G(s) is ``GaussianEvent(sigma=1, sensitivity=s)``. A kept allocation (each record at the
same places in each of E rounds) is one allocation of the E rounds' composition: E Gaussian
steps of sensitivity μ at one place are one Gaussian of sensitivity μ√E. Replacing a record
is removing one and adding another, so the replace-one schemes read twice the measured move
(the triangle inequality; a clipped sum moves by at most 2C when one record is replaced).
The Poisson rate is the one the accountant was told (when the sampler passed the test of it)
or else the upper end of the mean rate's exact interval — ε grows with q, so the upper end
is the safe side of the estimate. The interval is the certified accountant's
(:class:`privtools.accounting.PldAccountant`): certified for the model measured; the model
itself rests on the probes (:mod:`.step`).
"""

from __future__ import annotations

import math
from fractions import Fraction

from privtools.accounting import (
    GaussianEvent,
    PldAccountant,
    PoissonSampledEvent,
    RandomAllocationEvent,
    SampledWithoutReplacementEvent,
    SampledWithReplacementEvent,
    ShuffledBatchesEvent,
)
from privtools.certified import ends, interval
from privtools.neighbours import ADD_REMOVE, REPLACE_ONE

from ..audit import AllocationScheme, FixedSizeScheme, PoissonScheme, ShuffleScheme

__all__ = ["run_events", "certify_run", "without_amplification"]


def run_events(kind: str, scheme, rate: float, mu: float, steps: int, population: int,
               told=None) -> tuple[str, list, str]:
    """(relation, [(event, count)], description) of the run: ``kind`` and ``scheme`` as
    :func:`verification.audit.identify_scheme` found them, ``rate`` the Poisson rate read,
    ``mu`` the step's normalised sensitivity."""
    one = GaussianEvent(sigma=Fraction(1), sensitivity=Fraction(mu))
    two = GaussianEvent(sigma=Fraction(1), sensitivity=Fraction(2 * mu))
    if isinstance(told, PoissonScheme) or (told is None and isinstance(scheme, PoissonScheme)):
        q = Fraction(rate)
        return (ADD_REMOVE, [(PoissonSampledEvent(one, q), steps)],
                f"Poisson sampling at q = {float(q):.6g}, {steps} steps")
    if kind == "allocation, kept":
        rounds = math.ceil(steps / scheme.steps)
        kept = GaussianEvent(sigma=Fraction(1), sensitivity=Fraction(mu * math.sqrt(rounds)))
        return (ADD_REMOVE, [(RandomAllocationEvent(kept, scheme.steps, scheme.k), 1)],
                f"balls in bins kept over {rounds} rounds of {scheme.steps} steps (one "
                f"allocation of the rounds' composition, sensitivity μ√{rounds})")
    if isinstance(scheme, AllocationScheme):
        rounds = math.ceil(steps / scheme.steps)
        return (ADD_REMOVE, [(RandomAllocationEvent(one, scheme.steps, scheme.k), rounds)],
                f"random allocation ({scheme.k} of {scheme.steps} steps), {rounds} rounds")
    if isinstance(scheme, ShuffleScheme) or kind == "sequential":
        t = math.ceil(population / _batch(scheme, rate, population))
        epochs = math.ceil(steps / t)
        if kind == "sequential":
            return (REPLACE_ONE, [(two, epochs)],
                    f"the same {t} batches every epoch (no sampling), {epochs} epochs")
        return (REPLACE_ONE, [(ShuffledBatchesEvent(two, t), epochs)],
                f"shuffled batches ({t} an epoch), {epochs} epochs")
    b = _batch(scheme, rate, population)
    if isinstance(scheme, FixedSizeScheme):
        return (REPLACE_ONE, [(SampledWithoutReplacementEvent(two, b, population), steps)],
                f"fixed-size batches of {b} of {population}, {steps} steps")
    return (REPLACE_ONE, [(SampledWithReplacementEvent(two, b, population), steps)],
            f"batches of {b} drawn with replacement from {population}, {steps} steps")


def _batch(scheme, rate: float, population: int) -> int:
    size = getattr(scheme, "batch", None)
    return int(size) if size else max(1, round(rate * population))


def without_amplification(kind: str, scheme, mu: float, steps: int) -> list | None:
    """For an allocation: the record's k·rounds steps revealed — one Gaussian of sensitivity
    μ·√(k·rounds), a pair that dominates the run (its upper end bounds the run's; its lower
    end does not). None for the other schemes."""
    if not kind.startswith("allocation"):
        return None
    rounds = math.ceil(steps / scheme.steps)
    return [(GaussianEvent(sigma=Fraction(1),
                           sensitivity=Fraction(mu * math.sqrt(scheme.k * rounds))), 1)]


def certify_run(relation: str, events: list, delta: float, claim: float | None = None,
                dominating: list | None = None):
    """The certified ε(δ) interval of ``events`` composed under ``relation``.

    When the interval straddles ``claim`` (a leaky step's loss is far beyond the composed
    grid's reach), the lower end is raised to that of the first period alone — one count
    of each event: the run's view contains it (the later steps can be ignored), so its ε(δ)
    is a lower bound on the run's."""
    acc = PldAccountant(neighbouring=relation)
    for event, count in events:
        acc = acc.compose(event, count=count)
    whole = acc.epsilon(delta).interval
    lo, hi = ends(whole)
    if dominating is not None:        # an allocation beyond the accountant's reach
        other = PldAccountant(neighbouring=relation)
        for event, count in dominating:
            other = other.compose(event, count=count)
        top = ends(other.epsilon(delta).interval)[1]
        if top < hi:
            whole, hi = interval(lo, top), top
    if claim is None or not lo <= claim < hi or all(c == 1 for _, c in events):
        return whole
    first = PldAccountant(neighbouring=relation)
    for event, _ in events:
        first = first.compose(event, count=1)
    lo1 = ends(first.epsilon(delta).interval)[0]
    return interval(max(lo, lo1), hi) if lo1 > lo else whole
