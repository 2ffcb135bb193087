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

Relation. ``PldAccountant(neighbouring="add-remove")`` or ``"replace-one"`` (the default):
the relation every ε and δ it answers is stated for, checked per event at :meth:`compose`
(see :class:`~privtools.accounting.Accountant`): ``PoissonSampledEvent`` and
``RandomAllocationEvent`` need ``"add-remove"``, ``SampledWithoutReplacementEvent`` and
``ShuffledEvent`` ``"replace-one"``; every other event is read as stated for the
accountant's relation.

Limits (checked before any work, each a :class:`~privtools.errors.ParameterError` naming
the parameter; the command line prints it as one line and exits 2):

==================  =====================================================================
:data:`LOSS_LIMIT`  2^10: the privacy-loss scale of one release — a Gaussian's loss mean
                    μ = Δ²/(2σ²), a Laplace's or discrete Laplace's Δ/b, a pure or
                    (ε, δ) guarantee's ε, inside a sampled event too. Beyond it one release
                    leaks e^1024 ≈ 10^444 in likelihood ratio (no privacy is left, and the
                    float planning of the grid underflows)
:data:`LOSS_FLOOR`  2^-128: the smallest nonzero loss scale (Gaussian μ, Laplace Δ/b);
                    below it the planning's floats read 0 (such a release leaks nothing a
                    2^-128 grid could show)
:data:`RATE_FLOOR`  2^-64: the smallest sampling rate (``q``, ``batch/population``): the
                    sampled loss log(1 − γ + γe^ℓ) shrinks with γ below what a grid within
                    Arb's working precision can resolve
:data:`GRID_LIMIT`  2^22 grid points: ``max_points``, the lattice of a discrete Laplace
                    release (Δ + 1 points), and, for a fixed ``step``, the loss range of each
                    release and of the composition divided by the step
==================  =====================================================================
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath

from privtools.certified import balls as _arb
from privtools.certified import intervals as _intervals
from privtools.errors import ParameterError
from privtools.neighbours import REPLACE_ONE
from privtools.noise import DiscreteLaplace
from privtools.validation import check_int, show_number, to_fraction

from ..base import Accountant
from ..events import (
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    DpEvent,
    GaussianEvent,
    LaplaceEvent,
    ModularEvent,
    NoiseEvent,
    PureDPEvent,
    SkellamEvent,
    ZCDPEvent,
)
from ..gaussian import gaussian_delta, gaussian_epsilon
from ..maps import UNBOUNDED, has_map, noise_pure
from ..sampled_events import (
    ApproxDPEvent,
    PoissonSampledEvent,
    RandomAllocationEvent,
    SampledWithoutReplacementEvent,
    SampledWithReplacementEvent,
    ShuffledBatchesEvent,
    ShuffledEvent,
    TruncatedPoissonSampledEvent,
)
from . import DEFAULT_PREC, DEFAULT_TAIL, FULL, Level, PrivacyLossDistribution, level_for
from .allocation import allocation_blocks, check_allocation
from .coupling import coupled_delta, coupled_epsilon, coupled_tradeoff, truncation_mass
from .events import Release, gaussian_release, releases
from .fdp import TRADEOFF_TOL, gaussian_profile, gdp_interval, profiles, tradeoff_band
from .interpret import PLD_INTERPRETERS, release
from .repeated import exact_law, repeated_release

__all__ = ["PldAccountant", "PldEpsilon", "PldDelta", "PldTradeoff", "PldGdp", "MAX_POINTS",
           "GRID_LIMIT", "LOSS_LIMIT", "LOSS_FLOOR", "RATE_FLOOR", "pure_epsilon"]

MAX_POINTS = 2**18
SINGLE_POINTS = 2**16
_SPREAD_SDS = 20

#: The most grid points any grid of the accountant may take (see the module docstring).
GRID_LIMIT = 2**22
REPEAT_MIN = 32     # an atomic release repeated this often is composed in closed form before
                    # the grid (fewer composed atoms sit too far apart for the lower sweep)
