"""The recording generator: every noise primitive a mechanism draws, with its parameters.

A mechanism under audit receives ``rng``. In trace mode it receives a
:class:`TracingGenerator` — a ``numpy.random.Generator`` (``isinstance`` checks still pass)
whose noise methods are recorded as :class:`Call` values: the method, its calibration
parameters (scale, σ, p, n, size, …), its location parameter where it has one, the shape and
the draws. A privtools law's ``sample`` is recorded as one call of the law (through the
``trace_law`` hook every law's ``sample`` looks for), so the law itself — not the words its
table consumed — is what the trace sees.

The same generator *replays*: the k-th call is served the k-th recorded draw, so a run on
the neighbouring dataset sees identical randomness (the coupling of Re:cord-play, Cebere et
al., PETS 2026). Location–scale families are coupled through their standard variate
(``laplace(loc, scale)`` = loc + scale·Z with the same Z), other families through their
values. A replay may also perturb one draw (a probe: which outputs does it move, and how?)
or return every draw's centre (the location: the output then is the mechanism's unnoised
value).

Randomness that does not come through these methods — a fresh ``default_rng()``, numpy's
global state, the bit generator read directly, a library's own generator, a method not in
the catalogue — is not replayed: a replay runs on a bit generator keyed differently from the
recording, so such a mechanism does not reproduce its output and is reported untraceable.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .affine import MEMO
from .tracked import Lin, Tape, Tracked

__all__ = ["Call", "Session", "TracingGenerator", "LOCATION", "center_of"]

_G = np.random.Generator

# method -> (location parameter, scale parameter) names: x = loc + scale·Z, Z standard
LOCATION = {"laplace": ("loc", "scale"), "normal": ("loc", "scale"),
            "gumbel": ("loc", "scale"), "logistic": ("loc", "scale"),
            "standard_normal": (None, None), "uniform": ("low", None),
            "random": (None, None)}


@dataclass
class Call:
    """One primitive call: ``method`` (a numpy method name, or ``"<Law>.sample"``), its
    calibration parameters ``params`` (name → value, compared exactly between runs), its
    location ``loc`` (broadcast array, or None), ``scale`` (broadcast array, or None), the
    ``shape`` drawn, the standard variates ``z`` that couple runs, the values ``x`` handed to
    the mechanism and the privtools ``law`` for a law call."""

    index: int
    method: str
    family: str                    # "location" | "scale" | "value" | "index" | "law"
    params: dict
    shape: tuple
    z: np.ndarray
    x: np.ndarray
    loc: np.ndarray | None = None
    scale: np.ndarray | None = None
    law: object = None

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64)) if self.shape else 1

    def signature(self) -> tuple:
        """What two runs must agree on for their draws to be coupled."""
        return (self.method, self.shape)

    def describe(self) -> str:
        shown = ", ".join(f"{k}={_short(v)}" for k, v in self.params.items())
        return f"call {self.index}: {self.method}({shown}) of shape {self.shape}"


def _short(v) -> str:
    if isinstance(v, np.ndarray):
        if v.size <= 4:
            return np.array2string(v, precision=6, separator=", ")
        return f"array{v.shape}"
    if isinstance(v, float):
        return f"{v:.6g}"
    return repr(v)


def same_value(a, b) -> bool:
    """Exact equality of two parameter values (arrays elementwise, NaN equal to NaN)."""
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        a, b = np.asarray(a), np.asarray(b)
        if a.shape != b.shape:
            return False
        try:
            return bool(np.array_equal(a, b, equal_nan=a.dtype.kind in "fc"))
        except TypeError:
            return bool(np.array_equal(a, b))
    if isinstance(a, float) and isinstance(b, float) and math.isnan(a) and math.isnan(b):
        return True
    try:
        return bool(a == b)
    except Exception:
        return a is b


def _param(v):
    """A parameter as the value compared between runs (a copy: the caller may mutate)."""
    if isinstance(v, np.ndarray):
        return v.copy()
    if isinstance(v, np.generic):
        return v.item()
    if isinstance(v, (list, tuple)):
        return np.array(v)
    return v


def center_of(call: Call) -> np.ndarray | None:
    """The draw whose replay shows the unnoised value: the location of a location family,
    the law's centre for a privtools law (its ``mu``, 0 by default); None otherwise."""
    if call.family == "location" and call.method not in ("uniform", "random"):
        loc = call.loc if call.loc is not None else np.zeros(call.shape)
        return np.broadcast_to(loc, call.shape).astype(float)
    if call.family == "law":
        mu = getattr(call.law, "mu", 0)
        return np.full(call.shape, int(mu), dtype=np.int64)
    return None


