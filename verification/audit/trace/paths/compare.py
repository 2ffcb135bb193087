"""The pair's certified loss from its paths: the law of every output on d and on d'.

Each path's output is a fixed structure with plain leaves and *releases* — leaves that are
``c + a·u`` for a draw ``u``. Paths are grouped by their output with each release's centre
``c`` left out; a group's probability is the sum of its paths' certified probabilities.

* A release whose draw is in none of the path's conditions is *separate*: given the
  group, it is its law shifted to ``c``. The group's worst log-ratio over its outputs is
  then ``|ln(P/P')| + Σ`` the releases' pure losses for their shifts (each coordinate's
  supremum is reached independently), exactly.
* A release whose draw is also compared (the sparse vector releasing its noisy answer,
  noisy max releasing the maximum) is *coupled*: its density at ``v`` is the draw's density
  at ``u* = (v − c)/a`` times the probability of the other conditions with ``u = u*``. The
  ratio of the two datasets' densities is certified at chosen points ``v`` (off every
  breakpoint, where the densities are continuous): each is a lower bound of the pure loss,
  so a coupled group gives a lower end only.

δ = 0: the pure ε is the largest group loss. δ > 0: for outputs without releases the exact
ε(δ) of the two discrete laws (δ(ε) = max over the two directions of Σ max(0, P − e^ε P'),
inverted by bisection on certified bounds); with releases, the discrete marginal's ε(δ)
is a lower end (post-processing) and the pure ε an upper end.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field, replace
from fractions import Fraction

import mpmath
from flint import arb

from privtools.certified import balls as _balls

from ..certify import release_of
from ..record.affine import Lin
from ..record.branches import Condition, is_draw
from .explore import Exploration, Path
from .measure import PREC, Refused, probability

__all__ = ["PairLoss", "pair_loss", "Group"]

_MAX_VARIANTS = 4096
_POINTS = (-64, -24, -8, -3, -1, Fraction(-1, 3), Fraction(1, 5), Fraction(2, 3), 2, 5, 12,
           32, 64)


@dataclass
class Group:
    """The paths of one dataset with one output (release centres aside)."""

    key: tuple
    paths: list = field(default_factory=list)
    probability: arb = None
    centres: tuple = ()
    releases: tuple = ()              # per release leaf: (leaf index, atom, coefficient)
    coupled: bool = False
    members: list = field(default_factory=list)   # (path, centres, releases)


@dataclass(frozen=True)
class PairLoss:
    """The certified loss the paths give: ends ``(lo, hi)`` of ε(δ) (mpf, ``inf``
    allowed), the ``worst`` output (text) with its certified probabilities on d and d' (or,
    with ``density``, the densities of its released values at the point it names) and the
    conditions of its path, the number of paths (``paths_d``, ``paths_dp``), or
    ``refused`` (why the paths decide nothing)."""

    lo: mpmath.mpf
    hi: mpmath.mpf
    worst: str = ""
    probabilities: tuple = ()
    condition: str = ""
    paths_d: int = 0
    paths_dp: int = 0
    refused: str | None = None
    density: bool = False            # ``probabilities`` are densities of released values


# ---------------------------------------------------------------------- groups
def _group_key(path: Path):
    """(key, centres, releases, coupled) of a path's output."""
    tree = path.tree
    cond_atoms = set()
    for c in path.conditions():
        cond_atoms.update(c.form.a)
    leaves, centres, releases, coupled, seen = [], [], [], False, set()
    for j, (v, f) in enumerate(zip(tree.values, tree.forms or (None,) * len(tree.values))):
        if f is None or not f.a:
            leaves.append(("value", ("nan",) if isinstance(v, float) and v != v else v))
            continue
        if len(f.a) != 1:
            raise Refused(f"the output{tree.paths[j]} releases a combination of "
                          f"{len(f.a)} draws on a branched path")
        (u, a), = f.a.items()
        if u in seen:
            raise Refused(f"one draw released in two outputs ({tree.paths[j]})")
        seen.add(u)
        coupled = coupled or u in cond_atoms
        law = path.laws[u]
        leaves.append(("release", law.text, a))
        centres.append(f.c)
        releases.append((j, u, a))
    return (tree.structure, tuple(leaves)), tuple(centres), tuple(releases), coupled