#: The largest privacy-loss scale of one release (see the module docstring).
LOSS_LIMIT = 2**10
#: The smallest nonzero loss scale of a continuous release (see the module docstring).
LOSS_FLOOR = Fraction(1, 2**128)
#: The smallest sampling rate (see the module docstring).
RATE_FLOOR = Fraction(1, 2**64)


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


@dataclass(frozen=True)
class PldTradeoff:
    """β(α) of everything composed — the smallest type-II error of any test at type-I
    error α, over both directions of every pair of neighbours: ``beta`` is the certified
    lower end (float, rounded down: the f-DP guarantee a deployment may claim),
    ``interval`` the certified [lower, upper], ``alpha`` the α asked for."""

    beta: float
    interval: _intervals.Interval
    alpha: float


@dataclass(frozen=True)
class PldGdp:
    """The smallest μ for which everything composed is μ-GDP: ``mu`` the certified upper
    end (float, rounded up; ``inf`` when no μ is certified), ``interval`` the certified
    [lower, upper] — below the lower end μ-GDP fails for certain."""

    mu: float
    interval: _intervals.Interval


def _float_down(x: mpmath.mpf) -> float:
    if not mpmath.isfinite(x):
        return -math.inf if x < 0 else math.inf
    f = float(x)
    return math.nextafter(f, -math.inf) if f > x else f


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
    each truncation may move (up onto +∞ on the upper side, so it only loosens) — left
    unset, each question gets the coarsest grid that answers it to δ·2^-40
    (:func:`~privtools.accounting.pld.level_for`: ε(δ) is read from masses held to about
    δ·2^-72 and truncated at δ·2^-40; δ(ε) tries δ = 2^-30 first and refines while the
    answer falls below what was tried), and the f-DP readings the finest
    (2^-256 masses, tail 1e-60); set, every question reads that tail at 2^-256;
    ``prec``: Arb working precision in bits; ``neighbouring``: ``"replace-one"`` (default)
    or ``"add-remove"``, the relation its answers are stated for, checked per event (the
    module docstring; ``acc.neighbouring`` reads it back).

    Work is bounded by stated limits (:data:`GRID_LIMIT`, :data:`LOSS_LIMIT`,
    :data:`LOSS_FLOOR`): inputs beyond them are refused with
    :class:`~privtools.errors.ParameterError` before any work.

    Follows the :class:`~privtools.accounting.Accountant` contract. ``ZCDPEvent`` has no
    privacy-loss distribution and is refused by :meth:`compose` with
    :class:`~privtools.errors.UnsupportedEventError` (use ``RdpAccountant``).
    """

    interpreters = PLD_INTERPRETERS

    def __init__(self, *, max_points: int = MAX_POINTS, step=None, tail=None,
                 prec: int = DEFAULT_PREC, neighbouring: str = REPLACE_ONE):
        super().__init__(neighbouring=neighbouring)
        self._max_points = check_int("max_points", max_points, minimum=16)
        if self._max_points > GRID_LIMIT:
            raise ParameterError(f"max_points = {show_number(self._max_points)} is above the "
                                 f"limit 2**22 (GRID_LIMIT): the composed grid's memory and "
                                 "time grow with it")
        if step is not None:
            step = to_fraction("step", step)
            if step <= 0:
                raise ParameterError(f"step must be > 0, got {step}")
        self._step = step
        self._levels = tail is None          # the grid sized for each question (below)
        tail = DEFAULT_TAIL if tail is None else to_fraction("tail", tail)
        if not (0 < tail < Fraction(1, 10**6)):
            raise ParameterError(f"tail must be in (0, 1e-6), got {float(tail)!r}")
        self._tail = tail
        self._prec = check_int("prec", prec, minimum=64)
        self._ledger: list[tuple[DpEvent, int]] = []
        self._releases: list[Release] = []        # one per ledger entry, built once
        self._cache: dict[Level, PrivacyLossDistribution] = {}
        self._exact_cache: tuple | None = None      # (key, release, exact law or None)
        self._coupling = Fraction(0)    # total-variation term of capped batches (coupling)

    # ------------------------------------------------------------------ describe
    def compose(self, event: DpEvent, count: int = 1) -> PldAccountant:
        """Add ``count`` adaptive runs of ``event``; returns the accountant. Raises
        :class:`~privtools.errors.UnsupportedEventError` (before building anything) for an
        event without a loss distribution (see
        :meth:`~privtools.accounting.Accountant.compose`)."""
        super().compose(event, count)
        return self

    def _record(self, event: DpEvent, count: int) -> None:
        """Flatten ``event``, check each part against the work limits, and build each
        part's release (the certified laws)."""
        flat = [(part, c * n) for e, c in releases(event, count)
                for part, n in (allocation_blocks(e) if isinstance(e, RandomAllocationEvent)
                                else [(e, 1)])]
        for e, _ in flat:
            _check_limits(e)
        rels = [release(e) for e, _ in flat]
        for e, c in flat:
            if isinstance(e, TruncatedPoissonSampledEvent):
                self._coupling = min(Fraction(1), self._coupling + c * truncation_mass(e))
        self._ledger.extend(flat)
        self._releases.extend(rels)
        self._cache = {}

    def _check(self, event: DpEvent, top: DpEvent) -> None:
        """A sampled event is read iff its inner release is (the same traversal, one level
        down); a random allocation once, of a Gaussian or a law of bounded ratio (the inner
        read as a sampled event's is); a noise law (alone or in
        a mod-m view) iff it has a privacy-map row."""
        if isinstance(event, (PoissonSampledEvent, TruncatedPoissonSampledEvent,
                              SampledWithoutReplacementEvent, SampledWithReplacementEvent,
                              ShuffledBatchesEvent)):
            self._atom(event.event, top)
        elif isinstance(event, RandomAllocationEvent):
            check_allocation(event)
            if not isinstance(event.event, GaussianEvent):
                self._atom(event.event, top)
        noise = event.event if isinstance(event, ModularEvent) else event
        if isinstance(noise, NoiseEvent) and not has_map(noise):
            raise self._refusal(event, top, f"{type(noise.law).__name__} has no privacy map "
                                "(privtools.accounting.maps.PRIVACY_MAPS)")

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
        # a release of a few loss atoms repeated k times: the multinomial law of the
        # composed atoms, put on the grid once (both ends second order in the step)
        out = []
        for r, c in groups:
            rep = repeated_release(r, c, self._tail, self._prec) if c >= REPEAT_MIN else None
            out.append((rep, 1) if rep is not None else (r, c))
        return out

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

    def pld(self, level: Level | None = None) -> PrivacyLossDistribution:
        """The certified composed privacy-loss distribution held at ``level`` (default: the
        finest, or the ``tail`` given; built once per level, then cached). Every release is
        built at 2^-256 and coarsened to the level before composing."""
        if level is None or not self._levels:
            level = FULL if self._levels else Level(FULL.bits, self._tail)
        for have, pld in self._cache.items():
            if have.covers(level):
                return pld
        groups = self._groups()
        if not groups:
            raise ParameterError("nothing composed yet: call compose(event) first")
        step = self._choose_step(groups)
        if self._step is not None:
            self._check_fixed_step(groups)
        prec = min(self._prec, level.bits)
        total = None
        for rel, c in groups:
            one = rel.build(step, prec).coarsen(level)
            if step is None:
                step = one.step
            part = one.self_compose(c, level.tail) if c > 1 else one
            total = part if total is None else total.compose(part, level.tail)
        self._cache[level] = total
        return total

    def _check_fixed_step(self, groups) -> None:
        """A fixed ``step`` must put at most GRID_LIMIT points on each release's loss range
        and on the composed loss's planned range (mean ± 20 sd, at most the full range)."""
        moments = [(r.moments(), c) for r, c in groups]
        widest = max(m[3] - m[2] for m, _ in moments)
        var = sum(c * m[1] ** 2 for m, c in moments)
        full = sum(c * (m[3] - m[2]) for m, c in moments)
        spread = min(full, max(widest, 2 * _SPREAD_SDS * math.sqrt(var)))
        points = max(widest, spread) / float(self._step)
        if points > GRID_LIMIT:
            raise ParameterError(
                f"step = {show_number(self._step)} would put ~{points:.3g} grid points on "
                f"the loss range ({max(widest, spread):.3g}), above the limit 2**22 "
                "(GRID_LIMIT): take a larger step, or leave it to max_points")

    def _gaussian_only(self) -> Fraction | None:
        """μ² of the one Gaussian shift everything composed amounts to, when every release is
        a (continuous) Gaussian; else None."""
        groups = self._groups()
        if len(groups) == 1 and getattr(groups[0][0], "kind", None) == "gaussian":
            return 2 * groups[0][0].a * groups[0][1]
        return None

    def _exact_law(self):
        """The ledger as a law read exactly, without a grid
        (:mod:`~privtools.accounting.pld.readers`), when it is one release repeated and
        that release is a few loss atoms (a sampled randomized response or discrete
        Laplace, composed in closed form) or, once, a sampled Gaussian; else None."""
        if not self._ledger or self._step is not None:
            return None
        merged: dict = {}
        for (e, c), r in zip(self._ledger, self._releases):
            try:
                merged.setdefault(e, [r, 0])[1] += c
            except (TypeError, ValueError):
                return None
        if len(merged) != 1:
            return None
        (r, c), = merged.values()
        key = (id(r), c)
        if self._exact_cache is None or self._exact_cache[0] != key:
            self._exact_cache = (key, r, exact_law(r, c, self._prec))
        return self._exact_cache[2]

    def _reader(self, delta=None):
        """What δ(ε) and ε(δ) are read from: the exact atomic law, or the grid (held at the
        level for ``delta`` when given)."""
        law = self._exact_law()
        if law is not None:
            return law
        return self.pld(None if delta is None else level_for(delta))

    def _grid_delta(self, eps: Fraction) -> _intervals.Interval:
        """δ(ε) from the grid: first held for δ = 2^-30, then, while the certified upper
        end falls below what the level was sized for, at the level for that end."""
        tried = Fraction(1, 2**30)
        while True:
            level = level_for(tried)
            iv = self.pld(level).delta(eps)
            hi = _intervals.exact_rational(_intervals.upper(iv))
            # an upper end of 0 is exact at any level (the upper side dominates)
            if not self._levels or level == FULL or hi >= tried or hi == 0:
                return iv
            tried = hi

    def epsilon(self, delta) -> PldEpsilon:
        """Certified ε(δ) of everything composed (δ in [0, 1]). Only Gaussian releases:
        the closed form (:func:`~privtools.accounting.gaussian_epsilon`), exact to 2⁻⁷⁰.

        δ = 0: the pure ε, ess sup of the composed loss — the sum of the releases' largest
        losses (:func:`pure_epsilon`: ε-DP, Laplace and discrete Laplace, (ε, 0)-DP, and
        their Poisson or fixed-size samples log(1 + γ(e^ε − 1))), certified to Arb's radius
        and exact where the sum is rational. A ledger holding a release whose loss is
        unbounded (Gaussian, discrete Gaussian, Skellam, δ > 0) has ε(0) = ∞ exactly: the
        interval [∞, ∞]. Any other release (a pair of PMFs, a mod-m view, a shuffle) is
        refused at δ = 0: its pure ε is not certified here."""
        dq = to_fraction("delta", delta)
        if not (0 <= dq <= 1):
            raise ParameterError(f"delta must be in [0, 1], got {delta!r}")
        if dq == 0:
            iv = self._pure_interval()
            return PldEpsilon(_float_up(_intervals.upper(iv)), iv, 0.0)
        mu2 = self._gaussian_only() if self._ledger else None
        if mu2 is not None:
            iv = _intervals.interval(*gaussian_epsilon(mu2, dq))
            return PldEpsilon(_float_up(_intervals.upper(iv)), iv, float(delta))
        iv = coupled_epsilon(lambda d: self._reader(d).epsilon(d), dq, self._coupling)
        return PldEpsilon(_float_up(_intervals.upper(iv)), iv, float(delta))

    def _pure_interval(self) -> _intervals.Interval:
        """Certified ε(0) of the ledger (see :meth:`epsilon`)."""
        if not self._ledger:
            raise ParameterError("nothing composed yet: call compose(event) first")
        parts = [(pure_epsilon(e), e, c) for e, c in self._ledger]
        if any(p is _UNBOUNDED for p, _, _ in parts):
            return _intervals.interval(mpmath.inf, mpmath.inf)
        unknown = [type(e).__name__ for p, e, _ in parts if p is None]
        if unknown:
            raise ParameterError(
                f"delta = 0 is not certified for this ledger: {', '.join(sorted(set(unknown)))} "
                "has no certified pure ε here (its largest loss is not computed); ask "
                "epsilon(delta) at delta > 0")
        exact = sum((c * p for p, _, c in parts if isinstance(p, Fraction)), Fraction(0))
        balls = [(p, c) for p, _, c in parts if not isinstance(p, Fraction)]
        if not balls:
            return _intervals.interval(*_intervals.fraction_bounds(exact, self._prec))
        with _arb.precision(self._prec + 32):
            total = _arb.to_arb(exact)
            for b, c in balls:
                total += c * b
            return _intervals.from_ball(total)

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
        law = self._exact_law()
        iv = law.delta(eq) if law is not None else self._grid_delta(eq)
        iv = coupled_delta(iv, eq, self._coupling)
        return PldDelta(min(1.0, _float_up(_intervals.upper(iv))), iv, float(epsilon))

    def _profiles(self, delta=None):
        """Each direction's certified privacy profile (:mod:`~privtools.accounting.pld.fdp`),
        read from the grid held at the level for ``delta`` (the finest when None)."""
        if not self._ledger:
            raise ParameterError("nothing composed yet: call compose(event) first")
        mu2 = self._gaussian_only()
        if mu2 is not None:
            return [gaussian_profile(mu2)]
        return profiles(self._reader(delta))

    def tradeoff(self, alpha) -> PldTradeoff:
        """Certified β(α) of everything composed (α in [0, 1]): the trade-off function of
        f-DP (Dong, Roth and Su 2022), the smaller over both directions, as a band from the
        certified privacy profile (:mod:`~privtools.accounting.pld.fdp`)."""
        aq = to_fraction("alpha", alpha)
        if not (0 <= aq <= 1):
            raise ParameterError(f"alpha must be in [0, 1], got {alpha!r}")
        # the band aims at TRADEOFF_TOL in β: a grid whose readings are exact to far below
        # it (the level for TRADEOFF_TOL·2^-10: every δ read moves by < 2^-50·TRADEOFF_TOL)
        hs = self._profiles(TRADEOFF_TOL / 2**10)
        iv = coupled_tradeoff(lambda a: tradeoff_band(hs, a), aq, self._coupling)
        return PldTradeoff(max(0.0, _float_down(_intervals.lower(iv))), iv, float(alpha))

    def gdp_mu(self) -> PldGdp:
        """Certified interval of the smallest μ for which everything composed is μ-GDP
        (Dong, Roth and Su 2022, Corollary 2.13). Gaussian releases alone: μ = √(Σ Δ²/σ²)
        exactly. Otherwise bisected against the certified profile; the upper end is +∞
        when the certified δ never reaches 0 (:mod:`~privtools.accounting.pld.fdp`)."""
        if self._coupling:
            raise ParameterError("gdp_mu: a ledger with capped Poisson batches "
                                 "(TruncatedPoissonSampledEvent) carries a total-variation "
                                 "term, which no μ-GDP curve absorbs at the smallest α; read "
                                 "tradeoff(alpha) or epsilon(delta) instead")
        mu2 = self._gaussian_only() if self._ledger else None
        if mu2 is not None:
            with _arb.precision(self._prec + 32):
                iv = _intervals.from_ball(_arb.to_arb(mu2).sqrt())
        else:
            iv = gdp_interval(self._profiles())
        return PldGdp(_float_up(_intervals.upper(iv)), iv)

    def __repr__(self) -> str:
        return (f"PldAccountant({sum(c for _, c in self._ledger)} releases, "
                f"{self.neighbouring})")


