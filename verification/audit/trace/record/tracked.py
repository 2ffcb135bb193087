"""Values that carry their dependence on the draws: what the trace knows, not what it infers.

Under tracking, the recording generator hands the mechanism :class:`Tracked` values instead
of plain numbers and arrays. A tracked value is a concrete value (``val``, exactly what
numpy would have computed) beside an exact *form* for each element: a :class:`Lin`, the
affine function ``c + Σ a·u`` of the atoms ``u`` it depends on, with rational ``c`` and
``a`` (the real-arithmetic value; the float value is a fixed rounding of it).

* The atoms are the draws themselves (``(call, element)``: a location law's draw minus its
  location, any other draw as it is) and the values of *nodes*.
* Affine operations keep the forms exact: ``+ − ×c ÷c``, sums, means, cumulative sums,
  indexing, reshapes, transposes, concatenation and stacking, ``np.where`` and ``dot`` on
  plain (data) operands, casts that keep every value.
* Every other operation that touches a tracked value — rounding, clipping, ``abs``,
  ``min``/``max``, a product of two noisy values, casts to an integer or to float32, ``%``,
  comparisons, numpy functions the tracker does not know — becomes a :class:`Node`: its op
  name, the forms of its tracked inputs and its plain arguments are recorded, and its
  result is a fresh atom. What a node computes is never assumed; the trace only uses that
  its result is a fixed function of its inputs (post-processing).
* A branch on a tracked value (``bool()``, ``if``, ``while``, ``min``/``max`` of Python
  numbers) is recorded as a *path condition*; ``float()``, ``int()``, ``.item()``,
  ``.tolist()``, ``math.*``, printing and writing into a plain array are recorded as
  *escapes*: past either, the dependence is no longer known, and the trace certifies
  nothing.

Every record carries the user's file and line where it happened. The forms mirror the
values' shapes through numpy's object arrays, so every structural operation numpy has is
applied to the forms by numpy itself.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .affine import LATTICE_OPS, Lin, Node, _lift_array, _NotAffine

__all__ = ["Lin", "Node", "Tape", "Tracked", "LATTICE_OPS", "TRACKED"]

_HERE = __file__
_MAX_ELEMENTS = 1 << 16          # a tracked array larger than this is not tracked


# ====================================================================== the tape
def _where() -> str:
    """The user's file and line that made the current record."""
    f = sys._getframe(1)
    while f is not None:
        name = f.f_code.co_filename
        if name != _HERE and "/numpy/" not in name and "/privtools/noise/" not in name \
                and not name.endswith("recorder.py"):
            return f"{name.rsplit('/', 1)[-1]}:{f.f_lineno}"
        f = f.f_back
    return "?"


@dataclass
class Tape:
    """What one tracked run recorded beside its values."""

    nodes: list = field(default_factory=list)
    conditions: list = field(default_factory=list)
    escapes: list = field(default_factory=list)
    broken: str | None = None
    steering: object = None          # a steered.Steered: branches become path conditions
    data_nodes: set = field(default_factory=set)   # nodes computed from the data alone

    @property
    def clean(self) -> bool:
        """No branch on a tracked value and no escape: every value's dependence is known."""
        return not self.conditions and not self.escapes and self.broken is None

    def condition(self, what: str) -> None:
        if len(self.conditions) < 64:
            self.conditions.append(f"{what} at {_where()}")

    def escape(self, what: str) -> None:
        if len(self.escapes) < 64:
            self.escapes.append(f"{what} at {_where()}")

    def node(self, op: str, inputs, params, val) -> Tracked | object:
        """A node computing ``val`` from ``inputs`` (tracked) and ``params`` (plain)."""
        if isinstance(val, tuple):
            return tuple(self.node(f"{op}[{i}]", inputs, params, v) for i, v in enumerate(val))
        arr = np.asarray(val)
        if arr.dtype.kind not in "biuf" or arr.size > _MAX_ELEMENTS:
            self.escape(f"{op} (a result the trace does not follow)")
            return val
        k = len(self.nodes)
        forms = tuple(np.array(t.form, dtype=object, copy=True) for t in inputs)
        if getattr(self.steering, "symbolic", False) and all(
                _of_data(u, self.data_nodes) for f in forms for lin in f.reshape(-1)
                for u in lin.a):
            self.data_nodes.add(k)
        self.nodes.append(Node(k, op, forms, tuple(_frozen(p) for p in params), arr.shape,
                               _where()))
        form = np.empty(arr.shape, dtype=object)
        flat = form.reshape(-1)
        for e in range(arr.size):
            flat[e] = Lin(Fraction(0), {("w", k, e): Fraction(1)})
        return Tracked(np.array(arr, copy=True), form, self)


