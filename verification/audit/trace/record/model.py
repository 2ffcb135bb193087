"""Which draws move which outputs, and by how much: the linear model of a coupled run.

A probe replays the recorded run with one draw moved by ``t`` (three values of ``t``, of
both signs and far apart). An output leaf that moves by ``a·t`` for every ``t`` is an
*additive release* of that draw with coefficient ``a``; one that moves inconsistently, or
changes kind, is a non-additive function of the noise; a probe that changes which calls are
made, or the output's structure, shows control flow steered by the noise. Index draws
(``choice``, ``permutation``, …) and draws of bounded laws (``random``, ``uniform``, ``beta``)
are probed by resampling them: an output they move is not an additive release.

With ``A`` the matrix of coefficients (leaves × draws) and ``Δc = c(d') − c(d)`` the shift of
the unnoised values, the view on ``d'`` is the view on ``d`` with the draws shifted by any
``s`` solving ``A s = Δc`` (:func:`solve`): the pair's privacy loss is that of the draws'
laws shifted by ``s``. Identical columns of one law (the shares a sum adds) are merged
first, so a sum of shares is one release of the summed law; no solution means some
combination of outputs carries no noise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from .leaves import leaf_fraction, same_leaf
from .recorder import Call, as_fraction

__all__ = ["Draw", "Dependence", "draws_of", "probe", "Group", "groups_of", "solve",
           "MAX_PROBED"]

#: Draw elements probed one by one; a run with more is not decided by the trace.
MAX_PROBED = 4096
_FACTORS = (1, -3, 29)
# bounded laws are probed by resampling: a shift would leave their support
_RESAMPLED = ("random", "uniform", "beta")
_REL = Fraction(1, 10**9)


@dataclass(frozen=True)
class Draw:
    """One element of one call: ``call`` index, flat ``element``, and what it is."""

    call: int
    element: int
    method: str
    family: str
    integer: bool
    scale: Fraction | None        # the call's scale at this element (location/scale laws)
    law: object = None            # the privtools law of a law call

    def where(self) -> str:
        return f"{self.method} (call {self.call}, element {self.element})"

    def law_key(self) -> tuple:
        return (self.method, self.scale, self.law)


def _scale_at(call: Call, e: int) -> Fraction | None:
    if call.family not in ("location", "scale"):
        return None
    if call.scale is None:
        return Fraction(1)
    return as_fraction(np.asarray(call.scale).reshape(-1)[e])


def draws_of(calls: tuple[Call, ...]) -> list[Draw]:
    out = []
    for c in calls:
        integer = c.family == "law" or np.asarray(c.x).dtype.kind in "iub"
        for e in range(c.size):
            out.append(Draw(c.index, e, c.method, c.family, integer, _scale_at(c, e), c.law))
    return out


def _step(draw: Draw, call: Call) -> float | int:
    """The probe's unit: a power of two near the draw's spread."""
    if draw.family == "law":
        try:
            sd = math.sqrt(float(draw.law.var()))
        except Exception:
            sd = 1.0
        return max(1, 2 ** max(0, round(math.log2(max(sd, 1.0)))))
    if draw.integer:
        return 1
    if draw.scale is not None and draw.scale != 0:
        return 2.0 ** round(math.log2(abs(float(draw.scale))))
    x = abs(float(np.asarray(call.x).reshape(-1)[draw.element]))
    return 2.0 ** (round(math.log2(x + 1.0)) - 3)


@dataclass
class Dependence:
    """What the probes of one dataset found: ``moved[leaf][draw] = coefficient``,
    ``nonlinear`` leaves, notes of probes that ``steered`` control flow or ``raised``."""

    moved: dict = field(default_factory=dict)
    nonlinear: set = field(default_factory=set)
    steered: list = field(default_factory=list)
    raised: list = field(default_factory=list)

    def moved_leaves(self) -> set:
        return set(self.moved) | self.nonlinear


def _delta(a, b, modulus):
    fa, fb = leaf_fraction(a), leaf_fraction(b)
    if fa is None or fb is None:
        return None
    d = fb - fa
    if modulus is not None and isinstance(a, int) and isinstance(b, int):
        d = Fraction((int(d) + modulus // 2) % modulus - modulus // 2)
    return d


def _consistent(coefs: list[Fraction], integer: bool) -> Fraction | None:
    """The one coefficient the probes agree on (None when they do not). Float probes that
    agree to ``_REL`` are read as the simplest fraction that near, the same way whether or
    not they agree exactly — so the coefficient of one dataset's run is the same number as
    the neighbour's, not 1 + 1 ulp on one side."""
    first = coefs[0]
    if integer:
        return first if all(c == first for c in coefs) else None
    last = coefs[-1]
    if last == 0:
        return last if all(c == 0 for c in coefs) else None
    if any(abs(c - last) > _REL * abs(last) for c in coefs):
        return None
    simple = last.limit_denominator(1 << 16)
    return simple if abs(simple - last) <= _REL * abs(last) else last


def _modular(obs, m: int) -> Fraction | None:
    """The integer coefficient a with d ≡ a·t (mod m) for every probe (t, d), read from the
    smallest step; None when a probe disagrees."""
    t0, d0 = min(obs, key=lambda td: abs(td[0]))
    a = d0 / t0
    if a.denominator != 1:
        return None
    for t, d in obs:
        if (a * t - d).denominator != 1 or int(a * t - d) % m:
            return None
    return a


