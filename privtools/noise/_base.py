"""Base class of the integer noise distributions.

A distribution is a small immutable value (its parameters). Three kinds of readers
interpret it:

* float methods in scipy.stats style — ``pmf/logpmf/cdf/sf/logcdf/logsf/mean/var`` —
  vectorized over numpy arrays and accurate in relative terms far into the tails
  (log-space sums where closed forms or scipy lose accuracy);
* samplers — ``sample(size, rng)`` returning int64, with no global RNG state;
* certified exact methods — ``exact_pmf`` (mpmath numbers correct to ``dps`` digits),
  ``pmf_balls`` (Arb balls that provably contain the PMF) and ``tail_bound`` (a certified
  upper bound on the probability outside a range).
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cached_property

import mpmath
import numpy as np

from privtools.certified import balls as _arb
from privtools.certified.balls import arb
from privtools.certified.intervals import Interval, interval
from privtools.certified.intervals import exact_rational as to_exact_fraction
from privtools.certified.rounding import add_up
from privtools.certified.search import certified_threshold, last_true
from privtools.errors import CertificationError, ParameterError
from privtools.validation import (
    POINT_LIMIT,
    as_rng,
    check_dps,
    check_int,
    check_int_array,
    check_size,
    to_fraction,
)

from ._samplers import cache as _cache
from ._samplers.fixed import DirectSampler, TableSampler

# Relative size below which the truncated remainder of a float tail sum is ignored.
_TAIL_REL_EPS = 1e-20
_LOG_TAIL_REL_EPS = math.log(_TAIL_REL_EPS)
# Points that can be summed in one float block before the exponent range is exhausted.
_BLOCK_LOG_SPAN = 600.0


def _as_output(k_in, out: np.ndarray):
    """Scalar in -> Python float out; array in -> array out (scipy.stats convention)."""
    if np.ndim(k_in) == 0:
        return float(out.reshape(()))
    return out


class IntegerDistribution:
    """Common interface; subclasses are frozen dataclasses holding exact parameters."""

    #: The law's parameter table (:class:`privtools.noise.Parameter` values, constructor
    #: arguments in the order the command line lists them): the one declaration that the
    #: constructor's checks, the command line's limits and the test strategies read.
    parameters: tuple = ()

    @classmethod
    def parameter(cls, name: str):
        """The parameter ``name`` of the law's table (ParameterError naming ``name`` when the
        law has none of that name)."""
        for p in cls.parameters:
            if p.name == name:
                return p
        raise ParameterError(f"name: {cls.__name__} has no parameter {name!r} (it has "
                             f"{', '.join(p.name for p in cls.parameters) or 'none'})")

    # ----------------------------------------------------------------- to implement
    def _logpmf(self, k: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _table_logpmf(self, lo: int, hi: int) -> np.ndarray:
        """log PMF on lo..hi for the sampler's table (subclasses may use a faster path)."""
        return self._logpmf(np.arange(lo, hi + 1, dtype=np.int64))

    def _table_weights(self, max_points: int):
        """``(lo, uint64 weights summing to 2^64, certified TV)`` of this law's sampler table
        in vectorised arithmetic, None when wider than ``max_points``, or NotImplemented
        (the default: the table is built from Arb balls of the PMF)."""
        return NotImplemented

    def _log_pmf_floor(self, k: np.ndarray) -> np.ndarray:
        """A cheap float estimate from below of log p(k) (the table's width pre-check)."""
        return self._logpmf(k)

    def _sample_direct(self, size, rng: np.random.Generator) -> np.ndarray:
        """The distribution's own float sampler (mixture, geometric or rejection)."""
        raise NotImplementedError  # pragma: no cover

    def _sample_exact(self, size, rng: np.random.Generator) -> np.ndarray:
        """Integer-only sampler; only some distributions have one."""
        raise ParameterError(
            f"exact=True: no integer-only sampler for {type(self).__name__}; exact samplers "
            "exist for DiscreteLaplace and DiscreteGaussian"
        )

    @cached_property
    def sampler(self):
        """The default sampler of this law (built on first use, ``_fixed.py``): an alias
        table over the certified support when it has at most ``MAX_TABLE`` points, else the
        law's wide-law sampler (:meth:`_wide_sampler`). Its ``tv`` is a certified upper
        bound (a Fraction) on its total-variation distance from this law, or None where the
        sampler is a float one without a certificate; ``describe()`` says what it is."""

        self._check_sampling()
        key = _cache.key(self)
        hit = _cache.lookup(key)
        if hit is not None:
            return hit
        table = TableSampler.build(self)
        out = table if table is not None else self._wide_sampler()
        _cache.remember(key, out)
        return out

    def _wide_sampler(self):
        """The sampler of a law too wide for one table (subclasses with a certified one
        override this): by default the law's own float sampler."""

        return DirectSampler(self)

    @property
    def sampling_tv(self) -> Fraction | None:
        """Certified upper bound on the total-variation distance between the default
        sampler's law and this law (None: not certified). A release that is (ε, δ)-DP under
        the exact law is (ε, δ + (1 + e^ε)·tv)-DP under the sampler."""
        return self.sampler.tv

    def _sample(self, size, rng: np.random.Generator, exact: bool) -> np.ndarray:
        if exact:
            return self._sample_exact(size, rng)
        return self.sampler.sample(size, rng)

    def _check_sampling(self) -> None:
        """Raise before sampling when float sampling cannot represent the parameters."""

    def _log_upper_ratio(self, j: np.ndarray) -> np.ndarray:  # pragma: no cover
        """Float upper bound on ``log p(i+1)/p(i)`` for every ``i >= j`` (< 0)."""
        raise NotImplementedError

    def _arb_pmf(self, k: int) -> arb:  # pragma: no cover - abstract
        raise NotImplementedError

    def _arb_upper_tail(self, t: int) -> arb | None:  # pragma: no cover - abstract
        """Certified upper bound on P(X > t), or None when ``t`` is too small for the
        method (the caller then moves ``t`` outward)."""
        raise NotImplementedError

    def _arb_lower_tail(self, t: int) -> arb | None:  # pragma: no cover - abstract
        """Certified upper bound on P(X < t), or None (see ``_arb_upper_tail``)."""
        raise NotImplementedError

    def mean(self) -> float:  # pragma: no cover - abstract
        """The mean of the law (float)."""
        raise NotImplementedError

    def var(self) -> float:  # pragma: no cover - abstract
        """The variance of the law (float)."""
        raise NotImplementedError

    def shares(self, n: int) -> IntegerDistribution:  # pragma: no cover - abstract
        """The law of one of ``n`` i.i.d. shares whose sum has this law (Fact 1 (000) for the
        discrete Laplace, Skellam closure (000 §5)); ParameterError when the law has none."""
        raise NotImplementedError

    @property
    def center(self) -> int:  # pragma: no cover - abstract
        """The law's centre: its point of symmetry for the symmetric laws, 0 for Pólya. Tails,
        quantiles and tail searches are measured from it."""
        raise NotImplementedError

    # ------------------------------------------------------------ per-law facts
    # What the exact engine (privtools.exact) needs to know about a law beyond its PMF.
    # Each law states the facts it has, with their proofs in its docstrings; an engine that
    # needs a missing fact raises ParameterError naming the law.

    #: The PMF is log-concave (ratios p(y+1)/p(y) non-increasing).
    log_concave: bool = False
    #: The law is symmetric about its centre (p(c + k) = p(c − k)).
    symmetric: bool = False

    def _missing(self, fact: str):
        return ParameterError(f"{type(self).__name__} has no certified {fact}; the exact engine "
                              "cannot use it here")

    def log_cf_ball(self, theta: arb) -> arb:
        """Certified log of the (real) characteristic function E e^{iθX} at θ ∈ [0, π]."""
        raise self._missing("characteristic function")

    def log_chernoff_ball(self, u: int, n: int = 1) -> arb:
        """Certified upper bound on log P(S_n − n·centre >= u), S_n a sum of n i.i.d.
        copies, u >= 1."""
        raise self._missing("Chernoff bound")

    def two_sided_tail_ball(self, t: int) -> arb | None:
        """P(|X − centre| > t) in closed form as a ball, or None (no closed form)."""
        return None

    def shift_ratio_bound(self, Y: int, d: int) -> arb:
        """Certified upper bound on sup_{y >= Y} R(y)/R(y + d), R(y) = p(y + 1)/p(y), for
        Y >= centre: what the tabulated Rényi engine needs to bound the far tail of a
        shifted pair."""
        raise self._missing("ratio bound for shifted pairs")

    def ratio_cap_ball(self) -> arb | None:
        """For a log-convex law: a certified cap on R(y) for y >= centre, or None."""
        return None

    def sum_of(self, n: int) -> IntegerDistribution | None:
        """The law of the sum of n i.i.d. copies when it has a closed form, else None."""
        return None

    #: Smallest point of the support (None: unbounded below). A law bounded on one side has
    #: D_α(X + Δ ‖ X) = +∞ for every shift Δ != 0.
    support_lower: int | None = None

    def shift_llr_ball(self, d: int) -> arb | None:
        """D_∞(X + d ‖ X) = sup_y log p(y)/p(y + d) for d >= 1, as a ball; None when it is
        +∞ (the privacy loss is unbounded on Z)."""
        raise self._missing("max log-ratio of shifted pairs")

    def shift_renyi_ball(self, d: int, alpha) -> arb | None:
        """D_α(X + d ‖ X) in closed form (α a Fraction > 1), or None (no closed form: the
        exact engine tabulates)."""
        return None

    def shift_hockey_stick_ball(self, d: int, eps) -> arb | None:
        """δ(ε) between X + d and X in closed form (ε a Fraction >= 0), or None."""
        return None

    # ------------------------------------------------------------ float interface
    def logpmf(self, k):
        """Natural log of the PMF at integer points ``k`` (``-inf`` off the support)."""
        kk = check_int_array("k", k)
        return _as_output(k, np.asarray(self._logpmf(kk), dtype=float))

    def pmf(self, k):
        """PMF at integer points ``k`` (float64; underflows to 0 only below 1e-308)."""
        kk = check_int_array("k", k)
        return _as_output(k, np.exp(self._logpmf(kk)))

    def logsf(self, k):
        """``log P(X > k)``, accurate in relative terms in the far upper tail."""
        kk = check_int_array("k", k)
        return _as_output(k, self._logsf(kk))

    def sf(self, k):
        """``P(X > k)``."""
        kk = check_int_array("k", k)
        return _as_output(k, np.exp(self._logsf(kk)))

    def logcdf(self, k):
        """``log P(X <= k)``, accurate in relative terms in the far lower tail."""
        kk = check_int_array("k", k)
        return _as_output(k, self._logcdf(kk))

    def cdf(self, k):
        """``P(X <= k)``."""
        kk = check_int_array("k", k)
        return _as_output(k, np.exp(self._logcdf(kk)))

    def std(self) -> float:
        """The standard deviation, √var."""
        return math.sqrt(self.var())

    def sample(self, size=None, rng=None, *, exact: bool = False):
        """Draw ``size`` samples (int64). ``rng``: Generator, seed or None.

        ``rng=None`` draws from a cryptographically secure generator
        (:func:`privtools.secure_rng`); pass a seed or a Generator for reproducible draws.

        The default is :attr:`sampler`: a fixed-budget sampler (the same number of random
        words per draw whatever the value) within the certified total-variation distance
        :attr:`sampling_tv` of the law. ``exact=True`` selects an integer-only sampler
        (Canonne–Kamath–Steinke 2020) where the distribution has one: its law is exact but
        the words it consumes depend on the value drawn.

        A generator with a ``trace_law`` method (``verification.audit.trace``'s recording
        generator) is handed the law and the draw instead, so a trace records one call of
        this law rather than the words its sampler consumed.
        """
        size = check_size(size)
        gen = as_rng(rng, secure=True)
        if not isinstance(exact, bool):
            raise ParameterError("exact must be a bool")
        hook = getattr(gen, "trace_law", None)      # a tracing generator records the law
        if hook is not None:        # the hook hands back the values (tracked, under tracking)
            return hook(self, size, lambda g: self._sample(size, g, exact))
        out = self._sample(size, gen, exact)
        if size is None:
            return np.int64(np.asarray(out).reshape(()))
        return np.asarray(out, dtype=np.int64)

    def rvs(self, size=None, random_state=None):
        """scipy.stats-style alias of :meth:`sample`."""
        return self.sample(size, rng=random_state)


    # Default tails: log-space summation of the PMF (used where no closed form exists).
    def _logsf(self, k: np.ndarray) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover

    def _logcdf(self, k: np.ndarray) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover

    def _log_upper_tail_sum(self, k: np.ndarray) -> np.ndarray:
        """``log P(X > k)`` by summing the PMF in blocks (valid where the PMF is
        non-increasing beyond ``k``; the remainder after the last block is below
        ``1e-20`` of the result by the ratio bound ``_log_upper_ratio``)."""
        k = np.asarray(k, dtype=np.int64)
        out = np.empty(k.shape, dtype=float)
        if k.size == 0:
            return out
        flat = k.ravel()
        uniq, inverse = np.unique(flat, return_inverse=True)
        res = np.empty(uniq.shape, dtype=float)
        # Group nearby query points so each group shares one summation grid.
        gap = 1 << 16
        starts = np.flatnonzero(np.diff(uniq) > gap) + 1
        for group in np.split(np.arange(uniq.size), starts):
            qs = uniq[group]
            a = int(qs[0]) + 1
            last_head = float(self._logpmf(np.array([qs[-1] + 1]))[0])
            length = 64  # terms beyond the last query point; doubled until enough
            while True:
                b = int(qs[-1]) + length
                lp_end = float(self._logpmf(np.array([b + 1]))[0])
                lr = float(self._log_upper_ratio(np.array([b + 1]))[0])
                remainder = lp_end - math.log(-math.expm1(lr)) if lr < 0 else math.inf
                if remainder < last_head + _LOG_TAIL_REL_EPS or lp_end == -math.inf:
                    break
                length *= 2
                if length > 1 << 27:
                    raise CertificationError(
                        "tail sum needs more than 2**27 terms; the distribution is too wide "
                        "for the float tail path (use exact methods)"
                    )
            grid = np.arange(a, b + 1, dtype=np.int64)
            lp = self._logpmf(grid)
            tail = _suffix_logsumexp(lp)
            res[group] = tail[qs - a + 1]
        out.ravel()[:] = res[inverse]
        return out

    # ------------------------------------------------------------ exact interface
    def pmf_balls(self, lo: int, hi: int, prec: int) -> list[arb]:
        """Arb balls enclosing ``P(X = k)`` for ``k = lo..hi`` at ``prec`` bits."""
        lo = check_int("lo", lo)
        hi = check_int("hi", hi)
        if hi < lo:
            raise ParameterError(f"hi must be >= lo, got lo={lo}, hi={hi}")
        with _arb.precision(prec):
            return self._arb_pmf_range(lo, hi)

    def _arb_pmf_range(self, lo: int, hi: int) -> list[arb]:
        return [self._arb_pmf(k) for k in range(lo, hi + 1)]

    def exact_pmf(self, k, dps: int = 50):
        """``P(X = k)`` as ``mpmath.mpf`` correct to ``dps`` significant digits.

        Certified: the value is the midpoint of an Arb ball whose relative radius is at
        most ``10**-dps``; precision is raised until that holds. ``k`` may be an int or
        an integer array (returns an object array of mpf).
        """
        dps = check_dps(dps)
        if np.ndim(k) == 0:
            kk = check_int("k", k)
            return self._certified(lambda: [self._arb_pmf(kk)], dps)[0]
        arr = check_int_array("k", k)
        vals = self._certified(lambda: [self._arb_pmf(int(x)) for x in arr.ravel()], dps)
        out = np.empty(arr.size, dtype=object)
        out[:] = vals
        return out.reshape(arr.shape)

    def exact_pmf_range(self, lo: int, hi: int, dps: int = 50) -> list[mpmath.mpf]:
        """``[P(X = k) for k in lo..hi]`` correct to ``dps`` digits (fast range method)."""
        dps = check_dps(dps)
        lo = check_int("lo", lo)
        hi = check_int("hi", hi)
        if hi < lo:
            raise ParameterError(f"hi must be >= lo, got lo={lo}, hi={hi}")
        return self._certified(lambda: self._arb_pmf_range(lo, hi), dps)

    def _certified(self, compute, dps: int) -> list[mpmath.mpf]:
        bits = _arb.bits_for_dps(dps) + _arb.GUARD_BITS
        for _ in range(8):
            with _arb.precision(bits):
                balls = compute()
            if all(_arb.has_digits(b, dps) for b in balls):
                return [_arb.to_mpf(b) for b in balls]
            bits *= 2
        raise CertificationError(f"could not certify {dps} digits (precision reached {bits} bits)")

    def tail_bound(self, lo: int, hi: int, dps: int = 30) -> mpmath.mpf:
        """Certified upper bound on ``P(X < lo) + P(X > hi)``.

        Uses log-concavity or an explicit ratio bound of each distribution (see the
        subclass docstrings); raises ``ValueError`` if ``[lo, hi]`` does not contain the
        distribution's centre, where the ratio bounds do not apply.
        """
        lo = check_int("lo", lo)
        hi = check_int("hi", hi)
        with _arb.precision(_arb.bits_for_dps(dps) + _arb.GUARD_BITS):
            up = self._arb_upper_tail(hi)
            low = self._arb_lower_tail(lo)
            if up is None or low is None:
                raise ParameterError(
                    f"range [{lo}, {hi}] is too narrow for a certified tail bound "
                    f"(it must contain the centre {self.center} and reach past the mode)"
                )
            return _arb.upper_mpf(up + low)

    def exact_support(self, mass, dps: int = 30) -> tuple[int, int, mpmath.mpf]:
        """A range ``[lo, hi]`` with certified ``P(X not in [lo, hi]) <= mass``.

        Returns ``(lo, hi, bound)`` where ``bound <= mass`` is the certified outside mass.
        The range is found from the float tails and then certified (and widened if the
        certificate needs it).
        """
        m = mpmath.mpf(mass)
        if not (m > 0 and m < 1):
            raise ParameterError(f"mass must be in (0, 1), got {mass!r}")
        # Aim each side at mass/4 so the certified bound (slightly above the float tail)
        # still fits within mass without widening.
        side = float(mpmath.log(m / 4))
        hi = self._float_upper_quantile(side)
        # a symmetric law's lower search asks the upper one's questions at 2c − x
        lo = 2 * self.center - hi if self.symmetric else self._float_lower_quantile(side)
        for _ in range(60):
            try:
                bound = self.tail_bound(lo, hi, dps=dps)
            except ValueError:
                bound = None
            if bound is not None and bound <= m:
                return lo, hi, bound
            width = max(1, (hi - lo) // 16)
            hi += width
            lo -= width
        raise CertificationError(f"could not certify a support range with outside mass {mass}")

    def tail_quantile(self, p, dps: int = 30, two_sided: bool = True) -> int:
        """Exact tail quantile: the smallest integer ``t >= 0`` with ``P(|X - c| > t) <= p``,
        ``c = center`` (with ``two_sided=False``: ``P(X - c > t) <= p``).

        Guarantee: the returned ``t`` is *proved* to satisfy ``tail(t) <= p`` and, when
        ``t > 0``, ``tail(t - 1) > p``. Each tail is enclosed in a certified interval summed
        from the tail itself (never as 1 − the central mass, which loses all relative accuracy
        when the tail is tiny): ``[Σ lower ends, Σ upper ends + remainder]`` of the Arb balls
        of ``P(X = k)`` over a window beyond ``c ± t``, with the certified remainder beyond the
        window from :meth:`tail_bound` (the window is widened until the remainder is below
        ``10**-(dps+2)`` of the tail's first term). ``p`` is compared with the interval ends
        as an exact rational (a float is taken at its binary value; pass ``"1e-30"`` or a
        ``Fraction`` for a decimal). The intervals are about ``10**-dps`` wide in relative
        terms; if one straddles ``p`` the precision is doubled (up to ``8 * dps``) and
        ``ArithmeticError`` is raised when ``p`` still cannot be separated from a tail value.
        The float ``logsf``/``logcdf`` only provide the starting guess. Cost: a few tail
        evaluations, each linear in the window (~ scale·dps terms for geometric tails).
        """
        dps = check_dps(dps)
        if not isinstance(two_sided, bool):
            raise ParameterError(f"two_sided must be a bool, got {two_sided!r}")

        pf = _tail_probability(p)
        c = self.center
        symmetric = self.symmetric

        def enclose(t: int, d: int) -> tuple[mpmath.mpf, mpmath.mpf]:
            return self.certified_tail(t, two_sided, d, c)

        # Starting guess from the float tails.
        log_p = float(mpmath.log(mpmath.mpf(pf.numerator) / pf.denominator))

        def float_above(t: int) -> bool:
            if t < 0:
                return True
            v = float(self.logsf(c + t))
            if two_sided and symmetric:
                v += math.log(2.0)
            elif two_sided:
                v = float(np.logaddexp(v, self.logcdf(c - t - 1)))
            return v > log_p

        try:
            guess = last_true(float_above, -1, self._search_step(), +1) + 1
        except (ArithmeticError, ValueError, OverflowError, FloatingPointError):
            guess = 0

        tq, _ = certified_threshold(enclose, pf, guess, 1, dps, what=f"the tail of {self}")
        return tq

    def certified_tail(self, t: int, two_sided: bool = True, dps: int = 30,
                       c: int | None = None) -> Interval:
        """Certified Interval for ``P(|X − c| > t)`` (or ``P(X − c > t)``), summed
        from the tail itself: the Arb balls of ``P(X = k)`` over a window beyond ``c ± t``
        plus the certified remainder from :meth:`tail_bound`; the window is widened until
        the remainder is below ``10**-(dps+2)`` of the tail's first term."""
        c = self.center if c is None else c
        bits = _arb.bits_for_dps(dps) + 2 * _arb.GUARD_BITS
        symmetric = self.symmetric and c == self.center
        with mpmath.workprec(bits):
            # The aim only controls the interval's width: a float log PMF suffices (Arb
            # where it underflows).
            ends = [c + t + 1, c - t - 1] if two_sided else [c + t + 1]
            with np.errstate(all="ignore"):
                log_first = float(np.max(self.logpmf(np.array(ends, dtype=np.int64))))
            if math.isfinite(log_first):
                ref = mpmath.exp(log_first)
            else:
                ref = _arb.to_mpf(self.pmf_balls(c + t + 1, c + t + 1, bits)[0])
            target = ref * mpmath.mpf(10) ** -(dps + 2)
            w = self._tail_window(t, c, dps)
            for _ in range(64):
                lo_k, hi_k = c - t - w, c + t + w
                try:
                    rem = self.tail_bound(lo_k, hi_k, dps=dps)
                except ValueError:  # the window does not yet reach past the mode
                    rem = None
                if rem is not None and rem <= target:
                    break
                w *= 2
            else:  # pragma: no cover - every distribution's tail_bound decays
                raise CertificationError(f"no certified tail remainder beyond t={t} for {self!r}")
            with _arb.precision(bits):
                s = sum(self.pmf_balls(c + t + 1, hi_k, bits), arb(0))
                if two_sided and symmetric:  # p(c - k) = p(c + k)
                    s = 2 * s
                elif two_sided:
                    s += sum(self.pmf_balls(lo_k, c - t - 1, bits), arb(0))
                low = max(mpmath.mpf(0), _arb.lower_mpf(s))
            high = add_up(_arb.upper_mpf(s), rem)
            return interval(low, min(high, mpmath.mpf(1)))

    def _tail_window(self, t: int, c: int, dps: int) -> int:
        """Float guess of a window beyond ``c ± t`` with a negligible remainder (it only
        saves work: the certified remainder decides)."""
        w0 = max(16, self._search_step())
        ws = w0 * 2 ** np.arange(0, 31, dtype=np.int64)
        ws = ws[c + t + ws < 2**61]
        with np.errstate(all="ignore"):
            try:
                ref = float(self.logpmf(c + t + 1))
                far = np.maximum(self.logpmf(c + t + ws), self.logpmf(c - t - ws))
            except (ArithmeticError, ValueError):
                return w0
            ok = np.flatnonzero(far - ref <= -(dps + 2) * math.log(10.0) - 10.0)
        return int(ws[ok[0]]) if ok.size and math.isfinite(ref) else w0

    def _float_upper_quantile(self, log_p: float, rel_tol: float = 0.0) -> int:
        """Smallest integer t >= centre with ``logsf(t) <= log_p`` (float search); with
        ``rel_tol`` > 0, some t with ``logsf(t) <= log_p`` within that fraction of the
        distance from the centre (fewer evaluations)."""
        c = self.center

        def above(x: int) -> bool:
            if abs(x) > POINT_LIMIT:
                raise self._too_wide(f"its upper tail at e^{log_p:.4g}")
            return x == c or self._logsf(np.array([x]))[0] > log_p

        return last_true(above, c, self._search_step(), +1, rel_tol) + 1

    def _float_lower_quantile(self, log_p: float) -> int:
        """Largest integer t <= centre with ``log P(X < t) <= log_p`` (float search)."""
        c = self.center

        def above(x: int) -> bool:  # P(X < x) = cdf(x - 1)
            if abs(x) > POINT_LIMIT:
                raise self._too_wide(f"its lower tail at e^{log_p:.4g}")
            return x == c or self._logcdf(np.array([x - 1]))[0] > log_p

        return last_true(above, c, self._search_step(), -1) - 1

    def _search_step(self) -> int:
        sd = math.sqrt(max(self.var(), 1.0))
        if not sd < POINT_LIMIT:  # also inf / nan
            raise self._too_wide("its standard deviation")
        return max(1, int(sd))

    #: The parameters that set the law's width, named in "too wide" errors.
    _width_parameters = "parameters"
    #: The law's location parameter, if it has one (named when the centre is far out).
    _location_parameter: str | None = None

    def _too_wide(self, what: str) -> ParameterError:
        """The error for a law whose float search would leave the integer range ±2**62 of
        privtools (:data:`privtools.validation.POINT_LIMIT`): it names the parameters."""
        who = f"{self._width_parameters} too large"
        if self._location_parameter and abs(self.center) > POINT_LIMIT // 2:
            who = f"{self._location_parameter} too far from 0 (or {who})"
        return ParameterError(f"{who} for the integer range of privtools: {what} lies beyond "
                              f"±2**62 for this {type(self).__name__}")


class SymmetricIntegerDistribution(IntegerDistribution):
    """Distributions symmetric about an integer centre ``c``: p(c + x) = p(c - x).

    Only the upper tail ``log P(X > k)`` for ``k >= c`` is implemented by subclasses
    (``_log_upper_tail``); the rest follows by symmetry:
    ``P(X <= k) = P(X >= 2c - k) = P(X > 2c - k - 1)``.
    """

    symmetric = True

    def _log_upper_tail(self, k: np.ndarray) -> np.ndarray:
        return self._log_upper_tail_sum(k)

    def _logsf(self, k: np.ndarray) -> np.ndarray:
        c = self.center
        k = np.asarray(k, dtype=np.int64)
        out = np.empty(k.shape, dtype=float)
        upper = k >= c
        if upper.any():
            out[upper] = self._log_upper_tail(k[upper])
        if (~upper).any():
            mirrored = 2 * c - k[~upper] - 1  # P(X <= k) = P(X > 2c - k - 1), >= c
            out[~upper] = np.log1p(-np.exp(self._log_upper_tail(mirrored)))
        return out

    def _logcdf(self, k: np.ndarray) -> np.ndarray:
        c = self.center
        return self._logsf(2 * c - np.asarray(k, dtype=np.int64) - 1)

    def _arb_lower_tail(self, t: int) -> arb | None:
        c = self.center
        # P(X < t) = P(X > 2c - t)
        return self._arb_upper_tail(2 * c - t)


def _tail_probability(p) -> Fraction:
    """:meth:`~IntegerDistribution.tail_quantile`'s ``p``, exact, checked in (0, 1)."""
    if isinstance(p, mpmath.mpf):
        pf = to_exact_fraction(p)
        if pf is None:
            raise ParameterError(f"p must be finite, got {p!r}")
    else:
        pf = to_fraction("p", p)
    if not 0 < pf < 1:
        raise ParameterError(f"p must be in (0, 1), got {p!r}")
    return pf


def _suffix_logsumexp(lp: np.ndarray) -> np.ndarray:
    """``out[i] = log(sum(exp(lp[i:])))`` for a non-increasing (in the tail) ``lp``.

    Sums in float blocks whose log values span less than ~600 (no underflow inside a
    block), from the small end so that small terms are added first.
    """
    n = lp.size
    out = np.full(n, -np.inf)
    if n == 0:
        return out
    finite = np.isfinite(lp)
    if not finite.any():
        return out
    # Blocks: the running minimum of lp drops by less than the span inside a block.
    running_min = np.minimum.accumulate(np.where(finite, lp, np.inf))
    first = lp[np.argmax(finite)]
    block_id = np.floor((first - np.minimum(running_min, first)) / _BLOCK_LOG_SPAN)
    block_id = np.where(np.isfinite(block_id), block_id, np.nanmax(block_id[np.isfinite(block_id)]))
    boundaries = [0, *(np.flatnonzero(np.diff(block_id)) + 1).tolist(), n]
    after = -np.inf  # log of the sum of all later blocks
    for s, e in zip(boundaries[-2::-1], boundaries[:0:-1]):
        seg = lp[s:e]
        shift = np.max(seg[np.isfinite(seg)]) if np.isfinite(seg).any() else -np.inf
        if shift == -np.inf:
            out[s:e] = after
            continue
        local = np.exp(seg - shift)
        suffix = np.cumsum(local[::-1])[::-1]
        with np.errstate(divide="ignore"):
            block = np.log(suffix) + shift
        out[s:e] = np.logaddexp(block, after)
        after = out[s]
    return out


def check_n(n) -> int:
    """Number of users/shares: an integer >= 1."""
    return check_int("n", n, minimum=1)
