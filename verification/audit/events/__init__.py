"""Output events: small immutable values that say which outputs they contain, in words.

An :class:`Event` reads a *view* of the output and keeps a rule on it:

* the whole output (:class:`Whole`): ``kind="set"`` — the output is one of ``values``;
* a number computed from the output — the output itself when it is a scalar
  (:class:`Value`), one coordinate of a vector output (:class:`Column`), or a learned score
  (:class:`Score`, a classifier telling the two datasets apart) — with ``kind="ge"``
  (view ≥ ``threshold``), ``"le"`` (view ≤ ``threshold``) or ``"set"`` (view in a union of
  ``intervals``).

Bit-level views read the IEEE-754 binary64 encoding of a float output (the output itself,
or coordinate ``j`` of a vector output; :mod:`verification.audit.events.bits`): its lowest mantissa
bits (:class:`LowBits`), its binade (:class:`Binade`), the finest power-of-two lattice that
holds it (:class:`Lattice`) and representation classes — binade with low bits or with
trailing zeros (:class:`BitClass`). They see what real arithmetic cannot: a float mechanism
whose outputs on one dataset lie on a coarser lattice than on the other (Mironov, "On
significance of the least significant bits for differential privacy", CCS 2012).

``direction`` says which dataset the event favours (``"d"`` or ``"d_prime"``). Events are
chosen on draws that are never used to test them (``verification.audit.events.select``).
"""

from __future__ import annotations

import math
import pickle
from dataclasses import dataclass, field

import numpy as np

from ..outputs import FeatureMap, Outputs, as_outputs
from . import bits as _bits

__all__ = ["Event", "Whole", "Value", "Column", "Total", "Count", "Votes", "Score",
           "LowBits", "Binade", "Lattice", "BitClass"]


def _fmt(x) -> str:
    if isinstance(x, (float, np.floating)):
        return f"{float(x):.6g}"
    return str(x)


@dataclass(frozen=True)
class Whole:
    """The output itself, compared exactly."""

    def apply(self, raw, outputs: Outputs):
        """The outputs as hashable keys (one per draw)."""
        return outputs.keys()

    def name(self) -> str:
        """How the view is named in an event's description."""
        return "output"


@dataclass(frozen=True)
class Value:
    """A scalar output, as a number."""

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        """The scalar outputs as an array."""
        return outputs.data

    def name(self) -> str:
        """How the view is named in an event's description."""
        return "output"


@dataclass(frozen=True)
class Column:
    """Coordinate ``j`` of a vector output."""

    j: int

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        """Column ``j`` of the vector outputs."""
        return outputs.columns()[:, self.j]

    def name(self) -> str:
        """How the view is named in an event's description."""
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


@dataclass(frozen=True)
class Votes:
    """How many coordinates of a vector output fall on the favoured side of their cut:
    ``x_j > cuts[j]`` where ``up[j]``, ``x_j < cuts[j]`` elsewhere (coordinates with no
    cut are not counted). For independent coordinates each moved by a small shift under
    heavy noise — a parallel composition — this count is nearly the privacy loss itself."""

    cuts: tuple
    up: tuple

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        """The vote counts, one per draw."""
        m = outputs.columns()
        c = np.asarray(self.cuts, dtype=float)
        u = np.asarray(self.up, dtype=bool)
        with np.errstate(invalid="ignore"):
            hit = np.where(u, m > c, m < c) & ~np.isnan(c)
        return hit.sum(axis=1)

    def name(self) -> str:
        """How the view is named in an event's description."""
        return "#(coordinates beyond their cut)"


class _Pickled:
    """A pickled object, unpickled on first use (attribute access reads through)."""

    def __init__(self, data: bytes):
        self.data = data
        self._obj = None

    def __getattr__(self, attr):
        if attr.startswith("__") or attr in ("data", "_obj"):
            raise AttributeError(attr)
        if self._obj is None:
            self._obj = pickle.loads(self.data)
        return getattr(self._obj, attr)

    def __reduce__(self):
        return _Pickled, (self.data,)


