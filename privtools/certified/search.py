"""Integer boundary search, and the one certified threshold search built on it."""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

from ..errors import CertificationError, ParameterError
from .intervals import decide_le

__all__ = ["last_true", "largest_true", "certified_threshold", "Undecided"]


def last_true(pred: Callable[[int], bool], start: int, step: int, direction: int,
              rel_tol: float = 0.0) -> int:
    """For a predicate that holds at ``start`` and, moving in ``direction`` (+1 or -1),
    stays true up to some point and false beyond it: the last integer where it holds.

    Exponential search for a bracket, then bisection. With ``rel_tol`` > 0 the bisection
    stops early and returns an integer where ``pred`` holds within that fraction of the
    distance from ``start`` (fewer evaluations where precision is not needed).
    """
    if direction not in (1, -1):
        raise ParameterError("direction must be +1 or -1")
    step = max(1, int(step))
    good, bad = start, start + direction * step
    while pred(bad):
        good, bad = bad, bad + direction * 2 * abs(bad - start)
    while abs(bad - good) > max(1, int(rel_tol * abs(bad - start))):
        mid = (good + bad) // 2
        if pred(mid):
            good = mid
        else:
            bad = mid
    return good


def largest_true(pred: Callable[[int], bool], start: int, top: int) -> int | None:
    """The largest j in [1, ``top``] with ``pred(j)``, searched from ``start`` (``pred`` true
    up to a point, false beyond: more noise, more privacy); None when ``pred(1)`` fails.
    :func:`last_true` bounded to [1, top], each j evaluated once (the predicates that use it
    certify a plan: every evaluation is an accounting)."""
    memo: dict[int, bool] = {}

    def p(j: int) -> bool:
        if j not in memo:
            memo[j] = pred(j)
        return memo[j]

    start = min(max(start, 1), top)
    if p(start):
        return last_true(lambda j: j <= top and p(j), start, 1, 1)
    lowest_false = last_true(lambda j: j >= 1 and not p(j), start, 1, -1)
    return lowest_false - 1 if lowest_false > 1 else None


class Undecided(CertificationError):
    """An interval straddled the threshold at the current precision."""


def certified_threshold(enclose: Callable[[int, int], object], p: Fraction, guess: int,
                        step: int, dps: int, refinements: int = 4, what: str = "the tail"
                        ) -> tuple[int, dict[int, object]]:
    """The smallest integer ``t >= 0`` with ``f(t) <= p`` for a non-increasing ``f``, proved.

    ``enclose(t, dps)`` returns a certified enclosure of ``f(t)`` (an Interval, a ball or a
    pair ``(lo, hi)``) about ``10**-dps`` wide in relative terms. Returns ``(t, cache)``
    where ``cache`` holds the enclosures used at ``t`` (upper end <= p) and ``t − 1`` (lower
    end > p, when ``t > 0``). ``p`` is compared as an exact rational. An enclosure that
    straddles ``p`` doubles the digits (``refinements`` times), then
    :class:`~privtools.errors.CertificationError` (``p`` may equal a value of ``f``)."""
    d = dps
    for _ in range(refinements):
        cache: dict[int, object] = {}

        def above(t: int, d=d, cache=cache) -> bool:  # certified: f(t) > p
            if t < 0:
                return True
            if t not in cache:
                cache[t] = enclose(t, d)
            verdict = decide_le(cache[t], p)
            if verdict is None:
                raise Undecided
            return not verdict

        try:
            g = max(0, int(guess))
            if above(g - 1):
                t = g if not above(g) else last_true(above, g, step, +1) + 1
            else:
                t = last_true(lambda s: not above(s), g - 1, step, -1)
            above(t)
            if t > 0:
                above(t - 1)
            return t, cache
        except Undecided:
            d *= 2
    raise CertificationError(f"could not separate p={p} from {what} at {d // 2} digits "
                             "(p may equal a value exactly)")
