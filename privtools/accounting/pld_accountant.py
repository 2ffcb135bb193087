"""The certified privacy-loss-distribution accountant.

    acc = PldAccountant().compose(DiscreteLaplaceEvent(scale=320, sensitivity=32), count=100)
    r = acc.epsilon(1e-6)     # r.epsilon: certified upper end; r.interval: [lower, upper]
    d = acc.delta(1.0)        # d.delta: certified upper end; d.interval

It reads the same events as :class:`~privtools.accounting.RdpAccountant` (except
``ZCDPEvent``, which has no loss distribution) plus :class:`ModularEvent` and
:class:`PmfPairEvent`, and answers with two-sided certified intervals: the upper end is
what a deployment may claim; the lower end shows how much any accountant could still gain.

Grid. Releases whose loss lives on an exact lattice (discrete Laplace, one discrete
Gaussian, randomized response) are composed on it whenever the composed lattice has at
most ``max_points`` points — then both ends agree to Arb's radius. Otherwise one step is
chosen so the composed loss (mean ± 20 standard deviations) fits in ``max_points``; atoms
between grid points are split (upper end, error second order in the step) or rounded down
(lower end, first order). ``step=`` fixes the step instead.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from privtools.certified import intervals as _intervals
from privtools.errors import ParameterError
from privtools.validation import check_int, to_fraction

from .base import Accountant
from .events import (
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    DpEvent,
    GaussianEvent,
    LaplaceEvent,
    ModularEvent,
    PmfPairEvent,
    PureDPEvent,
    SkellamEvent,
    ZCDPEvent,
)
from .gaussian import gaussian_delta, gaussian_epsilon
from .pld import DEFAULT_PREC, DEFAULT_TAIL, PrivacyLossDistribution
from .pld_events import Release, gaussian_release, releases
from .pld_sampled import release
from .sampled_events import (
    ApproxDPEvent,
    PoissonSampledEvent,
    RandomAllocationEvent,
    SampledWithoutReplacementEvent,
    ShuffledEvent,
)

__all__ = ["PldAccountant", "PldEpsilon", "PldDelta", "MAX_POINTS"]

MAX_POINTS = 2**18
SINGLE_POINTS = 2**16
_SPREAD_SDS = 20


@dataclass(frozen=True)
class PldEpsilon:
    """ε(δ) of everything composed: ``epsilon`` is the certified upper end (float, rounded
    up); ``interval`` the certified [lower, upper]; ``delta`` the δ asked for."""

    epsilon: float
    interval: _intervals.Interval
    delta: float

    @property
    def relative_width(self) -> float:
        """(hi − lo)/hi of the certified interval: how tight the bracket is."""
        lo, hi = _intervals.ends(self.interval)
        return float((hi - lo) / hi) if hi > 0 and mpmath.isfinite(hi) else 0.0


@dataclass(frozen=True)
class PldDelta:
    """δ(ε): ``delta`` the certified upper end (float, rounded up), ``interval`` the certified
    [lower, upper], ``epsilon`` the ε asked for."""

    delta: float
    interval: _intervals.Interval
    epsilon: float


def _float_up(x: mpmath.mpf) -> float:
    if not mpmath.isfinite(x):
        return math.inf
    f = float(x)
    return f if mpmath.mpf(f) >= x else math.nextafter(f, math.inf)


def _common_step(steps: list[Fraction]) -> Fraction:
    """The largest step dividing every step (gcd of rationals)."""
    num = 0
    den = 1
    for s in steps:
        den = den * s.denominator // math.gcd(den, s.denominator)
    for s in steps:
        num = math.gcd(num, s.numerator * (den // s.denominator))
    return Fraction(num, den)


class PldAccountant(Accountant):
    """Certified two-sided (ε, δ) of adaptive compositions, from privacy-loss distributions.

    ``max_points``: grid points of the composed loss (memory and time grow with it);
    ``step``: fix the grid step (a positive number) instead of choosing it; ``tail``: mass
    each truncation may move (up onto +∞ on the upper side, so it only loosens);
    ``prec``: Arb working precision in bits.

    Follows the :class:`~privtools.accounting.Accountant` contract. ``ZCDPEvent`` has no
    privacy-loss distribution and is refused by :meth:`compose` with
    :class:`~privtools.errors.UnsupportedEventError` (use ``RdpAccountant``).
    """

    supported_events = (DiscreteLaplaceEvent, SkellamEvent, DiscreteGaussianSumEvent,
                        GaussianEvent, LaplaceEvent, PureDPEvent, ModularEvent, PmfPairEvent,
                        PoissonSampledEvent, SampledWithoutReplacementEvent, ApproxDPEvent,
                        ShuffledEvent, RandomAllocationEvent)
    neighbouring = "replace-one"

    def __init__(self, *, max_points: int = MAX_POINTS, step=None, tail=DEFAULT_TAIL,
                 prec: int = DEFAULT_PREC):
        super().__init__()
        self._max_points = check_int("max_points", max_points, minimum=16)
        if step is not None:
            step = to_fraction("step", step)
            if step <= 0:
                raise ParameterError(f"step must be > 0, got {step}")
        self._step = step
        tail = to_fraction("tail", tail)
        if not (0 < tail < Fraction(1, 10**6)):
            raise ParameterError(f"tail must be in (0, 1e-6), got {float(tail)!r}")
        self._tail = tail
        self._prec = check_int("prec", prec, minimum=64)
        self._ledger: list[tuple[DpEvent, int]] = []
        self._releases: list[Release] = []        # one per ledger entry, built once
        self._cache: PrivacyLossDistribution | None = None

    # ------------------------------------------------------------------ describe
    def compose(self, event: DpEvent, count: int = 1) -> PldAccountant:
        """Add ``count`` adaptive runs of ``event``; returns the accountant. Raises
        :class:`~privtools.errors.UnsupportedEventError` (before building anything) for an
        event without a loss distribution (see
        :meth:`~privtools.accounting.Accountant.compose`)."""
        super().compose(event, count)
        return self

    def _record(self, event: DpEvent, count: int) -> None:
        """Flatten ``event`` and build each part's release (the certified laws)."""
        flat = releases(event, count)
        rels = [release(e) for e, _ in flat]
        self._ledger.extend(flat)
        self._releases.extend(rels)
        self._cache = None

    def _hint(self, event: DpEvent) -> str:
        if isinstance(event, ZCDPEvent):
            return (" (a ZCDPEvent has no privacy-loss distribution: zCDP is a Rényi curve, "
                    "not a dominating pair; account it with RdpAccountant)")
        return ""

    @property
    def ledger(self) -> tuple[tuple[DpEvent, int], ...]:
        """The composed events flattened into single releases, as ``(event, count)`` pairs
        in the order they were added (kept for compatibility; the contract's ledger is
        :attr:`events`, the pairs exactly as given to :meth:`compose`)."""
        return tuple(self._ledger)

    # ------------------------------------------------------------------ interpret
    def _groups(self) -> list[tuple[Release, int]]:
        """(release, total count) per distinct event."""
        merged: dict[DpEvent, list] = {}
        loose: list[list] = []
        for (e, c), r in zip(self._ledger, self._releases):
            try:
                if e in merged:
                    merged[e][1] += c
                else:
                    merged[e] = [r, c]
            except (TypeError, ValueError):     # unhashable (events holding PMF tables)
                loose.append([r, c])
        groups = [(r, c) for r, c in list(merged.values()) + loose]
        # Gaussian releases compose in closed form: the loss of N(0, σ²) against N(Δ, σ²)
        # is N(μ, 2μ), μ = Δ²/(2σ²), so k of them (any σ, Δ) have the loss N(Σμ, 2Σμ)
        # (Dong, Roth and Su 2022, Cor. 3.3): one release, no grid error from the count.
        gauss = [(r, c) for r, c in groups if getattr(r, "kind", None) == "gaussian"]
        if len(gauss) > 1 or (gauss and gauss[0][1] > 1):
            total = sum((r.a * c for r, c in gauss), Fraction(0))
            groups = [g for g in groups if g not in gauss] + [(gaussian_release(total), 1)]
        return groups

    def _choose_step(self, groups) -> Fraction | None:
        if self._step is not None:
            return self._step
        natives = [r.native_step for r, _ in groups]
        moments = [(r.moments(), c) for r, c in groups]
        var = sum(c * m[1] ** 2 for m, c in moments)
        full = sum(c * (m[3] - m[2]) for m, c in moments)
        widest = max(m[3] - m[2] for m, _ in moments)
        # the composed loss is truncated at mass ``tail`` (~ ±17 sd for 1e-60): ±20 sd
        spread = min(full, max(widest, 2 * _SPREAD_SDS * math.sqrt(var)))
        needed = Fraction(spread / self._max_points) if spread > 0 else Fraction(0)
        # one release alone never needs more than SINGLE_POINTS grid points
        needed = max(needed, Fraction(widest / SINGLE_POINTS)) if widest > 0 else needed
        if all(s is not None for s in natives):
            base = _common_step(natives)
            if base >= needed:
                return base
            return base * math.ceil(needed / base)
        if needed == 0:
            return None
        return needed

    def pld(self) -> PrivacyLossDistribution:
        """The certified composed privacy-loss distribution (built once, then cached)."""
        if self._cache is not None:
            return self._cache
        groups = self._groups()
        if not groups:
            raise ParameterError("nothing composed yet: call compose(event) first")
        step = self._choose_step(groups)
        total = None
        for rel, c in groups:
            one = rel.build(step, self._prec)
            if step is None:
                step = one.step
            part = one.self_compose(c, self._tail) if c > 1 else one
            total = part if total is None else total.compose(part, self._tail)
        self._cache = total
        return total

    def _gaussian_only(self) -> Fraction | None:
        """μ² of the one Gaussian shift everything composed amounts to, when every release is
        a (continuous) Gaussian; else None."""
        groups = self._groups()
        if len(groups) == 1 and getattr(groups[0][0], "kind", None) == "gaussian":
            return 2 * groups[0][0].a * groups[0][1]
        return None

    def epsilon(self, delta) -> PldEpsilon:
        """Certified ε(δ) of everything composed (δ in (0, 1]). Only Gaussian releases:
        the closed form (:func:`~privtools.accounting.gaussian_epsilon`), exact to 2⁻⁷⁰."""
        dq = to_fraction("delta", delta)
        if not (0 < dq <= 1):
            raise ParameterError(f"delta must be in (0, 1], got {delta!r}")
        mu2 = self._gaussian_only() if self._ledger else None
        if mu2 is not None:
            iv = _intervals.interval(*gaussian_epsilon(mu2, dq))
            return PldEpsilon(_float_up(_intervals.upper(iv)), iv, float(delta))
        iv = self.pld().epsilon(dq)
        return PldEpsilon(_float_up(_intervals.upper(iv)), iv, float(delta))

    def delta(self, epsilon) -> PldDelta:
        """Certified δ(ε) of everything composed (ε >= 0); only Gaussian releases: the closed
        form (:func:`~privtools.accounting.gaussian_delta`)."""
        eq = to_fraction("epsilon", epsilon)
        if eq < 0:
            raise ParameterError(f"epsilon must be >= 0, got {epsilon!r}")
        mu2 = self._gaussian_only() if self._ledger else None
        if mu2 is not None:
            iv = _intervals.interval(*gaussian_delta(mu2, eq))
            return PldDelta(min(1.0, _float_up(_intervals.upper(iv))), iv, float(epsilon))
        iv = self.pld().delta(eq)
        return PldDelta(min(1.0, _float_up(_intervals.upper(iv))), iv, float(epsilon))

    def __repr__(self) -> str:
        return f"PldAccountant({sum(c for _, c in self._ledger)} releases)"
