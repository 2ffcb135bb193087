"""Computations several entries share: plans, claims, privacy-loss distributions."""

from __future__ import annotations

import functools
import re
from decimal import Decimal
from fractions import Fraction

from figures.formats import FigureError, _dec
from figures.tables import HORIZON


@functools.cache
def a_plan(privacy: str, epsilon: str, n: int, s: str | None = None, trust: str | None = None,
           c: int | None = None, tail: str = "exact"):
    from privtools.planning import plan

    kw: dict = dict(privacy=privacy, epsilon=epsilon, n=n, horizon=HORIZON, tail=tail)
    for key, val in (("s", s), ("trust", trust), ("c", c)):
        if val is not None:
            kw[key] = val
    return plan(**kw)


def fail_upper(pl, tau: int):
    """Certified upper end of P(|total noise| > τ) (+ q̂ for the shuffle), as in
    studies/make_plans_table.py."""
    import mpmath

    from privtools.certified import ends
    from privtools.exact import total_noise_tail

    hi = ends(total_noise_tail(pl.exact_total_noise, tau, dps=15, p=pl.p_noise))[1]
    if pl.q_hat:
        hi += mpmath.mpf(pl.q_hat.numerator) / pl.q_hat.denominator
    return hi


@functools.cache
def claim(name: str):
    from verification import claims

    return claims.check(name, "full")


def claim_details(name: str, pattern: str) -> list[tuple[dict, Decimal]]:
    """The number each full-grid row of a claim reports after ``pattern`` in its detail."""
    out = []
    for row in claim(name).rows:
        m = re.search(pattern, row.detail)
        if m is None:
            raise FigureError(f"claim {name}: no {pattern!r} in {row.detail!r}")
        out.append((row.params, _dec(m.group(1))))
    return out


PLD_EVENTS = {
    "lapz": "DiscreteLaplaceEvent(scale=320, sensitivity=32)",
    "nz": "DiscreteGaussianSumEvent(1, Fraction(10000), 10)",
    "gauss": "GaussianEvent(sigma=10)",
    "sk": "SkellamEvent(var=100, sensitivity=1)",
    "sum16": "DiscreteGaussianSumEvent(16, Fraction(25, 4), 1)",
}


def _pld_event(view: str):
    from privtools.accounting import (
        DiscreteGaussianSumEvent,
        DiscreteLaplaceEvent,
        GaussianEvent,
        SkellamEvent,
    )

    return {
        "lapz": lambda: DiscreteLaplaceEvent(scale=320, sensitivity=32),
        "nz": lambda: DiscreteGaussianSumEvent(1, Fraction(10000), 10),
        "gauss": lambda: GaussianEvent(sigma=10),
        "sk": lambda: SkellamEvent(var=100, sensitivity=1),
        "sum16": lambda: DiscreteGaussianSumEvent(16, Fraction(25, 4), 1),
    }[view]()


@functools.cache
def pld_epsilon(view: str, k: int) -> tuple[Decimal, Decimal]:
    """Certified [lower, upper] ε(10⁻⁶) of k compositions, as benchmarks/bench_pld.py."""
    from privtools.accounting import PldAccountant
    from privtools.certified.intervals import ends

    r = PldAccountant().compose(_pld_event(view), count=k).epsilon(1e-6)
    return _dec(float(ends(r.interval)[0])), _dec(r.epsilon)


@functools.cache
def rdp_epsilon(view: str, k: int) -> Decimal:
    from privtools.accounting import RdpAccountant

    return _dec(RdpAccountant().compose(_pld_event(view), count=k).epsilon(1e-6).epsilon)


