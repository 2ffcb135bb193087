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
verification.audit.events.select.choose_event`) and λ is the Kelly (growth-optimal) fraction
that the earlier draws suggest for it; the support event (outputs one side gave and the other
never, :mod:`verification.audit.events.support`) replaces it when the earlier draws promise
it the faster growth. A gross bug therefore fails after a few hundred draws; a
mechanism near its claim uses the budget.

``epsilon_lower`` combines two statements, each at level α, so it holds with confidence
1 − 2α. (i) The e-process inverted: run against a smaller claim ε' the bets stay valid
(Z only grows); against a larger one they are rescaled, λ' = λ (e^ε + δ)/(e^ε' + δ), which
keeps every factor positive and is still fixed before the draw. Each ε' whose process
reached 1/α is rejected, and with probability at least 1 − α the true ε is not (Ville's
inequality again); the bound is the largest ε' below which every value is rejected — at
least the claim when the audit fails, so the two never contradict each other. Between grid
points each factor is monotone in ε', so the least product over a grid step bounds the
process inside it and whole steps are rejected at once. (ii) Round r's fresh counts give a
Clopper–Pearson bound at level α·2^-r (:func:`verification.audit.stats.log_ratio_bound`):
the process stops at its first crossing, just past the claim, while the counts of a gross
bug often show a much larger ε.

**Samplers** (:func:`audit_sampler_sequential`). Under the claimed law P₀ the values fall in
fine bins with probabilities p₀ (every integer of the law's bulk plus the two tails, or 1024
quantile bins of a continuous law). The audit bets at two resolutions — the fine bins and
16 groups of them with about equal mass — and, at each, on the alternatives

    q_w = (1 − w) p₀ + w f̂,     w ∈ {1/2, 1/4, …, 1/64},

where f̂ are the earlier draws' group frequencies smoothed towards p₀ (as many pseudo-draws
as groups, placed as p₀ would place them). Each K^(R,w)_t = ∏ q_w(b_i)/p₀(b_i) is the
likelihood ratio of a predictable alternative, a non-negative martingale under P₀, and so
is their average K_t: the same 1/α threshold holds at every stopping time. The coarse
resolution catches a wrong scale in a few hundred draws; the fine one and the small
weights catch shape errors (a missing share, rounding) that only show over many draws.

A pass only says no violation showed within ``max_samples`` draws; *inconclusive* means the
budget could not have crossed 1/α even for the most extreme outcome.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import scipy.stats as st
from scipy.special import logsumexp

from privtools.errors import ParameterError
from privtools.validation import check_int, check_level

from . import guard
from .draws import SEQUENTIAL, Draws, root_seed
from .events import Event
from .events.select import LEARNERS, Sample, choose_event
from .events.support import support_event
from .fixed.mechanism import check_learners
from .fixed.sampler import _check_table, _integer_keys, _is_scipy, _Law
from .neighbours import check_pair
from .stats import SHRINK, clopper_pearson, log_ratio_bound
from .stats.hockey import LAMBDA_CAP, kelly_fraction, kelly_growth
from .values import check_claim

__all__ = ["SequentialAudit", "audit_mechanism_sequential", "audit_sampler_sequential",
           "FIRST_ROUND"]

FIRST_ROUND = 256          # draws per dataset of the first round (selection only)
_SAMPLER_BINS = 1024       # fine quantile bins of a continuous law
_COARSE_GROUPS = 16        # groups of about equal mass: the coarse resolution
_WEIGHTS = 2.0 ** -np.arange(1, 7)   # mixing weights w of the alternatives
_MAX_INT_BINS = 4001       # bins of an integer law's bulk (merged evenly beyond)


@dataclass(frozen=True)
class SequentialAudit:
    """Outcome of a sequential audit.

    ``verdict`` is ``"fail"`` when the e-process crossed 1/``alpha`` (false-alarm rate at
    most ``alpha`` at every stopping time), ``"pass"`` when it did not within
    ``max_samples`` draws, ``"inconclusive"`` when the budget could not have crossed.
    ``draws`` is the number of draws per dataset actually taken (selection rounds
    included); ``e_value`` the largest K reached; ``rounds`` one record per round.
    For a mechanism, ``epsilon_lower`` holds with confidence 1 − 2·``alpha`` and is at
    least the claim on a fail (see the module doc); for a sampler it is None.
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
    user_code: object = None

    def summary(self) -> str:
        """One readable line: verdict, claim, e-value against 1/α, draws used."""
        k = f"e-value {self.e_value:.3g} (threshold 1/α = {1 / self.alpha:.3g})"
        if self.kind == "mechanism":
            claim = f"ε = {self.epsilon:g}" + (f", δ = {self.delta:g}" if self.delta else "")
            line = (f"{self.verdict.upper()}: claim {claim}; {k} after {self.draws:,} draws "
                    f"per dataset; ε ≥ {self.epsilon_lower:.4g} with confidence "
                    f"{1 - 2 * self.alpha:g}")
            if self.event is not None and self.verdict == "fail":
                line += f"; witness: {self.event.describe()}"
        else:
            line = f"{self.verdict.upper()}: {k} after {self.draws:,} draws"
        return line + (f" — {self.reason}" if self.reason else "")

    def to_dict(self) -> dict:
        """The audit as JSON-ready values."""
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
def _walk(path: np.ndarray, threshold: float, best: float, rec: dict):
    """Read one round's running log e-value: (value at the end or at the first crossing,
    the largest value up to then, whether it crossed); the crossing draw goes in ``rec``."""
    hit = np.flatnonzero(path >= threshold)
    if hit.size:
        rec["stopped_at"] = int(hit[0]) + 1
        return float(path[hit[0]]), max(best, float(path[hit[0]])), True
    return float(path[-1]), max(best, float(path.max())), False


def _reaches(log_factors: np.ndarray, threshold: float) -> bool:
    return log_factors.size > 0 and float(np.cumsum(log_factors).max()) >= threshold


def _inverted_lower(lam: np.ndarray, x: np.ndarray, y: np.ndarray, eps: float,
                    delta: float, threshold: float, crossed: bool, max_steps: int = 4096
                    ) -> float:
    """The largest ε' such that every value up to it is rejected by the e-process run
    against ε' on the same draws and bets (see the module doc)."""
    e = math.exp(eps)
    if not crossed:
        # below the claim K(ε') decreases in ε' (λ fixed, Z decreasing): bisect the down-set
        def rejected(t):
            return _reaches(np.log1p(lam * (x - math.exp(t) * y - delta)), threshold)
        if not rejected(0.0):
            return 0.0
        lo, hi = 0.0, eps
        for _ in range(40):
            mid = (lo + hi) / 2
            lo, hi = (mid, hi) if rejected(mid) else (lo, mid)
        return lo
    # above the claim: λ' = λ (e^ε + δ)/(e^ε' + δ); on a step [a, b] the factors of draws
    # with x or y set decrease in ε' (least at b) and those with neither increase (least
    # at a), so their product bounds K on the whole step
    h = max(0.01, eps / 64)
    none = (x == 0) & (y == 0)
    a = eps
    for _ in range(max_steps):
        b = a + h
        sa, sb = (e + delta) / (math.exp(a) + delta), (e + delta) / (math.exp(b) + delta)
        zb = x - math.exp(b) * y - delta
        low = np.where(none, np.log1p(-lam * sa * delta), np.log1p(lam * sb * zb))
        if not _reaches(low, threshold):
            return a
        a = b
    return a


def _concat(a: Sample | None, b: Sample) -> Sample:
    if a is None:
        return b
    return Sample(a.outputs.concat([b.outputs]), a.raw + b.raw, a.sizes + b.sizes)


def audit_mechanism_sequential(mechanism: Callable, d, d_prime, epsilon, max_samples: int,
                               rng=None, delta=0.0, alpha: float = 0.01, *,
                               first: int = FIRST_ROUND, features: Callable | None = None,
                               learners=LEARNERS, executor=None, bits: bool = False,
                               progress: Callable[[int], None] | None = None,
                               relation=None, timeout=guard.DEFAULT_TIMEOUT,
                               total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> SequentialAudit:
    """Anytime-valid audit of the claim (``epsilon``, ``delta``) between ``d`` and
    ``d_prime``: rounds of ``first``, ``first``, 2·``first``, … draws per dataset, at most
    ``max_samples`` in all, stopping at the first draw where the e-process reaches
    1/``alpha`` (see the module doc). Other arguments (the pair check with ``relation``,
    the guard of the user's code with ``timeout`` and ``total_timeout``) as in
    :func:`verification.audit.audit_mechanism`."""
    if not callable(mechanism):
        raise ParameterError("mechanism must be callable as mechanism(dataset, size, rng)")
    claim = check_claim(epsilon, delta)
    eps, dlt = claim.epsilon, claim.delta
    max_samples, first = _check_budget(max_samples, first)
    alpha = check_level("alpha", alpha)
    learners = check_learners(learners)
    if features is not None and not callable(features):
        raise ParameterError("features must be callable as features(outputs) -> array")
    check_pair(d, d_prime, relation)
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng)
    mechanism = guard.wrap(mechanism, "mechanism")
    features = guard.wrap(features, "features")

    def work(tick):
        return _mechanism_rounds(mechanism=mechanism, d=d, d_prime=d_prime, eps=eps, dlt=dlt,
                                 max_samples=max_samples, first=first, alpha=alpha, seed=seed,
                                 features=features, learners=learners, executor=executor,
                                 bits=bits, progress=tick)

    return guard.run(work, executor=executor, timeout=timeout, total_timeout=total_timeout,
                     progress=progress, shared=(mechanism, features))


def _mechanism_rounds(mechanism, d, d_prime, eps, dlt, max_samples, first, alpha, seed,
                      features, learners, executor, bits, progress) -> SequentialAudit:
    sizes = round_sizes(max_samples, first)
    cap = LAMBDA_CAP / (math.exp(eps) + dlt)
    threshold = math.log(1 / alpha)
    # the most any run could reach: every test draw in E on one side only, at the cap
    reachable = (max_samples - first) * math.log1p(cap * (1 - dlt))
    log_k, best_log_k, used, counted = 0.0, 0.0, 0, 0.0
    bets: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []   # (λ, X, Y) per test draw
    A = B = None
    offset = [0, 0]
    event, otype, history, crossed = None, "", [], False
    with Draws(mechanism, seed, executor, progress) as draws:
        for r, n in enumerate(sizes):
            lam = 0.0
            if r > 0:
                choice = choose_event(A, B, n, alpha, dlt, features=features,
                                      learners=learners, seed=(seed + r) % 2**32, bits=bits)
                event, lam = _round_bet(A, B, choice.event, eps, dlt, cap)
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
                bound = max(0.0, float(log_ratio_bound(kp, kq, n, alpha * 2.0 ** -r, dlt)))
                counted = max(counted, bound)
                rec.update(event=event.describe(), count_favoured=kp, count_other=kq,
                           epsilon_lower_counts=bound)
                if lam > 0:
                    path = log_k + np.cumsum(np.log1p(lam * (x - math.exp(eps) * y - dlt)))
                    log_k, best_log_k, crossed = _walk(path, threshold, best_log_k, rec)
                    stop = rec.get("stopped_at", n)
                    bets.append((np.full(stop, lam), x[:stop], y[:stop]))
            rec["log_e_value"] = log_k
            history.append(rec)
            if crossed:
                break
            A, B = _concat(A, new[0]), _concat(B, new[1])
    e_value = math.exp(min(best_log_k, 700.0))
    eps_lower = counted
    if bets:
        lam_all, x_all, y_all = (np.concatenate(v) for v in zip(*bets))
        eps_lower = max(eps_lower, _inverted_lower(lam_all, x_all, y_all, eps, dlt,
                                                   threshold, crossed))
    common = dict(kind="mechanism", alpha=alpha, draws=used, max_samples=max_samples,
                  e_value=e_value, rounds=tuple(history), epsilon=eps, delta=dlt,
                  epsilon_lower=eps_lower, event=event, seed=seed,
                  output_type=otype)
    return _verdict(crossed, reachable < threshold, common)


def _round_bet(A: Sample, B: Sample, chosen: Event | None, eps, dlt, cap):
    """The event a round bets on and its λ, from the earlier draws ``A`` / ``B`` only: the
    chosen event, or the support event (:func:`verification.audit.events.support.
    support_event`: outputs one side gave at least twice and the other never) when that
    promises the faster growth of the capital. The support event is found on the first half
    of the earlier draws and judged on the second half — the union of thousands of values
    each seen twice by chance looks like a sure bet on the draws that chose it — by the
    expected log growth at its Kelly fraction for the rates shrunk to their Clopper–Pearson
    bounds at level :data:`verification.audit.stats.SHRINK` (the chosen event by the same
    growth on all the earlier draws). The λ is the Kelly fraction of the raw rates, as
    before. Either choice is fixed before the round's draws, so the bets stay valid; the
    support event lets an atom of 10⁻⁴ on one side only, which the chosen event's ranking
    cannot see, drive the e-process."""
    def counts(event, a, b):
        ka, kb = int(a.contains(event).sum()), int(b.contains(event).sum())
        return (ka, kb) if event.direction == "d" else (kb, ka)

    def growth(kp, kq, m):
        p, q = clopper_pearson(kp, m, SHRINK, "lower"), clopper_pearson(kq, m, SHRINK, "upper")
        return kelly_growth(float(p), float(q), eps, dlt, cap)[1]

    m, h = A.outputs.n, A.outputs.n // 2
    (A1, A2), (B1, B2) = A.split(h), B.split(h)
    rival = support_event(A1, B1)[0] if h > 0 else None
    best, k = chosen, (None if chosen is None else counts(chosen, A, B))
    if rival is not None:
        base = -math.inf if chosen is None else growth(*k, m)
        if growth(*counts(rival, A2, B2), m - h) > max(base, 0.0):
            best, k = rival, counts(rival, A, B)
    if best is None:
        return None, 0.0
    kp, kq = k
    return best, kelly_fraction((kp + 0.5) / (m + 1), (kq + 0.5) / (m + 1), eps, dlt, cap)


def _verdict(crossed: bool, unreachable: bool, common: dict) -> SequentialAudit:
    """The audit's verdict: failed when the e-process crossed 1/α, inconclusive when it
    could not have or no event was found, else passed."""
    used, max_samples, alpha = common["draws"], common["max_samples"], common["alpha"]
    if crossed:
        return SequentialAudit(False, "fail", **common,
                               reason=f"the e-process reached 1/α after "
                                      f"{used:,} draws per dataset")
    if unreachable:
        return SequentialAudit(False, "inconclusive", **common,
                               reason=f"{max_samples:,} draws per dataset cannot reach 1/α "
                                      f"= {1 / alpha:.3g} even if every draw told the "
                                      "datasets apart; use a larger max_samples")
    if common["event"] is None:
        return SequentialAudit(False, "inconclusive", **common,
                               reason="no candidate event: the outputs gave nothing to "
                                      "compare")
    return SequentialAudit(True, "pass", **common)


# ---------------------------------------------------------------- samplers
def _null_bins(reference):
    """(p₀, binning function) for the claimed law: the integers of a discrete law's bulk
    (mass outside ≤ 1e-9 per side; at most 4001 bins, merged evenly beyond that) plus the
    two tails; 1024 quantile bins of a continuous scipy law; the values of a table."""

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


def _resolutions(p0: np.ndarray) -> list[np.ndarray]:
    """Group maps (fine bin → group): the fine bins themselves and, when there are more,
    at most ``_COARSE_GROUPS`` consecutive groups of about equal mass under p₀ (a bin
    heavier than 1/16 is a group of its own)."""
    maps = [np.arange(p0.size)]
    if p0.size > _COARSE_GROUPS:
        mid = np.cumsum(p0) - p0 / 2
        group = np.minimum((mid * _COARSE_GROUPS).astype(np.int64), _COARSE_GROUPS - 1)
        maps.insert(0, np.unique(group, return_inverse=True)[1])   # no empty groups
    return maps


def _log_ratios(mass: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """log q_w/p₀ per weight (rows) and group (columns): q_w = (1 − w) p₀ + w f̂, f̂ the
    counts smoothed by as many pseudo-draws as groups, placed as p₀ places them. Each row
    sums to one against p₀ (a fair bet under the claim); a group p₀ rules out gets +∞."""
    freq = (counts + mass.size * mass) / (counts.sum() + mass.size)
    w = _WEIGHTS[:, None]
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(mass > 0, np.log((1 - w) * mass + w * freq) - np.log(mass), np.inf)


def audit_sampler_sequential(sampler: Callable, reference, max_samples: int, rng=None,
                             alpha: float = 0.01, *, first: int = FIRST_ROUND,
                             progress: Callable[[int], None] | None = None,
                             timeout=guard.DEFAULT_TIMEOUT,
                             total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> SequentialAudit:
    """Anytime-valid goodness of fit of ``sampler(size, rng)`` to ``reference`` (a privtools
    law, an ExactPMF, a frozen scipy distribution or a ``{value: probability}`` table):
    rounds of ``first``, ``first``, 2·``first``, … draws, at most ``max_samples``, stopping
    when the mixture of likelihood ratios reaches 1/``alpha`` (see the module doc). The
    sampler runs behind the guard of :mod:`privtools.usercode` (``timeout``,
    ``total_timeout`` as in :func:`verification.audit.audit_mechanism`)."""
    if not callable(sampler):
        raise ParameterError("sampler must be callable as sampler(size, rng)")
    max_samples, first = _check_budget(max_samples, first)
    alpha = check_level("alpha", alpha)
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng)
    sampler = guard.wrap(sampler, "sampler", None)

    def work(tick):
        return _sampler_rounds(sampler, reference, max_samples, first, alpha, seed, tick)
    return guard.run(work, timeout=timeout, total_timeout=total_timeout, progress=progress,
                     shared=(sampler,))


def _sampler_rounds(sampler, reference, max_samples, first, alpha, seed, progress
                    ) -> SequentialAudit:
    p0, binned = _null_bins(reference)
    maps = _resolutions(p0)
    masses = [np.bincount(m, weights=p0, minlength=int(m.max()) + 1) for m in maps]
    counts = [np.zeros(q.size) for q in masses]
    log_k = np.zeros((len(maps), _WEIGHTS.size))     # log K per (resolution, weight)
    log_n = math.log(log_k.size)
    threshold = math.log(1 / alpha)
    best, used, history, crossed = 0.0, 0, [], False
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
        paths = []
        for i, (gmap, mass) in enumerate(zip(maps, masses)):
            step = _log_ratios(mass, counts[i])
            grp = gmap[b]
            paths.append(log_k[i][:, None] + np.cumsum(step[:, grp], axis=1))
            log_k[i] = paths[-1][:, -1]
            counts[i] += np.bincount(grp, minlength=mass.size)
        mixture = logsumexp(np.vstack(paths), axis=0) - log_n
        last, best, crossed = _walk(mixture, threshold, best, rec)
        rec["log_e_value"] = last
        history.append(rec)
        if crossed:
            break
    common = dict(kind="sampler", alpha=alpha, draws=used, max_samples=max_samples,
                  e_value=math.exp(min(best, 700.0)), rounds=tuple(history), seed=seed)
    if crossed:
        return SequentialAudit(False, "fail", **common,
                               reason=f"the likelihood-ratio e-process reached 1/α after "
                                      f"{used:,} draws")
    return SequentialAudit(True, "pass", **common)
