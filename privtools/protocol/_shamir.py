"""Shamir secret sharing of byte strings, vectorized over many secrets and holders.

Shamir 1979 ("How to share a secret"), as used for dropout recovery by Bonawitz et al.
2017 (CCS '17, "Practical Secure Aggregation for Privacy-Preserving Machine Learning").

A secret of L bytes is read as a little-endian integer and cut into c = ⌈8L/20⌉ chunks of
20 bits. Each chunk is shared on its own over the prime field F_p, p = 2**20 + 7, with a
fresh uniformly random polynomial of degree t − 1 whose constant term is the chunk; holder
h (h = 0, 1, ...) receives the evaluations at x = h + 1. Any t holders recover every chunk
by Lagrange interpolation at 0. Any t − 1 evaluations of one polynomial are jointly
uniform on F_p^(t−1) whatever its constant term, and the polynomials of different chunks
are independent, so t − 1 holders learn nothing about the secret (perfect secrecy, chunk by
chunk). A chunk is below 2**20 < p, so chunking loses nothing.

Why a small field: every product of two field elements is below 2**41, so evaluating all
users' polynomials at all points is one matrix product computed exactly in float64 (BLAS):
a block of at most B = ⌊(2**53 − 1)/(p − 1)**2⌋ = 8191 products sums to an integer below
2**53, which float64 holds exactly whatever the order of summation, and is reduced mod p
before the next block is added. The field has p − 1 = 1048582 nonzero points, which bounds
the number of holders.
"""

from __future__ import annotations

import os
from collections.abc import Callable

import numpy as np

from privtools.errors import ParameterError

__all__ = [
    "PRIME",
    "CHUNK_BITS",
    "MAX_HOLDERS",
    "n_chunks",
    "share_bytes",
    "secrets_to_chunks",
    "chunks_to_secrets",
    "share",
    "reconstruct",
    "lagrange_at_zero",
    "matmul_mod",
    "uniform_field",
]

PRIME = 2**20 + 7
CHUNK_BITS = 20
MAX_HOLDERS = PRIME - 1
# Products summed per float64 block: block * (p - 1)**2 < 2**53.
_BLOCK = (2**53 - 1) // (PRIME - 1) ** 2
# Output columns per block of the matrix product (bounds the float64 temporaries).
_COLS = 4096
# 32-bit words below _WORD_LIMIT are reduced mod p without bias (rejection sampling).
_WORD_LIMIT = 2**32 - (2**32 % PRIME)


