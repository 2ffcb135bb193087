"""The zoo's noise-addition mechanisms, and the helpers the other zoo modules share.

Every mechanism here follows the zoo's contract ``mechanism(dataset, size, rng)``: ``size``
independent releases on the same ``dataset``, drawn with the ``numpy.random.Generator``
``rng`` only, vectorised over the draws. Privacy parameters are keyword-only; the registry
(:mod:`verification.zoo`) binds them with :func:`functools.partial`.

* :func:`laplace` — the Laplace mechanism on one value (Dwork, McSherry, Nissim, Smith 2006).
* :func:`truncated_geometric` — Balcer and Vadhan's ``GeoSample`` (2018, Algorithm 4.8), the
  geometric mechanism of Ghosh, Roughgarden and Sundararajan (2009) clamped to ``{0..n}``,
  sampled exactly by inverting an integer CDF; :func:`truncated_geometric_pmf` is its exact
  law and :func:`truncated_geometric_epsilon` its exact privacy.
* :func:`noisy_hist1`, :func:`noisy_hist2` — Ding et al. (CCS 2018), Algorithms 9 and 10:
  Laplace noise of scale 1/ε (correct) and ε (wrong) on every bin.
* :func:`laplace_parallel` — ``copies`` independent Laplace releases of one value.
* :func:`prefix_sum` — Wang et al. (PLDI 2019) PrefixSum: the running sums of the noisy
  answers ``q_i + Lap(1/ε)``.
"""

from __future__ import annotations

import math
import operator
from fractions import Fraction

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int

__all__ = [
    "as_queries", "check_size", "laplace_noise", "laplace", "truncated_geometric",
    "truncated_geometric_cdf", "truncated_geometric_pmf", "truncated_geometric_epsilon",
    "noisy_hist1", "noisy_hist2", "laplace_parallel", "prefix_sum",
]


# ----------------------------------------------------------------------------- helpers

def check_size(size, rng) -> int:
    """``size`` as a non-negative int and ``rng`` checked to be a numpy Generator."""
    if not isinstance(rng, np.random.Generator):
        raise ParameterError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return check_int("size", size, minimum=0)


def as_queries(dataset, *, length: int | None = None) -> np.ndarray:
    """``dataset`` as a finite 1-D float64 vector (of ``length`` entries if given). An
    array-like that answers numpy's protocols — the trace's symbolic data — stays one."""
    duck = hasattr(dataset, "__array_function__") and not isinstance(dataset, np.ndarray)
    q = dataset if duck else np.asarray(dataset)
    if q.dtype != np.float64:
        q = q.astype(np.float64)
    if q.ndim == 0:
        q = q.reshape(1)
    if q.ndim != 1 or q.size == 0:
        raise ParameterError(f"dataset must be a non-empty 1-D sequence, got shape {q.shape}")
    if length is not None and q.size != length:
        raise ParameterError(f"dataset must have {length} entr{'y' if length == 1 else 'ies'}, "
                             f"got {q.size}")
    if not np.all(np.isfinite(q)):
        raise ParameterError("dataset entries must be finite")
    return q


def _positive(name: str, value) -> float:
    x = float(value)
    if not (math.isfinite(x) and x > 0):
        raise ParameterError(f"{name} must be a finite number > 0, got {value!r}")
    return x


