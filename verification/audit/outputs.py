"""What a user's mechanism returns, read without hand-packing.

``mechanism(dataset, size, rng)`` may return

* ``size`` integers (a 1-D integer array or a list of ints) — kind ``"int"``;
* ``size`` floats (NaN and ±inf are kept as outputs of their own) — kind ``"float"``;
* a ``(size, k)`` array of integers, floats or booleans, or a list of ``size`` equal-length
  numeric tuples — kind ``"array"``;
* ``size`` booleans — kind ``"array"`` with one column;
* a list (or object array) of ``size`` hashable values (tuples, strings, ...) or of
  containers of any shape — dicts, sets, lists of varying length, ragged arrays — kind
  ``"objects"``; containers are put in one canonical hashable spelling
  (:func:`verification.audit.structure.canonical`: a dict's pairs sorted, a set frozen, a
  list a tuple), so equal contents are equal outputs and the events can read their
  structure (keys, lengths, values at a key — at any depth, by the path to a leaf).

:class:`Outputs` holds one batch in that normal form and offers the two readings the
events use: exact *keys* (one hashable per draw, for events that count outcomes) and a
float *feature matrix* (for learned events and thresholds on one coordinate).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from privtools.errors import ParameterError

from .structure import Mapping, canonical

__all__ = ["Outputs", "as_outputs", "FeatureMap"]

_INT64_MAX = np.iinfo(np.int64).max


def _as_objects(out, size: int, who: str) -> np.ndarray:
    arr = np.empty(size, dtype=object)
    for i, v in enumerate(out):
        v = canonical(v)
        try:
            hash(v)
        except TypeError:
            raise ParameterError(f"{who} returned an output that cannot be compared "
                                 f"exactly: {v!r} (type {type(v).__name__}); return "
                                 "numbers, strings, tuples, lists, sets or dicts of them"
                                 ) from None
        arr[i] = v
    return arr


def _numeric(arr: np.ndarray, who: str) -> np.ndarray:
    kind = arr.dtype.kind
    if kind == "b":
        return arr
    if kind in "iu":
        if kind == "u" and arr.size and arr.max() > _INT64_MAX:
            raise ParameterError(f"{who} returned integers beyond int64; map them to a "
                                 "smaller range (e.g. reduce mod m)")
        return arr.astype(np.int64, copy=False)
    if kind == "f":
        return arr.astype(np.float64, copy=False)
    raise ParameterError(f"{who} returned values of dtype {arr.dtype}; expected integers, "
                         "floats, booleans or hashable objects")


def as_outputs(out, size: int, who: str = "mechanism") -> Outputs:
    """Check and normalise what the user's code returned for ``size`` draws."""
    if isinstance(out, Outputs):
        return out
    if isinstance(out, (list, tuple)):
        out = _from_sequence(out, size, who)
        if isinstance(out, Outputs):
            return out
    if not isinstance(out, np.ndarray):
        raise ParameterError(f"{who} must return a numpy array or a list of {size} outputs, "
                             f"got {type(out).__name__}")
    if out.ndim == 0 or out.shape[0] != size or out.ndim > 2:
        raise ParameterError(f"{who} returned shape {out.shape}, expected ({size},) or "
                             f"({size}, k)")
    if out.dtype == object or out.dtype.kind in "USV":
        return _from_object_array(out, size, who)
    return _from_numeric(out, who)


def _from_sequence(out, size: int, who: str):
    """A list or tuple of outputs: as objects, or as the array it reads as."""
    if len(out) != size:
        raise ParameterError(f"{who} returned {len(out)} outputs, expected {size}")
    try:
        arr = np.asarray(out)
    except (ValueError, TypeError):
        arr = None
    if arr is None or arr.dtype == object or arr.dtype.kind in "USV" or arr.ndim > 2:
        return Outputs("objects", _as_objects(out, size, who))
    return arr


def _from_object_array(out: np.ndarray, size: int, who: str) -> Outputs:
    """A 1-D array of objects or strings: integers if they all are, else objects."""
    if out.ndim != 1:
        raise ParameterError(f"{who} returned a 2-D array of dtype {out.dtype}; return a "
                             "numeric array or a list of tuples")
    if out.dtype == object and all(isinstance(v, (int, np.integer))
                                   and not isinstance(v, bool) for v in out):
        try:
            return Outputs("int", out.astype(np.int64))
        except OverflowError:
            raise ParameterError(f"{who} returned integers beyond int64; map them to a "
                                 "smaller range (e.g. reduce mod m)") from None
    return Outputs("objects", _as_objects(out, size, who))


def _from_numeric(out: np.ndarray, who: str) -> Outputs:
    """A numeric array: integers, floats, or vectors (booleans are one-column vectors)."""
    arr = _numeric(out, who)
    if arr.ndim == 2 and arr.shape[1] == 0:
        raise ParameterError(f"{who} returned shape {out.shape}: no columns")
    if arr.ndim == 1 and arr.dtype.kind == "b":
        arr = arr[:, None]
    if arr.ndim == 2:
        return Outputs("array", arr)
    return Outputs("int" if arr.dtype.kind == "i" else "float", arr)