# ------------------------------------------------------------------------------ limits
def _far_name(names: tuple[str, str], values: tuple[Fraction, Fraction]) -> str:
    """Of two parameters, the one further from 1 (in ratio): the one to name."""
    def dist(v: Fraction) -> int:
        v = abs(v)
        return abs(v.numerator.bit_length() - v.denominator.bit_length())
    return names[0] if dist(values[0]) >= dist(values[1]) else names[1]


def _named_lap_z(event: DpEvent) -> DpEvent:
    """A ``NoiseEvent`` of Lap_Z as its named form (the limits are stated for it)."""
    if isinstance(event, NoiseEvent) and isinstance(event.law, DiscreteLaplace):
        return DiscreteLaplaceEvent(event.law.scale, event.sensitivity)
    return event


def _loss_scale(event: DpEvent):
    """(scale, what, named, other) of one release's privacy loss for the limits: the
    parameter the message starts with and the one shown beside it; None when the event has
    no scale to limit."""
    if isinstance(event, (PoissonSampledEvent, TruncatedPoissonSampledEvent,
                          SampledWithoutReplacementEvent, SampledWithReplacementEvent,
                          RandomAllocationEvent, ShuffledBatchesEvent)):
        return _loss_scale(_named_lap_z(event.event))
    if isinstance(event, GaussianEvent):
        mu = event.sensitivity ** 2 / (2 * event.sigma ** 2)
        pair = (("sigma", event.sigma), ("sensitivity", event.sensitivity))
        named = _far_name(("sigma", "sensitivity"), (event.sigma, event.sensitivity))
        first, second = pair if named == "sigma" else pair[::-1]
        return mu, "the Gaussian's privacy-loss mean Δ²/(2σ²)", first, second
    if isinstance(event, LaplaceEvent):
        pair = (("b", event.b), ("sensitivity", event.sensitivity))
        named = _far_name(("b", "sensitivity"), (event.b, event.sensitivity))
        first, second = pair if named == "b" else pair[::-1]
        return event.sensitivity / event.b, "the Laplace release's loss Δ/b", first, second
    if isinstance(event, DiscreteLaplaceEvent):
        return (Fraction(event.sensitivity) / event.scale, "the discrete Laplace release's "
                "loss Δ/b", ("scale", event.scale), ("sensitivity", event.sensitivity))
    if isinstance(event, PureDPEvent):
        return event.eps, "the pure loss ε", ("eps", event.eps), None
    if isinstance(event, ApproxDPEvent):
        return event.epsilon, "the loss ε", ("epsilon", event.epsilon), None
    if isinstance(event, ShuffledEvent):
        return (event.local_event.eps, "the local randomizer's ε₀",
                ("local_event", event.local_event.eps), None)
    return None


