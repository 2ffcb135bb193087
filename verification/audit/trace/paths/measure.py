"""The certified probability of a path: independent draws over a region of linear conditions.

A path's conditions (:mod:`..record.branches`) are linear in the draws, and the draws are
independent. The conditions split into groups that share draws; each group's probability
is computed on its own and the path's is their product. A group is decided when its
conditions involve at most two draws each and one draw — the *centre* — is in every
condition of two: the shapes of the sparse vector (one threshold draw compared with one
draw per query) and of noisy max (the winner's draw compared with every other). Then,
with ``t`` the centre and ``x_j`` the others,

    P = ∫ f_c(t) Π_j P(L_j(t) ≤ x_j ≤ U_j(t)) dt      (a sum over t for a discrete centre),

``L_j``/``U_j`` the largest lower and smallest upper bound the conditions put on ``x_j``
at ``t`` (affine in ``t``). The range of ``t`` is cut where a bound changes, where two
bounds cross and where a law's formula changes (the Laplace's 0, a support's end), so on
every piece the integrand is analytic and Arb's rigorous integration (``acb.integral``,
Johansson 2018) encloses it; the centre's tail beyond ``2⁻⁹⁶`` of its mass is added as the
interval ``[0, tail]``. A discrete law's probabilities are prefix sums of its certified PMF,
with the PMF's unaccounted mass as ``[0, unaccounted]``.

A group of another shape (a chain of draws, a condition on three) is refused with the
reason: such a path is not decided.
"""

from __future__ import annotations

from fractions import Fraction

from flint import acb, arb

from privtools.certified import balls as _balls

from ..record.affine import MEMO
from .laws import AtomLaw

__all__ = ["probability", "feasible", "witness", "inside", "Refused", "PREC"]

#: Working precision of the integration (bits).
PREC = 128
_MAX_PIECES = 4096
_MAX_CENTRE = 1 << 14          # values of a discrete centre summed one by one


class Refused(Exception):
    """A region the integrator does not decide (the message says why)."""


def _arb(q: Fraction) -> arb:
    return arb(q.numerator) / q.denominator


# ---------------------------------------------------------------------- structure
def _groups(conds) -> list[tuple[list, list]]:
    """Conditions grouped by shared draws: ``[(atoms, conditions), ...]``."""
    parent: dict = {}

    def find(u):
        while parent[u] != u:
            parent[u] = parent[parent[u]]
            u = parent[u]
        return u
    for c in conds:
        atoms = list(c.form.a)
        if len(atoms) > 2:
            raise Refused(f"a condition on {len(atoms)} draws ({c.describe()})")
        for u in atoms:
            parent.setdefault(u, u)
        if len(atoms) == 2:
            ra, rb = find(atoms[0]), find(atoms[1])
            if ra != rb:
                parent[ra] = rb
    out: dict = {}
    for c in conds:
        if not c.form.a:
            out.setdefault(None, ([], []))[1].append(c)
            continue
        r = find(next(iter(c.form.a)))
        out.setdefault(r, (set(), []))[1].append(c)
        out[r][0].update(c.form.a)
    return [(sorted(a, key=repr) if a else [], cs) for a, cs in out.values()]


def _centre(atoms, conds, laws) -> object:
    if len(atoms) == 1:
        return atoms[0]
    pairs = [set(c.form.a) for c in conds if len(c.form.a) == 2]
    common = set.intersection(*pairs) if pairs else set()
    if len(atoms) == 2:
        disc = [u for u in atoms if laws[u].discrete]
        return disc[0] if disc else atoms[0]
    if not common:
        raise Refused(f"conditions that chain {len(atoms)} draws with no draw common to "
                      "all of them (not the shape of a sparse vector or a noisy max)")
    return sorted(common, key=repr)[0]


