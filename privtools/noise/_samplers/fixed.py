"""Fixed-budget samplers: every draw consumes the same number of random words, whatever value
it returns, and the law sampled is within a certified total-variation distance of the exact
law.

Why. The number of random words a sampler consumes is a machine-independent proxy for its
running time. In the distributed protocol every user adds a share of noise; an observer who
can time a user learns that share if the count depends on it, and the total noise if they time
everyone (the timing attack of Jin, McMurtry, Rubinstein and Ohrimenko, IEEE S&P 2022, on
discrete-Laplace samplers). Here:

* :class:`AliasTable` — Walker's alias method (Vose's construction) in exact integer
  arithmetic over ``N = 2^m`` columns of capacity ``2^(64−m)``: one 64-bit word per draw,
  whose top ``m`` bits pick the column and whose other bits are compared with the column's
  integer threshold. Outcome ``k`` has probability exactly ``w_k / 2^64``.
* :func:`dyadic_weights` — integer weights ``w_k`` summing to ``2^64`` from certified Arb
  balls of the PMF on a range, with a certified bound on
  ``TV = ½(Σ_k |w_k 2^-64 − p_k| + P(outside the range))``.
* :class:`TableSampler` — a law's certified support ``P(outside) <= 2^-72`` in one table:
  1 word per draw.
* :class:`DigitGeometric` / :class:`DigitLaplaceSampler` — wide discrete Laplace laws by the
  digits of a geometric variable: with ``G ~ Geom(r)`` (``P(G = g) = (1 − r) r^g``) and base
  ``B``, the digits ``G = Σ_i d_i B^i`` are independent, ``d_i`` (i < L) the geometric of
  ratio ``r^{B^i}`` truncated to ``{0..B−1}`` and the top digit the untruncated geometric of
  ratio ``r^{B^L}`` (the joint PMF ``∝ Π_i (r^{B^i})^{d_i}`` factorises). ``Lap_Z(b)`` is
  ``G₁ − G₂`` for two such ``G`` with ``r = e^{−1/b}``. ``2(L + 1)`` words per draw.
* :class:`GaussianRejectionSampler` — wide discrete Gaussians by Algorithm 3 of Canonne,
  Kamath and Steinke (2020): a ``Lap_Z(t)`` proposal (``t = ⌊σ⌋ + 1``, digits) accepted with
  probability ``a(y) = exp(−(|y| − σ²/t)²/(2σ²))``. Each round consumes the same number of
  words (the proposal's and one word for the acceptance), so the number of rounds — which is
  independent of the accepted value in any rejection sampler — is all the word count shows.
  The acceptance compares the word with a bracket of ``a(y)`` in x87 extended precision
  (margin ``2^-50`` relative); a word that falls inside the bracket (probability below
  ``2^-49``) is resolved exactly, comparing further words with ``a(y)`` in Arb. The
  acceptance is therefore an exact Bernoulli(``a(y)``), and the output's TV from
  ``N_Z(μ, σ²)`` is at most ``1.5 η / (A − η)``, ``η`` the proposal's certified TV and ``A``
  a certified lower bound on the acceptance probability.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.balls import arb
from privtools.errors import CertificationError, ParameterError

from . import kernel as _kernel
from .weights import _exact_sum

__all__ = ["AliasTable", "dyadic_weights", "float_bracket", "TableSampler", "DigitGeometric",
           "DigitLaplaceSampler", "GaussianRejectionSampler", "LogConcaveRejectionSampler",
           "DirectSampler", "floor_sqrt",
           "MAX_TABLE", "TAIL_MASS"]

#: Largest table the default path builds (points of the certified support).
MAX_TABLE = 1 << 17
#: Certified mass a table may leave outside its range (both sides together).
TAIL_MASS = Fraction(1, 2**72)
_ONE = 1 << 64
_PREC = 96               # Arb precision of the table PMFs
_DIGIT_BITS = 16         # base B = 2^16 of the digit samplers
_MARGIN = 2.0**-50       # relative bracket of the acceptance probability


def floor_sqrt(x: Fraction) -> int:
    """⌊√x⌋ for a non-negative rational, exactly."""
    a = math.isqrt(x.numerator // x.denominator)
    while (a + 1) * (a + 1) <= x:
        a += 1
    while a * a > x:
        a -= 1
    return a


def _words(rng: np.random.Generator, n: int) -> np.ndarray:
    """``n`` raw 64-bit words of ``rng`` (one word each, through the Generator's bit
    generator)."""
    return np.asarray(rng.bit_generator.random_raw(n), dtype=np.uint64).reshape(n)


def _count(size) -> tuple[tuple, int]:
    shape = () if size is None else size
    return shape, (int(np.prod(shape)) if shape != () else 1)


# ------------------------------------------------------------------ integer alias table
class AliasTable:
    """Exact alias table over integer weights summing to ``2^64`` (see module doc).

    ``weights[k]`` (a list of ints or a uint64 array) is the probability of ``lo + k`` times
    ``2^64``. Built without a Python loop by the sweep form of Walker's construction: lay
    the light columns' deficits ``C − s_i`` end to end on one line and the heavy columns'
    surpluses ``s_j − C`` on another of the same length; light column ``i`` takes its alias
    from the heavy column whose surplus interval holds the start of its deficit interval,
    and a heavy column whose surplus ends strictly inside a light column's deficit turns
    light by the overshoot and takes the next heavy column as its alias. Every column then
    holds exactly ``C`` (``weights()`` reconstructs the input exactly, tested)."""

    def __init__(self, weights, lo: int = 0):
        w, point = _checked_weights(weights)
        n = len(weights)
        self.lo = int(lo)
        self.n = n
        self.m = max(0, (n - 1).bit_length())
        N = 1 << self.m
        C = _ONE >> self.m
        thr = np.full(N, C if self.m else 0, dtype=np.uint64)
        alias = np.arange(N, dtype=np.int64)
        if w is None:                       # a point mass: every column points at it
            if self.m:
                thr[:] = 0
                thr[point] = C
            alias[:] = point
        elif self.m:
            s = np.zeros(N, dtype=np.uint64)
            s[:n] = w
            cap = np.uint64(C)
            light = np.flatnonzero(s < cap)
            heavy = np.flatnonzero(s > cap)
            if light.size:
                deficit = cap - s[light]
                surplus = s[heavy] - cap
                zero = np.zeros(1, dtype=np.uint64)
                a = np.concatenate((zero, np.cumsum(deficit[:-1], dtype=np.uint64)))
                b = np.concatenate((zero, np.cumsum(surplus[:-1], dtype=np.uint64)))
                thr[light] = s[light]
                alias[light] = heavy[np.searchsorted(b, a, side="right") - 1]
                # heavy column j (not the last) turns light where b_{j+1} falls strictly
                # inside a light column's deficit (a_i, a_i + deficit_i)
                nxt = b[1:]
                i = np.searchsorted(a, nxt, side="right") - 1
                gap = nxt - a[i]
                inside = (gap > 0) & (gap < deficit[i])
                thr[heavy[:-1][inside]] = cap - (deficit[i][inside] - gap[inside])
                alias[heavy[:-1][inside]] = heavy[1:][inside]
        # full columns keep threshold C (alias unused); an empty-bit table has one column
        self._capacity = C
        self._shift = np.uint64(64 - self.m) if self.m else None
        self._mask = np.uint64(C - 1) if self.m else None
        self._thr = thr
        self._alias = alias
        self._abs = None
        self._lists = None

    @property
    def _thr_int(self) -> list[int]:
        return [int(x) for x in self._thr] if self.m else [self._capacity]

    @property
    def _alias_int(self) -> list[int]:
        return [int(x) for x in self._alias]

    def weights(self) -> list[int]:
        """The exact weights the table samples (reconstructed from its columns)."""
        C = self._capacity
        out = [0] * (1 << self.m)
        for j, (t, a) in enumerate(zip(self._thr_int, self._alias_int)):
            out[j] += t
            out[a] += C - t
        return out[: self.n]

    def one(self, u: int) -> int:
        """The outcome of one word ``u`` (a Python int), in scalar arithmetic."""
        if not self.m:
            return self.lo
        if self._lists is None:
            self._lists = (self._thr.tolist(), self._alias.tolist())
        thr, alias = self._lists
        j = u >> (64 - self.m)
        return (j if (u & (self._capacity - 1)) < thr[j] else alias[j]) + self.lo

    def from_words(self, u: np.ndarray) -> np.ndarray:
        """The outcomes of the words ``u`` (uint64), one each."""
        if not self.m:
            return np.full(u.shape, self.lo, dtype=np.int64)
        j = (u >> self._shift).astype(np.int64)
        own = (u & self._mask) < self._thr[j]
        return np.where(own, j, self._alias[j]) + self.lo

    def _absolute(self) -> tuple[np.ndarray, np.ndarray]:
        """``(T, A)`` of the bulk path (``_kernel``): ``T_j = j·C + threshold_j`` and the
        alias as int32; a full column gets ``T_j = (j + 1)·C − 1`` and itself as alias."""
        if self._abs is None:
            C = np.uint64(self._capacity)
            j = np.arange(1 << self.m, dtype=np.uint64)
            full = self._thr == C
            T = j * C + np.where(full, C - np.uint64(1), self._thr)
            A = np.where(full, j.astype(np.int64), self._alias).astype(np.int32)
            self._abs = (T, A)
        return self._abs

    def sample(self, size, rng: np.random.Generator) -> np.ndarray:
        shape, n = _count(size)
        if not self.m or not _kernel.wanted(n):
            return self.from_words(_words(rng, n)).reshape(shape)
        T, A = self._absolute()
        out = np.empty(n, dtype=np.int64)
        if _kernel.fill(rng.bit_generator, self._shift, T, A, self.lo, out):
            return out.reshape(shape)      # the same words, in the same order (_kernel)
        return self.from_words(_words(rng, n)).reshape(shape)


def _checked_weights(weights) -> tuple[np.ndarray | None, int]:
    """``(w, k)``: the weights as uint64 after checking they are non-negative integers summing
    to 2^64, or ``(None, k)`` for a point mass at index ``k`` (2^64 is no uint64)."""
    bad = ParameterError("weights must be non-negative integers summing to 2**64")
    if isinstance(weights, np.ndarray):
        if weights.dtype != np.uint64 or weights.ndim != 1 or not weights.size:
            raise bad
        w = weights
    else:
        if len(weights) == 0 or any(int(x) < 0 for x in weights):
            raise bad
        ints = [int(x) for x in weights]
        if max(ints) >= _ONE:
            if max(ints) > _ONE or sum(ints) != _ONE:
                raise bad
            return None, ints.index(_ONE)
        w = np.array(ints, dtype=np.uint64)
    if _exact_sum(w) != _ONE:
        raise bad
    return w, -1


def _bounds(ball: arb) -> tuple[float, float]:
    """Float bounds ``lo <= x <= hi`` of a ball (widened by 2^-50 relative, far beyond the
    float rounding of the conversions)."""
    mid, rad = float(ball.mid()), float(ball.rad())
    lo, hi = (mid - rad) * (1 - 2.0**-50), (mid + rad) * (1 + 2.0**-50)
    return max(lo, 0.0), hi


def dyadic_weights(balls: list[arb], tail_upper: Fraction) -> tuple[list[int], Fraction]:
    """Integer weights ``w_k`` (``Σ w_k = 2^64``) for a law whose PMF on a range is enclosed
    by ``balls`` and whose mass outside the range is at most ``tail_upper``; returns the
    weights and a certified upper bound on the TV distance of ``w / 2^64`` from the law."""
    bounds = [_bounds(b) for b in balls]
    w = [int(math.floor(0.5 * (lo + hi) * 2.0**64)) for lo, hi in bounds]
    mode = max(range(len(w)), key=w.__getitem__)
    w[mode] += _ONE - sum(w)
    if w[mode] < 0:
        raise CertificationError("table weights do not sum to one")
    # |w_k − p_k 2^64| <= max(w_k − lo_k 2^64, hi_k 2^64 − w_k), each end rounded outward
    err = 0
    for wk, (lo, hi) in zip(w, bounds):
        err += max(wk - math.floor(lo * 2.0**64), math.ceil(hi * 2.0**64) - wk, 0)
    tv = (Fraction(err, _ONE) + tail_upper) / 2
    return w, tv


def _tail_fraction(x) -> Fraction:
    """An mpf upper bound as an exact Fraction (rounded up to 2^-200)."""
    return Fraction(math.ceil(mpmath.mpf(x) * mpmath.mpf(2) ** 200), 2**200)


# ------------------------------------------------------------------ samplers
class TableSampler:
    """One alias table over the law's certified support (``P(outside) <= TAIL_MASS``)."""

    words = 1
    kind = "table"

    def __init__(self, lo: int, hi: int, weights, tv: Fraction):
        self.tv = tv
        self.table = AliasTable(weights, lo)
        self.lo, self.hi = lo, hi
        self.points = hi - lo + 1

    @classmethod
    def build(cls, law) -> TableSampler | None:
        """The table, or None when the certified support is wider than ``MAX_TABLE``. A law
        with its own vectorised weights (``law._table_weights(max_points)`` returning
        ``(lo, weights, tv)``, None when too wide, or NotImplemented) uses them; the others
        take Arb balls of the PMF on the certified support (:func:`dyadic_weights`)."""
        if not math.isfinite(law.var()) or 40 * law.std() > MAX_TABLE:
            return None
        # every point of mass above TAIL_MASS lies in the support, and so does the centre:
        # a point MAX_TABLE away with more mass rules a table out before any search
        c = law.center
        with np.errstate(all="ignore"):
            far = law._log_pmf_floor(np.array([c - MAX_TABLE, c + MAX_TABLE], dtype=np.int64))
        if np.nanmax(far) > math.log(TAIL_MASS) + 1.0:
            return None
        fast = law._table_weights(MAX_TABLE)
        if fast is None:
            return None
        if fast is not NotImplemented:
            lo, weights, tv = fast
            return cls(lo, lo + len(weights) - 1, weights, tv)
        lo, hi, outside = law.exact_support(mpmath.mpf(TAIL_MASS.numerator)
                                            / TAIL_MASS.denominator)
        if hi - lo + 1 > MAX_TABLE:
            return None
        weights, tv = dyadic_weights(law.pmf_balls(lo, hi, _PREC), _tail_fraction(outside))
        return cls(lo, hi, weights, tv)

    def sample(self, size, rng):
        return self.table.sample(size, rng)

    def describe(self) -> str:
        return (f"alias table over [{self.lo}, {self.hi}] ({self.hi - self.lo + 1} points), "
                f"1 word per draw")