def n_chunks(nbytes: int) -> int:
    """Chunks of CHUNK_BITS bits needed for a secret of ``nbytes`` bytes."""
    return -(-8 * nbytes // CHUNK_BITS)


def share_bytes(nbytes: int) -> int:
    """Bytes of one holder's share of a secret of ``nbytes`` bytes (one field element of
    ⌈log2 p / 8⌉ = 3 bytes per chunk)."""
    return n_chunks(nbytes) * -(-(PRIME - 1).bit_length() // 8)


def secrets_to_chunks(secrets: np.ndarray) -> np.ndarray:
    """(s, L) uint8 secrets -> (s, c) int64 chunks, little-endian, 20 bits each."""
    s, nbytes = secrets.shape
    c = n_chunks(nbytes)
    bits = np.unpackbits(np.ascontiguousarray(secrets, dtype=np.uint8), axis=1,
                         bitorder="little")
    padded = np.zeros((s, c * CHUNK_BITS), dtype=np.int64)
    padded[:, :bits.shape[1]] = bits
    weights = np.int64(1) << np.arange(CHUNK_BITS, dtype=np.int64)
    return padded.reshape(s, c, CHUNK_BITS) @ weights


def chunks_to_secrets(chunks: np.ndarray, nbytes: int) -> np.ndarray | None:
    """Inverse of :func:`secrets_to_chunks`; None if some chunk is not a valid encoding
    of an ``nbytes``-byte secret (a chunk >= 2**20 or bits beyond 8·nbytes set), which
    happens only when shares were corrupted."""
    chunks = np.asarray(chunks, dtype=np.int64)
    if chunks.size and (chunks.min() < 0 or chunks.max() >= 1 << CHUNK_BITS):
        return None
    s = chunks.shape[0]
    bits = (chunks[:, :, None] >> np.arange(CHUNK_BITS, dtype=np.int64)) & 1
    bits = bits.reshape(s, -1)
    if bits[:, 8 * nbytes:].any():
        return None
    return np.packbits(bits[:, :8 * nbytes].astype(np.uint8), axis=1, bitorder="little")


def uniform_field(count: int, random_bytes: Callable[[int], bytes] = os.urandom) -> np.ndarray:
    """``count`` independent uniform elements of F_p (int64) from ``random_bytes``.

    Little-endian 32-bit words w are accepted when w < 2**32 − (2**32 mod p), and then
    w mod p is uniform on F_p exactly (each residue has the same number of accepted
    preimages); rejected words (probability < p/2**32 < 2**-11 each) are replaced by
    fresh ones.
    """
    out = np.empty(count, dtype=np.int64)
    filled = 0
    while filled < count:
        need = count - filled
        want = need + need // 256 + 16
        words = np.frombuffer(random_bytes(4 * want), dtype="<u4")
        good = words[words < _WORD_LIMIT][:need]
        out[filled:filled + good.size] = good.astype(np.int64) % PRIME
        filled += good.size
    return out


def matmul_mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """(a @ b) mod p, exact, for int64 matrices with entries in [0, p).

    Blocks of at most 8191 products are summed in float64 (exact: every partial sum is an
    integer below 2**53) and reduced mod p between blocks.
    """
    a = np.asarray(a, dtype=np.int64)
    b = np.asarray(b, dtype=np.int64)
    r, k = a.shape
    k2, q = b.shape
    if k != k2:
        raise ParameterError(f"shapes {a.shape} and {b.shape} do not align")
    out = np.zeros((r, q), dtype=np.int64)
    af = a.astype(np.float64)
    for c0 in range(0, q, _COLS):
        c1 = min(q, c0 + _COLS)
        acc = np.zeros((r, c1 - c0), dtype=np.int64)
        for k0 in range(0, k, _BLOCK):
            k1 = min(k, k0 + _BLOCK)
            part = af[:, k0:k1] @ b[k0:k1, c0:c1].astype(np.float64)
            acc += part.astype(np.int64) % PRIME
            acc %= PRIME
        out[:, c0:c1] = acc
    return out


def _powers(xs: np.ndarray, t: int) -> np.ndarray:
    """(len(xs), t) matrix of xs**j mod p, j = 0..t−1."""
    V = np.empty((xs.size, t), dtype=np.int64)
    V[:, 0] = 1
    for j in range(1, t):
        V[:, j] = V[:, j - 1] * xs % PRIME
    return V


def share(chunks: np.ndarray, threshold: int, n_holders: int,
          random_bytes: Callable[[int], bytes] = os.urandom) -> np.ndarray:
    """Shares of s secrets given as (s, c) chunks, for holders 0..n_holders−1.

    Returns a (n_holders, s, c) uint32 array: entry [h, i, j] is holder h's share of chunk
    j of secret i, the value at x = h + 1 of a polynomial of degree ``threshold`` − 1 with
    constant term chunks[i, j] and the other coefficients uniform on F_p (drawn from
    ``random_bytes``, a cryptographic source in deployment).
    """
    s, c = chunks.shape
    if not 1 <= threshold <= n_holders <= MAX_HOLDERS:
        raise ParameterError(f"need 1 <= threshold <= n_holders <= {MAX_HOLDERS}, got "
                             f"threshold={threshold}, n_holders={n_holders}")
    coeffs = np.empty((threshold, s * c), dtype=np.int64)
    coeffs[0] = chunks.ravel()
    if threshold > 1:
        coeffs[1:] = uniform_field((threshold - 1) * s * c, random_bytes).reshape(
            threshold - 1, s * c)
    xs = np.arange(1, n_holders + 1, dtype=np.int64)
    out = matmul_mod(_powers(xs, threshold), coeffs)
    return out.astype(np.uint32).reshape(n_holders, s, c)


def _inverse(a: np.ndarray) -> np.ndarray:
    """Elementwise a**(p−2) mod p (Fermat), for nonzero a in F_p."""
    result = np.ones_like(a)
    base = a % PRIME
    e = PRIME - 2
    while e:
        if e & 1:
            result = result * base % PRIME
        base = base * base % PRIME
        e >>= 1
    return result


def lagrange_at_zero(xs) -> np.ndarray:
    """Lagrange coefficients λ_h = Π_{h'≠h} x_h' / (x_h' − x_h) mod p, so that
    f(0) = Σ_h λ_h f(x_h) for every polynomial f of degree < len(xs). ``xs``: distinct
    nonzero points of F_p."""
    xs = np.asarray(xs, dtype=np.int64)
    if xs.size == 0 or xs.min() < 1 or xs.max() >= PRIME or np.unique(xs).size != xs.size:
        raise ParameterError("interpolation points must be distinct elements of 1..p-1")
    num = np.ones(xs.size, dtype=np.int64)
    den = np.ones(xs.size, dtype=np.int64)
    for k in range(xs.size):
        d = (xs[k] - xs) % PRIME
        d[k] = 1
        x = np.full(xs.size, xs[k], dtype=np.int64)
        x[k] = 1
        den = den * d % PRIME
        num = num * x % PRIME
    return num * _inverse(den) % PRIME


def reconstruct(shares: np.ndarray, holders) -> np.ndarray:
    """Chunks (s, c) from the shares (t, s, c) of holders ``holders`` (indices 0.., i.e.
    points x = holder + 1), by Lagrange interpolation at 0."""
    shares = np.asarray(shares, dtype=np.int64)
    t, s, c = shares.shape
    lam = lagrange_at_zero(np.asarray(holders, dtype=np.int64) + 1)
    return matmul_mod(lam[None, :], shares.reshape(t, s * c)).reshape(s, c)
