"""The secure computation S of paper 000: three implementations behind one interface.

Paper 000 (§4 and Appendix C.2, F) treats S as a black box: users send y_i ∈ Z_m and the
server learns ŷ = (Σ y_i) mod m (SecAgg), or a shuffled multiset from which ŷ is the sum
mod m (secure shuffling). Every implementation here has

    run(messages, m, rng=None, *, dropouts=()) -> SecureOutput

where ``messages`` holds one element of Z_m per user (int64 when m < 2**62, Python ints
otherwise; anything else is rejected, never reduced), ``dropouts`` the users whose input
does not reach the server, and ``SecureOutput.total`` = Σ_{i not dropped} y_i mod m as an
exact Python int. ``view`` is what the server sees.

* :class:`IdealSecAgg` — the ideal functionality Σ of paper 000 (perfectly correct,
  perfectly secure): the view is the total alone.
* :class:`MaskedSecAgg` — pairwise additive masking with double masking and Shamir-shared
  keys for dropout recovery, after Bonawitz et al. 2017 (CCS '17, "Practical Secure
  Aggregation for Privacy-Preserving Machine Learning"), honest-but-curious variant.
* :class:`ShuffleSecAgg` — split-and-mix (Ishai, Kushilevitz, Ostrovsky, Sahai 2006,
  "Cryptography from anonymity"), analysed by Balle, Bell, Gascón, Nissim 2020 (CCS '20,
  "Private summation in the multi-message shuffle model") and Ghazi, Manurangsi, Pagh,
  Velingker 2020 (EUROCRYPT '20, "Private aggregation from fewer anonymous messages").
"""

from __future__ import annotations

import abc
import multiprocessing
import os
from collections.abc import Mapping
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar

import mpmath
import numpy as np
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey

from privtools.errors import CertificationError, ParameterError, ProtocolError
from privtools.validation import as_rng, check_int, check_positive_fraction

from . import _prg, _shamir
from . import _zm as zm
from .randomizer import check_messages

__all__ = [
    "SecureAggregator",
    "SecureOutput",
    "IdealSecAgg",
    "MaskedSecAgg",
    "MaskedView",
    "ShuffleSecAgg",
    "ProtocolError",
    "message_bytes",
]

INT64_LIMIT = zm.INT64_LIMIT
# Below this many pairwise key agreements a run stays in one process.
_PARALLEL_MIN_PAIRS = 20_000
_KEY_BYTES = 32


# ----------------------------------------------------------------- cryptographic sources
def _csprng_bytes(nbytes: int) -> bytes:
    """Cryptographic randomness (the OS CSPRNG): session ids, self-mask seeds, Shamir
    coefficients."""
    return os.urandom(nbytes)


def _generate_private_key() -> X25519PrivateKey:
    """A fresh X25519 key pair from the OS CSPRNG (``cryptography`` / OpenSSL)."""
    return X25519PrivateKey.generate()