def _variants(path: Path) -> list:
    """The path split by the values of the finite discrete draws its outputs release (an
    index from ``choice``, ``integers``, ``binomial``): one path per combination, with the
    draws fixed by equality conditions and the outputs read as plain values."""
    tree = path.tree
    forms = tree.forms or (None,) * len(tree.values)
    # finite laws only: a window of an unbounded law leaves values out, and a value absent
    # from one side's window is not a value of probability 0 there (such a release is
    # judged by its shift, as a separate release)
    disc = sorted({u for f in forms if f is not None for u in f.a
                   if is_draw(u) and path.laws[u].finite}, key=repr)
    if not disc:
        return [path]
    supports = [range(int(path.laws[u].lo), int(path.laws[u].hi) + 1) for u in disc]
    if math.prod(len(r) for r in supports) > _MAX_VARIANTS:
        raise Refused(f"the outputs release discrete draws of more than {_MAX_VARIANTS} "
                      "joint values")
    out = []
    for combo in itertools.product(*supports):
        fixed = {u: Fraction(v) for u, v in zip(disc, combo)}
        eq = []
        for u, v in fixed.items():
            at = Lin(-v, {u: Fraction(1)})
            eq += [Condition(at, False), Condition(-at, False)]
        new_forms = tuple(None if f is None else f.fixing(fixed) for f in forms)
        values = tuple(v if f is None or f.a else f.c
                       for v, f in zip(tree.values, new_forms))
        out.append(replace(path, decisions=path.decisions + (0,),
                           alternatives=path.alternatives + ((tuple(eq),),),
                           tree=replace(tree, forms=new_forms, values=values)))
    return out


def groups_of(ex: Exploration) -> dict:
    """The outputs of an exploration's paths, grouped, with their certified probabilities
    (computed once per exploration: a search reuses a dataset's)."""
    if ex.groups is None:
        ex.groups = _groups_of(ex)
    return ex.groups


def _groups_of(ex: Exploration) -> dict:
    out: dict = {}
    for p in (v for path in ex.paths for v in _variants(path)):
        key, centres, releases, coupled = _group_key(p)
        g = out.get(key)
        if g is None:
            g = out[key] = Group(key, [], arb(0), centres, releases, coupled)
        g.coupled = g.coupled or coupled
        g.members.append((p, centres, releases))
        g.paths.append(p)
        with _balls.precision(PREC):
            g.probability = g.probability + probability(p.conditions(), p.laws)
    for g in out.values():
        if not g.coupled and any(m[1] != g.centres for m in g.members):
            raise Refused("a release whose centre depends on the path taken")
    return out


# ---------------------------------------------------------------------- losses
def _lower(x: arb) -> mpmath.mpf:
    return _balls.lower_mpf(x)


def _upper(x: arb) -> mpmath.mpf:
    return _balls.upper_mpf(x)


def _log_ratio_ends(p: arb, q: arb) -> tuple:
    """Ends of |ln(p/q)| for certified probabilities (either may be exactly 0)."""
    inf = mpmath.inf
    zp, zq = p == 0, q == 0
    if zp and zq:
        return None
    if zp or zq:
        other = q if zp else p
        return (inf, inf) if other > 0 else (mpmath.mpf(0), inf)
    with _balls.precision(PREC):
        if not (p > 0) or not (q > 0):
            lo_p, lo_q = max(_lower(p), 0), max(_lower(q), 0)
            hi_p, hi_q = _upper(p), _upper(q)
            lo = mpmath.mpf(0)
            if lo_q > 0 and hi_p < lo_q:
                lo = mpmath.log(lo_q / hi_p) if hi_p > 0 else inf
            if lo_p > 0 and hi_q < lo_p:
                lo = max(lo, mpmath.log(lo_p / hi_q) if hi_q > 0 else inf)
            return (lo, inf)
        r = (p / q).log()
        a = abs(r)
        return (max(_lower(a), mpmath.mpf(0)), _upper(a))


def _release_pure(gd: Group, gp: Group, path: Path, path_p: Path) -> tuple:
    """Σ of the separate releases' pure losses (ends)."""
    lo = hi = mpmath.mpf(0)
    for (j, u, a), c, c2, (_, u2, _) in zip(gd.releases, gd.centres, gp.centres,
                                            gp.releases):
        meta, meta2 = path.sources[u], path_p.sources[u2]
        if meta != meta2:
            if meta[0] in ("laplace", "normal", "standard_normal", "gumbel", "logistic"):
                return mpmath.inf, mpmath.inf         # two scales: an unbounded ratio
            raise Refused("a release whose law differs between d and d'")
        s = (c - c2) / a
        if s == 0:
            continue
        r = release_of(path.tree.paths[j], meta[0], meta[1], meta[2], 1, s, None)
        if r is None:
            raise Refused(f"no pure loss known for a release of {meta[0]}")
        lo, hi = lo + r.pure[0], hi + r.pure[1]
    return lo, hi


