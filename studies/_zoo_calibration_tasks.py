"""The audits of ``studies/audit_zoo_calibration.py``: settings, task lists, seeds and the
worker function that runs one audit and returns a small record.

Every audit is one task ``(section, tester, name, draws, index, seed, pair)`` with its own
seed, ``SeedSequence(base, spawn_key=(section, crc32(name), tester, draws, index))``, so the
records do not depend on the number of worker processes or on the order they finish in.
"""

from __future__ import annotations

import functools
import math
import time
import zlib
from dataclasses import dataclass, field

import numpy as np

from verification import zoo
from verification.audit import (
    audit_mechanism,
    audit_mechanism_sequential,
    search_counterexample,
    trace_mechanism,
)
from verification.zoo.curator import curator_suite

ALPHA = 0.01
TESTERS = ("fixed", "sequential", "search", "bits", "trace")
SECTIONS = ("false-alarm", "pilot", "power", "curator")


@dataclass(frozen=True)
class Settings:
    """What one run audits, and with how many draws (the defaults are the full run)."""

    seeds: int = 100                 # false-alarm audits per private mechanism and tester
    fixed_draws: int = 10_000        # draws per dataset of a fixed-size audit
    seq_draws: int = 10_000          # most draws per dataset of a sequential audit
    search_budget: int = 16_000      # search draws in all (pairs scored by halving)
    search_confirm: int = 5_000      # fresh draws per dataset of the search's confirmation
    power_seeds: int = 20            # audits per non-private mechanism, tester and budget
    power_draws: tuple = (1_000, 10_000, 100_000)
    pilot_budget: int = 200_000      # the pilot search that picks each power pair
    curator_seeds: int = 10          # audits per curator mechanism, tester and budget
    curator_draws: tuple = (1_000, 10_000, 100_000, 1_000_000)
    private: tuple | None = None     # zoo names (None: every private entry)
    nonprivate: tuple | None = None  # zoo names (None: every non-private DP-Sniper/StatDP)
    curator: tuple | None = None     # curator names (None: the whole curator suite)
    learners: tuple | None = ("logistic",)   # the audits' classifiers (None: the default)
    seed: int = 2411
    alpha: float = ALPHA
    quick: bool = False

    def _learners(self) -> str:
        if self.learners is None:
            return "the library default (logistic regression and gradient boosting)"
        if not self.learners:
            return "none"
        return (", ".join(self.learners) + " (the default adds gradient boosting, 1.5–2× the "
                "time; every event is tested on fresh draws, so the false-alarm guarantee does "
                "not depend on the learners)")

    def options(self) -> dict:
        """Keyword arguments every audit of the run gets."""
        return {} if self.learners is None else {"learners": tuple(self.learners)}

    def describe(self) -> list[tuple[str, str]]:
        """The settings as (what, value) lines for the page."""
        return [
            ("level α of every audit", f"{self.alpha:g}"),
            ("false-alarm audits per mechanism and tester", f"{self.seeds}"),
            ("learned events (every audit)", self._learners()),
            ("fixed-size audit (`audit_mechanism`)", f"{self.fixed_draws:,} draws per dataset; "
             "audit i of an entry on its pair i mod (number of pairs)"),
            ("sequential audit (`audit_mechanism_sequential`)",
             f"at most {self.seq_draws:,} draws per dataset, first round 256"),
            ("pair search (`search_counterexample`)",
             f"budget {self.search_budget:,} search draws over the entry's own pairs of one "
             f"length, confirmation on {self.search_confirm:,} fresh draws per dataset"),
            ("bits audit (`audit_mechanism(..., bits=True)`)",
             f"{self.fixed_draws:,} draws per dataset"),
            ("grey-box trace (`trace_mechanism`)", "arithmetic=\"real\", one trace per seed"),
            ("power: audits per mechanism, tester and budget", f"{self.power_seeds}"),
            ("power: draws per dataset", ", ".join(f"{n:,}" for n in self.power_draws)),
            ("power: pilot search that picks the pair",
             f"budget {self.pilot_budget:,}, its own seed"),
            ("curator: audits per mechanism, tester and budget", f"{self.curator_seeds}"),
            ("curator: draws per dataset", ", ".join(f"{n:,}" for n in self.curator_draws)),
            ("root seed", f"{self.seed}"),
        ]


def quick_settings(seed: int = 2411) -> Settings:
    """The reduced mode (``--quick``): a handful of mechanisms and seeds, small budgets."""
    return Settings(seeds=4, fixed_draws=2_000, seq_draws=2_000, search_budget=8_000,
                    search_confirm=2_000, power_seeds=3, power_draws=(1_000, 4_000),
                    pilot_budget=20_000, curator_seeds=2, curator_draws=(1_000, 10_000),
                    private=("Laplace", "ReportNoisyMax1", "Histogram@1.5",
                             "LaplaceOutputRounded", "NoSignal"),
                    nonprivate=("NoisyHist2", "ReportNoisyMax4"),
                    curator=("CuratorAnswer@1e-3", "CuratorTail@1e-3", "NoSignal"),
                    seed=seed, quick=True)


