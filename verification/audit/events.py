"""Output events: small immutable values that say which outputs they contain, in words.

An :class:`Event` reads a *view* of the output and keeps a rule on it:

* the whole output (:class:`Whole`): ``kind="set"`` — the output is one of ``values``;
* a number computed from the output — the output itself when it is a scalar
  (:class:`Value`), one coordinate of a vector output (:class:`Column`), or a learned score
  (:class:`Score`, a classifier telling the two datasets apart) — with ``kind="ge"``
  (view ≥ ``threshold``), ``"le"`` (view ≤ ``threshold``) or ``"set"`` (view in a union of
  ``intervals``).

``direction`` says which dataset the event favours (``"d"`` or ``"d_prime"``). Events are
chosen on draws that are never used to test them (``verification.audit.select``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from .outputs import FeatureMap, Outputs, as_outputs

__all__ = ["Event", "Whole", "Value", "Column", "Total", "Count", "Score"]


def _fmt(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.6g}"
    return str(x)


@dataclass(frozen=True)
class Whole:
    """The output itself, compared exactly."""

    def apply(self, raw, outputs: Outputs):
        return outputs.keys()

    def name(self) -> str:
        return "output"


@dataclass(frozen=True)
class Value:
    """A scalar output, as a number."""

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        return outputs.data

    def name(self) -> str:
        return "output"


@dataclass(frozen=True)
class Column:
    """Coordinate ``j`` of a vector output."""

    j: int

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        return outputs.columns()[:, self.j]

    def name(self) -> str:
        return f"output[{self.j}]"


@dataclass(frozen=True)
class Total:
    """The sum of the finite coordinates of a vector output."""

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        m = outputs.columns()
        return np.where(np.isfinite(m), m, 0.0).sum(axis=1)

    def name(self) -> str:
        return "sum(output)"


@dataclass(frozen=True)
class Count:
    """How many coordinates of a vector output equal ``value`` (NaN counts NaNs)."""

    value: float

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        m = outputs.columns()
        hit = np.isnan(m) if math.isnan(self.value) else m == self.value
        return hit.sum(axis=1)

    def name(self) -> str:
        return f"#(output == {_fmt(self.value)})"


@dataclass(frozen=True, eq=False)
class Score:
    """A learned score: ``model.decision_function`` on ``features`` (larger favours d)."""

    learner: str
    features: FeatureMap
    model: object
    terms: tuple = ()        # the largest standardised weights, for reading (logistic only)

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):   # chunks already run in parallel processes
            score = self.model.decision_function(self.features(raw, outputs))
        return np.asarray(score, dtype=np.float64)

    def name(self) -> str:
        if self.terms:
            parts = " ".join(f"{'+' if w >= 0 else '−'} {abs(w):.3g}·{n}"
                             for n, w in self.terms).lstrip("+ ")
            more = " …" if len(self.terms) >= 4 else ""
            return f"{self.learner} score ({parts}{more})"
        return f"{self.learner} score"


@dataclass(frozen=True, eq=False)
class Event:
    """An output event (see the module doc). ``values`` holds the outputs of a ``"set"``
    event on the whole output; ``intervals`` the ``[lo, hi)`` pieces of a ``"set"`` event on
    a number."""

    kind: str
    direction: str
    threshold: float | int | None = None
    values: tuple = ()
    view: object = field(default_factory=Value)
    intervals: tuple = ()
    keys: object = None           # exact keys of ``values`` (numpy array or frozenset)

    def contains(self, raw, outputs: Outputs | None = None) -> np.ndarray:
        """Boolean mask of the draws in the event; ``raw`` is what the mechanism returned."""
        if outputs is None:
            outputs = as_outputs(raw, len(raw))
        v = self.view.apply(raw, outputs)
        if self.kind == "ge":
            return v >= self.threshold
        if self.kind == "le":
            return v <= self.threshold
        if isinstance(self.view, Whole) or self.values:
            keys = self.keys
            if keys is None:
                keys = np.asarray(self.values, dtype=np.int64)
            if isinstance(keys, frozenset):
                return np.fromiter((x in keys for x in v), dtype=bool, count=len(v))
            return np.isin(v, keys)
        lo = np.array([a for a, _ in self.intervals])
        hi = np.array([b for _, b in self.intervals])
        idx = np.searchsorted(lo, v, side="right") - 1
        ok = idx >= 0
        return ok & (v < hi[np.clip(idx, 0, None)])

    def describe(self) -> str:
        name = self.view.name()
        if self.kind == "ge":
            return f"{name} >= {_fmt(self.threshold)}"
        if self.kind == "le":
            return f"{name} <= {_fmt(self.threshold)}"
        if isinstance(self.view, Whole) or self.values:
            vals = self.values
            if len(vals) <= 8:
                return f"{name} in {{" + ", ".join(map(_fmt, vals)) + "}"
            shown = ", ".join(map(_fmt, vals[:3]))
            return (f"{name} is one of {len(vals)} values chosen by estimated likelihood "
                    f"ratio ({shown}, …)")
        pieces = [f"[{_fmt(a)}, {_fmt(b)})" for a, b in self.intervals[:6]]
        more = f" ∪ … ({len(self.intervals)} intervals)" if len(self.intervals) > 6 else ""
        return f"{name} in " + " ∪ ".join(pieces) + more

    def to_dict(self) -> dict:
        out = {"kind": self.kind, "direction": self.direction, "view": self.view.name(),
               "description": self.describe()}
        if self.threshold is not None:
            t = self.threshold
            out["threshold"] = t if not isinstance(t, float) or math.isfinite(t) else str(t)
        if self.values:
            out["n_values"] = len(self.values)
            if len(self.values) <= 64:
                out["values"] = [v if isinstance(v, (int, float, str)) else list(v)
                                 if isinstance(v, tuple) else repr(v) for v in self.values]
        if self.intervals:
            out["intervals"] = [[a, b] for a, b in self.intervals]
        return out
