"""The users of a batch in one compiled loop: each user's reward, its randomized rounding and
its noise share, summed per arm, on a random stream of the batch's own.

What a user does (000 Alg. 2): draw the reward x (clipped Gaussian N(μ_a, sd²) or Ber(μ_a)),
round it at precision g, x̂ = ⌊xg⌋ + Ber(xg − ⌊xg⌋) (line 3), and add a noise share η drawn
from the plan's share law. The analyzer sees only the modular sum of the messages,
Σ (x̂_i + η_i) mod m ≡ (Σ x̂_i + Σ η_i) mod m, so a batch needs, per arm, Σ x̂ and Σ η — and
every user's draws. numpy spends about 37 ns per user on them (three passes of generated
words through memory, eight elementwise passes for the rounding); one loop that draws each
word and uses it while it is in a register spends about 3 ns.

**The stream.** Word ``q`` of stream ``k`` is ``mix(k + q·γ)``: the output function of
SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA
2014; its 64-bit finaliser), a counter-based generator, so a word depends only on its key
and its counter — never on the order in which the words are computed. A batch draws four
keys from the run's generator (reward, coin, share, retry); user ``c`` (row-major over the
batch's arms × users) reads word ``c`` of the first three, and the words its Gaussian's
rejection steps need from the retry key at counters ``c·2^16 + 0, 1, …``. The compiled
loop (numba, the optional extra ``fast``) and the numpy fallback compute the same words
and the same arithmetic, so a seed gives the same run with and without numba (tested).
``PRIVTOOLS_KERNEL=numpy`` turns the compiled loop off.

**The Gaussian.** The ziggurat method of Marsaglia & Tsang ("The ziggurat method for
generating random variables", J. Stat. Softw. 5(8), 2000) with 256 layers of equal area v:
x_1 = r, x_{i+1} = f⁻¹(v/x_i + f(x_i)) for f(x) = e^{−x²/2}, r the root that closes the top
layer, and the base layer of width v/f(r) (its part beyond r is the tail). One word gives
the layer (8 bits), the sign (1 bit) and a 53-bit uniform U: x = U·x_i is accepted at once
when x < x_{i+1} (99 % of draws); otherwise the wedge test or, in the base layer, the tail
sampler (x = r + E₁/r with E₁, E₂ exponential, accepted when 2E₂ > E₁²) with fresh words.

**The coin.** ``U < xg − ⌊xg⌋`` with a 53-bit uniform, as
:func:`privtools.protocol.encode` does (so x̂ ≤ g always, and the rounding is unbiased to
2^-53).

**The share.** One word through the share law's alias table
(:class:`privtools.noise._samplers.fixed.AliasTable`, exact weights over 2^64): the same
map as the table's own draws. A law without a table is not handled here (the caller
falls back to numpy).
"""

from __future__ import annotations

import math

import numpy as np
from scipy.optimize import brentq
from scipy.special import erfc

from privtools.randomness import compiled_draws

from ..envs.finite import BernoulliEnv, GaussianEnv

__all__ = ["LAYERS", "ziggurat", "compiled", "batch_keys", "row_sums", "words", "normals",
           "handles"]

#: Layers of the ziggurat.
LAYERS = 256
_GAMMA = np.uint64(0x9E3779B97F4A7C15)
_M1 = np.uint64(0xBF58476D1CE4E5B9)
_M2 = np.uint64(0x94D049BB133111EB)
_S30, _S27, _S31 = np.uint64(30), np.uint64(27), np.uint64(31)
_S8, _S11, _S16 = np.uint64(8), np.uint64(11), np.uint64(16)
_LOW8, _ONE = np.uint64(255), np.uint64(1)
_U53 = 2.0**-53
#: attempts a user's Gaussian may take from the retry stream (each attempt is accepted with
#: probability above 0.98: exceeding it has probability below 10^-100000)
_RETRY = 1 << 16


def _f(x: float) -> float:
    return math.exp(-0.5 * x * x)


def _top_area(r: float) -> float:
    """The top layer's area minus v, for base point r (negative while r is too small)."""
    v = r * _f(r) + math.sqrt(math.pi / 2) * erfc(r / math.sqrt(2))
    x = r
    for _ in range(1, LAYERS - 1):
        a = v / x + _f(x)
        if a >= 1.0:
            return -1.0
        x = math.sqrt(-2.0 * math.log(a))
    return x * (1.0 - _f(x)) - v


