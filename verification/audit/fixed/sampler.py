"""Does a sampler follow its law? A black-box goodness-of-fit audit.

``sampler(size, rng)`` claims to draw from ``reference``: a privtools distribution, a
certified :class:`~privtools.exact.ExactPMF`, a frozen ``scipy.stats`` distribution
(discrete, or continuous for a float sampler) or a ``{value: probability}`` table.

* Integer laws (privtools laws, ExactPMFs, discrete scipy laws, integer tables): three
  tests look at the sample from three sides — a G-test over the bulk
  (:func:`verification.gof.g_test`), a tail test at a ladder of far-tail thresholds (where
  privacy lives: noise whose tails are too light leaks) and a moments test (mean and
  variance, the most powerful view of a small change of scale).
* Continuous scipy laws: the Kolmogorov–Smirnov test, the same tail ladder read through
  the law's ``sf``/``cdf``, and the moments test when the law has a fourth moment; with
  ``bits=True`` also a bit test of the draws' IEEE-754 encoding (:func:`_bits_test`): a law
  with a density, rounded to the doubles, puts the low bits of the mantissa uniformly
  within every binade, so a binade whose draws sit on a coarser lattice than its ulp, or
  low bits that are not uniform, show a float sampler that does not reach the doubles its
  law reaches (Mironov, CCS 2012).
* Tables over other values (strings, tuples, floats): a G-test over the values.

The p-values are combined by Bonferroni, so the overall false-alarm rate is at most
``alpha`` (up to the χ²/normal approximations inside the G-test and the moments test; the
tail tests are exact binomial tests). An audit can never prove a sampler right — a pass
only says the sample did not show a difference.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.stats as st

from privtools.certified.search import last_true
from privtools.errors import ParameterError
from privtools.exact import ExactPMF
from privtools.noise import IntegerDistribution
from privtools.validation import as_rng, check_int, check_level

from ...gof import _TableLaw, g_test
from .. import guard
from ..events.bits import binade_code, binade_label, low_bits, trailing_zeros

__all__ = ["SamplerAudit", "audit_sampler"]

# Expected counts at which the tail test places its thresholds (each side).
_TAIL_LADDER = (1e4, 1e3, 1e2, 1e1, 1.0, 1e-1, 1e-2)
# Largest reference table (points) used for the fourth moment of the variance test.
_MAX_TABLE = 4_000_000
# Number of draws per call of the user's code when progress is reported.
_MIN_CHUNK = 100_000


def _as_int_samples(out, size: int, who: str) -> np.ndarray:
    """Check what the user's code returned: exactly ``size`` integers, nothing else."""
    if isinstance(out, (list, tuple)):
        out = np.asarray(out)
    if not isinstance(out, np.ndarray):
        raise ParameterError(f"{who} must return a numpy array of integers, got {type(out)!r}")
    if out.shape != (size,):
        raise ParameterError(f"{who} returned shape {out.shape}, expected ({size},)")
    if out.dtype == object:
        if not all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in out):
            raise ParameterError(f"{who} returned non-integer values")
        try:
            return out.astype(np.int64)
        except OverflowError:
            raise ParameterError(f"{who} returned integers beyond int64; map them to a "
                                 "smaller range (e.g. reduce mod m)") from None
    if np.issubdtype(out.dtype, np.bool_):
        raise ParameterError(f"{who} returned booleans, expected integers")
    if not np.issubdtype(out.dtype, np.integer):
        bad = "NaN values" if np.issubdtype(out.dtype, np.floating) and np.isnan(out).any() \
            else f"dtype {out.dtype}"
        raise ParameterError(f"{who} must return integers, got {bad} (a float output — even "
                             "integer-valued — is rejected: cast deliberately if you mean it)")
    if out.dtype == np.uint64 and out.size and out.max() > np.iinfo(np.int64).max:
        raise ParameterError(f"{who} returned integers beyond int64")
    return out.astype(np.int64, copy=False)


