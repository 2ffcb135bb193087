"""Sequential, anytime-valid audits: draw in rounds, stop as soon as the verdict is decided.

**Mechanisms** (:func:`audit_mechanism_sequential`). (ε, δ)-DP between ``d`` and ``d_prime``
implies P(E | d) ≤ e^ε P(E | d') + δ for every event E, in both directions. Draw i on the
favoured dataset and draw i on the other give X_i = 1[E] and Y_i = 1[E]; under the claim
Z_i = X_i − e^ε Y_i − δ has mean at most 0 whatever E is, as long as E (and its direction)
was fixed before the draws. The audit bets on Z:

    K_t = ∏_{i ≤ t} (1 + λ_i Z_i),     0 ≤ λ_i ≤ 1/(e^ε + δ),

with E and λ chosen from earlier draws only. Then K is a non-negative supermartingale under
the claim, and Ville's inequality gives P(sup_t K_t ≥ 1/α) ≤ α: the audit may look after
every draw and stop at the first t with K_t ≥ 1/α, and its false-alarm rate is still at
most α (the e-process / testing-by-betting view of Shafer and Vovk; Waudby-Smith and
Ramdas, "Estimating means of bounded random variables by betting", JRSS-B 2024). The rounds
double in size; before each, the event is chosen again on *all* earlier draws (:func:`
verification.audit.select.choose_event`) and λ is half the Kelly fraction that the
earlier draws suggest for it. A gross bug therefore fails after a few hundred draws; a
mechanism near its claim uses the budget.

``epsilon_lower`` is a separate statement at the same level: round r's fresh counts give a
Clopper–Pearson bound at level α·2^-r (:func:`verification.audit.stats.log_ratio_bound`),
and the largest of them holds with probability at least 1 − Σ α·2^-r ≥ 1 − α.

**Samplers** (:func:`audit_sampler_sequential`). Under the claimed law P₀ the values fall in
bins with probabilities p₀ (every integer of the law's bulk plus the two tails, or 32
quantile bins of a continuous law). Each round bets on the plug-in alternative
q̂ = ½ p₀ + ½ (smoothed bin frequencies of the earlier draws): K_t = ∏ q̂(b_i)/p₀(b_i) is a
non-negative martingale under P₀ (the likelihood ratio of a predictable alternative), so
the same 1/α threshold holds at every stopping time.

A pass only says no violation showed within ``max_samples`` draws; *inconclusive* means the
budget could not have crossed 1/α even for the most extreme outcome.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.stats as st

from privtools.errors import ParameterError
from privtools.validation import check_int

from .draws import SEQUENTIAL, Draws, root_seed
from .events import Event
from .mechanism import check_claim, check_learners
from .select import LEARNERS, Sample, choose_event
from .stats import check_alpha, log_ratio_bound

__all__ = ["SequentialAudit", "audit_mechanism_sequential", "audit_sampler_sequential",
           "FIRST_ROUND"]

FIRST_ROUND = 256          # draws per dataset of the first round (selection only)
_LAMBDA_CAP = 0.9          # λ ≤ 0.9/(e^ε + δ): no draw can lose more than 90 % of K
_SAMPLER_BINS = 32         # quantile bins of a continuous law
_MAX_INT_BINS = 4001       # bins of an integer law's bulk (merged evenly beyond)


@dataclass(frozen=True)
class SequentialAudit:
    """Outcome of a sequential audit.

    ``verdict`` is ``"fail"`` when the e-process crossed 1/``alpha`` (false-alarm rate at
    most ``alpha`` at every stopping time), ``"pass"`` when it did not within
    ``max_samples`` draws, ``"inconclusive"`` when the budget could not have crossed.
    ``draws`` is the number of draws per dataset actually taken (selection rounds
    included); ``e_value`` the largest K reached; ``rounds`` one record per round.
    For a mechanism, ``epsilon_lower`` holds with confidence 1 − ``alpha`` (see the module
    doc); for a sampler it is None.
    """

    passed: bool
    verdict: str
    kind: str                      # "mechanism" or "sampler"
    alpha: float
    draws: int
    max_samples: int
    e_value: float
    rounds: tuple = ()
    epsilon: float | None = None
    delta: float | None = None
    epsilon_lower: float | None = None
    event: Event | None = None
    reason: str = ""
    seed: int | None = None
    output_type: str = ""
    extra: dict = field(default_factory=dict)

    def summary(self) -> str:
        k = f"e-value {self.e_value:.3g} (threshold 1/α = {1 / self.alpha:.3g})"
        if self.kind == "mechanism":
            claim = f"ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")
            line = (f"{self.verdict.upper()}: claim {claim}; {k} after {self.draws:,} draws "
                    f"per dataset; ε ≥ {self.epsilon_lower:.4g} with confidence "
                    f"{1 - self.alpha:g}")
            if self.event is not None and self.verdict == "fail":
                line += f"; witness: {self.event.describe()}"
        else:
            line = f"{self.verdict.upper()}: {k} after {self.draws:,} draws"
        return line + (f" — {self.reason}" if self.reason else "")

    def to_dict(self) -> dict:
        return {"passed": self.passed, "verdict": self.verdict, "kind": self.kind,
                "alpha": self.alpha, "draws": self.draws, "max_samples": self.max_samples,
                "e_value": self.e_value, "epsilon": self.epsilon, "delta": self.delta,
                "epsilon_lower": self.epsilon_lower, "seed": self.seed,
                "event": None if self.event is None else self.event.to_dict(),
                "output_type": self.output_type, "rounds": list(self.rounds),
                "reason": self.reason, **self.extra}


def round_sizes(max_samples: int, first: int) -> list[int]:
    """Draws per dataset of each round: ``first`` (selection), then ``first``, 2·``first``,
    4·``first`` … until the total reaches ``max_samples`` (the last round truncated)."""
    sizes, total, nxt = [first], first, first
    while total < max_samples:
        k = min(nxt, max_samples - total)
        sizes.append(k)
        total += k
        nxt *= 2
    return sizes


def _check_budget(max_samples, first) -> tuple[int, int]:
    max_samples = check_int("max_samples", max_samples, minimum=2)
    first = check_int("first", first, minimum=1)
    if first >= max_samples:
        raise ParameterError(f"first must be below max_samples (the first round only "
                             f"chooses the event): first = {first}, max_samples = "
                             f"{max_samples}")
    return max_samples, first


# ---------------------------------------------------------------- mechanisms
def _kelly(p: float, q: float, eps: float, delta: float, cap: float) -> float:
    """Half the growth-optimal fraction for Z = X − e^ε Y − δ with X ~ B(p), Y ~ B(q)
    independent, in [0, cap]; 0 when the estimated drift is not positive."""
    e = math.exp(eps)
    z = np.array([1 - delta, -e - delta, 1 - e - delta, -delta])
    w = np.array([p * (1 - q), (1 - p) * q, p * q, (1 - p) * (1 - q)])
    if float(w @ z) <= 0:
        return 0.0
    lo, hi = 0.0, cap
    for _ in range(60):   # E[Z/(1 + λZ)] is decreasing in λ: bisect its root
        mid = (lo + hi) / 2
        if float(w @ (z / (1 + mid * z))) > 0:
            lo = mid
        else:
            hi = mid
    return lo / 2


def _walk(path: np.ndarray, threshold: float, best: float, rec: dict):
    """Read one round's running log e-value: (value at the end or at the first crossing,
    the largest value up to then, whether it crossed); the crossing draw goes in ``rec``."""
    hit = np.flatnonzero(path >= threshold)
    if hit.size:
        rec["stopped_at"] = int(hit[0]) + 1
        return float(path[hit[0]]), max(best, float(path[hit[0]])), True
    return float(path[-1]), max(best, float(path.max())), False


def _concat(a: Sample | None, b: Sample) -> Sample:
    if a is None:
        return b
    return Sample(a.outputs.concat([b.outputs]), a.raw + b.raw, a.sizes + b.sizes)


def audit_mechanism_sequential(mechanism: Callable, d, d_prime, epsilon, max_samples: int,
                               rng=None, delta=0.0, alpha: float = 0.01, *,
                               first: int = FIRST_ROUND, features: Callable | None = None,
                               learners=LEARNERS, executor=None, bits: bool = False,
                               progress: Callable[[int], None] | None = None
                               ) -> SequentialAudit:
    """Anytime-valid audit of the claim (``epsilon``, ``delta``) between ``d`` and
    ``d_prime``: rounds of ``first``, ``first``, 2·``first``, … draws per dataset, at most
    ``max_samples`` in all, stopping at the first draw where the e-process reaches
    1/``alpha`` (see the module doc). Other arguments as in
    :func:`verification.audit.audit_mechanism`."""
    if not callable(mechanism):
        raise ParameterError("mechanism must be callable as mechanism(dataset, size, rng)")
    eps, dlt = check_claim(epsilon, delta)
    max_samples, first = _check_budget(max_samples, first)
    alpha = check_alpha(alpha)
    learners = check_learners(learners)
    if features is not None and not callable(features):
        raise ParameterError("features must be callable as features(outputs) -> array")
    seed = root_seed(rng)
    sizes = round_sizes(max_samples, first)
    cap = _LAMBDA_CAP / (math.exp(eps) + dlt)
    threshold = math.log(1 / alpha)
    # the most any run could reach: every test draw in E on one side only, at the cap
    reachable = (max_samples - first) * math.log1p(cap * (1 - dlt))
    log_k, best_log_k, used, eps_lower = 0.0, 0.0, 0, 0.0
    A = B = None
    offset = [0, 0]
    event, otype, history, crossed = None, "", [], False
    with Draws(mechanism, seed, executor, progress) as draws:
        for r, n in enumerate(sizes):
            lam = 0.0
            if r > 0:
                choice = choose_event(A, B, n, alpha, dlt, features=features,
                                      learners=learners, seed=(seed + r) % 2**32, bits=bits)
                event = choice.event
                if event is not None:
                    ka, kb = int(A.contains(event).sum()), int(B.contains(event).sum())
                    kp, kq = (ka, kb) if event.direction == "d" else (kb, ka)
                    m = A.outputs.n
                    lam = _kelly((kp + 0.5) / (m + 1), (kq + 0.5) / (m + 1), eps, dlt, cap)
            new = []
            for side, data in enumerate((d, d_prime)):
                outs, raws, szs = draws.sample(data, n, SEQUENTIAL, side, offset[side])
                offset[side] += draws.n_chunks(n)
                new.append(Sample(outs, raws, szs))
            used += n
            otype = new[0].outputs.describe_type()
            rec = {"round": r, "draws": n, "lambda": lam}
            if r > 0 and event is not None:
                xa, xb = new[0].contains(event), new[1].contains(event)
                x, y = (xa, xb) if event.direction == "d" else (xb, xa)
                x, y = x.astype(float), y.astype(float)
                kp, kq = int(x.sum()), int(y.sum())
                bound = float(log_ratio_bound(kp, kq, n, alpha * 2.0 ** -r, dlt))
                eps_lower = max(eps_lower, bound)
                rec.update(event=event.describe(), count_favoured=kp, count_other=kq,
                           epsilon_lower=max(0.0, bound))
                if lam > 0:
                    path = log_k + np.cumsum(np.log1p(lam * (x - math.exp(eps) * y - dlt)))
                    log_k, best_log_k, crossed = _walk(path, threshold, best_log_k, rec)
            rec["log_e_value"] = log_k
            history.append(rec)
            if crossed:
                break
            A, B = _concat(A, new[0]), _concat(B, new[1])
    e_value = math.exp(min(best_log_k, 700.0))
    common = dict(kind="mechanism", alpha=alpha, draws=used, max_samples=max_samples,
                  e_value=e_value, rounds=tuple(history), epsilon=eps, delta=dlt,
                  epsilon_lower=max(0.0, eps_lower), event=event, seed=seed,
                  output_type=otype)
    if crossed:
        return SequentialAudit(False, "fail", **common,
                               reason=f"the e-process reached 1/α after "
                                      f"{used:,} draws per dataset")
    if reachable < threshold:
        return SequentialAudit(False, "inconclusive", **common,
                               reason=f"{max_samples:,} draws per dataset cannot reach 1/α "
                                      f"= {1 / alpha:.3g} even if every draw told the "
                                      "datasets apart; use a larger max_samples")
    if event is None:
        return SequentialAudit(False, "inconclusive", **common,
                               reason="no candidate event: the outputs gave nothing to "
                                      "compare")
    return SequentialAudit(True, "pass", **common)


# ---------------------------------------------------------------- samplers
def _null_bins(reference):
    """(p₀, binning function) for the claimed law: the integers of a discrete law's bulk
    (mass outside ≤ 1e-9 per side; at most 4001 bins, merged evenly beyond that) plus the
    two tails; 32 quantile bins of a continuous scipy law; the values of a table."""
    from .sampler import _check_table, _integer_keys, _is_scipy, _Law

    if _is_scipy(reference, st.rv_continuous):
        edges = np.asarray(reference.ppf(np.linspace(0, 1, _SAMPLER_BINS + 1)[1:-1]),
                           dtype=float)

        def binned(v):
            return np.searchsorted(edges, np.asarray(v, dtype=float), side="right")
        return np.full(_SAMPLER_BINS, 1.0 / _SAMPLER_BINS), binned
    if isinstance(reference, dict) and not _integer_keys(_check_table(reference)):
        table = _check_table(reference)
        index = {v: i for i, v in enumerate(table)}
        p = np.array([*table.values(), 0.0])

        def binned(v):
            return np.fromiter((index.get(x, len(table)) for x in v), dtype=np.int64)
        return p, binned
    law = _Law(reference).dist
    lo, hi = _bulk(law)
    edges = np.arange(lo, hi + 2) if hi - lo < _MAX_INT_BINS else \
        np.unique(np.round(np.linspace(lo, hi + 1, _MAX_INT_BINS + 1)).astype(np.int64))
    cdf = np.asarray([float(law.cdf(int(e) - 1)) for e in edges])
    p = np.concatenate([[cdf[0]], np.diff(cdf), [float(law.sf(int(edges[-1]) - 1))]])
    p = np.maximum(p, 0.0)

    def binned(v):
        return np.searchsorted(edges, np.asarray(v), side="right")
    return p / p.sum(), binned


def _bulk(law) -> tuple[int, int]:
    """Integers lo..hi outside which the law has at most 1e-9 mass per side."""
    c = int(law.center)
    step = max(1, int(math.sqrt(max(float(law.var()), 1.0))))
    ends = []
    for side in (-1, 1):
        k, s = c, step
        while (float(law.cdf(k - 1)) if side < 0 else float(law.sf(k))) > 1e-9:
            k = c + side * s
            s *= 2
        ends.append(k)
    return ends[0], ends[1]


def audit_sampler_sequential(sampler: Callable, reference, max_samples: int, rng=None,
                             alpha: float = 0.01, *, first: int = 1024,
                             progress: Callable[[int], None] | None = None
                             ) -> SequentialAudit:
    """Anytime-valid goodness of fit of ``sampler(size, rng)`` to ``reference`` (a privtools
    law, an ExactPMF, a frozen scipy distribution or a ``{value: probability}`` table):
    rounds of ``first``, ``first``, 2·``first``, … draws, at most ``max_samples``, stopping
    when the plug-in likelihood ratio reaches 1/``alpha`` (see the module doc)."""
    if not callable(sampler):
        raise ParameterError("sampler must be callable as sampler(size, rng)")
    max_samples, first = _check_budget(max_samples, first)
    alpha = check_alpha(alpha)
    seed = root_seed(rng)
    p0, binned = _null_bins(reference)
    threshold = math.log(1 / alpha)
    counts = np.zeros(p0.size)
    log_k = best = 0.0
    used, history, crossed = 0, [], False
    for r, n in enumerate(round_sizes(max_samples, first)):
        g = np.random.Generator(np.random.PCG64(np.random.SeedSequence(
            seed, spawn_key=(SEQUENTIAL, 0, r))))
        values = np.asarray(sampler(n, g))
        if values.shape[:1] != (n,):
            raise ParameterError(f"sampler({n}, rng) returned shape {values.shape}, "
                                 f"expected ({n},)")
        if progress is not None:
            progress(n)
        b = binned(values)
        used += n
        rec = {"round": r, "draws": n}
        if r > 0:
            freq = (counts + 0.5) / (counts.sum() + 0.5 * counts.size)
            q = 0.5 * p0 + 0.5 * freq
            with np.errstate(divide="ignore"):
                step = np.where(p0 > 0, np.log(q) - np.log(p0), np.inf)[b]
            log_k, best, crossed = _walk(log_k + np.cumsum(step), threshold, best, rec)
        rec["log_e_value"] = log_k
        history.append(rec)
        counts += np.bincount(b, minlength=p0.size)
        if crossed:
            break
    common = dict(kind="sampler", alpha=alpha, draws=used, max_samples=max_samples,
                  e_value=math.exp(min(best, 700.0)), rounds=tuple(history), seed=seed)
    if crossed:
        return SequentialAudit(False, "fail", **common,
                               reason=f"the likelihood-ratio e-process reached 1/α after "
                                      f"{used:,} draws")
    return SequentialAudit(True, "pass", **common)