def _check_limits(event: DpEvent) -> None:
    """Refuse, before any work, a release beyond the limits of the module docstring."""
    event = _named_lap_z(event)
    if isinstance(event, DiscreteLaplaceEvent) and event.sensitivity + 1 > GRID_LIMIT:
        raise ParameterError(f"sensitivity = {show_number(event.sensitivity)} of a "
                             "DiscreteLaplaceEvent: its loss lattice has Δ + 1 points, above "
                             "the limit 2**22 (GRID_LIMIT)")
    poisson = isinstance(event, (PoissonSampledEvent, TruncatedPoissonSampledEvent))
    drawn = isinstance(event, SampledWithReplacementEvent)
    rate = (event.q if poisson else
            event.rate if isinstance(event, SampledWithoutReplacementEvent) else
            Fraction(1, event.population) if drawn else None)
    if rate is not None and rate < RATE_FLOOR:
        name = "q" if poisson else "population" if drawn else "batch"
        raise ParameterError(f"{name}: the sampling rate {show_number(rate)} is below the "
                             "limit 2**-64 (RATE_FLOOR) of PldAccountant: the sampled loss "
                             "log(1 − γ + γe^ℓ) is too small for its grid to be planned")
    found = _loss_scale(event)
    if found is None:
        return
    scale, what, (name, value), other = found
    beside = "" if other is None else f" ({other[0]} = {show_number(other[1])})"
    head = f"{name} = {show_number(value)}{beside}: {what} is {show_number(scale)}"
    if scale > LOSS_LIMIT:
        raise ParameterError(f"{head}, above the limit 2**10 (LOSS_LIMIT) of PldAccountant: "
                             "one such release leaks a likelihood ratio beyond e^1024 (no "
                             "privacy is left) and its grid could not be planned")
    if 0 < scale < LOSS_FLOOR and not isinstance(event, (PureDPEvent, ApproxDPEvent,
                                                         DiscreteLaplaceEvent)):
        raise ParameterError(f"{head}, below the limit 2**-128 (LOSS_FLOOR) of "
                             "PldAccountant: the grid's planning reads such a loss as 0")