@dataclass
class Session:
    """The state a run's generator writes to (record) or reads from (replay).

    ``mode``: ``"record"`` draws fresh; ``"steer"`` serves ``recorded`` where a call
    matches it and draws fresh elsewhere (its branches are forced, :mod:`.branches`);
    ``"replay"`` serves ``recorded`` in order, with
    ``probe = (call index, flat element, t)`` adding ``t`` to one draw, or ``probe =
    (call index, flat element, "resample")`` drawing that element afresh, and
    ``center=True`` serving every call's centre (:func:`center_of`) where it has one."""

    mode: str = "record"
    recorded: list = field(default_factory=list)
    probe: tuple | None = None
    center: bool = False
    calls: list = field(default_factory=list)
    diverged: str | None = None        # why a replay stopped being coupled
    untraced: list = field(default_factory=list)
    depth: int = 0                     # > 0 inside a law's own sampler
    tape: Tape | None = None           # tracking: draws handed out as tracked values

    def next_recorded(self, method: str, shape: tuple) -> Call | None:
        k = len(self.calls)
        if self.mode == "steer":            # a steered run: the recorded draws where they fit
            rec = self.recorded[k] if k < len(self.recorded) else None
            return rec if rec is not None and (rec.method, rec.shape) == (method, shape) \
                else None
        if self.mode != "replay" or self.diverged is not None:
            return None
        if k >= len(self.recorded):
            self.diverged = f"call {k} ({method}) was not made in the recorded run"
            return None
        rec = self.recorded[k]
        if rec.method != method or rec.shape != shape:
            self.diverged = (f"call {k} is {method} of shape {shape} here but "
                             f"{rec.method} of shape {rec.shape} in the recorded run")
            return None
        return rec


def _shape(size, *arrays) -> tuple:
    if size is None:
        return tuple(np.broadcast_shapes(*(np.shape(a) for a in arrays))) if arrays else ()
    if isinstance(size, numbers.Integral):
        return (int(size),)
    return tuple(int(s) for s in size)


def _result(x: np.ndarray, shape: tuple, size, scalar_type=float):
    if size is None and shape == ():
        return scalar_type(np.asarray(x).reshape(()).item())
    return x


def _located(z, family, loc, scale, shape):
    """The values of a location or scale family from its standard draws ``z`` (x = loc +
    scale·z, as floats), with the broadcast loc and scale; other families' values are z."""
    if family not in ("location", "scale"):
        return z, None, None
    loc_a = None if loc is None else np.broadcast_to(np.asarray(loc, float), shape)
    scale_a = None if scale is None else np.broadcast_to(np.asarray(scale, float), shape)
    x = z.astype(float)
    if scale_a is not None:
        x = x * scale_a
    if loc_a is not None:
        x = loc_a + x
    return np.asarray(x, dtype=float).reshape(shape), loc_a, scale_a


