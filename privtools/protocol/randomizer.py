"""The local randomizer R of paper 000: fixed-point encoding plus one noise share mod m.

Algorithm 2 (000), distributed model: x̂ = ⌊xg⌋ + Ber(xg − ⌊xg⌋) (randomized rounding at
precision g), add one noise share η_i, send y_i = (x̂_i + η_i) mod m.
Algorithm 4 (000), central model: no local noise, y_i = x̂_i mod m (the analyzer adds the
noise, Algorithm 5).
Algorithm 6 (000), local model: each user adds the full Lap_Z(g/ε), y_i = (x̂_i + η_i) mod m.

A *plan* is any object with the attributes ``n, g, tau, m, share, central_noise, trust``
(and optionally ``secure``), e.g. :func:`privtools.planning.plan`'s ``Plan``;
:func:`protocol_params` checks it once and returns a :class:`ProtocolParams`.

Integer arithmetic and overflow
-------------------------------
When ``m < 2**62`` messages are int64 and never overflow:

* 0 <= x̂ <= g < m, because m >= n·g + 2τ + 1 > g (checked by :func:`protocol_params`);
* the share η is an int64 drawn by the noise sampler — whatever its value,
  ``np.mod(η, m)`` is exact and lies in [0, m) (floor modulo of two int64 numbers cannot
  overflow), so no bound on |η| is needed;
* y = (x̂ + (η mod m)) mod m = (x̂ + η) mod m, and the intermediate x̂ + (η mod m) is below
  g + m < 2m < 2**63.

When ``m >= 2**62`` every value is a Python int held in an object array (exact, slower).
Sums of messages are taken by :func:`privtools.protocol.analyzer.modular_sum`, which
reduces partial sums before they can exceed int64. The arithmetic of Z_m itself (these
representations, reduce, add, the sums, uniform draws) is declared once, in
``privtools.protocol._zm``.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import as_rng, check_int

from ._zm import INT64_LIMIT as INT64_MODULUS_LIMIT
from ._zm import add_noise as add_mod
from ._zm import reduce as _reduce

__all__ = [
    "ProtocolParams",
    "protocol_params",
    "check_rewards",
    "check_messages",
    "encode",
    "randomize",
    "randomize_parts",
    "add_mod",
    "INT64_MODULUS_LIMIT",
]

# Moduli below INT64_MODULUS_LIMIT (= _zm.INT64_LIMIT, 2**62) use int64 arithmetic (see the
# module docstring); at or above it, Python ints in object arrays. add_mod is
# _zm.add_noise: (a + η) mod m for a in Z_m and any integer noise η.

# Largest precision g for which x·g is formed in float64: g is then exactly representable
# and fl(x·g) <= g for x <= 1. Larger g use exact rational arithmetic.
FLOAT_ENCODE_LIMIT = 2**53

TRUST_MODELS = ("distributed", "central", "local")
SECURE_KINDS = ("secagg", "shuffle")


@dataclass(frozen=True)
class ProtocolParams:
    """The checked protocol parameters of one batch (000 Alg. 2–7).

    ``share`` is the noise each user adds (distributed: a share of the total, Theorems 1,
    2, 4; local: the full Lap_Z(g/ε), Theorem 6; central: None). ``central_noise`` is the
    noise the analyzer adds (central model, Theorem 5; otherwise None).
    """

    n: int
    g: int
    tau: int
    m: int
    share: object | None
    central_noise: object | None
    trust: str
    secure: str = "secagg"

    @property
    def big(self) -> bool:
        """True when values are Python ints (``m >= 2**62``)."""
        return self.m >= INT64_MODULUS_LIMIT

    @property
    def threshold(self) -> int:
        """n·g + τ: the analyzer reads y above it as a negative total (000 Alg. 3, line 6)."""
        return self.n * self.g + self.tau


def protocol_params(plan) -> ProtocolParams:
    """Check a plan for consistency and return its :class:`ProtocolParams`.

    Raises :class:`ParameterError` naming the attribute when: one of
    ``n, g, tau, m, share, central_noise, trust`` is missing; n, g, m are not integers >= 1
    or τ not an integer >= 0; ``m < n·g + 2τ + 1`` (the analyzer could not undo the wrap,
    000 Alg. 3); ``trust`` is not 'distributed', 'central' or 'local'; ``secure`` (default
    'secagg') is not 'secagg' or 'shuffle'; or the noise laws do not match the trust model
    (distributed/local: a ``share`` with ``sample`` and no ``central_noise``; central: a
    ``central_noise`` and no ``share``, 000 Alg. 4/5).
    """
    if isinstance(plan, ProtocolParams):
        return plan
    for attr in ("n", "g", "tau", "m", "share", "central_noise", "trust"):
        if not hasattr(plan, attr):
            raise ParameterError(f"plan has no attribute {attr!r} (a plan needs n, g, tau, m, "
                                 "share, central_noise and trust)")
    n = check_int("plan.n", plan.n, minimum=1)
    g = check_int("plan.g", plan.g, minimum=1)
    tau = check_int("plan.tau", plan.tau, minimum=0)
    m = check_int("plan.m", plan.m, minimum=1)
    if m < n * g + 2 * tau + 1:
        raise ParameterError(
            f"plan.m = {m} is too small: the analyzer needs m >= n*g + 2*tau + 1 = "
            f"{n * g + 2 * tau + 1} (n={n}, g={g}, tau={tau})")
    trust = plan.trust
    if trust not in TRUST_MODELS:
        raise ParameterError(f"plan.trust must be one of {TRUST_MODELS}, got {trust!r}")
    secure = getattr(plan, "secure", "secagg")
    if secure not in SECURE_KINDS:
        raise ParameterError(f"plan.secure must be one of {SECURE_KINDS}, got {secure!r}")
    share, central = plan.share, plan.central_noise
    _check_noise_laws(trust, share, central)
    return ProtocolParams(n, g, tau, m, share, central, trust, secure)


def _check_noise_laws(trust: str, share, central) -> None:
    """The noise laws match the trust model (000 Alg. 4/5)."""
    if trust == "central":
        if share is not None:
            raise ParameterError("plan.share must be None under central trust (users add no "
                                 "noise, 000 Alg. 4)")
        if central is None or not hasattr(central, "sample"):
            raise ParameterError("plan.central_noise must be a noise distribution under "
                                 "central trust (000 Alg. 5)")
    else:
        if share is None or not hasattr(share, "sample"):
            raise ParameterError(f"plan.share must be a noise distribution under {trust} trust")
        if central is not None:
            raise ParameterError(f"plan.central_noise must be None under {trust} trust")


# --------------------------------------------------------------------------- inputs
def check_rewards(x, n: int | None = None, *, ndim: int | None = None) -> np.ndarray:
    """Rewards as a float64 array, checked: finite, in [0, 1], real-valued (not bool, not
    object); with ``n``, the last axis must have length n; with ``ndim``, that many axes.
    Nothing is clipped: a bad value raises :class:`ParameterError` naming ``rewards`` and
    the first offending index."""
    arr = np.asarray(x)
    if arr.dtype == bool or arr.dtype.kind not in "iuf":
        raise ParameterError(f"rewards must be a real-valued numeric array, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    if ndim is not None and arr.ndim != ndim:
        raise ParameterError(f"rewards must have {ndim} dimension(s), got shape {arr.shape}")
    if n is not None and (arr.ndim == 0 or arr.shape[-1] != n):
        raise ParameterError(f"rewards must have n = {n} entries per batch (the plan's n), "
                             f"got shape {arr.shape}")
    if arr.size and 0.0 <= arr.min() and arr.max() <= 1.0:  # NaN fails both comparisons
        return arr
    bad = ~np.isfinite(arr)
    if bad.any():
        i = tuple(int(v) for v in np.argwhere(bad)[0])
        raise ParameterError(f"rewards must be finite, got rewards[{_idx(i)}] = {arr[i]}")
    bad = (arr < 0) | (arr > 1)
    if bad.any():
        i = tuple(int(v) for v in np.argwhere(bad)[0])
        raise ParameterError(f"rewards must lie in [0, 1] (nothing is clipped), got "
                             f"rewards[{_idx(i)}] = {arr[i]!r}")
    return arr


def _idx(i: tuple) -> str:
    return ", ".join(map(str, i))


def check_messages(y, m: int, name: str = "messages") -> np.ndarray:
    """Messages as an array of elements of Z_m = {0, …, m−1}: int64 when ``m < 2**62``,
    Python ints (object array) otherwise. Non-integers and values outside Z_m raise
    :class:`ParameterError` naming ``name`` and the first bad index."""
    m = check_int("m", m, minimum=1)
    arr = np.asarray(y)
    if arr.dtype == object:
        flat = arr.ravel()
        for i, v in enumerate(flat):
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise ParameterError(f"{name} must be integers in Z_{m}, got {name}[{i}] = {v!r}")
            if not 0 <= v < m:
                raise ParameterError(f"{name}[{i}] = {v} is outside Z_{m} = {{0, ..., {m - 1}}}")
        if m < INT64_MODULUS_LIMIT:
            return arr.astype(np.int64)
        out = np.empty(arr.shape, dtype=object)
        out.ravel()[:] = [int(v) for v in flat]
        return out
    if arr.dtype == bool or arr.dtype.kind not in "iu":
        raise ParameterError(f"{name} must be integers in Z_{m}, got dtype {arr.dtype}")
    if arr.size:
        lo, hi = arr.min(), arr.max()
        if lo < 0 or hi >= m:
            i = int(np.flatnonzero(((arr < 0) | (arr >= m)).ravel())[0])
            raise ParameterError(f"{name}[{i}] = {arr.ravel()[i]} is outside Z_{m} = "
                                 f"{{0, ..., {m - 1}}}")
    if m >= INT64_MODULUS_LIMIT:
        return arr.astype(object)
    return arr.astype(np.int64, copy=False)


# --------------------------------------------------------------------------- encoding
def encode(x, g: int, rng=None) -> np.ndarray:
    """Randomized rounding at precision g (000 Alg. 2, line 3): x̂ = ⌊xg⌋ + Ber(xg − ⌊xg⌋).

    ``x``: rewards in [0, 1] (any shape; checked by :func:`check_rewards`). Returns x̂ of
    the same shape, values in {0, …, g}: int64 (Python ints in an object array when
    g >= 2**62).

    For ``g <= 2**53`` the product xg is formed in float64: fl(xg) <= g because g is
    exactly representable, so x̂ <= g always holds (the sensitivity g that privacy rests
    on does not depend on rounding). ⌊fl(xg)⌋ and the fractional part are exact, and the
    Bernoulli draw compares the fractional part with a 53-bit uniform, so
    |E[x̂] − xg| <= (g + 1)·2**-53, and E[x̂] = xg exactly whenever xg is a float whose
    fractional part is a multiple of 2**-53 (e.g. x = k/2**j with small j). For
    ``g > 2**53`` xg is an exact rational and the Bernoulli draw uses as many random bits
    as the (power-of-two) denominator of its fractional part: E[x̂] = xg exactly.
    """
    g = check_int("g", g, minimum=1)
    arr = check_rewards(x)
    return _encode(arr, g, as_rng(rng, secure=True))


def _encode(x: np.ndarray, g: int, gen: np.random.Generator) -> np.ndarray:
    """:func:`encode` without argument checks (``x`` already checked)."""
    if g > FLOAT_ENCODE_LIMIT:
        return _encode_exact(x, g, gen)
    if x.ndim == 0:
        return _encode(x.reshape(1), g, gen).reshape(())
    t = x * float(g)
    f = np.floor(t)
    np.subtract(t, f, out=t)  # the fractional part, exact: ⌊t⌋ <= t < 2⌊t⌋ or ⌊t⌋ = 0
    out = f.astype(np.int64)
    u = gen.random(f.shape)  # one uniform per entry (a traced run tracks it: no out=)
    return out + (u < t)


def _encode_exact(x: np.ndarray, g: int, gen: np.random.Generator) -> np.ndarray:
    out = np.empty(x.shape, dtype=np.int64 if g < INT64_MODULUS_LIMIT else object)
    flat_out = out.reshape(-1)
    for i, v in enumerate(x.reshape(-1).tolist()):
        q = Fraction(v) * g
        f = q.numerator // q.denominator
        num, den = (q - f).numerator, (q - f).denominator  # den is a power of two
        if num:
            bits = den.bit_length() - 1
            nbytes = (bits + 7) // 8
            u = int.from_bytes(gen.bytes(nbytes), "little") >> (8 * nbytes - bits)
            f += u < num
        flat_out[i] = f
    return out


# --------------------------------------------------------------------------- messages
def _noise(dist, shape, gen: np.random.Generator) -> np.ndarray:
    """``dist.sample(shape, gen)`` as int64, or as Python ints when a value would not fit
    (never converted with wrap-around)."""
    eta = np.asarray(dist.sample(shape, gen))
    if eta.dtype == object:
        return eta
    if eta.dtype.kind not in "iu":
        raise ParameterError(f"noise sampler {dist!r} returned dtype {eta.dtype}, not integers")
    if eta.dtype.kind == "u" and eta.size and int(eta.max()) > np.iinfo(np.int64).max:
        return eta.astype(object)  # would not fit int64: keep exact
    return eta.astype(np.int64, copy=False)


def _messages(xhat: np.ndarray, P: ProtocolParams, gen: np.random.Generator):
    """(η, y) for encoded values ``xhat`` (any shape): Alg. 2/6 add a share, Alg. 4 none."""
    if P.trust == "central":
        eta = None
        y = _reduce(xhat, P.m)  # x̂ <= g < m: y = x̂
    else:
        eta = _noise(P.share, xhat.shape, gen)
        y = add_mod(xhat, eta, P.m)
    return eta, y


def _randomize_parts(x: np.ndarray, P: ProtocolParams, gen: np.random.Generator):
    """:func:`randomize_parts` without argument checks (``x`` checked rewards, ``P``
    checked parameters, ``gen`` a Generator): the fast path of :mod:`.batch`."""
    xhat = _encode(x, P.g, gen)
    eta, y = _messages(xhat, P, gen)
    return xhat, eta, y


def randomize_parts(x, plan, rng=None) -> tuple[np.ndarray, np.ndarray | None, np.ndarray]:
    """The randomizer R of paper 000 with its intermediate values: ``(x̂, η, y)``.

    000 Alg. 2 (distributed): x̂ = randomized rounding of x at precision g (line 3), η one
    noise share per user (``plan.share``), y = (x̂ + η) mod m. Alg. 4 (central): no local
    noise, η is None and y = x̂ mod m (the analyzer adds the noise, see
    :func:`~privtools.protocol.analyzer.add_central_noise`). Alg. 6 (local): η the full
    Lap_Z(g/ε) of each user.

    ``x``: rewards in [0, 1] of any shape whose entries are users of one batch of the plan
    (e.g. (B, n) for B batches, or a chunk of a batch's users: the modular sum is additive,
    so the chunks' sums of y add up mod m to the batch's). The shape is not checked against
    ``plan.n``; the values are (:func:`check_rewards`). Returns x̂ and y (int64, or Python
    ints when m >= 2**62) and η (the same, or None under central trust), all of ``x``'s
    shape. :func:`randomize` returns y only.
    """
    P = protocol_params(plan)
    return _randomize_parts(check_rewards(x), P, as_rng(rng, secure=True))


def randomize(x, plan, rng=None, size: int | None = None) -> np.ndarray:
    """Messages of the n users of one batch: the randomizer R of 000 Alg. 2 (distributed),
    Alg. 4 (central: no local noise) or Alg. 6 (local: the full noise per user).

    ``x``: the batch's rewards, shape (n,) with n = ``plan.n``, each in [0, 1].
    ``size=None`` returns shape (n,); ``size=S`` returns S independent realisations of the
    whole batch, shape (S, n). Values are elements of Z_m: int64 when m < 2**62, Python
    ints (object array) otherwise.
    """
    P = protocol_params(plan)
    xs = check_rewards(x, P.n, ndim=1)
    gen = as_rng(rng, secure=True)
    if size is not None:
        size = check_int("size", size, minimum=0)
        xs = np.broadcast_to(xs, (size, P.n))
    return _randomize_parts(xs, P, gen)[2]

