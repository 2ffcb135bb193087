"""Exact discrete Laplace and discrete Gaussian samplers that use no floating point.

Reference: C. L. Canonne, G. Kamath and T. Steinke, "The Discrete Gaussian for Differential
Privacy", NeurIPS 2020 (CKS20, arXiv:2004.00010), Section 5.

- :func:`bernoulli_exp` implements CKS20 **Algorithm 1**: Bernoulli(exp(-gamma)) for a
  rational ``gamma = num/den >= 0``.  For ``gamma <= 1`` it runs the "K loop" (draw
  ``A_k ~ Bernoulli(gamma/k)`` for ``k = 1, 2, ...`` until the first ``A_k = 0`` and output
  ``[K odd]``); for ``gamma > 1`` it uses ``exp(-gamma) = exp(-1)^floor(gamma) *
  exp(-(gamma - floor(gamma)))`` and stops at the first failed factor.
- :func:`discrete_laplace` implements CKS20 **Algorithm 2**: the discrete Laplace
  distribution ``P(x) ∝ exp(-|x| s/t)`` with rational scale ``t/s``, built from
  ``U ~ Uniform{0..t-1}`` accepted with probability ``exp(-U/t)``, a geometric
  ``V`` (number of successes of Bernoulli(exp(-1)) before the first failure),
  ``Y = floor((U + tV)/s)``, a random sign, and rejection of "negative zero".
- :func:`discrete_gaussian` implements CKS20 **Algorithm 3**: the discrete Gaussian
  ``P(x) ∝ exp(-(x-mu)^2 / (2 sigma^2))`` with rational ``sigma^2``, by rejection from
  the discrete Laplace with scale ``t = floor(sigma) + 1``: a candidate ``Y`` is accepted
  with probability ``exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2))``.  ``floor(sigma)`` is
  computed exactly as ``isqrt(floor(sigma^2))``.

Exactness
---------
The only source of randomness is ``numpy.random.Generator.integers`` (exact uniform
integers on a range, Lemire's method); there is no ``random()``, no float and no
``exp`` anywhere in the sampling path.  A Bernoulli(a/b) with integers ``0 <= a <= b`` is
``[U < a]`` for ``U`` uniform on ``{0, ..., b-1}``.

Arithmetic runs on numpy ``int64`` arrays whenever every intermediate integer provably
fits; the bounds are checked with Python integers before each step (e.g. ``den * k <=
2**63 - 1`` before each round of the K loop, ``max|Y| * t * q <= isqrt(2**63 - 1)`` before
squaring).  Otherwise the step runs on ``object`` arrays of Python integers, and
Bernoulli(a/b) with ``b >= 2**63`` compares a stream of uniform 63-bit words with the
binary expansion of ``a/b`` (exact, and almost always decided by the first word).  Nothing
ever overflows silently: a sample that does not fit in ``int64`` raises ``OverflowError``.

Vectorisation
-------------
Every rejection loop is a loop over *rounds* acting on numpy arrays of candidates: draw a
batch, keep the accepted ones, and draw a new batch only for the samples still missing
(the batch size is the number missing times the observed overdraw ratio, in integer
arithmetic).  Loops over ``k`` (Algorithm 1) and over ``V`` (Algorithm 2) carry an array of
indices of still-active elements.  There is no Python loop per sample.

Return convention: as for ``numpy.random.Generator.integers``, ``size=None`` returns a numpy
scalar (``numpy.int64``); otherwise an ``int64`` array of shape ``size``.
:func:`bernoulli_exp` returns an array of the broadcast shape of ``num`` and ``den``, or a
``numpy.bool_`` scalar when both are scalars.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable
from fractions import Fraction

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import (
    as_rng,
    check_int,
    check_positive_fraction,
    check_size,
)

__all__ = ["bernoulli_exp", "discrete_laplace", "discrete_gaussian"]

_I64_MAX = (1 << 63) - 1
_I64_MIN = -(1 << 63)
_SQRT_I64_MAX = math.isqrt(_I64_MAX)  # |a| <= this  =>  a*a fits in int64
_WORD_BITS = 63  # bits per uniform word in the big-integer Bernoulli
_MAX_BATCH = 1 << 20  # candidates per batch (bounds memory; large enough to amortise calls)


# --------------------------------------------------------------------------------------
# Bernoulli(a/b) from uniform integers (int64 path and big-integer path).
# --------------------------------------------------------------------------------------


def _as_object(x):
    """``x`` as an object array of Python ints (a Python int is returned unchanged)."""
    if isinstance(x, np.ndarray) and x.dtype != object:
        return x.astype(object)
    return x


def _is_int64_ok(b) -> bool:
    """True if ``b`` (Python int or array) is usable as an ``int64`` bound."""
    if isinstance(b, np.ndarray):
        return b.dtype != object
    return b <= _I64_MAX


def _bern_ratio(a: np.ndarray, b, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(a/b) elementwise, for integers ``0 <= a <= b``, ``b >= 1``.

    ``a`` is a 1-d ``int64`` or object array; ``b`` a Python int or an array like ``a``.
    int64 path: ``U = rng.integers(0, b)`` and ``U < a``.  Otherwise
    :func:`_bern_ratio_big`.
    """
    if a.size == 0:
        return np.zeros(0, dtype=bool)
    if a.dtype != object and _is_int64_ok(b):
        return rng.integers(0, b, size=a.size) < a
    return _bern_ratio_big(a, b, rng)