# ---------------------------------------------------------------- the mechanisms
@functools.cache
def curators() -> dict:
    """The curator suite by name."""
    return {e.name: e for e in curator_suite()}


def entry(name: str):
    """A zoo entry or a curator entry by name."""
    return curators().get(name) or zoo.get(name)


def private_entries(s: Settings) -> list:
    """The mechanisms whose claim holds: every private zoo entry and the no-signal control."""
    found = [e for e in zoo.ZOO.values() if e.private] + [
        e for e in curators().values() if e.private]
    return [e for e in found if s.private is None or e.name in s.private]


def nonprivate_entries(s: Settings) -> list:
    """The non-private entries of the DP-Sniper and StatDP suites."""
    found = [e for e in zoo.dpsniper_suite() + zoo.statdp_suite() if not e.private]
    return [e for e in found if s.nonprivate is None or e.name in s.nonprivate]


def curator_entries(s: Settings) -> list:
    """The curator mechanisms of the run."""
    return [e for e in curators().values() if s.curator is None or e.name in s.curator]


@functools.cache
def float_output(name: str) -> bool:
    """Does the mechanism release floats (the bits audit reads their encoding)?"""
    e = entry(name)
    d = e.pairs[0][0]
    out = np.asarray(e.mechanism(list(d), 4, np.random.default_rng(0)))
    return out.dtype.kind == "f"


def bits_status(e) -> str | None:
    """None when the bits audit's false alarms are measured on ``e``; otherwise why not
    ("integer", "real-arithmetic")."""
    if not float_output(e.name):
        return "integer"
    if getattr(e, "suite", "curator") in ("dpsniper", "statdp"):
        return "real-arithmetic"
    return None


class PairTable:
    """A zoo entry's candidate pairs as a neighbour relation (picklable)."""

    def __init__(self, pairs):
        self.pairs = [(tuple(a), tuple(b)) for a, b in pairs]

    def __call__(self, d):
        """The partners of ``d`` among the pairs."""
        return [list(b) for a, b in self.pairs if a == tuple(d)]

    def bases(self) -> list:
        """The first datasets of the pairs, in order, without repeats."""
        seen: list = []
        for a, _ in self.pairs:
            if list(a) not in seen:
                seen.append(list(a))
        return seen


def pair_groups(e) -> list[tuple]:
    """The entry's pairs grouped by dataset length (a search needs one output shape)."""
    groups: dict = {}
    for d, dp in e.pairs:
        groups.setdefault(len(d), []).append((d, dp))
    return [tuple(groups[k]) for k in sorted(groups)]


# ---------------------------------------------------------------- seeds and tasks
def task_seed(base: int, section: str, name: str, tester: str, draws: int, i: int) -> int:
    """A distinct non-negative 63-bit seed for audit ``i`` of one (section, mechanism,
    tester, budget) cell."""
    key = (SECTIONS.index(section), zlib.crc32(name.encode()), TESTERS.index(tester),
           int(draws), int(i))
    state = np.random.SeedSequence(base, spawn_key=key).generate_state(2, np.uint32)
    return int((int(state[0]) << 31) ^ int(state[1]))


@dataclass(frozen=True)
class Task:
    """One audit to run."""

    section: str
    tester: str
    name: str
    draws: int
    index: int
    seed: int
    pair: tuple | None = None
    options: dict = field(default_factory=dict)

    def cost(self) -> float:
        """A rough relative cost, to start the long audits first."""
        e = entry(self.name)
        width = len(e.pairs[0][0]) if e.relation != "value" else 20
        per = {"search": 3.0, "sequential": 2.0, "pilot": 3.0, "trace": 0.0}.get(
            self.tester, 1.0)
        return (self.draws or 1000) * per * (1 + width / 5)


def false_alarm_tasks(s: Settings) -> list[Task]:
    """Every false-alarm audit: each private mechanism × each tester that applies × seeds."""
    out = []
    for e in private_entries(s):
        groups = pair_groups(e)
        for i in range(s.seeds):
            pair = e.pairs[i % len(e.pairs)]
            opt = s.options()
            out.append(Task("false-alarm", "fixed", e.name, s.fixed_draws, i,
                            task_seed(s.seed, "false-alarm", e.name, "fixed", 0, i), pair, opt))
            out.append(Task("false-alarm", "sequential", e.name, s.seq_draws, i,
                            task_seed(s.seed, "false-alarm", e.name, "sequential", 0, i), pair,
                            opt))
            out.append(Task("false-alarm", "search", e.name, s.search_budget, i,
                            task_seed(s.seed, "false-alarm", e.name, "search", 0, i),
                            groups[i % len(groups)],
                            {"n_confirm": s.search_confirm, **search_options(s)}))
            if bits_status(e) is None:
                out.append(Task("false-alarm", "bits", e.name, s.fixed_draws, i,
                                task_seed(s.seed, "false-alarm", e.name, "bits", 0, i), pair,
                                opt))
            out.append(Task("false-alarm", "trace", e.name, 0, i,
                            task_seed(s.seed, "false-alarm", e.name, "trace", 0, i), pair))
    return out


