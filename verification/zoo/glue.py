"""The glue zoo: small mechanisms written the way users write DP glue code around numpy.

The benchmark zoo (:mod:`verification.zoo`) re-implements the DP-testing literature's
algorithms; this one holds the everyday mistakes of the code *around* a noise call — a
scale computed from the data, a count returned without noise, a clipping step forgotten, a
noise draw reused, randomness taken from the wrong generator, a loop steered by the noise —
next to private controls written the same way. It is ground truth for the grey-box trace
(:func:`verification.audit.trace_mechanism`) and is deliberately *not* registered in
:data:`verification.zoo.ZOO` (code that iterates the zoo expects the literature's suites).

Contract (the zoo's): ``mechanism(dataset, size, rng)`` returns ``size`` releases on
``dataset`` (a 1-D sequence of numbers; neighbours add or remove one record), vectorised
over ``size`` (an array of ``size`` values, or a dict or list of such arrays), with noise
drawn from the ``numpy.random.Generator`` ``rng`` only — except where the bug *is* the
randomness. Parameters are keyword-only and bound with :func:`functools.partial` so the
mechanisms pickle.

``true_epsilon`` is the supremum of the privacy loss over every neighbouring pair of the
entry's domain (stated in its docstring): ``math.inf`` when no finite ε holds, ``None``
when the ε(δ) has no closed form here (the Skellam and discrete-Gaussian controls, whose
ε(δ) is only computed numerically). For (ε, δ) entries it is the exact ε(δ) at the claimed
δ (:func:`gaussian_epsilon`, the analytic Gaussian mechanism of Balle and Wang, ICML 2018).
``pair`` is the neighbouring pair that exposes the bug (a typical pair for the controls)
and ``kinds`` the finding kinds the trace must report on it (empty for the controls).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from fractions import Fraction
from functools import partial

import numpy as np

from privtools.accounting import gaussian_epsilon as accounting_gaussian_epsilon
from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam

from ..audit.trace.result import KINDS
from .floats import classical_gaussian_sigma

__all__ = ["GlueMechanism", "glue_suite", "gaussian_epsilon"]


@dataclass(frozen=True)
class GlueMechanism:
    """One glue mechanism with its claim and ground truth (see the module doc)."""

    name: str
    mechanism: Callable          # mechanism(dataset, size, rng)
    epsilon: float               # the claimed ε
    delta: float                 # the claimed δ
    private: bool                # does the claim hold over the entry's domain
    true_epsilon: float | None   # sup loss over the domain; math.inf; None: no closed form
    pair: tuple                  # (d, d_prime) exposing the bug, or a typical pair
    kinds: tuple                 # finding kinds the trace must report on `pair`
    note: str = ""


def gaussian_epsilon(sigma: float, delta: float, sensitivity: float = 1.0) -> float:
    """The exact ε(δ) of the Gaussian mechanism N(0, σ²) for a shift of ``sensitivity``
    (Balle and Wang, ICML 2018, Theorem 8), as a float: the midpoint of the certified
    bracket of :func:`privtools.accounting.gaussian_epsilon` (width below 2⁻⁷⁰; 0 when δ
    already covers ε = 0)."""
    mu2 = (Fraction(sensitivity) / Fraction(sigma)) ** 2
    lo, hi = accounting_gaussian_epsilon(mu2, Fraction(delta))
    return float((lo + hi) / 2)


def _values(dataset) -> np.ndarray:
    return np.asarray(dataset, dtype=np.float64).reshape(-1)


# ============================================================== private controls
def clipped_sum_laplace(dataset, size, rng, *, epsilon):
    """The Laplace sum of values clipped to [0, 1]: ``Σ clip(x) + Lap(1/ε)``. Private:
    exactly ε (one record moves the clipped sum by at most 1)."""
    total = float(np.clip(_values(dataset), 0.0, 1.0).sum())
    return total + rng.laplace(0.0, 1.0 / epsilon, size)


def public_bins_histogram(dataset, size, rng, *, epsilon, bins):
    """A histogram over a *public* bin list, ``Lap(1/ε)`` on every bin, returned as a dict
    ``{bin: noisy counts}``. Private: exactly ε (one record moves one count by 1; the keys
    do not depend on the data)."""
    x = _values(dataset)
    noise = rng.laplace(0.0, 1.0 / epsilon, (size, len(bins)))
    return {b: float(np.sum(x == b)) + noise[:, i] for i, b in enumerate(bins)}


def gaussian_sum(dataset, size, rng, *, epsilon, delta):
    """The Gaussian sum of values clipped to [0, 1] with the classical σ =
    √(2 ln(1.25/δ))/ε (Dwork–Roth Thm A.1, ε < 1). Private at (ε, δ): its exact ε(δ) is
    :func:`gaussian_epsilon` (σ, δ), below ε."""
    total = float(np.clip(_values(dataset), 0.0, 1.0).sum())
    return total + rng.normal(0.0, classical_gaussian_sigma(epsilon, delta), size)


def discrete_laplace_count(dataset, size, rng, *, scale):
    """A count plus privtools' ``DiscreteLaplace(scale)``. Private: exactly 1/scale (a count
    moves by 1), in exact integer arithmetic."""
    return len(dataset) + DiscreteLaplace(scale).sample(size, rng)


def skellam_count(dataset, size, rng, *, var):
    """A count plus privtools' ``Skellam(var)``. Private at its (ε, δ): the Skellam's
    ε(δ) for a shift of 1 (no finite pure ε)."""
    return len(dataset) + Skellam(var).sample(size, rng)


def discrete_gaussian_count(dataset, size, rng, *, sigma2):
    """A count plus privtools' ``DiscreteGaussian(sigma2=σ²)`` (Canonne, Kamath, Steinke
    2020). Private at its (ε, δ): the discrete Gaussian's ε(δ) for a shift of 1."""
    return len(dataset) + DiscreteGaussian(sigma2=sigma2).sample(size, rng)


