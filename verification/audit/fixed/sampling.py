"""Is the code's batch sampler the scheme its accountant assumes?

Privacy amplification by sampling is certified for a *scheme* — every record included
independently with probability q (Poisson), a uniform batch of fixed size without
replacement, a fresh permutation cut into batches every epoch (shuffling), each record in k
of t steps (random allocation, Feldman and Shenfeld 2026) — and an accountant told the wrong
scheme reports the wrong ε: a weighted sampler whose effective rate is far from the rate
reported (opacus#813), a "Poisson" sampler whose inclusions are not independent across
records (jax_privacy#121), fixed-size or shuffled batches accounted as Poisson (up to 4× on
ε, arXiv 2411.10614).

:func:`audit_sampling` draws ``n_batches`` batches from ``sampler(n_batches, rng)`` (a
sequence of arrays of record indices in ``[0, population)``) and tests them against the
claimed scheme:

* **exact checks** — indices are integers in range, no record twice in a batch, and what
  the scheme fixes: a batch size (fixed size), a partition of the population per epoch
  (shuffling), exactly k appearances per round of t steps (allocation). A violation is a
  certain failure (p = 0);
* **statistical tests**, Bonferroni over the tests of the scheme, each with a two-sided
  Monte Carlo p-value from ``n_null`` draws of the statistic under the scheme itself
  (2·(1 + #{null at least as extreme})/(1 + n_null): exact level, no asymptotics). Poisson:
  the total inclusions (the rate q), the dispersion of the per-record counts (every record
  at the same rate), the dispersion of the batch sizes (independence across records:
  fixed-size batches have none). Fixed size: the dispersion of the per-record counts.
  Shuffling and allocation (whose per-record counts the exact checks fix): the dispersion of
  the (record, batch within epoch or round) counts. Poisson and fixed size, whose batches
  are independent and identically distributed, also take the histogram of the gaps of 1 to
  :data:`GAP` steps between a record's inclusions against the same histogram with the
  batches in random orders (a permutation test, exact under exchangeability): a sampler
  whose batches depend on each other in time — cyclic eligibility, epochs, "no record
  twice in a row" — fails it.

The verdict is ``"fail"`` (an exact violation, or a test below its share of ``alpha``) or
``"pass"`` (the batches show no departure at false-alarm rate ``alpha`` — evidence, not
proof). The sampler is user code and runs behind the guard (:mod:`privtools.usercode`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from privtools.accounting import (
    DpEvent,
    PoissonSampledEvent,
    RandomAllocationEvent,
    SampledWithoutReplacementEvent,
    ShuffledBatchesEvent,
)
from privtools.errors import ParameterError
from privtools.validation import check_int, check_level, to_fraction

from .. import guard
from ..draws import root_seed

__all__ = ["PoissonScheme", "FixedSizeScheme", "ShuffleScheme", "AllocationScheme",
           "SamplingAudit", "audit_sampling", "from_batches", "reference_sampler", "scheme_of"]


# ---------------------------------------------------------------------- the schemes
@dataclass(frozen=True)
class PoissonScheme:
    """Every record in every batch independently with probability ``q``."""

    q: float

    def __post_init__(self):
        q = float(to_fraction("q", self.q))
        if not 0 < q < 1:
            raise ParameterError(f"q must be in (0, 1), got {self.q!r}")
        object.__setattr__(self, "q", q)

    def describe(self) -> str:
        """The scheme in words."""
        return f"Poisson sampling at rate q = {self.q:g}"


@dataclass(frozen=True)
class _Batched:
    batch: int

    def __post_init__(self):
        object.__setattr__(self, "batch", check_int("batch", self.batch, minimum=1))


@dataclass(frozen=True)
class FixedSizeScheme(_Batched):
    """Every batch a uniform subset of ``batch`` records, batches independent."""

    def describe(self) -> str:
        """The scheme in words."""
        return f"uniform batches of {self.batch} records without replacement"


@dataclass(frozen=True)
class ShuffleScheme(_Batched):
    """A fresh uniform permutation per epoch, cut into consecutive batches of ``batch``
    records (the last of an epoch smaller when ``batch`` does not divide the population)."""

    def describe(self) -> str:
        """The scheme in words."""
        return f"a permutation per epoch cut into batches of {self.batch}"


@dataclass(frozen=True)
class AllocationScheme:
    """Rounds of ``steps`` batches; each record in exactly ``k`` of them, a uniform choice
    per record and round (random allocation)."""

    steps: int
    k: int = 1

    def __post_init__(self):
        object.__setattr__(self, "steps", check_int("steps", self.steps, minimum=1))
        object.__setattr__(self, "k", check_int("k", self.k, minimum=1,
                                                maximum=self.steps))

    def describe(self) -> str:
        """The scheme in words."""
        return f"each record in {self.k} of every {self.steps} steps"


SCHEMES = (PoissonScheme, FixedSizeScheme, ShuffleScheme, AllocationScheme)


def scheme_of(event, population: int):
    """The scheme an accountant's sampled event assumes: ``PoissonSampledEvent(e, q)`` →
    :class:`PoissonScheme`, ``SampledWithoutReplacementEvent(e, batch, population)`` →
    :class:`FixedSizeScheme` (its population must be ``population``),
    ``RandomAllocationEvent(e, steps, allocations)`` → :class:`AllocationScheme`,
    ``ShuffledBatchesEvent(e, steps)`` → :class:`ShuffleScheme` of ⌈population/steps⌉
    records a batch (the epoch must then hold ``steps`` batches)."""
    if isinstance(event, PoissonSampledEvent):
        return PoissonScheme(event.q)
    if isinstance(event, SampledWithoutReplacementEvent):
        if event.population != population:
            raise ParameterError(f"population = {population} differs from the event's "
                                 f"population = {event.population}")
        return FixedSizeScheme(event.batch)
    if isinstance(event, RandomAllocationEvent):
        return AllocationScheme(event.steps, event.allocations)
    if isinstance(event, ShuffledBatchesEvent):
        batch = -(-population // event.steps)
        if -(-population // batch) != event.steps:
            raise ParameterError(f"population = {population} cannot be cut into "
                                 f"steps = {event.steps} batches of one size (the last "
                                 "smaller)")
        return ShuffleScheme(batch)
    raise ParameterError(f"{type(event).__name__} assumes no batch sampling scheme tested "
                         "here; pass a PoissonSampledEvent, SampledWithoutReplacementEvent, "
                         "RandomAllocationEvent or ShuffledBatchesEvent, or a scheme")


_MAX_WORK = 2 * 10**9          # index draws of the sampler check and the null simulation


@dataclass(frozen=True)
class SamplingAudit:
    """Outcome of :func:`audit_sampling`: ``verdict`` ``"pass"``/``"fail"``, ``passed``,
    the ``scheme``, the ``tests`` (name → dict with ``statistic``, ``p_value``, ``level``
    and ``what``), ``violation`` (the exact check that failed, or None), ``alpha``,
    ``n_batches``, ``population``, ``seed`` and the ``user_code`` report."""

    verdict: str
    passed: bool
    scheme: object
    tests: dict
    violation: str | None
    alpha: float
    n_batches: int
    population: int
    seed: int
    user_code: object = None
    notes: tuple = field(default_factory=tuple)

    def summary(self) -> str:
        """One line: the verdict, the scheme and the decisive test."""
        head = f"{self.verdict.upper()}: {self.scheme.describe()}, {self.n_batches} batches " \
            f"of a population of {self.population}"
        if self.violation:
            return f"{head} — {self.violation}"
        worst = min(self.tests.items(), key=lambda kv: kv[1]["p_value"] / kv[1]["level"],
                    default=None)
        if worst is None:
            return head
        name, t = worst
        return (f"{head} — {name}: p = {t['p_value']:.3g} at level {t['level']:.3g} "
                f"({t['what']})")

    def to_dict(self) -> dict:
        """JSON-ready values."""
        return {"verdict": self.verdict, "passed": self.passed,
                "scheme": self.scheme.describe(), "tests": self.tests,
                "violation": self.violation, "alpha": self.alpha,
                "n_batches": self.n_batches, "population": self.population,
                "seed": self.seed, "notes": list(self.notes),
                "user_code": None if self.user_code is None else self.user_code.to_dict()}


# ---------------------------------------------------------------------- reading batches
def _batches(raw, n_batches: int, population: int) -> list[np.ndarray]:
    if isinstance(raw, np.ndarray) and raw.ndim == 2:
        raw = list(raw)
    try:
        raw = list(raw)
    except TypeError:
        raise ParameterError(f"sampler must return a sequence of batches, got "
                             f"{type(raw).__name__}") from None
    if len(raw) != n_batches:
        raise ParameterError(f"sampler returned {len(raw)} batches, expected {n_batches}")
    out = []
    for i, b in enumerate(raw):
        arr = np.asarray(b)
        if arr.ndim != 1 or (arr.size and arr.dtype.kind not in "iu"):
            raise ParameterError(f"sampler's batch {i} must be a 1-D array of record indices "
                                 f"(integers), got {arr.dtype} of shape {arr.shape}")
        out.append(arr.astype(np.int64, copy=False))
    return out


def _exact_checks(batches, population: int, scheme) -> str | None:
    for i, b in enumerate(batches):
        if b.size and (b.min() < 0 or b.max() >= population):
            return f"batch {i} holds a record index outside [0, {population})"
        if np.unique(b).size != b.size:
            return f"batch {i} holds a record twice"
    for kind, check in ((FixedSizeScheme, _sizes_fixed), (ShuffleScheme, _epochs_partition),
                        (AllocationScheme, _rounds_allocate)):
        if isinstance(scheme, kind):
            problem = check(batches, population, scheme)
            if problem is not None:
                return problem
    return None


def _sizes_fixed(batches, population: int, scheme) -> str | None:
    """Fixed-size batches: every batch of the scheme's size."""
    for i, b in enumerate(batches):
        if b.size != scheme.batch:
            return f"batch {i} has {b.size} records, not {scheme.batch}"
    return None


