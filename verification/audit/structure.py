"""Outputs of any shape users return — dicts, sets, variable-length lists, ragged arrays —
and the views that read their structure.

:func:`canonical` turns one output into a hashable value with one spelling per content: a
dict becomes a :class:`Mapping` (its ``(key, value)`` pairs sorted by the key's repr), a set
a ``frozenset``, a list, tuple or array a tuple, numpy scalars Python numbers — recursively.
Two outputs with the same content are then the same key, whatever order the mechanism
built them in, so the exact-outcome events count them; and the views below give events on
the structure even when no output ever repeats:

* :class:`Length` — the number of items (keys of a dict, elements of a set or sequence);
* :class:`KeySet` — which keys (or set elements) are present, as one categorical value;
* :class:`Has` — whether one key (or element) is present;
* :class:`At` — the number stored at one key (or sequence position); NaN where it is
  absent or not a number, and NaN is in no threshold event.

Every view reads nested outputs to their leaves: a key may be a :class:`Path` of keys, one
per level (``output['stats']['max']`` of a dict of dicts, ``output[2]['count']`` of a list
of dicts, ``output[1][0]`` of a tuple of arrays), and :func:`probe_keys` proposes the leaves
of every depth, so a value nested anywhere in an output is an event like a top-level one.

A histogram that releases the noisy counts of the keys its data holds leaks through its key
set (ε = ∞ whatever the noise): :class:`Has` on the extra key is an event of probability 1
on one dataset and 0 on the other, found from a few hundred draws.
"""

from __future__ import annotations

import hashlib
import math
from dataclasses import dataclass

import numpy as np

__all__ = ["Mapping", "Path", "canonical", "is_structured", "items", "leaves", "probe_keys",
           "Length", "KeySet", "Has", "At"]

_MAX_DEPTH = 16            # levels of nesting a leaf path follows
_RANK_DRAWS = 2000         # draws per dataset that rank numeric leaves when there are many


class Mapping(tuple):
    """A dict output in canonical form: its ``(key, value)`` pairs, sorted by ``repr(key)``
    (a tuple, so hashable; printed as a dict)."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "{" + ", ".join(f"{k!r}: {v!r}" for k, v in self) + "}"


def canonical(value):
    """The hashable canonical form of one output (see the module doc); values that are
    neither containers nor numpy scalars are returned as they are."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, dict):
        pairs = ((canonical(k), canonical(v)) for k, v in value.items())
        return Mapping(sorted(pairs, key=lambda kv: repr(kv[0])))
    if isinstance(value, (set, frozenset)):
        return frozenset(canonical(x) for x in value)
    if isinstance(value, (list, tuple)):
        return tuple(canonical(x) for x in value)
    if isinstance(value, np.ndarray):
        return tuple(canonical(x) for x in value.tolist())
    if isinstance(value, np.generic):
        return value.item()
    return value


def items(value):
    """The ``(key, value)`` pairs of a canonical container (elements of a set map to True,
    positions of a sequence to their values); None for anything else."""
    if isinstance(value, Mapping):
        return value
    if isinstance(value, frozenset):
        return [(x, True) for x in value]
    if isinstance(value, tuple):
        return list(enumerate(value))
    return None


