"""One contract test over every accountant and every event type of privtools.accounting.

A new accountant joins ``ACCOUNTANTS``; a new event type must join ``SAMPLES`` (the test
``test_every_exported_event_type_has_a_sample`` fails until it does).
"""

from __future__ import annotations

import math
import pickle
from fractions import Fraction

import mpmath
import pytest
from flint import arb

import privtools.accounting as A
from privtools.accounting.sampled_events import GROUPED
from privtools.certified.intervals import ends
from privtools.errors import ParameterError, UnsupportedEventError
from privtools.exact import ExactPMF
from privtools.noise import DiscreteLaplace, Polya, Skellam


def _pmf(masses: list[Fraction], lo: int = 0) -> ExactPMF:
    balls = tuple(arb(m.numerator) / m.denominator for m in masses)
    return ExactPMF(lo, balls, mpmath.mpf(0), 30, label="table")


class _UnknownEvent(A.DpEvent):
    """An event no accountant has heard of (a user's own DpEvent subclass)."""

    __slots__ = ()


# ---------------------------------------------------------------------- the parameters
# (accountant class, whether ε/δ of an empty composition is defined (= 0) or refused)
ACCOUNTANTS = [
    pytest.param(A.RdpAccountant, True, id="rdp"),
    pytest.param(A.PldAccountant, False, id="pld"),
]

# The atomic event types each accountant interprets — stated here independently of the
# accountants' own ``supported_events`` declarations.
EXPECTED_SUPPORT = {
    A.RdpAccountant: {"DiscreteLaplaceEvent", "SkellamEvent", "DiscreteGaussianSumEvent",
                      "GaussianEvent", "LaplaceEvent", "ZCDPEvent", "PureDPEvent",
                      "NoiseEvent"},
    A.PldAccountant: {"DiscreteLaplaceEvent", "SkellamEvent", "DiscreteGaussianSumEvent",
                      "GaussianEvent", "LaplaceEvent", "PureDPEvent", "ModularEvent",
                      "PmfPairEvent", "PoissonSampledEvent",
                      "SampledWithoutReplacementEvent", "TruncatedPoissonSampledEvent",
                      "ApproxDPEvent", "ShuffledEvent", "RandomAllocationEvent", "NoiseEvent",
                      "SampledWithReplacementEvent", "ShuffledBatchesEvent"},
}

_ATOMS = {
    A.DiscreteLaplaceEvent: A.DiscreteLaplaceEvent(scale=2, sensitivity=1),
    A.SkellamEvent: A.SkellamEvent(var=4, sensitivity=1),
    A.DiscreteGaussianSumEvent: A.DiscreteGaussianSumEvent(n=2, sigma2=1, sensitivity=1),
    A.GaussianEvent: A.GaussianEvent(sigma=2),
    A.LaplaceEvent: A.LaplaceEvent(b=2),
    A.ZCDPEvent: A.ZCDPEvent(Fraction(1, 8)),
    A.PureDPEvent: A.PureDPEvent(Fraction(1, 2)),
    A.ModularEvent: A.ModularEvent(A.DiscreteLaplaceEvent(scale=2), 16),
    A.PmfPairEvent: A.PmfPairEvent(_pmf([Fraction(1, 4), Fraction(3, 4)]),
                                   _pmf([Fraction(1, 2), Fraction(1, 2)])),
    A.PoissonSampledEvent: A.PoissonSampledEvent(A.PureDPEvent(1), q=Fraction(1, 10)),
    A.TruncatedPoissonSampledEvent: A.TruncatedPoissonSampledEvent(
        A.PureDPEvent(1), q=Fraction(1, 10), max_batch=40, population=100),
    A.SampledWithoutReplacementEvent: A.SampledWithoutReplacementEvent(
        A.DiscreteLaplaceEvent(scale=2), batch=10, population=100),
    A.SampledWithReplacementEvent: A.SampledWithReplacementEvent(
        A.DiscreteLaplaceEvent(scale=2), batch=10, population=100),
    A.RandomAllocationEvent: A.RandomAllocationEvent(A.GaussianEvent(sigma=2), steps=10),
    A.ShuffledBatchesEvent: A.ShuffledBatchesEvent(A.GaussianEvent(sigma=2), steps=10),
    A.ShuffledEvent: A.ShuffledEvent(A.PureDPEvent(1), n=100),
    A.ApproxDPEvent: A.ApproxDPEvent(Fraction(1, 2), Fraction(1, 10**6)),
    A.NoiseEvent: A.NoiseEvent(Skellam(4), 1),
}
# One sample per exported event type (composites built from supported-by-both atoms and
# from mixed ones, below).
SAMPLES = {
    **_ATOMS,
    A.ComposedEvent: A.ComposedEvent((A.PureDPEvent(1), A.DiscreteLaplaceEvent(scale=3))),
    A.RepeatedEvent: A.RepeatedEvent(A.DiscreteLaplaceEvent(scale=2), 3),
}