def _steps(dr: Draw, call) -> tuple:
    """The moves a draw is probed by: resampled (an index or a resampled method) or stepped
    by multiples of its unit."""
    if dr.family == "index" or dr.method in _RESAMPLED:
        return ("resample", "resample")
    unit = _step(dr, call)
    return tuple(unit * f for f in _FACTORS)


def _observe(dep: Dependence, values, run_values, t, modulus, per_leaf: dict) -> None:
    """Record how each leaf moved under the probe ``t``: an observation (step, shift) per
    leaf, or the leaf marked non-linear."""
    tq = None if t == "resample" else (Fraction(t) if isinstance(t, int) else as_fraction(t))
    for j, (a, b) in enumerate(zip(values, run_values)):
        if same_leaf(a, b):
            if tq is not None:
                per_leaf.setdefault(j, []).append((tq, Fraction(0)))
            continue
        d = None if t == "resample" else _delta(a, b, modulus)
        if d is None or isinstance(a, bool):
            dep.nonlinear.add(j)
            continue
        per_leaf.setdefault(j, []).append((tq, d))


def _probe_draw(runner, data, base, dr: Draw, dep: Dependence, modulus) -> dict | None:
    """The observations of one draw's probes per leaf (None: a probe broke the run or
    steered it, recorded in ``dep``)."""
    calls = base.calls
    per_leaf: dict[int, list] = {}
    for t in _steps(dr, calls[dr.call]):
        run = runner.replay(data, calls, probe=(dr.call, dr.element, t))
        if run.tree is None:
            dep.raised.append(f"moving {dr.where()} by {t} made the mechanism fail "
                              f"({run.error})")
            return None
        if run.diverged is not None or run.tree.structure != base.tree.structure:
            what = run.diverged or "the output's structure changed"
            dep.steered.append(f"moving {dr.where()} by {t}: {what}")
            return None
        _observe(dep, base.tree.values, run.tree.values, t, modulus, per_leaf)
    return per_leaf


def probe(runner, data, base, draws: list[Draw], *, modulus=None) -> Dependence:
    """Probe every draw of ``base`` (a coupled run on ``data``) — see the module doc."""
    dep = Dependence()
    values = base.tree.values
    for di, dr in enumerate(draws):
        per_leaf = _probe_draw(runner, data, base, dr, dep, modulus)
        for j, obs in (per_leaf or {}).items():
            if all(d == 0 for _, d in obs):
                continue
            if modulus is not None and isinstance(values[j], int):
                a = _modular(obs, modulus)
            else:
                a = _consistent([d / t for t, d in obs], isinstance(values[j], int))
            if a is None:
                dep.nonlinear.add(j)
            else:
                dep.moved.setdefault(j, {})[di] = a
    for j in dep.nonlinear:
        dep.moved.pop(j, None)
    return dep


# ------------------------------------------------------------------ the linear system
@dataclass(frozen=True)
class Group:
    """Draws of one law moving the same leaves by the same coefficients: one release of
    their sum. ``members`` are draw indices; ``column`` maps leaf → coefficient."""

    members: tuple
    column: tuple
    law_key: tuple

    @property
    def k(self) -> int:
        return len(self.members)


def groups_of(moved: dict, draws: list[Draw]) -> list[Group]:
    cols: dict[int, dict] = {}
    for j, row in moved.items():
        for di, a in row.items():
            cols.setdefault(di, {})[j] = a
    buckets: dict[tuple, list] = {}
    for di in sorted(cols):
        col = tuple(sorted(cols[di].items()))
        key = (col, draws[di].law_key())
        buckets.setdefault(key, []).append(di)
    return [Group(tuple(m), key[0], key[1]) for key, m in buckets.items()]


def _eliminate(A: list, labels: list, n: int) -> list[int]:
    """Gauss–Jordan elimination of the augmented rows ``A`` in place over the first ``n``
    columns, swapping ``labels`` with their rows; the pivot columns."""
    pivots = []
    r = 0
    for c in range(n):
        p = next((i for i in range(r, len(A)) if A[i][c] != 0), None)
        if p is None:
            continue
        A[r], A[p] = A[p], A[r]
        labels[r], labels[p] = labels[p], labels[r]
        pv = A[r][c]
        A[r] = [v / pv for v in A[r]]
        for i in range(len(A)):
            if i != r and A[i][c] != 0:
                f = A[i][c]
                A[i] = [vi - f * vr for vi, vr in zip(A[i], A[r])]
        pivots.append(c)
        r += 1
    return pivots


def solve(rows: list[int], groups: list[Group], rhs: dict[int, Fraction]):
    """Solve ``Σ_g A[j, g]·s_g = rhs[j]`` for the leaves ``rows`` exactly.

    Returns ``(s, unique, bad)``: ``s`` a solution (free unknowns 0) or None, ``unique``
    whether it is the only one, ``bad`` the leaves of an inconsistent combination."""
    n = len(groups)
    A = []
    for j in rows:
        row = [Fraction(0)] * n
        for g, grp in enumerate(groups):
            for leaf, a in grp.column:
                if leaf == j:
                    row[g] = a
        A.append(row + [rhs.get(j, Fraction(0))])
    labels = list(rows)
    pivots = _eliminate(A, labels, n)
    r = len(pivots)
    bad = [labels[i] for i in range(r, len(A)) if A[i][n] != 0]
    if bad:
        return None, False, bad
    s = [Fraction(0)] * n
    for i, c in enumerate(pivots):
        s[c] = A[i][n]
    return s, len(pivots) == n, []
