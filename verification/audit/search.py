"""Searching for the neighbouring pair on which a mechanism leaks most: one search engine,
two ways to choose the pair, one result type (:class:`Counterexample`).

:func:`search_counterexample` enumerates pairs (d, d') from a dataset space and a neighbour
relation (:mod:`verification.audit.neighbours`), then spends its ``budget`` of draws by
*successive halving*: every surviving pair gets the same number of fresh draws per round,
its ε is estimated (an event chosen on half of its draws; on the other half, the bound its
counts project for the confirmation's size), and the better half survives — so draws go
where the estimated ratio is largest. The surviving pair's search draws then choose the
event, and the claim is tested once on fresh draws (the test of
:func:`verification.audit.audit_mechanism`). Pair and event are chosen on draws the
confirmation never sees, so the confirmation is one test at level ``alpha``: no
multiple-testing correction is needed, and none is applied.

:func:`shrink_counterexample` is the other face, for property-based tests
(``privtools.testing.find_counterexample``): hypothesis draws pairs from a strategy, each is
*screened* by a short sequential audit whose e-value hypothesis maximises with ``target()``,
the first flagged pair is shrunk to a minimal one, and that pair is *confirmed* once by a
sequential audit on fresh draws at level ``alpha`` — so its false-alarm rate too is at most
``alpha``, however many pairs were screened.
"""

from __future__ import annotations

import copy
import hashlib
import math
import random
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int, check_level

from . import guard
from .draws import SEARCH, Draws, root_seed
from .mechanism import MechanismAudit, check_claim, check_learners, run_audit
from .neighbours import as_relation, canonical
from .select import LEARNERS, Sample, choose_event
from .stats import projected_bound

__all__ = ["Counterexample", "search_counterexample", "shrink_counterexample"]

_MIN_DRAWS = 1000          # draws per dataset and round below which a pair is not scored


@dataclass(frozen=True)
class Counterexample:
    """Outcome of a counterexample search: the pair, the witnessing event and the
    confirmation audit on fresh draws. ``seed`` repeats the whole search (``rng=seed``).

    ``method`` says how the pair was chosen: "halving" (:func:`search_counterexample`:
    ``ranking`` the pairs scored) or "shrinking" (:func:`shrink_counterexample`: a minimal
    pair, ``reproduce`` one line of Python that repeats the confirmation). A shrinking search
    that passes holds the most suspect screened pair that fresh draws did not confirm, or
    no pair (``d`` None) when none was screened above zero."""

    d: object
    d_prime: object
    verdict: str
    passed: bool
    epsilon: float
    delta: float
    epsilon_lower: float
    event: object
    seed: int
    alpha: float
    audit: MechanismAudit
    pairs: int
    search_draws: int
    ranking: list = field(default_factory=list)
    comparisons: int = 1
    budget: int | None = None
    pairs_found: int | None = None
    user_code: object = None
    method: str = "halving"
    reproduce: str | None = None

    @property
    def examples(self) -> int:
        """Pairs tried (screened, for the shrinking search)."""
        return self.pairs

    @property
    def draws(self) -> int:
        """Draws per dataset of the confirming audit (0: nothing was confirmed)."""
        return 0 if self.audit is None else self.audit.draws

    def summary(self) -> str:
        """One readable line: the worst pair, the confirmed lower bound and the witness."""
        if self.method == "shrinking":
            if self.passed:
                extra = ("" if self.d is None else "; fresh draws did not confirm the most "
                         f"suspect pair {(self.d, self.d_prime)!r}")
                return f"{self.verdict.upper()}: no counterexample in {self.pairs} pairs{extra}"
            return (f"FAIL: minimal pair d = {self.d!r}, d' = {self.d_prime!r} "
                    f"({self.pairs} pairs tried); {self.audit.summary()}\n"
                    f"reproduce: {self.reproduce}")
        return (f"{self.verdict.upper()}: worst pair of {self.pairs} tried: d = "
                f"{_show(self.d)}, d' = {_show(self.d_prime)}; ε ≥ {self.epsilon_lower:.4g} "
                f"with confidence {1 - self.alpha:g} on {self.audit.counts.get('n_test', 0)} "
                f"fresh draws per dataset (one confirmation test; pair and event chosen on "
                f"{self.search_draws} other draws); witness: "
                f"{self.event.describe() if self.event else 'none'}; seed {self.seed}")

    def to_dict(self) -> dict:
        """The counterexample as JSON-ready values."""
        return {"d": _jsonable(self.d), "d_prime": _jsonable(self.d_prime),
                "verdict": self.verdict, "passed": self.passed, "epsilon": self.epsilon,
                "delta": self.delta, "epsilon_lower": self.epsilon_lower,
                "event": None if self.event is None else self.event.to_dict(),
                "seed": self.seed, "alpha": self.alpha, "pairs": self.pairs,
                "search_draws": self.search_draws, "budget": self.budget,
                "pairs_found": self.pairs_found, "comparisons": self.comparisons,
                "ranking": self.ranking, "method": self.method, "reproduce": self.reproduce,
                "audit": None if self.audit is None else self.audit.to_dict(),
                "user_code": None if self.user_code is None else self.user_code.to_dict()}