class _Bound:
    """``x ≥ α·t + β`` (lower) or ``x ≤ α·t + β`` (upper), strict or not."""

    __slots__ = ("alpha", "beta", "strict")

    def __init__(self, alpha, beta, strict):
        self.alpha, self.beta, self.strict = alpha, beta, strict

    def at(self, t: Fraction) -> Fraction:
        return self.alpha * t + self.beta


def _bound_of(c, centre):
    """(draw, is-lower, bound) of one condition about ``centre``."""
    memo = MEMO.table
    key = ("bound", id(c), centre)
    if memo is not None:
        hit = memo.get(key)
        if hit is not None and hit[3] is c:
            return hit[:3]
    a = c.form.a
    others = [u for u in a if u != centre]
    x = others[0] if others else centre
    ax = a[x]
    at = a.get(centre, Fraction(0)) if x != centre else Fraction(0)
    out = (x, ax > 0, _Bound(-at / ax, -c.form.c / ax, c.strict))
    if memo is not None:
        memo[key] = out + (c,)             # the condition kept: its identity is not reused
    return out


def _split(conds, centre):
    """Per non-centre draw its (lowers, uppers), and the centre's own (lowers, uppers)."""
    bounds: dict = {}
    for c in conds:
        x, lower, b = _bound_of(c, centre)
        lows, ups = bounds.setdefault(x, ([], []))
        (lows if lower else ups).append(b)
    own = bounds.pop(centre, ([], []))
    return bounds, own


def _constant_range(lows, ups, law: AtomLaw):
    lo = max((b.beta for b in lows), default=None)
    hi = min((b.beta for b in ups), default=None)
    lo_strict = any(b.strict and b.beta == lo for b in lows)
    hi_strict = any(b.strict and b.beta == hi for b in ups)
    return lo, lo_strict, hi, hi_strict


# ---------------------------------------------------------------------- one law
def _discrete_mass(law: AtomLaw, lo, lo_strict, hi, hi_strict) -> arb:
    """P(lo ≤ x ≤ hi) for an integer law (bounds may be None, strict or not)."""
    window = law.values()
    kmin = window.start if lo is None else (lo.__floor__() + 1 if lo_strict else
                                            lo.__ceil__())
    kmax = window.stop - 1 if hi is None else (hi.__ceil__() - 1 if hi_strict else
                                               hi.__floor__())
    inside = law.mass(kmin, kmax)
    if not law.finite and kmin <= kmax and (kmin < window.start or kmax >= window.stop):
        inside = inside + arb(0).union(_balls.from_mpf(law.pmf[0].unaccounted))
    return inside


def _continuous_mass(law: AtomLaw, lo, hi) -> arb:
    """P(lo ≤ x ≤ hi) for a continuous law (None: unbounded)."""
    up = arb(1) if hi is None else law.cdf(_arb(hi), law.side(hi))
    down = arb(0) if lo is None else law.cdf(_arb(lo), law.side(lo))
    return up - down


def _single(law: AtomLaw, lows, ups) -> arb:
    lo, ls, hi, hs = _constant_range(lows, ups, law)
    if lo is not None and hi is not None and (lo > hi or (lo == hi and (ls or hs or
                                                                       not law.discrete))):
        return arb(0)
    if law.discrete:
        return _discrete_mass(law, lo, ls, hi, hs)
    return _continuous_mass(law, lo, hi)


# ---------------------------------------------------------------------- a star
def _feasible_t(own, leaves, laws, centre_law) -> tuple:
    """The centre's range where every other draw's interval is not empty: (lo, hi)."""
    lo, _, hi, _ = _constant_range(*own, centre_law)
    if centre_law.lo is not None:
        lo = centre_law.lo if lo is None else max(lo, centre_law.lo)
    if centre_law.hi is not None:
        hi = centre_law.hi if hi is None else min(hi, centre_law.hi)
    for x, (lows, ups) in leaves.items:
        law = laws[x]
        lows = lows + ([_Bound(Fraction(0), law.lo, False)] if law.lo is not None else [])
        ups = ups + ([_Bound(Fraction(0), law.hi, False)] if law.hi is not None else [])
        for lb in lows:
            for ub in ups:
                # lb.alpha·t + lb.beta ≤ ub.alpha·t + ub.beta
                da, db = lb.alpha - ub.alpha, ub.beta - lb.beta      # da·t ≤ db
                if da == 0:
                    if db < 0:
                        return Fraction(1), Fraction(0)
                elif da > 0:
                    hi = db / da if hi is None else min(hi, db / da)
                else:
                    lo = db / da if lo is None else max(lo, db / da)
    return lo, hi


