"""The registry: every entry of every topic, in the order the pages were written."""

from __future__ import annotations

import functools

from figures import auditing, bandits, performance, planning
from figures.core import Figure, Registry


@functools.cache
def registry() -> tuple[Figure, ...]:
    """Every entry, once (a repeated name or marker is a registry error)."""
    reg = Registry()
    for section in (planning.api_tour, planning.excerpt_plans, planning.accounting,
                    planning.fewest_bits, planning.returning_users, auditing.audits,
                    auditing.implementation, auditing.assertions, bandits.claims,
                    bandits.bandits, bandits.misc, performance.performance):
        section(reg)
    names = [f.name for f in reg] + [m for f in reg for m in f.markers().values()
                                     if m != f.name]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise ValueError(f"duplicate figure names: {dupes}")
    return tuple(reg)