_UNBOUNDED = UNBOUNDED     # pure_epsilon of a release whose loss is unbounded


def pure_epsilon(event: DpEvent):
    """The largest privacy loss (pure ε, ess sup of the loss over both directions) of one
    release: a Fraction where exact (``PureDPEvent``: ε; ``DiscreteLaplaceEvent`` and
    ``LaplaceEvent``: Δ/b, attained at their atoms; ``ApproxDPEvent`` with δ = 0: ε), an Arb
    ball for a Poisson or fixed-size sample at rate γ of one of those (the removal
    direction's log(1 − γ + γe^ε), which exceeds the other's −log(1 − γ + γe^{−ε}) by
    (1 − γ + γx)(x(1 − γ) + γ) − x = γ(1 − γ)(x − 1)² >= 0, x = e^ε), ``math.inf`` when
    the loss is unbounded (Gaussian, discrete Gaussian, Skellam, δ > 0, and their samples),
    None when not computed here."""
    if isinstance(event, PureDPEvent):
        return event.eps
    if isinstance(event, (NoiseEvent, DiscreteLaplaceEvent, SkellamEvent,
                          DiscreteGaussianSumEvent)):
        return noise_pure(event.noise)            # the law's row
    if isinstance(event, LaplaceEvent):
        return Fraction(event.sensitivity) / event.b
    if isinstance(event, ApproxDPEvent):
        return event.epsilon if event.delta == 0 else _UNBOUNDED
    if isinstance(event, GaussianEvent):
        return _UNBOUNDED
    if isinstance(event, (RandomAllocationEvent, ShuffledBatchesEvent,
                          SampledWithReplacementEvent, PoissonSampledEvent,
                          SampledWithoutReplacementEvent)):
        return _sampled_pure(event, pure_epsilon(event.event))
    return None


def _sampled_pure(event: DpEvent, inner):
    """:func:`pure_epsilon` of a sampled event whose inner release has pure ε ``inner``."""
    if inner is None or inner is _UNBOUNDED:
        return inner
    if isinstance(event, RandomAllocationEvent):
        return None                                # the allocated loss: not computed here
    if isinstance(event, ShuffledBatchesEvent):
        return inner                               # one run of the inner event
    if isinstance(event, SampledWithReplacementEvent):
        return event.batch * inner                 # ℓ = batch copies has positive mass
    rate = event.q if isinstance(event, PoissonSampledEvent) else event.rate
    if rate == 1:
        return inner
    if inner == 0:
        return Fraction(0)
    with _arb.precision(DEFAULT_PREC + 64):
        g = _arb.to_arb(rate)
        return (1 - g + g * _arb.to_arb(inner).exp()).log()