# ============================================================== data-dependent calibration
def range_scaled_laplace(dataset, size, rng, *, epsilon):
    """Bug: the sensitivity is computed from the data, ``max(d) − min(d)``, and used as the
    Laplace scale factor of a sum. Domain: values in [0, 4]. ε = ∞: a constant dataset gets
    no noise at all, and two datasets of different ranges give Laplace laws of different
    scales, whose log-ratio is unbounded."""
    x = _values(dataset)
    sens = float(x.max() - x.min())
    return float(x.sum()) + rng.laplace(0.0, sens / epsilon, size)


def mean_scale_from_n(dataset, size, rng, *, epsilon):
    """Bug: a mean of values in [0, 1] with the scale ``1/(ε·n)`` passed as a numpy
    parameter, ``n = len(d)`` private under add/remove. ε = ∞: neighbours get Laplace laws
    of scales 1/(εn) and 1/(ε(n−1)), whose log-ratio is unbounded."""
    x = np.clip(_values(dataset), 0.0, 1.0)
    return rng.laplace(float(x.mean()), 1.0 / (epsilon * len(x)), size)


def range_scaled_gaussian(dataset, size, rng, *, epsilon, delta):
    """Bug: ``rng.standard_normal() * σ(d)`` scaled in the code, σ(d) the classical σ
    times the data's range ``max(d) − min(d)``. Domain: values in [0, 4]. ε(δ) = ∞ for
    every δ < 1: a constant dataset is released without noise."""
    x = _values(dataset)
    sigma = classical_gaussian_sigma(epsilon, delta) * float(x.max() - x.min())
    return float(x.sum()) + rng.standard_normal(size) * sigma


# ============================================================== unnoised outputs
def count_beside_noisy_sum(dataset, size, rng, *, epsilon):
    """Bug: a noisy clipped sum returned with the exact record count beside it,
    ``{"count": len(d), "sum": Σ clip(x) + Lap(1/ε)}``. ε = ∞: the count is released
    without noise."""
    x = np.clip(_values(dataset), 0.0, 1.0)
    return {"count": np.full(size, len(x)),
            "sum": float(x.sum()) + rng.laplace(0.0, 1.0 / epsilon, size)}


