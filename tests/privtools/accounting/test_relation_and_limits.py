"""The accountant certifies a relation (issue 43, part 5): the neighbouring relation is a
value each accountant is built with and checks per event; pure-DP ledgers answer ε(0); every
input beyond the accountant's stated work limits is refused before any work."""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import privtools.accounting as A
from privtools.accounting.pld import accountant as P
from privtools.certified.intervals import ends, exact_rational
from privtools.errors import ParameterError, UnsupportedEventError

G = A.GaussianEvent(sigma=2)
POISSON = A.PoissonSampledEvent(G, q=Fraction(1, 10))
FIXED = A.SampledWithoutReplacementEvent(G, batch=10, population=100)
ALLOCATED = A.RandomAllocationEvent(G, steps=4)
SHUFFLED = A.ShuffledEvent(A.PureDPEvent(1), n=100)
ADD_REMOVE_ONLY = [POISSON, ALLOCATED]
REPLACE_ONE_ONLY = [FIXED, SHUFFLED]
EITHER = [G, A.LaplaceEvent(b=2), A.DiscreteLaplaceEvent(scale=3), A.PureDPEvent(1),
          A.SkellamEvent(var=9, sensitivity=1), A.ApproxDPEvent(1, Fraction(1, 10**6)),
          A.ModularEvent(A.DiscreteLaplaceEvent(scale=2), 16)]


# ------------------------------------------------------------------------ the relation
@pytest.mark.parametrize("make", [A.PldAccountant, A.RdpAccountant])
def test_the_relation_is_built_in_and_read_back(make):
    assert make.neighbouring == "replace-one"               # the class: the default
    assert make().neighbouring == "replace-one"
    assert make(neighbouring="add-remove").neighbouring == "add-remove"
    assert make(neighbouring="replace-one").neighbouring == "replace-one"
    with pytest.raises(AttributeError, match="fixed when the accountant is built"):
        make().neighbouring = "add-remove"
    for bad in ("add/remove", "", None, 1, "query"):
        with pytest.raises(ParameterError, match="^neighbouring must be"):
            make(neighbouring=bad)


@pytest.mark.parametrize("event", ADD_REMOVE_ONLY, ids=lambda e: type(e).__name__)
def test_add_remove_events_are_refused_under_replace_one_naming_the_alternative(event):
    acc = A.PldAccountant()
    assert acc.supports(event) is False
    with pytest.raises(UnsupportedEventError) as info:
        acc.compose(event)
    msg = str(info.value)
    assert isinstance(info.value, ParameterError)
    assert type(event).__name__ in msg
    assert "PldAccountant(neighbouring='add-remove')" in msg
    assert acc.events == ()
    ok = A.PldAccountant(neighbouring="add-remove")
    assert ok.supports(event) and ok.compose(event) is ok


@pytest.mark.parametrize("event", REPLACE_ONE_ONLY, ids=lambda e: type(e).__name__)
def test_replace_one_events_are_refused_under_add_remove_naming_the_alternative(event):
    acc = A.PldAccountant(neighbouring="add-remove")
    assert acc.supports(event) is False
    with pytest.raises(UnsupportedEventError,
                       match=r"PldAccountant\(neighbouring='replace-one'\)"):
        acc.compose(event)
    assert A.PldAccountant().compose(event).events == ((event, 1),)


def test_fixed_batches_refused_under_add_remove_name_poisson_sampling():
    with pytest.raises(UnsupportedEventError, match="PoissonSampledEvent"):
        A.PldAccountant(neighbouring="add-remove").compose(FIXED)


@pytest.mark.parametrize("relation", ["add-remove", "replace-one"])
@pytest.mark.parametrize("event", EITHER, ids=lambda e: type(e).__name__)
def test_plain_events_hold_under_either_relation(relation, event):
    acc = A.PldAccountant(neighbouring=relation)
    assert acc.supports(event)
    assert acc.compose(event).events == ((event, 1),)


def test_the_issue_mixed_ledger_is_refused_whichever_comes_first():
    """Issue 43: a Poisson-sampled (add/remove) and a without-replacement (replace-one) σ = 2
    Gaussian composed into one ε (0.0357, labelled replace-one) — sound for neither."""
    g = A.GaussianEvent(sigma=2)
    poisson = A.PoissonSampledEvent(g, q=Fraction(1, 100))
    fixed = A.SampledWithoutReplacementEvent(g, batch=1, population=100)
    for relation in ("add-remove", "replace-one"):
        for first, second in ((poisson, fixed), (fixed, poisson)):
            acc = A.PldAccountant(neighbouring=relation)
            with pytest.raises(UnsupportedEventError, match="neighbouring="):
                acc.compose(first).compose(second)
            assert len(acc.events) <= 1          # the refused event is not in the ledger
        mixed = A.ComposedEvent((poisson, fixed))
        assert not A.PldAccountant(neighbouring=relation).supports(mixed)
        with pytest.raises(UnsupportedEventError):
            A.PldAccountant(neighbouring=relation).compose(mixed)
    with pytest.raises(ParameterError, match="no ε holds for both relations"):
        A.required_relation(A.ComposedEvent((poisson, fixed)))
    assert A.required_relation(A.RepeatedEvent(poisson, 3)) == "add-remove"
    assert A.required_relation(fixed) == "replace-one"
    assert A.required_relation(g) is None