def _of_data(u, data_nodes) -> bool:
    """Whether atom ``u`` is a datum (``("q", i)``) or a node computed from data alone."""
    return u[0] == "q" or (u[0] == "w" and u[1] in data_nodes)


#: The place of a tracked argument among a node's plain ``params``.
TRACKED = ("tracked",)


def _frozen(p):
    if isinstance(p, Tracked) or p is TRACKED:
        return TRACKED
    if isinstance(p, np.ndarray):
        return p.copy()
    if isinstance(p, (list, tuple)):
        try:
            return np.array(p)
        except Exception:
            return repr(p)
    return p


# ====================================================================== tracked values






def _val(x):
    if isinstance(x, Tracked):
        return x.val
    if isinstance(x, (list, tuple)):
        return type(x)(_val(v) for v in x)
    return x


def _form(x, lift: bool):
    if isinstance(x, Tracked):
        return x.form
    if isinstance(x, (list, tuple)):
        return type(x)(_form(v, lift) for v in x)
    return _lift_array(x) if lift else x


def _tracked_in(args) -> list:
    out = []
    for a in args:
        if isinstance(a, Tracked):
            out.append(a)
        elif isinstance(a, (list, tuple)):
            out += _tracked_in(a)
        elif isinstance(a, dict):
            out += _tracked_in(list(a.values()))
    return out


def _tape_of(args) -> Tape:
    return _tracked_in(args)[0].tape


# numpy functions applied to the forms as they are applied to the values
_STRUCTURAL = {
    "reshape", "ravel", "transpose", "squeeze", "expand_dims", "atleast_1d", "atleast_2d",
    "atleast_3d", "broadcast_to", "swapaxes", "moveaxis", "flip", "fliplr", "flipud",
    "roll", "copy", "sum", "mean", "cumsum", "concatenate", "stack", "hstack", "vstack",
    "column_stack", "append", "diff", "trace", "asanyarray", "tile", "repeat", "take",
    "split", "array_split", "hsplit", "vsplit", "delete", "real", "dot", "matmul", "inner",
    "outer", "average", "where", "nansum", "cross", "tensordot", "einsum", "rot90",
    "block", "dstack", "insert", "pad",
}
# arguments that must stay plain (the noise must not choose an index or a weight)
_PLAIN_ARGS = {"take": (1,), "repeat": (1,), "tile": (1,), "roll": (1,), "delete": (1,),
               "insert": (1,), "where": (0,), "average": ("weights",),
               "split": (1,), "array_split": (1,), "reshape": (1,)}
# of these, numpy mixes several operands: every operand becomes forms
_LIFTED = {"concatenate", "stack", "hstack", "vstack", "column_stack", "append", "where",
           "block", "dstack", "insert", "pad"}
_METADATA = {"shape", "ndim", "size", "result_type", "iscomplexobj", "isrealobj",
             "zeros_like", "ones_like", "empty_like", "may_share_memory", "shares_memory",
             "min_scalar_type", "can_cast", "iterable", "isscalar"}
_AFFINE_UFUNCS = {"add", "subtract", "negative", "positive", "multiply", "divide",
                  "true_divide"}
_DROP = ("dtype", "out", "casting", "order", "subok", "signature")
# keywords the forms do not follow (a masked ufunc leaves entries unset; an initial value
# is not a form): an operation that uses them is a node
_NOT_FOLLOWED = ("where", "initial")


