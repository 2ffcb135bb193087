"""Every path a mechanism can take on one dataset, found by forcing its branches.

The explorer runs the mechanism steered (:mod:`..record.steered`): the first run follows
the recorded draws; every branch it meets is a decision among alternatives, each a set of
linear conditions. For each decision past the forced prefix and each other alternative
whose conditions, with the path's so far, may hold (:func:`.measure.feasible`, exact and
never wrong to say "may"), the prefix with that alternative is run next — depth first, each
path once (the systematic path enumeration of concolic testing; Godefroid, Klarlund and
Sen, PLDI 2005). The paths found partition the draws' space up to sets of probability 0.

Vectorised code compares every query even when the output reads only the first few
answers, so paths that differ only in branches the output ignores are then *merged*: paths
with equal outputs and equal decisions but at one branch become one path free at that
branch, when every alternative missing from them is impossible with the rest of their
conditions — the union of their regions is then exactly the region without the branch's
conditions.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

import numpy as np

from ..record.affine import MEMO
from ..record.branches import Condition, is_draw, linear
from ..record.leaves import leaf_fraction, same_leaf
from ..record.recorder import as_fraction
from ..record.steered import Steered
from .laws import finite_support, law_of
from .measure import Refused, feasible, inside, probability, witness

__all__ = ["Path", "Exploration", "explore", "MAX_PATHS"]

#: Paths explored on one dataset before the exploration is refused.
MAX_PATHS = 4096
FREE = None


@dataclass(frozen=True)
class Path:
    """One path (possibly merged): ``decisions`` (an alternative per branch, None where the
    path is free), the branches' ``keys``, ``alternatives`` (each branch's), the output
    ``tree`` of a run along it, ``laws`` of the draws its conditions and releases read,
    the ``wheres`` of its branches and, per released draw, its call's ``sources``
    (method, scale, privtools law)."""

    decisions: tuple
    keys: tuple
    alternatives: tuple
    tree: object
    laws: dict
    wheres: tuple = ()
    sources: dict = field(default_factory=dict)   # released atom -> (method, scale, law)
    calls: tuple = ()                             # the calls of a run along the path

    def conditions(self) -> list:
        out = []
        for d, alts in zip(self.decisions, self.alternatives):
            if d is not FREE:
                out += alts[d]
        return out

    def output_key(self) -> tuple:
        """The output along the path: its structure and each leaf — a plain value, or the
        exact affine form of the draws it releases."""
        t = self.tree
        leaves = []
        for v, f in zip(t.values, t.forms or (None,) * len(t.values)):
            if f is None or not f.a:
                leaves.append(("value", _plain(v)))
            else:
                leaves.append(("release", f.c, tuple(sorted(f.a.items(), key=repr))))
        return (t.structure, tuple(leaves))


def _plain(v):
    if isinstance(v, float) and v != v:
        return ("nan",)
    return v


@dataclass
class Exploration:
    """What the explorer found on one dataset: ``paths`` (merged), the number of ``runs``
    and of paths before merging (``found``), and ``refused`` — why the paths do not decide
    the mechanism (None: they do)."""

    paths: list = field(default_factory=list)
    runs: int = 0
    found: int = 0
    refused: str | None = None
    assumptions: list = field(default_factory=list)   # branches on the data (symbolic)
    groups: dict | None = None       # the outputs' certified groups, once computed


def _params_key(call) -> tuple:
    out = []
    for k, v in sorted(call.params.items(), key=lambda kv: kv[0]):
        if isinstance(v, np.ndarray):
            out.append((k, v.dtype.str, v.shape, v.tobytes()))
        else:
            out.append((k, repr(v)))
    return (call.method, call.family, call.shape, tuple(out), id(call.law) if
            call.law is not None and not hasattr(call.law, "__eq__") else repr(call.law))


class _Laws:
    """The draws' laws, read once per distinct call."""

    def __init__(self):
        self.cache: dict = {}

    def of(self, calls, atoms) -> dict:
        out = {}
        for u in atoms:
            c = calls[u[0]]
            key = (_params_key(c), u[1])
            if key not in self.cache:
                self.cache[key] = law_of(c, u[1])
            out[u] = self.cache[key]
        return out