class _Leaves:
    def __init__(self, bounds):
        self.items = list(bounds.items())


def _cuts(own_range, leaves, laws, centre_law, radius) -> list[Fraction]:
    lo, hi = own_range
    lo = -radius if lo is None else max(lo, -radius)
    hi = radius if hi is None else min(hi, radius)
    if lo >= hi:
        return []
    pts = {lo, hi}
    pts.update(p for p in centre_law.breakpoints())
    for x, (lows, ups) in leaves.items:
        bs = lows + ups
        for i, b in enumerate(bs):
            if b.alpha != 0:
                for p in laws[x].breakpoints():
                    pts.add((p - b.beta) / b.alpha)
            for c in bs[i + 1:]:
                if c.alpha != b.alpha:
                    pts.add((c.beta - b.beta) / (b.alpha - c.alpha))
    cuts = sorted(p for p in pts if lo <= p <= hi)
    if len(cuts) > _MAX_PIECES:
        raise Refused(f"{len(cuts)} pieces of the centre's range")
    return cuts


def _active(bounds, t, largest):
    if not bounds:
        return None
    return (max if largest else min)(bounds, key=lambda b: b.at(t))


def _piece_factors(m, leaves, laws) -> list | None:
    """Each other draw's factor on the piece around ``m``: a constant (a discrete draw with
    fixed bounds) or its active bounds and their analytic sides; None: the piece is empty."""
    factors = []
    for x, (lows, ups) in leaves.items:
        law = laws[x]
        if law.discrete:
            if any(bd.alpha != 0 for bd in lows + ups):
                raise Refused("a discrete draw compared with a continuous one")
            factors.append(("const", _single(law, lows, ups)))
            continue
        lb, ub = _active(lows, m, True), _active(ups, m, False)
        lo_m = None if lb is None else lb.at(m)
        hi_m = None if ub is None else ub.at(m)
        if lo_m is not None and law.lo is not None and lo_m < law.lo:
            lb, lo_m = None, None
        if hi_m is not None and law.hi is not None and hi_m > law.hi:
            ub, hi_m = None, None
        if lo_m is not None and hi_m is not None and lo_m >= hi_m:
            return None
        factors.append(("cdf", law, lb, None if lb is None else law.side(lo_m), ub,
                        None if ub is None else law.side(hi_m)))
    return factors


def _integrand(centre_law, side_c, factors):
    def g(z, analytic):
        v = centre_law.pdf(z, side_c)
        for f in factors:
            if f[0] == "const":
                v = v * acb(f[1])
                continue
            _, law, lb, sl, ub, su = f
            up = acb(1) if ub is None else law.cdf(_lin(ub, z), su)
            down = acb(0) if lb is None else law.cdf(_lin(lb, z), sl)
            v = v * (up - down)
        return v
    return g


def _star_continuous(centre_law, own_range, leaves, laws) -> arb:
    radius = centre_law.tail_bound()
    cuts = _cuts(own_range, leaves, laws, centre_law, radius)
    total = arb(0)
    for a, b in zip(cuts, cuts[1:]):
        if a == b:
            continue
        m = (a + b) / 2
        factors = _piece_factors(m, leaves, laws)
        if factors is None:
            continue
        g = _integrand(centre_law, centre_law.side(m), factors)
        total = total + acb.integral(g, _arb(a), _arb(b)).real
    lo_t, hi_t = own_range
    if lo_t is None or lo_t < -radius or hi_t is None or hi_t > radius:
        total = total + centre_law.tail_mass(-radius, radius)
    return total


