"""The support event: outputs one dataset gives and the other never gave.

A pure-DP claim bounds P(E | d) ≤ e^ε P(E | d') for every event, so an output that d gives
and d′ cannot — an atom of probability 10⁻⁴ on one side only — breaks every finite claim.
The event families rank their candidates by the bound the candidate's counts *project*
(:func:`verification.audit.stats.projected_bound`), which shrinks a count of zero on the
other side to a rate of a few in ``n`` and so ranks a rare atom below an event of an
honest ratio: with 10⁻⁴ and 10⁵ selection draws, about ten sightings against none project
less than a threshold event of a correct Laplace mechanism, although the test's ninety
sightings against none would certify ε ≈ 3.

:func:`support_event` proposes that event directly: the exact outputs seen at least twice
on one side of the selection draws and never on the other (on the side where they are
seen more often) — when the selection saw them at least :data:`SUPPORT_MIN` times. A value
seen twice on one side is an atom there (a continuous law repeats no value); the tails
beyond the other side's range are left to the threshold events, which rank them by their
ratio. The audit tests it beside its chosen event, each at half the level (Bonferroni), so
the false-alarm rate is kept; it is chosen on the selection draws only.
"""

from __future__ import annotations

import numpy as np

from . import Event, Whole
from .select import Sample

__all__ = ["support_event", "SUPPORT_MIN"]

#: sightings on the selection draws a support event needs before the audit tests it
SUPPORT_MIN = 5


def _keys_event(a, b, direction: str) -> tuple[Event | None, int]:
    """The exact outputs seen at least twice in ``a`` and never in ``b``."""
    if a.kind == "objects":
        seen = set(b.data)
        counts: dict = {}
        for x in a.data:
            if x not in seen:
                counts[x] = counts.get(x, 0) + 1
        picked = [k for k, c in counts.items() if c >= 2]
        if not picked:
            return None, 0
        return (Event("set", direction, values=tuple(sorted(picked, key=repr)), view=Whole(),
                      keys=frozenset(picked)), sum(counts[k] for k in picked))
    ka, kb = a.keys(), b.keys()
    uniq, counts = np.unique(ka, return_counts=True)
    only = (counts >= 2) & ~np.isin(uniq, kb)
    if not only.any():
        return None, 0
    keys = np.sort(uniq[only])
    values = tuple(sorted((a.decode(k) for k in keys), key=repr))
    return (Event("set", direction, values=values, view=Whole(), keys=keys),
            int(counts[only].sum()))


def support_event(A: Sample, B: Sample) -> tuple[Event | None, int]:
    """The support event of the selection draws ``A`` (on d) and ``B`` (on d′) — the module
    doc — and how often the favoured side's selection draws hold it; (None, 0) when no
    candidate was seen :data:`SUPPORT_MIN` times."""
    a, b = A.outputs, B.outputs
    if a.signature != b.signature:
        a, b = a.to_objects(), b.to_objects()
    best: tuple[Event | None, int] = (None, 0)
    for fav, other, direction in ((a, b, "d"), (b, a, "d_prime")):
        ev, k = _keys_event(fav, other, direction)
        if ev is not None and k > best[1]:
            best = (ev, k)
    return best if best[1] >= SUPPORT_MIN else (None, 0)