def search_options(s: Settings) -> dict:
    """The search's keyword arguments: its final event and its ranking of pairs use the
    run's learners (the library default ranks with logistic only)."""
    if s.learners is None:
        return {}
    return {"learners": tuple(s.learners), "search_learners": tuple(s.learners)}


def pilot_tasks(s: Settings) -> list[Task]:
    """One pilot search per non-private mechanism, over its pairs of the longest length
    (where the zoo states the true ε)."""
    return [Task("pilot", "search", e.name, s.pilot_budget, 0,
                 task_seed(s.seed, "pilot", e.name, "search", 0, 0), pair_groups(e)[-1],
                 {"n_confirm": 100, **search_options(s)})
            for e in nonprivate_entries(s)]


def power_tasks(s: Settings, name: str, pair) -> list[Task]:
    """The power audits of one non-private mechanism on its pilot pair."""
    return [Task("power", tester, name, n, i, task_seed(s.seed, "power", name, tester, n, i),
                 pair, s.options())
            for tester in ("fixed", "sequential") for n in s.power_draws
            for i in range(s.power_seeds)]


def curator_tasks(s: Settings) -> list[Task]:
    """The curator audits: each mechanism × tester × budget × seed, on its witness pair."""
    return [Task("curator", tester, e.name, n, i,
                 task_seed(s.seed, "curator", e.name, tester, n, i), e.witness, s.options())
            for e in curator_entries(s) for tester in ("fixed", "sequential")
            for n in s.curator_draws for i in range(s.curator_seeds)]


# ---------------------------------------------------------------- one audit
def warm_up() -> None:
    """Import here what the audits import lazily (scikit-learn's learners, hypothesis's
    strategies, threadpoolctl, the trace's runner). Each audit runs the mechanism in a
    child process it forks (the user-code guard); imported once in the parent, these are
    inherited instead of imported again by every child — about 0.3 s per audit."""
    import hypothesis  # noqa: F401
    import hypothesis.strategies  # noqa: F401
    import sklearn.ensemble  # noqa: F401
    import sklearn.linear_model  # noqa: F401
    import sklearn.pipeline  # noqa: F401
    import sklearn.preprocessing  # noqa: F401
    import threadpoolctl  # noqa: F401

    import verification.audit.trace.record.runs  # noqa: F401


def run_task(task: Task) -> dict:
    """Run one audit; a small JSON-ready record of its outcome."""
    e = entry(task.name)
    t0 = time.perf_counter()
    rec = {"section": task.section, "tester": task.tester, "name": task.name,
           "draws": task.draws, "index": task.index, "seed": task.seed}
    delta = getattr(e, "delta", 0.0)
    if task.tester in ("fixed", "bits"):
        d, dp = task.pair
        r = audit_mechanism(e.mechanism, list(d), list(dp), e.epsilon, task.draws,
                            rng=task.seed, delta=delta, alpha=ALPHA,
                            bits=task.tester == "bits", **task.options)
        rec.update(verdict=r.verdict, epsilon_lower=r.epsilon_lower, used=r.n_samples,
                   family=r.selection.get("family"))
    elif task.tester == "sequential":
        d, dp = task.pair
        r = audit_mechanism_sequential(e.mechanism, list(d), list(dp), e.epsilon, task.draws,
                                       rng=task.seed, delta=delta, alpha=ALPHA, **task.options)
        rec.update(verdict=r.verdict, epsilon_lower=r.epsilon_lower, used=r.draws)
    elif task.tester == "search":
        table = PairTable(task.pair)
        bases = table.bases()
        cx = search_counterexample(e.mechanism, e.epsilon, bases, neighbours=table,
                                   delta=delta, budget=task.draws, rng=task.seed,
                                   alpha=ALPHA, max_pairs=64, max_datasets=len(bases),
                                   **task.options)
        rec.update(verdict=cx.verdict, epsilon_lower=cx.epsilon_lower,
                   pair=[list(cx.d), list(cx.d_prime)], pairs=cx.pairs)
    elif task.tester == "trace":
        d, dp = task.pair
        r = trace_mechanism(e.mechanism, list(d), list(dp), e.epsilon, delta, rng=task.seed,
                            arithmetic="real")
        rec.update(verdict=r.verdict, kinds=sorted({f.kind for f in r.findings}))
    else:
        raise ValueError(f"unknown tester {task.tester!r}")
    rec["seconds"] = time.perf_counter() - t0
    low = rec.get("epsilon_lower")
    if low is not None and not math.isfinite(low):
        rec["epsilon_lower"] = None if math.isnan(low) else "inf"
    return rec
