"""The RDP accountant: interprets the events of ``events.py`` as Rényi-DP curves.

    acc = RdpAccountant()                       # orders: DEFAULT_ORDERS unless given
    acc.compose(SkellamEvent(var=g**2 / eps**2, sensitivity=g), count=B)   # returns acc
    acc.rdp(8)                                  # ε(8) of everything composed so far
    eps, order = acc.epsilon(1e-6)              # Lemma 10 (000), minimised over orders
    delta, order = acc.delta(1.0)

Interpretation of each event (ε(α) at one order α), the dispatch table
:data:`RDP_INTERPRETERS` (``supported_events`` is its keys); the noise events read the
law's row of :data:`privtools.accounting.maps.PRIVACY_MAPS`:
    NoiseEvent                the Rényi curve of the law's row (below for the named ones)
    DiscreteLaplaceEvent      exact closed form (``curves.discrete_laplace_rdp``)
    SkellamEvent              Lemma 3 (000) at ⌈α⌉; ``exact=True``: renyi_shift at ⌈α⌉
    DiscreteGaussianSumEvent  Lemma 4 (000): ½ε²α; ``exact=True``: the certified D_α of the
                              n-fold sum on Z at ⌈α⌉ (``gaussian_sum_renyi``: window plus a
                              Cauchy–Schwarz tail), upper end, capped by the paper's bound
    GaussianEvent             αΔ²/(2σ²);  LaplaceEvent: Mironov's closed form
    ZCDPEvent                 ρα;  PureDPEvent: min{ε, ½ε²α} (or randomized response)
    ComposedEvent / RepeatedEvent   sums (RDP composes additively, Mironov 2017 Prop. 1;
                              App. H (000): B participations give B·ε(α))
Using ⌈α⌉ for bounds stated at integer orders is valid because D_α(P‖Q) is
non-decreasing in α (van Erven & Harremoës 2014, Thm 3).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath

from privtools.errors import ParameterError, UnsupportedEventError
from privtools.neighbours import REPLACE_ONE
from privtools.validation import check_order

from .._numeric import BASE_DPS, DEFAULT_ORDERS, Curve, is_sequence, mpf
from ..base import Accountant
from ..events import (
    ComposedEvent,
    DiscreteGaussianSumEvent,
    DiscreteLaplaceEvent,
    DpEvent,
    GaussianEvent,
    LaplaceEvent,
    NoiseEvent,
    PureDPEvent,
    RepeatedEvent,
    SkellamEvent,
    ZCDPEvent,
)
from ..maps import has_rdp, noise_rdp
from .conversions import DeltaResult, EpsilonResult, rdp_to_delta, rdp_to_dp
from .curves import _laplace_mp, _pure_min, _pure_rr_mp

__all__ = ["RdpAccountant", "event_rdp", "rdp_curve", "EventCurve"]


# ---------------------------------------------------------------------------- interpret
def _add(x, y):
    if isinstance(x, Fraction) and isinstance(y, Fraction):
        return x + y
    return mpf(x) + mpf(y)


def _mul(k: int, x):
    if isinstance(x, Fraction):
        return k * x
    return k * mpf(x)


def _noise(event, a: Fraction):
    """A noise law on a query (``NoiseEvent`` and the named noise events): the Rényi curve of
    the law's row in :data:`privtools.accounting.maps.PRIVACY_MAPS`."""
    noise = event.noise
    if not has_rdp(noise):
        raise _no_curve(noise)
    return noise_rdp(noise, a)


def _no_curve(noise: NoiseEvent) -> UnsupportedEventError:
    return UnsupportedEventError(
        f"RdpAccountant cannot interpret NoiseEvent of {type(noise.law).__name__}: its privacy "
        "map (privtools.accounting.maps) has no Rényi curve; account it with PldAccountant",
        event="NoiseEvent", accountant="RdpAccountant",
        supported=tuple(t.__name__ for t in RDP_INTERPRETERS))


#: The RDP accountant's dispatch table: each atomic event type → ε(α) at a validated order α
#: (a Fraction where exact, else an mpf). ``supported_events`` is its keys.
RDP_INTERPRETERS = {
    DiscreteLaplaceEvent: _noise,
    SkellamEvent: _noise,
    DiscreteGaussianSumEvent: _noise,
    GaussianEvent: lambda e, a: a * e.sensitivity**2 / (2 * e.sigma**2),
    LaplaceEvent: lambda e, a: _laplace_mp(a, e.b, e.sensitivity),
    ZCDPEvent: lambda e, a: e.rho * a,
    PureDPEvent: lambda e, a: _pure_rr_mp(a, e.eps) if e.tight else _pure_min(a, e.eps),
    NoiseEvent: _noise,
}


def _interpreter(event: DpEvent):
    for cls in type(event).__mro__:
        fn = RDP_INTERPRETERS.get(cls)
        if fn is not None:
            return fn
    return None


def _event_rdp(event: DpEvent, a: Fraction):
    """ε(α) of one event at a validated order, as a Fraction (exact) or an mpf."""
    if isinstance(event, ComposedEvent):
        total = Fraction(0)
        with mpmath.workdps(BASE_DPS + 10):
            for e in event.events:
                total = _add(total, _event_rdp(e, a))
        return total
    if isinstance(event, RepeatedEvent):
        if event.count == 0:
            return Fraction(0)
        with mpmath.workdps(BASE_DPS + 10):
            return _mul(event.count, _event_rdp(event.event, a))
    fn = _interpreter(event)
    if fn is None:
        raise UnsupportedEventError(f"event: no RDP interpretation for {type(event).__name__}",
                                    event=type(event).__name__, accountant="RdpAccountant",
                                    supported=tuple(t.__name__ for t in RDP_INTERPRETERS))
    return fn(event, a)