# Events both accountants interpret and whose PLD is cheap (lattice losses: the certified
# interval is a point to Arb's radius), for the cross-accountant checks.
SHARED = [
    pytest.param(A.DiscreteLaplaceEvent(scale=4, sensitivity=1), id="dlap"),
    pytest.param(A.PureDPEvent(Fraction(1, 2)), id="pure"),
    pytest.param(A.DiscreteGaussianSumEvent(n=1, sigma2=4, sensitivity=1), id="dgauss"),
]


def _exported_event_types() -> list[type]:
    out = []
    for name in A.__all__:
        obj = getattr(A, name)
        if isinstance(obj, type) and issubclass(obj, A.DpEvent) and obj is not A.DpEvent:
            out.append(obj)
    return out


EVENT_TYPES = _exported_event_types()


def _expected(acc_type, event) -> bool:
    """Whether ``acc_type`` should interpret ``event`` (composites: every part)."""
    if isinstance(event, A.ComposedEvent):
        return all(_expected(acc_type, e) for e in event.events)
    if isinstance(event, A.RepeatedEvent):
        return _expected(acc_type, event.event)
    # built with the default relation, replace-one: add/remove-only events are refused
    relation = getattr(event, "neighbouring", None)
    return type(event).__name__ in EXPECTED_SUPPORT[acc_type] and \
        relation in (None, "replace-one")


def _eps_bracket(result) -> tuple[float, float]:
    """(lower, upper) of an ε(δ) answer: an RDP bound is its own bracket for monotonicity
    (it is monotone itself); a PLD answer brackets the true ε."""
    if isinstance(result, A.PldEpsilon):
        lo, hi = ends(result.interval)
        return lo, result.epsilon                  # lo unrounded (an mpf)
    return result.epsilon, result.epsilon


# ------------------------------------------------------------------------ the contract
def test_every_exported_event_type_has_a_sample():
    assert set(EVENT_TYPES) == set(SAMPLES), "a new event type must join SAMPLES"
    assert EVENT_TYPES, "privtools.accounting exports no events?"


@pytest.mark.parametrize("make, empty_defined", ACCOUNTANTS)
def test_accountant_subclasses_the_one_base(make, empty_defined):
    acc = make()
    assert isinstance(acc, A.Accountant)
    assert make.neighbouring == "replace-one"
    assert {t.__name__ for t in make.supported_events} == EXPECTED_SUPPORT[make]
    assert acc.events == ()


@pytest.mark.parametrize("event_type", EVENT_TYPES, ids=lambda t: t.__name__)
@pytest.mark.parametrize("make, empty_defined", ACCOUNTANTS)
def test_supports_agrees_with_compose(make, empty_defined, event_type):
    event = SAMPLES[event_type]
    acc = make()
    assert acc.supports(event) is _expected(make, event)
    if acc.supports(event):
        assert acc.compose(event) is acc
        assert acc.events == ((event, 1),)
    else:
        with pytest.raises(UnsupportedEventError, match=event_type.__name__):
            acc.compose(event)
        assert acc.events == ()


@pytest.mark.parametrize("make, empty_defined", ACCOUNTANTS)
def test_composites_are_supported_iff_every_part_is(make, empty_defined):
    acc = make()
    atoms = list(_ATOMS.values())
    for a in atoms:
        for b in atoms:
            both = acc.supports(a) and acc.supports(b)
            assert acc.supports(A.ComposedEvent((a, b))) is both
            assert acc.supports(A.RepeatedEvent(A.ComposedEvent((a,)), 2)) is acc.supports(a)
            # a zero count does not make an unsupported part interpretable
            assert acc.supports(A.RepeatedEvent(a, 0)) is acc.supports(a)
    assert acc.supports(A.ComposedEvent(())) is True
    assert acc.supports("not an event") is False