def _support(calls, u):
    return finite_support(calls[u[0]], u[1]) if u[0] < len(calls) else None


def _atoms(run, st) -> set:
    """The draws the run's conditions and outputs read."""
    atoms = set()
    for br in st.branches:
        for alt in br.alternatives:
            for c in alt:
                atoms.update(u for u in c.form.a if is_draw(u))
    for f in run.tree.forms or ():
        if f is not None:
            atoms.update(u for u in f.a if is_draw(u))
    return atoms


def _sources(run) -> dict:
    out = {}
    for f in run.tree.forms or ():
        for u in (f.a if f is not None else ()):
            if not is_draw(u):
                continue
            c = run.calls[u[0]]
            scale = None
            if c.scale is not None:
                scale = as_fraction(np.asarray(c.scale).reshape(-1)[u[1]])
            elif c.family in ("location", "scale"):
                scale = Fraction(1)
            out[u] = (c.method, scale, c.law)
    return out


def _why_not(run, st) -> str | None:
    """Why a steered run's path cannot be read as conditions (None: it can)."""
    if run.tree is None:
        return f"the mechanism failed on a forced path ({run.error})"
    if st.problem is not None:
        return st.problem
    tape = run.tape
    if tape is not None and (tape.escapes or tape.conditions or tape.broken):
        return (tape.escapes or tape.conditions or [tape.broken])[0]
    for p, f in zip(run.tree.paths, run.tree.forms or ()):
        if f is not None and f.a and not linear(f):
            return (f"the output{p} is a function of the noise the trace does not follow "
                    "(not affine on the path)")
    return None


class _Feasible:
    """:func:`.measure.feasible` of condition lists, remembered by the conditions' identity
    (the memo keeps them alive while the exploration runs)."""

    def __init__(self):
        self.seen: dict = {}

    def __call__(self, conds, laws) -> bool:
        key = tuple(id(c) for c in conds)
        hit = self.seen.get(key)
        if hit is None or any(a is not b for a, b in zip(hit[1], conds)):
            hit = self.seen[key] = (feasible(conds, laws), tuple(conds))   # kept alive
        return hit[0]


def explore(runner, data, recorded, *, max_paths: int = MAX_PATHS,
            symbolic: bool = False) -> Exploration:
    """Every path of ``mechanism(data, 1, rng)`` (see the module doc), merged. With
    ``symbolic`` the data are atoms (a proof's run, :mod:`.align`): branches on the data
    alone are taken as on ``data`` and listed as assumptions, and the paths carry the
    data's part of every condition and release."""
    old = MEMO.table
    MEMO.table = {}
    try:
        return _explore(runner, data, recorded, max_paths, symbolic)
    finally:
        MEMO.table = old