def _lin(b: _Bound, z):
    return z * _arb(b.alpha) + _arb(b.beta)


def _star_discrete(centre_law, own, leaves, laws) -> arb:
    window = centre_law.values()
    if len(window) > _MAX_CENTRE:
        raise Refused(f"a discrete draw of {len(window)} values compared with others")
    total = arb(0)
    for k in window:
        t = Fraction(k)
        if not _own_ok(own, t):
            continue
        v = centre_law.point(k)
        for x, (lows, ups) in leaves.items:
            fixed_l = [_Bound(Fraction(0), b.at(t), b.strict) for b in lows]
            fixed_u = [_Bound(Fraction(0), b.at(t), b.strict) for b in ups]
            v = v * _single(laws[x], fixed_l, fixed_u)
            if v == 0:
                break
        total = total + v
    if not centre_law.finite:
        total = total + arb(0).union(_balls.from_mpf(centre_law.pmf[0].unaccounted))
    return total


def _own_ok(own, t: Fraction) -> bool:
    """Whether ``t`` meets the centre's own conditions (bounds with α = 0)."""
    return all((t > b.beta if b.strict else t >= b.beta) for b in own[0]) and \
        all((t < b.beta if b.strict else t <= b.beta) for b in own[1])


def _group_probability(atoms, conds, laws) -> arb:
    if not atoms:
        ok = all(c.holds_at({}) for c in conds)
        return arb(1) if ok else arb(0)
    centre = _centre(atoms, conds, laws)
    bounds, own = _split(conds, centre)
    law_c = laws[centre]
    if not bounds:
        return _single(law_c, *own)
    leaves = _Leaves(bounds)
    rng = _feasible_t(own, leaves, laws, law_c)
    if rng[0] is not None and rng[1] is not None and rng[0] > rng[1]:
        return arb(0)
    if law_c.discrete:
        return _star_discrete(law_c, own, leaves, laws)
    return _star_continuous(law_c, rng, leaves, laws)


def probability(conds, laws: dict) -> arb:
    """The certified probability that independent draws of ``laws`` (atom → AtomLaw)
    satisfy every condition of ``conds`` (an Arb ball; :class:`Refused` when the region
    is not of a decided shape, see the module doc)."""
    with _balls.precision(PREC):
        total = arb(1)
        for atoms, cs in _groups(list(conds)):
            for u in atoms:
                if u not in laws or laws[u] is None:
                    raise Refused(f"the law of draw {u} is not one the integrator knows")
            p = _group_probability(atoms, cs, laws)
            total = total * p
            if total == 0:
                break
        return total


def _group_feasible(atoms, cs, laws) -> bool:
    """One group's part of :func:`feasible` (True where it cannot tell)."""
    if not atoms:
        return all(c.holds_at({}) for c in cs)
    if any(u not in laws or laws[u] is None for u in atoms):
        return True
    try:
        centre = _centre(atoms, cs, laws)
    except Refused:
        return True
    bounds, own = _split(cs, centre)
    law_c = laws[centre]
    lo, hi = _feasible_t(own, _Leaves(bounds), laws, law_c)
    if lo is not None and hi is not None and (lo > hi or (lo == hi and not law_c.discrete)):
        return False
    if not bounds and law_c.discrete:
        lo_, ls, hi_, hs = _constant_range(*own, law_c)
        if lo_ is not None and hi_ is not None and (lo_ > hi_ or (lo_ == hi_ and (ls or hs))):
            return False
    return True


def feasible(conds, laws: dict) -> bool:
    """Whether the region may have positive probability (a sound over-approximation: False
    only when it has none)."""
    try:
        groups = _groups(list(conds))
    except Refused:
        return True
    return all(_group_feasible(atoms, cs, laws) for atoms, cs in groups)