def _jsonable(d):
    if isinstance(d, np.ndarray):
        return d.tolist()
    if isinstance(d, (list, tuple)):
        return [_jsonable(x) for x in d]
    if isinstance(d, np.generic):
        return d.item()
    return d


def _show(d) -> str:
    return str(_jsonable(d))


def _from_strategy(strategy, count: int, seed: int) -> list:
    """``count`` examples of a hypothesis strategy, reproducibly from ``seed``."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    found = []

    @hseed(seed)
    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def collect(x):
        found.append(x)

    collect()
    return found


def _datasets(datasets, max_datasets: int, seed: int) -> list:
    try:
        from hypothesis.strategies import SearchStrategy
    except ImportError:  # pragma: no cover - hypothesis is a base dependency
        SearchStrategy = ()
    if isinstance(datasets, SearchStrategy):
        return _from_strategy(datasets, max_datasets, seed)
    if isinstance(datasets, (str, bytes)) or not hasattr(datasets, "__iter__"):
        raise ParameterError("datasets must be a hypothesis strategy or an iterable of "
                             f"datasets, got {type(datasets).__name__}")
    out = list(datasets)
    if len(out) > max_datasets:
        raise ParameterError(f"datasets has {len(out)} entries, more than max_datasets = "
                             f"{max_datasets}; raise max_datasets or pass fewer")
    return out


def _pairs(datasets, relation, max_pairs: int, seed: int) -> tuple[list, int]:
    """The distinct pairs the relation gives (a seeded subsample of ``max_pairs`` beyond),
    and how many there were."""
    seen, pairs = set(), []
    for d in datasets:
        for dp in relation(d):
            key = frozenset((canonical(d), canonical(dp)))
            if len(key) == 2 and key not in seen:
                seen.add(key)
                pairs.append((d, dp))
    found = len(pairs)
    if found > max_pairs:
        keep = np.sort(np.random.default_rng(seed).choice(found, max_pairs, replace=False))
        pairs = [pairs[i] for i in keep]
    return pairs, found


def _rounds(k: int) -> int:
    return max(1, math.ceil(math.log2(k))) if k > 1 else 1


def affordable_pairs(budget: int, k: int) -> int:
    """The most pairs (at most ``k``) that successive halving can score within ``budget``
    draws in all: round r gives each of its live pairs ``budget // (R·2·live)`` draws per
    dataset (R rounds, halving the live pairs), at least ``_MIN_DRAWS`` in the first round,
    so the rounds together draw at most ``budget``."""
    while k > 1 and budget // (_rounds(k) * 2 * k) < _MIN_DRAWS:
        k -= 1
    return k


class _Arm:
    """One candidate pair and its search draws so far."""

    def __init__(self, index, d, dp):
        self.index, self.d, self.dp = index, d, dp
        self.a: list = []
        self.b: list = []
        self.chunks = 0
        self.score = -math.inf

    def draw(self, draws: Draws, m: int):
        a = Sample(*draws.sample(self.d, m, SEARCH, 2 * self.index, offset=self.chunks))
        b = Sample(*draws.sample(self.dp, m, SEARCH, 2 * self.index + 1, offset=self.chunks))
        self.chunks += draws.n_chunks(m)
        self.a.append(a)
        self.b.append(b)

    def sample(self, which) -> Sample:
        parts = self.a if which == 0 else self.b
        out = parts[0].outputs.concat([p.outputs for p in parts[1:]])
        return Sample(out, [r for p in parts for r in p.raw], [s for p in parts for s in p.sizes])

    @property
    def n(self) -> int:
        return sum(p.outputs.n for p in self.a)

    def rate(self, alpha, delta, features, learners, seed, n_goal, bits=False):
        """Estimated ε: an event chosen on one half of the draws, and the bound its counts
        on the other half project for a confirmation of ``n_goal`` draws (so a pair whose
        leak lives in rare outputs is judged at the size that will test it)."""
        A, B = self.sample(0), self.sample(1)
        h = A.outputs.n // 2
        (A1, A2), (B1, B2) = A.split(h), B.split(h)
        choice = choose_event(A1, B1, n_goal, alpha, delta,
                              features=features, learners=learners, seed=seed, bits=bits)
        if choice.event is None:
            self.score = -math.inf
            return
        ev = choice.event
        ka, kb = int(A2.contains(ev).sum()), int(B2.contains(ev).sum())
        kp, kq = (ka, kb) if ev.direction == "d" else (kb, ka)
        self.score = float(projected_bound(kp, kq, A.outputs.n - h, n_goal, alpha, delta))


def search_counterexample(mechanism: Callable, epsilon, datasets, neighbours="replace-one",
                          delta=0.0, budget: int = 10**6, rng=None, alpha: float = 0.01, *,
                          n_confirm: int | None = None, max_draws: int | None = None,
                          max_datasets: int = 20,
                          max_pairs: int = 64, features: Callable | None = None,
                          learners=LEARNERS, search_learners=("logistic",), executor=None,
                          progress: Callable[[int], None] | None = None,
                          bits: bool = False, timeout=guard.DEFAULT_TIMEOUT,
                          total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> Counterexample:
    """Find the neighbouring pair and event with the largest estimated ε, and test the
    claim (``epsilon``, ``delta``) on it with fresh draws.

    ``datasets``: a hypothesis strategy (``max_datasets`` examples are drawn from it,
    reproducibly from the seed) or an iterable of datasets (lists, tuples, numpy arrays).
    ``neighbours``: ``"replace-one"``, ``"add-remove"``, ``"query"`` or a callable
    ``d -> iterable of neighbours of d`` (:mod:`verification.audit.neighbours`); at most
    ``max_pairs`` pairs are kept (a seeded subsample). ``budget``: draws (both datasets of
    all pairs together) spent by the search — an upper bound that holds: when it cannot give
    every pair at least 1 000 draws per dataset in the first round of successive halving,
    fewer pairs (a seeded subsample) are scored (``pairs`` of the result; ``pairs_found``
    the pairs the relation gave). ``n_confirm``: fresh draws per dataset of the
    confirmation test (default ``budget // 2``), or ``max_draws``: draws per dataset of the
    chosen pair in all (its search draws plus the confirmation's mean; the confirmation of
    a pure-DP claim draws a Poisson number with that mean). ``search_learners`` are the
    classifiers
    tried while ranking pairs; ``learners`` those tried for the final event. ``bits=True``
    adds the bit-level events on float outputs, in the ranking and the final choice
    (see :func:`verification.audit.audit_mechanism`). The mechanism, ``features``, a
    callable ``neighbours`` and a strategy of datasets are the user's code and run behind
    the guard of :mod:`privtools.usercode` (``timeout`` per call, ``total_timeout`` for the
    whole search; see :func:`verification.audit.audit_mechanism`).
    """
    if not callable(mechanism):
        raise ParameterError("mechanism must be callable as mechanism(dataset, size, rng)")
    eps_claim, delta_f = check_claim(epsilon, delta)
    budget = check_int("budget", budget, minimum=4 * _MIN_DRAWS)
    alpha = check_level("alpha", alpha)
    max_datasets = check_int("max_datasets", max_datasets, minimum=1)
    max_pairs = check_int("max_pairs", max_pairs, minimum=1)
    if n_confirm is not None and max_draws is not None:
        raise ParameterError("give n_confirm or max_draws, not both")
    if max_draws is not None:
        max_draws = check_int("max_draws", max_draws, minimum=2 * _MIN_DRAWS)
    n_confirm = None if n_confirm is None else check_int("n_confirm", n_confirm, minimum=100)
    learners, search_learners = check_learners(learners), check_learners(search_learners)
    if features is not None and not callable(features):
        raise ParameterError("features must be callable as features(outputs) -> array")
    if not isinstance(bits, (bool, np.bool_)):
        raise ParameterError(f"bits must be True or False, got {bits!r}")
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng)
    mechanism = guard.wrap(mechanism, "mechanism")
    features = guard.wrap(features, "features")
    if callable(neighbours):
        neighbours = guard.wrap(neighbours, "neighbours")

    def work(tick):
        return _search(mechanism, eps_claim, delta_f, datasets, neighbours, budget, seed,
                       alpha, n_confirm, max_draws, max_datasets, max_pairs, features,
                       learners, search_learners, executor, tick, bool(bits))
    return guard.run(work, executor=executor, timeout=timeout, total_timeout=total_timeout,
                     progress=progress, what="the search",
                     shared=(mechanism, features, neighbours))


def _search(mechanism, eps_claim, delta_f, datasets, neighbours, budget, seed, alpha,
            n_confirm, max_draws, max_datasets, max_pairs, features, learners,
            search_learners, executor, progress, bits) -> Counterexample:
    data = _datasets(datasets, max_datasets, seed)
    if not data:
        raise ParameterError("datasets gave no dataset")
    relation = as_relation(neighbours, data)
    pairs, found = _pairs(data, relation, max_pairs, seed)
    if not pairs:
        raise ParameterError("the neighbour relation gave no pair (d, d') with d' != d")
    k = affordable_pairs(budget, len(pairs))
    if k < len(pairs):   # the budget cannot score them all: a seeded subsample
        keep = np.sort(np.random.default_rng([seed, 1]).choice(len(pairs), k, replace=False))
        pairs = [pairs[i] for i in keep]
    arms = [_Arm(i, d, dp) for i, (d, dp) in enumerate(pairs)]
    rounds = _rounds(len(arms))
    n_goal = n_confirm or (max_draws // 2 if max_draws else budget // 2)
    live = arms
    spent = 0
    with Draws(mechanism, seed, executor, progress) as draws:
        for _ in range(rounds):
            m = budget // (rounds * 2 * len(live))
            for arm in live:
                arm.draw(draws, m)
                spent += 2 * m
            if len(live) > 1:
                for arm in live:
                    arm.rate(alpha, delta_f, features, search_learners, seed % 2**32, n_goal,
                             bits)
                live = sorted(live, key=lambda a: -a.score)[:max(1, math.ceil(len(live) / 2))]
        best = live[0]
        A, B = best.sample(0), best.sample(1)
        if max_draws is not None:
            n_confirm = max_draws - A.outputs.n
            if n_confirm < 100:
                raise ParameterError(f"max_draws = {max_draws} leaves {n_confirm} confirmation "
                                     "draws after the search; raise it or lower budget")
        elif n_confirm is None:
            n_confirm = budget // 2
        audit = run_audit(draws, best.d, best.dp, eps_claim, delta_f, A.outputs.n + n_confirm,
                          A.outputs.n, alpha, features=features, learners=learners,
                          samples=(A, B), bits=bits)
    ranking = [{"d": _jsonable(a.d), "d_prime": _jsonable(a.dp),
                "estimated_epsilon": a.score if math.isfinite(a.score) else None,
                "draws_per_dataset": a.n}
               for a in sorted(arms, key=lambda a: (-a.n, -a.score))]
    return Counterexample(best.d, best.dp, audit.verdict, audit.passed, eps_claim, delta_f,
                          audit.epsilon_lower, audit.event, seed, alpha, audit, len(pairs),
                          spent, ranking, budget=budget, pairs_found=found)


# ------------------------------------------------------------------- the shrinking face
def _pair_seed(seed: int, pair) -> int:
    return int.from_bytes(hashlib.sha256(f"{seed}/{pair!r}".encode()).digest()[:8],
                          "little") >> 1


def _pair_key(pair):
    try:
        return tuple(canonical(x) for x in pair)
    except (ParameterError, TypeError):
        return repr(pair)


def shrink_counterexample(mechanism: Callable, epsilon, pairs, delta=0.0, *,
                          alpha: float, rng, max_samples: int, screen_samples: int = 20_000,
                          max_examples: int = 100, timeout=guard.DEFAULT_TIMEOUT,
                          total_timeout=guard.DEFAULT_TOTAL_TIMEOUT,
                          **audit_options) -> Counterexample:
    """The shrinking search (module docstring) over ``pairs``, a hypothesis strategy of
    neighbouring pairs (d, d′): each screened by a sequential audit of at most
    ``screen_samples`` draws at level min(10·alpha, 0.01) with its own seed; the first
    flagged pair shrunk; then confirmed by a sequential audit of at most ``max_samples``
    fresh draws at level ``alpha``. When no pair is flagged, the pair with the largest
    screening e-value is confirmed, unshrunk. At most ``max_examples`` pairs are screened,
    the shrinking included (a pair beyond it counts as not flagged), so the search costs at
    most ``max_examples · screen_samples + max_samples`` draws per dataset. The mechanism
    runs behind one guard for the whole search (``timeout``, ``total_timeout``)."""
    eps, delta = check_claim(epsilon, delta)
    alpha = check_level("alpha", alpha)
    screen_samples = check_int("screen_samples", screen_samples, minimum=512)
    max_examples = check_int("max_examples", max_examples, minimum=1)
    max_samples = check_int("max_samples", max_samples, minimum=1)
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng)
    mechanism = guard.wrap(mechanism, "mechanism")

    def work(_tick):
        return _shrink(mechanism, eps, delta, pairs, alpha, seed, max_samples,
                       screen_samples, max_examples, audit_options)
    return guard.run(work, executor=audit_options.get("executor"), timeout=timeout,
                     total_timeout=total_timeout, what="the search",
                     shared=(mechanism, audit_options.get("features")))


def _shrink(mechanism, eps, delta, pairs, alpha, seed, max_samples, screen_samples,
            max_examples, audit_options) -> Counterexample:
    from hypothesis import HealthCheck, find, settings, target
    from hypothesis.errors import NoSuchExample, Unsatisfiable

    from .sequential import audit_mechanism_sequential

    screen_alpha = min(alpha * 10, 0.01)
    screened: dict = {}               # pair key -> flagged: at most max_examples entries
    best: list = [0.0, None]          # the largest screening log e-value and its pair
    spent = [0]                       # screening draws per dataset
    screen_opts = {"learners": ("logistic",), **audit_options}

    def leaks(pair) -> bool:
        key = _pair_key(pair)
        if key in screened:
            return screened[key]
        d, d_prime = pair
        if len(screened) >= max_examples or key[0] == key[1]:
            # the promise: at most max_examples pairs screened, the shrinking included
            # (a pair beyond it counts as not flagged; identical datasets cannot leak)
            return False
        res = audit_mechanism_sequential(mechanism, d, d_prime, eps, screen_samples,
                                         rng=_pair_seed(seed, pair), delta=delta,
                                         alpha=screen_alpha, **screen_opts)
        spent[0] += res.draws
        log_e = min(math.log(max(res.e_value, 1e-300)), 700.0)
        target(log_e, label="log e-value")
        if log_e > best[0]:
            best[:] = [log_e, (copy.deepcopy(d), copy.deepcopy(d_prime))]
        screened[key] = res.verdict == "fail"
        return screened[key]

    def outcome(d, d_prime, audit) -> Counterexample:
        verdict = "pass" if audit is None or audit.verdict != "fail" else "fail"
        return Counterexample(
            d, d_prime, verdict, verdict == "pass", eps, delta,
            0.0 if audit is None else audit.epsilon_lower,
            None if audit is None else audit.event, seed, alpha, audit, len(screened),
            spent[0], method="shrinking")

    conf = settings(max_examples=max_examples, database=None, deadline=None,
                    suppress_health_check=list(HealthCheck))
    try:
        d, d_prime = find(pairs, leaks, settings=conf, random=random.Random(seed))
    except (NoSuchExample, Unsatisfiable):
        if best[1] is None:
            return outcome(None, None, None)
        # no pair crossed the screening level: confirm the one that came closest (with
        # the full budget, on fresh draws; it was chosen on screening draws only)
        d, d_prime = best[1]
    audit = audit_mechanism_sequential(mechanism, d, d_prime, eps, max_samples,
                                       rng=_pair_seed(seed + 1, (d, d_prime)), delta=delta,
                                       alpha=alpha, **audit_options)
    return outcome(d, d_prime, audit)
