"""Returning users drawn from a pool: the user ids of a batch-SE run and what they did.

With ``PolicySpec(pool=U)`` each round's user is drawn uniformly, with replacement, from U
people. The rewards do not depend on who the user is (every pull of arm a is a fresh draw
of a's reward law), so the ids matter for privacy only: each batch's plan is
``privtools.planning.plan(..., delta=, pool=U)``, certified for a member whose
participation in the run's batches of that size stays within the profile of
:func:`privtools.planning.participation.pool_participations` (000 App. H composes a
user's batches; the profile holds except with the plan's ``participation_failure``).

    draw_users(pool, shape, rng)      uniform ids in {0, …, U − 1} (int64)
    user_stream(rng)                  the generator of the ids: a child of the run's
                                      generator (``Generator.spawn``), so drawing ids does
                                      not move the reward and noise streams
    UserLedger                        records each released batch's ids and checks them
                                      against the batch plan's profile
    ParticipationRecord               the summary kept in ``RunResult.participation``
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng, check_int

__all__ = ["draw_users", "user_stream", "UserLedger", "ParticipationRecord"]


def draw_users(pool: int, shape, rng) -> np.ndarray:
    """``shape`` user ids drawn uniformly with replacement from {0, …, pool − 1} (int64),
    from ``rng`` (a Generator, seed or SeedSequence; never numpy's global state)."""
    U = check_int("pool", pool, minimum=1)
    return as_rng(rng).integers(0, U, size=shape, dtype=np.int64)


def user_stream(rng) -> np.random.Generator:
    """Generator of a run's user ids: the first child spawned from ``rng`` (numpy's
    ``Generator.spawn``; the parent's own stream is not advanced). A generator whose bit
    generator carries no seed sequence falls back to one seeded by a draw of ``rng``."""
    gen = as_rng(rng)
    try:
        return gen.spawn(1)[0]
    except (TypeError, ValueError, AttributeError):  # pragma: no cover - exotic bit gens
        return np.random.default_rng(int(gen.integers(0, 2**63)))


@dataclass(frozen=True)
class ParticipationRecord:
    """Who took part in the released batches of one run with a user pool.

    ``pool`` U; ``users`` distinct people counted in a released batch; ``max_batches``
    the most released batches one person joined; ``max_multiplicity`` the most times one
    person was counted in one batch; ``within_profile`` True when, for every batch size,
    every person's participation in the batches of that size is dominated by the plan's
    profile (the event the plan certifies; it fails w.p. <= the plan's
    ``participation_failure``)."""

    pool: int
    users: int
    max_batches: int
    max_multiplicity: int
    within_profile: bool


def _dominated(users: np.ndarray, mult: np.ndarray, profile) -> bool:
    """Whether every user's multiplicities in a set of batches (one entry per (user,
    batch) with ``mult`` >= 1) are dominated by ``profile`` = ((j, count), ...): for each
    j, the number of batches counting the user >= j times is at most Σ_{i >= j} count_i."""
    prof = sorted((int(j), int(c)) for j, c in profile)
    J = max(j for j, _ in prof)
    if mult.size and int(mult.max()) > J:
        return False
    for j in range(1, J + 1):
        allowed = sum(c for i, c in prof if i >= j)
        sel = users[mult >= j]
        if sel.size == 0:
            continue
        if int(np.unique(sel, return_counts=True)[1].max()) > allowed:
            return False
    return True


class UserLedger:
    """The user ids of one run's released batches (a run with ``pool`` U).

    :meth:`draw` draws the ids of one stage — ``arms`` batches of ``n`` users — from the
    ledger's own stream, checks them against that stage's plan profile and keeps, per
    person, the number of batches joined. :meth:`record` summarizes."""

    def __init__(self, pool: int, rng):
        self.pool = check_int("pool", pool, minimum=1, maximum=2**40)
        self._gen = as_rng(rng)
        self._users = np.empty(0, dtype=np.int64)
        self._counts = np.empty(0, dtype=np.int64)
        self._max_mult = 0
        self._ok = True

    def draw(self, arms: int, n: int, profile) -> np.ndarray:
        """Ids of ``arms`` batches of ``n`` users (shape (arms, n)); ``profile`` is the
        participation profile of the plan of size-n batches (``plan.participations``)."""
        if profile is None:
            raise ParameterError("profile: the batch plan has no participation profile "
                                 "(plan it with pool=...)")
        ids = draw_users(self.pool, (arms, n), self._gen)
        # key = id·arms + row identifies a (user, batch) pair (U·arms < 2^63)
        key = (ids * arms + np.arange(arms, dtype=np.int64)[:, None]).ravel()
        uniq, mult = np.unique(key, return_counts=True)
        users = uniq // arms
        self._max_mult = max(self._max_mult, int(mult.max()))
        self._ok = self._ok and _dominated(users, mult, profile)
        # one entry per (user, batch): add to each person's batch count
        all_u = np.concatenate([self._users, users])
        all_c = np.concatenate([self._counts, np.ones(users.size, dtype=np.int64)])
        self._users, inv = np.unique(all_u, return_inverse=True)
        self._counts = np.bincount(inv, weights=all_c).astype(np.int64)
        return ids

    def record(self) -> ParticipationRecord:
        return ParticipationRecord(
            pool=self.pool, users=int(self._users.size),
            max_batches=int(self._counts.max()) if self._counts.size else 0,
            max_multiplicity=self._max_mult, within_profile=self._ok)