def _as_float_samples(out, size: int, who: str) -> np.ndarray:
    """Exactly ``size`` real numbers (integers are read as reals)."""
    arr = np.asarray(out) if isinstance(out, (list, tuple)) else out
    if not isinstance(arr, np.ndarray):
        raise ParameterError(f"{who} must return a numpy array of floats, got {type(out)!r}")
    if arr.shape != (size,):
        raise ParameterError(f"{who} returned shape {arr.shape}, expected ({size},)")
    if arr.dtype.kind not in "iuf":
        raise ParameterError(f"{who} must return real numbers, got dtype {arr.dtype}")
    return arr.astype(np.float64, copy=False)


def _as_objects(out, size: int, who: str) -> list:
    if isinstance(out, np.ndarray):
        out = out.tolist() if out.ndim == 1 else [tuple(r) for r in out.tolist()]
    out = list(out)
    if len(out) != size:
        raise ParameterError(f"{who} returned {len(out)} values, expected {size}")
    return out


def _draw(fn: Callable, args: tuple, size: int, rng: np.random.Generator, who: str,
          progress: Callable[[int], None] | None, convert=_as_int_samples):
    """Call ``fn(*args, chunk, rng)`` until ``size`` draws are collected."""
    if progress is None:
        return convert(fn(*args, size, rng), size, who)
    chunk = max(_MIN_CHUNK, -(-size // 20))
    parts, done = [], 0
    while done < size:
        k = min(chunk, size - done)
        parts.append(convert(fn(*args, k, rng), k, who))
        done += k
        progress(k)
    if convert is _as_objects:
        return [v for part in parts for v in part]
    return np.concatenate(parts)


# ================================================================ sampler audit
@dataclass(frozen=True)
class SamplerAudit:
    """Outcome of :func:`audit_sampler`. ``passed`` means no test rejected the claim at
    level ``alpha``; ``verdict`` is ``"pass"``, ``"fail"`` or ``"inconclusive"``."""

    passed: bool
    verdict: str
    p_value: float
    alpha: float
    n_samples: int
    reference: str
    tests: dict                 # name -> {"p_value": ..., and what the test saw}
    reason: str = ""
    user_code: object = None

    @property
    def draws(self) -> int:
        """Draws the audit took (``n_samples``)."""
        return self.n_samples

    @property
    def details(self) -> dict:
        """The per-test results (statistic, p-value), keyed by test name."""
        return self.tests

    def summary(self) -> str:
        """One readable line: verdict, sample size, combined p-value and each test's."""
        parts = ", ".join(f"{k} p={v['p_value']:.3g}" for k, v in self.tests.items())
        line = (f"{self.verdict.upper()}: {self.n_samples} samples vs {self.reference}; "
                f"combined p = {self.p_value:.3g} (alpha = {self.alpha:g}); {parts}")
        return line + (f" — {self.reason}" if self.reason else "")

    def to_dict(self) -> dict:
        """The audit as JSON-ready values."""
        return {"passed": self.passed, "verdict": self.verdict, "p_value": self.p_value,
                "alpha": self.alpha, "n_samples": self.n_samples, "reference": self.reference,
                "tests": self.tests, "reason": self.reason,
                "user_code": None if self.user_code is None else self.user_code.to_dict()}


_TINY = 1e-17       # tail mass a scipy law's table may leave out at each end
_TABLE_TOL = 1e-9   # how far a {value: probability} table may sum from 1


def _is_scipy(reference, kind) -> bool:
    return hasattr(reference, "dist") and isinstance(reference.dist, kind) \
        and hasattr(reference, "cdf")


def _name(reference) -> str:
    if _is_scipy(reference, (st.rv_discrete, st.rv_continuous)):
        args = ", ".join(f"{a:g}" if isinstance(a, float) else str(a) for a in reference.args)
        kw = ", ".join(f"{k}={v:g}" for k, v in reference.kwds.items())
        return f"scipy.stats.{reference.dist.name}({', '.join(x for x in (args, kw) if x)})"
    return type(reference).__name__


def _check_table(reference: dict) -> dict:
    if not reference:
        raise ParameterError("reference table is empty")
    probs = {}
    for value, prob in reference.items():
        try:
            hash(value)
        except TypeError:
            raise ParameterError(f"reference table has an unhashable value {value!r}") from None
        if isinstance(prob, bool) or not isinstance(prob, (int, float, np.floating)) or \
                not math.isfinite(prob) or prob < 0:
            raise ParameterError(f"reference table: probability of {value!r} must be a "
                                 f"finite number >= 0, got {prob!r}")
        probs[value] = float(prob)
    total = math.fsum(probs.values())
    if abs(total - 1.0) > _TABLE_TOL:
        raise ParameterError(f"reference table: probabilities sum to {total!r}, not 1")
    return probs


def _integer_keys(table: dict) -> bool:
    return all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in table)


def _discrete_range(ref):
    """Integers lo..hi outside which a discrete scipy law has at most ``_TINY`` mass per
    side (None when it reaches beyond 2⁶² either way)."""
    mid = int(ref.median())
    ends = []
    for side, mass in ((-1, ref.cdf), (+1, lambda k: ref.sf(k))):
        step = 1
        k = mid
        while float(mass(k)) > _TINY:
            k = mid + side * step
            step *= 2
            if step > 2**62:
                return None, None
        ends.append(k)
    return ends[0], ends[1]


class _Law:
    """Float reader of an integer reference: cdf/sf/pmf, centre and moments."""

    def __init__(self, reference):

        if isinstance(reference, IntegerDistribution):
            self.dist = reference
            self.name = str(reference)
        elif isinstance(reference, ExactPMF):
            if reference.modulus is not None:
                raise ParameterError("reference must be a PMF on Z, not a wrapped one")
            self.dist = _TableLaw(reference)
            self.name = reference.label or "ExactPMF"
        elif _is_scipy(reference, st.rv_discrete):
            lo, hi = _discrete_range(reference)
            if lo is None or hi - lo > _MAX_TABLE:
                raise ParameterError(f"reference {_name(reference)} spreads over more than "
                                     f"{_MAX_TABLE} integers; audit a narrower law")
            k = np.arange(int(lo), int(hi) + 1)
            self.dist = _TableLaw.from_table(int(lo), reference.pmf(k))
            self.name = _name(reference)
        elif isinstance(reference, dict) and _integer_keys(_check_table(reference)):
            table = _check_table(reference)
            lo, hi = min(table), max(table)
            if hi - lo > _MAX_TABLE:
                raise ParameterError(f"reference table spans more than {_MAX_TABLE} integers")
            p = np.zeros(int(hi - lo) + 1)
            for v, q in table.items():
                p[int(v) - lo] = q
            self.dist = _TableLaw.from_table(int(lo), p)
            self.name = f"a table of {len(table)} integers"
        else:
            raise ParameterError("reference must be a privtools distribution, an ExactPMF, a "
                                 "frozen scipy.stats distribution or a {value: probability} "
                                 f"table, got {type(reference).__name__}")

    def threshold(self, count: float, n: int, side: int) -> int | None:
        """Integer t where the expected count beyond t (X > t for side +1, X < t for side
        −1) first drops to ``count`` or below; None if the law has no such point in reach."""
        d = self.dist
        c = d.center
        step = max(1, int(math.sqrt(max(d.var(), 1.0))))
        if side > 0:
            def beyond(t):
                return n * float(d.sf(t))
        else:
            def beyond(t):
                return n * float(d.cdf(t - 1))
        if beyond(c) <= count:
            return None
        t = last_true(lambda k: beyond(k) > count, c, step, side)
        t += side  # first point with expected count <= `count`
        if beyond(t) <= 0.0:
            return None  # beyond the reference's support / table
        return t

    def moments(self) -> tuple[float, float, float | None]:
        """Mean, variance and fourth central moment (None when the table is too large)."""
        d = self.dist
        if isinstance(d, _TableLaw):
            k = np.arange(d.lo, d.lo + d.p.size)
            return d.mean, d.var(), float(((k - d.mean) ** 4 * d.p).sum())
        mean, var = float(d.mean()), float(d.var())
        lo = self.threshold(1e-22, 1, -1)
        hi = self.threshold(1e-22, 1, +1)
        if lo is None or hi is None or hi - lo > _MAX_TABLE:
            return mean, var, None
        k = np.arange(lo, hi + 1, dtype=np.int64)
        p = d.pmf(k)
        return mean, var, float(((k - mean) ** 4 * p).sum())


def _tail_test(x: np.ndarray, law: _Law) -> dict:
    """Exact binomial tests of the tail counts at a ladder of thresholds on each side."""
    n = x.size
    rows = []
    for side in (+1, -1):
        seen = set()
        for count in _TAIL_LADDER:
            t = law.threshold(count, n, side)
            if t is None or t in seen:
                continue
            seen.add(t)
            q = float(law.dist.sf(t - 1)) if side > 0 else float(law.dist.cdf(t))
            obs = int((x >= t).sum()) if side > 0 else int((x <= t).sum())
            p_hi = float(st.binom.sf(obs - 1, n, q))     # P(O >= obs)
            p_lo = float(st.binom.cdf(obs, n, q))        # P(O <= obs)
            rows.append({"tail": f"X >= {t}" if side > 0 else f"X <= {t}",
                         "observed": obs, "expected": n * q,
                         "p_value": min(1.0, 2 * min(p_hi, p_lo))})
    if not rows:
        return {"p_value": 1.0, "thresholds": []}
    p = min(1.0, len(rows) * min(r["p_value"] for r in rows))
    rows.sort(key=lambda r: r["p_value"])
    return {"p_value": p, "thresholds": rows}


def _moments_test(x: np.ndarray, law: _Law | None, moments=None) -> dict:
    """z-tests of the sample mean and the sample variance against the reference."""
    n = x.size
    mean, var, mu4 = law.moments() if moments is None else moments
    xf = x.astype(float)
    xm = float(xf.mean())
    dev = xf - mean
    s2 = float((dev * dev).sum() / n)  # variance about the known mean (unbiased under H0)
    if mu4 is None:  # fall back to the sample fourth moment
        mu4 = float((dev ** 4).mean())
    z_mean = (xm - mean) / math.sqrt(var / n) if var > 0 else 0.0
    se_var = math.sqrt(max(mu4 - var * var, 0.0) / n)
    z_var = (s2 - var) / se_var if se_var > 0 else 0.0
    p_mean = float(2 * st.norm.sf(abs(z_mean)))
    p_var = float(2 * st.norm.sf(abs(z_var)))
    return {"p_value": min(1.0, 2 * min(p_mean, p_var)),
            "mean": {"observed": xm, "expected": mean, "z": z_mean, "p_value": p_mean},
            "variance": {"observed": s2, "expected": var, "z": z_var, "p_value": p_var}}


def audit_sampler(sampler: Callable, reference, n_samples: int, rng=None, alpha: float = 0.01,
                  *, progress: Callable[[int], None] | None = None,
                  bits: bool = False, timeout=guard.DEFAULT_TIMEOUT,
                  total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> SamplerAudit:
    """Test the claim that ``sampler(size, rng)`` draws i.i.d. from ``reference``.

    ``reference``: a privtools distribution (e.g. ``Skellam(100)``), an
    :class:`~privtools.exact.ExactPMF` (e.g. ``exact.sum_pmf(share, n)``), a frozen
    ``scipy.stats`` distribution (``scipy.stats.geom(0.3)``; a continuous one such as
    ``scipy.stats.laplace(scale=2)`` for a float sampler) or a ``{value: probability}``
    table. The combined p-value is the Bonferroni minimum over the tests that ran
    (``min(1, 3 · min(p_G, p_tail, p_moments))`` for integer laws), so a correct sampler
    fails with probability at most ``alpha``. At least 1000 samples are
    required; with too few samples for the G-test to resolve the law the verdict is
    ``"inconclusive"`` (never a pass). ``progress(k)`` is called after each chunk of ``k``
    draws when given (the sampler is then called in chunks with the same ``rng``).

    ``bits=True`` (continuous scipy laws only) adds the bit test of :func:`_bits_test` to
    the Bonferroni combination: it fails float samplers whose draws lie on a coarser
    lattice than the doubles of their binade — a difference of exponentials near 0, a
    uniform of too few bits, ``loc + scale·Z`` far below ``|loc|``, float32 draws — which
    at the precision of the doubles do not follow the law (their outputs are *not* the law
    rounded to the nearest double).

    The sampler runs behind the guard of :mod:`privtools.usercode` (``timeout``,
    ``total_timeout`` as in :func:`verification.audit.audit_mechanism`).
    """
    if not callable(sampler):
        raise ParameterError("sampler must be callable as sampler(size, rng)")
    if not isinstance(bits, (bool, np.bool_)):
        raise ParameterError(f"bits must be True or False, got {bits!r}")
    continuous = _is_scipy(reference, st.rv_continuous)
    table = isinstance(reference, dict) and not _integer_keys(_check_table(reference))
    law = None if continuous or table else _Law(reference)
    n_samples = check_int("n_samples", n_samples, minimum=1)
    alpha = check_level("alpha", alpha)
    if n_samples < 1000:
        raise ParameterError(f"n_samples must be >= 1000 for a meaningful audit, got {n_samples}")
    gen = as_rng(rng)
    if bits and not continuous:
        raise ParameterError("bits=True needs a continuous scipy.stats reference (the bit "
                             "test reads the doubles a continuous law reaches)")
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    sampler = guard.wrap(sampler, "sampler", None)

    def work(tick):
        res = _sampler_audit(sampler=sampler, reference=reference, law=law, continuous=continuous,
                             table=table, n_samples=n_samples, gen=gen, alpha=alpha, bits=bits,
                             progress=tick)
        return res, gen.bit_generator.state
    res, state = guard.run(work, timeout=timeout, total_timeout=total_timeout,
                           progress=progress, shared=(sampler,))
    gen.bit_generator.state = state   # the caller's generator moves on as if drawn here
    return res


def _sampler_audit(sampler, reference, law, continuous, table, n_samples, gen, alpha, bits,
                   progress) -> SamplerAudit:
    if continuous:
        x = _draw(sampler, (), n_samples, gen, "sampler", progress, _as_float_samples)
        return _audit_continuous(x, reference, alpha, bool(bits))
    if table:
        x = _draw(sampler, (), n_samples, gen, "sampler", progress, _as_objects)
        return _audit_table(x, _check_table(reference), alpha)
    x = _draw(sampler, (), n_samples, gen, "sampler", progress)
    tests = {}
    try:
        g = g_test(x, law.dist, min_expected=10.0)
    except ParameterError as exc:
        return SamplerAudit(False, "inconclusive", float("nan"), alpha, n_samples, law.name,
                            {}, reason=f"too few samples to resolve the law ({exc})")
    tests["g_test"] = {"p_value": g.p_value, "statistic": g.statistic, "dof": g.dof,
                       "worst_bins": g.worst_bins(5)}
    tests["tails"] = _tail_test(x, law)
    tests["moments"] = _moments_test(x, law)
    single = int((np.diff(g.edges)[1:-1] == 1).sum()) if len(g.edges) > 3 else 0
    if g.dof < 2 or single == 0:
        return SamplerAudit(False, "inconclusive", float("nan"), alpha, n_samples, law.name,
                            tests, reason="too few samples to see the law at the scale of "
                            "single integers (no integer has 10 expected draws); use more")
    p = min(1.0, 3 * min(t["p_value"] for t in tests.values()))
    passed = p >= alpha
    reason = "" if passed else "rejected by " + ", ".join(
        k for k, t in tests.items() if 3 * t["p_value"] < alpha)
    return SamplerAudit(passed, "pass" if passed else "fail", p, alpha, n_samples, law.name,
                        tests, reason)




def _continuous_tails(x: np.ndarray, ref) -> dict:
    """Exact binomial tests of the tail counts at the ladder's quantiles of a continuous law."""
    n = x.size
    rows = []
    for side in (+1, -1):
        for count in _TAIL_LADDER:
            q = count / n
            if q >= 0.5:
                continue
            t = float(ref.isf(q)) if side > 0 else float(ref.ppf(q))
            if not math.isfinite(t):
                continue
            q = float(ref.sf(t)) if side > 0 else float(ref.cdf(t))
            obs = int((x >= t).sum()) if side > 0 else int((x <= t).sum())
            p_hi = float(st.binom.sf(obs - 1, n, q))
            p_lo = float(st.binom.cdf(obs, n, q))
            rows.append({"tail": f"X >= {t:.6g}" if side > 0 else f"X <= {t:.6g}",
                         "observed": obs, "expected": n * q,
                         "p_value": min(1.0, 2 * min(p_hi, p_lo))})
    if not rows:
        return {"p_value": 1.0, "thresholds": []}
    rows.sort(key=lambda r: r["p_value"])
    return {"p_value": min(1.0, len(rows) * rows[0]["p_value"]), "thresholds": rows}


def _combine(tests: dict, alpha: float, n: int, name: str) -> SamplerAudit:
    m = len(tests)
    p = min(1.0, m * min(t["p_value"] for t in tests.values()))
    passed = p >= alpha
    reason = "" if passed else "rejected by " + ", ".join(
        k for k, t in tests.items() if m * t["p_value"] < alpha)
    return SamplerAudit(passed, "pass" if passed else "fail", p, alpha, n, name, tests, reason)


# Depths j of the lattice test: "at least j trailing zero bits" has probability 2^-j.
_BIT_DEPTHS = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32)
_MAX_LOW_BITS = 8            # low bits of the pooled uniformity test (fewer on small samples)
_NORMAL_MIN = 2.0**-1022     # subnormals have no binade of their own and are left out
_SKIP = 1                    # the parity bit, biased by the last rounding, is not read


def _bits_test(x: np.ndarray) -> dict:
    """Bit test of float draws against a law with a density, at the precision of doubles.

    Rounded to the doubles, a law with a density ``p`` gives every double of a binade
    ``[2^e, 2^(e+1))`` a probability ``∫ p`` over its rounding cell of width ``2^(e−52)``;
    over ``2^j`` consecutive doubles ``p`` changes by a relative ``|p'/p|·2^(e−52+j)`` —
    below 2^-30 for any law and binade a sampler reaches in practice — so within each
    binade the mantissa field is uniform to that precision. A sampler's last operation
    rounds once more (``σ ⊗ Z``, ``b ⊗ ln U``): when the exact result has only a few bits
    beyond the 53 kept, ties are frequent and round-half-to-even makes the mantissa even
    more often than not (``3 ⊗ Z`` is even with probability ≈ 0.7), but a round-to-nearest
    of a value uniform on a finer grid leaves every bit *above* the parity bit uniform. So
    the test reads the field without its lowest bit (``_SKIP``):

    * its bits ``1..j`` are all zero with probability ``2^-j`` (``j`` in ``_BIT_DEPTHS``):
      one exact binomial upper-tail test per (binade, j), Bonferroni over all of them — a
      sampler whose draws in some binade lie on the lattice ``2^(e−51+j)ℤ`` fails it with
      p ≈ 2^-(j·count);
    * its bits ``1..k`` (``k <= 8``, at least 10 expected draws per pattern) are uniform
      over all binades pooled: a χ² test with ``2^k − 1`` degrees of freedom.

    The p-value is twice the smaller (Bonferroni over the two). Zero and subnormal draws
    (probability ≈ 0 under a law with a density at any reachable scale) are left out. A
    lattice one bit coarser than the ulp (numpy's ``random()`` on ``[1/4, 1/2)``) is below
    what this test reads."""
    x = x[np.abs(x) >= _NORMAL_MIN]
    n = x.size
    if n < 20:
        return {"p_value": 1.0, "note": "fewer than 20 normal non-zero draws"}
    codes, inv = np.unique(binade_code(x), return_inverse=True)
    tz = trailing_zeros(x, skip=_SKIP)
    total = np.bincount(inv, minlength=codes.size)
    rows, p_min, tests = [], 1.0, 0
    for j in _BIT_DEPTHS:
        hits = np.bincount(inv, weights=(tz >= j), minlength=codes.size).astype(np.int64)
        q = 2.0**-j
        p = st.binom.sf(hits - 1, total, q)
        tests += codes.size
        i = int(np.argmin(p))
        if p[i] < p_min or not rows:
            p_min = min(p_min, float(p[i]))
            rows.append({"binade": binade_label(codes[i]), "draws": int(total[i]),
                         "zero_bits_above_parity_at_least": j, "observed": int(hits[i]),
                         "expected": float(total[i] * q), "p_value": float(p[i])})
    p_lattice = min(1.0, tests * p_min)
    k = int(min(_MAX_LOW_BITS, math.floor(math.log2(n / 10))))
    counts = np.bincount(low_bits(x, k, skip=_SKIP), minlength=1 << k).astype(float)
    expected = n / (1 << k)
    chi2 = float(((counts - expected) ** 2).sum() / expected)
    p_low = float(st.chi2.sf(chi2, (1 << k) - 1))
    worst = sorted(rows, key=lambda r: r["p_value"])[:3]
    return {"p_value": min(1.0, 2 * min(p_lattice, p_low)),
            "lattice": {"p_value": p_lattice, "tests": tests, "worst": worst},
            "low_bits": {"p_value": p_low, "bits": k, "statistic": chi2,
                         "dof": (1 << k) - 1}}


def _audit_continuous(x: np.ndarray, ref, alpha: float, bits: bool = False) -> SamplerAudit:
    n, name = x.size, _name(ref)
    bad = int((~np.isfinite(x)).sum())
    if bad:
        return SamplerAudit(False, "fail", 0.0, alpha, n, name, {}, reason=(
            f"{bad} draws are NaN or infinite, impossible under {name}"))
    ks = st.kstest(x, ref.cdf)
    tests = {"ks_test": {"p_value": float(ks.pvalue), "statistic": float(ks.statistic)},
             "tails": _continuous_tails(x, ref)}
    mean, var, kurt = (float(v) for v in ref.stats(moments="mvk"))
    if all(math.isfinite(v) for v in (mean, var, kurt)) and var > 0:
        mu4 = (kurt + 3.0) * var * var
        tests["moments"] = _moments_test(x, None, (mean, var, mu4))
    if bits:
        tests["bits"] = _bits_test(x)
    return _combine(tests, alpha, n, name)


def _audit_table(values: list, table: dict, alpha: float) -> SamplerAudit:
    """G-test of hashable draws against a table; values outside the table fail at once."""
    from collections import Counter

    n, name = len(values), f"a table of {len(table)} values"
    seen = Counter(values)
    outside = [v for v in seen if table.get(v, 0.0) == 0.0]
    if outside:
        return SamplerAudit(False, "fail", 0.0, alpha, n, name, {}, reason=(
            f"{sum(seen[v] for v in outside)} draws are outside the table (e.g. "
            f"{outside[0]!r})"))
    kept = [v for v, q in table.items() if n * q >= 10.0]
    rest = [v for v, q in table.items() if 0 < n * q < 10.0]
    obs = [seen[v] for v in kept]
    exp = [n * table[v] for v in kept]
    if rest:
        obs.append(sum(seen[v] for v in rest))
        exp.append(n * math.fsum(table[v] for v in rest))
    if len(obs) < 2:
        return SamplerAudit(False, "inconclusive", float("nan"), alpha, n, name, {}, reason=(
            "too few samples: fewer than two values have 10 expected draws"))
    o, e = np.array(obs, dtype=float), np.array(exp)
    with np.errstate(divide="ignore", invalid="ignore"):
        g = 2.0 * float(np.where(o > 0, o * np.log(o / e), 0.0).sum())
    p = float(st.chi2.sf(g, len(obs) - 1))
    worst = np.argsort(-np.abs(o - e) / np.sqrt(e))[:5]
    labels = [repr(v) for v in kept] + (["other"] if rest else [])
    tests = {"g_test": {"p_value": p, "statistic": g, "dof": len(obs) - 1, "worst_bins": [
        {"value": labels[i], "observed": int(o[i]), "expected": float(e[i])} for i in worst]}}
    return _combine(tests, alpha, n, name)