def data_keyed_histogram(dataset, size, rng, *, epsilon):
    """Bug: a histogram whose keys come from the data (``np.unique``), ``Lap(1/ε)`` on
    each count. ε = ∞: the key set itself is released without noise."""
    keys, counts = np.unique(_values(dataset), return_counts=True)
    noise = rng.laplace(0.0, 1.0 / epsilon, (size, len(keys)))
    return {float(k): float(c) + noise[:, i] for i, (k, c) in enumerate(zip(keys, counts))}


def flag_beside_noisy_mean(dataset, size, rng, *, epsilon, threshold):
    """Bug: a noisy sum of values clipped to [0, 1] returned with the flag
    ``max(d) > threshold``. ε = ∞: the flag is a function of the data without noise."""
    x = _values(dataset)
    return {"sum": float(np.clip(x, 0.0, 1.0).sum()) + rng.laplace(0.0, 1.0 / epsilon, size),
            "over": np.full(size, bool(x.max() > threshold))}


def shared_noise_arms(dataset, size, rng, *, epsilon):
    """Bug: one noise draw shared by every arm, ``noise = Lap(1/ε); [sum + noise,
    count + noise]`` (values clipped to [0, 1]). ε = ∞: the difference of the two arms,
    sum − count, is released without noise."""
    x = np.clip(_values(dataset), 0.0, 1.0)
    noise = rng.laplace(0.0, 1.0 / epsilon, size)
    return np.column_stack([float(x.sum()) + noise, len(x) + noise])


# ============================================================== sensitivity
def unclipped_sum(dataset, size, rng, *, epsilon):
    """Bug: the clipping step is forgotten, ``Σ x + Lap(1/ε)`` calibrated for sensitivity
    1. Domain: values in [0, 4]. ε = 4ε exactly (one record of value 4)."""
    return float(_values(dataset).sum()) + rng.laplace(0.0, 1.0 / epsilon, size)


def half_scale_count(dataset, size, rng, *, epsilon):
    """Bug: a count with the scale tied to a wrong ε, ``Lap(1/(2ε))`` (the budget "split"
    the wrong way). ε = 2ε exactly."""
    return len(dataset) + rng.laplace(0.0, 1.0 / (2.0 * epsilon), size)


def gaussian_wrong_delta(dataset, size, rng, *, epsilon, delta, used_delta):
    """Bug: the Gaussian sum of values clipped to [0, 1] with σ computed for
    ``used_delta`` instead of the claimed δ. Its exact ε(δ) at the claimed δ is
    :func:`gaussian_epsilon` (σ(ε, used_delta), δ), above ε."""
    total = float(np.clip(_values(dataset), 0.0, 1.0).sum())
    return total + rng.normal(0.0, classical_gaussian_sigma(epsilon, used_delta), size)


# ============================================================== untraceable randomness
def fresh_generator_laplace(dataset, size, rng, *, epsilon):
    """Bug (for an auditor): the noise comes from ``np.random.default_rng()`` made inside,
    not from ``rng``. The law is the Laplace count's (exactly ε), but no seed controls it:
    the run cannot be reproduced or replayed."""
    gen = np.random.default_rng()
    return len(dataset) + gen.laplace(0.0, 1.0 / epsilon, size)


def global_state_laplace(dataset, size, rng, *, epsilon):
    """Bug (for an auditor): the noise comes from numpy's global state,
    ``np.random.laplace``. The law is the Laplace count's (exactly ε), but it is not
    drawn from ``rng``."""
    return len(dataset) + np.random.laplace(0.0, 1.0 / epsilon, size)  # noqa: NPY002


# ============================================================== noise-dependent control flow
def report_noisy_max(dataset, size, rng, *, epsilon, bins):
    """Report noisy max over a public bin list: the index of the largest count plus
    ``Lap(2/ε)``. Private: ε-DP (Dwork–Roth Claim 3.9); the output is an argmax over the
    noise, not an additive release — the trace certifies it from above by the noisy counts'
    loss (post-processing)."""
    x = _values(dataset)
    counts = np.array([np.sum(x == b) for b in bins], dtype=np.float64)
    return np.argmax(counts + rng.laplace(0.0, 2.0 / epsilon, (size, len(bins))), axis=1)