def _bern_ratio_big(a, b, rng: np.random.Generator, bits: int = _WORD_BITS) -> np.ndarray:
    """Bernoulli(a/b) for big integers, ``0 <= a <= b``, by lazy binary expansion.

    With ``x = a/b`` in ``[0, 1]``, let ``w = floor(2**bits * x)`` and draw ``R`` uniform on
    ``{0, ..., 2**bits - 1}``: output 1 if ``R < w``, 0 if ``R > w``, and on a tie (probability
    ``2**-bits``) repeat with ``x <- frac(2**bits * x)``.  This is the comparison of a
    uniform real in ``[0, 1)`` with ``x``, digit by digit, so P(1) = a/b exactly.
    ``bits`` is a parameter only so that the tie branch can be tested with small words.
    """
    rem = _as_object(np.asarray(a))
    den = _as_object(b)
    m = rem.size
    out = np.zeros(m, dtype=bool)
    idx = np.arange(m)
    top = 1 << bits
    while idx.size:
        shifted = rem << bits
        w = shifted // den  # object array, values in [0, 2**bits]
        r = rng.integers(0, top, size=idx.size, dtype=np.int64).astype(np.uint64)
        w64 = w.astype(np.uint64)  # exact: 0 <= w <= 2**63 < 2**64
        out[idx[r < w64]] = True
        tie = r == w64
        if not tie.any():
            break
        idx = idx[tie]
        rem = (shifted - w * den)[tie]
        if isinstance(den, np.ndarray):
            den = den[tie]
    return out


# --------------------------------------------------------------------------------------
# CKS20 Algorithm 1
# --------------------------------------------------------------------------------------


def _small_uint_dtype(k: int):
    """Narrowest dtype for ``rng.integers(0, k)`` (fewer random bits consumed, same law)."""
    return np.uint8 if k <= 0xFF else np.int64


