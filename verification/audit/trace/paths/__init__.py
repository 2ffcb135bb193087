"""Exact verdicts where the noise steers the program: every path, its certified probability.

Where a mechanism branches on its noise — the sparse vector comparing noisy answers with a
noisy threshold, report-noisy-max, a clamp after the noise, randomised response, the
exponential mechanism drawn by ``choice`` — the linear model of the releases does not hold.
The paths do:

1. **Path conditions** (:mod:`..record.branches`): in a steered run every comparison,
   ``argmax``, ``max``, ``abs``, ``clip`` or noisy index on the draws is a branch whose
   alternatives are linear conditions in the draws, with the data in their constants.
2. **Every path** (:mod:`.explore`): branches are forced alternative by alternative, depth
   first, pruning the impossible ones exactly; paths whose output ignores a branch are
   merged.
3. **Certified probabilities** (:mod:`.measure`, :mod:`.laws`): each path's probability
   on d and on d' is an Arb ball — exact sums for integer laws, rigorous integration for
   Laplace, Gaussian, exponential, Gumbel, logistic and uniform draws.
4. **The pair's loss** (:mod:`.compare`): outputs grouped over paths; their probabilities
   (and the densities of released values) give the certified ε(δ) ends of the pair's view.

What a path cannot say (a comparison of a non-linear function of the noise, conditions
that chain draws beyond the shapes integrated, writing noisy values into a plain array) is
reported, and the paths then decide nothing.
"""

from __future__ import annotations

from fractions import Fraction

from privtools.certified import balls

from ..result import PathReport
from .compare import pair_loss
from .explore import MAX_PATHS, Exploration, explore

__all__ = ["decide", "explore", "Exploration", "MAX_PATHS"]


def _continuous(ex: Exploration) -> bool:
    return any(not law.discrete for p in ex.paths for law in p.laws.values())


def decide(runner, d, d_prime, recorded, delta: Fraction, *,
           max_paths: int = MAX_PATHS, cache: dict | None = None) -> PathReport:
    """Explore every path on ``d`` and ``d_prime`` and certify the pair's ε(δ) ends
    (see the module doc). ``cache`` maps a dataset to its exploration, for a search that
    meets the same dataset in several pairs."""
    cache = {} if cache is None else cache
    runs = 0
    exs = []
    for data in (d, d_prime):
        key = _key(data)
        ex = cache.get(key) if key is not None else None
        if ex is None:
            ex = explore(runner, data, recorded, max_paths=max_paths)
            runs += ex.runs
            if key is not None:
                cache[key] = ex
        if ex.refused is not None:
            return PathReport(refused=ex.refused, runs=runs)
        exs.append(ex)
    pl = pair_loss(exs[0], exs[1], Fraction(delta))
    if pl.refused is not None:
        return PathReport(refused=pl.refused, runs=runs, paths_d=pl.paths_d,
                          paths_dp=pl.paths_dp)
    p_d = p_dp = ()
    if pl.probabilities:

        p_d = (balls.lower_mpf(pl.probabilities[0]), balls.upper_mpf(pl.probabilities[0]))
        p_dp = (balls.lower_mpf(pl.probabilities[1]), balls.upper_mpf(pl.probabilities[1]))
    return PathReport(lo=pl.lo, hi=pl.hi, worst=pl.worst, p_d=p_d, p_dp=p_dp,
                      condition=pl.condition, paths_d=pl.paths_d, paths_dp=pl.paths_dp,
                      runs=runs, continuous=_continuous(exs[0]) or _continuous(exs[1]),
                      density=pl.density)


def _key(data):
    try:
        hash(data)
        return (type(data).__name__, data)
    except TypeError:
        return None
