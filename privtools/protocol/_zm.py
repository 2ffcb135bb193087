"""Arithmetic in Z_m = {0, ..., m − 1}, declared once for the protocol (R, S, A).

Every value of Z_m the protocol handles — a user's message, a mask, a share, a modular
sum — is represented in one of two ways, chosen by the modulus alone:

* ``m < INT64_LIMIT = 2**62``: numpy ``int64``. Two elements add to less than 2**63, so
  ``a + b`` and ``m − a`` never overflow; sums of many elements are reduced before they
  could (:func:`modular_sum`, :func:`grouped_sum`).
* ``m >= 2**62`` (up to :data:`privtools.limits.M`, m <= 2**64): Python ints in numpy
  ``object`` arrays — exact, slower.

An object array is accepted (and kept as Python ints) for any m. Contracts below say
"in Z_m" for inputs that must already lie in [0, m): they are not checked here (see
:func:`privtools.protocol.randomizer.check_messages`). Every output lies in [0, m).

Not here: the prime field of Shamir sharing (``_shamir``: a fixed p < 2**31, float64 block
products) and the exact law of the wrapped sum (:func:`privtools.exact.wrap`, a PMF, not
array arithmetic).
"""

from __future__ import annotations

import numpy as np

__all__ = [
    "INT64_LIMIT",
    "is_small",
    "reduce",
    "add",
    "sub",
    "neg",
    "add_noise",
    "modular_sum",
    "sum_int",
    "grouped_sum",
    "wide_word_bits",
    "rejection_limit",
    "uniform",
]

#: Moduli below this bound are held in int64; at or above it, in Python ints.
INT64_LIMIT = 2**62
# add_noise touches only the non-zero shares when at most 1/8 of at least this many are
# non-zero (Theorem 1 shares at large n: a handful per batch).
_SPARSE_MIN_SIZE = 4096


def is_small(m: int) -> bool:
    """Whether elements of Z_m are held in int64 (``m < 2**62``)."""
    return m < INT64_LIMIT


def reduce(a: np.ndarray, m: int) -> np.ndarray:
    """a mod m elementwise for any integers ``a`` (int64 or object array): int64 when
    m < 2**62 and ``a`` is int64 (floor modulo of int64 by m cannot overflow), else Python
    ints. Output in [0, m)."""
    if not is_small(m) or a.dtype == object:
        return np.asarray(a, dtype=object) % m
    return a % m


def add(a, b, m: int):
    """(a + b) mod m elementwise for a, b in Z_m of the same representation (int64 when
    m < 2**62: a + b < 2m < 2**63, no overflow; Python ints otherwise); scalars too."""
    return (a + b) % m


def sub(a, b, m: int):
    """(a − b) mod m elementwise for a, b in Z_m (|a − b| < m: no overflow); scalars too.
    Output in [0, m) (floor modulo)."""
    return (a - b) % m


def neg(a, m: int):
    """(−a) mod m elementwise for a in Z_m: m − a for a > 0, 0 for a = 0 (m − a <= m, no
    overflow)."""
    return (m - a) % m


def add_noise(a: np.ndarray, eta: np.ndarray, m: int) -> np.ndarray:
    """(a + η) mod m for a in Z_m and η *any* integers (noise shares).

    int64 without overflow when m < 2**62 and both arrays are int64: η is reduced first
    (``np.mod(η, m)`` of two int64 numbers is exact), then a + (η mod m) < 2m < 2**63, and
    one subtraction of m lands in [0, m). Mostly-zero η (at least 4096 entries, at most 1/8
    non-zero) touch only the non-zero entries. Python ints in an object array when
    m >= 2**62 or either input is an object array.
    """
    if not is_small(m) or a.dtype == object or eta.dtype == object:
        return (np.asarray(a, dtype=object) + np.asarray(eta, dtype=object)) % m
    if eta.size >= _SPARSE_MIN_SIZE and 8 * np.count_nonzero(eta) <= eta.size:
        # mostly zero shares (Theorem 1 at large n): y = a except where η != 0
        nz = np.flatnonzero(eta != 0)
        out = np.array(a, dtype=np.int64)
        flat = out.reshape(-1)
        flat[nz] = add_noise(flat[nz], eta.reshape(-1)[nz], m)
        return out
    out = np.mod(eta, m)
    out += a
    np.subtract(out, m, out=out, where=out >= m)
    return out