def first_above_threshold(dataset, size, rng, *, epsilon, threshold, queries):
    """A sparse-vector loop: the counts of records ≥ each public cut in ``queries``, a
    noisy threshold ``T + Lap(2/ε)``, then ``q_i + Lap(4/ε)`` in order until the first one
    above it; returns its index (``len(queries)`` when none is). Private: ε-DP (Lyu, Su,
    Li 2017, Alg. 1 with c = 1); the number of draws depends on the noise."""
    x = _values(dataset)
    qs = [float(np.sum(x >= q)) for q in queries]
    out = np.full(size, len(qs), dtype=np.int64)
    for r in range(size):
        noisy_t = threshold + rng.laplace(0.0, 2.0 / epsilon)
        for i, q in enumerate(qs):
            if q + rng.laplace(0.0, 4.0 / epsilon) >= noisy_t:
                out[r] = i
                break
    return out


def thresholded_count(dataset, size, rng, *, epsilon, scale, threshold):
    """Whether the number of records plus ``Lap(scale)`` reaches ``threshold`` (a bool per
    release). ε-DP needs ``scale ≥ 1/ε``; the loss is 1/scale, reached as the count sinks
    below the threshold (the Laplace's tail ratio)."""
    n = float(len(_values(dataset)))
    return n + rng.laplace(0.0, scale, size) >= threshold


# ============================================================== the suite
# the finding kinds, as the trace declares them (verification.audit.trace.result)
_DP, _UN, _SE, _UT, _CF, _PL = KINDS