def laplace_noise(rng: np.random.Generator, scale: float, shape) -> np.ndarray:
    """Lap(0, ``scale``) draws of the given shape, as float64.

    A Laplace variable is an Exp(1) magnitude with an independent fair sign: the magnitudes
    come from ``rng.standard_exponential`` (ziggurat) and the signs from the bits of
    ``rng.bytes`` — the same law as ``rng.laplace`` at about a third of its cost.

    Under a tracing generator (one with ``trace_law``: ``verification.audit.trace``) the
    draws are ``rng.laplace(0, scale, shape)`` itself — the same law as one primitive, so a
    trace sees the Laplace release rather than its magnitude and sign."""
    shape = (shape,) if isinstance(shape, (int, np.integer)) else tuple(shape)
    if getattr(rng, "trace_law", None) is not None:
        return rng.laplace(0.0, scale, shape)         # float64, shaped (tracked, maybe)
    n = math.prod(shape)
    magnitude = rng.standard_exponential(n)
    bits = np.unpackbits(np.frombuffer(rng.bytes((n + 7) // 8), dtype=np.uint8), count=n)
    sign = 1 - 2 * bits.astype(np.int8)            # +1 for a 0 bit, -1 for a 1 bit
    magnitude *= sign
    magnitude *= scale
    return magnitude.reshape(shape)


# ----------------------------------------------------------------------------- Laplace

def laplace(dataset, size, rng, *, epsilon: float = 0.1) -> np.ndarray:
    """The Laplace mechanism on one value: ``x + Lap(1/ε)``, shape ``(size,)`` float64.
    ε-DP for inputs that differ by at most 1 (Dwork et al. 2006)."""
    n = check_size(size, rng)
    x = as_queries(dataset, length=1)[0]
    out = laplace_noise(rng, 1.0 / _positive("epsilon", epsilon), n)
    out += x
    return out


def laplace_parallel(dataset, size, rng, *, epsilon: float = 0.005,
                     copies: int = 20) -> np.ndarray:
    """``copies`` independent Laplace releases ``x + Lap(1/ε)`` of one value, shape
    ``(size, copies)`` float64 — by composition (copies·ε)-DP, exactly."""
    n = check_size(size, rng)
    x = as_queries(dataset, length=1)[0]
    k = operator.index(copies)
    if k < 1:
        raise ParameterError(f"copies must be >= 1, got {k}")
    out = laplace_noise(rng, 1.0 / _positive("epsilon", epsilon), (n, k))
    out += x
    return out


# ----------------------------------------------------------------------------- histograms

def _noisy_vector(dataset, size, rng, scale: float) -> np.ndarray:
    n = check_size(size, rng)
    q = as_queries(dataset)
    out = laplace_noise(rng, scale, (n, q.size))
    out += q
    return out


def noisy_hist1(dataset, size, rng, *, epsilon: float = 0.1) -> np.ndarray:
    """Ding et al. (CCS 2018) Algorithm 9, the noisy histogram: every count plus
    Lap(1/ε), shape ``(size, k)`` float64. ε-DP when one count moves by at most 1."""
    return _noisy_vector(dataset, size, rng, 1.0 / _positive("epsilon", epsilon))


def noisy_hist2(dataset, size, rng, *, epsilon: float = 0.1) -> np.ndarray:
    """Ding et al. (CCS 2018) Algorithm 10, the *incorrect* noisy histogram: every count
    plus Lap(ε) instead of Lap(1/ε), shape ``(size, k)`` float64. Exactly (1/ε)-DP when one
    count moves by at most 1 — private at the claimed ε only if ε ≥ 1."""
    return _noisy_vector(dataset, size, rng, _positive("epsilon", epsilon))


def prefix_sum(dataset, size, rng, *, epsilon: float = 0.1) -> np.ndarray:
    """PrefixSum (Wang, Ding, Wang, Kifer, Zhang, PLDI 2019): the running sums
    ``Σ_{j≤i} (q_j + Lap(1/ε))``, shape ``(size, k)`` float64.

    The sums are an invertible post-processing of the noisy answers, so the privacy is that
    of the noisy answers: ε when one answer moves by at most 1, but k·ε (exactly) when every
    answer may move by 1 — the relation of the DP-Sniper benchmark's patterns."""
    out = _noisy_vector(dataset, size, rng, 1.0 / _positive("epsilon", epsilon))
    np.cumsum(out, axis=1, out=out)
    return out


# ----------------------------------------------------------------------------- geometric

def _geo_params(epsilon: float, n: int) -> tuple[int, int, int]:
    """Balcer–Vadhan's integer parameters: ``k = ⌈ln(2/ε)⌉``, ``a = 2^k``, ``b = 2^k + 1``;
    the noise is two-sided geometric with ratio α = a/b, i.e. ε_true = ln(1 + 2^-k)."""
    eps = _positive("epsilon", epsilon)
    n = operator.index(n)
    if n < 1:
        raise ParameterError(f"n must be >= 1, got {n}")
    k = math.ceil(math.log(2.0 / eps))
    if k < 1:
        raise ParameterError(f"epsilon must be < 2 (GeoSample needs k = ceil(ln(2/eps)) >= 1), "
                             f"got {epsilon!r}")
    return k, 2**k, 2**k + 1


def truncated_geometric_cdf(count: int, *, epsilon: float = 0.1, n: int = 5) -> list[int]:
    """The integer CDF of ``GeoSample(count)``: ``F[z] = d·P[Z ≤ z]`` for ``z = 0..n``, with
    ``d = F[n] = (a + b)·b^(n-1)`` (Balcer and Vadhan 2018, Algorithm 4.8, step 2).

    With α = a/b the law is ``count`` plus two-sided geometric noise P[N = m] ∝ α^|m|,
    clamped to ``[0, n]``: ``P[Z ≤ z] = α^(count-z)/(1+α)`` below ``count`` and
    ``1 - α^(z-count+1)/(1+α)`` from ``count`` on — multiplied by ``d`` these are integers."""
    k, a, b = _geo_params(epsilon, n)
    c = operator.index(count)
    if not 0 <= c <= n:
        raise ParameterError(f"dataset (the count) must be an integer in [0, {n}], got {count!r}")
    d = (a + b) * b ** (n - 1)
    cdf = [a ** (c - z) * b ** (n - (c - z)) for z in range(c)]
    cdf += [d - a ** (z - c + 1) * b ** (n - 1 - (z - c)) for z in range(c, n)]
    cdf.append(d)
    return cdf


def truncated_geometric_pmf(count: int, *, epsilon: float = 0.1, n: int = 5) -> list[Fraction]:
    """The exact output law of :func:`truncated_geometric` on ``count``: P[Z = z], z = 0..n."""
    cdf = truncated_geometric_cdf(count, epsilon=epsilon, n=n)
    d = cdf[-1]
    return [Fraction(hi - lo, d) for lo, hi in zip([0] + cdf[:-1], cdf)]


def truncated_geometric_epsilon(*, epsilon: float = 0.1, n: int = 5) -> float:
    """The exact privacy of :func:`truncated_geometric` for counts that move by at most 1:
    the largest ``|ln P_c(z)/P_c'(z)|`` over neighbouring counts ``c, c' in [0, n]`` and
    outputs ``z`` (finite support, so the supremum is a maximum), from exact fractions.
    It is ``ln(1 + 2^-k)`` with ``k = ⌈ln(2/ε)⌉`` — 0.1178 at ε = 0.1, not 0.1."""
    worst = Fraction(1)
    for c in range(n):
        p, q = truncated_geometric_pmf(c, epsilon=epsilon, n=n), \
            truncated_geometric_pmf(c + 1, epsilon=epsilon, n=n)
        worst = max([worst] + [max(x / y, y / x) for x, y in zip(p, q)])
    return math.log(worst.numerator) - math.log(worst.denominator)


def truncated_geometric(dataset, size, rng, *, epsilon: float = 0.1, n: int = 5) -> np.ndarray:
    """Balcer and Vadhan's ``GeoSample(ε, n)`` (Differential Privacy on Finite Computers,
    2018, Algorithm 4.8), the benchmark's TruncatedGeometric: shape ``(size,)`` int64 in
    ``{0..n}``. ``dataset`` is one count in ``[0, n]``.

    Exact: a uniform integer ``u`` in ``[1, d]`` is mapped to the least ``z`` with
    ``F[z] ≥ u`` (:func:`truncated_geometric_cdf`). This is the geometric mechanism of Ghosh
    et al. (2009) clamped to ``[0, n]`` — clamping, not renormalising — but with the rounded
    ratio α = 2^k/(2^k + 1); its privacy is ln(1 + 2^-k) (Balcer–Vadhan Theorem 4.7, tight:
    :func:`truncated_geometric_epsilon`), which exceeds the ε it is called with."""
    m = check_size(size, rng)
    x = as_queries(dataset, length=1)[0]
    if x != round(x):
        raise ParameterError(f"dataset (the count) must be an integer, got {x!r}")
    cdf = truncated_geometric_cdf(int(x), epsilon=epsilon, n=n)
    if cdf[-1] >= 2**62:
        raise ParameterError(f"epsilon={epsilon!r} with n={n!r} needs integers beyond int64")
    u = rng.integers(1, cdf[-1], size=m, endpoint=True, dtype=np.int64)
    return np.searchsorted(np.asarray(cdf, dtype=np.int64), u, side="left").astype(np.int64)
