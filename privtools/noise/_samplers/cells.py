"""Fixed-budget sampler of wide Pólya laws: rejection from a proposal over cells.

Pólya(r, β) with ``0 < r <= 1`` (Definition 4 (000); a user's share in Fact 1 has
``r = 1/n``) is too wide for one table once β = e^{−1/b} has b in the thousands: its
certified support reaches about ``55 b`` points. :class:`PolyaCellSampler` draws it with a
fixed number of random words per round and a certified total-variation distance.

**Proposal.** The half-line ``[0, K)`` is cut into cells ``[s_c, s_c + 2^{w_c})``: single
points below 16, then cells at most an eighth of their start (``2^{w_c} <= s_c/8``), capped
at a width ``S = 2^s <= b/16``. One 64-bit word picks a cell from an exact integer alias table
(:class:`~privtools.noise._samplers.fixed.AliasTable`; cell ``c`` has probability exactly
``W_c/2^64``), a second word's top ``w_c`` bits pick the offset in the cell uniformly, so the
proposal's law is exactly ``q(k) = W_c 2^{−64} 2^{−w_c}`` on cell ``c``.

**Envelope.** For ``r <= 1`` the ratio ``p(k+1)/p(k) = β(k + r)/(k + 1) <= β < 1``, so ``p``
decreases and ``p(k) <= p(s_c)`` on cell ``c``: ``p(k)/q(k) <= u_c 2^64/W_c`` with
``u_c = p(s_c) 2^{w_c}``. ``M`` is a dyadic upper bound of ``max_c u_c 2^64/W_c``, certified
in Arb; ``W_c`` is chosen ``∝ u_c`` so that ``M`` is close to ``Σ_c u_c`` (about 1.1–1.6:
within a cell ``p`` falls by at most ``β^{S}(1 + 1/8)^{r−1}``).

**Acceptance.** A third word accepts ``k`` with probability
``a(k) = p(k)/(M q(k)) = f_c · p(k)/p(s_c)``, ``f_c = u_c 2^64/(W_c M) <= 1``: an exact
Bernoulli, decided from the word against a float bracket of ``a(k)`` widened by ``2^-30``
relative (the float log PMF is accurate to about 1e-13), words inside the bracket resolved in
Arb with further words (:class:`~privtools.noise._samplers.fixed._Rejection`).

**TV bound (proof).** One round proposes ``k`` with probability ``q(k)`` and accepts it with
probability ``a(k)``, so it returns ``k`` with probability ``p(k)/M`` for ``k < K``: the
accepted value has law ``p̃ = p·1[k < K]/P(X < K)`` whatever the round, and is independent
of the number of rounds (``P(T = t, Y = k) = (1 − P(X<K)/M)^{t−1} p(k)/M`` factorises), so
the word count — three words a round — reveals nothing about the value.
``TV(p̃, p) = P(X >= K) <= p(K)/(1 − β)`` (the ratios are at most β), certified in Arb and
at most ``2^-73``. A share ``γ⁺ − γ⁻`` (:class:`PolyaDifferenceCellSampler`) draws both
terms so; its TV is at most the sum of the two.
"""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.balls import arb
from privtools.errors import CertificationError, ParameterError

from .._special import log_gamma_ratio, log_gamma_ratio_one
from .fixed import _PREC, AliasTable, _count, _Rejection, _tail_fraction, float_bracket

__all__ = ["PolyaCellSampler", "PolyaDifferenceCellSampler", "CELL_TAIL"]

#: Certified mass each Pólya term leaves beyond its last cell.
CELL_TAIL = Fraction(1, 2**73)
_ONE = 1 << 64


def _cells(b: float, K: int) -> tuple[np.ndarray, np.ndarray]:
    """Cell starts and log2 widths covering ``[0, K')``, ``K' >= K`` (module doc)."""
    s = max(0, int(math.floor(math.log2(max(b / 16.0, 1.0)))))
    starts, widths, k = [], [], 0
    while k < K:
        w = 0 if k < 16 else min(s, k.bit_length() - 4)
        starts.append(k)
        widths.append(w)
        k += 1 << w
    return np.array(starts, dtype=np.int64), np.array(widths, dtype=np.int64)


class _Cells:
    """The proposal: a cell from one word, an offset in it from the next (2 words)."""

    words = 2

    def __init__(self, starts: np.ndarray, widths: np.ndarray, weights: list[int]):
        self.starts, self.widths = starts, widths
        self.table = AliasTable(weights, 0)
        self._shift = (63 - widths).astype(np.uint64)

    def cell_of(self, k: np.ndarray) -> np.ndarray:
        """The cell holding each ``k``."""
        return np.searchsorted(self.starts, k, side="right") - 1

    def from_words(self, u: np.ndarray) -> np.ndarray:
        """``u`` of shape (2, n): the cell, then the offset (the top ``w_c`` bits)."""
        c = self.table.from_words(u[0])
        off = ((u[1] >> np.uint64(1)) >> self._shift[c]).astype(np.int64)
        return self.starts[c] + off