def _arg_is_plain(name, args, kwargs) -> bool:
    spec = _PLAIN_ARGS.get(name, ())
    for p in spec:
        if isinstance(p, int) and p < len(args) and _tracked_in([args[p]]):
            return False
        if isinstance(p, str) and _tracked_in([kwargs.get(p)]):
            return False
    return True


def _wrap_result(val, form, tape):
    if isinstance(val, (list, tuple)):
        return type(val)(_wrap_result(v, f, tape) for v, f in zip(val, form))
    arr = np.asarray(val)
    f = np.asarray(form, dtype=object)
    if f.shape != arr.shape:
        raise _NotAffine
    return Tracked(arr, f, tape)


class Tracked:
    """A numpy value with exact forms (see the module doc). It answers numpy's protocols
    (``__array_ufunc__``, ``__array_function__``) and the common ``ndarray`` methods; it has
    no ``__array__``, so numpy builds object arrays of tracked scalars from it rather than
    dropping the forms."""

    __slots__ = ("val", "form", "tape")
    __array_priority__ = 1000
    __hash__ = None

    def __init__(self, val, form, tape):
        self.val = val
        self.form = form
        self.tape = tape

    # ------------------------------------------------------------------ metadata
    @property
    def shape(self):
        return self.val.shape

    @property
    def ndim(self):
        return self.val.ndim

    @property
    def size(self):
        return self.val.size

    @property
    def dtype(self):
        return self.val.dtype

    @property
    def T(self):
        return np.transpose(self)

    @property
    def real(self):
        return self

    def __len__(self):
        return len(self.val)

    def __iter__(self):
        for i in range(len(self.val)):
            yield self[i]

    # ------------------------------------------------------------------ escapes
    def _escape(self, what):
        self.tape.escape(what)

    def __float__(self):
        self._escape("float() of a noisy value")
        return float(self.val)

    def __int__(self):
        self._escape("int() of a noisy value")
        return int(self.val)

    def __index__(self):
        steer = self.tape.steering
        if steer is not None and self.val.size == 1 and self.val.dtype.kind in "iu":
            return steer.index(self.form.reshape(-1)[0], int(self.val.reshape(-1)[0]))
        self._escape("a noisy value used as an index")
        return int(self.val)

    def __complex__(self):
        self._escape("complex() of a noisy value")
        return complex(self.val)

    def item(self, *args):
        self._escape(".item() of a noisy value")
        return self.val.item(*args)

    def tolist(self):
        self._escape(".tolist() of a noisy value")
        return self.val.tolist()

    def tobytes(self, *a, **k):
        self._escape(".tobytes() of a noisy value")
        return self.val.tobytes(*a, **k)

    def __repr__(self):
        self._escape("the text of a noisy value")
        return repr(self.val)

    def __str__(self):
        self._escape("the text of a noisy value")
        return str(self.val)

    def __format__(self, spec):
        self._escape("the text of a noisy value")
        return format(self.val.item() if self.val.ndim == 0 else self.val, spec)

    def __bool__(self):
        steer = self.tape.steering
        if steer is not None and self.val.size == 1:
            v = self.val.reshape(-1)[0]
            return steer.compare("not_equal", self.form.reshape(-1)[0], int(v > 0) - int(v < 0))
        self.tape.condition("a branch on a noisy value")
        return bool(self.val)

    def __reduce__(self):
        if self._noisy():
            self._escape("a noisy value pickled")
        return (np.asarray, (self.val,))

    def __deepcopy__(self, memo):
        return Tracked(self.val.copy(), self.form.copy(), self.tape)

    def _noisy(self) -> bool:
        """Whether any element depends on a draw or a node (not the data alone)."""
        return any(u[0] != "q" for lin in self.form.reshape(-1) for u in lin.a)

    # ------------------------------------------------------------------ indexing
    def __getitem__(self, idx):
        if _tracked_in([idx]) and self.tape.steering is not None and \
                isinstance(idx, Tracked) and idx.val.ndim == 0:
            idx = idx.__index__()
        if _tracked_in([idx]):
            return self.tape.node("index by a noisy value", [self], (), self.val[_val(idx)])
        return Tracked(np.asarray(self.val[idx]), np.asarray(self.form[idx], dtype=object),
                       self.tape)

    def __setitem__(self, idx, value):
        if _tracked_in([idx]):
            self._escape("an assignment at a noisy index")
            self.val[_val(idx)] = _val(value)
            return
        self.val[idx] = _val(value)
        try:
            self.form[idx] = _form(value, True)
        except _NotAffine:
            self._escape("an assignment of a non-number")

    # ------------------------------------------------------------------ operators
    def __add__(self, o):
        return np.add(self, o)

    def __radd__(self, o):
        return np.add(o, self)

    def __sub__(self, o):
        return np.subtract(self, o)

    def __rsub__(self, o):
        return np.subtract(o, self)

    def __mul__(self, o):
        return np.multiply(self, o)

    def __rmul__(self, o):
        return np.multiply(o, self)

    def __truediv__(self, o):
        return np.true_divide(self, o)

    def __rtruediv__(self, o):
        return np.true_divide(o, self)

    def __floordiv__(self, o):
        return np.floor_divide(self, o)

    def __rfloordiv__(self, o):
        return np.floor_divide(o, self)

    def __mod__(self, o):
        return np.remainder(self, o)

    def __rmod__(self, o):
        return np.remainder(o, self)

    def __divmod__(self, o):
        return np.divmod(self, o)

    def __pow__(self, o):
        return np.power(self, o)

    def __rpow__(self, o):
        return np.power(o, self)

    def __matmul__(self, o):
        return np.matmul(self, o)

    def __rmatmul__(self, o):
        return np.matmul(o, self)

    def __neg__(self):
        return np.negative(self)

    def __pos__(self):
        return np.positive(self)

    def __abs__(self):
        return np.absolute(self)

    def __invert__(self):
        return np.invert(self)

    def __and__(self, o):
        return np.bitwise_and(self, o)

    def __or__(self, o):
        return np.bitwise_or(self, o)

    def __xor__(self, o):
        return np.bitwise_xor(self, o)

    def __lt__(self, o):
        return np.less(self, o)

    def __le__(self, o):
        return np.less_equal(self, o)

    def __gt__(self, o):
        return np.greater(self, o)

    def __ge__(self, o):
        return np.greater_equal(self, o)

    def __eq__(self, o):
        return np.equal(self, o)

    def __ne__(self, o):
        return np.not_equal(self, o)

    def __iadd__(self, o):
        return self.__add__(o)

    def __isub__(self, o):
        return self.__sub__(o)

    def __imul__(self, o):
        return self.__mul__(o)

    def __itruediv__(self, o):
        return self.__truediv__(o)

    def __round__(self, ndigits=None):
        out = self.tape.node("__round__" if ndigits in (None, 0) else "round-digits",
                             [self], (ndigits,), np.round(self.val, ndigits or 0))
        return out

    def __floor__(self):
        return self.tape.node("__floor__", [self], (), np.floor(self.val))

    def __ceil__(self):
        return self.tape.node("__ceil__", [self], (), np.ceil(self.val))

    def __trunc__(self):
        return self.tape.node("__trunc__", [self], (), np.trunc(self.val))

    # ------------------------------------------------------------------ methods
    def astype(self, dtype, *args, **kwargs):
        target = np.dtype(dtype)
        val = self.val.astype(dtype, *args, **kwargs)
        src = self.val.dtype
        keeps = (target.kind == "f" and target.itemsize >= 8 and src.kind in "biuf") or \
            (target.kind in "iu" and src.kind in "biu") or target == src
        if keeps:
            return Tracked(np.asarray(val), self.form.copy(), self.tape)
        op = "astype-int" if target.kind in "iu" else f"astype-{target.name}"
        return self.tape.node(op, [self], (str(target),), val)

    def copy(self, *a, **k):
        return Tracked(self.val.copy(), self.form.copy(), self.tape)

    def reshape(self, *shape, **k):
        return np.reshape(self, shape[0] if len(shape) == 1 else shape, **k)

    def ravel(self, *a, **k):
        return np.ravel(self, *a, **k)

    def flatten(self, *a, **k):
        return np.ravel(self).copy()

    def transpose(self, *axes):
        return np.transpose(self, axes or None)

    def squeeze(self, *a, **k):
        return np.squeeze(self, *a, **k)

    def sum(self, *a, **k):
        return np.sum(self, *a, **k)

    def mean(self, *a, **k):
        return np.mean(self, *a, **k)

    def cumsum(self, *a, **k):
        return np.cumsum(self, *a, **k)

    def dot(self, o):
        return np.dot(self, o)

    def clip(self, *a, **k):
        return np.clip(self, *a, **k)

    def round(self, *a, **k):
        return np.round(self, *a, **k)

    def max(self, *a, **k):
        return np.max(self, *a, **k)

    def min(self, *a, **k):
        return np.min(self, *a, **k)

    def argmax(self, *a, **k):
        return np.argmax(self, *a, **k)

    def argmin(self, *a, **k):
        return np.argmin(self, *a, **k)

    def std(self, *a, **k):
        return np.std(self, *a, **k)

    def var(self, *a, **k):
        return np.var(self, *a, **k)

    def prod(self, *a, **k):
        return np.prod(self, *a, **k)

    def all(self, *a, **k):
        return np.all(self, *a, **k)

    def any(self, *a, **k):
        return np.any(self, *a, **k)

    def take(self, *a, **k):
        return np.take(self, *a, **k)

    def repeat(self, *a, **k):
        return np.repeat(self, *a, **k)

    def conjugate(self):
        return self

    conj = conjugate

    def __getattr__(self, name):
        # numpy's object loops call a method named after the ufunc (rint, sqrt, exp, …)
        uf = getattr(np, name, None)
        if isinstance(uf, np.ufunc):
            return lambda *a, **k: uf(self, *a, **k)
        raise AttributeError(name)

    # ------------------------------------------------------------------ numpy protocols
    def __array_ufunc__(self, ufunc, method, *inputs, **kwargs):
        tape = _tape_of(inputs)
        if tape.steering is not None and not kwargs:
            hit = tape.steering.ufunc(tape, ufunc.__name__, method, inputs)
            if hit is not None:
                return hit
        out = kwargs.pop("out", None)
        vals = [_val(x) for x in inputs]
        result = getattr(ufunc, method)(*vals, **kwargs)
        name = ufunc.__name__
        followed = not any(k in kwargs for k in _NOT_FOLLOWED)
        if method == "__call__" and name in _AFFINE_UFUNCS and followed:
            fkw = {k: v for k, v in kwargs.items() if k not in _DROP}
            try:
                forms = [x.form if isinstance(x, Tracked) else _lift_array(x)
                         for x in inputs]
                with np.errstate(all="ignore"):
                    form = ufunc(*forms, **fkw)
                res = _wrap_result(result, form, tape)
            except (_NotAffine, ZeroDivisionError, TypeError, ValueError, OverflowError):
                res = tape.node(name, _tracked_in(inputs), _plain(inputs), result)
        elif method == "reduce" and name == "add" and isinstance(inputs[0], Tracked) and \
                followed:
            fkw = {k: v for k, v in kwargs.items() if k not in _DROP}
            try:
                res = _wrap_result(result, np.add.reduce(inputs[0].form, **fkw), tape)
            except (_NotAffine, TypeError, ValueError):
                res = tape.node("add.reduce", [inputs[0]], (), result)
        else:
            op = name if method == "__call__" else f"{name}.{method}"
            if name in ("rint", "floor", "ceil", "trunc", "fix"):
                op = name
            res = tape.node(op, _tracked_in(inputs), _plain(inputs) + _kw(kwargs), result)
        if out is not None:
            return _written(out, res, tape, name)
        return res

    def __array_function__(self, func, types, args, kwargs):
        name = func.__name__
        tape = _tape_of(list(args) + list(kwargs.values()))
        out = kwargs.pop("out", None)
        res = self._function(func, name, tape, args, kwargs)
        if out is None:
            return res
        if isinstance(out, Tracked):
            out.val[...] = _val(res)
            out.form[...] = res.form if isinstance(res, Tracked) else _lift_array(res)
            return out
        tape.escape(f"np.{name}(…, out=) into a plain array")
        out[...] = _val(res)
        return out

    def _function(self, func, name, tape, args, kwargs):
        if tape.steering is not None:
            hit = tape.steering.function(tape, name, args, kwargs)
            if hit is not None:
                return hit
        if name == "copyto" and isinstance(args[0], Tracked) and \
                not _tracked_in([kwargs.get("where")] + list(args[2:])):
            return _copyto(args[0], args[1], kwargs)
        vals = [_val(a) for a in args]
        kvals = {k: _val(v) for k, v in kwargs.items()}
        result = func(*vals, **kvals)
        if name in _METADATA:
            return result
        if name in _STRUCTURAL and _arg_is_plain(name, args, kwargs) and \
                not any(k in kwargs for k in _NOT_FOLLOWED if name != "where"):
            lift = name in _LIFTED
            try:
                fargs = [a if (name in _PLAIN_ARGS and i in _PLAIN_ARGS[name])
                         else _form(a, lift) for i, a in enumerate(args)]
                fkw = {k: (v if k in _PLAIN_ARGS.get(name, ()) else _form(v, False))
                       for k, v in kwargs.items() if k not in _DROP}    # axis=, … stay
                if name == "einsum":
                    raise _NotAffine
                with np.errstate(all="ignore"):
                    form = func(*fargs, **fkw)
                return _wrap_result(result, form, tape)
            except (_NotAffine, TypeError, ValueError, ZeroDivisionError, OverflowError):
                pass
        if name in ("round", "around") and (args[1:2] or [kwargs.get("decimals", 0)])[0] \
                not in (0, None):
            name = "round-digits"
        return tape.node(name, _tracked_in(list(args) + list(kwargs.values())),
                         _plain(args) + _kw(kwargs), result)


