"""Seeds and masks of masked secure aggregation: X25519 → HKDF-SHA256 → ChaCha20 → Z_m.

Following Bonawitz et al. 2017 (CCS '17, "Practical Secure Aggregation for
Privacy-Preserving Machine Learning"), the pairwise mask of users i < j is
PRG(s_ij) where s_ij is agreed by Diffie–Hellman; here:

* key agreement: X25519 (RFC 7748) through ``cryptography``;
* seed: HKDF-SHA256 (RFC 5869) of the 32-byte shared secret, no salt, with
  ``info = LABEL || "pair" || session id || i || j`` (i < j, 4-byte big-endian), so a seed
  is bound to one session and one unordered pair; the self-mask seed b_i of double
  masking goes through the same HKDF with ``info = LABEL || "self" || session id || i``.
  HKDF is written out with ``hmac.digest`` (extract, then one expand block); a test checks
  it against ``cryptography``'s HKDF;
* PRG: the ChaCha20 keystream (RFC 8439) under the 32-byte seed, block counter from 0,
  nonce 0 — safe because every seed keys exactly one keystream. :func:`chacha20_stream`
  computes the keystreams of many seeds at once with numpy (the 20 rounds on uint32
  arrays, one lane per seed and block); tests check it byte for byte against
  ``cryptography``'s ChaCha20 (:func:`keystream`, OpenSSL);
* keystream → Z_m by rejection sampling (:class:`MaskSampler`), exactly uniform.

Each seed's keystream yields all the bytes that seed needs in one pass, and the bytes of
all seeds are converted to masks with numpy in one pass (int64 when m < 2**62, Python
ints above).
"""

from __future__ import annotations

import hmac
import math
from dataclasses import dataclass

import numpy as np
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers import Cipher, algorithms

from . import _zm as zm

__all__ = [
    "LABEL",
    "INT64_LIMIT",
    "MaskSampler",
    "pair_info",
    "self_info",
    "derive_seed",
    "keystream",
    "chacha20_stream",
    "masks_from_seeds",
    "pair_masks",
]

LABEL = b"privtools/secagg/v1/"
# Moduli below this are handled in int64 (values < 2**62 leave room for one addition);
# declared in _zm with the rest of the arithmetic of Z_m.
INT64_LIMIT = zm.INT64_LIMIT
_NONCE = bytes(16)  # cryptography's ChaCha20 nonce: 4-byte counter || 12-byte nonce
# A pair draws enough candidate words that all are rejected with probability <= 2**-40;
# the rare pair that still has none reads further along its own keystream.
_FALLBACK_LOG2 = 40
_ZERO_SALT = bytes(32)
# "expand 32-byte k"
_SIGMA = (0x61707865, 0x3320646E, 0x79622D32, 0x6B206574)
# Below this many seeds one ``cryptography`` call per seed is faster than the numpy rounds
# (whose fixed cost is ~1000 array operations); both give the same bytes.
_VECTOR_MIN_SEEDS = 256


def pair_info(session: bytes, i: int, j: int) -> bytes:
    """HKDF ``info`` of the pair {i, j} (written with i < j) in session ``session``."""
    if i > j:
        i, j = j, i
    return LABEL + b"pair" + session + i.to_bytes(4, "big") + j.to_bytes(4, "big")


def self_info(session: bytes, i: int) -> bytes:
    """HKDF ``info`` of user i's self-mask in session ``session``."""
    return LABEL + b"self" + session + i.to_bytes(4, "big")


def derive_seed(secret: bytes, info: bytes) -> bytes:
    """HKDF-SHA256(IKM = secret, salt = none (32 zero bytes), info), 32 bytes (RFC 5869:
    PRK = HMAC(salt, IKM); OKM = T(1) = HMAC(PRK, info || 0x01))."""
    prk = hmac.digest(_ZERO_SALT, secret, "sha256")
    return hmac.digest(prk, info + b"\x01", "sha256")


def keystream(seed: bytes, nbytes: int) -> bytes:
    """The first ``nbytes`` bytes of the ChaCha20 keystream under ``seed``, through
    ``cryptography`` (OpenSSL); the reference for :func:`chacha20_stream`."""
    enc = Cipher(algorithms.ChaCha20(seed, _NONCE), mode=None).encryptor()
    return enc.update(bytes(nbytes))


def _rotl(v: np.ndarray, r: int, tmp: np.ndarray) -> None:
    np.left_shift(v, r, out=tmp)
    np.right_shift(v, 32 - r, out=v)
    np.bitwise_or(v, tmp, out=v)


