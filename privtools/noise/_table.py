"""Fast float sampling by table: an alias urn over the central range plus exact-tail
inversion.

The central range [lo, hi] holds all but ~1e-12 of the mass; its PMF (float, relative
accuracy ~1e-14, tested) feeds scipy's UNU.RAN alias-urn sampler (Walker's alias method,
O(1) per draw, in C). Two extra urn categories carry the left and right tail masses; a
draw that lands there is resolved by inverting the tail's CDF, computed from the
distribution's log-space ``logcdf``/``logsf`` (relative-accurate far into the tails), by
vectorized bisection. So the law sampled is the distribution's own float PMF everywhere,
tails included — not a truncation.
"""

from __future__ import annotations

import math

import numpy as np
from scipy.stats.sampling import DiscreteAliasUrn

# Mass left to the two tail categories; small enough that the inversion path is rare,
# large enough that the table stays short.
_TAIL_MASS = 1e-12
# Sparse drawing (module docstring) when the non-modal mass is at most this, for requests
# of at least this many draws (below it the fixed cost of choosing positions dominates).
_SPARSE_MAX_OTHER = 0.05
_SPARSE_MIN_SIZE = 4096
# Tables longer than this are not built (the caller falls back to its mixture sampler).
MAX_TABLE = 1 << 22


class TableSampler:
    """Alias-urn sampler for an integer distribution (see module docstring)."""

    def __init__(self, dist):
        self.dist = dist
        log_side = math.log(_TAIL_MASS / 2)
        # The cut need not be precise: the tails beyond it are sampled by inversion.
        self.hi = dist._float_upper_quantile(log_side, rel_tol=0.02)
        if dist.symmetric:
            self.lo = 2 * dist.center - self.hi  # P(X < lo) = P(X > hi)
        else:
            self.lo = dist._float_lower_quantile(log_side)
        if self.hi - self.lo + 1 > MAX_TABLE:
            raise OverflowError("table too large")
        self.p_low = float(np.exp(dist._logcdf(np.array([self.lo - 1]))[0]))
        self.p_high = float(np.exp(dist._logsf(np.array([self.hi]))[0]))
        self.log_low = float(dist._logcdf(np.array([self.lo - 1]))[0])
        self.log_high = float(dist._logsf(np.array([self.hi]))[0])
        weights = np.concatenate([np.exp(dist._table_logpmf(self.lo, self.hi)),
                                  [self.p_low, self.p_high]])
        self.n_core = self.hi - self.lo + 1
        self._urn = DiscreteAliasUrn(weights, random_state=np.random.default_rng(0))
        j = int(np.argmax(weights[:self.n_core]))
        others = weights.copy()
        others[j] = 0.0
        # summed directly (not 1 − p_mode) so that p_other keeps its relative accuracy
        self.p_other = float(others.sum() / weights.sum())
        self.mode = self.lo + j
        self.sparse = self.p_other <= _SPARSE_MAX_OTHER
        self._urn_other = (DiscreteAliasUrn(others, random_state=np.random.default_rng(0))
                           if self.sparse and self.p_other > 0 else None)

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        shape = () if size is None else size
        n = int(np.prod(shape)) if shape != () else 1
        if self.sparse and n >= _SPARSE_MIN_SIZE:
            out = np.full(n, self.mode, dtype=np.int64)
            k = int(rng.binomial(n, self.p_other)) if self._urn_other is not None else 0
            if k:
                where = rng.choice(n, k, replace=False, shuffle=False)
                out[where] = self._draw(self._urn_other, k, rng)
            return out.reshape(shape)
        return self._draw(self._urn, n, rng).reshape(shape)

    def _draw(self, urn, n: int, rng: np.random.Generator) -> np.ndarray:
        """n draws from ``urn`` (core categories plus the two tail categories), tails
        resolved by inversion."""
        out = np.asarray(urn.rvs(n, random_state=rng), dtype=np.int64)
        if n and out.max() >= self.n_core:  # a tail category was drawn (rare)
            low = out == self.n_core
            high = out == self.n_core + 1
            out += self.lo
            if low.any():
                out[low] = self._invert_low(rng.random(int(low.sum())))
            if high.any():
                out[high] = self._invert_high(rng.random(int(high.sum())))
        else:
            out += self.lo
        return out

    def _invert_high(self, u: np.ndarray) -> np.ndarray:
        """Smallest k > hi with P(X > k | X > hi) <= 1 − u."""
        target = self.log_high + np.log1p(-u)
        a = np.full(u.shape, self.hi, dtype=np.int64)   # logsf(a) > target
        step = max(1, int(math.sqrt(max(self.dist.var(), 1.0))))
        b = a + step
        while True:
            above = _unique_eval(self.dist._logsf, b) > target
            if not above.any():
                break
            a = np.where(above, b, a)
            b = np.where(above, b + 2 * (b - self.hi), b)
        return _bisect(lambda x: _unique_eval(self.dist._logsf, x) > target, a, b)

    def _invert_low(self, u: np.ndarray) -> np.ndarray:
        """Largest k < lo with P(X < k | X < lo) <= u, i.e. the u-quantile of the left tail:
        the smallest k with cdf(k) >= u·cdf(lo − 1)."""
        target = self.log_low + np.log(u)
        b = np.full(u.shape, self.lo - 1, dtype=np.int64)  # logcdf(b) >= target
        step = max(1, int(math.sqrt(max(self.dist.var(), 1.0))))
        a = b - step
        while True:
            ok = _unique_eval(self.dist._logcdf, a) >= target
            if not ok.any():
                break
            b = np.where(ok, a, b)
            a = np.where(ok, a - 2 * (self.lo - a), a)
        # smallest k in (a, b] with logcdf(k) >= target
        return _bisect(lambda x: _unique_eval(self.dist._logcdf, x) < target, a, b)


def _unique_eval(f, x: np.ndarray) -> np.ndarray:
    """f(x) evaluated once per distinct point (tail draws share most bisection points)."""
    u, inv = np.unique(x, return_inverse=True)
    return f(u)[inv.reshape(x.shape)]


def _bisect(pred, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Vectorized: with pred(a) true and pred(b) false, the smallest x in (a, b] where pred
    is false (pred monotone)."""
    a, b = a.copy(), b.copy()
    while True:
        gap = b - a > 1
        if not gap.any():
            return b
        mid = (a + b) // 2
        t = pred(mid)
        a = np.where(gap & t, mid, a)
        b = np.where(gap & ~t, mid, b)
