"""Composition: RDP and zCDP add up; advanced composition for (ε, δ)-DP, for comparison.

    compose_rdp([curve_or_event, ...], counts=None)  -> ComposedCurve, α ↦ Σ_i k_i ε_i(α)
    returning_users_rdp(curve_or_event, B)           -> B·ε(α)   (App. H (000))
    advanced_composition(eps, delta, k, delta_prime) -> ApproxDP(ε', kδ + δ')  (DRV10)
    theorem7_per_mechanism_epsilon(eps_total, k, delta_prime)   (Theorem 7 (000))

RDP composes additively under adaptive composition (Mironov 2017, Prop. 1): if M_i is
(α, ε_i(α))-RDP then (M_1, …, M_k) is (α, Σ ε_i(α))-RDP; ρ-zCDP likewise (Bun & Steinke
2016, Lemma 2.3). App. H (000): a user in at most B batches (Assumption 2) incurs
B·ε(α), i.e. ½Bε²-CDP for ½ε²-CDP batches, and ε' = O(ε√(B log(1/δ))) after Lemma 10,
against advanced composition's extra log(B/δ) factor in the noise variance.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from privtools.errors import ParameterError
from privtools.validation import (
    check_int,
    check_nonneg,
    check_positive_fraction,
    check_probability,
)

from .._numeric import BASE_DPS, Curve, eval_rdp, is_sequence, mpf, up
from ..events import DpEvent
from .accountant import EventCurve

__all__ = [
    "ComposedCurve",
    "compose_rdp",
    "returning_users_rdp",
    "ApproxDP",
    "advanced_composition",
    "theorem7_per_mechanism_epsilon",
]


def _as_curve(item, i: int):
    if isinstance(item, DpEvent):
        return EventCurve(item)
    if callable(item):
        return item
    raise ParameterError(f"curves_or_events[{i}] must be a DpEvent or a callable α ↦ ε(α), "
                         f"got {type(item).__name__}")


class ComposedCurve(Curve):
    """α ↦ Σ_i k_i · ε_i(α), summed in high precision and rounded up once."""

    def __init__(self, curves: Sequence[Callable], counts: Sequence[int]):
        self.terms = tuple(zip(curves, counts))

    def rdp_mp(self, a: Fraction):
        """Σ k·ε_i(α) over the composed terms, in mpmath at raised precision (α a Fraction)."""
        total = Fraction(0)
        with mpmath.workdps(BASE_DPS + 10):
            for curve, k in self.terms:
                if k == 0:
                    continue
                v = eval_rdp(curve, a)
                if isinstance(total, Fraction) and isinstance(v, Fraction):
                    total += k * v
                else:
                    total = mpf(total) + k * mpf(v)
        return total

    def __repr__(self) -> str:
        return f"ComposedCurve({len(self.terms)} terms)"


def compose_rdp(curves_or_events, counts=None) -> ComposedCurve:
    """Adaptive composition of RDP curves (callables α ↦ ε(α)) and/or events:
    α ↦ Σ_i counts[i]·ε_i(α) (Mironov 2017, Prop. 1). ``counts`` defaults to all ones."""
    if not is_sequence(curves_or_events) or len(curves_or_events) == 0:
        raise ParameterError("curves_or_events must be a non-empty list or tuple")
    curves = [_as_curve(c, i) for i, c in enumerate(curves_or_events)]
    if counts is None:
        counts = [1] * len(curves)
    else:
        if not is_sequence(counts) or len(counts) != len(curves):
            raise ParameterError("counts must be a sequence as long as curves_or_events")
        counts = [check_int("counts", k, minimum=0) for k in counts]
    return ComposedCurve(curves, counts)


def returning_users_rdp(curve_or_event, participations) -> ComposedCurve:
    """Returning users, App. H (000): a user who joins at most B batches (Assumption 2),
    each (α, ε(α))-RDP, is (α, B·ε(α))-RDP. ``participations`` = B >= 1."""
    b = check_int("participations", participations, minimum=1)
    return ComposedCurve([_as_curve(curve_or_event, 0)], [b])


@dataclass(frozen=True)
class ApproxDP:
    """An (ε, δ)-DP guarantee (floats rounded up). Unpacks as ``eps, delta = result``."""

    epsilon: float
    delta: float

    def __iter__(self):
        return iter((self.epsilon, self.delta))


def advanced_composition(eps, delta, k, delta_prime) -> ApproxDP:
    """Advanced composition (Dwork, Rothblum & Vadhan 2010; Dwork & Roth 2014, Thm 3.20):
    k adaptive (ε, δ)-DP mechanisms are (ε', kδ + δ')-DP with ::

        ε' = √(2k log(1/δ')) ε + k ε (e^ε − 1).

    ``delta`` may be 0 (pure-DP mechanisms); ``delta_prime`` in (0, 1)."""
    e = check_positive_fraction("eps", eps)
    d = check_nonneg("delta", delta)
    if d >= 1:
        raise ParameterError(f"delta must be < 1, got {delta!r}")
    k = check_int("k", k, minimum=1)
    dp = check_probability("delta_prime", delta_prime)
    with mpmath.workdps(BASE_DPS + 10):
        ev = mpf(e)
        eps_total = mpmath.sqrt(2 * k * -mpmath.log(mpf(dp))) * ev + k * ev * mpmath.expm1(ev)
    return ApproxDP(up(eps_total), up(k * d + dp))


def theorem7_per_mechanism_epsilon(eps_total, k, delta_prime) -> float:
    """Theorem 7 (000) (= Dwork & Roth 2014, Cor. 3.21): for a target ε' in (0, 1),
    per-mechanism ε = ε'/(2√(2k log(1/δ'))) makes the k-fold composition
    (ε', kδ + δ')-DP. Returns that ε (rounded **down**: a smaller per-mechanism ε is the
    safe side)."""
    e = check_positive_fraction("eps_total", eps_total, upper=1)
    k = check_int("k", k, minimum=1)
    dp = check_probability("delta_prime", delta_prime)
    with mpmath.workdps(BASE_DPS + 10):
        val = mpf(e) / (2 * mpmath.sqrt(2 * k * -mpmath.log(mpf(dp))))
        return -up(-val)
