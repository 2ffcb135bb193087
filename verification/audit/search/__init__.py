"""Searching for the neighbouring pair on which a mechanism leaks most: one search engine,
two ways to choose the pair, one result type (:class:`Counterexample`).

:func:`search_counterexample` enumerates pairs (d, d') — the ``pairs`` stated by the caller
(a zoo entry's pairs and witness), then those a dataset space and a neighbour relation give
(:mod:`verification.audit.neighbours`; ``"query"`` gives StatDP's input patterns) — and
spends its ``budget`` of draws by *successive halving* (:mod:`verification.audit.search.halving`):
every dataset of a surviving pair is drawn up to the same count per round (a dataset
several pairs hold is drawn once for all of them), every surviving pair gets a held-out
score (an event chosen on half of its draws — by the audit's event families, or as a union
of outcomes or bins ranked by their estimated likelihood ratio — read on the other half as
the bound its counts project for the confirmation's size:
:func:`verification.audit.events.cells.held_out_score`; while more than
:data:`FULL_SCORES` pairs live, by the unions of cells alone, which cost milliseconds where
the families cost a second), and the better half survives — so draws
go where the estimated leak is largest. The pair the last round's held-out scores rank
first is confirmed: its search draws, topped up with fresh ones, choose the event, and the
claim is tested on fresh draws (:func:`verification.audit.search.candidates.confirm_pair`, the test
of :func:`verification.audit.audit_mechanism`). With ``confirm=k`` the ``k`` pairs ranked
first are confirmed, each at level ``alpha / k`` (Bonferroni over every pair confirmed),
and the search fails if one of them does. Pairs and events are chosen on draws the
confirmations never see, so the false-alarm rate of the whole search is at most ``alpha``.

:func:`shrink_counterexample` is the other face, for property-based tests
(``privtools.testing.find_counterexample``; :mod:`verification.audit.search.shrinking`): StatDP's
patterns raced on the user's datasets, hypothesis's pairs screened by the same held-out
score, a flagged pair shrunk to a minimal one and confirmed on fresh draws.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from privtools.errors import ParameterError
from privtools.neighbours import as_pairs
from privtools.validation import check_int, check_level

from .. import guard
from ..draws import Draws, root_seed
from ..events.cells import held_out_score
from ..events.select import LEARNERS
from ..fixed.mechanism import check_learners
from ..neighbours import as_relation, canonical, distance
from ..values import Claim, check_claim
from .candidates import (
    Candidate,
    Counterexample,
    confirm,
    derived_seed,
    describe,
    from_strategy,
    jsonable,
)
from .halving import MIN_DRAWS as _MIN_DRAWS
from .halving import affordable_pairs, halve, screening
from .halving import rounds as _rounds  # noqa: F401  (the halving's rounds, for its tests)
from .shrinking import shrink_counterexample

__all__ = ["Counterexample", "search_counterexample", "shrink_counterexample",
           "affordable_pairs"]

#: the live pairs at or below which a halving round scores a pair by every event family;
#: the rounds before score it by the cells alone (:func:`~verification.audit.events.cells.
#: held_out_score` with ``choose_max=0``: milliseconds where the families take a second),
#: and by the families only when the cells find no event
FULL_SCORES = 4
#: draws per dataset the event families read when they score a pair (the first of the
#: half they choose on; the cells read every draw): a ranking, not the confirmation's event
FAMILY_DRAWS = 200_000


def _datasets(datasets, max_datasets: int, seed: int) -> list:
    try:
        from hypothesis.strategies import SearchStrategy
    except ImportError:  # pragma: no cover - hypothesis is a base dependency
        SearchStrategy = ()
    if isinstance(datasets, SearchStrategy):
        return from_strategy(datasets, max_datasets, seed)
    if isinstance(datasets, (str, bytes)) or not hasattr(datasets, "__iter__"):
        raise ParameterError("datasets must be a hypothesis strategy or an iterable of "
                             f"datasets, got {type(datasets).__name__}")
    out = list(datasets)
    if len(out) > max_datasets:
        raise ParameterError(f"datasets has {len(out)} entries, more than max_datasets = "
                             f"{max_datasets}; raise max_datasets or pass fewer")
    return out


def _one_record(d, dp) -> bool:
    """Whether ``d`` and ``dp`` differ in one record: one replaced in place, or one added
    or removed (the pairs a leak of one record shows in first)."""
    try:
        return distance(d, dp, "replace-one")[0] or distance(d, dp, "add-remove")[0]
    except (ParameterError, TypeError, ValueError):
        return False


def _pairs(datasets, relation, max_pairs: int, seed: int, stated=()) -> tuple[list, int,
                                                                                int]:
    """The distinct pairs, in the order they are screened: the ``stated`` ones first (all
    kept), then those the relation gives that differ in one record (:func:`_one_record`),
    then the others in a seeded order — a seeded subsample beyond ``max_pairs`` pairs in
    all, the one-record pairs kept first; how many there were, and how many of the kept
    ones were stated."""
    seen, first, pairs = set(), [], []
    for group, source in ((first, [(d, dp) for d, dp in stated]),
                          (pairs, ((d, dp) for d in datasets for dp in relation(d)))):
        for d, dp in source:
            key = frozenset((canonical(d), canonical(dp)))
            if len(key) == 2 and key not in seen:
                seen.add(key)
                group.append((d, dp))
    found = len(first) + len(pairs)
    room = max(0, max_pairs - len(first))
    gen = np.random.default_rng(seed)
    single = [_one_record(*p) for p in pairs]
    one = [p for p, s in zip(pairs, single) if s]
    rest = [p for p, s in zip(pairs, single) if not s]
    one = [one[i] for i in np.sort(gen.choice(len(one), min(room, len(one)), replace=False))]
    rest = [rest[i] for i in gen.permutation(len(rest))[:room - len(one)]]
    return first + one + rest, found, len(first)


def search_counterexample(mechanism: Callable, epsilon, datasets, neighbours="replace-one",
                          delta=0.0, budget: int = 10**6, rng=None, alpha: float = 0.01, *,
                          n_confirm: int | None = None, max_draws: int | None = None,
                          max_datasets: int = 20,
                          max_pairs: int = 64, features: Callable | None = None,
                          learners=LEARNERS, search_learners=("logistic",), executor=None,
                          progress: Callable[[int], None] | None = None,
                          bits: bool = False, timeout=guard.DEFAULT_TIMEOUT,
                          total_timeout=guard.DEFAULT_TOTAL_TIMEOUT, pairs=(),
                          confirm: int = 1) -> Counterexample:
    """Find the neighbouring pair and event with the largest estimated ε, and test the
    claim (``epsilon``, ``delta``) on it with fresh draws (the module doc).

    ``datasets``: a hypothesis strategy (``max_datasets`` examples are drawn from it,
    reproducibly from the seed), an iterable of datasets (lists, tuples, numpy arrays) or
    None (only the stated ``pairs``). ``neighbours``: ``"replace-one"``, ``"add-remove"``,
    ``"query"`` (StatDP's input patterns) or a callable ``d -> iterable of neighbours of d``
    (:mod:`verification.audit.neighbours`). ``pairs``: (d, d') pairs searched whatever the
    relation gives (a zoo entry's ``pairs`` and ``witness``), all kept; the relation's pairs
    fill up to ``max_pairs`` in all (a seeded subsample, the pairs that differ in one
    record kept first).

    ``budget``: draws spent by the search (every dataset of every pair together; a dataset
    several pairs hold is drawn once for all of them) — an upper bound that holds: when it
    cannot give every pair at least 1 000 draws per dataset in the first round of
    successive halving, a screening round comes first
    (:func:`verification.audit.search.halving.screening`): every dataset drawn 100–1 000
    times, every pair scored by its unions of cells, and the pairs the rest of the budget
    can race kept (a budget too small to screen them all at 100 draws per dataset screens
    the stated pairs first, then those that differ in one record: ``pairs`` of the result;
    ``pairs_found`` the pairs there were).
    ``n_confirm``: fresh draws per dataset of each confirmation test (default
    ``budget // 2``; the event is chosen on the pair's search draws), or ``max_draws``:
    draws per dataset of a confirmed pair in all — its search draws, topped up with fresh
    ones to a fifth of ``max_draws`` to choose the event, and the test's mean for the rest
    (the confirmation of a pure-DP claim draws a Poisson number with that mean).
    ``confirm``: how many of the pairs ranked first are confirmed, each at level
    ``alpha / confirm`` (the result's ``comparisons``, ``alpha_per_comparison`` and
    ``confirmations``).

    ``search_learners`` are the classifiers tried while ranking pairs; ``learners`` those
    tried for the final events. ``bits=True`` adds the bit-level events on float outputs, in
    the ranking and the final choice (see :func:`verification.audit.audit_mechanism`). The
    mechanism, ``features``, a callable ``neighbours`` and a strategy of datasets are the
    user's code and run behind the guard of :mod:`privtools.usercode` (``timeout`` per
    call, ``total_timeout`` for the whole search; see
    :func:`verification.audit.audit_mechanism`).
    """
    if not callable(mechanism):
        raise ParameterError("mechanism must be callable as mechanism(dataset, size, rng)")
    claim = check_claim(epsilon, delta)
    budget = check_int("budget", budget, minimum=4 * _MIN_DRAWS)
    alpha = check_level("alpha", alpha)
    max_datasets = check_int("max_datasets", max_datasets, minimum=1)
    max_pairs = check_int("max_pairs", max_pairs, minimum=1)
    confirm = check_int("confirm", confirm, minimum=1)
    stated = as_pairs(pairs)
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
    if datasets is None and not stated:
        raise ParameterError("datasets: give a hypothesis strategy or an iterable of "
                             "datasets (or pairs= to search stated pairs only)")
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng)
    mechanism = guard.wrap(mechanism, "mechanism")
    features = guard.wrap(features, "features")
    if callable(neighbours):
        neighbours = guard.wrap(neighbours, "neighbours")
    sizes = (budget, n_confirm, max_draws, max_datasets, max_pairs, confirm)

    def work(tick):
        return _search(mechanism=mechanism, claim=claim, datasets=datasets, neighbours=neighbours,
                       stated=stated, sizes=sizes, seed=seed, alpha=alpha, features=features,
                       learners=learners, search_learners=search_learners, executor=executor,
                       progress=tick, bits=bool(bits))

    return guard.run(work, executor=executor, timeout=timeout, total_timeout=total_timeout,
                     progress=progress, what="the search",
                     shared=(mechanism, features, neighbours))


def _candidates(datasets, neighbours, stated, max_datasets, max_pairs, seed):
    """The pairs to screen, in priority order (:func:`_pairs`), and how many there were."""
    data = [] if datasets is None else _datasets(datasets, max_datasets, seed)
    if datasets is not None and not data:
        raise ParameterError("datasets gave no dataset")
    relation = as_relation(neighbours, data) if data else (lambda d: [])
    pairs, found, _ = _pairs(data, relation, max_pairs, seed, stated)
    if not pairs:
        raise ParameterError("the neighbour relation gave no pair (d, d') with d' != d")
    return pairs, found


def _search(mechanism, claim: Claim, datasets, neighbours, stated, sizes, seed, alpha,
            features, learners, search_learners, executor, progress, bits) -> Counterexample:
    eps_claim, delta_f = claim.epsilon, claim.delta
    budget, n_confirm, max_draws, max_datasets, max_pairs, n_best = sizes
    pairs, found = _candidates(datasets, neighbours, stated, max_datasets, max_pairs, seed)
    n_goal = n_confirm or (max_draws - max_draws // 5 if max_draws else budget // 2)

    def cells(arm):
        score, _, _ = held_out_score(arm.sample(0), arm.sample(1), n_goal, level, delta_f,
                                     choose_max=0)
        return score

    def rate(arm):
        score = cells(arm) if arm.rivals > FULL_SCORES else -math.inf  # early: cells alone
        if not math.isfinite(score):
            score, _, _ = held_out_score(arm.sample(0), arm.sample(1), n_goal, level,
                                         delta_f, features=features,
                                         learners=search_learners, seed=seed, bits=bits,
                                         choose_max=FAMILY_DRAWS)
        return score

    pairs, screen = screening(budget, pairs, cells)
    level = alpha / min(n_best, len(pairs))
    with Draws(mechanism, seed, executor, progress) as draws:
        ranked, spent = halve(draws, pairs, budget, rate, screen=screen)
        chosen = []
        for i, arm in enumerate(ranked[:n_best]):
            A, B = arm.sample(0), arm.sample(1)
            n_train = A.outputs.n
            if max_draws is not None:
                # a fifth of the pair's draws choose its event: the search's, topped up
                n_train = max(n_train, max_draws // 5)
                fresh = max_draws - n_train
            else:
                fresh = budget // 2 if n_confirm is None else n_confirm
            if fresh < 100:
                raise ParameterError(f"max_draws = {max_draws} leaves {fresh} confirmation "
                                     "draws after the search; raise it or lower budget")
            chosen.append(Candidate(arm.d, arm.dp, n_train + fresh, n_train,
                                    seed if i == 0 else derived_seed(seed, ("confirm", i)),
                                    (A, B)))
        audits = confirm(mechanism, chosen, claim, alpha, draws=draws,
                         executor=executor, progress=progress, features=features,
                         learners=learners, bits=bits)
    audit = audits[-1] if audits[-1].verdict == "fail" else audits[0]
    pick = chosen[len(audits) - 1] if audits[-1].verdict == "fail" else chosen[0]
    ranking = [{"d": jsonable(a.d), "d_prime": jsonable(a.dp),
                "estimated_epsilon": a.score if math.isfinite(a.score) else None,
                "draws_per_dataset": a.n}
               for a in ranked]
    return Counterexample(d=pick.d, d_prime=pick.d_prime, verdict=audit.verdict,
                          passed=audit.passed, epsilon=eps_claim, delta=delta_f,
                          epsilon_lower=audit.epsilon_lower, event=audit.event, seed=seed,
                          alpha=alpha, audit=audit, pairs=len(pairs), search_draws=spent,
                          ranking=ranking, comparisons=len(chosen), budget=budget,
                          pairs_found=found,
                          confirmations=[describe(c, a) for c, a in zip(chosen, audits)])