def _density(g: Group, v: tuple) -> arb:
    """The density of a coupled group's releases at ``v`` (one value per release)."""
    total = arb(0)
    for p, centres, releases in g.members:
        fixed, dens = {}, arb(1)
        for (_j, u, a), c, x in zip(releases, centres, v):
            us = (x - c) / a
            fixed[u] = us
            law = p.laws[u]
            if law.discrete:
                raise Refused("a coupled release of a discrete draw")
            dens = dens * law.pdf(arb(us.numerator) / us.denominator, law.side(us)) / \
                abs(arb(a.numerator) / a.denominator)
        if dens == 0:
            continue
        conds = [Condition(c.form.fixing(fixed), c.strict) for c in p.conditions()]
        total = total + dens * probability(conds, p.laws)
    return total


def _points(gd: Group, gp: Group) -> list:
    """Points at which a one-release coupled group's densities are compared: around every
    path's centre, from far below to far above, off the breakpoints."""
    if len(gd.releases) > 1:
        return []
    out = set()
    for g in (gd, gp):
        for p, centres, releases in g.members:
            (_, u, a), = releases
            scale = p.laws[u].scale
            for k in _POINTS:
                out.add(centres[0] + a * scale * Fraction(k) + Fraction(1, 7919))
    centres = sorted({m[1][0] for g in (gd, gp) for m in g.members})
    for lo, hi in zip(centres, centres[1:]):
        out.add(lo + (hi - lo) / 3)
    return [(x,) for x in sorted(out)]


def _coupled_lower(gd: Group, gp: Group) -> tuple:
    """The largest certified point log-ratio of a coupled group's densities: (loss, the
    point, the two densities there)."""
    best, where, dens = mpmath.mpf(0), None, ()
    with _balls.precision(PREC):
        for v in _points(gd, gp):
            fd, fp = _density(gd, v), _density(gp, v)
            ends_ = _log_ratio_ends(fd, fp)
            if ends_ is not None and ends_[0] > best:
                best, where, dens = ends_[0], v, (fd, fp)
    return best, where, dens


# ---------------------------------------------------------------------- the pair
def _describe(key, at=None) -> str:
    structure, leaves = key
    parts = []
    values = iter(at or ())
    for leaf in leaves:
        if leaf[0] == "value":
            v = leaf[1]
            parts.append("nan" if v == ("nan",) else repr(v))
        elif at is not None:
            parts.append(f"{float(next(values)):.6g} (released, {leaf[1]})")
        elif len(leaf) > 1:
            parts.append(f"<{leaf[1]} release>")
        else:
            parts.append("<a release>")
    return "(" + ", ".join(parts) + ")" if len(parts) != 1 else parts[0]


def _where(g: Group) -> str:
    p = g.paths[0]
    conds = p.conditions()
    text = " and ".join(c.describe() for c in conds[:4])
    more = f" and {len(conds) - 4} more" if len(conds) > 4 else ""
    sites = sorted(set(w for w, d in zip(p.wheres, p.decisions) if d is not None))
    at = f" (branches at {', '.join(sites[:3])})" if sites else ""
    return (text + more + at) if conds else "no condition: every draw"


def _key_loss(a: Group, b: Group):
    """(lo, hi, point) of one output's loss: its probabilities' log-ratio, plus its
    separate releases' pure losses, or a coupled release's densities at the best point;
    None where the output has probability 0 on both sides."""
    ends_ = _log_ratio_ends(a.probability, b.probability)
    if ends_ is None:
        return None
    lo, hi = ends_
    point = None
    if a.paths and b.paths and a.releases:
        if a.coupled or b.coupled:
            lo2, v, dens = _coupled_lower(a, b)
            if lo2 > lo:
                lo, point = lo2, (v, dens)
            hi = mpmath.inf
        else:
            rl, rh = _release_pure(a, b, a.paths[0], b.paths[0])
            lo, hi = lo + rl, hi + rh
    return lo, hi, point


