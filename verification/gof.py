"""Goodness of fit of integer samples to a claimed distribution: the G-test.

G = 2 Σ_bins O log(O/E) is asymptotically χ² with (bins − 1) degrees of freedom under the
claim. Bins are the single integers whose expected count is at least ``min_expected``,
with the two tails merged into one bin each (so no expected mass is left out) and any
interior run of small expected counts merged with its neighbour.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.stats as st

from privtools.certified.search import last_true
from privtools.errors import ParameterError
from privtools.exact import ExactPMF
from privtools.noise import IntegerDistribution

__all__ = ["GTestResult", "g_test"]


@dataclass(frozen=True)
class GTestResult:
    statistic: float
    dof: int
    p_value: float
    n_samples: int
    edges: np.ndarray       # bin j covers [edges[j], edges[j+1]) (first/last open-ended)
    observed: np.ndarray
    expected: np.ndarray

    def worst_bins(self, count: int = 5) -> list[dict]:
        """Bins contributing most to G (where the sample disagrees most)."""
        o, e = self.observed, self.expected
        with np.errstate(divide="ignore", invalid="ignore"):
            contrib = 2 * (np.where(o > 0, o * np.log(o / e), 0.0) - (o - e))
        order = np.argsort(contrib)[::-1][:count]
        out = []
        for j in order:
            lo = "-inf" if j == 0 else int(self.edges[j])
            hi = "+inf" if j == len(o) - 1 else int(self.edges[j + 1]) - 1
            out.append({"bin": (lo, hi), "observed": int(o[j]), "expected": float(e[j]),
                        "contribution": float(contrib[j])})
        return out


class _TableLaw:
    """Float view of an :class:`~privtools.exact.ExactPMF` with the methods the G-test
    reads (its unaccounted mass, at most the certified bound, is ignored)."""

    def __init__(self, P):
        if P.modulus is not None:
            raise ParameterError("g_test needs a PMF on Z, not a wrapped one")
        self._set(P.lo, P.to_numpy())

    @classmethod
    def from_table(cls, lo: int, p: np.ndarray) -> _TableLaw:
        """A law from probabilities ``p`` of ``lo, lo + 1, ...`` (a user's table)."""
        law = cls.__new__(cls)
        law._set(int(lo), np.asarray(p, dtype=np.float64))
        return law

    def _set(self, lo: int, p: np.ndarray):
        self.lo = lo
        self.p = p
        self.cum = np.cumsum(self.p)
        self.rcum = np.cumsum(self.p[::-1])[::-1]  # rcum[i] = P(X >= lo + i)
        k = np.arange(lo, lo + p.size)
        self.mean = float((k * self.p).sum())
        self._var = float(((k - self.mean) ** 2 * self.p).sum())

    @property
    def center(self) -> int:
        return int(round(self.mean))

    def var(self) -> float:
        return self._var

    def pmf(self, k):
        k = np.asarray(k, dtype=np.int64) - self.lo
        inside = (k >= 0) & (k < self.p.size)
        return np.where(inside, self.p[np.clip(k, 0, self.p.size - 1)], 0.0)

    def cdf(self, k):
        i = np.asarray(k, dtype=np.int64) - self.lo
        return np.where(i < 0, 0.0, self.cum[np.clip(i, 0, self.p.size - 1)])

    def sf(self, k):
        i = np.asarray(k, dtype=np.int64) - self.lo + 1
        return np.where(i >= self.p.size, 0.0, self.rcum[np.clip(i, 0, self.p.size - 1)])


def g_test(samples, dist, min_expected: float = 5.0) -> GTestResult:
    """G-test of ``samples`` (integers) against ``dist``: a privtools distribution or a
    certified :class:`~privtools.exact.ExactPMF` (e.g. an exact n-fold sum)."""
    if not isinstance(dist, (IntegerDistribution, _TableLaw)):

        if not isinstance(dist, ExactPMF):
            raise ParameterError("dist must be a privtools distribution or an ExactPMF")
        dist = _TableLaw(dist)
    x = np.asarray(samples)
    if x.ndim != 1:
        x = x.ravel()
    if x.size == 0:
        raise ParameterError("samples must be non-empty")
    if not np.issubdtype(x.dtype, np.integer):
        raise ParameterError(f"samples must be integers, got dtype {x.dtype}")
    if min_expected <= 0:
        raise ParameterError("min_expected must be > 0")
    n = x.size
    # Interior range: integers where both merged tails keep >= min_expected.
    c = dist.center
    step = max(1, int(np.sqrt(max(dist.var(), 1.0))))
    lo = last_true(lambda k: k == c or n * dist.cdf(k) >= min_expected, c, step, -1)
    hi = last_true(lambda k: k == c or n * dist.sf(k - 1) >= min_expected, c, step, +1)
    if hi <= lo + 1:
        raise ParameterError("too few samples for a G-test of this distribution")
    # Bins: (-inf, lo], lo+1 .. hi-1 singly, [hi, inf)
    ks = np.arange(lo + 1, hi, dtype=np.int64)
    expected = np.concatenate([[dist.cdf(lo)], dist.pmf(ks), [dist.sf(hi - 1)]]) * n
    idx = np.clip(x.astype(np.int64), lo, hi) - lo  # lo -> bin 0, hi -> last bin
    observed = np.bincount(idx, minlength=hi - lo + 1).astype(float)
    edges = np.concatenate([[lo], ks, [hi, hi + 1]])
    observed, expected, edges = _merge_small(observed, expected, edges, min_expected)
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = np.where(observed > 0, observed * np.log(observed / expected), 0.0)
    stat = float(2 * (terms.sum() - (observed.sum() - expected.sum())))
    dof = len(observed) - 1
    p = float(st.chi2.sf(stat, dof))
    return GTestResult(stat, dof, p, n, edges, observed, expected)


def _merge_small(observed, expected, edges, min_expected):
    """Merge interior bins with expected < min_expected into their right neighbour."""
    if (expected >= min_expected).all():
        return observed, expected, edges
    obs, exp_, starts = [], [], []
    acc_o = acc_e = 0.0
    start = None
    for j in range(len(expected)):
        if start is None:
            start = edges[j]
        acc_o += observed[j]
        acc_e += expected[j]
        if acc_e >= min_expected or j == len(expected) - 1:
            obs.append(acc_o)
            exp_.append(acc_e)
            starts.append(start)
            acc_o = acc_e = 0.0
            start = None
    if exp_[-1] < min_expected and len(exp_) > 1:
        obs[-2] += obs.pop()
        exp_[-2] += exp_.pop()
        starts.pop()
    new_edges = np.array([*starts, edges[-1]], dtype=np.int64)
    return np.array(obs), np.array(exp_), new_edges
