"""Neighbour relations and dataset spaces for :func:`verification.audit.search_counterexample`.

* ``"replace-one"`` — d' is d with one record replaced by another record of the domain;
* ``"add-remove"`` — d' is d with one record removed, or one record of the domain added;
* ``"query"`` — d is a vector of answers of sensitivity-1 queries and d' moves every answer
  by at most 1, in the shapes of StatDP's input patterns (:func:`query_patterns`);
* any callable ``d -> iterable of neighbours of d``.

The *domain* of the first two is the set of records seen across the datasets given (the
audit cannot invent records it was not shown).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from privtools.errors import ParameterError

__all__ = ["RELATIONS", "PATTERN_RELATIONS", "pattern_moves", "query_patterns", "replace_one",
           "add_remove", "as_relation", "canonical"]

RELATIONS = ("replace-one", "add-remove", "query")
PATTERN_RELATIONS = ("query", "histogram", "value")
_MAX_DOMAIN = 16


def canonical(d):
    """A hashable form of a dataset (for de-duplicating pairs)."""
    if isinstance(d, np.ndarray):
        return ("array", d.shape, d.dtype.str, d.tobytes())
    if isinstance(d, (list, tuple)):
        return tuple(canonical(x) if isinstance(x, (list, tuple, np.ndarray)) else x
                     for x in d)
    try:
        hash(d)
    except TypeError:
        raise ParameterError(f"datasets must be lists, tuples or numpy arrays, got "
                             f"{type(d).__name__}") from None
    return d


def _records(d) -> list:
    if isinstance(d, np.ndarray):
        return [tuple(r.tolist()) if r.ndim else r.item() for r in d]
    return list(d)


def _rebuild(d, records):
    if isinstance(d, np.ndarray):
        return np.array(records, dtype=d.dtype).reshape((len(records),) + d.shape[1:])
    return tuple(records) if isinstance(d, tuple) else list(records)


def domain_of(datasets) -> list:
    seen = {}
    for d in datasets:
        for r in _records(d):
            seen.setdefault(canonical(r) if isinstance(r, (list, tuple)) else r, r)
    vals = sorted(seen.values(), key=repr)
    if len(vals) > _MAX_DOMAIN:
        idx = np.linspace(0, len(vals) - 1, _MAX_DOMAIN).round().astype(int)
        vals = [vals[i] for i in idx]
    return vals


def replace_one(d, domain) -> list:
    """Every d' that replaces one record of ``d`` by another record of ``domain``."""
    recs = _records(d)
    out = []
    for i, r in enumerate(recs):
        for v in domain:
            if v != r:
                out.append(_rebuild(d, recs[:i] + [v] + recs[i + 1:]))
    return out


def add_remove(d, domain) -> list:
    """Every d' that removes one record of ``d`` or adds one record of ``domain``."""
    recs = _records(d)
    out = [_rebuild(d, recs[:i] + recs[i + 1:]) for i in range(len(recs))]
    out += [_rebuild(d, recs + [v]) for v in domain]
    return out


def pattern_moves(n: int) -> dict[str, list[int]]:
    """StatDP's input patterns as per-entry moves of a base vector of length ``n`` (Ding,
    Wang, Wang, Zhang, Kifer, CCS 2018, Section 5, input generation)."""
    h = n // 2
    return {
        "one below": [-1] + [0] * (n - 1),
        "one above": [1] + [0] * (n - 1),
        "one above rest below": [1] + [-1] * (n - 1),
        "one below rest above": [-1] + [1] * (n - 1),
        "half-half": [1] * h + [-1] * (n - h),
        "all above": [1] * n,
        "all below": [-1] * n,
        "x-shape": [-1] * h + [1] * (n - h),
    }


def query_patterns(d, relation: str = "query") -> list[tuple]:
    """StatDP's candidate neighbours of the vector ``d`` ("one above", "one below", "one
    above rest below", "one below rest above", "half-half", "all above", "all below",
    "X-shape"), each entry moved by at most 1 — usable as ``neighbours=``. On d = (1, …, 1)
    the first seven are StatDP's second inputs; its X-shape pair ((1,…,1,0,…,0),
    (0,…,0,1,…,1)) is the X-shape neighbour of the first. ``relation="histogram"`` or
    ``"value"`` keeps the single-entry moves only. Duplicates are dropped, order kept."""
    if relation not in PATTERN_RELATIONS:
        raise ParameterError(f"relation must be one of {PATTERN_RELATIONS}, got {relation!r}")
    base = tuple(v.item() if hasattr(v, "item") else v for v in d)
    if not base:
        raise ParameterError("d must be a non-empty vector of query answers")
    moves = pattern_moves(len(base))
    names = list(moves) if relation == "query" else ["one below", "one above"]
    out: list[tuple] = []
    for name in names:
        neighbour = tuple(x + s for x, s in zip(base, moves[name]))
        if neighbour not in out:
            out.append(neighbour)
    return out


def as_relation(neighbours, datasets: list) -> Callable[[object], Iterable]:
    """The relation as a callable ``d -> neighbours of d``."""
    if callable(neighbours):
        return neighbours
    if neighbours == "replace-one":
        dom = domain_of(datasets)
        return lambda d: replace_one(d, dom)
    if neighbours == "add-remove":
        dom = domain_of(datasets)
        return lambda d: add_remove(d, dom)
    if neighbours == "query":
        return query_patterns
    raise ParameterError(f"neighbours must be one of {RELATIONS} or a callable d -> "
                         f"neighbours of d, got {neighbours!r}")