def ziggurat() -> tuple[float, np.ndarray, np.ndarray]:
    """``(r, X, F)``: the base point r, the layer widths X[0..256] (X[0] = v/f(r), X[1] = r,
    X[256] = 0) and F = f(X), for 256 layers of equal area (module doc)."""
    r = brentq(_top_area, 3.3, 4.0, xtol=1e-15, rtol=4 * np.finfo(float).eps)
    v = r * _f(r) + math.sqrt(math.pi / 2) * erfc(r / math.sqrt(2))
    X = np.empty(LAYERS + 1)
    X[0], X[1] = v / _f(r), r
    for i in range(1, LAYERS - 1):
        X[i + 1] = math.sqrt(-2.0 * math.log(v / X[i] + _f(X[i])))
    X[LAYERS] = 0.0
    return r, X, np.exp(-0.5 * X * X)


_R, _X, _F = ziggurat()


def batch_keys(gen: np.random.Generator) -> np.ndarray:
    """The four stream keys of one batch (reward, coin, share, retry), from ``gen``."""
    return gen.integers(0, 1 << 64, size=4, dtype=np.uint64)


# --------------------------------------------------------------- numpy (reference) path
def words(key, counters: np.ndarray) -> np.ndarray:
    """Words ``mix(key + q·γ)`` of stream ``key`` at the counters ``q`` (uint64 array)."""
    z = np.uint64(key) + np.asarray(counters, dtype=np.uint64) * _GAMMA
    z = (z ^ (z >> _S30)) * _M1
    z = (z ^ (z >> _S27)) * _M2
    return z ^ (z >> _S31)


def _unif(w: np.ndarray) -> np.ndarray:
    return (w >> _S11).astype(np.float64) * _U53


def normals(k_first, k_retry, c: np.ndarray) -> np.ndarray:
    """The standard normals of users ``c`` (uint64 counters): the ziggurat (module doc) on
    word ``c`` of ``k_first`` and, where it rejects, the retry words of each user in turn."""
    w = words(k_first, c)
    j = (w & _LOW8).astype(np.intp)
    neg = ((w >> _S8) & _ONE).astype(bool)
    x = _unif(w) * _X[j]
    slow = np.flatnonzero(x >= _X[j + 1])
    if slow.size:
        x[slow] = _slow(w[slow], c[slow], k_retry)
    return np.where(neg, -x, x)


def _slow(w: np.ndarray, c: np.ndarray, k_retry) -> np.ndarray:
    """|z| of the users whose first word was not accepted at once, vectorised over users:
    each one steps through its own retry counters exactly as the compiled loop does."""
    w = w.copy()
    out = np.empty(w.size)
    q = np.zeros(w.size, dtype=np.uint64)
    base = c << _S16
    live = np.arange(w.size)
    first = True
    while live.size:
        ww = w[live]
        j = (ww & _LOW8).astype(np.intp)
        x = _unif(ww) * _X[j]
        done = np.zeros(live.size, dtype=bool)
        if not first:                           # a retried word may land in the rectangle
            done = x < _X[j + 1]
            out[live[done]] = x[done]
        first = False
        tail = np.flatnonzero(~done & (j == 0))
        if tail.size:
            out[live[tail]] = _tail(live[tail], base, q, k_retry)
            done[tail] = True
        wedge = np.flatnonzero(~done)
        if wedge.size:
            who = live[wedge]
            u = _unif(words(k_retry, base[who] + q[who]))
            q[who] += _ONE
            jj, xx = j[wedge], x[wedge]
            ok = _F[jj] + u * (_F[jj + 1] - _F[jj]) < np.exp(-0.5 * xx * xx)
            out[who[ok]] = xx[ok]
            done[wedge[ok]] = True
        live = live[~done]
        if live.size:
            if int(q[live].max()) >= _RETRY - 3:
                raise RuntimeError("ziggurat: a user exhausted its retry words")
            w[live] = words(k_retry, base[live] + q[live])
            q[live] += _ONE
    return out