def _geometric_digit(rho_log: Fraction, base: int | None) -> tuple[AliasTable, Fraction]:
    """Alias table of the geometric law of ratio ``ρ = e^{−rho_log}`` truncated to
    ``{0..base−1}`` (``base=None``: untruncated), with its certified TV."""
    with _arb.precision(_PREC):
        lr = _arb.to_arb(rho_log)
        rho = (-lr).exp()
        one_m = -((-lr).expm1())                          # 1 − ρ
        norm = arb(1) if base is None else -((-lr * base).expm1())   # 1 − ρ^B
        # keep j while ρ^j > 2^-80 (and j < base): beyond, the certified remainder
        # Σ_{j>=J} ρ^j (1 − ρ)/(1 − ρ^B) <= ρ^J / (1 − ρ^B)
        keep = int(min(float(80 * math.log(2) / float(rho_log)) + 2, 1 << 30))
        if base is not None:
            keep = min(keep, base)
        if keep > MAX_TABLE * 4:
            raise ParameterError("digit table too large")
        first = one_m / norm
        balls = [first]
        cur = first
        for _ in range(keep - 1):
            cur = cur * rho
            balls.append(cur)
        if base is not None and keep == base:
            tail = Fraction(0)
        else:
            rem = (-lr * keep).exp() / norm
            tail = _tail_fraction(_arb.upper_mpf(rem))
    weights, tv = dyadic_weights(balls, tail)
    return AliasTable(weights, 0), tv