class _Search:
    """The state of one exploration: the pending prefixes and the paths found."""

    def __init__(self, runner, data, recorded, max_paths, symbolic=False):
        self.runner, self.data, self.recorded, self.max_paths = (runner, data, recorded,
                                                                 max_paths)
        self.symbolic = symbolic
        self.feasible = _Feasible()
        self.laws = _Laws()
        self.stack = [((), ())]
        self.found: list = []
        self.ex = Exploration()

    def step(self) -> str | None:
        """Run the next prefix; push its feasible siblings; keep its path (why not)."""
        prefix, expected = self.stack.pop()
        st = Steered(forced=prefix, support=_support, symbolic=self.symbolic)
        run = self.runner.steered(self.data, self.recorded, st)
        self.ex.runs += 1
        self.ex.assumptions += st.assumptions
        why = _why_not(run, st)
        if why is None and tuple(b.key() for b in st.branches[:len(prefix)]) != expected:
            why = ("the mechanism's branches differ between runs that follow the same "
                   "path (it depends on something besides its draws and data)")
        if why is not None:
            return why
        laws = self.laws.of(run.calls, _atoms(run, st))
        bad = next((u for u, v in laws.items() if v is None), None)
        if bad is not None:
            return (f"the law of {run.calls[bad[0]].method} (call {bad[0]}) is not one the "
                    "path integrator knows")
        keys = tuple(b.key() for b in st.branches)
        if self._siblings(st, prefix, keys, laws):
            self.found.append(Path(tuple(st.taken), keys,
                                   tuple(b.alternatives for b in st.branches), run.tree,
                                   laws, tuple(b.where for b in st.branches),
                                   _sources(run), run.calls))
        if len(self.found) + len(self.stack) > self.max_paths:
            return f"more than {self.max_paths} paths on one dataset"
        return None

    def _siblings(self, st, prefix, keys, laws) -> bool:
        """Push every feasible other alternative past the prefix; whether the run's own
        path is feasible."""
        conds: list = []
        for j, (br, pick) in enumerate(zip(st.branches, st.taken)):
            if j >= len(prefix):
                for alt in range(br.options):
                    if alt != pick and self.feasible(conds + list(br.alternatives[alt]),
                                                     laws):
                        self.stack.append((tuple(st.taken[:j]) + (alt,), keys[:j + 1]))
            conds += br.alternatives[pick]
            if j >= len(prefix) and not self.feasible(conds, laws):
                return False
        return True


def _explore(runner, data, recorded, max_paths, symbolic) -> Exploration:
    search = _Search(runner, data, recorded, max_paths, symbolic)
    ex = search.ex
    while search.stack:
        why = search.step()
        if why is not None:
            ex.refused = why
            return ex
    ex.found = len(search.found)
    ex.paths = merge(search.found, search.feasible)
    values = _data_values(data) if symbolic else None
    for p in ex.paths:
        why = check_point(runner, data, p if values is None else concrete(p, values))
        ex.runs += 1
        if why is not None:
            ex.refused = why
            return ex
    return ex


def _data_values(data) -> dict:
    arr = np.asarray(data, dtype=np.float64).reshape(-1)
    return {("q", i): as_fraction(v) for i, v in enumerate(arr)}


def concrete(path: Path, values: dict) -> Path:
    """A symbolic run's path with the data's values put in for their atoms."""
    alts = tuple(tuple(tuple(Condition(c.form.fixing(values), c.strict) for c in alt)
                       for alt in br) for br in path.alternatives)
    tree = path.tree
    forms = None if tree.forms is None else tuple(
        None if f is None else f.fixing(values) for f in tree.forms)
    return replace(path, alternatives=alts, tree=replace(tree, forms=forms))


def _served(call, point: dict):
    """A copy of ``call`` whose standard draws give the atoms of ``point``."""
    z = np.array(call.z, dtype=float if call.family in ("location", "scale") else
                 np.asarray(call.z).dtype, copy=True)
    flat = z.reshape(-1)
    plain = call.family not in ("location", "scale") or "source" in call.params
    for (k, e), u in point.items():
        if k != call.index:
            continue
        if plain:
            flat[e] = float(u) if flat.dtype.kind == "f" else int(u)
            continue
        scale = 1.0 if call.scale is None else float(np.asarray(call.scale).reshape(-1)[e])
        flat[e] = float(u) / scale
    return replace(call, z=z)


