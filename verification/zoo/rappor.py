"""RAPPOR's client-side randomisation (Erlingsson, Pihur, Korolova, "RAPPOR: Randomized
Aggregatable Privacy-Preserving Ordinal Response", CCS 2014, Section 3, steps 1–3).

1. *Signal*: the value is hashed into a Bloom filter ``B`` of ``m`` bits by ``h`` hash
   functions.
2. *Permanent randomized response*: each bit becomes 1 with probability f/2, 0 with
   probability f/2, and keeps ``B_i`` otherwise.
3. *Instantaneous randomized response*: the reported bit is 1 with probability ``q`` if the
   permanent bit is 1, and ``p`` if it is 0.

As in the DP-Sniper benchmark every draw is a fresh client: the permanent response is drawn
anew each time. Per bit, steps 2 and 3 then compose into one Bernoulli — reported 1 with
probability ``q·(f/2 + (1-f)·B_i) + p·(1 - f/2 - (1-f)·B_i)`` — and the bits are independent
given ``B``: :func:`rappor` samples exactly that law (one uniform per bit);
:func:`one_time_rappor` stops after step 2 (probability ``f/2 + (1-f)·B_i``).

Hashing: hash function ``i`` (``i = 0..h-1``) is 32-bit MurmurHash3 (x86 variant) of the
UTF-8 text of the value with seed ``i``, read as a *signed* 32-bit integer and reduced
modulo ``m`` with Python's ``%`` (always in ``[0, m)``) — the positions the DP-Sniper
benchmark's ``mmh3`` hashing gives, re-implemented here from the public algorithm so the zoo
needs no extra package. Integral values are written without a decimal point (``1.0`` hashes
as ``"1"``), so int and float datasets agree. Collisions are kept: a value may set fewer
than ``h`` bits.

Privacy, exactly: two values whose filters differ in bit ``i`` give that bit output laws
``p_i`` and ``p'_i``; the bits are independent, so the worst output is the bitwise worst
and ε(v, w) = max(Σ_i max_s ln(P_v(s)/P_w(s)), Σ_i max_s ln(P_w(s)/P_v(s))) —
:func:`rappor_epsilon`.
"""

from __future__ import annotations

import math
import operator
from functools import lru_cache

import numpy as np

from privtools.errors import ParameterError

from .simple import as_queries, check_size

__all__ = ["murmur3_32", "bloom_bits", "rappor", "one_time_rappor",
           "rappor_bit_probabilities", "rappor_epsilon"]

_MASK = 0xFFFFFFFF


def _rotl(x: int, r: int) -> int:
    return ((x << r) | (x >> (32 - r))) & _MASK


def murmur3_32(data: bytes, seed: int = 0) -> int:
    """32-bit MurmurHash3, x86 variant (Austin Appleby's public-domain algorithm), as an
    unsigned integer in ``[0, 2^32)``."""
    c1, c2 = 0xCC9E2D51, 0x1B873593
    h = seed & _MASK
    whole = len(data) - len(data) % 4
    for start in range(0, whole, 4):
        k = int.from_bytes(data[start:start + 4], "little")
        k = (_rotl((k * c1) & _MASK, 15) * c2) & _MASK
        h = (_rotl(h ^ k, 13) * 5 + 0xE6546B64) & _MASK
    tail = data[whole:]
    if tail:
        k = int.from_bytes(tail, "little")
        h ^= (_rotl((k * c1) & _MASK, 15) * c2) & _MASK
    h ^= len(data)
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & _MASK
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & _MASK
    return h ^ (h >> 16)


def _text(value) -> str:
    x = float(value)
    if not math.isfinite(x):
        raise ParameterError(f"dataset (the reported value) must be finite, got {value!r}")
    return str(int(x)) if x == int(x) else repr(x)


@lru_cache(maxsize=4096)
def _bloom(text: str, n_hashes: int, filter_size: int) -> tuple[int, ...]:
    data = text.encode("utf-8")
    positions = set()
    for i in range(n_hashes):
        h = murmur3_32(data, i)
        signed = h - (1 << 32) if h >= 1 << 31 else h
        positions.add(signed % filter_size)
    return tuple(sorted(positions))