def _epochs_partition(batches, population: int, scheme) -> str | None:
    """Shuffling: every epoch's batches a partition of the population."""
    per = -(-population // scheme.batch)
    for e in range(len(batches) // per):
        epoch = np.concatenate(batches[e * per:(e + 1) * per])
        if epoch.size != population or np.unique(epoch).size != population:
            return f"epoch {e} (batches {e * per}..{(e + 1) * per - 1}) is not a " \
                "partition of the population"
    return None


def _rounds_allocate(batches, population: int, scheme) -> str | None:
    """Random allocation: every record in exactly k of each round's steps."""
    t = scheme.steps
    for r in range(len(batches) // t):
        counts = np.bincount(np.concatenate(batches[r * t:(r + 1) * t]),
                             minlength=population)
        if not np.all(counts == scheme.k):
            j = int(np.flatnonzero(counts != scheme.k)[0])
            return f"in round {r} (steps {r * t}..{(r + 1) * t - 1}) record {j} " \
                f"appears {int(counts[j])} times, not {scheme.k}"
    return None


def _check_length(scheme, n_batches: int, population: int) -> None:
    if isinstance(scheme, FixedSizeScheme) and scheme.batch > population:
        raise ParameterError(f"scheme: batch {scheme.batch} exceeds the population "
                             f"{population}")
    if isinstance(scheme, ShuffleScheme):
        per = -(-population // scheme.batch)
        if n_batches % per:
            raise ParameterError(f"n_batches must be a whole number of epochs ({per} batches "
                                 f"each), got {n_batches}")
    if isinstance(scheme, AllocationScheme) and n_batches % scheme.steps:
        raise ParameterError(f"n_batches must be a whole number of rounds ({scheme.steps} "
                             f"steps each), got {n_batches}")


# ---------------------------------------------------------------------- the statistics
def _sq(x: np.ndarray, mean, axis=None):
    return ((x - mean) ** 2).sum(axis=axis)


def _monte_carlo(observed: float, null: np.ndarray) -> float:
    """Two-sided (1 + #{null at least as extreme on the side of the observation})/
    (1 + len(null)), doubled: a p-value of exact level."""
    b = null.size
    upper = (1 + np.count_nonzero(null >= observed)) / (1 + b)
    lower = (1 + np.count_nonzero(null <= observed)) / (1 + b)
    return float(min(1.0, 2 * min(upper, lower)))


def _per(population: int, scheme) -> int:
    """Batches per epoch (shuffling) or round (allocation)."""
    if isinstance(scheme, ShuffleScheme):
        return -(-population // scheme.batch)
    return scheme.steps


def _expected_slots(population: int, scheme, per: int, rounds: int) -> np.ndarray:
    """Expected (record, slot) counts over ``rounds`` epochs or rounds."""
    if isinstance(scheme, ShuffleScheme):
        sizes = np.full(per, scheme.batch, dtype=float)
        sizes[-1] = population - scheme.batch * (per - 1)
        return rounds * sizes[None, :] / population
    return np.full((1, per), rounds * scheme.k / per)


_WHAT = {"rate": "total inclusions against n·T·q",
         "records": "every record sampled at the same rate (per-record counts)",
         "batch sizes": "batch sizes spread as Binomial(n, q): records independent",
         "positions": "each record's batch within its epoch or round uniform",
         "gaps": "the gaps (1 to GAP = 8 steps) between a record's inclusions spread as with "
                 "the batches in random orders: batches exchangeable in time"}

#: The longest gap the exchangeability test counts.
GAP = 8


def _gap_counts(batches, order=None) -> np.ndarray:
    """How often consecutive inclusions of one record are 1, 2, …, :data:`GAP` steps apart,
    with the batches in ``order`` (default: as drawn)."""
    T = len(batches)
    times = np.repeat(np.arange(T) if order is None else np.argsort(order),
                      [b.size for b in batches])
    recs = np.concatenate(batches).astype(np.int64)
    key = np.sort(recs * T + times)
    d = np.diff(key)
    d = d[(d >= 1) & (d <= GAP) & (np.diff(key // T) == 0)]
    return np.bincount(d, minlength=GAP + 1)[1:].astype(float)


_CENTRE = 100            # random orders that fix the test's centre (apart from its null)


def _gap_test(batches, gen: np.random.Generator, n_null: int) -> tuple[float, np.ndarray]:
    """(observed, null) of the gap histogram's distance from its mean under random orders of
    the batches: independent and identically distributed batches (Poisson, fixed size) are
    exchangeable in time, so the observed order is a uniform draw among the orders and the
    permutation p-value has exact level (the centre comes from orders of its own)."""
    T = len(batches)
    centre = np.mean([_gap_counts(batches, gen.permutation(T)) for _ in range(_CENTRE)],
                     axis=0)
    scale = np.maximum(centre, 1.0)

    def stat(order=None):
        return float(np.sum((_gap_counts(batches, order) - centre) ** 2 / scale))
    return stat(), np.array([stat(gen.permutation(T)) for _ in range(n_null)])


def _observed(batches, population: int, scheme) -> dict:
    """The scheme's statistics on the batches (name → value)."""
    n, T = population, len(batches)
    counts = np.bincount(np.concatenate(batches), minlength=n).astype(float)
    if isinstance(scheme, PoissonScheme):
        sizes = np.array([b.size for b in batches], dtype=float)
        return {"rate": float(counts.sum()),
                "records": float(_sq(counts, T * scheme.q)),
                "batch sizes": float(_sq(sizes, n * scheme.q)),
                "gaps": 0.0}                 # the permutation test's, filled by the audit
    if isinstance(scheme, FixedSizeScheme):
        return {"records": float(_sq(counts, T * scheme.batch / n)), "gaps": 0.0}
    per = _per(n, scheme)
    table = np.zeros((n, per))
    for i, b in enumerate(batches):
        table[b, i % per] += 1
    return {"positions": float(_sq(table, _expected_slots(n, scheme, per, T // per)))}


def _null(scheme, population: int, T: int, gen: np.random.Generator, n_null: int) -> dict:
    """``n_null`` draws of each statistic under the scheme itself, from its sufficient
    statistics: Poisson counts Binomial(T, q) per record and sizes Binomial(n, q) per batch;
    fixed-size counts as sums of multivariate hypergeometric draws; epochs as uniform
    permutations; rounds as uniform k-subsets per record."""
    n = population
    if isinstance(scheme, PoissonScheme):
        q = scheme.q
        counts = gen.binomial(T, q, size=(n_null, n)).astype(float)
        sizes = gen.binomial(n, q, size=(n_null, T)).astype(float)
        return {"rate": counts.sum(axis=1), "records": _sq(counts, T * q, axis=1),
                "batch sizes": _sq(sizes, n * q, axis=1)}
    if isinstance(scheme, FixedSizeScheme):
        b = scheme.batch
        out = np.empty(n_null)
        for i in range(n_null):      # T uniform b-subsets: the b smallest of n uniform keys
            chosen = np.argpartition(gen.random((T, n)), b - 1, axis=1)[:, :b] if b < n \
                else np.tile(np.arange(n), (T, 1))
            c = np.bincount(chosen.reshape(-1), minlength=n)
            out[i] = _sq(c.astype(float), T * b / n)
        return {"records": out}
    per = _per(n, scheme)
    rounds = T // per
    expected = _expected_slots(n, scheme, per, rounds)
    out = np.empty(n_null)
    for i in range(n_null):
        if isinstance(scheme, ShuffleScheme):
            perm = gen.permuted(np.tile(np.arange(n), (rounds, 1)), axis=1)
            slot = np.broadcast_to(np.arange(n) // scheme.batch, perm.shape)
            cells = perm * per + slot
        else:
            chosen = np.argsort(gen.random((rounds, n, per)), axis=2)[:, :, :scheme.k]
            cells = np.arange(n)[None, :, None] * per + chosen
        table = np.bincount(cells.reshape(-1), minlength=n * per).reshape(n, per)
        out[i] = _sq(table.astype(float), expected)
    return {"positions": out}


# ---------------------------------------------------------------------- the audit
def audit_sampling(sampler: Callable, scheme, population: int, n_batches: int = 1000,
                   rng=None, alpha: float = 0.01, *, n_null: int | None = None,
                   timeout=guard.DEFAULT_TIMEOUT,
                   total_timeout=guard.DEFAULT_TOTAL_TIMEOUT) -> SamplingAudit:
    """Test that ``sampler(n_batches, rng)`` draws its batches by ``scheme`` (module doc).

    ``scheme``: :class:`PoissonScheme`, :class:`FixedSizeScheme`, :class:`ShuffleScheme`
    or :class:`AllocationScheme` — or the accountant's sampled event itself
    (:func:`scheme_of`: the audit then tests the very scheme the accountant assumed);
    ``population``: the number of records (indices
    ``0..population-1``). The false-alarm rate is at most ``alpha`` (Bonferroni over the
    scheme's tests, each p-value from ``n_null`` draws under the scheme: default 999 for
    Poisson, whose statistics are simulated from their sufficient statistics, 399 for the
    others, simulated batch set by batch set)."""
    if not callable(sampler):
        raise ParameterError("sampler must be callable as sampler(n_batches, rng)")
    if isinstance(scheme, DpEvent):
        scheme = scheme_of(scheme, population)
    if not isinstance(scheme, SCHEMES):
        raise ParameterError(f"scheme must be one of {', '.join(s.__name__ for s in SCHEMES)},"
                             f" got {type(scheme).__name__}")
    population = check_int("population", population, minimum=2, maximum=10**7)
    n_batches = check_int("n_batches", n_batches, minimum=10, maximum=10**6)
    alpha = check_level("alpha", alpha)
    if n_null is None:          # enough for p at 2/(1 + n_null) to reach the test's level
        n_null = 999 if isinstance(scheme, PoissonScheme) else 399
    n_null = check_int("n_null", n_null, minimum=99, maximum=10**5)
    _check_length(scheme, n_batches, population)
    simulated = not isinstance(scheme, PoissonScheme)     # whole batch sets per null draw
    work_size = population * n_batches * (n_null if simulated else 1)
    if work_size > _MAX_WORK:
        what = "population × n_batches" + (" × n_null" if simulated else "")
        raise ParameterError(f"{what} = {work_size:.3g}: at most {_MAX_WORK:.0e} (minutes of "
                             "work); use fewer batches or a smaller n_null")
    seed = root_seed(rng)
    wrapped = guard.wrap(sampler, "sampler", copy_arg=None)

    def work(_tick):
        users, nulls = np.random.SeedSequence(seed).spawn(2)
        batches = _batches(wrapped(n_batches, np.random.default_rng(users)), n_batches,
                           population)
        violation = _exact_checks(batches, population, scheme)
        if violation is not None:
            return SamplingAudit("fail", False, scheme, {}, violation, alpha, n_batches,
                                 population, seed)
        observed = _observed(batches, population, scheme)
        gen = np.random.default_rng(nulls)
        null = _null(scheme, population, n_batches, gen, n_null)
        if "gaps" in observed:
            observed["gaps"], null["gaps"] = _gap_test(batches, gen, n_null)
        level = alpha / len(observed)
        tests = {name: {"statistic": value, "p_value": _monte_carlo(value, null[name]),
                        "level": level, "what": _WHAT[name]}
                 for name, value in observed.items()}
        failed = any(t["p_value"] <= t["level"] for t in tests.values())
        notes = () if 1 / (1 + n_null) <= level else (
            f"n_null = {n_null} cannot reach p <= {level:.3g}: raise n_null",)
        return SamplingAudit("fail" if failed else "pass", not failed, scheme, tests, None,
                             alpha, n_batches, population, seed, notes=notes)
    return guard.run(work, timeout=timeout, total_timeout=total_timeout, what="the audit",
                     shared=(wrapped,))


def reference_sampler(scheme, population: int) -> Callable:
    """``sampler(n_batches, rng)`` that draws exactly by ``scheme`` — the control an audit of
    a correct sampler is measured on (a batch per call of the generator; shuffling and
    allocation in whole epochs and rounds, cut to ``n_batches``)."""
    if not isinstance(scheme, SCHEMES):
        raise ParameterError(f"scheme must be one of {', '.join(s.__name__ for s in SCHEMES)},"
                             f" got {type(scheme).__name__}")
    n = check_int("population", population, minimum=2)

    def sampler(n_batches, rng):
        if isinstance(scheme, PoissonScheme):
            return [np.flatnonzero(rng.random(n) < scheme.q) for _ in range(n_batches)]
        if isinstance(scheme, FixedSizeScheme):
            return [rng.choice(n, scheme.batch, replace=False) for _ in range(n_batches)]
        out: list = []
        while len(out) < n_batches:
            if isinstance(scheme, ShuffleScheme):
                perm = rng.permutation(n)
                out += [perm[i:i + scheme.batch] for i in range(0, n, scheme.batch)]
            else:
                steps = np.argsort(rng.random((n, scheme.steps)), axis=1)[:, :scheme.k]
                out += [np.flatnonzero((steps == s).any(axis=1)) for s in range(scheme.steps)]
        return out[:n_batches]
    sampler.__name__ = f"reference_{type(scheme).__name__}"
    return sampler


def from_batches(make_batches: Callable) -> Callable:
    """A sampler ``sampler(n_batches, rng)`` from ``make_batches(rng)``, a callable that
    returns an iterable of batches (a PyTorch ``BatchSampler`` re-created per call, a data
    loader's index stream, a generator function): its batches are read in order, and it is
    called again when one iterable runs out, with the same ``rng`` (a library seeding
    itself ignores it)."""
    if not callable(make_batches):
        raise ParameterError("make_batches must be callable as make_batches(rng)")

    def sampler(n_batches, rng):
        out = []
        while len(out) < n_batches:
            before = len(out)
            for b in make_batches(rng):
                out.append(np.asarray(list(b) if not isinstance(b, np.ndarray) else b))
                if len(out) == n_batches:
                    break
            if len(out) == before:
                raise ParameterError("make_batches returned no batch")
        return out
    sampler.__name__ = getattr(make_batches, "__name__", "batches")
    return sampler
