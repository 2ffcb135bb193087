"""A proof for every neighbouring pair: a randomness alignment found and checked exactly.

A *randomness alignment* (the idea of LightDP, Zhang and Kifer, POPL 2017; ShadowDP, Wang
et al., PLDI 2019; CheckDP, Wang, Ding, Kifer and Zhang, CCS 2020) maps the draws that
produce an output on ``q`` to draws that produce the same output on a neighbour ``q'``.
Here it is a shift of each draw, fixed per path: on a path with conditions
``L_j(x) + M_j(q) + κ_j ≥ 0`` (``M_j`` the data's part, exact from a *symbolic* run in which
the data are atoms ``q_i``) and releases ``a·x_u + N(q) + κ``,

* a released draw moves against the data: ``x_u' = x_u − N(δ)/a`` (``δ = q' − q``), so the
  release is the same number on ``q'``;
* every other draw moves by a constant ``s_u`` with ``L_j(s) ≥ Δ·‖L_j S + M_j‖₁`` for each
  condition, so the shifted draws satisfy the path's conditions on every ``q'`` whose
  answers move by at most Δ (the query relation);
* its cost ``Σ_u |s_u|/b_u + Σ_released Δ·‖S_u‖₁/b_u`` bounds the log-ratio of the
  densities at ``x`` and ``x + s`` for Laplace draws of scale ``b``; exponential and Gumbel
  draws may move up only, where their ratio is at most ``e^{s/b}`` too; other laws do not
  move.

The shift is one-to-one and maps each path's region into the same path's region on
``q'``, so ``P_q(o) ≤ e^cost · P_q'(o)`` for every output ``o``: if every path's cost is at
most ε the claim holds for every pair in the relation (the argument of the papers above).
Each path's shift is searched by a linear program (scipy's HiGHS) and then checked in exact
rational arithmetic: the LP only proposes.

What the proof covers: the paths of a symbolic run explore every branch on the noise; a
branch on the data alone (a check that the answers are finite) is taken as on the traced
dataset and listed among the proof's assumptions.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction

from scipy.optimize import linprog

from ..record.branches import is_draw
from .explore import explore

__all__ = ["Alignment", "prove", "RELATIONS"]

#: Relations a proof may be asked for: every answer moves by at most Δ (``"query"``, the
#: DP-testing benchmarks' name; ``"linf"``, the same as a distance).
RELATIONS = ("query", "linf")
_TWO_SIDED = ("laplace",)
#: laws whose density ratio under an upward shift s is at most e^(s/b): the exponential
#: (on its support) and the Gumbel (f(x)/f(x+s) = e^(s/β − e^(−x/β)(1 − e^(−s/β))))
_ONE_SIDED = ("exponential", "standard_exponential", "gumbel")


@dataclass(frozen=True, kw_only=True)
class Alignment:
    """A randomness alignment proving the claim for every neighbouring pair of the
    ``relation`` (answers moving by at most ``sensitivity``): its ``cost`` (the largest over
    the ``paths``, exact), the claim ``epsilon``, the ``shifts`` in words and the
    ``assumptions`` (branches on the data alone, taken as on the traced dataset)."""

    relation: str
    sensitivity: Fraction
    cost: Fraction
    epsilon: float
    paths: int
    shifts: tuple
    assumptions: tuple = ()

    @property
    def proves_claim(self) -> bool:
        """Whether the cost is within the claim (exactly)."""
        return self.cost <= Fraction(self.epsilon)

    def describe(self) -> str:
        bound = (f"≤ ε = {self.epsilon:g}" if self.proves_claim else
                 f"— it proves ε ≤ {float(self.cost):.6g} only, above the claim "
                 f"{self.epsilon:g}")
        head = (f"a randomness alignment of cost ≤ {float(self.cost):.6g} {bound} on all "
                f"{self.paths} path(s), for every pair whose answers move by at most "
                f"{_q(self.sensitivity)}: " + "; ".join(self.shifts))
        if self.assumptions:
            head += " (assuming, as on d: " + "; ".join(self.assumptions[:3]) + ")"
        return head

    def to_dict(self) -> dict:
        return {"relation": self.relation, "sensitivity": str(self.sensitivity),
                "cost": str(self.cost), "cost_float": float(self.cost),
                "epsilon": self.epsilon, "paths": self.paths, "shifts": list(self.shifts),
                "assumptions": list(self.assumptions)}


def _q(x: Fraction) -> str:
    return str(x.numerator) if x.denominator == 1 else f"{float(x):g}"


# ---------------------------------------------------------------------- one path
def _law(path, u):
    """(kind, scale) of a draw for the cost: "two" (Laplace, discrete Laplace), "up"
    (exponential), None (not shifted)."""
    c = path.calls[u[0]]
    law = path.laws.get(u)
    if c.method in _TWO_SIDED and law is not None:
        return "two", law.scale, False
    if c.method in _ONE_SIDED and law is not None:
        return "up", law.scale, False
    if c.law is not None and getattr(c.law, "name", "") == "laplace" and \
            getattr(c.law, "mu", 0) == 0:
        return "two", Fraction(c.law.scale), True
    return None, None, False


def _parts(form):
    draws = {u: a for u, a in form.a.items() if is_draw(u)}
    data = {u: a for u, a in form.a.items() if u[0] == "q"}
    return draws, data


def _released(path) -> dict | str:
    """Per released draw, how it moves against the data (``{q: −n/a}``), or why the
    outputs admit no alignment."""
    released: dict = {}
    tree = path.tree
    for p, f in zip(tree.paths, tree.forms or ()):
        if f is None or not f.a:
            continue
        draws, data = _parts(f)
        if len(draws) != 1:
            return (f"the output{p} is not one draw plus data" if draws else
                    f"the output{p} moves with the data and no draw")
        (u, a), = draws.items()
        if u in released:
            return f"one draw released twice (output{p})"
        released[u] = {q: -n / a for q, n in data.items()}
    return released


def _path_shift(path, delta: Fraction):
    """(cost, shifts {draw: s}, released {draw: S}) of the cheapest alignment of one path,
    or a string saying why there is none."""
    released = _released(path)
    if isinstance(released, str):
        return released
    conds = path.conditions()
    draws = sorted({u for c in conds for u in c.form.a if is_draw(u)} | set(released),
                   key=repr)
    kinds = {u: _law(path, u) for u in draws}
    for u, S in released.items():
        if S and kinds[u][0] != "two":
            return f"a released draw of {path.calls[u[0]].method} cannot move with the data"
    free = [u for u in draws if kinds[u][0] is not None and u not in released]
    rows, rhs = [], []
    for c in conds:
        ld, md = _parts(c.form)
        need = {}
        for q, m in md.items():
            need[q] = need.get(q, 0) + m
        for u, a in ld.items():
            for q, s in released.get(u, {}).items():
                need[q] = need.get(q, 0) + a * s
        r = delta * sum(abs(v) for v in need.values())
        rows.append({u: a for u, a in ld.items() if u in free})
        rhs.append(r)
    s = _solve(rows, rhs, free, kinds)
    if s is None:
        return "no shift of the draws keeps some path's conditions on every neighbour"
    cost = sum(abs(s[u]) / kinds[u][1] for u in free)
    cost += sum(delta * sum(abs(v) for v in S.values()) / kinds[u][1]
                for u, S in released.items() if S)
    return cost, s, released


def _solve(rows, rhs, free, kinds) -> dict | None:
    """The cheapest shift with ``Σ rows_j·s ≥ rhs_j`` (proposed by an LP, checked and
    returned exactly), or None."""
    if not free:
        return {} if all(r <= 0 for r in rhs) else None
    n = len(free)
    index = {u: i for i, u in enumerate(free)}
    cost = [float(1 / kinds[u][1]) for u in free] * 2       # s = p − n, p, n ≥ 0
    a_ub, b_ub = [], []
    for row, r in zip(rows, rhs):
        line = [0.0] * (2 * n)
        for u, a in row.items():
            line[index[u]] = -float(a)
            line[n + index[u]] = float(a)
        a_ub.append(line)
        b_ub.append(-float(r))
    bounds = [(0, None)] * n + [(0, 0 if kinds[u][0] == "up" else None) for u in free]
    res = linprog(cost, A_ub=a_ub or None, b_ub=b_ub or None, bounds=bounds,
                  method="highs")
    if res.status != 0:
        return None
    x = res.x
    for rounding in ("near", 1 << 10, 1 << 20):
        s = {}
        for u in free:
            v = float(x[index[u]] - x[n + index[u]])
            if rounding == "near":
                q = Fraction(v).limit_denominator(1000)
            else:                        # away from 0 on a grid: more shift, more slack
                q = Fraction(math.ceil(abs(v) * rounding - 1e-9), rounding) * \
                    (1 if v >= 0 else -1)
            if kinds[u][2] and q.denominator != 1:            # an integer law
                q = Fraction(math.ceil(abs(q))) * (1 if q >= 0 else -1)
            s[u] = q
        if all(sum(a * s[u] for u, a in row.items()) >= r for row, r in zip(rows, rhs)):
            return s
    return None


# ---------------------------------------------------------------------- the proof
def _words(path, shifts, released) -> tuple:
    """The costliest path's shifts, in words."""
    out = []
    for u, v in sorted(shifts.items(), key=lambda kv: kv[0]):
        if v != 0:
            c = path.calls[u[0]]
            out.append(f"{c.method} call {u[0]} draw {u[1]} by {'+' if v > 0 else ''}{_q(v)}")
    for u, S in sorted(released.items(), key=lambda kv: kv[0]):
        if S:
            c = path.calls[u[0]]
            moves = " + ".join(f"{_q(-k) if k != -1 else ''}δ{q[1]}".replace("-δ", "−δ")
                               for q, k in sorted(S.items(), key=lambda kv: kv[0][1]))
            out.append(f"{c.method} call {u[0]} draw {u[1]} (released) by −({moves})")
    if not out:
        return ("no draw moves: the outputs do not depend on the data",)
    return (f"on the costliest path, output {_output(path)}: " + ", ".join(out),
            "every other path has its own shift, checked the same way")


