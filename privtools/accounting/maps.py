"""One privacy map per noise law: the table every reader of a law's privacy takes it from.

A noise law X of :mod:`privtools.noise` added to an integer query of sensitivity Δ is the
event ``NoiseEvent(X, Δ)`` (:mod:`~privtools.accounting.events`). What that release costs is
declared here once per law type, as one :class:`PrivacyMap` row of :data:`PRIVACY_MAPS`:

==================  ==================================================================
``named``           the named event of the law on a query of sensitivity Δ
                    (``DiscreteLaplaceEvent``, ``SkellamEvent``,
                    ``DiscreteGaussianSumEvent``), or None: the planner's event
``rdp``             its Rényi curve α ↦ D_α(X + Δ ‖ X) (None: the RDP accountant refuses it)
``release``         its certified privacy-loss distribution (``PldAccountant``)
``pmf``             its certified PMF (the mod-m views of a ``ModularEvent``)
``pure``            its largest privacy loss (pure ε): a Fraction, ``math.inf`` or None
``summed``          the law of k i.i.d. draws summed (the trace's k draws of one law)
``docs``            the documentation page of the law
==================  ==================================================================

The readers — ``RdpAccountant``'s curve, ``PldAccountant``'s release and pure ε, the planner's
event (:mod:`privtools.planning.deployments`) and the trace's certificate
(``verification.audit.trace.certify``) — all read these rows; a switch on a law type
anywhere else is a sign the fact belongs in a row. A new law is one more row (the steps:
``docs/architecture.md``, "Adding a noise law"; ``tests/repo/test_architecture.py`` checks
that every law of :data:`privtools.noise.LAWS` has one).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import mpmath

from privtools.certified import intervals as _intervals
from privtools.errors import ParameterError
from privtools.exact import ExactPMF, sum_pmf
from privtools.exact.divergence import gaussian_sum_renyi, renyi_shift
from privtools.noise import (
    DiscreteGaussian,
    DiscreteLaplace,
    NoiseSum,
    Polya,
    PolyaDifference,
    Skellam,
)

from ._numeric import BASE_DPS, mpf
from .events import (
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    DpEvent,
    NoiseEvent,
    SkellamEvent,
)
from .pld.events import (
    PMF_DPS,
    PMF_TAIL,
    Release,
    discrete_gaussian_release,
    discrete_laplace_release,
    pmf_release,
)
from .rdp.curves import _discrete_laplace_mp, _lemma4_eps_mp, _skellam_bound

__all__ = ["PrivacyMap", "PRIVACY_MAPS", "privacy_map", "noise_event", "named_event",
           "summed_law", "noise_rdp", "noise_release", "noise_pmf", "noise_pure",
           "has_map", "has_rdp"]

#: The pure ε of a release whose privacy loss is unbounded.
UNBOUNDED = math.inf


@dataclass(frozen=True)
class PrivacyMap:
    """One law type's privacy map (the module docstring's columns). Each callable takes the
    law first; ``rdp(law)`` returns the curve ``(Δ, exact, α) -> ε(α)`` or None."""

    law: type
    statement: str
    named: Callable
    rdp: Callable
    release: Callable
    pmf: Callable
    pure: Callable
    summed: Callable
    docs: str


# ----------------------------------------------------------------------- the exact hooks
# Digits requested from privtools.exact.divergence by the exact hooks.
EXACT_DPS = 25
# The certified D_α of an n-fold discrete-Gaussian sum tabulates ~4αΔ√n points of the sum
# (and convolves n shares): beyond these sizes the exact hook yields +inf and the paper's
# bound (the cap) is what the accountant uses.
EXACT_DGSUM_POINTS = 1024
EXACT_DGSUM_SHARES = 1024


@lru_cache(maxsize=4096)
def _skellam_exact(var: Fraction, sensitivity: int, order: int) -> mpmath.mpf:
    """The certified upper end of D_α(Sk(0, v) + Δ ‖ Sk(0, v)) at an integer order."""
    return _intervals.upper(renyi_shift(Skellam(var), sensitivity, order, dps=EXACT_DPS))


@lru_cache(maxsize=4096)
def _dgauss_sum_exact(n: int, sigma2: Fraction, sensitivity: int, order: int) -> mpmath.mpf:
    """The certified upper end of D_α of the n-fold discrete-Gaussian sum shifted by Δ."""
    if n > EXACT_DGSUM_SHARES or 4 * order * sensitivity * math.isqrt(n) > EXACT_DGSUM_POINTS:
        return mpmath.inf
    return _intervals.upper(gaussian_sum_renyi(n, sigma2, sensitivity, order, dps=EXACT_DPS))


@lru_cache(maxsize=1024)
def _lemma4_eps(n: int, sigma2: Fraction, sensitivity: int) -> mpmath.mpf:
    return _lemma4_eps_mp(n, sigma2, Fraction(sensitivity))


# --------------------------------------------------------------------------- the curves
def _lap_z_rdp(law):
    """Fact 2 (000): the exact D_α of Lap_Z(b) shifted by Δ (closed form)."""
    return lambda d, exact, a: _discrete_laplace_mp(a, law.scale, d)


def _skellam_rdp(law):
    """Lemma 3 (000) at ⌈α⌉ (D_α is non-decreasing in α); ``exact``: the certified D_α at
    ⌈α⌉, capped by Lemma 3."""
    def curve(d, exact, a):
        k = math.ceil(a)
        bound = _skellam_bound(Fraction(k), law.variance, Fraction(d))
        if exact:
            return min(_skellam_exact(law.variance, d, k), mpf(bound))
        return bound
    return curve


def _gauss_sum_curve(n: int, sigma2: Fraction):
    """Lemma 4 (000): the n-fold sum of N_Z(0, σ²) is ½ε²-CDP, ε(α) = ½ε²α (σ >= 1/2);
    ``exact``: the certified D_α of the sum at ⌈α⌉, capped by Lemma 4."""
    def curve(d, exact, a):
        if sigma2 >= Fraction(1, 4):
            eps = _lemma4_eps(n, sigma2, d)
            with mpmath.workdps(BASE_DPS + 10):
                bound = eps * eps * mpf(a) / 2
        else:  # Lemma 4 does not apply (exact=True only)
            bound = mpmath.inf
        if exact:
            return min(_dgauss_sum_exact(n, sigma2, d, math.ceil(a)), bound)
        return bound
    return curve


def _dg_share(law) -> DiscreteGaussian | None:
    """The discrete-Gaussian share of a ``NoiseSum`` (None for other shares)."""
    return law.share if isinstance(law.share, DiscreteGaussian) else None


def _none(*_):
    return None


# ------------------------------------------------------------------------ the releases
def _pmf(law) -> ExactPMF:
    return ExactPMF.from_distribution(law, dps=PMF_DPS, tail=PMF_TAIL)


def _sum_pmf(law: NoiseSum) -> ExactPMF:
    if law.n == 1:
        return _pmf(law.share)
    return sum_pmf(law.share, law.n, dps=PMF_DPS, tail=PMF_TAIL)


def _atoms(pmf, symmetric):
    return lambda law, d: pmf_release(pmf(law), d, symmetric(law))


def _centred(law) -> bool:
    return law.center == 0


# ------------------------------------------------------------------------------ the rows
_ROWS = (
    PrivacyMap(
        DiscreteLaplace, "Fact 2 (000): Lap_Z(b) on a query of sensitivity Δ is (Δ/b)-DP",
        named=lambda law, d, exact=False: DiscreteLaplaceEvent(scale=law.scale, sensitivity=d),
        rdp=_lap_z_rdp,
        release=lambda law, d: discrete_laplace_release(law.scale, d),
        pmf=_pmf,
        pure=lambda law, d: Fraction(d) / law.scale,
        summed=lambda law, k: law if k == 1 else NoiseSum(law, k),
        docs="docs/api-tour.md"),
    PrivacyMap(
        Skellam, "Lemma 3 (000): the Rényi divergence of Sk(0, σ²) shifted by Δ",
        named=lambda law, d, exact=False: (SkellamEvent(var=law.variance, sensitivity=d,
                                                        exact=exact)
                                           if _centred(law) else None),
        rdp=_skellam_rdp,
        release=_atoms(_pmf, lambda law: True),
        pmf=_pmf,
        pure=lambda law, d: UNBOUNDED,
        summed=lambda law, k: law.sum_of(k),
        docs="docs/api-tour.md"),
    PrivacyMap(
        DiscreteGaussian, "Lemma 4 (000) with n = 1: N_Z(0, σ²) is ½ε²-CDP",
        named=lambda law, d, exact=False: (DiscreteGaussianSumEvent(1, law.sigma2, d,
                                                                    exact=exact)
                                           if _centred(law) else None),
        rdp=lambda law: _gauss_sum_curve(1, law.sigma2),
        release=lambda law, d: discrete_gaussian_release(law.sigma2, d),
        pmf=_pmf,
        pure=lambda law, d: UNBOUNDED,
        summed=lambda law, k: law if k == 1 else (NoiseSum(law, k) if _centred(law) else None),
        docs="docs/api-tour.md"),
    PrivacyMap(
        NoiseSum, "Lemma 4 (000): the n-fold sum of N_Z(0, σ²) shares is ½ε²-CDP; other "
        "sums through their certified PMF",
        named=lambda law, d, exact=False: (DiscreteGaussianSumEvent(law.n, _dg_share(law).sigma2,
                                                                    d, exact=exact)
                                           if _dg_share(law) is not None else None),
        rdp=lambda law: (_gauss_sum_curve(law.n, _dg_share(law).sigma2)
                         if _dg_share(law) is not None else None),
        release=_atoms(_sum_pmf, lambda law: law.share.symmetric),
        pmf=_sum_pmf,
        pure=lambda law, d: UNBOUNDED if _dg_share(law) is not None else None,
        summed=lambda law, k: NoiseSum(law.share, law.n * k),
        docs="docs/architecture.md"),
    PrivacyMap(
        PolyaDifference, "Fact 1 (000): Pólya differences with r = 1 are Lap_Z(b); others "
        "through their certified PMF",
        named=lambda law, d, exact=False: (DiscreteLaplaceEvent(scale=law.scale, sensitivity=d)
                                           if law.r == 1 and law.scale is not None else None),
        rdp=_none,
        release=_atoms(_pmf, lambda law: True),
        pmf=_pmf,
        pure=_none,
        summed=lambda law, k: (DiscreteLaplace(law.scale)
                               if law.r * k == 1 and law.scale is not None
                               else (law if k == 1 else law.sum_of(k))),
        docs="docs/api-tour.md"),
    PrivacyMap(
        Polya, "Definition 4 (000): Pólya(r, β), one-sided; through its certified PMF",
        named=_none,
        rdp=_none,
        release=_atoms(_pmf, lambda law: False),
        pmf=_pmf,
        pure=_none,
        summed=lambda law, k: law.sum_of(k),
        docs="docs/api-tour.md"),
)

#: The privacy map of each law type (one row per law of :data:`privtools.noise.LAWS`, and
#: the n-fold sums ``NoiseSum``).
PRIVACY_MAPS: dict[type, PrivacyMap] = {row.law: row for row in _ROWS}


def privacy_map(law) -> PrivacyMap:
    """The row of ``law``'s type (ParameterError naming the type when it has none)."""
    row = PRIVACY_MAPS.get(type(law))
    if row is None:
        raise ParameterError(f"{type(law).__name__} has no privacy map in "
                             "privtools.accounting.maps (PRIVACY_MAPS): no accountant can read "
                             "it")
    return row


