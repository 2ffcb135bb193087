"""From the tracked forms of a coupled pair of runs to the rows the certificate is built on.

Two tracked runs (:mod:`.tracked`) share their draws: one on ``d``, one on ``d'``. Each
output leaf is either plain (no dependence on a draw) or ``c + Σ a·z + Σ α·w``: draws ``z``
and node values ``w``. The view is then a fixed function ``G`` of the vector ``V`` of

* every leaf's draw part ``c + Σ a·z``, and
* every node input's draw part (a node's value is a fixed function of its inputs, and by
  induction of ``V``),

provided ``G`` is the same on both datasets: the same nodes with the same plain arguments,
and the same coefficients ``a`` and ``α`` (only the constants ``c`` may differ). Every
component of ``V`` is an affine function of the draws whose shift between ``d`` and ``d'``
is the exact difference of the constants; the loss of ``V`` — the linear model's — bounds
the view's from above (post-processing). Without nodes, ``V`` is the view itself and the
interval is exact at both ends.

Established without sampling, and only from the forms:

* a plain leaf that differs between the runs is a deterministic function of the data
  (the tapes record no branch on, and no escape of, a noisy value): infinite loss;
* a leaf that is NaN or ±inf whatever the draws on one dataset and a finite form on the
  other: disjoint supports, infinite loss;
* a leaf whose atoms are all integer-valued (integer draws; rounding nodes of finite
  inputs) takes values in ``c + gℤ`` (g the gcd of its coefficients): a shift of ``c``
  outside ``gℤ`` is a support shift, infinite loss.

The probes (:mod:`.model`) cross-check the forms: a leaf that moves under a probe other than
as its form says makes the model unusable (inconclusive), never a certificate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction

import numpy as np

from ..record.affine import Lin
from ..record.leaves import same_leaf, same_tree
from ..record.model import _REL
from ..record.recorder import same_value
from ..record.tracked import TRACKED
from . import qtext

__all__ = ["FormModel", "form_model"]


@dataclass
class FormModel:
    """The rows of ``V`` and what the forms established (see the module doc)."""

    ok: bool = True
    why: list = field(default_factory=list)            # why the model cannot certify
    rows: list = field(default_factory=list)           # row ids: leaves j, then node rows
    labels: dict = field(default_factory=dict)         # row id -> text
    moved: dict = field(default_factory=dict)          # row id -> {draw index: coefficient}
    rhs: dict = field(default_factory=dict)            # row id -> exact shift of its constant
    leaves: list = field(default_factory=list)         # the rows that are output leaves
    exact: bool = True                                 # no nodes: V is the view
    infinite: list = field(default_factory=list)       # (where, detail): established ∞
    scaled: dict = field(default_factory=dict)         # leaf -> (coefs on d, on d', shift)
    plain_apart: list = field(default_factory=list)    # plain leaves that differ
    plain_equal: list = field(default_factory=list)    # plain leaves equal on d and d'
    nodes: tuple = ()

    def refuse(self, why: str) -> None:
        self.ok = False
        if why not in self.why:
            self.why.append(why)


def _node_atoms(lin) -> set:
    return {u for u in lin.a if u[0] == "w"}


def _raw(lin, index) -> dict | None:
    """The draw coefficients of a form by draw index (None when a draw is unknown)."""
    out = {}
    for u, v in lin.a.items():
        if u[0] == "w":
            continue
        di = index.get(u)
        if di is None:
            return None
        out[di] = v
    return out


def _same_params(a, b) -> bool:
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if isinstance(x, tuple) and isinstance(y, tuple):
            if not _same_params(x, y):
                return False
        elif not same_value(x, y):
            return False
    return True


def _support(lin, nodes, index, seen=None) -> set:
    """The draws a form depends on, through its nodes too."""
    seen = set() if seen is None else seen
    out = set(di for u, di in ((u, index.get(u)) for u in lin.a if u[0] != "w")
              if di is not None)
    for u in _node_atoms(lin):
        k = u[1]
        if k in seen:
            continue
        seen.add(k)
        for arr in nodes[k].inputs:
            for f in arr.reshape(-1):
                out |= _support(f, nodes, index, seen)
    return out


def _close(a: Fraction, b: Fraction) -> bool:
    return a == b or abs(a - b) <= _REL * max(abs(a), abs(b))


def _lattice(lin, nodes, draws, index) -> Fraction | None:
    """The gcd g of a form's coefficients when every atom is integer-valued (None if not)."""
    coefs = []
    for u, v in lin.a.items():
        if u[0] == "w":
            node = nodes[u[1]]
            if not node.lattice or not all(f.finite for arr in node.inputs
                                           for f in arr.reshape(-1)):
                return None
        else:
            di = index.get(u)
            if di is None or not draws[di].integer:
                return None
        coefs.append(v)
    if not coefs:
        return None
    den = math.lcm(*(c.denominator for c in coefs))
    g = math.gcd(*(int(c * den) for c in coefs))
    return Fraction(g, den)