def glue_suite() -> list[GlueMechanism]:
    """The glue mechanisms (module doc): six private controls, then the bugs by kind."""
    e, dl = 0.5, 1e-5
    sigma = classical_gaussian_sigma(e, dl)
    bins = (1.0, 2.0, 3.0)
    wrong_dl = 1e-2
    g = GlueMechanism
    add = ((0.25, 0.75, 1.0), (0.25, 0.75))
    return [
        g("ClippedSumLaplace", partial(clipped_sum_laplace, epsilon=e), e, 0.0, True, e, add,
          (), "values clipped to [0, 1]; a record of value 1 is the worst case"),
        g("PublicBinsHistogram", partial(public_bins_histogram, epsilon=e, bins=bins), e,
          0.0, True, e, ((1.0, 2.0, 2.0, 3.0), (1.0, 2.0, 3.0)), (),
          "public bins {1, 2, 3}: one count moves by 1"),
        g("GaussianSum", partial(gaussian_sum, epsilon=e, delta=dl), e, dl, True,
          gaussian_epsilon(sigma, dl), add, (),
          f"σ = {sigma:.6g} (classical bound); exact ε(δ) = "
          f"{gaussian_epsilon(sigma, dl):.6g} < ε"),
        g("DiscreteLaplaceCount", partial(discrete_laplace_count, scale=Fraction(2)), e,
          0.0, True, e, ((1, 2, 3), (1, 2)), (),
          "DiscreteLaplace(2): exactly ε = 1/2 for a count, integer noise"),
        g("SkellamCount", partial(skellam_count, var=50), 1.0, dl, True, None,
          ((1, 2, 3), (1, 2)), (), "Skellam(var = 50) on a count, claim (1, 1e-5)"),
        g("DiscreteGaussianCount", partial(discrete_gaussian_count, sigma2=50), 1.0, dl,
          True, None, ((1, 2, 3), (1, 2)), (),
          "DiscreteGaussian(σ² = 50) on a count, claim (1, 1e-5)"),
        g("RangeScaledLaplace", partial(range_scaled_laplace, epsilon=e), e, 0.0, False,
          math.inf, ((0.0, 1.0, 2.0), (0.0, 1.0)), (_DP,),
          "scale (max − min)/ε: 4 on d, 2 on d'"),
        g("MeanScaleFromN", partial(mean_scale_from_n, epsilon=e), e, 0.0, False, math.inf,
          ((0.25, 0.5, 1.0), (0.25, 0.5)), (_DP,), "the scale 1/(εn) moves with n"),
        g("RangeScaledGaussian", partial(range_scaled_gaussian, epsilon=e, delta=dl), e, dl,
          False, math.inf, ((0.0, 1.0, 2.0), (0.0, 1.0)), (_DP,),
          "standard_normal · σ(d) scaled in code: the coefficient 2σ on d, σ on d'"),
        g("CountBesideNoisySum", partial(count_beside_noisy_sum, epsilon=e), e, 0.0, False,
          math.inf, add, (_UN,), "output['count'] is len(d)"),
        g("DataKeyedHistogram", partial(data_keyed_histogram, epsilon=e), e, 0.0, False,
          math.inf, ((1.0, 2.0, 2.0, 3.0), (1.0, 2.0, 2.0)), (_UN, _DP),
          "the key 3.0 is present on d only (and one Laplace draw per key: the noise "
          "call's size follows the data)"),
        g("FlagBesideNoisyMean", partial(flag_beside_noisy_mean, epsilon=e, threshold=3.0),
          e, 0.0, False, math.inf, ((0.5, 1.0, 5.0), (0.5, 1.0)), (_UN,),
          "output['over'] is max(d) > 3: True on d, False on d'"),
        g("SharedNoiseArms", partial(shared_noise_arms, epsilon=e), e, 0.0, False,
          math.inf, ((0.25, 0.75), (0.25,)), (_UN,),
          "sum and count share one draw: sum − count is −1 on d, −3/4 on d'"),
        g("UnclippedSum", partial(unclipped_sum, epsilon=e), e, 0.0, False, 4 * e,
          ((0.0, 1.0, 4.0), (0.0, 1.0)), (_SE,), "values in [0, 4]; the record 4 shifts "
          "the sum by 4 = 4/b"),
        g("HalfScaleCount", partial(half_scale_count, epsilon=e), e, 0.0, False, 2 * e,
          ((1, 2, 3), (1, 2)), (_SE,), "Lap(1/(2ε)) = Lap(1): ε_true = 1"),
        g("GaussianWrongDelta", partial(gaussian_wrong_delta, epsilon=e, delta=dl,
                                        used_delta=wrong_dl), e, dl, False,
          gaussian_epsilon(classical_gaussian_sigma(e, wrong_dl), dl), add, (_SE,),
          f"σ for δ = {wrong_dl:g}, claimed δ = {dl:g}"),
        g("FreshGeneratorLaplace", partial(fresh_generator_laplace, epsilon=e), e, 0.0,
          True, e, ((1, 2, 3), (1, 2)), (_UT,), "np.random.default_rng() inside"),
        g("GlobalStateLaplace", partial(global_state_laplace, epsilon=e), e, 0.0, True, e,
          ((1, 2, 3), (1, 2)), (_UT,), "np.random.laplace (numpy's global state)"),
        g("ReportNoisyMax", partial(report_noisy_max, epsilon=e, bins=bins), e, 0.0, True,
          None, ((1.0, 2.0, 2.0, 3.0), (1.0, 2.0, 3.0)), (),
          "argmax over Lap(2/ε): a fixed function of the noisy counts, whose loss (ε/2 on "
          "this pair) bounds it"),
        g("FirstAboveThreshold", partial(first_above_threshold, epsilon=e, threshold=2.0,
                                         queries=(1.0, 2.0, 3.0, 4.0)), e, 0.0, True, e,
          ((1.0, 2.0, 3.0, 4.0), (1.0, 2.0, 3.0)), (),
          "sparse vector: the number of draws depends on the noise; every path is "
          "integrated (5 on each dataset)"),
        g("ThresholdedCountHalfScale", partial(thresholded_count, epsilon=e, scale=0.5 / e,
                                               threshold=12.0), e, 0.0, False, 2 * e,
          ((1.0, 2.0, 3.0), (1.0, 2.0)), (_PL,),
          "whether the count plus Lap(1/(2ε)) reaches a public threshold: the comparison is "
          "post-processing of a release at 2ε; far below the threshold the ratio is e^(2ε)"),
    ]
