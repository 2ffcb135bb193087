"""Drawing from a user's mechanism: in chunks, each with its own seed, on any executor.

Chunk ``j`` of stage ``s`` on dataset side ``i`` is drawn with the generator of
``SeedSequence(seed, spawn_key=(s, i, j))``, so the draws — and every verdict computed from
them — are the same whether the chunks run in this process, in local processes or on a
Dask cluster. Test-stage chunks return only the count of draws in the event, so a
10⁸-draw audit moves a few integers per chunk, not its outputs.

``executor``: ``None`` or ``"serial"`` (this process), ``"processes"`` (a local
``ProcessPoolExecutor``; the mechanism must then be picklable — a module-level function),
any object with a ``concurrent.futures``-style ``map``, or a ``distributed.Client``.
"""

from __future__ import annotations

import os
import pickle
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool

import numpy as np

from privtools.errors import ParameterError, UserCodeError
from privtools.usercode import drain_mutations, record_mutations

from .outputs import as_outputs

__all__ = ["CHUNK", "Draws", "root_seed", "resolve_executor"]

CHUNK = 1 << 16
SELECT, TEST, SEARCH, POISSON, SEQUENTIAL = 0, 1, 2, 3, 4


def root_seed(rng) -> int:
    """The integer seed an audit runs from: ``rng`` itself when it is an int, otherwise one
    drawn from the generator (so any run can be repeated with ``rng=seed``)."""
    if isinstance(rng, (int, np.integer)) and not isinstance(rng, bool):
        if rng < 0:
            raise ParameterError(f"rng must be a non-negative seed, got {rng}")
        return int(rng)
    if rng is None:
        return int(np.random.SeedSequence().generate_state(2, np.uint64)[0] >> np.uint64(1))
    if isinstance(rng, np.random.Generator):
        return int(rng.integers(0, 2**63 - 1))
    if isinstance(rng, np.random.SeedSequence):
        return int(rng.generate_state(2, np.uint64)[0] >> np.uint64(1))
    raise ParameterError(f"rng must be None, an int seed, a SeedSequence or a numpy "
                         f"Generator, got {type(rng).__name__}")


class _Serial:
    def map(self, fn, *iterables):
        return map(fn, *iterables)


def resolve_executor(executor):
    """(executor, owned): something with ``map``, and whether this module must close it."""
    if executor is None or executor == "serial":
        return _Serial(), None
    if executor == "processes":
        pool = ProcessPoolExecutor(max_workers=os.cpu_count() or 1)
        return pool, pool
    if hasattr(executor, "get_executor") and hasattr(executor, "scheduler_info"):
        return executor.get_executor(), None       # a distributed.Client
    if hasattr(executor, "map"):
        return executor, None
    raise ParameterError("executor must be None, 'serial', 'processes', a concurrent.futures "
                         f"executor or a distributed.Client, got {executor!r}")


def _chunk(task):
    """Draw one chunk; return its outputs (``event`` None) or its count in ``event``, and
    the notes of inputs the mechanism mutated (so a worker process hands them back)."""
    mechanism, dataset, seed, key, size, event = task
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=key)))
    raw = mechanism(dataset, size, rng)
    try:
        out = as_outputs(raw, size)
    except ParameterError as exc:   # name the user's function the outputs came from
        name = getattr(mechanism, "name", None)
        if not isinstance(name, str):
            raise
        raise ParameterError(f"{exc} (returned by {name})") from None
    if event is None:
        return (raw, out), drain_mutations()
    return (int(np.count_nonzero(event.contains(raw, out))), out.signature), drain_mutations()


def _shaped(signature) -> bool:
    """Vectors and objects may differ in shape between calls (a ragged output): they are
    then compared as objects (:meth:`Outputs.to_objects`)."""
    return signature[0] in ("array", "objects")


class Draws:
    """The chunked draws of one audit (``seed``, ``executor``, ``progress(k)``)."""

    def __init__(self, mechanism: Callable, seed: int, executor=None,
                 progress: Callable[[int], None] | None = None, chunk: int = CHUNK):
        self.mechanism = mechanism
        self.seed = seed
        self.executor, self._owned = resolve_executor(executor)
        self.progress = progress
        self.chunk = chunk
        self.signature = None

    def close(self):
        if self._owned is not None:
            self._owned.shutdown()
            self._owned = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _tasks(self, dataset, n, stage, side, event, offset=0):
        sizes = [min(self.chunk, n - s) for s in range(0, n, self.chunk)]
        return [(self.mechanism, dataset, self.seed, (stage, side, offset + j), k, event)
                for j, k in enumerate(sizes)], sizes

    def _run(self, tasks):
        try:
            for (res, notes), task in zip(self.executor.map(_chunk, tasks), tasks):
                record_mutations(notes)
                if self.progress is not None:
                    self.progress(task[4])
                yield res
        except BrokenProcessPool as exc:
            name = getattr(self.mechanism, "name", None) or "the mechanism"
            raise UserCodeError(f"{name} ended a worker process abruptly (os._exit, a signal "
                                "or a crash); the audit has no verdict", name,
                                "ended a worker process") from exc
        except (pickle.PicklingError, AttributeError, TypeError) as exc:
            if "pickle" in str(exc).lower():
                raise ParameterError(
                    f"the mechanism (or its features) cannot be sent to worker processes "
                    f"({exc}); define it at module level, or run with executor='serial' "
                    "or a Dask client (which pickles closures)") from None
            raise

    def _check(self, signature, what):
        if self.signature is None:
            self.signature = signature
        elif signature != self.signature and not (_shaped(signature)
                                                  and _shaped(self.signature)):
            raise ParameterError(f"mechanism returned {what} on one call and "
                                 f"{self.signature} on another; every call must return the "
                                 "same kind of output")

    def sample(self, dataset, n: int, stage: int, side: int, offset: int = 0):
        """Draw ``n`` outputs: (Outputs, raw chunks, chunk sizes)."""
        tasks, sizes = self._tasks(dataset, n, stage, side, None, offset)
        raws, outs = [], []
        for raw, out in self._run(tasks):
            self._check(out.signature, out.signature)
            raws.append(raw)
            outs.append(out)
        return outs[0].concat(outs[1:]), raws, sizes

    def count(self, dataset, n: int, stage: int, side: int, event, offset: int = 0) -> int:
        """Draw ``n`` outputs (chunks numbered from ``offset``) and return how many fall in
        ``event``."""
        tasks, _ = self._tasks(dataset, n, stage, side, event, offset)
        total = 0
        for k, signature in self._run(tasks):
            self._check(signature, signature)
            total += k
        return total

    def poisson(self, lam: float, side: int, look: int) -> int:
        """A Poisson(``lam``) test-split size, from its own seed (independent of the draws)."""
        ss = np.random.SeedSequence(self.seed, spawn_key=(POISSON, side, look))
        return int(np.random.Generator(np.random.PCG64(ss)).poisson(lam))

    def n_chunks(self, n: int) -> int:
        return -(-n // self.chunk)