def _modular(lin, nodes, m):
    """Under a modulus m: the input form of a leaf that is exactly ``x % m`` (a remainder
    node by the plain m), with the node's index; (None, None) otherwise."""
    if lin is None or not lin.finite or lin.c != 0 or len(lin.a) != 1:
        return None, None
    (u, v), = lin.a.items()
    if u[0] != "w" or v != 1:
        return None, None
    node = nodes[u[1]]
    if node.op != "remainder" or len(node.inputs) != 1 or \
            [p for p in node.params if not isinstance(p, tuple)] != [m]:
        return None, None
    inner = node.inputs[0].reshape(-1)
    return (inner[u[2]] if inner.size > 1 else inner[0]), node.index


_COMPARE = {"less": (True, False), "less_equal": (True, True),
            "greater": (False, False), "greater_equal": (False, True)}
_SWAP = {"less": "greater", "less_equal": "greater_equal", "greater": "less",
         "greater_equal": "less_equal"}


def _bounded_range(lin, draws, index):
    """[lo, hi] (closed) of a form with one atom, a draw of a bounded law (``random``,
    ``uniform``: the draw minus its low end lies in [0, width]); None otherwise."""
    if not lin.finite or len(lin.a) != 1:
        return None
    (u, a), = lin.a.items()
    di = index.get(u)
    if di is None or draws[di].method not in ("random", "uniform") or draws[di].scale is None:
        return None
    w = draws[di].scale
    ends_ = (lin.c, lin.c + a * w)
    return min(ends_), max(ends_)


def _fold(node, draws, index):
    """The constant a comparison of a bounded draw with a plain threshold takes on the
    draw's whole support (a flat list of 0/1), or None when it is not constant."""
    op = node.op
    if op not in _COMPARE or len(node.inputs) != 1 or len(node.params) != 2:
        return None
    if node.params[0] is TRACKED:
        t = node.params[1]
    elif node.params[1] is TRACKED:
        t, op = node.params[0], _SWAP[op]
    else:
        return None
    x = node.inputs[0]
    if x.shape != node.shape:
        return None
    try:
        ts = np.broadcast_to(np.asarray(t, dtype=float), x.shape).reshape(-1)
    except (ValueError, TypeError):
        return None
    below, equal = _COMPARE[op]          # op(X, t): X < t (below) or X > t, equal allowed?
    out = []
    for lin, tv in zip(x.reshape(-1), ts):
        r = _bounded_range(lin, draws, index)
        if r is None or not math.isfinite(tv):
            return None
        lo, hi = r
        t_ = Fraction(float(tv))
        if below:
            true = hi < t_ or (equal and hi == t_)
            false = lo > t_ or (not equal and lo == t_)
        else:
            true = lo > t_ or (equal and lo == t_)
            false = hi < t_ or (not equal and hi == t_)
        if not (true or false):
            return None
        out.append(1 if true else 0)
    return out


