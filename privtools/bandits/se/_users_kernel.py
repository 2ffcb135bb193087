"""The compiled loop of :mod:`.users` (imported only where numba is installed: the extra
``fast``). It computes the same words and the same arithmetic as the numpy path of
:mod:`.users`, user by user, each word used while it is in a register."""

from __future__ import annotations

import math

import numba
import numpy as np

_U53 = 2.0**-53


@numba.njit(inline="always", cache=True)
def _mix(key, q):  # pragma: no cover - compiled
    z = key + q * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@numba.njit(inline="always", cache=True)
def _unif(w):  # pragma: no cover - compiled
    return np.float64(w >> np.uint64(11)) * _U53


@numba.njit(cache=True)
def _slow(w, c, k_retry, zig):  # pragma: no cover - compiled
    """|z| of a user whose first word fell outside its layer's rectangle; ``zig`` the
    ziggurat (X, F, r) and the retry words a user may take."""
    X, F, r, limit = zig
    base = c << np.uint64(16)
    q = np.uint64(0)
    first = True
    while True:
        j = np.int64(w & np.uint64(255))
        x = _unif(w) * X[j]
        if not first and x < X[j + 1]:
            return x
        first = False
        if j == 0:
            while True:
                e1 = -math.log(1.0 - _unif(_mix(k_retry, base + q)))
                e2 = -math.log(1.0 - _unif(_mix(k_retry, base + q + np.uint64(1))))
                q += np.uint64(2)
                a = e1 / r
                if e2 + e2 > a * a:
                    return r + a
        u = _unif(_mix(k_retry, base + q))
        q += np.uint64(1)
        if F[j] + u * (F[j + 1] - F[j]) < math.exp(-0.5 * x * x):
            return x
        if q >= limit - np.uint64(3):
            return -1.0
        w = _mix(k_retry, base + q)
        q += np.uint64(1)


@numba.njit(inline="always", cache=True)
def _rounded(x, gf, k1, c):  # pragma: no cover - compiled
    """x̂ of reward ``x`` for user ``c``: ⌊xg⌋ plus the coin of its word."""
    t = x * gf
    fl = math.floor(t)
    return np.int64(fl) + np.int64(_unif(_mix(k1, c)) < t - fl)


@numba.njit(inline="always", cache=True)
def _clip(x):  # pragma: no cover - compiled
    return 0.0 if x < 0.0 else (1.0 if x > 1.0 else x)


#: users per block; the hot loops make no branch and store nothing per user (so that they
#: vectorise): a Gaussian whose first word falls outside its layer's rectangle is counted
#: at z = 0 and flagged in its group's 64-bit mask, then corrected after the block
BLOCK = 4096


@numba.njit(cache=True, nogil=True)
def _gaussian_block(k0, k1, mu, sd, gf, X, c0, m, masks):  # pragma: no cover - compiled
    """Σ x̂ over users c0 .. c0 + m − 1 of a clipped Gaussian arm (module doc)."""
    sx = np.int64(0)
    for grp in range((m + 63) // 64):
        bits = np.uint64(0)
        cg = c0 + np.uint64(grp * 64)
        for k in range(min(64, m - grp * 64)):
            c = cg + np.uint64(k)
            w = _mix(k0, c)
            j = np.int64(w & np.uint64(255))
            z = _unif(w) * X[j]
            out = z >= X[j + 1]
            bits |= np.uint64(out) << np.uint64(k)
            z = 0.0 if out else z
            z = -z if (w >> np.uint64(8)) & np.uint64(1) else z
            sx += _rounded(_clip(mu + z * sd), gf, k1, c)
        masks[grp] = bits
    return sx


@numba.njit(cache=True, nogil=True)
def _bernoulli_block(k0, k1, mu, gf, c0, m):  # pragma: no cover - compiled
    sx = np.int64(0)
    for i in range(m):
        c = c0 + np.uint64(i)
        sx += _rounded(1.0 if _unif(_mix(k0, c)) < mu else 0.0, gf, k1, c)
    return sx


@numba.njit(cache=True, nogil=True)
def _shares(k2, c0, m, shift, T, A, lo):  # pragma: no cover - compiled
    """Σ η over users c0 .. c0 + m − 1 (the alias table's map of each share word)."""
    se = np.int64(0)
    for i in range(m):
        ws = _mix(k2, c0 + np.uint64(i))
        jj = np.int64(ws >> shift)
        aa = np.int64(A[jj])
        se += aa + np.int64(ws < T[jj]) * (jj - aa) + lo
    return se


@numba.njit(cache=True, nogil=True)
def _late(keys, mu, sd, gf, zig, c0, m, masks):  # pragma: no cover - compiled
    """The correction of the flagged users of a block: their x̂ at their true z minus the
    x̂ at z = 0 the block counted, or −2^62 (no correction is that large) when a user
    exhausted its retry words."""
    k0, k1, k3 = keys[0], keys[1], keys[3]
    fix = np.int64(0)
    for grp in range((m + 63) // 64):
        bits = masks[grp]
        k = 0
        while bits:
            if bits & np.uint64(1):
                c = c0 + np.uint64(grp * 64 + k)
                w = _mix(k0, c)
                z = _slow(w, c, k3, zig)
                if z < 0.0:
                    return np.int64(-(1 << 62))
                z = -z if (w >> np.uint64(8)) & np.uint64(1) else z
                fix += _rounded(_clip(mu + z * sd), gf, k1, c) - _rounded(_clip(mu), gf, k1, c)
            bits >>= np.uint64(1)
            k += 1
    return fix


@numba.njit(cache=True, nogil=True)
def row_sums(keys, means, arm, table, zig, out_x, out_e):  # pragma: no cover - compiled
    """Per row (arm) of ``means``: Σ x̂ over its ``n`` users into ``out_x`` and, with
    ``shares``, Σ η into ``out_e``; False when a Gaussian exhausted its retry words.
    ``arm`` = (gaussian, sd, n, g), ``table`` = (shares, shift, T, A, lo) the share law's
    alias table, ``zig`` = (X, F, r, retry limit)."""
    gaussian, sd, n, g = arm
    shares, shift, T, A, lo = table
    X = zig[0]
    gf = np.float64(g)
    k0, k1, k2 = keys[0], keys[1], keys[2]
    masks = np.zeros(BLOCK // 64, dtype=np.uint64)
    for a in range(means.size):
        mu = means[a]
        sx = np.int64(0)
        se = np.int64(0)
        base = np.uint64(a) * np.uint64(n)
        for b0 in range(0, n, BLOCK):
            m = min(n - b0, BLOCK)
            c0 = base + np.uint64(b0)
            if gaussian:
                sx += _gaussian_block(k0, k1, mu, sd, gf, X, c0, m, masks)
                fix = _late(keys, mu, sd, gf, zig, c0, m, masks)
                if fix == -(1 << 62):
                    return False
                sx += fix
            else:
                sx += _bernoulli_block(k0, k1, mu, gf, c0, m)
            if shares:
                se += _shares(k2, c0, m, shift, T, A, lo)
        out_x[a] = sx
        out_e[a] = se
    return True
