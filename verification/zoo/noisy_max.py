"""Report Noisy Max and its broken relatives (Ding, Wang, Wang, Zhang, Kifer, "Detecting
Violations of Differential Privacy", CCS 2018, Algorithms 5–8; DP-Sniper's ReportNoisyMax1–4,
StatDP's NoisyMax v1a, v2a, v1b, v2b).

Each query answer gets independent noise of scale 2/ε — Laplace (Algorithms 5 and 7) or
one-sided exponential (Algorithms 6 and 8) — and the mechanism reports either the *index*
of the largest noisy answer (5, 6: the correct variants) or its *value* (7, 8: the bugs).

Privacy when every answer may move by at most 1 (k answers):

* index, Laplace — ε-DP; the supremum ε is approached as one answer sinks far below the
  others (the tail of a difference of two Lap(2/ε) shifted by 2).
* index, exponential — ε-DP, attained: the difference of two Exp(2/ε) is Lap(2/ε), exactly.
* value, Laplace — exactly (k·ε/2)-DP: every density factor of the maximum moves by at
  most e^(ε/2) and below every answer all k of them do at once (k = 5: 0.25 at ε = 0.1).
* value, exponential — not DP at any ε: the maximum is never below the largest answer, so
  raising every answer by 1 gives a set of outputs of probability 0 under one input only.
"""

from __future__ import annotations

import math

import numpy as np

from privtools.errors import ParameterError

from .simple import as_queries, check_size, laplace_noise

__all__ = ["report_noisy_max", "noisy_max_index_laplace", "noisy_max_index_exponential",
           "noisy_max_value_laplace", "noisy_max_value_exponential"]


def report_noisy_max(dataset, size, rng, *, epsilon: float, noise: str = "laplace",
                     output: str = "index") -> np.ndarray:
    """Noisy max over the answers in ``dataset`` with noise of scale 2/ε.

    ``noise``: ``"laplace"`` (Lap(2/ε), Ding et al. Algorithms 5/7) or ``"exponential"``
    (Exp with mean 2/ε, Algorithms 6/8). ``output``: ``"index"`` — the argmax, shape
    ``(size,)`` int64 — or ``"value"`` — the largest noisy answer, shape ``(size,)`` float64.
    """
    n = check_size(size, rng)
    q = as_queries(dataset)
    eps = float(epsilon)
    if not (math.isfinite(eps) and eps > 0):
        raise ParameterError(f"epsilon must be a finite number > 0, got {epsilon!r}")
    scale = 2.0 / eps
    if noise == "laplace":
        noisy = laplace_noise(rng, scale, (n, q.size))
    elif noise == "exponential":
        noisy = rng.standard_exponential((n, q.size))
        noisy *= scale
    else:
        raise ParameterError(f"noise must be 'laplace' or 'exponential', got {noise!r}")
    noisy += q
    if output == "index":
        return np.argmax(noisy, axis=1).astype(np.int64)
    if output == "value":
        return np.max(noisy, axis=1)
    raise ParameterError(f"output must be 'index' or 'value', got {output!r}")


def noisy_max_index_laplace(dataset, size, rng, *, epsilon: float = 0.1) -> np.ndarray:
    """Ding et al. (2018) Algorithm 5 — DP-Sniper's ReportNoisyMax1, StatDP's NoisyMax v1a:
    ``argmax_i (q_i + Lap(2/ε))``, int64. ε-DP."""
    return report_noisy_max(dataset, size, rng, epsilon=epsilon, noise="laplace",
                            output="index")


def noisy_max_index_exponential(dataset, size, rng, *, epsilon: float = 0.1) -> np.ndarray:
    """Ding et al. (2018) Algorithm 6 — ReportNoisyMax2, NoisyMax v2a:
    ``argmax_i (q_i + Exp(2/ε))``, int64. ε-DP (the bound is attained)."""
    return report_noisy_max(dataset, size, rng, epsilon=epsilon, noise="exponential",
                            output="index")


def noisy_max_value_laplace(dataset, size, rng, *, epsilon: float = 0.1) -> np.ndarray:
    """Ding et al. (2018) Algorithm 7 — ReportNoisyMax3, NoisyMax v1b: the noisy maximum
    ``max_i (q_i + Lap(2/ε))`` itself, float64. Exactly (k·ε/2)-DP for k answers."""
    return report_noisy_max(dataset, size, rng, epsilon=epsilon, noise="laplace",
                            output="value")


def noisy_max_value_exponential(dataset, size, rng, *, epsilon: float = 0.1) -> np.ndarray:
    """Ding et al. (2018) Algorithm 8 — ReportNoisyMax4, NoisyMax v2b: the noisy maximum
    ``max_i (q_i + Exp(2/ε))`` itself, float64. Not DP for any finite ε (its support starts
    at ``max_i q_i``)."""
    return report_noisy_max(dataset, size, rng, epsilon=epsilon, noise="exponential",
                            output="value")