def _substitute(lin, folded: dict):
    """A form with the atoms of constant nodes replaced by their values."""
    if not lin.finite or not any(u[0] == "w" and u[1] in folded for u in lin.a):
        return lin
    c, a = lin.c, {}
    for u, v in lin.a.items():
        if u[0] == "w" and u[1] in folded:
            c += v * folded[u[1]][u[2]]
        else:
            a[u] = v
    return Lin(c, a)


def _folded_nodes(na, nb, draws, index) -> dict:
    """Comparisons whose value is the same constant on both runs, over the whole support of
    the bounded draws they compare (they carry no dependence on the noise)."""
    folded: dict = {}
    sub = np.frompyfunc(lambda f: _substitute(f, folded), 1, 1)
    for a, b in zip(na, nb):
        a.inputs = tuple(np.asarray(sub(x), dtype=object).reshape(x.shape) for x in a.inputs)
        b.inputs = tuple(np.asarray(sub(x), dtype=object).reshape(x.shape) for x in b.inputs)
        va, vb = _fold(a, draws, index), _fold(b, draws, index)
        if va is not None and va == vb:
            folded[a.index] = va
    return folded


# rounding to the integers that commutes with an integer shift: R(x + n) = R(x) + n (for rint
# and around, up to the ties, which have probability 0 for a continuous draw)
_EQUIVARIANT = frozenset({"rint", "floor", "ceil", "around", "round", "__round__",
                          "__floor__", "__ceil__"})
_UNBOUNDED = ("laplace", "normal", "standard_normal", "logistic", "gumbel")


def _single_node_leaf(la, lb):
    """(node index, element, α) when both forms are ``c + α·w`` for one node value w."""
    if la is None or lb is None or not (la.finite and lb.finite) or la.a != lb.a or \
            len(la.a) != 1:
        return None
    (u, alpha), = la.a.items()
    return (u[1], u[2], alpha) if u[0] == "w" else None


def _node_input(node, e):
    """The input form of a one-input node at element e (None when it is not one draw)."""
    if len(node.inputs) != 1:
        return None
    flat = node.inputs[0].reshape(-1)
    f = flat[e] if flat.size > 1 else flat[0]
    return f if f.finite and len(f.a) == 1 and next(iter(f.a))[0] != "w" else None


def _absorb(fm, fa, fb, nd, np_, draws, index, paths, *, modulus, pure):
    """Leaves ``c + α·R(c₀ + a·z)`` of one draw z, where R rounds to the integers and
    commutes with integer shifts, and c moves by α·n (n an integer): the view on d' is the
    view on d with z moved by n/a — a release of z's law (an upper bound by
    post-processing; exact in pure ε for a Laplace z, whose rounded law keeps its geometric
    tails, ratio e^{1/(|a|b)} a unit). Leaves ``c + α·clip(c₀ + a·z, lo, hi)`` of an unbounded z
    whose c moves: atoms at c + α·lo and c + α·hi that move, ε = ∞ (pure). Returns the
    absorbed nodes and whether every absorption is exact."""
    absorbed, exact = set(), True
    if modulus is not None:
        return absorbed, exact
    uses = _node_uses(fa, nd)
    for j, (la, lb) in enumerate(zip(fa, fb)):
        one = _one_draw_node(la, lb, nd, np_, uses, index)
        if one is None:
            continue
        k, alpha, a, di, node = one
        where = paths[j] if paths[j] == "output" else f"output{paths[j]}"
        dc = lb.c - la.c
        if node.op in _EQUIVARIANT and not [p for p in node.params
                                            if not isinstance(p, tuple) and p not in (0, None)]:
            n = dc / alpha
            if n.denominator != 1:
                continue                     # off the lattice: the lattice rule's ∞
            fm.rows.append(j)
            fm.leaves.append(j)
            fm.labels[j] = where
            fm.moved[j] = {di: a}
            fm.rhs[j] = n
            absorbed.add(k)
            # exact for pure ε only: rounding may lower ε(δ) at δ > 0
            exact = exact and draws[di].method == "laplace" and pure
        elif node.op == "clip" and pure and dc != 0 and draws[di].method in _UNBOUNDED:
            if _clipped_atoms(fm, where, node, la, lb, alpha, draws[di].method):
                absorbed.add(k)
    return absorbed, exact


