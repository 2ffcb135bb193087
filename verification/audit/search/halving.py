"""Successive halving over candidate pairs, the engine of both counterexample searches
(:func:`verification.audit.search_counterexample` over a whole search space, and the pattern
phase of :func:`verification.audit.shrink_counterexample`).

A budget of draws is spent in R = ⌈log₂ k⌉ rounds of equal share. In each round every
dataset of a live pair is drawn up to the same count — a dataset held by several pairs (a
base with its StatDP patterns, a dataset with its replace-one neighbours) is drawn once for
all of them — every live pair is scored on its draws (a held-out score:
:func:`verification.audit.events.cells.held_out_score`), and the better half lives on. The
ranking is by the round a pair reached, then by its score there: the first is the pair the
last round's held-out statistics put first (Karnin, Koren, Somekh, "Almost optimal
exploration in multi-armed bandits", ICML 2013). Draws come from stage ``SEARCH`` of the
seed given, one stream per dataset, so a search repeats exactly and a confirmation's
stages are never drawn here.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

from ..draws import SEARCH, Draws
from ..events.select import Sample
from ..neighbours import canonical

__all__ = ["MIN_DRAWS", "MIN_SCREEN", "rounds", "affordable_pairs", "Screen", "screening",
           "Stream", "Arm", "halve"]

#: draws per dataset and round below which a pair is not scored
MIN_DRAWS = 1000


def rounds(k: int) -> int:
    """The rounds of successive halving over ``k`` pairs: ⌈log₂ k⌉ (at least one)."""
    return max(1, math.ceil(math.log2(k))) if k > 1 else 1


def affordable_pairs(budget: int, k: int) -> int:
    """The most pairs (at most ``k``) that successive halving can score within ``budget``
    draws in all: round r gives each of its live pairs ``budget // (R·2·live)`` draws per
    dataset (R rounds, halving the live pairs; pairs that share a dataset get more), at
    least :data:`MIN_DRAWS` in the first round, so the rounds together draw at most
    ``budget``."""
    while k > 1 and budget // (rounds(k) * 2 * k) < MIN_DRAWS:
        k -= 1
    return k


#: draws per dataset below which a screening round does not score a pair
MIN_SCREEN = 100


@dataclass(frozen=True)
class Screen:
    """A screening round before the race (:func:`screening`): ``draws`` per dataset, every
    pair scored by ``rate(arm)`` (a cheap score), the ``keep`` best raced."""

    draws: int
    keep: int
    rate: Callable


def screening(budget: int, pairs: list, rate: Callable) -> tuple[list, Screen | None]:
    """When ``budget`` cannot race every pair (:func:`affordable_pairs`), a screening round
    that sees them all: each dataset drawn min(:data:`MIN_DRAWS`, budget / (2·D)) times (D
    the distinct datasets), at least :data:`MIN_SCREEN` — the pairs listed first kept
    until their datasets exhaust that (``pairs`` come in priority order) — and the pairs
    the rest of the budget can race kept. Returns (the pairs screened, the screen), or
    (``pairs``, None) when the budget races them all."""
    if affordable_pairs(budget, len(pairs)) >= len(pairs):
        return pairs, None
    seen: set = set()
    kept = []
    for d, dp in pairs:
        new = {canonical(d), canonical(dp)} - seen
        if kept and budget // (2 * (len(seen) + len(new))) < MIN_SCREEN:
            continue
        seen |= new
        kept.append((d, dp))
    n = max(MIN_SCREEN, min(MIN_DRAWS, budget // (2 * len(seen))))
    keep = max(1, affordable_pairs(budget - n * len(seen), len(kept)))
    return kept, Screen(n, min(keep, len(kept)), rate)


class Stream:
    """The search draws of one dataset, shared by every pair that holds it."""

    def __init__(self, index: int, dataset):
        self.index, self.dataset = index, dataset
        self.parts: list = []
        self.chunks = 0

    @property
    def n(self) -> int:
        """Draws taken so far."""
        return sum(p.outputs.n for p in self.parts)

    def top_up(self, draws: Draws, target: int) -> int:
        """Draw until this dataset has ``target`` draws; the number drawn."""
        m = target - self.n
        if m > 0:
            self.parts.append(Sample(*draws.sample(self.dataset, m, SEARCH, self.index,
                                                   offset=self.chunks)))
            self.chunks += draws.n_chunks(m)
        return max(m, 0)

    def sample(self, n: int) -> Sample:
        """The first ``n`` draws."""
        out = self.parts[0].outputs.concat([p.outputs for p in self.parts[1:]])
        whole = Sample(out, [r for p in self.parts for r in p.raw],
                       [k for p in self.parts for k in p.sizes])
        return whole if n >= out.n else whole.split(n)[0]


class Arm:
    """One candidate pair: its two datasets' streams, the round it reached, its score
    there, the draws per dataset it was scored on (``n``) and how many pairs were live
    then (``rivals``)."""

    def __init__(self, index: int, d, dp, streams):
        self.index, self.d, self.dp = index, d, dp
        self.streams = streams
        self.score = -math.inf
        self.reached = 0
        self.n = 0
        self.rivals = 0           # the pairs live in that round, itself included

    def sample(self, which: int) -> Sample:
        """The draws of d (``which`` 0) or d′ (1) it was scored on."""
        return self.streams[which].sample(self.n)


def _screened(draws: Draws, arms: list, streams: list, screen: Screen) -> tuple[list, int]:
    """The screening round of :func:`halve`: the arms kept and the draws spent."""
    spent = sum(x.top_up(draws, screen.draws) for x in streams)
    for arm in arms:
        arm.n, arm.rivals = screen.draws, len(arms)
        arm.score = screen.rate(arm)
    return sorted(arms, key=lambda a: (-a.score, a.index))[:screen.keep], spent


def halve(draws: Draws, pairs: list, budget: int, rate: Callable[[Arm], float], *,
          doubling: bool = False, enough: Callable[[Arm], bool] | None = None,
          screen: Screen | None = None) -> tuple[list[Arm], int]:
    """Successive halving (module doc) over ``pairs`` with ``budget`` draws in all;
    ``rate(arm)`` scores a live pair on its draws. ``doubling=True`` gives round r a share
    of the budget proportional to 2^r instead of equal shares (a cheap first round, the
    last pairs standing drawn most); ``enough(arm)``, when given, ends the race after a
    round in which a live pair satisfies it (a leak so gross that more draws would not
    change the choice). ``screen``, when given, comes first: every dataset drawn
    ``screen.draws`` times, every pair scored by ``screen.rate``, the ``screen.keep`` best
    raced with what is left of the budget (:func:`screening`). Returns the arms ranked
    (the first is the pair the last round put first) and the draws spent."""
    streams: dict = {}
    for d in (x for pair in pairs for x in pair):
        streams.setdefault(canonical(d), Stream(len(streams), d))
    arms = [Arm(i, d, dp, (streams[canonical(d)], streams[canonical(dp)]))
            for i, (d, dp) in enumerate(pairs)]
    live, spent, target = arms, 0, 0
    if screen is not None and screen.keep < len(arms):
        live, spent = _screened(draws, arms, list(streams.values()), screen)
        budget, target = budget - spent, screen.draws
    total = rounds(len(live))
    weights = [2 ** r if doubling else 1 for r in range(total)]
    for r in range(1, total + 1):
        # every dataset of a live pair drawn up to the same count: the round's share of the
        # budget over the live datasets (each was live, at the last count, in every round)
        now = {id(x): x for arm in live for x in arm.streams}
        target += budget * weights[r - 1] // (sum(weights) * len(now))
        for x in now.values():
            spent += x.top_up(draws, target)
        for arm in live:
            arm.n, arm.reached, arm.rivals = target, r, len(live)
        if len(live) > 1:
            for arm in live:
                arm.score = rate(arm)
            if enough is not None and any(enough(arm) for arm in live):
                break
            live = sorted(live, key=lambda a: -a.score)[:max(1, math.ceil(len(live) / 2))]
    return sorted(arms, key=lambda a: (-a.reached, -a.score, a.index)), spent
