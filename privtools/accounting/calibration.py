"""Calibration: the smallest noise whose certified (ε, δ) meets a target.

    sigma = calibrate(lambda s: PoissonSampledEvent(GaussianEvent(sigma=s), q=0.01),
                      count=10_000, epsilon=3.0, delta=1e-5)

``make(s)`` describes one release at noise parameter ``s`` (σ, a scale, a variance): larger
``s`` must mean more noise. The answer is a value at which the certified upper end of
``PldAccountant``'s ε(δ) is at most the target — a guarantee, not an estimate — and within
``rtol`` of the smallest such value the accountant can certify: every value below the
bracket's lower end has a certified *lower* end of ε(δ) above the target at some grid, or is
undecided at the finest grid (then it is not claimed).

Each trial is first read on a coarse grid; only values the coarse interval cannot decide are
read again on finer grids, so most of the search costs a fraction of one full accounting.

    eb, cert = calibrate_grid(lambda eb: [(event_at(eb), k)], epsilon=1, delta=1e-6,
                              start=2**12 // k, top=2**12)

:func:`calibrate_grid` is the same question asked the other way round, as the planner and
the bandits ask it: the largest per-release ε on the grid ε·j/2^12 (j = 1, 2, …) whose
composition is certified (ε, δ) — the returning users of App. H (000) and client-sampled
runs. Both searches are the one monotone search of :mod:`privtools.certified.search`.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable
from fractions import Fraction

from privtools.certified import intervals as _intervals
from privtools.certified.search import largest_true
from privtools.errors import ParameterError
from privtools.neighbours import REPLACE_ONE
from privtools.validation import check_int, to_fraction

from .base import _parts, check_relation, required_relation
from .events import DpEvent
from .pld.accountant import MAX_POINTS, PldAccountant, PldEpsilon, _check_limits

__all__ = ["calibrate", "calibrate_grid", "LEVELS", "GRID_STEPS", "SEARCH_POINTS"]

#: Grid sizes tried in turn on each trial value (the last is the accountant's default).
LEVELS = (2**12, 2**14, 2**16, MAX_POINTS)
#: :func:`calibrate_grid`: the per-release ε is searched on the grid ε·j/2^GRID_STEPS.
GRID_STEPS = 12
#: :func:`calibrate_grid`: grid points of the accountant while searching (the chosen value
#: is certified again on the accountant's default grid).
SEARCH_POINTS = 2**12


def _relation(event: DpEvent, neighbouring) -> str:
    """The accountant's relation: ``neighbouring`` when given, else the one the event's
    parts require (sampling, allocation, shuffling), else replace-one."""
    if neighbouring is not None:
        return check_relation(neighbouring)
    return required_relation(event) or "replace-one"


def _decide(make, s, count: int, eps: Fraction, delta: Fraction, levels,
            neighbouring=None, seen: dict | None = None) -> bool:
    """True iff ε(δ) at ``s`` is certified <= eps; False if certified > eps or undecided
    (a value beyond the accountant's limits is never certified). ``seen[s]``, when given,
    receives the last certified interval's ends (floats: for choosing the next trial only,
    never for a decision)."""
    event = make(s)
    if not isinstance(event, DpEvent):
        raise ParameterError(f"make must return a DpEvent, got {type(event).__name__} for "
                             f"s = {s!r}")
    try:
        for part in _parts(event):
            _check_limits(part)
    except ParameterError:
        return False
    relation = _relation(event, neighbouring)
    eps_lo, eps_hi = _intervals.fraction_bounds(eps, 128)
    for points in levels:
        acc = PldAccountant(max_points=points, neighbouring=relation)
        r = acc.compose(event, count).epsilon(delta)
        lo, hi = _intervals.ends(r.interval)
        if seen is not None:
            seen[s] = (float(lo), float(hi))
        if hi <= eps_lo:
            return True
        if lo > eps_hi:
            return False
    return False


def calibrate(make: Callable[[float], DpEvent], *, count: int = 1, epsilon, delta,
              lo=None, hi=None, rtol: float = 1e-3, integer: bool = False,
              levels=LEVELS, neighbouring=None):
    """The smallest noise parameter ``s`` (to within ``rtol``) at which ``count`` adaptive
    runs of ``make(s)`` are certified (ε, δ)-DP by :class:`PldAccountant`.

    ``lo``/``hi``: an optional starting bracket (found by doubling otherwise);
    ``integer=True`` searches integers (a discrete law's parameter, a number of shares)
    and returns the smallest certified one exactly. ``neighbouring``: the accountant's
    relation (default: the one the event's sampling requires — add-remove for Poisson
    sampling and random allocation, replace-one for fixed-size batches and shuffling —
    else replace-one); a value whose event is beyond the accountant's work limits
    (:data:`~privtools.accounting.pld.accountant.LOSS_LIMIT`, …) is never certified. The
    value returned is a float that is
    exactly the dyadic rational that was certified (``make(s)`` rebuilds the same event).
    Raises :class:`~privtools.errors.ParameterError` on bad targets, and when no value up
    to 2⁶⁰ reaches the target.
    """
    count, eps, dq, levels = _check_calibration(make, count, epsilon, delta, rtol, levels,
                                                neighbouring)

    def value(x: Fraction):
        return int(x) if integer else float(x)

    seen: dict = {}

    def ok(x: Fraction) -> bool:
        return _decide(make, value(x), count, eps, dq, levels, neighbouring, seen)

    def snap(x: Fraction) -> Fraction:
        if integer:
            return Fraction(max(1, math.ceil(x)))
        return Fraction(float(x))

    a = snap(to_fraction("lo", lo)) if lo is not None else None
    b = snap(to_fraction("hi", hi)) if hi is not None else None
    a, b = _bracket(ok, snap, a, b, integer, eps, dq)
    if ok(a):
        return value(a)
    guess = None if integer else (lambda a, b: _guess(seen.get(value(a)), seen.get(value(b)),
                                                      a, b, eps))
    return value(_narrow(ok, snap, a, b, integer, rtol, guess))


def _check_calibration(make, count, epsilon, delta, rtol, levels, neighbouring):
    """:func:`calibrate`'s arguments checked: ``(count, epsilon, delta, levels)``."""
    if not callable(make):
        raise ParameterError("make must be a callable s -> DpEvent")
    count = check_int("count", count, minimum=1)
    eps = to_fraction("epsilon", epsilon)
    if eps < 0:
        raise ParameterError(f"epsilon must be >= 0, got {epsilon!r}")
    dq = to_fraction("delta", delta)
    if not (0 < dq < 1):
        raise ParameterError(f"delta must be in (0, 1), got {delta!r}")
    if not (isinstance(rtol, (int, float)) and 0 < rtol < 1):
        raise ParameterError(f"rtol must be in (0, 1), got {rtol!r}")
    levels = tuple(check_int("levels", p, minimum=16) for p in levels)
    if neighbouring is not None:
        check_relation(neighbouring)
    if not levels:
        raise ParameterError("levels must name at least one grid size")
    return count, eps, dq, levels


def _bracket(ok, snap, a, b, integer: bool, eps: Fraction, dq: Fraction):
    """``(a, b)`` with ``ok(b)`` (``b`` doubled until it holds) and ``a`` below it (halved
    from ``b`` while it holds, when no ``lo`` was given)."""
    if b is None or not ok(b):
        b = b if b is not None else (a * 2 if a else Fraction(1))
        while not ok(b):
            a = b
            b = snap(b * 2)
            if b > 2**60:
                raise ParameterError("no noise up to 2^60 meets the target: is it reachable "
                                     f"(epsilon={float(eps)}, delta={float(dq)})?")
    if a is None:
        a = snap(b / 2)
        while a > (1 if integer else Fraction(1, 2**60)) and ok(a):
            b, a = a, snap(a / 2)
    return a, b


def _narrow(ok, snap, a, b, integer: bool, rtol: float, guess=None):
    """Narrow ``[a, b]`` with ``ok(b)`` and not ``ok(a)`` down to ``rtol`` (1 for integers):
    the certified end. Each step tries the point where the ends' ε intervals place the
    target (``guess``), just above it and then just below it — two trials close a bracket
    the guess is right about — and bisects when it has no guess inside the bracket; every
    move of an end is a decision of ``ok``, so the answer is certified either way."""
    width = 1 if integer else Fraction(rtol) * b
    while (b - a) > width:
        g = guess(a, b) if guess is not None else None
        tries = ([] if g is None else
                 [snap(g * (1 + Fraction(rtol) / 4)), snap(g * (1 - Fraction(rtol) / 4))])
        tries = [m for m in tries if a < m < b] or [snap((a + b) / 2)]
        moved = False
        for m in tries:
            if not a < m < b:           # an end already moved past it
                continue
            moved = True
            if ok(m):
                b = m
            else:
                a = m
        if not moved:                   # no representable point left inside
            break
        width = 1 if integer else Fraction(rtol) * b
    return b


def _guess(at_a, at_b, a: Fraction, b: Fraction, eps: Fraction) -> Fraction | None:
    """Where ε(δ) crosses ``eps`` between ``a`` and ``b``, interpolating log ε (the middle
    of each end's certified interval) linearly in log s; None without two finite, positive
    readings or when the line does not cross inside the bracket."""
    if at_a is None or at_b is None:
        return None
    ya, yb = (math.log(sum(v) / 2) if 0 < sum(v) < math.inf else None for v in (at_a, at_b))
    if ya is None or yb is None or ya == yb:
        return None
    la, lb, y = math.log(a), math.log(b), math.log(eps)
    t = (y - ya) / (yb - ya)
    if not 0 < t < 1:
        return None
    return Fraction(math.exp(la + t * (lb - la)))


def calibrate_grid(releases: Callable[[Fraction], Iterable[tuple[DpEvent, int]]], *,
                   epsilon: Fraction, delta: Fraction, start: int, top: int,
                   neighbouring: str = REPLACE_ONE, settle: bool = False,
                   steps: int = GRID_STEPS, search_points: int = SEARCH_POINTS
                   ) -> tuple[Fraction, PldEpsilon] | None:
    """The largest per-release ε = ``epsilon``·j/2^``steps``, j in [1, ``top``] searched from
    ``start``, at which the ``(event, count)`` pairs ``releases(ε_j)`` compose to a certified
    (``epsilon``, ``delta``) (the upper end of :class:`PldAccountant`'s ε(δ) at most
    ``epsilon``, under ``neighbouring``), with that certificate; None when j = 1 fails.

    App. H (000): a user returning in k batches is the adaptive composition of the k views,
    so the per-batch ε is calibrated on the composition, not divided by k. The search runs on
    a coarse grid of ``search_points`` (still certified, a little looser; a larger ε_j is
    assumed to leak more, so the search is monotone: :func:`~privtools.certified.search.
    largest_true`) and the value found is certified again on the accountant's default grid.
    If that fails, ``settle=False`` returns the coarse certificate (still a certificate);
    ``settle=True`` steps j down until the default grid certifies it (None if none does).
    """
    target = _intervals.fraction_bounds(epsilon, 128)[0]
    scale = 2**steps

    def certify(j: int, points: int | None) -> PldEpsilon | None:
        acc = (PldAccountant(neighbouring=neighbouring) if points is None
               else PldAccountant(max_points=points, neighbouring=neighbouring))
        for event, count in releases(epsilon * j / scale):
            acc.compose(event, count=count)
        r = acc.epsilon(delta)
        return r if _intervals.ends(r.interval)[1] <= target else None

    found: dict[int, PldEpsilon] = {}

    def holds(j: int) -> bool:
        r = certify(j, search_points)
        if r is not None:
            found[j] = r
        return r is not None

    j = largest_true(holds, start, top)
    if j is None:
        return None
    final = certify(j, None)
    if not settle:
        return epsilon * j / scale, final or found[j]
    while final is None and j > 1:
        j -= 1
        final = certify(j, None)
    return None if final is None else (epsilon * j / scale, final)