def _node_uses(fa, nd) -> dict[int, int]:
    """How many times each node's value is used, by the leaves and by other nodes."""
    uses: dict[int, int] = {}
    for f in list(fa) + [g for n in nd for arr in n.inputs for g in arr.reshape(-1)]:
        if f is not None and f.finite:
            for u in f.a:
                if u[0] == "w":
                    uses[u[1]] = uses.get(u[1], 0) + 1
    return uses


def _one_draw_node(la, lb, nd, np_, uses, index):
    """A leaf ``c + α·N(c₀ + a·z)`` of one node N used once, on one recorded draw z with the
    same input on d and d': ``(node index, α, a, draw index, node)``, or None."""
    hit = _single_node_leaf(la, lb)
    if hit is None:
        return None
    k, e, alpha = hit
    node, other = nd[k], np_[k]
    if uses.get(k) != 1 or (node.inputs[0].shape != node.shape and
                            node.inputs[0].size != 1):
        return None
    fin, fin_p = _node_input(node, e), _node_input(other, e)
    if fin is None or fin_p is None or fin.a != fin_p.a or fin.c != fin_p.c:
        return None
    (u, a), = fin.a.items()
    di = index.get(u)
    if di is None:
        return None
    return k, alpha, a, di, node


def _clipped_atoms(fm, where, node, la, lb, alpha, method) -> bool:
    """A clip of an unbounded draw before the data: its atoms at the bounds move between d
    and d' (ε = ∞, pure). True when absorbed so."""
    bounds = [p for p in node.params if not isinstance(p, tuple)]
    if len(bounds) != 2 or not all(np.ndim(b) == 0 for b in bounds):
        return False
    lo, hi = (Fraction(float(b)) for b in bounds)
    if not lo < hi:
        return False
    atoms_d = {la.c + alpha * lo, la.c + alpha * hi}
    atoms_p = {lb.c + alpha * lo, lb.c + alpha * hi}
    if atoms_d == atoms_p:
        return False
    fm.infinite.append((where, f"clip({qtext(lo)}, {qtext(hi)}) of {method} "
                        f"before the data: atoms at {qtext(min(atoms_d))} and "
                        f"{qtext(max(atoms_d))} on d, at {qtext(min(atoms_p))} and "
                        f"{qtext(max(atoms_p))} on d' — disjoint point masses"))
    return True


