"""Hypothesis strategies for privacy parameters (requires ``hypothesis``).

Every strategy draws *exact* values where privtools wants them (``Fraction`` for ε, s and
probabilities), inside the ranges the papers' theorems cover, so property tests exercise
the same code paths a deployment does.

    from hypothesis import given
    from privtools.testing import strategies as pst

    @given(pst.plans())
    def test_plan_is_consistent(plan):
        assert plan.m >= plan.n * plan.g + 2 * plan.tau + 1
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from hypothesis import strategies as st

__all__ = ["epsilons", "batch_sizes", "probabilities", "scales", "noise_laws", "plans",
           "rewards", "neighbouring_rewards"]


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
