"""What both counterexample searches share (:mod:`verification.audit.search`,
:mod:`verification.audit.search.shrinking`): the result type :class:`Counterexample`, the
confirmation of the chosen pairs on fresh draws, and StatDP's input patterns as candidates.
(The held-out score that ranks pairs lives in :mod:`verification.audit.events.cells`.)

**The confirmation** (:func:`confirm`, :func:`confirm_pair`). The candidates the searches
chose — in rank order, ``k`` of them — are each audited on draws the search never saw, at
level ``alpha / k`` (Bonferroni over every pair confirmed, so the probability that any of
them fails while the claim holds is at most ``alpha``); the search fails when one of them
does. Each confirmation chooses its event on selection draws (the search's own, topped up
with fresh ones, or fresh ones only) and tests it once on fresh draws, exactly as
:func:`verification.audit.audit_mechanism` does.

**The patterns** (:func:`pattern_bases`, :func:`privtools.neighbours.pattern_neighbours`).
StatDP (Ding, Wang, Wang, Zhang, Kifer, CCS 2018, Section 5) moves a base vector of query
answers in fixed shapes — one answer up, one up and the rest down, half up and half down,
all up, … — and finds most of the published SVT and noisy-max bugs on them. The searches
screen these pairs first, on bases drawn from the user's own datasets.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int, check_level

from .. import guard
from ..draws import SELECT, TEST, Draws, root_seed
from ..events.cells import cell_event
from ..events.select import LEARNERS, Sample, choose_event
from ..fixed.mechanism import MechanismAudit, _verdict, check_learners
from ..neighbours import canonical, check_pair, records
from ..stats import hockey
from ..values import AuditBudget, Claim, check_claim

__all__ = ["Counterexample", "Candidate", "confirm", "confirm_pair", "describe",
           "pattern_bases", "pair_key", "from_strategy", "derived_seed", "jsonable",
           "CHOOSE_MAX"]

#: selection draws per dataset the event families of a confirmation read (the first ones;
#: the cells read them all): a cap on their cost, which grows with every draw (half a
#: million lost a third of the bound on four of DP-Sniper's vector mechanisms)
CHOOSE_MAX = 2_000_000


@dataclass(frozen=True, kw_only=True)
class Counterexample:
    """Outcome of a counterexample search: the pair, the witnessing event and the
    confirmation audit on fresh draws. ``seed`` repeats the whole search (``rng=seed``).

    ``method`` says how the pair was chosen: "halving" (:func:`search_counterexample`:
    ``ranking`` the pairs scored) or "shrinking" (:func:`shrink_counterexample`: a minimal
    pair, ``reproduce`` one line of Python that repeats the confirmation). A shrinking search
    that passes holds the most suspect screened pair that fresh draws did not confirm, or
    no pair (``d`` None) when none was screened.

    ``comparisons`` pairs were confirmed, each at level ``alpha / comparisons``
    (:attr:`alpha_per_comparison`; Bonferroni, so the whole search's false-alarm rate is at
    most ``alpha``); ``confirmations`` lists them (pair, verdict, ε_lower, level) in the
    order they were ranked, and ``d``, ``d_prime``, ``audit`` are the first that failed (or
    the first ranked, when none did)."""

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
    confirmations: list = field(default_factory=list)

    @property
    def examples(self) -> int:
        """Pairs tried (screened, for the shrinking search)."""
        return self.pairs

    @property
    def draws(self) -> int:
        """Draws per dataset of the confirming audit (0: nothing was confirmed)."""
        return 0 if self.audit is None else self.audit.draws

    @property
    def alpha_per_comparison(self) -> float:
        """The level each confirmation was tested at: ``alpha / comparisons`` (Bonferroni)."""
        return self.alpha / max(1, self.comparisons)

    def summary(self) -> str:
        """One readable line: the worst pair, the confirmed lower bound and the witness."""
        level = (f"level {self.alpha_per_comparison:g} each of {self.comparisons} "
                 "confirmations" if self.comparisons > 1 else "one confirmation test")
        if self.method == "shrinking":
            if self.passed:
                extra = ("" if self.d is None else "; fresh draws did not confirm the most "
                         f"suspect pair {(self.d, self.d_prime)!r}")
                return f"{self.verdict.upper()}: no counterexample in {self.pairs} pairs{extra}"
            return (f"FAIL: minimal pair d = {self.d!r}, d' = {self.d_prime!r} "
                    f"({self.pairs} pairs tried; {level}); {self.audit.summary()}\n"
                    f"reproduce: {self.reproduce}")
        return (f"{self.verdict.upper()}: worst pair of {self.pairs} tried: d = "
                f"{_show(self.d)}, d' = {_show(self.d_prime)}; ε ≥ {self.epsilon_lower:.4g} "
                f"with confidence {1 - self.alpha_per_comparison:g} on "
                f"{self.audit.counts.get('n_test', 0)} fresh draws per dataset ({level}; "
                f"pairs and event chosen on {self.search_draws} other draws); witness: "
                f"{self.event.describe() if self.event else 'none'}; seed {self.seed}")

    def to_dict(self) -> dict:
        """The counterexample as JSON-ready values."""
        return {"d": jsonable(self.d), "d_prime": jsonable(self.d_prime),
                "verdict": self.verdict, "passed": self.passed, "epsilon": self.epsilon,
                "delta": self.delta, "epsilon_lower": self.epsilon_lower,
                "event": None if self.event is None else self.event.to_dict(),
                "seed": self.seed, "alpha": self.alpha, "pairs": self.pairs,
                "search_draws": self.search_draws, "budget": self.budget,
                "pairs_found": self.pairs_found, "comparisons": self.comparisons,
                "alpha_per_comparison": self.alpha_per_comparison,
                "confirmations": self.confirmations,
                "ranking": self.ranking, "method": self.method, "reproduce": self.reproduce,
                "audit": None if self.audit is None else self.audit.to_dict(),
                "user_code": None if self.user_code is None else self.user_code.to_dict()}


def jsonable(d):
    """A dataset as JSON-ready values (arrays and numpy scalars as Python ones)."""
    if isinstance(d, np.ndarray):
        return d.tolist()
    if isinstance(d, (list, tuple)):
        return [jsonable(x) for x in d]
    if isinstance(d, np.generic):
        return d.item()
    return d


def _show(d) -> str:
    return str(jsonable(d))


def derived_seed(seed: int, what) -> int:
    """A 63-bit seed for ``what`` (a pair, a confirmation's rank), derived from ``seed``."""
    return int.from_bytes(hashlib.sha256(f"{seed}/{what!r}".encode()).digest()[:8],
                          "little") >> 1


# ---------------------------------------------------------------- the confirmation
@dataclass
class Candidate:
    """A pair to confirm: its datasets, its confirmation's sizes (``n_samples`` draws per
    dataset, ``n_train`` of them choosing the event) and seed, and the search draws its
    event may be chosen on (``samples``; fresh selection draws make up the rest of
    ``n_train``)."""

    d: object
    d_prime: object
    n_samples: int
    n_train: int
    seed: int
    samples: tuple | None = None


def confirm(mechanism, candidates: list[Candidate], claim: Claim, alpha: float, *,
            draws: Draws | None = None, executor=None, progress=None, features=None,
            learners=(), bits: bool = False) -> list[MechanismAudit]:
    """Audit every candidate against ``claim`` on fresh draws at level ``alpha / len(candidates)``
    (Bonferroni), in order, stopping at the first that fails; the audits made. Each is the
    test of :func:`confirm_pair`: the event chosen on its selection draws (the search's
    ``samples`` topped up with fresh ones, or ``n_train`` fresh ones), tested on
    ``n_samples − n_train`` fresh draws. The first may draw from the search's ``draws``
    (same seed): its selection and test stages are ones the search never draws from."""
    if not candidates:
        raise ParameterError("no candidate pair to confirm")
    level = alpha / len(candidates)
    out = []
    for i, c in enumerate(candidates):
        if i == 0 and draws is not None and draws.seed == c.seed:
            res = _audit(draws, c, claim, level, features, learners, bits)
        else:
            with Draws(mechanism, c.seed, executor, progress) as own:
                res = _audit(own, c, claim, level, features, learners, bits)
        out.append(res)
        if res.verdict == "fail":
            break
    return out


def confirm_pair(mechanism, d, d_prime, epsilon, n_samples: int, n_train: int, rng,
                 delta=0.0, alpha: float = 0.01, *, features=None, learners=LEARNERS,
                 bits: bool = False, executor=None, timeout=guard.DEFAULT_TIMEOUT,
                 total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> MechanismAudit:
    """The confirmation of a counterexample search, by itself (a search's ``reproduce``
    line calls it): ``n_train`` fresh draws per dataset choose two events — the one
    :func:`verification.audit.events.select.choose_event` chooses and the union of cells
    :func:`verification.audit.events.cells.cell_event` chooses — and ``n_samples − n_train``
    fresh draws per dataset (a Poisson number with that mean for pure DP; with δ > 0 the
    hockey-stick test, its bets sized on the selection draws) test both, each as
    :func:`verification.audit.audit_mechanism` tests its event, at level ``alpha / 2``
    (Bonferroni; one test at ``alpha`` when the two agree on every selection draw). The
    audit returned is the one with the larger bound (its ``alpha`` is
    ``alpha``, its bound at half of it): ``epsilon_lower`` exceeds the true ε with
    probability at most ``alpha``. The mechanism runs behind the guard of
    :mod:`privtools.usercode` (``timeout``, ``total_timeout``)."""
    if not callable(mechanism):
        raise ParameterError("mechanism must be callable as mechanism(dataset, size, rng)")
    claim = check_claim(epsilon, delta)
    n_samples = check_int("n_samples", n_samples, minimum=200)
    n_train = check_int("n_train", n_train, minimum=100)
    if n_train > n_samples - 100:
        raise ParameterError(f"n_train must leave at least 100 test draws: n_train = "
                             f"{n_train}, n_samples = {n_samples}")
    alpha = check_level("alpha", alpha)
    learners = check_learners(learners)
    check_pair(d, d_prime)
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng)
    mechanism = guard.wrap(mechanism, "mechanism")
    features = guard.wrap(features, "features")
    c = Candidate(d, d_prime, n_samples, n_train, seed)

    def work(tick):
        with Draws(mechanism, seed, executor, tick) as draws:
            return _audit(draws, c, claim, alpha, features, learners, bool(bits))
    return guard.run(work, executor=executor, timeout=timeout, total_timeout=total_timeout,
                     shared=(mechanism, features))


def _audit(draws: Draws, c: Candidate, claim: Claim, level, features, learners, bits):
    """One confirmation (:func:`confirm_pair`) on ``draws``: each of its events
    (:func:`_choose`) tested on the same fresh draws at ``level`` over their number; the
    audit of the event with the largest bound (``alpha`` the confirmation's ``level``)."""
    if c.samples is None:
        A = Sample(*draws.sample(c.d, c.n_train, SELECT, 0))
        B = Sample(*draws.sample(c.d_prime, c.n_train, SELECT, 1))
    else:
        A, B = c.samples
        extra = c.n_train - A.outputs.n      # fresh selection draws make up n_train
        if extra > 0:
            A = _concat(A, Sample(*draws.sample(c.d, extra, SELECT, 0)))
            B = _concat(B, Sample(*draws.sample(c.d_prime, extra, SELECT, 1)))
    eps, delta = claim.epsilon, claim.delta
    budget = AuditBudget(n_samples=c.n_samples, n_train=c.n_train, alpha=level)
    n_test = c.n_samples - c.n_train
    events, selection = _choose(A, B, n_test, level, delta, features, learners,
                                draws.seed % 2**32, bits)
    otype = A.outputs.describe_type()
    if not events:
        return _verdict(kp=0, kq=0, n_fav=n_test, n_other=n_test, claim=claim, budget=budget,
                        event=None, seed=draws.seed, otype=otype, selection=selection)
    # one test sample for every event: a Poisson size per dataset (pure DP), drawn once
    sizes = {side: draws.poisson(n_test, side, 0) if delta == 0 else n_test
             for side in (0, 1)}
    share = level / len(events)
    best = None
    for family, event in events:
        sides = ((c.d, 0), (c.d_prime, 1)) if event.direction == "d" else \
            ((c.d_prime, 1), (c.d, 0))
        sel = {**selection, "family": family}
        lams = None
        if delta > 0:   # as run_audit: the bets are sized on the selection draws
            ka, kb = int(A.contains(event).sum()), int(B.contains(event).sum())
            kp, kq = (ka, kb) if event.direction == "d" else (kb, ka)
            lams = hockey.bets(kp, kq, A.outputs.n, eps, delta, n_test, share)
            sel["bets"] = [float(x) for x in lams]
        k = [draws.count(data, sizes[side], TEST, side, event) for data, side in sides]
        res = _verdict(kp=k[0], kq=k[1], n_fav=sizes[sides[0][1]], n_other=sizes[sides[1][1]],
                       claim=claim, budget=budget, event=event, seed=draws.seed, otype=otype,
                       selection=sel, level=share, lams=lams)
        if best is None or res.epsilon_lower > best.epsilon_lower:
            best = res
    return best


def _choose(A: Sample, B: Sample, n_test: int, level: float, delta: float, features,
            learners, seed: int, bits: bool):
    """The events a confirmation tests, chosen on its selection draws, and what the
    selection saw: the event :func:`verification.audit.events.select.choose_event` chooses
    (on the first :data:`CHOOSE_MAX` draws per dataset) and the best union of cells
    (:func:`verification.audit.events.cells.cell_event`, on all of them) — two
    candidates tested side by side (Bonferroni) rather than one picked on a third of the
    draws, which too often picks the wrong one of two close candidates. Two events that
    agree on every selection draw are one candidate (:func:`_same`)."""
    A1, B1 = (A.split(CHOOSE_MAX)[0], B.split(CHOOSE_MAX)[0]) if A.outputs.n > CHOOSE_MAX \
        else (A, B)
    choice = choose_event(A1, B1, n_test, level, delta, features=features, learners=learners,
                          seed=seed, bits=bits)
    events = [] if choice.event is None else [(choice.family, choice.event)]
    cells, _ = cell_event(A, B, n_test, level / 2, delta)
    if cells is not None and (not events or not _same(cells, events[0][1], A, B)):
        events.append(("cells (union of outcomes or bins)", cells))
    selection = {"n_train": A.outputs.n, "projected_epsilon_lower": choice.projected,
                 "families": dict(choice.considered), "notes": choice.notes,
                 "events_tested": len(events)}
    return events, selection


def _same(e1, e2, A: Sample, B: Sample) -> bool:
    """Whether two events agree on every selection draw of both datasets (and so in
    direction): the second is then not tested, and the first keeps the whole level."""
    if e1.direction != e2.direction:
        return False
    if e1.describe() == e2.describe():
        return True
    return all(np.array_equal(S.contains(e1), S.contains(e2)) for S in (A, B))


def _concat(a: Sample, b: Sample) -> Sample:
    return Sample(a.outputs.concat([b.outputs]), a.raw + b.raw, a.sizes + b.sizes)


def describe(c: Candidate, audit: MechanismAudit) -> dict:
    """One confirmation as JSON-ready values (for ``Counterexample.confirmations``)."""
    return {"d": jsonable(c.d), "d_prime": jsonable(c.d_prime), "verdict": audit.verdict,
            "epsilon_lower": audit.epsilon_lower, "alpha": audit.alpha,
            "n_test": audit.counts.get("n_test", 0), "seed": c.seed}


# ---------------------------------------------------------------- datasets and patterns
def from_strategy(strategy, count: int, seed: int) -> list:
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


def _is_vector(d) -> bool:
    if isinstance(d, np.ndarray):
        return d.ndim == 1 and d.size > 0 and d.dtype.kind in "iuf"
    if not isinstance(d, (list, tuple)) or not d:
        return False
    return all(isinstance(x, (int, float, np.integer, np.floating))
               and not isinstance(x, (bool, np.bool_)) for x in d)


def pattern_bases(datasets, seed: int, pool: int = 200) -> list:
    """The datasets StatDP's patterns are applied to, longest first, one per length: the
    numeric vectors among ``datasets`` (a list) or among ``pool`` examples drawn from it (a
    hypothesis strategy), so every base is a dataset the user's space holds."""
    try:
        from hypothesis.strategies import SearchStrategy
    except ImportError:  # pragma: no cover - hypothesis is a base dependency
        SearchStrategy = ()
    if isinstance(datasets, SearchStrategy):
        seen = from_strategy(datasets, pool, seed)
    elif isinstance(datasets, (list, tuple)):
        seen = list(datasets)
    else:
        return []
    by_length: dict[int, object] = {}
    for d in seen:
        if _is_vector(d):
            by_length.setdefault(len(records(d)), d)
    return [by_length[n] for n in sorted(by_length, reverse=True)]


def pair_key(pair):
    """A hashable key of a pair (its datasets' canonical forms, or its repr)."""
    try:
        return tuple(canonical(x) for x in pair)
    except (ParameterError, TypeError):
        return repr(pair)