class PolyaCellSampler(_Rejection):
    """Pólya(r, β), ``0 < r <= 1``: cell proposal and exact acceptance (module doc); three
    words a round, ``tv`` the certified truncation ``P(X >= K)``."""

    margin = 2.0**-30

    def __init__(self, law):
        if not (0 < law.r <= 1):
            raise ParameterError(f"the cell sampler needs 0 < r <= 1, got r = {law.r}")
        law._check_sampling()
        self.law = law
        self.shift = 0
        b = 1.0 / law._one_minus_beta
        K, self.tv = self._support_end(b)
        starts, widths = _cells(b, K)
        self.K = int(starts[-1] + (1 << int(widths[-1])))
        with _arb.precision(_PREC):
            p_start = [law._arb_pmf(int(k)) for k in starts]
            u = [p * (1 << int(w)) for p, w in zip(p_start, widths)]
            total = sum(u, arb(0))
            # rounded up, so that no small cell's ratio u_c 2^64/W_c exceeds Σ u; the
            # excess (at most one unit a cell) comes off the largest
            W = [max(1, math.ceil(float(x / total) * 2.0**64)) for x in u]
            W[int(np.argmax(W))] += _ONE - sum(W)
            ratios = [x * _ONE / w for x, w in zip(u, W)]
            top = max(_arb.upper_mpf(x) for x in ratios)
            self.M = Fraction(math.ceil(top * (1 + mpmath.mpf(2) ** -40) * 2**40), 2**40)
            m_ball = _arb.to_arb(self.M)
            self._f_balls = [x / m_ball for x in ratios]
        if any(not (f <= 1) for f in self._f_balls):   # pragma: no cover - M is an upper bound
            raise CertificationError("could not certify the cell envelope")
        self._log_f = np.array([math.log(float(f.mid())) for f in self._f_balls])
        self._r, self._log_beta = float(law.r), float(law._log_beta)
        self._lgr_start = log_gamma_ratio(starts, self._r)
        # the same numbers as Python lists, for single draws
        self._one = (starts.tolist(), widths.tolist(), self._log_f.tolist(),
                     self._lgr_start.tolist())
        self.proposal = _Cells(starts, widths, W)
        self.round_words = self.proposal.words + 1
        self.points = len(W)

    def _support_end(self, b: float) -> tuple[int, Fraction]:
        """``K`` with certified ``P(X >= K) <= CELL_TAIL`` (float search, then Arb)."""
        target = math.log(float(CELL_TAIL)) - 1.0
        log_q = math.log(self.law._one_minus_beta)

        def log_tail(k: int) -> float:   # log of p(k)/(1 − β), which bounds P(X >= k)
            return float(self.law._logpmf(np.array([k]))[0]) - log_q

        hi = max(16, int(b))
        while log_tail(hi) > target:
            hi *= 2
        lo = hi // 2
        while hi - lo > max(1, hi >> 10):
            mid = (lo + hi) // 2
            lo, hi = (mid, hi) if log_tail(mid) > target else (lo, mid)
        with _arb.precision(_PREC):
            for _ in range(40):
                tail = self.law._arb_upper_tail(hi - 1)
                if tail is not None:
                    bound = _tail_fraction(_arb.upper_mpf(tail))
                    if bound <= CELL_TAIL:
                        return hi, bound
                hi += max(1, hi >> 4)
        raise CertificationError("could not certify the Pólya support for the cell sampler")

    def _accept(self, y: np.ndarray, u: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(accepted, undecided): ``u`` against a float bracket of ``a(y)`` (module doc);
        the float value of ``u`` is within 2^11 of ``u``, covered by comparing ``u ± 2^12``."""
        c = self.proposal.cell_of(y)
        start = self.proposal.starts[c]
        log_a = (self._log_f[c] + (y - start).astype(float) * self._log_beta
                 + log_gamma_ratio(y, self._r) - self._lgr_start[c])
        return float_bracket(log_a, u, self.margin)

    def _draw_one(self, rng) -> int:
        """One draw in scalar arithmetic: the same words, the same float comparisons as
        :meth:`_accept` on one element, the same exact resolution."""
        starts, widths, log_f, lgr_start = self._one
        table, margin = self.proposal.table, self.margin
        while True:
            u0, u1, u2 = rng.bit_generator.random_raw(3).tolist()
            c = table.one(u0)
            start = starts[c]
            k = start + ((u1 >> 1) >> (63 - widths[c]))
            log_a = (log_f[c] + float(k - start) * self._log_beta
                     + log_gamma_ratio_one(k, self._r) - lgr_start[c])
            accept, undecided = float_bracket(log_a, np.uint64(u2), margin)
            if accept or (undecided and self._resolve(k, u2, rng)):
                return k

    def _arb_acceptance(self, y: int) -> arb:
        c = int(self.proposal.cell_of(np.array([y]))[0])
        start = int(self.proposal.starts[c])
        return self._f_balls[c] * self.law._arb_pmf(y) / self.law._arb_pmf(start)

    def describe(self) -> str:
        return (f"rejection from {self.points} cells over [0, {self.K}), M = "
                f"{float(self.M):.4g}, {self.round_words} words per round")


class PolyaDifferenceCellSampler:
    """``γ⁺ − γ⁻`` with both terms from one :class:`PolyaCellSampler`; TV at most twice
    the term's."""

    kind = "rejection"
    words = None

    def __init__(self, law):
        self.term = PolyaCellSampler(law._base())
        self.tv = 2 * self.term.tv
        self.points = self.term.points

    def sample(self, size, rng):
        shape, n = _count(size)
        plus = self.term.sample(n, rng)
        minus = self.term.sample(n, rng)
        return (plus - minus).reshape(shape)

    def describe(self) -> str:
        return "difference of two Pólya terms, each by " + self.term.describe()
