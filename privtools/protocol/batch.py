"""One batch of paper 000's protocol P = (R, S, A), end to end (000 Alg. 1, lines 6–12).

    rewards x → R (Alg. 2 / 4 / 6) → messages in Z_m → S (secure sum, or shuffle) → ŷ
              → A (Alg. 3 / 5 / 7) → z, the noisy estimate of Σ x_i

:func:`run_batch` runs one batch through a secure-computation object (default: the ideal
SecAgg) and returns every intermediate quantity; :func:`run_batches` runs B independent
batches of the same plan at once, fully vectorized, with the ideal modular sum as S (its
output is by definition the one every correct SecAgg returns).

Trust models: distributed (Theorems 1–4) — users add shares, S sums mod m; central
(Theorem 5) — users send x̂, the analyzer adds ``plan.central_noise`` to the secure sum;
local (Theorem 6) — users add the full noise and the server receives every message in the
clear and sums them mod m (a secure computation may still be passed explicitly).
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng

from .analyzer import _decode, _release, modular_sum
from .randomizer import _randomize_parts, check_rewards, protocol_params
from .secure import IdealSecAgg

__all__ = ["BatchResult", "BatchesResult", "run_batch", "run_batches", "exact_sum"]

# Rows of a (B, n) matrix handled at once by run_batches: at most this many entries.
_CHUNK_ENTRIES = 1 << 23


@dataclass(frozen=True)
class BatchResult:
    """Everything one batch produced.

    ``estimate`` z (the analyzer's output, an exact Fraction) and ``z_int`` = g·z;
    ``y`` the modular sum the analyzer decoded (under central trust: after adding the
    central noise, 000 Alg. 5 line 4); ``encoded_sum`` S = Σ x̂_i; ``noise`` N, the total
    noise added (Σ η_i, or the central η), as an unreduced integer; ``true_sum`` Σ x_i and
    ``error`` = estimate − true_sum, both exact; ``messages`` the users' messages in Z_m;
    ``secure_output`` what the secure computation returned (None when the server summed
    the messages itself, local trust). Arrays are read-only.
    """

    estimate: Fraction
    z_int: int
    y: int
    encoded_sum: int
    noise: int
    true_sum: Fraction
    error: Fraction
    messages: np.ndarray
    secure_output: object | None

    @property
    def decoded_exactly(self) -> bool:
        """True when the analyzer recovered S + N exactly (always when |N| <= τ)."""
        return self.z_int == self.encoded_sum + self.noise


@dataclass(frozen=True)
class BatchesResult:
    """B independent batches (arrays of length B): ``estimate`` z as float64, and exactly
    ``z_int``, ``y``, ``encoded_sum``, ``noise`` (int64 when m < 2**62, else Python ints);
    ``true_sum`` Σ x_i per batch as float64 (``np.sum``, rounded). An array holds Python
    ints (object dtype) where a value could not be held in int64 (m >= 2**62, or a noise
    total beyond int64). Arrays are read-only."""

    estimate: np.ndarray
    z_int: np.ndarray
    y: np.ndarray
    encoded_sum: np.ndarray
    noise: np.ndarray
    true_sum: np.ndarray

    @property
    def decoded_exactly(self) -> np.ndarray:
        """Per batch: g·z == S + N (always when |N| <= τ)."""
        return np.asarray(self.z_int == self.encoded_sum + self.noise, dtype=bool)

    @property
    def error(self) -> np.ndarray:
        """estimate − true_sum per batch (float64)."""
        return self.estimate - self.true_sum


def exact_sum(x) -> Fraction:
    """Σ x exactly for float64 entries in [0, 1], as a Fraction (vectorized).

    Each entry is M·2**(e−53) with an integer mantissa M < 2**53 (``np.frexp``). M is split
    into 26-bit halves whose sums per exponent are formed by ``np.bincount`` in float64;
    every partial sum is an integer below 2**26·2**27 = 2**53 (chunks of at most 2**26
    entries), hence exact.
    """
    flat = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
    total = Fraction(0)
    chunk = 1 << 26
    for s in range(0, flat.size, chunk):
        part = flat[s:s + chunk]
        mant, exp = np.frexp(part)
        M = np.ldexp(mant, 53).astype(np.int64)
        e0 = int(exp.min())
        idx = (exp - e0).astype(np.intp)
        hi = np.bincount(idx, weights=(M >> 26).astype(np.float64))
        lo = np.bincount(idx, weights=(M & ((1 << 26) - 1)).astype(np.float64))
        for j in np.flatnonzero((hi != 0) | (lo != 0)):
            v = (int(hi[j]) << 26) + int(lo[j])
            total += Fraction(v) * Fraction(2) ** (int(j) + e0 - 53)
    return total


def _int_sum(a: np.ndarray, axis: int = -1):
    """Exact sum of integers along ``axis``: int64 when no partial sum can overflow
    (count·max|a| < 2**63), else Python ints."""
    if a.dtype == object:
        return np.sum(a, axis=axis)
    if a.size:
        bound = max(int(a.max()), -int(a.min()))
        if bound * a.shape[axis] >= 2**63:
            return np.sum(a.astype(object), axis=axis)
    return a.sum(axis=axis)


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


def _default_secure():

    return IdealSecAgg()


def run_batch(x, plan, rng=None, secure=None) -> BatchResult:
    """Run one batch of the protocol on rewards ``x`` (shape (n,), each in [0, 1]).

    ``secure``: an object with ``run(messages, m, rng=...)`` returning an output with a
    ``total`` in Z_m (``privtools.protocol.IdealSecAgg``, ``MaskedSecAgg``,
    ``ShuffleSecAgg``). Default: ``IdealSecAgg()`` under distributed and central trust;
    under local trust, the server's own modular sum of the messages it receives. Bad
    rewards, a bad plan or a total outside Z_m raise before any result is returned.
    """
    P = protocol_params(plan)
    xs = check_rewards(x, P.n, ndim=1)
    gen = as_rng(rng, secure=True)
    xhat, eta, msgs = _randomize_parts(xs, P, gen)
    if secure is None and P.trust == "local":
        out = None
        total = int(modular_sum(msgs, P.m))
    else:
        sec = _default_secure() if secure is None else secure
        out = sec.run(msgs, P.m, rng=gen)
        total = out.total
        if isinstance(total, bool) or not isinstance(total, int | np.integer) \
                or not 0 <= total < P.m:
            raise ParameterError(f"secure computation returned total {total!r}, not an "
                                 f"element of Z_{P.m}")
        total = int(total)
    arr = np.array([total], dtype=object if P.big else np.int64)
    released, eta_c = _release(arr, P, gen)
    z_int = int(_decode(released, P)[0])
    noise = int(eta_c[0]) if eta is None else int(_int_sum(eta))
    estimate = Fraction(z_int, P.g)
    true_sum = exact_sum(xs)
    return BatchResult(estimate=estimate, z_int=z_int, y=int(released[0]),
                       encoded_sum=int(_int_sum(xhat)), noise=noise, true_sum=true_sum,
                       error=estimate - true_sum, messages=_readonly(msgs), secure_output=out)


def run_batches(X, plan, rng=None) -> BatchesResult:
    """B independent batches at once: ``X`` has shape (B, n), one batch of rewards per row.

    Each row goes through R (000 Alg. 2 / 4 / 6), the ideal modular sum and A (Alg. 3 / 5
    / 7) exactly as :func:`run_batch` with the ideal SecAgg; rows are processed in chunks of
    at most 2**23 entries, all users of a chunk at once.
    """
    P = protocol_params(plan)
    xs = check_rewards(X, P.n, ndim=2)
    gen = as_rng(rng, secure=True)
    B = xs.shape[0]
    parts: dict[str, list[np.ndarray]] = {"z": [], "y": [], "S": [], "N": []}
    rows = max(1, _CHUNK_ENTRIES // P.n)
    for s in range(0, B, rows):
        xhat, eta, msgs = _randomize_parts(xs[s:s + rows], P, gen)
        total = np.asarray(modular_sum(msgs, P.m, axis=1),
                           dtype=object if P.big else np.int64)
        released, eta_c = _release(total, P, gen)
        parts["z"].append(_decode(released, P))
        parts["y"].append(released)
        parts["S"].append(np.asarray(_int_sum(xhat, axis=1)))
        parts["N"].append(np.asarray(eta_c if eta is None else _int_sum(eta, axis=1)))
    empty = np.zeros(0, dtype=object if P.big else np.int64)
    z_int, ys, enc, noise = (np.concatenate(parts[k]) if parts[k] else empty
                             for k in ("z", "y", "S", "N"))
    if P.big or P.g >= 2**53:
        estimate = np.array([float(Fraction(int(v), P.g)) for v in z_int], dtype=np.float64)
    else:
        estimate = z_int.astype(np.float64) / P.g
    arrays = (estimate, z_int, ys, enc, noise, xs.sum(axis=1))
    return BatchesResult(*(_readonly(a) for a in arrays))

