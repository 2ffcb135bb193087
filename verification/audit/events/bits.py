"""Readings of the IEEE-754 binary64 representation of float outputs, vectorised.

A finite double is ``x = (−1)^s · m · 2^q`` with an integer significand ``m < 2^53``; its
encoding holds a sign bit, an 11-bit biased exponent and the 52-bit mantissa field (the
significand without its leading bit). The readings here are the quantities the bit-level
events of :mod:`verification.audit.events` and the bit test of
:func:`verification.audit.audit_sampler` compare between two samples:

* :func:`low_bits` — the ``k`` lowest bits of the mantissa field;
* :func:`binade` — ``e = ⌊log₂|x|⌋``, the binade ``[2^e, 2^(e+1))`` of ``|x|``;
* :func:`lowest_set_bit` — the exponent ``t`` of the lowest set bit of ``x``, i.e. the
  largest ``t`` with ``x ∈ 2^t·ℤ`` (the finest power-of-two lattice holding ``x``);
* :func:`trailing_zeros` — how many of the mantissa field's low bits are zero.

Non-finite values get negative codes of their own (:data:`NAN`, :data:`POS_INF`,
:data:`NEG_INF`) wherever a reading returns integer codes.
"""

from __future__ import annotations

import numpy as np

__all__ = ["NAN", "POS_INF", "NEG_INF", "as_float64", "fields", "low_bits", "binade",
           "binade_code", "binade_label", "lowest_set_bit", "trailing_zeros",
           "special_label"]

NAN, POS_INF, NEG_INF = -1, -2, -3
_SPECIAL = {NAN: "NaN", POS_INF: "inf", NEG_INF: "-inf"}
_FIELD = np.uint64((1 << 52) - 1)
_BINADE_OFFSET = 1100      # binade codes: 2·(e + offset) + sign, so every code is >= 2


def as_float64(x) -> np.ndarray:
    """``x`` as a contiguous float64 array (its encoding readable through ``view``)."""
    return np.ascontiguousarray(x, dtype=np.float64)


def fields(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(sign bit, biased exponent, mantissa field) of each double, as int64, int64, uint64."""
    u = as_float64(x).view(np.uint64)
    sign = (u >> np.uint64(63)).astype(np.int64)
    expo = ((u >> np.uint64(52)) & np.uint64(0x7FF)).astype(np.int64)
    return sign, expo, u & _FIELD


def _special_codes(x: np.ndarray) -> np.ndarray:
    """NAN / POS_INF / NEG_INF where ``x`` is not finite, 0 elsewhere."""
    out = np.zeros(x.shape, dtype=np.int64)
    out[np.isnan(x)] = NAN
    out[np.isposinf(x)] = POS_INF
    out[np.isneginf(x)] = NEG_INF
    return out


def special_label(code: int) -> str | None:
    return _SPECIAL.get(int(code))


def low_bits(x, k: int, skip: int = 0) -> np.ndarray:
    """The ``k`` lowest bits of the mantissa field above its ``skip`` lowest, as an integer
    in ``[0, 2^k)`` (int64); non-finite values get their negative codes."""
    x = as_float64(x)
    _, _, mant = fields(x)
    out = ((mant >> np.uint64(skip)) & np.uint64((1 << k) - 1)).astype(np.int64)
    bad = ~np.isfinite(x)
    if bad.any():
        out[bad] = _special_codes(x[bad])
    return out


def binade(x) -> np.ndarray:
    """``⌊log₂|x|⌋`` for finite non-zero ``x`` (subnormals included), as int64; 0 elsewhere
    (read :func:`binade_code` to tell zero and non-finite values apart)."""
    x = as_float64(x)
    _, e = np.frexp(x)           # x = m·2^e with 0.5 <= |m| < 1, exact for every double
    out = e.astype(np.int64) - 1
    out[~np.isfinite(x) | (x == 0)] = 0
    return out


def binade_code(x) -> np.ndarray:
    """One integer per signed binade: ``2·(e + 1100) + sign`` for finite non-zero ``x``, 0
    for +0.0, 1 for −0.0, and the negative codes for non-finite values."""
    x = as_float64(x)
    sign, _, _ = fields(x)
    code = 2 * (binade(x) + _BINADE_OFFSET) + sign
    zero = x == 0
    code[zero] = sign[zero]
    bad = ~np.isfinite(x)
    if bad.any():
        code[bad] = _special_codes(x[bad])
    return code


def _power(e: int) -> str:
    return "1" if e == 0 else "2" if e == 1 else f"2^{e}"


def binade_label(code: int) -> str:
    """The binade a :func:`binade_code` stands for, e.g. ``[2^-3, 2^-2)`` or ``(-2, -1]``."""
    code = int(code)
    if code < 0:
        return _SPECIAL[code]
    if code < 2:
        return "-0" if code else "0"
    e, sign = code // 2 - _BINADE_OFFSET, code % 2
    if sign:
        return f"(-{_power(e + 1)}, -{_power(e)}]"
    return f"[{_power(e)}, {_power(e + 1)})"


def _lowest_bit_exponent(v: np.ndarray) -> np.ndarray:
    """Exponent of the lowest set bit of non-zero uint64 values (exact: the isolated bit is a
    power of two, converted to float64 without rounding)."""
    low = v & (~v + np.uint64(1))
    _, e = np.frexp(low.astype(np.float64))
    return e.astype(np.int64) - 1


def trailing_zeros(x, skip: int = 0) -> np.ndarray:
    """How many low bits of the mantissa field are zero (52 when the field is 0), as int64;
    the negative codes for non-finite values. ``skip`` drops that many lowest bits first
    (the count is then of the field's bits ``skip, skip + 1, …``, at most ``52 − skip``)."""
    x = as_float64(x)
    _, _, mant = fields(x)
    mant = mant >> np.uint64(skip)
    out = np.full(x.shape, 52 - skip, dtype=np.int64)
    nz = mant != 0
    out[nz] = _lowest_bit_exponent(mant[nz])
    bad = ~np.isfinite(x)
    if bad.any():
        out[bad] = _special_codes(x[bad])
    return out


def lowest_set_bit(x) -> np.ndarray:
    """The exponent ``t`` of the lowest set bit of each finite non-zero double (``x`` is an odd
    multiple of ``2^t``), as float64; ``+inf`` for zero (a multiple of every power of two)
    and NaN for non-finite values."""
    x = as_float64(x)
    out = np.full(x.shape, np.nan)
    ok = np.isfinite(x) & (x != 0)
    m, e = np.frexp(x[ok])
    sig = np.abs(np.ldexp(m, 53)).astype(np.uint64)     # the integer significand, exact
    out[ok] = (e.astype(np.int64) - 53 + _lowest_bit_exponent(sig)).astype(np.float64)
    out[x == 0] = np.inf
    return out
