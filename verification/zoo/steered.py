"""Mechanisms whose noise steers the program, beyond DP-Sniper's suite: the exponential
mechanism (drawn by ``choice`` and as Gumbel noisy max), randomised response over k
categories, a mean clamped after its noise, a noisy binary search for a quantile and a
peeled noisy top-2 — each correct, and the leaky ones with the bug the literature and
practice show. Written as plain, loop-based code (the trace's paths follow it as is), with
``size`` releases vectorised by a loop.

==============================  =======  ==========  ========  ===============================
name                            private  true ε      relation  source
==============================  =======  ==========  ========  ===============================
ExponentialMechanism            yes      ε           query     McSherry–Talwar 2007: weights
                                                               exp(ε·u/2)
ExponentialMechanismNoHalf      no       2ε          query     the same without the ½
GumbelNoisyMax                  yes      ε           query     argmax u_i + Gumbel(2/ε): the
                                                               exponential mechanism (Durfee–
                                                               Rogers 2019)
RandomizedResponse7             yes      ε           value     Warner 1965 / k-ary RR:
                                                               keep with e^ε/(e^ε+6)
RandomizedResponse7AnyOther     no       ln(1+7p/    value     the same, but the "other" draw
                                         (1−p))                may return the true category
ClampedMeanAfterNoise           yes      ε           value     mean + Lap(Δ/ε), then clamped
                                                               to [0, 1] (post-processing)
BinarySearchQuantile            yes      ≤ ε         value     4 noisy comparisons of a count
                                                               with n/2, Lap(4/ε) each
PeeledTopTwo                    yes      ≤ ε         query     argmax twice, Lap(4/ε): the
                                                               paths' conditions chain
==============================  =======  ==========  ========  ===============================

On the exponential mechanism over the query relation (every utility moves by at most 1):
the ratio of one output's probabilities is ``e^{ε(u_i−u'_i)/2}·Σe^{εu'/2}/Σe^{εu/2}``, at
most ``e^{ε/2}·e^{ε/2}``, reached as the chosen utility rises by 1, the others fall by 1
and the chosen one's weight vanishes against theirs; without the ½ it is 2ε. Randomised
response: ``P(x|x)/P(x|y) = p/((1−p)/6) = e^ε`` exactly; when the "other" draw is uniform
over all 7 categories the ratio is ``(p + (1−p)/7)/((1−p)/7) = 1 + 7p/(1−p)``. The clamp
keeps the Laplace's tails in its two atoms, so the supremum is that of the Laplace, ε.
"""

from __future__ import annotations

import math
from functools import partial

import numpy as np

from privtools.errors import ParameterError
from privtools.neighbours import query_patterns

from . import ZooMechanism
from .simple import check_size

__all__ = ["steered_suite"]

_K = 7


def _utilities(dataset):
    if hasattr(dataset, "__array_function__") and not isinstance(dataset, np.ndarray):
        return dataset                       # the trace's symbolic data
    return np.asarray(dataset, dtype=np.float64)


def exponential_mechanism(dataset, size, rng, *, epsilon, half=True):
    """Index i with probability ∝ exp(ε·u_i/2) (``half``) or exp(ε·u_i), drawn by
    ``rng.choice`` from the normalised weights; ``dataset`` holds the utilities."""
    n = check_size(size, rng)
    u = np.asarray(dataset, dtype=np.float64)
    w = np.exp((epsilon / 2 if half else epsilon) * (u - u.max()))
    return rng.choice(u.size, size=n, p=w / w.sum())


def gumbel_noisy_max(dataset, size, rng, *, epsilon):
    """``argmax_i u_i + Gumbel(2/ε)`` — the exponential mechanism as noisy max."""
    n = check_size(size, rng)
    u = _utilities(dataset)
    return np.argmax(u + rng.gumbel(0.0, 2.0 / epsilon, (n, len(u))), axis=1)


def randomized_response(dataset, size, rng, *, epsilon, any_other=False):
    """k-ary randomised response over 7 categories: the true category (``dataset[0]``)
    with probability e^ε/(e^ε + 6), else another drawn uniformly — from all 7 with
    ``any_other`` (the bug)."""
    n = check_size(size, rng)
    x = int(np.asarray(dataset).reshape(-1)[0])
    if not 0 <= x < _K:
        raise ParameterError(f"the category must be in 0..{_K - 1}, got {x}")
    keep = math.exp(epsilon) / (math.exp(epsilon) + _K - 1)
    others = list(range(_K)) if any_other else [v for v in range(_K) if v != x]
    out = np.empty(n, dtype=np.int64)
    for r in range(n):
        out[r] = x if rng.random() < keep else others[rng.integers(len(others))]
    return out


