"""Which batch-selection scheme does a sampler run? Read from the structure of its batches.

An accountant is told a scheme; :func:`audit_sampling` tests a sampler against the scheme it
is told. :func:`identify_scheme` answers the question before it: from ``n_batches`` batches
of ``sampler(n_batches, rng)``, the family the batches' exact structure admits, in this order:

* **with replacement** — some batch holds a record twice;
* **sequential** — every batch of one size b (the last of an epoch may be shorter), every
  epoch of ⌈n/b⌉ consecutive batches a partition of the population, and every epoch the
  same batches in the same order (no randomness between epochs: jax_privacy#84);
* **shuffle** — the same, the epochs differing (:class:`ShuffleScheme`);
* **fixed size** — every batch of one size, the epochs not partitions
  (:class:`FixedSizeScheme`);
* **allocation** — sizes vary and, for the smallest t (at most half the batches), every
  record is in exactly k of each round of t consecutive batches (:class:`AllocationScheme`);
  **allocation, kept** when every round repeats the first (each record keeps its places:
  jax_privacy's ``BallsInBinsSampling``) — rounds that are not independent, which
  :func:`audit_sampling`'s allocation test rejects and an accountant must read as one
  allocation of the rounds' composition;
* **independent inclusions** — none of the above: Poisson-like, reported with the mean rate
  q̂ and its exact (Clopper–Pearson) interval at ``confidence`` (:class:`PoissonScheme` at
  q̂; the interval is exact when the inclusions are independent — a sampler that draws
  records in correlated blocks has a wider spread than it states). Whether the inclusions
  are independent and of one rate is what :func:`audit_sampling` then tests — on fresh
  batches, not these (an estimate chosen on data and tested on the same data would not
  keep its false-alarm rate).

Every family except the last is an exact property of the batches drawn; the last is what is
left. The sampler is user code and runs behind the guard (:mod:`privtools.usercode`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
from scipy import stats

from privtools.errors import ParameterError
from privtools.validation import check_int, check_level

from .. import guard
from ..draws import root_seed
from .sampling import (
    AllocationScheme,
    FixedSizeScheme,
    PoissonScheme,
    ShuffleScheme,
    _batches,
)

__all__ = ["IdentifiedScheme", "identify_scheme", "KINDS"]

KINDS = ("with replacement", "sequential", "shuffle", "fixed size", "allocation",
         "allocation, kept", "independent inclusions")


@dataclass(frozen=True)
class IdentifiedScheme:
    """Outcome of :func:`identify_scheme`: ``kind`` (one of :data:`KINDS`), ``scheme`` (the
    audit scheme of that kind: None for with replacement and sequential, which no
    amplification analysis reads), ``rate`` (the mean inclusion rate of a record per batch)
    with its exact ``rate_interval`` at ``confidence``, ``reason`` (the structure found),
    ``n_batches``, ``population``, ``seed`` and the ``user_code`` report."""

    kind: str
    scheme: object
    rate: float
    rate_interval: tuple[float, float]
    confidence: float
    reason: str
    n_batches: int
    population: int
    seed: int
    user_code: object = None

    def describe(self) -> str:
        """The identification in words."""
        lo, hi = self.rate_interval
        return (f"{self.kind}: {self.reason}; mean inclusion rate {self.rate:.4g} "
                f"(exact {self.confidence:.0%} interval [{lo:.4g}, {hi:.4g}])")


def identify_scheme(sampler: Callable, population: int, n_batches: int = 1000, rng=None,
                    confidence: float = 0.99, *, timeout=guard.DEFAULT_TIMEOUT,
                    total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> IdentifiedScheme:
    """The batch-selection family of ``sampler(n_batches, rng)`` over ``population`` records
    (module doc), with the mean inclusion rate and its exact interval at ``confidence``."""
    if not callable(sampler):
        raise ParameterError("sampler must be callable as sampler(n_batches, rng)")
    population = check_int("population", population, minimum=2, maximum=10**7)
    n_batches = check_int("n_batches", n_batches, minimum=4, maximum=10**6)
    confidence = 1 - check_level("confidence", 1 - confidence)
    seed = root_seed(rng)
    wrapped = guard.wrap(sampler, "sampler", copy_arg=None)

    def work(_tick):
        batches = _batches(wrapped(n_batches, np.random.default_rng(seed)), n_batches,
                           population)
        for i, b in enumerate(batches):
            if b.size and (b.min() < 0 or b.max() >= population):
                raise ParameterError(f"sampler's batch {i} holds a record index outside "
                                     f"[0, {population})")
        kind, scheme, reason = _family(batches, population)
        total = int(sum(b.size for b in batches))
        trials = population * n_batches
        a = 1 - confidence
        lo = 0.0 if total == 0 else float(stats.beta.ppf(a / 2, total, trials - total + 1))
        hi = 1.0 if total == trials else float(stats.beta.ppf(1 - a / 2, total + 1,
                                                               trials - total))
        rate = total / trials
        if kind == "independent inclusions":
            scheme = PoissonScheme(rate) if 0 < rate <= 1 else None
        return IdentifiedScheme(kind, scheme, rate, (lo, hi), confidence, reason, n_batches,
                                population, seed)
    return guard.run(work, timeout=timeout, total_timeout=total_timeout,
                     what="the identification", shared=(wrapped,))


def _family(batches: list, n: int) -> tuple[str, object, str]:
    for i, b in enumerate(batches):
        if np.unique(b).size != b.size:
            return "with replacement", None, f"batch {i} holds a record twice"
    sizes = np.array([b.size for b in batches])
    b = int(sizes.max())
    per = -(-n // b) if b else 0
    # one size, or one size and a shorter last batch of every epoch (a permutation cut)
    cut = np.where(np.arange(sizes.size) % per == per - 1, n - b * (per - 1), b) if b else 0
    if b and (sizes.min() == b or np.array_equal(sizes, cut)):
        return _fixed(batches, n, b)
    found = _allocation(batches, n)
    if found is not None:
        t, k = found
        rounds = len(batches) // t
        if rounds >= 2 and all(np.array_equal(batches[i], batches[i % t])
                               for i in range(t, rounds * t)):
            return "allocation, kept", AllocationScheme(t, k), \
                f"every record in exactly {k} of each round of {t} batches, at the same " \
                f"places in each of {rounds} rounds"
        return "allocation", AllocationScheme(t, k), \
            f"every record in exactly {k} of each round of {t} batches"
    return "independent inclusions", None, \
        f"batch sizes vary ({sizes.min()}–{sizes.max()}) with no round structure"


def _fixed(batches: list, n: int, b: int) -> tuple[str, object, str]:
    per = -(-n // b)
    epochs = len(batches) // per
    parts = all(np.unique(np.concatenate(batches[e * per:(e + 1) * per])).size == n
                for e in range(epochs))
    if not (epochs and parts and (b * (per - 1) < n)):
        return "fixed size", FixedSizeScheme(b), f"every batch {b} records, epochs not " \
            "partitions of the population"
    if epochs >= 2 and all(np.array_equal(batches[i], batches[i % per])
                           for i in range(per, epochs * per)):
        return "sequential", None, f"the same {per} batches of {b} in the same order in " \
            f"each of {epochs} epochs"
    return "shuffle", ShuffleScheme(b), f"each of {epochs} epochs a partition into " \
        f"batches of {b}, the epochs differing"


def _allocation(batches: list, n: int) -> tuple[int, int] | None:
    """The smallest round length t (at most half the batches) with every record in exactly
    k >= 1 of each complete round's batches, and k; None if there is none."""
    counts = np.zeros(n, dtype=np.int64)
    for t in range(1, len(batches) // 2 + 1):
        counts += np.bincount(batches[t - 1], minlength=n)
        k = int(counts[0])
        if k < 1 or not np.all(counts == k):
            continue
        ok = True
        for r in range(1, len(batches) // t):
            c = np.bincount(np.concatenate(batches[r * t:(r + 1) * t]), minlength=n)
            if not np.all(c == k):
                ok = False
                break
        if ok:
            return t, k
    return None