def _shape(n_hashes, filter_size) -> tuple[int, int]:
    h, m = operator.index(n_hashes), operator.index(filter_size)
    if h < 1 or m < 1:
        raise ParameterError(f"n_hashes and filter_size must be >= 1, got {h} and {m}")
    return h, m


def bloom_bits(value, *, n_hashes: int = 4, filter_size: int = 20) -> np.ndarray:
    """The Bloom filter of ``value`` (step 1): a bool vector of ``filter_size`` bits."""
    h, m = _shape(n_hashes, filter_size)
    bits = np.zeros(m, dtype=bool)
    bits[list(_bloom(_text(value), h, m))] = True
    return bits


def _probability(name: str, x) -> float:
    v = float(x)
    if not 0.0 <= v <= 1.0:
        raise ParameterError(f"{name} must be a probability in [0, 1], got {x!r}")
    return v


def rappor_bit_probabilities(value, *, f: float = 0.75, p: float | None = 0.45,
                             q: float | None = 0.55, n_hashes: int = 4,
                             filter_size: int = 20) -> np.ndarray:
    """P[reported bit i = 1] for ``value``, per bit (float64, length ``filter_size``).
    ``p = q = None`` gives the permanent response alone (one-time RAPPOR)."""
    f = _probability("f", f)
    bloom = bloom_bits(value, n_hashes=n_hashes, filter_size=filter_size)
    permanent = np.where(bloom, 1.0 - f / 2.0, f / 2.0)
    if p is None and q is None:
        return permanent
    if p is None or q is None:
        raise ParameterError("p and q must both be given (or both None for one-time RAPPOR)")
    p, q = _probability("p", p), _probability("q", q)
    return q * permanent + p * (1.0 - permanent)


def rappor_epsilon(v, w, *, f: float = 0.75, p: float | None = 0.45, q: float | None = 0.55,
                   n_hashes: int = 4, filter_size: int = 20) -> float:
    """The exact worst-case ε between the report laws of values ``v`` and ``w``: the largest
    |log-likelihood ratio| over all bit vectors, summed bit by bit (the bits are
    independent). ``math.inf`` if some bit is certain under one value and not the other."""
    kw = dict(f=f, p=p, q=q, n_hashes=n_hashes, filter_size=filter_size)
    a, b = rappor_bit_probabilities(v, **kw), rappor_bit_probabilities(w, **kw)
    up = down = 0.0
    for x, y in zip(a.tolist(), b.tolist()):
        if x == y:
            continue
        ratios = []
        for px, py in ((x, y), (1.0 - x, 1.0 - y)):
            if px == 0.0 and py == 0.0:
                continue
            if px == 0.0 or py == 0.0:
                return math.inf
            ratios.append(math.log(px) - math.log(py))
        up += max(ratios)
        down += max(-r for r in ratios)
    return max(up, down)


def _sample(dataset, size, rng, probs_of) -> np.ndarray:
    n = check_size(size, rng)
    value = as_queries(dataset, length=1)[0]
    probs = probs_of(value)
    return rng.random((n, probs.size)) < probs


def rappor(dataset, size, rng, *, f: float = 0.75, p: float = 0.45, q: float = 0.55,
           n_hashes: int = 4, filter_size: int = 20) -> np.ndarray:
    """RAPPOR (Erlingsson et al. 2014, steps 1–3) on the one value in ``dataset``: bool
    ``(size, filter_size)`` reported bits, each draw a fresh client (module docstring)."""
    return _sample(dataset, size, rng, lambda v: rappor_bit_probabilities(
        v, f=f, p=p, q=q, n_hashes=n_hashes, filter_size=filter_size))


def one_time_rappor(dataset, size, rng, *, f: float = 0.95, n_hashes: int = 4,
                    filter_size: int = 20) -> np.ndarray:
    """One-time RAPPOR (Erlingsson et al. 2014, steps 1–2: the permanent randomized response
    reported directly): bool ``(size, filter_size)``."""
    return _sample(dataset, size, rng, lambda v: rappor_bit_probabilities(
        v, f=f, p=None, q=None, n_hashes=n_hashes, filter_size=filter_size))
