"""Certified to the edges: a verdict computed from a certified interval is decided by the
certified floor (:func:`privtools.certified.decide_le`), never by converting an end to float.

Two parts:

* a source rule over ``privtools/`` and ``verification/``: no comparison (``<``, ``<=``,
  ``>``, ``>=``) has as an operand ``float(...)`` of an interval end, nor a name that was
  bound to such a float in the same function (``hi = float(iv.b); ... hi <= eps``);
  ``float(...)`` of an end for display is fine;
* exact oracles for ``decide_le``: hypothesis over rational bounds and intervals with
  binary ends, including the exactly-equal edges.
"""

from __future__ import annotations

import ast
import math
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest
from hypothesis import given
from hypothesis import strategies as st

from privtools.certified import decide_le, ends, exact_rational, interval, lower, upper
from privtools.certified.balls import arb, from_mpf, precision

ROOT = Path(__file__).resolve().parents[3]
PACKAGES = ("privtools", "verification")
COMPARISONS = (ast.Lt, ast.LtE, ast.Gt, ast.GtE)
END_ATTRS = {"a", "b"}                          # mpmath.mpi ends
END_CALLS = {"ends", "endpoints", "lower", "upper", "lower_mpf", "upper_mpf"}


# ----------------------------------------------------------------------------- the rule
def _mentions_end(node: ast.AST) -> bool:
    """Does an expression read an interval end (``x.a``, ``x.b``, ``ends(x)``, ...)?"""
    for sub in ast.walk(node):
        if isinstance(sub, ast.Attribute) and sub.attr in END_ATTRS:
            return True
        if isinstance(sub, ast.Call):
            f = sub.func
            name = f.id if isinstance(f, ast.Name) else (
                f.attr if isinstance(f, ast.Attribute) else None)
            if name in END_CALLS:
                return True
    return False


def _is_float_of_end(node: ast.AST) -> bool:
    return (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
            and node.func.id == "float" and any(_mentions_end(a) for a in node.args))


def _float_end_names(scope: ast.AST) -> set[str]:
    """Names bound in ``scope`` (not in nested functions) to ``float(<end>)``, including by
    tuple unpacking ``lo, hi = float(iv.a), float(iv.b)``."""
    names: set[str] = set()
    for node in _walk_scope(scope):
        if not isinstance(node, (ast.Assign, ast.AnnAssign)):
            continue
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        value = node.value
        for t in targets:
            if isinstance(t, ast.Name) and value is not None and _is_float_of_end(value):
                names.add(t.id)
            elif (isinstance(t, ast.Tuple) and isinstance(value, ast.Tuple)
                  and len(t.elts) == len(value.elts)):
                for te, ve in zip(t.elts, value.elts):
                    if isinstance(te, ast.Name) and _is_float_of_end(ve):
                        names.add(te.id)
    return names


def _walk_scope(scope: ast.AST):
    """ast.walk that does not descend into nested function definitions."""
    todo = list(ast.iter_child_nodes(scope))
    while todo:
        node = todo.pop()
        yield node
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            todo.extend(ast.iter_child_nodes(node))


def float_decisions(source: str, filename: str = "<source>") -> list[tuple[str, int, str]]:
    """Every comparison in ``source`` decided by a float of an interval end:
    ``(filename, line, source text of the comparison)``."""
    tree = ast.parse(source, filename)
    found = []
    scopes = [tree] + [n for n in ast.walk(tree)
                       if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))]
    for scope in scopes:
        tainted = _float_end_names(scope)
        for node in _walk_scope(scope):
            if not isinstance(node, ast.Compare):
                continue
            if not any(isinstance(op, COMPARISONS) for op in node.ops):
                continue
            operands = [node.left, *node.comparators]
            if any(_is_float_of_end(o) or (isinstance(o, ast.Name) and o.id in tainted)
                   for o in operands):
                found.append((filename, node.lineno, ast.get_source_segment(source, node)))
    return sorted(set(found), key=lambda f: (f[0], f[1]))


def _sources():
    for pkg in PACKAGES:
        yield from sorted((ROOT / pkg).rglob("*.py"))