class DigitGeometric:
    """``G ~ Geom(r)``, ``r = e^{−a}`` (``a`` a positive Fraction), from independent digits in
    base ``2^16`` (module doc): ``L + 1`` words per draw."""

    def __init__(self, a: Fraction, bits: int = _DIGIT_BITS):
        B = 1 << bits
        L = 0
        while B**L * a < Fraction(1, 2):   # until the top digit's ratio is <= e^{-1/2}
            L += 1
        self.base, self.levels = B, L
        self.tables, self.tv = [], Fraction(0)
        for i in range(L + 1):
            table, tv = _geometric_digit(a * B**i, B if i < L else None)
            self.tables.append(table)
            self.tv += tv
        self.words = L + 1

    def one(self, words: list[int]) -> int:
        """One draw from ``L + 1`` words (Python ints), in scalar arithmetic."""
        return sum(t.one(w) * self.base**i for i, (t, w) in enumerate(zip(self.tables, words)))

    def from_words(self, u: np.ndarray) -> np.ndarray:
        """``u`` of shape (L + 1, n): one word per digit."""
        out = np.zeros(u.shape[1], dtype=np.int64)
        for i, table in enumerate(self.tables):
            out += table.from_words(u[i]) * (self.base**i)
        return out


class DigitLaplaceSampler:
    """``Lap_Z(b) = G₁ − G₂`` with digit geometrics of ratio ``e^{−1/b}``; an extra shift
    ``mu``. ``2(L + 1)`` words per draw."""

    kind = "digits"

    def __init__(self, scale: Fraction, mu: int = 0):
        self.geometric = DigitGeometric(1 / Fraction(scale))
        self.mu = int(mu)
        self.words = 2 * self.geometric.words
        self.tv = 2 * self.geometric.tv

    def from_words(self, u: np.ndarray) -> np.ndarray:
        k = self.geometric.words
        return self.geometric.from_words(u[:k]) - self.geometric.from_words(u[k:]) + self.mu

    def one(self, words: list[int]) -> int:
        """One draw from its words (Python ints), in scalar arithmetic."""
        k = self.geometric.words
        return self.geometric.one(words[:k]) - self.geometric.one(words[k:]) + self.mu

    def sample(self, size, rng):
        shape, n = _count(size)
        u = _words(rng, self.words * n).reshape(self.words, n)
        return self.from_words(u).reshape(shape)

    def describe(self) -> str:
        g = self.geometric
        return (f"difference of two geometrics in {g.words} base-2^{_DIGIT_BITS} digits each, "
                f"{self.words} words per draw")