@dataclass(frozen=True, eq=False)
class Score:
    """A learned score: ``model.decision_function`` on ``features`` (larger favours d)."""

    learner: str
    features: FeatureMap
    model: object
    terms: tuple = ()        # the largest standardised weights, for reading (logistic only)

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        """The learned model's decision score of each draw."""
        from threadpoolctl import threadpool_limits

        with threadpool_limits(limits=1):   # chunks already run in parallel processes
            score = self.model.decision_function(self.features(raw, outputs))
        return np.asarray(score, dtype=np.float64)

    def __reduce__(self):
        # the trained model travels as bytes and is rebuilt on first use: reading an audit's
        # result back from its guarded process does not import scikit-learn there
        model = self.model.data if isinstance(self.model, _Pickled) else pickle.dumps(self.model)
        return Score, (self.learner, self.features, _Pickled(model), self.terms)

    def name(self) -> str:
        """How the view is named in an event's description (the leading terms of the score)."""
        if self.terms:
            parts = " ".join(f"{'+' if w >= 0 else '−'} {abs(w):.3g}·{n}"
                             for n, w in self.terms).lstrip("+ ")
            more = " …" if len(self.terms) >= 4 else ""
            return f"{self.learner} score ({parts}{more})"
        return f"{self.learner} score"


# ----------------------------------------------------------------- bit-level views
def _listed(values, limit: int = 8) -> str:
    if len(values) <= limit:
        return "{" + ", ".join(values) + "}"
    return "{" + ", ".join(values[:3]) + ", …}"


class _FloatBits:
    """What the bit views share: the floats they read (the output, or coordinate ``j``) and
    the phrase of a set event over labelled codes."""

    def floats(self, outputs: Outputs) -> np.ndarray:
        if self.j is None:
            return outputs.data
        return outputs.columns()[:, self.j]

    def where(self) -> str:
        return "the output" if self.j is None else f"output[{self.j}]"

    def _set_phrase(self, event, verb: str, noun: str) -> str:
        vals = tuple(event.values)
        if len(vals) <= 8:
            return f"{self.name()} {verb} in {_listed(vals)}"
        return (f"{self.name()} {verb} one of {len(vals)} {noun} chosen by estimated "
                f"likelihood ratio ({', '.join(vals[:3])}, …)")


@dataclass(frozen=True)
class LowBits(_FloatBits):
    """The ``k`` lowest bits of the mantissa field of a float output (``k = 1``: its parity),
    a categorical view; NaN and ±inf are values of their own."""

    k: int
    j: int | None = None

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        """The lowest ``k`` mantissa bits of each float output, as codes."""
        return _bits.low_bits(self.floats(outputs), self.k)

    def name(self) -> str:
        """How the view is named in an event's description."""
        if self.k == 1:
            return f"the lowest mantissa bit of {self.where()}"
        return f"the lowest {self.k} mantissa bits of {self.where()}"

    def label(self, code: int) -> str:
        """A code as a bit pattern (or the name of a special value)."""
        return _bits.special_label(code) or format(int(code), f"0{self.k}b")

    def phrase(self, event) -> str:
        """The event in words."""
        if self.k == 1 and tuple(event.values) in (("1",), ("0",)):
            parity = "odd" if event.values[0] == "1" else "even"
            return f"the mantissa of {self.where()} is {parity}"
        return self._set_phrase(event, "are" if self.k > 1 else "is", "patterns")


@dataclass(frozen=True)
class Binade(_FloatBits):
    """The signed binade ``±[2^e, 2^(e+1))`` of a float output (zero, −0.0, NaN and ±inf are
    values of their own), a categorical view."""

    j: int | None = None

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        """The binade (exponent class) of each float output, as codes."""
        return _bits.binade_code(self.floats(outputs))

    def name(self) -> str:
        """How the view is named in an event's description."""
        return f"the binade of {self.where()}"

    def label(self, code: int) -> str:
        """A binade code in words."""
        return _bits.binade_label(code)

    def phrase(self, event) -> str:
        """The event in words."""
        return self._set_phrase(event, "is", "binades")


