"""The analyzer A of paper 000: undo the modular wrap and rescale by the precision g.

Algorithm 3 (000): y = the output of the secure computation (for secure shuffling, the
sum of the received multiset mod m); if y > n·g + τ then z = (y − m)/g else z = y/g.
Algorithm 5 (000), central model: first add central noise, y ← (ŷ + (η mod m)) mod m with
η from ``plan.central_noise`` (Lap_Z(g/ε), Theorem 5), then decode as in Algorithm 3.
Algorithm 7 (000), local model: decode as in Algorithm 3.

Why the decoding is exact. Write S = Σ x̂_i ∈ [0, n·g] and N for the total noise. Then
y = (S + N) mod m, and if |N| <= τ the integer S + N lies in [−τ, n·g + τ], a window of
n·g + 2τ + 1 <= m consecutive integers; Algorithm 3 maps y back to the representative of
its class in exactly that window (y itself when y <= n·g + τ, y − m otherwise), so
g·z = S + N exactly. :func:`decode` returns that integer g·z.
"""

from __future__ import annotations

import numbers
from fractions import Fraction

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng

from ._zm import modular_sum
from .randomizer import (
    INT64_MODULUS_LIMIT,
    ProtocolParams,
    _noise,
    add_mod,
    check_messages,
    protocol_params,
)

__all__ = ["modular_sum", "add_central_noise", "decode", "decode_many", "analyze",
           "analyze_many"]


def _check_y_scalar(y, m: int) -> int:
    if isinstance(y, bool) or not isinstance(y, numbers.Integral):
        raise ParameterError(f"y must be an integer in Z_{m}, got {y!r}")
    y = int(y)
    if not 0 <= y < m:
        raise ParameterError(f"y = {y} is outside Z_{m} = {{0, ..., {m - 1}}}")
    return y


def _input_sum(y, P: ProtocolParams) -> int:
    """The modular sum the analyzer starts from: a scalar ŷ (SecAgg output) or, for a
    1-D array of messages (a shuffled multiset, or the local model's messages), their sum
    mod m (000 Alg. 3, lines 3–5)."""
    if np.ndim(y) == 0:
        return _check_y_scalar(y.item() if isinstance(y, np.ndarray | np.generic) else y, P.m)
    if np.ndim(y) != 1:
        raise ParameterError(f"y must be a scalar modular sum or a 1-D array of messages, got "
                             f"shape {np.shape(y)}")
    msgs = check_messages(y, P.m, "y")
    return int(modular_sum(msgs, P.m))


def _release(y: np.ndarray, P: ProtocolParams, gen: np.random.Generator):
    """:func:`add_central_noise` without argument checks (``y`` an array of elements of
    Z_m, ``P`` checked parameters, ``gen`` a Generator)."""
    if P.trust != "central":
        return y, None
    eta = _noise(P.central_noise, y.shape, gen)
    return add_mod(y, eta, P.m), eta


def add_central_noise(y, plan, rng=None) -> tuple[np.ndarray, np.ndarray | None]:
    """The analyzer's noise step: ``(released y, η)``.

    000 Alg. 5, lines 3–4 (central model): y ← (ŷ + (η mod m)) mod m with η drawn from
    ``plan.central_noise`` (Lap_Z(g/ε), Theorem 5), one draw per entry of ``y``. Under
    distributed trust (Alg. 3) and local trust (Alg. 7) the users already added the noise:
    ``y`` is returned unchanged and η is None. Decoding follows with :func:`decode_many`.

    ``y``: an integer array (any shape) of secure-computation outputs in Z_m, checked by
    :func:`~privtools.protocol.randomizer.check_messages`.
    """
    P = protocol_params(plan)
    return _release(check_messages(y, P.m, "y"), P, as_rng(rng, secure=True))


def _decode(y: np.ndarray, P: ProtocolParams) -> np.ndarray:
    """g·z for an array of y ∈ Z_m (000 Alg. 3, lines 6–8)."""
    if y.dtype == object:
        out = np.empty(y.shape, dtype=object)
        out.ravel()[:] = [v - P.m if v > P.threshold else v for v in y.ravel()]
        return out
    return np.where(y > P.threshold, y - P.m, y)


def decode(y, plan) -> int:
    """g·z for a released modular sum y ∈ Z_m (000 Alg. 3, lines 6–8): y − m if
    y > n·g + τ, else y. No noise is added here (see :func:`analyze`)."""
    P = protocol_params(plan)
    return int(_decode(np.array([_check_y_scalar(y, P.m)], dtype=object), P)[0])


def decode_many(y, plan) -> np.ndarray:
    """:func:`decode` elementwise over an integer array of y ∈ Z_m (int64 result when
    m < 2**62, Python ints otherwise)."""
    P = protocol_params(plan)
    return _decode(check_messages(y, P.m, "y"), P)


def analyze(y, plan, rng=None) -> Fraction:
    """The analyzer's estimate z of Σ x_i as an exact Fraction (000 Alg. 3; Alg. 5 under
    central trust, which draws the central noise from ``rng``; Alg. 7 under local trust).

    ``y``: the secure computation's output ŷ ∈ Z_m (an int), or a 1-D integer array of
    messages in Z_m — a shuffled multiset (Alg. 3, line 4) or the local model's messages —
    which is summed mod m first. Anything outside Z_m raises :class:`ParameterError`.
    """
    P = protocol_params(plan)
    total = _input_sum(y, P)
    gen = as_rng(rng, secure=True)
    arr = np.array([total], dtype=object if P.big else np.int64)
    released, _ = _release(arr, P, gen)
    return Fraction(int(_decode(released, P)[0]), P.g)


def analyze_many(y, plan, rng=None) -> np.ndarray:
    """:func:`analyze` for many batches at once: ``y`` is an integer array (any shape) of
    secure-computation outputs in Z_m, one per batch; returns z as float64 of the same
    shape (under central trust one central noise draw per entry)."""
    P = protocol_params(plan)
    arr = check_messages(y, P.m, "y")
    released, _ = _release(arr, P, as_rng(rng, secure=True))
    z = _decode(released, P)
    if z.dtype == object or P.g >= 2**53 or P.m >= INT64_MODULUS_LIMIT:
        out = np.empty(z.shape, dtype=np.float64)
        out.ravel()[:] = [float(Fraction(int(v), P.g)) for v in z.ravel()]
        return out
    return z.astype(np.float64) / P.g