def pair_loss(ex_d: Exploration, ex_dp: Exploration, delta: Fraction) -> PairLoss:
    """The pair's certified ε(δ) ends from the paths on d and d' (see the module doc)."""
    try:
        gd, gp = groups_of(ex_d), groups_of(ex_dp)
    except Refused as exc:
        return PairLoss(mpmath.mpf(0), mpmath.inf, refused=str(exc))
    n_d, n_p = len(ex_d.paths), len(ex_dp.paths)
    if delta > 0:
        return _approximate(gd, gp, delta, n_d, n_p)
    best = (mpmath.mpf(-1), mpmath.mpf(0), None, None)
    hi_all = mpmath.mpf(0)
    empty = Group(None, [], arb(0))
    try:
        for key in list(gd) + [k for k in gp if k not in gd]:
            got = _key_loss(gd.get(key, empty), gp.get(key, empty))
            if got is None:
                continue
            lo, hi, point = got
            hi_all = max(hi_all, hi)
            if lo > best[0]:
                best = (lo, hi, key, point)
    except Refused as exc:
        return PairLoss(mpmath.mpf(0), mpmath.inf, refused=str(exc), paths_d=n_d,
                        paths_dp=n_p)
    key = best[2]
    if key is None:
        return PairLoss(mpmath.mpf(0), hi_all, paths_d=n_d, paths_dp=n_p)
    a, b = gd.get(key, empty), gp.get(key, empty)
    cond = _where(a if a.paths else b)
    point = best[3]
    if point is not None:               # a released value's densities at a point
        return PairLoss(max(best[0], mpmath.mpf(0)), hi_all, _describe(key, point[0]),
                        point[1], cond, n_d, n_p, density=True)
    return PairLoss(max(best[0], mpmath.mpf(0)), hi_all, _describe(key),
                    (a.probability, b.probability), cond, n_d, n_p)


def _delta_at(eps, pairs, side: str) -> arb:
    """δ(ε) over both directions: upper (``side="hi"``) or lower bound."""
    e = arb(mpmath.nstr(eps, 40)).exp() if eps != 0 else arb(1)
    worst = arb(0)
    for first in (0, 1):
        total = arb(0)
        for p, q in pairs:
            x, y = (p, q) if first == 0 else (q, p)
            xs = arb(_upper(x)) if side == "hi" else arb(max(_lower(x), 0))
            ys = arb(max(_lower(y), 0)) if side == "hi" else arb(_upper(y))
            d = xs - e * ys
            total = total + (d if d > 0 else arb(0))
        worst = total if total > worst else worst
    return worst


def _invert(pairs, delta: Fraction, side: str) -> mpmath.mpf:
    target = arb(delta.numerator) / delta.denominator
    hi_eps = mpmath.mpf(64)
    with _balls.precision(PREC):
        if _delta_at(hi_eps, pairs, side) > target:
            return mpmath.inf
        if not (_delta_at(mpmath.mpf(0), pairs, side) > target):
            return mpmath.mpf(0)
        lo_eps = mpmath.mpf(0)
        for _ in range(60):
            mid = (lo_eps + hi_eps) / 2
            if _delta_at(mid, pairs, side) > target:
                lo_eps = mid
            else:
                hi_eps = mid
    return hi_eps if side == "hi" else lo_eps


def _approximate(gd, gp, delta, n_d, n_p) -> PairLoss:
    keys = list(gd) + [k for k in gp if k not in gd]
    zero = arb(0)
    marg: dict = {}
    pure_hi = mpmath.mpf(0)
    try:
        for k in keys:
            a, b = gd.get(k), gp.get(k)
            dk = (k[0], tuple(x if x[0] == "value" else ("release",) for x in k[1]))
            pa = a.probability if a else zero
            pb = b.probability if b else zero
            old = marg.get(dk, (zero, zero))
            marg[dk] = (old[0] + pa, old[1] + pb)
            lr = _log_ratio_ends(pa, pb)
            if lr is None:
                continue
            hi = lr[1]
            if a and b and a.releases:
                if a.coupled or b.coupled:
                    hi = mpmath.inf
                else:
                    hi = hi + _release_pure(a, b, a.paths[0], b.paths[0])[1]
            pure_hi = max(pure_hi, hi)
    except Refused as exc:
        return PairLoss(mpmath.mpf(0), mpmath.inf, refused=str(exc), paths_d=n_d,
                        paths_dp=n_p)
    pairs = list(marg.values())
    lo = _invert(pairs, delta, "lo")
    releases = any(x[0] == "release" for k in keys for x in k[1])
    hi = _invert(pairs, delta, "hi") if not releases else max(pure_hi, lo)
    worst, probs = _worst_mass(marg, lo)
    return PairLoss(lo, hi, worst + ("" if not releases else " (the discrete outputs; "
                                     "releases bound ε(δ) above by their pure loss)"),
                    probs, "", n_d, n_p)


def _worst_mass(marg: dict, eps) -> tuple:
    """The output whose mass on one side most exceeds e^ε times the other's."""
    best, key, probs = None, None, ()
    with _balls.precision(PREC):
        e = arb(mpmath.nstr(eps, 30)).exp() if mpmath.isfinite(eps) else None
        for k, (p, q) in marg.items():
            for x, y in ((p, q), (q, p)):
                gap = x - (e * y if e is not None else (arb(0) if y == 0 else y * 10**9))
                mid = _balls.to_mpf(gap)
                if best is None or mid > best:
                    best, key, probs = mid, k, (p, q)
    return ("" if key is None else _describe(key)), probs