@dataclass(frozen=True, eq=False)
class Outputs:
    """One batch of outputs in normal form: ``kind`` and ``data`` (see the module doc)."""

    kind: str
    data: np.ndarray

    @property
    def n(self) -> int:
        """The number of draws."""
        return int(self.data.shape[0])

    @property
    def signature(self) -> tuple:
        """What must agree between batches of one mechanism: kind, columns, dtype kind."""
        if self.kind == "array":
            return ("array", self.data.shape[1], self.data.dtype.kind)
        return (self.kind,)

    def describe_type(self) -> str:
        """The type of the outputs in words ("integers", "vectors of 3 floats")."""
        if self.kind == "array":
            names = {"b": "booleans", "i": "integers", "f": "floats"}
            return f"vectors of {self.data.shape[1]} {names[self.data.dtype.kind]}"
        if self.kind == "objects" and self.n:
            first = self.data[0]
            for kind, name in ((Mapping, "dicts"), (frozenset, "sets"),
                               (tuple, "sequences")):
                if isinstance(first, kind):
                    return name
        return {"int": "integers", "float": "floats", "objects": "hashable values"}[self.kind]

    def __getitem__(self, idx) -> Outputs:
        return Outputs(self.kind, self.data[idx])

    def to_objects(self) -> Outputs:
        """These outputs as canonical objects (a vector becomes a tuple): how outputs of
        different shapes on the two datasets are compared."""
        if self.kind == "objects":
            return self
        arr = np.empty(self.n, dtype=object)
        arr[:] = [canonical(v) for v in self.data]
        return Outputs("objects", arr)

    def concat(self, others) -> Outputs:
        """These outputs followed by ``others`` (of the same type)."""
        return Outputs(self.kind, np.concatenate([self.data] + [o.data for o in others]))

    # ------------------------------------------------------------ exact keys
    def keys(self) -> np.ndarray:
        """One exact key per draw: the integer itself, or the bytes of the (canonical) value
        as a numpy void scalar; object outputs keep the Python value."""
        d = self.data
        if self.kind in ("int", "objects"):
            return d
        if d.dtype.kind == "f":
            d = np.where(np.isnan(d), np.nan, d + 0.0)  # one NaN, no −0.0
        d = np.ascontiguousarray(d.reshape(self.n, -1))
        return d.view(np.dtype((np.void, d.shape[1] * d.itemsize))).ravel()

    def decode(self, key):
        """The readable output behind a key from :meth:`keys`."""
        if self.kind == "int":
            return int(key)
        if self.kind == "objects":
            return key
        raw = np.frombuffer(bytes(key), dtype=self.data.dtype)
        vals = [v.item() for v in raw]
        return vals[0] if self.kind == "float" else tuple(vals)

    def columns(self) -> np.ndarray:
        """The outputs as an (n, k) float matrix (non-finite values kept)."""
        if self.kind == "objects":
            raise ParameterError("outputs that are hashable objects have no numeric columns; "
                                 "pass features= to map them to numbers")
        return self.data.reshape(self.n, -1).astype(np.float64, copy=False)


@dataclass(frozen=True)
class FeatureMap:
    """Numbers a classifier reads from outputs: the user's ``features(outputs)`` (called on
    the outputs exactly as the mechanism returned them) or the output's own columns, and in
    both cases NaN / +inf / −inf replaced by 0 plus one indicator column per non-finite
    marker seen when the map was fitted."""

    user: Callable | None
    flags: tuple = ()          # (column, marker) pairs with marker in "nan", "+inf", "-inf"
    width: int = 0

    @staticmethod
    def raw_matrix(user, raw, outputs: Outputs) -> np.ndarray:
        """The numbers before cleaning: ``user(raw)`` or the output's columns."""
        if user is None:
            return outputs.columns()
        try:
            f = np.asarray(user(raw), dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise ParameterError(f"features must return numbers: {exc}") from None
        if f.ndim == 1:
            f = f[:, None]
        if f.ndim != 2 or f.shape[0] != outputs.n:
            raise ParameterError(f"features returned shape {f.shape}, expected "
                                 f"({outputs.n}, f)")
        return f

    @classmethod
    def fit(cls, user, m: np.ndarray) -> FeatureMap:
        """The map for raw matrices like ``m`` (one indicator per non-finite marker seen)."""
        flags = []
        bad = ~np.isfinite(m)
        for j in (map(int, np.flatnonzero(bad.any(axis=0))) if m.size else ()):
            col = m[:, j]
            if np.isnan(col).any():
                flags.append((j, "nan"))
            if np.isposinf(col).any():
                flags.append((j, "+inf"))
            if np.isneginf(col).any():
                flags.append((j, "-inf"))
        return cls(user, tuple(flags), m.shape[1])

    def clean(self, m: np.ndarray) -> np.ndarray:
        """A raw matrix with non-finite values replaced by 0 and the indicators appended."""
        if m.shape[1] != self.width:
            raise ParameterError(f"features returned {m.shape[1]} columns on one batch and "
                                 f"{self.width} on another")
        test = {"nan": np.isnan, "+inf": np.isposinf, "-inf": np.isneginf}
        extra = [test[mark](m[:, j]) for j, mark in self.flags]
        out = np.where(np.isfinite(m), m, 0.0)
        if extra:
            out = np.column_stack([out] + [e.astype(np.float64) for e in extra])
        return out

    def __call__(self, raw, outputs: Outputs) -> np.ndarray:
        return self.clean(self.raw_matrix(self.user, raw, outputs))

    def names(self) -> list[str]:
        base = [f"f{j}" if self.user else f"x[{j}]" for j in range(self.width)]
        return base + [f"{base[j]} is {mark}" for j, mark in self.flags]
