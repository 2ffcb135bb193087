"""Plausible implementation bugs of noise samplers, for measuring an audit's power.

Each case pairs a sampler ``sampler(size, rng)`` with the law it *claims* to follow. The
correct cases follow their claim; the buggy ones are mistakes seen in practice when the
distributions of paper 000 are implemented by hand. The setting is the noise of
Theorem 1 (000) at n = 16 users and ε = 1: g = ⌈ε√n⌉ = 4, total noise Lap_Z(g/ε) = Lap_Z(4),
one user's share Pólya(1/16, e^{-1/4}) − Pólya(1/16, e^{-1/4}) (Fact 1).

The audits are general tests; these cases only *measure* them (power and false alarms) and
are never used to tune them.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privtools.noise import DiscreteLaplace, PolyaDifference, Skellam

__all__ = ["SamplerCase", "correct_cases", "buggy_cases", "N_USERS", "SCALE"]

N_USERS = 16
SCALE = 4  # g/ε for Theorem 1 at n = 16, ε = 1


@dataclass(frozen=True)
class SamplerCase:
    name: str
    description: str
    reference: object
    sampler: Callable


def _share() -> PolyaDifference:
    return DiscreteLaplace(SCALE).shares(N_USERS)


def _sum_of_shares(share, count: int) -> Callable:
    def sampler(size, rng):
        return share.sample((size, count), rng).sum(axis=1)
    return sampler


def correct_cases() -> list[SamplerCase]:
    """Samplers that do follow their claimed law."""
    lap = DiscreteLaplace(SCALE)
    share = _share()
    sk = Skellam(100)
    return [
        SamplerCase("laplace", "Lap_Z(4) by the library sampler", lap,
                    lambda size, rng: lap.sample(size, rng)),
        SamplerCase("laplace-exact", "Lap_Z(4) by the integer-only sampler", lap,
                    lambda size, rng: lap.sample(size, rng, exact=True)),
        SamplerCase("polya-share", "one user's Pólya-difference share (n = 16)", share,
                    lambda size, rng: share.sample(size, rng)),
        SamplerCase("sum-of-shares", "sum of 16 shares vs Lap_Z(4) (Fact 1)", lap,
                    _sum_of_shares(share, N_USERS)),
        SamplerCase("skellam", "Sk(0, 100)", sk, lambda size, rng: sk.sample(size, rng)),
    ]


def buggy_cases() -> list[SamplerCase]:
    """Samplers with one plausible bug each, and the law they wrongly claim."""
    lap = DiscreteLaplace(SCALE)
    share = _share()
    beta = math.exp(-1 / SCALE)
    r = float(Fraction(1, N_USERS))

    def swapped(size, rng):
        # numpy's negative_binomial(n, p) takes the success probability p = 1 - β;
        # passing β itself is the swap.
        return rng.negative_binomial(r, beta, size) - rng.negative_binomial(r, beta, size)

    return [
        SamplerCase("scale-x2", "Lap_Z(8) claimed as Lap_Z(4) (scale doubled)", lap,
                    lambda size, rng: DiscreteLaplace(2 * SCALE).sample(size, rng)),
        SamplerCase("scale-x10", "Lap_Z(40) claimed as Lap_Z(4)", lap,
                    lambda size, rng: DiscreteLaplace(10 * SCALE).sample(size, rng)),
        SamplerCase("scale-div2", "Lap_Z(2) claimed as Lap_Z(4) (half the noise: ε doubles)",
                    lap, lambda size, rng: DiscreteLaplace(SCALE // 2).sample(size, rng)),
        SamplerCase("swapped-parameter", "Pólya share drawn with negative_binomial(r, β) "
                    "instead of (r, 1 − β)", share, swapped),
        SamplerCase("missing-user", "sum of 15 shares claimed as the 16-share Lap_Z(4)", lap,
                    _sum_of_shares(share, N_USERS - 1)),
        SamplerCase("rounded-continuous", "round(Laplace(4)) (continuous, rounded) claimed "
                    "as Lap_Z(4)", lap,
                    lambda size, rng: np.rint(rng.laplace(0.0, SCALE, size)).astype(np.int64)),
    ]
