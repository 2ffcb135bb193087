"""Returning users: a user who contributes to up to k batches of a run, accounted exactly.

Each batch the user joins releases one view of their data (the batch's noisy sum under
Theorems 1, 2, 4, 5 of paper 000, or the user's own report under Theorem 6); the run is the
adaptive composition of those views (App. H (000) composes their Rényi curves; here the
certified privacy-loss distributions of :class:`~privtools.accounting.PldAccountant`).

    batch_event(params)                          the DpEvent of one batch's view
    per_user_epsilon(params, k, delta)           certified ε(δ) of k participations
    calibrate(theorem, epsilon, delta, k, ...)   the per-batch ε whose k-fold composition
                                                 is certified (epsilon, delta)-DP
    pool_participations(pool, n, horizon, beta)  k such that a user of a pool of U, drawn
                                                 uniformly each round, joins more than k
                                                 rounds — or one batch twice — w.p. <= beta
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath
from flint import arb

from privtools.accounting import (
    DpEvent,
    PldAccountant,
    PldEpsilon,
    PoissonSampledEvent,
)
from privtools.accounting.calibration import GRID_STEPS, SEARCH_POINTS, calibrate_grid
from privtools.certified import balls as _arb
from privtools.certified import intervals as _intervals
from privtools.certified.intervals import fraction_bounds
from privtools.certified.search import largest_true
from privtools.errors import ParameterError
from privtools.validation import check_int, check_positive_fraction

from .deployments import by_theorem
from .theorems import TheoremParams, view_params

__all__ = ["batch_event", "per_user_epsilon", "calibrate", "pool_participations",
           "largest_true", "CALIBRATION_STEPS"]

#: Bisection steps of the per-batch ε (relative 2^-12): accounting's calibration grid
#: (its search runs on SEARCH_POINTS grid points; ``largest_true``, the one monotone search's
#: bounded form, is re-exported here for the planner's other searches).
CALIBRATION_STEPS = GRID_STEPS


def batch_event(params: TheoremParams, multiplicity: int = 1) -> DpEvent:
    """The view of one batch as an event: Lap_Z(g/ε) on Σx̂ (Theorems 1, 5; Theorem 6: each
    user's own report), Sk(0, g²/ε²) (Theorem 2), the n-fold discrete-Gaussian sum
    (Theorem 4); sensitivity g, or ``multiplicity``·g for a user counted that many times in
    the batch."""
    if not isinstance(params, TheoremParams):
        raise ParameterError(f"params must be TheoremParams, got {type(params).__name__}")
    j = check_int("multiplicity", multiplicity, minimum=1)
    return params.deployment.event(params, params.g * j)


def _profile(participations) -> tuple[tuple[int, int], ...]:
    """``k`` or ``((multiplicity, count), ...)`` as a validated profile."""
    if isinstance(participations, int) and not isinstance(participations, bool):
        return ((1, check_int("participations", participations, minimum=1)),)
    try:
        items = tuple((int(j), int(c)) for j, c in participations)
    except (TypeError, ValueError):
        raise ParameterError("participations must be an int >= 1 or a sequence of "
                             "(multiplicity, count) pairs") from None
    if not items or any(j < 1 or c < 0 for j, c in items) or not any(c for _, c in items):
        raise ParameterError(f"participations profile must have multiplicities >= 1 and "
                             f"counts >= 0, not all zero; got {participations!r}")
    return items


def _relation(q: Fraction | None) -> str:
    """Poisson client sampling is accounted under add/remove (so is every batch of the run: a
    user's contribution is at most g either way); without it, replace-one (paper 000)."""
    return "replace-one" if q is None else "add-remove"


def _releases(params: TheoremParams, profile: tuple, q: Fraction | None
              ) -> list[tuple[DpEvent, int]]:
    """The ``(event, count)`` pairs of a user's participations: each batch's view (Poisson
    sampled at rate ``q`` when given and below 1)."""
    out = []
    for j, c in profile:
        if c:
            ev = batch_event(params, j)
            out.append((ev if q is None or q == 1 else PoissonSampledEvent(ev, q), c))
    return out


def per_user_epsilon(params: TheoremParams, participations, delta,
                     max_points: int | None = None, rate=None) -> PldEpsilon:
    """Certified ε(δ) of a user who joins ``participations`` batches planned by ``params``
    (an int k, or a profile ``((multiplicity, count), ...)``: ``count`` batches in which the
    user is counted ``multiplicity`` times). ``rate``: each of those batches samples its
    clients independently with this probability (Poisson client sampling, add/remove): each
    batch is then a :class:`~privtools.accounting.PoissonSampledEvent` of its view, and the
    ε is stated for add/remove (``PldAccountant(neighbouring="add-remove")``)."""
    q = None if rate is None else check_positive_fraction("rate", rate, upper=1)
    relation = _relation(q)
    acc = (PldAccountant(neighbouring=relation) if max_points is None
           else PldAccountant(max_points=max_points, neighbouring=relation))
    for ev, c in _releases(params, _profile(participations), q):
        acc.compose(ev, count=c)
    return acc.epsilon(delta)


def _params(theorem: int, eps: Fraction, n: int, p: Fraction, s) -> TheoremParams:
    return view_params(theorem, eps, n, p, s=s)


def calibrate(theorem: int, epsilon, delta, participations, n: int, p,
              s=1, rate=None) -> tuple[Fraction, PldEpsilon]:
    """The largest per-batch ε on the grid ε·j/2^12 whose ``participations``-fold composition
    is certified (``epsilon``, ``delta``)-DP, with that certificate.

    Pure DP with ``delta == 0`` needs no search: basic composition is exact for pure DP, so
    the per-batch ε is ε/k. Otherwise a bisection over the grid, each step certified by
    :class:`PldAccountant`; the returned certificate is the final one (the search only
    proposes). ``rate``: Poisson client sampling of every batch (see
    :func:`per_user_epsilon`)."""
    eps = check_positive_fraction("epsilon", epsilon)
    profile = _profile(participations)
    k = sum(j * c for j, c in profile)          # pure DP: ε adds over every count
    dq = Fraction(delta) if not isinstance(delta, float) else Fraction(delta)
    if not (0 <= dq < 1):
        raise ParameterError(f"delta must be in [0, 1), got {delta!r}")
    q = None if rate is None else check_positive_fraction("rate", rate, upper=1)
    if dq == 0 and q is not None and q < 1:
        raise ParameterError("delta must be > 0 with client sampling (its amplification is "
                             "an (ε, δ) statement)")
    if dq == 0:
        if not by_theorem(theorem).pure:
            raise ParameterError("delta must be > 0 for rdp and cdp plans: their views have "
                                 "no finite pure ε")
        eb = eps / k
        return eb, PldEpsilon(float(eb * k), mpmath.mpi(*fraction_bounds(eb * k)), 0.0)
    return _calibrated(theorem, eps, dq, profile, n, Fraction(p), Fraction(1 if s is None else s),
                       q)


@functools.lru_cache(maxsize=64)
def _calibrated(theorem: int, eps: Fraction, dq: Fraction, profile: tuple, n: int, p: Fraction,
                s: Fraction, rate: Fraction | None = None) -> tuple[Fraction, PldEpsilon]:
    """:func:`calibrate`'s certified search (accounting's
    :func:`~privtools.accounting.calibration.calibrate_grid`), once per target (the command
    line plans the same batch twice: with the theorem's τ and with the exact τ; the noise is
    the same)."""
    k = sum(j * c for j, c in profile)
    scale = 2**CALIBRATION_STEPS
    # sampling amplifies: a batch may then spend more than the whole target (up to 16ε)
    top = scale if rate is None or rate == 1 else 16 * scale
    start = max(scale // k, 1) if top == scale else max(int(scale // max(rate * k, 1)), 1)
    found = calibrate_grid(
        lambda eb: _releases(_params(theorem, eb, n, p, s), profile, rate),
        epsilon=eps, delta=dq, start=min(start, top), top=top,
        neighbouring=_relation(rate), steps=CALIBRATION_STEPS, search_points=SEARCH_POINTS)
    if found is None:
        raise ParameterError(f"no per-batch epsilon >= epsilon/2^{CALIBRATION_STEPS} meets "
                             f"({eps}, {float(dq):.3g}) over {k} participations")
    return found


MAX_MULTIPLICITY = 64


def pool_participations(pool: int, n: int, horizon: int, beta
                        ) -> tuple[tuple[tuple[int, int], ...], Fraction]:
    """Participation profile of a member of a pool of ``pool`` people when each round's user
    is drawn uniformly (with replacement) and rounds are cut into batches of ``n``.

    In each batch the member is counted Bin(n, 1/U) times, independently across batches,
    so the number of batches where they are counted at least j times is
    N_j ~ Bin(B, P(Bin(n, 1/U) >= j)). Returns the profile ``((j, k_j − k_{j+1}), ...)``
    with k_j the certified (β/(J+1))-quantile of N_j for j <= J and no batch counting them
    more than J times (J the smallest that fits), and the certified probability that the
    profile fails (<= ``beta``). The events do not depend on the data, and a larger count or
    multiplicity only adds loss (a location family with monotone likelihood ratio), so a
    plan certified for the profile is (ε, δ + beta)-DP for every member of the pool."""
    U = check_int("pool", pool, minimum=1)
    n = check_int("n", n, minimum=1)
    T = check_int("horizon", horizon, minimum=1)
    b = check_positive_fraction("beta", beta, upper=1)
    batches = -(-T // n)
    with _arb.precision(256):
        q = arb(1) / U
        b_ball = _arb.to_arb(b)
        J = None
        for j in range(1, min(n, MAX_MULTIPLICITY) + 1):
            over = batches * _arb.binomial_tail(n, q, j + 1)       # some batch counts > j times
            if over <= b_ball / (j + 1):
                J = j
                break
        if J is None:
            raise ParameterError(f"pool = {U} is too small for beta = {float(b):.3g}: a user "
                                 f"may be counted more than {MAX_MULTIPLICITY} times in one "
                                 f"batch of n = {n}")
        share = b_ball / (J + 1)
        ks, total = [], over
        for j in range(1, J + 1):
            k, tail = _binomial_quantile(batches, _arb.binomial_tail(n, q, j), share)
            ks.append(min(k, ks[-1]) if ks else k)
            total = total + tail
        bound = _intervals.exact_rational(_arb.upper_mpf(total))
    ks.append(0)
    profile = tuple((j + 1, ks[j] - ks[j + 1]) for j in range(J) if ks[j] - ks[j + 1] > 0)
    return profile or ((1, 0),), min(bound, Fraction(1))


def _binomial_quantile(trials: int, prob: arb, beta: arb) -> tuple[int, arb]:
    """Smallest k with P(Bin(trials, prob) > k) <= beta, certified, and that tail (a ball)."""
    pmf = (trials * (-prob).log1p()).exp()
    cdf = pmf
    ratio = prob / (1 - prob)
    k = 0
    while not ((1 - cdf) <= beta) and k < trials:
        pmf = pmf * (trials - k) / (k + 1) * ratio
        k += 1
        cdf += pmf
    return k, (1 - cdf).nonnegative_part()