@pytest.mark.parametrize("make, empty_defined", ACCOUNTANTS)
def test_unsupported_event_is_refused_naming_it(make, empty_defined):
    acc = make().compose(A.PureDPEvent(1))
    for event in (_UnknownEvent(), A.ComposedEvent((A.PureDPEvent(1), _UnknownEvent())),
                  A.RepeatedEvent(_UnknownEvent(), 0)):
        assert acc.supports(event) is False
        with pytest.raises(UnsupportedEventError) as info:
            acc.compose(event, count=2)
        err = info.value
        msg = str(err)
        assert "_UnknownEvent" in msg and make.__name__ in msg
        for t in make.supported_events:
            assert t.__name__ in msg
        assert err.event == "_UnknownEvent" and err.accountant == make.__name__
        assert set(err.supported) == EXPECTED_SUPPORT[make]
        assert isinstance(err, ParameterError)           # existing handlers still catch it
        again = pickle.loads(pickle.dumps(err))
        assert type(again) is UnsupportedEventError and again.event == err.event
    assert acc.events == ((A.PureDPEvent(1), 1),)        # nothing recorded by a refusal
    with pytest.raises(ParameterError, match="DpEvent"):
        acc.compose("not an event")
    with pytest.raises(ParameterError, match="count"):
        acc.compose(A.PureDPEvent(1), count=-1)


@pytest.mark.parametrize("make, empty_defined", ACCOUNTANTS)
def test_events_record_what_was_composed_in_order(make, empty_defined):
    acc = make()
    seq = [(A.PureDPEvent(1), 2), (A.DiscreteLaplaceEvent(scale=3), 1),
           (A.RepeatedEvent(A.PureDPEvent(Fraction(1, 4)), 2), 3), (A.PureDPEvent(1), 0),
           (A.ComposedEvent((A.DiscreteLaplaceEvent(scale=2), A.PureDPEvent(1))), 1)]
    for i, (e, c) in enumerate(seq):
        acc.compose(e, count=c)
        assert acc.events == tuple(seq[: i + 1])
    assert all(type(pair) is tuple and len(pair) == 2 for pair in acc.events)


@pytest.mark.parametrize("make, empty_defined", ACCOUNTANTS)
def test_composing_nothing_costs_nothing(make, empty_defined):
    for acc in (make(), make().compose(A.PureDPEvent(1), count=0),
                make().compose(A.ComposedEvent(()))):
        if empty_defined:
            assert acc.epsilon(1e-6).epsilon == 0.0
            assert acc.delta(0).delta == 0.0
        else:
            with pytest.raises(ParameterError, match="nothing composed"):
                acc.epsilon(1e-6)
            with pytest.raises(ParameterError, match="nothing composed"):
                acc.delta(0)


@pytest.mark.parametrize("event", SHARED)
@pytest.mark.parametrize("make, empty_defined", ACCOUNTANTS)
def test_composition_is_monotone(make, empty_defined, event):
    delta = 1e-6
    previous = None
    for k in range(1, 5):
        lo, hi = _eps_bracket(make().compose(event, count=k).epsilon(delta))
        assert lo <= hi
        if previous is not None:
            assert hi >= previous, (k, hi, previous)   # ε(δ) after k ≥ after k−1
        previous = lo
    # δ(ε) likewise grows with k
    d1 = make().compose(event, count=1).delta(1.0).delta
    d3 = make().compose(event, count=3).delta(1.0).delta
    assert d3 >= d1 >= 0


@pytest.mark.parametrize("event", SHARED)
@pytest.mark.parametrize("k", [1, 8])
def test_accountants_agree_within_their_guarantees(event, k):
    delta = 1e-6
    rdp = A.RdpAccountant().compose(event, count=k).epsilon(delta)
    pld = A.PldAccountant().compose(event, count=k).epsilon(delta)
    lo, hi = ends(pld.interval)
    assert lo <= hi <= pld.epsilon
    # RDP's ε(δ) is an upper bound on the true ε(δ), which PLD encloses; on these lattice
    # events PLD's certified upper end is itself below it.
    assert pld.epsilon <= rdp.epsilon
    # and δ at RDP's ε is within RDP's δ
    assert A.PldAccountant().compose(event, count=k).delta(rdp.epsilon).delta <= delta * (1 + 1e-9)