class _Rejection:
    """Shared loop of the rejection samplers: every round draws ``round_words`` words per
    pending draw (the proposal's, then one for the acceptance); :meth:`_accept` decides from
    the acceptance word, and undecided words go to :meth:`_resolve`, which compares the
    uniform ``V = (u + further words)/2^64…`` with the exact acceptance probability
    (:meth:`_arb_acceptance`) in Arb."""

    kind = "rejection"
    words = None     # varies with the number of rounds (independent of the value)
    shift = 0

    def _resolve(self, y: int, u: int, rng) -> bool:
        scale_bits, prec = 64, 192
        while True:
            with _arb.precision(prec):
                a = self._arb_acceptance(y)
                lo_v = arb(u) / arb(2) ** scale_bits
                hi_v = arb(u + 1) / arb(2) ** scale_bits
                if hi_v <= a:
                    return True
                if lo_v >= a:
                    return False
            u = (u << 64) | int(_words(rng, 1)[0])
            scale_bits += 64
            prec += 64

    def _draw_one(self, rng) -> int:
        """One draw: the proposal in scalar arithmetic, :meth:`_accept` on one element (the
        same words in the same order and the same values as the batch loop)."""
        pw = self.proposal.words
        while True:
            u = rng.bit_generator.random_raw(self.round_words).tolist()
            y = self.proposal.one(u[:pw])
            acc, und = self._accept(np.array([y], dtype=np.int64),
                                    np.array([u[pw]], dtype=np.uint64))
            if acc[0] or (und[0] and self._resolve(y, u[pw], rng)):
                return y + self.shift

    def sample(self, size, rng):
        shape, n = _count(size)
        if n == 1:
            return np.full(shape, self._draw_one(rng), dtype=np.int64)
        return self._sample_many(n, rng).reshape(shape)

    def _sample_many(self, n: int, rng) -> np.ndarray:
        """``n`` draws, vectorised over the pending draws of each round."""
        out = np.empty(n, dtype=np.int64)
        pending = np.arange(n)
        pw = self.proposal.words
        while pending.size:
            m = pending.size
            u = _words(rng, self.round_words * m).reshape(self.round_words, m)
            y = self.proposal.from_words(u[:pw])
            accept, undecided = self._accept(y, u[pw])
            for i in np.flatnonzero(undecided):
                accept[i] = self._resolve(int(y[i]), int(u[pw, i]), rng)
            out[pending[accept]] = y[accept] + self.shift
            pending = pending[~accept]
        return out


