"""The shrinking search, for property-based tests (``privtools.testing.find_counterexample``):
screen candidate pairs, shrink a flagged one to a minimal pair, confirm on fresh draws.

**Scores.** Every candidate pair is scored on draws of its own by the held-out statistic of
:mod:`verification.audit.events.cells`: an event chosen on half of its draws, and the ε lower bound
the other half's counts project for the confirmation's test — read at the point estimates
(the *score*, which ranks pairs and which hypothesis maximises with ``target()``) and at a
cautious level (a pair is *flagged* when that reading exceeds the claim). At most
``max_examples`` pairs are scored, whatever the order below:

1. the ``candidates`` the caller states (a witness, a zoo entry's pairs), ``screen_samples``
   draws per dataset each;
2. StatDP's input patterns (``patterns``; Ding et al., CCS 2018 — one answer up, one up and
   the rest down, half up and half down, all up, …) on two of the user's own datasets (the
   longest, and one about half as long), raced by successive halving
   (:func:`verification.audit.search.halving.halve`: the base drawn once for all its patterns,
   round shares equal, ``2 · max_samples`` draws in all) — a leak far above the claim ends
   the race at once;
3. when a pattern is flagged: the same pattern on shorter datasets of the user's space (a
   bisection on their lengths), the shortest flagged kept — and hypothesis is not needed;
   otherwise hypothesis's pairs from the strategy ``pairs`` (``screen_samples`` draws per
   dataset each), steered with ``target(score)``, the first flagged one shrunk by
   hypothesis to a minimal flagged pair.

**Confirmation.** In this order, the first ``confirm`` (default two) of: the minimal flagged
pair, the race's two finalists, the pair of largest score. Each is audited afresh by
:func:`verification.audit.search.candidates.confirm_pair` (an event chosen on fresh selection
draws, tested on fresh draws: ``max_samples`` per dataset in all) at level ``alpha / k``
for the ``k`` pairs confirmed (Bonferroni). Pairs were chosen on draws the confirmations
never see, so the false-alarm rate of the whole search is at most ``alpha`` however many
pairs were scored, and each confirmation is repeated exactly by one call (the result's
``reproduce``).
"""

from __future__ import annotations

import copy
import math
import random
from collections.abc import Callable

import numpy as np

from privtools.errors import ParameterError
from privtools.validation import check_int, check_level

from .. import guard
from ..draws import SEARCH, Draws, root_seed
from ..events.cells import held_out_score
from ..events.select import LEARNERS, Sample
from ..fixed.mechanism import check_learners
from ..neighbours import pattern_neighbours
from ..values import Claim, check_claim
from .candidates import (
    Candidate,
    Counterexample,
    confirm,
    derived_seed,
    describe,
    pair_key,
    pattern_bases,
)
from .halving import halve

__all__ = ["shrink_counterexample", "confirm_train"]

_AUDIT_OPTIONS = ("features", "learners", "bits", "executor", "progress")


