"""Black-box audits: does a sampler follow its law, is a mechanism as private as claimed?

Two questions a user brings with their own code:

* :func:`audit_sampler` — ``sampler(size, rng)`` claims to draw from ``reference`` (a
  privtools distribution or a certified :class:`~verification.exact.ExactPMF`). Three
  general tests look at the sample from three sides: a G-test over the bulk
  (:func:`verification.gof.g_test`), a tail test at a ladder of far-tail thresholds (where
  privacy lives: noise whose tails are too light leaks), and a moments test (mean and
  variance — the most powerful view of a small change of scale). Their p-values are
  combined by Bonferroni, so the overall false-alarm rate is at most ``alpha`` (up to the
  χ²/normal approximations inside the G-test and the moments test; the tail test is exact).
* :func:`audit_mechanism` — ``mechanism(dataset, size, rng)`` claims (ε, δ)-DP. The audit
  draws outputs on two neighbouring datasets, *chooses* an event on one half of the draws
  and *tests* it on the other half, so the chosen event is independent of the test data.
  For the chosen event E, Clopper–Pearson intervals give, with probability at least
  1 − ``alpha``, P(E | d) ≥ p_lo and P(E | d') ≤ q_hi; (ε, δ)-DP implies
  P(E | d) ≤ e^ε P(E | d') + δ, hence the honest lower confidence bound

      ε_lower = log((p_lo − δ) / q_hi)        (0 when the numerator is not positive).

  The approach is that of the statistical DP auditors (Ding, Wang, Wang, Zhang, Kifer,
  "Detecting violations of differential privacy", CCS 2018; Jagielski, Ullman, Oprea,
  "Auditing differentially private machine learning", NeurIPS 2020); events here are
  superlevel sets of the estimated likelihood ratio and the two tails, which include the
  optimal event for monotone-likelihood-ratio mechanisms such as integer noise added to a
  sum.

Neither audit can prove privacy — a pass only says the sample did not show a violation.
The exact half (``verification.divergence``) proves; these audits test code whose internals
the user cannot or will not expose.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.stats as st

from privtools.certified.search import last_true
from privtools.errors import ParameterError
from privtools.noise import IntegerDistribution
from privtools.validation import as_rng, check_int, check_nonneg

from .gof import _TableLaw, g_test

__all__ = [
    "SamplerAudit",
    "MechanismAudit",
    "Event",
    "audit_sampler",
    "audit_mechanism",
    "clopper_pearson",
]

# Expected counts at which the tail test places its thresholds (each side).
_TAIL_LADDER = (1e4, 1e3, 1e2, 1e1, 1.0, 1e-1, 1e-2)
# Largest reference table (points) used for the fourth moment of the variance test.
_MAX_TABLE = 4_000_000
# Number of draws per call of the user's code when progress is reported.
_MIN_CHUNK = 100_000


# ---------------------------------------------------------------- input checking
def _check_alpha(alpha) -> float:
    if isinstance(alpha, bool) or not isinstance(alpha, (int, float, np.floating)):
        raise ParameterError(f"alpha must be a float in (0, 0.5], got {alpha!r}")
    a = float(alpha)
    if not 0 < a <= 0.5:
        raise ParameterError(f"alpha must be in (0, 0.5], got {alpha!r}")
    return a


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


def _draw(fn: Callable, args: tuple, size: int, rng: np.random.Generator, who: str,
          progress: Callable[[int], None] | None) -> np.ndarray:
    """Call ``fn(*args, chunk, rng)`` until ``size`` draws are collected."""
    if progress is None:
        return _as_int_samples(fn(*args, size, rng), size, who)
    chunk = max(_MIN_CHUNK, -(-size // 20))
    parts, done = [], 0
    while done < size:
        k = min(chunk, size - done)
        parts.append(_as_int_samples(fn(*args, k, rng), k, who))
        done += k
        progress(k)
    return np.concatenate(parts)


# ---------------------------------------------------------------- Clopper–Pearson
def clopper_pearson(k, n, alpha: float, side: str):
    """One-sided Clopper–Pearson bound at confidence 1 − ``alpha`` on a binomial rate from
    ``k`` successes in ``n`` trials (vectorized): ``side="lower"`` or ``"upper"``."""
    k = np.asarray(k, dtype=float)
    n = np.asarray(n, dtype=float)
    if side == "lower":
        with np.errstate(invalid="ignore"):
            out = st.beta.ppf(alpha, k, n - k + 1)
        return np.where(k <= 0, 0.0, out)
    if side == "upper":
        with np.errstate(invalid="ignore"):
            out = st.beta.isf(alpha, k + 1, n - k)  # isf keeps tiny alpha accurate
        return np.where(k >= n, 1.0, out)
    raise ParameterError(f"side must be 'lower' or 'upper', got {side!r}")


def _log_ratio_bound(kp, kq, n, alpha, delta):
    """ε lower bound log((p_lo − δ)/q_hi) from counts, each bound at level alpha/2."""
    p_lo = clopper_pearson(kp, n, alpha / 2, "lower") - delta
    q_hi = clopper_pearson(kq, n, alpha / 2, "upper")
    with np.errstate(divide="ignore", invalid="ignore"):
        eps = np.log(p_lo / q_hi)
    return np.where(p_lo > 0, eps, -np.inf)


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

    @property
    def details(self) -> dict:
        return self.tests

    def summary(self) -> str:
        parts = ", ".join(f"{k} p={v['p_value']:.3g}" for k, v in self.tests.items())
        line = (f"{self.verdict.upper()}: {self.n_samples} samples vs {self.reference}; "
                f"combined p = {self.p_value:.3g} (alpha = {self.alpha:g}); {parts}")
        return line + (f" — {self.reason}" if self.reason else "")

    def to_dict(self) -> dict:
        return {"passed": self.passed, "verdict": self.verdict, "p_value": self.p_value,
                "alpha": self.alpha, "n_samples": self.n_samples, "reference": self.reference,
                "tests": self.tests, "reason": self.reason}


class _Law:
    """Float reader of the reference: cdf/sf/pmf, centre and a PMF table for moments."""

    def __init__(self, reference):
        from .exact import ExactPMF

        if isinstance(reference, IntegerDistribution):
            self.dist = reference
            self.name = str(reference)
        elif isinstance(reference, ExactPMF):
            if reference.modulus is not None:
                raise ParameterError("reference must be a PMF on Z, not a wrapped one")
            self.dist = _TableLaw(reference)
            self.name = reference.label or "ExactPMF"
        else:
            raise ParameterError("reference must be a privtools distribution or an ExactPMF, "
                                 f"got {type(reference)!r}")

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


def _moments_test(x: np.ndarray, law: _Law) -> dict:
    """z-tests of the sample mean and the sample variance against the reference."""
    n = x.size
    mean, var, mu4 = law.moments()
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
                  *, progress: Callable[[int], None] | None = None) -> SamplerAudit:
    """Test the claim that ``sampler(size, rng)`` draws i.i.d. from ``reference``.

    ``reference``: a privtools distribution (e.g. ``Skellam(100)``) or an
    :class:`~verification.exact.ExactPMF` (e.g. ``exact.sum_pmf(share, n)``).
    The combined p-value is ``min(1, 3 · min(p_G, p_tail, p_moments))`` (Bonferroni), so a
    correct sampler fails with probability at most ``alpha``. At least 1000 samples are
    required; with too few samples for the G-test to resolve the law the verdict is
    ``"inconclusive"`` (never a pass). ``progress(k)`` is called after each chunk of ``k``
    draws when given (the sampler is then called in chunks with the same ``rng``).
    """
    if not callable(sampler):
        raise ParameterError("sampler must be callable as sampler(size, rng)")
    law = _Law(reference)
    n_samples = check_int("n_samples", n_samples, minimum=1)
    alpha = _check_alpha(alpha)
    if n_samples < 1000:
        raise ParameterError(f"n_samples must be >= 1000 for a meaningful audit, got {n_samples}")
    gen = as_rng(rng)
    x = _draw(sampler, (), n_samples, gen, "sampler", progress)
    tests = {}
    try:
        g = g_test(x, law.dist if isinstance(law.dist, IntegerDistribution) else reference,
                   min_expected=10.0)
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


# ================================================================ mechanism audit
@dataclass(frozen=True)
class Event:
    """An output event: ``kind`` is ``"set"`` (``values``), ``"ge"`` or ``"le"`` (a tail at
    ``threshold``); ``direction`` says which dataset it favours (``"d"`` or ``"d_prime"``)."""

    kind: str
    direction: str
    threshold: int | None = None
    values: tuple[int, ...] = ()

    def contains(self, x: np.ndarray) -> np.ndarray:
        if self.kind == "ge":
            return x >= self.threshold
        if self.kind == "le":
            return x <= self.threshold
        return np.isin(x, np.asarray(self.values, dtype=np.int64))

    def describe(self) -> str:
        if self.kind == "ge":
            return f"output >= {self.threshold}"
        if self.kind == "le":
            return f"output <= {self.threshold}"
        vals = self.values
        if len(vals) <= 8:
            return "output in {" + ", ".join(map(str, vals)) + "}"
        return (f"output in a set of {len(vals)} values (from {min(vals)} to {max(vals)}, "
                f"chosen by estimated likelihood ratio)")


@dataclass(frozen=True)
class MechanismAudit:
    """Outcome of :func:`audit_mechanism`.

    ``epsilon_lower`` holds with confidence 1 − ``alpha``: the mechanism is *not*
    (ε, δ)-DP for any ε < ``epsilon_lower``. ``passed = epsilon_lower <= epsilon`` and the
    verdict is ``"pass"``, ``"fail"`` or ``"inconclusive"`` (the sample size cannot
    certify any ε above the claim, so a pass would mean nothing). ``p_value`` is the
    smallest level at which the claim would be rejected with the chosen event.
    """

    passed: bool
    verdict: str
    epsilon: float
    delta: float
    epsilon_lower: float
    epsilon_estimate: float
    epsilon_max_detectable: float
    p_value: float
    alpha: float
    n_samples: int
    event: Event | None
    counts: dict = field(default_factory=dict)
    reason: str = ""

    @property
    def details(self) -> dict:
        return {"event": self.event.describe() if self.event else None, **self.counts,
                "epsilon_estimate": self.epsilon_estimate,
                "epsilon_max_detectable": self.epsilon_max_detectable}

    def summary(self) -> str:
        claim = f"ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")
        line = (f"{self.verdict.upper()}: claim {claim}; ε ≥ {self.epsilon_lower:.4g} with "
                f"confidence {1 - self.alpha:g} (p = {self.p_value:.3g})")
        if self.event is not None:
            line += f"; witness: {self.event.describe()}"
        return line + (f" — {self.reason}" if self.reason else "")

    def to_dict(self) -> dict:
        return {"passed": self.passed, "verdict": self.verdict, "epsilon": self.epsilon,
                "delta": self.delta, "epsilon_lower": self.epsilon_lower,
                "epsilon_estimate": self.epsilon_estimate,
                "epsilon_max_detectable": self.epsilon_max_detectable,
                "p_value": self.p_value, "alpha": self.alpha, "n_samples": self.n_samples,
                "event": None if self.event is None else {
                    "kind": self.event.kind, "direction": self.event.direction,
                    "threshold": self.event.threshold, "n_values": len(self.event.values),
                    "description": self.event.describe()},
                **self.counts, "reason": self.reason}


def _candidate_prefixes(length: int, limit: int = 4000) -> np.ndarray:
    """Prefix lengths to score: all of the first ``limit/2``, then geometrically spaced."""
    if length <= limit:
        return np.arange(1, length + 1)
    head = np.arange(1, limit // 2 + 1)
    tail = np.unique(np.geomspace(limit // 2 + 1, length, limit // 2).astype(np.int64))
    return np.unique(np.concatenate([head, tail, [length]]))


def _select_event(a: np.ndarray, b: np.ndarray, alpha: float, delta: float) -> Event | None:
    """Choose the event with the largest ε lower bound on the selection halves ``a`` (from
    d) and ``b`` (from d'); candidates: likelihood-ratio superlevel sets and both tails,
    in both directions."""
    n = a.size
    values, inv = np.unique(np.concatenate([a, b]), return_inverse=True)
    ca = np.bincount(inv[:n], minlength=values.size)
    cb = np.bincount(inv[n:], minlength=values.size)
    best, best_eps = None, -np.inf
    for direction, cp, cq in (("d", ca, cb), ("d_prime", cb, ca)):
        # Rank single outputs by a conservative ratio (Clopper–Pearson ends at level 0.1)
        # so that sparse outputs whose raw ratio is large by chance rank last.
        score = _log_ratio_bound(cp, cq, n, 0.2, 0.0)
        ratio_order = np.argsort(-score, kind="stable")
        orders = (("set", ratio_order), ("ge", np.arange(values.size)[::-1]),
                  ("le", np.arange(values.size)))
        for kind, order in orders:
            sp, sq = np.cumsum(cp[order]), np.cumsum(cq[order])
            idx = _candidate_prefixes(values.size) - 1
            eps = _log_ratio_bound(sp[idx], sq[idx], n, alpha, delta)
            j = int(np.argmax(eps))
            if eps[j] > best_eps:
                best_eps = float(eps[j])
                cut = idx[j] + 1
                if kind == "set":
                    best = Event("set", direction, values=tuple(int(v) for v in
                                                                np.sort(values[order[:cut]])))
                elif kind == "ge":
                    best = Event("ge", direction, threshold=int(values[order[cut - 1]]))
                else:
                    best = Event("le", direction, threshold=int(values[order[cut - 1]]))
    return best


def _p_value(kp: int, kq: int, n: int, delta: float, epsilon: float) -> float:
    """Smallest level a at which log((p_lo − δ)/q_hi) > ε, by bisection on log a."""
    def rejects(a):
        return float(_log_ratio_bound(kp, kq, n, a, delta)) > epsilon

    if not rejects(1.0 - 1e-12):
        return 1.0
    lo, hi = -745.0, 0.0  # log of the level
    if rejects(math.exp(lo)):
        return 0.0
    for _ in range(60):
        mid = (lo + hi) / 2
        if rejects(math.exp(mid)):
            hi = mid
        else:
            lo = mid
    return math.exp(hi)


def audit_mechanism(mechanism: Callable, d, d_prime, epsilon, n_samples: int, rng=None,
                    delta=0.0, alpha: float = 0.01, *,
                    progress: Callable[[int], None] | None = None) -> MechanismAudit:
    """Empirical lower confidence bound on the ε of ``mechanism`` between ``d`` and
    ``d_prime``, and a verdict on the claim (``epsilon``, ``delta``).

    ``mechanism(dataset, size, rng)`` returns ``size`` independent integer outputs. It is
    called with independent generators spawned from ``rng`` for the two datasets. Half of
    each sample chooses the event, the other half tests it (Clopper–Pearson at
    ``alpha/2`` per side), so ``epsilon_lower`` exceeds the true ε with probability at most
    ``alpha``. ``progress(k)`` is called after each chunk of ``k`` draws when given.
    """
    if not callable(mechanism):
        raise ParameterError("mechanism must be callable as mechanism(dataset, size, rng)")
    eps_claim = float(check_nonneg("epsilon", epsilon))
    delta_f = float(check_nonneg("delta", delta))
    if delta_f >= 1:
        raise ParameterError(f"delta must be < 1, got {delta!r}")
    n_samples = check_int("n_samples", n_samples, minimum=1)
    if n_samples < 200:
        raise ParameterError(f"n_samples must be >= 200 per dataset, got {n_samples}")
    alpha = _check_alpha(alpha)
    gen = as_rng(rng)
    g_d, g_dp = gen.spawn(2)
    x = _draw(mechanism, (d,), n_samples, g_d, "mechanism", progress)
    y = _draw(mechanism, (d_prime,), n_samples, g_dp, "mechanism", progress)
    half = n_samples // 2
    n_test = n_samples - half
    eps_max = float(_log_ratio_bound(n_test, 0, n_test, alpha, delta_f))
    event = _select_event(x[:half], y[:half], alpha, delta_f)
    xt, yt = x[half:], y[half:]
    kx, ky = int(event.contains(xt).sum()), int(event.contains(yt).sum())
    kp, kq = (kx, ky) if event.direction == "d" else (ky, kx)
    bound = float(_log_ratio_bound(kp, kq, n_test, alpha, delta_f))
    eps_lower = max(0.0, bound)
    with np.errstate(divide="ignore"):
        est = float(np.log(max(kp / n_test - delta_f, 0.0) / (kq / n_test))) if kq else \
            (math.inf if kp / n_test > delta_f else 0.0)
    p_value = _p_value(kp, kq, n_test, delta_f, eps_claim)
    counts = {"count_favoured": kp, "count_other": kq, "n_test": n_test,
              "p_lower": float(clopper_pearson(kp, n_test, alpha / 2, "lower")),
              "q_upper": float(clopper_pearson(kq, n_test, alpha / 2, "upper"))}
    if eps_max <= eps_claim:
        return MechanismAudit(False, "inconclusive", eps_claim, delta_f, eps_lower, est, eps_max,
                              p_value, alpha, n_samples, event, counts,
                              reason=(f"{n_samples} samples per dataset can certify at most "
                                      f"ε = {eps_max:.3g} at confidence {1 - alpha:g}; "
                                      "use more samples"))
    passed = eps_lower <= eps_claim
    reason = "" if passed else (f"the event '{event.describe()}' has probability at least "
                                f"{counts['p_lower']:.3g} on one dataset and at most "
                                f"{counts['q_upper']:.3g} on the other")
    return MechanismAudit(passed, "pass" if passed else "fail", eps_claim, delta_f, eps_lower,
                          est, eps_max, p_value, alpha, n_samples, event, counts, reason)
