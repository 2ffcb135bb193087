"""What ``privtools audit --mechanism-file`` was asked, as one frozen value.

:func:`privtools.cli.audit.audit` checks every option before any user code runs and builds
one :class:`FileJob`; the audit or search, the trace and the printers read its fields."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FileJob"]


@dataclass(frozen=True, kw_only=True)
class FileJob:
    """One --mechanism-file audit (``search`` False: the pair ``d``, ``d_prime``) or search
    (``search`` True: the neighbours, under ``neighbours``, of the datasets ``data``, with
    ``budget`` draws choosing the pair), checked.

    ``spec``: PATH:FUNCTION of the mechanism; ``features_spec``: of the features, or None.
    ``epsilon``, ``delta``: the claim. ``samples``: draws per dataset of the audit (or
    fresh draws confirming a search's pair). ``alpha``, ``seed``, ``stop_early``,
    ``learners``, ``workers``, ``bits``: as their options. ``timeout``,
    ``total_timeout``: seconds, defaults resolved. ``trace``: "first" (the trace, then
    sampling for what it leaves), "only" or "off"; ``declared``, ``modulus``,
    ``arithmetic``: the trace's options."""

    spec: str
    epsilon: float
    delta: float
    search: bool
    samples: int
    alpha: float
    seed: int
    stop_early: bool = False
    learners: tuple = ()
    workers: int = 1
    bits: bool = False
    timeout: float | None = None
    total_timeout: float | None = None
    features_spec: str | None = None
    d: list | None = None
    d_prime: list | None = None
    data: list | None = None
    neighbours: str | None = None
    budget: int | None = None
    trace: str = "off"
    declared: float | None = None
    modulus: int | None = None
    arithmetic: str | None = None