def _output(path) -> str:
    t = path.tree
    vals = []
    for v, f in zip(t.values, t.forms or (None,) * len(t.values)):
        vals.append("a release" if f is not None and f.a else repr(v))
    return "(" + ", ".join(vals[:10]) + (", …" if len(vals) > 10 else "") + ")" \
        if len(vals) != 1 else vals[0]


def prove(runner, d, recorded, epsilon: float, *, relation: str = "query",
          sensitivity=1, max_paths: int | None = None) -> Alignment | str:
    """Search and check an alignment for every pair of ``relation`` around the program
    traced on ``d`` (see the module doc): the :class:`Alignment`, or why there is none."""
    if relation not in RELATIONS:
        return f"no proof is searched for the relation {relation!r}"
    delta = Fraction(sensitivity)
    kw = {} if max_paths is None else {"max_paths": max_paths}
    ex = explore(runner, d, recorded, symbolic=True, **kw)
    if ex.refused is not None:
        return f"the symbolic run: {ex.refused}"
    worst, words = Fraction(-1), ()
    for p in ex.paths:
        got = _path_shift(p, delta)
        if isinstance(got, str):
            return got
        cost, s, released = got
        if cost > worst:
            worst, words = cost, _words(p, s, released)
    return Alignment(relation=relation, sensitivity=delta, cost=max(worst, Fraction(0)),
                     epsilon=float(epsilon), paths=len(ex.paths), shifts=words,
                     assumptions=tuple(dict.fromkeys(ex.assumptions)))
