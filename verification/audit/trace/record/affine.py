"""Exact affine forms: what a tracked value knows about its dependence on the draws.

A :class:`Lin` is ``c + Σ a[u]·u`` with rational ``c`` and ``a`` over atoms ``u`` — a draw
``(call, element)`` or a node's value ``("w", node, element)`` — or a non-finite ``c``
(±inf, NaN) whatever the atoms, which then absorbs them as IEEE arithmetic does. Its
arithmetic is exact where the operation is affine and raises ``_NotAffine`` elsewhere (a
product of two noisy values, a division by a noisy value or by 0, a non-finite factor of a
noisy value): the caller then records a :class:`Node` (:mod:`.tracked`).
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

__all__ = ["Lin", "Node", "LATTICE_OPS"]

#: Node ops whose result is integer-valued wherever their input is finite.
LATTICE_OPS = frozenset({"rint", "floor", "ceil", "trunc", "fix", "round", "around",
                         "astype-int", "__round__", "__floor__", "__ceil__", "__trunc__"})

class _Memo:
    """Results of affine operations kept while a block of runs repeats them (the explorer's
    steered runs of one program): ``table`` maps an operation on its operands — a form by
    identity (the table holds it, so the identity is not reused), a constant by value — to
    its result. Forms are immutable, so a kept result is the result. None: off."""

    table: dict | None = None


MEMO = _Memo()


def _memo_key(x):
    if isinstance(x, Lin):
        return ("c", x.c) if not x.a else ("id", id(x))
    if isinstance(x, float) and x != x:
        return ("nan", id(x))
    return ("n", type(x).__name__, x)


class _NotAffine(Exception):
    """An operation the forms cannot follow exactly: it becomes a node."""


# ====================================================================== affine forms
def _number(x):
    """A plain number as an exact Fraction, or a float ±inf/NaN; _NotAffine otherwise."""
    if isinstance(x, Lin):
        raise _NotAffine
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, bool):
        return Fraction(int(x))
    if isinstance(x, numbers.Integral):
        return Fraction(int(x))
    if isinstance(x, Fraction):
        return x
    if isinstance(x, float):
        return Fraction(x) if math.isfinite(x) else x
    raise _NotAffine


def _finite(c) -> bool:
    return isinstance(c, Fraction)


class Lin:
    """``c + Σ a[u]·u``: an exact affine form in the atoms ``u`` (``c`` a Fraction, or a
    float ±inf/NaN when the value is non-finite whatever the atoms: then ``a`` is empty)."""

    __slots__ = ("c", "a")

    def __init__(self, c, a=None):
        self.c = c
        self.a = a if a is not None else {}

    # -- reading
    @property
    def finite(self) -> bool:
        return _finite(self.c)

    def __repr__(self) -> str:
        return f"Lin({self.c}, {self.a})"

    def fixing(self, values: dict) -> Lin:
        """The form with the atoms of ``values`` (atom → exact number) put in as numbers."""
        if not any(u in values for u in self.a):
            return self
        c, a = self.c, {}
        for u, k in self.a.items():
            if u in values:
                c = c + k * values[u]
            else:
                a[u] = k
        return Lin(c, a)

    # -- arithmetic (numpy's object loops call these)
    def _plus(self, o, sign):
        if MEMO.table is not None:
            key = ("+", _memo_key(self), _memo_key(o), sign)
            hit = MEMO.table.get(key)
            if hit is None:
                hit = MEMO.table[key] = (self._plus_exact(o, sign), self, o)
            return hit[0]
        return self._plus_exact(o, sign)

    def _plus_exact(self, o, sign):
        if isinstance(o, Lin):
            oc, oa = o.c, o.a
        else:
            oc, oa = _number(o), {}
        if not (self.finite and _finite(oc)):
            return Lin(float(self.c) + sign * float(oc))
        a = dict(self.a)
        for u, v in oa.items():
            w = a.get(u, 0) + sign * v
            if w:
                a[u] = w
            else:
                a.pop(u, None)
        return Lin(self.c + sign * oc, a)

    def __add__(self, o):
        return self._plus(o, 1)

    __radd__ = __add__

    def __sub__(self, o):
        return self._plus(o, -1)

    def __rsub__(self, o):
        return (-self)._plus(o, 1)

    def __neg__(self):
        return self._scaled(Fraction(-1))

    def __pos__(self):
        return self

    def _scaled(self, k):
        if MEMO.table is not None:
            key = ("*", _memo_key(self), _memo_key(k))
            hit = MEMO.table.get(key)
            if hit is None:
                hit = MEMO.table[key] = (self._scaled_exact(k), self, k)
            return hit[0]
        return self._scaled_exact(k)

    def _scaled_exact(self, k):
        if not _finite(k):
            if self.a:
                raise _NotAffine           # ±inf or NaN times a noisy value
            return Lin(float(self.c) * k)
        if not self.finite:
            return Lin(self.c * float(k))
        if k == 0:
            return Lin(Fraction(0))
        return Lin(self.c * k, {u: v * k for u, v in self.a.items()})

    def __mul__(self, o):
        if isinstance(o, Lin):
            if not o.a:
                return self._scaled(o.c)
            if not self.a:
                return o._scaled(self.c)
            raise _NotAffine               # a product of two noisy values
        return self._scaled(_number(o))

    __rmul__ = __mul__

    def __truediv__(self, o):
        k = o.c if isinstance(o, Lin) and not o.a else _number(o)
        if isinstance(o, Lin) and o.a:
            raise _NotAffine
        if not _finite(k) or k == 0:
            raise _NotAffine
        return self._scaled(1 / k)

    def __rtruediv__(self, o):
        raise _NotAffine


def _const(x) -> Lin:
    memo = MEMO.table
    if memo is None or not isinstance(x, (int, float, np.integer, np.floating)):
        return Lin(_number(x))
    key = ("const", type(x).__name__, x)
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = Lin(_number(x))
    return hit


_lift = np.frompyfunc(lambda x: x if isinstance(x, Lin) else _const(x), 1, 1)


def _lift_array(x) -> np.ndarray:
    """A plain value as forms (constants)."""
    arr = np.asarray(x)
    if arr.dtype.kind not in "biuf":
        raise _NotAffine
    out = _lift(arr)
    return np.asarray(out, dtype=object) if isinstance(out, np.ndarray) else \
        np.array(out, dtype=object)


@dataclass
class Node:
    """One operation the forms do not follow: ``op``, the forms of its tracked ``inputs``
    (object arrays of :class:`Lin`), its plain arguments ``params`` (compared exactly
    between runs), the ``shape`` of its result and ``where`` it ran."""

    index: int
    op: str
    inputs: tuple
    params: tuple
    shape: tuple
    where: str

    @property
    def lattice(self) -> bool:
        return self.op in LATTICE_OPS

    def describe(self) -> str:
        return f"{self.op} at {self.where}"