# ----------------------------------------------------------------- validation
def message_bytes(m: int) -> int:
    """Bytes of one element of Z_m on the wire: ⌈⌈log2 m⌉ / 8⌉."""
    return max(1, -(-(m - 1).bit_length() // 8))


def _check_batch(messages, m) -> tuple[np.ndarray, int]:
    """(messages as int64 / object array, m); raises ParameterError naming the problem."""
    m = check_int("m", m, minimum=2)
    if isinstance(messages, (str, bytes)):
        raise ParameterError(f"messages must be a 1-D sequence of integers in Z_{m}, got "
                             f"{type(messages).__name__}")
    try:
        arr = messages if isinstance(messages, np.ndarray) else np.asarray(messages)
    except (ValueError, TypeError) as exc:
        raise ParameterError(f"messages must be a 1-D sequence of integers in Z_{m} "
                             f"({exc})") from exc
    if arr.ndim != 1:
        raise ParameterError(f"messages must be 1-D (one message per user), got shape "
                             f"{arr.shape}")
    if arr.size == 0:
        raise ParameterError("messages must hold at least one user's message")
    return check_messages(arr, m, "messages"), m


def _check_dropouts(dropouts, n: int) -> tuple[int, ...]:
    """Sorted tuple of distinct user indices in [0, n)."""
    if isinstance(dropouts, (str, bytes)) or not hasattr(dropouts, "__iter__"):
        raise ParameterError(f"dropouts must be a sequence of user indices, got "
                             f"{dropouts!r}")
    seen = set()
    for k, d in enumerate(dropouts):
        u = check_int(f"dropouts[{k}]", d, minimum=0, maximum=n - 1)
        if u in seen:
            raise ParameterError(f"dropouts lists user {u} more than once")
        seen.add(u)
    return tuple(sorted(seen))


def _readonly(a: np.ndarray) -> np.ndarray:
    a.setflags(write=False)
    return a


# ----------------------------------------------------------------- interface
@dataclass(frozen=True, eq=False)
class SecureOutput:
    """Result of one run of a secure computation.

    ``total``: Σ y_i mod m over the users whose input counts (all but ``dropped``), an
    exact Python int. ``view``: what the server sees (see each implementation).
    ``bytes_sent``: payload bytes uploaded by all users under the protocol's message
    formats (no transport or encryption overhead). ``protocol``: the implementation's name.
    Immutable (arrays in views are read-only); compared by identity, since views hold
    arrays.
    """

    total: int
    view: object
    n_users: int
    dropped: tuple[int, ...]
    bytes_sent: int
    protocol: str

    @property
    def n_counted(self) -> int:
        """Users whose input is in ``total``."""
        return self.n_users - len(self.dropped)


class SecureAggregator(abc.ABC):
    """The secure computation S of paper 000: ``run(messages, m, rng, dropouts=...)``.

    ``messages``: 1-D, one element of Z_m per user (numpy integer array, or a sequence /
    object array of Python ints for any m >= 2). ``rng`` (``np.random.Generator | int |
    None``) drives only the simulation's non-cryptographic choices. ``dropouts``: indices
    of users whose input never reaches the server (distinct, in [0, n)); their messages
    are still validated. Bad arguments raise :class:`ParameterError` before any work.
    """

    name: ClassVar[str] = "abstract"

    @abc.abstractmethod
    def run(self, messages, m: int, rng=None, *, dropouts=()) -> SecureOutput:
        """Run the protocol on one batch; see the class docstring."""


# ----------------------------------------------------------------- ideal
@dataclass(frozen=True)
class IdealSecAgg(SecureAggregator):
    """The ideal SecAgg functionality Σ of paper 000 (§4): the server learns
    ŷ = (Σ y_i) mod m and nothing else. ``view`` is ŷ itself. Vectorized and exact: int64
    messages are summed in blocks reduced mod m (never overflowing), Python ints exactly.
    """

    name: ClassVar[str] = "ideal"

    def run(self, messages, m: int, rng=None, *, dropouts=()) -> SecureOutput:
        y, m = _check_batch(messages, m)
        dropped = _check_dropouts(dropouts, y.size)
        as_rng(rng, secure=True)  # validated for interface uniformity; the ideal sum draws nothing
        if dropped:
            keep = np.ones(y.size, dtype=bool)
            keep[list(dropped)] = False
            y = y[keep]
        total = zm.sum_int(y, m)
        return SecureOutput(total, total, y.size + len(dropped), dropped,
                            y.size * message_bytes(m), self.name)


# ----------------------------------------------------------------- masked (Bonawitz)
@dataclass(frozen=True, eq=False)
class MaskedView:
    """What the server of :class:`MaskedSecAgg` sees.

    ``session_id``: the session's random identifier (bound into every HKDF ``info``).
    ``public_keys``: every user's X25519 public key (raw 32 bytes), as advertised.
    ``senders``: users whose masked message arrived (sorted). ``masked``: their masked
    messages y_i + PRG(b_i) + Σ_{j>i} PRG(s_ij) − Σ_{j<i} PRG(s_ij) mod m.
    ``self_mask_seeds``: b_i of every sender, reconstructed from the survivors' shares.
    ``dropped_private_keys``: the X25519 private key of every dropped user, reconstructed
    from the survivors' shares. ``pairwise_masked``: masked − PRG(b_i) mod m per sender,
    i.e. y_i + Σ_j ±PRG(s_ij), which the server can compute from the above.
    ``share_holders``: the t survivors whose shares the server interpolated.
    (Shamir shares travel between users through the server encrypted in a deployment;
    their ciphertexts are not part of this view.)
    """

    session_id: bytes
    public_keys: tuple[bytes, ...]
    senders: np.ndarray
    masked: np.ndarray
    self_mask_seeds: Mapping[int, bytes]
    dropped_private_keys: Mapping[int, bytes]
    pairwise_masked: np.ndarray
    share_holders: tuple[int, ...]


def _pool_context():
    methods = multiprocessing.get_all_start_methods()
    return multiprocessing.get_context("fork" if "fork" in methods else None)


def _balanced_tasks(session: bytes, m: int, rows, secret_keys, public_keys, n_tasks: int):
    """Group owner rows ``rows`` = [(owner, peers array), ...] into ``n_tasks`` tasks of
    about equal pair counts for :func:`_prg.pair_masks`."""
    total = sum(len(p) for _, p in rows)
    target = max(1, -(-total // n_tasks))
    tasks, owners, peers, count = [], [], [], 0
    for owner, row in rows:
        if len(row) == 0:
            continue
        owners.append((owner, secret_keys[owner]))
        peers.append(row)
        count += len(row)
        if count >= target:
            tasks.append((session, m, owners, peers, public_keys))
            owners, peers, count = [], [], 0
    if owners:
        tasks.append((session, m, owners, peers, public_keys))
    return tasks


def _run_pair_tasks(tasks, pool, sampler: _prg.MaskSampler) -> np.ndarray:
    results = list(pool.map(_prg.pair_masks, tasks)) if pool is not None \
        else [_prg.pair_masks(t) for t in tasks]
    if not results:
        return np.zeros(0, dtype=np.int64 if sampler.small else object)
    return np.concatenate(results)


@dataclass(frozen=True)
class MaskedSecAgg(SecureAggregator):
    """Masked secure aggregation with dropout recovery (Bonawitz et al. 2017, the
    honest-but-curious protocol with double masking), simulated in one process tree.

    Rounds (user u ∈ {0..n−1}; t = ``threshold``):

    0. *Advertise keys.* Each user generates an X25519 key pair (``cryptography``, OS
       CSPRNG) and publishes its public key. The session gets a random 32-byte id.
    1. *Share keys.* Each user draws a 32-byte self-mask seed b_u (OS CSPRNG) and
       Shamir-shares both its private key sk_u and b_u, threshold t, among all n users
       (itself included, as in Bonawitz et al.), over F_p with p = 2**20 + 7, 20-bit chunk
       by chunk (:mod:`privtools.protocol._shamir`; perfect secrecy against t − 1 holders).
    2. *Masked input.* Each pair i < j agrees s_ij = X25519(sk_i, pk_j) = X25519(sk_j, pk_i);
       seed = HKDF-SHA256(s_ij, info = label || session || i || j); mask = ChaCha20
       keystream → Z_m by rejection sampling (exactly uniform; :class:`_prg.MaskSampler`).
       The keystreams of all pairs are computed at once by a numpy ChaCha20 that tests
       check byte for byte against ``cryptography``'s (:mod:`privtools.protocol._prg`).
       User i sends x_i = y_i + PRG(b_i) + Σ_{j>i} mask_ij − Σ_{j<i} mask_ij mod m. The
       users in ``dropouts`` drop out here: they completed round 1, their x never arrives.
    3. *Unmasking.* The survivors S reveal, for each sender, its share of b_i and, for each
       dropped user, its share of sk_j (never both for one user). The server interpolates
       from t survivors (a subset chosen with ``rng``: the first t to answer), checks each
       reconstructed sk_j against the advertised pk_j, recomputes the masks between each
       dropped user and every survivor, and outputs
       Σ_{i∈S} x_i − Σ_{i∈S} PRG(b_i) − Σ_{i∈S, j∉S} ±mask_ij = Σ_{i∈S} y_i mod m.

    Up to n − t dropouts are recovered; more raise :class:`ProtocolError` (before any work,
    since ``dropouts`` is known up front). Security notes: against an honest-but-curious
    server colluding with fewer than t users, the server learns only Σ_{i∈S} y_i (each
    pairwise-masked message is uniform on Z_m, and any |S| − 1 of them jointly, given the
    PRG's security). Double masking is what protects a user whose message arrived late but
    whom a lying server declares dropped: to unmask x_i the server would need both b_i and
    sk_i, and honest survivors reveal only one of the two per user. Not modelled:
    authenticated encryption of the shares in transit, signatures and the consistency
    round of the actively secure variant (Bonawitz et al.'s "active adversary" setting), so
    this is the semi-honest protocol only.

    Simulation: all users live in one process tree and each pair's secret is computed
    *once* (by a surviving endpoint), not once per side — in a deployment each of the two
    users computes it, so a user's own cost is (n − 1) key agreements + PRG expansions
    (see ``benchmarks/bench_secagg.py``). The O(n²) pairwise work is spread over
    ``workers`` processes (default: all available cores when there are at least 20000
    pairs, else in-process; workers are forked where the platform allows); the result does
    not depend on the number of workers. Memory:
    all n·2n Shamir shares are kept (13 uint32 per share), ~104 MB at n = 1000.

    ``threshold`` t: 2 <= t <= n (checked against n at ``run``); at most n − t dropouts.
    """

    threshold: int
    workers: int | None = None

    name: ClassVar[str] = "masked"

    def __post_init__(self):
        check_int("threshold", self.threshold, minimum=2)
        if self.workers is not None:
            check_int("workers", self.workers, minimum=1)

    def _check_sizes(self, n: int, dropped: tuple[int, ...]) -> None:
        t = self.threshold
        if n < 2:
            raise ParameterError(f"masked secure aggregation needs at least 2 users, got "
                                 f"n = {n}")
        if n > _shamir.MAX_HOLDERS:
            raise ParameterError(f"masked secure aggregation supports at most "
                                 f"{_shamir.MAX_HOLDERS} users (Shamir field size), got "
                                 f"n = {n}")
        if t > n:
            raise ParameterError(f"threshold must be <= n = {n} (shares go to the n "
                                 f"users), got threshold = {t}")
        d = len(dropped)
        if n - d < t:
            raise ProtocolError(f"{d} of {n} users dropped out, leaving {n - d} survivors; "
                                f"unmasking needs threshold t = {t} survivors' shares, so at "
                                f"most n - t = {n - t} dropouts can be recovered")

    def _workers(self, pairs: int) -> int:
        if self.workers is not None:
            return self.workers
        if pairs < _PARALLEL_MIN_PAIRS:
            return 1
        try:
            return max(1, len(os.sched_getaffinity(0)))
        except AttributeError:  # pragma: no cover - non-Linux
            return max(1, os.cpu_count() or 1)

    def run(self, messages, m: int, rng=None, *, dropouts=()) -> SecureOutput:
        y, m = _check_batch(messages, m)
        n = y.size
        dropped = _check_dropouts(dropouts, n)
        self._check_sizes(n, dropped)
        gen = as_rng(rng, secure=True)
        t = self.threshold
        sampler = _prg.MaskSampler.for_modulus(m)
        small = sampler.small

        alive = np.ones(n, dtype=bool)
        alive[list(dropped)] = False
        S = np.flatnonzero(alive)
        D = np.flatnonzero(~alive)

        # Round 0: keys.
        session = _csprng_bytes(32)
        keys = [_generate_private_key() for _ in range(n)]
        sk_raw = [k.private_bytes_raw() for k in keys]
        pk_raw = tuple(k.public_key().public_bytes_raw() for k in keys)

        # Round 1: Shamir shares of sk_u (secrets 0..n-1) and b_u (secrets n..2n-1).
        b_raw = np.frombuffer(_csprng_bytes(_KEY_BYTES * n), dtype=np.uint8).reshape(n, -1)
        secrets = np.concatenate(
            [np.frombuffer(b"".join(sk_raw), dtype=np.uint8).reshape(n, -1), b_raw])
        shares = _shamir.share(_shamir.secrets_to_chunks(secrets), t, n, _csprng_bytes)

        # Round 2: every pair with a surviving endpoint, computed once by that endpoint:
        # owner i in S takes all peers j > i and the dropped peers j < i.
        rows = [(int(i), np.concatenate([np.arange(i + 1, n), D[D < i]])) for i in S]
        n_pairs = sum(len(r) for _, r in rows)
        workers = self._workers(n_pairs + len(D) * len(S))
        pool = None
        if workers > 1:
            pool = ProcessPoolExecutor(max_workers=workers, mp_context=_pool_context())
        try:
            n_tasks = 1 if pool is None else 4 * workers
            tasks = _balanced_tasks(session, m, rows, sk_raw, pk_raw, n_tasks)
            pair_mask = _run_pair_tasks(tasks, pool, sampler)
            owner = np.repeat([i for i, r in rows if len(r)], [len(r) for _, r in rows
                                                                if len(r)])
            peer = np.concatenate([r for _, r in rows if len(r)]) if n_pairs else \
                np.zeros(0, dtype=np.int64)
            lo, hi = np.minimum(owner, peer), np.maximum(owner, peer)
            # user lo adds +mask, user hi adds -mask; only senders' sums matter
            use_lo, use_hi = alive[lo], alive[hi]
            idx = np.concatenate([lo[use_lo], hi[use_hi]])
            vals = np.concatenate([pair_mask[use_lo], zm.neg(pair_mask[use_hi], m)])
            net = zm.grouped_sum(idx, vals, n, m, small)
            self_seeds = [_prg.derive_seed(bytes(b_raw[i]), _prg.self_info(session, int(i)))
                          for i in S]
            self_mask = _prg.masks_from_seeds(self_seeds, sampler)
            masked = zm.add(zm.add(y[S], self_mask, m), net[S], m)

            # Round 3: unmasking from t survivors' shares.
            holders = np.sort(gen.choice(S, size=t, replace=False))
            wanted = np.concatenate([D, n + S])
            chunks = _shamir.reconstruct(shares[np.ix_(holders, wanted)], holders)
            recovered = _shamir.chunks_to_secrets(chunks, _KEY_BYTES)
            if recovered is None:
                raise ProtocolError("Shamir reconstruction produced an invalid secret "
                                    "(corrupted shares)")
            sk_dropped = {int(j): bytes(recovered[k]) for k, j in enumerate(D)}
            b_seen = {int(i): bytes(recovered[len(D) + k]) for k, i in enumerate(S)}
            for j, sk in sk_dropped.items():
                pk = X25519PrivateKey.from_private_bytes(sk).public_key().public_bytes_raw()
                if pk != pk_raw[j]:
                    raise ProtocolError(f"the private key reconstructed for dropped user {j} "
                                        "does not match its advertised public key")
            server_self = _prg.masks_from_seeds(
                [_prg.derive_seed(b_seen[int(i)], _prg.self_info(session, int(i)))
                 for i in S], sampler)
            pairwise_masked = zm.add(masked, zm.neg(server_self, m), m)
            correction = 0
            if len(D):
                rows_d = [(int(j), S) for j in D]
                tasks = _balanced_tasks(session, m, rows_d, sk_dropped, pk_raw, n_tasks)
                dmask = _run_pair_tasks(tasks, pool, sampler)
                jj = np.repeat(D, len(S))
                ii = np.tile(S, len(D))
                plus = jj > ii   # survivor i added +mask_ij when j > i
                correction = zm.sub(zm.sum_int(dmask[plus], m), zm.sum_int(dmask[~plus], m), m)
        finally:
            if pool is not None:
                pool.shutdown()
        total = zm.sub(zm.sum_int(pairwise_masked, m), correction, m)

        share_b = _shamir.share_bytes(_KEY_BYTES)
        bytes_sent = (n * _KEY_BYTES                      # public keys
                      + n * (n - 1) * 2 * share_b         # shares of sk_u and b_u
                      + len(S) * message_bytes(m)         # masked messages
                      + len(S) * n * share_b)             # unmasking shares
        view = MaskedView(session_id=session, public_keys=pk_raw, senders=_readonly(S.copy()),
                          masked=_readonly(masked), self_mask_seeds=MappingProxyType(b_seen),
                          dropped_private_keys=MappingProxyType(sk_dropped),
                          pairwise_masked=_readonly(pairwise_masked),
                          share_holders=tuple(int(h) for h in holders))
        return SecureOutput(int(total), view, n, dropped, bytes_sent, self.name)


# ----------------------------------------------------------------- shuffle (split-and-mix)
@dataclass(frozen=True)
class ShuffleSecAgg(SecureAggregator):
    """Split-and-mix secure summation through a shuffler (Ishai, Kushilevitz, Ostrovsky,
    Sahai 2006; analysed by Balle, Bell, Gascón, Nissim 2020 and Ghazi, Manurangsi, Pagh,
    Velingker 2020).

    R (:meth:`split`): user i sends k additive shares of y_i mod m — k − 1 uniform on Z_m,
    the last one fixing the sum. S: the shuffler applies a uniform permutation (from
    ``rng``) to all n·k shares. A: ŷ = Σ shares mod m. ``view`` is the shuffled share
    array.

    Guarantee. Correctness is perfect: ŷ = Σ y_i mod m always (q̂ = 0 in Definition 9 of
    paper 000). Security is statistical: for inputs with equal sums the views are close in
    statistical distance, and the protocol is σ-secure (SD <= 2**-σ between the views of
    any two inputs with the same sum, hence between the view and a simulator that runs the
    protocol on (ŷ, 0, ..., 0)) when, per Balle et al. 2020 (CCS '20; the IKOS analysis of
    arXiv:1909.11225, "Improved summation from shuffling"),

        k >= ⌈2 + (2σ + log2 m) / log2(n / e)⌉,   n >= 19

    (:meth:`required_k`). The constants are quoted from memory of that theorem, not
    re-derived here: the bound reproduces the example of that paper's abstract (n = 10**4
    parties, 32-bit inputs, 12 messages each, security 2**-40), and GMPV20's analysis
    gives the same shape k = O(1 + (σ + log m)/log n) with a constant not restated here.
    Relation to paper 000: Definition 9 asks for ε̂-relaxed security in the LLR (max
    log-ratio) distance, which a statistical-distance bound does not give (for small k the
    views of two equal-sum inputs can even have different supports). With SD <= 2**-σ and
    a central mechanism that is ε-DP on ŷ, the protocol's view is (ε, (1 + e**ε)·2**-σ)-DP
    (approximate DP), not the pure DP of Theorem 3 of paper 000; that theorem needs a
    construction with an LLR guarantee such as Cheu–Yan 2021.

    Randomness: the shares and the permutation come from ``rng`` (a numpy Generator), so a
    fixed seed reproduces the view; a deployment must draw the shares from a cryptographic
    generator and keep the shuffler's permutation secret.
    """

    k: int

    name: ClassVar[str] = "shuffle"

    def __post_init__(self):
        check_int("k", self.k, minimum=1)

    def split(self, messages, m: int, rng=None) -> np.ndarray:
        """The randomizer: an (n, k) array of shares, row i summing to y_i mod m; columns
        0..k−2 uniform on Z_m and independent, column k−1 = y_i − Σ others mod m."""
        y, m = _check_batch(messages, m)
        return self._split(y, m, as_rng(rng, secure=True))

    def _split(self, y: np.ndarray, m: int, gen: np.random.Generator) -> np.ndarray:
        n, k = y.size, self.k
        shares = np.empty((n, k), dtype=y.dtype)
        if k > 1:
            shares[:, :k - 1] = zm.uniform(gen, m, (n, k - 1))
        last = y.copy()
        for c in range(k - 1):
            last = zm.sub(last, shares[:, c], m)
        shares[:, k - 1] = last
        return shares

    def run(self, messages, m: int, rng=None, *, dropouts=()) -> SecureOutput:
        y, m = _check_batch(messages, m)
        dropped = _check_dropouts(dropouts, y.size)
        gen = as_rng(rng, secure=True)
        n = y.size
        if dropped:
            keep = np.ones(n, dtype=bool)
            keep[list(dropped)] = False
            y = y[keep]
        flat = self._split(y, m, gen).ravel()
        view = _readonly(flat[gen.permutation(flat.size)])
        total = zm.sum_int(view, m)
        return SecureOutput(total, view, n, dropped, view.size * message_bytes(m), self.name)

    @staticmethod
    def required_k(n: int, m: int, sigma) -> int:
        """Shares per user for σ-security, per Balle et al. 2020 (CCS '20), Theorem on the
        IKOS protocol: the smallest integer k >= 2 + (2σ + log2 m)/log2(n/e), for n >= 19
        (constants as recalled; see the class docstring). ``sigma`` > 0 (exact rational).
        Evaluated at 60 digits; a real value within 1e-40 of an integer raises
        ArithmeticError rather than round unreliably."""
        n = check_int("n", n, minimum=19)
        m = check_int("m", m, minimum=2)
        s = check_positive_fraction("sigma", sigma)
        with mpmath.workdps(60):
            sig = mpmath.mpf(s.numerator) / s.denominator
            x = 2 + (2 * sig + mpmath.log(m, 2)) / (mpmath.log(n, 2) - mpmath.log(mpmath.e, 2))
            if abs(x - mpmath.nint(x)) < mpmath.mpf(10) ** -40:
                raise CertificationError(f"2 + (2σ + log2 m)/log2(n/e) = {mpmath.nstr(x, 50)} is "
                                      "too close to an integer to round reliably")
            return int(mpmath.ceil(x))

    @classmethod
    def for_security(cls, n: int, m: int, sigma) -> ShuffleSecAgg:
        """The protocol with k = :meth:`required_k` (n, m, sigma)."""
        return cls(cls.required_k(n, m, sigma))
