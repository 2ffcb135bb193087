"""Neighbouring datasets: the relations every part of privtools names, declared once.

* ``"replace-one"`` — d' is d with one record replaced by another record (bounded DP);
* ``"add-remove"`` — d' is d with one record removed or one record added (unbounded DP);
* ``"query"`` — d is a vector of answers of sensitivity-1 queries and d' moves every answer
  by at most 1, in the shapes of StatDP's input patterns (:func:`query_patterns`);
* ``"linf"`` / ``"l1"`` — query-answer vectors with ‖d − d'‖∞ <= 1 / ‖d − d'‖₁ <= 1;
* any callable ``d -> iterable of neighbours of d``.

One contract for every dataset shape: a dataset is a list, a tuple or a numpy array; its
*records* are its items along the first axis (:func:`records`: a row of a 2-D array is one
record, read as a tuple), and a dataset rebuilt from records keeps the container, the dtype
and the trailing shape (:func:`rebuild`). The audit's search enumerates neighbours
(:func:`replace_one`, :func:`add_remove`, over a *domain*: the records seen across the
datasets given — the audit cannot invent records it was not shown), the hypothesis
strategies of :mod:`privtools.testing.strategies` draw them, the judge checks a given pair
(:func:`distance`, ``verification.audit.check_pair``), and the accountants name the relation
their guarantees are for (:attr:`privtools.accounting.Accountant.neighbouring`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

import numpy as np

from privtools.errors import ParameterError

__all__ = ["REPLACE_ONE", "ADD_REMOVE", "RELATIONS", "PATTERN_RELATIONS", "PAIR_RELATIONS",
           "PATTERN_NAMES", "pattern_moves", "query_patterns", "pattern_neighbours",
           "replace_one", "add_remove", "as_relation", "canonical", "distance", "records",
           "rebuild", "domain_of", "as_pairs"]

REPLACE_ONE, ADD_REMOVE = "replace-one", "add-remove"
#: The relations the audit's search enumerates.
RELATIONS = (REPLACE_ONE, ADD_REMOVE, "query")
#: The relations a given pair can be checked against (the search's, and the bounded changes
#: of query vectors, ‖d − d'‖∞ <= 1 and ‖d − d'‖₁ <= 1, that the strategies also draw).
PAIR_RELATIONS = RELATIONS + ("linf", "l1")
PATTERN_RELATIONS = ("query", "histogram", "value")
#: StatDP's input patterns, in the order its generator lists them (:func:`pattern_moves`).
PATTERN_NAMES = ("one below", "one above", "one above rest below", "one below rest above",
                 "half-half", "all above", "all below", "x-shape")
#: the patterns a relation admits: every entry may move (‖·‖∞ ≤ 1) or one entry (‖·‖₁ ≤ 1)
_PATTERNS_OF = {"query": PATTERN_NAMES, "linf": PATTERN_NAMES, "histogram": PATTERN_NAMES[:2],
                "value": PATTERN_NAMES[:2], "l1": PATTERN_NAMES[:2]}
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


def records(d) -> list:
    """The records of a dataset: its items along the first axis (a row of a 2-D array is
    one record, a tuple; a 0-d item is a Python scalar)."""
    if isinstance(d, np.ndarray):
        return [tuple(r.tolist()) if r.ndim else r.item() for r in d]
    if hasattr(d, "iloc"):
        raise ParameterError("pandas DataFrames: use privtools.testing.strategies."
                             "dataframe_rows (records are rows of a frame)")
    return list(d)


def rebuild(d, recs):
    """A dataset like ``d`` (same container, dtype and trailing shape) holding ``recs``."""
    if isinstance(d, np.ndarray):
        return np.array(recs, dtype=d.dtype).reshape((len(recs),) + d.shape[1:])
    return tuple(recs) if isinstance(d, tuple) else list(recs)




def domain_of(datasets) -> list:
    """The records seen across ``datasets`` (at most 16, spread over their sorted order)."""
    seen = {}
    for d in datasets:
        for r in records(d):
            seen.setdefault(canonical(r) if isinstance(r, (list, tuple)) else r, r)
    vals = sorted(seen.values(), key=repr)
    if len(vals) > _MAX_DOMAIN:
        idx = np.linspace(0, len(vals) - 1, _MAX_DOMAIN).round().astype(int)
        vals = [vals[i] for i in idx]
    return vals


def replace_one(d, domain) -> list:
    """Every d' that replaces one record of ``d`` by another record of ``domain``."""
    recs = records(d)
    out = []
    for i, r in enumerate(recs):
        for v in domain:
            if v != r:
                out.append(rebuild(d, recs[:i] + [v] + recs[i + 1:]))
    return out


def add_remove(d, domain) -> list:
    """Every d' that removes one record of ``d`` or adds one record of ``domain``."""
    recs = records(d)
    out = [rebuild(d, recs[:i] + recs[i + 1:]) for i in range(len(recs))]
    out += [rebuild(d, recs + [v]) for v in domain]
    return out