def modular_sum(values, m: int, axis: int = -1):
    """(Σ values) mod m along ``axis``, exact, for values already in Z_m.

    int64 inputs are summed in blocks of at most ⌊(2**63 − 1)/(m − 1)⌋ terms, each block
    reduced mod m before the blocks are summed, so no partial sum leaves int64; object
    arrays (Python ints) are summed exactly. Returns an int64 array / numpy scalar, or
    Python ints for object input. The values are not checked here (see
    :func:`~privtools.protocol.randomizer.check_messages`).
    """
    arr = np.asarray(values)
    if arr.dtype == object:
        return np.sum(arr, axis=axis) % m
    arr = np.moveaxis(arr, axis, -1)
    block = (2**63 - 1) // (m - 1) if m > 1 else arr.shape[-1] + 1
    while arr.shape[-1] > block:
        length = arr.shape[-1]
        pad = (-length) % block
        if pad:
            arr = np.concatenate([arr, np.zeros(arr.shape[:-1] + (pad,), arr.dtype)], axis=-1)
        arr = arr.reshape(arr.shape[:-1] + (-1, block)).sum(axis=-1) % m
    return arr.sum(axis=-1) % m


def sum_int(values: np.ndarray, m: int) -> int:
    """Σ values mod m of a 1-D array of elements of Z_m as a Python int in [0, m) (0 for no
    values); exact for int64 (via :func:`modular_sum`) and object arrays."""
    if values.size == 0:
        return 0
    return int(modular_sum(values, m))


def grouped_sum(idx: np.ndarray, values: np.ndarray, n: int, m: int,
                small: bool) -> np.ndarray:
    """out[u] = Σ_{k: idx[k] = u} values[k] mod m for u in [0, n), exact, for values in Z_m.

    ``small`` (values int64 and m < 2**62, at most 2**32 terms per group): each value is
    split into 31-bit halves whose group sums stay far below 2**63; the halves are
    recombined in Python ints and the result is int64. Otherwise Python ints throughout,
    an object array.
    """
    if small:
        lo = np.zeros(n, dtype=np.int64)
        hi = np.zeros(n, dtype=np.int64)
        np.add.at(lo, idx, values & ((1 << 31) - 1))
        np.add.at(hi, idx, values >> 31)
        out = (hi.astype(object) * (1 << 31) + lo.astype(object)) % m
        return out.astype(np.int64)
    out = [0] * n
    for u, v in zip(idx.tolist(), values):
        out[u] += v
    res = np.empty(n, dtype=object)
    res[:] = [v % m for v in out]
    return res


def wide_word_bits(m: int) -> int:
    """Bits of one random word for drawing an element of Z_m by rejection when m >= 2**62:
    bitlen(m) + 64 rounded up to whole bytes (a word is rejected with probability
    < m/2**W < 2**-64)."""
    return 8 * -(-(m.bit_length() + 64) // 8)


def rejection_limit(word_bits: int, m: int) -> int:
    """The largest multiple of m not above 2**word_bits: 2**W − (2**W mod m). A uniform
    W-bit word w accepted when w < limit gives w mod m exactly uniform on Z_m (each residue
    has limit/m accepted preimages)."""
    return (1 << word_bits) - (1 << word_bits) % m


def uniform(gen: np.random.Generator, m: int, size: tuple[int, ...]) -> np.ndarray:
    """Uniform elements of Z_m of shape ``size``, exactly uniform: int64 via
    ``Generator.integers(0, m)`` when m < 2**62; otherwise an object array of Python ints
    by rejection from little-endian words of :func:`wide_word_bits` bits read from
    ``gen.bytes`` (:func:`rejection_limit`)."""
    if is_small(m):
        return gen.integers(0, m, size=size, dtype=np.int64)
    nbytes = wide_word_bits(m) // 8
    limit = rejection_limit(8 * nbytes, m)
    count = int(np.prod(size, dtype=np.int64))
    out = []
    while len(out) < count:
        raw = gen.bytes(nbytes * (count - len(out)))
        for k in range(0, len(raw), nbytes):
            w = int.from_bytes(raw[k:k + nbytes], "little")
            if w < limit:
                out.append(w % m)
    arr = np.empty(count, dtype=object)
    arr[:] = out
    return arr.reshape(size)