class GaussianRejectionSampler(_Rejection):
    """Wide ``N_Z(μ, σ²)``: CKS20 Algorithm 3 with a digit ``Lap_Z(t)`` proposal and an exact
    acceptance decided by one word except with probability < 2^-49 (module doc)."""

    def __init__(self, sigma2: Fraction, mu: int = 0):
        self.sigma2 = Fraction(sigma2)
        self.shift = int(mu)
        self.t = floor_sqrt(self.sigma2) + 1
        self.proposal = DigitLaplaceSampler(Fraction(self.t))
        self.round_words = self.proposal.words + 1
        self._c = self.sigma2 / self.t                       # σ²/t
        self._cl = np.longdouble(self._c.numerator) / np.longdouble(self._c.denominator)
        self._two_s2 = (np.longdouble(2 * self.sigma2.numerator)
                        / np.longdouble(self.sigma2.denominator))
        eta = self.proposal.tv
        a_lo = self._acceptance_lower()
        if a_lo <= eta:
            raise ParameterError("sigma2 too small for the wide-law sampler")
        self.tv = Fraction(3, 2) * eta / (a_lo - eta)

    def _acceptance_lower(self) -> Fraction:
        """Certified lower bound on the acceptance probability A: with k = ⌊2σ⌋,
        A >= P(|Y| <= k) · min_{|y| <= k} a(y), P(|Y| > k) = 2e^{−(k+1)/t}/(1 + e^{−1/t})
        (Fact 2 (000)), and ||y| − σ²/t| <= max(σ²/t, k − σ²/t) on |y| <= k."""
        k = 2 * floor_sqrt(self.sigma2) + 1
        k = k if Fraction(k * k) <= 4 * self.sigma2 else k - 1
        dev = max(self._c, k - self._c)
        with _arb.precision(_PREC):
            t = _arb.to_arb(Fraction(self.t))
            p_out = 2 * (-(k + 1) / t).exp() / (1 + (-1 / t).exp())
            amin = (-_arb.to_arb(dev * dev / (2 * self.sigma2))).exp()
            low = (1 - p_out) * amin
            return _lower_fraction(low)

    def _accept(self, y: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(accepted, undecided) from the words ``u``: ``u`` accepts when its whole dyadic
        interval lies below the bracket of ``a(y)``, rejects when it lies above; undecided
        words go to :meth:`_resolve`."""
        d = np.abs(y).astype(np.longdouble) - self._cl
        a = np.exp(-(d * d) / self._two_s2)
        scale = np.longdouble(2.0**64)
        t_lo = np.floor(a * (1 - np.longdouble(_MARGIN)) * scale)
        t_hi = np.ceil(a * (1 + np.longdouble(_MARGIN)) * scale)
        uf = u.astype(np.longdouble)
        accept = (uf + 1) <= t_lo
        undecided = ~accept & (uf < t_hi)
        return accept, undecided

    def _arb_acceptance(self, y: int) -> arb:
        num = Fraction(abs(y)) - self._c
        return (-_arb.to_arb(num * num / (2 * self.sigma2))).exp()

    def describe(self) -> str:
        return (f"rejection from Lap_Z({self.t}) in digits (CKS20 Alg. 3), "
                f"{self.round_words} words per round")


def float_bracket(log_a, u, margin: float):
    """(accepted, undecided) for uniform words ``u`` (uint64) against acceptance
    probabilities ``e^{log_a}`` known in float to relative ``margin``: accepted when the
    word lies below the bracket, undecided inside it; the float value of ``u`` is within
    2^11 of ``u``, covered by comparing ``u ± 2^12``. Arrays or one value alike."""
    a = np.exp(np.minimum(log_a, 0.0))
    t_lo = np.floor(a * (1 - margin) * 2.0**64)
    t_hi = np.ceil(np.minimum(a * (1 + margin), 1.0) * 2.0**64)
    uf = np.asarray(u).astype(float)
    accept = (uf + 4096.0) <= t_lo
    return accept, ~accept & ((uf - 4096.0) < t_hi)


def _lower_fraction(x: arb) -> Fraction:
    v = _arb.lower_mpf(x)
    return Fraction(math.floor(v * mpmath.mpf(2) ** 200), 2**200)


class DirectSampler:
    """The law's own float sampler (numpy mixture or rejection); its TV is not certified."""

    kind = "float"
    tv = None
    words = None

    def __init__(self, law):
        self.law = law

    def sample(self, size, rng):
        self.law._check_sampling()
        return self.law._sample_direct(size, rng)

    def describe(self) -> str:
        return f"the float sampler of {type(self.law).__name__} (numpy), TV not certified"


class LogConcaveRejectionSampler(_Rejection):
    """Wide symmetric log-concave laws (Skellam): rejection from a digit ``Lap_Z(t)`` proposal
    centred at the law's centre, ``t = ⌊σ⌋ + 1``, accepted with probability
    ``p(y)/(M q(y))``.

    ``M`` is certified: ``g(x) = log p(c + x) − log q(x)`` is concave on ``x >= 0`` (log p is
    concave, log q linear there) and even, so its maximum over the integers is at an ``x*``
    with ``g(x*) >= g(x* ± 1)``, checked in Arb; ``M`` is a dyadic upper bound of
    ``e^{g(x*)}``, and the acceptance probability is exactly ``1/M``. The acceptance
    compares one word with a float bracket of ``p(y)/(M q(y))`` widened by ``2^-30``
    relative (the law's float log PMF is accurate to about 1e-13, measured against Arb);
    words inside the bracket are resolved exactly in Arb with further words, so the
    acceptance is an exact Bernoulli as long as the float bracket holds."""

    margin = 2.0**-30

    def __init__(self, law):
        self.law = law
        self.c = self.shift = int(law.center)
        sd = math.sqrt(law.var())
        self.t = int(math.floor(sd)) + 1
        self.proposal = DigitLaplaceSampler(Fraction(self.t))
        self.round_words = self.proposal.words + 1
        self.M = self._certified_max()
        self._log_m = math.log(float(self.M))
        eta = self.proposal.tv
        a_lo = 1 / self.M
        if a_lo <= eta:
            raise ParameterError("law too narrow for the wide-law sampler")
        self.tv = Fraction(3, 2) * eta / (a_lo - eta)

    def _log_q(self, x: np.ndarray) -> np.ndarray:
        a = 1.0 / self.t
        return math.log(math.tanh(a / 2)) - a * np.abs(x).astype(float)

    def _arb_q(self, x: int) -> arb:
        a = _arb.to_arb(Fraction(1, self.t))
        return (a / 2).tanh() * (-a * abs(x)).exp()

    def _certified_max(self) -> Fraction:
        xs = np.arange(0, 60 * self.t, max(1, self.t // 64), dtype=np.int64)
        g = self.law._logpmf(xs + self.c) - self._log_q(xs)
        x0 = int(xs[int(np.argmax(g))])
        with _arb.precision(_PREC):
            def G(x):
                return self.law._arb_pmf(self.c + x) / self._arb_q(x)
            x, step = x0, max(1, self.t // 64)
            while step >= 1:   # hill-climb on the concave g (integers), then certify
                moved = True
                while moved:
                    moved = False
                    for cand in (x - step, x + step):
                        if cand >= 0 and G(cand) > G(x):
                            x, moved = cand, True
                step //= 2
            gx = G(x)
            for nb in (x - 1, x + 1):
                if nb >= 0 and not (gx >= G(nb)):
                    raise CertificationError("could not certify the rejection constant")
            up = _arb.upper_mpf(gx)
        return Fraction(math.ceil(up * (1 + mpmath.mpf(2) ** -40) * 2**40), 2**40)

    def _accept(self, y: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(accepted, undecided) against a float bracket of p(y)/(M q(y))
        (:func:`float_bracket`)."""
        lr = self.law._logpmf(y + self.c) - self._log_q(y) - self._log_m
        return float_bracket(lr, u, self.margin)

    def _arb_acceptance(self, y: int) -> arb:
        return self.law._arb_pmf(self.c + y) / (self._arb_q(y) * _arb.to_arb(self.M))

    def _draw_one(self, rng) -> int:
        """One draw in scalar arithmetic: the same words in the same order, the same float
        comparisons as :meth:`_accept` on one element, the same exact resolution."""
        pw, a_q = self.proposal.words, 1.0 / self.t
        log_tanh = math.log(math.tanh(a_q / 2))
        while True:
            u = rng.bit_generator.random_raw(self.round_words).tolist()
            y = self.proposal.one(u[:pw])
            lr = (float(self.law._logpmf(np.array([y + self.c]))[0])
                  - (log_tanh - a_q * float(abs(y))) - self._log_m)
            accept, undecided = float_bracket(lr, np.uint64(u[pw]), self.margin)
            if accept or (undecided and self._resolve(y, u[pw], rng)):
                return y + self.shift

    def describe(self) -> str:
        return (f"rejection from Lap_Z({self.t}) in digits, M = {float(self.M):.6g}, "
                f"{self.round_words} words per round")