def test_the_rdp_accountant_follows_the_same_rule():
    acc = A.RdpAccountant(neighbouring="add-remove").compose(G, 3)
    same = A.RdpAccountant().compose(G, 3)
    assert acc.epsilon(1e-6).epsilon == same.epsilon(1e-6).epsilon   # the same laws
    assert acc.neighbouring != same.neighbouring


def test_calibrate_uses_the_relation_the_sampling_needs():
    sigma = A.calibrate(lambda s: A.PoissonSampledEvent(A.GaussianEvent(sigma=s),
                                                        q=Fraction(1, 10)),
                        count=10, epsilon=2, delta=1e-5, rtol=1e-2, levels=(2**12,))
    acc = A.PldAccountant(max_points=2**12, neighbouring="add-remove")
    ev = A.PoissonSampledEvent(A.GaussianEvent(sigma=sigma), q=Fraction(1, 10))
    assert acc.compose(ev, 10).epsilon(1e-5).epsilon <= 2
    with pytest.raises(ParameterError, match="^neighbouring must be"):
        A.calibrate(lambda s: A.GaussianEvent(sigma=s), epsilon=1, delta=1e-5,
                    neighbouring="both")


# ------------------------------------------------------------------------ ε(0)
PURE = st.sampled_from([
    (A.PureDPEvent(Fraction(1, 2)), Fraction(1, 2)),
    (A.PureDPEvent(Fraction(3)), Fraction(3)),
    (A.PureDPEvent(0), Fraction(0)),
    (A.DiscreteLaplaceEvent(scale=4, sensitivity=2), Fraction(1, 2)),
    (A.DiscreteLaplaceEvent(scale=Fraction(7, 3), sensitivity=1), Fraction(3, 7)),
    (A.LaplaceEvent(b=Fraction(5, 2), sensitivity=Fraction(1, 2)), Fraction(1, 5)),
    (A.ApproxDPEvent(Fraction(2, 3), 0), Fraction(2, 3)),
])


@settings(max_examples=40, deadline=None, derandomize=True)
@given(parts=st.lists(st.tuples(PURE, st.integers(0, 5)), min_size=1, max_size=4),
       relation=st.sampled_from(["add-remove", "replace-one"]))
def test_a_pure_ledger_answers_epsilon_0_with_the_exact_sum(parts, relation):
    acc = A.PldAccountant(neighbouring=relation)
    exact = Fraction(0)
    for (event, eps), count in parts:
        acc.compose(event, count)
        exact += count * eps
    if not acc.ledger:                         # every count 0: nothing composed
        with pytest.raises(ParameterError, match="nothing composed"):
            acc.epsilon(0)
        return
    r = acc.epsilon(0)
    lo, hi = (exact_rational(x) for x in ends(r.interval))
    assert lo <= exact <= hi
    assert hi - lo <= Fraction(1, 2**100) * max(1, exact)
    assert r.delta == 0.0
    assert Fraction(r.epsilon) >= exact                   # the float rounded up
    if exact.denominator & (exact.denominator - 1) == 0:     # dyadic: exactly the float
        assert r.epsilon == float(exact)


def test_epsilon_0_of_the_issue_pure_ledger():
    acc = A.PldAccountant().compose(A.PureDPEvent(Fraction(1, 2)), 3).compose(
        A.DiscreteLaplaceEvent(scale=4, sensitivity=2)).compose(A.LaplaceEvent(b=2))
    r = acc.epsilon(0.0)
    assert r.epsilon == 2.5 and ends(r.interval) == (2.5, 2.5)
    assert ends(acc.delta(2.5).interval)[0] == 0     # the grid's bracket of δ(2.5) = 0


def test_epsilon_0_of_a_sampled_pure_release_is_the_amplified_epsilon():
    q = Fraction(1, 10)
    acc = A.PldAccountant(neighbouring="add-remove").compose(
        A.PoissonSampledEvent(A.PureDPEvent(1), q=q), 4)
    lo, hi = ends(acc.epsilon(0).interval)
    with mpmath.workdps(60):
        exact = 4 * mpmath.log(1 - mpmath.mpf(1) / 10 + mpmath.e / 10)
    assert lo <= exact <= hi and hi - lo <= mpmath.mpf(2) ** -50 * exact