# ------------------------------------------------------------------ exact expectations
def test_exact_values_where_they_exist():
    rho = Fraction(1, 8)
    acc = A.RdpAccountant().compose(A.ZCDPEvent(rho), count=3)
    assert acc.rdp(2) == pytest.approx(float(3 * rho * 2), rel=1e-15)
    # an ε-DP release alone: δ(ε) = 0 exactly, and ε(δ) ≤ ε
    eps = Fraction(1, 2)
    pld = A.PldAccountant().compose(A.PureDPEvent(eps))
    assert pld.delta(eps).delta == 0.0
    assert pld.epsilon(1e-6).epsilon <= float(eps) * (1 + 1e-12)
    # k-fold randomized response at ε' = 0: δ = P(loss > 0) − E[e^{−loss}; loss > 0]
    # = (p − q)/(…) summed exactly; for k = 1 it is (e^ε − 1)/(e^ε + 1)
    e = math.exp(float(eps))
    d = A.PldAccountant().compose(A.PureDPEvent(eps)).delta(0)
    lo, hi = ends(d.interval)
    assert float(lo) <= (e - 1) / (e + 1) * (1 + 1e-12) and float(hi) >= (e - 1) / (e + 1) * (
        1 - 1e-12)


# ------------------------------------------------- supports is the traversal of compose
class _OwnLaw(DiscreteLaplace):
    """A user's own law: no privacy-map row (a row is per law type, not inherited)."""


def _inner_candidates():
    """Single releases a sampled event may hold (some readable by an accountant, some not)."""
    return [A.GaussianEvent(sigma=2), A.PureDPEvent(1), A.ZCDPEvent(Fraction(1, 8)),
            A.DiscreteLaplaceEvent(scale=2), A.NoiseEvent(Skellam(4), 1),
            A.NoiseEvent(Polya(2, Fraction(1, 2)), 1), A.NoiseEvent(_OwnLaw(2), 1),
            _UnknownEvent()]


def _nested_events():
    """Every exported event type, sampled events around every inner candidate, and both
    nested in composites (with mixed relations)."""
    out = list(SAMPLES.values()) + [_UnknownEvent()]
    for inner in _inner_candidates():
        out.append(A.PoissonSampledEvent(inner, q=Fraction(1, 10)))
        out.append(A.SampledWithoutReplacementEvent(inner, batch=10, population=100))
        out.append(A.RandomAllocationEvent(inner, steps=4))
        out.append(A.RandomAllocationEvent(inner, steps=4, allocations=2))
        out.append(A.ShuffledBatchesEvent(inner, steps=4))
        if isinstance(inner, GROUPED):
            out.append(A.SampledWithReplacementEvent(inner, batch=3, population=10))
    out.append(A.ModularEvent(A.NoiseEvent(Polya(2, Fraction(1, 2)), 1), 8))
    out.append(A.ModularEvent(A.NoiseEvent(_OwnLaw(2), 1), 8))
    singles = list(out)
    for a in singles[::3]:
        out.append(A.ComposedEvent((A.PureDPEvent(1), a)))
        out.append(A.RepeatedEvent(A.ComposedEvent((a, A.RepeatedEvent(a, 0))), 2))
    out.append(A.ComposedEvent((A.PoissonSampledEvent(A.PureDPEvent(1), q=Fraction(1, 10)),
                                A.SampledWithoutReplacementEvent(A.PureDPEvent(1), batch=10,
                                                                 population=100))))
    return out


@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
@pytest.mark.parametrize("make, empty_defined", ACCOUNTANTS)
def test_supports_is_true_iff_compose_does_not_raise(make, empty_defined, relation):
    """supports(e) runs compose's traversal without recording: for every event type, nested
    in composites and sampled events, supports(e) is True iff compose(e) accepts it (no
    UnsupportedEventError), and a refusal records nothing."""
    for event in _nested_events():
        acc = make(neighbouring=relation)
        said = acc.supports(event)
        try:
            acc.compose(event)
        except UnsupportedEventError:
            assert said is False, event
            assert acc.events == ()
        else:
            assert said is True, event
            assert acc.events == ((event, 1),)
