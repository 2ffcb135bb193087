"""Float cross-checks of the shift divergences (no certificate): log-space sums of the
float logpmf over a grid widened until its ends are negligible."""

from __future__ import annotations

import math

import numpy as np
from scipy.special import logsumexp

from privtools.certified import balls as _arb
from privtools.errors import CertificationError, ParameterError
from privtools.noise import IntegerDistribution
from privtools.validation import check_int, check_nonneg, check_order


# =========================================================================== float versions
def _symmetric(noise) -> bool:
    return noise.symmetric


def _float_directions(noise, sensitivity: int) -> list[int]:
    d = abs(sensitivity)
    return [d] if _symmetric(noise) else [d, -d]


def _float_window(noise, d: int, weight, span: float = 45.0, mass=None,
                  mass_span: float = 800.0):
    """Grid [lo, hi] (in y) whose ends are ``span`` nats below the largest ``weight`` (log
    terms) — found by strided scans and doubling. Returns (lo, hi, flag) with flag
    "inf" (a term is +inf), "zero" (no finite term where ``mass`` is within ``mass_span``
    nats of its maximum) or "ok"."""
    c = int(round(noise.mean()))
    sd = max(float(noise.std()), 1.0)
    lo = c - abs(d) - int(12 * sd) - 8
    hi = c + abs(d) + int(12 * sd) + 8
    for _ in range(80):
        ys = np.unique(np.linspace(lo, hi, 4001).astype(np.int64))
        w = weight(ys)
        if np.isposinf(w).any():
            return lo, hi, "inf"
        finite = np.isfinite(w)
        width = hi - lo
        if not finite.any():
            if mass is None:
                return lo, hi, "zero"
            mm = mass(ys)
            top_m = np.max(mm)
            if mm[0] < top_m - mass_span and mm[-1] < top_m - mass_span:
                return lo, hi, "zero"
            lo, hi = lo - width, hi + width
            continue
        top = np.max(w[finite])
        grow_lo = bool(finite[0] and w[0] > top - span)
        grow_hi = bool(finite[-1] and w[-1] > top - span)
        if not (grow_lo or grow_hi):
            return lo, hi, "ok"
        if grow_lo:
            lo -= width
        if grow_hi:
            hi += width
    raise CertificationError("float window search did not converge")


def _chunked_logsumexp(weight, lo: int, hi: int, chunk: int = 1 << 20) -> float:
    parts = []
    for s in range(lo, hi + 1, chunk):
        ys = np.arange(s, min(hi, s + chunk - 1) + 1, dtype=np.int64)
        parts.append(float(logsumexp(weight(ys))))
    return float(logsumexp(parts))


def renyi_float(noise, sensitivity: int, alpha) -> float:
    """Float ``D_α(noise + Δ ‖ noise)`` (max of both directions for Pólya) from the float
    ``logpmf`` summed in log space; ``alpha = math.inf`` uses the closed forms of
    :func:`renyi_shift`. No certificate: a fast cross-check."""
    if not isinstance(noise, IntegerDistribution):
        raise ParameterError(f"noise must be a privtools distribution, got {type(noise).__name__}")
    delta = check_int("sensitivity", sensitivity)
    a = check_order("alpha", alpha, infinite=True)
    if delta == 0:
        return 0.0
    d = abs(delta)
    if a == math.inf:
        if noise.support_lower is not None:
            return math.inf
        with _arb.precision(128):
            v = noise.shift_llr_ball(d)
        return math.inf if v is None else float(v)
    af = float(a)
    out = 0.0
    for dd in _float_directions(noise, delta):
        def weight(ys, dd=dd):
            lp1 = noise.logpmf(ys)
            lp2 = noise.logpmf(ys + dd)
            with np.errstate(invalid="ignore"):
                w = af * lp1 + (1 - af) * lp2
            w = np.where(np.isneginf(lp1), -np.inf, w)
            return np.where(np.isfinite(lp1) & np.isneginf(lp2), np.inf, w)

        lo, hi, flag = _float_window(noise, dd, weight)
        if flag == "inf":
            return math.inf
        out = max(out, _chunked_logsumexp(weight, lo, hi) / (af - 1))
    return max(out, 0.0)


def hockey_stick_float(noise, sensitivity: int, eps) -> float:
    """Float ``δ(ε)`` between ``noise + Δ`` and ``noise`` (max of both directions for
    Pólya): ``Σ_{y: L(y) > ε} p(y)(1 − e^{ε − L(y)})``, ``L(y) = log p(y)/p(y+Δ)``, in log
    space. No certificate: a fast cross-check."""
    if not isinstance(noise, IntegerDistribution):
        raise ParameterError(f"noise must be a privtools distribution, got {type(noise).__name__}")
    delta = check_int("sensitivity", sensitivity)
    e = float(check_nonneg("eps", eps))
    if delta == 0:
        return 0.0
    out = 0.0
    for dd in _float_directions(noise, delta):
        def weight(ys, dd=dd):
            lp1 = noise.logpmf(ys)
            lp2 = noise.logpmf(ys + dd)
            with np.errstate(invalid="ignore"):
                loss = lp1 - lp2
            loss = np.where(np.isneginf(lp2) & np.isfinite(lp1), np.inf, loss)
            w = np.full(ys.shape, -np.inf)
            pos = loss > e
            with np.errstate(divide="ignore"):
                w[pos] = lp1[pos] + np.log(-np.expm1(e - loss[pos]))
            return w

        def mass(ys, dd=dd):
            return np.asarray(noise.logpmf(ys), dtype=float)

        lo, hi, flag = _float_window(noise, dd, weight, mass=mass)
        if flag == "zero":
            continue
        val = _chunked_logsumexp(weight, lo, hi)
        out = max(out, math.exp(val) if val > -np.inf else 0.0)
    return out

