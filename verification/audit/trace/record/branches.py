"""Branches on the noise as recorded decisions: the path a run takes, in linear conditions.

In a *steered* tracked run (:class:`Steering` on the tape), every operation whose result
depends on how noisy values compare — a comparison, ``argmax``/``argmin``, ``max``/``min``,
``maximum``/``minimum``, ``abs``, ``clip``, truthiness, a noisy integer used as an index —
is a *branch*: a choice among alternatives, each a conjunction of linear conditions on the
draws (``L > 0`` or ``L ≥ 0``, ``L`` an exact affine form of the draws, with the data's
values in its constant). The run returns plain values for the choice (a bool, an index) and
the chosen form for a selection (``max`` is the chosen element's form), so the code after
the branch runs on plain values and exact forms: on every draw that satisfies the path's
conditions, the run makes the same calls, takes the same branches and releases the same
affine forms.

A run's choices are *forced* for a prefix (the explorer's path so far) and taken from the
concrete draws after it; the path's conditions are what the explorer integrates. What a
path cannot say — a comparison of a value the trace does not follow (a node), a noisy index
of unknown support — is recorded as the steering's ``problem``: such a run certifies nothing.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .affine import MEMO, Lin

__all__ = ["Branch", "Steering", "Condition", "linear", "COMPARISONS", "FALSE"]

#: numpy's comparison ufuncs and what they test of ``a − b``.
COMPARISONS = ("greater", "greater_equal", "less", "less_equal", "equal", "not_equal")
#: The most branches one run may take before the path is refused.
MAX_BRANCHES = 4096


@dataclass(frozen=True)
class Condition:
    """``form > 0`` (``strict``) or ``form ≥ 0``: a linear condition on the draws."""

    form: Lin
    strict: bool

    def holds_at(self, values: dict) -> bool:
        """The condition at a point (atom → Fraction)."""
        v = self.form.c + sum(a * values[u] for u, a in self.form.a.items())
        return v > 0 if self.strict else v >= 0

    def describe(self) -> str:
        return f"{_text(self.form)} {'>' if self.strict else '≥'} 0"


def condition(form: Lin, strict: bool) -> Condition:
    """``Condition(form, strict)``, one object per form while the memo is on."""
    memo = MEMO.table
    if memo is None:
        return Condition(form, strict)
    key = ("cond", id(form), strict)
    hit = memo.get(key)
    if hit is None:
        hit = memo[key] = Condition(form, strict)
    return hit


#: A condition that never holds (an alternative a constant comparison rules out).
FALSE = Condition(Lin(Fraction(-1)), False)


def _text(lin: Lin) -> str:
    parts = []
    for u, a in sorted(lin.a.items(), key=lambda kv: repr(kv[0])):
        name = (f"q[{u[1]}]" if u[0] == "q" else f"x{u[0]}.{u[1]}") if len(u) == 2 else \
            f"w{u[1]}.{u[2]}"
        coef = "" if a == 1 else "-" if a == -1 else f"{_num(a)}·"
        parts.append(f"{coef}{name}")
    if lin.c or not parts:
        parts.append(_num(lin.c))
    return " + ".join(parts).replace("+ -", "- ")


def _num(q) -> str:
    if not isinstance(q, Fraction):
        return repr(q)
    if q.denominator == 1:
        return str(q.numerator)
    f = float(q)
    return f"{f:.6g}" if Fraction(f) != q or len(repr(f)) > 12 else repr(f)


def linear(lin: Lin) -> bool:
    """Whether ``lin`` is finite and depends on draws (and, in a symbolic run, data
    ``("q", i)``) only: no node's value."""
    return lin.finite and all(len(u) == 2 for u in lin.a)


def is_draw(u) -> bool:
    """Whether atom ``u`` is a draw ``(call, element)`` (not a datum or a node)."""
    return len(u) == 2 and isinstance(u[0], int)