def confirm_train(max_samples: int, screen_samples: int) -> int:
    """Draws per dataset a confirmation of ``max_samples`` spends on choosing its event: a
    fifth of them, at least a screening's worth, at most half (and at least 100 left to
    the test)."""
    n = min(max_samples // 2, max(screen_samples, max_samples // 5))
    return max(100, min(n, max_samples - 100))


def shrink_counterexample(mechanism: Callable, epsilon, pairs, delta=0.0, *,
                          alpha: float, rng, max_samples: int, screen_samples: int = 20_000,
                          max_examples: int = 100, timeout=guard.DEFAULT_TIMEOUT,
                          total_timeout=guard.DEFAULT_TOTAL_TIMEOUT, candidates=(),
                          patterns=None, confirm: int = 2,
                          screen_learners=("logistic",), **audit_options) -> Counterexample:
    """The shrinking search (module doc) over ``pairs``, a hypothesis strategy of
    neighbouring pairs (d, d′) (or None: the stated ``candidates`` and ``patterns`` only).

    ``candidates``: (d, d′) pairs scored first. ``patterns``: ``(datasets, relation)`` —
    StatDP's input patterns under ``relation`` (``"linf"``/``"query"``: all eight;
    ``"l1"``/``"histogram"``: one entry up or down; other relations have none) on the
    numeric vectors among ``datasets`` (a list, or 200 examples of a strategy). A
    screening draws ``screen_samples`` per dataset (its own seed) and is scored with
    ``screen_learners``; the pattern race draws ``max(2 · max_samples, 2 · k ·
    screen_samples)`` for its ``k`` pairs; at most ``max_examples`` pairs are scored,
    patterns and hypothesis's shrinking included (a pair beyond it counts as not flagged).
    At most ``confirm`` pairs are confirmed, each by an audit of ``max_samples`` fresh draws
    per dataset (:func:`confirm_train` of them choose its event) at level ``alpha / k`` — so
    a search draws at most ``2 · max_examples · screen_samples`` (screens) plus the race
    plus ``2 · confirm · max_samples`` (confirmations), every dataset together.
    ``audit_options`` (``features``, ``learners``, ``bits``, ``executor``, ``progress``) go
    to the confirmations (and the scores, except ``learners``). The mechanism runs behind
    one guard for the whole search (``timeout``, ``total_timeout``)."""
    claim = check_claim(epsilon, delta)
    alpha = check_level("alpha", alpha)
    screen_samples = check_int("screen_samples", screen_samples, minimum=512)
    max_examples = check_int("max_examples", max_examples, minimum=1)
    max_samples = check_int("max_samples", max_samples, minimum=200)
    confirm = check_int("confirm", confirm, minimum=1)
    unknown = sorted(set(audit_options) - set(_AUDIT_OPTIONS))
    if unknown:
        raise ParameterError(f"unknown option(s) {', '.join(unknown)} for the search; it "
                             f"takes {', '.join(_AUDIT_OPTIONS)}")
    opts = dict(audit_options)
    opts["learners"] = check_learners(opts.get("learners", LEARNERS))
    screen_learners = check_learners(screen_learners)
    if opts.get("features") is not None and not callable(opts["features"]):
        raise ParameterError("features must be callable as features(outputs) -> array")
    if not isinstance(opts.get("bits", False), (bool, np.bool_)):
        raise ParameterError(f"bits must be True or False, got {opts['bits']!r}")
    stated = [tuple(p) for p in candidates]
    if any(len(p) != 2 for p in stated):
        raise ParameterError("candidates must be (d, d_prime) pairs")
    if patterns is not None and (not isinstance(patterns, tuple) or len(patterns) != 2):
        raise ParameterError("patterns must be (datasets, relation) or None")
    if pairs is None and not stated and patterns is None:
        raise ParameterError("give pairs (a strategy), candidates or patterns to search")
    timeout, total_timeout = guard.check_timeouts(timeout, total_timeout)
    seed = root_seed(rng)
    mechanism = guard.wrap(mechanism, "mechanism")
    opts["features"] = guard.wrap(opts.get("features"), "features")
    sizes = (max_samples, screen_samples, max_examples, confirm)

    def work(_tick):
        return _Search(mechanism, claim, alpha, seed, sizes, screen_learners,
                       opts).run(pairs, stated, patterns)
    return guard.run(work, executor=opts.get("executor"), timeout=timeout,
                     total_timeout=total_timeout, what="the search",
                     shared=(mechanism, opts.get("features")))


def _two_bases(bases: list) -> list:
    """The longest base, and the one whose length is nearest half of it: long vectors let
    composed leaks grow (k·ε/2 over k answers), shorter ones spread a leak over fewer
    outcomes — the race between their patterns decides."""
    if not bases:
        return []
    out = [bases[0]]
    half = [b for b in bases[1:] if 2 <= len(b) <= len(bases[0]) // 2 + 1]
    if half:
        out.append(min(half, key=lambda b: abs(len(b) - len(bases[0]) / 2)))
    return out


class _Search:
    """The state of one shrinking search: the screened pairs, their scores, the draws."""

    def __init__(self, mechanism, claim: Claim, alpha, seed, sizes, screen_learners, opts):
        self.mechanism, self.claim, self.alpha, self.seed = mechanism, claim, alpha, seed
        self.eps, self.delta = claim.epsilon, claim.delta
        self.max_samples, self.n_screen, self.max_examples, self.n_confirm = sizes
        self.n_train = confirm_train(self.max_samples, self.n_screen)
        self.n_goal = self.max_samples - self.n_train
        self.level = alpha / self.n_confirm          # the level the confirmations will use
        self.screen_learners = screen_learners
        self.opts = opts
        self.scores: dict = {}    # pair key -> (score, cautious): at most max_examples
        self.best: tuple = (-math.inf, None)     # the largest score and its pair
        self.finalists: list = []     # the pattern race's last two pairs, its winner first
        self.bases: list = []
        self.spent = 0            # screening draws, every dataset together

    # ------------------------------------------------------------ screening
    def _rate(self, A: Sample, B: Sample, families: bool = True) -> tuple[float, float]:
        """(score, cautious) of a pair's draws: cells and, with ``families``, the event
        choose_event finds on at most half a screening's draws."""
        s, c, _ = held_out_score(A, B, self.n_goal, self.level, self.delta,
                                 features=self.opts.get("features"),
                                 learners=self.screen_learners, seed=self.seed,
                                 bits=bool(self.opts.get("bits", False)),
                                 choose_max=self.n_screen // 2 if families else 0)
        return s, c

    def _record(self, pair, scored: tuple[float, float]):
        self.scores[pair_key(pair)] = scored
        if scored[0] > self.best[0]:
            self.best = (scored[0], (copy.deepcopy(pair[0]), copy.deepcopy(pair[1])))

    def _draws(self, what) -> Draws:
        return Draws(self.mechanism, derived_seed(self.seed, what), self.opts.get("executor"),
                     self.opts.get("progress"))

    def score(self, pair) -> float | None:
        """The held-out score of ``pair`` (screened once; None beyond ``max_examples``)."""
        key = pair_key(pair)
        if key in self.scores:
            return self.scores[key][0]
        if len(self.scores) >= self.max_examples or key[0] == key[1]:
            # the promise: at most max_examples pairs screened, the shrinking included
            # (a pair beyond it counts as not flagged; identical datasets cannot leak)
            return None
        d, d_prime = pair
        with self._draws(pair) as draws:
            A = Sample(*draws.sample(d, self.n_screen, SEARCH, 0))
            B = Sample(*draws.sample(d_prime, self.n_screen, SEARCH, 1))
        self.spent += 2 * self.n_screen
        self._record(pair, self._rate(A, B))
        return self.scores[key][0]

    def flagged(self, pair) -> bool:
        """Whether ``pair``'s cautious reading exceeds the claim (screening it if new)."""
        self.score(pair)
        got = self.scores.get(pair_key(pair))
        return got is not None and got[1] > self.eps

    # ------------------------------------------------------------ the phases
    def run(self, pairs, stated, patterns) -> Counterexample:
        for pair in stated:
            self.score(pair)
        tried = self._patterns(patterns)   # (name, base, flagged) per pattern pair, ranked
        minimal = None
        remaining = self.max_examples - len(self.scores)
        if any(flagged for _, _, flagged in tried):
            minimal = self._shrink_pattern(patterns, tried)
        elif pairs is not None and remaining > 0:
            minimal = self._hypothesis(pairs, remaining)
        if minimal is None:
            minimal = next((p for p in stated if self.flagged(p)), None)
        return self._confirm(minimal)

    def _patterns(self, patterns) -> list:
        """StatDP's patterns on two bases (:func:`_two_bases`): successive halving
        (:func:`verification.audit.search.halving.halve`) with the draws of screening each once —
        the base drawn once for all of them — so the pairs still in the race get more."""
        if patterns is None:
            return []
        datasets, relation = patterns
        self.bases = pattern_bases(datasets, self.seed)
        if not self.bases:
            return []
        named = []             # (name, base, neighbour): the longest base, and one half as long
        for base in _two_bases(self.bases):
            named += [(name, base, x) for name, x in pattern_neighbours(base, relation)
                      if pair_key((base, x)) not in self.scores]
        named = named[:self.max_examples - len(self.scores)]
        if not named:
            return []
        pairs = [(base, x) for _, base, x in named]
        readings = {}

        def rate(arm):            # choose_event's families once four pairs are left
            readings[arm.index] = self._rate(arm.sample(0), arm.sample(1), arm.rivals <= 4)
            return readings[arm.index][0]
        def gross(arm):           # so far above the claim that the race can stop
            return readings[arm.index][1] > max(2 * self.eps, self.eps + 0.5)
        with self._draws("patterns") as draws:
            ranked, spent = halve(draws, pairs, self._pattern_budget(len(pairs)), rate,
                                  doubling=False, enough=gross)
        self.spent += spent
        for arm in ranked:
            self._record((arm.d, arm.dp), readings.get(arm.index, (-math.inf, -math.inf)))
        # the last round's two (the race's final): its winner first
        self.finalists = [(a.d, a.dp) for a in ranked[:2] if a.reached == ranked[0].reached]
        names = {pair_key((base, x)): (name, base) for name, base, x in named}
        return [(*names[pair_key((a.d, a.dp))], self.flagged((a.d, a.dp))) for a in ranked]

    def _pattern_budget(self, k: int) -> int:
        """Draws the pattern race spends (every dataset together): a confirmation's worth
        (``max_samples``), and at least what screening each pair once would cost. The
        shares double from round to round (a cheap first round, the finalists drawn most),
        and a leak far above the claim — a cautious reading above twice the claim and above
        the claim plus 0.5 — ends the race."""
        return max(2 * self.max_samples, 2 * k * self.n_screen)

    def _hypothesis(self, pairs, remaining):
        from hypothesis import HealthCheck, find, settings, target
        from hypothesis.errors import NoSuchExample, Unsatisfiable

        def leaks(pair) -> bool:
            s = self.score(pair)
            if s is None:
                return False
            target(float(min(max(s, -10.0), 1e6)), label="projected epsilon")
            return self.flagged(pair)

        conf = settings(max_examples=remaining, database=None, deadline=None,
                        suppress_health_check=list(HealthCheck))
        try:
            d, d_prime = find(pairs, leaks, settings=conf, random=random.Random(self.seed))
        except (NoSuchExample, Unsatisfiable):
            return None
        return d, d_prime

    def _shrink_pattern(self, patterns, tried):
        """The shortest base (a bisection over the user's datasets of smaller lengths) on
        which the best-ranked flagged pattern is still flagged."""
        hit = next(((name, base) for name, base, flagged in tried if flagged), None)
        if hit is None:
            return None
        name, base = hit
        relation = patterns[1]
        shorter = sorted((b for b in self.bases if len(b) < len(base)), key=len)
        best = (base, dict(pattern_neighbours(base, relation))[name])
        lo, hi = 0, len(shorter)          # shorter[hi:] flagged (the base itself at hi)
        while lo < hi:
            mid = (lo + hi) // 2
            moved = dict(pattern_neighbours(shorter[mid], relation)).get(name)
            pair = (shorter[mid], moved)
            if moved is not None and self.flagged(pair):
                hi, best = mid, pair
            elif moved is not None and self.score(pair) is None:
                break                     # max_examples reached
            else:
                lo = mid + 1
        return best

    def _confirm(self, minimal) -> Counterexample:
        chosen, seen = [], set()
        for pair in (minimal, *self.finalists, self.best[1]):
            if pair is not None and pair_key(pair) not in seen:
                seen.add(pair_key(pair))
                chosen.append(pair)
        chosen = chosen[:self.n_confirm]
        if not chosen:
            return Counterexample(d=None, d_prime=None, verdict="pass", passed=True,
                                  epsilon=self.eps, delta=self.delta, epsilon_lower=0.0,
                                  event=None, seed=self.seed, alpha=self.alpha, audit=None,
                                  pairs=len(self.scores), search_draws=self.spent,
                                  method="shrinking", comparisons=0)
        cands = [Candidate(d, dp, self.max_samples, self.n_train,
                           derived_seed(self.seed + 1, (d, dp))) for d, dp in chosen]
        audits = confirm(self.mechanism, cands, self.claim, self.alpha,
                         executor=self.opts.get("executor"),
                         progress=self.opts.get("progress"),
                         features=self.opts.get("features"), learners=self.opts["learners"],
                         bits=bool(self.opts.get("bits", False)))
        # the failing pair, or (all passed) the last confirmed
        failed = audits[-1].verdict == "fail"
        c, audit = cands[len(audits) - 1], audits[-1]
        return Counterexample(d=c.d, d_prime=c.d_prime, verdict="fail" if failed else "pass",
                              passed=not failed, epsilon=self.eps, delta=self.delta,
                              epsilon_lower=audit.epsilon_lower, event=audit.event, seed=self.seed,
                              alpha=self.alpha, audit=audit, pairs=len(self.scores),
                              search_draws=self.spent, method="shrinking", comparisons=len(cands),
                              confirmations=[describe(x, a) for x, a in zip(cands, audits)])
