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

from fractions import Fraction

import numpy as np

from privtools.errors import require

require("hypothesis", "testing", "privtools.testing.strategies")
from hypothesis import strategies as st  # noqa: E402

__all__ = ["epsilons", "batch_sizes", "probabilities", "scales", "noise_laws", "plans",
           "rewards", "neighbouring_rewards", "neighbouring_pairs", "replace_one",
           "add_remove_one", "bounded_change", "dataframe_rows", "NEIGHBOURS"]

NEIGHBOURS = ("replace-one", "add-remove", "linf", "l1")


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


def noise_laws(max_scale: int = 200) -> st.SearchStrategy:
    """Noise laws of paper 000 with exact parameters: Lap_Z(b), Sk(0, σ²), N_Z(0, σ²)."""
    from privtools.noise import DiscreteGaussian, DiscreteLaplace, Skellam

    scale = st.integers(1, 4 * max_scale).map(lambda k: Fraction(k, 4))
    return st.one_of(scale.map(DiscreteLaplace),
                     scale.map(lambda v: Skellam(v * v)),
                     scale.map(lambda v: DiscreteGaussian(sigma2=v * v)))


def plans(privacy=("pure-dp", "rdp", "cdp"), max_exponent: int = 10) -> st.SearchStrategy:
    """Plans of :func:`privtools.planning.plan` (paper's bound τ) over ε, n, T and s."""
    from privtools.planning import plan

    @st.composite
    def _plans(draw):
        kind = draw(st.sampled_from(tuple(privacy)))
        eps = draw(epsilons(Fraction(1, 10), Fraction(1)))
        n = 2 ** draw(st.integers(1, max_exponent))
        horizon = 10 ** draw(st.integers(3, 7))
        s = draw(scales()) if kind != "pure-dp" else 1
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
    from privtools.errors import ParameterError

    if isinstance(datasets, st.SearchStrategy):
        return datasets
    if isinstance(datasets, (list, tuple)) and len(datasets) > 0:
        return st.sampled_from(list(datasets))
    raise ParameterError("datasets must be a hypothesis strategy of datasets or a non-empty "
                         f"list of them, got {type(datasets).__name__}")


def _records(d) -> list:
    if hasattr(d, "iloc"):
        raise TypeError("use dataframe_rows for pandas DataFrames")
    return list(d.tolist() if isinstance(d, np.ndarray) else d)


def _like(d, recs: list):
    """``recs`` in the container type of ``d`` (list, tuple or numpy array)."""
    if isinstance(d, np.ndarray):
        return np.asarray(recs, dtype=d.dtype)
    return tuple(recs) if isinstance(d, tuple) else list(recs)


def _one_record(draw, datasets) -> tuple:
    """A non-empty dataset drawn from ``datasets``, its records and the index of one."""
    from hypothesis import assume

    d = draw(datasets)
    recs = _records(d)
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
            donor = _records(draw(datasets))
            assume(len(donor) > 0)
            new = donor[draw(st.integers(0, len(donor) - 1))]
        assume(new != recs[i])
        return d, _like(d, recs[:i] + [new] + recs[i + 1:])

    return _pair()


def add_remove_one(datasets) -> st.SearchStrategy[tuple]:
    """Pairs (d, d′) where d′ is d without one of its records (unbounded DP's neighbours;
    the relation is symmetric, so adding a record is the same pair read backwards)."""
    datasets = _as_strategy(datasets)

    @st.composite
    def _pair(draw):
        d, recs, i = _one_record(draw, datasets)
        return d, _like(d, recs[:i] + recs[i + 1:])

    return _pair()


def bounded_change(vectors, *, linf=None, l1=None) -> st.SearchStrategy[tuple]:
    """Pairs (v, v′) of query-answer vectors with ‖v − v′‖∞ ≤ ``linf`` and/or
    ‖v − v′‖₁ ≤ ``l1`` (a sensitivity bound), v ≠ v′. Integer vectors move by integers.
    Give at least one bound; both must be positive."""
    from privtools.errors import ParameterError

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
        recs = _records(v)
        assume(len(recs) > 0)
        integer = all(isinstance(x, (int, np.integer)) for x in recs)
        step = (st.integers(-int(bound), int(bound)) if integer else
                st.floats(-float(bound), float(bound), allow_nan=False))
        move = [draw(step) for _ in recs]
        if l1 is not None:
            total = sum(abs(x) for x in move)
            assume(total <= l1)
        assume(any(x != 0 for x in move))
        return v, _like(v, [a + b for a, b in zip(recs, move)])

    return _pair()


def dataframe_rows(frames, neighbours: str = "replace-one") -> st.SearchStrategy[tuple]:
    """Pairs of pandas DataFrames one row apart: ``"replace-one"`` swaps one row for a row
    of another frame of ``frames``, ``"add-remove"`` drops one row (index reset)."""
    from privtools.errors import ParameterError

    if neighbours not in ("replace-one", "add-remove"):
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
        if neighbours == "add-remove":
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
    from privtools.errors import ParameterError

    if isinstance(neighbours, st.SearchStrategy):
        return neighbours
    if neighbours == "replace-one":
        return replace_one(datasets, **bounds)
    if neighbours == "add-remove":
        return add_remove_one(datasets)
    if neighbours in ("linf", "l1"):
        return bounded_change(datasets, **{neighbours: bounds.get("bound", 1)})
    raise ParameterError(f"neighbours must be one of {NEIGHBOURS} or a strategy of pairs, "
                         f"got {neighbours!r}")