def named_event(law, sensitivity: int, exact: bool = False) -> DpEvent | None:
    """The named event of ``law`` added to a query of sensitivity Δ, or None when the law
    has none (it is then read as ``NoiseEvent(law, Δ)``, or has no row at all)."""
    row = PRIVACY_MAPS.get(type(law))
    return None if row is None else row.named(law, sensitivity, exact)


def noise_event(law, sensitivity: int, exact: bool = False) -> DpEvent:
    """``law`` added to a query of sensitivity Δ as an event: its named event where the law
    has one (what the planner composes), else ``NoiseEvent(law, Δ, exact)``."""
    named = named_event(law, sensitivity, exact)
    return named if named is not None else NoiseEvent(law, sensitivity, exact)


def summed_law(law, k: int):
    """The law of ``k`` i.i.d. draws of ``law`` summed, from its row: a closed form
    (Skellam closure, Pólya closure, Fact 1 (000)), a ``NoiseSum``, or None (no form here:
    the certified PMF is convolved). A law without a row is its own sum of one."""
    row = PRIVACY_MAPS.get(type(law))
    if row is None:
        return law if k == 1 else None
    return row.summed(law, k)


def has_map(event: NoiseEvent) -> bool:
    """Whether the event's law has a row (every law of ``privtools.noise`` does)."""
    return type(event.law) in PRIVACY_MAPS


def has_rdp(event: NoiseEvent) -> bool:
    """Whether the law has a row that gives a Rényi curve."""
    return has_map(event) and privacy_map(event.law).rdp(event.law) is not None


def noise_rdp(event: NoiseEvent, a: Fraction):
    """ε(α) of a ``NoiseEvent`` at a validated order α, from its row."""
    return privacy_map(event.law).rdp(event.law)(event.sensitivity, event.exact, a)


def noise_release(event: NoiseEvent) -> Release:
    """The certified privacy-loss release of a ``NoiseEvent``, from its row."""
    return privacy_map(event.law).release(event.law, event.sensitivity)


def noise_pmf(event: NoiseEvent) -> tuple[ExactPMF, int]:
    """Certified PMF of the event's law, and its sensitivity."""
    return privacy_map(event.law).pmf(event.law), event.sensitivity


def noise_pure(event: NoiseEvent):
    """The largest privacy loss of the release (a Fraction where exact, ``math.inf`` when
    unbounded, None when not computed)."""
    return privacy_map(event.law).pure(event.law, event.sensitivity)