@pytest.mark.parametrize("event", [G, A.SkellamEvent(var=9, sensitivity=1),
                                   A.DiscreteGaussianSumEvent(1, 4, 1),
                                   A.ApproxDPEvent(1, Fraction(1, 10**6))],
                         ids=lambda e: type(e).__name__)
def test_an_unbounded_loss_has_epsilon_0_infinite(event):
    r = A.PldAccountant().compose(A.PureDPEvent(1)).compose(event, 2).epsilon(0)
    assert r.epsilon == float("inf")
    assert ends(r.interval) == (mpmath.inf, mpmath.inf)


def test_epsilon_0_not_certified_is_refused_naming_why():
    acc = A.PldAccountant().compose(A.ModularEvent(A.DiscreteLaplaceEvent(scale=2), 16))
    with pytest.raises(ParameterError, match="delta = 0 is not certified.*ModularEvent"):
        acc.epsilon(0)
    with pytest.raises(ParameterError, match=r"delta must be in \[0, 1\]"):
        acc.epsilon(-1e-9)


# ------------------------------------------------------------------------ work limits
@pytest.mark.parametrize(("event", "starts"), [
    (A.GaussianEvent(sigma=Fraction(1, 1000)), "sigma = 0.001"),
    (A.PoissonSampledEvent(A.GaussianEvent(sigma=Fraction(1, 1000)), q=Fraction(1, 100)),
     "sigma = 0.001"),
    (A.GaussianEvent(sigma=1, sensitivity=10**300), "sensitivity = 1e+300"),
    (A.GaussianEvent(sigma=Fraction(1, 10**300)), "sigma = 1e-300"),
    (A.PoissonSampledEvent(A.GaussianEvent(sigma=10**300), q=Fraction(1, 2)),
     "sigma = 1e+300"),
    (A.PoissonSampledEvent(A.GaussianEvent(sigma=1), q=Fraction(1, 10**300)), "q: "),
    (A.SampledWithoutReplacementEvent(A.GaussianEvent(sigma=1), 1, 10**30), "batch: "),
    (A.LaplaceEvent(b=Fraction(1, 10**4)), "b = 0.0001"),
    (A.PureDPEvent(2000), "eps = 2000"),
    (A.ApproxDPEvent(5000, Fraction(1, 10)), "epsilon = 5000"),
    (A.DiscreteLaplaceEvent(scale=10**9, sensitivity=10**8), "sensitivity = 100000000"),
], ids=lambda x: x if isinstance(x, str) else type(x).__name__)
def test_inputs_beyond_the_limits_are_refused_before_any_work(event, starts):
    relation = A.required_relation(event) or "replace-one"
    acc = A.PldAccountant(neighbouring=relation)
    with pytest.raises(ParameterError) as info:
        acc.compose(event, 100)
    msg = str(info.value)
    assert msg.startswith(starts), msg
    assert "limit 2**" in msg and "\n" not in msg
    assert acc.events == ()


def test_the_limits_are_stated_constants():
    assert (P.GRID_LIMIT, P.LOSS_LIMIT, P.LOSS_FLOOR, P.RATE_FLOOR) == (
        2**22, 2**10, Fraction(1, 2**128), Fraction(1, 2**64))
    for name in ("GRID_LIMIT", "LOSS_LIMIT", "LOSS_FLOOR", "RATE_FLOOR"):
        assert f":data:`{name}`" in P.__doc__
    # μ = Δ²/(2σ²) = 512 is within, 1058 beyond (μ = 1024 itself is irrational in σ)
    A.PldAccountant().compose(A.GaussianEvent(sigma=Fraction(1, 32)))
    with pytest.raises(ParameterError, match="above the limit 2"):
        A.PldAccountant().compose(A.GaussianEvent(sigma=Fraction(1, 46)))


def test_max_points_and_a_fixed_step_are_limited():
    with pytest.raises(ParameterError, match=r"^max_points = .* above the limit 2\*\*22"):
        A.PldAccountant(max_points=2**40)
    acc = A.PldAccountant(step=Fraction(1, 2**40)).compose(A.GaussianEvent(sigma=1))
    acc.compose(A.LaplaceEvent(b=1))                # not Gaussian-only: the grid is built
    with pytest.raises(ParameterError, match=r"^step = .* above the limit 2\*\*22"):
        acc.epsilon(1e-6)


def test_a_huge_sigma_under_sampling_is_answered_on_a_bounded_grid():
    """σ = 10¹⁰ with q = 1/100 (issue 43: MemoryError): the grid reaches down to the floor
    log(1 − q), so it stays within the planned points; ε(10⁻⁵) is certified 0."""
    acc = A.PldAccountant(neighbouring="add-remove").compose(
        A.PoissonSampledEvent(A.GaussianEvent(sigma=10**10), q=Fraction(1, 100)), 100)
    r = acc.epsilon(Fraction(1, 10**5))
    assert r.epsilon == 0.0
    assert len(acc.pld().forward[0]) <= P.MAX_POINTS