def pattern_moves(n: int) -> dict[str, list[int]]:
    """StatDP's input patterns as per-entry moves of a base vector of length ``n`` (Ding,
    Wang, Wang, Zhang, Kifer, CCS 2018, Section 5, input generation), keyed by the names of
    :data:`PATTERN_NAMES` in that order."""
    h = n // 2
    moves = ([-1] + [0] * (n - 1), [1] + [0] * (n - 1), [1] + [-1] * (n - 1),
             [-1] + [1] * (n - 1), [1] * h + [-1] * (n - h), [1] * n, [-1] * n,
             [-1] * h + [1] * (n - h))
    return dict(zip(PATTERN_NAMES, moves))


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


def pattern_neighbours(d, relation: str = "query") -> list[tuple[str, object]]:
    """StatDP's patterns (:func:`pattern_moves`) applied to the dataset ``d`` as
    ``(name, d')`` pairs, ``d'`` rebuilt in ``d``'s container (a list stays a list, an array
    keeps its dtype when the moved values fit it) — the candidate neighbours the searches
    screen first. ``relation``: ``"query"`` / ``"linf"`` (every entry may move: all eight
    patterns) or ``"histogram"`` / ``"value"`` / ``"l1"`` (one entry: "one below" and "one
    above"). Only a non-empty 1-D vector of real numbers has patterns: anything else (records
    that are tuples, strings, a 2-D array, an unknown relation) gives ``[]``. Patterns that
    give the same vector are listed once (the first name kept)."""
    names = _PATTERNS_OF.get(relation) if isinstance(relation, str) else None
    if names is None or isinstance(d, (str, bytes)):
        return []
    if isinstance(d, np.ndarray) and (d.ndim != 1 or d.dtype.kind not in "iuf"):
        return []
    try:
        recs = records(d)
    except ParameterError:
        return []
    if not recs or not all(isinstance(x, (int, float, np.integer, np.floating))
                           and not isinstance(x, (bool, np.bool_)) for x in recs):
        return []
    moves = pattern_moves(len(recs))
    out, seen = [], set()
    for name in names:
        moved = [x + s for x, s in zip(recs, moves[name])]
        if isinstance(d, np.ndarray) and d.dtype.kind == "u" and min(moved) < 0:
            neighbour = np.asarray(moved)            # an unsigned vector moved below 0
        else:
            neighbour = rebuild(d, moved)
        key = tuple(moved)
        if key not in seen:
            seen.add(key)
            out.append((name, neighbour))
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


def _numbers(d, who: str) -> np.ndarray:
    try:
        v = np.asarray(records(d), dtype=float)
    except (TypeError, ValueError):
        raise ParameterError(f"{who} must be a vector of numbers for this relation") from None
    return v.reshape(len(v), -1)


def distance(d, d_prime, relation: str) -> tuple[bool, str]:
    """Whether (``d``, ``d_prime``) is a neighbouring pair under the named ``relation`` (one
    of :data:`PAIR_RELATIONS`), and the distance found, in words: records replaced
    (replace-one, in order), records added or removed (add-remove, as multisets), the
    largest change of one answer (query, linf) or the sum of the changes (l1)."""
    a, b = records(d), records(d_prime)
    if relation == "replace-one":
        if len(a) != len(b):
            return False, (f"d has {len(a)} records and d' has {len(b)}: replace-one pairs "
                           "have the same size")
        k = sum(canonical([x]) != canonical([y]) for x, y in zip(a, b))
        return k == 1, f"{k} records differ"
    if relation == "add-remove":
        from collections import Counter

        ca, cb = Counter(canonical([x]) for x in a), Counter(canonical([x]) for x in b)
        k = sum(((ca - cb) + (cb - ca)).values())
        return k == 1, f"{k} records added or removed"
    if relation in ("query", "linf", "l1"):
        if len(a) != len(b):
            return False, f"d has {len(a)} entries and d' has {len(b)}"
        x, y = _numbers(d, "d"), _numbers(d_prime, "d_prime")
        if x.shape != y.shape:
            return False, f"entries of shapes {x.shape[1:]} and {y.shape[1:]}"
        diff = np.abs(x - y)
        if relation == "l1":
            k = float(diff.sum())
            return k <= 1, f"‖d − d'‖₁ = {k:g}"
        k = float(diff.max()) if diff.size else 0.0
        return k <= 1, f"‖d − d'‖∞ = {k:g}"
    raise ParameterError(f"relation must be one of {', '.join(PAIR_RELATIONS)} or a callable "
                         f"d -> neighbours of d, got {relation!r}")


def as_pairs(pairs, name: str = "pairs") -> list:
    """Stated neighbouring pairs, checked: an iterable of ``(d, d_prime)`` pairs, returned
    as a list of tuples (``name`` is the parameter named in the error)."""
    if isinstance(pairs, (str, bytes)) or not hasattr(pairs, "__iter__"):
        raise ParameterError(f"{name} must be an iterable of (d, d_prime) pairs, got "
                             f"{type(pairs).__name__}")
    out = []
    for p in pairs:
        if not isinstance(p, (list, tuple)) or len(p) != 2:
            raise ParameterError(f"{name} must hold (d, d_prime) pairs, got {p!r}")
        out.append(tuple(p))
    return out