def _written(out, res, tape, name):
    """A ufunc's ``out=`` targets given the results: a tracked target takes values and
    forms, a plain one the values (an escape)."""
    targets = out if isinstance(out, tuple) else (out,)
    results = res if isinstance(res, tuple) else (res,)
    for t, r in zip(targets, results):
        if isinstance(t, Tracked):
            t.val[...] = _val(r)
            t.form[...] = r.form if isinstance(r, Tracked) else _lift_array(r)
        elif t is not None:
            tape.escape(f"{name}(…, out=) into a plain array")
            t[...] = _val(r)
    return out


def _plain(args) -> tuple:
    out = []
    for a in args:
        if isinstance(a, Tracked):
            out.append(TRACKED)                 # keeps the positions of the plain ones
            continue
        if isinstance(a, (list, tuple)) and _tracked_in(a):
            out.append(type(a)(_plain(a)))
            continue
        out.append(a)
    return tuple(out)


def _kw(kwargs) -> tuple:
    return tuple((k, v) for k, v in sorted(kwargs.items()) if not isinstance(v, Tracked))



def _copyto(dst: Tracked, src, kwargs) -> None:
    """``np.copyto(dst, src, where=plain)`` into a tracked array: values and forms alike."""
    where = kwargs.get("where", True)
    casting = kwargs.get("casting", "same_kind")
    try:
        form = _form(src, True)
    except _NotAffine:
        dst.tape.escape("np.copyto of a non-number into a noisy array")
        np.copyto(dst.val, _val(src), casting=casting, where=where)
        return None
    np.copyto(dst.val, _val(src), casting=casting, where=where)
    np.copyto(dst.form, np.broadcast_to(np.asarray(form, dtype=object), dst.form.shape),
              where=where)
    return None