class EventCurve(Curve):
    """The RDP curve of an event: ``curve(alpha)`` -> float(s) rounded up."""

    def __init__(self, event: DpEvent):
        if not isinstance(event, DpEvent):
            raise ParameterError(f"event must be a DpEvent, got {type(event).__name__}")
        self.event = event

    def rdp_mp(self, a: Fraction):
        """The event's Rényi divergence at order α (a Fraction), in mpmath."""
        return _event_rdp(self.event, a)

    def __repr__(self) -> str:
        return f"EventCurve({self.event!r})"


def rdp_curve(event: DpEvent) -> EventCurve:
    """The RDP curve α ↦ ε(α) of ``event`` (a callable; see the module docstring)."""
    return EventCurve(event)


def event_rdp(event: DpEvent, alpha):
    """ε(α) of ``event`` at ``alpha`` (a number > 1 or a sequence), rounded up."""
    return EventCurve(event)(alpha)


# ---------------------------------------------------------------------------- accountant
def _check_orders(orders) -> tuple:
    if orders is None:
        return DEFAULT_ORDERS
    if not is_sequence(orders) or len(orders) == 0:
        raise ParameterError("orders must be a non-empty sequence of numbers > 1")
    for o in orders:
        check_order("orders", o)
    return tuple(orders)


class RdpAccountant(Accountant):
    """Rényi-DP accountant over the events of ``privtools.accounting.events``.

    ``orders``: the orders at which :meth:`epsilon` / :meth:`delta` take their infimum
    (default ``DEFAULT_ORDERS``); ``neighbouring``: the relation its guarantees are stated
    for (``"replace-one"``, the default, or ``"add-remove"``: see
    :class:`~privtools.accounting.Accountant`; every event it reads holds under either
    relation for a sensitivity stated for it). Events are recorded, not evaluated, at
    :meth:`compose`; every query interprets the ledger afresh (curves are cheap, the
    expensive parts — Lemma 4's ξ, exact divergences — are cached).

    Follows the :class:`~privtools.accounting.Accountant` contract. It interprets every
    event with a Rényi curve (``supported_events``); ``ModularEvent`` and ``PmfPairEvent``
    have none here and are refused by :meth:`compose` with
    :class:`~privtools.errors.UnsupportedEventError` (use ``PldAccountant``).
    """

    interpreters = RDP_INTERPRETERS

    def _check(self, event: DpEvent, top: DpEvent) -> None:
        """A ``NoiseEvent`` is read only when its law's privacy map has a Rényi curve."""
        if isinstance(event, NoiseEvent) and not has_rdp(event):
            raise self._refusal(event, top, f"the privacy map of {type(event.law).__name__} "
                                "(privtools.accounting.maps) has no Rényi curve; account it "
                                "with PldAccountant")

    def __init__(self, orders=None, *, neighbouring: str = REPLACE_ONE):
        super().__init__(neighbouring=neighbouring)
        self._orders = _check_orders(orders)
        self._ledger = self._events         # the (event, count) pairs (one list)

    @property
    def orders(self) -> tuple:
        """The Rényi orders the accountant evaluates."""
        return self._orders

    @property
    def ledger(self) -> ComposedEvent:
        """Everything composed so far, as one event (kept for compatibility; the contract's
        ledger is :attr:`events`, the ``(event, count)`` pairs)."""
        return ComposedEvent(tuple(RepeatedEvent(e, c) if c != 1 else e
                                   for e, c in self._ledger))

    def compose(self, event: DpEvent, count: int = 1) -> RdpAccountant:
        """Record ``count`` adaptive runs of ``event``; returns ``self`` (chainable).
        Raises :class:`~privtools.errors.UnsupportedEventError` for an event without a
        Rényi curve here (see :meth:`~privtools.accounting.Accountant.compose`)."""
        super().compose(event, count)
        return self

    def _record(self, event: DpEvent, count: int) -> None:
        """Nothing to prepare: events are interpreted at each query."""

    def curve(self) -> EventCurve:
        """A snapshot of the composed RDP curve."""
        return EventCurve(self.ledger)

    def rdp(self, alpha):
        """ε(α) of the composition (a float rounded up, or an array for a sequence)."""
        return self.curve()(alpha)

    def epsilon(self, delta, method: str = "lemma10", orders=None) -> EpsilonResult:
        """(ε, δ)-DP of the composition: Lemma 10 (000) (or ``method="mironov"``),
        minimised over the orders. ``eps, order = acc.epsilon(delta)``."""
        orders = self._orders if orders is None else _check_orders(orders)
        return rdp_to_dp(self.curve(), delta, orders=orders, method=method)

    def delta(self, epsilon, method: str = "lemma10", orders=None) -> DeltaResult:
        """δ(ε) of the composition (the same conversion inverted in δ, minimised over
        the orders). ``delta, order = acc.delta(epsilon)``."""
        orders = self._orders if orders is None else _check_orders(orders)
        return rdp_to_delta(self.curve(), epsilon, orders=orders, method=method)

    def __repr__(self) -> str:
        return f"RdpAccountant({len(self._ledger)} events, {self.neighbouring})"