@dataclass
class Branch:
    """One branch: ``what`` it is, ``where`` it ran, and per alternative its conditions."""

    what: str
    where: str
    alternatives: tuple          # tuple[tuple[Condition, ...], ...]

    @property
    def options(self) -> int:
        return len(self.alternatives)

    def key(self) -> tuple:
        """What two runs must agree on for this branch to be the same decision (while the
        memo is on, conditions are one object per form: compared by identity)."""
        if MEMO.table is not None:
            return (self.what, tuple(tuple(id(c) for c in alt) for alt in self.alternatives))
        return (self.what, tuple(tuple((c.form.c, tuple(sorted(c.form.a.items())), c.strict)
                                       for c in alt) for alt in self.alternatives))


def _where() -> str:
    f = sys._getframe(2)
    while f is not None:
        name = f.f_code.co_filename
        if "/trace/record/" not in name and "/numpy/" not in name:
            return f"{name.rsplit('/', 1)[-1]}:{f.f_lineno}"
        f = f.f_back
    return "?"


@dataclass
class Steering:
    """The choices of one steered run: ``forced`` (the prefix to follow), the ``branches``
    met and the alternative ``taken`` at each; ``support`` maps a draw atom to its finite
    integer support (or None) for noisy indices, given the run's ``calls`` and the atom;
    ``problem`` says why the path cannot be
    read as linear conditions (None: it can)."""

    forced: tuple = ()
    support: object = None
    symbolic: bool = False           # the data are atoms ("q", i): branches on them only
    assumptions: list = field(default_factory=list)    # are taken as on the dataset
    data_nodes: set = field(default_factory=set)
    calls: list = field(default_factory=list)
    branches: list = field(default_factory=list)
    taken: list = field(default_factory=list)
    problem: str | None = None

    def _refuse(self, why: str) -> None:
        if self.problem is None:
            self.problem = f"{why} at {_where()}"

    def choose(self, what: str, alternatives: list, natural: int) -> int:
        """Record a branch and return the alternative the run follows."""
        k = len(self.taken)
        if k >= MAX_BRANCHES:
            self._refuse(f"more than {MAX_BRANCHES} branches on the noise in one run")
            return natural
        pick = self.forced[k] if k < len(self.forced) else natural
        if not 0 <= pick < len(alternatives):
            self._refuse("a forced branch has fewer alternatives than on its path")
            pick = natural
        self.branches.append(Branch(what, _where(), tuple(tuple(a) for a in alternatives)))
        self.taken.append(pick)
        return pick

    # ------------------------------------------------------------------ the branch kinds
    def compare(self, op: str, diff: Lin, sign: int) -> bool:
        """``a op b`` with ``diff = a − b`` and ``sign`` the sign of its concrete value: a
        plain bool, the branch recorded when the difference depends on the draws."""
        truth_of = {"greater": (False, False, True), "greater_equal": (False, True, True),
                    "less": (True, False, False), "less_equal": (True, True, False),
                    "equal": (False, True, False), "not_equal": (True, False, True)}[op]
        if not diff.finite or not diff.a:
            c = float(diff.c)
            return truth_of[1 + (c > 0) - (c < 0)] if c == c else op == "not_equal"
        if self._assumed(diff, f"{truth_of[1 + sign]}"):
            return truth_of[1 + sign]
        if not linear(diff):
            self._refuse("a comparison of a value the trace does not follow (a non-linear "
                         "function of the noise)")
            return truth_of[1 + sign]
        neg = -diff
        if op in ("equal", "not_equal"):
            alts = [(condition(neg, True),), (condition(diff, False), condition(neg, False)),
                    (condition(diff, True),)]
            return truth_of[self.choose(op, alts, 1 + sign)]
        true_c = {"greater": condition(diff, True), "greater_equal": condition(diff, False),
                  "less": condition(neg, True), "less_equal": condition(neg, False)}[op]
        false_c = condition(-true_c.form, not true_c.strict)
        return bool(self.choose(op, [(false_c,), (true_c,)], int(truth_of[1 + sign])))

    def _assumed(self, lin: Lin, what: str) -> bool:
        """In a symbolic run, a branch on the data alone is not explored: it is taken as
        on the dataset and recorded as an assumption of what the run shows."""
        if not self.symbolic or any(is_draw(u) for u in lin.a):
            return False
        if not all(u[0] == "q" or (u[0] == "w" and u[1] in self.data_nodes)
                   for u in lin.a):
            return False
        if len(self.assumptions) < 64:
            self.assumptions.append(f"the branch on the data alone at {_where()} went {what}")
        return True

    def select(self, what: str, forms: list, natural: int, last: bool) -> int:
        """Which of ``forms`` is largest (``argmax``; the first of equals, or the last when
        ``last``): the index, the branch recorded over its alternatives."""
        n = len(forms)
        alts = []
        for i in range(n):
            conds = []
            for j in range(n):
                if j == i:
                    continue
                strict = (j < i) if not last else (j > i)
                d = forms[i] - forms[j]
                if not d.finite or not d.a:
                    ok = d.finite and (d.c > 0 if strict else d.c >= 0) if d.finite else \
                        _inf_ok(d.c, strict)
                    if not ok:
                        conds = [FALSE]
                        break
                    continue
                if self._assumed(d, f"to element {natural} ({what})"):
                    return natural
                if not linear(d):
                    self._refuse(f"{what} of values the trace does not follow")
                    return natural
                conds.append(condition(d, strict))
            alts.append(tuple(conds))
        if n == 1:
            return 0
        return self.choose(what, alts, natural)

    def insertion(self, lin: Lin, edges, side: str, natural: int) -> int:
        """Where a noisy value goes among sorted plain ``edges`` (``np.searchsorted``):
        alternative i holds ``edges[i−1] < v ≤ edges[i]`` (side "left"; ``≤ … <`` for
        "right"), the ends open."""
        if self._assumed(lin, f"to insertion point {natural}"):
            return natural
        if not linear(lin):
            self._refuse("a search among sorted values of a value the trace does not follow")
            return natural
        left = side == "left"
        alts = []
        for i in range(len(edges) + 1):
            conds = []
            if i > 0:                                   # v above edges[i − 1]
                conds.append(condition(lin - _exact(edges[i - 1]), left))
            if i < len(edges):                          # v at most edges[i]
                conds.append(condition(-(lin - _exact(edges[i])), not left))
            alts.append(tuple(conds))
        return self.choose("searchsorted", alts, natural)

    def index(self, lin: Lin, natural: int) -> int:
        """A noisy integer used as an index: its value, one alternative per value of its
        draw's support."""
        if self._assumed(lin, f"to index {natural}"):
            return natural
        if not linear(lin) or len(lin.a) != 1:
            self._refuse("an index computed from several draws or from a value the trace "
                         "does not follow")
            return natural
        (u, a), = lin.a.items()
        values = self.support(self.calls, u) if self.support is not None else None
        if values is None:
            self._refuse("a noisy index whose draw has no finite support the trace knows")
            return natural
        alts, outs = [], []
        for v in values:
            at = lin - (lin.c + a * v)                  # a·(u − v): one object per value
            alts.append((condition(at, False), condition(-at, False)))
            outs.append(lin.c + a * v)
        if any(o.denominator != 1 for o in outs):
            self._refuse("a noisy index that is not an integer")
            return natural
        try:
            nat = outs.index(natural)
        except ValueError:
            nat = 0
        return int(outs[self.choose("index", alts, nat)])


