"""An output of any shape as its structure and its leaves.

A mechanism may return a number, an array, a list or tuple, a dict, a set, or nests of
them. :func:`flatten` reads it as

* a **structure** — the containers, their lengths, a dict's key set, a set's members, and
  the kind of every leaf — compared exactly between runs: a structure that differs between
  ``d`` and ``d'`` under identical randomness and does not move with the noise is a release
  without noise (a leaked key set, a length, a count);
* **leaves** — the scalars at their paths (``"[0]"``, ``"['alice']"``, ``"[2][1]"``), numbers
  read at their exact binary value, other scalars (strings, None, bytes) compared as they
  are.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from .tracked import Tracked

__all__ = ["Tree", "flatten", "same_leaf", "same_tree", "leaf_fraction"]

_MAX_LEAVES = 1 << 16


@dataclass(frozen=True)
class Tree:
    """``structure`` (a hashable description), ``paths`` and ``values`` of the leaves
    (numbers as Python int/float/bool, other scalars as they are) and, for a tracked run,
    each leaf's exact ``forms`` (a :class:`~.tracked.Lin`, or None for a plain leaf)."""

    structure: tuple
    paths: tuple
    values: tuple
    forms: tuple | None = None

    def __len__(self) -> int:
        return len(self.paths)


def _key_text(k) -> str:
    return repr(k.item() if isinstance(k, np.generic) else k)


def _sort_key(k):
    return (type(k).__name__, repr(k))


def _scalar(x):
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, bool):
        return "bool", x
    if isinstance(x, numbers.Integral):
        return "int", int(x)
    if isinstance(x, numbers.Real):
        return "float", float(x)
    if isinstance(x, numbers.Complex):
        return "complex", complex(x)
    return type(x).__name__, x


class _Walk:
    """One walk over an output, collecting its structure and leaves (:func:`flatten`)."""

    def __init__(self):
        self.structure: list = []
        self.paths: list = []
        self.values: list = []
        self.forms: list = []

    def leaf(self, path: str, value, form) -> None:
        self.paths.append(path)
        self.values.append(value)
        self.forms.append(form)

    def walk(self, x, path: str) -> None:
        if len(self.paths) > _MAX_LEAVES:
            raise ValueError(f"the output has more than {_MAX_LEAVES} leaves")
        if isinstance(x, np.ndarray) and x.ndim == 0:      # a 0-d array is its number
            x = x[()]
        if isinstance(x, Tracked) and x.val.ndim == 0:
            kind, v = _scalar(x.val[()])
            self.structure.append((path, kind))
            self.leaf(path or "output", v, x.form[()])
        elif isinstance(x, (np.ndarray, Tracked)):
            self.array(x, path)
        elif isinstance(x, dict):
            keys = sorted(x, key=_sort_key)
            self.structure.append((path, "dict", tuple(_key_text(k) for k in keys)))
            for k in keys:
                self.walk(x[k], f"{path}[{_key_text(k)}]")
        elif isinstance(x, (set, frozenset)):
            members = tuple(sorted(_key_text(k) for k in x))
            self.structure.append((path, type(x).__name__, members))
        elif isinstance(x, (list, tuple)):
            self.structure.append((path, type(x).__name__, len(x)))
            for i, v in enumerate(x):
                self.walk(v, f"{path}[{i}]")
        else:
            kind, v = _scalar(x)
            self.structure.append((path, kind))
            self.leaf(path or "output", v, None)

    def array(self, x, path: str) -> None:
        """An array (plain or tracked): its elements are leaves, or walked when objects."""
        arr = x.val if isinstance(x, Tracked) else x
        kind = _kind(arr)
        self.structure.append((path, "array", arr.shape, kind))
        if kind == "O":
            for idx in np.ndindex(arr.shape):
                self.walk(arr[idx], f"{path}[{', '.join(map(str, idx))}]")
            return
        flat = arr.reshape(-1)
        fflat = x.form.reshape(-1) if isinstance(x, Tracked) else None
        for i, idx in enumerate(np.ndindex(arr.shape)):
            item, form = flat[i], None if fflat is None else fflat[i]
            if isinstance(item, Tracked):          # an object array of tracked numbers
                item, form = item.val[()], item.form[()]
            _, v = _scalar(item)
            self.leaf(f"{path}[{', '.join(map(str, idx))}]", v, form)


def flatten(out) -> Tree:
    """The :class:`Tree` of an output (see the module doc)."""
    w = _Walk()
    w.walk(out, "")
    return Tree(tuple(w.structure), tuple(w.paths), tuple(w.values), tuple(w.forms))


def _kind(arr: np.ndarray) -> str:
    """An array's dtype kind; an object array of numbers and tracked numbers reads as the
    kind numpy gives those numbers (a tracked run builds object arrays where a plain run
    builds numeric ones)."""
    if arr.dtype.kind != "O" or arr.size == 0:
        return arr.dtype.kind
    items = [v.val[()] if isinstance(v, Tracked) and v.val.ndim == 0 else v
             for v in arr.reshape(-1)]
    if all(isinstance(v, (numbers.Number, np.generic)) for v in items):
        return np.asarray(items).dtype.kind
    return "O"


def same_leaf(a, b) -> bool:
    """Exact equality of two leaf values (NaN equal to NaN)."""
    if isinstance(a, float) and isinstance(b, float):
        return a == b or (math.isnan(a) and math.isnan(b))
    try:
        return bool(a == b) and type(a) is type(b)
    except Exception:
        return a is b


def leaf_fraction(v) -> Fraction | None:
    """A finite numeric leaf at its exact binary value (None for anything else)."""
    if isinstance(v, bool) or not isinstance(v, (int, float)):
        return None
    if isinstance(v, float) and not math.isfinite(v):
        return None
    return Fraction(v)


def same_tree(a: Tree | None, b: Tree | None) -> bool:
    """Equal structure and equal leaves (NaN equal to NaN)."""
    if a is None or b is None:
        return a is b
    return a.structure == b.structure and len(a) == len(b) and all(
        same_leaf(x, y) for x, y in zip(a.values, b.values))
