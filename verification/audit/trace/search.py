"""Which pair loses most? Hypothesis over datasets, each pair decided by the trace.

:func:`search_traced` draws neighbouring pairs from a hypothesis strategy, traces each
(:func:`~.api.trace_mechanism`: no sampling, so nothing is spent on confidence and no
multiplicity correction is needed — every verdict is exact or certified), steers the search
with ``target()`` towards the largest certified lower end of ε, and shrinks the first pair
whose trace fails to a minimal one. With no failing pair it returns the pair of largest
certified loss it saw; the search holds only when every pair it traced held (an undecided
pair is never a pass).
"""

from __future__ import annotations

import copy
import math
import random
from dataclasses import dataclass

from privtools.errors import UserCodeError
from privtools.validation import check_int

from .. import guard
from ..draws import root_seed
from ..values import check_claim
from .api import TraceResult, trace_mechanism

__all__ = ["TracedSearch", "search_traced"]


@dataclass(frozen=True)
class TracedSearch:
    """Outcome of :func:`search_traced`: the pair ``d``, ``d_prime`` (minimal when
    ``shrunk``) and its ``trace``; ``verdict`` is ``"fail"`` when some pair failed,
    ``"holds"`` only when every pair traced held, ``"inconclusive"`` otherwise;
    ``examples`` counts the pairs traced and ``verdicts`` their verdicts."""

    d: object
    d_prime: object
    trace: TraceResult | None
    verdict: str
    examples: int
    shrunk: bool
    seed: int
    verdicts: dict = None
    user_code: object = None

    def summary(self) -> str:
        """One line: the verdict, the pair and how many pairs were traced."""
        if self.trace is None:
            return f"INCONCLUSIVE: no pair was traced ({self.examples} examples)"
        how = "minimal failing pair" if self.shrunk else "pair of largest certified loss"
        counts = ", ".join(f"{n} {v}" for v, n in sorted((self.verdicts or {}).items()))
        return (f"{self.verdict.upper()} (traced search): {how} d = {self.d!r}, d' = "
                f"{self.d_prime!r} — {self.trace.summary()} ({self.examples} pairs traced"
                + (f": {counts}" if counts else "") + ")")

    def reproduce(self, name: str = "mechanism") -> str:
        """One line of Python that traces the pair found again."""
        if self.trace is None:
            return ""
        r = self.trace
        return (f"trace_mechanism({name}, {self.d!r}, {self.d_prime!r}, {r.epsilon!r}"
                + (f", delta={r.delta!r}" if r.delta else "") + f", rng={self.seed}"
                + (f", arithmetic={r.arithmetic!r}" if r.arithmetic != "exact" else "") + ")")

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"verdict": self.verdict, "d": repr(self.d), "d_prime": repr(self.d_prime),
                "examples": self.examples, "shrunk": self.shrunk, "seed": self.seed,
                "verdicts": dict(self.verdicts or {}), "reproduce": self.reproduce(),
                "trace": None if self.trace is None else self.trace.to_dict()}


def _key(pair):
    return repr(pair)


def search_traced(mechanism, epsilon, pairs, delta=0.0, *, rng=None, max_examples: int = 100,
                  timeout=guard.DEFAULT_TIMEOUT, total_timeout=guard.DEFAULT_TOTAL_TIMEOUT,
                  **trace_options) -> TracedSearch:
    """Search ``pairs`` (a hypothesis strategy of neighbouring ``(d, d')``) for the pair of
    largest certified loss, and shrink a failing one (module doc). At most
    ``max_examples`` pairs are traced, the shrinking included. ``trace_options`` go to
    :func:`~.api.trace_mechanism` (``declared``, ``modulus``, ``arithmetic``, ``rtol``)."""
    from hypothesis import HealthCheck, find, settings, target
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    claim = check_claim(epsilon, delta)
    eps, dlt = claim.epsilon, claim.delta
    max_examples = check_int("max_examples", max_examples, minimum=1)
    seed = root_seed(rng)
    wrapped = guard.wrap(mechanism, "mechanism")

    def work(_tick):
        seen: dict = {}
        explored: dict = {}            # dataset → its paths, shared by the pairs traced
        verdicts: dict = {}
        best: list = [-1.0, None, None]

        def fails(pair) -> bool:
            key = _key(pair)
            if key in seen:
                return seen[key]
            d, dp = pair
            if len(seen) >= max_examples or _key(d) == _key(dp):
                return False
            try:
                r = trace_mechanism(wrapped, d, dp, eps, dlt, rng=seed, path_cache=explored,
                                    **trace_options)
            except UserCodeError:
                raise
            except Exception:            # a pair the mechanism refuses: not a finding
                seen[key] = False
                return False
            b = r.epsilon_bounds
            lo = b[0] if b is not None else (0.0 if r.verdict != "fail" else math.inf)
            target(min(lo, 1e6), label="certified lower end of ε")
            if lo > best[0] or best[1] is None:
                best[:] = [lo, (copy.deepcopy(d), copy.deepcopy(dp)), r]
            verdicts[r.verdict] = verdicts.get(r.verdict, 0) + 1
            seen[key] = r.verdict == "fail"
            return seen[key]

        conf = settings(max_examples=max_examples, database=None, deadline=None,
                        suppress_health_check=list(HealthCheck))
        try:
            d, dp = find(pairs, fails, settings=conf, random=random.Random(seed))
        except (NoSuchExample, Unsatisfiable):
            if best[1] is None:
                return TracedSearch(None, None, None, "inconclusive", len(seen), False, seed,
                                    verdicts)
            r = best[2]
            # holds only when every pair traced held: an undecided pair is never a pass
            verdict = "holds" if set(verdicts) == {"holds"} else "inconclusive"
            return TracedSearch(best[1][0], best[1][1], r, verdict, len(seen), False, seed,
                                verdicts)
        r = trace_mechanism(wrapped, d, dp, eps, dlt, rng=seed, path_cache=explored,
                            **trace_options)
        return TracedSearch(d, dp, r, r.verdict, len(seen), True, seed, verdicts)
    return guard.run(work, timeout=timeout, total_timeout=total_timeout, what="the search",
                     shared=(wrapped,))