class TracingGenerator(_G):
    """A ``numpy.random.Generator`` that records (or replays) its noise primitives into a
    :class:`Session`. ``seed`` keys its bit generator (PCG64); replays use a different key,
    so randomness drawn around the catalogue shows up as a changed output."""

    def __init__(self, seed: int, session: Session):
        super().__init__(np.random.PCG64(seed))
        self._session = session

    # ------------------------------------------------------------------ the core
    def _serve(self, method, family, params, shape, fresh, *, loc=None, scale=None,
               law=None, integer=False, law_scale=None):
        """Record or replay one call; return the values handed to the mechanism."""
        s = self._session
        if s.depth:                               # inside a law's own sampler: not a call
            return fresh()
        if s.tape is not None and any(isinstance(v, Tracked) for v in params.values()):
            s.tape.escape(f"rng.{method}() with a parameter computed from a noisy value "
                          "(a law that depends on an earlier draw)")
        rec = s.next_recorded(method, shape)
        k = len(s.calls)

        def draw():                               # numpy's own nested calls are not calls
            s.depth += 1
            try:
                return np.array(fresh(), copy=True)
            finally:
                s.depth -= 1
        if rec is None:
            z = draw()
        else:
            z = np.array(rec.z, copy=True)
            if s.probe is not None and s.probe[0] == k and s.probe[2] == "resample":
                z.reshape(-1)[s.probe[1]] = draw().reshape(-1)[s.probe[1]]
        x, loc_a, scale_a = _located(z, family, loc, scale, shape)
        if law_scale is not None:                 # a library's noise: x = z, scale known
            scale_a = np.broadcast_to(np.asarray(law_scale, float), shape)
        call = Call(index=k, method=method, family=family, params=params, shape=shape, z=z, x=x,
                    loc=loc_a, scale=scale_a, law=law)
        if s.center and rec is not None:
            c = center_of(call)
            if c is not None:
                x = np.array(c, dtype=x.dtype if integer else float).reshape(shape)
        if s.probe is not None and s.probe[0] == k and s.probe[2] != "resample":
            x = np.array(x, copy=True)
            flat = x.reshape(-1)
            flat[s.probe[1]] = flat[s.probe[1]] + s.probe[2]
        call.x = np.array(x, copy=True)          # the mechanism may change x in place
        s.calls.append(call)
        self._last = call
        return x

    def _give(self, x, size, scalar_type=float):
        """The values handed to the mechanism: plain (as numpy gives them), or tracked."""
        tape = self._session.tape
        if tape is None or self._session.depth:
            return _result(x, np.shape(x), size, scalar_type)
        call = self._last
        arr = np.array(x, copy=True)
        form = np.empty(arr.shape, dtype=object)
        flat = form.reshape(-1)
        loc = None
        if call.family == "location" and call.loc is not None:
            loc = np.broadcast_to(call.loc, call.shape).reshape(-1)
        memo = MEMO.table
        for e in range(arr.size):
            c = Fraction(0) if loc is None else as_fraction(loc[e])
            if memo is None:
                flat[e] = Lin(c, {(call.index, e): Fraction(1)})
                continue
            key = ("draw", call.index, e, c)
            hit = memo.get(key)
            if hit is None:
                hit = memo[key] = Lin(c, {(call.index, e): Fraction(1)})
            flat[e] = hit
        return Tracked(arr, form, tape)

    # ------------------------------------------------------------------ location families
    def _loc_scale(self, method, loc, scale, size, standard):
        lname, sname = LOCATION[method]
        shape = _shape(size, loc, scale)
        params = {"size": shape}
        if sname is not None:
            params[sname] = _param(scale)
        x = self._serve(method, "location", params, shape, lambda: standard(shape),
                        loc=loc, scale=scale)
        return self._give(x, size)

    def laplace(self, loc=0.0, scale=1.0, size=None):
        return self._loc_scale("laplace", loc, scale, size,
                               lambda sh: _G.laplace(self, 0.0, 1.0, sh))

    def normal(self, loc=0.0, scale=1.0, size=None):
        return self._loc_scale("normal", loc, scale, size,
                               lambda sh: _G.normal(self, 0.0, 1.0, sh))

    def gumbel(self, loc=0.0, scale=1.0, size=None):
        return self._loc_scale("gumbel", loc, scale, size,
                               lambda sh: _G.gumbel(self, 0.0, 1.0, sh))

    def logistic(self, loc=0.0, scale=1.0, size=None):
        return self._loc_scale("logistic", loc, scale, size,
                               lambda sh: _G.logistic(self, 0.0, 1.0, sh))

    def standard_normal(self, size=None, dtype=np.float64, out=None):
        return self._standard_call("standard_normal", size, dtype, out,
                                   lambda: _G.standard_normal(self, size, dtype, out),
                                   lambda sh: _G.standard_normal(self, sh))

    def random(self, size=None, dtype=np.float64, out=None):
        return self._standard_call("random", size, dtype, out,
                                   lambda: _G.random(self, size, dtype, out),
                                   lambda sh: _G.random(self, sh))

    def _standard_call(self, method, size, dtype, out, direct, by_shape):
        if self._session.depth:
            return direct()
        shape = _shape(size) if out is None else tuple(np.shape(out))
        x = self._serve(method, "location", {"size": shape}, shape, lambda: by_shape(shape))
        if out is not None:
            if self._session.tape is not None:
                self._session.tape.escape(f"rng.{method}(out=) writes draws into a plain array")
            out[...] = x
            return out
        return self._give(np.asarray(x, dtype=dtype), size)

    def uniform(self, low=0.0, high=1.0, size=None):
        if self._session.depth:
            return _G.uniform(self, low, high, size)
        shape = _shape(size, low, high)
        width = np.asarray(high, float) - np.asarray(low, float)
        x = self._serve("uniform", "location", {"size": shape, "width": _param(width)}, shape,
                        lambda: _G.random(self, shape), loc=low, scale=width)
        return self._give(x, size)

    # ------------------------------------------------------------------ scale families
    def exponential(self, scale=1.0, size=None):
        if self._session.depth:
            return _G.exponential(self, scale, size)
        shape = _shape(size, scale)
        x = self._serve("exponential", "scale", {"size": shape, "scale": _param(scale)},
                        shape, lambda: _G.standard_exponential(self, shape), scale=scale)
        return self._give(x, size)

    def standard_exponential(self, size=None, dtype=np.float64, method="zig", out=None):
        return self._standard_call("standard_exponential", size, dtype, out,
                                   lambda: _G.standard_exponential(self, size, dtype, method,
                                                                   out),
                                   lambda sh: _G.standard_exponential(self, sh))

    # ------------------------------------------------------------------ value families
    def _value(self, method, size, params: dict, draw, *arrays, integer=True):
        if self._session.depth:
            return draw(size)
        shape = _shape(size, *arrays)
        params = {"size": shape, **{k: _param(v) for k, v in params.items()}}
        x = self._serve(method, "value", params, shape, lambda: np.asarray(draw(shape)),
                        integer=integer)
        return self._give(np.asarray(x), size, int if integer else float)

    def geometric(self, p, size=None):
        return self._value("geometric", size, {"p": p},
                           lambda sh: _G.geometric(self, p, sh), p)

    def poisson(self, lam=1.0, size=None):
        return self._value("poisson", size, {"lam": lam},
                           lambda sh: _G.poisson(self, lam, sh), lam)

    def binomial(self, n, p, size=None):
        return self._value("binomial", size, {"n": n, "p": p},
                           lambda sh: _G.binomial(self, n, p, sh), n, p)

    def negative_binomial(self, n, p, size=None):
        return self._value("negative_binomial", size, {"n": n, "p": p},
                           lambda sh: _G.negative_binomial(self, n, p, sh), n, p)

    def gamma(self, shape, scale=1.0, size=None):
        return self._value("gamma", size, {"shape": shape, "scale": scale},
                           lambda sh: _G.gamma(self, shape, scale, sh), shape, scale,
                           integer=False)

    def standard_gamma(self, shape, size=None, dtype=np.float64, out=None):
        if out is not None or self._session.depth:
            return _G.standard_gamma(self, shape, size, dtype, out)
        return self._value("standard_gamma", size, {"shape": shape},
                           lambda sh: _G.standard_gamma(self, shape, sh), shape,
                           integer=False)

    def beta(self, a, b, size=None):
        return self._value("beta", size, {"a": a, "b": b},
                           lambda sh: _G.beta(self, a, b, sh), a, b, integer=False)

    def chisquare(self, df, size=None):
        return self._value("chisquare", size, {"df": df},
                           lambda sh: _G.chisquare(self, df, sh), df, integer=False)

    def hypergeometric(self, ngood, nbad, nsample, size=None):
        return self._value("hypergeometric", size,
                           {"ngood": ngood, "nbad": nbad, "nsample": nsample},
                           lambda sh: _G.hypergeometric(self, ngood, nbad, nsample, sh),
                           ngood, nbad, nsample)

    def integers(self, low, high=None, size=None, dtype=np.int64, endpoint=False):
        if self._session.depth:
            return _G.integers(self, low, high, size, dtype, endpoint)
        shape = _shape(size, low, *(() if high is None else (high,)))
        params = {"size": shape, "low": _param(low), "high": _param(high),
                  "endpoint": bool(endpoint)}
        x = self._serve("integers", "value", params, shape,
                        lambda: np.asarray(_G.integers(self, low, high, shape, dtype,
                                                       endpoint)), integer=True)
        x = np.asarray(x).astype(dtype, copy=False)
        if self._session.tape is not None:
            return self._give(x, size, int)
        if size is None and shape == ():
            return x.reshape(())[()]
        return x

    # ------------------------------------------------------------------ index families
    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        if self._session.depth:
            return _G.choice(self, a, size, replace, p, axis, shuffle)
        arr = np.arange(a) if isinstance(a, numbers.Integral) else np.asarray(a)
        n = int(a) if isinstance(a, numbers.Integral) else arr.shape[axis]
        shape = _shape(size)
        params = {"size": shape, "n": n, "replace": bool(replace), "p": _param(p)}
        idx = self._serve("choice", "index", params, shape,
                          lambda: np.asarray(_G.choice(self, n, shape, replace, p,
                                                       shuffle=shuffle)))
        idx = np.asarray(idx, dtype=np.int64)
        if self._session.tape is not None:
            tidx = self._give(idx, size, int)
            if isinstance(a, numbers.Integral):
                return tidx
            return np.take(arr, tidx, axis=axis)     # a node: the noise picks the values
        if isinstance(a, numbers.Integral):
            return idx.reshape(()).item() if size is None else idx
        out = np.take(arr, idx, axis=axis)
        return out.reshape(()).item() if size is None and out.ndim == 0 else out

    def _order(self, n: int, give: bool = True):
        x = np.asarray(self._serve("permutation", "index", {"size": (n,), "n": n}, (n,),
                                   lambda: _G.permutation(self, n)), dtype=np.int64)
        return self._give(x, (n,), int) if give and self._session.tape is not None else x

    def permutation(self, x, axis=0):
        if self._session.depth:
            return _G.permutation(self, x, axis)
        if isinstance(x, numbers.Integral):
            return self._order(int(x))
        arr = np.asarray(x)
        return np.take(arr, self._order(arr.shape[axis]), axis=axis)

    def shuffle(self, x, axis=0):
        if self._session.depth:
            return _G.shuffle(self, x, axis)
        order = self._order(np.shape(x)[axis] if np.ndim(x) else len(x), give=False)
        if self._session.tape is not None:
            self._session.tape.escape("rng.shuffle() reorders a plain array in place")
        if isinstance(x, np.ndarray):
            x[...] = np.take(x.copy(), order, axis=axis)
        else:
            items = list(x)
            for i, j in enumerate(order):
                x[i] = items[j]

    def bytes(self, length):
        if self._session.depth:
            return _G.bytes(self, length)
        x = self._serve("bytes", "index", {"size": (int(length),)}, (int(length),),
                        lambda: np.frombuffer(_G.bytes(self, length), np.uint8).copy())
        if self._session.tape is not None:
            self._session.tape.escape("rng.bytes(): random bytes are not tracked")
        return np.asarray(x, dtype=np.uint8).tobytes()

    def spawn(self, n_children):
        self._session.untraced.append("rng.spawn(): the children's draws are not traced")
        return _G.spawn(self, n_children)

    # ------------------------------------------------------------------ libraries' noise
    def trace_noise(self, method: str, shape, draw, *, scale=None, law=None,
                    source: str = ""):
        """The hook a DP library's adapter calls (``privtools.testing.adapters``): the
        library's noise for ``shape`` releases, drawn by ``draw()`` when recording, recorded
        as one call — ``method`` ``"laplace"`` or ``"normal"`` of ``scale`` (the noise
        itself, centred at 0), or a privtools ``law`` (integer noise) — and served again
        on replay, so a library that draws its own randomness is replayed exactly."""
        shape = _shape(shape)
        if law is not None:
            x = self._serve(method, "law", {"size": shape, "law": law, "source": source},
                            shape, lambda: np.asarray(draw(), dtype=np.int64).reshape(shape),
                            law=law, integer=True)
            return self._give(np.asarray(x, dtype=np.int64), shape, int)
        x = self._serve(method, "location",
                        {"size": shape, "scale": _param(scale), "source": source}, shape,
                        lambda: np.asarray(draw(), dtype=float).reshape(shape),
                        law_scale=scale)
        return self._give(np.asarray(x, dtype=float), shape)

    # ------------------------------------------------------------------ privtools laws
    def trace_law(self, law, size, draw):
        """The hook a privtools law's ``sample`` calls: one call of the law, its draws
        made by ``draw(generator)`` (untraced inside)."""
        s = self._session
        if s.depth:
            return draw(self)
        shape = _shape(size)

        def fresh():
            return np.asarray(draw(self), dtype=np.int64).reshape(shape)
        name = f"{type(law).__name__}.sample"
        x = self._serve(name, "law", {"size": shape, "law": law}, shape, fresh, law=law,
                        integer=True)
        x = np.asarray(x, dtype=np.int64)
        if s.tape is not None:
            return self._give(x, size, int)
        return np.int64(x.reshape(())) if size is None else x


def as_fraction(x) -> Fraction:
    """A number's exact binary value."""
    if isinstance(x, Fraction):
        return x
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    return Fraction(float(x))
