"""Integer boundary search shared by quantiles, table cuts and test binning."""

from __future__ import annotations

from collections.abc import Callable


def last_true(pred: Callable[[int], bool], start: int, step: int, direction: int,
              rel_tol: float = 0.0) -> int:
    """For a predicate that holds at ``start`` and, moving in ``direction`` (+1 or -1),
    stays true up to some point and false beyond it: the last integer where it holds.

    Exponential search for a bracket, then bisection. With ``rel_tol`` > 0 the bisection
    stops early and returns an integer where ``pred`` holds within that fraction of the
    distance from ``start`` (fewer evaluations where precision is not needed).
    """
    if direction not in (1, -1):
        raise ValueError("direction must be +1 or -1")
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