def _tail(who: np.ndarray, base: np.ndarray, q: np.ndarray, k_retry) -> np.ndarray:
    """r + E₁/r of the tail (module doc) for users ``who``, two retry words per attempt."""
    out = np.empty(who.size)
    pend = np.arange(who.size)
    while pend.size:
        u = who[pend]
        e1 = -np.log(1.0 - _unif(words(k_retry, base[u] + q[u])))
        e2 = -np.log(1.0 - _unif(words(k_retry, base[u] + q[u] + _ONE)))
        q[u] += np.uint64(2)
        a = e1 / _R
        ok = e2 + e2 > a * a
        out[pend[ok]] = _R + a[ok]
        pend = pend[~ok]
    return out


# ------------------------------------------------------------------------ the batch sums
_KERNEL = None            # None: not tried; False: unavailable; else the compiled module
_CHUNK = 1 << 20


def compiled() -> bool:
    """Whether the compiled loop is available (numba installed, ``PRIVTOOLS_KERNEL`` not
    ``numpy``)."""
    global _KERNEL
    if _KERNEL is None:
        _KERNEL = False
        if compiled_draws():
            from . import _users_kernel
            _KERNEL = _users_kernel
    return bool(_KERNEL)


def _rewards(keys, gaussian: bool, mu: np.ndarray, sd: float, c: np.ndarray) -> np.ndarray:
    """The users' rewards (``mu`` broadcast against the counters ``c``)."""
    if gaussian:
        x = normals(keys[0], keys[3], c.ravel()).reshape(c.shape) * sd + mu
        return np.clip(x, 0.0, 1.0, out=x)
    return (_unif(words(keys[0], c)) < mu).astype(np.float64)


def _numpy_sums(keys, gaussian, means, sd, n, g, table, out_x, out_e) -> None:
    rows = max(1, _CHUNK // n)
    step = min(n, _CHUNK)
    gf = float(g)
    for a0 in range(0, means.size, rows):
        mu = means[a0:a0 + rows, None]
        for i0 in range(0, n, step):
            c = (np.arange(a0, a0 + mu.shape[0], dtype=np.uint64)[:, None] * np.uint64(n)
                 + np.arange(i0, min(n, i0 + step), dtype=np.uint64)[None, :])
            t = _rewards(keys, gaussian, mu, sd, c) * gf
            fl = np.floor(t)
            coin = _unif(words(keys[1], c)) < t - fl
            out_x[a0:a0 + mu.shape[0]] += (fl.astype(np.int64) + coin).sum(axis=1)
            if table is not None:
                out_e[a0:a0 + mu.shape[0]] += table.from_words(words(keys[2], c)).sum(axis=1)


def handles(env) -> bool:
    """Whether :func:`row_sums` draws ``env``'s rewards: a Gaussian or a Bernoulli
    environment (exactly those types: a subclass may draw otherwise)."""
    return type(env) in (GaussianEnv, BernoulliEnv)


def row_sums(keys: np.ndarray, env, arms: np.ndarray, n: int, g: int, table=None
             ) -> tuple[np.ndarray, np.ndarray | None]:
    """Σ x̂ and Σ η over the ``n`` users of each arm of ``arms`` (the module doc), on the
    batch's stream ``keys`` (:func:`batch_keys`). ``env`` a Gaussian or Bernoulli
    environment, ``g`` the precision (below 2**53), ``table`` the share law's alias table
    (None: no shares). Σ η is None without a table. Compiled where numba is installed, the
    same numbers in numpy otherwise."""
    gaussian = type(env) is GaussianEnv
    means = np.ascontiguousarray(env.means[arms], dtype=np.float64)
    sd = float(env.sd) if gaussian else 0.0
    out_x = np.zeros(means.size, dtype=np.int64)
    out_e = np.zeros(means.size, dtype=np.int64)
    point = table is not None and not table.m      # a point mass: no word needed
    live = None if table is None or point else table
    if compiled():
        if live is not None:
            T, A = live._absolute()
            shift = live._shift
        else:
            T, A, shift = np.zeros(1, np.uint64), np.zeros(1, np.int32), np.uint64(63)
        table_args = (live is not None, shift, T, A, np.int64(0 if live is None else live.lo))
        ok = _KERNEL.row_sums(keys, means, (gaussian, sd, n, g), table_args,
                              (_X, _F, _R, np.uint64(_RETRY)), out_x, out_e)
        if not ok:
            raise RuntimeError("ziggurat: a user exhausted its retry words")
    else:
        _numpy_sums(keys, gaussian, means, sd, n, g, live, out_x, out_e)
    if point:
        out_e += n * table.lo
    return out_x, (None if table is None else out_e)