def clamped_mean(dataset, size, rng, *, epsilon, n_records=4):
    """The mean of ``n_records`` values in [0, 1] plus Lap(1/(n·ε)), clamped to [0, 1]."""
    n = check_size(size, rng)
    x = np.asarray(dataset, dtype=np.float64)
    mean = float(np.clip(x, 0.0, 1.0).sum()) / n_records
    return np.clip(mean + rng.laplace(0.0, 1.0 / (n_records * epsilon), n), 0.0, 1.0)


def binary_search_quantile(dataset, size, rng, *, epsilon, steps=4, lo=0.0, hi=16.0):
    """A median by ``steps`` noisy halvings of [lo, hi): at each, the count of records
    below the midpoint plus Lap(steps/ε) against half the records. Returns the final
    interval's left end."""
    n = check_size(size, rng)
    x = np.asarray(dataset, dtype=np.float64)
    half = x.size / 2
    out = np.empty(n)
    for r in range(n):
        a, b = lo, hi
        for _ in range(steps):
            mid = (a + b) / 2
            if float(np.sum(x < mid)) + rng.laplace(0.0, steps / epsilon) >= half:
                b = mid
            else:
                a = mid
        out[r] = a
    return out


def peeled_top_two(dataset, size, rng, *, epsilon):
    """The two largest of ``u_i + Lap(4/ε)``, peeled: argmax, then argmax of the rest
    (each ε/2 by report-noisy-max; ε by composition)."""
    n = check_size(size, rng)
    u = _utilities(dataset)
    noisy = u + rng.laplace(0.0, 4.0 / epsilon, (n, len(u)))
    first = np.argmax(noisy, axis=1)
    masked = np.where(np.arange(len(u)) == first[:, None], -np.inf, noisy)
    return np.stack([first, np.argmax(masked, axis=1)], axis=1)


def _query_pairs(base):
    return tuple((tuple(base), o) for o in query_patterns(base, "query"))


def _value_pairs(values):
    return tuple(((a,), (b,)) for a in values for b in values if a != b)


def steered_suite(epsilon: float = 0.5) -> list[ZooMechanism]:
    """The suite of the module docstring at claim ``epsilon``."""
    e = float(epsilon)
    base = (1, 2, 2, 3)
    p = math.exp(e) / (math.exp(e) + _K - 1)
    q_pairs = _query_pairs(base)
    rr_pairs = _value_pairs(range(_K))
    mean_pairs = (((0, 0, 0, 0), (0, 0, 0, 1)), ((1, 1, 1, 1), (1, 1, 1, 0)),
                  ((0, 1, 0, 1), (1, 1, 0, 1)))
    quant_pairs = (((1, 2, 9, 12), (1, 2, 9, 3)), ((4, 4, 4, 4), (4, 4, 4, 12)),
                   ((0, 7, 8, 15), (0, 7, 9, 15)))

    def z(name, mech, private, true, source, pairs, relation, note=""):
        return ZooMechanism(name=name, mechanism=mech, epsilon=e, private=private,
                            true_epsilon=true, source=source,
                            datasets=tuple(dict.fromkeys(a for a, _ in pairs)),
                            relation=relation, pairs=pairs, dpsniper=None, suite="steered",
                            note=note)
    return [
        z("ExponentialMechanism", partial(exponential_mechanism, epsilon=e), True, e,
          "McSherry and Talwar, FOCS 2007", q_pairs, "query",
          "drawn by rng.choice from data-dependent weights: decided by the paths"),
        z("ExponentialMechanismNoHalf", partial(exponential_mechanism, epsilon=e, half=False),
          False, 2 * e, "McSherry and Talwar, FOCS 2007, weights without the ½", q_pairs,
          "query"),
        z("GumbelNoisyMax", partial(gumbel_noisy_max, epsilon=e), True, e,
          "Durfee and Rogers, NeurIPS 2019 (Gumbel noisy max = the exponential mechanism)",
          q_pairs, "query"),
        z("RandomizedResponse7", partial(randomized_response, epsilon=e), True, e,
          "k-ary randomised response (Warner 1965; Kairouz et al. 2016)", rr_pairs, "value"),
        z("RandomizedResponse7AnyOther", partial(randomized_response, epsilon=e,
                                                 any_other=True), False,
          math.log(1 + _K * p / (1 - p)), "k-ary randomised response with the true "
          "category among the 'others'", rr_pairs, "value"),
        z("ClampedMeanAfterNoise", partial(clamped_mean, epsilon=e), True, e,
          "the Laplace mechanism, clamped after the noise (post-processing)", mean_pairs,
          "value"),
        z("BinarySearchQuantile", partial(binary_search_quantile, epsilon=e), True, None,
          "noisy binary search (e.g. Smith 2011's comparisons), Lap(steps/ε) per step",
          quant_pairs, "value", "private by composition; the supremum is not known in "
                                "closed form"),
        z("PeeledTopTwo", partial(peeled_top_two, epsilon=e), True, None,
          "report-noisy-max peeled twice (Dwork and Roth 2014, composition)", q_pairs,
          "query", "the second argmax's conditions chain the draws: not integrated"),
    ]
