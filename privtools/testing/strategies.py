"""Hypothesis strategies for privacy parameters (requires ``hypothesis``).

Every strategy draws *exact* values where privtools wants them (``Fraction`` for ε, s and
probabilities), inside the ranges the papers' theorems cover, so property tests exercise
the same code paths a deployment does. ::

    from hypothesis import given
    from privtools.testing import strategies as pst

    @given(pst.plans())
    def test_plan_is_consistent(plan):
        assert plan.m >= plan.n * plan.g + 2 * plan.tau + 1
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np

from privtools import neighbours as _nb
from privtools.errors import ParameterError, require
from privtools.neighbours import ADD_REMOVE, REPLACE_ONE
from privtools.noise import LAWS
from privtools.planning import plan, privacy_kind

require("hypothesis", "testing", "privtools.testing.strategies")
from hypothesis import strategies as st  # noqa: E402

__all__ = ["epsilons", "batch_sizes", "probabilities", "scales", "noise_laws", "law_arguments",
           "parameter_values", "plans",
           "rewards", "neighbouring_rewards", "neighbouring_pairs", "replace_one",
           "add_remove", "add_remove_one", "bounded_change", "query_pairs", "dataframe_rows",
           "NEIGHBOURS"]

#: the relations these strategies draw pairs of (privtools.neighbours declares them)
NEIGHBOURS = (REPLACE_ONE, ADD_REMOVE, "linf", "l1")


def epsilons(min_value=Fraction(1, 100), max_value=Fraction(2)) -> st.SearchStrategy[Fraction]:
    """ε as an exact rational with a denominator of at most 100."""
    lo, hi = Fraction(min_value), Fraction(max_value)
    return st.integers(int(lo * 100), int(hi * 100)).map(lambda k: Fraction(k, 100)).filter(
        lambda e: lo <= e <= hi and e > 0)


def batch_sizes(max_exponent: int = 12) -> st.SearchStrategy[int]:
    """Batch sizes n = 2^k (Algorithm 1 (000)) or arbitrary small n."""
    return st.one_of(st.integers(0, max_exponent).map(lambda k: 2 ** k), st.integers(1, 50))


def probabilities(min_exponent: int = 1, max_exponent: int = 12) -> st.SearchStrategy[Fraction]:
    """Failure probabilities p = 10^-k as exact rationals."""
    return st.integers(min_exponent, max_exponent).map(lambda k: Fraction(1, 10 ** k))


def scales() -> st.SearchStrategy[Fraction]:
    """Skellam / discrete-Gaussian scale factors s >= 1 (Theorems 2 and 4 (000))."""
    return st.sampled_from([Fraction(1), Fraction(2), Fraction(10), Fraction(100)])


def law_arguments(law, max_scale: int = 200) -> st.SearchStrategy[dict]:
    """Constructor arguments of ``law`` (a class of :data:`privtools.noise.LAWS`), drawn from
    its parameter table (``law.parameters``): each parameter from its exact domain — reals as
    fractions of denominator at most 16, integers as integers — up to its limit and to
    ``max_scale ** width_power`` (scales up to ``max_scale``, variances up to its square);
    of alternatives (Pólya's ``beta`` or ``scale``) exactly one; an optional parameter (a
    location) given or left at its default."""
    groups: dict[str, list] = {}
    for p in law.parameters:
        if p.choice is not None:
            groups.setdefault(p.choice, []).append(p)

    @st.composite
    def _arguments(draw):
        out = {}
        chosen = {c: draw(st.sampled_from(g)).name for c, g in groups.items()}
        for p in law.parameters:
            if p.choice is not None and chosen[p.choice] != p.name:
                continue
            if p.default is not None and not draw(st.booleans()):
                continue
            out[p.name] = draw(parameter_values(p, max_scale))
        return out

    return _arguments()


def parameter_values(p, max_scale: int = 200) -> st.SearchStrategy:
    """Exact values of the :class:`privtools.noise.Parameter` ``p`` inside its domain, at
    most its limit and ``max_scale ** p.width_power`` in magnitude."""
    d = p.domain
    cap = Fraction(max_scale) ** p.width_power
    for bound in (d.high, p.limit, p.bound):
        if bound is not None:
            cap = min(cap, Fraction(bound))
    lo = -cap if d.low is None else max(Fraction(d.low), -cap)
    if d.integer:
        return st.integers(int(math.ceil(lo)), int(math.floor(cap))).filter(d.contains)
    return st.fractions(lo, cap, max_denominator=16).filter(
        lambda x: d.contains(x) and p.within_limit(x))


def noise_laws(max_scale: int = 200) -> st.SearchStrategy:
    """Noise laws of paper 000 with exact parameters, every family of
    :data:`privtools.noise.LAWS` — Lap_Z(b), Pólya(r, β), its difference, Sk(μ, σ²) and
    N_Z(μ, σ²) — with arguments drawn from their parameter tables (:func:`law_arguments`)."""

    return st.one_of(*(law_arguments(law, max_scale).map(lambda kw, law=law: law(**kw))
                       for law in LAWS))


def plans(privacy=("pure-dp", "rdp", "cdp"), max_exponent: int = 10) -> st.SearchStrategy:
    """Plans of :func:`privtools.planning.plan` (paper's bound τ) over ε, n, T and s."""

    @st.composite
    def _plans(draw):
        kind = draw(st.sampled_from(tuple(privacy)))
        eps = draw(epsilons(Fraction(1, 10), Fraction(1)))
        n = 2 ** draw(st.integers(1, max_exponent))
        horizon = 10 ** draw(st.integers(3, 7))
        s = draw(scales()) if privacy_kind(kind).scaled else 1
        return plan(privacy=kind, epsilon=eps, n=n, horizon=horizon, s=s)

    return _plans()


def rewards(n: int) -> st.SearchStrategy[np.ndarray]:
    """A batch of ``n`` rewards in [0, 1] (including the end points)."""
    values = st.one_of(st.sampled_from([0.0, 1.0]),
                       st.floats(0, 1, allow_nan=False, allow_infinity=False))
    return st.lists(values, min_size=n, max_size=n).map(np.array)


def neighbouring_rewards(n: int) -> st.SearchStrategy[tuple[np.ndarray, np.ndarray]]:
    """Pairs (x, x') of batches that differ in one user's reward."""
    @st.composite
    def _pair(draw):
        x = draw(rewards(n))
        i = draw(st.integers(0, n - 1))
        y = x.copy()
        y[i] = draw(st.floats(0, 1, allow_nan=False).filter(lambda v: v != x[i]))
        return x, y

    return _pair()


# ---------------------------------------------------------------- neighbouring datasets
def _as_strategy(datasets) -> st.SearchStrategy:
    """A hypothesis strategy of datasets: ``datasets`` itself, or ``sampled_from`` a list."""

    if isinstance(datasets, st.SearchStrategy):
        return datasets
    if isinstance(datasets, (list, tuple)) and len(datasets) > 0:
        return st.sampled_from(list(datasets))
    raise ParameterError("datasets must be a hypothesis strategy of datasets or a non-empty "
                         f"list of them, got {type(datasets).__name__}")


def _one_record(draw, datasets) -> tuple:
    """A non-empty dataset drawn from ``datasets``, its records and the index of one."""
    from hypothesis import assume

    d = draw(datasets)
    recs = _nb.records(d)
    assume(len(recs) > 0)
    return d, recs, draw(st.integers(0, len(recs) - 1))


def replace_one(datasets, records=None) -> st.SearchStrategy[tuple]:
    """Pairs (d, d′) where d′ replaces one record of a non-empty d by another record.

    The new record comes from ``records`` (a strategy) or, by default, from a second dataset
    of ``datasets`` — so it is a record your datasets can hold. Hypothesis shrinks both: a
    failing pair becomes the shortest d with the smallest records."""
    datasets = _as_strategy(datasets)

    @st.composite
    def _pair(draw):
        from hypothesis import assume

        d, recs, i = _one_record(draw, datasets)
        if records is not None:
            new = draw(records)
        else:
            donor = _nb.records(draw(datasets))
            assume(len(donor) > 0)
            new = donor[draw(st.integers(0, len(donor) - 1))]
        assume(new != recs[i])
        return d, _nb.rebuild(d, recs[:i] + [new] + recs[i + 1:])

    return _pair()


def add_remove(datasets) -> st.SearchStrategy[tuple]:
    """Pairs (d, d′) where d′ is d without one of its records (unbounded DP's neighbours;
    the relation is symmetric, so adding a record is the same pair read backwards).
    ``add_remove_one`` is the same strategy under its earlier name."""
    datasets = _as_strategy(datasets)

    @st.composite
    def _pair(draw):
        d, recs, i = _one_record(draw, datasets)
        return d, _nb.rebuild(d, recs[:i] + recs[i + 1:])

    return _pair()


add_remove_one = add_remove


def bounded_change(vectors, *, linf=None, l1=None) -> st.SearchStrategy[tuple]:
    """Pairs (v, v′) of query-answer vectors with ‖v − v′‖∞ ≤ ``linf`` and/or
    ‖v − v′‖₁ ≤ ``l1`` (a sensitivity bound), v ≠ v′. Integer vectors move by integers.
    Give at least one bound; both must be positive. A 2-D array is a vector of records
    (rows): every entry moves, and the norms are over all entries, as
    :func:`privtools.neighbours.distance` measures them."""

    if linf is None and l1 is None:
        raise ParameterError("bounded_change needs linf= or l1= (the sensitivity bound)")
    for name, b in (("linf", linf), ("l1", l1)):
        if b is not None and not (isinstance(b, (int, float, Fraction)) and b > 0):
            raise ParameterError(f"{name} must be a positive number, got {b!r}")
    vectors = _as_strategy(vectors)
    bound = min(b for b in (linf, l1) if b is not None)

    @st.composite
    def _pair(draw):
        from hypothesis import assume

        v = draw(vectors)
        recs = _nb.records(v)
        assume(len(recs) > 0)
        flat = [x for r in recs for x in (r if isinstance(r, tuple) else (r,))]
        integer = all(isinstance(x, (int, np.integer)) for x in flat)
        moving = range(len(flat))
        lim = bound
        if l1 is not None:  # move a few entries, each by at most l1 / (how many): ‖·‖₁ <= l1
            most = min(len(flat), max(1, int(l1))) if integer else len(flat)
            moving = draw(st.lists(st.integers(0, len(flat) - 1), min_size=1, max_size=most,
                                   unique=True))
            lim = min(bound, Fraction(l1) / len(moving))
        step = (st.integers(-int(lim), int(lim)) if integer else
                st.floats(-float(lim), float(lim), allow_nan=False))
        move = [0] * len(flat)
        for i in moving:
            move[i] = draw(step)
        if l1 is not None:
            assume(sum(abs(x) for x in move) <= l1)  # float rounding at the bound
        assume(any(x != 0 for x in move))
        moved = iter([a + b for a, b in zip(flat, move)])
        out = [tuple(next(moved) for _ in r) if isinstance(r, tuple) else next(moved)
               for r in recs]
        return v, _nb.rebuild(v, out)

    return _pair()


def query_pairs(vectors, *, bound=1) -> st.SearchStrategy[tuple]:
    """Pairs (q, q′) of query-answer vectors whose answers move by at most ``bound``,
    seeded with the input patterns of StatDP (Ding et al., CCS 2018) and DP-Sniper (Bichsel
    et al., S&P 2021) — one above, one below, one above and the rest below, half and half,
    all above, all below, X-shape (:func:`privtools.neighbours.query_patterns`) — then any
    move of :func:`bounded_change`. Hypothesis tries the patterns first and shrinks
    towards them."""
    vectors = _as_strategy(vectors)

    @st.composite
    def _pattern(draw):
        from hypothesis import assume

        v = draw(vectors)
        others = [o for o in _nb.query_patterns(v, "query")
                  if max(abs(a - b) for a, b in zip(v, o)) <= bound]
        assume(others)
        return tuple(v), draw(st.sampled_from(others))

    return st.one_of(_pattern(), bounded_change(vectors, linf=bound))


def dataframe_rows(frames, neighbours: str = "replace-one") -> st.SearchStrategy[tuple]:
    """Pairs of pandas DataFrames one row apart (the records of a frame are its rows):
    ``"replace-one"`` swaps one row for a row
    of another frame of ``frames``, ``"add-remove"`` drops one row (index reset)."""

    if neighbours not in (REPLACE_ONE, ADD_REMOVE):
        raise ParameterError(f"neighbours must be 'replace-one' or 'add-remove' for "
                             f"DataFrames, got {neighbours!r}")
    frames = _as_strategy(frames)

    @st.composite
    def _pair(draw):
        import pandas as pd
        from hypothesis import assume

        df = draw(frames)
        assume(len(df) > 0)
        i = draw(st.integers(0, len(df) - 1))
        if neighbours == ADD_REMOVE:
            return df, df.drop(df.index[i]).reset_index(drop=True)
        donor = draw(frames)
        assume(len(donor) > 0)
        row = donor.iloc[[draw(st.integers(0, len(donor) - 1))]]
        assume(not row.reset_index(drop=True).equals(df.iloc[[i]].reset_index(drop=True)))
        out = pd.concat([df.iloc[:i], row, df.iloc[i + 1:]]).reset_index(drop=True)
        return df, out

    return _pair()


def neighbouring_pairs(datasets, neighbours="replace-one", **bounds) -> st.SearchStrategy:
    """Neighbouring pairs by name: ``"replace-one"``, ``"add-remove"``, ``"linf"`` /
    ``"l1"`` (query vectors moved by at most ``bound=``, default 1), or any strategy of
    pairs given as ``neighbours`` itself. DataFrames go through :func:`dataframe_rows`."""

    if isinstance(neighbours, st.SearchStrategy):
        return neighbours
    if neighbours == REPLACE_ONE:
        return replace_one(datasets, **bounds)
    if neighbours == ADD_REMOVE:
        return add_remove(datasets)
    if neighbours in ("linf", "l1"):
        return bounded_change(datasets, **{neighbours: bounds.get("bound", 1)})
    raise ParameterError(f"neighbours must be one of {NEIGHBOURS} or a strategy of pairs, "
                         f"got {neighbours!r}")