def chacha20_stream(seeds: list[bytes], offset: int, nbytes: int) -> np.ndarray:
    """Bytes [offset, offset + nbytes) of the ChaCha20 keystream of every 32-byte seed
    (counter from 0, nonce 0), as a (len(seeds), nbytes) uint8 array. Vectorized: the
    ChaCha20 block function (RFC 8439 §2.3) runs on uint32 arrays holding one lane per
    (seed, block); uint32 additions wrap mod 2**32 as the cipher requires. Fewer than 256
    seeds go through :func:`keystream` one by one instead (same bytes, less overhead)."""
    P = len(seeds)
    first, last = offset // 64, -(-(offset + nbytes) // 64)
    nb = max(0, last - first)
    if P == 0 or nbytes == 0:
        return np.zeros((P, nbytes), dtype=np.uint8)
    if P < _VECTOR_MIN_SEEDS:
        raw = b"".join([keystream(s, offset + nbytes)[offset:] for s in seeds])
        return np.frombuffer(raw, dtype=np.uint8).reshape(P, nbytes)
    keys = np.frombuffer(b"".join(seeds), dtype="<u4").reshape(P, 8).astype(np.uint32)
    lanes = P * nb
    init = [np.full(lanes, c, dtype=np.uint32) for c in _SIGMA]
    init += [np.repeat(keys[:, w], nb) for w in range(8)]
    init.append(np.tile(np.arange(first, last, dtype=np.uint32), P))
    init += [np.zeros(lanes, dtype=np.uint32) for _ in range(3)]
    x = [a.copy() for a in init]
    tmp = np.empty(lanes, dtype=np.uint32)

    def qr(a, b, c, d):
        np.add(x[a], x[b], out=x[a])
        np.bitwise_xor(x[d], x[a], out=x[d])
        _rotl(x[d], 16, tmp)
        np.add(x[c], x[d], out=x[c])
        np.bitwise_xor(x[b], x[c], out=x[b])
        _rotl(x[b], 12, tmp)
        np.add(x[a], x[b], out=x[a])
        np.bitwise_xor(x[d], x[a], out=x[d])
        _rotl(x[d], 8, tmp)
        np.add(x[c], x[d], out=x[c])
        np.bitwise_xor(x[b], x[c], out=x[b])
        _rotl(x[b], 7, tmp)

    for _ in range(10):
        qr(0, 4, 8, 12)
        qr(1, 5, 9, 13)
        qr(2, 6, 10, 14)
        qr(3, 7, 11, 15)
        qr(0, 5, 10, 15)
        qr(1, 6, 11, 12)
        qr(2, 7, 8, 13)
        qr(3, 4, 9, 14)
    out = np.empty((lanes, 16), dtype="<u4")
    for w in range(16):
        np.add(x[w], init[w], out=out[:, w])
    stream = out.view(np.uint8).reshape(P, nb * 64)
    start = offset - 64 * first
    return stream[:, start:start + nbytes]


