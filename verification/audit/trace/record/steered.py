"""A steered run's hooks: the tracked operations that branch on the noise.

:class:`Steered` is the :class:`~.branches.Steering` a tracked run's tape carries when its
branches are to be read as path conditions; the tracked values (:mod:`.tracked`) hand it
every comparison, selection (``argmax``, ``max``, ``maximum``, ``abs``, ``clip``) and noisy
index they meet.
"""

from __future__ import annotations

import numpy as np

from .affine import _NotAffine
from .branches import (
    COMPARISONS,
    Steering,
    absolute_arrays,
    compare_arrays,
    extreme_arrays,
    selection,
)
from .tracked import Tracked, _form, _val

__all__ = ["Steered"]


_SELECTIONS = {"argmax", "argmin", "max", "amax", "min", "amin", "clip", "searchsorted"}


def _plain_result(x):
    x = np.asarray(x)
    return x[()] if x.ndim == 0 else x


def _steered_ufunc(tape, name, method, inputs):
    """A branching ufunc in a steered run (:mod:`.branches`); None: not one."""
    steer = tape.steering
    try:
        if method == "__call__" and len(inputs) == 2 and name in COMPARISONS:
            fa, fb = (_form(x, True) for x in inputs)
            return _plain_result(compare_arrays(steer, name, fa, fb, _val(inputs[0]),
                                                _val(inputs[1])))
        if method == "__call__" and len(inputs) == 2 and name in ("maximum", "minimum",
                                                                    "fmax", "fmin"):
            fa, fb = (_form(x, True) for x in inputs)
            v, f = extreme_arrays(steer, name in ("maximum", "fmax"), fa, fb,
                                  _val(inputs[0]), _val(inputs[1]))
            return Tracked(v, f, tape)
        if method == "__call__" and len(inputs) == 1 and name in ("absolute", "fabs"):
            v, f = absolute_arrays(steer, inputs[0].form, inputs[0].val)
            return Tracked(v, f, tape)
        if method == "reduce" and len(inputs) == 1 and name in ("maximum", "minimum"):
            return _select(tape, inputs[0], 0, name == "minimum", False, False)
    except _NotAffine:
        return None
    return None


def _select(tape, x, axis, smallest, index, keepdims):
    idx, forms, vals = selection(tape.steering, np.asarray(x.form, dtype=object),
                                 np.asarray(x.val), axis, smallest=smallest)
    if keepdims:
        axes = tuple(range(x.val.ndim)) if axis is None else (axis,)
        idx, forms, vals = (np.expand_dims(a, axes) for a in (idx, forms, vals))
    if index:
        return _plain_result(idx)
    return Tracked(np.asarray(vals), np.asarray(forms, dtype=object), tape)


def _searchsorted(tape, args, kwargs):
    """``np.searchsorted(a, v)`` of plain sorted ``a`` and tracked ``v`` (inverse-CDF
    sampling): one branch per element over the insertion points."""
    a = args[0]
    side = args[2] if len(args) > 2 else kwargs.get("side", "left")
    if isinstance(a, Tracked) or set(kwargs) - {"side"} or len(args) > 3 or \
            side not in ("left", "right"):
        return None
    edges = np.asarray(a).reshape(-1)
    v = args[1]
    forms, vals = np.asarray(v.form, dtype=object), np.asarray(v.val)
    out = np.empty(vals.shape, dtype=np.int64)
    for e, (f, x) in enumerate(zip(forms.reshape(-1), vals.reshape(-1))):
        out.reshape(-1)[e] = tape.steering.insertion(f, edges, side,
                                                     int(np.searchsorted(edges, x, side)))
    return out[()] if out.ndim == 0 else out


def _steered_function(tape, name, args, kwargs):
    """argmax/argmin/max/min/clip of a tracked value in a steered run; None: not handled."""
    if name == "searchsorted" and len(args) > 1 and isinstance(args[1], Tracked):
        return _searchsorted(tape, args, kwargs)
    if not args or not isinstance(args[0], Tracked):
        return None
    x = args[0]
    if name == "clip":
        lo = args[1] if len(args) > 1 else kwargs.get("a_min", kwargs.get("min"))
        hi = args[2] if len(args) > 2 else kwargs.get("a_max", kwargs.get("max"))
        if set(kwargs) - {"a_min", "a_max", "min", "max"}:
            return None
        try:
            out = x
            if lo is not None:
                v, f = extreme_arrays(tape.steering, True, out.form, _form(lo, True), out.val,
                                      _val(lo))
                out = Tracked(v, f, tape)
            if hi is not None:
                v, f = extreme_arrays(tape.steering, False, out.form, _form(hi, True),
                                      out.val, _val(hi))
                out = Tracked(v, f, tape)
        except _NotAffine:
            return None
        return out
    if set(kwargs) - {"axis", "keepdims"} or len(args) > 2:
        return None
    axis = args[1] if len(args) > 1 else kwargs.get("axis")
    if isinstance(axis, Tracked) or (axis is not None and not isinstance(axis, int)):
        return None
    keepdims = bool(kwargs.get("keepdims", False))
    smallest = name in ("argmin", "min", "amin")
    return _select(tape, x, axis, smallest, name.startswith("arg"), keepdims)


class Steered(Steering):
    """A :class:`~.branches.Steering` with the hooks the tracked values call."""

    def ufunc(self, tape, name, method, inputs):
        return _steered_ufunc(tape, name, method, inputs)

    def function(self, tape, name, args, kwargs):
        if name not in _SELECTIONS:
            return None
        return _steered_function(tape, name, args, kwargs)