def _centred(q: Fraction, m: int) -> Fraction:
    return Fraction((int(q) + m // 2) % m - m // 2) if q.denominator == 1 else q


def _runs_refused(fm, trec, trp, rec, rp) -> bool:
    """Refuse runs the forms cannot read: a tracked run that failed or differs from the
    plain run, a condition or an escape on either tape. True when refused."""
    if trec.tree is None or trp.tree is None:
        fm.refuse("the mechanism fails when its draws are tracked ("
                  f"{trec.error or trp.error}): the dependence on the noise is not known")
        return True
    if not same_tree(trec.tree, rec.tree) or not same_tree(trp.tree, rp.tree):
        fm.refuse("the mechanism gives another output when its draws are tracked (it "
                  "inspects the type of its noise): the dependence on the noise is not known")
        return True
    for tape in (trec.tape, trp.tape):
        if tape.conditions:
            fm.refuse(f"{tape.conditions[0]}: the noise steers the control flow")
        if tape.escapes:
            fm.refuse(f"{tape.escapes[0]}: past it, the dependence on the noise is not "
                      "tracked")
    return not fm.ok


def _nodes_refused(fm, nd, np_) -> bool:
    """Refuse nodes that are not one fixed post-processing on d and d' (other operations,
    plain arguments or input coefficients). True when refused."""
    if len(nd) != len(np_):
        fm.refuse(f"{len(nd)} operation(s) on noisy values on d but {len(np_)} on d'")
        return True
    for a, b in zip(nd, np_):
        if a.op != b.op or a.shape != b.shape or len(a.inputs) != len(b.inputs) or \
                not _same_params(a.params, b.params):
            fm.refuse(f"{a.describe()} is applied differently on d and d' (its plain "
                      "arguments come from the data): not a fixed post-processing")
            return True
        for x, y in zip(a.inputs, b.inputs):
            if x.shape != y.shape or any(p.a != q.a for p, q in zip(x.reshape(-1),
                                                                   y.reshape(-1))):
                fm.refuse(f"the input of {a.describe()} depends on the noise differently on "
                          "d and d'")
                return True
    return False


def _modular_views(fm, fa, fb, nd, np_, modulus, paths) -> set | None:
    """Under a modulus, each leaf read as the ``x % m`` the code computes: the remainder
    nodes read as the modular view, or None (refused)."""
    wrapped = set()
    for j in range(len(fa)):
        ia, ka = _modular(fa[j], nd, modulus)
        ib, kb = _modular(fb[j], np_, modulus)
        if ia is None or ib is None or ka != kb:
            fm.refuse(f"output{paths[j]} is not computed as x % {modulus} in the code: "
                      "its modular view is not established")
            return None
        fa[j], fb[j] = ia, ib
        wrapped.add(ka)
    return wrapped


def _plain_leaf(fm, j, where, la, lb, ya, yb, moved) -> None:
    """A leaf no tracked draw reaches on one dataset or both."""
    pa = la is None or not la.finite
    pb = lb is None or not lb.finite
    if pa and pb:
        if moved:
            fm.refuse(f"{where} moves with the noise but carries no tracked dependence")
        elif same_leaf(ya[j], yb[j]):
            fm.plain_equal.append(j)
        else:
            fm.plain_apart.append(j)
            fm.infinite.append((where, f"{ya[j]!r} on d, {yb[j]!r} on d': a "
                                "function of the data alone (no draw reaches it)"))
        return
    plain, value = ("d", ya[j]) if pa else ("d'", yb[j])
    if isinstance(value, float) and not math.isfinite(value):
        fm.infinite.append((where, f"{value!r} on {plain} whatever the draws, a "
                            "finite noisy value on the other dataset"))
    else:
        fm.refuse(f"{where} carries noise on one dataset only")


def _rescaled_leaf(fm, j, where, la, lb, index) -> None:
    """A leaf the noise reaches with other coefficients on d and d' (refused; the raw
    scales kept for the two-Gaussians reading)."""
    ra, rb = _raw(la, index), _raw(lb, index)
    if ra is not None and rb is not None and not _node_atoms(la) and not _node_atoms(lb):
        fm.scaled[j] = (ra, rb, lb.c - la.c)
    fm.refuse(f"the noise reaches {where} with other coefficients on d and d'")


def _probes_disagree(fm, j, where, la, lb, dep, dep_p, nd, *, index, modulus) -> None:
    """The probes cross-check a leaf's forms on d and d' (refused where they disagree)."""
    for dp_, lin in ((dep, la), (dep_p, lb)):
        raw = _raw(lin, index)
        if raw is None:
            fm.refuse(f"{where} depends on a draw the trace did not record")
            return
        probed = dp_.moved.get(j, {})
        if not _node_atoms(lin):
            if j in dp_.nonlinear or set(probed) != set(raw) or any(
                    not _close(probed[di], raw[di]) for di in raw):
                fm.refuse(f"{where} moves under a probe other than as its tracked form "
                          "says: a dependence the trace did not see")
                return
        elif modulus is None and not set(probed) <= _support(lin, nd, index):
            fm.refuse(f"{where} moves under a probe of a draw it does not depend on")
            return


def _leaf_row(fm, j, where, la, lb, nd, draws, index, modulus) -> None:
    """A noisy leaf with equal coefficients on d and d': its row (the draws it moves and
    its shift), and the infinite losses its shift shows on its own."""
    dc = lb.c - la.c
    if modulus is not None:
        dc = _centred(dc, modulus)
    g = None if modulus is not None else _lattice(la, nd, draws, index)
    if not la.a and dc != 0:
        fm.infinite.append((where, f"moves by {qtext(dc)} between d and d' with no noise"))
    elif g is not None and (dc / g).denominator != 1:
        fm.infinite.append((where, f"takes values in c + {qtext(g)}ℤ (integer-valued "
                            f"noise), and c moves by {qtext(dc)} between d and d': the "
                            "supports are disjoint"))
    if j in fm.moved:                     # a rounded draw's release (absorbed above)
        return
    fm.rows.append(j)
    fm.leaves.append(j)
    fm.labels[j] = where
    fm.moved[j] = _raw(la, index)
    fm.rhs[j] = dc


def _node_rows(fm, nd, np_, skip, index, row) -> None:
    """The rows of the nodes' inputs (each node a fixed post-processing of them)."""
    for a, b in zip(nd, np_):
        if a.index in skip:
            continue
        for x, y in zip(a.inputs, b.inputs):
            for la, lb in zip(x.reshape(-1), y.reshape(-1)):
                if not (la.finite and lb.finite):
                    if not same_leaf(float(la.c), float(lb.c)):
                        fm.refuse(f"the input of {a.describe()} is {float(la.c)!r} on d but "
                                  f"{float(lb.c)!r} on d'")
                    continue
                raw = _raw(la, index)
                if raw is None:
                    fm.refuse(f"the input of {a.describe()} depends on an unrecorded draw")
                    continue
                fm.rows.append(row)
                fm.labels[row] = f"the input of {a.describe()}"
                fm.moved[row] = raw
                fm.rhs[row] = lb.c - la.c
                row += 1


def form_model(trec, trp, rec, rp, draws, dep, dep_p, varying=frozenset(),
               modulus=None, pure=True) -> FormModel:
    """The rows of a coupled pair's tracked runs ``trec`` (on d) and ``trp`` (on d'),
    checked against the plain runs ``rec``/``rp`` and the probes ``dep``/``dep_p``. Under
    a ``modulus`` m, every leaf must be computed as ``x % m`` in the code; its row is ``x``
    with its shift read mod m (the wrapped release is certified as such)."""
    fm = FormModel()
    if _runs_refused(fm, trec, trp, rec, rp):
        return fm
    nd, np_ = trec.tape.nodes, trp.tape.nodes
    if _nodes_refused(fm, nd, np_):
        return fm
    index = {(d.call, d.element): i for i, d in enumerate(draws)}
    paths = rec.tree.paths
    folded = _folded_nodes(nd, np_, draws, index)
    fa = [f if f is None else _substitute(f, folded) for f in trec.tree.forms]
    fb = [f if f is None else _substitute(f, folded) for f in trp.tree.forms]
    wrapped = set()                    # remainder nodes read as the modular view
    if modulus is not None:
        wrapped = _modular_views(fm, fa, fb, nd, np_, modulus, paths)
        if wrapped is None:
            return fm
    ya, yb = rec.tree.values, rp.tree.values
    absorbed, exact_absorbed = _absorb(fm, fa, fb, nd, np_, draws, index, paths,
                                       modulus=modulus, pure=pure)
    skip = wrapped | set(folded) | absorbed
    fm.nodes = tuple(n for n in nd if n.index not in skip)
    fm.exact = not fm.nodes and exact_absorbed
    for j, (la, lb) in enumerate(zip(fa, fb)):
        where = paths[j] if paths[j] == "output" else f"output{paths[j]}"
        if la is None or not la.finite or lb is None or not lb.finite:
            moved = j in dep.moved_leaves() or j in dep_p.moved_leaves() or j in varying
            _plain_leaf(fm, j, where, la, lb, ya, yb, moved)
        elif la.a != lb.a:
            _rescaled_leaf(fm, j, where, la, lb, index)
        else:
            _probes_disagree(fm, j, where, la, lb, dep, dep_p, nd, index=index, modulus=modulus)
            if fm.ok:
                _leaf_row(fm, j, where, la, lb, nd, draws, index, modulus)
    if fm.ok:
        _node_rows(fm, nd, np_, skip, index, len(paths))
    return fm