def test_no_float_of_an_interval_end_decides_a_verdict():
    found = []
    for path in _sources():
        found += float_decisions(path.read_text(), str(path.relative_to(ROOT)))
    assert found == [], "decide with privtools.certified.decide_le instead:\n" + "\n".join(
        f"{f}:{line}: {text}" for f, line, text in found)


# The patterns this rule exists for (as they stood in privtools.testing and privtools.demo).
OLD_PATTERNS = '''
def _exact(iv, eps, delta, mpmath):
    if float(mpmath.mpf(iv.b)) <= (eps if delta == 0 else delta):
        pass
    lo, hi = float(mpmath.mpf(iv.a)), float(mpmath.mpf(iv.b))
    bound = eps if delta == 0 else delta
    verdict = "pass" if hi <= bound else ("fail" if lo > bound else "inconclusive")

def demo(gt, tv, closed, checks):
    passed = gt.p_value >= checks.P_THRESHOLD and (not closed or float(tv.b) < 1e-30)

def other(x, bound):
    return float(ends(x)[1]) > bound or bound >= float(upper(x))
'''

DISPLAY_ONLY = '''
def shown(tv, chk, mu, self):
    row = {"tv": [float(tv.a), float(tv.b)], "failure": f"{float(chk.failure.b):.3g}"}
    lo, hi = float(tv.a), float(tv.b)
    text = f"[{lo:.3g}, {hi:.3g}]"
    mu = float(self.scale)
    return mu < 3, row, text

def elsewhere(lo, bound):
    return lo <= bound          # a name not bound to a float of an end in this function
'''


def test_the_rule_flags_the_old_patterns():
    lines = [line for _, line, _ in float_decisions(OLD_PATTERNS)]
    assert lines == [3, 7, 7, 10, 13, 13]


def test_the_rule_passes_display_only_floats():
    assert float_decisions(DISPLAY_ONLY) == []


# ---------------------------------------------------------------- decide_le: exact oracle
def _dyadic(n: int, e: int) -> Fraction:
    return Fraction(n) * Fraction(2) ** e


dyadics = st.builds(_dyadic, st.integers(-(2**80), 2**80), st.integers(-120, 40))
rationals = st.one_of(
    dyadics,
    st.fractions(max_denominator=10**6),
    st.builds(Fraction, st.integers(-(10**30), 10**30), st.integers(1, 10**30)),
)


def _mpf(q: Fraction) -> mpmath.mpf:
    """The exact mpf of a dyadic rational."""
    n, d = q.numerator, q.denominator
    assert d & (d - 1) == 0
    return mpmath.mp.make_mpf(mpmath.libmp.from_man_exp(n, -(d.bit_length() - 1)))


def _oracle(lo: Fraction, hi: Fraction, bound: Fraction) -> bool | None:
    return True if hi <= bound else (False if lo > bound else None)


def _as_bound(kind: str, q: Fraction):
    """The same rational as a Fraction, an int (when integral), an exact mpf or a float (when
    dyadic and representable): decide_le reads every form exactly."""
    if kind == "int" and q.denominator == 1:
        return int(q)
    if kind in ("mpf", "float") and q.denominator & (q.denominator - 1) == 0:
        x = _mpf(q)
        if kind == "float":
            f = float(x)
            return f if Fraction(f) == q else q
        return x
    return q


@given(dyadics, dyadics, rationals, st.sampled_from(["fraction", "int", "mpf", "float"]))
def test_decide_le_matches_the_exact_oracle(x, y, bound, kind):
    lo, hi = min(x, y), max(x, y)
    iv = interval(_mpf(lo), _mpf(hi))
    assert tuple(exact_rational(e) for e in ends(iv)) == (lo, hi)   # ends held exactly
    want = _oracle(lo, hi, bound)
    b = _as_bound(kind, bound)
    assert decide_le(iv, b) is want
    assert decide_le((_mpf(lo), _mpf(hi)), b) is want
    # an upper end only: True or undecided, never False
    assert decide_le((None, _mpf(hi)), b) is (True if hi <= bound else None)