@dataclass(frozen=True)
class Lattice(_FloatBits):
    """The exponent ``t`` of the lowest set bit of a float output — the largest ``t`` with the
    output in ``2^t·ℤ`` (``+inf`` for zero, NaN for non-finite outputs, which no event of
    this view contains). ``t ≥ a`` reads "the output is a multiple of 2^a"."""

    j: int | None = None

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        """The position of the lowest set bit of each float output (its lattice)."""
        return _bits.lowest_set_bit(self.floats(outputs))

    def name(self) -> str:
        """How the view is named in an event's description."""
        return f"the lowest set bit of {self.where()}"

    def phrase(self, event) -> str:
        """The event in words."""
        where = self.where()
        if event.kind == "ge":
            t = event.threshold
            return f"{where} is zero" if math.isinf(t) else \
                f"{where} is a multiple of 2^{int(t)}"
        if event.kind == "le":
            return f"{where} is not a multiple of 2^{int(event.threshold) + 1}"
        pieces = []
        for lo, hi in event.intervals[:6]:
            if math.isinf(hi):
                pieces.append(f"t >= {int(lo)}")
            elif hi - lo <= 1:
                pieces.append(f"t = {int(lo)}")
            else:
                pieces.append(f"{int(lo)} <= t <= {int(math.ceil(hi)) - 1}")
        more = f" or … ({len(event.intervals)} ranges)" if len(event.intervals) > 6 else ""
        return f"{self.name()} is 2^t with " + " or ".join(pieces) + more


@dataclass(frozen=True)
class BitClass(_FloatBits):
    """A representation class of a float output: its signed binade together with either its
    ``low`` lowest mantissa bits or the count of trailing zero bits of its mantissa field
    capped at ``zeros`` (the lattice it lies on within its binade). Sets of classes seen
    under one dataset and (almost) never under the other are the "reachable from d" events
    of a float mechanism."""

    low: int = 0
    zeros: int = 0
    j: int | None = None

    def apply(self, raw, outputs: Outputs) -> np.ndarray:
        """The joint class (binade and low bits) of each float output, as codes."""
        x = self.floats(outputs)
        b = _bits.binade_code(x)
        if self.low:
            code = b * (1 << self.low) + _bits.low_bits(x, self.low)
        else:
            code = b * 64 + np.minimum(_bits.trailing_zeros(x), self.zeros)
        bad = b < 0
        code[bad] = b[bad]
        return code

    def name(self) -> str:
        """How the view is named in an event's description."""
        if self.low:
            return f"the binade and lowest {self.low} mantissa bits of {self.where()}"
        return f"the binade and trailing zero bits of {self.where()}"

    def label(self, code: int) -> str:
        """A class code in words."""
        code = int(code)
        if code < 0:
            return _bits.special_label(code)
        if self.low:
            b, r = divmod(code, 1 << self.low)
            return f"{_bits.binade_label(b)} ending in {format(r, f'0{self.low}b')}"
        b, z = divmod(code, 64)
        zs = f">= {z}" if z >= self.zeros else str(z)
        return f"{_bits.binade_label(b)} with {zs} trailing zero bit{'' if z == 1 else 's'}"

    def phrase(self, event) -> str:
        """The event in words."""
        return self._set_phrase(event, "are", "classes")


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
        if outputs.kind != "objects" and (getattr(self.view, "structural", False) or
                                          isinstance(self.keys, frozenset)):
            outputs = outputs.to_objects()   # chosen on outputs of different shapes
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
        """The event in words ("output[0] >= 3", "the mantissa of output is odd")."""
        phrase = getattr(self.view, "phrase", None)
        if phrase is not None:
            return phrase(self)
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
        """The event as JSON-ready values."""
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