def check_point(runner, data, path: Path) -> str | None:
    """Run the mechanism plainly (no tracking) at a point inside the path's region: its
    output must be the path's, its releases the path's forms at the point — the evidence
    that the tracked run computed what the plain program computes (None: it did)."""
    conds = path.conditions()
    point = witness(conds, path.laws)
    if point is None:
        try:
            if probability(conds, path.laws) == 0:
                return None                      # a region the relaxation kept, empty
        except Refused as exc:
            return str(exc)
        return ("no point inside one of the paths could be found to check the tracked "
                "run against a plain one")
    for f in path.tree.forms or ():
        for u in (f.a if f is not None else ()):
            if u not in point:                   # a released draw no condition reads
                point[u] = inside(path.laws[u])
    run = runner.replay(data, tuple(_served(c, point) for c in path.calls))
    what = "a plain run at a point of a path "
    if run.tree is None:
        return what + f"failed ({run.error})"
    if run.diverged is not None:
        return what + f"made other calls ({run.diverged})"
    if run.tree.structure != path.tree.structure:
        return what + "gave an output of another structure"
    return _compare_leaves(run.tree, path.tree, point, what)


def _compare_leaves(plain, tracked, point, what) -> str | None:
    forms = tracked.forms or (None,) * len(tracked.values)
    for j, (v, f, want) in enumerate(zip(plain.values, forms, tracked.values)):
        if f is None or not f.a:
            if not same_leaf(v, want) and not _close_leaf(v, f):
                return what + f"gave output{plain.paths[j]} = {v!r}, the tracked run {want!r}"
            continue
        exact = f.c + sum(a * point[u] for u, a in f.a.items())
        got = leaf_fraction(v)
        if got is None or abs(got - exact) > abs(exact) * _REL + _ABS:
            return (what + f"gave output{plain.paths[j]} = {v!r}, but the tracked form "
                    f"gives {float(exact)!r} there (the mechanism computes differently when "
                    "its draws are tracked)")
    return None


_REL = Fraction(1, 10**9)
_ABS = Fraction(1, 10**12)


def _close_leaf(v, f) -> bool:
    if f is None or not f.finite:
        return False
    got = leaf_fraction(v)
    return got is not None and abs(got - f.c) <= abs(f.c) * _REL + _ABS


def _conds_except(path: Path, pos: int) -> list:
    out = []
    for i, (d, alts) in enumerate(zip(path.decisions, path.alternatives)):
        if i != pos and d is not FREE:
            out += alts[d]
    return out


def _law_sig(path: Path) -> tuple:
    """The laws a path reads, by identity (one object per distinct call and element): paths
    merge only where every draw has the same law on both."""
    return tuple(sorted(((u, id(law)) for u, law in path.laws.items()), key=repr))


def merge(paths: list, feasible=feasible) -> list:
    """Paths merged at branches their output ignores (see the module doc)."""
    current = list(paths)
    changed = True
    while changed:
        changed = False
        width = max((len(p.decisions) for p in current), default=0)
        for pos in reversed(range(width)):
            buckets: dict = {}
            for i, p in enumerate(current):
                if len(p.decisions) <= pos or p.decisions[pos] is FREE:
                    continue
                masked = p.decisions[:pos] + (FREE,) + p.decisions[pos + 1:]
                buckets.setdefault((p.keys, masked, p.output_key(), _law_sig(p)),
                                   []).append(i)
            drop, add = set(), []
            for members in buckets.values():
                if len(members) < 2:
                    continue
                first = current[members[0]]
                present = {current[i].decisions[pos] for i in members}
                rest = _conds_except(first, pos)
                alts = first.alternatives[pos]
                if any(feasible(rest + list(alts[a]), first.laws)
                       for a in range(len(alts)) if a not in present):
                    continue
                laws = {}
                for i in members:
                    laws.update(current[i].laws)
                drop.update(members)
                add.append(Path(first.decisions[:pos] + (FREE,) + first.decisions[pos + 1:],
                                first.keys, first.alternatives, first.tree, laws,
                                first.wheres, first.sources, first.calls))
            if drop:
                current = [p for i, p in enumerate(current) if i not in drop] + add
                changed = True
    return current