@given(dyadics, dyadics, st.sampled_from(["fraction", "int", "mpf", "float"]))
def test_decide_le_at_the_exactly_equal_edges(x, y, kind):
    lo, hi = min(x, y), max(x, y)
    iv = interval(_mpf(lo), _mpf(hi))
    assert decide_le(iv, _as_bound(kind, hi)) is True          # hi == bound: holds
    assert decide_le(iv, _as_bound(kind, lo)) is (True if lo == hi else None)
    if lo < hi:
        mid = (lo + hi) / 2
        assert decide_le(iv, _as_bound(kind, mid)) is None
    # one ulp of the bound's binary value below the upper end: not True
    eps = Fraction(1, 2**200)
    assert decide_le(iv, hi - eps) is (False if lo > hi - eps else None)


@given(dyadics, dyadics, rationals)
def test_decide_le_on_arb_balls(x, y, bound):
    lo, hi = min(x, y), max(x, y)
    with precision(512):
        ball = arb.union(from_mpf(_mpf(lo)), from_mpf(_mpf(hi)))
    verdict = decide_le(ball, bound)
    # a ball's ends are rounded outward: a decided verdict is the exact one, and the
    # exactly-representable edge cases decide as the oracle does
    want = _oracle(lo, hi, bound)
    assert verdict is None or verdict is want
    if lo == hi:
        assert verdict is want


def test_decide_le_near_a_float_bound_is_exact():
    # the upper end 1 + 2^-60 is above eps = 1.0, but float() of it rounds to 1.0 <= 1.0
    hi = mpmath.fadd(1, mpmath.ldexp(1, -60), exact=True)
    iv = interval(mpmath.mpf(0), hi)
    assert float(hi) <= 1.0                     # what a float decision would have said
    assert decide_le(iv, 1.0) is None           # straddles: undecided, never a pass
    assert decide_le(interval(hi, hi), 1.0) is False
    # 1e-30 is compared at its exact decimal value when given as a Fraction: the float
    # 1e-30 lies just above 10^-30, so [0, float(1e-30)] straddles the decimal bound
    assert Fraction(1e-30) > Fraction(1, 10**30)
    tiny = interval(mpmath.mpf(0), mpmath.mpf(1e-30))
    assert decide_le(tiny, Fraction(1, 10**30)) is None
    assert decide_le(tiny, 1e-30) is True


@pytest.mark.parametrize("lo, hi, bound, want", [
    (0, mpmath.inf, 1, None),
    (2, mpmath.inf, 1, False),
    (mpmath.inf, mpmath.inf, 1, False),
    (mpmath.inf, mpmath.inf, math.inf, True),
    (0, mpmath.inf, math.inf, True),
    (mpmath.ninf, 0, 1, True),
    (mpmath.ninf, 5, 1, None),
    (0, 1, -math.inf, False),
    (mpmath.ninf, mpmath.ninf, -math.inf, True),
    (0, 1, mpmath.inf, True),
])
def test_decide_le_with_infinite_ends_and_bounds(lo, hi, bound, want):
    assert decide_le((mpmath.mpf(lo), mpmath.mpf(hi)), bound) is want


def test_decide_le_refuses_a_nan_bound():
    with pytest.raises(ValueError):
        decide_le((mpmath.mpf(0), mpmath.mpf(1)), math.nan)


@given(dyadics)
def test_exact_rational_and_from_mpf_keep_the_sign(q):
    # mpmath's ``man_exp`` drops the sign of a negative number; both readers restore it
    x = _mpf(q)
    assert exact_rational(x) == q
    with precision(64):
        ball = from_mpf(x)
    assert ball.is_exact()
    assert exact_rational(lower(ball)) == q == exact_rational(upper(ball))


@given(rationals)
def test_lower_and_upper_of_a_plain_number_enclose_it(q):
    assert exact_rational(lower(q)) <= q <= exact_rational(upper(q))
    x = _mpf(q) if q.denominator & (q.denominator - 1) == 0 else None
    if x is not None:                        # an mpf end is kept as it is, every bit
        assert exact_rational(lower(x)) == q == exact_rational(upper(x))