class Path(tuple):
    """The keys leading to a nested value, one per level (a tuple, so hashable; printed as
    ``['stats']['max']``). A plain key is a top-level one."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "".join(f"[{k!r}]" for k in self)


def leaves(value, path: tuple = ()):
    """``(path, leaf)`` for every leaf of a canonical output: the values below its
    containers at every depth (a set's elements lead to True), in a deterministic order; a
    value that is no container is its own leaf at the empty path."""
    p = items(value)
    if p is None or len(path) >= _MAX_DEPTH:
        yield path, value
        return
    for k, x in p:
        yield from leaves(x, path + (k,))


def _key(path: tuple):
    """A leaf path as the views take it: a top-level key as itself, a deeper one as a
    :class:`Path`."""
    return path[0] if len(path) == 1 else Path(path)


def is_structured(data: np.ndarray, probe: int = 200) -> bool:
    """Do (most of) these canonical outputs have a structure to read?"""
    head = data[:probe]
    return head.size > 0 and sum(items(v) is not None for v in head) * 2 >= head.size


def _key_text(keys) -> str:
    return "{" + ", ".join(sorted(map(repr, keys))) + "}"


def _code(text: str) -> int:
    """A stable int64 code for a text (the same in every process)."""
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "little",
                          signed=True)


def _lookup(value, key) -> tuple[bool, object]:
    """(whether ``value`` holds ``key`` — a :class:`Path` is followed level by level —, what
    it stores there)."""
    for step in (key if isinstance(key, Path) else (key,)):
        p = items(value)
        if p is None:
            return False, None
        for k, x in p:
            if k == step:
                value = x
                break
        else:
            return False, None
    return True, value


def _number(v) -> float:
    if isinstance(v, bool):
        return float(v)
    if isinstance(v, (int, float)):
        return float(v)
    return math.nan


@dataclass(frozen=True)
class Length:
    """The number of items of a dict, set or sequence output (−1 for anything else)."""

    structural = True

    def apply(self, raw, outputs) -> np.ndarray:
        """The lengths, one per draw."""
        return np.fromiter((len(p) if (p := items(v)) is not None else -1
                            for v in outputs.data), dtype=np.int64, count=outputs.n)

    def name(self) -> str:
        """How the view is named in an event's description."""
        return "len(output)"


@dataclass(frozen=True, eq=False)
class KeySet:
    """Which keys (or set elements) an output holds, as one categorical code per draw;
    ``names`` maps the codes seen when the event was chosen to readable key sets."""

    structural = True

    names: tuple = ()

    @staticmethod
    def text(value) -> str:
        """The key set of one output in words."""
        p = items(value)
        return "not a container" if p is None else _key_text(k for k, _ in p)

    def apply(self, raw, outputs) -> np.ndarray:
        """The key-set codes, one per draw."""
        return np.fromiter((_code(self.text(v)) for v in outputs.data), dtype=np.int64,
                           count=outputs.n)

    def label(self, code: int) -> str:
        """A code in words."""
        return dict(self.names).get(int(code), f"key set #{int(code) & 0xffff:04x}")

    def name(self) -> str:
        """How the view is named in an event's description."""
        return "the keys of output"

    def phrase(self, event) -> str:
        """The event in words."""
        vals = event.values
        if len(vals) == 1:
            return f"the output's keys are {vals[0]}"
        shown = " or ".join(vals[:3]) + (f" or … ({len(vals)} key sets)" if len(vals) > 3
                                         else "")
        return f"the output's keys are {shown}"


@dataclass(frozen=True)
class Has:
    """Whether an output holds ``key`` (a dict key, a set element or a sequence position)."""

    structural = True

    key: object

    def apply(self, raw, outputs) -> np.ndarray:
        """1 where the key is present, 0 where not."""
        return np.fromiter((_lookup(v, self.key)[0] for v in outputs.data),
                           dtype=np.int64, count=outputs.n)

    def label(self, code: int) -> str:
        """A code in words."""
        return "present" if code else "absent"

    def name(self) -> str:
        """How the view is named in an event's description."""
        if isinstance(self.key, Path):
            return f"output{self.key!r}"
        return f"key {self.key!r} of output"

    def phrase(self, event) -> str:
        """The event in words."""
        codes = set(np.asarray(event.keys).tolist()) if event.keys is not None else set()
        what = f"output{self.key!r}" if isinstance(self.key, Path) else None
        if codes == {1}:
            return f"{what} is present" if what else f"the output holds {self.key!r}"
        if codes == {0}:
            return f"{what} is absent" if what else f"the output lacks {self.key!r}"
        return f"{self.name()} is present or absent"


@dataclass(frozen=True)
class At:
    """The number an output stores at ``key`` (NaN where absent or not a number)."""

    structural = True

    key: object

    def apply(self, raw, outputs) -> np.ndarray:
        """The values at the key, one per draw."""
        return _values(outputs.data, self.key)

    def name(self) -> str:
        """How the view is named in an event's description."""
        if isinstance(self.key, Path):
            return f"output{self.key!r}"
        return f"output[{self.key!r}]"


def probe_keys(a_data, b_data, limit: int = 16) -> tuple[list, list]:
    """Keys worth a view, from selection outputs of both datasets: those whose presence
    rates differ most, and the numeric leaves (at most ``limit`` each). Top-level keys and
    the leaves of every depth (:func:`leaves`) are both candidates. When more than
    ``limit`` leaves hold numbers, the ones kept are those whose values on the two datasets
    differ most (a two-sample Kolmogorov–Smirnov distance on the first draws), then the
    most frequent: read from selection draws only, like every choice of the event."""
    seen_a: dict = {}
    seen_b: dict = {}
    numeric: dict = {}
    for data, seen in ((a_data, seen_a), (b_data, seen_b)):
        for v in data:
            p = items(v)
            if p is None:
                continue
            found = {k for k, _ in p}
            for path, x in leaves(v):
                found.add(_key(path))
                if not math.isnan(_number(x)):
                    key = _key(path)
                    numeric[key] = numeric.get(key, 0) + 1
            for k in found:
                seen[k] = seen.get(k, 0) + 1
    keys = set(seen_a) | set(seen_b)
    na, nb = max(len(a_data), 1), max(len(b_data), 1)
    gap = sorted(keys, key=lambda k: (-abs(seen_a.get(k, 0) / na - seen_b.get(k, 0) / nb),
                                      repr(k)))
    gap = [k for k in gap if seen_a.get(k, 0) / na != seen_b.get(k, 0) / nb][:limit]
    common = sorted(numeric, key=lambda k: (-numeric[k], repr(k)))
    if len(common) > limit:
        ks = _separation(a_data[:_RANK_DRAWS], b_data[:_RANK_DRAWS], common)
        common = sorted(common, key=lambda k: (-ks[k], -numeric[k], repr(k)))
    return gap, common[:limit]


def _separation(a_data, b_data, keys) -> dict:
    """The Kolmogorov–Smirnov distance between the numbers at each key on the two datasets,
    or the gap between the rates at which it holds no number, whichever is larger."""
    return {k: _ks(_values(a_data, k), _values(b_data, k)) for k in keys}


def _values(data, key) -> np.ndarray:
    """The number at ``key`` of each output (NaN where absent or not a number)."""
    return np.fromiter((_number(x) if ok else math.nan
                        for ok, x in (_lookup(v, key) for v in data)),
                       dtype=float, count=len(data))


def _ks(va: np.ndarray, vb: np.ndarray) -> float:
    if va.size == 0 or vb.size == 0:
        return 0.0
    gap = abs(float(np.isnan(va).mean() - np.isnan(vb).mean()))
    xa, xb = np.sort(va[~np.isnan(va)]), np.sort(vb[~np.isnan(vb)])
    if xa.size and xb.size:
        grid = np.concatenate([xa, xb])
        fa = np.searchsorted(xa, grid, side="right") / xa.size
        fb = np.searchsorted(xb, grid, side="right") / xb.size
        gap = max(gap, float(np.max(np.abs(fa - fb))))
    return gap