# ---------------------------------------------------------------------- a point inside
def _pick(lo, hi, law: AtomLaw, discrete: bool, lo_strict=False, hi_strict=False):
    """A point of the range between ``lo`` and ``hi`` (None: unbounded; strict ends
    excluded) well inside it — an integer for a discrete law — or None."""
    step = law.scale if not discrete else Fraction(1)
    if law.lo is not None and (lo is None or law.lo > lo):
        lo, lo_strict = law.lo, False
    if law.hi is not None and (hi is None or law.hi < hi):
        hi, hi_strict = law.hi, False
    if discrete:
        a = None if lo is None else (lo.__floor__() + 1 if lo_strict else lo.__ceil__())
        b = None if hi is None else (hi.__ceil__() - 1 if hi_strict else hi.__floor__())
        if a is not None and b is not None:
            return Fraction((a + b) // 2) if a <= b else None
        if a is None and b is None:
            return Fraction(0)
        return Fraction(a if a is not None else b)
    if lo is None and hi is None:
        return Fraction(0)
    if lo is None:
        return hi - step
    if hi is None:
        return lo + step
    return (lo + hi) / 2 if lo < hi else None


def inside(law: AtomLaw) -> Fraction:
    """A point inside the law's support away from its centre (0.37 of a scale from the
    location, or from an end), where an affine output's slope shows."""
    if law.discrete:
        x = _pick(None, None, law, True)
        return x + 1 if law.hi is None or x + 1 <= law.hi else x
    if law.lo is not None and law.hi is not None:
        return law.lo + (law.hi - law.lo) * Fraction(37, 100)
    base = law.lo if law.lo is not None else (law.hi if law.hi is not None else 0)
    sign = -1 if law.lo is None and law.hi is not None else 1
    return base + sign * law.scale * Fraction(37, 100)


def _centre_candidates(own, leaves, laws, law_c):
    lo, hi = _feasible_t(own, leaves, laws, law_c)
    if not law_c.discrete:
        t = _pick(lo, hi, law_c, False)
        return [] if t is None else [t]
    window = law_c.values()
    a = window.start if lo is None else max(window.start, lo.__ceil__())
    b = window.stop - 1 if hi is None else min(window.stop - 1, hi.__floor__())
    return [Fraction(k) for k in range(a, min(b, a + 4095) + 1) if _own_ok(own, Fraction(k))]


def _leaf_pick(lows, ups, t, law):
    lb = _active(lows, t, True)
    ub = _active(ups, t, False)
    lo = None if lb is None else lb.at(t)
    hi = None if ub is None else ub.at(t)
    ls = any(b.strict and b.at(t) == lo for b in lows)
    hs = any(b.strict and b.at(t) == hi for b in ups)
    return _pick(lo, hi, law, law.discrete, ls, hs)


def _group_witness(atoms, cs, laws):
    centre = _centre(atoms, cs, laws)
    bounds, own = _split(cs, centre)
    law_c = laws[centre]
    for t in _centre_candidates(own, _Leaves(bounds), laws, law_c)[:4096]:
        point = {centre: t}
        for x, (lows, ups) in bounds.items():
            v = _leaf_pick(lows, ups, t, laws[x])
            if v is None:
                break
            point[x] = v
        else:
            if all(c.holds_at(point) for c in cs):
                return point
    return None


def witness(conds, laws: dict) -> dict | None:
    """A point (atom → Fraction) satisfying every condition of ``conds`` strictly inside its
    region where it can, or None when none is found (a shape not decided, an empty
    region, an integer region too thin)."""
    try:
        groups = _groups(list(conds))
    except Refused:
        return None
    point: dict = {}
    for atoms, cs in groups:
        if not atoms:
            continue
        try:
            found = _group_witness(atoms, cs, laws)
        except Refused:
            return None
        if found is None:
            return None
        point.update(found)
    return point