def _exact(x) -> Fraction:
    """A plain number's exact value (an integer, or a float's binary value)."""
    if isinstance(x, (int, np.integer)):
        return Fraction(int(x))
    return Fraction(float(x))


def _inf_ok(c, strict) -> bool:
    c = float(c)
    return c > 0 if strict else c >= 0


def selection(steering: Steering, forms: np.ndarray, vals: np.ndarray,
              axis, *, smallest: bool) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``argmax``/``argmin`` over ``axis`` of forms (object array) with concrete ``vals``:
    ``(indices, chosen forms, chosen values)`` of the reduced shape."""
    if axis is None:
        f2, v2 = forms.reshape(1, -1), vals.reshape(1, -1)
        out_shape = ()
    else:
        f2 = np.moveaxis(forms, axis, -1)
        v2 = np.moveaxis(vals, axis, -1)
        out_shape = f2.shape[:-1]
        f2, v2 = f2.reshape(-1, f2.shape[-1]), v2.reshape(-1, v2.shape[-1])
    idx = np.empty(f2.shape[0], dtype=np.int64)
    chosen = np.empty(f2.shape[0], dtype=object)
    cvals = np.empty(f2.shape[0], dtype=vals.dtype)
    for r in range(f2.shape[0]):
        row = [x if not smallest else -x for x in f2[r]]
        nat = int(np.argmin(v2[r]) if smallest else np.argmax(v2[r]))
        i = steering.select("a minimum" if smallest else "a maximum", row, nat, last=False)
        idx[r], chosen[r], cvals[r] = i, f2[r][i], v2[r][i]
    return idx.reshape(out_shape), chosen.reshape(out_shape), cvals.reshape(out_shape)


def _sign(a, b) -> int:
    return int(a > b) - int(a < b)


def compare_arrays(steering: Steering, op: str, fa, fb, va, vb) -> np.ndarray:
    """An elementwise comparison of forms ``fa``/``fb`` (values ``va``/``vb``): plain
    bools, one branch per element whose difference depends on the draws."""
    fa, fb, va, vb = np.broadcast_arrays(np.asarray(fa, dtype=object),
                                         np.asarray(fb, dtype=object), np.asarray(va),
                                         np.asarray(vb))
    out = np.empty(fa.shape, dtype=bool)
    fo = out.reshape(-1)
    for e, (x, y, p, q) in enumerate(zip(fa.reshape(-1), fb.reshape(-1), va.reshape(-1),
                                         vb.reshape(-1))):
        fo[e] = steering.compare(op, x - y, _sign(p, q))
    return out


def extreme_arrays(steering: Steering, largest: bool, fa, fb, va, vb):
    """``maximum`` (or ``minimum``) elementwise: ``(values, forms)``, one branch per
    element."""
    fa, fb, va, vb = np.broadcast_arrays(np.asarray(fa, dtype=object),
                                         np.asarray(fb, dtype=object), np.asarray(va),
                                         np.asarray(vb))
    vals = np.empty(fa.shape, dtype=np.result_type(va.dtype, vb.dtype))
    forms = np.empty(fa.shape, dtype=object)
    what = "maximum" if largest else "minimum"
    for e, (x, y, p, q) in enumerate(zip(fa.reshape(-1), fb.reshape(-1), va.reshape(-1),
                                         vb.reshape(-1))):
        pair = [x, y] if largest else [-x, -y]
        nat = int(q > p) if largest else int(q < p)
        i = steering.select(what, pair, nat, last=False)
        vals.reshape(-1)[e] = (p, q)[i]
        forms.reshape(-1)[e] = (x, y)[i]
    return vals, forms


def absolute_arrays(steering: Steering, fa, va):
    """``abs`` elementwise: ``(values, forms)``, one branch per element."""
    fa, va = np.asarray(fa, dtype=object), np.asarray(va)
    vals = np.empty(fa.shape, dtype=va.dtype)
    forms = np.empty(fa.shape, dtype=object)
    for e, (x, p) in enumerate(zip(fa.reshape(-1), va.reshape(-1))):
        i = steering.select("abs", [x, -x], int(p < 0), last=False)
        vals.reshape(-1)[e] = p if i == 0 else -p
        forms.reshape(-1)[e] = x if i == 0 else -x
    return vals, forms