@dataclass(frozen=True)
class MaskSampler:
    """Uniform elements of Z_m from keystream bytes, by rejection sampling.

    The keystream is read as little-endian words of ``word_bits`` bits: 64 when
    m < 2**62 (numpy uint64), otherwise bitlen(m) + 64 rounded up to whole bytes. A word w
    is accepted when w < limit = 2**W − (2**W mod m); the accepted words are uniform on
    [0, limit), and limit is a multiple of m, so w mod m is *exactly* uniform on Z_m (each
    residue has limit/m accepted preimages). The first accepted word of a seed's stream is
    its mask. A word is rejected with probability r = (2**W mod m)/2**W < m/2**W (< 1/4
    for the int64 path, < 2**-64 otherwise); ``candidates`` words per seed are read at
    once, enough that all are rejected with probability r**candidates <= 2**-40, and a
    seed whose candidates are all rejected continues along its own keystream, so the
    result is exact and does not depend on the number of candidates.
    """

    m: int
    word_bits: int
    candidates: int

    @classmethod
    def for_modulus(cls, m: int, word_bits: int | None = None) -> MaskSampler:
        if word_bits is None:
            word_bits = 64 if zm.is_small(m) else zm.wide_word_bits(m)
        rem = (1 << word_bits) % m
        if rem == 0:
            cand = 1
        else:
            # smallest c with (rem / 2**W)**c <= 2**-40
            per = word_bits - math.log2(rem)
            cand = max(1, math.ceil(_FALLBACK_LOG2 / per))
        return cls(m, word_bits, cand)

    @property
    def limit(self) -> int:
        return zm.rejection_limit(self.word_bits, self.m)

    @property
    def word_bytes(self) -> int:
        return -(-self.word_bits // 8)

    @property
    def nbytes(self) -> int:
        """Keystream bytes read per seed in the first pass."""
        return self.word_bytes * self.candidates

    @property
    def small(self) -> bool:
        """True when masks are int64 (word_bits <= 64 and m < 2**62)."""
        return self.word_bits <= 64 and self.m < INT64_LIMIT

    def reduce(self, words) -> tuple[np.ndarray, np.ndarray]:
        """Masks from a (P, K) array of words (uint64 when ``small``, else Python ints):
        (masks, ok) where masks[p] is the first accepted word of row p mod m and ok[p]
        says whether row p had one (masks[p] is 0 otherwise)."""
        if self.small:
            words = np.asarray(words, dtype=np.uint64)
            if self.limit >= 1 << 64:
                accepted = np.ones(words.shape, dtype=bool)
            else:
                accepted = words < np.uint64(self.limit)
            first = accepted.argmax(axis=1)
            ok = accepted[np.arange(words.shape[0]), first]
            chosen = words[np.arange(words.shape[0]), first]
            masks = (chosen % np.uint64(self.m)).astype(np.int64)
            masks[~ok] = 0
            return masks, ok
        masks = np.zeros(len(words), dtype=object)
        ok = np.zeros(len(words), dtype=bool)
        limit, m = self.limit, self.m
        for p, row in enumerate(words):
            for w in row:
                if w < limit:
                    masks[p] = w % m
                    ok[p] = True
                    break
        return masks, ok

    def words(self, stream: np.ndarray):
        """Words of a (P, K·word_bytes) uint8 keystream array: (P, K) uint64 for 64-bit
        words, else a list of lists of Python ints."""
        count, nbytes = stream.shape
        per_seed = nbytes // self.word_bytes
        if self.word_bits == 64:
            return np.ascontiguousarray(stream).view("<u8").reshape(count, per_seed)
        wb = self.word_bytes
        rows = [bytes(r) for r in stream]
        return [[int.from_bytes(r[k * wb:(k + 1) * wb], "little") for k in range(per_seed)]
                for r in rows]

    def mask_reference(self, seed: bytes) -> int:
        """The mask of one seed, one word at a time (reference for tests)."""
        wb = self.word_bytes
        k = 0
        while True:
            k += 1
            stream = keystream(seed, wb * k)
            w = int.from_bytes(stream[wb * (k - 1):wb * k], "little")
            if w < self.limit:
                return w % self.m


def masks_from_seeds(seeds: list[bytes], sampler: MaskSampler) -> np.ndarray:
    """One mask in Z_m per 32-byte seed: int64 array when ``sampler.small``, else an
    object array of Python ints. One vectorized keystream pass over all seeds
    (``sampler.nbytes`` bytes each), then further words only for the seeds whose
    candidates were all rejected."""
    count = len(seeds)
    if count == 0:
        return np.zeros(0, dtype=np.int64 if sampler.small else object)
    stream = chacha20_stream(seeds, 0, sampler.nbytes)
    masks, ok = sampler.reduce(sampler.words(stream))
    k = sampler.candidates
    wb = sampler.word_bytes
    while not ok.all():
        bad = np.flatnonzero(~ok)
        more = chacha20_stream([seeds[p] for p in bad], wb * k, wb)
        m2, ok2 = sampler.reduce(sampler.words(more))
        masks[bad[ok2]] = m2[ok2]
        ok[bad[ok2]] = True
        k += 1
    return masks


def pair_masks(task) -> np.ndarray:
    """Masks of a list of pairs, computed on the side of the pairs' key owners.

    ``task = (session, m, owners, peers, public_keys)``: ``owners`` a list of
    (owner index, raw 32-byte X25519 private key), ``peers[r]`` the peer indices of owner
    r, ``public_keys`` the raw public keys of all users. For every (owner, peer) the owner
    computes s = X25519(sk_owner, pk_peer), seed = HKDF(s, pair_info(owner, peer)) and the
    mask PRG(seed) mod m. Returns the masks in the order of ``owners`` then ``peers``.
    A module-level function so that it can run in a worker process.
    """
    session, m, owners, peers, public_keys = task
    cache: dict[int, X25519PublicKey] = {}
    seeds = []
    for (owner, sk_raw), row in zip(owners, peers):
        sk = X25519PrivateKey.from_private_bytes(sk_raw)
        for peer in row:
            peer = int(peer)
            pk = cache.get(peer)
            if pk is None:
                pk = cache[peer] = X25519PublicKey.from_public_bytes(public_keys[peer])
            seeds.append(derive_seed(sk.exchange(pk), pair_info(session, owner, peer)))
    return masks_from_seeds(seeds, MaskSampler.for_modulus(m))