def _bern_exp_minus_one(m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` independent Bernoulli(exp(-1)): Algorithm 1 with ``gamma = 1``.

    Round ``k = 1`` draws Bernoulli(1/1) = 1 surely, so the loop starts at ``k = 2`` with
    ``A_k = [U_k == 0]``, ``U_k`` uniform on ``{0..k-1}``; output ``[K odd]``.  ``out``
    starts at 0, so only rounds with odd ``k`` write.
    """
    out = np.zeros(m, dtype=bool)
    # k = 2: U_2 uniform on {0, 1}; elements with U_2 != 0 stop with K = 2 (even -> 0).
    idx = np.flatnonzero(~rng.integers(0, 2, size=m, dtype=bool))
    k = 3
    while idx.size:
        stop = rng.integers(0, k, size=idx.size, dtype=_small_uint_dtype(k)) != 0
        if k & 1:
            out[idx[stop]] = True
        idx = idx[~stop]
        k += 1
    return out


def _bern_exp_unit(num: np.ndarray, den, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num/den)) elementwise for ``0 <= num <= den`` (the K loop).

    ``num``: 1-d int64/object array; ``den``: Python int (shared) or array like ``num``.
    Round ``k`` draws ``A_k ~ Bernoulli(num / (den*k))`` for the still-active elements; an
    element stops at the first ``A_k = 0`` with output ``[k odd]``.  ``den*k`` is formed in
    int64 only if ``max(den) * k <= 2**63 - 1`` (checked exactly), else with Python ints.
    """
    m = num.size
    out = np.zeros(m, dtype=bool)
    if m == 0:
        return out
    shared = not isinstance(den, np.ndarray)
    den_max = den if shared else int(den.max())
    idx = None  # None means "all of 0..m-1" (saves building and gathering an arange)
    k = 1
    while True:
        if shared:
            dk = den * k
        elif den.dtype != object and den_max * k <= _I64_MAX:
            dk = den * k
        else:
            dk = _as_object(den) * k
        a = num
        if not _is_int64_ok(dk) and a.dtype != object:
            a = a.astype(object)
        cont = _bern_ratio(a, dk, rng)
        if k & 1:  # elements stopping now have K = k odd -> 1
            stop = np.flatnonzero(~cont)
            out[stop if idx is None else idx[stop]] = True
        keep = np.flatnonzero(cont)
        if keep.size == 0:
            return out
        idx = keep if idx is None else idx[keep]
        num = num[keep]
        if not shared:
            den = den[keep]
        k += 1


def _bern_exp_core(num: np.ndarray, den, rng: np.random.Generator) -> np.ndarray:
    """Bernoulli(exp(-num/den)) elementwise for ``num >= 0``, ``den >= 1`` (1-d arrays).

    ``gamma = q + r/den`` with ``q = num // den``: first ``q`` factors Bernoulli(exp(-1)),
    processed in rounds with early exit (an element leaves at its first failure or once it
    has passed ``q`` factors), then Bernoulli(exp(-r/den)) for the survivors with ``r > 0``.
    """
    m = num.size
    out = np.ones(m, dtype=bool)
    if m == 0:
        return out
    if num.dtype != object and not _is_int64_ok(den):
        num = num.astype(object)
    if isinstance(den, np.ndarray) and (num.dtype == object) != (den.dtype == object):
        num, den = _as_object(num), _as_object(den)
    q = num // den
    r = num - q * den  # q*den <= num: no overflow in int64
    if r.dtype == object:  # 0 <= r < den: back to int64 when den fits (checked exactly)
        den_max = int(den.max()) if isinstance(den, np.ndarray) else den
        if den_max <= _I64_MAX:
            r = r.astype(np.int64)
            if isinstance(den, np.ndarray):
                den = den.astype(np.int64)
    idx = np.flatnonzero(q > 0)
    j = 1
    while idx.size:
        ok = _bern_exp_minus_one(idx.size, rng)
        out[idx[~ok]] = False
        idx = idx[ok]
        j += 1
        idx = idx[q[idx] >= j]
    idx = np.flatnonzero(out & (r > 0))  # r == 0: exp(-0) = 1, nothing to draw
    if idx.size:
        sub_den = den[idx] if isinstance(den, np.ndarray) else den
        out[idx] = _bern_exp_unit(r[idx], sub_den, rng)
    return out


# --------------------------------------------------------------------------------------
# CKS20 Algorithm 2
# --------------------------------------------------------------------------------------


def _uniform_below(t: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """``m`` uniform integers on ``{0, ..., t-1}`` (int64 if ``t <= 2**63 - 1``, else object).

    Big case: ``nbits = (t-1).bit_length()`` uniform bits from 63-bit words, rejected if
    ``>= t`` (acceptance > 1/2), redrawn only for the rejected positions.
    """
    if t <= _I64_MAX:
        return rng.integers(0, t, size=m)
    nbits = (t - 1).bit_length()
    nwords = -(-nbits // _WORD_BITS)
    drop = nwords * _WORD_BITS - nbits
    out = np.empty(m, dtype=object)
    idx = np.arange(m)
    while idx.size:
        words = rng.integers(0, 1 << _WORD_BITS, size=(nwords, idx.size), dtype=np.int64)
        val = words[0].astype(object)
        for w in words[1:]:
            val = (val << _WORD_BITS) | w.astype(object)
        val = val >> drop
        ok = val < t
        out[idx[ok]] = val[ok]
        idx = idx[~ok]
    return out


def _geometric_e1(m: int, rng: np.random.Generator) -> np.ndarray:
    """``V`` = number of successes of Bernoulli(exp(-1)) before the first failure (int64)."""
    v = np.zeros(m, dtype=np.int64)
    idx = np.flatnonzero(_bern_exp_minus_one(m, rng))
    while idx.size:
        v[idx] += 1
        idx = idx[np.flatnonzero(_bern_exp_minus_one(idx.size, rng))]
    return v


def _to_int64_checked(x: np.ndarray) -> np.ndarray:
    """int64 copy of an integer array; ``OverflowError`` if a value does not fit."""
    if x.dtype != object:
        return x
    if x.size and (int(x.max()) > _I64_MAX or int(x.min()) < _I64_MIN):
        raise OverflowError("a sample does not fit in int64 (scale too large)")
    return x.astype(np.int64)


def _dlap_batch(t: int, s: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Run Algorithm 2 (scale ``t/s``) on ``m`` candidates; return the accepted (int64)."""
    u = _uniform_below(t, m, rng)
    if t > 1:
        u = u[np.flatnonzero(_bern_exp_unit(u, t, rng))]  # D ~ Bernoulli(exp(-U/t))
    m = u.size
    v = _geometric_e1(m, rng)
    vmax = int(v.max()) if m else 0
    if u.dtype != object and (t - 1) + t * vmax <= _I64_MAX:
        x = u + t * v  # exact in int64 by the check above
    else:
        x = _as_object(u) + t * v.astype(object)
    if s != 1:
        if x.dtype != object and s > _I64_MAX:
            x = x.astype(object)
        x = x // s
    neg = rng.integers(0, 2, size=m, dtype=bool)  # B ~ Bernoulli(1/2)
    keep = ~(neg & (x == 0))  # reject (B = 1, Y = 0)
    y = _to_int64_checked(x[keep])
    neg = neg[keep]
    np.negative(y, out=y, where=neg)
    return y


# --------------------------------------------------------------------------------------
# CKS20 Algorithm 3
# --------------------------------------------------------------------------------------


def _dgauss_batch(p: int, q: int, t: int, m: int, rng: np.random.Generator) -> np.ndarray:
    """Run Algorithm 3 (``sigma^2 = p/q``, ``t = floor(sigma)+1``) on ``m`` candidates.

    ``exp(-(|Y| - sigma^2/t)^2 / (2 sigma^2)) = exp(-a^2 / den)`` with ``a = |Y| t q - p`` and
    ``den = 2 p q t^2`` (integers).  Candidates with ``|a| <= isqrt(2**63-1)`` (checked via
    ``|Y| <= isqrt(2**63-1) // (t q)`` and ``p <= isqrt(2**63-1)``) use int64; the rest use
    Python ints.
    """
    y = _dlap_batch(t, 1, m, rng)
    absy = np.abs(y)  # |y| <= 2**63-1: _dlap_batch never returns -2**63 (it negates y >= 0)
    tq = t * q
    den = 2 * p * q * t * t
    accept = np.empty(y.size, dtype=bool)
    if den <= _I64_MAX and p <= _SQRT_I64_MAX:
        small = absy <= _SQRT_I64_MAX // tq
    else:
        small = np.zeros(y.size, dtype=bool)
    if small.any():
        a = absy[small] * tq - p  # |a| <= isqrt(2**63-1)
        accept[small] = _bern_exp_core(a * a, den, rng)
    big = ~small
    if big.any():
        a = absy[big].astype(object) * tq - p
        accept[big] = _bern_exp_core(a * a, den, rng)
    return y[accept]


# --------------------------------------------------------------------------------------
# Batching and argument handling
# --------------------------------------------------------------------------------------


def _fill(batch: Callable[[int], np.ndarray], n: int, first_overdraw: Fraction) -> np.ndarray:
    """``n`` accepted samples from repeated calls ``batch(m)`` (m candidates each).

    The batch size is ``missing * drawn / accepted`` (observed overdraw ratio, plus 10% and
    a constant), all in integer arithmetic; surplus accepted samples are dropped, which
    does not bias anything because candidates are i.i.d.
    """
    out = np.empty(n, dtype=np.int64)
    filled = drawn = accepted = empty_rounds = 0
    while filled < n:
        need = n - filled
        if accepted == 0:  # no estimate yet: the initial guess, doubled after empty batches
            ratio = first_overdraw * (1 << min(empty_rounds, 20))
            m = need * ratio.numerator // ratio.denominator + 16
            empty_rounds += 1
        else:
            m = (11 * need * drawn) // (10 * accepted) + 16
        m = min(m, _MAX_BATCH)
        got = batch(m)
        drawn += m
        accepted += got.size
        take = min(got.size, need)
        out[filled : filled + take] = got[:take]
        filled += take
    return out


def _shape_output(flat: np.ndarray, size):
    if size is None:
        return flat[0]
    return flat.reshape(size)


def _n_elements(size) -> int:
    if size is None:
        return 1
    if isinstance(size, tuple):
        return math.prod(size)
    return size


def _int_array(name: str, x) -> np.ndarray:
    """Integer argument (Python/numpy int or array of them) as an int64 or object array."""
    if isinstance(x, bool) or isinstance(x, np.bool_):
        raise ParameterError(f"{name} must be an integer or an integer array, got bool")
    arr = np.asarray(x)
    if arr.dtype == bool:
        raise ParameterError(f"{name} must be integer-valued, got a bool array")
    if arr.dtype == object:
        flat = arr.ravel()
        for v in flat:
            if isinstance(v, (bool, np.bool_)) or not isinstance(v, numbers.Integral):
                raise ParameterError(f"{name} must contain integers only, got {v!r}")
        arr = np.array([int(v) for v in flat], dtype=object).reshape(arr.shape)
        if arr.size and _I64_MIN <= int(arr.min()) and int(arr.max()) <= _I64_MAX:
            arr = arr.astype(np.int64)
        return arr
    if not np.issubdtype(arr.dtype, np.integer):
        raise ParameterError(f"{name} must be integer-valued, got dtype {arr.dtype}")
    if arr.dtype == np.uint64 and arr.size and int(arr.max()) > _I64_MAX:
        return arr.astype(object)
    return arr.astype(np.int64)


# --------------------------------------------------------------------------------------
# Public API
# --------------------------------------------------------------------------------------


def bernoulli_exp(num, den, rng) -> np.ndarray:
    """Exact Bernoulli(exp(-num/den)) samples (CKS20 Algorithm 1), no floating point.

    Parameters
    ----------
    num, den:
        Integers or integer arrays (any size: Python ints beyond int64 are handled with
        big-integer arithmetic), broadcast together; ``gamma = num/den`` with ``num >= 0``
        and ``den >= 1``.  One independent draw per broadcast element.
    rng:
        ``numpy.random.Generator`` (or a seed / ``SeedSequence`` / ``None``, see
        :func:`privtools.validation.as_rng`).  Only ``rng.integers`` is used.

    Returns
    -------
    Boolean array of the broadcast shape with ``P(True) = exp(-num/den)`` per element, or a
    ``numpy.bool_`` scalar when ``num`` and ``den`` are both scalars.
    """
    num_a = _int_array("num", num)
    den_a = _int_array("den", den)
    if num_a.size and int(num_a.min()) < 0:
        raise ParameterError("num must be >= 0 (gamma = num/den >= 0)")
    if den_a.size and int(den_a.min()) < 1:
        raise ParameterError("den must be >= 1")
    try:
        shape = np.broadcast_shapes(num_a.shape, den_a.shape)
    except ValueError as exc:
        raise ParameterError(
            f"num and den cannot be broadcast together: {num_a.shape} vs {den_a.shape}"
        ) from exc
    gen = as_rng(rng, secure=True)
    flat_num = np.broadcast_to(num_a, shape).ravel()
    if den_a.ndim == 0:
        den_arg = int(den_a)
    else:
        den_arg = np.broadcast_to(den_a, shape).ravel()
        if flat_num.dtype == object or den_arg.dtype == object:
            flat_num, den_arg = _as_object(flat_num), _as_object(den_arg)
    out = _bern_exp_core(flat_num, den_arg, gen).reshape(shape)
    return out[()] if out.ndim == 0 else out


def discrete_laplace(scale, size=None, rng=None) -> np.ndarray:
    """Exact discrete Laplace samples, ``P(x) ∝ exp(-|x|/scale)`` on the integers.

    CKS20 Algorithm 2 with ``scale = t/s`` in lowest terms; no floating point.

    Parameters
    ----------
    scale:
        Exact rational > 0: ``Fraction``, ``int`` or decimal string (``"0.5"`` is 1/2).  A
        float is taken as its exact binary value (``0.1`` is not 1/10).
    size:
        ``None``, an int or a tuple of ints (>= 0).
    rng:
        ``numpy.random.Generator``, seed, ``SeedSequence`` or ``None``; only
        ``rng.integers`` is called.

    Returns
    -------
    ``int64`` array of shape ``size``, or a ``numpy.int64`` scalar if ``size is None``.
    Raises ``OverflowError`` if a sample does not fit in int64 (only plausible for scales
    beyond ~2**57).
    """
    scale_f = check_positive_fraction("scale", scale)
    size = check_size(size)
    gen = as_rng(rng, secure=True)
    t, s = scale_f.numerator, scale_f.denominator
    n = _n_elements(size)
    flat = _fill(lambda m: _dlap_batch(t, s, m, gen), n, Fraction(2))
    return _shape_output(flat, size)


def discrete_gaussian(sigma2, mu=0, size=None, rng=None) -> np.ndarray:
    """Exact discrete Gaussian samples, ``P(x) ∝ exp(-(x-mu)^2 / (2 sigma2))``.

    CKS20 Algorithm 3: rejection from the discrete Laplace with scale
    ``t = floor(sigma) + 1`` (``floor(sigma) = isqrt(floor(sigma2))``, exact); no floating
    point.

    Parameters
    ----------
    sigma2:
        Exact rational variance parameter > 0 (``Fraction``, ``int`` or decimal string; a
        float is taken as its exact binary value).
    mu:
        Integer location (must fit in int64).
    size:
        ``None``, an int or a tuple of ints (>= 0).
    rng:
        ``numpy.random.Generator``, seed, ``SeedSequence`` or ``None``; only
        ``rng.integers`` is called.

    Returns
    -------
    ``int64`` array of shape ``size``, or a ``numpy.int64`` scalar if ``size is None``.
    Raises ``OverflowError`` if ``mu + noise`` does not fit in int64.
    """
    sigma2_f = check_positive_fraction("sigma2", sigma2)
    mu_i = check_int("mu", mu)
    if not _I64_MIN <= mu_i <= _I64_MAX:
        raise ParameterError(f"mu must fit in int64, got {mu_i}")
    size = check_size(size)
    gen = as_rng(rng, secure=True)
    p, q = sigma2_f.numerator, sigma2_f.denominator
    t = math.isqrt(p // q) + 1
    n = _n_elements(size)
    flat = _fill(lambda m: _dgauss_batch(p, q, t, m, gen), n, Fraction(3))
    if mu_i and flat.size:
        if int(flat.max()) + mu_i > _I64_MAX or int(flat.min()) + mu_i < _I64_MIN:
            raise OverflowError("mu + noise does not fit in int64")
        flat += mu_i
    return _shape_output(flat, size)
